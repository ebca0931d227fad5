r"""The leaderboard's latent field given its spreads: the log density, its gradient and
precision in blocks, and Newton's method for its mode (the inner step of
:mod:`judgebayes.inference.leaderboard.laplace`, whose docstring writes the model's split).

The precision is held through the Schur complement of the items' diagonal block: a solve,
a log determinant and a draw cost one pass over the cells and one dense factor of the
systems' block.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, special

from judgebayes.errors import MethodRefused
from judgebayes.models.leaderboard import BoardPriors

__all__ = [
    "BoardCells",
    "Factor",
    "cell_terms",
    "field_mode",
    "psi_prior",
    "spreads",
    "system_terms",
]


@dataclass(frozen=True)
class BoardCells:
    """A board's counts, dense (systems, items); ``k``/``n`` the unlabelled cells' judged
    (or true) positives and trials, ``h1``/``nl`` the labelled cells' human positives and
    rows, ``confusion`` the judge's (tp, fn, tn, fp) per system.
    """

    k: np.ndarray
    n: np.ndarray
    h1: np.ndarray
    nl: np.ndarray
    confusion: np.ndarray
    judged: bool
    items: bool
    overdispersed: bool = False

    @classmethod
    def of(cls, data, *, items: bool, overdispersed: bool) -> BoardCells:
        """From a :class:`~judgebayes.data.leaderboard.BoardData`; without item effects (and one
        trial a cell) each system's cells are summed into one binomial.
        """
        cells = [data.k, data.n, data.h1, data.n_l]
        if not items and not overdispersed:
            cells = [np.sum(x, axis=1, keepdims=True) for x in cells]
        k, n, h1, nl = (np.asarray(x, float) for x in cells)
        return cls(
            k,
            n,
            h1,
            nl,
            confusion=np.asarray(data.confusion, float),
            judged=bool(data.judged),
            items=items,
            overdispersed=overdispersed,
        )

    @property
    def shape(self) -> tuple[int, int]:
        """(systems, item columns)."""
        return self.k.shape

    @property
    def n_psi(self) -> int:
        """How many spreads: the items' (with item effects), the cells' concentration
        (several trials a cell), the judge's two.
        """
        return int(self.items) + int(self.overdispersed) + 2 * int(self.judged)

    @property
    def psi_names(self) -> list[str]:
        r"""The spreads' names, in the order of :math:`\psi`."""
        return (
            ["sigma_item"] * self.items
            + ["concentration"] * self.overdispersed
            + ["tau_sensitivity", "tau_specificity"] * self.judged
        )

    @property
    def n_sys(self) -> int:
        """Size of the systems' block: abilities, and the judge's logits and means."""
        s = self.k.shape[0]
        return 3 * s + 2 if self.judged else s


@dataclass
class _Local:
    """Log density, gradient and precision blocks at one point (module docstring)."""

    logp: float
    g_s: np.ndarray
    g_b: np.ndarray
    A: np.ndarray  # system block (m, m)
    B: np.ndarray  # system x items (m, I)
    D: np.ndarray  # items' diagonal (I,)


def spreads(psi, c: BoardCells) -> dict[str, float]:
    """The spreads by name (exponentiated), 1.0 for those the board has not."""
    out = dict.fromkeys(("sigma_item", "concentration", "tau_sensitivity", "tau_specificity"), 1.0)
    out.update(zip(c.psi_names, np.exp(np.asarray(psi, float)).tolist(), strict=True))
    return out


def psi_prior(psi, c: BoardCells, pr: BoardPriors) -> float:
    """The spreads' priors on the log scale: half-normal scales (Jacobian included), the
    concentration's normal on its log.
    """
    lp = 0.0
    for name, v in zip(c.psi_names, np.asarray(psi, float), strict=True):
        if name == "concentration":
            lo, sd = pr.concentration
            lp -= (v - lo) ** 2 / (2 * sd**2)
        else:
            scale = pr.item_sd if name == "sigma_item" else pr.judge_spread
            lp += v - np.exp(2 * v) / (2 * scale**2)
    return float(lp)


