"""The Bayesian leaderboard: coverage and width against the closed form on simulated
boards, its fit times on LiveCodeBench, and a held-out model's accuracy from a few items.

    python benchmarks/leaderboard_bayes.py --boards 30
    python benchmarks/leaderboard_bayes.py --judged --boards 30
    python benchmarks/leaderboard_bayes.py --real      # needs ../shared/data
    python benchmarks/leaderboard_bayes.py --real --py-irt   # py-irt beside it (below)

py-irt (the 2PL that tinyBenchmarks fits) declares Python < 3.12 and needs PyTorch, so
``--py-irt`` runs in a venv of its own, in the same process as the package's fit::

    python -m venv .irt && .irt/bin/pip install torch==2.14.1 -e '.[test]'
    .irt/bin/pip install --no-deps --ignore-requires-python py-irt==0.7.1
    .irt/bin/pip install pyro-ppl ordered-set toml 'typer<0.15' scikit-learn
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb

ABILITY = np.linspace(-1.0, 1.5, 6)


def board(rng, n_items=80):
    """One-parameter boards simulated here (no package code): each system's mean success
    probability over the items (the items estimand) and over the items' population
    (the process estimand, by 80-node Gauss-Hermite over the difficulties' normal)."""
    b = rng.normal(0, 1.3, n_items)
    p = 1 / (1 + np.exp(-(ABILITY[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(float)
    x, w = np.polynomial.hermite_e.hermegauss(80)
    process = (1 / (1 + np.exp(-(ABILITY[:, None] - 1.3 * x[None, :])))) @ (w / w.sum())
    names = [f"m{k}" for k in range(ABILITY.size)]
    frame = pd.DataFrame(
        {
            "system": np.repeat(names, n_items),
            "item": np.tile(np.arange(n_items), ABILITY.size),
            "score": y.ravel(),
        }
    )
    return frame, pd.Series(p.mean(1), index=names), pd.Series(process, index=names)


def simulated(boards: int) -> None:
    rows = {"nuts items": [], "nuts process": [], "closed form process": []}
    t_nuts = []
    for r in range(boards):
        frame, items, process = board(np.random.default_rng([3, r]))
        study = jb.LeaderboardStudy.from_items(frame)
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = study.fit("nuts", random_seed=r)
        t_nuts.append(time.process_time() - t0)
        cf = study.fit("closed_form")
        for name, f, var, truth in (
            ("nuts items", fit, "theta", items),
            ("nuts process", fit, "theta_process", process),
            ("closed form process", cf, "theta_process", process),
        ):
            iv = f.interval(0.1, var=var)
            rows[name].append(
                (
                    float(((iv["lower"] <= truth) & (truth <= iv["upper"])).mean()),
                    float((iv["upper"] - iv["lower"]).mean()),
                )
            )
    print(f"{boards} boards of 6 systems x 80 items, 90% intervals")
    print("| interval | coverage | mean width |\n|---|---|---|")
    for name, v in rows.items():
        a = np.array(v)
        print(f"| {name} | {a[:, 0].mean():.3f} | {a[:, 1].mean():.3f} |")
    print(f"NUTS CPU per fit (median): {np.median(t_nuts):.1f} s")


def judged(boards: int, labelled: float = 0.2) -> None:
    """Judged boards (tests/simulators.judged_board: sensitivity 0.85, specificity 0.75,
    0.4 on m01's answers, a fifth of the rows labelled at random): the corrected process
    interval against the truth, beside the judge's raw rate."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from tests.simulators import judged_board  # shares no code with the package

    hit, raw_hit, width, total = 0, 0, [], 0
    items = {"board (theta)": [0, []], "each system alone (closed form)": [0, []]}
    rank_len = {"board (NUTS)": [], "closed form (jb.leaderboard, human=)": []}
    for r in range(boards):
        frame, truth = judged_board(np.random.default_rng([5, r]), ABILITY, n_items=150,
                                    labelled=labelled)  # fmt: skip
        study = jb.LeaderboardStudy.from_items(frame, human="human")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = study.fit("nuts", random_seed=r)
        iv = fit.interval(0.1, var="theta_process").loc[truth.index]
        hit += int(((iv["lower"] <= truth) & (truth <= iv["upper"])).sum())
        width.append(float((iv["upper"] - iv["lower"]).mean()))
        raw = pd.Series(study.data.observed_rate(), index=study.systems).loc[truth.index]
        raw_hit += int((abs(raw - truth) < (iv["upper"] - iv["lower"]) / 2).sum())
        total += len(truth)
        # the board's own items: the Bayesian theta against each system's own closed form
        realised = frame.groupby("system")["outcome"].mean().loc[truth.index]
        own = {}
        for s in truth.index:
            rows = frame[frame["system"] == s]
            one = jb.ItemStudy.from_frame(rows, judge="score", human="human")
            own[s] = one.fit("closed_form").interval(0.1).iloc[0]
        per = {"board (theta)": fit.interval(0.1, var="theta").loc[truth.index],
               "each system alone (closed form)": pd.DataFrame(own).T.loc[truth.index]}  # fmt: skip
        for k, t in per.items():
            items[k][0] += int(((t["lower"] <= realised) & (realised <= t["upper"])).sum())
            items[k][1].append(float((t["upper"] - t["lower"]).mean()))
        tb = fit.leaderboard(0.1)
        rank_len["board (NUTS)"].append(float((tb["rank_upper"] - tb["rank_lower"] + 1).mean()))
        cf = jb.leaderboard(frame, score="score", human="human", alpha=0.1)
        rank_len["closed form (jb.leaderboard, human=)"].append(
            float((cf["rank_upper"] - cf["rank_lower"] + 1).mean())
        )
    print(f"{boards} judged boards of 6 x 150, {labelled:.0%} labelled, 90% process intervals:")
    print(f"coverage {hit / total:.3f}, mean width {np.mean(width):.3f}; the raw rate within "
          f"the same half-width of the truth {raw_hit / total:.3f}")  # fmt: skip
    print("the board's own items (90%): | interval | coverage | mean width |")
    for k, (h, w) in items.items():
        print(f"| {k} | {h / total:.3f} | {np.mean(w):.3f} |")
    for k, v in rank_len.items():
        print(f"rank intervals (90%, all at once), {k}: mean length {np.mean(v):.2f}")


#: the board's method for the held-out models (``--method``)
METHOD = "nuts"
#: CPU seconds of each ``new_system`` call
CALLS: list[float] = []


def held_out(fit, rows, truth: float, n_items: int, rng, score: str, trials, items, irt=None):
    """A held-out model's estimate from ``n_items`` planned and random items: one table
    cell per choice, and (error, covered) pairs; with ``irt`` (py-irt's items) its p-IRT
    estimate from the random items beside them."""
    out, errs = [f"{truth:.3f}"], []
    for chosen in (fit.plan_items(n_items), list(rng.choice(items, n_items, replace=False))):
        r = rows.loc[chosen]
        c0 = time.process_time()
        e = fit.new_system(r[score], trials=None if trials is None else r[trials])
        CALLS.append(time.process_time() - c0)
        out.append(f"{e['estimate']:.3f} [{e['lower']:.3f}, {e['upper']:.3f}]")
        errs.append((abs(e["estimate"] - truth), e["lower"] <= truth <= e["upper"]))
    if irt is not None:
        k = r[score].to_numpy(float)
        n = np.ones_like(k) if trials is None else r[trials].to_numpy(float)
        est = p_irt(irt, [items.index(i) for i in chosen], k, n)
        out.append(f"{est:.3f}")
        errs.append((abs(est - truth), False))
    return out, errs


def fit_py_irt(study) -> tuple[np.ndarray, np.ndarray]:
    """py-irt's 2PL (tinyBenchmarks' settings: 2,000 epochs, lr 0.1, its hierarchical
    priors) on the board's rows, each sample one Bernoulli response: (difficulty,
    discrimination) per item."""
    from ordered_set import OrderedSet
    from py_irt.config import IrtConfig
    from py_irt.dataset import Dataset
    from py_irt.training import IrtModelTrainer

    d = study.data
    subj, item, obs = [], [], []
    for s, i in zip(*np.nonzero(d.n > 0), strict=True):
        k, n = int(d.k[s, i]), int(d.n[s, i])
        subj += [int(s)] * n
        item += [int(i)] * n
        obs += [1.0] * k + [0.0] * (n - k)
    items, systems = [str(i) for i in d.items], [str(s) for s in d.systems]
    ds = Dataset(
        item_ids=OrderedSet(items), subject_ids=OrderedSet(systems),
        item_id_to_ix={v: j for j, v in enumerate(items)},
        ix_to_item_id=dict(enumerate(items)),
        subject_id_to_ix={v: j for j, v in enumerate(systems)},
        ix_to_subject_id=dict(enumerate(systems)),
        observation_subjects=subj, observation_items=item, observations=obs,
        training_example=[True] * len(obs),
    )  # fmt: skip
    config = IrtConfig(model_type="2pl", epochs=2000, priors="hierarchical", lr=0.1, seed=0)
    trainer = IrtModelTrainer(data_path=None, config=config, dataset=ds, verbose=False)
    trainer.train(device="cpu")
    p = trainer.best_params
    return np.asarray(p["diff"], float), np.asarray(p["disc"], float)


def p_irt(irt, seen: list[int], k: np.ndarray, n: np.ndarray) -> float:
    """tinyBenchmarks' p-IRT: the new model's ability by maximum likelihood (a N(0, 1)
    prior keeps it finite) on the seen items given py-irt's items, then the seen items'
    observed rate and the unseen items' predicted rates, weighted by their counts."""
    from scipy import optimize

    b, a = irt

    def nll(t):
        eta = a[seen] * (t - b[seen])
        return -np.sum(k * -np.logaddexp(0, -eta) + (n - k) * -np.logaddexp(0, eta)) + t**2 / 2

    theta = optimize.minimize_scalar(nll, bounds=(-8, 8), method="bounded").x
    pred = 1 / (1 + np.exp(-a * (theta - b)))
    unseen = np.setdiff1d(np.arange(b.size), seen)
    lam = len(seen) / b.size
    return float(lam * k.sum() / n.sum() + (1 - lam) * pred[unseen].mean())


def _leave_out(name, study, frame, held, cols, n_items, truth_of, py_irt=False) -> None:
    system, item, score, trials = cols
    t0, c0 = time.perf_counter(), time.process_time()
    fit = study.fit(METHOD, random_seed=0)
    gate = fit.diagnostics.passed if fit.diagnostics is not None else "(no gate: Laplace)"
    print(f"{name}, {len(study.systems)} models x {len(study.data.items)} items, {METHOD}: "
          f"{time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU, "
          f"gate passed {gate}")  # fmt: skip
    irt = None
    if py_irt:
        c0 = time.process_time()
        irt = fit_py_irt(study)
        print(f"py-irt 2PL: {time.process_time() - c0:.0f} s CPU")
    rng = np.random.default_rng(0)
    extra = " py-irt p-IRT, same random |" if py_irt else ""
    print(
        f"| model | all | {n_items} planned | {n_items} random |{extra}\n|---|---|---|---|"
        + "---|" * py_irt
    )
    errs = []
    for m in held:
        rows = frame[frame[system] == m].set_index(item)
        rows.index = rows.index.astype(str)
        items = [str(i) for i in study.data.items]
        out, e = held_out(fit, rows, truth_of(rows), n_items, rng, score, trials, items, irt)
        errs.append(e)
        print(f"| {m} | " + " | ".join(out) + " |")
    for k, how in enumerate(("planned", "random", "py-irt random")[: len(errs[0])]):
        err = [e[k][0] for e in errs]
        hit = f"{sum(e[k][1] for e in errs)} of {len(errs)} covered" if k < 2 else "no interval"
        print(f"{how}: mean absolute error {np.mean(err):.4f}, {hit}")
    print(f"new_system: {1000 * np.median(CALLS):.1f} ms CPU a call (median of {len(CALLS)})")
    CALLS.clear()


def real(n_items: int, py_irt: bool = False) -> None:
    from judgebayes.datasets import livecodebench_generation

    lcb = livecodebench_generation()
    cols = {"system": "model", "item": "question_id", "score": "n_correct",
            "trials": "n_samples"}  # fmt: skip
    held = ["Claude-3-Haiku", "GPT-3.5-Turbo-0125", "DSCoder-6.7b-Ins", "Command-R+",
            "StarCoder2-7b"]  # fmt: skip
    study = jb.LeaderboardStudy.from_items(lcb[~lcb["model"].isin(held)], **cols)
    names = ("model", "question_id", "n_correct", "n_samples")
    _leave_out("LiveCodeBench", study, lcb, held, names, n_items,
               lambda r: r["n_correct"].sum() / r["n_samples"].sum(), py_irt)  # fmt: skip


def alpaca(n_items: int, py_irt: bool = False) -> None:
    """AlpacaEval 2.0 with the judge's win read as 0/1 (win >= 0.5; the judge is nearly
    binary), 5 models held out across the range; the truth is the held-out model's mean
    0/1 win over every item."""
    from judgebayes.datasets import alpaca_eval_judgments

    ae2 = alpaca_eval_judgments("weighted_alpaca_eval_gpt4_turbo").dropna(subset=["win"])
    ae2 = ae2.assign(won=(ae2["win"] >= 0.5).astype(float))
    held = ["claude-2", "gpt-3.5-turbo-1106", "vicuna-13b-v1.5", "gemma-7b-it",
            "FuseChat-Llama-3.2-3B-Instruct"]  # fmt: skip
    study = jb.LeaderboardStudy.from_items(
        ae2[~ae2["model"].isin(held)], system="model", item="item_id", score="won"
    )
    _leave_out("AlpacaEval 2.0", study, ae2, held, ("model", "item_id", "won", None), n_items,
               lambda r: r["won"].mean(), py_irt)  # fmt: skip


#: the grid of the new system's ability before its Laplace approximation (logits)
GRID = np.linspace(-8.0, 8.0, 321)


def grid_rates(k, n, items, b, sd, rng):
    """A new system's rate draws by the grid posterior of its ability (the method before
    the Laplace approximation), per draw of the difficulties ``b``."""
    ll = np.empty((b.shape[0], GRID.size))
    for lo in range(0, b.shape[0], 100):
        eta = GRID[None, :, None] - b[lo : lo + 100, None][:, :, items]
        ll[lo : lo + 100] = (k * -np.logaddexp(0.0, -eta) + (n - k) * -np.logaddexp(0.0, eta)).sum(
            2
        )
    ll -= 0.5 * (GRID / sd) ** 2
    cdf = np.cumsum(np.exp(ll - ll.max(axis=1, keepdims=True)), axis=1)
    pick = np.minimum((cdf < (rng.random(b.shape[0]) * cdf[:, -1])[:, None]).sum(1), GRID.size - 1)
    ability = GRID[pick] + rng.uniform(-0.025, 0.025, b.shape[0])
    return (1 / (1 + np.exp(-(ability[:, None] - b)))).mean(axis=1)


def versus_grid(n_items: int) -> None:
    """AlpacaEval 2.0's held-out models, the same Laplace fit and planned items: the new
    system's rate by the grid (2,000 draws, as before) and by the Laplace approximation
    (400 draws, as now), with each call's CPU."""
    from judgebayes.datasets import alpaca_eval_judgments
    from judgebayes.inference.leaderboard import new_system as ns

    ae2 = alpaca_eval_judgments("weighted_alpaca_eval_gpt4_turbo").dropna(subset=["win"])
    ae2 = ae2.assign(won=(ae2["win"] >= 0.5).astype(float))
    held = ["claude-2", "gpt-3.5-turbo-1106", "vicuna-13b-v1.5", "gemma-7b-it",
            "FuseChat-Llama-3.2-3B-Instruct"]  # fmt: skip
    study = jb.LeaderboardStudy.from_items(
        ae2[~ae2["model"].isin(held)], system="model", item="item_id", score="won"
    )
    fit = study.fit("laplace", random_seed=0)
    post = fit.idata.posterior
    b = post["difficulty"].values.reshape(-1, post.sizes["item"])
    items = [str(i) for i in study.data.items]
    print("| model | all | grid, 2,000 draws | Laplace, 400 draws |\n|---|---|---|---|")
    errs, cpu = {"grid": [], "laplace": []}, {"grid": [], "laplace": []}
    for m in held:
        rows = ae2[ae2["model"] == m].set_index("item_id")
        rows.index = rows.index.astype(str)
        chosen = fit.plan_items(n_items)
        k = rows.loc[chosen, "won"].to_numpy()
        code = np.array([items.index(c) for c in chosen])
        c0 = time.process_time()
        old = grid_rates(k, np.ones_like(k), code, b[:2000], 2.0, np.random.default_rng(1))
        c1 = time.process_time()
        keep = np.linspace(0, len(b) - 1, ns.DRAWS).astype(int)
        _, new = ns.new_system(k, np.ones_like(k), code, {"difficulty": b[keep]}, 2.0,
                               np.random.default_rng(1))  # fmt: skip
        c2 = time.process_time()
        cpu["grid"].append(c1 - c0)
        cpu["laplace"].append(c2 - c1)
        truth = rows["won"].mean()
        cells = []
        for key, x in (("grid", old), ("laplace", new)):
            errs[key].append(abs(x.mean() - truth))
            lo, hi = np.quantile(x, [0.025, 0.975])
            cells.append(f"{x.mean():.3f} [{lo:.3f}, {hi:.3f}]")
        print(f"| {m} | {truth:.3f} | " + " | ".join(cells) + " |")
    for key in errs:
        print(f"{key}: mean absolute error {np.mean(errs[key]):.4f}, "
              f"{1000 * np.median(cpu[key]):.1f} ms CPU a call (the engine alone)")  # fmt: skip


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=30)
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--judged", action="store_true")
    ap.add_argument("--alpaca", action="store_true")
    ap.add_argument("--items", type=int, default=100)
    ap.add_argument("--py-irt", action="store_true")
    ap.add_argument("--labelled", type=float, default=0.2)
    ap.add_argument("--method", default="nuts", choices=("nuts", "laplace"))
    ap.add_argument("--versus-grid", action="store_true")
    args = ap.parse_args()
    METHOD = args.method
    if args.versus_grid:
        versus_grid(args.items)
    elif args.real:
        real(args.items, args.py_irt)
    elif args.alpaca:
        alpaca(args.items, args.py_irt)
    elif args.judged:
        judged(args.boards, args.labelled)
    else:
        simulated(args.boards)
