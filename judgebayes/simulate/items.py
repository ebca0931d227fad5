r"""Item frames of the items design with known truth (every item judged, some labelled).

.. math::
    \theta_j \sim \mathrm{Beta}\Big(\mu\frac{1-\rho}{\rho}, (1-\mu)\frac{1-\rho}{\rho}\Big)
    \ \text{(cluster } j\text{; } \theta_j = \mu \text{ when } \rho = 0),\qquad
    h_i \sim \mathrm{Bernoulli}(\theta_{j(i)})

    v_i \mid h_i \sim \mathrm{Bernoulli}(h_i\,\mathrm{sens} + (1-h_i)(1-\mathrm{spec}))

so :math:`\rho` is the intra-cluster correlation of the human labels.  Labels are drawn
by simple random sampling of ``n_labelled`` items (``design="random"``) or, with
``design="verdict"``, ``n_labelled`` items split between the judge's positives and
negatives in the ratio ``positive_share``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.errors import InputError
from judgebayes.inference.accuracy.design import paired_joint
from judgebayes.inference.registry import check_count

__all__ = ["SimulatedItems", "simulate_items", "simulate_paired", "simulate_repeats"]


@dataclass(frozen=True)
class SimulatedItems:
    r"""A simulated item frame and its truth.

    Attributes
    ----------
    frame : pandas.DataFrame
        Columns ``item, cluster, judge, human`` (blank = unlabelled).
    theta : float
        The process rate :math:`\mu`.
    rate_items : float
        The realised rate over the frame's items.
    """

    frame: object
    theta: float
    rate_items: float


def simulate_items(
    n_items: int = 5000,
    theta: float = 0.6,
    sensitivity: float = 0.9,
    specificity: float = 0.7,
    n_labelled: int = 300,
    *,
    cluster_size: int = 1,
    icc: float = 0.0,
    design: str = "random",
    positive_share: float = 0.5,
    seed: int | np.random.Generator | None = None,
) -> SimulatedItems:
    """One frame of the items design (module docstring).

    Parameters
    ----------
    n_items : int
        Items judged (a multiple of ``cluster_size``).
    theta : float
        Process rate.
    sensitivity, specificity : float or sequence of float
        The judge's rates; sequences (one entry per judge) simulate several judges,
        independent given the true label, in columns ``judge_1 .. judge_J`` (and
        ``judge``, the first judge's).
    n_labelled : int
        Items labelled by humans.
    cluster_size, icc : int, float
        Items per cluster and the intra-cluster correlation of the labels.
    design : {"random", "verdict"}
        Simple random labelling, or stratified by the judge's verdict.
    positive_share : float
        ``design="verdict"``: share of the labels spent on judge-positives.
    seed : int or Generator
        Random seed.
    """
    if n_items % cluster_size or not 0 < n_labelled <= n_items:
        raise InputError(
            f"n_items ({n_items}) must be a multiple of cluster_size ({cluster_size}) and "
            f"0 < n_labelled ({n_labelled}) <= n_items",
            field="n_labelled",
            value=n_labelled,
        )
    if design not in ("random", "verdict"):
        raise InputError(
            f"design must be 'random' or 'verdict'; got {design!r}", field="design", value=design
        )
    rng = np.random.default_rng(seed)
    n_cl = n_items // cluster_size
    if icc > 0:
        k = (1 - icc) / icc
        th = rng.beta(theta * k, (1 - theta) * k, size=n_cl)
    else:
        th = np.full(n_cl, theta)
    cl = np.repeat(np.arange(n_cl), cluster_size)
    h = rng.random(n_items) < th[cl]
    sens = np.atleast_1d(np.asarray(sensitivity, dtype=float))
    spec = np.atleast_1d(np.asarray(specificity, dtype=float))
    if sens.shape != spec.shape:
        raise InputError(
            "sensitivity and specificity need one entry per judge each",
            field="specificity",
            value=spec.tolist(),
        )
    votes = [
        np.where(h, rng.random(n_items) < se, rng.random(n_items) < 1 - sp)
        for se, sp in zip(sens, spec, strict=True)
    ]
    v = votes[0]
    lab = np.zeros(n_items, bool)
    if design == "random":
        lab[rng.choice(n_items, n_labelled, replace=False)] = True
    else:
        pos, neg = np.flatnonzero(v), np.flatnonzero(~v)
        n_pos = min(len(pos), round(positive_share * n_labelled))
        n_neg = min(len(neg), n_labelled - n_pos)
        lab[rng.choice(pos, n_pos, replace=False)] = True
        lab[rng.choice(neg, n_neg, replace=False)] = True
    frame = pd.DataFrame(
        {
            "item": np.arange(n_items),
            "cluster": cl,
            "judge": v.astype(int),
            "human": np.where(lab, h.astype(float), np.nan),
        }
    )
    if len(votes) > 1:
        for j, vj in enumerate(votes, start=1):
            frame[f"judge_{j}"] = vj.astype(int)
    return SimulatedItems(frame, float(theta), float(h.mean()))


def simulate_paired(
    n_items: int,
    *,
    rate_a: float = 0.75,
    rate_b: float = 0.70,
    agreement: float = 0.9,
    sensitivity: float = 0.9,
    specificity: float = 0.8,
    labelled: float = 0.25,
    seed: int | None = None,
) -> tuple[pd.DataFrame, float, float]:
    r"""Two systems A and B answering the same ``n_items`` prompts, judged and partly labelled.

    Each prompt's pair of correctness labels is drawn from the 2 x 2 joint fixed by the
    two rates and the ``agreement`` (the share of prompts both get right or both wrong):
    :math:`P(1, 0) = (1 - g + r_a - r_b)/2`, :math:`P(0, 1) = (1 - g - r_a + r_b)/2`.  The
    judge scores each row independently given its label; a random ``labelled`` share of
    prompts is labelled on both systems.

    Returns
    -------
    (frame, process difference, realised difference)
        ``frame`` has ``prompt, system, judge, human`` (blank = unlabelled); the
        differences are A - B.
    """
    n_items = check_count(n_items, "n_items")
    joint = paired_joint(rate_a, rate_b, agreement)
    probs = np.array([joint[c] for c in ((1, 1), (1, 0), (0, 1), (0, 0))])
    rng = np.random.default_rng(seed)
    cell = rng.choice(4, size=n_items, p=probs / probs.sum())
    h = {"A": np.isin(cell, (0, 1)), "B": np.isin(cell, (0, 2))}
    lab = rng.random(n_items) < labelled
    parts = []
    for s in ("A", "B"):
        v = np.where(h[s], rng.random(n_items) < sensitivity, rng.random(n_items) > specificity)
        parts.append(
            pd.DataFrame(
                {
                    "prompt": np.arange(n_items),
                    "system": s,
                    "judge": v.astype(float),
                    "human": np.where(lab, h[s].astype(float), np.nan),
                }
            )
        )
    frame = pd.concat(parts, ignore_index=True)
    return frame, rate_a - rate_b, float(h["A"].mean() - h["B"].mean())


def simulate_repeats(
    n_prompts: int,
    generations: int = 4,
    runs: int = 3,
    *,
    mu: float = 0.3,
    sd_prompt: float = 1.0,
    sd_generation: float = 0.7,
    seed: int | None = None,
) -> tuple[pd.DataFrame, dict[str, float]]:
    r"""Repeated generations per prompt and repeated judge runs per generation.

    Generation :math:`g` of prompt :math:`i` passes each judge run with probability
    :math:`\mathrm{logit}^{-1}(\mu + s_p a_i + s_g b_{ig})`, :math:`a, b \sim N(0, 1)`.

    Returns
    -------
    (frame, truth)
        ``frame`` has ``prompt, generation, judge`` (one row per run); ``truth`` the
        population's variance components on the probability scale (``prompt``,
        ``generation``, ``judge run``) and ``rate``, integrated on a 4,000 x 4,000 grid of
        the two normals' quantiles.
    """
    from scipy.special import expit
    from scipy.stats import norm

    n_prompts = check_count(n_prompts, "n_prompts", 2)
    generations = check_count(generations, "generations")
    runs = check_count(runs, "runs")
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n_prompts)[:, None]
    p = expit(mu + sd_prompt * a + sd_generation * rng.normal(size=(n_prompts, generations)))
    y = rng.random((n_prompts, generations, runs)) < p[..., None]
    i, g, _ = np.meshgrid(
        np.arange(n_prompts), np.arange(generations), np.arange(runs), indexing="ij"
    )
    frame = pd.DataFrame(
        {"prompt": i.ravel(), "generation": g.ravel(), "judge": y.ravel().astype(int)}
    )
    z = norm.ppf((np.arange(4000) + 0.5) / 4000)
    grid = expit(mu + sd_prompt * z[:, None] + sd_generation * z[None, :])
    m = grid.mean(1)
    truth = {
        "prompt": float(m.var()),
        "generation": float(grid.var(1).mean()),
        "judge run": float((grid * (1 - grid)).mean()),
        "rate": float(m.mean()),
    }
    return frame, truth
