r"""Anytime-valid confidence sequences and a drift test for a judge watched over time.

A fixed-sample interval is valid at one look; looked at after every batch it excludes the
truth far more often than its level says.  A confidence sequence :math:`(L_t, U_t)` holds at
every look at once: :math:`P(\exists t: \theta_t \notin [L_t, U_t]) \le \alpha`.

**Prediction-powered, per period (asymptotic).**  Period :math:`t` has :math:`N_t` judged
items, :math:`m_t` of them labelled at random.  With a power-tuning weight
:math:`\lambda_t` fixed before the period (from earlier periods' labels), the period's total
:math:`T_t = \sum_{i \in t} Y_i` is estimated without bias by

.. math::

    \hat T_t = \lambda_t \sum_{i \in t} f_i
      + \sum_{i \in t} \frac{R_i}{\pi_i} (Y_i - \lambda_t f_i),

whatever the judge does (:math:`f_i` its verdict, :math:`R_i` whether item :math:`i` was
labelled, :math:`\pi_i` its labelling probability: :math:`m_t / N_t` for a simple random
sample of the period, or given per item).  :math:`S_T = \sum_{t \le T} (\hat T_t - T_t)` is a
martingale over periods whose increments have the design variance :math:`v_t`
(:math:`N_t^2 (1 - m_t / N_t) s_t^2 / m_t`, :math:`s_t^2` the labelled residuals'
variance; :math:`\sum R_i (1 - \pi_i) r_i^2 / \pi_i^2` for Bernoulli labelling), so with
:math:`V_T = \sum_{t \le T} v_t` the Gaussian-mixture boundary of Waudby-Smith, Arbour,
Sinha, Kennedy and Ramdas (2024, *Ann. Statist.* 52, Thm 2.2) gives the two-sided sequence

.. math::

    \frac{\sum_{t \le T} \hat T_t \pm r(V_T)}{\sum_{t \le T} N_t}, \qquad
    r(V) = \sqrt{\frac{2 (V \rho^2 + 1)}{\rho^2}
      \log\frac{\sqrt{V \rho^2 + 1}}{\alpha}},

for the rate of all items so far; :math:`\rho` sets the intrinsic time at which it is
tightest.  The guarantee is asymptotic in the labels per period (each period's estimate
near normal, its variance consistently estimated) and needs no assumption on the judge.

**Without replacement (exact).**  A fixed set of :math:`N` items labelled one at a time in
random order: the hedged betting capital of Waudby-Smith and Ramdas (2020, *Confidence
sequences for sampling without replacement*, NeurIPS) is evaluated on every mean the
population can have (the lattice :math:`k / N`, or :math:`k / 2N` with the judge as a
control variate), so the sequence is exact, and intersected with the logically possible
range and over time (the target does not move).

**Drift.**  A change-point e-process against the judge's sensitivity and specificity
staying at their rates of the first periods, or a betting capital against a stated floor
(:func:`drift_alarm`): valid at every look, false-alarm rate at most :math:`\alpha` over an
unending run, and the evidence of a change grows without limit as labels after it
accumulate.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import signal, stats

__all__ = [
    "betting_sequence",
    "clopper_pearson",
    "drift_alarm",
    "drift_pvalue",
    "mixture_radius",
    "period_estimates",
    "tuning",
]


def tuning(target: float, alpha: float, *, one_sided: bool = False) -> float:
    r""":math:`\rho^2` that makes the mixture boundary tightest at intrinsic time ``target``
    (Waudby-Smith et al. 2024, eq. 2.8): :math:`(-2 \log a + \log(1 - 2 \log a)) / V^*`
    with :math:`a = \alpha` (two-sided) or :math:`2 \alpha` (one-sided).
    """
    a = 2.0 * alpha if one_sided else alpha
    log_term = -2.0 * math.log(a)
    return (log_term + math.log(log_term + 1.0)) / max(float(target), 1e-300)


def mixture_radius(V, alpha: float, rho2: float, *, one_sided: bool = False) -> np.ndarray:
    r"""The Gaussian-mixture boundary :math:`r(V)` for a martingale with intrinsic time
    ``V`` (the summed increment variances): :math:`|S| \le r(V)` at every time with
    probability :math:`1 - \alpha` (two-sided); ``one_sided`` gives the one-sided
    boundary :math:`\sqrt{2 (V\rho^2 + 1) / \rho^2 \, \log(1 + \sqrt{V \rho^2 + 1} /
    (2 \alpha))}` for one tail at level :math:`\alpha`.
    """
    V = np.asarray(V, dtype=float)
    s = V * rho2 + 1.0
    if one_sided:
        log = np.log1p(np.sqrt(s) / (2.0 * alpha))
    else:
        log = np.log(np.sqrt(s) / alpha)
    return np.sqrt(2.0 * s / rho2 * log)


def period_estimates(
    period: np.ndarray,
    f: np.ndarray,
    y: np.ndarray,
    prob: np.ndarray | None = None,
    *,
    power_tuning: bool = True,
) -> dict[str, np.ndarray]:
    r"""Each period's prediction-powered total :math:`\hat T_t`, its design variance
    :math:`v_t` and its weight :math:`\lambda_t` (module docstring).

    Parameters
    ----------
    period : int array
        Period codes 0..P-1 (in time order), one per item.
    f : array
        The judge's verdicts (0/1) or scores in [0, 1].
    y : array
        Human labels (0/1, or in [0, 1]); NaN = not labelled.
    prob : array, optional
        Each item's probability of being labelled (Bernoulli labelling); default: the
        labelled items are a simple random sample of their period.
    power_tuning : bool
        Choose :math:`\lambda_t` from earlier periods' labels (else 1 throughout).

    Returns
    -------
    dict
        ``total``, ``variance``, ``lam``, ``n`` (items), ``m`` (labels) per period, and
        ``valid`` (the period's estimate is design-unbiased and has a variance estimate:
        two or more labels under random sampling, any number under Bernoulli labelling).
    """
    P = int(period.max()) + 1 if period.size else 0
    lab = ~np.isnan(y)
    f = np.asarray(f, dtype=float)

    def per(x, where=lab):  # sums per period
        return np.bincount(period[where], weights=x, minlength=P)

    n = np.bincount(period, minlength=P).astype(float)
    fl, yl, pl = f[lab], y[lab], period[lab]
    m = np.bincount(pl, minlength=P).astype(float)
    # lambda_t: the labelled slope of y on f over periods before t (sums shifted by one),
    # clipped to [0, 1]; 1 with fewer than two earlier labels or no spread of the verdicts
    lam = np.ones(P)
    if power_tuning:
        sums = [
            np.concatenate([[0.0], np.cumsum(per(x))[:-1]])
            for x in (np.ones_like(fl), fl, yl, fl * fl, fl * yl)
        ]
        k, sf, sy, sff, sfy = sums
        with np.errstate(invalid="ignore", divide="ignore"):
            vf = sff - sf * sf / k
            slope = (sfy - sf * sy / k) / vf
        usable = (k >= 2) & (vf > 1e-12 * np.maximum(k, 1))
        lam = np.where(usable, np.clip(np.nan_to_num(slope), 0.0, 1.0), 1.0)
    r = yl - lam[pl] * fl
    judged = lam * np.bincount(period, weights=f, minlength=P)
    if prob is None:  # a simple random sample of m_t of the period's n_t items
        valid = m >= 2
        sr, srr = per(r), per(r * r)
        with np.errstate(invalid="ignore", divide="ignore"):
            var_r = (srr - sr * sr / m) / (m - 1)
            total = np.where(valid, judged + n / m * sr, 0.0)
            variance = np.where(valid, n**2 * (1.0 - m / n) * var_r / m, 0.0)
    else:  # Bernoulli labelling with known probabilities (Horvitz-Thompson)
        p_l = np.asarray(prob, dtype=float)[lab]
        valid = np.ones(P, dtype=bool)
        total = judged + per(r / p_l)
        variance = per((1.0 - p_l) * r * r / p_l**2)
    return {"total": total, "variance": variance, "lam": lam, "n": n, "m": m, "valid": valid}


def _predmix_bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """Predictable-mixture empirical-Bernstein bets (Waudby-Smith and Ramdas 2024, eq. 26)
    with one pseudo-observation at mean 1/2 and variance 1/4.
    """
    t = np.arange(1, x.size + 1, dtype=float)
    mu = np.minimum((0.5 + np.cumsum(x)) / (t + 1.0), 1.0)
    var = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1.0)
    var_prev = np.concatenate([[0.25], var[:-1]])
    return np.sqrt(2.0 * np.log(1.0 / alpha) / (t * np.log1p(t) * var_prev))


def betting_sequence(
    x: np.ndarray,
    population: int,
    alpha: float = 0.05,
    *,
    resolution: int | None = None,
    truncation: float = 0.5,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The hedged betting confidence sequence for the mean of a finite population of
    ``population`` values in [0, 1], observed one at a time in random order without
    replacement (Waudby-Smith and Ramdas 2020).

    For each candidate mean :math:`m` the conditional mean of the next draw is
    :math:`\mu_t(m) = (N m - S_{t-1}) / (N - t + 1)`; the capital
    :math:`\max(\tfrac12 \prod (1 + \lambda^+_i (x_i - \mu_i)),
    \tfrac12 \prod (1 - \lambda^-_i (x_i - \mu_i)))` with predictable-mixture bets
    truncated at ``truncation`` / :math:`\mu_i` (resp. / :math:`1 - \mu_i`) rejects
    :math:`m` once it reaches :math:`1/\alpha`.  Candidates are the lattice
    :math:`k / (N \cdot \text{resolution})` the mean can take (``resolution`` 1 for 0/1
    values; default 1 when every value is 0 or 1, else 1000 / N rounded up), so the
    sequence is exact rather than read off a grid; it is intersected over time and with
    the logically possible range (the unseen values are in [0, 1]).

    Returns
    -------
    lower, upper : arrays
        The sequence after each observation.
    """
    x = np.asarray(x, dtype=float)
    N = int(population)
    t = np.arange(1, x.size + 1, dtype=float)
    if resolution is None:
        binary = bool(np.all((x == 0) | (x == 1)))
        resolution = 1 if binary else max(1, math.ceil(1000 / N))
    grid = np.arange(N * resolution + 1) / (N * resolution)
    S_prev = np.concatenate([[0.0], np.cumsum(x)[:-1]])
    # mu[k, i]: the next draw's conditional mean if the population mean were grid[k]
    mu = (N * grid[:, None] - S_prev[None, :]) / (N - (t[None, :] - 1.0))
    bet = _predmix_bets(x, alpha / 2.0)[None, :]  # the same bets both ways, truncated apart
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.minimum(bet, truncation / mu)
        lp = np.maximum(lp, -truncation / (1.0 - mu))
        ln = np.minimum(bet, truncation / (1.0 - mu))
        ln = np.maximum(ln, -truncation / mu)
        dev = x[None, :] - mu
        log_pos = np.cumsum(np.log(np.maximum(1.0 + lp * dev, 0.0)), axis=1)
        log_neg = np.cumsum(np.log(np.maximum(1.0 - ln * dev, 0.0)), axis=1)
    capital = np.maximum(log_pos, log_neg) + np.log(0.5)
    impossible = (mu < 0.0) | (mu > 1.0)
    reject = np.maximum.accumulate((capital >= np.log(1.0 / alpha)) | impossible, axis=1)
    keep = ~reject
    any_kept = keep.any(axis=0)
    first = np.argmax(keep, axis=0)
    last = keep.shape[0] - 1 - np.argmax(keep[::-1], axis=0)
    lower = np.where(any_kept, grid[first], 0.0)
    upper = np.where(any_kept, grid[last], 1.0)
    S = np.cumsum(x)
    lower = np.maximum(lower, S / N)
    upper = np.minimum(upper, 1.0 - (t - S) / N)
    return np.maximum.accumulate(lower), np.minimum.accumulate(upper)


