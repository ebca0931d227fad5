"""The ``judgebayes`` command.

Sub-commands: ``accuracy`` (naive vs corrected accuracy from CSV files), ``plan``
(calibration size for a target interval width), ``panel`` (generator precision from a
validator panel, :mod:`judgebayes.cli_panel`), ``rank`` (bias-aware Bradley-Terry,
:mod:`judgebayes.cli_rank`, whose docstring has its JSON schema), ``report`` (a written
markdown/HTML accuracy report, :mod:`judgebayes.cli_report`) and ``demo`` (the main job
on bundled data).  Bad input prints one line on stderr and exits with status 2.

JSON output (``--format json``)
-------------------------------
``accuracy``: ``{"alpha": float, "calibration": {"m0", "m1", "q0", "q1", "n_missing"},
"systems": [{"system", "n", "n_missing", "k", "naive", "naive_lower", "naive_upper",
"estimate", "lower", "upper", "degenerate", "note"}, ...]}`` (NaN written as null).
``plan``: ``{"plans": [CalibrationPlan fields, ...]}`` with ``n`` null when infinite.
``demo``: ``{"evaluator", "calibration_fraction", "seed", "rows": [...], "judge_bias":
[...] | null, "agreement": [...] | null, "report": str | null}``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main"]


class CLIError(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage block
        raise CLIError(f"{self.prog}: {message}")


def _fmt(x: Any, digits: int = 3) -> str:
    import numpy as np

    if isinstance(x, (bool, np.bool_, str)) or x is None:
        return str(x)
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return "-" if math.isnan(f) else f"{f:.{digits}f}"


def _clean(v: Any) -> Any:
    """JSON-safe scalar: NaN / inf -> None, numpy -> python."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _render(rows: list[dict], columns: list[tuple[str, str]], fmt: str) -> str:
    head = [h for _, h in columns]
    body = [
        [
            _fmt(r[c]) if c not in ("system", "subset", "note", "item") else str(r[c])
            for c, _ in columns
        ]
        for r in rows
    ]
    if fmt == "markdown":
        import pandas as pd

        from judgebayes.report import markdown_table

        return markdown_table(pd.DataFrame(body, columns=head))
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]

    def line(cells):
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in pairs)

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(b) for b in body])


def _read_csv(path: str, what: str):
    import pandas as pd

    from judgebayes.schema import InputError

    try:
        return pd.read_csv(path, keep_default_na=True)
    except FileNotFoundError:
        raise InputError(f"{what} file not found: {path}", field=what, value=path) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"{what} file {path} is not a readable CSV: {msg}", field=what, value=path
        ) from None


