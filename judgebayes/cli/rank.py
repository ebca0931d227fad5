"""The ``judgebayes rank`` sub-command (bias-aware Bradley-Terry from CSV files).

JSON output (``--format json``): ``{"method", "prior", "k", "n_comparisons", "n_ties",
"ties", "identification", "judges", "identifiability": [str, ...], "diagnostics": GATE | null
(:func:`judgebayes.cli.io.diagnostics_json`: the gate's numbers and the NUTS settings),
"coefficients": [{"judge", "coefficient", "estimate", "lower", "upper", "p_positive",
"per_raw_unit", "identified_by"}, ...], "items": [{"item", "estimate", "lower", "upper", "p_top_k",
"rank", "rank_lower", "rank_upper"}, ...] (best first), "top_k": [item, ...] (the set
that maximises the expected recall of the true top k), "point_top_k": [item, ...],
"groups": [[item, ...], ...] (tiers: all separations hold jointly with probability
>= level)}`` (NaN written as null).  Qualities are identified as in
``info["identification"]``: sum to zero, or minus ``--reference``.

With ``--human COLUMN`` (human preferences on some comparisons) the methods
``judge-error`` and ``ppi`` rank by the human preference with the judges as noisy
witnesses, and the JSON output adds ``"channel": {"n_instances", "n_labelled",
"n_outcomes", "dropped", "lam" (ppi), "confusion": [{"judge", "human", "verdict",
"estimate", "lower", "upper"}, ...] (judge-error)}``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import (
    add_common,
    add_method,
    add_sampler,
    clean,
    diagnostics_json,
    fit_options,
    method_choices,
    read_csv,
    render,
    report_gate,
    seed_arg,
)
from judgebayes.models.ranking import BIAS_PRIORS

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Register ``rank`` on the sub-parser collection."""
    r = sub.add_parser("rank", help=COMMANDS["rank"].help)
    r.add_argument(
        "comparisons",
        help="CSV: first, second, winner [, judge, <cov>_first/_second, <human column>]",
    )
    r.add_argument(
        "--source",
        choices=("csv", "mt-bench", "arena"),
        default="csv",
        help="format of the comparisons file: our CSV (default), MT-Bench pairwise "
        "judgments (JSONL, both orders) or Chatbot Arena battles (JSON / JSONL)",
    )
    r.add_argument("--items", default=None, help="CSV: item plus item-level covariates")
    r.add_argument(
        "--covariate", action="append", default=[], help="covariate to model (repeatable)"
    )
    r.add_argument("--k", type=int, default=5, help="size of the top set (default 5)")
    add_method(
        r,
        method_choices("ranking"),
        default="laplace",
        help="naive BT, bias-aware BT by Laplace (default) or by NUTS; with --human: "
        "judge-error (NUTS) or ppi (prediction-powered BT)",
    )
    r.add_argument(
        "--human",
        default=None,
        help="column of human preferences (an item, 'tie', or empty where no human "
        "labelled the comparison): enables judge-error and ppi",
    )
    r.add_argument(
        "--instance",
        default=None,
        help="column tying several judges' rows on one comparison together (with --human)",
    )
    r.add_argument(
        "--prior",
        choices=[name for name, p in BIAS_PRIORS.items() if p.has_bias],
        default=None,
        help="bias prior (default: normal for laplace, horseshoe for nuts)",
    )
    r.add_argument(
        "--ties",
        choices=("davidson", "drop", "half"),
        default="davidson",
        help="ties: Davidson's tie model (default), dropped, or half a win (comparator)",
    )
    r.add_argument(
        "--reference",
        default=None,
        help="report qualities relative to this item (default: they sum to zero)",
    )
    r.add_argument("--seed", type=seed_arg, default=0)
    add_sampler(r)
    r.add_argument("--level", type=float, default=0.95, help="separation level of the groups")
    add_common(r)


