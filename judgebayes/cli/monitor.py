"""``judgebayes monitor``: the corrected rate after every period of a growing log, valid at
every look, and an alarm when the judge drifts; and ``judgebayes gate --sequential``.

One CSV file, one row per judged item: ``--judge`` the verdict, ``--human`` the label
(blank = not labelled; the labelled items of a period a random sample of it, or drawn with
the probabilities in ``--label-prob``), ``--time`` the period (``--freq W`` buckets
timestamps into weeks).  Prints one row per period (and system) with the rate of all items
so far and its anytime-valid bounds, the judge's sensitivity and specificity that period,
and the drift alarm.  With ``--scale 1,10`` the judge gives scores and the sequence is for
the mean human label (``--human-scale 1,5``); the drift alarm, which reads verdicts, is
not run.

``gate --sequential --time COL --claim 'rate > 0.8'`` reads each claim off the last
period: exit 0 when every claim has passed, 1 when one has failed, 3 when the data do not
decide yet (label more and run it again); the sequence holds at every look, so running it
after every batch keeps the error at most ``1 - --prob``.  A drift alarm is a warning on
stderr: the sequence stays valid when the judge drifts.

``--anchors anchors.csv --item id``: the anchor design (an anchor set judged again every
period beside the log's new items, whose labels are not needed): per period the judge's
rates on the anchors, the new items' corrected rate and who moved (none, judge, system,
both); an alarm is a warning on stderr.

JSON (``--format json``): ``{"alpha": float, "periods": [row, ...], "notes": [str, ...],
"reference_bounds": {rate: [lower, upper]}}`` (with ``--drift-by system``: {system: {rate:
[lower, upper]}}) with the columns of
:func:`judgebayes.monitor`; the sequential gate adds ``"claims": [{"claim", "decision"},
...]`` and ``"decision"``.
"""

from __future__ import annotations

import json
import sys

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import CLIError, add_common, count_arg, pair_arg, read_csv, render

__all__ = ["add_parser", "gate_sequential", "run"]

_COLUMNS = [
    ("system", "system"),
    ("period", "period"),
    ("n_items", "items"),
    ("n_labelled", "labels"),
    ("estimate", "so far"),
    ("lower", "lower"),
    ("upper", "upper"),
    ("sensitivity", "sens"),
    ("specificity", "spec"),
    ("drift_evidence", "drift evidence"),
    ("drift", "drift"),
]

_ANCHOR_COLUMNS = [
    ("n_anchors", "anchors"),
    ("n_new", "new items"),
    ("verdict_rate", "verdict rate"),
    ("system_rate", "corrected"),
    ("judge_moved", "judge moved"),
    ("verdict", "who moved"),
]


def _floor(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    try:
        return name.strip(), float(value)
    except ValueError:
        raise CLIError(
            f"judgebayes: --floor takes rate=value such as sensitivity=0.85; got {text!r}"
        ) from None


def add_monitor_options(a) -> None:
    """The log's columns and the sequence's settings (``monitor`` and ``gate``)."""
    a.add_argument("--time", default=None, help="the period column (or timestamps, with --freq)")
    a.add_argument("--freq", default=None, help="bucket timestamps into periods: D, W, M")
    a.add_argument(
        "--label-prob",
        default=None,
        dest="label_prob",
        help="column: each item's probability of being sent for labelling",
    )
    a.add_argument(
        "--floor",
        action="append",
        type=_floor,
        default=None,
        metavar="RATE=VALUE",
        help="lowest judge rate you accept, e.g. sensitivity=0.85 (repeatable); the drift "
        "alarm then tests it instead of the reference periods",
    )
    a.add_argument(
        "--reference",
        type=count_arg,
        default=4,
        help="periods whose judge rates the drift alarm compares against (default 4)",
    )
    a.add_argument(
        "--scale",
        type=pair_arg,
        default=None,
        help="the judge gives scores on this scale, e.g. 1,10 (the mean human label)",
    )
    a.add_argument(
        "--human-scale",
        type=pair_arg,
        default=None,
        dest="human_scale",
        help="with --scale: the human label's scale, e.g. 1,5",
    )
    a.add_argument(
        "--drift-by",
        choices=("pooled", "system"),
        default="pooled",
        dest="drift_by",
        help="one drift alarm on every system's labels, or one per system (needs --system)",
    )
    a.add_argument(
        "--drift-from",
        choices=("all", "labels"),
        default="all",
        dest="drift_from",
        help="the drift alarm reads every channel (labels and verdict rate, default) or the "
        "labels alone",
    )


def add_parser(sub) -> None:
    """The ``monitor`` subcommand's arguments."""
    a = sub.add_parser("monitor", help=COMMANDS["monitor"].help)
    a.add_argument("log", help="CSV: one row per judged item, human label blank if unlabelled")
    a.add_argument("--judge", default="judge", help="verdict column")
    a.add_argument("--human", default="human", help="human label column")
    a.add_argument("--system", default=None, help="one sequence per system")
    a.add_argument("--positive", default=None, help="label value meaning 'correct'")
    a.add_argument(
        "--anchors",
        default=None,
        help="CSV of an anchor set judged again every period (one row per anchor and "
        "period, its label in --human): says whether the judge or the system moved",
    )
    a.add_argument("--item", default=None, help="with --anchors: the anchors' id column")
    add_monitor_options(a)
    add_common(a)


def _monitor(args, alpha: float):
    import warnings

    from judgebayes.errors import JudgeBayesWarning
    from judgebayes.workflows.monitor import monitor

    if args.time is None:
        raise CLIError("judgebayes: the log needs --time (the period column)")
    df = read_csv(args.log if hasattr(args, "log") else args.test, "log")
    options = dict(
        judge=args.judge, human=args.human, time=args.time, system=args.system,
        label_prob=args.label_prob, alpha=alpha, freq=args.freq, reference=args.reference,
        floors=dict(args.floor) if args.floor else None, positive=args.positive,
        drift_by=args.drift_by, drift_from=args.drift_from, scale=args.scale,
        human_scale=args.human_scale,
    )  # fmt: skip
    anchors, item = getattr(args, "anchors", None), getattr(args, "item", None)
    if anchors is not None or item is not None:
        if anchors is None or item is None:
            raise CLIError("judgebayes monitor: the anchor design needs --anchors and --item")
        options |= {"anchors": read_csv(anchors, "anchors"), "item": item}
    # a warning of the library is also a note of the table, printed once by _report
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeBayesWarning)
        return monitor(df, **options)


