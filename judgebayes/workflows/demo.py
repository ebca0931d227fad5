"""The main job on bundled data (``judgebayes demo`` / ``make demo``).

1. Accuracy: for each LLMBar subset judged by one evaluator with its plain prompt, the
   items are split into a calibration part (``calibration_fraction`` of each gold class,
   at least one each) and a test part.  The calibration part's gold labels estimate the
   judge's specificity and sensitivity; on the test part the judge's naive rate is
   compared with the Rogan-Gladen estimate and its Lang-Reiczigel interval, the Laplace
   interval and the NUTS credible interval, and the gold rate the judge is trying to
   estimate.
2. Judge bias: every LLMBar judge's length and position coefficients on the five LLMBar
   subsets judged in both orders (:mod:`judgebayes.workflows.judge_bias`; NUTS with the horseshoe by
   default), and the cross-validated agreement with gold before and after correction.
3. A written report (markdown, figures as PNG) with both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from judgebayes.data.accuracy import (
    calibration_split,
    counts_from_calibration_frame,
    counts_from_test_frame,
)
from judgebayes.datasets import LLMBAR_SUBSETS, llmbar_accuracy_items
from judgebayes.studies.accuracy import accuracy_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["DemoResult", "demo_text", "run_accuracy_demo", "run_demo"]


@dataclass
class DemoResult:
    """The demo's tables and, when written, its report."""

    accuracy: pd.DataFrame
    bias: pd.DataFrame | None = None
    agreement: pd.DataFrame | None = None
    report: Any = None


def run_demo(
    evaluator: str = "GPT-4",
    calibration_fraction: float = 0.1,
    seed: int = 0,
    alpha: float = 0.05,
    progress: IO[str] | None = None,
    bayes: bool = True,
    bias: str | None = "nuts",
    report: str | None = None,
) -> DemoResult:
    """Run the main job: accuracy per LLMBar subset, the judge-bias table, a report.

    Parameters
    ----------
    evaluator, calibration_fraction, seed, alpha
        As in :func:`run_accuracy_demo`.
    progress : file, optional
        Where to print progress lines.
    bayes : bool
        Laplace and NUTS beside the closed form in the accuracy part.
    bias : {"nuts", "laplace"} or None
        Engine of the judge-bias part (None: skip it).
    report : str, optional
        Report path (``.md`` or ``.html``); None writes none.
    """
    say = (lambda m: print(m, file=progress, flush=True)) if progress else (lambda m: None)
    say(f"accuracy of {evaluator} on the {len(LLMBAR_SUBSETS)} LLMBar subsets")
    acc = run_accuracy_demo(evaluator, calibration_fraction, seed, alpha, progress, bayes)
    res = DemoResult(acc)
    if bias is not None:
        from judgebayes.datasets import LLMBAR_EVALUATORS

        say(f"judge bias of {len(LLMBAR_EVALUATORS)} judges (both orders, {bias})")
        res.bias, res.agreement = _bias_part(bias, seed, alpha, say)
    if report is not None:
        say(f"writing the report to {report}")
        res.report = _write_report(res, report, evaluator, calibration_fraction, seed, alpha)
    return res


def _bias_part(method: str, seed: int, alpha: float, say):
    import pandas as pd

    from judgebayes.datasets import LLMBAR_EVALUATORS, llmbar_both_orders
    from judgebayes.inference.sampling import quiet_engine_warnings
    from judgebayes.workflows.judge_bias import (
        LLMBAR_BIAS_SUBSETS,
        cross_validated_agreement,
        fit_judge_bias,
        judge_bias_table,
    )

    fits, agree = {}, []
    kw = {"sampler": {"draws": 500}} if method == "nuts" else {}
    for i, ev in enumerate(LLMBAR_EVALUATORS):
        say(f"  [{i + 1}/{len(LLMBAR_EVALUATORS)}] {ev}")
        v = llmbar_both_orders(ev)
        v = v[v["subset"].isin(LLMBAR_BIAS_SUBSETS)]
        with quiet_engine_warnings():  # the gate's numbers are in the table
            fits[ev] = fit_judge_bias(v, method, random_seed=seed, **kw)
        a = cross_validated_agreement(v, seed=seed)
        agree.append(a[a["subset"] == "all"].assign(judge=ev))
    table = judge_bias_table(fits, alpha)
    agreement = pd.concat(agree, ignore_index=True).drop(columns="subset")
    return table, agreement[["judge", *[c for c in agreement.columns if c != "judge"]]]


