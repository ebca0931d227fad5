"""``judgebayes scores``: each system's mean human label from a judge's scores.

One CSV file (or an Inspect AI log / promptfoo results with numeric scores, and
``--labels``): one row per judged output, the judge's score, the human label blank where
unlabelled.  Prints each system's mean human label by every method asked for, the paired
contrasts with ``--contrasts``, and with ``--claim`` gates on them: exit 1 unless every
claim ("A > 3.5", "A > B", "A > B - 0.2", "|A - B| < 0.3", on the human scale) is
supported, or when a check of an assumption the method makes flags the data.
"""

from __future__ import annotations

import json
import sys

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import (
    add_common,
    add_method,
    add_sampler,
    diagnostics_json,
    fit_methods,
    method_choices,
    pair_arg,
    read_csv,
    render,
    seed_arg,
)

__all__ = ["add_parser", "run"]

_COLUMNS = [
    ("method", "method"),
    ("unit", "system"),
    ("estimate", "estimate"),
    ("lower", "lower"),
    ("upper", "upper"),
    ("estimand", "estimand"),
]


def add_parser(sub) -> None:
    """The ``scores`` subcommand's arguments."""
    a = sub.add_parser("scores", help=COMMANDS["scores"].help)
    a.add_argument("test", nargs="?", help="CSV: one judged output per row")
    a.add_argument(
        "--score",
        action="append",
        default=None,
        help="the judge's score column (repeatable: several judges; default 'score')",
    )
    a.add_argument(
        "--human",
        action="append",
        default=None,
        help="the human label column, blank = unlabelled (repeatable: several raters, "
        "averaged; default 'human')",
    )
    a.add_argument("--system", default=None, help="system column")
    a.add_argument("--item", default=None, help="the prompt column (pairs the systems)")
    a.add_argument("--cluster", default=None, help="clusters of correlated rows")
    a.add_argument(
        "--label-prob", default=None, help="column: each row's known labelling probability"
    )
    a.add_argument(
        "--labelled-by",
        action="append",
        default=None,
        dest="labelled_by",
        metavar="COLUMN",
        help="a column the labelling followed at unknown rates (repeatable): the residuals "
        "are weighted within strata of its quintiles",
    )
    a.add_argument(
        "--time", default=None, help="the period column: calibrated within each period, pooled"
    )
    a.add_argument("--freq", default=None, help="with --time timestamps: D, W or M periods")
    a.add_argument("--scale", type=pair_arg, default=None, help="the judge's scale, e.g. 1,10")
    a.add_argument("--human-scale", type=pair_arg, default=None, help="the humans' scale, e.g. 1,5")
    a.add_argument(
        "--threshold", type=float, default=None, help="human label >= this is a pass (0/1)"
    )
    a.add_argument("--inspect", default=None, help="Inspect AI log with a numeric scorer")
    a.add_argument("--scorer", default=None, help="Inspect: the scorer to read")
    a.add_argument("--promptfoo", default=None, help="promptfoo results JSON (grading scores)")
    a.add_argument("--assertion", default=None, help="promptfoo: the assertion to read")
    a.add_argument("--labels", default=None, help="with a log: CSV of sample_id, human")
    add_method(
        a,
        (*method_choices("scores"), "all"),
        default="closed_form",
        help="estimator (default closed_form; all: the study's comparison)",
    )
    a.add_argument("--estimand", choices=("items", "process"), default="items")
    a.add_argument(
        "--calibration",
        dest="calibration_fit",
        choices=("auto", "isotonic", "logistic"),
        default=None,
        help="closed form: the calibration fit (default isotonic; auto: logistic unless "
        "isotonic predicts held-out labels clearly better)",
    )
    a.add_argument("--contrasts", action="store_true", help="also print every pair's contrast")
    a.add_argument(
        "--claim",
        action="append",
        default=None,
        help="gate: a claim such as 'A > 3.5' or 'A > B' (repeatable); exit 1 unless all hold",
    )
    a.add_argument("--prob", type=float, default=0.95, help="gate: the level required")
    a.add_argument("--seed", type=seed_arg, default=0, help="random seed")
    add_sampler(a)
    add_common(a)


