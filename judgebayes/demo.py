"""The main job on bundled data: naive vs corrected "output 1 is better" on LLMBar.

For each LLMBar subset judged by one evaluator with its plain prompt, the items are
split into a calibration part (``calibration_fraction`` of each gold class, at least one
each) and a test part.  The calibration part's gold labels estimate the judge's
specificity and sensitivity; on the test part the judge's naive rate is compared with
the Rogan-Gladen estimate, its Lang-Reiczigel interval, and the gold rate the judge is
trying to estimate.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Any

from judgebayes.accuracy import accuracy_table, calibration_split
from judgebayes.datasets import LLMBAR_SUBSETS, llmbar_accuracy_items
from judgebayes.schema import counts_from_calibration_frame, counts_from_test_frame

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["demo_text", "run_demo"]


def run_demo(
    evaluator: str = "GPT-4",
    calibration_fraction: float = 0.1,
    seed: int = 0,
    alpha: float = 0.05,
    progress: IO[str] | None = None,
    bayes: bool = True,
) -> pd.DataFrame:
    """One row per LLMBar subset: gold rate, naive rate and corrected estimate on the test part.

    With ``bayes=True`` each subset also gets the NUTS posterior mean and equal-tailed
    credible interval of the binary model (uniform priors; the model is compiled once and
    refitted per subset) and its convergence numbers.
    """
    import numpy as np
    import pandas as pd

    items = llmbar_accuracy_items(evaluator)
    rows = []
    for i, subset in enumerate(LLMBAR_SUBSETS):
        if progress is not None:
            print(f"[{i + 1}/{len(LLMBAR_SUBSETS)}] {subset}", file=progress, flush=True)
        sub = items[items["subset"] == subset]
        test, cal = calibration_split(
            sub, calibration_fraction, random_seed=np.random.default_rng([seed, i])
        )
        tc = counts_from_test_frame(test, judge="judge")
        cc = counts_from_calibration_frame(cal, human="human", judge="judge")
        row = accuracy_table(tc, cc, alpha=alpha).iloc[0].to_dict()
        row.pop("system")
        if bayes:
            row.update(_bayes_row(tc, cc, alpha, seed))
        gold = test["human"].mean()
        rows.append(
            {
                "subset": subset,
                "strategy": sub["strategy"].iloc[0],
                "items": len(sub),
                "gold": gold,
                "naive_error": row["naive"] - gold,
                "corrected_error": row["estimate"] - gold,
                "covered": bool(row["lower"] <= gold <= row["upper"])
                if not np.isnan(row["lower"])
                else None,
                **row,
            }
        )
    return pd.DataFrame(rows)


def _bayes_row(tc, cc, alpha: float, seed: int) -> dict:
    from judgebayes.accuracy import AccuracyStudy
    from judgebayes.inference.sampling import quiet_engine_warnings

    with quiet_engine_warnings():  # a failed gate is reported in the row instead
        # calibration sets of 2-11 items per class leave a long ridge towards the mirror
        # solution q0 + q1 < 1: a high target_accept keeps NUTS' steps small there
        fit = AccuracyStudy(tc, cc).fit("nuts", random_seed=seed, target_accept=0.95)
    iv = fit.interval(alpha).iloc[0]
    d = fit.diagnostics
    return {
        "bayes": iv["estimate"],
        "bayes_lower": iv["lower"],
        "bayes_upper": iv["upper"],
        "r_hat": d.r_hat_max,
        "divergences": d.divergences,
        "bayes_note": "" if d.passed else d.message(),
    }


def demo_text(res: pd.DataFrame, args: Any, render) -> str:
    """Human-readable demo output."""
    level = f"{100 * (1 - args.alpha):g}%"
    cols = [
        ("subset", "subset"),
        ("n", "n test"),
        ("n_missing", "missing"),
        ("m0", "m0"),
        ("m1", "m1"),
        ("q0", "q0"),
        ("q1", "q1"),
        ("gold", "gold"),
        ("naive", "naive"),
        ("estimate", "corrected"),
        ("lower", f"{level} lo"),
        ("upper", "hi"),
    ]
    if "bayes" in res:
        cols += [
            ("bayes", "NUTS mean"),
            ("bayes_lower", "lo"),
            ("bayes_upper", "hi"),
            ("r_hat", "r_hat"),
            ("divergences", "div"),
        ]
    intro = (
        f"LLMBar, judge {args.evaluator} (plain prompt), target: P(output 1 is better).\n"
        f"Each subset: {args.calibration_fraction:.0%} of each gold class calibrates the judge "
        f"(seed {args.seed}); the rest is the test set.\n"
        "gold = true rate on the test set; naive = judge's raw rate; corrected = "
        f"Rogan-Gladen with its Lang-Reiczigel {level} interval; NUTS = posterior mean and "
        f"{level} credible interval\nof the Bayesian model (uniform priors), which never "
        "collapses at 0 or 1 and needs no clipping.\n"
    )
    notes = [f"note [{r['subset']}]: {r['note']}" for r in res.to_dict("records") if r["note"]]
    notes += [
        f"NUTS [{r['subset']}]: {r['bayes_note']}"
        for r in res.to_dict("records")
        if r.get("bayes_note")
    ]
    ok = res["covered"].dropna()
    summary = (
        f"\nmean |naive - gold| = {res['naive_error'].abs().mean():.3f}; "
        f"mean |corrected - gold| = {res['corrected_error'].abs().mean():.3f}; "
        + (
            f"mean |NUTS - gold| = {(res['bayes'] - res['gold']).abs().mean():.3f}; "
            if "bayes" in res
            else ""
        )
        + f"intervals covering gold (Lang-Reiczigel): {int(ok.sum())}/{len(ok)}. "
        "\nWith a few calibration items per class the estimated q0 + q1 - 1 is small and noisy, "
        "so the\ncorrection is noisy too: the interval width is the honest price of a small "
        "calibration set.\nThe naive rate looks good here only because gold is near 0.5, where "
        "a judge with q0 ~ q1\nhas bias (1 - 2*theta)(1 - q) ~ 0; `judgebayes plan` says how "
        "many labels a target width needs."
    )
    return "\n".join([intro, render(res.to_dict("records"), cols, args.format), *notes, summary])
