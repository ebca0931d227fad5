"""What the demo says: its headline and its full text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from judgebayes.workflows.demo.result import DemoResult


#: the subset of act 1: the one where the judges' raw rates are furthest from gold
LABEL_A_FEW_SUBSET = "Processed_MT-Bench"


_METHOD_NAMES = {
    "naive": "naive",
    "closed_form": "closed form",
    "ppi_plus_plus": "PPI++",
    "laplace": "Laplace",
    "exact": "exact",
    "nuts": "NUTS",
}


def _interval(r: dict) -> str:
    return f"{r['estimate']:.3f} [{r['lower']:.3f}, {r['upper']:.3f}]"


def headline(result: DemoResult, alpha: float = 0.05) -> str:
    """Act 1's finding in two sentences, from the numbers measured (not written in advance)."""
    t = result.label_a_few
    naive = t[t["method"] == "naive"].set_index("unit")
    worst = (naive["estimate"] - naive["gold"]).abs().idxmax()
    rows = t[t["unit"] == worst].set_index("method")
    nv = rows.loc["naive"]
    n_lab = result.n_labels
    level = f"{100 * (1 - alpha):g}%"
    fixed = [f"{_METHOD_NAMES[m]} {_interval(rows.loc[m])}" for m in rows.index if m != "naive"]
    covered = [m for m in rows.index if m != "naive" and rows.loc[m, "covered"]]
    missed = [_METHOD_NAMES[m] for m in rows.index if m != "naive" and m not in covered]
    text = (
        f"{worst}'s raw rate {nv['estimate']:.3f} overstates the gold rate "
        f"{nv['gold']:.3f} by {nv['estimate'] - nv['gold']:+.3f} (its {level} interval "
        f"[{nv['lower']:.3f}, {nv['upper']:.3f}] "
        f"{'covers' if nv['covered'] else 'misses'} gold). With {n_lab} of the pairs labelled, "
        f"the corrected {level} intervals are "
        + "; ".join(fixed)
        + ": "
        + (
            "every one covers gold."
            if not missed
            else f"{len(covered)} of {len(covered) + len(missed)} cover gold (not: "
            + ", ".join(missed)
            + ")."
        )
    )
    cov = result.label_coverage
    if cov is not None and len(cov):
        mean = cov.groupby("method", sort=False)["coverage"].mean()
        text += (
            f"\nOver {int(cov['draws'].iloc[0])} random draws of the labelled pairs, the "
            f"{level} intervals covered the judges' gold rate in "
            + ", ".join(f"{100 * v:.1f}% ({_METHOD_NAMES[m]})" for m, v in mean.items())
            + " of judge x draw cases (Monte-Carlo error per judge +-"
            + f"{100 * (0.05 * 0.95 / int(cov['draws'].iloc[0])) ** 0.5:.1f}%)."
        )
    return text


def demo_text(result: DemoResult, args: Any, render) -> str:
    """Human-readable demo output: the three acts, then the headline as the summary."""
    level = f"{100 * (1 - args.alpha):g}%"
    parts: list[str] = []
    if result.label_a_few is not None:
        parts += _act_one(result, args, render, level)
    parts += _act_two(result.accuracy, args, render, level)
    if result.bias is not None:
        parts += _act_three(result, args, render, level)
    if result.label_a_few is not None:
        parts.append("\nSUMMARY: " + headline(result, args.alpha))
    if result.report is not None:
        parts.append(
            f"\nreport: {result.report.path} ({len(result.report.figures)} figures in "
            f"{result.report.path.parent / (result.report.path.stem + '_figures')})"
        )
    return "\n".join(parts)


