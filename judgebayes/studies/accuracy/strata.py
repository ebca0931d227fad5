r"""Calibration strata: the judge's rates differ by stratum, partially pooled.

:class:`StrataAccuracy` (``AccuracyStudy.from_frames(..., stratum=...)``): each stratum
:math:`t` has its own judge rates, logit-normal around the judge's typical ones with a
learnt spread (:func:`~judgebayes.models.accuracy.stratified_accuracy_model`), and a
system's rate is its strata's rates weighted by its test shares.  Closed form: per-stratum
Rogan-Gladen, share-weighted, with a delta-method Wald interval.  Laplace is refused (its
Gaussian does not fit the learnt spread: measured below).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from judgebayes.errors import InputError
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import accuracy as ma
from judgebayes.results import tree
from judgebayes.studies.accuracy.base import AccuracyStudy, TwoFrames
from judgebayes.studies.base import FitParts

__all__ = ["STRATA_LAPLACE", "StrataAccuracy"]

#: why the pooled-strata model has no Laplace fit (BENCHMARKS.md has the measurements)
STRATA_LAPLACE = (
    "Laplace is not offered for the pooled-strata model: its judge rates are a non-centred "
    "hierarchy (a learned spread between strata), and a Gaussian at the mode is far too "
    "wide and fails the importance check, even with hundreds of labels per class and "
    "stratum; use method='nuts'"
)


class StrataAccuracy(AccuracyStudy):
    """Calibration strata with partially pooled judge rates (module docstring)."""

    key = "accuracy.strata"
    kind = "strata"
    #: a funnel in the spread of the judge's logit rates; with few strata 0.95 still left
    #: divergences (17 in 2 fits on LLMBar), 0.99 none
    sampler = SamplerConfig(target_accept=0.99)
    priority = 20

    @classmethod
    def matches(cls, data: TwoFrames) -> bool:
        """Calibration counts split by a stratum column (or in several strata)."""
        cal = data.calibration
        return (
            data.multiclass is None
            and cal is not None
            and (cal.by is not None or len(cal.strata) > 1)
        )

    def _validate(self) -> None:
        super()._validate()
        test, cal = self.test, self.calibration
        if tuple(test.strata) != tuple(cal.strata):
            raise InputError(
                f"test strata {list(test.strata)} and calibration strata "
                f"{list(cal.strata)} differ: every stratum needs both",
                field="stratum",
                value=sorted(set(test.strata) ^ set(cal.strata)),
            )

    def model_spec(self) -> ModelSpec:
        """The pooled-strata model (:func:`~.models.accuracy.stratified_accuracy_model`)."""
        c, t = self.calibration, self.test
        data = dict(k=t.k, n=t.n, tp=c.tp, m1=c.m1, tn=c.tn, m0=c.m0)
        structure = dict(systems=self.systems, strata=c.strata, priors=self.priors)
        names = ("theta", "q0", "q1", "mu_q0", "mu_q1", "sigma_q0", "sigma_q1")
        pc = c.pooled()
        start = cf.moment_start(t.k / np.maximum(t.n, 1), pc.tn[0] / pc.m0[0], pc.tp[0] / pc.m1[0])
        init = None
        if start["ok"].all():
            init = {
                "theta_stratum": start["theta"],
                "mu_q0": float(np.log(start["q0"].flat[0] / (1 - start["q0"].flat[0]))),
                "mu_q1": float(np.log(start["q1"].flat[0] / (1 - start["q1"].flat[0]))),
            }
        return ModelSpec(
            ma.stratified_accuracy_model, data, structure, names, init, sampler=self.sampler
        )

    # ----------------------------------------------------------------- checks' pieces
    def transfer_rows(self, draws: int = 0, random_seed: int = 0) -> list[dict]:
        r"""The transfer check (:mod:`judgebayes.checks.accuracy.transfer`): leave one stratum out.
        Calibrated on the other strata, stratum :math:`t`'s counts have the predictive
        :math:`tp_t \sim \text{BetaBin}(m_{1,t},\ 1 + \sum_{s \ne t} tp_s,\
        1 + \sum_{s \ne t} fn_s)` (and the same for :math:`tn_t`), exact; a small two-sided
        p-value says the rates differ between strata, so one confusion matrix would
        mis-correct.
        """
        c = self.calibration
        rows = []
        for t, name in enumerate(c.strata):
            rest = np.arange(len(c.strata)) != t
            for count, right, total in (("tp", c.tp, c.m1), ("tn", c.tn, c.m0)):
                a = 1 + right[rest].sum()
                b = 1 + (total[rest] - right[rest]).sum()
                dist = stats.betabinom(int(total[t]), a, b)
                x = int(right[t])
                rows.append(
                    {
                        "unit": name,
                        "count": count,
                        "observed": x,
                        "total": int(total[t]),
                        "expected": float(dist.mean()),
                        "p_raw": float(min(1.0, 2 * min(dist.cdf(x), dist.sf(x - 1)))),
                    }
                )
        return rows

    def transfer_predictive(self, draws: int = 4000, random_seed: int = 0):
        """The transfer check's predictive as a ``DataTree``: ``tp`` and ``tn`` over
        ``stratum``, each stratum's counts drawn from its leave-one-stratum-out
        Beta-binomial (groups ``posterior_predictive`` and ``observed_data``).
        """
        rng = np.random.default_rng(random_seed)
        c = self.calibration
        pp, obs = {}, {}
        for count, right, total in (("tp", c.tp, c.m1), ("tn", c.tn, c.m0)):
            rest_right = right.sum() - right
            rest_wrong = (total - right).sum() - (total - right)
            rate = rng.beta(1 + rest_right, 1 + rest_wrong, (draws, len(c.strata)))
            pp[count] = rng.binomial(np.asarray(total, np.int64), rate)[None]
            obs[count] = np.asarray(right, np.int64)
        return tree(
            {"posterior_predictive": pp, "observed_data": obs},
            coords={"stratum": list(c.strata)},
            dims={"tp": ["stratum"], "tn": ["stratum"]},
        )

    def judged_replicates(self, fit, rng) -> tuple[np.ndarray, np.ndarray]:
        """(replicated judged counts (draws, systems), observed counts): the ppc's pieces."""
        th = fit.draws("theta_stratum").values
        q0 = fit.draws("q0").values[:, None, :]
        q1 = fit.draws("q1").values[:, None, :]
        rep = rng.binomial(self.test.n[None], th * q1 + (1 - th) * (1 - q0)).sum(-1)
        return rep, self.test.k.sum(1)


StrataAccuracy.methods.refuse("laplace", STRATA_LAPLACE)


@StrataAccuracy.methods.register(
    "closed_form", engine="closed_form", summary="per-stratum Rogan-Gladen, delta method"
)
def _closed_form(study: StrataAccuracy, *, random_seed=None) -> FitParts:
    c = study.calibration
    st = cf.stratified_rogan_gladen(study.test.k, study.test.n, c.tp, c.m1, c.tn, c.m0)
    theta, se = st.theta, st.se

    def ifn(alpha):
        z = cf.z_value(alpha)
        return np.clip(theta - z * se, 0, 1), np.clip(theta + z * se, 0, 1)

    idata = study._point(
        {
            "theta": np.clip(theta, 0, 1),
            "theta_stratum": np.clip(st.theta_stratum, 0, 1),
            "q0": st.q0,
            "q1": st.q1,
        },
        {"theta_stratum": ["system", "stratum"], "q0": ["stratum"], "q1": ["stratum"]},
        stratum=list(c.strata),
    )
    return FitParts(
        idata,
        interval_fn=ifn,
        info={
            "estimator": "per-stratum Rogan-Gladen, share-weighted, "
            "delta-method Wald interval (NaN where a stratum lacks a class)"
        },
    )
