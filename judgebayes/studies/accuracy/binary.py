r"""The binary judge with one calibration set: one or several systems sharing it.

:class:`BinaryAccuracy` (``AccuracyStudy.from_counts``, ``from_frames`` without strata):
the judge's sensitivity :math:`q_1` and specificity :math:`q_0` from the calibration set,
each system's judged count :math:`k \sim \text{Bin}(n, \theta q_1 + (1-\theta)(1-q_0))`.
The calibration ``design`` is "stratified" (labels drawn per true class: the class counts
say nothing of theta), "random" (a random sample of the test distribution: its class
counts inform theta; one system) or "shifted" (a random sample of another distribution).

Methods: ``closed_form`` (Rogan-Gladen with the Lang-Reiczigel interval; double sampling
for the random design), ``exact`` (the posterior by quadrature), ``laplace``, ``nuts``.
The judge is assumed better than chance (q0 + q1 > 1) by every engine; what that excludes
is measured (:attr:`BinaryAccuracy.mirror_mass`) and reported.
"""

from __future__ import annotations

import warnings
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.errors import InputError, MethodRefused, MirrorWarning
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.inference.accuracy.exact import MIRROR_WARN, exact_posterior, mirror_probability
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig, check_count
from judgebayes.models import accuracy as ma
from judgebayes.results import tree
from judgebayes.studies.accuracy.base import AccuracyStudy, TwoFrames
from judgebayes.studies.base import FitParts

__all__ = ["NOT_BETTER_THAN_CHANCE", "BinaryAccuracy", "accuracy_table", "better_than_chance_mass"]

NOT_BETTER_THAN_CHANCE = "judge no better than chance on the calibration set (q0 + q1 <= 1)"