def _write_report(res: DemoResult, path, evaluator, fraction, seed, alpha):
    from judgebayes.report import Report
    from judgebayes.workflows.judge_bias import plot_bias_forest

    level = f"{100 * (1 - alpha):g}%"
    r = Report("judgebayes demo: LLM judges on LLMBar")
    r.heading("Accuracy under misclassification")
    r.text(
        f"Judge {evaluator} (plain prompt), target P(output 1 is better). In each subset "
        f"{fraction:.0%} of each gold class calibrates the judge (seed {seed}); the rest is "
        "the test set, whose gold rate (`gold`) the estimates are compared with. "
        f"closed form: Rogan-Gladen with the Lang-Reiczigel {level} interval; Laplace and "
        f"NUTS: the Bayesian model (uniform priors), mean and {level} interval."
    )
    cols = ["subset", "items", "n", "n_missing", "m0", "m1", "gold", "naive", "estimate"]
    cols += ["lower", "upper", "laplace", "laplace_lower", "laplace_upper"]
    cols += ["bayes", "bayes_lower", "bayes_upper", "r_hat", "divergences"]
    r.table("accuracy", res.accuracy[[c for c in cols if c in res.accuracy]])
    if "bayes" in res.accuracy:
        r.figure("accuracy", _accuracy_figure(res.accuracy, alpha), "Estimates per subset")
    if res.bias is not None:
        r.heading("Judge bias (both presentation orders)")
        r.text(
            "Per judge, the bias-aware pairwise model of 'judge picks the output shown "
            "first' on the gold label (a discrimination per subset), the length difference "
            "(log2 words, standardised) and the first position, on the five LLMBar subsets."
        )
        r.table("judge_bias", res.bias)
        ax = plot_bias_forest(res.bias)
        r.figure("judge_bias", ax.figure, f"Length and position coefficients ({level})")
        r.text(
            "Agreement with gold, 5-fold cross-validated by instance: single verdicts, the "
            "order-averaged verdict, the bias-aware model's posterior decision, and the "
            "ranking paper's logistic correction."
        )
        r.table("agreement", res.agreement)
    return r.write(path)


def _accuracy_figure(acc, alpha: float):
    """Every method's interval per subset (compare.plot_intervals), gold as ticks."""
    import pandas as pd

    from judgebayes.results import plot_intervals

    spec = [("naive", "naive", "naive", "naive"),
            ("closed form", "estimate", "lower", "upper"),
            ("Laplace", "laplace", "laplace_lower", "laplace_upper"),
            ("NUTS", "bayes", "bayes_lower", "bayes_upper")]  # fmt: skip
    table = pd.concat(
        [
            pd.DataFrame(
                {
                    "method": name,
                    "unit": acc["subset"],
                    "quantity": "P(output 1 is better)",
                    "estimate": acc[est],
                    "lower": acc[lo],
                    "upper": acc[hi],
                    "level": 1 - alpha,
                }
            )
            for name, est, lo, hi in spec
            if est in acc
        ],
        ignore_index=True,
    )
    ax = plot_intervals(table, truth=dict(zip(acc["subset"], acc["gold"], strict=True)))
    ax.figure.set_size_inches(7, 0.35 * len(table) + 1)
    return ax.figure


def run_accuracy_demo(
    evaluator: str = "GPT-4",
    calibration_fraction: float = 0.1,
    seed: int = 0,
    alpha: float = 0.05,
    progress: IO[str] | None = None,
    bayes: bool = True,
) -> pd.DataFrame:
    """One row per LLMBar subset: gold rate, naive rate and corrected estimates on the test part.

    With ``bayes=True`` each subset also gets the Laplace interval and the NUTS posterior
    mean and equal-tailed credible interval of the binary model (uniform priors; each
    model is compiled once and refitted per subset) and NUTS's convergence numbers.
    """
    import numpy as np
    import pandas as pd

    items = llmbar_accuracy_items(evaluator)
    rows = []
    for i, subset in enumerate(LLMBAR_SUBSETS):
        if progress is not None:
            print(f"  [{i + 1}/{len(LLMBAR_SUBSETS)}] {subset}", file=progress, flush=True)
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
    import numpy as np

    from judgebayes.errors import LaplaceError
    from judgebayes.inference.sampling import quiet_engine_warnings
    from judgebayes.studies.accuracy import AccuracyStudy

    study = AccuracyStudy(tc, cc)
    with quiet_engine_warnings():  # a failed gate is reported in the row instead
        # calibration sets of 2-11 items per class leave a long ridge towards the mirror
        # solution q0 + q1 < 1: a high target_accept keeps NUTS' steps small there
        fit = study.fit("nuts", random_seed=seed, sampler={"target_accept": 0.95})
    lap_note = ""
    try:
        with quiet_engine_warnings():
            lap = study.fit("laplace", random_seed=seed).interval(alpha).iloc[0]
    except LaplaceError as e:
        # refused where the Gaussian does not fit (importance check): said, never shown
        lap = {"estimate": np.nan, "lower": np.nan, "upper": np.nan}
        lap_note = str(e)
    iv = fit.interval(alpha).iloc[0]
    d = fit.diagnostics
    return {
        "laplace": lap["estimate"],
        "laplace_lower": lap["lower"],
        "laplace_upper": lap["upper"],
        "bayes": iv["estimate"],
        "bayes_lower": iv["lower"],
        "bayes_upper": iv["upper"],
        "r_hat": d.r_hat_max,
        "divergences": d.divergences,
        "bayes_note": "" if d.passed else d.message(),
        "laplace_note": lap_note,
        "p_mirror": fit.info.get("p_mirror", np.nan),
    }


