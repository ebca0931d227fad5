r"""The binary model, and its replicates along a ``replicate`` dim with nothing shared.

Binary model (variants a-c)
---------------------------
.. math::
    \theta_s \sim \mathrm{Beta}(a_\theta, b_\theta),\quad
    q_0 \sim \mathrm{Beta}(a_0, b_0),\quad q_1 \sim \mathrm{Beta}(a_1, b_1)

    k_s \sim \mathrm{Binomial}(n_s,\ \theta_s q_1 + (1-\theta_s)(1-q_0))

    tp \sim \mathrm{Binomial}(m_1, q_1),\qquad tn \sim \mathrm{Binomial}(m_0, q_0)

Calibration design: ``"stratified"`` (m0, m1 fixed by design; the human labels say
nothing about theta), ``"random"`` (a random sample of the test distribution of one
system: additionally :math:`m_1 \sim \mathrm{Binomial}(m_0+m_1, \theta)`) or
``"shifted"`` (a random sample of another distribution:
:math:`m_1 \sim \mathrm{Binomial}(m_0+m_1, \theta_{cal})`, :math:`\theta_{cal}` its own
parameter).

The mirror: :math:`(\theta, q_0, q_1)` and :math:`(1-\theta, 1-q_1, 1-q_0)` give the same
judged rate, so with a handful of calibration labels the unrestricted posterior has a
second mode in which the judge is worse than chance (k = 96/120, tp 4/6, tn 3/6: 26% of
the mass, and a 95% interval for theta of [0.03, 0.99]).  The default
(``better_than_chance=True``) restricts the prior to :math:`q_0 + q_1 > 1`, the assumption
under which any misclassification correction (Rogan-Gladen included) is defined, through
the smooth map :math:`q_1 = u_1,\ q_0 = 1 - u_0 u_1` with :math:`u_0, u_1 \in (0, 1)`
(Jacobian :math:`u_1`), keeping the Beta prior densities: one mode, on which the exact,
Laplace and NUTS engines agree.  What the restriction excludes is reported, not hidden:
every binary fit carries :math:`P(q_0 + q_1 < 1 \mid \text{data})` under the unrestricted
prior (:func:`judgebayes.inference.accuracy.exact.mirror_probability`) and warns above 1%.


Independent replicates (split protocol)
---------------------------------------
The binary model (one system, stratified design) repeated along a ``replicate`` dim with
nothing shared: :math:`\theta_r, q_{0,r}, q_{1,r}` independent for every replicate
:math:`r`.  The joint posterior is the product of the per-replicate posteriors, so one
NUTS run (or one Laplace fit) gives every replicate's posterior at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.errors import InputError
from judgebayes.models.accuracy.parts import count_data, judged_and_labelled
from judgebayes.models.accuracy.priors import DESIGNS, AccuracyPriors, judge_rate_variables

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

    from judgebayes.models.accuracy.priors import Design


def binary_accuracy_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: int,
    m1: int,
    tn: int,
    m0: int,
    *,
    systems: tuple[str, ...],
    design: Design = "stratified",
    priors: AccuracyPriors | None = None,
    better_than_chance: bool = True,
) -> pm.Model:
    """Binary judge, one or several systems sharing one calibration set (variants a-c).

    Parameters
    ----------
    k, n : array of int, shape (n_systems,)
        Judged positive and judged in total, per system.
    tp, m1, tn, m0 : int
        Calibration confusion counts.
    systems : tuple of str
        Coordinate of the ``system`` dim.
    design : {"stratified", "random", "shifted"}
        Calibration design (module docstring); "random" needs exactly one system.
    priors : AccuracyPriors
        Prior settings (default Beta(1, 1) everywhere).
    better_than_chance : bool
        Restrict the prior to q0 + q1 > 1 (default; module docstring).

    Returns
    -------
    pm.Model
        Variables ``theta`` (dim ``system``), ``q0``, ``q1``, ``p`` (judge's positive rate,
        dim ``system``), ``theta_cal`` for the shifted design; data ``k, n, tp, m1, tn,
        m0``; observed ``k_obs, tp_obs, tn_obs`` (and ``m1_obs``).
    """
    import pymc as pm

    priors = priors or AccuracyPriors()
    if design not in DESIGNS:
        raise InputError(
            f"design must be one of {DESIGNS}; got {design!r}", field="design", value=design
        )
    if design == "random" and len(systems) != 1:
        raise InputError(
            "design='random' says the calibration set is a random sample of the test "
            f"distribution, which is defined for one system; got {len(systems)} systems "
            "(use 'shifted' or 'stratified')",
            field="design",
            value=design,
        )
    k = np.asarray(k, dtype=np.int64).reshape(len(systems))
    n = np.asarray(n, dtype=np.int64).reshape(len(systems))
    with pm.Model(coords={"system": list(systems)}) as model:
        k_d = pm.Data("k", k, dims="system")
        n_d = pm.Data("n", n, dims="system")
        tp_d = pm.Data("tp", np.int64(tp))
        m1_d = pm.Data("m1", np.int64(m1))
        tn_d = pm.Data("tn", np.int64(tn))
        m0_d = pm.Data("m0", np.int64(m0))
        theta = pm.Beta("theta", *priors.theta, dims="system")
        q0, q1 = judge_rate_variables(priors, better_than_chance)
        p = pm.Deterministic("p", theta * q1 + (1 - theta) * (1 - q0), dims="system")
        pm.Binomial("k_obs", n=n_d, p=p, observed=k_d, dims="system")
        pm.Binomial("tp_obs", n=m1_d, p=q1, observed=tp_d)
        pm.Binomial("tn_obs", n=m0_d, p=q0, observed=tn_d)
        if design == "random":
            pm.Binomial("m1_obs", n=m0_d + m1_d, p=theta[0], observed=m1_d)
        elif design == "shifted":
            theta_cal = pm.Beta("theta_cal", *priors.theta_cal)
            pm.Binomial("m1_obs", n=m0_d + m1_d, p=theta_cal, observed=m1_d)
    return model


def batched_accuracy_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    *,
    replicates: tuple[str, ...],
    priors: AccuracyPriors | None = None,
    better_than_chance: bool = True,
) -> pm.Model:
    r"""Independent binary accuracy problems along a ``replicate`` dim (split protocol).

    .. math::
        \theta_r \sim \mathrm{Beta}(a_\theta, b_\theta),\ q_{0,r} \sim \mathrm{Beta}(a_0, b_0),
        \ q_{1,r} \sim \mathrm{Beta}(a_1, b_1)

        k_r \sim \mathrm{Bin}(n_r, \theta_r q_{1,r} + (1-\theta_r)(1-q_{0,r})),\quad
        tp_r \sim \mathrm{Bin}(m_{1,r}, q_{1,r}),\quad tn_r \sim \mathrm{Bin}(m_{0,r}, q_{0,r})

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : array of int, shape (n_replicates,)
        Test and calibration counts of every replicate.
    replicates : tuple of str
        Coordinate of the ``replicate`` dim.
    priors : AccuracyPriors
        Beta priors of theta, q0, q1 (default uniform).
    better_than_chance : bool
        Restrict every replicate's prior to q0 + q1 > 1 (default), as the binary model.

    Returns
    -------
    pm.Model
        ``theta, q0, q1, p`` with dim ``replicate``; every log-density term has that dim,
        so the per-replicate log posterior is the sum of the terms.
    """
    import pymc as pm

    priors = priors or AccuracyPriors()
    counts = dict(k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
    with pm.Model(coords={"replicate": list(replicates)}) as model:
        d = count_data(len(replicates), "replicate", **counts)
        theta = pm.Beta("theta", *priors.theta, dims="replicate")
        q0, q1 = judge_rate_variables(priors, better_than_chance, dims="replicate")
        p = pm.Deterministic("p", theta * q1 + (1 - theta) * (1 - q0), dims="replicate")
        judged_and_labelled(d, p, None, q0, q1, "replicate")
    return model
