r"""Exact posterior of the binary accuracy model by quadrature, vectorised over datasets.

Model: :math:`\theta \sim U(0,1)`, :math:`q_c \sim \mathrm{Beta}(a_c, b_c)`,
:math:`k \sim \mathrm{Bin}(n, p)`, :math:`p = (1-q_0) + \theta(q_0+q_1-1)`, and stratified
calibration counts, so that :math:`q_0 \mid \mathrm{cal} \sim \mathrm{Beta}(a_0+tn, b_0+fp)`
and :math:`q_1 \mid \mathrm{cal} \sim \mathrm{Beta}(a_1+tp, b_1+fn)` a priori to the test data.

Given :math:`(q_0, q_1)`, :math:`p` is linear in :math:`\theta`, so the :math:`\theta`
integral of the binomial likelihood is closed-form:

.. math::
    \int_0^t \mathrm{Bin}(k\mid n, p(\theta))\,d\theta
    = \frac{I_{p(t)}(k+1, n-k+1) - I_{1-q_0}(k+1, n-k+1)}{(n+1)(q_0+q_1-1)}

with :math:`I` the regularised incomplete beta function.  The posterior CDF of
:math:`\theta` is then a ratio of two integrals over :math:`(q_0, q_1)`, which a tensor
Gauss-Legendre rule in the quantile space of the two Beta distributions evaluates
(``nodes`` per axis, default 64; accuracy below).
Quantiles come from vectorised bisection; the mean is closed-form per node.

``better_than_chance=True`` truncates the prior to :math:`q_0 + q_1 > 1`: the rule then
runs over :math:`q_1` and over :math:`q_0 \mid q_1` in the quantile space of its Beta
truncated to :math:`(1 - q_1, 1)`, weighted by that Beta's mass there, so the integrand
stays smooth and the rule as accurate as without the truncation.

:func:`mirror_probability` is the posterior mass of the mirror region
:math:`q_0 + q_1 < 1` under the unrestricted prior, from the same rule.

This is the reference NUTS is checked against, and what makes Bayesian coverage studies
over thousands of datasets take seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from judgebayes.data.accuracy import check_counts
from judgebayes.errors import InputError

__all__ = ["MIRROR_WARN", "ExactPosterior", "exact_posterior", "mirror_probability"]

MIRROR_WARN = 0.01
"""P(q0 + q1 < 1 | data) above which a binary fit warns (1%)."""


@dataclass(frozen=True)
class ExactPosterior:
    """Exact marginal posterior of theta for D datasets (arrays have a leading D axis)."""

    k: np.ndarray
    n: np.ndarray
    lo: np.ndarray  # (D, G*G): 1 - q0 at each node
    slope: np.ndarray  # (D, G*G): q0 + q1 - 1
    weight: np.ndarray  # (D, G*G): quadrature weight / slope (0 where truncated)
    z: np.ndarray  # (D,): normalising constant (up to 1/(n+1))
    scalar: bool
    upper: np.ndarray | None = None  # (D, G*G): integrate in the upper tail (precision)
    c_lo: np.ndarray | None = None  # (D, G*G): I or 1 - I at the node's lower end

    def _out(self, x):
        return float(x[0]) if self.scalar and np.ndim(x) == 1 else (x[0] if self.scalar else x)

    def _g(self, t: np.ndarray) -> np.ndarray:
        """Unnormalised CDF at t, shape (D, ...)."""
        a = (self.k + 1)[:, None]
        b = (self.n - self.k + 1)[:, None]
        t = np.asarray(t, dtype=float)
        extra = t.ndim - 1 if t.ndim else 0
        shp = (slice(None), slice(None)) + (None,) * extra
        tt = t[:, None, ...] if t.ndim else t
        x = np.clip(self.lo[shp] + tt * self.slope[shp], 0.0, 1.0)
        assert self.upper is not None and self.c_lo is not None  # the constructor sets both
        up = np.broadcast_to(self.upper[shp], x.shape)
        aa, bb = np.broadcast_to(a[shp], x.shape), np.broadcast_to(b[shp], x.shape)
        c = np.broadcast_to(self.c_lo[shp], x.shape)
        inc = np.empty(x.shape)
        # one incomplete-beta evaluation per node: the tail that keeps its precision
        inc[up] = c[up] - special.betaincc(aa[up], bb[up], x[up])
        lo_ = ~up
        inc[lo_] = special.betainc(aa[lo_], bb[lo_], x[lo_]) - c[lo_]
        return (self.weight[shp] * inc).sum(1)

    def cdf(self, t: Any) -> Any:
        """P(theta <= t | data); ``t`` scalar, shape (D,) or (D, L)."""
        t = np.asarray(t, dtype=float)
        if t.ndim == 0:
            t = np.full(self.k.shape, float(t))
        z = self.z.reshape((-1,) + (1,) * (t.ndim - 1))
        return self._out(np.clip(self._g(t) / z, 0.0, 1.0))

    def pdf(self, t: Any) -> Any:
        """Posterior density of theta at ``t`` (scalar or shape (D,))."""
        t = np.broadcast_to(np.asarray(t, dtype=float), self.k.shape)
        x = self.lo + t[:, None] * self.slope
        a = (self.k + 1)[:, None]
        b = (self.n - self.k + 1)[:, None]
        dens = stats.beta.pdf(np.clip(x, 0, 1), a, b) * self.slope
        return self._out((self.weight * dens).sum(1) / self.z)

    def quantile(self, prob: Any, tol: float = 1e-9) -> Any:
        """Posterior quantiles by vectorised bisection; ``prob`` scalar or shape (D,)."""
        prob = np.broadcast_to(np.asarray(prob, dtype=float), self.k.shape)
        lo = np.zeros(self.k.shape)
        hi = np.ones(self.k.shape)
        target = prob * self.z
        for _ in range(int(np.ceil(np.log2(1 / tol)))):
            mid = (lo + hi) / 2
            below = self._g(mid) < target
            lo = np.where(below, mid, lo)
            hi = np.where(below, hi, mid)
        return self._out((lo + hi) / 2)

    def interval(self, alpha: float = 0.05) -> tuple[Any, Any]:
        """Equal-tailed credible interval."""
        return self.quantile(alpha / 2), self.quantile(1 - alpha / 2)

    def mean(self) -> Any:
        r"""Posterior mean, closed form per node.

        With :math:`I'` the incomplete beta with parameters (k+2, n-k+1),
        :math:`\int_0^1 \theta\,\mathrm{Bin}\,d\theta \propto \big[\tfrac{k+1}{n+2}(I'_{hi}-I'_{lo})
        - (1-q_0)(I_{hi}-I_{lo})\big]/(q_0+q_1-1)^2`.
        """
        a = (self.k + 1)[:, None]
        b = (self.n - self.k + 1)[:, None]
        hi_x = self.lo + self.slope
        m = (
            a / (self.n + 2)[:, None] * _beta_mass(a + 1, b, self.lo, hi_x)
            - self.lo * _beta_mass(a, b, self.lo, hi_x)
        ) / self.slope
        return self._out((self.weight * m).sum(1) / self.z)

    def sample(self, size: int, random_seed: Any = None) -> np.ndarray:
        """Independent draws from the quadrature mixture, shape (D, size) (or (size,)).

        A node is drawn with probability proportional to its posterior mass, then theta
        from its conditional: p ~ Beta(k+1, n-k+1) truncated to the node's range,
        theta = (p - (1 - q0)) / (q0 + q1 - 1), by inverting the incomplete beta.
        """
        rng = np.random.default_rng(random_seed)
        a = (self.k + 1)[:, None]
        b = (self.n - self.k + 1)[:, None]
        d, g = self.lo.shape
        mass = np.clip(self.weight * _beta_mass(a, b, self.lo, self.lo + self.slope), 0, None)
        # node per draw, for all datasets at once: searchsorted on row-offset cumulative sums
        cum = np.cumsum(mass / mass.sum(1, keepdims=True), axis=1)
        cum[:, -1] = 1.0
        rows = np.arange(d)[:, None]
        j = np.searchsorted((cum + rows).ravel(), (rng.random((d, size)) + rows).ravel())
        j = np.minimum(j.reshape(d, size) - rows * g, g - 1)
        lo, s = np.take_along_axis(self.lo, j, 1), np.take_along_axis(self.slope, j, 1)
        x0, x1 = np.clip(lo, 0, 1), np.clip(lo + s, 0, 1)
        u = rng.random((d, size))
        up = np.take_along_axis(self.upper, j, 1)
        a, b = np.broadcast_to(a, up.shape), np.broadcast_to(b, up.shape)
        p = np.empty(up.shape)
        # invert the incomplete beta in the tail that keeps its precision
        c0, c1 = special.betaincc(a[up], b[up], x0[up]), special.betaincc(a[up], b[up], x1[up])
        p[up] = special.betainccinv(a[up], b[up], c0 + u[up] * (c1 - c0))
        lw = ~up
        i0, i1 = special.betainc(a[lw], b[lw], x0[lw]), special.betainc(a[lw], b[lw], x1[lw])
        p[lw] = special.betaincinv(a[lw], b[lw], i0 + u[lw] * (i1 - i0))
        out = np.clip((p - lo) / s, 0, 1)
        return out[0] if self.scalar else out


def _beta_mass(a, b, x0, x1):
    """P(x0 < X < x1) for X ~ Beta(a, b), signed (negative when x1 < x0), computed with the
    upper-tail complement where the lower tail would cancel to zero.
    """
    x0, x1 = np.clip(x0, 0.0, 1.0), np.clip(x1, 0.0, 1.0)
    upper = np.minimum(x0, x1) > a / (a + b)
    low = special.betainc(a, b, x1) - special.betainc(a, b, x0)
    high = special.betaincc(a, b, x0) - special.betaincc(a, b, x1)
    return np.where(upper, high, low)


def _nodes(tp, m1, tn, m0, q0_prior, q1_prior, truncate: bool, nodes: int):
    """Tensor Gauss-Legendre rule over (q0, q1) in the quantile space of their calibration
    Beta posteriors: ``(Q0, Q1, W)``, each (D, G*G), q0's node varying slowest.

    With ``truncate`` the rule covers q0 + q1 > 1 only: q0 given q1 runs over (1 - q1, 1) in
    the quantile space of its truncated Beta, so the integrand stays smooth:
    S(q0) = (1 - u) S(1 - q1), weight S(1 - q1).
    """
    x, w = np.polynomial.legendre.leggauss(int(nodes))
    u, w = (x + 1) / 2, w / 2
    g = int(nodes)
    a0, b0 = (q0_prior[0] + tn)[:, None], (q0_prior[1] + m0 - tn)[:, None]
    q1 = stats.beta.ppf(u[None, :], (q1_prior[0] + tp)[:, None], (q1_prior[1] + m1 - tp)[:, None])
    Q1 = np.tile(q1, (1, g))
    W = np.outer(w, w).ravel()[None, :]
    if truncate:
        tail = stats.beta.sf(1 - Q1, a0, b0)
        Q0 = stats.beta.isf((1 - np.repeat(u, g)[None, :]) * tail, a0, b0)
        Q0 = np.maximum(Q0, np.nextafter(1 - Q1, 2.0))
        return Q0, Q1, W * tail
    return np.repeat(stats.beta.ppf(u[None, :], a0, b0), g, axis=1), Q1, W


def exact_posterior(
    k: Any,
    n: Any,
    tp: Any,
    m1: Any,
    tn: Any,
    m0: Any,
    *,
    q0_prior: tuple[float, float] = (1.0, 1.0),
    q1_prior: tuple[float, float] = (1.0, 1.0),
    better_than_chance: bool = False,
    nodes: int = 64,
) -> ExactPosterior:
    """Exact posterior of theta in the stratified binary model, for one or many datasets.

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : int or array of shape (D,)
        Test and calibration counts.
    q0_prior, q1_prior : (float, float)
        Beta priors of specificity and sensitivity (theta's prior is uniform).
    better_than_chance : bool
        Truncate the prior to q0 + q1 > 1.
    nodes : int
        Gauss-Legendre nodes per axis.  The theta CDF is a sigmoid in (q0, q1) as sharp
        as the test set's binomial, so convergence is algebraic, not exponential:
        credible bounds move by about 1e-5 from 64 to 128 nodes and by about 4e-4
        from 16 to 64 (n = 1000, m0 = m1 = 100).  64 is the default for single data
        sets; the coverage study uses fewer, and reports the error it measured.
    """
    scalar = np.ndim(k) == 0
    k, n = check_counts("k", np.atleast_1d(k), np.atleast_1d(n), total_name="n")
    tp, m1 = check_counts("tp", np.atleast_1d(tp), np.atleast_1d(m1), total_name="m1")
    tn, m0 = check_counts("tn", np.atleast_1d(tn), np.atleast_1d(m0), total_name="m0")
    k, n, tp, m1, tn, m0 = np.broadcast_arrays(k, n, tp, m1, tn, m0)
    if np.any(n == 0):
        raise InputError("n must be positive for the exact posterior", field="n", value=0)
    Q0, Q1, W = _nodes(tp, m1, tn, m0, q0_prior, q1_prior, better_than_chance, nodes)
    slope = Q0 + Q1 - 1
    keep = (slope > 0) & (W > 0) if better_than_chance else slope != 0
    safe = np.where(keep, slope, 1.0)
    lo = 1 - Q0
    a, b = (k + 1)[:, None], (n - k + 1)[:, None]
    weight = np.where(keep, W / safe, 0.0)
    z = (weight * _beta_mass(a, b, lo, lo + safe)).sum(1)
    upper = (np.clip(lo, 0, 1) > a / (a + b)) & (safe > 0)
    c_lo = np.where(
        upper, special.betaincc(a, b, np.clip(lo, 0, 1)), special.betainc(a, b, np.clip(lo, 0, 1))
    )
    if np.any(~(z > 0)):
        i = int(np.argmax(~(z > 0)))
        raise InputError(
            f"the exact posterior of dataset {i} could not be normalised: its test count "
            f"k={k[i]:g} of n={n[i]:g} is far outside what its calibration counts allow, "
            "or (with better_than_chance) no quadrature node has q0 + q1 > 1; use NUTS",
            field="k",
            value=k[i],
        )
    return ExactPosterior(
        k=k.astype(float),
        n=n.astype(float),
        lo=lo,
        slope=safe,
        weight=weight,
        z=z,
        scalar=scalar,
        upper=upper,
        c_lo=c_lo,
    )


def _log_z(k, n, tp, m1, tn, m0, q0_prior, q1_prior, truncate: bool, nodes: int) -> np.ndarray:
    """Log of the (q0, q1) integral of prod_s int Bin(k_s | n_s, p) dtheta_s, per dataset.

    ``k, n``: (D, S); calibration counts: (D,).  Integrates against the calibration-updated
    Beta measure, over q0 + q1 > 1 when ``truncate``; constants common to both regions
    are dropped.
    """
    Q0, Q1, W = _nodes(tp, m1, tn, m0, q0_prior, q1_prior, truncate, nodes)
    with np.errstate(divide="ignore"):
        logw = np.log(W)
    slope = Q0 + Q1 - 1
    flat = np.abs(slope) < 1e-12
    safe = np.where(flat, 1.0, slope)
    lo = 1 - Q0
    total = logw
    for s_ in range(k.shape[1]):
        a, b = (k[:, s_] + 1)[:, None], (n[:, s_] - k[:, s_] + 1)[:, None]
        # int_0^1 Bin(k | n, lo + t slope) dt = mass / ((n + 1) slope); mass/slope > 0
        # on both sides of the line q0 + q1 = 1 (both are signed), and tends to the
        # Beta(k+1, n-k+1) density at lo on the line (a symmetric rule has nodes there)
        ratio = np.where(
            flat,
            stats.beta.pdf(np.clip(lo, 0, 1), a, b),
            _beta_mass(a, b, lo, lo + safe) / safe,
        )
        with np.errstate(divide="ignore"):
            total = total + np.log(np.maximum(ratio, 0.0))
    return special.logsumexp(total, axis=1)


def mirror_probability(
    k: Any,
    n: Any,
    tp: Any,
    m1: Any,
    tn: Any,
    m0: Any,
    *,
    q0_prior: tuple[float, float] = (1.0, 1.0),
    q1_prior: tuple[float, float] = (1.0, 1.0),
    nodes: int = 64,
) -> Any:
    r"""Posterior mass of the mirror region :math:`q_0 + q_1 < 1` under the unrestricted prior.

    .. math::
        P(q_0 + q_1 < 1 \mid y) = 1 - \frac{\int_{q_0+q_1>1} \pi(q_0, q_1 \mid \mathrm{cal})
        \prod_s \int_0^1 \mathrm{Bin}(k_s \mid n_s, p_s)\,d\theta_s}
        {\int \pi(q_0, q_1 \mid \mathrm{cal}) \prod_s \int_0^1 \mathrm{Bin}(k_s \mid n_s, p_s)
        \,d\theta_s}

    for systems :math:`s` sharing one stratified calibration set (uniform theta priors),
    both integrals by the rules of :func:`exact_posterior` (each smooth on its region).

    Parameters
    ----------
    k, n : int or array, shape (S,) or (D, S)
        Test counts of the S systems (of each of D datasets).
    tp, m1, tn, m0 : int or array of shape (D,)
        Calibration counts.
    q0_prior, q1_prior : (float, float)
        Beta priors of specificity and sensitivity.
    nodes : int
        Gauss-Legendre nodes per axis (0.26291 at 64 and 0.26291 at 128 nodes for the
        module's example).

    Returns
    -------
    float or ndarray of shape (D,)
        NaN where neither region has likelihood (a dataset the exact rule cannot hold).
    """
    scalar = np.ndim(tp) == 0
    k2 = np.atleast_2d(np.asarray(k, dtype=float))
    n2 = np.atleast_2d(np.asarray(n, dtype=float))
    cal = [np.atleast_1d(np.asarray(x, dtype=float)) for x in (tp, m1, tn, m0)]
    d = max(k2.shape[0], *(c.size for c in cal))
    k2, n2 = np.broadcast_to(k2, (d, k2.shape[1])), np.broadcast_to(n2, (d, n2.shape[1]))
    tp, m1, tn, m0 = (np.broadcast_to(c, (d,)) for c in cal)
    full = _log_z(k2, n2, tp, m1, tn, m0, q0_prior, q1_prior, False, nodes)
    trunc = _log_z(k2, n2, tp, m1, tn, m0, q0_prior, q1_prior, True, nodes)
    with np.errstate(invalid="ignore"):
        p = np.clip(-np.expm1(trunc - full), 0.0, 1.0)
    p = np.where(np.isfinite(full), p, np.nan)
    return float(p[0]) if scalar else p
