"""``judgebayes label-next``: which items to send to humans next, and the estimate from the
rounds so far.

One CSV file, one row per judged item: ``--judge`` the verdict or score, ``--human`` the
label (blank = not yet labelled), ``--round`` the round in which each labelled item was
drawn (blank = never, or labelled before the rounds began: such labels train the plan but
are not part of the estimate).

Planning (the default): ``--budget K`` expected new labels (cost units with ``--cost``),
optionally ``--uncertainty`` (how unsure the judge is about each item), ``--mix`` and
``--width`` (a target width) or ``--claim 'rate > 0.8'`` (a claim to decide: is it decided
now, and how likely is this round to decide it), the stopping rules.  From round 2 on the
widths and the claim come from the estimate over the rounds so far.  Writes the file to
``--out`` with this round's column ``prob_R`` (every item's probability of being drawn
now; 1 for the items already labelled), ``label_now`` (1 for the items to label now) and
``round`` set to R on them, where R is one more than the last round in the file; prints
the round's summary.
Label the rows with ``label_now`` 1 and run it again on the written file.

``--estimate`` reads the rounds back (:func:`judgebayes.active_estimate`, the probability
columns ``prob_1``, ``prob_2``, ... or ``--probs``) and prints the mean human label over
all items with its interval; give the ``--uncertainty`` the rounds were planned with.

JSON (``--format json``): planning ``{"round", "out", "budget", "mix", "expected_labels",
"width_now", "width_next", "width_after", "stop", "reached_next", "coef",
"to_label", "estimate_now"}`` (``width_after``: the estimate from every round, predicted
once this one is labelled; ``width_next``: this round's own), with ``--claim`` also
``"claim", "decision_now", "decide_next"``; estimating
``{"estimate", "se", "lower", "upper", "labels", "rounds": [{"round", "estimate", "se"},
...]}``.
"""

from __future__ import annotations

import json

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import CLIError, add_common, read_csv, render, seed_arg

__all__ = ["add_parser", "run"]


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def add_parser(sub) -> None:
    """The ``label-next`` subcommand's arguments."""
    a = sub.add_parser("label-next", help=COMMANDS["label-next"].help)
    a.add_argument("log", help="CSV: one row per judged item, human label blank if unlabelled")
    a.add_argument("--judge", default="judge", help="verdict or score column")
    a.add_argument("--human", default="human", help="human label column")
    a.add_argument("--round", default="round", dest="round_col", help="round column")
    a.add_argument("--uncertainty", default=None, help="column: how unsure the judge is")
    a.add_argument("--budget", type=float, default=None, help="expected new labels this round")
    a.add_argument("--cost", default=None, help="column: each item's labelling cost")
    a.add_argument("--mix", type=float, default=None, help="share of uniform probabilities")
    a.add_argument("--width", type=float, default=None, help="target interval width")
    a.add_argument(
        "--claim", default=None, help="a claim to decide, e.g. 'rate > 0.8' (stop once decided)"
    )
    a.add_argument("--seed", type=seed_arg, default=0, help="seed of the round's draw")
    a.add_argument("--out", default=None, help="where to write the planned round (CSV)")
    a.add_argument("--estimate", action="store_true", help="estimate from the rounds so far")
    a.add_argument(
        "--lost",
        choices=("refuse", "at_random", "by_score"),
        default="refuse",
        help="--estimate: labels requested and never returned (at_random: scale each "
        "round's probabilities by its returned share; by_score: by the share returned "
        "within bins of the judge's score)",
    )
    a.add_argument(
        "--probs", type=_names, default=None, help="estimate: the rounds' probability columns"
    )
    add_common(a)


def _plan(args, df) -> tuple[str, int]:
    from judgebayes.results import to_json
    from judgebayes.workflows.label_next import label_next

    if args.budget is None or args.out is None:
        raise CLIError("judgebayes label-next: planning needs --budget and --out")
    from judgebayes.data.items.rounds import next_round

    r, earlier = next_round(df, args.round_col, args.human)
    plan = label_next(
        df,
        args.judge,
        args.human,
        args.budget,
        uncertainty=args.uncertainty,
        cost=args.cost,
        mix=args.mix,
        width=args.width,
        alpha=args.alpha,
        random_seed=args.seed,
        claim=args.claim,
        round=args.round_col if earlier else None,
        probs=earlier or None,
    )
    out = df.copy()
    out[f"prob_{r}"] = plan["prob"]
    out["label_now"] = plan["label_now"].astype(int)
    if args.round_col not in out.columns:
        out[args.round_col] = float("nan")
    out.loc[plan["label_now"].to_numpy(bool), args.round_col] = r
    try:
        out.to_csv(args.out, index=False)
    except OSError as exc:
        raise CLIError(f"judgebayes label-next: cannot write --out {args.out}: {exc}") from None
    a = plan.attrs
    row = {
        "round": r,
        "out": args.out,
        "budget": args.budget,
        "mix": a["mix"],
        "expected_labels": a["expected_labels"],
        "width_now": a["width_now"],
        "width_next": a["width_next"],
        "width_after": a["width_after"],
        "stop": a["stop"],
        "reached_next": a["reached_next"],
        "coef": list(a["coef"]),
        "to_label": int(plan["label_now"].sum()),
        "estimate_now": a["estimate_now"],
    }
    if args.claim is not None:
        row |= {"claim": args.claim, "decision_now": a["decision_now"]}
        row["decide_next"] = a["decide_next"]
    if args.format == "json":
        return json.dumps(to_json(row), indent=2), 0
    cols = [
        ("round", "round"),
        ("to_label", "to label now"),
        ("expected_labels", "expected"),
        ("mix", "uniform share"),
        ("width_now", "width so far"),
        ("width_after", "width after"),
    ]
    if args.width is not None:
        cols += [("stop", "target reached"), ("reached_next", "round reaches it")]
    if args.claim is not None:
        cols += [("decision_now", "claim now"), ("decide_next", "P(round decides)")]
    return render([row], cols, args.format), 0


def _estimate(args, df) -> tuple[str, int]:
    from judgebayes.data.items.rounds import probability_columns
    from judgebayes.results import to_json
    from judgebayes.workflows.label_next import active_estimate

    probs = args.probs if args.probs is not None else probability_columns(df)
    res = active_estimate(
        df,
        args.judge,
        args.human,
        round=args.round_col,
        probs=probs,
        uncertainty=args.uncertainty,
        alpha=args.alpha,
        lost=args.lost,
    )
    rounds = [
        {"round": r, "estimate": res[f"estimate_{r}"], "se": res[f"se_{r}"]}
        for r in range(1, len(probs) + 1)
    ]
    head = {k: res[k] for k in ("estimate", "se", "lower", "upper")}
    head["labels"] = int(res["labels"])
    if args.format == "json":
        return json.dumps(to_json(head | {"rounds": rounds}), indent=2), 0
    cols = [(c, c) for c in ("round", "estimate", "se", "lower", "upper", "labels")]
    rows = [r | {"lower": "", "upper": "", "labels": ""} for r in rounds]
    return render([*rows, head | {"round": "all"}], cols, args.format), 0


def run(args) -> tuple[str, int]:
    """Run ``judgebayes label-next``; returns (stdout, exit status)."""
    df = read_csv(args.log, "log")
    return _estimate(args, df) if args.estimate else _plan(args, df)