def demo_text(result: DemoResult, args: Any, render) -> str:
    """Human-readable demo output."""
    res = result.accuracy
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
            ("laplace_lower", "Laplace lo"),
            ("laplace_upper", "hi"),
            ("bayes", "NUTS mean"),
            ("bayes_lower", "lo"),
            ("bayes_upper", "hi"),
            ("r_hat", "r_hat"),
            ("divergences", "div"),
            ("p_mirror", "P(q0+q1<1)"),
        ]
    intro = (
        f"LLMBar, judge {args.evaluator} (plain prompt), target: P(output 1 is better).\n"
        f"Each subset: {args.calibration_fraction:.0%} of each gold class calibrates the judge "
        f"(seed {args.seed}); the rest is the test set.\n"
        "gold = true rate on the test set; naive = judge's raw rate; corrected = "
        f"Rogan-Gladen with its Lang-Reiczigel {level} interval; Laplace = normal "
        "approximation at the mode, checked and corrected by importance weights (refused "
        "where it does not fit);\nNUTS = posterior mean and "
        f"{level} credible interval of the Bayesian model (uniform priors on q0 + q1 > 1), "
        "which never collapses at 0 or 1 and needs no clipping;\nP(q0+q1<1) = posterior "
        "mass of a worse-than-chance judge had it not been excluded.\n"
    )
    notes = [f"note [{r['subset']}]: {r['note']}" for r in res.to_dict("records") if r["note"]]
    notes += [
        f"NUTS [{r['subset']}]: {r['bayes_note']}"
        for r in res.to_dict("records")
        if r.get("bayes_note")
    ]
    notes += [
        f"Laplace [{r['subset']}]: {r['laplace_note']}"
        for r in res.to_dict("records")
        if r.get("laplace_note")
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
    parts = [intro, render(res.to_dict("records"), cols, args.format), *notes, summary]
    if result.bias is not None:
        b = result.bias
        parts.append(
            "\nJudge bias on the five LLMBar subsets, both presentation orders "
            f"({b['method'].iloc[0]}; {level} intervals; length per standardised log2 words):"
        )
        show = b[b["coefficient"].isin(["length", "position"])].to_dict("records")
        bcols = [("subset", "judge"), ("note", "coefficient"), ("estimate", "estimate")]
        bcols += [("lower", "lo"), ("upper", "hi"), ("p_positive", "P(>0)")]
        if "r_hat" in b:
            bcols += [("r_hat", "r_hat"), ("divergences", "div")]
        rows = [dict(r, subset=r["judge"], note=r["coefficient"]) for r in show]
        parts.append(render(rows, bcols, args.format))
        parts.append(
            "\nAgreement with gold, 5-fold cross-validated: single verdicts, order-averaged, "
            "after the bias-aware correction, after the paper's logistic correction:"
        )
        acols = [("subset", "judge"), ("verdict_agreement", "verdicts")]
        acols += [("order_averaged", "order-avg"), ("bias_aware", "bias-aware")]
        acols += [("logistic", "logistic"), ("prefers_longer", "judge longer")]
        acols += [("gold_longer", "gold longer")]
        arows = [dict(r, subset=r["judge"]) for r in result.agreement.to_dict("records")]
        parts.append(render(arows, acols, args.format))
    if result.report is not None:
        parts.append(
            f"\nreport: {result.report.path} ({len(result.report.figures)} figures in "
            f"{result.report.path.parent / (result.report.path.stem + '_figures')})"
        )
    return "\n".join(parts)
