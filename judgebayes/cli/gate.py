"""``judgebayes gate``: exit 1 unless every stated claim is supported (a CI step).

With ``--sequential`` the claims are read off the anytime-valid sequence of a growing log
(:mod:`judgebayes.cli.monitor`): exit 0 pass, 1 fail, 3 continue.

Exit status 0: every claim supported; 1: at least one not supported, a NUTS fit failed
its convergence gate, a check of an assumption the fitted model makes flags it, or the
chosen method refuses these (valid) data; 2: bad input.  Checks of assumptions the model
does not make are shown as warnings and do not fail the gate.  The table (or JSON) goes
to stdout, the verdict in one line to stderr.
"""

from __future__ import annotations

import json
import sys

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import (
    add_item_files,
    add_method,
    add_quiet,
    add_sampler,
    clean,
    diagnostics_json,
    fit_options,
    method_choices,
    render,
    report_gate,
    seed_arg,
    study_from_args,
)
from judgebayes.cli.monitor import add_monitor_options, gate_sequential

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """The ``gate`` subcommand's arguments."""
    a = sub.add_parser("gate", help=COMMANDS["gate"].help)
    add_item_files(a, items=True)
    a.add_argument(
        "--claim",
        action="append",
        required=True,
        help="a claim such as 'A > 0.8', 'A < 0.25' or 'A > B' (repeatable; one system: 'rate')",
    )
    a.add_argument(
        "--prob",
        type=float,
        default=0.95,
        help="posterior probability (one-sided level for closed_form) required (default 0.95)",
    )
    add_method(
        a,
        method_choices("accuracy", "items"),
        default="exact",
        help="estimator (default exact: the conjugate posterior of the items design, paired "
        "by --item)",
    )
    a.add_argument("--estimand", choices=("items", "process"), default="items")
    a.add_argument("--seed", type=seed_arg, default=0, help="random seed of the Bayesian fits")
    add_sampler(a)
    a.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    add_quiet(a)
    seq = a.add_argument_group(
        "sequential (a growing log looked at after every period: exit 0 pass, 1 fail, 3 continue)"
    )
    seq.add_argument(
        "--sequential",
        action="store_true",
        help="read the claims off the anytime-valid sequence of the rate of all items so far",
    )
    add_monitor_options(seq)


def run(args) -> tuple[str, int]:
    """Run ``judgebayes gate``; returns (stdout, exit status)."""
    if args.sequential:
        return gate_sequential(args)
    from judgebayes.inference.nuts import quiet_engine_warnings
    from judgebayes.workflows.gate import parse_claim
    from judgebayes.workflows.gate_rule import gate

    claims = [parse_claim(c) for c in args.claim]  # bad claims fail before any fitting
    from judgebayes.inference.registry import normalise_method

    method = normalise_method(args.method)
    study = study_from_args(args)
    (options,) = fit_options(args, study, [method])
    with quiet_engine_warnings():  # a failed gate is reported per claim and on stderr
        fit = study.fit(method, random_seed=args.seed, **options)
    report_gate("gate", [fit])
    result = gate(study, fit, [c.text for c in claims], prob=args.prob)
    print(f"judgebayes gate: {result.summary()}", file=sys.stderr)
    for line in result.warning_lines():
        print(f"judgebayes gate: {line}", file=sys.stderr)
    table, report, ok, failed = result.claims, result.report, result.passed, result.failed_checks
    flagged = report.flagged
    rows = table.to_dict("records")
    if args.format == "json":
        out = json.dumps(
            {
                "passed": ok,
                "method": method,
                "prob": args.prob,
                "diagnostics": diagnostics_json(fit),
                "claims": [{k: clean(v) for k, v in r.items()} for r in rows],
                "flagged_checks": [
                    {k: clean(v) for k, v in r.items()}
                    for r in flagged[["check", "unit", "observed", "expected", "p_value"]].to_dict(
                        "records"
                    )
                ],
                "failed_checks": [r.check for r in failed],
            },
            indent=2,
        )
    else:
        cols = [
            ("claim", "claim"),
            ("probability", "P(claim)"),
            ("bound", "bound"),
            ("supported", "supported"),
            ("reason", "reason"),
        ]
        out = render(rows, cols, args.format)
    return out, result.exit_code
