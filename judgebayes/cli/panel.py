"""The ``judgebayes panel`` sub-command (generator precision from a validator panel).

Input: a cell table (generator, validator, n_judged, n_valid [, tn, fp, fn, tp, self,
n_missing]) with ``--annotations`` (generator, n_annotated, n_valid_human), or an
item-level table with ``--items`` (output, generator, validator, verdict [, human]).

JSON output (``--format json``): ``{"alpha", "methods": [...], "generators":
[{"generator", "human", "n_judged", "n_missing", "<method>", "<method>_lower",
"<method>_upper", ...}], "validators": [{"validator", "<method>_tpr", "<method>_tnr",
...}], "variant": {"<method>": "<its Bayesian model>"}, "diagnostics": {"<method>":
GATE}}`` (NaN written as null; interval columns only for Bayesian methods), GATE being
:func:`judgebayes.cli.io.diagnostics_json`'s
``{"r_hat_max", "ess_bulk_min", "ess_tail_min", "divergences", "bfmi_min",
"max_depth_share", "passed", "message", "sampler": {"draws", "tune", "chains",
"target_accept", "backend"}}``.  The validator mean is always reported.
"""

from __future__ import annotations

import json
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
from judgebayes.studies.panel import ValidatorPanel

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Register ``panel``."""
    p = sub.add_parser("panel", help=COMMANDS["panel"].help)
    p.add_argument("cells", help="CSV of cells (or of item-level verdicts with --items)")
    p.add_argument("--annotations", default=None, help="CSV: generator, n_annotated, n_valid_human")
    p.add_argument("--items", action="store_true", help="the CSV holds item-level verdicts")
    p.add_argument(
        "--annotations-disjoint",
        action="store_true",
        help="the annotated outputs are not among the judged ones (no confusion counts needed)",
    )
    add_method(
        p,
        method_choices("panel"),
        action="append",
        default=None,
        help="method(s) to run (repeatable; default: regression)",
    )
    p.add_argument("--seed", type=seed_arg, default=0)
    add_sampler(p, variants=tuple(c.model_name for c in ValidatorPanel.models()))
    add_common(p)


def _model(name: str | None, methods: list[str]) -> type[ValidatorPanel]:
    """The panel class of ``--variant`` (its Bayesian model), or the door that chooses."""
    if name is None:
        return ValidatorPanel
    if "nuts" not in methods:
        from judgebayes.errors import InputError

        raise InputError(
            f"--variant {name} applies to the NUTS panel model; none of the chosen methods "
            f"({', '.join(methods)}) takes it",
            field="variant",
            value=name,
        )
    return next(c for c in ValidatorPanel.models() if c.model_name == name)


def run(args) -> str:
    """Run the panel methods and format the result."""
    import numpy as np

    from judgebayes.inference.nuts import quiet_engine_warnings
    from judgebayes.inference.registry import normalise_method

    chosen = dict.fromkeys(normalise_method(m) for m in (args.method or ["regression"]))
    methods = ["validator_mean", *(m for m in chosen if m != "validator_mean")]
    model = _model(args.variant, methods)
    df = read_csv(args.cells, "items" if args.items else "cells")
    if args.items:
        panel = model.from_items(df)
    else:
        ann = read_csv(args.annotations, "annotations") if args.annotations else None
        panel = model.from_frames(df, ann, annotations_disjoint=args.annotations_disjoint)
    d = panel.data
    options = fit_options(args, ValidatorPanel, methods)  # a flag no chosen method uses: refused
    fits = {}
    with quiet_engine_warnings():  # a failed gate is said below, on stderr
        for m, opts in zip(methods, options, strict=True):
            fits[m] = panel.fit(m, random_seed=args.seed, **opts)
    report_gate("panel", fits.values())
    rows, vrows = _generator_rows(d, fits, args.alpha), _validator_rows(d, fits)
    human = d.human_precision
    # the Bayesian model each NUTS fit ran (the default is chosen from the data)
    variants = {m: f.info["variant"] for m, f in fits.items() if f.info.get("variant")}
    if args.format == "json":
        return json.dumps(
            {
                "alpha": args.alpha,
                "methods": methods,
                "generators": [{k: clean(v) for k, v in r.items()} for r in rows],
                "validators": [{k: clean(v) for k, v in r.items()} for r in vrows],
                "variant": variants,
                "diagnostics": {
                    m: diagnostics_json(f) for m, f in fits.items() if f.diagnostics is not None
                },
            },
            indent=2,
        )
    level = f"{100 * (1 - args.alpha):g}%"
    cols = [("system", "generator"), ("human", "human"), ("n_judged", "judged"),
            ("n_missing", "missing")]  # fmt: skip
    for m, f in fits.items():
        cols.append((m, m.replace("_", " ")))
        if not f.is_point:
            cols += [(f"{m}_lower", "lower"), (f"{m}_upper", "upper")]
    out = [
        f"{len(d.generators)} generators x {len(d.validators)} validators; "
        f"{int(d.n_judged.sum())} verdicts, {int(d.n_missing.sum())} missing "
        f"({100 * d.n_missing.sum() / max(1, d.n_missing.sum() + d.n_judged.sum()):.1f}%); "
        f"{d.annotated.size} annotated generator(s); intervals {level}",
        "",
        render([dict(r, system=r["generator"]) for r in rows], cols, args.format),
    ]
    vcols = [(k, k.replace("_", " ")) for k in vrows[0] if k != "validator"]
    if vcols:
        out += [
            "",
            "validator rates",
            render([dict(r, system=r["validator"]) for r in vrows],
                   [("system", "validator"), *vcols], args.format),
        ]  # fmt: skip
    for m, v in variants.items():
        out.append(f"model ({m}): " + fits[m].info.get("variant_chosen", f"variant {v}"))
    if np.all(np.isnan(human)):
        out.append("note: no annotated generator; every estimate rests on the validators alone")
    return "\n".join(out)


def _generator_rows(d, fits: dict, alpha: float) -> list[dict[str, Any]]:
    """One row per generator: the human share, the verdicts, each method's estimate and
    interval.
    """
    human = d.human_precision
    rows: list[dict[str, Any]] = []
    for i, g in enumerate(d.generators):
        r: dict[str, Any] = {
            "generator": g,
            "human": float(human[i]),
            "n_judged": int(d.n_judged[i].sum()),
            "n_missing": int(d.n_missing[i].sum()),
        }
        for m, f in fits.items():
            r[m] = float(f.estimate()[i])
            if not f.is_point:
                iv = f.interval(alpha)
                r[f"{m}_lower"] = float(iv["lower"].iloc[i])
                r[f"{m}_upper"] = float(iv["upper"].iloc[i])
        rows.append(r)
    return rows


def _validator_rows(d, fits: dict) -> list[dict[str, Any]]:
    """One row per validator: each method's TPR and TNR, where it estimates them."""
    vrows = []
    for j, v in enumerate(d.validators):
        r = {"validator": v}
        for m, f in fits.items():
            if f.tpr is not None:
                r[f"{m}_tpr"] = float(f.tpr[j])
                r[f"{m}_tnr"] = float(f.tnr[j])
        vrows.append(r)
    return vrows