class BinaryAccuracy(AccuracyStudy):
    """A binary judge, one calibration set shared by every system (module docstring)."""

    key = "accuracy.binary"
    kind = "binary"
    #: low-dimensional, but q0 and q1 are shared by every system: at 0.8 a two-system fit
    #: diverged in 5 of 8 seeds (1-2 divergences each, the CLI test's data); at 0.9 in none,
    #: for the same time per fit
    sampler = SamplerConfig(target_accept=0.9)
    priority = 30  # asked last: the counts the other variants do not claim

    @classmethod
    def matches(cls, data: TwoFrames) -> bool:
        """Binary counts: no K-class counts (and no strata: asked after them)."""
        return data.multiclass is None

    def _validate(self) -> None:
        if self.test is None or self.calibration is None:
            raise InputError("give test and calibration counts", field="test")
        if self.design == "random" and len(self.test.systems) != 1:
            raise InputError(
                "design='random' (calibration drawn from the test distribution) needs exactly "
                f"one system; got {len(self.test.systems)}",
                field="design",
                value=self.design,
            )

    def _counts(self):
        """(k, n) per system and the pooled calibration's (tp, m1, tn, m0) as ints."""
        k, n, _ = self.test.per_system()
        cal = self.calibration.pooled()
        return k, n, *(int(getattr(cal, a)[0]) for a in ("tp", "m1", "tn", "m0"))

    def model_spec(self) -> ModelSpec:
        """The binary model (:func:`~judgebayes.models.accuracy.binary_accuracy_model`)."""
        k, n, tp, m1, tn, m0 = self._counts()
        data = dict(k=k, n=n, tp=tp, m1=m1, tn=tn, m0=m0)
        structure = dict(
            systems=self.systems,
            design=self.design,
            priors=self.priors,
            better_than_chance=self.better_than_chance,
        )
        names = ("theta", "q0", "q1") + (("theta_cal",) if self.design == "shifted" else ())
        start = cf.moment_start(k / np.maximum(n, 1), tn / m0, tp / m1)
        init = None
        if start["ok"].all():
            rates = ("u0", "u1") if self.better_than_chance else ("q0", "q1")
            init = {"theta": start["theta"], **{r: start[r][0] for r in rates}}
        return ModelSpec(
            ma.binary_accuracy_model, data, structure, names, init, sampler=self.sampler
        )

    # ----------------------------------------------------------------- the mirror
    def _prepare(self, method) -> None:
        if method.name != "closed_form":
            self._check_restriction()

    def _info(self, method, parts: FitParts) -> dict:
        info = super()._info(method, parts)
        if self._mirror_matters(method):
            info["p_mirror"] = self.mirror_mass
        return info

    def _mirror_matters(self, method) -> bool:
        """A posterior's mirror mode is always checked; a closed form (no prior, no mode)
        only where its raw rates already put the judge at or below chance, where the
        mass says whether the labels look flipped (the quadrature costs far more than a
        closed form).
        """
        if method.engine != "closed_form":
            return True
        _, _, tp, m1, tn, m0 = self._counts()
        return tn / max(m0, 1) + tp / max(m1, 1) <= 1

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        if "p_mirror" not in info:
            return ()
        note = self._mirror_note(posterior=method.engine != "closed_form")
        if note is None:
            return ()
        warnings.warn(note, MirrorWarning, stacklevel=3)
        return (note,)

    def _check_restriction(self) -> None:
        """Refuse a Bayesian fit whose better-than-chance prior the calibration contradicts."""
        if not self.better_than_chance:
            return
        _, _, tp, m1, tn, m0 = self._counts()
        mass = better_than_chance_mass(tp, m1, tn, m0)
        if mass < 1e-3:
            raise MethodRefused(
                f"better_than_chance=True (the default) excludes the data: the calibration "
                f"counts give q0 + q1 > 1 a probability of only {mass:.2g} "
                f"(q0={tn}/{m0}, q1={tp}/{m1}); the judge looks worse than chance (are its "
                "labels flipped?); pass better_than_chance=False to fit the unrestricted model",
                field="better_than_chance",
                value=True,
            )

    @cached_property
    def mirror_mass(self) -> float:
        """P(q0 + q1 < 1 | data) under the unrestricted prior (NaN for the random design,
        whose class counts inform theta, which the rule does not integrate).  A property
        of the data, computed once.
        """
        if self.design == "random":
            return float("nan")
        k, n, tp, m1, tn, m0 = self._counts()
        return mirror_probability(
            k, n, tp, m1, tn, m0, q0_prior=self.priors.q0, q1_prior=self.priors.q1
        )

    def _mirror_note(self, posterior: bool = True) -> str | None:
        """What :attr:`mirror_mass` calls for: for a posterior above :data:`MIRROR_WARN`; a
        closed form has no mirror mode (it is NaN where the raw rates give q0 + q1 <= 1),
        so for it only where the data favour the mirror (flipped labels?).
        """
        p = self.mirror_mass
        if not p > (MIRROR_WARN if posterior else 0.5):
            return None
        where = (
            "a closed form uses the raw rates"
            if not posterior
            else "this fit excludes it (better_than_chance=True)"
            if self.better_than_chance
            else "this fit's posterior includes that mode"
        )
        say = (
            "the data favour a judge worse than chance (are its labels flipped?)"
            if p > 0.5
            else "the data do not rule out a judge worse than chance (the mirror mode)"
        )
        return (
            f"P(q0 + q1 < 1 | data) = {p:.2f} under the unrestricted prior: {say}; {where}. "
            "More calibration labels of both classes settle it"
        )

    # ----------------------------------------------------------------- checks' pieces
    def _reachable_rate_draws(self, draws: int, rng) -> np.ndarray:
        r"""Draws of the judged rate :math:`p = \theta q_1 + (1 - \theta)(1 - q_0)` with
        :math:`\theta \sim U(0, 1)` and the calibration-only Beta posteriors of
        :math:`q_0, q_1`: the transfer check's predictive (q0, q1, then p drawn).
        """
        _, _, tp, m1, tn, m0 = self._counts()
        q0 = rng.beta(1 + tn, 1 + m0 - tn, draws)
        q1 = rng.beta(1 + tp, 1 + m1 - tp, draws)
        return rng.random(draws) * (q0 + q1 - 1) + (1 - q0)

    def transfer_rows(self, draws: int = 20_000, random_seed: int = 0) -> list[dict]:
        r"""The transfer check (:mod:`judgebayes.checks.accuracy.transfer`): is each system's judged
        rate :math:`k/n` reachable from the calibrated rates, i.e. in
        :math:`[1 - q_0, q_1]`?  Its predictive under :math:`\theta \sim U(0, 1)` and the
        calibration posteriors of :math:`q_0, q_1` (``draws`` Monte-Carlo draws) gives a
        two-sided p-value; a small one says the test set's judge behaves unlike the
        calibration set's (a shift), whatever theta.
        """
        p = self._reachable_rate_draws(draws, np.random.default_rng(random_seed))
        k, n, _ = self.test.per_system()
        rows = []
        for i, name in enumerate(self.systems):
            if n[i] == 0:
                continue
            cdf = stats.binom.cdf(k[i], n[i], p).mean()
            sf = stats.binom.sf(k[i] - 1, n[i], p).mean()
            rows.append(
                {
                    "unit": name,
                    "count": "k",
                    "observed": int(k[i]),
                    "total": int(n[i]),
                    "expected": float(n[i] * p.mean()),
                    "p_raw": float(min(1.0, 2 * min(cdf, sf))),
                }
            )
        return rows

    def transfer_predictive(self, draws: int = 4000, random_seed: int = 0):
        r"""The predictive the transfer check tests, as a ``DataTree`` for ArviZ's plots
        (:func:`judgebayes.results.plot_check`): ``k`` over ``system``, the judged count
        drawn with :math:`\theta \sim U(0, 1)` and the calibration posteriors of
        :math:`q_0, q_1`.  Groups ``posterior_predictive`` (one chain of ``draws``) and
        ``observed_data``.
        """
        rng = np.random.default_rng(random_seed)
        p = self._reachable_rate_draws(draws, rng)
        k, n, _ = self.test.per_system()
        keep = n > 0
        coords = {"system": [s for s, ok in zip(self.systems, keep, strict=True) if ok]}
        return tree(
            {
                "posterior_predictive": {"k": rng.binomial(n[keep][None, :], p[:, None])[None]},
                "observed_data": {"k": np.asarray(k)[keep]},
            },
            coords=coords,
            dims={"k": ["system"]},
        )

    def judged_replicates(self, fit, rng) -> tuple[np.ndarray, np.ndarray]:
        """(replicated judged counts (draws, systems), observed counts): the ppc's pieces."""
        if "p" not in fit.tree.posterior:
            raise InputError("ppc needs the judge's rate p (nuts or laplace)", field="method")
        k, n, _ = self.test.per_system()
        return rng.binomial(n[None, :], fit.draws("p").values), k


