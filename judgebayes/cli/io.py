"""Shared I/O of the ``judgebayes`` command: the one-line-error parser, CSV reading,
table rendering and the arguments several subcommands share.  Subcommand modules import
this module and nothing else of the CLI, so the CLI has no import cycles.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

__all__ = [
    "CLIError",
    "Parser",
    "add_common",
    "add_item_files",
    "add_method",
    "add_sampler",
    "clean",
    "count_arg",
    "diagnostics_json",
    "fit_methods",
    "fit_options",
    "method_arg",
    "method_choices",
    "read_csv",
    "render",
    "report_gate",
    "seed_arg",
]


class CLIError(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (:class:`CLIError`), never a usage block."""

    def error(self, message: str):  # one line, no usage block
        """Raise :class:`CLIError` with the message."""
        raise CLIError(f"{self.prog}: {message}")


def fmt(x: Any, digits: int = 3) -> str:
    """A table cell: integers as integers, floats to ``digits`` places, NaN as ``-``."""
    import numpy as np

    if isinstance(x, (bool, np.bool_, str)) or x is None:
        return str(x)
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return "-" if math.isnan(f) else f"{f:.{digits}f}"


def clean(v: Any) -> Any:
    """JSON-safe scalar: NaN / inf -> None, numpy -> python."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def render(rows: list[dict], columns: list[tuple[str, str]], style: str) -> str:
    """Rows as an aligned text table or a markdown pipe table (``style``: "table" or "markdown")."""
    head = [h for _, h in columns]
    body = [
        [
            fmt(r[c]) if c not in ("system", "subset", "note", "item") else str(r[c])
            for c, _ in columns
        ]
        for r in rows
    ]
    if style == "markdown":
        import pandas as pd

        from judgebayes.report import markdown_table

        return markdown_table(pd.DataFrame(body, columns=head))
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]

    def line(cells):
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in pairs)

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(b) for b in body])


def read_csv(path: str, what: str):
    """Read a CSV file; a missing or unreadable file is an :class:`InputError` naming ``what``."""
    import pandas as pd

    from judgebayes.errors import InputError

    try:
        return pd.read_csv(path, keep_default_na=True)
    except FileNotFoundError:
        raise InputError(f"{what} file not found: {path}", field=what, value=path) from None
    except IsADirectoryError:
        raise InputError(
            f"{what} file {path} is a directory; give a CSV file", field=what, value=path
        ) from None
    except PermissionError:
        raise InputError(
            f"{what} file {path} cannot be read (permission denied)", field=what, value=path
        ) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"{what} file {path} is not a readable CSV: {msg}", field=what, value=path
        ) from None


def _whole(text: str, low: int | None = None) -> int:
    """A whole number from the command line, at least ``low`` when given."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if low is not None and v < low:
        raise argparse.ArgumentTypeError(f"must be at least {low}, got {v}")
    return v


def seed_arg(text: str) -> int:
    """``--seed``: an integer in [0, 2**63), checked when parsed (not after a fit)."""
    v = _whole(text)
    if not 0 <= v < 2**63:
        raise argparse.ArgumentTypeError(f"must lie in [0, 2**63), got {text}")
    return v


def pair_arg(text: str) -> tuple[float, float]:
    """``--scale 1,10``: a (low, high) pair of numbers."""
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be LOW,HIGH (e.g. 1,10), got {text!r}") from None
    return lo, hi


def count_arg(text: str) -> int:
    """A count that must be at least 1 (``--draws``, ``--labels``)."""
    return _whole(text, low=1)


def method_arg(text: str) -> str:
    """A method name as the CLI spells it: lower case, words joined by hyphens.

    ``closed-form`` and ``closed_form`` (the API's spelling) are one method in every
    subcommand, as :func:`~judgebayes.inference.registry.normalise_method` makes them one
    in the API.
    """
    return text.strip().lower().replace("_", "-")


def add_method(sp, choices, *, default, help: str, **kw) -> None:
    """``--method`` with the one spelling of :func:`method_arg` (both spellings accepted)."""
    sp.add_argument(
        "--method",
        type=method_arg,
        choices=tuple(method_arg(c) for c in choices),
        default=default if default is None else method_arg(default),
        help=help + " (closed-form and closed_form are one name)",
        **kw,
    )


def method_choices(*keys: str) -> tuple[str, ...]:
    """Every method name of the study classes whose key starts with one of ``keys``
    (:data:`judgebayes.studies.base.STUDIES`), refusals included (a study says why), in
    registration order: the ``--method`` choices come from the registries, not a list.
    """
    from judgebayes.studies import STUDIES

    names: dict[str, None] = {}
    for key, cls in STUDIES.items():
        if any(key == k or key.startswith(f"{k}.") for k in keys):
            names.update(dict.fromkeys([*cls.methods, *cls.methods.refused]))
    return tuple(names)


def _tune_arg(text: str) -> int:
    """``--tune``: a count that may be 0."""
    return _whole(text, low=0)


