"""``judgebayes agreement``: how much raters agree, with intervals.

One CSV file, long (``--item``, ``--rater``, ``--value``: one row per rating) or wide
(``--raters h1,h2,h3``: one row per item, one column per rater, blank = not rated).  Prints
each coefficient (percent agreement, Cohen's kappa for two raters, Fleiss' kappa, Gwet's
AC1/AC2, Brennan-Prediger, Krippendorff's alpha) with its standard error, its interval
(``--interval auto``, the default, ``posterior`` or ``t``) and, with ``--bootstrap N``, a bootstrap
interval.  With ``--judges j1,j2`` (wide form) it also
prints each judge's agreement with the humans beside the humans' agreement with each
other, and the judges' effective number given the humans.

JSON (``--format json``): ``{"coefficients": [row, ...], "judges": [row, ...] | null,
"effective_judges": row | null, "notes": [str, ...]}`` with the columns of
:func:`judgebayes.agreement`, :func:`judgebayes.estimators.judge_agreement` and
:func:`judgebayes.estimators.effective_judges`.
"""

from __future__ import annotations

import json
import sys

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import add_common, count_arg, read_csv, render, seed_arg

__all__ = ["add_parser", "run"]

_COLUMNS = [
    ("name", "coefficient"),
    ("estimate", "estimate"),
    ("se", "se"),
    ("lower", "lower"),
    ("upper", "upper"),
    ("boot_lower", "boot lower"),
    ("boot_upper", "boot upper"),
    ("n_items", "items"),
]
_JUDGE_COLUMNS = [
    ("judge", "judge"),
    ("judge_vs_humans", "judge-human kappa"),
    ("humans_vs_humans", "human-human kappa"),
    ("difference", "difference"),
    ("lower", "lower"),
    ("upper", "upper"),
    ("n_items", "items"),
]


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def add_parser(sub) -> None:
    """The ``agreement`` subcommand's arguments."""
    a = sub.add_parser("agreement", help=COMMANDS["agreement"].help)
    a.add_argument("ratings", help="CSV: one row per rating (long) or per item (wide)")
    a.add_argument("--item", default=None, help="item id column")
    a.add_argument("--rater", default=None, help="long form: the rater id column")
    a.add_argument("--value", default=None, help="long form: the rating column")
    a.add_argument("--raters", type=_names, default=None, help="wide form: h1,h2,h3")
    a.add_argument(
        "--judges",
        type=_names,
        default=None,
        help="wide form: judge columns to hold against the raters (j1,j2)",
    )
    a.add_argument(
        "--level", choices=("nominal", "ordinal", "interval", "ratio"), default="nominal"
    )
    a.add_argument("--cluster", default=None, help="clusters of items (responses to a prompt)")
    a.add_argument(
        "--categories",
        type=_names,
        default=None,
        help="every category in order (needed for ordered text labels)",
    )
    a.add_argument(
        "--interval",
        choices=("auto", "posterior", "t"),
        default="auto",
        help="the coefficients' interval: the posterior of a Dirichlet model of the items' "
        "ratings (honest on few items or a rare category), Gwet's t interval, or auto "
        "(default: the posterior below 1,000 items or 50 ratings of a category)",
    )
    a.add_argument(
        "--bootstrap",
        type=count_arg,
        default=None,
        help="bootstrap replicates (default: none for the coefficients; 2000 for the judges' "
        "comparisons)",
    )
    a.add_argument("--seed", type=seed_arg, default=0, help="the posterior's and bootstrap's seed")
    add_common(a)


def run(args) -> tuple[str, int]:
    """Run ``judgebayes agreement``; returns (stdout, exit status)."""
    from judgebayes.errors import InputError
    from judgebayes.results import to_json
    from judgebayes.workflows.agreement import agreement, effective_judges, judge_agreement

    df = read_csv(args.ratings, "ratings")
    boot = args.bootstrap
    common = dict(alpha=args.alpha, bootstrap=2000 if boot is None else boot, random_seed=args.seed)
    design = dict(level=args.level, cluster=args.cluster, categories=args.categories)
    table = agreement(
        df, args.item, args.rater, args.value, raters=args.raters, **design,
        interval=args.interval, **{**common, "bootstrap": boot or 0},
    )  # fmt: skip
    out = {
        "coefficients": table.to_dict("records"),
        "judges": None,
        "effective_judges": None,
        "notes": table.attrs["notes"],
    }
    if args.judges:
        if not args.raters:
            raise InputError(
                "--judges goes with the wide form (--raters h1,h2,...)",
                field="judges",
                value=",".join(args.judges),
            )
        judges = judge_agreement(df, args.judges, args.raters, item=args.item, **design, **common)
        out["judges"] = judges.to_dict("records")
        if len(args.judges) >= 2:
            try:
                eff = effective_judges(
                    df, args.judges, humans=args.raters, cluster=args.cluster, **common
                )
                out["effective_judges"] = eff.to_dict("records")[0]
            except InputError as e:  # text labels: no correlation to take
                out["notes"].append(f"effective judges not computed: {e}")
    for note in out["notes"]:
        print(f"judgebayes agreement: note: {note}", file=sys.stderr)
    if args.format == "json":
        return json.dumps(to_json(out), indent=2), 0
    text = render(out["coefficients"], _COLUMNS, args.format)
    if out["judges"]:
        text += "\n\n" + render(out["judges"], _JUDGE_COLUMNS, args.format)
    if out["effective_judges"]:
        e = out["effective_judges"]
        text += (
            f"\n\n{e['judges']} judges are worth {e['effective_judges']:.2f} independent "
            f"ones [{e['lower']:.2f}, {e['upper']:.2f}] (mean error correlation "
            f"{e['mean_correlation']:.3f} {e['basis']}, {e['n_items']} items)"
        )
    return text, 0