def better_than_chance_mass(tp, m1, tn, m0, nodes: int = 128) -> float:
    r"""P(q0 + q1 > 1) under the calibration-only posteriors
    :math:`q_1 \sim \text{Beta}(1 + tp, 1 + m_1 - tp)`, :math:`q_0 \sim \text{Beta}(1 + tn,
    1 + m_0 - tn)`: the prior-data conflict check of the better-than-chance prior.

    As :math:`E_{q_1}[P(q_0 > 1 - q_1)] = \int_0^1 S_0(1 - F_1^{-1}(u))\,du`, a smooth
    integral over :math:`q_1`'s quantiles however concentrated the Betas are, by
    ``nodes`` Gauss-Legendre nodes in one vectorised call.  The mass beyond the outermost
    node is at most :math:`1 - u_{max}` (8.8e-5 at 128 nodes), so the 1e-3 refusal can
    change only for data within 1e-4 of it.
    """
    x, w = np.polynomial.legendre.leggauss(nodes)
    u = (x + 1) / 2
    q1 = stats.beta.ppf(u, 1 + tp, 1 + m1 - tp)
    return float(np.sum(w / 2 * stats.beta.sf(1 - q1, 1 + tn, 1 + m0 - tn)))


def accuracy_table(study: BinaryAccuracy, alpha: float = 0.05) -> pd.DataFrame:
    """Naive and corrected accuracy per system, with intervals, of a binary study.

    The corrected columns are the study's ``closed_form`` fit (Rogan-Gladen, clipped; the
    Lang-Reiczigel interval, its notes); beside them the judge's raw rate with its Wilson
    interval and the calibration counts.

    Returns
    -------
    DataFrame
        One row per system: ``system, n, n_missing, k, naive, naive_lower, naive_upper``
        (Wilson), ``m0, m1, calibration_n_missing, q0, q1``, ``estimate, lower, upper``,
        ``degenerate`` and ``note``.
    """
    if not isinstance(study, BinaryAccuracy):
        kind = getattr(study, "kind", type(study).__name__)
        raise InputError(
            f"accuracy_table summarises a binary study; this one is {kind!r}",
            field="kind",
            value=kind,
        )
    k, n, miss = study.test.per_system()
    cal = study.calibration.pooled()
    fit = study.fit("closed_form")
    tab = fit.interval(alpha)
    lo, hi = cf.wilson_interval(k, n, alpha)
    notes = fit.info["unit_notes"]
    return pd.DataFrame(
        {
            "system": list(study.systems),
            "n": n,
            "n_missing": miss,
            "k": k,
            "naive": np.asarray(cf.naive_rate(k, n), dtype=float),
            "naive_lower": np.atleast_1d(lo),
            "naive_upper": np.atleast_1d(hi),
            "m0": int(cal.m0[0]),
            "m1": int(cal.m1[0]),
            "calibration_n_missing": int(cal.n_missing[0]),
            "q0": cal.tn[0] / cal.m0[0],
            "q1": cal.tp[0] / cal.m1[0],
            "estimate": tab["estimate"].to_numpy(),
            "lower": tab["lower"].to_numpy(),
            "upper": tab["upper"].to_numpy(),
            "degenerate": fit.info["degenerate"],
            "note": [notes.get(s, "") for s in study.systems],
        }
    )


# =========================================================================== methods