def clopper_pearson(k: float, n: float, a: float) -> tuple[float, float]:
    """One-sided exact bounds at level ``a`` each: (lower, upper)."""
    lower = 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))
    upper = 1.0 if k == n else float(stats.beta.ppf(1.0 - a, k + 1, n - k))
    return lower, upper


def _bets(x: np.ndarray, bound: float, down: bool, cap: float, memory: float) -> np.ndarray:
    r"""Predictable bets against ``mean >= bound`` (``down``) or ``mean <= bound``: the
    Kelly fraction for a Bernoulli whose mean is the recent hit rate :math:`\hat\mu` (an
    exponentially weighted mean over about ``memory`` observations, starting at the
    bound), :math:`(b - \hat\mu) / (b (1 - b))` down and :math:`(\hat\mu - b) / (b (1 -
    b))` up; 0 while the recent rate is on the null's side; at most ``cap`` times the
    largest bet that keeps the capital nonnegative.
    """
    w = 1.0 - 1.0 / memory
    # m_i = w m_{i-1} + (1 - w) x_i from m_0 = bound; the bet on x_i uses m_{i-1} only
    after, _ = signal.lfilter([1.0 - w], [1.0, -w], x, zi=[w * bound])
    mu = np.concatenate([[bound], after[:-1]])
    gap = (bound - mu) if down else (mu - bound)
    lam = np.maximum(gap, 0.0) / (bound * (1.0 - bound))
    most = 1.0 / (1.0 - bound) if down else 1.0 / bound
    return np.minimum(lam, cap * most)