def _act_one(result: DemoResult, args: Any, render, level: str) -> list[str]:
    """Act 1: a biased judge, a few labels; every method's interval and its coverage."""
    parts: list[str] = []
    t = result.label_a_few
    parts.append(
        f"ACT 1 - a biased judge, a few labels. LLMBar {LABEL_A_FEW_SUBSET}: every pair "
        "judged by each judge with verdicts on it, target P(output 1 is better);\n"
        f"{result.n_labels} pairs labelled by humans at random (seed "
        f"{args.seed}); gold = the human rate over all pairs (what the corrected rate "
        "estimates).\n"
    )
    wide = []
    for judge, g in t.groupby("unit", sort=False):
        row = {"judge": judge, "gold": g["gold"].iloc[0]}
        for r in g.to_dict("records"):
            name = _METHOD_NAMES.get(r["method"], r["method"])
            row[name] = _interval(r) + ("" if r["covered"] else " x")
        wide.append(row)
    names = [_METHOD_NAMES.get(m, m) for m in dict.fromkeys(t["method"])]
    parts.append(
        render(wide, [("judge", "judge"), ("gold", "gold"), *((n, n) for n in names)],
               args.format)
    )  # fmt: skip
    parts.append(f"(estimate [{level} interval]; x = misses gold)")
    nuts = t[t["method"] == "nuts"]
    if len(nuts):
        parts.append(
            f"NUTS: r_hat max {nuts['r_hat'].max():.3f}, "
            f"{int(nuts['divergences'].max())} divergences, "
            f"{nuts['ess_bulk'].min():.0f} bulk ESS min."
        )
    cov = result.label_coverage
    if cov is not None and len(cov):
        pivot = cov.pivot_table(index="judge", columns="method", values="coverage",
                                sort=False)  # fmt: skip
        crow = [
            {"judge": j, **{_METHOD_NAMES[m]: v for m, v in r.items()}}
            for j, r in pivot.to_dict("index").items()
        ]
        parts.append(
            f"\nCoverage of gold over {int(cov['draws'].iloc[0])} random draws of the "
            f"labelled pairs ({level} intervals; Monte-Carlo error about 0.015):"
        )
        ccols = [("judge", "judge")] + [(_METHOD_NAMES[m], _METHOD_NAMES[m]) for m in pivot.columns]
        parts.append(render(crow, ccols, args.format))
    return parts


def _act_two(res, args: Any, render, level: str) -> list[str]:
    """Act 2: when correction does not pay (every LLMBar subset)."""
    parts: list[str] = []
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
    if "exact" in res:
        cols += [
            ("laplace_lower", "Laplace lo"),
            ("laplace_upper", "hi"),
            ("exact", "exact mean"),
            ("exact_lower", "lo"),
            ("exact_upper", "hi"),
            ("p_mirror", "P(q0+q1<1)"),
        ]
    parts.append(
        f"\nACT 2 - when correction does not pay. LLMBar, judge {args.evaluator} (plain "
        "prompt), every subset: "
        f"{args.calibration_fraction:.0%} of each gold class calibrates the judge, the rest "
        "is the test set.\ngold = true rate on the test set; naive = judge's raw rate; "
        f"corrected = Rogan-Gladen with its Lang-Reiczigel {level} interval; Laplace (refused "
        "where its importance check fails);\nexact = the Bayesian model's exact posterior "
        "(uniform priors on q0 + q1 > 1); P(q0+q1<1) = the mass a worse-than-chance judge "
        "would have had.\n"
    )
    parts.append(render(res.to_dict("records"), cols, args.format))
    parts += [f"note [{r['subset']}]: {r['note']}" for r in res.to_dict("records") if r["note"]]
    parts += [
        f"Laplace [{r['subset']}]: {r['laplace_note']}"
        for r in res.to_dict("records")
        if r.get("laplace_note")
    ]
    ok = res["covered"].dropna()
    parts.append(
        f"\nmean |naive - gold| = {res['naive_error'].abs().mean():.3f}; "
        f"mean |corrected - gold| = {res['corrected_error'].abs().mean():.3f}; "
        f"intervals covering gold (Lang-Reiczigel): {int(ok.sum())}/{len(ok)}.\n"
        f"{args.evaluator} is nearly unbiased here (gold near 0.5, q0 ~ q1: bias "
        "(1 - 2*theta)(1 - q) ~ 0), and 2-11 calibration items per class make q0 + q1 - 1\n"
        "small and noisy, so the correction adds noise and width and removes little bias. "
        "Correction pays when the judge is biased\nand the labels are enough (act 1); "
        "`judgebayes plan` says how many labels a target width needs."
    )
    return parts


def _act_three(result: DemoResult, args: Any, render, level: str) -> list[str]:
    """Act 3: the judge's length and position bias, and what correcting it buys."""
    parts: list[str] = []
    b = result.bias
    parts.append(
        "\nACT 3 - judge bias on the five LLMBar subsets, both presentation orders "
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
        "after the bias-aware correction (posterior decision with a length-aware gold "
        "prior), after the paper's logistic correction, the gold prior alone:"
    )
    acols = [("subset", "judge"), ("verdict_agreement", "verdicts")]
    acols += [("order_averaged", "order-avg"), ("bias_aware", "bias-aware")]
    acols += [("logistic", "logistic"), ("prior_only", "prior only")]
    acols += [("prefers_longer", "judge longer")]
    acols += [("gold_longer", "gold longer")]
    arows = [dict(r, subset=r["judge"]) for r in result.agreement.to_dict("records")]
    parts.append(render(arows, acols, args.format))
    return parts
