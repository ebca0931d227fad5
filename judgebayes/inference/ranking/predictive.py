r"""Posterior predictive checks of pairwise models: win matrix, order swaps, transitivity.

Replicated verdicts are drawn from the model at posterior draws :math:`s`: Bernoulli
:math:`\sigma(\eta_{rs})` for Bradley-Terry, or the three Davidson outcomes.  Three
statistics compare the observed verdicts with their replicates:

``win_matrix``
    :math:`T(y, s) = \sum_{\{i,j\}} (O_{ij} - E_{ijs})^2 / V_{ijs}`, over pairs with
    comparisons, where :math:`O_{ij}` is the first-listed item's score (wins + ties/2),
    :math:`E` and :math:`V` its mean and variance at draw :math:`s`.  A discrepancy with
    parameters (Gelman, Meng & Stern 1996): the p-value is
    :math:`\Pr(T(y^{rep}_s, s) \ge T(y, s))`.
``order_swap``
    Share of instances shown in both orders whose two verdicts pick the same item.
    The model treats the two orders as independent given the qualities, so an observed
    share far above the replicates' says the verdicts share an instance effect.
``intransitive``
    Directed 3-cycles of the majority graph (:math:`i \to j` when :math:`i` scored more
    than half of their comparisons), :math:`\operatorname{tr}(A^3)/3`.

Each row reports the observed value, the replicates' mean and equal-tailed interval,
and the two-sided posterior predictive p-value
:math:`2\min(\Pr(T^{rep} \ge T), \Pr(T^{rep} \le T))` (capped at 1).
"""

from __future__ import annotations

import numpy as np

__all__ = ["pair_index", "predictive_check_table", "replicate_outcomes"]


def pair_index(first: np.ndarray, second: np.ndarray, n_items: int):
    """Unordered pair of each comparison: ``(pair id, lo, hi, sign)`` where ``sign`` is
    +1 when the first-shown item is ``lo``.
    """
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    key = lo.astype(np.int64) * n_items + hi
    uniq, pid = np.unique(key, return_inverse=True)
    return pid, uniq // n_items, uniq % n_items, np.where(first == lo, 1.0, -1.0)


def replicate_outcomes(
    eta: np.ndarray, nu: np.ndarray | None, rng: np.random.Generator
) -> np.ndarray:
    """(S, n) replicated verdicts (1 first wins, 0 second wins, 0.5 tie)."""
    if nu is None:
        return (rng.random(eta.shape) < 1.0 / (1.0 + np.exp(-eta))).astype(float)
    u = np.stack([eta / 2, -eta / 2, np.broadcast_to(np.log(nu)[:, None], eta.shape)], -1)
    p = np.exp(u - np.logaddexp.reduce(u, axis=-1, keepdims=True))
    out = (rng.random(eta.shape)[..., None] > np.cumsum(p, -1)).sum(-1)
    return np.choose(np.minimum(out, 2), [1.0, 0.0, 0.5])