def cell_terms(
    alpha, b, a, cc, c: BoardCells, fisher: bool, phi: float = 1.0, derivatives: bool = True
):
    """Each cell's log likelihood and derivatives in the linear predictor (``e``) and the
    judge's logits (``a``, ``c``), all (systems, items); without ``derivatives`` the log
    likelihood alone (the derivatives None).
    """
    eta = alpha[:, None] - b[None, :] if c.items else np.repeat(alpha[:, None], 1, 1)
    p = special.expit(eta)
    w = p * (1 - p)
    lp, lq = special.log_expit(eta), special.log_expit(-eta)
    ll = c.h1 * lp + (c.nl - c.h1) * lq
    le, lee = c.h1 - c.nl * p, -c.nl * w
    d: dict[str, np.ndarray] = {}
    if c.overdispersed:
        bll, be, bee = _beta_binomial(p, w, phi, c, derivatives)
        return (ll + bll, le + be, lee + bee, d) if derivatives else (ll + bll, None, None, d)
    if not c.judged:
        ll = ll + c.k * lp + (c.n - c.k) * lq
        if not derivatives:
            return ll, None, None, d
        return ll, le + c.k - c.n * p, lee - c.n * w, d
    se, sp = special.expit(a)[:, None], special.expit(cc)[:, None]
    g = se + sp - 1
    q = np.clip((1 - sp) + p * g, 1e-12, 1 - 1e-12)
    ll = ll + c.k * np.log(q) + (c.n - c.k) * np.log1p(-q)
    if not derivatives:
        return ll, None, None, d
    l1 = c.k / q - (c.n - c.k) / (1 - q)
    l2 = -c.n / (q * (1 - q)) if fisher else -c.k / q**2 - (c.n - c.k) / (1 - q) ** 2
    f = 0.0 if fisher else l1  # the expected information drops the l1 terms
    vs, vp = se * (1 - se), sp * (1 - sp)
    qe, qa, qc = g * w, p * vs, -(1 - p) * vp
    d["a"], d["c"] = l1 * qa, l1 * qc
    d["aa"] = l2 * qa * qa + f * p * vs * (1 - 2 * se)
    d["cc"] = l2 * qc * qc - f * (1 - p) * vp * (1 - 2 * sp)
    d["ac"] = l2 * qa * qc
    d["ea"] = l2 * qe * qa + f * vs * w
    d["ec"] = l2 * qe * qc + f * vp * w
    return ll, le + l1 * qe, lee + l2 * qe * qe + f * g * w * (1 - 2 * p), d


def _beta_binomial(p, w, phi: float, c: BoardCells, derivatives: bool = True):
    r"""Log likelihood and derivatives in :math:`\eta` of beta-binomial cells,
    :math:`k \sim \mathrm{BetaBin}(n, p\phi, (1 - p)\phi)` (binomial coefficients left
    out); without ``derivatives`` the log likelihood and Nones.
    """
    al, be = p * phi, (1 - p) * phi
    k, f = c.k, c.n - c.k
    ll = special.gammaln(k + al) - special.gammaln(al) + special.gammaln(f + be)
    ll -= special.gammaln(be) + special.gammaln(c.n + phi) - special.gammaln(phi)
    if not derivatives:
        return ll, None, None
    dp = phi * (special.digamma(k + al) - special.digamma(al))
    dp -= phi * (special.digamma(f + be) - special.digamma(be))
    dpp = phi**2 * (special.polygamma(1, k + al) - special.polygamma(1, al))
    dpp += phi**2 * (special.polygamma(1, f + be) - special.polygamma(1, be))
    return ll, dp * w, dpp * w**2 + dp * w * (1 - 2 * p)


def _local(xs, b, psi, c: BoardCells, pr: BoardPriors, fisher: bool) -> _Local:
    """:class:`_Local` of the log posterior of the field at ``(xs, b)`` given ``psi``."""
    S, n_i = c.shape
    sp = spreads(psi, c)
    sigma = sp["sigma_item"]
    alpha = xs[:S]
    a, cc = (xs[S : 2 * S], xs[2 * S : 3 * S]) if c.judged else (None, None)
    cells, le, lee, d = cell_terms(alpha, b, a, cc, c, fisher, sp["concentration"])
    ll = float(cells.sum())
    m = c.n_sys
    g_s, A = np.zeros(m), np.zeros((m, m))
    ia = np.arange(S)
    g_s[:S], A[ia, ia] = le.sum(1), -lee.sum(1)
    if c.judged:
        _judge_cells(d, S, g_s, A)
    if c.items:
        ll -= n_i * np.log(sigma) + float(b @ b) / (2 * sigma**2)
        g_b = -le.sum(0) - b / sigma**2
        D = -lee.sum(0) + 1 / sigma**2
        B = lee if not c.judged else np.vstack([lee, d["ea"], d["ec"]])
        B = np.vstack([B, np.zeros((m - B.shape[0], n_i))]) if B.shape[0] < m else B
    else:
        g_b, D, B = np.zeros(0), np.zeros(0), np.zeros((m, 0))
    ll += system_terms(xs, psi, c, pr, g_s, A)
    return _Local(ll + psi_prior(psi, c, pr), g_s, g_b, A, B, D)


def _judge_cells(d, S: int, g_s, A) -> None:
    """The cells' derivatives in the judge's logits, summed over the items, added to the
    systems' block's gradient and precision (in place).
    """
    ia = np.arange(S)
    for j, key in enumerate(("a", "c")):
        at = (j + 1) * S + ia
        g_s[at] += d[key].sum(1)
        A[at, at] -= d[key + key].sum(1)
        A[ia, at] -= d["e" + key].sum(1)
        A[at, ia] -= d["e" + key].sum(1)
    A[S + ia, 2 * S + ia] -= d["ac"].sum(1)
    A[2 * S + ia, S + ia] -= d["ac"].sum(1)