def _report(table, command: str) -> None:
    for note in table.attrs["notes"]:
        print(f"judgebayes {command}: note: {note}", file=sys.stderr)
    if "verdict" in table.columns:  # the anchor design
        for who, col in (("judge", "judge_alarm"), ("system", "system_alarm")):
            if table[col].any():
                first = table[table[col].astype(bool)].iloc[0]
                what = f" ({first['judge_moved']})" if who == "judge" else ""
                print(
                    f"judgebayes {command}: warning: the {who} moved{what}, alarm at period "
                    f"{first['period']}",
                    file=sys.stderr,
                )
        return
    if "alarm" in table.columns and table["alarm"].any():
        first = table[table["alarm"].astype(bool)].iloc[0]
        on = f" on system {first['system']}" if table.attrs.get("drift_by") == "system" else ""
        print(
            f"judgebayes {command}: warning: the judge drifted{on} ({first['drift']}, alarm "
            f"at period {first['period']}); the rate's bounds stay valid",
            file=sys.stderr,
        )


def _bounds(bounds: dict) -> dict:
    """{rate: [lower, upper]}, or {system: {rate: [lower, upper]}} with one alarm per system."""
    return {
        str(k): _bounds(v) if isinstance(v, dict) else [float(x) for x in v]
        for k, v in bounds.items()
    }


def _payload(table) -> dict:
    out = {
        "alpha": table.attrs["alpha"],
        "periods": table.to_dict("records"),
        "notes": table.attrs["notes"],
    }
    if "reference_bounds" in table.attrs:
        out["reference_bounds"] = _bounds(table.attrs["reference_bounds"])
    return out


def _columns(table):
    return [c for c in _COLUMNS + _ANCHOR_COLUMNS if c[0] in table.columns]


def run(args) -> tuple[str, int]:
    """Run ``judgebayes monitor``; returns (stdout, exit status)."""
    from judgebayes.results import to_json

    table = _monitor(args, args.alpha)
    _report(table, "monitor")
    if args.format == "json":
        return json.dumps(to_json(_payload(table)), indent=2), 0
    return render(table.to_dict("records"), _columns(table), args.format), 0


def gate_sequential(args) -> tuple[str, int]:
    """``judgebayes gate --sequential``: pass (0), fail (1) or continue (3)."""
    from judgebayes.results import to_json
    from judgebayes.workflows.monitor import sequential_decision

    if args.test is None:
        raise CLIError("judgebayes gate: --sequential reads one CSV log (the test file)")
    table = _monitor(args, 1.0 - args.prob)
    _report(table, "gate")
    claims = []
    for text in args.claim:
        d = sequential_decision(table, text)
        claims.append({"claim": text, "decision": d["decision"].iloc[-1]})
    decisions = {c["decision"] for c in claims}
    overall = "fail" if "fail" in decisions else "continue" if "continue" in decisions else "pass"
    status = {"pass": 0, "fail": 1, "continue": 3}[overall]
    print(
        f"judgebayes gate: {overall.upper()}: "
        + "; ".join(f"{c['claim']}: {c['decision']}" for c in claims)
        + f" (anytime-valid at {args.prob:g}, after period {table['period'].iloc[-1]})",
        file=sys.stderr,
    )
    if args.format == "json":
        out = _payload(table) | {"claims": claims, "decision": overall}
        return json.dumps(to_json(out), indent=2), status
    return render(claims, [("claim", "claim"), ("decision", "decision")], args.format), status
