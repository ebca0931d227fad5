r"""Simulated accuracy data with known truth; Monte-Carlo coverage and SBC studies.

Accuracy setting (Lee et al., Sec. 8): a test set of ``n`` items with true accuracy
:math:`\theta` judged by a judge with specificity :math:`q_0` and sensitivity :math:`q_1`,

.. math:: k \sim \operatorname{Binomial}(n,\ \theta q_1 + (1-\theta)(1-q_0)),

and a calibration set that is either *stratified* by true class (``m0``, ``m1`` fixed by
design; :math:`tp \sim \operatorname{Bin}(m_1, q_1)`, :math:`tn \sim \operatorname{Bin}(m_0, q_0)`)
or a *random* sample of size ``m`` from a calibration distribution with its own accuracy
:math:`\theta_{cal}` (:math:`m_1 \sim \operatorname{Bin}(m, \theta_{cal})`; distribution shift
when :math:`\theta_{cal} \ne \theta`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from judgebayes.errors import InputError
from judgebayes.inference.accuracy import closed_form as cf

__all__ = [
    "SimulatedAccuracy",
    "accuracy_frames",
    "monte_carlo_study",
    "simulate_accuracy",
]


@dataclass(frozen=True)
class SimulatedAccuracy:
    """Count-level simulated data; arrays have shape ``param_shape + (reps,)``."""

    k: np.ndarray
    n: np.ndarray
    tp: np.ndarray
    m1: np.ndarray
    tn: np.ndarray
    m0: np.ndarray
    theta: np.ndarray
    q0: np.ndarray
    q1: np.ndarray
    theta_cal: np.ndarray
    design: str


def simulate_accuracy(
    theta: Any,
    q0: Any,
    q1: Any,
    n: Any,
    *,
    m0: Any = None,
    m1: Any = None,
    m: Any = None,
    theta_cal: Any = None,
    reps: int = 1,
    random_seed: Any = None,
) -> SimulatedAccuracy:
    r"""Simulate test and calibration counts, vectorised over parameters and replications.

    Give either ``m0`` and ``m1`` (stratified calibration design) or ``m`` (a random
    calibration sample whose accuracy is ``theta_cal``, default ``theta``).  All
    parameters broadcast together; ``reps`` replications are added as a last axis.

    Parameters
    ----------
    theta, q0, q1 : float or array
        True accuracy, specificity, sensitivity.
    n : int or array
        Test-set size.
    m0, m1 : int or array, optional
        Stratified calibration class sizes.
    m : int or array, optional
        Random calibration sample size.
    theta_cal : float or array, optional
        Accuracy of the calibration distribution (random design only).
    reps : int
        Replications.
    random_seed : int, Generator or None
        Seed for :func:`numpy.random.default_rng`.
    """
    rng = np.random.default_rng(random_seed)
    stratified = m0 is not None or m1 is not None
    if stratified and (m0 is None or m1 is None):
        raise InputError("give both m0 and m1 for a stratified calibration set", field="m0")
    if stratified == (m is not None):
        raise InputError(
            "give either m0 and m1 (stratified design) or m (random calibration sample)",
            field="m",
            value=m,
        )
    if stratified and theta_cal is not None:
        raise InputError(
            "theta_cal applies only to a random calibration sample (give m, not m0/m1)",
            field="theta_cal",
            value=theta_cal,
        )
    if int(reps) < 1:
        raise InputError(f"reps must be at least 1; got {reps!r}", field="reps", value=reps)
    for nm, v in (("theta", theta), ("q0", q0), ("q1", q1), ("theta_cal", theta_cal)):
        if v is not None and np.any(~((np.asarray(v) >= 0) & (np.asarray(v) <= 1))):
            raise InputError(f"{nm} must lie in [0, 1]; got {v!r}", field=nm, value=v)
    tc = theta if theta_cal is None else theta_cal
    parts = [theta, q0, q1, n, tc] + ([m0, m1] if stratified else [m])
    shape = (*np.broadcast_shapes(*(np.shape(x) for x in parts)), int(reps))

    def b(x):
        return np.broadcast_to(np.asarray(x)[..., None], shape)

    th, a0, a1, nn, tcb = b(theta), b(q0), b(q1), b(n).astype(np.int64), b(tc)
    p = th * a1 + (1 - th) * (1 - a0)
    k = rng.binomial(nn, p)
    if stratified:
        mm1, mm0 = b(m1).astype(np.int64), b(m0).astype(np.int64)
    else:
        mm = b(m).astype(np.int64)
        mm1 = rng.binomial(mm, tcb)
        mm0 = mm - mm1
    tp = rng.binomial(mm1, a1)
    tn = rng.binomial(mm0, a0)
    return SimulatedAccuracy(
        k=k,
        n=np.array(nn),
        tp=tp,
        m1=np.array(mm1),
        tn=tn,
        m0=np.array(mm0),
        theta=np.array(th),
        q0=np.array(a0),
        q1=np.array(a1),
        theta_cal=np.array(tcb),
        design="stratified" if stratified else "random",
    )


def accuracy_frames(
    theta: float,
    q0: float,
    q1: float,
    n: int,
    *,
    m0: int | None = None,
    m1: int | None = None,
    m: int | None = None,
    theta_cal: float | None = None,
    systems: dict[str, float] | None = None,
    random_seed: Any = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Item-level ``(test_df, calibration_df)`` for one simulated data set.

    ``test_df`` has columns ``system`` and ``judge`` (0/1); ``calibration_df`` has
    ``human`` and ``judge``.  ``systems`` maps system names to their true accuracies
    (default: one system named "A" with accuracy ``theta``).
    """
    rng = np.random.default_rng(random_seed)
    systems = systems or {"A": theta}
    rows = []
    for name, th in systems.items():
        z = rng.random(n) < th
        zh = np.where(z, rng.random(n) < q1, rng.random(n) >= q0)
        rows.append(pd.DataFrame({"system": name, "judge": zh.astype(int)}))
    test = pd.concat(rows, ignore_index=True)
    if m is not None:
        z = rng.random(m) < (theta if theta_cal is None else theta_cal)
    else:
        if m0 is None or m1 is None:
            raise InputError("give m, or both m0 and m1", field="m")
        z = np.r_[np.zeros(m0, bool), np.ones(m1, bool)]
    zh = np.where(z, rng.random(z.size) < q1, rng.random(z.size) >= q0)
    cal = pd.DataFrame({"human": z.astype(int), "judge": zh.astype(int)})
    return test, cal