def _frame(args):
    """The scores frame and its column keywords."""
    from judgebayes.data import logs
    from judgebayes.errors import InputError

    sources = [k for k in ("inspect", "promptfoo") if getattr(args, k) is not None]
    if len(sources) + (args.test is not None) != 1:
        raise InputError(
            "give one source of scores: a CSV file, --inspect or --promptfoo",
            field="test",
            value=args.test,
        )
    if not sources:
        if args.labels is not None:
            raise InputError(
                "--labels goes with a log; a CSV carries its labels in the --human column",
                field="labels",
                value=args.labels,
            )
        cols = dict(
            score=args.score or ["score"],
            human=args.human or ["human"],
            system=args.system,
            item=args.item,
            cluster=args.cluster,
        )
        return read_csv(args.test, "test"), cols | _time(args)
    if sources == ["inspect"]:
        df = logs.inspect_items(args.inspect, args.labels, scorer=args.scorer, scores=True)
    else:
        df = logs.promptfoo_items(
            args.promptfoo, args.labels, assertion=args.assertion, scores=True
        )
    item = args.item or "sample_id"
    cluster = args.cluster
    if "epoch" in df.columns and df["epoch"].nunique() > 1:
        cluster, item = cluster or "sample_id", None  # epochs of one sample: correlated
    return df, dict(
        score="score", human="human", system="system", item=item, cluster=cluster
    ) | _time(args)


def _time(args) -> dict:
    """``time=`` / ``freq=`` / ``label_prob=`` / ``labelled_by=`` when given (``--freq``
    alone is the study's error).
    """
    keys = ("time", "freq", "label_prob", "labelled_by")
    return {k: getattr(args, k) for k in keys if getattr(args, k) is not None}


def run(args) -> tuple[str, int]:
    """Run ``judgebayes scores``; returns (stdout, exit status)."""
    from judgebayes.studies.scores import ScoreStudy
    from judgebayes.workflows.gate import parse_claim
    from judgebayes.workflows.gate_rule import gate

    df, cols = _frame(args)
    study = ScoreStudy.from_items(
        df,
        **{k: (v[0] if isinstance(v, list) and len(v) == 1 else v) for k, v in cols.items()},
        scale=args.scale,
        human_scale=args.human_scale,
        threshold=args.threshold,
        estimand=args.estimand,
    )
    claims = [parse_claim(c, study.data.human_scale) for c in args.claim or []]
    methods = list(study.default_methods) if args.method == "all" else [args.method]
    fits, refused = fit_methods(study, methods, args, "scores")
    rows = refused + [r for f in fits for r in f.summary_rows(args.alpha)]
    for f in fits:
        for note in f.notes:
            print(f"judgebayes scores: note ({f.method}): {note}", file=sys.stderr)
    out: dict = {"systems": rows}
    status = 0
    if args.contrasts:
        out["contrasts"] = [
            {"method": f.method, **r}
            for f in fits
            if f.has_contrasts
            for r in f.contrasts(args.alpha).to_dict("records")
        ]
    if claims:
        result = gate(study, fits[0], [c.text for c in claims], prob=args.prob)
        print(f"judgebayes scores: {result.summary()}", file=sys.stderr)
        status = result.exit_code
        out["claims"] = result.claims.to_dict("records")
    if study.data.period is not None:
        out["periods"] = [
            {"method": f.method, **r}
            for f in fits
            for r in f.periods(args.alpha).to_dict("records")
        ]
    if args.format == "json":
        out["diagnostics"] = {f.method: diagnostics_json(f) for f in fits}
        from judgebayes.results import to_json

        return json.dumps(to_json(out), indent=2), status
    text = render(rows, _COLUMNS, args.format)
    if out.get("periods"):
        cols = ("method", "period", "system", "n_items", "n_labelled", "estimate")
        text += "\n\n" + render(
            out["periods"],
            [(c, c) for c in cols] + [("lower", "lower"), ("upper", "upper")],
            args.format,
        )
    if args.contrasts and out["contrasts"]:
        text += "\n\n" + render(
            out["contrasts"],
            [
                ("method", "method"),
                ("a", "a"),
                ("b", "b"),
                ("difference", "a - b"),
                ("lower", "lower"),
                ("upper", "upper"),
                ("estimand", "estimand"),
            ],
            args.format,
        )
    if claims:
        text += "\n\n" + render(
            out["claims"],
            [("claim", "claim"), ("bound", "bound"), ("supported", "supported")],
            args.format,
        )
    return text, status