def _change_evidence(
    hits: np.ndarray, per: np.ndarray, reference: int, n_periods: int
) -> tuple[np.ndarray, np.ndarray]:
    r"""The log of a sequential universal-inference e-process against "every hit of this
    class, in the reference periods and after them, has one rate", at the end of each
    period (its running maximum), and whether the rate after the likeliest change is below
    the rate before it.

    Numerator: a mixture over the period :math:`c \ge` ``reference`` at which the rate
    changed (prior weight :math:`1 / ((c - r + 1)(c - r + 2))`, summing to 1) of the
    Krichevsky-Trofimov (Beta(1/2, 1/2)) sequential probabilities of the hits before
    :math:`c` and, separately, of those from :math:`c` on; each is a product of
    predictable probabilities, and so is their mixture.  Denominator: the likelihood of
    every hit so far at their pooled maximum-likelihood rate, at least the likelihood at
    the true rate, so the ratio is at most a nonnegative martingale under the null and by
    Ville's inequality reaches :math:`1/a` with chance at most :math:`a` over the whole run
    (Wasserman, Ramdas and Balakrishnan, 2020, *PNAS* 117).
    """
    from scipy.special import betaln, logsumexp

    def kt(k, n):  # log KT probability of k hits in n
        return betaln(k + 0.5, n - k + 0.5) - betaln(0.5, 0.5)

    def loglik(k, n):  # log likelihood at the maximum-likelihood rate
        with np.errstate(divide="ignore", invalid="ignore"):
            p = k / n
            return np.where(k > 0, k * np.log(p), 0.0) + np.where(
                k < n, (n - k) * np.log1p(-p), 0.0
            )

    cum = np.concatenate([[0.0], np.cumsum(hits)])
    start = np.searchsorted(per, np.arange(n_periods), side="left")
    end = np.searchsorted(per, np.arange(n_periods), side="right")
    log_e = np.full(n_periods, -np.inf)
    down = np.zeros(n_periods, dtype=bool)
    for j in range(reference, n_periods):
        e = end[j]
        if e <= start[reference]:
            continue  # no hit after the reference yet
        c = np.arange(reference, j + 1)
        s = start[c]
        k1, k2 = cum[s], cum[e] - cum[s]
        terms = -np.log((c - reference + 1.0) * (c - reference + 2.0)) + kt(k1, s) + kt(k2, e - s)
        log_e[j] = logsumexp(terms) - loglik(cum[e], float(e))
        best = int(np.argmax(terms))
        down[j] = k2[best] / max(e - s[best], 1) < k1[best] / max(s[best], 1)
    return np.maximum.accumulate(log_e), down