def _accept_arg(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"must lie in (0, 1), got {text}")
    return v


#: the sampler flags, each named as its SamplerConfig field (None = not given: the model's
#: default holds)
_SAMPLER_FLAGS = ("draws", "tune", "chains", "target_accept")


def add_sampler(sp, *, variants: tuple[str, ...] = ()) -> None:
    """NUTS settings (``--draws``, ``--tune``, ``--chains``, ``--target-accept``) and, where
    the family has model variants, ``--variant``.

    Unset flags leave each model's own default (its spec's ``sampler``) in place; ``--draws``
    also sets the posterior draws of the Laplace and exact engines.  A flag that none of
    the chosen methods uses is refused by :func:`fit_options`, never ignored.
    """
    g = sp.add_argument_group("sampler settings (default: each model's own)")
    g.add_argument(
        "--draws",
        type=count_arg,
        default=None,
        help="NUTS: kept draws per chain; Laplace / exact: posterior draws",
    )
    g.add_argument("--tune", type=_tune_arg, default=None, help="NUTS warm-up draws per chain")
    g.add_argument("--chains", type=count_arg, default=None, help="NUTS chains (>= 2 for R-hat)")
    g.add_argument(
        "--target-accept",
        type=_accept_arg,
        default=None,
        help="NUTS step-size target in (0, 1); raise it (0.95, 0.99) after divergences",
    )
    if variants:
        g.add_argument("--variant", choices=variants, default=None, help="model variant")


