"""Arguments every command shares: seeds, counts, pairs, the method and sampler flags,
and the item files.
"""

from __future__ import annotations

import argparse


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
