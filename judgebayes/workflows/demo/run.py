"""The demo's runs on the real data: accuracy on LLMBar, label a few on PandaLM, the
judge's bias, and the report written beside them.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgebayes.data.accuracy import (
    calibration_split,
)
from judgebayes.datasets import (
    LLMBAR_EVALUATORS,
    LLMBAR_SUBSETS,
    llmbar_accuracy_items,
    llmbar_both_orders,
)
from judgebayes.errors import LaplaceError, MethodRefused
from judgebayes.inference.nuts import quiet_engine_warnings
from judgebayes.report import Report
from judgebayes.results import compare, plot_intervals
from judgebayes.studies.accuracy import AccuracyStudy, accuracy_table
from judgebayes.workflows.demo.result import DemoResult
from judgebayes.workflows.demo.text import LABEL_A_FEW_SUBSET, headline
from judgebayes.workflows.judge_bias import (
    LLMBAR_BIAS_SUBSETS,
    cross_validated_agreement,
    fit_judge_bias,
    judge_bias_table,
    plot_bias_forest,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def run_demo(
    evaluator: str = "GPT-4",
    calibration_fraction: float = 0.1,
    seed: int = 0,
    alpha: float = 0.05,
    progress: IO[str] | None = None,
    bayes: bool = True,
    bias: str | None = "laplace",
    report: str | None = None,
    n_labels: int = 40,
    label_draws: int = 200,
) -> DemoResult:
    """Run the main job: the three acts of the module docstring and a report.

    Parameters
    ----------
    evaluator, calibration_fraction
        Act 2's judge and calibration share (:func:`run_accuracy_demo`).
    seed, alpha
        Random seed of every split and fit; 1 - the interval level.
    progress : file, optional
        Where to print progress lines.
    bayes : bool
        Laplace, the exact posterior and NUTS beside the closed forms.
    bias : {"laplace", "nuts"} or None
        Engine of act 3 (None: skip it).
    report : str, optional
        Report path (``.md`` or ``.html``); None writes none.
    n_labels, label_draws
        Act 1: pairs labelled, and random label draws of its coverage check (0: none).
    """
    say = (lambda m: print(m, file=progress, flush=True)) if progress else (lambda m: None)
    say(f"act 1: {LABEL_A_FEW_SUBSET}, every pair judged, {n_labels} labelled")
    table, coverage, fits = run_label_a_few(n_labels, seed, alpha, bayes, label_draws, say)
    say(f"act 2: {evaluator} on the {len(LLMBAR_SUBSETS)} LLMBar subsets")
    acc = run_accuracy_demo(evaluator, calibration_fraction, seed, alpha, progress, bayes)
    res = DemoResult(
        acc, label_a_few=table, label_coverage=coverage, fits=tuple(fits), n_labels=n_labels
    )
    if bias is not None:
        say(f"act 3: judge bias of {len(LLMBAR_EVALUATORS)} judges (both orders, {bias})")
        res.bias, res.agreement = _bias_part(bias, seed, alpha, say)
    if report is not None:
        say(f"writing the report to {report}")
        res.report = _write_report(res, report, evaluator, calibration_fraction, seed, alpha)
    return res


def label_a_few_items(
    n_labels: int = 40,
    seed: int | Any = 0,
    subset: str = LABEL_A_FEW_SUBSET,
    judged: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Act 1's items frame: each judge's verdicts on ``subset``, ``n_labels`` pairs labelled.

    The same pairs are labelled for every judge (humans label pairs, not verdicts), drawn
    at random with ``seed``.  Columns ``system`` (the judge), ``idx``, ``judge``,
    ``human`` (blank where unlabelled) and ``gold`` (every pair's human label, for
    checking only).  ``judged``: an earlier result whose labels are drawn again (the
    bundled verdicts are then not read again).
    """
    if judged is None:
        frames = []
        for ev in LLMBAR_EVALUATORS:
            it = llmbar_accuracy_items(ev)
            it = it[it["subset"] == subset]
            if len(it):
                frames.append(it.assign(system=ev))
        df = pd.concat(frames, ignore_index=True).rename(columns={"human": "gold"})
    else:
        df = judged.copy()
    ids = np.unique(df["idx"])
    rng = np.random.default_rng(seed)
    labelled = rng.choice(ids, n_labels, replace=False)
    df["human"] = np.where(df["idx"].isin(labelled), df["gold"], np.nan)
    return df[["system", "idx", "judge", "human", "gold"]]


