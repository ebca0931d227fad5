"""Quality intervals on PandaLM's human votes: judgebayes against evalica and arena-rank.

The same 999 human majority verdicts of five generators (105 ties) go to every method in
this process; qualities are compared on one scale, logits summing to zero:

- judgebayes naive Bradley-Terry (Newton MAP + Laplace, 4000 draws), ties by Davidson's
  model (default) and as half a win (the peers' treatment);
- evalica.bradley_terry with its bootstrap (1000 resamples, percentile), ties half a win;
  its scores are exp-scale, so each resample is logged and centred;
- arena-rank's BradleyTerry with its sandwich intervals, ties half a win, ratings turned
  back into logits (rating - 1000) / (400 / ln 10) and centred.

Printed: per item the estimate and 95% width for each method, and the ratio of judgebayes'
mean width to each peer's.
Run: python benchmarks/pandalm_peers.py
"""

import time

import numpy as np
import pandas as pd

from judgebayes.datasets import pandalm_comparisons
from judgebayes.studies.ranking import PairwiseRanking


def main():
    comps = pandalm_comparisons("human")
    items = sorted(set(comps["first"]) | set(comps["second"]))
    rows = {}
    for ties in ("davidson", "half"):
        t0 = time.perf_counter()
        fit = PairwiseRanking.from_frames(comps, ties=ties).fit("naive", random_seed=0, draws=4000)
        iv = fit.interval().loc[items]
        rows[f"judgebayes ({ties})"] = (iv["estimate"], iv["upper"] - iv["lower"])
        print(f"judgebayes naive, ties {ties}: {time.perf_counter() - t0:.2f} s")

    import evalica

    w = np.where(
        comps["winner"] == comps["first"],
        evalica.Winner.X,
        np.where(comps["winner"] == comps["second"], evalica.Winner.Y, evalica.Winner.Draw),
    )
    t0 = time.perf_counter()
    boot = evalica.bootstrap(
        evalica.bradley_terry,
        comps["first"],
        comps["second"],
        w.tolist(),
        n_resamples=1000,
        bootstrap_method="percentile",
        random_state=0,
    )
    dist = np.log(boot.distribution[items].to_numpy(float))
    dist -= dist.mean(axis=1, keepdims=True)
    lo, hi = np.quantile(dist, [0.025, 0.975], axis=0)
    point = np.log(boot.result.scores[items].to_numpy(float))
    rows["evalica bootstrap"] = (
        pd.Series(point - point.mean(), index=items),
        pd.Series(hi - lo, index=items),
    )
    print(f"evalica bootstrap (1000): {time.perf_counter() - t0:.2f} s")

    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    df = pd.DataFrame(
        {
            "model_a": comps["first"],
            "model_b": comps["second"],
            "winner": np.where(
                comps["winner"] == comps["first"],
                "model_a",
                np.where(comps["winner"] == comps["second"], "model_b", "tie"),
            ),
        }
    )
    t0 = time.perf_counter()
    ds = PairDataset.from_pandas(df, min_pair_count=1)
    model = BradleyTerry(len(ds.competitors))
    out = model.compute_ratings_and_cis(ds, significance_level=0.05)
    names = list(ds.competitors)
    r = (np.asarray(out["ratings"]) - model.init_rating) / model.alpha
    lo = (np.asarray(out["rating_lower"]) - model.init_rating) / model.alpha
    hi = (np.asarray(out["rating_upper"]) - model.init_rating) / model.alpha
    s = pd.Series(r - r.mean(), index=names)[items]
    rows["arena-rank sandwich"] = (s, pd.Series(hi - lo, index=names)[items])
    print(f"arena-rank sandwich: {time.perf_counter() - t0:.2f} s")

    table = pd.DataFrame(
        {f"{k}: {c}": v for k, (e, wd) in rows.items() for c, v in (("est", e), ("width", wd))}
    )
    print(table.round(3).T.to_string())
    ours = {k: v[1].mean() for k, v in rows.items()}
    for k in ("evalica bootstrap", "arena-rank sandwich"):
        print(
            f"mean 95% width: judgebayes half {ours['judgebayes (half)']:.3f}, davidson "
            f"{ours['judgebayes (davidson)']:.3f}, {k} {ours[k]:.3f}; ratio half / peer "
            f"{ours['judgebayes (half)'] / ours[k]:.3f}"
        )


if __name__ == "__main__":
    main()