def drift_alarm(
    period: np.ndarray,
    f: np.ndarray,
    y: np.ndarray,
    n_periods: int,
    alpha: float,
    reference: int,
    *,
    floors: dict[str, float] | None = None,
    memory: float = 50.0,
) -> dict:
    r"""Has the judge's sensitivity or specificity moved?  Anytime-valid, false-alarm rate
    at most ``alpha`` over an unending run.

    Each rate (sensitivity on the human positives, specificity on the negatives) gets
    :math:`\alpha / 2`.  Every label of its class is a hit :math:`x_i` (the judge agreed
    with the human), in period order, and betting capitals

    .. math::

        K^{\downarrow}_n = \prod_{i \le n} (1 + \lambda_i (L - x_i)), \qquad
        K^{\uparrow}_n = \prod_{i \le n} (1 + \lambda_i (x_i - U)),

    with predictable bets :math:`\lambda_i \ge 0` (:func:`_bets`) are nonnegative
    supermartingales while the judge's rate stays at least :math:`L` (at most :math:`U`);
    by Ville's inequality a capital reaches :math:`1 / a` with chance at most :math:`a`.

    - With a stated ``floor`` for the rate (the lowest the user accepts): one capital
      :math:`K^{\downarrow}` with :math:`L` the floor over every label, alarm at
      :math:`2 / \alpha`.
    - Else against the first ``reference`` periods: the change-point e-process of
      :func:`_change_evidence` (one rate over the reference and every later label, against
      a rate that changed at some later period, in either direction), alarm at
      :math:`2 / \alpha`; ``bounds`` are then the reference rates' exact Clopper-Pearson
      bounds at :math:`\alpha / 4` each side, for display.

    Returns
    -------
    dict
        Per period: ``sens``, ``spec`` (the period's rates), ``evidence`` (the largest
        capital as a share of its alarm level: 1 = alarm), ``alarm`` (it has reached 1 by
        this period), ``which`` (e.g. ``"sensitivity down"``), and ``bounds`` (each rate's
        :math:`(L, U)`).
    """
    floors = dict(floors or {})
    labelled = ~np.isnan(y)
    p, f_, y_ = period[labelled], np.asarray(f)[labelled] >= 0.5, y[labelled] >= 0.5
    out: dict = {"sens": np.full(n_periods, np.nan), "spec": np.full(n_periods, np.nan)}
    bounds: dict[str, tuple[float, float]] = {}
    best = np.full(n_periods, -np.inf)
    which = np.full(n_periods, None, dtype=object)
    for cls, rate, name in ((True, "sens", "sensitivity"), (False, "spec", "specificity")):
        sel = y_ == cls
        per = p[sel]
        hits = (f_[sel] == cls).astype(float)
        order = np.argsort(per, kind="stable")
        per, hits = per[order], hits[order]
        k = np.bincount(per, weights=hits, minlength=n_periods)
        n = np.bincount(per, minlength=n_periods).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[rate] = k / n
        if name not in floors:
            ref = per < reference
            if not ref.any():
                continue
            bounds[name] = clopper_pearson(float(hits[ref].sum()), float(ref.sum()), alpha / 4)
            if not (~ref).any():
                continue
            peak, lower = _change_evidence(hits, per, reference, n_periods)
            at = peak + np.log(alpha / 2.0)  # as a share of its alarm level 2 / alpha
            direction = np.where(lower, "down", "up")
            better = at > best
            best = np.where(better, at, best)
            which = np.where(better, np.char.add(f"{name} ", direction.astype(str)), which)
            continue
        tests = [(True, float(floors[name]), "down")]
        later = np.ones(per.size, dtype=bool)
        a = alpha / 2.0
        bounds[name] = (float(floors[name]), 1.0)
        x, xp = hits[later], per[later]
        if x.size == 0:
            continue
        ends = np.searchsorted(xp, np.arange(n_periods), side="right") - 1
        for down, bound, label in tests:
            if (down and bound <= 0.0) or (not down and bound >= 1.0):
                continue  # no rate falls below 0 or rises above 1
            lam = _bets(x, bound, down, 0.5, memory)
            step = (bound - x) if down else (x - bound)
            # log of the capital as a share of its alarm level 1 / a, its running maximum
            peak = np.maximum.accumulate(np.cumsum(np.log1p(lam * step))) + np.log(a)
            at = np.where(ends >= 0, peak[np.maximum(ends, 0)], -np.inf)
            better = at > best
            best = np.where(better, at, best)
            which = np.where(better, f"{name} {label}", which)
    out["evidence"] = np.where(np.isfinite(best), np.exp(best), np.nan)
    out["alarm"] = best >= 0.0
    out["which"] = which
    out["bounds"] = bounds
    return out


def drift_pvalue(
    period: np.ndarray,
    f: np.ndarray,
    y: np.ndarray,
    n_periods: int,
    reference: int,
    *,
    floors: dict[str, float] | None = None,
) -> float:
    r"""The smallest ``alpha`` at which :func:`drift_alarm` sounds by the last period (an
    anytime-valid p-value of "the judge's rates did not move"; 1 when it never would).

    The alarm is monotone in ``alpha`` (a smaller one widens the reference bounds and
    raises the capitals' bar), so the value is found by bisection on :math:`\log \alpha`.
    """

    def sounds(a: float) -> bool:
        return bool(drift_alarm(period, f, y, n_periods, a, reference, floors=floors)["alarm"][-1])

    if not sounds(0.999):
        return 1.0
    lo, hi = math.log(1e-12), math.log(0.999)
    if sounds(math.exp(lo)):
        return 1e-12
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if sounds(math.exp(mid)) else (mid, hi)
    return float(math.exp(hi))
