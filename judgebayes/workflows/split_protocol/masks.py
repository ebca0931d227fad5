"""The splits of the protocol and what it returns: calibration masks per group and
replicate, and the result of the sweep.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.data.accuracy import calibration_mask
from judgebayes.errors import InputError
from judgebayes.inference.registry import check_count
from judgebayes.results import interval_summary

SPLIT_METHODS = ("closed_form", "laplace", "nuts")


_LABELS = {
    "naive": "naive rate",
    "closed_form": "Rogan-Gladen + Lang-Reiczigel",
    "laplace": "Laplace",
    "nuts": "NUTS",
}


def split_masks(
    human: np.ndarray,
    n_splits: int,
    calibration_fraction: float,
    seed: int = 0,
    *,
    stratify: bool = True,
    start: int = 0,
) -> np.ndarray:
    """Calibration membership of splits ``start, ..., start + n_splits - 1``, shape
    ``(n_splits, n_items)``.

    Split ``s`` is drawn with ``numpy.random.default_rng([seed, s])``, so any one split can
    be reproduced alone.  With ``stratify=True`` each gold class gives
    ``round(calibration_fraction * size)`` items, at least 1 and at most ``size - 1``.
    """
    h = np.asarray(human)
    return np.stack(
        [
            calibration_mask(
                h, calibration_fraction, np.random.default_rng([seed, s]), stratify=stratify
            )
            for s in range(start, start + n_splits)
        ]
    )


@dataclass(frozen=True)
class SplitProtocolResult:
    r"""Per-split estimates (``splits``, long format) and the settings that made them.

    ``splits`` has one row per group x split x method (``naive`` included) with
    ``estimate, lower, upper, truth, n, m0, m1, defined`` (False where the closed form is
    undefined: calibration :math:`\hat q_0 + \hat q_1 \le 1`), ``passed`` (the split's fit
    passed its convergence gate or Laplace importance check) and ``failed`` (a defined
    split whose fit did not: counted, and summarised apart); ``groups`` one row per
    group with item counts, missing verdicts and the NUTS/Laplace run records; ``fits``
    the :class:`~judgebayes.studies.accuracy.AccuracyFit` of every (group, method), over
    the ``replicate`` dim (replicate ``s`` = split ``s``); with ``splits_per_fit``, of
    every (group, method, first split), replicate ``r`` being split ``first + r``, and
    ``groups`` adds the number of ``fits`` (its times, failures and divergences summed,
    the worst R-hat and smallest ESS over them).
    """

    splits: pd.DataFrame
    groups: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    fits: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)

    def summary(self) -> pd.DataFrame:
        """Per group x method: mean bias, mean absolute error, coverage, mean width.

        ``coverage`` and ``width`` are over the splits where the method gives an interval
        (``n_defined``); the naive rate has no interval.  ``n_passed``,
        ``coverage_passed``, ``width_passed`` and ``mae_passed`` are the same over the
        splits whose fit passed its gate.
        """
        return interval_summary(self.splits, ["group", "method"])

    def table(self) -> pd.DataFrame:
        """One row per group: naive bias, then bias / coverage / width per method."""
        s = self.summary()
        g = self.groups.set_index("group")
        rows = []
        for grp, part in s.groupby("group", sort=False):
            r: dict[str, Any] = {"group": grp, "items": int(g.loc[grp, "n_items"])}
            r["missing"] = int(g.loc[grp, "n_missing"])
            for rec in part.to_dict("records"):
                m = rec["method"]
                r[f"{m}_bias"] = rec["bias"]
                if m != "naive":
                    r[f"{m}_coverage"] = rec["coverage"]
                    r[f"{m}_width"] = rec["width"]
                if m in ("laplace", "nuts"):
                    # fits that failed their gate / importance check, and the coverage
                    # over the fits that passed, beside the numbers over all fits
                    sel = (self.splits["group"] == grp) & (self.splits["method"] == m)
                    r[f"{m}_failed"] = int(self.splits.loc[sel, "failed"].sum())
                    r[f"{m}_coverage_passed"] = rec["coverage_passed"]
                if m == "closed_form":
                    r["closed_form_undefined"] = int(rec["n_splits"] - rec["n_defined"])
            if "nuts_r_hat" in g.columns:
                r["nuts_r_hat"] = g.loc[grp, "nuts_r_hat"]
                r["nuts_divergences"] = int(g.loc[grp, "nuts_divergences"])
            rows.append(r)

        return pd.DataFrame(rows)


def split_counts(h: np.ndarray, j: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
    """Each split's calibration counts (masks: the calibration rows) and its test counts
    and true rate (the other rows).
    """
    cal, test = masks, ~masks
    pos, neg, jp = h == 1, h == 0, j == 1
    return {
        "m0": (cal & neg).sum(1),
        "tn": (cal & neg & ~jp).sum(1),
        "m1": (cal & pos).sum(1),
        "tp": (cal & pos & jp).sum(1),
        "n": test.sum(1),
        "k": (test & jp).sum(1),
        "truth": (test & pos).sum(1) / test.sum(1),
    }


def checked_splits(fraction, n_splits) -> int:
    """The number of splits, after the checks of the calibration fraction and of it."""
    if not 0 < float(fraction) < 1:
        raise InputError(
            f"calibration_fraction must lie in (0, 1); got {fraction!r}",
            field="calibration_fraction",
            value=fraction,
        )
    return check_count(n_splits, "n_splits")
