"""The Bradley-Terry methods of a ranking study: naive, Laplace (Newton or PyMC's
unconstrained space), NUTS; the judge-error methods are the channel variant's
(:mod:`judgebayes.studies.ranking.channel`) and refused here with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judgebayes.inference.ranking.newton import (
    bt_design,
    fit_map_empirical_bayes,
    laplace_draws,
    log_likelihood,
)
from judgebayes.models.ranking import BiasPrior, HorseshoeBias, NoBias, NormalBias
from judgebayes.results import lazy_tree
from judgebayes.studies.base import FitParts
from judgebayes.studies.ranking.base import PairwiseRanking

for _name in ("judge_error", "ppi"):
    PairwiseRanking.methods.refuse(
        _name,
        f"method {_name!r} ranks by the human preference with the judges as noisy witnesses: "
        "it needs human preferences on some comparisons; build the study with "
        "from_frames(..., human='<column>')",
    )


@PairwiseRanking.methods.register("naive", engine="newton", summary="plain BT")
def _naive(
    ranking: PairwiseRanking,
    *,
    random_seed=None,
    draws: int = 1500,
    log_likelihood: bool = False,
    warn: bool = True,
    reference: str | None = None,
) -> FitParts:
    """Bradley-Terry without covariates or position: Newton MAP, ``draws`` Laplace draws;
    ``reference`` reports qualities relative to that item (default: sum to zero).
    """
    prior, _ = ranking._checked(NoBias(), warn=warn, position=False, reference=reference)
    parts = _newton(ranking, prior, False, draws, random_seed, log_likelihood, False)
    return ranking._identified(parts, reference, (ranking.data.first, ranking.data.second))


@PairwiseRanking.methods.register(
    "laplace", engine="newton", summary="bias-aware BT, MAP + Laplace"
)
def _laplace(
    ranking: PairwiseRanking,
    *,
    random_seed=None,
    prior: BiasPrior | str = NormalBias(),
    draws: int = 1500,
    position: bool = True,
    log_likelihood: bool = False,
    warn: bool = True,
    theta: str = "prior",
    reference: str | None = None,
    theta_spread: str | None = None,
) -> FitParts:
    """The bias-aware model at its mode with ``draws`` Laplace draws: Newton's method with
    the exact Hessian for a Gaussian ``prior`` (normal, hierarchical), PyMC's unconstrained
    space for the others (the horseshoe: to see where a Gaussian fails, not to report).
    ``theta_spread``: learn the qualities' spread (default: when an item-level covariate
    is in the model) or keep it fixed.
    """
    prior, learn = ranking._checked(
        prior, warn=warn, position=position, reference=reference, spread=theta_spread
    )
    if prior.newton:
        parts = _newton(ranking, prior, position, draws, random_seed, log_likelihood, learn)
    else:
        spec = ranking.model_spec(prior, position=position, theta=theta, learn_spread=learn)
        # the plain Gaussian: the importance check of the accuracy family is not run on the
        # ranking models (their Laplace fits are compared with NUTS in the tests)
        parts = ranking._laplace(spec, random_seed, draws=draws, importance=False)
        # the mode of theta: draws are symmetric around it in the unconstrained space
        parts.point = np.asarray(parts.idata.posterior["theta"].median(("chain", "draw")).values)
        parts.extra = {"prior": prior.name}
    parts.info["position"] = position
    return ranking._identified(parts, reference, (ranking.data.first, ranking.data.second))


def _newton(ranking, prior, position, draws, seed, loglik, learn_spread) -> FitParts:
    """The Gaussian-prior Bradley-Terry fit of the Newton engine, as fit parts."""
    d = ranking.data
    pr = ranking.priors
    design = bt_design(
        d,
        bias=prior.has_bias,
        position=position,
        lam=pr.lam,
        lam_b=pr.lam_b,
        lam_judge=pr.lam_judge,
        lam_nu=pr.lam_nu,
    )
    res = fit_map_empirical_bayes(design, learn_bias=prior.learns_scale, learn_theta=learn_spread)
    beta = laplace_draws(res, draws, np.random.default_rng(seed))
    N = d.n_items
    post: dict[str, np.ndarray] = {"theta": beta[None, :, :N]}
    coords: dict[str, list] = {"item": list(d.items)}
    dims: dict[str, list[str]] = {"theta": ["item"]}
    shared = np.flatnonzero(design.bias_level == "shared")
    if shared.size:
        b = beta[:, N + shared]
        post["b"] = b[None]
        coords["bias"] = [design.bias_names[i] for i in shared]
        dims["b"] = ["bias"]
        J = len(d.judges)
        if J > 1:
            judge_cols = N + np.flatnonzero(design.bias_level == "judge")
            dev = beta[:, judge_cols].reshape(draws, J, shared.size)
            post["b_judge"] = (b[:, None, :] + dev)[None]
            coords["judge"] = list(d.judges)
            dims["b_judge"] = ["judge", "bias"]
    if design.davidson:
        post["nu"] = np.exp(beta[None, :, -1])
    groups: dict[str, dict] = {"posterior": post}
    if loglik:
        groups |= {
            "log_likelihood": {"y": log_likelihood(design, beta)[None]},
            "observed_data": {"y": d.y},
        }
        coords["comparison"] = list(range(d.n))
        dims["y"] = ["comparison"]
    info = {"iterations": res.iterations, "objective": res.objective, "draws": draws}
    if prior.learns_scale and res.lam_b is not None:
        info["lam_b"] = res.lam_b
        info["tau_b"] = float(1 / np.sqrt(res.lam_b))
    if res.lam_theta is not None:
        info["theta_sd"] = float(1 / np.sqrt(res.lam_theta))
    return FitParts(
        lazy_tree(groups, "item", d.items, answer="theta", coords=coords, dims=dims),
        info=info,
        point=res.theta.copy(),
        extra={"prior": prior.name, "map_result": res},
    )


@PairwiseRanking.methods.register("nuts", engine="nuts", summary="bias-aware BT, NUTS", mcmc=True)
def _nuts(
    ranking: PairwiseRanking,
    *,
    random_seed=None,
    prior: BiasPrior | str = HorseshoeBias(),
    sampler=None,
    position: bool = True,
    log_likelihood: bool = False,
    warn: bool = True,
    theta: str = "prior",
    reference: str | None = None,
    theta_spread: str | None = None,
    instance: Sequence | None = None,
    prior_draws: int = 0,
    posterior_predictive: bool = False,
) -> FitParts:
    """NUTS on the bias-aware model with any ``prior`` (a
    :class:`~judgebayes.models.ranking.BiasPrior` or its name; the regularized horseshoe
    by default).  ``instance`` (one id per kept comparison): the comparisons of one id (the
    two presentation orders of a pair) share an instance effect, a deviation of that pair's
    quality difference with a learned sd (``instance_sd``); default: the study's
    ``instance``, when it has one.
    """
    prior, learn = ranking._checked(
        prior, warn=warn, position=position, reference=reference, spread=theta_spread
    )
    inst = ranking.instance if instance is None else ranking._instance_index(instance)
    spec = ranking.model_spec(
        prior, position=position, theta=theta, learn_spread=learn, instance=inst
    )
    parts = ranking._nuts(
        spec,
        sampler,
        random_seed,
        log_likelihood=log_likelihood,
        prior_draws=prior_draws,
        posterior_predictive=posterior_predictive,
    )
    if inst is not None:
        parts.notes = (
            f"instance effect on {int(inst.max()) + 1} instances: the two presentation "
            "orders of a pair share one deviation of its quality difference",
        )
    parts.info["position"] = position
    parts.extra = {"prior": prior.name, "instance": inst}
    return ranking._identified(parts, reference, (ranking.data.first, ranking.data.second))