def system_terms(xs, psi, c: BoardCells, pr: BoardPriors, g_s, A) -> float:
    """The systems' block's terms beside the cells, added to its gradient and precision
    (in place): the abilities' prior and, with a judge, its rates' likelihood on the
    labelled rows (the confusion counts) and their hierarchical prior; their log density.
    """
    S = c.shape[0]
    ia = np.arange(S)
    alpha = xs[:S]
    g_s[:S] -= alpha / pr.ability_sd**2
    A[ia, ia] += 1 / pr.ability_sd**2
    ll = -float(alpha @ alpha) / (2 * pr.ability_sd**2)
    if not c.judged:
        return ll
    sp = spreads(psi, c)
    tp, fn, tn, fp = c.confusion.T
    for j, (tau, pos, neg) in enumerate(
        ((sp["tau_sensitivity"], tp, fn), (sp["tau_specificity"], tn, fp))
    ):
        at, mu_at = (j + 1) * S + ia, 3 * S + j
        v, mu = xs[at], xs[mu_at]
        r = special.expit(v)
        ll += float(np.sum(pos * special.log_expit(v) + neg * special.log_expit(-v)))
        ll -= S * np.log(tau) + float(np.sum((v - mu) ** 2)) / (2 * tau**2)
        ll -= (mu - pr.judge_mu) ** 2 / (2 * pr.judge_mu_sd**2)
        g_s[at] += pos - (pos + neg) * r - (v - mu) / tau**2
        g_s[mu_at] += np.sum(v - mu) / tau**2 - (mu - pr.judge_mu) / pr.judge_mu_sd**2
        A[at, at] += (pos + neg) * r * (1 - r) + 1 / tau**2
        A[at, mu_at] -= 1 / tau**2
        A[mu_at, at] -= 1 / tau**2
        A[mu_at, mu_at] += S / tau**2 + 1 / pr.judge_mu_sd**2
    return ll


@dataclass
class Factor:
    """The precision through its Schur complement: solves, log determinant, draws."""

    chol: np.ndarray  # lower Cholesky factor of A - B D^-1 B'
    B: np.ndarray
    BD: np.ndarray  # B D^-1
    D: np.ndarray

    @classmethod
    def of(cls, loc: _Local) -> Factor | None:
        """The factor of ``loc``'s precision, None when it is not positive definite."""
        if loc.D.size and np.any(loc.D <= 0):
            return None
        BD = loc.B / loc.D if loc.D.size else loc.B
        try:
            chol = linalg.cholesky(loc.A - BD @ loc.B.T, lower=True)
        except linalg.LinAlgError:
            return None
        return cls(chol, loc.B, BD, loc.D)

    def solve(self, g_s, g_b) -> tuple[np.ndarray, np.ndarray]:
        """The precision's solve of (g_s, g_b): the Newton step."""
        ds = linalg.cho_solve((self.chol, True), g_s - self.BD @ g_b)
        return ds, (g_b - self.B.T @ ds) / self.D

    def logdet(self) -> float:
        """The precision's log determinant."""
        return float(2 * np.log(np.diag(self.chol)).sum() + np.log(self.D).sum())

    def draw(self, count: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """``count`` deviations from the mode (systems' block, items)."""
        z = rng.standard_normal((count, self.chol.shape[0]))
        ds = linalg.solve_triangular(self.chol, z.T, lower=True, trans="T").T
        db = -ds @ self.BD + rng.standard_normal((count, self.D.size)) / np.sqrt(self.D)
        return ds, db


def field_mode(psi, start, c: BoardCells, pr: BoardPriors, tol: float = 1e-8, max_iter: int = 100):
    """Newton's method with backtracking for the field given ``psi`` (the observed
    information where it is positive definite, else the expected); returns the mode, the
    local terms there and their factor.
    """
    xs, b = (v.copy() for v in start)
    for _ in range(max_iter):
        loc, fac = _precision(xs, b, psi, c, pr)
        ds, db = fac.solve(loc.g_s, loc.g_b)
        step = 1.0
        while step > 1e-6:
            if _local(xs + step * ds, b + step * db, psi, c, pr, True).logp >= loc.logp - 1e-9:
                break
            step /= 2
        xs, b = xs + step * ds, b + step * db
        if step * max(np.abs(ds).max(), np.abs(db).max(initial=0.0)) < tol:
            break
    loc, fac = _precision(xs, b, psi, c, pr)
    return (xs, b), loc, fac


def _precision(xs, b, psi, c: BoardCells, pr: BoardPriors) -> tuple[_Local, Factor]:
    """The local terms and factor at a point: observed information, or expected when the
    observed is not positive definite (a judge's likelihood far from its mode).
    """
    loc = _local(xs, b, psi, c, pr, fisher=False)
    fac = Factor.of(loc)
    if fac is None and c.judged:
        loc = _local(xs, b, psi, c, pr, fisher=True)
        fac = Factor.of(loc)
    if fac is None:
        raise MethodRefused(
            "the leaderboard's Laplace fit met a precision that is not positive definite; "
            "use method='nuts'",
            method="laplace",
        )
    return loc, fac
