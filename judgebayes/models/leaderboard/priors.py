"""The leaderboard models' priors, as data."""

from __future__ import annotations

from dataclasses import dataclass

from judgebayes.errors import InputError

__all__ = ["BoardPriors"]


@dataclass(frozen=True)
class BoardPriors:
    r"""Prior settings of the leaderboard models, with the reason for each default.

    Attributes
    ----------
    ability_sd : float
        :math:`\sigma_\alpha` (2: an average item's success rate from 2% to 98% within two
        sds).
    item_sd, cluster_sd : float
        Half-normal scales of the items' and the clusters' difficulty spread (1.5 and 1:
        benchmarks hold items that nearly every system solves and items none does).
    discrimination_sd : float
        Half-normal scale of the log-discriminations' spread (0.5: discriminations
        within a factor of about 2.7 of each other at one sd).
    judge_mu, judge_mu_sd : float
        The judges' logit sensitivity and specificity: :math:`\mu \sim N(1.4, 1)` (1.4 is
        80%; a judge better than chance is the labelling the prior prefers, so the
        model is not bimodal when few rows are labelled).
    judge_spread : float
        Half-normal scale of the systems' deviations from the judge's rates (0.5 logit).
    floor : tuple of float
        Beta parameters of the guessing floor :math:`c` (the guessing board: a system
        with no ability still succeeds with probability :math:`c`, as on a multiple-choice
        item).  (2, 6): mean 0.25, a four-option item's chance, with 95% between 0.04 and
        0.6.  A known floor (``1 / options``) is a tight prior, e.g. ``(250, 750)``.
    concentration : tuple of float
        Normal mean and sd of :math:`\log\phi`, the concentration of a cell's rate
        around the model's :math:`p_{si}` when cells hold several trials (2 and 1.5:
        :math:`\phi` about 7, from near 0.4 to near 150 within two sds: a system's rate on
        one problem anywhere from its ability's to nearly all or nothing).
    """

    ability_sd: float = 2.0
    item_sd: float = 1.5
    cluster_sd: float = 1.0
    discrimination_sd: float = 0.5
    judge_mu: float = 1.4
    judge_mu_sd: float = 1.0
    judge_spread: float = 0.5
    concentration: tuple[float, float] = (2.0, 1.5)
    floor: tuple[float, float] = (2.0, 6.0)

    def __post_init__(self):
        # a NaN fails every comparison: the checks ask for what must hold
        for name in ("ability_sd", "item_sd", "cluster_sd", "discrimination_sd", "judge_mu_sd",
                     "judge_spread"):  # fmt: skip
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not v > 0:
                raise InputError(
                    f"BoardPriors.{name} must be a number > 0; got {v!r}",
                    field=f"priors.{name}",
                    value=v,
                )
        mu = self.judge_mu
        if isinstance(mu, bool) or not isinstance(mu, int | float) or not abs(mu) < float("inf"):
            raise InputError(
                f"BoardPriors.judge_mu must be a finite number; got {self.judge_mu!r}",
                field="priors.judge_mu",
                value=self.judge_mu,
            )
        a, b = self.floor
        if not (a > 0 and b > 0):
            raise InputError(
                f"BoardPriors.floor must have positive Beta parameters; got {self.floor!r}",
                field="priors.floor",
                value=self.floor,
            )
        mean, sd = self.concentration
        if not (abs(mean) < float("inf") and sd > 0):
            raise InputError(
                "BoardPriors.concentration must be (mean, sd) of log phi with a finite mean "
                f"and sd > 0; got {self.concentration!r}",
                field="priors.concentration",
                value=self.concentration,
            )