_INTERVAL_METHODS = ("naive_wald", "naive_wilson", "lang_reiczigel", "difference", "ppi_plus_plus")
_POINT_METHODS = ("calibration_only", "conditional_calibration", "misclassification_adjusted")


def monte_carlo_study(
    theta: Any,
    q0: float,
    q1: float,
    n: int,
    *,
    m0: int | None = None,
    m1: int | None = None,
    m: int | None = None,
    theta_cal: Any = None,
    reps: int = 10_000,
    alpha: float = 0.05,
    random_seed: Any = None,
) -> xr.Dataset:
    r"""Coverage, mean width, bias and RMSE of the closed-form methods, in one vectorised call.

    ``theta`` (or ``theta_cal`` for a shift study, with scalar ``theta``) is the swept
    coordinate.  Methods: ``naive_wald``, ``naive_wilson``, ``lang_reiczigel`` (estimate:
    clipped Rogan-Gladen), ``difference`` and ``ppi_plus_plus`` (normal intervals),
    ``calibration_only`` (Wilson), ``conditional_calibration`` and
    ``misclassification_adjusted`` (unclipped Rogan-Gladen; point estimates only, NaN
    coverage).  Replicates where the calibrated judge is no better than chance are
    counted in ``n_invalid`` and excluded from that method's summaries.

    Returns
    -------
    xarray.Dataset
        dims ``(estimator, <swept>)`` (not "method": ``Dataset.sel(method=...)`` is
        xarray's keyword for inexact matching); variables ``coverage``, ``coverage_mcse``,
        ``mean_width``, ``bias``, ``bias_mcse``, ``rmse``, ``n_invalid``; attrs hold the
        settings.  ``ds.to_dataframe().reset_index()`` gives the tidy frame.
    """
    sweep_name = "theta_cal" if np.ndim(theta_cal) > 0 else "theta"
    sweep = np.atleast_1d(np.asarray(theta_cal if sweep_name == "theta_cal" else theta, float))
    th_arr = np.asarray(theta, float) if sweep_name == "theta_cal" else sweep
    sim = simulate_accuracy(
        th_arr,
        q0,
        q1,
        n,
        m0=m0,
        m1=m1,
        m=m,
        theta_cal=None
        if theta_cal is None
        else (sweep if sweep_name == "theta_cal" else theta_cal),
        reps=reps,
        random_seed=random_seed,
    )
    shape = sim.k.shape
    truth = np.broadcast_to(sim.theta, shape)
    k, nn, tp, mm1, tn, mm0 = sim.k, sim.n, sim.tp, sim.m1, sim.tn, sim.m0
    results = _estimators(k, nn, tp, mm1, tn, mm0, alpha)
    methods = list(results)
    out, n_invalid = _summaries(results, truth, shape, sweep.size)
    coords = {"estimator": methods, sweep_name: sweep}
    ds = xr.Dataset(
        {nm: (("estimator", sweep_name), arr) for nm, arr in out.items()}
        | {"n_invalid": (("estimator", sweep_name), n_invalid)},
        coords=coords,
    )
    ds.attrs.update(
        q0=q0,
        q1=q1,
        n=n,
        design=sim.design,
        m0=-1 if m0 is None else m0,
        m1=-1 if m1 is None else m1,
        m=-1 if m is None else m,
        reps=int(reps),
        alpha=alpha,
        random_seed=str(random_seed),
    )
    if sweep_name == "theta_cal":
        ds.attrs["theta"] = float(np.asarray(theta))
    return ds


