"""``judgebayes leaderboard``: many systems on one benchmark, with honest ranks.

One CSV (or Parquet) file with one row per outcome of a system on an item: ``--system``,
``--item``, ``--score`` (0/1, a judge's win probability, a pass fraction; with
``--trials``, a count of successes) and optionally ``--human`` (labels on a few rows: the
judge is then corrected), ``--cluster`` and ``--adjust``.  ``--method`` is one of
:class:`judgebayes.LeaderboardStudy`'s (``closed-form`` by default, ``bootstrap``,
``nuts``, ``laplace``; ``--model`` picks the Bayesian model of the last two).  Prints
:meth:`BoardFit.leaderboard <judgebayes.studies.leaderboard.BoardFit.leaderboard>`:
each system's estimate and interval, its simultaneous rank interval, tier, share of the
top ``--top-k`` and its comparison with the best (or ``--baseline``), under a header
naming the estimand; the fit's notes and its failed checks on stderr.  A flag the chosen
method does not use is refused, never ignored.

JSON (``--format json``): ``{"systems": [row, ...], "notes": [str, ...], "header",
"estimand", "method", "model", "alpha", "control", "reference", ...}``.
"""

from __future__ import annotations

import json
import sys
import warnings

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import (
    CLIError,
    add_common,
    add_method,
    count_arg,
    pair_arg,
    read_csv,
    render,
    seed_arg,
)

__all__ = ["add_parser", "run"]

_COLUMNS = [
    ("system", "system"),
    ("estimate", "estimate"),
    ("lower", "lower"),
    ("upper", "upper"),
    ("rank", "rank"),
    ("rank_lower", "rank low"),
    ("rank_upper", "rank high"),
    ("tier", "tier"),
    ("p_top_k", "P(top k)"),
    ("difference", "vs reference"),
]
_SAMPLING = ("closed-form", "bootstrap")
#: each method-specific flag and the methods that use it
_USED_BY = {
    "model": ("nuts", "laplace"),
    "control": ("closed-form", "bootstrap"),
    "draws": ("closed-form",),
    "reps": ("bootstrap",),
}


def add_parser(sub) -> None:
    """The ``leaderboard`` subcommand's arguments."""
    a = sub.add_parser("leaderboard", help=COMMANDS["leaderboard"].help)
    a.add_argument("scores", help="CSV or Parquet: one row per outcome of a system on an item")
    a.add_argument("--system", default="system", help="system column")
    a.add_argument("--item", default="item", help="item column")
    a.add_argument("--score", default="score", help="outcome column (0/1, a win, a fraction)")
    a.add_argument("--trials", default=None, help="samples behind each row's --score count")
    a.add_argument("--human", default=None, help="human labels on some rows (blank elsewhere)")
    a.add_argument("--cluster", default=None, help="clusters of items (a subtask)")
    a.add_argument("--scale", type=pair_arg, default=None, help="the outcomes' range LOW,HIGH")
    a.add_argument(
        "--adjust",
        action="append",
        default=None,
        metavar="COLUMN",
        help="a covariate the judge follows (an answer's log length over the reference's; "
        "repeatable): each mean at covariate 0, one slope for all systems",
    )
    add_method(a, ("closed_form", "bootstrap", "nuts", "laplace"), default="closed_form",
               help="how the board is fitted")  # fmt: skip
    from judgebayes.studies.leaderboard import LeaderboardStudy

    a.add_argument(
        "--model",
        default=None,
        choices=tuple(c.model_name for c in LeaderboardStudy.models()),
        help="the Bayesian model of --method nuts or laplace (default rasch)",
    )
    a.add_argument("--estimand", default=None, choices=("items", "process"),
                   help="rank the means on these items or on the item population")  # fmt: skip
    a.add_argument("--top-k", type=count_arg, default=1, help="the P(top k) column's k")
    a.add_argument("--baseline", default=None, help="the system all others are compared with")
    a.add_argument("--control", default=None, choices=("stepdown", "holm"),
                   help="step-down over all pairs (default) or Holm's")  # fmt: skip
    a.add_argument("--draws", type=count_arg, default=None,
                   help="closed form: null draws behind the simultaneous claims")  # fmt: skip
    a.add_argument("--reps", type=count_arg, default=None, help="bootstrap: resamples")
    a.add_argument("--seed", type=seed_arg, default=0, help="the fit's seed")
    a.add_argument(
        "--report",
        default=None,
        metavar="PATH",
        help="also write the leaderboard as a report (.html or .md, with the rank plot)",
    )
    add_common(a)


