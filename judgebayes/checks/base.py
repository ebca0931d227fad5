r"""What a check of a model's assumptions is, what it returns, and where checks are found.

A check is a :class:`Check`, one per module of :mod:`judgebayes.checks`, registered with
:func:`register`.  It says

* which study classes it applies to (``applies_to``: keys of study classes; a class
  matches when it or one of its parents has the key);
* which fit it reads (``needs``: ``"data"``, the data alone, or ``"draws"``, a fit with
  posterior draws, narrowed by ``accepts``);
* what assumption it tests, and which fits' models make that assumption (``tests``): a
  flag from a check whose assumption the fit does not make is a warning about another
  model, not about this fit;
* its multiplicity policy, the same for every check: the rows' own p-values
  (``p_raw``) are adjusted by Holm's step-down over the check's rows, so a check flags
  any row with family-wise error at most ``alpha``.

Running a check gives one :class:`CheckResult`; ``study.check(fit)`` runs every check that
applies and gives a :class:`CheckReport`, which a gate reads through ``passed`` and
``failures``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.inference.multiplicity import holm

__all__ = [
    "CHECK_COLUMNS",
    "POLICY",
    "Check",
    "CheckReport",
    "CheckResult",
    "checks_for",
    "holm",
    "register",
]

#: the columns every check table has (a check may add its own after them)
CHECK_COLUMNS = ("check", "unit", "observed", "expected", "p_raw", "p_value", "flagged")

#: the one multiplicity policy of every check
POLICY = "Holm over the check's rows: family-wise error at most alpha"


@dataclass(frozen=True)
class Check:
    """One check of one assumption (module docstring).

    Attributes
    ----------
    name : str
        The row label of the check's table (``check`` column).
    run : callable
        ``run(study, fit, *, alpha) -> rows``: a list of dicts (or a DataFrame) with
        ``unit, observed, expected, p_raw`` and any columns of the check's own.
    applies_to : tuple of str
        Keys of the study classes it checks.
    assumption : str
        What it tests, in words.
    needs : {"data", "draws"}
        The data alone, or a fit with draws.
    accepts : callable, optional
        ``accepts(fit) -> bool``: narrows the fits with draws it reads.
    tests : callable, optional
        ``tests(study, fit) -> bool``: whether ``fit``'s model makes the assumption
        (default: every fit does).
    """

    name: str
    run: Callable[..., Any]
    applies_to: tuple[str, ...]
    assumption: str
    needs: str = "data"
    accepts: Callable[[Any], bool] | None = None
    tests: Callable[[Any, Any], bool] | None = None

    def applies(self, study, fit=None) -> bool:
        """Whether this check runs on ``study`` with ``fit`` (None: no fit given)."""
        if not set(self.applies_to) & set(study.keys()):
            return False
        if self.needs == "data":
            return True
        if fit is None or fit.is_point:
            return False
        return self.accepts is None or bool(self.accepts(fit))

    def relevant(self, study, fit=None) -> bool:
        """Whether ``fit``'s model makes the assumption this check tests (no fit: the
        data's own assumption, which every model of the study makes).
        """
        return fit is None or self.tests is None or bool(self.tests(study, fit))

    def __call__(self, study, fit=None, *, alpha: float = 0.01) -> CheckResult:
        """Run the check: its table, Holm-adjusted, with ``flagged`` below ``alpha``."""
        rows = self.run(study, fit, alpha=alpha)
        table = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
        for col in ("unit", "observed", "expected", "p_raw"):
            if col not in table:
                table[col] = np.nan if col != "unit" else pd.Series(dtype=object)
        table = table.assign(check=self.name, p_value=holm(table["p_raw"].to_numpy(float)))
        table["flagged"] = table["p_value"] < alpha
        rest = [c for c in table.columns if c not in CHECK_COLUMNS]
        return CheckResult(
            self.name,
            table[[*CHECK_COLUMNS, *rest]].reset_index(drop=True),
            self.assumption,
            float(alpha),
            self.relevant(study, fit),
        )


@dataclass(frozen=True)
class CheckResult:
    """One check's outcome.

    Attributes
    ----------
    check : str
        Its name.
    table : DataFrame
        A row per checked count or statistic (:data:`CHECK_COLUMNS`, then its own).
    assumption : str
        What it tested.
    alpha : float
        The family-wise level of ``flagged``.
    relevant : bool
        Whether the fit checked makes this assumption (a flag from an irrelevant check
        is a warning about the models that do).
    policy : str
        :data:`POLICY`.
    """

    check: str
    table: pd.DataFrame
    assumption: str
    alpha: float
    relevant: bool = True
    policy: str = POLICY

    @property
    def passed(self) -> bool:
        """No row flagged (an empty table passes: nothing to check)."""
        return not bool(self.table["flagged"].any())

    def describe(self) -> str:
        """One line: the check, the worst row and its adjusted p-value."""
        if self.passed:
            return f"{self.check}: passed ({len(self.table)} row(s))"
        worst = self.table.loc[self.table["p_value"].idxmin()]
        return (
            f"{self.check} flags {int(self.table['flagged'].sum())} of {len(self.table)} "
            f"row(s), e.g. {worst['unit']} (p = {worst['p_value']:.2g}): {self.assumption}"
        )


class CheckReport(Sequence):
    """Every check that applied to one study and fit: a sequence of :class:`CheckResult`.

    ``table`` is all their rows in one frame (an empty frame means no check applies to
    this fit, not a pass); ``failures`` are the flagged checks whose assumption the fit
    makes, ``warnings`` the flagged ones whose assumption it does not; ``passed`` is
    True when there is no failure.
    """

    def __init__(self, results: Sequence[CheckResult]):
        self.results = tuple(results)

    def __getitem__(self, i):
        if isinstance(i, str):
            for r in self.results:
                if r.check == i:
                    return r
            raise KeyError(i)
        return self.results[i]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[CheckResult]:
        return iter(self.results)

    @property
    def table(self) -> pd.DataFrame:
        """Every row of every check (:data:`CHECK_COLUMNS` first)."""
        tables = [r.table for r in self.results if len(r.table)]
        if not tables:
            return pd.DataFrame(columns=list(CHECK_COLUMNS))
        out = pd.concat(tables, ignore_index=True)
        rest = [c for c in out.columns if c not in CHECK_COLUMNS]
        return out[[*CHECK_COLUMNS, *rest]]

    @property
    def failures(self) -> tuple[CheckResult, ...]:
        """Flagged checks of an assumption the fit makes."""
        return tuple(r for r in self.results if r.relevant and not r.passed)

    @property
    def warnings(self) -> tuple[CheckResult, ...]:
        """Flagged checks of an assumption the fit does not make."""
        return tuple(r for r in self.results if not r.relevant and not r.passed)

    @property
    def passed(self) -> bool:
        """No failure (warnings do not count)."""
        return not self.failures

    @property
    def flagged(self) -> pd.DataFrame:
        """The flagged rows of every check."""
        t = self.table
        return t[t["flagged"].astype(bool)]

    def __repr__(self) -> str:
        if not self.results:
            return "CheckReport(no check applies)"
        lines = [
            r.describe() + ("" if r.relevant else " [not this fit's assumption]")
            for r in self.results
        ]
        return "CheckReport(\n  " + "\n  ".join(lines) + "\n)"

    def _repr_html_(self) -> str:
        return self.table.to_html()


_REGISTRY: dict[str, Check] = {}


def register(check: Check) -> Check:
    """Add ``check`` to the registry (by name; a second check of one name is an error)."""
    if check.name in _REGISTRY and _REGISTRY[check.name] is not check:
        raise ValueError(f"a check named {check.name!r} is registered already")
    if check.needs not in ("data", "draws"):
        raise ValueError(f"check {check.name!r}: needs must be 'data' or 'draws'")
    _REGISTRY[check.name] = check
    return check


def checks_for(study, fit=None) -> list[Check]:
    """The registered checks that apply to ``study`` (and ``fit``), in registration order."""
    return [c for c in _REGISTRY.values() if c.applies(study, fit)]


def registered() -> dict[str, Check]:
    """Every registered check by name."""
    return dict(_REGISTRY)