def _comparisons(args):
    """The comparisons frame of the file, in the format ``--source`` names."""
    if args.source == "csv":
        return read_csv(args.comparisons, "comparisons")
    import warnings

    from judgebayes.data import logs

    reader = logs.mt_bench_pairs if args.source == "mt-bench" else logs.arena_pairs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comps = reader(args.comparisons)
    for w in caught:  # verdicts the judge did not give: counted, said once on stderr
        print(f"judgebayes rank: note: {w.message}", file=sys.stderr)
    return comps


def run(args) -> str:
    """Run the ranking and format it."""
    ranking, channel_method = _study(args)
    # the design notes concern the bias terms of judge-verdict models
    problems = [] if channel_method else ranking.identifiability().problems
    fit = _fit(args, ranking)
    res = {
        "rows": _item_rows(fit, args),
        "coefs": fit.bias_table(args.alpha).to_dict("records"),
        "top": fit.top_k_set(args.k),
        "groups": fit.groups(args.level),
        "channel": _channel(fit, args.alpha) if channel_method else None,
        "problems": problems,
    }
    if args.format == "json":
        return _json(args, ranking, fit, res)
    return _text(args, ranking, fit, res)


def _study(args):
    """The ranking study of the command's files, and whether the method ranks by humans."""
    from judgebayes.errors import InputError
    from judgebayes.inference.registry import normalise_method
    from judgebayes.studies.ranking import CHANNEL_METHODS, PairwiseRanking

    channel_method = normalise_method(args.method) in CHANNEL_METHODS
    if channel_method and args.human is None:
        raise InputError(
            f"--method {args.method} ranks by human preferences: name their column with --human",
            field="human",
            value=None,
        )
    comps = _comparisons(args)
    items = read_csv(args.items, "items") if args.items else None
    ranking = PairwiseRanking.from_frames(
        comps,
        items,
        covariates=args.covariate,
        ties=args.ties,
        human=args.human,
        instance=args.instance,
    )
    if not 1 <= args.k <= ranking.data.n_items:
        raise InputError(
            f"--k must be in 1..{ranking.data.n_items}, got {args.k}", field="k", value=args.k
        )
    return ranking, channel_method


def _fit(args, ranking):
    """The fit of ``--method`` with the command's options (a failed gate said on stderr)."""
    from judgebayes.inference.nuts import quiet_engine_warnings
    from judgebayes.studies.ranking import PairwiseRanking

    (options,) = fit_options(args, PairwiseRanking, [args.method])  # unused flags refused
    if args.reference is not None:
        options["reference"] = args.reference
    if args.prior is not None:
        options["prior"] = args.prior
    with quiet_engine_warnings():  # a failed gate is said once, on stderr
        fit = ranking.fit(args.method, random_seed=args.seed, warn=False, **options)
    report_gate("rank", [fit])
    return fit


def _item_rows(fit, args) -> list[dict[str, Any]]:
    """One row per item: quality and interval, P(top k), rank and rank interval."""
    ri = fit.rank_intervals(args.alpha)
    iv = fit.interval(args.alpha)
    tk = fit.top_k(args.k)
    table = ri.join(iv[["lower", "upper"]]).join(tk[["p_top_k"]])
    return [
        {
            "item": it,
            **{k: float(r[k]) for k in ("estimate", "lower", "upper", "p_top_k")},
            **{k: int(r[k]) for k in ("rank", "rank_lower", "rank_upper")},
        }
        for it, r in table.iterrows()
    ]


def _channel(fit, alpha: float) -> dict:
    """What a ranking by human preferences says of its labels (and the judges' confusion)."""
    info = fit.info
    channel = {k: info[k] for k in ("n_instances", "n_labelled", "n_outcomes", "dropped")}
    if "lam" in info:
        channel["lam"] = float(info["lam"])
    if fit.method == "judge_error":
        channel["confusion"] = [
            {k: clean(v) for k, v in r.items()} for r in fit.channel_table(alpha).to_dict("records")
        ]
    return channel


