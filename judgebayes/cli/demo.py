"""``judgebayes demo``: the main job on bundled LLMBar data, with a report."""

from __future__ import annotations

import json
import sys

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import add_common, clean, count_arg, render, seed_arg

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """The ``demo`` subcommand's arguments."""
    d = sub.add_parser("demo", help=COMMANDS["demo"].help)
    d.add_argument("--evaluator", default="GPT-4")
    d.add_argument("--calibration-fraction", type=float, default=0.1)
    d.add_argument("--seed", type=seed_arg, default=0)
    d.add_argument("--labels", type=count_arg, default=40, help="act 1: pairs labelled (of 200)")
    d.add_argument(
        "--label-draws", type=int, default=200, help="act 1: label draws of the coverage check"
    )
    d.add_argument(
        "--no-bayes", action="store_true", help="closed forms only (no Laplace, exact, NUTS)"
    )
    d.add_argument("--no-bias", action="store_true", help="skip act 3 (judge bias)")
    d.add_argument(
        "--bias-method",
        choices=("laplace", "nuts"),
        default="laplace",
        help="act 3's engine (nuts: the horseshoe model, about 3.5 more minutes)",
    )
    d.add_argument(
        "--report",
        default="judgebayes-demo/report.md",
        help="report file (.md or .html); 'none' writes none",
    )
    add_common(d)


def run(args) -> str:
    """Run ``judgebayes demo``; returns what goes to stdout."""
    from judgebayes.workflows.demo import headline, run_demo

    res = run_demo(
        evaluator=args.evaluator,
        calibration_fraction=args.calibration_fraction,
        seed=args.seed,
        alpha=args.alpha,
        progress=None if args.quiet else sys.stderr,
        bayes=not args.no_bayes,
        bias=None if args.no_bias else args.bias_method,
        report=None if args.report in ("", "none") else args.report,
        n_labels=args.labels,
        label_draws=args.label_draws,
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
                "headline": headline(res, args.alpha),
                "label_a_few": recs(res.label_a_few),
                "label_coverage": recs(res.label_coverage),
                "rows": recs(res.accuracy),
                "judge_bias": recs(res.bias),
                "agreement": recs(res.agreement),
                "report": None if res.report is None else str(res.report.path),
            },
            indent=2,
        )
    from judgebayes.workflows.demo import demo_text

    return demo_text(res, args, render)
