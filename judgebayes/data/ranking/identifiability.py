"""What the comparisons can identify: connected components, and covariates explained
by the systems' differences.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import lsqr

from judgebayes.data.ranking.pairs import PairwiseData
from judgebayes.errors import IdentifiabilityWarning


# ------------------------------------------------------------------ identifiability
@dataclass(frozen=True)
class IdentifiabilityReport:
    r"""What the design (not the prior) can identify.

    Attributes
    ----------
    components : int
        Connected components of the comparison graph (quality differences between
        components are identified only by the prior).
    position_in_likelihood : bool
        Whether kappa is identified by the likelihood (the constant column is not a
        combination of item differences: a pair seen in both orders, or a cycle).
    covariate_in_likelihood : dict
        Per covariate, whether its coefficient is identified by the likelihood.  An
        item-level covariate never is: :math:`\theta_i + c x_i` is all the verdicts
        see, so :math:`c` is identified by the prior's independence of quality and
        covariate (the paper's Assumption 1), with an uncertainty that does not shrink
        with more comparisons.
    both_orders_pairs : int
        Unordered pairs seen in both presentation orders.
    same_level, cross_level : dict
        For binary item covariates: comparisons within a level and across levels
        (Prop. 2 (i)-(ii) of Xu et al.).
    problems : list of str
        Conditions that leave a parameter to the prior; empty when all is well.
    position_confounding : float
        Share of the position column explained by item differences (an R^2): about
        N/n under random presentation order, 1 when kappa is not identified.
    """

    components: int
    position_in_likelihood: bool
    covariate_in_likelihood: dict[str, bool]
    both_orders_pairs: int
    same_level: dict[str, int]
    cross_level: dict[str, int]
    problems: list[str]
    position_confounding: float = 0.0

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems


def difference_matrix(data: PairwiseData):
    """Sparse (n, n_items) matrix with +1 at the first-shown and -1 at the second item."""
    n = data.n
    rows = np.repeat(np.arange(n), 2)
    cols = np.column_stack([data.first, data.second]).ravel()
    return csr_matrix((np.tile([1.0, -1.0], n), (rows, cols)), shape=(n, data.n_items))


def _explained_by_differences(data: PairwiseData, col: np.ndarray) -> float:
    """Share of ``col``'s sum of squares explained by item differences ``D v`` (an R^2).

    1 means the column is a combination of item-difference columns, so its coefficient
    is not identified by the likelihood at all.
    """
    D = difference_matrix(data)
    sol = lsqr(D, col, atol=1e-12, btol=1e-12, iter_lim=20 * data.n_items + 200)[0]
    resid = col - D @ sol
    total = float(col @ col)
    return 1.0 - float(resid @ resid) / total if total > 0 else 1.0


def identifiability_report(data: PairwiseData, *, position: bool = True) -> IdentifiabilityReport:
    """Check which parameters the design identifies (Prop. 2 of Xu et al., made exact).

    The paper's conditions (i) same-covariate comparisons, (ii) a cross-covariate
    comparison and (iii) both presentation orders are reported for binary item
    covariates; the exact statement is a rank condition, checked per column: a
    coefficient is identified by the likelihood iff its column of the design is not a
    combination of the item-difference columns.  ``position=False`` (a model without the
    position term) skips its check.
    """
    problems: list[str] = []
    if data.n == 0:
        return IdentifiabilityReport(
            data.n_items, False, dict.fromkeys(data.covariates, False), 0, {}, {},
            ["there are no comparisons"],
        )  # fmt: skip
    comps = int(data.components.max(initial=-1) + 1)
    if comps > 1:
        problems.append(
            f"the comparison graph has {comps} disconnected parts: quality differences "
            "between them are set by the prior alone"
        )
    n = data.n_items
    fwd = np.unique(data.first.astype(np.int64) * n + data.second)
    both = int(np.isin(fwd, (fwd % n) * n + fwd // n).sum() // 2)
    pos_r2 = _explained_by_differences(data, np.ones(data.n)) if position else 0.0
    pos_ok = pos_r2 < 1 - 1e-9
    if not pos_ok:
        problems.append(
            "presentation position is confounded with quality (which items are shown "
            "first explains the position term exactly): kappa is set by its prior; "
            "randomise the presentation order"
        )
    elif pos_r2 >= 0.5 and both == 0:
        problems.append(
            f"presentation order is not random ({100 * pos_r2:.0f}% of the position term "
            "is explained by which items are shown first, and no pair is seen in both "
            "orders): kappa is only weakly identified; randomise the presentation order"
        )
    cov_ok: dict[str, bool] = {}
    same: dict[str, int] = {}
    cross: dict[str, int] = {}
    for m, name in enumerate(data.covariates):
        col = data.X[:, m]
        level = data.scales.get(name, (0, 1, "comparison"))[2]
        if not np.any(np.abs(col) > 1e-12):
            problems.append(
                f"covariate {name!r} never differs between the two shown items: its "
                "coefficient is set by its prior"
            )
            cov_ok[name] = False
            continue
        cov_ok[name] = level == "comparison" and _explained_by_differences(data, col) < 1 - 1e-9
        if level == "item" and data.item_X is not None:
            k = [c for c in data.covariates if data.scales[c][2] == "item"].index(name)
            xi = data.item_X[:, k]
            if np.unique(np.round(xi, 12)).size == 2:
                eq = np.isclose(xi[data.first], xi[data.second])
                same[name] = int(eq.sum())
                cross[name] = int((~eq).sum())
                levels = np.unique(np.round(xi, 12))
                for lv in levels:
                    within = eq & np.isclose(xi[data.first], lv)
                    if not within.any():
                        problems.append(
                            f"covariate {name!r}: no comparison within one of its levels "
                            "(Prop. 2 (i)); quality inside that level is only compared "
                            "through the covariate"
                        )
                        break
    return IdentifiabilityReport(comps, pos_ok, cov_ok, both, same, cross, problems, pos_r2)


def warn_identifiability(data: PairwiseData, *, position: bool = True) -> IdentifiabilityReport:
    """Run :func:`identifiability_report` and warn once with its problems."""
    rep = identifiability_report(data, position=position)
    problems = rep.problems if position else [p for p in rep.problems if "kappa" not in p]
    if problems:
        warnings.warn(
            "identifiability: " + "; ".join(problems), IdentifiabilityWarning, stacklevel=3
        )
    return rep
