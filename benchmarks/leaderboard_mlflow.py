"""MLflow's ``compare_evaluations`` beside the judge-corrected leaderboard, on judged boards
with known truth, in the same process.

    python benchmarks/leaderboard_mlflow.py --boards 200            # the paired tests
    python benchmarks/leaderboard_mlflow.py --boards 0 --runs       # real MLflow runs

MLflow 3.18's ``mlflow.genai.compare_evaluations(candidate, baseline)`` pairs two
``mlflow.genai.evaluate`` runs on the request and tests the per-row differences of each
scorer (McNemar's test for pass / fail scorers, a BCa bootstrap interval of the mean
difference), one pair of runs at a time and with no correction for the judge's errors.

Boards (``tests.simulators.judged_board``): 5 systems x 400 items by a one-parameter
item-response model, abilities 0.5 (the baseline ``m00``), 0.5, 0.5, 0.0 and 1.0; a judge
with sensitivity 0.85 and specificity 0.75, but 0.4 on ``m01``'s answers (lenient on a
system that is no better); human labels on a random 15% of the rows.  Each of the four
systems is compared with the baseline:

* MLflow: the statistics ``compare_evaluations`` computes after pairing (its own
  ``_compare_paired_values``, called on the judge's paired verdicts);
* judgebayes: ``jb.leaderboard(frame, human="human", baseline="m00")``, judge-corrected,
  Holm over the four comparisons.

Printed: the share of boards on which each comparison is declared (alpha 0.05), the share
on which any of the two equal systems is declared better or worse than the baseline, and
each method's 95% interval's coverage of the true difference (the item population's).

``--runs`` writes one board as real MLflow runs (``mlflow.genai.evaluate`` with a code
scorer that returns the judge's verdict, to a local store in a temporary folder; the
human labels as ``mlflow.log_feedback``), calls ``compare_evaluations`` on each pair of
runs, checks that its p-values and intervals are those of the paired statistics above,
and times it against ``jb.io.mlflow_items`` + ``jb.leaderboard`` on the same runs.

MLflow 3.18 is on the package registry, but the ``mlflow-skinny`` and ``mlflow-tracing``
3.18 it pins are not; the full wheel holds the whole package, so it runs in a venv of its
own::

    python3.12 -m venv ml-venv
    ml-venv/bin/pip install mlflow-skinny==3.17.2   # its dependencies
    ml-venv/bin/pip uninstall -y mlflow-skinny mlflow-tracing
    ml-venv/bin/pip install --no-deps mlflow==3.18.0
    ml-venv/bin/pip install sqlalchemy alembic pyarrow flask graphene matplotlib \\
        cryptography huey scikit-learn -e ".[bench]"
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import judgebayes as jb
from tests.simulators import judged_board

ABILITIES = np.array([0.5, 0.5, 0.5, 0.0, 1.0])
BASE = "m00"
ROLE = {
    "m01": "equal, judge lenient",
    "m02": "equal",
    "m03": "worse by 0.5",
    "m04": "better by 0.5",
}


def mlflow_pair(x: pd.DataFrame, s: str):
    """MLflow's paired statistics of ``s`` against the baseline (its own function)."""
    from mlflow.genai.evaluation.comparison.paired_comparison import _compare_paired_values

    base, cand = x.loc[BASE].to_numpy(), x.loc[s].to_numpy()
    return _compare_paired_values("judge", base, cand, value_type="binary")


def ours(frame: pd.DataFrame) -> pd.DataFrame:
    """The judge-corrected leaderboard against the baseline (Holm's ``separated``) and
    each difference's 95% interval (the closed form's paired contrasts)."""
    fit = jb.LeaderboardStudy.from_items(frame, human="human").fit("closed_form")
    t = fit.leaderboard(baseline=BASE).set_index("system")
    c = fit.contrasts(0.05)
    c = c[c["b"] == BASE].set_index("a")
    return t.assign(lo=c["lower"], hi=c["upper"])


def boards(n: int, with_mlflow: bool = True) -> None:
    roles = list(ROLE)
    said = {k: {s: 0 for s in roles} for k in ("mlflow", "judgebayes")}
    covered = {k: {s: 0 for s in roles} for k in ("mlflow", "judgebayes")}
    anyeq = {"mlflow": 0, "judgebayes": 0}
    cpu = {"mlflow": 0.0, "judgebayes": 0.0}
    for r in range(n):
        frame, truth = judged_board(np.random.default_rng([11, r]), ABILITIES, lenient_on="m01")
        x = frame.pivot(index="system", columns="item", values="score")
        c0 = time.process_time()
        ml = {s: mlflow_pair(x, s) for s in roles} if with_mlflow else None
        c1 = time.process_time()
        t = ours(frame)
        c2 = time.process_time()
        cpu["mlflow"] += c1 - c0
        cpu["judgebayes"] += c2 - c1
        eq = {"mlflow": False, "judgebayes": False}
        for s in roles:
            true = truth[s] - truth[BASE]
            hit = {"mlflow": ml and ml[s].p_value < 0.05, "judgebayes": bool(t.loc[s, "separated"])}
            cover = {
                "mlflow": ml and ml[s].ci_low <= true <= ml[s].ci_high,
                "judgebayes": t.loc[s, "lo"] <= true <= t.loc[s, "hi"],
            }
            for k in said:
                said[k][s] += bool(hit[k])
                covered[k][s] += bool(cover[k])
                if s in ("m01", "m02"):
                    eq[k] |= bool(hit[k])
        for k in anyeq:
            anyeq[k] += eq[k]
    print(f"{n} judged boards of 5 systems x 400 items; each system against {BASE}")
    print(f"(Monte-Carlo sd of a share near 0.05: {np.sqrt(0.0475 / n):.3f}; near 0.95 the same)")
    print(
        "| system | truth | declared, MLflow | declared, judgebayes (Holm) |"
        " 95% interval covers, MLflow | covers, judgebayes |"
    )
    print("|---|---|---|---|---|---|")
    for s in roles:
        print(
            f"| {s} | {ROLE[s]} | {said['mlflow'][s] / n:.3f} | {said['judgebayes'][s] / n:.3f} | "
            f"{covered['mlflow'][s] / n:.3f} | {covered['judgebayes'][s] / n:.3f} |"
        )
    print(
        f"| either equal system declared | | {anyeq['mlflow'] / n:.3f} | "
        f"{anyeq['judgebayes'] / n:.3f} | | |"
    )
    print(
        f"CPU per board: MLflow's statistics {1000 * cpu['mlflow'] / n:.0f} ms (four pairs), "
        f"judgebayes {1000 * cpu['judgebayes'] / n:.0f} ms"
    )


