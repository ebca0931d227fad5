"""The convergence gate: R-hat, bulk and tail ESS, divergences, E-BFMI and the share of
draws at the maximum tree depth, on every free variable of a fit.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from judgebayes.errors import ConvergenceWarning

R_HAT_MAX = 1.01


ESS_MIN = 400


BFMI_MIN = 0.3


MAX_DEPTH_SHARE = 0.01


@dataclass(frozen=True)
class Diagnostics:
    """Convergence numbers of one fit and whether they pass the gate.

    ``var_names`` are the variables checked (the reported ones and every other free
    variable); ``worst`` names the variable with the largest R-hat and the one with the
    smallest ESS.
    """

    r_hat_max: float
    ess_bulk_min: float
    ess_tail_min: float
    divergences: int
    r_hat_threshold: float = R_HAT_MAX
    ess_threshold: float = ESS_MIN
    var_names: tuple[str, ...] = field(default=())
    bfmi_min: float = float("nan")
    max_depth_share: float = 0.0
    worst: tuple[str, str] = ("", "")
    bfmi_threshold: float = BFMI_MIN
    depth_threshold: float = MAX_DEPTH_SHARE

    @property
    def passed(self) -> bool:
        """True when every criterion holds.

        A missing E-BFMI (no energy statistic) is not held against the fit.
        """
        return (
            self.r_hat_max <= self.r_hat_threshold
            and self.ess_bulk_min >= self.ess_threshold
            and self.ess_tail_min >= self.ess_threshold
            and self.divergences == 0
            and not self.bfmi_min < self.bfmi_threshold
            and self.max_depth_share <= self.depth_threshold
        )

    def message(self) -> str:
        """One paragraph: the numbers that failed and what to try."""
        bad = []
        if not self.r_hat_max <= self.r_hat_threshold:
            bad.append(f"R-hat {self.r_hat_max:.3f} > {self.r_hat_threshold} ({self.worst[0]})")
        if not self.ess_bulk_min >= self.ess_threshold:
            bad.append(
                f"bulk ESS {self.ess_bulk_min:.0f} < {self.ess_threshold:g} ({self.worst[1]})"
            )
        if not self.ess_tail_min >= self.ess_threshold:
            bad.append(f"tail ESS {self.ess_tail_min:.0f} < {self.ess_threshold:g}")
        if self.divergences:
            bad.append(f"{self.divergences} divergent transition(s)")
        if self.bfmi_min < self.bfmi_threshold:
            bad.append(f"E-BFMI {self.bfmi_min:.2f} < {self.bfmi_threshold}")
        if self.max_depth_share > self.depth_threshold:
            bad.append(f"{self.max_depth_share:.1%} of draws at the maximum tree depth")
        if not bad:
            return "converged"
        hint = (
            "raise target_accept towards 0.99 and check the priors"
            if self.divergences
            else "reparameterise or tighten the priors (the sampler cannot cross the posterior)"
            if self.bfmi_min < self.bfmi_threshold
            else "run more draws/tune or more chains"
        )
        return (
            f"NUTS did not pass the convergence gate on {len(self.var_names)} variable(s) "
            f"({', '.join(self.var_names[:8])}{', ...' if len(self.var_names) > 8 else ''}): "
            f"{'; '.join(bad)}. Do not report these numbers; {hint}."
        )


def convergence_diagnostics(
    idata, var_names, r_hat: float = R_HAT_MAX, ess: float = ESS_MIN
) -> Diagnostics:
    """The gate's numbers over ``var_names`` (R-hat max, bulk and tail ESS min, via ArviZ),
    divergences, E-BFMI (min over chains) and the share of draws at the maximum tree depth.
    """
    import arviz as az

    var_names = [v for v in dict.fromkeys(var_names) if v in idata.posterior]
    # a variable the data fix (a deterministic with constant draws) gives R-hat 0/0: numpy
    # warns, ArviZ returns NaN, and per_var below drops it (a constant cannot fail to mix)
    with np.errstate(invalid="ignore", divide="ignore"):
        rh = az.rhat(idata, var_names=var_names)
        eb = az.ess(idata, var_names=var_names, method="bulk")
        et = az.ess(idata, var_names=var_names, method="tail")

    def per_var(ds, fn):
        out = {}
        for v in ds.data_vars:
            vals = np.ravel(ds[v].values)
            vals = vals[np.isfinite(vals)]
            if vals.size:
                out[v] = float(fn(vals))
        return out

    r_by, eb_by = per_var(rh, np.max), per_var(eb, np.min)
    et_by = per_var(et, np.min)
    r = max(r_by.values(), default=float("nan"))
    stats = idata["sample_stats"] if "sample_stats" in idata.children else {}
    div = int(stats["diverging"].sum()) if "diverging" in stats else 0
    bfmi = float("nan")
    if "energy" in stats and stats["energy"].sizes.get("draw", 0) > 1:
        bfmi = float(np.min(az.bfmi(idata)["energy"].values))
    depth = 0.0
    for name in ("maxdepth_reached", "reached_max_treedepth"):
        if name in stats:
            depth = float(np.mean(stats[name].values))
    return Diagnostics(
        r_hat_max=r,
        ess_bulk_min=min(eb_by.values(), default=float("nan")),
        ess_tail_min=min(et_by.values(), default=float("nan")),
        divergences=div,
        r_hat_threshold=r_hat,
        ess_threshold=ess,
        var_names=tuple(var_names),
        bfmi_min=bfmi,
        max_depth_share=depth,
        worst=(
            max(r_by, key=r_by.get, default=""),
            min(eb_by, key=eb_by.get, default=""),
        ),
    )


def check_convergence(idata, var_names, **thresholds) -> Diagnostics:
    """:func:`convergence_diagnostics`, warning with :class:`ConvergenceWarning` on failure."""
    diag = convergence_diagnostics(idata, var_names, **thresholds)
    if not diag.passed:
        warnings.warn(diag.message(), ConvergenceWarning, stacklevel=3)
    return diag