def run_label_a_few(
    n_labels: int = 40,
    seed: int = 0,
    alpha: float = 0.05,
    bayes: bool = True,
    label_draws: int = 200,
    say=lambda m: None,
):
    r"""Act 1: (table, coverage, fits); see the module docstring.

    ``table`` is :func:`judgebayes.compare`'s table with ``gold`` (the judge's 200 pairs'
    gold rate: the items estimand's target) and ``covered``.  ``coverage`` repeats the
    point methods and the exact posterior over ``label_draws`` label draws (seeds
    ``[seed, r]``); its Monte-Carlo standard error at 0.95 is
    :math:`\sqrt{0.95 \cdot 0.05 / R}` (0.015 for R = 200).
    """
    df = label_a_few_items(n_labels, seed)
    gold = df.groupby("system", sort=False)["gold"].mean()
    # the "systems" are four different judges of the same pairs: one judge's rates say
    # nothing about another's (shared rates put GPT-4 at 0.480 and ChatGPT at 0.681 against
    # a gold 0.505 for both; pooled ones leave a funnel that Laplace refuses)
    study = AccuracyStudy.from_items(df, system="system", judge_rates="per_system")
    methods = ["naive", "closed_form", "ppi_plus_plus"]
    methods += ["laplace", "exact", "nuts"] if bayes else []
    fits = []
    for m in methods:
        say(f"  {m}")
        try:
            with quiet_engine_warnings():  # a failed gate is in the table's columns
                fits.append(study.fit(m, random_seed=seed))
        except LaplaceError as e:
            say(f"  laplace refused: {e}")
    table = compare(fits, alpha=alpha)
    table["gold"] = table["unit"].map(gold)
    table["covered"] = (table["lower"] <= table["gold"]) & (table["gold"] <= table["upper"])
    rows = []
    if label_draws:
        say(f"  coverage over {label_draws} random label draws")
        reps = ("naive", "closed_form", "ppi_plus_plus", *(("exact",) if bayes else ()))
        hits = {m: [] for m in reps}
        widths = {m: [] for m in reps}
        refused = dict.fromkeys(reps, 0)  # counted and shown, never dropped silently
        for r in range(label_draws):
            d = label_a_few_items(n_labels, np.random.default_rng([seed, r]), judged=df)
            st = AccuracyStudy.from_items(d, system="system", judge_rates="per_system")
            for m in reps:
                try:
                    iv = st.fit(m, random_seed=r).interval(alpha).reindex(gold.index)
                except MethodRefused:
                    refused[m] += 1
                    continue
                hits[m].append(((iv["lower"] <= gold) & (gold <= iv["upper"])).to_numpy())
                widths[m].append((iv["upper"] - iv["lower"]).to_numpy())
        for m in reps:
            h = np.asarray(hits[m]).reshape(-1, len(gold))
            w = np.asarray(widths[m]).reshape(-1, len(gold))
            for j, judge in enumerate(gold.index):
                rows.append(
                    {
                        "method": m,
                        "judge": judge,
                        "coverage": h[:, j].mean() if len(h) else np.nan,
                        "mean_width": w[:, j].mean() if len(w) else np.nan,
                        "draws": label_draws - refused[m],
                        "refused": refused[m],
                    }
                )
    return table, pd.DataFrame(rows), fits