@BinaryAccuracy.methods.register(
    "closed_form", engine="closed_form", summary="Rogan-Gladen + Lang-Reiczigel"
)
def _closed_form(study: BinaryAccuracy, *, random_seed=None) -> FitParts:
    k, n, tp, m1, tn, m0 = study._counts()
    if study.design == "random":
        return _double_sampling(study, k, n, tp, m1, tn, m0)

    def ifn(alpha):
        c2 = cf.lang_reiczigel_from_counts(k, n, tp, m1, tn, m0, alpha)
        return np.atleast_1d(c2.lower), np.atleast_1d(c2.upper)

    ci = cf.lang_reiczigel_from_counts(k, n, tp, m1, tn, m0)
    est = np.atleast_1d(ci.estimate)
    degen = np.broadcast_to(np.asarray(ci.degenerate), est.shape)
    contains = np.broadcast_to(np.asarray(ci.contains_estimate), est.shape)
    unit_notes = {}
    for i, s in enumerate(study.systems):
        if n[i] == 0:
            unit_notes[s] = "no usable verdicts"
        elif np.isnan(est[i]):
            unit_notes[s] = NOT_BETTER_THAN_CHANCE
        elif degen[i]:
            unit_notes[s] = "two-sided interval outside [0, 1]: one-sided bound reported"
        elif not contains[i]:
            unit_notes[s] = (
                "interval excludes the point estimate: a calibration class has only 1-2 "
                "items, so the adjusted rates differ strongly from the raw ones"
            )
    notes = [
        f"system {s!r} has no usable verdicts: NaN"
        for s, ni in zip(study.systems, n, strict=True)
        if not ni
    ]
    if tn / m0 + tp / m1 <= 1:
        notes.append(NOT_BETTER_THAN_CHANCE + ": the closed form is undefined (NaN)")
    return FitParts(
        study._point({"theta": est, "q0": tn / m0, "q1": tp / m1}),
        interval_fn=ifn,
        notes=tuple(notes),
        info={
            "estimator": "Rogan-Gladen (clipped), Lang-Reiczigel interval",
            "degenerate": degen.tolist(),
            "unit_notes": unit_notes,
        },
    )


def _double_sampling(study: BinaryAccuracy, k, n, tp, m1, tn, m0) -> FitParts:
    """Closed form of the random design (``closed_form.double_sampling``)."""
    est = cf.double_sampling(k, n, tp, m1, tn, m0)

    def ifn(alpha):
        e = cf.double_sampling(k, n, tp, m1, tn, m0, alpha)
        return np.atleast_1d(e.lower), np.atleast_1d(e.upper)

    notes = ()
    if not np.all(np.isfinite(np.atleast_1d(est.estimate))):
        notes = ("the judge gave one verdict only on the calibration sample: NaN",)
    return FitParts(
        study._point({"theta": np.atleast_1d(est.estimate), "q0": tn / m0, "q1": tp / m1}),
        interval_fn=ifn,
        notes=notes,
        info={
            "estimator": "double sampling (Tenenbein 1970): the calibration's share of "
            "true positives among the judge's positives and negatives, applied to the "
            "judge's rate on all n + m items; delta-method Wald interval",
            "degenerate": [False] * len(study.systems),
            "unit_notes": {},
        },
    )


@BinaryAccuracy.methods.register("exact", engine="exact", summary="exact posterior by quadrature")
def _exact(
    study: BinaryAccuracy, *, random_seed=None, draws: int = 4000, nodes: int = 64
) -> FitParts:
    """The binary model's posterior by ``nodes``-point quadrature; ``draws`` draws of it."""
    if study.design != "stratified" or study.priors.theta != (1.0, 1.0):
        raise MethodRefused(
            "method='exact' is available for the binary model with a stratified "
            "calibration design and the uniform theta prior; use 'nuts'",
            field="design" if study.design != "stratified" else "priors",
            value=study.design if study.design != "stratified" else study.priors.theta,
        )
    if len(study.systems) != 1:
        raise MethodRefused(
            "method='exact' handles one system (systems sharing a calibration set are "
            "coupled through q0, q1); use 'nuts'",
            field="system",
            value=len(study.systems),
        )
    nodes = check_count(nodes, "nodes")
    k, n, tp, m1, tn, m0 = study._counts()
    ep = exact_posterior(
        k,
        n,
        np.array([tp]),
        np.array([m1]),
        np.array([tn]),
        np.array([m0]),
        q0_prior=study.priors.q0,
        q1_prior=study.priors.q1,
        better_than_chance=study.better_than_chance,
        nodes=nodes,
    )
    th = np.asarray(ep.sample(draws, random_seed))

    def ifn(alpha):
        return np.atleast_1d(ep.quantile(alpha / 2)), np.atleast_1d(ep.quantile(1 - alpha / 2))

    return FitParts(
        tree(
            {"posterior": {"theta": th.reshape(1, draws, 1)}},
            coords={"system": list(study.systems)},
            dims={"theta": ["system"]},
        ),
        interval_fn=ifn,
        point=np.atleast_1d(ep.mean()),
        info={"nodes": nodes, "draws": draws},
    )
