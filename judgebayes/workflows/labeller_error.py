r"""What a fit's interval says about the truth when the labeller errs: sensitivity intervals.

Every estimator here treats the human label as the truth, so what it estimates is the
labeller's rate :math:`\phi = P(H = 1)`.  A labeller who calls a truly negative item positive
with probability :math:`e_0` and misses a truly positive one with probability :math:`e_1`
gives

.. math::

    \phi = \theta (1 - e_1) + (1 - \theta) e_0
    \quad\Longrightarrow\quad
    \theta = \frac{\phi - e_0}{1 - e_0 - e_1},

increasing in :math:`\phi` for a labeller better than chance (:math:`e_0 + e_1 < 1`).  With the
error rates known only to lie in a stated box, :math:`\theta` is partially identified; the
union over the box of the mapped interval :math:`[g(\phi_{lo}), g(\phi_{hi})]` covers
:math:`\theta` whenever the interval for :math:`\phi` covers :math:`\phi` and the true rates lie
in the box (the map is monotone in :math:`\phi` and linear-fractional in each rate, so the
union's ends are at the box's corners).  A difference between two systems labelled by the
same labeller maps as :math:`d_\theta = d_\phi / (1 - e_0 - e_1)`.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from judgebayes.errors import InputError

__all__ = ["human_error_contrasts", "human_error_interval", "labeller_error_box"]


def labeller_error_box(human_error) -> tuple[tuple[float, float], tuple[float, float]]:
    """``human_error=`` as ((e0_low, e0_high), (e1_low, e1_high)).

    A number ``eps``: both rates in [0, eps]; a pair ``(low, high)``: both in [low, high]; a
    mapping ``{"false_positive": ..., "false_negative": ...}`` with a number or a pair each.
    """

    def one(v, name):
        lo, hi = (0.0, v) if np.ndim(v) == 0 else tuple(v) if len(v) == 2 else (None, None)
        try:
            lo, hi = float(lo), float(hi)
        except (TypeError, ValueError):
            raise InputError(
                f"human_error ({name}): give a rate or a (low, high) pair; got {v!r}",
                field="human_error",
                value=v,
            ) from None
        if not 0 <= lo <= hi < 1:
            raise InputError(
                f"human_error ({name}): need 0 <= low <= high < 1; got ({lo}, {hi})",
                field="human_error",
                value=v,
            )
        return lo, hi

    if isinstance(human_error, dict):
        extra = set(human_error) - {"false_positive", "false_negative"}
        if extra:
            raise InputError(
                f"human_error keys are 'false_positive' and 'false_negative'; got {sorted(extra)}",
                field="human_error",
                value=sorted(extra),
            )
        e0 = one(human_error.get("false_positive", 0.0), "false_positive")
        e1 = one(human_error.get("false_negative", 0.0), "false_negative")
    else:
        e0 = e1 = one(human_error, "both")
    if e0[1] + e1[1] >= 1:
        raise InputError(
            f"human_error: a labeller with false-positive rate {e0[1]} and false-negative rate "
            f"{e1[1]} is no better than chance (they must add to less than 1)",
            field="human_error",
            value=human_error,
        )
    return e0, e1


def _corners(box):
    return np.array(list(itertools.product(*box)))  # (4, 2): e0, e1


#: the quantities that are a rate of a 0/1 human label
RATES = ("theta", "theta_items", "mu", "mu_items")


def _binary_fit(fit) -> None:
    quantity = getattr(fit, "quantity", None)
    if quantity not in RATES:
        raise InputError(
            f"human_error maps a rate of a 0/1 human label ({', '.join(RATES)}); this fit "
            f"reports {quantity!r}",
            field="human_error",
            value=quantity,
        )
    scale = (getattr(fit, "info", {}) or {}).get("human_scale")
    if scale is not None and tuple(scale) != (0, 1):
        raise InputError(
            "human_error applies to 0/1 human labels (a pass rate); these labels run "
            f"{scale[0]:g}-{scale[1]:g}: use threshold= for a pass rate",
            field="human_error",
            value=None,
        )


def human_error_interval(fit, human_error, alpha: float = 0.05) -> pd.DataFrame:
    r"""Each system's true rate when the labeller's error rates lie in ``human_error``.

    Parameters
    ----------
    fit : Fit
        Any fit whose quantity is a rate of the human label (the accuracy, items and
        thresholded scores designs).
    human_error : float, (low, high) or dict
        The labeller's false-positive and false-negative rates (:func:`labeller_error_box`).
    alpha : float
        1 - the level of the fit's interval that is mapped.

    Returns
    -------
    DataFrame
        Per system: ``labeller_estimate``, ``labeller_lower``, ``labeller_upper`` (the fit's
        own, for the labeller's rate); ``estimate_low``, ``estimate_high`` (the identified
        set of the point estimate over the box) and ``lower``, ``upper`` (the union of the
        mapped intervals: a sensitivity interval for the true rate), clipped to [0, 1].
    """
    _binary_fit(fit)
    box = labeller_error_box(human_error)
    t = fit.interval(alpha)
    c = _corners(box)
    e0, s = c[:, 0][None, :], (c[:, 0] + c[:, 1])[None, :]

    def g(phi):
        return (np.asarray(phi, float)[:, None] - e0) / (1 - s)

    est = g(t["estimate"])
    lo, hi = g(t["lower"]).min(axis=1), g(t["upper"]).max(axis=1)
    out = pd.DataFrame(
        {
            "labeller_estimate": t["estimate"].to_numpy(float),
            "labeller_lower": t["lower"].to_numpy(float),
            "labeller_upper": t["upper"].to_numpy(float),
            "estimate_low": np.clip(est.min(axis=1), 0, 1),
            "estimate_high": np.clip(est.max(axis=1), 0, 1),
            "lower": np.clip(lo, 0, 1),
            "upper": np.clip(hi, 0, 1),
        },
        index=t.index,
    )
    out.attrs["human_error"] = {"false_positive": box[0], "false_negative": box[1]}
    return out


def human_error_contrasts(fit, human_error, alpha: float = 0.05) -> pd.DataFrame:
    r"""Each pair's difference in true rates when one labeller, whose error rates lie in
    ``human_error``, labelled every system: :math:`d_\theta = d_\phi / (1 - e_0 - e_1)`, the
    union over the box of the fit's contrast interval so mapped.

    Returns the fit's :meth:`contrasts` table with ``lower`` / ``upper`` replaced by the
    sensitivity interval and the fit's own kept as ``labeller_lower`` / ``labeller_upper``.
    """
    _binary_fit(fit)
    box = labeller_error_box(human_error)
    t = fit.contrasts(alpha).copy()
    s = _corners(box).sum(axis=1)[None, :]
    lo = t["lower"].to_numpy(float)[:, None] / (1 - s)
    hi = t["upper"].to_numpy(float)[:, None] / (1 - s)
    t["labeller_lower"], t["labeller_upper"] = t["lower"], t["upper"]
    t["lower"], t["upper"] = lo.min(axis=1), hi.max(axis=1)
    t.attrs["human_error"] = {"false_positive": box[0], "false_negative": box[1]}
    return t