def _bias_part(method: str, seed: int, alpha: float, say):

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

    level = f"{100 * (1 - alpha):g}%"
    r = Report("judgebayes demo: LLM judges on LLMBar")
    if res.label_a_few is not None:
        t = res.label_a_few
        r.heading("Act 1: a biased judge, a few labels")
        r.text(headline(res, alpha))
        r.text(
            f"LLMBar {LABEL_A_FEW_SUBSET}: every pair judged by each judge with verdicts on "
            f"it, {res.n_labels} pairs labelled by humans at random (seed {seed}); `gold` is "
            "the human rate over all pairs, the rate the items estimand targets."
        )
        r.table("label_a_few", t)
        gold = dict(zip(t["unit"], t["gold"], strict=False))
        ax = plot_intervals(t, truth=gold)
        r.figure("label_a_few", ax.figure, f"Raw and corrected rates ({level}), gold as ticks")
        if res.label_coverage is not None and len(res.label_coverage):
            r.text("Coverage of gold over random draws of the labelled pairs:")
            r.table("label_coverage", res.label_coverage)
    r.heading("Act 2: when correction does not pay")
    r.text(
        f"Judge {evaluator} (plain prompt), target P(output 1 is better). In each subset "
        f"{fraction:.0%} of each gold class calibrates the judge (seed {seed}); the rest is "
        "the test set, whose gold rate (`gold`) the estimates are compared with. "
        f"closed form: Rogan-Gladen with the Lang-Reiczigel {level} interval; Laplace and "
        f"the exact posterior of the Bayesian model (uniform priors), mean and {level} "
        "interval."
    )
    cols = ["subset", "items", "n", "n_missing", "m0", "m1", "gold", "naive", "estimate"]
    cols += ["lower", "upper", "laplace", "laplace_lower", "laplace_upper"]
    cols += ["exact", "exact_lower", "exact_upper", "p_mirror"]
    r.table("accuracy", res.accuracy[[c for c in cols if c in res.accuracy]])
    if "exact" in res.accuracy:
        r.figure("accuracy", _accuracy_figure(res.accuracy, alpha), "Estimates per subset")
    if res.bias is not None:
        r.heading("Act 3: judge bias (both presentation orders)")
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
    spec = [("naive", "naive", "naive", "naive"),
            ("closed form", "estimate", "lower", "upper"),
            ("Laplace", "laplace", "laplace_lower", "laplace_upper"),
            ("exact posterior", "exact", "exact_lower", "exact_upper")]  # fmt: skip
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

    With ``bayes=True`` each subset also gets the Laplace interval and the exact posterior
    mean and equal-tailed credible interval of the binary model (uniform priors) with its
    posterior mass on the mirror region.
    """
    items = llmbar_accuracy_items(evaluator)
    rows = []
    for i, subset in enumerate(LLMBAR_SUBSETS):
        if progress is not None:
            print(f"  [{i + 1}/{len(LLMBAR_SUBSETS)}] {subset}", file=progress, flush=True)
        sub = items[items["subset"] == subset]
        test, cal = calibration_split(
            sub, calibration_fraction, random_seed=np.random.default_rng([seed, i])
        )
        study = AccuracyStudy.from_frames(test, cal, judge="judge", human="human")
        row = accuracy_table(study, alpha=alpha).iloc[0].to_dict()
        row.pop("system")
        if bayes:
            row.update(_bayes_row(study, alpha, seed))
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


def _bayes_row(study, alpha: float, seed: int) -> dict:
    """Laplace and the exact posterior of the binary model (uniform priors, q0 + q1 > 1)."""
    # the exact posterior (quadrature) of the model NUTS samples: no sampler to trust, and
    # calibration sets of 2-11 items per class are where NUTS meets the mirror ridge
    with quiet_engine_warnings():  # the mirror's mass is in the row (p_mirror)
        fit = study.fit("exact", random_seed=seed)
    lap_note = ""
    try:
        with quiet_engine_warnings():
            lap = study.fit("laplace", random_seed=seed).interval(alpha).iloc[0]
    except LaplaceError as e:
        # refused where the Gaussian does not fit (importance check): said, never shown
        lap = {"estimate": np.nan, "lower": np.nan, "upper": np.nan}
        lap_note = str(e)
    iv = fit.interval(alpha).iloc[0]
    return {
        "laplace": lap["estimate"],
        "laplace_lower": lap["lower"],
        "laplace_upper": lap["upper"],
        "exact": iv["estimate"],
        "exact_lower": iv["lower"],
        "exact_upper": iv["upper"],
        "laplace_note": lap_note,
        "p_mirror": fit.info.get("p_mirror", np.nan),
    }
