"""The hierarchical model of repeated verdicts on the same prompts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgebayes.models.accuracy.parts import GH_NODES
from judgebayes.models.accuracy.priors import AccuracyPriors
from judgebayes.models.simplex import dirichlet

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm


def repeated_verdicts_model(
    k: np.ndarray,
    runs: np.ndarray,
    prompt: np.ndarray,
    *,
    n_prompts: int,
    priors: AccuracyPriors | None = None,
) -> pm.Model:
    r"""Repeated generations per prompt and repeated judge runs per generation.

    Generation :math:`g` of prompt :math:`i` passes one judge run with probability

    .. math::
        \mathrm{logit}\,p_{ig} = \mu + \sigma_\text{prompt} a_i + \sigma_\text{gen} b_{ig},
        \qquad a_i, b_{ig} \sim N(0, 1),\qquad k_{ig} \sim \mathrm{Bin}(r_{ig}, p_{ig}),

    with :math:`k_{ig}` passes in :math:`r_{ig}` runs (runs independent given the
    generation: the judge's run-to-run noise is the binomial's).  The variance of one
    verdict splits on the probability scale into prompts
    (:math:`\mathrm{Var}_i\,E_g[p_{ig}]`), generations within a prompt
    (:math:`E_i\,\mathrm{Var}_g[p_{ig}]`) and judge runs (:math:`E[p(1 - p)]`).  The
    normal prompt effect is a prior that pools the prompts, not a claim about their
    population: the components average over the observed prompts' own effects with
    Bayesian-bootstrap weights :math:`\pi \sim \mathrm{Dirichlet}(1, \dots, 1)`
    (``prompt_weight``, free of the data), so a population of easy and hard prompts is
    not read through a normal's shape.  Per prompt, :math:`m_i = E_g[p_{ig}]` and
    :math:`s_i = E_g[p_{ig}^2]` by Gauss-Hermite over the generation effect;
    :math:`\text{rate} = \sum_i \pi_i m_i`, ``var_prompt`` :math:`= \frac{I+1}{I-1}\sum_i
    \pi_i (m_i - \text{rate})^2` (the factor makes its mean the :math:`I` prompts' sample
    variance), ``var_generation`` :math:`= \sum_i \pi_i (s_i - m_i^2)`, ``var_judge``
    :math:`= \sum_i \pi_i (m_i - s_i)`.  With prompts whose logit difficulty sits at two
    extremes, integrating over the fitted normal instead missed the prompt and judge-run
    components (BENCHMARKS.md, repeats).  Priors:
    :math:`\mu \sim N(m_\mu, s_\mu)` (``cluster_mu``), both sds
    :math:`\mathrm{HalfNormal}(s_\sigma)` (``cluster_sigma``).

    Parameters
    ----------
    k, runs : array of int, shape (n_generations,)
        Passes and judge runs of each generation.
    prompt : array of int, shape (n_generations,)
        Each generation's prompt code (0 .. n_prompts - 1).
    n_prompts : int
        Number of prompts.
    priors : AccuracyPriors
        ``cluster_mu``, ``cluster_sigma``.

    Returns
    -------
    pm.Model
        ``mu``, ``sigma_prompt``, ``sigma_generation``, ``rate``, ``var_prompt``,
        ``var_generation``, ``var_judge`` and the three together as ``variance``
        (component: prompt, generation, judge run).
    """
    import pymc as pm
    import pytensor.tensor as pt

    priors = priors or AccuracyPriors()
    k = np.asarray(k, dtype=np.int64)
    x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
    w = w / w.sum()
    components = ["prompt", "generation", "judge run"]
    with pm.Model(coords={"component": components}) as model:
        kd = pm.Data("k", k)
        rd = pm.Data("runs", np.asarray(runs, dtype=np.int64))
        mu = pm.Normal("mu", *priors.cluster_mu)
        s_p = pm.HalfNormal("sigma_prompt", priors.cluster_sigma)
        s_g = pm.HalfNormal("sigma_generation", priors.cluster_sigma)
        a = pm.Normal("a", 0.0, 1.0, shape=n_prompts)
        b = pm.Normal("b", 0.0, 1.0, shape=k.size)
        eta = mu + s_p * a[np.asarray(prompt, dtype=np.int64)] + s_g * b
        pm.Binomial("k_obs", n=rd, p=pm.math.invlogit(eta), observed=kd)
        # p at every (observed prompt, generation node): (n_prompts, K)
        grid = pm.math.invlogit(mu + s_p * a[:, None] + s_g * x[None, :])
        wg = pt.as_tensor(w)
        m_prompt = (grid * wg[None, :]).sum(1)  # E_g p of each prompt
        second = (grid**2 * wg[None, :]).sum(1)  # E_g p^2
        pi = dirichlet(pm, "prompt_weight", np.ones(n_prompts))
        rate = pm.Deterministic("rate", (pi * m_prompt).sum())
        # the weighted variance's mean is (I - 1)/(I + 1) of the prompts' sample variance
        shrink = (n_prompts + 1) / max(n_prompts - 1, 1)
        v_p = pm.Deterministic("var_prompt", shrink * (pi * (m_prompt - rate) ** 2).sum())
        v_g = pm.Deterministic("var_generation", (pi * (second - m_prompt**2)).sum())
        v_j = pm.Deterministic("var_judge", (pi * (m_prompt - second)).sum())
        pm.Deterministic("variance", pt.stack([v_p, v_g, v_j]), dims="component")
    return model