# ------------------------------------------------------------------ accuracy
def _cmd_accuracy(args) -> str:
    from judgebayes.accuracy import accuracy_table
    from judgebayes.schema import counts_from_calibration_frame, counts_from_test_frame

    test_df = _read_csv(args.test, "test")
    cal_df = _read_csv(args.calibration, "calibration")
    test = counts_from_test_frame(
        test_df, judge=args.judge, system=args.system, positive=args.positive
    )
    cal = counts_from_calibration_frame(
        cal_df, human=args.human, judge=args.judge, positive=args.positive
    )
    table = accuracy_table(test, cal, alpha=args.alpha)
    rows = table.to_dict("records")
    level = f"{100 * (1 - args.alpha):g}%"
    comparison, pairwise = _bayes_sections(test, cal, args)
    if args.format == "json":
        first = rows[0]
        return json.dumps(
            {
                "comparison": [{k: _clean(v) for k, v in r.items()} for r in comparison],
                "pairwise": [{k: _clean(v) for k, v in r.items()} for r in pairwise],
                "alpha": args.alpha,
                "calibration": {
                    "m0": int(first["m0"]),
                    "m1": int(first["m1"]),
                    "q0": _clean(first["q0"]),
                    "q1": _clean(first["q1"]),
                    "n_missing": int(first["calibration_n_missing"]),
                },
                "systems": [
                    {
                        k: _clean(r[k])
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
        f"specificity q0={_fmt(first['q0'])} sensitivity q1={_fmt(first['q1'])} "
        f"missing={first['calibration_n_missing']}"
    )
    notes = [f"note [{r['system']}]: {r['note']}" for r in rows if r["note"]]
    out = [header, "", _render(rows, cols, args.format), *notes]
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
            _render(comparison, ccols, args.format),
        ]
    if pairwise:
        pcols = [
            ("a", "system a"),
            ("b", "system b"),
            ("difference", "theta_a - theta_b"),
            ("lower", f"{level} lo"),
            ("upper", "hi"),
            ("p_a_greater", "P(a > b)"),
        ]
        out += [
            "",
            f"pairwise comparison ({pairwise[0]['method']}, shared judge)",
            "",
            _render(pairwise, pcols, args.format),
        ]
    return "\n".join(out)


_METHOD_CHOICES = {
    "closed-form": ("closed_form",),
    "laplace": ("laplace",),
    "nuts": ("nuts",),
    "all": ("closed_form", "laplace", "nuts"),
}


def _bayes_sections(test, cal, args) -> tuple[list[dict], list[dict]]:
    """Comparison rows of the chosen methods and, for several systems, P(a > b)."""
    from judgebayes.accuracy import AccuracyStudy
    from judgebayes.inference.sampling import quiet_engine_warnings
    from judgebayes.schema import JudgeNoBetterThanChanceError

    methods = _METHOD_CHOICES[args.method]
    if methods == ("closed_form",):
        return [], []
    study = AccuracyStudy(test, cal.pooled())
    fits = []
    with quiet_engine_warnings():  # gate failures are reported below, one line each
        for m in methods:
            try:
                fits.append(study.fit(m, random_seed=args.seed))
            except JudgeNoBetterThanChanceError:
                continue
    comparison = study.compare(fits=fits, alpha=args.alpha).to_dict("records")
    for f in fits:
        if f.diagnostics is not None and not f.diagnostics.passed:
            print(f"judgebayes accuracy: warning: {f.diagnostics.message()}", file=sys.stderr)
    pairwise: list[dict] = []
    sampled = [f for f in fits if not f.is_point]
    if len(study.systems) > 1 and sampled:
        best = sampled[-1]
        pairwise = [
            dict(r, method=best.method) for r in best.contrasts(args.alpha).to_dict("records")
        ]
    return comparison, pairwise


# ------------------------------------------------------------------ plan
def _cmd_plan(args) -> str:
    from judgebayes.inference.calibration_design import plan_calibration

    n = math.inf if args.n is None else args.n
    plans = [
        plan_calibration(args.p, args.q0, args.q1, args.width, n=n, alpha=args.alpha, allocation=a)
        for a in ("equal", "optimal")
    ]
    rows = [p.to_dict() for p in plans]
    if args.format == "json":
        return json.dumps({"plans": [{k: _clean(v) for k, v in r.items()} for r in rows]}, indent=2)
    cols = [
        ("allocation", "allocation"),
        ("m", "m"),
        ("m0", "m0 (truly incorrect)"),
        ("m1", "m1 (truly correct)"),
        ("width", "width"),
    ]
    for r in rows:
        r["allocation"] = r["allocation"]
    head = (
        f"target width {args.width:g} at p={args.p:g}, q0={args.q0:g}, q1={args.q1:g}, "
        f"n={'inf' if math.isinf(n) else int(n)}, alpha={args.alpha:g}"
    )
    body = _render(
        [dict(r, system=r["allocation"]) for r in rows],
        [("system", "allocation"), *cols[1:]],
        args.format,
    )
    return head + "\n\n" + body


# ------------------------------------------------------------------ demo
def _cmd_demo(args) -> str:
    from judgebayes.demo import run_demo

    res = run_demo(
        evaluator=args.evaluator,
        calibration_fraction=args.calibration_fraction,
        seed=args.seed,
        alpha=args.alpha,
        progress=sys.stderr,
        bayes=not args.no_bayes,
        bias=None if args.no_bias else args.bias_method,
        report=None if args.report in ("", "none") else args.report,
    )
    if args.format == "json":

        def recs(df):
            return (
                None
                if df is None
                else [{k: _clean(v) for k, v in r.items()} for r in df.to_dict("records")]
            )

        return json.dumps(
            {
                "evaluator": args.evaluator,
                "calibration_fraction": args.calibration_fraction,
                "seed": args.seed,
                "rows": recs(res.accuracy),
                "judge_bias": recs(res.bias),
                "agreement": recs(res.agreement),
                "report": None if res.report is None else str(res.report.path),
            },
            indent=2,
        )
    from judgebayes.demo import demo_text

    return demo_text(res, args, _render)


def add_item_files(sp) -> None:
    """The test / calibration CSV arguments shared by ``accuracy`` and ``report``."""
    sp.add_argument("test", help="CSV of test items: one judge verdict per row")
    sp.add_argument("--calibration", required=True, help="CSV of human-labelled items")
    sp.add_argument("--judge", default="judge", help="verdict column (both files)")
    sp.add_argument("--human", default="human", help="human label column (calibration file)")
    sp.add_argument("--system", default=None, help="system column in the test file")
    sp.add_argument("--positive", default=None, help="label value meaning 'correct'")


def _build_parser() -> _Parser:
    p = _Parser(prog="judgebayes", description="What LLM judges' verdicts really say.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    def common(sp):
        sp.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level")
        sp.add_argument("--format", choices=("table", "markdown", "json"), default="table")

    a = sub.add_parser("accuracy", help="naive vs corrected accuracy from CSV files")
    add_item_files(a)
    a.add_argument(
        "--method",
        choices=tuple(_METHOD_CHOICES),
        default="all",
        help="estimators to compare (default: all)",
    )
    a.add_argument("--seed", type=int, default=0, help="random seed of the Bayesian fits")
    common(a)

    pl = sub.add_parser("plan", help="calibration size for a target interval width")
    pl.add_argument("--p", type=float, required=True, help="expected naive positive rate")
    pl.add_argument("--q0", type=float, required=True, help="expected specificity")
    pl.add_argument("--q1", type=float, required=True, help="expected sensitivity")
    pl.add_argument("--width", type=float, required=True, help="target interval width")
    pl.add_argument("--n", type=float, default=None, help="test-set size (default: infinite)")
    common(pl)

    d = sub.add_parser("demo", help="the main job on bundled LLMBar data, with a report")
    d.add_argument("--evaluator", default="GPT-4")
    d.add_argument("--calibration-fraction", type=float, default=0.1)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--no-bayes", action="store_true", help="closed form only (no NUTS)")
    d.add_argument("--no-bias", action="store_true", help="skip the judge-bias part")
    d.add_argument("--bias-method", choices=("nuts", "laplace"), default="nuts")
    d.add_argument(
        "--report",
        default="judgebayes-demo/report.md",
        help="report file (.md or .html); 'none' writes none",
    )
    common(d)

    from judgebayes.cli_panel import add_panel_parser
    from judgebayes.cli_rank import add_rank_parser
    from judgebayes.cli_report import add_report_parser

    add_rank_parser(sub, common)
    add_panel_parser(sub, common)
    add_report_parser(sub, common)
    return p


def _cmd_panel(args) -> str:
    from judgebayes.cli_panel import cmd_panel

    return cmd_panel(args, _render, _clean)


def _cmd_rank(args) -> str:
    from judgebayes.cli_rank import cmd_rank

    return cmd_rank(args, _render, _clean)


def _cmd_report(args) -> str:
    from judgebayes.cli_report import cmd_report

    return cmd_report(args, _render, _clean)


_COMMANDS = {
    "accuracy": _cmd_accuracy,
    "plan": _cmd_plan,
    "demo": _cmd_demo,
    "rank": _cmd_rank,
    "panel": _cmd_panel,
    "report": _cmd_report,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input)."""
    from judgebayes.schema import JudgeBayesError

    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        if args.version:
            from judgebayes import __version__

            print(__version__)
            return 0
        if args.command is None:
            raise CLIError(
                "judgebayes: choose a command: accuracy, plan, rank, panel, report or demo "
                "(see --help)"
            )
        out = _COMMANDS[args.command](args)
    except CLIError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except JudgeBayesError as exc:
        print(f"judgebayes {args.command}: error: {exc}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
