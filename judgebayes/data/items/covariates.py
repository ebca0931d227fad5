"""The covariate role of an items frame: numeric item columns the judge's rates may
depend on, as linear terms or restricted cubic splines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgebayes.data.frames import column_names, numeric_column, require_column
from judgebayes.errors import InputError


def _covariate(df, col, keep: np.ndarray, taken) -> np.ndarray:
    """One numeric covariate column: finite on every row with a verdict (no silent drops)."""
    require_column(df, col, "a covariates column", "covariates")
    if col in set(taken):
        raise InputError(
            f"column {col!r} already has a role in this frame; a covariate is a column of its own",
            field="covariates",
            value=col,
        )
    x = numeric_column(df[col], col)  # a value that is not a number is named there
    bad = keep & ~np.isfinite(x)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"column {col!r} (a covariate): every item with a verdict needs a finite number; "
            f"row {i} has {df[col].iloc[i]!r} ({int(bad.sum())} such row(s))",
            field=col,
            value=df[col].iloc[i],
        )
    return x


#: covariate terms ``covariates={"column": term}`` takes
TERMS = ("linear", "spline")


#: quantiles of the kept values at which a spline term's knots sit (Harrell's choice
#: for four knots)
SPLINE_KNOTS = (0.05, 0.35, 0.65, 0.95)


def spline_basis(x: np.ndarray, knots) -> np.ndarray:
    r"""Restricted (natural) cubic spline basis: ``x`` and :math:`K - 2` cubic terms,
    linear beyond the outer knots :math:`t_1 < \dots < t_K`:

    .. math::
        s_j(x) = \frac{(x - t_j)_+^3 - (x - t_{K-1})_+^3\frac{t_K - t_j}{t_K - t_{K-1}}
        + (x - t_K)_+^3\frac{t_{K-1} - t_j}{t_K - t_{K-1}}}{(t_K - t_1)^2}.

    Returns shape (N, K - 1).
    """
    t = np.asarray(knots, float)
    k = t.size

    def cube(u):
        return np.maximum(u, 0.0) ** 3

    cols = [x]
    for j in range(k - 2):
        s = (
            cube(x - t[j])
            - cube(x - t[k - 2]) * (t[k - 1] - t[j]) / (t[k - 1] - t[k - 2])
            + cube(x - t[k - 1]) * (t[k - 2] - t[j]) / (t[k - 1] - t[k - 2])
        )
        cols.append(s / (t[k - 1] - t[0]) ** 2)
    return np.column_stack(cols)


def _covariate_terms(covariates) -> dict[str, str]:
    """``covariates=`` as {column: term}: a name or list (linear terms) or a dict."""
    if isinstance(covariates, dict):
        terms = dict(covariates)
    else:
        terms = dict.fromkeys(column_names(covariates, "covariates"), "linear")
    if not terms:
        raise InputError(
            f"covariates must name one column or several distinct ones; got {covariates!r}",
            field="covariates",
            value=covariates,
        )
    for col, term in terms.items():
        if term not in TERMS:
            raise InputError(
                f"covariate {col!r}: a term is one of {TERMS}; got {term!r}",
                field="covariates",
                value=term,
            )
    return terms


@dataclass(frozen=True)
class Covariates:
    """The covariate role: the design columns (a spline term gives several) and their names."""

    values: np.ndarray
    names: tuple[str, ...]


def read_covariates(items, covariates, keep: np.ndarray, taken) -> Covariates | None:
    """The ``covariates=`` columns (module docstring of :mod:`judgebayes.data.items`): every
    row with a verdict (``keep``) needs a finite value; a column in ``taken`` has a role.
    """
    if covariates is None:
        return None
    cols, names = [], []
    for c, term in _covariate_terms(covariates).items():
        x = _covariate(items, c, keep, taken)
        if term == "linear":
            cols.append(x[:, None])
            names.append(c)
            continue
        knots = np.quantile(x[keep], SPLINE_KNOTS)
        if np.any(np.diff(knots) <= 0):
            raise InputError(
                f"covariate {c!r}: a spline term needs distinct knots at its "
                f"{SPLINE_KNOTS} quantiles; they are {knots.tolist()} (too few distinct "
                "values: give it as a linear term)",
                field="covariates",
                value=c,
            )
        cols.append(spline_basis(np.where(keep, x, knots[0]), knots))
        names += [c, *(f"{c} (spline {j})" for j in range(1, len(knots) - 1))]
    return Covariates(np.column_stack(cols), tuple(names))
