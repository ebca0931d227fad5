r"""Independent binary accuracy problems at once: the split protocol's splits, coverage studies.

:class:`ReplicateStudy` puts R independent binary problems on a ``replicate`` dim with
nothing shared (:func:`~judgebayes.models.accuracy.batched_accuracy_model`): the joint
posterior is the product of the per-replicate posteriors, so one NUTS run (one compile)
fits all of them, with a convergence verdict per replicate, and Laplace goes block by
block so that one flat replicate does not sink the rest.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from judgebayes.data.accuracy import check_counts
from judgebayes.errors import InputError
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.inference.accuracy.exact import MIRROR_WARN, mirror_probability
from judgebayes.inference.laplace import K_HAT_MAX
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import accuracy as ma
from judgebayes.results import tree
from judgebayes.studies.accuracy.fit import AccuracyFit
from judgebayes.studies.base import FitParts, Study

__all__ = ["ReplicateStudy"]


class ReplicateStudy(Study):
    r"""Independent binary accuracy problems along a ``replicate`` dim; fits by method.

    Each replicate is one system with its own stratified calibration set (the split
    protocol's splits, a coverage study's datasets): nothing is shared, so the joint
    posterior is the product of the per-replicate posteriors and one fit covers all of
    them (:func:`~judgebayes.models.accuracy.batched_accuracy_model`; one NUTS run, one
    compile; Laplace block by block, so one flat replicate does not sink the rest).

    Fits are :class:`AccuracyFit` with ``unit="replicate"``.  A replicate without a test
    item or without a calibration item of either class is undefined: its counts enter no
    likelihood, its estimate and interval are NaN and ``fit.notes`` counts it.

    Parameters
    ----------
    k, n, tp, m1, tn, m0 : array of int, shape (R,)
        Test and calibration counts per replicate.
    replicates : sequence of str, optional
        Replicate names (default ``"0" .. "R-1"``).
    priors : AccuracyPriors, optional
        Beta priors (default uniform).
    better_than_chance : bool
        Restrict every replicate's prior to q0 + q1 > 1 (default, as
        :class:`AccuracyStudy`); every fit's ``info["p_mirror"]`` has each replicate's
        P(q0 + q1 < 1 | data) under the unrestricted prior, and ``notes`` counts the
        replicates above 1%.
    """

    family = "accuracy"
    key = "accuracy.replicates"
    fit_type = AccuracyFit
    #: one NUTS run over hundreds of small posteriors, some pressed against theta in
    #: {0, 1}; 0.95 keeps divergences at 0
    sampler = SamplerConfig(target_accept=0.95)
    default_method = "nuts"
    default_methods = ("closed_form", "laplace", "nuts")

    def __init__(
        self, k, n, tp, m1, tn, m0, *, replicates=None, priors=None, better_than_chance=True
    ):
        for name, c, tot, tname in (("k", k, n, "n"), ("tp", tp, m1, "m1"), ("tn", tn, m0, "m0")):
            check_counts(name, c, tot, total_name=tname)
        arrs = [np.atleast_1d(np.asarray(x)) for x in (k, n, tp, m1, tn, m0)]
        size = arrs[0].size
        for name, a in zip(("k", "n", "tp", "m1", "tn", "m0"), arrs, strict=True):
            if a.ndim != 1 or a.size != size:
                raise InputError(
                    f"{name} must be one count per replicate ({size}); got shape {a.shape}",
                    field=name,
                    value=a.shape,
                )
        self.k, self.n, self.tp, self.m1, self.tn, self.m0 = (a.astype(np.int64) for a in arrs)
        self.replicates = (
            tuple(map(str, replicates)) if replicates is not None else tuple(map(str, range(size)))
        )
        if len(self.replicates) != size:
            raise InputError(
                f"replicates names {len(self.replicates)} labels for {size} replicates",
                field="replicates",
                value=len(self.replicates),
            )
        self.priors = ma.AccuracyPriors() if priors is None else priors
        self.better_than_chance = bool(better_than_chance)

    @property
    def defined(self) -> np.ndarray:
        """Replicates with a test item and calibration items of both classes."""
        return (self.m0 > 0) & (self.m1 > 0) & (self.n > 0)

    def model_spec(self):
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of the batched model."""
        ok = self.defined
        data = {
            name: np.where(ok, getattr(self, name), 0)
            for name in ("k", "n", "tp", "m1", "tn", "m0")
        }
        start = cf.moment_start(
            self.k / np.maximum(self.n, 1),
            self.tn / np.maximum(self.m0, 1),
            self.tp / np.maximum(self.m1, 1),
            margin=0.05,
        )
        rates = ("u0", "u1") if self.better_than_chance else ("q0", "q1")
        init = {v: start[v] for v in ("theta", *rates)}
        structure = {
            "replicates": self.replicates,
            "priors": self.priors,
            "better_than_chance": self.better_than_chance,
        }
        return ModelSpec(
            ma.batched_accuracy_model,
            data,
            structure,
            ("theta", "q0", "q1"),
            init,
            sampler=self.sampler,
        )

    # ----------------------------------------------------------------- fit hooks
    def _info(self, method, parts: FitParts) -> dict:
        ok = self.defined
        p_mirror = np.full(ok.size, np.nan)
        if ok.any():
            p_mirror[ok] = mirror_probability(
                self.k[ok, None],
                self.n[ok, None],
                self.tp[ok],
                self.m1[ok],
                self.tn[ok],
                self.m0[ok],
                q0_prior=self.priors.q0,
                q1_prior=self.priors.q1,
                nodes=32,
            )
        return {"p_mirror": p_mirror, "estimand": "process"}

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        ok = self.defined
        notes = []
        if not ok.all():
            notes.append(
                f"{int((~ok).sum())} of {ok.size} replicates lack a test item or a calibration "
                "class: NaN"
            )
        high = int(np.sum(info["p_mirror"] > MIRROR_WARN))
        if high:
            notes.append(
                f"{high} of {ok.size} replicates leave P(q0 + q1 < 1 | data) > {MIRROR_WARN:g} "
                "under the unrestricted prior (info['p_mirror']); "
                + (
                    "their fits exclude the mirror mode (better_than_chance=True)"
                    if self.better_than_chance
                    else "their posteriors include the mirror mode"
                )
            )
        return tuple(notes)

    def _attrs(self, method, parts: FitParts) -> dict:
        return {"kind": "replicates", "better_than_chance": self.better_than_chance}

    def _masked(self, parts: FitParts) -> FitParts:
        """Undefined replicates' theta set to NaN (their counts enter no likelihood)."""
        post = parts.idata["posterior"]
        ok = xr.DataArray(
            self.defined, dims=["replicate"], coords={"replicate": post["replicate"].values}
        )
        post["theta"] = post["theta"].where(ok)
        parts.extra["unit"] = "replicate"
        return parts


