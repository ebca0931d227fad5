r"""The pooled-strata model: the judge's rates per stratum, partially pooled.

Pooled strata (variant d)
-------------------------
.. math::
    \mathrm{logit}\,q_{c,t} = \mu_c + \sigma_c z_{c,t},\quad z_{c,t}\sim N(0,1),\quad
    \mu_c \sim N(\mu_0, s_0),\ \sigma_c \sim \mathrm{HalfNormal}(s_\sigma)

    k_{s,t} \sim \mathrm{Binomial}(n_{s,t},\ \theta_{s,t} q_{1,t} + (1-\theta_{s,t})(1-q_{0,t})),
    \qquad \theta_s = \sum_t w_{s,t}\theta_{s,t},\ w_{s,t} = n_{s,t}/\textstyle\sum_t n_{s,t}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.errors import InputError
from judgebayes.models.accuracy.priors import AccuracyPriors

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def stratified_accuracy_model(
    k: np.ndarray,
    n: np.ndarray,
    tp: np.ndarray,
    m1: np.ndarray,
    tn: np.ndarray,
    m0: np.ndarray,
    *,
    systems: tuple[str, ...],
    strata: tuple[str, ...],
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    """Calibration strata with partially pooled judge rates (variant d).

    Parameters
    ----------
    k, n : array of int, shape (n_systems, n_strata)
        Test counts per system and stratum.
    tp, m1, tn, m0 : array of int, shape (n_strata,)
        Calibration counts per stratum (a stratum may lack one class: pooling fills in).
    systems, strata : tuple of str
        Coordinates of the ``system`` and ``stratum`` dims.
    priors : AccuracyPriors
        Prior settings (``strata_mu``, ``strata_sigma`` for the population).

    Returns
    -------
    pm.Model
        ``theta`` (dim ``system``: accuracy over the test set's stratum shares),
        ``theta_stratum`` (``system, stratum``), ``q0``/``q1`` (``stratum``), population
        parameters ``mu_q0, sigma_q0, mu_q1, sigma_q1`` and non-centred ``z_q0, z_q1``.
    """
    import pymc as pm

    priors = priors or AccuracyPriors()
    shape = (len(systems), len(strata))
    k = np.asarray(k, dtype=np.int64).reshape(shape)
    n = np.asarray(n, dtype=np.int64).reshape(shape)
    tot = n.sum(1, keepdims=True)
    if np.any(tot == 0):
        raise InputError("a system has no judged test items", field="n", value=0)
    w = n / tot
    coords = {"system": list(systems), "stratum": list(strata)}
    with pm.Model(coords=coords) as model:
        k_d = pm.Data("k", k, dims=("system", "stratum"))
        n_d = pm.Data("n", n, dims=("system", "stratum"))
        w_d = pm.Data("weights", w, dims=("system", "stratum"))
        cal = {
            nm: pm.Data(nm, np.asarray(v, dtype=np.int64).reshape(len(strata)), dims="stratum")
            for nm, v in (("tp", tp), ("m1", m1), ("tn", tn), ("m0", m0))
        }
        rates = {}
        for c in ("q0", "q1"):
            mu = pm.Normal(f"mu_{c}", *priors.strata_mu)
            sigma = pm.HalfNormal(f"sigma_{c}", priors.strata_sigma)
            z = pm.Normal(f"z_{c}", 0.0, 1.0, dims="stratum")
            rates[c] = pm.Deterministic(c, pm.math.invlogit(mu + sigma * z), dims="stratum")
        q0, q1 = rates["q0"], rates["q1"]
        theta_st = pm.Beta("theta_stratum", *priors.theta, dims=("system", "stratum"))
        p = theta_st * q1[None, :] + (1 - theta_st) * (1 - q0[None, :])
        pm.Binomial("k_obs", n=n_d, p=p, observed=k_d, dims=("system", "stratum"))
        pm.Binomial("tp_obs", n=cal["m1"], p=q1, observed=cal["tp"], dims="stratum")
        pm.Binomial("tn_obs", n=cal["m0"], p=q0, observed=cal["tn"], dims="stratum")
        pm.Deterministic("theta", (theta_st * w_d).sum(axis=1), dims="system")
    return model
