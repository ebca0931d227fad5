"""``judgebayes accuracy``: naive vs corrected accuracy from CSV files."""

from __future__ import annotations

import json
import sys

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import (
    add_common,
    add_item_files,
    add_method,
    add_sampler,
    clean,
    diagnostics_json,
    fit_methods,
    fit_options,
    fmt,
    method_choices,
    render,
    seed_arg,
    study_from_args,
)

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """The ``accuracy`` subcommand's arguments."""
    a = sub.add_parser("accuracy", help=COMMANDS["accuracy"].help)
    add_item_files(a, items=True)
    add_method(
        a,
        (*method_choices("accuracy", "items"), "all"),
        default="all",
        help="estimators to compare (default all: the study's own comparison)",
    )
    a.add_argument("--stratum", default=None, help="items design: stratum column")
    a.add_argument("--cluster", default=None, help="items design: cluster column")
    a.add_argument(
        "--weights", default=None, help="items design: design weight column (1 / P(labelled))"
    )
    a.add_argument(
        "--covariate",
        action="append",
        default=None,
        dest="covariates",
        metavar="COLUMN",
        help="items design: an item covariate the judge's errors may follow, e.g. length, "
        "or length:spline for a curve (repeatable; the Bayesian fits then model the "
        "judge's rates on it)",
    )
    a.add_argument(
        "--judge-rates",
        choices=("auto", "pooled", "shared", "per_system"),
        default=None,
        help="items design, several systems: the judge's rates across systems in the "
        "Bayesian fits (default auto: pooled with a learnt spread)",
    )
    a.add_argument(
        "--estimand",
        choices=("items", "process"),
        default="items",
        help="items design: the rate over the N items (default) or of the process",
    )
    a.add_argument("--seed", type=seed_arg, default=0, help="random seed of the Bayesian fits")
    add_sampler(a)
    add_common(a)


def run(args) -> str:
    """Run ``judgebayes accuracy``; returns what goes to stdout."""
    from judgebayes.studies.accuracy import accuracy_table

    if args.calibration is None or any(
        getattr(args, k) is not None for k in ("inspect", "lm_eval", "promptfoo")
    ):
        return _run_items(args)  # a log with --calibration is refused there, in one line
    for opt in ("stratum", "cluster", "weights", "covariates", "judge_rates"):
        if getattr(args, opt) is not None:
            from judgebayes.errors import InputError

            flag = {"covariates": "covariate", "judge_rates": "judge-rates"}.get(opt, opt)
            raise InputError(
                f"--{flag} belongs to the items design (one file, no --calibration)",
                field=opt,
                value=getattr(args, opt),
            )
    from judgebayes.inference.nuts import quiet_engine_warnings

    study = study_from_args(args)  # the public constructor, with its refusals
    with quiet_engine_warnings():  # the mirror's note is said here, in one line
        table = accuracy_table(study, alpha=args.alpha)
    if (note := study._mirror_note(posterior=False)) is not None:
        print(f"judgebayes accuracy: note: {note}", file=sys.stderr)
    rows = table.to_dict("records")
    level = f"{100 * (1 - args.alpha):g}%"
    comparison, pairwise, diagnostics = _bayes_sections(study, args)
    if args.format == "json":
        return _two_frames_json(rows, comparison, pairwise, diagnostics, args.alpha)
    return _two_frames_text(rows, comparison, pairwise, level, args.format)


def _two_frames_json(rows, comparison, pairwise, diagnostics, alpha: float) -> str:
    """The two-frame design's ``--format json`` output."""
    first = rows[0]
    return json.dumps(
        {
            "comparison": [{k: clean(v) for k, v in r.items()} for r in comparison],
            "diagnostics": diagnostics,
            "pairwise": [{k: clean(v) for k, v in r.items()} for r in pairwise],
            "alpha": alpha,
            "calibration": {
                "m0": int(first["m0"]),
                "m1": int(first["m1"]),
                "q0": clean(first["q0"]),
                "q1": clean(first["q1"]),
                "n_missing": int(first["calibration_n_missing"]),
            },
            "systems": [
                {
                    k: clean(r[k])
                    for k in (
                        "system",
                        "n",
                        "n_missing",
                        "k",
                        "naive",
                        "naive_lower",
                        "naive_upper",
                        "estimate",
                        "lower",
                        "upper",
                        "degenerate",
                        "note",
                    )
                }
                for r in rows
            ],
        },
        indent=2,
    )


def _two_frames_text(rows, comparison, pairwise, level: str, style: str) -> str:
    """The two-frame design's tables: per system, by method, pairwise."""
    cols = [
        ("system", "system"),
        ("n", "n"),
        ("n_missing", "missing"),
        ("naive", "naive"),
        ("naive_lower", f"naive {level} lo"),
        ("naive_upper", "hi"),
        ("estimate", "corrected"),
        ("lower", f"LR {level} lo"),
        ("upper", "hi"),
    ]
    first = rows[0]
    header = (
        f"calibration: m0={first['m0']} m1={first['m1']} "
        f"specificity q0={fmt(first['q0'])} sensitivity q1={fmt(first['q1'])} "
        f"missing={first['calibration_n_missing']}"
    )
    notes = [f"note [{r['system']}]: {r['note']}" for r in rows if r["note"]]
    out = [header, "", render(rows, cols, style), *notes]
    if comparison:
        ccols = [
            ("system", "system"),
            ("method", "method"),
            ("estimate", "estimate"),
            ("lower", f"{level} lo"),
            ("upper", "hi"),
            ("width", "width"),
            ("r_hat", "r_hat"),
            ("ess_bulk", "ess_bulk"),
            ("divergences", "div"),
            ("seconds", "seconds"),
        ]
        out += [
            "",
            "true accuracy by method (closed form: Lang-Reiczigel; Bayesian: "
            "posterior mean, equal-tailed credible interval)",
            "",
            render(comparison, ccols, style),
        ]
    if pairwise:
        pcols = [
            ("a", "system a"),
            ("b", "system b"),
            ("difference", "theta_a - theta_b"),
            ("lower", f"{level} lo"),
            ("upper", "hi"),
            ("p_a_greater", "P(a > b)"),
            ("estimand", "estimand"),
        ]
        out += [
            "",
            f"pairwise comparison ({pairwise[0]['method']})",
            "",
            render(pairwise, pcols, style),
        ]
    return "\n".join(out)


