r"""Bias-aware Bradley-Terry ranking: the user-facing study and its fits.

>>> ranking = PairwiseRanking.from_frames(comparisons, items, covariates=["length"])
>>> fit = ranking.fit(method="nuts", prior="horseshoe", random_seed=0)
>>> fit.top_k(5)  # P(item in top 5) per item
>>> fit.rank_intervals()  # rank median and 95% rank interval per item
>>> fit.bias_table()  # length and position coefficients with intervals

Methods
-------
``"naive"``
    Bradley-Terry without covariates or position (MAP + Laplace, analytic Newton).
``"laplace"``
    MAP + Laplace of the bias-aware model.  With ``prior="normal"`` (the paper's fixed
    precision) or ``"hierarchical"`` (empirical-Bayes tau) the analytic Newton engine
    of :mod:`judgebayes.inference.bradley_terry`; with ``"horseshoe"`` the generic
    Laplace of :mod:`judgebayes.inference.laplace` in PyMC's unconstrained space (a
    Gaussian there, so it cannot represent the horseshoe's spike-and-tail shape: use it
    to see where the approximation fails, not to report).
``"nuts"``
    NUTS (nutpie) on the PyMC model of :mod:`judgebayes.models.bradley_terry`, any
    prior, with the convergence gate.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgebayes.pairwise import (
    POSITION,
    IdentifiabilityReport,
    PairwiseData,
    identifiability_report,
    pairwise_from_arrays,
    pairwise_from_frames,
    warn_identifiability,
)
from judgebayes.schema import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["PairwiseRanking", "RankingFit", "compare_loo", "compare_posteriors"]

METHODS = ("naive", "laplace", "nuts")


@dataclass
class RankingFit:
    """Posterior (or Laplace) draws of a ranking model, with summaries.

    Attributes
    ----------
    method : str
        ``"naive"``, ``"laplace"`` or ``"nuts"``.
    prior : str
        Bias prior (``"none"`` for the naive model).
    data : PairwiseData
    idata : arviz.InferenceData
        ``posterior`` has ``theta`` (item) and, for bias-aware fits, ``b`` (bias) and
        ``b_judge`` (judge, bias) with several judges.
    point : ndarray
        Point quality estimate: the MAP for Laplace fits, the posterior mean for NUTS.
    diagnostics : Diagnostics or None
        Convergence gate of NUTS fits.
    info : dict
        Engine facts (seconds, iterations, learned ``lam_b``, ...).
    """

    method: str
    prior: str
    data: PairwiseData
    idata: Any
    point: np.ndarray
    diagnostics: Any = None
    info: dict[str, Any] = field(default_factory=dict)
    map_result: Any = None

    # ---------------------------------------------------------------- draws
    @property
    def label(self) -> str:
        """Short name, e.g. ``"nuts/horseshoe"``."""
        return "naive" if self.prior == "none" else f"{self.method}/{self.prior}"

    def theta_draws(self) -> np.ndarray:
        """(S, N) quality draws, chains flattened."""
        th = self.idata.posterior["theta"].values
        return th.reshape(-1, th.shape[-1])

    def bias_draws(self) -> np.ndarray:
        """(S, P) shared bias coefficient draws (covariates then position)."""
        post = self.idata.posterior
        if "b" not in post:
            return np.zeros((self.theta_draws().shape[0], 0))
        b = post["b"].values
        return b.reshape(-1, b.shape[-1])

    @property
    def bias_names(self) -> list[str]:
        """Names of the bias coefficients."""
        post = self.idata.posterior
        return [str(v) for v in post["bias"].values] if "b" in post else []

    # ------------------------------------------------------------- summaries
    def interval(self, alpha: float = 0.05) -> pd.DataFrame:
        """Quality per item: point estimate, equal-tailed interval, sorted best first."""
        import pandas as pd

        d = self.theta_draws()
        lo, hi = np.quantile(d, [alpha / 2, 1 - alpha / 2], axis=0)
        df = pd.DataFrame(
            {"estimate": self.point, "sd": d.std(0), "lower": lo, "upper": hi},
            index=pd.Index(self.data.items, name="item"),
        )
        return df.sort_values("estimate", ascending=False)

    def bias_table(self, alpha: float = 0.05) -> pd.DataFrame:
        """Bias coefficients: mean, interval, P(> 0), and per raw unit of the covariate."""
        import pandas as pd

        rows = []
        post = self.idata.posterior
        if "b" in post:
            blocks = [("all", self.bias_draws())]
            if "b_judge" in post:
                bj = post["b_judge"].values
                bj = bj.reshape(-1, *bj.shape[-2:])
                blocks += [(str(j), bj[:, i]) for i, j in enumerate(post["judge"].values)]
            for judge, draws in blocks:
                for m, name in enumerate(self.bias_names):
                    dm = draws[:, m]
                    sd = self.data.scales.get(name, (0.0, 1.0, ""))[1]
                    lo, hi = np.quantile(dm, [alpha / 2, 1 - alpha / 2])
                    rows.append(
                        {
                            "judge": judge,
                            "coefficient": name,
                            "estimate": float(dm.mean()),
                            "lower": float(lo),
                            "upper": float(hi),
                            "p_positive": float(np.mean(dm > 0)),
                            "per_raw_unit": float(dm.mean() / sd) if name != POSITION else np.nan,
                        }
                    )
        return pd.DataFrame(
            rows,
            columns=[
                "judge", "coefficient", "estimate", "lower", "upper", "p_positive",
                "per_raw_unit",
            ],
        )  # fmt: skip

    def point_top_k(self, k: int) -> list[str]:
        """The point top-k set (argtop-k of the point estimate), best first."""
        from judgebayes.inference.topk import top_k_set

        _check_k(k, self.data.n_items)
        return [self.data.items[i] for i in top_k_set(self.point, k)]

    def top_k(self, k: int) -> pd.DataFrame:
        r""":math:`\Pr(i \in \text{top-}k)` per item, from the draws, sorted."""
        import pandas as pd

        from judgebayes.inference.topk import top_k_probabilities

        _check_k(k, self.data.n_items)
        p = top_k_probabilities(self.theta_draws(), k)
        point = set(self.point_top_k(k))
        df = pd.DataFrame(
            {
                "p_top_k": p,
                "estimate": self.point,
                "in_point_top_k": [it in point for it in self.data.items],
            },
            index=pd.Index(self.data.items, name="item"),
        )
        return df.sort_values(["p_top_k", "estimate"], ascending=False)

    def rank_intervals(self, alpha: float = 0.05) -> pd.DataFrame:
        """Point rank, median rank and ``1 - alpha`` rank interval per item (1 = best)."""
        import pandas as pd

        from judgebayes.inference.topk import rank_draws, rank_intervals

        r = rank_intervals(self.theta_draws(), alpha)
        point_rank = rank_draws(self.point[None, :])[0]
        df = pd.DataFrame(
            {"estimate": self.point, "rank": point_rank, **r},
            index=pd.Index(self.data.items, name="item"),
        )
        return df.sort_values("rank")

    def groups(self, level: float = 0.95) -> list[list[str]]:
        """Tiers of items that cannot be separated at ``level`` (best tier first)."""
        from judgebayes.inference.topk import separable_groups

        gs = separable_groups(self.theta_draws(), self.point, level)
        return [[self.data.items[i] for i in g] for g in gs]

    def prob_better(self) -> pd.DataFrame:
        r""":math:`\Pr(\theta_i > \theta_j)` for every pair (row item beats column item)."""
        import pandas as pd

        from judgebayes.inference.topk import prob_better

        P = prob_better(self.theta_draws())
        return pd.DataFrame(P, index=list(self.data.items), columns=list(self.data.items))

    def summary(self) -> pd.DataFrame:
        """ArviZ summary of theta and the bias coefficients."""
        import arviz as az

        names = [v for v in ("theta", "b", "b_judge") if v in self.idata.posterior]
        return az.summary(
            self.idata, var_names=names, kind="stats" if self.method != "nuts" else "all"
        )


def _check_k(k: int, n: int) -> None:
    if not isinstance(k, int | np.integer) or not 1 <= k <= n:
        raise InputError(f"k must be an integer in 1..{n}, got {k!r}", field="k", value=k)


# ------------------------------------------------------------------ study
class PairwiseRanking:
    """Pairwise verdicts of one or several judges, ready to fit.

    Parameters
    ----------
    data : PairwiseData
        Validated verdicts (use :meth:`from_frames` or :meth:`from_arrays`).
    """

    def __init__(self, data: PairwiseData):
        self.data = data
        self.fits: dict[str, RankingFit] = {}

    # constructors ------------------------------------------------------
    @classmethod
    def from_frames(
        cls,
        comparisons: pd.DataFrame,
        items: pd.DataFrame | None = None,
        *,
        covariates: Sequence[str] = (),
        ties: str = "drop",
        **columns: Any,
    ) -> PairwiseRanking:
        """From the comparisons and items frames of the DESIGN contract.

        See :func:`judgebayes.pairwise.pairwise_from_frames` for the columns; ties are
        dropped by default (``ties="half"`` counts them as half a win) and counted in
        ``data.n_ties``.
        """
        return cls(
            pairwise_from_frames(comparisons, items, covariates=covariates, ties=ties, **columns)
        )

    @classmethod
    def from_arrays(cls, first, second, y, **kwargs: Any) -> PairwiseRanking:
        """From integer arrays; see :func:`judgebayes.pairwise.pairwise_from_arrays`."""
        return cls(pairwise_from_arrays(first, second, y, **kwargs))

    # checks ------------------------------------------------------------
    def identifiability(self) -> IdentifiabilityReport:
        """Which parameters the design identifies (see :func:`identifiability_report`)."""
        return identifiability_report(self.data)

    # fitting -----------------------------------------------------------
    def model_spec(
        self, prior: str = "horseshoe", *, position: bool = True, theta: str = "prior", **hyper: Any
    ):
        """The :class:`~judgebayes.inference.sampling.ModelSpec` of a PyMC model."""
        from judgebayes.inference.sampling import ModelSpec
        from judgebayes.models.bradley_terry import bradley_terry_model, bt_var_names

        d = self.data if prior != "none" else self.data.without_covariates()
        return ModelSpec(
            builder=bradley_terry_model,
            data={"first": d.first, "second": d.second, "y": d.y, "X": d.X, "judge": d.judge},
            structure={
                "items": d.items,
                "covariates": d.covariates,
                "judges": d.judges,
                "prior": prior,
                "position": position,
                "theta": theta,
                "half_ties": d.has_ties,
                **hyper,
            },
            var_names=bt_var_names(prior, len(d.judges)),
        )

    def build_model(self, prior: str = "horseshoe", **kwargs: Any):
        """The PyMC model (not sampled)."""
        return self.model_spec(prior, **kwargs).build()

    def fit(
        self,
        method: str = "laplace",
        prior: str | None = None,
        *,
        random_seed: int | None = None,
        draws: int = 1500,
        position: bool = True,
        lam: float = 1.0,
        lam_b: float = 0.1,
        lam_judge: float = 4.0,
        log_likelihood: bool = False,
        nuts: dict[str, Any] | None = None,
        warn: bool = True,
        **hyper: Any,
    ) -> RankingFit:
        """Fit one model.

        Parameters
        ----------
        method : {"naive", "laplace", "nuts"}
            Engine (see the module docstring).
        prior : {"normal", "hierarchical", "horseshoe", "none"}, optional
            Bias prior; default ``"normal"`` for Laplace (the paper's lambda_b = 0.1)
            and ``"horseshoe"`` for NUTS; ``method="naive"`` forces ``"none"``.
        random_seed : int, optional
            Same seed, same draws.
        position : bool
            Include the position term kappa.
        draws : int
            Laplace draws (S; 1500 as in the paper) or NUTS draws per chain.
        lam, lam_b, lam_judge : float
            Prior precisions of theta, of the bias coefficients (``"normal"``) and of
            the judge deviations (several judges, Laplace).
        log_likelihood : bool
            Store pointwise log-likelihoods (for :func:`compare_loo`).
        nuts : dict, optional
            ``chains``, ``tune``, ``target_accept``, ``backend`` for NUTS; default
            ``target_accept`` is 0.95 (0.99 with the horseshoe).
        warn : bool
            Emit an :class:`~judgebayes.pairwise.IdentifiabilityWarning` for design
            problems.
        **hyper
            Further prior settings of :func:`~judgebayes.models.bradley_terry.bradley_terry_model`
            (``tau0``, ``slab_scale``, ``theta="zero_sum"``, ...).
        """
        if method not in METHODS:
            raise InputError(
                f"method must be one of {METHODS}, got {method!r}", field="method", value=method
            )
        if prior is None:
            prior = "horseshoe" if method == "nuts" else "normal"
        if method == "naive":
            prior = "none"
        from judgebayes.models.bradley_terry import PRIORS

        if prior not in PRIORS:
            raise InputError(
                f"prior must be one of {PRIORS}, got {prior!r}", field="prior", value=prior
            )
        if self.data.n == 0:
            raise InputError("there are no comparisons to fit", field="comparisons", value=0)
        if warn:
            warn_identifiability(
                self.data if prior != "none" else self.data.without_covariates(),
                position=prior != "none" and position,
            )
        t0 = time.perf_counter()
        if method in ("naive", "laplace") and prior in ("none", "normal", "hierarchical"):
            fit = self._fit_analytic(
                prior, position, lam, lam_b, lam_judge, draws, random_seed, log_likelihood
            )
        elif method == "laplace":
            fit = self._fit_generic_laplace(prior, position, draws, random_seed, lam, hyper)
        else:
            fit = self._fit_nuts(
                prior, position, draws, random_seed, lam, lam_b, hyper, nuts or {}, log_likelihood
            )
        fit.info["seconds"] = time.perf_counter() - t0
        self.fits[fit.label] = fit
        return fit

    def _fit_analytic(
        self, prior, position, lam, lam_b, lam_judge, draws, seed, loglik
    ) -> RankingFit:
        import arviz as az

        from judgebayes.inference.bradley_terry import (
            bt_design,
            fit_map,
            fit_map_empirical_bayes,
            laplace_draws,
        )

        d = self.data
        design = bt_design(
            d, bias=prior != "none", position=position, lam=lam, lam_b=lam_b, lam_judge=lam_judge
        )
        res = fit_map_empirical_bayes(design) if prior == "hierarchical" else fit_map(design)
        rng = np.random.default_rng(seed)
        beta = laplace_draws(res, draws, rng)
        N = d.n_items
        post: dict[str, np.ndarray] = {"theta": beta[None, :, :N]}
        coords: dict[str, list] = {"item": list(d.items)}
        dims: dict[str, list[str]] = {"theta": ["item"]}
        shared = np.flatnonzero(design.bias_level == "shared")
        if shared.size:
            names = [design.bias_names[i] for i in shared]
            b = beta[:, N + shared]
            post["b"] = b[None]
            coords["bias"] = names
            dims["b"] = ["bias"]
            J = len(d.judges)
            if J > 1:
                P = shared.size
                dev = beta[:, N + P :].reshape(draws, J, P)
                post["b_judge"] = (b[:, None, :] + dev)[None]
                coords["judge"] = list(d.judges)
                dims["b_judge"] = ["judge", "bias"]
        kw: dict[str, Any] = {}
        if loglik:
            eta = np.asarray(design.Z @ beta.T).T  # (S, n)
            ll = d.y * -np.logaddexp(0, -eta) + (1 - d.y) * -np.logaddexp(0, eta)
            kw = {"log_likelihood": {"y": ll[None]}, "observed_data": {"y": d.y}}
            coords["comparison"] = list(range(d.n))
            dims["y"] = ["comparison"]
        idata = az.from_dict(posterior=post, coords=coords, dims=dims, **kw)
        method = "naive" if prior == "none" else "laplace"
        info = {"iterations": res.iterations, "objective": res.objective, "draws": draws}
        if prior == "hierarchical":
            info["lam_b"] = res.lam_b
            info["tau_b"] = float(1 / np.sqrt(res.lam_b))
        return RankingFit(method, prior, d, idata, res.theta.copy(), None, info, map_result=res)

    def _fit_generic_laplace(self, prior, position, draws, seed, lam, hyper) -> RankingFit:
        from judgebayes.inference.laplace import fit_laplace

        spec = self.model_spec(prior, position=position, lam=lam, **hyper)
        idata, info = fit_laplace(spec, draws=draws, random_seed=seed)
        # the mode of theta: draws are symmetric around it in the unconstrained space
        point = np.asarray(idata.posterior["theta"].median(("chain", "draw")).values)
        return RankingFit("laplace", prior, self.data, idata, point, None, dict(info))

    def _fit_nuts(
        self, prior, position, draws, seed, lam, lam_b, hyper, nuts, loglik
    ) -> RankingFit:
        from judgebayes.inference.sampling import add_log_likelihood, sample_nuts

        extra = dict(hyper)
        if prior == "normal":
            extra["lam_b"] = lam_b
        spec = self.model_spec(prior, position=position, lam=lam, **extra)
        opts = {"chains": 4, "tune": 1000, "target_accept": 0.99 if prior == "horseshoe" else 0.95}
        opts.update(nuts)
        idata, diag, info = sample_nuts(spec, random_seed=seed, draws=draws, **opts)
        if loglik:
            add_log_likelihood(idata, spec)
        point = idata.posterior["theta"].mean(("chain", "draw")).values
        return RankingFit(
            "nuts",
            prior,
            self.data,
            idata,
            np.asarray(point),
            diag,
            dict(info),
        )


# ------------------------------------------------------------------ comparisons
def compare_loo(fits: dict[str, RankingFit] | Sequence[RankingFit]) -> pd.DataFrame:
    """``az.compare`` (PSIS-LOO) of fits that stored log-likelihoods."""
    import arviz as az

    if not isinstance(fits, dict):
        fits = {f.label: f for f in fits}
    missing = [k for k, f in fits.items() if "log_likelihood" not in f.idata.groups()]
    if missing:
        raise InputError(
            f"fits {missing} have no log-likelihood; refit with log_likelihood=True",
            field="log_likelihood",
            value=missing,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return az.compare({k: f.idata for k, f in fits.items()}, ic="loo")


def compare_posteriors(
    fits: dict[str, RankingFit] | Sequence[RankingFit], *, alpha: float = 0.05, plot: bool = False
):
    """Posterior mean, sd and interval of theta and the bias coefficients, per fit.

    Returns a tidy DataFrame (parameter, fit, mean, sd, lower, upper); with
    ``plot=True`` also an ``az.plot_forest`` of the fits side by side.
    """
    import pandas as pd

    if not isinstance(fits, dict):
        fits = {f.label: f for f in fits}
    rows = []
    for name, f in fits.items():
        th = f.theta_draws()
        pars = [(f"theta[{it}]", th[:, i]) for i, it in enumerate(f.data.items)]
        b = f.bias_draws()
        pars += [(f"b[{nm}]", b[:, m]) for m, nm in enumerate(f.bias_names)]
        for p, dr in pars:
            lo, hi = np.quantile(dr, [alpha / 2, 1 - alpha / 2])
            rows.append(
                {
                    "parameter": p,
                    "fit": name,
                    "mean": dr.mean(),
                    "sd": dr.std(),
                    "lower": lo,
                    "upper": hi,
                }
            )
    df = pd.DataFrame(rows)
    if not plot:
        return df
    import arviz as az

    names = list(fits)
    var_names = [v for v in ("b", "theta") if all(v in fits[n].idata.posterior for n in names)]
    axes = az.plot_forest(
        [fits[n].idata for n in names],
        model_names=names,
        var_names=var_names,
        combined=True,
        hdi_prob=1 - alpha,
        figsize=(7, 0.25 * len(df) / max(len(names), 1) + 2),
    )
    return df, axes
