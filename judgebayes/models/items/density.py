"""The items model's log density in numpy, for the Laplace engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import betaln, gammaln

from judgebayes.models.accuracy.parts import COUNTS
from judgebayes.models.accuracy.priors import AccuracyPriors

if TYPE_CHECKING:  # pragma: no cover
    pass


class ItemsLogDensity:
    r"""The log density of :func:`items_accuracy_model` in numpy, on PyMC's unconstrained
    scale, for the Laplace engine (``better_than_chance=False``, the model's default).

    The parameter vector :math:`x` holds the logits of ``theta_stratum`` (system x
    stratum), then of ``q0`` and ``q1`` (system x stratum, or stratum with
    ``judge_rates="shared"``).  With :math:`u = \mathrm{logistic}(x)` each Beta(a, b)
    prior contributes, Jacobian included,
    :math:`a\log u + b\log(1-u) - \log B(a, b)`, and the four binomial terms of the
    model's likelihood are written with their coefficients, so :meth:`logp` equals PyMC's
    ``model.compile_logp(jacobian=True)`` (a test checks it to 1e-9 at random points).
    The gradient is analytic.  Why it exists: the model is a handful of cells, and
    compiling its PyTensor graph costs seconds in a fresh process where this costs
    nothing (BENCHMARKS.md, items design).
    """

    def __init__(
        self,
        k,
        n,
        tp,
        m1,
        tn,
        m0,
        share,
        *,
        systems: tuple[str, ...],
        strata: tuple[str, ...],
        judge_rates: str = "shared",
        priors: AccuracyPriors | None = None,
    ):

        self.shape = (len(systems), len(strata))
        counts = (k, n, tp, m1, tn, m0)
        self.c = {
            nm: np.asarray(v, dtype=float).reshape(self.shape)
            for nm, v in zip(COUNTS, counts, strict=True)
        }
        self.share = np.asarray(share, dtype=float).reshape(self.shape)
        self.shared = judge_rates == "shared"
        self.priors = priors or AccuracyPriors()
        self.systems, self.strata = tuple(systems), tuple(strata)
        ncell = self.shape[0] * self.shape[1]
        self.nq = len(strata) if self.shared else ncell
        self.size = ncell + 2 * self.nq

        def binomln(nn, kk):
            return gammaln(nn + 1) - gammaln(kk + 1) - gammaln(nn - kk + 1)

        pr, f = self.priors, self.c
        self.const = (
            np.sum(
                binomln(f["n"], f["k"])
                + binomln(f["m0"] + f["m1"], f["m1"])
                + binomln(f["m1"], f["tp"])
                + binomln(f["m0"], f["tn"])
            )
            - ncell * betaln(*pr.theta)
            - self.nq * (betaln(*pr.q0) + betaln(*pr.q1))
        )

        def logit_mean(ab):
            return np.log(ab[0] / ab[1])

        self.x0 = np.concatenate(
            [
                np.full(ncell, logit_mean(pr.theta)),
                np.full(self.nq, logit_mean(pr.q0)),
                np.full(self.nq, logit_mean(pr.q1)),
            ]
        )
        qdims = ("stratum",) if self.shared else ("system", "stratum")
        self.dims = {
            "theta_stratum": ["system", "stratum"],
            "q0": list(qdims),
            "q1": list(qdims),
            "theta": ["system"],
        }
        self.coords = {"system": list(systems), "stratum": list(strata)}

    def _split(self, x):
        x = np.asarray(x, dtype=float)
        ncell = self.shape[0] * self.shape[1]
        lead = x.shape[:-1]
        qshape = (*lead, 1, self.shape[1]) if self.shared else (*lead, *self.shape)
        return (
            x[..., :ncell].reshape(*lead, *self.shape),
            x[..., ncell : ncell + self.nq].reshape(qshape),
            x[..., ncell + self.nq :].reshape(qshape),
        )

    @staticmethod
    def _logs(x):
        """Log u, log(1 - u) for u = logistic(x), stably."""
        return -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)

    def logp(self, x) -> np.ndarray:
        """Log density at ``x`` (shape (..., size)), one value per leading index."""
        c, pr = self.c, self.priors
        xt, x0, x1 = self._split(x)
        (lt, lt_), (l0, l0_), (l1, l1_) = self._logs(xt), self._logs(x0), self._logs(x1)
        th, q0, q1 = np.exp(lt), np.exp(l0), np.exp(l1)
        p = th * q1 + (1 - th) * (1 - q0)
        with np.errstate(divide="ignore", invalid="ignore"):
            lik = (
                _xlogy(c["k"], p)
                + _xlogy(c["n"] - c["k"], 1 - p)
                + c["m1"] * lt
                + c["m0"] * lt_
                + c["tp"] * l1
                + (c["m1"] - c["tp"]) * l1_
                + c["tn"] * l0
                + (c["m0"] - c["tn"]) * l0_
            )
        prior = (
            (pr.theta[0] * lt + pr.theta[1] * lt_).sum((-2, -1))
            + (pr.q0[0] * l0 + pr.q0[1] * l0_).sum((-2, -1))
            + (pr.q1[0] * l1 + pr.q1[1] * l1_).sum((-2, -1))
        )
        return lik.sum((-2, -1)) + prior + self.const

    def grad(self, x) -> np.ndarray:
        """Gradient of :meth:`logp` at one point ``x`` (shape (size,))."""
        c, pr = self.c, self.priors
        xt, x0, x1 = self._split(x)
        th, q0, q1 = (1 / (1 + np.exp(-v)) for v in (xt, x0, x1))
        p = th * q1 + (1 - th) * (1 - q0)
        s = c["k"] / p - (c["n"] - c["k"]) / (1 - p)  # d/dp of the unlabelled verdicts
        g_th = s * (q1 + q0 - 1) + c["m1"] / th - c["m0"] / (1 - th)
        g_q1 = s * th + c["tp"] / q1 - (c["m1"] - c["tp"]) / (1 - q1)
        g_q0 = -s * (1 - th) + c["tn"] / q0 - (c["m0"] - c["tn"]) / (1 - q0)
        g_th = g_th * th * (1 - th) + pr.theta[0] * (1 - th) - pr.theta[1] * th
        if self.shared:
            g_q1, g_q0 = g_q1.sum(0, keepdims=True), g_q0.sum(0, keepdims=True)
        g_q1 = g_q1 * q1 * (1 - q1) + pr.q1[0] * (1 - q1) - pr.q1[1] * q1
        g_q0 = g_q0 * q0 * (1 - q0) + pr.q0[0] * (1 - q0) - pr.q0[1] * q0
        return np.concatenate([g_th.ravel(), g_q0.ravel(), g_q1.ravel()])

    def expand(self, x) -> dict[str, np.ndarray]:
        """The model's variables at draws ``x`` (shape (draws, size)), named as PyMC's."""
        xt, x0, x1 = self._split(x)
        th, q0, q1 = (1 / (1 + np.exp(-v)) for v in (xt, x0, x1))
        if self.shared:
            q0, q1 = q0[:, 0], q1[:, 0]
        return {
            "theta_stratum": th,
            "q0": q0,
            "q1": q1,
            "theta": (self.share * th).sum(-1),
        }


def _xlogy(a, b):
    """A log b, 0 where a is 0 (PyMC's ``logpow``)."""
    return np.where(a == 0, 0.0, a * np.log(np.where(a == 0, 1.0, b)))