#: method options with a flag of their own: the flag's dest -> (the option, what it applies
#: to); ``judgebayes scores --calibration`` is ``calibration_fit`` (``accuracy --calibration``
#: is a file)
_METHOD_FLAGS = {
    "variant": ("variant", "the NUTS panel model"),
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


def add_common(sp) -> None:
    """``--alpha`` and ``--format``, shared by every subcommand."""
    sp.add_argument("--alpha", type=float, default=0.05, help="1 - confidence level")
    sp.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    add_quiet(sp)


def add_quiet(sp) -> None:
    """``--quiet``: no progress on stderr (bars and progress lines); errors still print."""
    sp.add_argument("--quiet", action="store_true", help="no progress on stderr")


def add_item_files(sp, *, items: bool = False) -> None:
    """The test / calibration CSV arguments shared by ``accuracy``, ``gate`` and ``report``.

    ``items=True``: ``--calibration`` is optional; without it the one file holds every
    judged item, with the human label blank where unlabelled (the items design).  The
    items may also come from an evaluation tool's log (``--inspect``, ``--lm-eval``,
    ``--promptfoo``) with human labels from ``--labels``.
    """
    sp.add_argument(
        "test",
        nargs="?" if items else None,
        help="CSV of test items: one judge verdict per row"
        + (" (no --calibration: every item, human label blank if unlabelled)" if items else ""),
    )
    sp.add_argument(
        "--calibration", required=not items, default=None, help="CSV of human-labelled items"
    )
    sp.add_argument("--judge", default="judge", help="verdict column (both files)")
    sp.add_argument(
        "--human",
        default="human",
        help="human label column (calibration file)"
        + ("; items design: several raters' columns as h1,h2,h3" if items else ""),
    )
    sp.add_argument("--system", default=None, help="system column in the test file")
    sp.add_argument("--positive", default=None, help="label value meaning 'correct'")
    if not items:
        return
    sp.add_argument(
        "--item",
        default=None,
        help="items design: the column naming the prompt several systems answered "
        "(contrasts are then paired; for logs, sample_id)",
    )
    sp.add_argument(
        "--truth",
        choices=("latent", "majority"),
        default="latent",
        help="items design with several raters (--human h1,h2,h3): the rate of the latent "
        "true label (nuts) or of the raters' majority taken as the truth (every method)",
    )
    sp.add_argument(
        "--labelled-by",
        action="append",
        default=None,
        dest="labelled_by",
        metavar="COLUMN",
        help="items design: a column the labelling followed (repeatable): strata by its "
        "quintiles, so that every method's assumption holds within them",
    )
    sp.add_argument(
        "--design-column",
        action="append",
        default=None,
        dest="design_columns",
        metavar="COLUMN",
        help="items design: a column the labelling check compares between labelled and "
        "unlabelled items (repeatable; the row order is always compared)",
    )
    sp.add_argument(
        "--order",
        default=None,
        metavar="COLUMN",
        help="items design: the column saying when each item was judged (default: the row "
        "order), for the labelling check",
    )
    logs = sp.add_argument_group("items from an evaluation tool's log (instead of a CSV)")
    logs.add_argument("--inspect", default=None, help="Inspect AI log file or directory")
    logs.add_argument("--lm-eval", default=None, help="lm-eval samples_*.jsonl file or directory")
    logs.add_argument("--promptfoo", default=None, help="promptfoo results JSON")
    logs.add_argument("--labels", default=None, help="CSV of human labels: sample_id, human")
    logs.add_argument("--scorer", default=None, help="Inspect: the model-graded scorer")
    logs.add_argument("--metric", default=None, help="lm-eval: the per-sample metric")
    logs.add_argument("--assertion", default=None, help="promptfoo: the assertion type")


_LOG_SOURCES = ("inspect", "lm_eval", "promptfoo")


def _items_from_log(args):
    """The items frame of the ``--inspect`` / ``--lm-eval`` / ``--promptfoo`` source, or None."""
    from judgebayes.errors import InputError

    given = [k for k in _LOG_SOURCES if getattr(args, k, None) is not None]
    if not given:
        if getattr(args, "labels", None) is not None:
            raise InputError(
                "--labels goes with a log (--inspect, --lm-eval or --promptfoo); a CSV "
                "carries its labels in the --human column",
                field="labels",
                value=args.labels,
            )
        return None
    flags = [f"--{k.replace('_', '-')}" for k in given]
    if len(given) > 1 or args.test is not None or args.calibration is not None:
        other = flags[1] if len(given) > 1 else "a CSV file"
        raise InputError(
            f"{flags[0]} and {other} both give the items; give one source",
            field=given[0],
            value=getattr(args, given[0]),
        )
    from judgebayes.data import logs

    src = getattr(args, given[0])
    if given[0] == "inspect":
        return logs.inspect_items(src, args.labels, scorer=args.scorer, positive=args.positive)
    if given[0] == "lm_eval":
        if args.metric is None:
            raise InputError(
                "--lm-eval needs --metric (the per-sample metric that is the verdict)",
                field="metric",
                value=None,
            )
        return logs.lm_eval_items(src, args.labels, metric=args.metric, positive=args.positive)
    return logs.promptfoo_items(src, args.labels, assertion=args.assertion)


def study_from_args(args):
    """The accuracy study the item-file arguments (:func:`add_item_files`) describe.

    Without ``--calibration``: the items design (one file, blank human label =
    unlabelled; ``--stratum``, ``--cluster``, ``--weights`` and ``--estimand`` where the
    subcommand has them).  With it: the two-frame study.
    """
    from judgebayes.errors import InputError
    from judgebayes.studies.accuracy import AccuracyStudy

    design = {
        k: getattr(args, k, None)
        for k in ("stratum", "cluster", "weights", "item", "covariates", "judge_rates")
    }
    for k in ("labelled_by", "design_columns", "order"):
        if getattr(args, k, None) is not None:
            design[k] = getattr(args, k)
    if design["covariates"] and any(":" in c for c in design["covariates"]):
        # COLUMN:TERM, e.g. length:spline
        design["covariates"] = dict(
            (c.rsplit(":", 1) if ":" in c else (c, "linear")) for c in design["covariates"]
        )
    if design["judge_rates"] is None:
        del design["judge_rates"]  # the study's own default
    estimand = getattr(args, "estimand", "items")
    df = _items_from_log(args)
    if df is not None:
        if "epoch" in df.columns and df["epoch"].nunique() > 1 and design["cluster"] is None:
            design["cluster"] = "sample_id"  # epochs of one sample are correlated outputs
        return AccuracyStudy.from_items(
            df, judge="judge", human="human", system="system", **design, estimand=estimand
        )
    if args.test is None:
        raise InputError(
            "no items: give a CSV file, or a log with --inspect, --lm-eval or --promptfoo",
            field="test",
            value=None,
        )
    common = dict(judge=args.judge, human=args.human, system=args.system, positive=args.positive)
    if args.calibration is not None:
        if design["item"] is not None:
            raise InputError(
                "--item pairs the systems of one items file; with --calibration the two "
                "files are a calibration design (leave out --item, or --calibration)",
                field="item",
                value=design["item"],
            )
        flags = {"labelled_by": "--labelled-by", "design_columns": "--design-column"}
        for k in ("labelled_by", "design_columns", "order"):
            if k in design:
                raise InputError(
                    f"{flags.get(k, '--order')} describes how an items file was labelled; "
                    "with --calibration the "
                    "two files are a calibration design (leave out one of them)",
                    field=k,
                    value=design[k],
                )
        test_df = read_csv(args.test, "test")
        return AccuracyStudy.from_frames(
            test_df, read_csv(args.calibration, "calibration"), **common
        )
    df = read_csv(args.test, "items")
    humans = [h.strip() for h in args.human.split(",") if h.strip()]
    if len(humans) > 1:
        common["human"] = humans
        design["truth"] = args.truth
    elif args.human not in df.columns:
        raise InputError(
            f"{args.test} has no human-label column {args.human!r}: without --calibration the "
            "file is read as one items file (every item judged, the human label blank where "
            "unlabelled); give --human, or --calibration for a separate calibration file",
            field="human",
            value=args.human,
        )
    return AccuracyStudy.from_items(df, **common, **design, estimand=estimand)
