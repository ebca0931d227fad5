"""Pieces the accuracy builders share: the observed counts, the judged and labelled
likelihood terms, standardised covariates and the random walk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    pass


def _logit(p):
    """The logit of a PyTensor probability, as log p - log(1 - p) (stable near 0 and 1)."""
    import pytensor.tensor as pt

    return pt.log(p) - pt.log1p(-p)


COUNTS = ("k", "n", "tp", "m1", "tn", "m0")


def _count_data(shape, dims, **counts):
    """``pm.Data`` of the judged and labelled counts (:data:`COUNTS`), int64 of ``shape``."""
    import pymc as pm

    return {
        nm: pm.Data(nm, np.asarray(counts[nm], dtype=np.int64).reshape(shape), dims=dims)
        for nm in COUNTS
    }


def _judged_and_labelled(d, p, th, q0, q1, dims) -> None:
    """The items design's likelihood (:func:`items_accuracy_model`): judged positives of the
    unlabelled items, the labelled items' classes and their confusion counts.
    """
    import pymc as pm

    pm.Binomial("k_obs", n=d["n"], p=p, observed=d["k"], dims=dims)
    if th is not None:
        pm.Binomial("m1_obs", n=d["m0"] + d["m1"], p=th, observed=d["m1"], dims=dims)
    pm.Binomial("tp_obs", n=d["m1"], p=q1, observed=d["tp"], dims=dims)
    pm.Binomial("tn_obs", n=d["m0"], p=q0, observed=d["tn"], dims=dims)


def _walk(name: str, start: tuple[float, float], step: float, jump, shape_dims, dims):
    r"""A random walk on the logit scale over the last of ``dims`` (periods), non-centred:
    :math:`\eta_1 \sim N(\mu, s)`, :math:`\eta_t = \eta_{t-1} + \sigma z_t`,
    :math:`\sigma \sim \text{HalfNormal}(\text{step})`,
    :math:`z_t \sim (1 - w) N(0, 1) + w N(0, c^2)` with :math:`(w, c)` = ``jump``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    first = pm.Normal(f"{name}_start", start[0], start[1], dims=shape_dims)
    sigma = pm.HalfNormal(f"{name}_step", step)
    # heavy-ish tails from a two-normal mixture, summed out in the density: a Student t
    # drawn as normals over inverse-gamma variances left a latent scale per step whose
    # ridge with the step made rare divergences (7-10 of 100 fits missed the gate)
    w, c = jump
    z = pm.NormalMixture(
        f"{name}_z", w=np.array([1 - w, w]), mu=np.zeros(2), sigma=np.array([1.0, c]), dims=dims
    )
    moves = pt.concatenate([pt.zeros_like(z[..., :1]), pt.cumsum(z[..., 1:], axis=-1)], axis=-1)
    if shape_dims is None:
        return first + sigma * moves
    return first[..., None] + sigma * moves


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns of ``x`` centred and scaled by their sd (a constant column: scale 1)."""
    x = np.asarray(x, dtype=float)
    mu, sd = x.mean(0), x.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    return (x - mu) / sd, mu, sd


def _xlogy(a, b):
    """A log b, 0 where a is 0 (PyMC's ``logpow``)."""
    return np.where(a == 0, 0.0, a * np.log(np.where(a == 0, 1.0, b)))
