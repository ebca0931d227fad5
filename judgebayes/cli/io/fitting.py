"""Fitting a study's methods from the command line's flags, and the gate's numbers of
each fit.
"""

from __future__ import annotations

from typing import Any

from judgebayes.cli.io.args import _SAMPLER_FLAGS
from judgebayes.cli.io.output import clean

#: method options with a flag of their own: the flag's dest -> (the option, what it applies
#: to); ``judgebayes scores --calibration`` is ``calibration_fit`` (``accuracy --calibration``
#: is a file)
_METHOD_FLAGS = {
    "calibration_fit": ("calibration", "the closed form"),
}


def fit_options(args, study, methods) -> list[dict[str, Any]]:
    """The keyword options of each method's ``fit`` from the sampler flags.

    ``study`` is the study (or its class) whose ``methods`` table says what each method
    takes; ``methods`` in either spelling.  Raises :class:`~judgebayes.errors.InputError`
    for a flag that none of ``methods`` takes (``--tune`` with closed forms only, say).
    """
    from judgebayes.errors import InputError, MethodRefused
    from judgebayes.inference.registry import normalise_method

    def spec(m):
        try:
            return study.methods.resolve(m)
        except MethodRefused:  # refused when fitted: a row of its own, no options
            return None

    specs = [s for s in map(spec, methods) if s is not None]
    methods = [normalise_method(m) for m in methods]
    given = {k: getattr(args, k, None) for k in _SAMPLER_FLAGS}
    given = {k: v for k, v in given.items() if v is not None}
    for k in given:
        takes = ("sampler", "draws") if k == "draws" else ("sampler",)
        if not any(o in s.options for s in specs for o in takes):
            raise InputError(
                f"--{k.replace('_', '-')} {given[k]} applies to "
                + ("NUTS, Laplace or exact fits" if k == "draws" else "NUTS fits")
                + f"; none of the chosen methods ({', '.join(methods)}) uses it",
                field=k,
                value=given[k],
            )
    # a method's own option, passed to the methods that take it
    own = {}
    for dest, (option, what) in _METHOD_FLAGS.items():
        v = getattr(args, dest, None)
        if v is None:
            continue
        if not any(option in s.options for s in specs):
            raise InputError(
                f"--{option} {v} applies to {what}; none of the chosen methods "
                f"({', '.join(methods)}) takes it",
                field=option,
                value=v,
            )
        own[option] = v
    out = []
    for m in methods:
        s = spec(m)
        o: dict[str, Any] = {}
        if s is None:
            out.append(o)
            continue
        if "sampler" in s.options and given:
            o["sampler"] = dict(given)
        elif "draws" in s.options and "draws" in given:
            o["draws"] = given["draws"]
        o |= {k: v for k, v in own.items() if k in s.options}
        out.append(o)
    return out


def fit_methods(study, methods, args, command: str) -> tuple[list, list[dict]]:
    """Fit ``methods`` on ``study`` with the command's seed and sampler flags: (fits, the
    refused methods' comparison rows).  A refused method is said in one line on stderr and
    the others still fit; when it was the only method asked for, the refusal goes on (the
    command exits 1 with its reason).  A failed convergence gate is said per fit.
    """
    import sys

    from judgebayes.errors import MethodRefused
    from judgebayes.inference.nuts import quiet_engine_warnings

    options = fit_options(args, study, methods)
    fits, refused = [], []
    with quiet_engine_warnings():  # gate failures are said below, one line each
        for m, opts in zip(methods, options, strict=True):
            try:
                fits.append(study.fit(m, random_seed=args.seed, **opts))
            except MethodRefused as e:
                if len(methods) == 1:
                    raise
                print(f"judgebayes {command}: note ({m}): refused: {e}", file=sys.stderr)
                refused.append(study._refused_row(m, e, getattr(args, "alpha", 0.05)))
    report_gate(command, fits)
    return fits, refused


def diagnostics_json(fit) -> dict[str, Any] | None:
    """A fit's convergence gate and NUTS settings as JSON (None for fits without MCMC)."""
    diag = fit.diagnostics
    if diag is None:
        return None
    from dataclasses import asdict, is_dataclass

    cfg = fit.info.get("sampler")
    return {
        "r_hat_max": clean(diag.r_hat_max),
        "ess_bulk_min": clean(diag.ess_bulk_min),
        "ess_tail_min": clean(diag.ess_tail_min),
        "divergences": int(diag.divergences),
        "bfmi_min": clean(diag.bfmi_min),
        "max_depth_share": clean(diag.max_depth_share),
        "passed": bool(diag.passed),
        "message": diag.message(),
        "sampler": asdict(cfg) if is_dataclass(cfg) else None,
    }


def report_gate(command: str, fits) -> None:
    """The convergence gate's verdict of every failed fit: one line each, on stderr (every
    subcommand says it there; ``--format json`` also carries it under ``diagnostics``).
    """
    import sys

    for f in fits:
        if f.diagnostics is not None and not f.diagnostics.passed:
            msg = f.diagnostics.message()
            print(f"judgebayes {command}: warning ({f.method}): {msg}", file=sys.stderr)