def _read(path: str):
    """The scores file: Parquet by its extension, else CSV."""
    if not str(path).lower().endswith(".parquet"):
        return read_csv(path, "scores")
    import pandas as pd

    from judgebayes.errors import InputError

    try:
        return pd.read_parquet(path)
    except FileNotFoundError:
        raise InputError(f"scores file not found: {path}", field="scores", value=path) from None
    except (ImportError, ValueError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"scores file {path} is not a readable Parquet file: {msg}", field="scores", value=path
        ) from None


def _refuse_unused(args) -> None:
    """A flag the chosen method does not use is an error, not a silent no-op."""
    for flag, methods in _USED_BY.items():
        if getattr(args, flag) is not None and args.method not in methods:
            raise CLIError(
                f"judgebayes leaderboard: --{flag} is used by --method "
                f"{' or '.join(methods)}, not {args.method}"
            )


def run(args) -> tuple[str, int]:
    """Run ``judgebayes leaderboard``; returns (stdout, exit status)."""
    from judgebayes.errors import JudgeBayesWarning
    from judgebayes.results import to_json
    from judgebayes.studies.leaderboard import LeaderboardStudy

    _refuse_unused(args)
    cls = LeaderboardStudy
    if args.model is not None:
        cls = next(c for c in LeaderboardStudy.models() if c.model_name == args.model)
    with warnings.catch_warnings(record=True) as seen:  # said once each, as notes
        warnings.simplefilter("always", JudgeBayesWarning)
        study = cls.from_items(
            _read(args.scores), system=args.system, item=args.item, score=args.score,
            trials=args.trials, human=args.human, cluster=args.cluster, adjust=args.adjust,
            scale=args.scale,
        )  # fmt: skip
        options = {} if args.reps is None else {"reps": args.reps}
        fit = study.fit(args.method, random_seed=args.seed, **options)
    extra = {k: v for k, v in (("control", args.control), ("draws", args.draws)) if v is not None}
    table = fit.leaderboard(
        args.alpha, args.top_k, estimand=args.estimand, baseline=args.baseline, **extra
    )
    said = [str(w.message) for w in seen if issubclass(w.category, JudgeBayesWarning)]
    notes = list(dict.fromkeys([*said, *fit.notes]))
    notes += [f"check failed: {r.describe()}" for r in study.check(fit).failures]
    if fit.diagnostics is not None and not fit.diagnostics.passed:
        notes.append("NUTS did not pass the convergence gate: do not report these numbers")
    for note in notes:
        print(f"judgebayes leaderboard: note: {note}", file=sys.stderr)
    table.attrs["notes"] = notes
    model = getattr(study, "model_name", "") if args.method in ("nuts", "laplace") else None
    _report(args, table)
    if args.format == "json":
        out = {"systems": table.to_dict("records"), **table.attrs, "method": fit.method,
               "model": model}  # fmt: skip
        return json.dumps(to_json(out), indent=2), 0
    columns = _COLUMNS + (
        [("p_holm", "p (Holm)")] if "p_holm" in table else [("p_below", "P(below)")]
    )
    head = f"{table.header}; against {table.attrs['against']}\n\n"
    return head + render(table.to_dict("records"), columns, args.format), 0


def _report(args, table) -> None:
    """``--report PATH``: the table and its rank plot as a report."""
    if args.report is None:
        return
    from judgebayes.report import Report

    report = Report(f"Leaderboard of {args.scores}")
    report.leaderboard(table)
    done = report.write(args.report)
    print(f"judgebayes leaderboard: report written to {done.path}", file=sys.stderr)