def _estimators(k, nn, tp, mm1, tn, mm0, alpha: float) -> dict[str, tuple]:
    """Every closed-form estimator on the simulated counts: (estimate, lower, upper,
    invalid) per method, the bounds None for a point estimator.
    """
    shape = k.shape
    p_hat = k / nn
    # a random calibration draw may leave a class empty; those replicates are invalid
    empty = (mm1 == 0) | (mm0 == 0)
    s1, s0 = np.where(empty, 1, mm1), np.where(empty, 1, mm0)
    stp, stn = np.where(empty, 0, tp), np.where(empty, 0, tn)
    p_hat = k / nn
    results: dict[str, tuple] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cf.NotBetterThanChanceWarning)
        w = cf.wald_interval(k, nn, alpha)
        results["naive_wald"] = (p_hat, w[0], w[1], np.zeros(shape, bool))
        wi = cf.wilson_interval(k, nn, alpha)
        results["naive_wilson"] = (p_hat, wi[0], wi[1], np.zeros(shape, bool))
        lr = cf.lang_reiczigel_from_counts(k, nn, tp, mm1, tn, mm0, alpha)
        lr_bad = np.isnan(np.asarray(lr[0])) | empty
        results["lang_reiczigel"] = (lr.estimate, lr[0], lr[1], lr_bad)
        d = cf.difference_estimate(k, nn, tp, mm1, tn, mm0, alpha)
        results["difference"] = (d.estimate, d.lower, d.upper, np.zeros(shape, bool))
        pp, _ = cf.ppi_plus_plus(k, nn, tp, mm1, tn, mm0, alpha)
        results["ppi_plus_plus"] = (pp.estimate, pp.lower, pp.upper, np.zeros(shape, bool))
        co = cf.calibration_only_estimate(mm1, mm0, alpha)
        results["calibration_only"] = (co.estimate, co[0], co[1], np.zeros(shape, bool))
        cc = cf.conditional_calibration_estimate(k, nn, tp, mm1, tn, mm0)
        results["conditional_calibration"] = (cc, None, None, np.isnan(cc))
        ma = cf.misclassification_adjusted_estimate(k, nn, stp, s1, stn, s0, errors="nan")
        results["misclassification_adjusted"] = (ma, None, None, np.isnan(ma) | empty)

    return results


def _summaries(results: dict[str, tuple], truth, shape, n_sweep: int):
    """Coverage, width, bias and RMSE (with Monte-Carlo errors) of each method at each point
    of the sweep, and how many replicates each method could not serve.
    """
    sweep_size = n_sweep
    methods = list(results)
    out = {
        v: np.full((len(methods), sweep_size), np.nan)
        for v in ("coverage", "coverage_mcse", "mean_width", "bias", "bias_mcse", "rmse")
    }
    n_invalid = np.zeros((len(methods), sweep_size), np.int64)
    for i, meth in enumerate(methods):
        est, lo, hi, bad = results[meth]
        est = np.broadcast_to(np.asarray(est, float), shape).reshape(sweep_size, -1)
        bad = np.broadcast_to(bad, shape).reshape(sweep_size, -1)
        tr = truth.reshape(sweep_size, -1)
        ok = ~bad
        cnt = ok.sum(-1)
        n_invalid[i] = bad.sum(-1)
        err = np.where(ok, est - tr, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            bias = err.sum(-1) / cnt
            out["bias"][i] = bias
            out["bias_mcse"][i] = np.sqrt(
                ((err - bias[:, None]) ** 2 * ok).sum(-1) / (cnt - 1) / cnt
            )
            out["rmse"][i] = np.sqrt((err**2).sum(-1) / cnt)
            if lo is not None:
                lo = np.broadcast_to(np.asarray(lo, float), shape).reshape(sweep_size, -1)
                hi = np.broadcast_to(np.asarray(hi, float), shape).reshape(sweep_size, -1)
                cover = ok & (lo <= tr) & (tr <= hi)
                cov = cover.sum(-1) / cnt
                out["coverage"][i] = cov
                out["coverage_mcse"][i] = np.sqrt(cov * (1 - cov) / cnt)
                out["mean_width"][i] = np.where(ok, hi - lo, 0).sum(-1) / cnt
    return out, n_invalid