@ReplicateStudy.methods.register(
    "closed_form", engine="closed_form", summary="Rogan-Gladen + Lang-Reiczigel per replicate"
)
def _replicates_closed_form(study: ReplicateStudy, *, random_seed=None) -> FitParts:
    args = (study.k, study.n, study.tp, study.m1, study.tn, study.m0)
    ci = cf.lang_reiczigel_from_counts(*args)
    est = np.asarray(ci.estimate, float)

    def interval_fn(alpha):
        c2 = cf.lang_reiczigel_from_counts(*args, alpha)
        return np.asarray(c2.lower, float), np.asarray(c2.upper, float)

    notes = ()
    undefined = int((study.defined & np.isnan(est)).sum())
    if undefined:
        notes = (
            f"{undefined} replicate(s) have a judge no better than chance on their "
            "calibration (q0 + q1 <= 1): the closed form is undefined there (NaN)",
        )
    idata = tree(
        {"posterior": {"theta": est[None, None, :]}},
        coords={"replicate": list(study.replicates)},
        dims={"theta": ["replicate"]},
    )
    parts = FitParts(
        idata,
        interval_fn=interval_fn,
        notes=notes,
        info={"estimator": "Rogan-Gladen (clipped), Lang-Reiczigel interval"},
    )
    return study._masked(parts)


@ReplicateStudy.methods.register(
    "laplace", engine="laplace", summary="MAP + Laplace, block by block"
)
def _replicates_laplace(
    study: ReplicateStudy, *, random_seed=None, draws: int = 4000, importance: bool = True
) -> FitParts:
    """``draws`` per replicate; a replicate whose Hessian or importance check fails is NaN."""
    parts = study._laplace(
        study.model_spec(),
        random_seed,
        draws=draws,
        importance=importance,
        block_size=len(study.replicates),
    )
    notes = []
    if parts.info.get("failed_blocks"):
        notes.append(
            f"{len(parts.info['failed_blocks'])} replicate(s) have a flat direction at the "
            "mode: no Laplace approximation (NaN)"
        )
    if parts.info.get("refused_blocks"):
        notes.append(
            f"{len(parts.info['refused_blocks'])} replicate(s) have a posterior the Laplace "
            f"approximation does not fit (Pareto k-hat > {K_HAT_MAX}): NaN, use NUTS"
        )
    parts.notes = tuple(notes)
    return study._masked(parts)


@ReplicateStudy.methods.register(
    "nuts", engine="nuts", summary="NUTS on the batched model, a gate per replicate", mcmc=True
)
def _replicates_nuts(study: ReplicateStudy, *, random_seed=None, sampler=None) -> FitParts:
    """One NUTS run over every replicate; ``info["passed"]`` is each replicate's gate."""
    parts = study._nuts(study.model_spec(), sampler, random_seed)
    ok = study.defined
    passed = _replicate_gate(parts.idata, parts.diagnostics) & ok
    parts.info["passed"] = passed
    failed = int((ok & ~passed).sum())
    if failed:
        parts.notes = (
            f"{failed} of {int(ok.sum())} replicates failed the convergence gate "
            "(info['passed'] says which; do not pool them with the rest)",
        )
    return study._masked(parts)


def _replicate_gate(idata, diag) -> np.ndarray:
    """Per replicate, whether it passes the gate.

    Its own variables' R-hat and ESS within the thresholds, and the joint criteria
    (divergences, E-BFMI, tree depth) met by the batch.
    """
    import arviz as az

    post = idata["posterior"]
    names = [v for v in post.data_vars if "replicate" in post[v].dims]
    size = post.sizes["replicate"]
    ok = np.ones(size, bool)
    for fn, bad in (
        (lambda: az.rhat(idata, var_names=names), lambda x: ~(x <= diag.r_hat_threshold)),
        (
            lambda: az.ess(idata, var_names=names, method="bulk"),
            lambda x: ~(x >= diag.ess_threshold),
        ),
        (
            lambda: az.ess(idata, var_names=names, method="tail"),
            lambda x: ~(x >= diag.ess_threshold),
        ),
    ):
        ds = fn()
        for v in ds.data_vars:
            vals = ds[v].transpose("replicate", ...).values.reshape(size, -1)
            # an undefined replicate's masked draws are constant (NaN R-hat): ignored here
            ok &= ~np.any(bad(vals) & np.isfinite(vals), axis=1)
    joint = (
        diag.divergences == 0
        and not diag.bfmi_min < diag.bfmi_threshold
        and diag.max_depth_share <= diag.depth_threshold
    )
    return ok & joint
