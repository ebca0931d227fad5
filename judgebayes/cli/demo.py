"""``judgebayes demo``: the main job on bundled LLMBar data, with a report."""

from __future__ import annotations

import json
import sys

from judgebayes.cli.io import add_common, clean, render

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """The ``demo`` subcommand's arguments."""
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
    add_common(d)


def run(args) -> str:
    """Run ``judgebayes demo``; returns what goes to stdout."""
    from judgebayes.workflows.demo import run_demo

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
                else [{k: clean(v) for k, v in r.items()} for r in df.to_dict("records")]
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
    from judgebayes.workflows.demo import demo_text

    return demo_text(res, args, render)
