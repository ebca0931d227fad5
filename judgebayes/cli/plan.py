"""``judgebayes plan``: calibration size for a target interval width."""

from __future__ import annotations

import json
import math

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import add_common, clean, render

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """The ``plan`` subcommand's arguments."""
    pl = sub.add_parser("plan", help=COMMANDS["plan"].help)
    pl.add_argument("--p", type=float, required=True, help="expected naive positive rate")
    pl.add_argument("--q0", type=float, required=True, help="expected specificity")
    pl.add_argument("--q1", type=float, required=True, help="expected sensitivity")
    pl.add_argument("--width", type=float, required=True, help="target interval width")
    pl.add_argument("--n", type=float, default=None, help="test-set size (default: infinite)")
    add_common(pl)


def run(args) -> str:
    """Run ``judgebayes plan``; returns what goes to stdout."""
    from judgebayes.inference.accuracy.design import plan_calibration

    n = math.inf if args.n is None else args.n
    if not math.isinf(n) and not (n >= 1 and n == int(n)):
        from judgebayes.errors import InputError

        raise InputError(
            f"--n is a number of test items, a whole number >= 1; got {args.n:g}",
            field="n",
            value=args.n,
        )
    plans = [
        plan_calibration(args.p, args.q0, args.q1, args.width, n=n, alpha=args.alpha, allocation=a)
        for a in ("equal", "optimal")
    ]
    rows = [p.to_dict() for p in plans]
    if args.format == "json":
        return json.dumps({"plans": [{k: clean(v) for k, v in r.items()} for r in rows]}, indent=2)
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
    body = render(
        [dict(r, system=r["allocation"]) for r in rows],
        [("system", "allocation"), *cols[1:]],
        args.format,
    )
    return head + "\n\n" + body