def _run_items(args) -> str:
    """The items design: one file, every item judged, blank human label = unlabelled."""
    import pandas as pd

    from judgebayes.results import COMPARISON_COLUMNS, compare

    study = study_from_args(args)
    fits, refused = fit_methods(study, _methods(study, args), args, "accuracy")
    table = pd.concat(
        [compare(fits, alpha=args.alpha), pd.DataFrame(refused, columns=list(COMPARISON_COLUMNS))]
    )
    rows = table.rename(columns={"unit": "system"}).drop(columns="family").to_dict("records")
    counts = study.summary().reset_index().to_dict("records")
    notes = list(dict.fromkeys(n for f in fits for n in f.notes))
    estimand = fits[0].info["estimand_text"] if fits else ""
    # every method's A - B (paired on the prompts with --item, its estimand column says)
    pairwise = []
    if len(study.systems) > 1:
        for f in fits:
            if f.is_point and f.info.get("contrasts") is None:
                continue
            pairwise += [
                dict(r, method=f.method) for r in f.contrasts(args.alpha).to_dict("records")
            ]
    if args.format == "json":
        return json.dumps(
            {
                "design": "items",
                "estimand": args.estimand,
                "alpha": args.alpha,
                "systems": [{k: clean(v) for k, v in r.items()} for r in counts],
                "comparison": [{k: clean(v) for k, v in r.items()} for r in rows],
                "pairwise": [{k: clean(v) for k, v in r.items()} for r in pairwise],
                "diagnostics": {
                    f.method: diagnostics_json(f) for f in fits if f.diagnostics is not None
                },
                "notes": notes,
            },
            indent=2,
        )
    level = f"{100 * (1 - args.alpha):g}%"
    ccols = [
        ("system", "system"),
        ("method", "method"),
        ("quantity", "quantity"),
        ("estimate", "estimate"),
        ("lower", f"{level} lo"),
        ("upper", "hi"),
        ("width", "width"),
        ("r_hat", "r_hat"),
        ("divergences", "div"),
        ("seconds", "seconds"),
    ]
    kcols = [
        ("system", "system"),
        ("n_items", "items"),
        ("n_labelled", "labelled"),
        ("judged_positive", "judged +"),
        ("human_positive", "human + (labelled)"),
        ("n_missing", "missing verdict"),
    ]
    out = [
        render(counts, kcols, args.format),
        "",
        f"true rate by method (study estimand: {estimand}; theta_items: the rate over the "
        "N items evaluated; theta: the rate of the process that produced them)",
        "",
        render(rows, ccols, args.format),
    ]
    if pairwise:
        pcols = [
            ("method", "method"),
            ("a", "system a"),
            ("b", "system b"),
            ("difference", "a - b"),
            ("lower", f"{level} lo"),
            ("upper", "hi"),
            ("p_a_greater", "P(a > b)"),
            ("estimand", "estimand"),
        ]
        out += ["", "pairwise comparison by method", "", render(pairwise, pcols, args.format)]
    out += [f"note: {n}" for n in notes]
    return "\n".join(out)


def _bayes_sections(study, args) -> tuple[list[dict], list[dict], dict]:
    """Comparison rows of the chosen methods, for several systems P(a > b), and the
    convergence gate of each MCMC fit.
    """
    import pandas as pd

    from judgebayes.results import COMPARISON_COLUMNS, compare

    methods = _methods(study, args)
    if methods == ("closed_form",):
        fit_options(args, study, methods)  # a sampler flag no method takes is refused
        return [], [], {}
    fits, refused = fit_methods(study, methods, args, "accuracy")
    mirror = next((n for f in fits for n in f.notes if "P(q0 + q1 < 1" in n), None)
    if mirror:
        print(f"judgebayes accuracy: note: {mirror}", file=sys.stderr)
    table = pd.concat(
        [compare(fits, alpha=args.alpha), pd.DataFrame(refused, columns=list(COMPARISON_COLUMNS))]
    )
    # the subcommand's JSON schema names the unit "system" (README)
    comparison = table.rename(columns={"unit": "system"}).drop(columns="family").to_dict("records")
    pairwise: list[dict] = []
    # the last fit with draws, else a closed form that carries its contrasts (paired
    # with --item)
    sampled = [f for f in fits if not f.is_point] or [
        f for f in fits if f.info.get("contrasts") is not None
    ]
    if len(study.systems) > 1 and sampled:
        best = sampled[-1]
        pairwise = [
            dict(r, method=best.method) for r in best.contrasts(args.alpha).to_dict("records")
        ]
    diagnostics = {f.method: diagnostics_json(f) for f in fits if f.diagnostics is not None}
    return comparison, pairwise, diagnostics


def _methods(study, args) -> tuple[str, ...]:
    """The methods ``--method`` names: one, or ``all``, the study's own comparison."""
    from judgebayes.inference.registry import normalise_method

    if args.method == "all":
        return tuple(study.default_methods)
    return (normalise_method(args.method),)
