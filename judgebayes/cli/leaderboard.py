"""``judgebayes leaderboard``: many systems on one benchmark, with honest ranks.

One CSV (or Parquet) file with one row per system and item: ``--system``, ``--item``,
``--score`` (exact match 0/1, a judge's win probability, a pass fraction) and optionally
``--human`` (labels on a few rows: the judge is then corrected) and ``--cluster``.  Prints
each system's mean with its interval, its simultaneous rank interval, tier, share of the
top ``--top-k`` and its contrast with the leader (or ``--baseline``) under Holm
(:func:`judgebayes.leaderboard`).  ``--model`` (a registered model of
:class:`judgebayes.LeaderboardStudy`: ``rasch``, ``2pl``, ``exchangeable``) fits the
Bayesian leaderboard by NUTS instead and prints :meth:`BoardFit.table
<judgebayes.studies.leaderboard.BoardFit.table>`, its checks' failures as notes;
``--trials`` names a column of samples per row (``--score`` then counts successes).

JSON (``--format json``): ``{"systems": [row, ...], "notes": [str, ...], "n_items",
"n_clusters", "critical_value", "reference", "alpha", "control"}`` with the columns of
:func:`judgebayes.leaderboard`.
"""

from __future__ import annotations

import json
import sys

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import add_common, count_arg, read_csv, render, seed_arg

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
    ("p_holm", "p (Holm)"),
]


def add_parser(sub) -> None:
    """The ``leaderboard`` subcommand's arguments."""
    a = sub.add_parser("leaderboard", help=COMMANDS["leaderboard"].help)
    a.add_argument("scores", help="CSV or Parquet: one row per system and item")
    a.add_argument("--system", default="system", help="system column")
    a.add_argument("--item", default="item", help="item column")
    a.add_argument("--score", default="score", help="score column (0/1, a win, a fraction)")
    a.add_argument("--human", default=None, help="human labels on some rows (blank elsewhere)")
    a.add_argument("--cluster", default=None, help="clusters of items (a subtask)")
    a.add_argument(
        "--adjust",
        action="append",
        default=None,
        metavar="COLUMN",
        help="a covariate the judge follows (an answer's log length over the reference's; "
        "repeatable): each mean at covariate 0, one slope for all systems",
    )
    a.add_argument(
        "--report",
        default=None,
        metavar="PATH",
        help="also write the leaderboard as a report (.html or .md, with the rank plot)",
    )
    a.add_argument("--top-k", type=count_arg, default=1, help="the P(top k) column's k")
    a.add_argument("--baseline", default=None, help="the system all others are compared with")
    a.add_argument(
        "--bootstrap", type=count_arg, default=1000, help="resamples of the items (max-T)"
    )
    a.add_argument("--seed", type=seed_arg, default=0, help="bootstrap (or NUTS) seed")
    from judgebayes.studies.leaderboard import LeaderboardStudy

    a.add_argument(
        "--model",
        default=None,
        choices=tuple(c.model_name for c in LeaderboardStudy.models()),
        help="fit this Bayesian model (default: the closed form)",
    )
    a.add_argument(
        "--engine",
        default="nuts",
        choices=("nuts", "laplace"),
        help="how --model is fitted: NUTS, or Laplace for boards too large for NUTS "
        "(rasch and exchangeable, with or without a judge)",
    )
    a.add_argument("--trials", default=None, help="samples behind each row's --score count")
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


def run(args) -> tuple[str, int]:
    """Run ``judgebayes leaderboard``; returns (stdout, exit status)."""
    from judgebayes.results import to_json
    from judgebayes.workflows.leaderboard import leaderboard

    if args.model is not None:
        return _bayes(args)
    if args.trials is not None:
        from judgebayes.errors import InputError

        raise InputError("--trials needs --model (the closed form reads one score a row)",
                         field="trials", value=args.trials)  # fmt: skip
    table = leaderboard(
        _read(args.scores),
        system=args.system,
        item=args.item,
        score=args.score,
        human=args.human,
        cluster=args.cluster,
        adjust=args.adjust,
        alpha=args.alpha,
        top_k=args.top_k,
        baseline=args.baseline,
        bootstrap=args.bootstrap,
        random_seed=args.seed,
    )
    for note in table.attrs["notes"]:
        print(f"judgebayes leaderboard: note: {note}", file=sys.stderr)
    _report(args, table)
    if args.format == "json":
        out = {"systems": table.to_dict("records"), **table.attrs}
        return json.dumps(to_json(out), indent=2), 0
    head = (
        f"{len(table)} systems on {table.attrs['n_items']} items; ranks and tiers hold for "
        f"every system at once at {1 - args.alpha:g} ({table.attrs['control']}); contrasts "
        f"with {table.attrs['reference']!r}, Holm\n\n"
    )
    return head + render(table.to_dict("records"), _COLUMNS, args.format), 0


def _report(args, table) -> None:
    """``--report PATH``: the table and its rank plot as a report."""
    if args.report is None:
        return
    from judgebayes.report import Report

    report = Report(f"Leaderboard of {args.scores}")
    report.leaderboard(table)
    done = report.write(args.report)
    print(f"judgebayes leaderboard: report written to {done.path}", file=sys.stderr)


def _bayes(args) -> tuple[str, int]:
    """``--model``: the Bayesian leaderboard's table."""
    from judgebayes.results import to_json
    from judgebayes.studies.leaderboard import LeaderboardStudy

    cls = next(c for c in LeaderboardStudy.models() if c.model_name == args.model)
    study = cls.from_frame(
        _read(args.scores), system=args.system, item=args.item, score=args.score,
        trials=args.trials, human=args.human, cluster=args.cluster,
    )  # fmt: skip
    fit = study.fit(args.engine, random_seed=args.seed)
    table = fit.table(args.alpha, top_k=args.top_k)
    notes = [
        *fit.notes,
        *(f"check failed: {r.describe()}" for r in study.check(fit).failures),
    ]
    if fit.diagnostics is not None and not fit.diagnostics.passed:
        notes.append("NUTS did not pass the convergence gate: do not report these numbers")
    for note in notes:
        print(f"judgebayes leaderboard: note: {note}", file=sys.stderr)
    table.attrs |= {
        "notes": notes,
        "alpha": args.alpha,
        "n_items": len(study.data.items),
        "control": f"the joint posterior of model {args.model!r}",
    }
    _report(args, table)
    if args.format == "json":
        out = {"systems": table.to_dict("records"), "notes": notes, "model": args.model,
               "engine": args.engine}  # fmt: skip
        return json.dumps(to_json(out), indent=2), 0
    head = (
        f"{len(table)} systems on {len(study.data.items)} items, model {args.model!r} "
        f"({'NUTS' if args.engine == 'nuts' else 'Laplace'}); "
        f"ranks and tiers hold for every system at once at {1 - args.alpha:g}\n\n"
    )
    return head + render(table.to_dict("records"), _COLUMNS[:9], args.format), 0
