"""The gate's rule, one function for the command line, notebooks and CI: claims read off a
fit, and the study's checks of the fit's model.

A gate passes when every claim is supported at ``prob`` and no check of an assumption the
fit's model makes flags; a check that flags on an assumption the model does not make is a
warning, never a failure.  ``judgebayes gate`` prints :meth:`GateResult.summary` and the
warnings on stderr and exits with :attr:`GateResult.exit_code`.

>>> result = gate(study, study.fit("closed_form"), ["rate > 0.5"])
>>> result.passed, result.exit_code
>>> result.claims  # one row per claim: probability, bound, supported, reason
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from judgebayes.checks import CheckReport
from judgebayes.results import Fit
from judgebayes.workflows.gate import check_claims

__all__ = ["GateResult", "gate"]


@dataclass(frozen=True)
class GateResult:
    """What the gate decided.

    Attributes
    ----------
    passed : bool
        Every claim supported and no check of the model's assumptions flagged.
    claims : DataFrame
        :func:`~judgebayes.workflows.gate.check_claims`'s table.
    report : CheckReport
        Every check of the study that applies to the fit.
    method, estimand : str
        The fit's method and what its rate (or mean score) is of.
    prob : float
        The probability (or confidence) a claim needs.
    """

    passed: bool
    claims: pd.DataFrame
    report: CheckReport
    method: str
    estimand: str
    prob: float
    #: what the claims are about: a ``"rate"``, or a ``"mean"`` score
    quantity: str = "rate"

    @property
    def exit_code(self) -> int:
        """0 when the gate passes, 1 when it fails (``judgebayes gate``'s status)."""
        return 0 if self.passed else 1

    @property
    def failed_checks(self) -> tuple:
        """The checks of assumptions the fit's model makes that flagged."""
        return tuple(self.report.failures)

    @property
    def warned_checks(self) -> tuple:
        """The checks that flagged on assumptions the fit's model does not make."""
        return tuple(self.report.warnings)

    def summary(self) -> str:
        """The verdict in one line: PASS or FAIL, the claims supported, the failed checks."""
        n_bad = int((~self.claims["supported"]).sum())
        n = len(self.claims)
        line = (
            f"{'PASS' if self.passed else 'FAIL'}: {n - n_bad} of {n} claim(s) supported at "
            f"{self.prob:g} ({self.method}, {self.estimand} {self.quantity})"
        )
        if self.failed_checks:
            line += "; the model's check " + "; ".join(r.describe() for r in self.failed_checks)
        return line

    def warning_lines(self) -> list[str]:
        """One line per check that only warns."""
        return [
            f"warning: {r.describe()} (not an assumption of {self.method})"
            for r in self.warned_checks
        ]


def gate(study, fit: Fit, claims: Sequence[str], *, prob: float = 0.95) -> GateResult:
    """Read ``claims`` off ``fit`` (:func:`~judgebayes.workflows.gate.check_claims`) and run
    ``study``'s checks of it: the gate passes when every claim is supported at ``prob`` and
    no check of an assumption the fit's model makes flags (module docstring).
    """
    table = check_claims(fit, list(claims), prob=prob)
    report = study.check(fit)
    passed = bool(table["supported"].all()) and not list(report.failures)
    return GateResult(
        passed=passed,
        claims=table,
        report=report,
        method=fit.method,
        estimand=fit.info.get("estimand", "process"),
        prob=prob,
        quantity="mean" if fit.family == "scores" else "rate",
    )