def _json(args, ranking, fit, res: dict) -> str:
    """The ``--format json`` output."""
    channel = res["channel"]
    return json.dumps(
        {
            **({"channel": channel} if channel is not None else {}),
            "method": fit.method,
            "prior": fit.prior,
            "k": args.k,
            "n_comparisons": ranking.data.n,
            "n_ties": ranking.data.n_ties,
            "ties": ranking.data.ties,
            "identification": fit.info["identification"],
            "judges": list(ranking.data.judges),
            "identifiability": res["problems"],
            "diagnostics": diagnostics_json(fit),
            "coefficients": [{k: clean(v) for k, v in c.items()} for c in res["coefs"]],
            "items": [{k: clean(v) for k, v in r.items()} for r in res["rows"]],
            "top_k": list(res["top"]),
            "point_top_k": fit.point_top_k(args.k),
            "groups": res["groups"],
        },
        indent=2,
    )


def _text(args, ranking, fit, res: dict) -> str:
    """The table and markdown output."""
    channel, coefs, rows = res["channel"], res["coefs"], res["rows"]
    top, groups = res["top"], res["groups"]
    level = f"{100 * (1 - args.alpha):g}%"
    tie_note = {
        "drop": "dropped",
        "half": "counted as half a win",
        "davidson": "modelled (Davidson)",
    }[ranking.data.ties]
    ident = fit.info["identification"]
    scale = (
        "qualities sum to zero"
        if ident == "sum_to_zero"
        else f"qualities relative to {ident.split('=', 1)[1]}"
    )
    out = [
        f"{ranking.data.n} comparisons of {ranking.data.n_items} items by "
        f"{len(ranking.data.judges)} judge(s); {ranking.data.n_ties} tie(s) {tie_note}; "
        f"method {fit.label}; {scale}",
        "",
    ]
    if channel is not None:
        out += [
            f"{channel['n_labelled']} of {channel['n_instances']} comparisons have a human "
            "label; the ranking is of the human preference"
            + (f" (PPI++ lambda {channel['lam']:.2f})" if "lam" in channel else ""),
            "",
        ]
    if channel is not None and "confusion" in channel:
        out += [
            f"judges' verdicts given the human outcome ({level} interval)",
            render(
                [
                    dict(c, system=f"{c['judge']}: human {c['human']}, verdict {c['verdict']}")
                    for c in channel["confusion"]
                ],
                [("system", "judge"), ("estimate", "P(verdict | human)"), ("lower", "lower"),
                 ("upper", "upper")],
                args.format,
            ),
            "",
        ]  # fmt: skip
    if coefs:
        out += [
            f"bias coefficients (logits per standardised unit; {level} interval)",
            render(
                [dict(c, system=f"{c['coefficient']} ({c['judge']})") for c in coefs],
                [("system", "coefficient"), ("estimate", "estimate"), ("lower", "lower"),
                 ("upper", "upper"), ("p_positive", "P(>0)"), ("per_raw_unit", "per raw unit"),
                 ("identified_by", "identified by")],
                args.format,
            ),
            "",
        ]  # fmt: skip
    out += [
        f"quality, {level} interval, P(top {args.k}) and {level} rank interval (best first)",
        render(
            [dict(r, system=str(r["item"])) for r in rows],
            [("system", "item"), ("estimate", "quality"), ("lower", "lower"), ("upper", "upper"),
             ("p_top_k", f"P(top {args.k})"), ("rank", "rank"), ("rank_lower", "rank lo"),
             ("rank_upper", "rank hi")],
            args.format,
        ),
        "",
        f"top {args.k} (most expected recall): {', '.join(map(str, top))}",
        f"tiers (every separation holds jointly with P >= {args.level:g}): "
        + " | ".join(", ".join(map(str, g)) for g in groups),
    ]  # fmt: skip
    for p in res["problems"]:
        out.append(f"note: {p}")
    return "\n".join(out)
