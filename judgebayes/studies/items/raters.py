r"""Several human raters per item, the truth latent (``human=[...]``, ``truth="latent"``).

:class:`SeveralRatersItems`: no rater is the truth.  Each rater, like each judge, has a
sensitivity and a specificity; the item's true label is a latent class (Dawid-Skene with
the judge in it, :func:`~judgebayes.models.items.raters_items_model`), and the rate
reported is the rate of true labels.  Only ``nuts`` fits it: the methods that take one label
per item as the truth refuse, and ``truth="majority"`` runs them on the raters' majority
label instead (what most evaluations do today: when the raters err, its interval is for the
majority's rate, not the truth's).

Every pattern of ratings (each judge and rater positive, negative or silent) is enumerated
once for the number of judges and raters, so one compiled model serves every data set with
as many of them (up to :data:`MAX_RATINGS`).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from judgebayes.data.items import ItemData
from judgebayes.errors import InputError
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import items as mi
from judgebayes.studies.accuracy.fit import AccuracyFit
from judgebayes.studies.items.base import ItemStudy

__all__ = ["MAX_RATINGS", "RatersFit", "SeveralRatersItems"]

#: judges + raters at most (3^6 = 729 patterns per system)
MAX_RATINGS = 6


class RatersFit(AccuracyFit):
    r"""A fit of the latent-truth model: the rates, and what the model says about each rater
    and judge (:meth:`rater_rates`) and about how much they agree (:meth:`rater_agreement`).

    With :math:`\bar\pi` the share of truly positive items over all systems (each system's
    :math:`\theta` weighted by its items) and a rater's sensitivity :math:`q_1` and
    specificity :math:`q_0`, the rater says positive with probability
    :math:`P_1 = \bar\pi q_1 + (1 - \bar\pi)(1 - q_0)`; two raters agree with probability
    :math:`\bar\pi [q_{1a} q_{1b} + (1 - q_{1a})(1 - q_{1b})] + (1 - \bar\pi)[q_{0a} q_{0b} +
    (1 - q_{0a})(1 - q_{0b})]` and by chance with :math:`P_{1a} P_{1b} + (1 - P_{1a})(1 -
    P_{1b})`, whence the model's Cohen kappa, per draw; against the truth the same with
    :math:`q = 1`.
    """

    def _stacked(self):
        self._require_draws("rater_agreement")
        d = {v: self.draws(v).values for v in ("theta", "q0", "q1", "rater_q0", "rater_q1")}
        n = np.asarray(self.info.get("n_items"), float)
        pi = d["theta"] @ (n / n.sum())
        names = [
            *(str(v) for v in self.draws("q1")["judge"].values),
            *(str(v) for v in self.draws("rater_q1")["rater"].values),
        ]
        q1 = np.concatenate([d["q1"], d["rater_q1"]], axis=1)
        q0 = np.concatenate([d["q0"], d["rater_q0"]], axis=1)
        kind = ["judge"] * d["q1"].shape[1] + ["rater"] * d["rater_q1"].shape[1]
        return pi, names, kind, q0, q1

    @staticmethod
    def _summary(x: np.ndarray, alpha: float) -> tuple[float, float, float]:
        lo, hi = np.quantile(x, [alpha / 2, 1 - alpha / 2])
        return float(x.mean()), float(lo), float(hi)

    def rater_rates(self, alpha: float = 0.05) -> pd.DataFrame:
        """Each judge's and rater's sensitivity and specificity: posterior mean and
        equal-tailed interval.
        """
        _, names, kind, q0, q1 = self._stacked()
        rows = []
        for k, name in enumerate(names):
            s, s_lo, s_hi = self._summary(q1[:, k], alpha)
            p, p_lo, p_hi = self._summary(q0[:, k], alpha)
            rows.append(
                {
                    "who": name,
                    "kind": kind[k],
                    "sensitivity": s,
                    "sensitivity_lower": s_lo,
                    "sensitivity_upper": s_hi,
                    "specificity": p,
                    "specificity_lower": p_lo,
                    "specificity_upper": p_hi,
                }
            )
        return pd.DataFrame(rows).set_index("who")

    def rater_agreement(self, alpha: float = 0.05) -> pd.DataFrame:
        """The model's Cohen kappa of each judge and rater with the truth (``b`` =
        ``"truth"``) and of every pair of them: posterior mean and equal-tailed interval
        (class docstring).
        """
        pi, names, _, q0, q1 = self._stacked()
        p1 = pi[:, None] * q1 + (1 - pi[:, None]) * (1 - q0)
        rows = []

        def kappa(agree, chance):
            return (agree - chance) / (1 - chance)

        for a, name in enumerate(names):
            agree = pi * q1[:, a] + (1 - pi) * q0[:, a]
            chance = p1[:, a] * pi + (1 - p1[:, a]) * (1 - pi)
            est, lo, hi = self._summary(kappa(agree, chance), alpha)
            rows.append({"a": name, "b": "truth", "kappa": est, "lower": lo, "upper": hi})
        for a in range(len(names)):
            for b in range(a + 1, len(names)):
                agree = pi * (q1[:, a] * q1[:, b] + (1 - q1[:, a]) * (1 - q1[:, b])) + (1 - pi) * (
                    q0[:, a] * q0[:, b] + (1 - q0[:, a]) * (1 - q0[:, b])
                )
                chance = p1[:, a] * p1[:, b] + (1 - p1[:, a]) * (1 - p1[:, b])
                est, lo, hi = self._summary(kappa(agree, chance), alpha)
                rows.append({"a": names[a], "b": names[b], "kappa": est, "lower": lo, "upper": hi})
        return pd.DataFrame(rows)

    def estimands(self, alpha: float = 0.05) -> pd.DataFrame:
        r"""Each system's rate under the three readings of "the human label", from the one
        model (process rates, per draw):

        - the latent truth, :math:`\theta`;
        - the expected single rater, :math:`\frac{1}{R}\sum_r [\theta q_{1r} + (1 -
          \theta)(1 - q_{0r})]` (what one randomly chosen rater's labels would give);
        - the raters' majority, :math:`\theta M_1 + (1 - \theta)(1 - M_0)` with
          :math:`M_t` the chance that more than half of them are right on an item of class
          :math:`t` (independently; a tie of an even number left out), what taking the
          majority as the truth estimates.

        Returns a frame indexed by system and estimand: ``estimate`` (posterior mean),
        ``lower``, ``upper``.
        """
        self._require_draws("estimands")
        th = self.draws("theta")
        systems = [str(v) for v in th["system"].values]
        t = th.values
        r1, r0 = self.draws("rater_q1").values, self.draws("rater_q0").values
        single = t * r1.mean(axis=1, keepdims=True) + (1 - t) * (1 - r0.mean(axis=1, keepdims=True))
        m1 = _majority_positive(r1)[:, None]
        m0 = _majority_positive(1 - r0)[:, None]  # P(majority says 1 | t = 0)
        majority = t * m1 + (1 - t) * m0
        rows = []
        for j, s in enumerate(systems):
            for name, x in (
                ("latent truth", t),
                ("expected single rater", single),
                ("majority of the raters", majority),
            ):
                est, lo, hi = self._summary(x[:, j], alpha)
                rows.append(
                    {"system": s, "estimand": name, "estimate": est, "lower": lo, "upper": hi}
                )
        return pd.DataFrame(rows).set_index(["system", "estimand"])


def _majority_positive(q: np.ndarray) -> np.ndarray:
    """P(more than half of the raters say positive), per draw, for raters who each say
    positive with probability ``q[:, r]`` independently (Poisson-binomial; with an even
    number of raters a tie is left out: the probability given no tie).
    """
    n, R = q.shape
    dist = np.zeros((n, R + 1))
    dist[:, 0] = 1.0
    for r in range(R):
        nxt = dist * (1 - q[:, r : r + 1])
        nxt[:, 1:] += dist[:, :-1] * q[:, r : r + 1]
        dist = nxt
    above = dist[:, R // 2 + 1 :].sum(axis=1)
    tie = dist[:, R // 2] if R % 2 == 0 else 0.0
    return above / (1 - tie)


class SeveralRatersItems(ItemStudy):
    """Several human raters' labels, the truth latent (module docstring)."""

    fit_type = RatersFit
    key = "items.raters"
    priority = 5
    sampler = SamplerConfig(target_accept=0.95)
    judge_rates_offered = ("shared",)

    @classmethod
    def matches(cls, data: ItemData) -> bool:
        """Several human columns with ``truth="latent"``."""
        return data.raters is not None and data.truth == "latent"

    def __init__(self, data: ItemData, **kwargs):
        super().__init__(data, **kwargs)
        k = data.n_judges + len(data.rater_names)
        if k > MAX_RATINGS:
            raise InputError(
                f"the latent-truth model takes at most {MAX_RATINGS} judges and raters "
                f"together; got {k}: pass fewer, or truth='majority'",
                field="human",
                value=list(data.rater_names),
            )
        for field in ("cluster", "weights", "covariates"):
            if getattr(data, field) is not None:
                raise InputError(
                    f"the latent-truth model of several raters takes no {field}; pass "
                    "truth='majority' to run the one-label methods on the raters' majority",
                    field=field,
                    value=data.columns.get(field, field),
                )
        if len(data.strata) > 1:
            raise InputError(
                "the latent-truth model of several raters takes no strata; pass "
                "truth='majority' for the stratified one-label methods",
                field="stratum",
                value=data.columns.get("stratum"),
            )

    @property
    def default_method(self) -> str:
        """``nuts``: the only engine of the latent-truth model."""
        return "nuts"

    @property
    def default_methods(self) -> tuple[str, ...]:
        """The study's comparison: the latent-truth model only (the one-label methods
        need ``truth="majority"``).
        """
        return ("nuts",)

    def _judge_rates_reason(self) -> str:
        return "the latent-truth model has one set of rates per judge and rater"

    # ------------------------------------------------------------------ patterns
    def _ratings(self) -> np.ndarray:
        """Every item's ratings: judges then raters, 0/1, NaN where not given."""
        d = self.data
        votes = d.votes if d.votes is not None else d.judge[:, None]
        return np.column_stack([votes, d.raters])

    def _patterns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each system's count of each rating pattern (S, P), over all 3^K patterns of
        positive / negative / silent, and per pattern whether each judge and rater said
        positive and negative (P, K; both 0 where silent).
        """
        x = self._ratings()
        k = x.shape[1]
        patterns = np.array(list(itertools.product((0.0, 1.0, np.nan), repeat=k)))
        code = np.where(np.isnan(x), 2, x).astype(np.int64) @ (3 ** np.arange(k)[::-1])
        ns = len(self.systems)
        counts = np.bincount(self.data.system * 3**k + code, minlength=ns * 3**k)
        given = ~np.isnan(patterns)
        said = np.nan_to_num(patterns)
        return counts.reshape(ns, 3**k), said * given, (1 - said) * given

    def model_spec(self) -> ModelSpec:
        """The latent-truth model (:func:`~judgebayes.models.items.raters_items_model`)."""
        counts, yes, no = self._patterns()
        d = self.data
        judges = d.judges or (d.columns["judge"],)
        data = dict(counts=counts, said_yes=yes, said_no=no)
        structure = dict(
            systems=self.systems, judges=judges, raters=d.rater_names, priors=self.priors
        )
        # start at the raters' majority: the judges' rates and the rate it implies
        maj = d.human
        lab = ~np.isnan(maj)
        votes = d.votes if d.votes is not None else d.judge[:, None]
        q1 = (votes[lab & (maj == 1)].sum(0) + 1) / ((lab & (maj == 1)).sum() + 2)
        q0 = ((1 - votes[lab & (maj == 0)]).sum(0) + 1) / ((lab & (maj == 0)).sum() + 2)
        pos = np.bincount(d.system[lab], weights=maj[lab], minlength=len(self.systems))
        tot = np.bincount(d.system[lab], minlength=len(self.systems))
        init = {"theta": (pos + 1) / (tot + 2), "q0": q0, "q1": q1}
        names = ("theta", "q0", "q1", "rater_q0", "rater_q1")
        return ModelSpec(
            mi.raters_items_model, data, structure, names, init=init, sampler=self.sampler
        )

    def _items_draws(self, post, random_seed) -> np.ndarray:
        """P(t = 1 | pattern) per draw, a binomial fill of each pattern's items."""
        counts, yes, no = self._patterns()
        k1 = np.concatenate([post["q1"].values, post["rater_q1"].values], axis=-1)
        k0 = np.concatenate([post["q0"].values, post["rater_q0"].values], axis=-1)
        ll1 = np.log(k1) @ yes.T + np.log1p(-k1) @ no.T  # (c, d, P)
        ll0 = np.log1p(-k0) @ yes.T + np.log(k0) @ no.T
        th = post["theta"].values[..., :, None]  # (c, d, S, 1)
        pos = np.log(th) + ll1[..., None, :]
        prob = np.exp(pos - np.logaddexp(pos, np.log1p(-th) + ll0[..., None, :]))
        filled = self._rng(random_seed, 11).binomial(counts, prob).sum(-1)
        return filled / np.bincount(self.data.system, minlength=len(self.systems))

    def _notes(self, method, parts, info) -> tuple[str, ...]:
        out = super()._notes(method, parts, info)
        d = self.data
        rated = (~np.isnan(d.raters)).sum(1)
        out = (
            *out,
            f"the rate of the items' latent true label, from {len(d.rater_names)} raters "
            f"(each with its own sensitivity and specificity) on {int((rated > 0).sum())} "
            "items",
        )
        return out


_ONE_LABEL = (
    "takes one label per item as the truth, and with several raters the truth is latent; "
    "pass truth='majority' (--truth majority) to run it on the raters' majority label (its "
    "interval is then for the majority's rate), or use 'nuts' (the latent-truth model)"
)
for _name in ("closed_form", "exact", "ppi", "ppi_plus_plus", "labels_only", "rogan_gladen"):
    SeveralRatersItems.methods.refuse(_name, f"method {_name!r} {_ONE_LABEL}", field="human")
SeveralRatersItems.methods.refuse(
    "laplace",
    "method 'laplace' is not offered for the latent-truth model (its posterior can be "
    "two-humped when raters disagree); use 'nuts'",
)
