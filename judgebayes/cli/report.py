"""The ``judgebayes report`` sub-command: a written accuracy report from CSV files.

Reads the same files as ``judgebayes accuracy`` (test items with a judge verdict;
calibration items with a judge verdict and a human label), fits every chosen method and
writes a markdown (``--out report.md``) or self-contained HTML (``--out report.html``)
report with PNG figures in ``<stem>_figures/`` beside it.  Stdout gets a short summary.

JSON output (``--format json``): ``{"report": str (path), "report_format": "markdown" |
"html", "figures": [str (path), ...], "tables": {"data": [row, ...], "comparison": [row,
...], "diagnostics": [row, ...], "checks": [row, ...], "settings": [row, ...]}}``, each row
a dict of the table's columns (NaN written as null; ``checks`` absent without NUTS).
"""

from __future__ import annotations

import json

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import (
    add_common,
    add_item_files,
    add_method,
    add_sampler,
    clean,
    fit_options,
    method_choices,
    render,
    report_gate,
    seed_arg,
    study_from_args,
)

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Register ``report`` on the sub-parser collection."""
    r = sub.add_parser("report", help=COMMANDS["report"].help)
    add_item_files(r)
    r.add_argument("--out", required=True, help="report file: .md (markdown) or .html")
    add_method(
        r,
        (*method_choices("accuracy", "items"), "all"),
        default="all",
        help="estimators to report (default: all, the accuracy family's default methods)",
    )
    r.add_argument("--title", default="Judge accuracy report")
    r.add_argument("--seed", type=seed_arg, default=0, help="random seed of the Bayesian fits")
    add_sampler(r)
    add_common(r)


def run(args) -> str:
    """Write the report and summarise it."""
    from judgebayes.report import accuracy_report

    _check_out(args.out)
    study = study_from_args(args)
    from judgebayes.inference.registry import normalise_method
    from judgebayes.studies.accuracy import AccuracyStudy

    methods = (
        AccuracyStudy.default_methods if args.method == "all" else (normalise_method(args.method),)
    )
    options = dict(zip(methods, fit_options(args, study, methods), strict=True))
    files = accuracy_report(
        study,
        args.out,
        methods=methods,
        alpha=args.alpha,
        random_seed=args.seed,
        title=args.title,
        options=options,
    )
    report_gate("report", files.fits)
    kind = "html" if files.path.suffix.lower() in (".html", ".htm") else "markdown"
    if args.format == "json":
        return json.dumps(
            {
                "report": str(files.path),
                "report_format": kind,
                "figures": [str(p) for p in files.figures],
                "tables": {
                    name: [{k: clean(v) for k, v in r.items()} for r in df.to_dict("records")]
                    for name, df in files.tables.items()
                },
            },
            indent=2,
        )
    comp = files.tables["comparison"].to_dict("records")
    cols = [("method", "method"), ("system", "system"), ("estimate", "estimate")]
    cols += [("lower", "lower"), ("upper", "upper"), ("r_hat", "r_hat")]
    cols += [("divergences", "div")]
    head = f"wrote {files.path} ({kind}) and {len(files.figures)} figure(s)"
    return head + "\n\n" + render(comp, cols, args.format)


def _check_out(out: str) -> None:
    """The report path: a .md or .html file, not a directory (missing directories are
    created by the writer).
    """
    from pathlib import Path

    from judgebayes.errors import InputError

    path = Path(out)
    if path.is_dir():
        raise InputError(
            f"--out {out} is a directory; give a file name ending in .md or .html",
            field="out",
            value=out,
        )
    if path.suffix.lower() not in (".md", ".markdown", ".html", ".htm"):
        raise InputError(
            f"--out {out}: the report is written as markdown (.md) or HTML (.html); got the "
            f"suffix {path.suffix or '(none)'!r}",
            field="out",
            value=out,
        )