def write_runs(frame: pd.DataFrame, root: str) -> dict[str, str]:
    """Each system's verdicts as one ``mlflow.genai.evaluate`` run, the human labels as
    feedback on its traces; returns the run ids."""
    import mlflow
    from mlflow.entities import AssessmentSource
    from mlflow.genai.scorers import scorer

    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    mlflow.set_tracking_uri(Path(root).as_uri())
    mlflow.set_experiment("board")
    items = sorted(frame["item"].unique())
    data = [{"inputs": {"qid": f"q{i:04d}"}} for i in items]

    @scorer
    def judge(outputs):
        return outputs == "pass"

    def system(verdict):  # the app: its argument is the request's field
        def predict(qid):
            return "pass" if verdict[int(qid[1:])] else "fail"

        return predict

    ids = {}
    for s, rows in frame.groupby("system"):
        verdict = dict(zip(rows["item"], rows["score"] == 1, strict=True))
        with mlflow.start_run(run_name=s):
            res = mlflow.genai.evaluate(data=data, predict_fn=system(verdict), scorers=[judge])
        ids[s] = res.run_id
        human = dict(zip(rows["item"], rows["human"], strict=True))
        exp = mlflow.get_run(res.run_id).info.experiment_id
        for tr in mlflow.search_traces(locations=[exp], run_id=res.run_id, return_type="list"):
            qid = json.loads(tr.data.request)["qid"]
            if not np.isnan(human[int(qid[1:])]):
                mlflow.log_feedback(
                    trace_id=tr.info.trace_id,
                    name="human",
                    value=bool(human[int(qid[1:])]),
                    source=AssessmentSource(source_type="HUMAN", source_id="rater"),
                )
    return ids


def runs() -> None:
    import mlflow

    logging.disable(logging.WARNING)
    frame, _ = judged_board(np.random.default_rng([11, 0]), ABILITIES, lenient_on="m01")
    x = frame.pivot(index="system", columns="item", values="score")
    with tempfile.TemporaryDirectory() as root:
        ids = write_runs(frame, root)
        c0 = time.process_time()
        got = {s: mlflow.genai.compare_evaluations(ids[s], ids[BASE]) for s in ROLE}
        c1 = time.process_time()
        read = jb.io.mlflow_items(
            list(ids.values()),
            scorer="judge",
            item="qid",
            human="human",
            tracking_uri=Path(root).as_uri(),
        )
        t = jb.leaderboard(read, human="human", baseline=BASE).set_index("system")
        c2 = time.process_time()
    for s in ROLE:
        a, b = got[s].scorers["judge"], mlflow_pair(x, s)
        assert a.n_paired == x.shape[1], a.n_paired
        # the same test; the bootstrap resamples the rows in the runs' order, so the
        # interval's ends agree to its Monte-Carlo error (10,000 resamples: ~0.002)
        assert np.isclose(a.p_value, b.p_value) and np.isclose(a.diff, b.diff), (a, b)
        assert max(abs(a.ci_low - b.ci_low), abs(a.ci_high - b.ci_high)) < 0.01, (a, b)
        print(
            f"{s} ({ROLE[s]}): compare_evaluations diff {a.diff:+.3f} [{a.ci_low:+.3f}, "
            f"{a.ci_high:+.3f}] p {a.p_value:.2g}; judgebayes {t.loc[s, 'difference']:+.3f} "
            f"p_holm {t.loc[s, 'p_holm']:.2g}"
        )
    print(
        "compare_evaluations is the paired statistics on every pair; CPU: "
        f"compare_evaluations, four pairs {c1 - c0:.1f} s; jb.io.mlflow_items + "
        f"jb.leaderboard, one read of five runs {c2 - c1:.1f} s"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--boards", type=int, default=200)
    p.add_argument("--runs", action="store_true")
    p.add_argument("--ours-only", action="store_true", help="judgebayes's columns alone")
    args = p.parse_args()
    warnings.simplefilter("ignore")
    if args.boards:
        boards(args.boards, with_mlflow=not args.ours_only)
    if args.runs:
        runs()


if __name__ == "__main__":
    main()
