r"""Panel baselines: individual validators, their mean, voting ensembles, plug-in correction.

All estimate generator precision :math:`g_i`.

``validator_mean``
    :math:`\frac1{|V_i|}\sum_j P_{ij}` over the validators that judged the generator.
``individual``
    each validator's own rate :math:`P_{ij}` (a G x V matrix).
``vote``
    from item-level verdicts, per output: ``k_valid`` and ``k_invalid`` votes among the
    validators that answered.  *Majority* (threshold t): valid iff ``k_valid >= t``, so a
    missing vote counts against validity; *minority veto* (t): invalid iff
    ``k_invalid >= t``, so a missing vote counts for validity (the paper's point: veto is
    robust to missing verdicts, super-majority is not).  The estimate is the generator's
    share of outputs labelled valid.
``choose_threshold``
    the t with the smallest maximum absolute error on the calibration generators.
``plug_in_rogan_gladen``
    each validator's rate corrected with its TPR/TNR measured on the calibration
    generators, :math:`(P_{ij} + v^-_j - 1)/(v^+_j + v^-_j - 1)` clipped to [0, 1], averaged
    over the validators whose :math:`v^+_j + v^-_j > 1`.
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.panel import PanelData
from judgebayes.errors import InputError
from judgebayes.inference.panel.regression import calibration_targets

__all__ = [
    "choose_threshold",
    "individual",
    "plug_in_rogan_gladen",
    "validator_mean",
    "vote",
    "vote_counts",
]


def validator_mean(panel: PanelData) -> np.ndarray:
    """Mean over validators of each generator's observed valid rate."""
    return np.nanmean(panel.rate, axis=1)


def individual(panel: PanelData) -> np.ndarray:
    """Each validator's valid rate per generator (G x V)."""
    return panel.rate


def vote_counts(panel: PanelData):
    """(generator index per output, k_valid, k_invalid) from the item-level verdicts."""
    if "votes" in panel.cache:
        return panel.cache["votes"]
    if panel.items is None:
        raise InputError(
            "voting ensembles need item-level verdicts (build the panel from items)",
            field="items",
            value=None,
        )
    df = panel.items
    y = df["verdict"].to_numpy(float)
    codes, outputs = np.unique(df["output"].to_numpy(), return_inverse=True)
    n_out = codes.size
    kv = np.bincount(outputs, weights=(y == 1), minlength=n_out)
    ki = np.bincount(outputs, weights=(y == 0), minlength=n_out)
    gmap = {g: i for i, g in enumerate(panel.generators)}
    gen = np.empty(n_out, dtype=np.int64)
    gen[outputs] = df["generator"].map(gmap).to_numpy()
    panel.cache["votes"] = (gen, kv, ki)
    return gen, kv, ki


def vote(panel: PanelData, rule: str, t: int, counts=None) -> np.ndarray:
    """Precision per generator under ``rule`` ("majority" or "veto") with threshold ``t``."""
    gen, kv, ki = vote_counts(panel) if counts is None else counts
    if rule == "majority":
        valid = kv >= t
    elif rule == "veto":
        valid = ki < t
    else:
        raise InputError(
            f"rule must be 'majority' or 'veto', got {rule!r}", field="rule", value=rule
        )
    G = len(panel.generators)
    return np.bincount(gen, weights=valid, minlength=G) / np.bincount(gen, minlength=G)


def choose_threshold(panel: PanelData, rule: str, calibration, truth, counts=None):
    """Threshold with the smallest max abs error on ``calibration`` (indices) against ``truth``."""
    counts = vote_counts(panel) if counts is None else counts
    V = len(panel.validators)
    cal = np.asarray(calibration, dtype=int)
    best_t, best = None, np.inf
    for t in range(1, V + 1):
        err = np.max(np.abs(vote(panel, rule, t, counts)[cal] - np.asarray(truth)[cal]))
        if err < best - 1e-12:
            best_t, best = t, err
    return best_t


def plug_in_rogan_gladen(panel: PanelData) -> np.ndarray:
    """Per-validator Rogan-Gladen correction with rates from the annotated generators."""
    _, _, tpr, tnr = calibration_targets(panel)
    J = tpr + tnr - 1
    ok = np.isfinite(J) & (J > 0)
    if not ok.any():
        return np.full(len(panel.generators), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.clip((panel.rate + tnr[None, :] - 1) / np.where(ok, J, 1.0)[None, :], 0, 1)
    return np.nanmean(np.where(ok[None, :], corr, np.nan), axis=1)