def _moments(eta: np.ndarray, nu: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of one verdict's score (1, 1/2 for a tie, 0)."""
    if nu is None:
        p = 1.0 / (1.0 + np.exp(-eta))
        return p, p * (1 - p)
    w, lo_, t = np.exp(eta / 2), np.exp(-eta / 2), nu[:, None]
    d = w + lo_ + t
    pw, pt = w / d, t / d
    m = pw + pt / 2
    return m, pw + pt / 4 - m**2


def _pair_scores(y, pid, sign, n_pairs):
    """Score of the lower-indexed item of each pair (wins + ties/2), per row of ``y``."""
    s = np.where(sign > 0, y, 1.0 - y)
    y2 = np.atleast_2d(s)
    out = np.zeros((y2.shape[0], n_pairs))
    for r in range(y2.shape[0]):
        out[r] = np.bincount(pid, weights=y2[r], minlength=n_pairs)
    return out


def _cycles(score, count, lo, hi, n_items):
    """Directed 3-cycles of the majority graph, per row of ``score``."""
    S = score.shape[0]
    out = np.zeros(S)
    for r in range(S):
        A = np.zeros((n_items, n_items))
        frac = score[r] / count
        A[lo[frac > 0.5], hi[frac > 0.5]] = 1.0
        A[hi[frac < 0.5], lo[frac < 0.5]] = 1.0
        out[r] = np.trace(A @ A @ A) / 3.0
    return out


def _swap_share(y, first, second, instance):
    """Share of both-order instances whose two verdicts pick the same item."""
    y2 = np.atleast_2d(y)
    key = instance.astype(np.int64)
    order = np.lexsort((first, key))
    k = key[order]
    f, sc = first[order], second[order]
    twin = np.flatnonzero((k[:-1] == k[1:]) & (f[:-1] == sc[1:]) & (sc[:-1] == f[1:]))
    if twin.size == 0:
        return None
    a, b = order[twin], order[twin + 1]
    decided = (y2[:, a] != 0.5) & (y2[:, b] != 0.5)
    # same item wins in both orders: first wins in one, second in the other
    same = decided & (y2[:, a] != y2[:, b])
    return same.sum(1) / np.maximum(decided.sum(1), 1), twin.size


def _row(name, obs, rep, per_draw_obs=None):
    lo, hi = np.quantile(rep, [0.025, 0.975])
    ref = obs if per_draw_obs is None else per_draw_obs
    ge, le = np.mean(rep >= ref), np.mean(rep <= ref)
    return {
        "statistic": name,
        "observed": float(np.mean(obs)),
        "predictive_mean": float(np.mean(rep)),
        "lower": float(lo),
        "upper": float(hi),
        "p_value": float(min(1.0, 2 * min(ge, le))) if per_draw_obs is None else float(ge),
    }


def predictive_check_table(
    y: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    n_items: int,
    eta: np.ndarray,
    nu: np.ndarray | None,
    rng: np.random.Generator,
    instance: np.ndarray | None = None,
):
    """Statistics table and per-pair table of a posterior predictive check.

    Parameters
    ----------
    y : ndarray, shape (n,)
        Observed verdicts (1, 0, 0.5).
    first, second : ndarray of int
        Presentation order.
    n_items : int
        Number of items.
    eta : ndarray, shape (S, n)
        Linear predictor at S posterior draws.
    nu : ndarray, shape (S,), optional
        Davidson tie parameter (None: Bradley-Terry).
    rng : Generator
        Source of the replicates.
    instance : ndarray of int, optional
        Instance id of each comparison (both orders of one instance share it).

    Returns
    -------
    (list of dict, dict)
        Rows of the statistics table and the per-pair arrays (``lo, hi, n, observed,
        lower, upper``: the lower-indexed item's score share and its 95% predictive
        interval).
    """
    yrep = replicate_outcomes(eta, nu, rng)
    pid, lo, hi, sign = pair_index(first, second, n_items)
    n_pairs = lo.size
    count = np.bincount(pid, minlength=n_pairs).astype(float)
    obs = _pair_scores(y, pid, sign, n_pairs)[0]
    rep = _pair_scores(yrep, pid, sign, n_pairs)
    m, v = _moments(eta, nu)
    m_lo = np.where(sign > 0, m, 1 - m)
    E = np.stack([np.bincount(pid, weights=row, minlength=n_pairs) for row in m_lo])
    V = np.stack([np.bincount(pid, weights=row, minlength=n_pairs) for row in v])
    V = np.maximum(V, 1e-12)
    t_obs = np.sum((obs[None] - E) ** 2 / V, axis=1)
    t_rep = np.sum((rep - E) ** 2 / V, axis=1)
    rows = [_row("win_matrix", t_obs, t_rep, per_draw_obs=t_obs)]
    if n_items <= 500:
        rows.append(
            _row(
                "intransitive",
                _cycles(obs[None], count, lo, hi, n_items),
                _cycles(rep, count, lo, hi, n_items),
            )
        )
    if instance is not None:
        sw_obs = _swap_share(y, first, second, instance)
        if sw_obs is not None:
            sw_rep = _swap_share(yrep, first, second, instance)
            row = _row("order_swap", sw_obs[0], sw_rep[0])
            row["n"] = sw_obs[1]
            rows.append(row)
    qlo, qhi = np.quantile(rep / count, [0.025, 0.975], axis=0)
    pairs = {
        "lo": lo,
        "hi": hi,
        "n": count,
        "observed": obs / count,
        "lower": qlo,
        "upper": qhi,
    }
    return rows, pairs
