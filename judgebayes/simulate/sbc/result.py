"""One simulated data set of a study (the model to fit and its true parameters), and
the ranks of an SBC study with their uniformity tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.errors import InputError
from judgebayes.results import tree

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


@dataclass(frozen=True)
class SBCDataset:
    """One simulated dataset: the model to fit and the parameter values that drew it.

    Attributes
    ----------
    spec : ModelSpec
        The model, as the package's constructors build it for these data.
    truth : dict
        Variable name -> the drawn value, shaped as one posterior draw of it.

    The spec carries the sampler default the package fits it with (``spec.sampler``).
    """

    spec: Any
    truth: dict[str, np.ndarray]


@dataclass(frozen=True)
class SBCResult:
    """Ranks of the truth among thinned posterior draws, per dataset.

    Attributes
    ----------
    problem : str
        The problem's name.
    ranks : dict
        Variable -> int array (n_datasets, n_components): rank of the true value among
        ``n_ranks`` draws (0..n_ranks).
    components : dict
        Variable -> labels of its components (e.g. ``g[gen_1]``).
    passed : ndarray of bool
        Whether each fit passed the convergence gate.
    messages : tuple of str
        The gate's message per fit ("converged" when it passed).
    n_ranks : int
        Number of posterior draws each rank is taken among.
    redrawn : int
        Datasets a constructor refused and that were drawn again.
    seconds : float
        Wall time of the sweep.
    settings : dict
        Sizes, seeds, sampler and executor.
    """

    problem: str
    ranks: dict[str, np.ndarray]
    components: dict[str, tuple[str, ...]]
    passed: np.ndarray
    messages: tuple[str, ...]
    n_ranks: int
    redrawn: int = 0
    seconds: float = 0.0
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def n_datasets(self) -> int:
        """Datasets fitted."""
        return int(self.passed.size)

    @property
    def n_failed(self) -> int:
        """Fits that missed the convergence gate."""
        return int((~self.passed).sum())

    def uniformity(self, bins: int = 10) -> pd.DataFrame:
        r"""Chi-square test of uniform ranks, per variable component.

        Ranks :math:`0..L` fall into ``bins`` equal bins (:math:`r \cdot \text{bins} //
        (L + 1)`); the p-value is that of Pearson's chi-square against equal counts.
        ``p_value`` uses the fits that passed the gate, ``p_value_all`` every fit.

        Returns
        -------
        DataFrame
            ``variable``, ``component``, ``n_passed``, ``p_value``, ``n_all``,
            ``p_value_all``.
        """

        def p(r):
            if r.size < bins:
                return float("nan")
            counts = np.bincount(r * bins // (self.n_ranks + 1), minlength=bins)
            return float(stats.chisquare(counts).pvalue)

        rows = []
        for var, r in self.ranks.items():
            for c, label in enumerate(self.components[var]):
                rows.append(
                    {
                        "variable": var,
                        "component": label,
                        "n_passed": int(self.passed.sum()),
                        "p_value": p(r[self.passed, c]),
                        "n_all": self.n_datasets,
                        "p_value_all": p(r[:, c]),
                    }
                )
        return pd.DataFrame(rows)

    def plot(self, var: str | None = None, passed_only: bool = True):
        """ECDF difference of the fractional ranks against the uniform, with ArviZ's
        simultaneous 95% band (``arviz.plot_ecdf_pit``), one panel per component of ``var``.

        A line leaving the band is a miscalibrated component: below the diagonal in the
        middle is a posterior too wide, an S-shape one too narrow.

        Returns
        -------
        arviz_plots.PlotCollection
        """
        import arviz as az

        var = var or next(iter(self.ranks))
        if var not in self.ranks:
            raise InputError(
                f"var must be one of {sorted(self.ranks)}; got {var!r}", field="var", value=var
            )
        keep = self.passed if passed_only else np.ones_like(self.passed)
        # fractional ranks: PIT values of the prior draw among the posterior draws
        u = (self.ranks[var][keep] + 0.5) / (self.n_ranks + 1)
        dt = tree(
            {"prior_sbc": {var: u[None]}},
            coords={"component": list(self.components[var])},
            dims={var: ["component"]},
        )
        pc = az.plot_ecdf_pit(dt, var_names=[var], envelope_prob=0.95, backend="matplotlib")
        pc.viz["figure"].item().suptitle(f"SBC {self.problem}: {var} ({int(keep.sum())} fits)")
        return pc
