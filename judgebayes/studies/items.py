r"""The items study: every item judged, a subset labelled by humans, one frame.

``AccuracyStudy.from_items(frame, judge=..., human=...)`` returns an :class:`ItemStudy`
(a blank human label means unlabelled).  Its fits are :class:`AccuracyFit` s of the
accuracy family, with one of two estimands, stated in every fit
(``fit.info["estimand"]``, ``fit.quantity``):

* ``"items"`` (default): the rate over the :math:`N` items evaluated
  (quantity ``theta_items``): the labelled items are known, only the unlabelled part is
  uncertain;
* ``"process"``: the rate of the process that produced them (quantity ``theta``).

Methods (``ItemStudy.methods``):
``closed_form`` (double sampling; cluster-robust with ``cluster``, Hajek-weighted with
``weights``), ``exact`` (the exact posterior of the stated prior, by importance
resampling), ``laplace`` and ``nuts`` (the items model of
:mod:`judgebayes.models.accuracy`; with ``cluster``, its hierarchical clustered model;
with several judges, ``judge=[...]``, the joint latent-class model; with ``covariates=``,
the model whose judge rates and rate are logistic in those columns), and the comparators
``ppi``, ``ppi_plus_plus`` (as ``ppi_py``), ``labels_only``, ``naive`` and ``rogan_gladen``
(labelled items as a calibration set for the others, Lang-Reiczigel).  The comparators
estimate the process rate whatever the study's estimand, and say so in their notes.
"""

from __future__ import annotations

import itertools
import warnings
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit, log_expit, logit

from judgebayes.data.items import ItemData, items_from_frame
from judgebayes.errors import FewClustersWarning, InputError, LaplaceError, route_keywords
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.inference.accuracy import items as ie
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import check_count, check_seed
from judgebayes.models import accuracy as ma
from judgebayes.results import check_alpha, point_tree, tree
from judgebayes.studies.accuracy_fit import AccuracyFit
from judgebayes.studies.base import CHECK_COLUMNS, FitParts, Study, bonferroni

__all__ = ["ItemStudy"]

_QUANTITY = {"items": "theta_items", "process": "theta"}
_COMPARATORS = {
    "ppi": "PPI (lambda = 1), ppi_py's interval",
    "ppi_plus_plus": "PPI++ (tuned lambda, clipped to [0, 1]), ppi_py's interval",
    "labels_only": "the human-labelled items' mean, Agresti-Coull interval",
    "naive": "the judge's positive rate, uncorrected (biased unless the judge is perfect)",
    "rogan_gladen": "labelled items as a calibration set for the unlabelled ones: "
    "Rogan-Gladen with the Lang-Reiczigel interval (ignores what the labels say about "
    "the rate itself)",
}


#: the paired model's pattern table is complete (every verdict x label state of every
#: system) up to this many rows (four systems), so that it compiles once per S
COMPLETE_PATTERNS = 6561


class ItemStudy(Study):
    r"""One item frame of the items design (module docstring); fits by any method.

    Parameters
    ----------
    data : ItemData
        Validated items (:func:`judgebayes.data.items.items_from_frame`).
    estimand : {"items", "process"}
        What the intervals are for (module docstring).
    judge_rates : {"auto", "pooled", "shared", "per_system"}
        Laplace and NUTS: a set of judge rates per system pooled across systems with a
        learnt spread (``"pooled"``: rates that agree borrow strength, a judge that errs
        differently on one system's answers, self-preference or answers that differ in
        what the judge's errors follow, is not forced to one set), one set for every
        system (``"shared"``: one judge, one sensitivity and specificity; the narrowest,
        and wrong for both systems when that fails), or a set per system with nothing
        shared (``"per_system"``).  ``"auto"`` (default) is ``"pooled"`` for the
        one-judge model with several systems, ``"per_system"`` for the paired model
        (``item=``: each system's own joint confusion), else ``"shared"`` (one system:
        the three are one model; with ``covariates=`` the covariates carry what differs
        between the systems; clustered and several-judges models have no pooled
        form).  The check ``self_preference`` tests the shared rates on the labelled
        items.  The closed form and ``exact`` assume nothing across systems either way.
    priors : AccuracyPriors, optional
        Beta priors of the exact, Laplace and NUTS engines (default
        :func:`~judgebayes.models.accuracy.items_priors`: Jeffreys's Beta(1/2, 1/2) on each
        stratum's rate, uniform on the judge's rates).
    better_than_chance : bool
        Restrict the Bayesian model to q0 + q1 > 1 (default False: the labels identify
        the rate, so there is no mirror to exclude).
    difficulty : bool
        Several judges: let a shared item difficulty make the judges err together
        (the joint model's conditional independence relaxed).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"judge": [1, 1, 0, 1, 0, 1], "human": [1, None, 0, 0, None, None]})
    >>> study = AccuracyStudy.from_items(frame, judge="judge", human="human")
    >>> study.fit("closed_form").info["estimand"]
    'items'
    """

    family = "accuracy"
    fit_type = AccuracyFit
    default_methods = ("closed_form", "ppi_plus_plus", "labels_only", "exact", "nuts")

    @property
    def default_method(self) -> str:
        """``nuts``; with several judges ``exact``, the vote-count posterior, which assumes
        nothing about how the judges' errors relate (the latent-class ``nuts`` model
        assumes them independent given the truth and under-covered with correlated judges:
        ARCHITECTURE, several judges).
        """
        several = self.data.n_judges > 1 and self.data.cluster is None
        return "exact" if several and self.data.weights is None else "nuts"

    def __init__(
        self,
        data: ItemData,
        *,
        estimand: str = "items",
        judge_rates: str = "auto",
        priors: Any = None,
        better_than_chance: bool = False,
        difficulty: bool = False,
    ):
        if not isinstance(data, ItemData):
            raise InputError(
                "data must be ItemData (use AccuracyStudy.from_items)",
                field="data",
                value=type(data).__name__,
            )
        ie._check_estimand(estimand)
        judge_rates = _resolve_judge_rates(data, judge_rates)
        if difficulty and data.n_judges == 1:
            raise InputError(
                "difficulty=True models errors that several judges share on hard items; "
                "it needs several judges (judge=[...])",
                field="difficulty",
                value=True,
            )
        self.difficulty = bool(difficulty)
        self.data, self.estimand, self.judge_rates = data, estimand, judge_rates
        self.priors = priors if priors is not None else ma.items_priors()
        self._patterns = None  # the paired model's pattern table, built on first use
        self.better_than_chance = bool(better_than_chance)
        ns = len(data.systems)
        g = ie.clusters_per_system(data)
        if g is not None and g.min() < FEW_CLUSTERS:
            warnings.warn(
                f"system {data.systems[int(g.argmin())]!r} has {int(g.min())} clusters: a "
                "cluster-robust interval rests on that many sums (the closed form uses CR2 "
                "with t(G - 1) critical values, which covered 0.96 with 4 clusters in "
                "simulation; the Bayesian fits learn the between-cluster spread from as few)",
                FewClustersWarning,
                stacklevel=3,
            )
        self._counts = {
            "n_items": np.bincount(data.system, minlength=ns).tolist(),
            "n_labelled": np.bincount(data.system[data.labelled], minlength=ns).tolist(),
        }

    @classmethod
    def from_frame(cls, items, **kwargs: Any) -> ItemStudy:
        """Validate ``items`` (:func:`~judgebayes.data.items.items_from_frame`) and wrap it.

        ``kwargs`` are the frame reader's column keywords and this class's own; any other
        keyword is an :class:`InputError` that lists the valid ones.
        """
        frame_kw, study_kw = route_keywords(
            "AccuracyStudy.from_items", kwargs, items_from_frame, cls.__init__
        )
        return cls(items_from_frame(items, **frame_kw), **study_kw)

    # --------------------------------------------------------------- facts
    @property
    def systems(self) -> tuple[str, ...]:
        """System names."""
        return self.data.systems

    @property
    def quantity(self) -> str:
        """The reported variable: ``theta_items`` (N items) or ``theta`` (process)."""
        return _QUANTITY[self.estimand]

    def summary(self):
        """Items, labelled items, judged and human positives, missing verdicts per system."""
        return self.data.summary()

    # --------------------------------------------------------------- planning
    def plan(self, width: float, alpha: float = 0.05, max_labels: int | None = None):
        """How many more labels, and where, bring every system's interval to ``width``.

        Labels are allocated greedily where they lower the estimand's variance most
        (:func:`judgebayes.inference.accuracy.items.allocate_labels`: Neyman allocation across
        the systems, strata and the judge's two verdicts), at the current estimates of
        the human rate within each verdict.  A plan, not a promise: the widths are those
        of the closed form at today's estimates.

        Returns
        -------
        DataFrame
            One row per (system, stratum): ``label_judged_positive``,
            ``label_judged_negative``; ``attrs``: ``total``, ``width_now``,
            ``width_planned`` (per system), ``reached``.
        """
        alpha = check_alpha(alpha)
        if isinstance(width, bool) or not isinstance(width, int | float) or not 0 < width < 1:
            raise InputError(
                f"width must be a number in (0, 1); got {width!r}", field="width", value=width
            )
        z = cf.z_value(alpha)
        c = self.data.cells()
        cap = int((c["N1"] + c["N0"] - c["L1"] - c["L0"]).sum())
        k = cap if max_labels is None else int(max_labels)
        e1, e0 = ie.allocate_labels(self.data, k, self.estimand, target_se=width / (2 * z))
        now = 2 * z * ie.predicted_se(self.data, self.estimand)
        planned = 2 * z * ie.predicted_se(self.data, self.estimand, e1, e0)
        idx = pd.MultiIndex.from_product(
            [list(self.systems), list(self.data.strata)], names=["system", "stratum"]
        )
        out = pd.DataFrame(
            {"label_judged_positive": e1.ravel(), "label_judged_negative": e0.ravel()},
            index=idx,
        )
        out.attrs.update(
            total=int(e1.sum() + e0.sum()),
            width_now=dict(zip(self.systems, now.round(6).tolist(), strict=True)),
            width_planned=dict(zip(self.systems, planned.round(6).tolist(), strict=True)),
            reached=bool(np.all(planned <= width + 1e-12)),
            estimand=self.estimand,
        )
        return out

    def next_to_label(self, k: int, random_seed: int | None = None):
        """The ``k`` unlabelled items to send to humans next (frame index labels).

        Chosen for what they do to the estimand's uncertainty, not for how unsure the
        judge is about each item: the allocation of :meth:`plan` (greedy Neyman across
        systems, strata and verdicts) decides how many come from each cell, and items
        are drawn at random within a cell, which keeps the design one that selects on
        observed verdicts and strata only, so every estimator here stays valid.
        """
        check_count(k, "k")
        rng = np.random.default_rng(check_seed(random_seed))
        e1, e0 = ie.allocate_labels(self.data, int(k), self.estimand)
        d = self.data
        unl = ~d.labelled
        chosen = []
        for (s, t), n1 in np.ndenumerate(e1):
            for verdict, n in ((1.0, n1), (0.0, e0[s, t])):
                if n:
                    pool = np.flatnonzero(
                        unl & (d.system == s) & (d.stratum == t) & (d.judge == verdict)
                    )
                    chosen.append(rng.choice(pool, int(n), replace=False))
        pos = np.sort(np.concatenate(chosen)) if chosen else np.array([], np.int64)
        return pd.Index(d.rows[pos])

    # --------------------------------------------------------------- model
    def model_spec(self):
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of the items model."""
        if self.data.weights is not None:
            raise InputError(
                "the Bayesian items model takes items labelled at random within verdicts and "
                "strata; with design weights use method='closed_form' (Hajek-weighted)",
                field="weights",
                value=self.data.columns.get("weights"),
            )
        if self.data.covariates is not None:
            return self._covariate_spec()
        if self.data.n_judges > 1:
            return self._multi_judge_spec()
        if self.data.cluster is not None:
            return self._clustered_spec()
        if self.paired:
            return self._paired_spec()
        c = self.data.cells()
        m1 = c["H1"] + c["H0"]
        m0 = c["L1"] + c["L0"] - m1
        n_c = (c["N1"] + c["N0"]).astype(float)
        data = dict(
            k=c["N1"] - c["L1"],
            n=c["N1"] + c["N0"] - c["L1"] - c["L0"],
            tp=c["H1"],
            m1=m1,
            tn=c["L0"] - c["H0"],
            m0=m0,
            share=n_c / n_c.sum(1, keepdims=True),
        )
        structure = dict(
            systems=self.systems,
            strata=self.data.strata,
            judge_rates=self.judge_rates,
            priors=self.priors,
            better_than_chance=self.better_than_chance,
        )
        names = ("theta", "theta_stratum", "q0", "q1")
        density = None
        if not self.better_than_chance and self.judge_rates != "pooled":  # Laplace's numpy density
            density = partial(
                ma.ItemsLogDensity,
                **data,
                **{k: v for k, v in structure.items() if k != "better_than_chance"},
            )
        return ModelSpec(ma.items_accuracy_model, data, structure, names, density=density)

    def _covariate_spec(self):
        """The items model with the judge's rates (and the rate) logistic in covariates."""
        d = self.data
        other = {
            "judge": list(d.judges) if d.n_judges > 1 else None,
            "cluster": d.columns.get("cluster"),
            "item": d.columns.get("item"),
        }
        for field_, value in other.items():
            if value is not None:
                raise InputError(
                    f"the covariate model takes one judge's verdicts on unclustered, unpaired "
                    f"items; {field_}={value!r} was given as well: fit without covariates= "
                    "(the closed form and exact need no model of the judge's errors)",
                    field=field_,
                    value=value,
                )
        z, _, _ = ma.standardise(d.covariates)
        data = dict(
            item_system=d.system,
            item_stratum=d.stratum,
            z=z,
            verdict=d.judge,
            human=np.nan_to_num(d.human, nan=-1.0),
        )
        structure = dict(
            systems=self.systems,
            strata=d.strata,
            covariates=d.covariate_names,
            judge_rates=self.judge_rates,
            priors=self.priors,
        )
        names = ("theta", "theta_stratum", "q0", "q1", "rate_coef", "q0_coef", "q1_coef")
        return ModelSpec(ma.items_covariate_model, data, structure, names)

    def _items_draws_covariates(self, post, random_seed) -> np.ndarray:
        """``theta_items`` of the covariate model: each unlabelled item's P(h = 1 | v, z)
        per draw, one Bernoulli each, plus the labelled items' own labels.
        """
        d = self.data
        z, _, _ = ma.standardise(d.covariates)
        u = ~d.labelled
        sy, st, zu, vu = d.system[u], d.stratum[u], z[u], d.judge[u]

        def flat(name):
            x = post[name].values
            return x.reshape(-1, *x.shape[2:])

        th0, gam = flat("theta_stratum"), flat("rate_coef")
        q0, q1, b0, b1 = flat("q0"), flat("q1"), flat("q0_coef"), flat("q1_coef")
        shared, per_system = self.judge_rates == "shared", self.judge_rates == "per_system"
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 7])
        ns = len(self.systems)
        known = np.bincount(d.system[~u], weights=d.human[~u], minlength=ns)
        onehot = np.eye(ns)[sy]  # (unlabelled items, systems): a draw's sums per system
        out = np.empty((th0.shape[0], ns))
        for lo in range(0, th0.shape[0], 250):  # draws in chunks: (chunk x items) arrays
            sl = slice(lo, lo + 250)
            eta = logit(th0[sl][:, sy, st]) + np.einsum("dip,ip->di", gam[sl][:, sy], zu)
            if shared:
                e1, e0 = logit(q1[sl][:, st]), logit(q0[sl][:, st])
            else:
                e1, e0 = logit(q1[sl][:, sy, st]), logit(q0[sl][:, sy, st])
            if per_system:
                e1 = e1 + np.einsum("dip,ip->di", b1[sl][:, sy], zu)
                e0 = e0 + np.einsum("dip,ip->di", b0[sl][:, sy], zu)
            else:
                e1, e0 = e1 + b1[sl] @ zu.T, e0 + b0[sl] @ zu.T
            lpos = log_expit(eta) + np.where(vu == 1, log_expit(e1), log_expit(-e1))
            lneg = log_expit(-eta) + np.where(vu == 1, log_expit(-e0), log_expit(e0))
            prob = expit(lpos - lneg)
            draw = (rng.random(prob.shape) < prob).astype(float)
            out[sl] = known + draw @ onehot
        n_s = np.bincount(d.system, minlength=ns)
        return (out / n_s).reshape(post["theta"].shape)

    def _sampler_key(self) -> str:
        if self.paired and self.data.covariates is None:
            return "accuracy.paired"
        if self.judge_rates == "pooled":
            return "accuracy.items.pooled"
        return "accuracy.items"

    def _pattern_counts(self):
        """Vote patterns seen, and per (system, pattern): unlabelled, labelled +, labelled -."""
        d = self.data
        if d.cluster is not None or len(d.strata) > 1:
            field = "cluster" if d.cluster is not None else "stratum"
            raise InputError(
                f"the joint model of several judges takes no {field}; use method='closed_form'",
                field=field,
                value=d.columns.get(field),
            )
        patterns, inv = np.unique(d.votes.astype(np.int64), axis=0, return_inverse=True)
        inv = np.ravel(inv)
        ns, npat = len(d.systems), len(patterns)
        key = d.system * npat + inv
        lab = d.labelled
        h = np.where(lab, d.human, 0.0)

        def cnt(x):
            out = np.bincount(key, weights=x, minlength=ns * npat).reshape(ns, npat)
            return np.rint(out).astype(np.int64)

        return patterns, cnt(1.0 - lab), cnt(lab * h), cnt(lab * (1 - h))

    def _multi_judge_spec(self):
        patterns, u, y, z = self._pattern_counts()
        data = dict(unlabelled=u, labelled_pos=y, labelled_neg=z, patterns=patterns)
        structure = dict(
            systems=self.systems,
            judges=self.data.judges,
            judge_rates=self.judge_rates,
            difficulty=self.difficulty,
            priors=self.priors,
        )
        names = ("theta", "q0", "q1") + (("gamma0", "gamma1", "tau") if self.difficulty else ())
        # start every chain at the labelled items' (smoothed) rates: the unlabelled vote
        # patterns alone fit the mirror (every judge worse than chance, theta -> 1 - theta)
        # as well, and a chain started there stays (seen: 1 of 4 chains, r-hat 1.54)
        v = patterns.astype(float)
        ys, zs = (y, z) if self.judge_rates == "per_system" else (y.sum(0), z.sum(0))
        q1 = (ys @ v + 1.0) / (ys.sum(-1, keepdims=True) + 2.0)
        q0 = (zs @ (1.0 - v) + 1.0) / (zs.sum(-1, keepdims=True) + 2.0)
        theta = (y.sum(1) + 1.0) / (y.sum(1) + z.sum(1) + 2.0)
        init = {"theta": theta, "q0": q0, "q1": q1}
        if self.difficulty:
            init |= {"gamma0": np.log(q0 / (1 - q0)), "gamma1": np.log(q1 / (1 - q1))}
        return ModelSpec(ma.multi_judge_items_model, data, structure, names, init=init)

    @property
    def paired(self) -> bool:
        """Whether the Bayesian fits pair the systems by item (``item=``, several systems,
        one judge, one stratum, no clusters: the shared item-effect model).
        """
        return _pairs_systems(self.data)

    def _paired_patterns(self):
        """Distinct (verdict, label) patterns of the items over the systems, and counts
        (built once: the data do not change, and a fit reads them three times).
        """
        if self._patterns is None:
            self._patterns = self._build_paired_patterns()
        return self._patterns

    def _build_paired_patterns(self):
        d = self.data
        S = len(d.systems)
        _, inv = np.unique(d.item, return_inverse=True)
        n_items = int(inv.max()) + 1
        v = np.full((n_items, S), -1, dtype=np.int64)
        h = np.full((n_items, S), -1, dtype=np.int64)
        v[inv, d.system] = np.rint(d.judge).astype(np.int64)
        h[inv, d.system] = np.where(d.labelled, d.human, -1).astype(np.int64)
        seen, n_seen = np.unique(np.concatenate([v, h], 1), axis=0, return_counts=True)
        if 9**S > COMPLETE_PATTERNS:
            return seen[:, :S], seen[:, S:], n_seen
        # every pattern, seen or not: the model's shapes depend only on S, so one compiled
        # model serves every data set with as many systems (a warm refit)
        one = np.array([(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)])  # (9, 2)
        idx = np.stack(np.meshgrid(*[np.arange(9)] * S, indexing="ij"), -1).reshape(-1, S)
        pat = np.concatenate([one[idx, 0], one[idx, 1]], 1)
        code = ((seen[:, :S] + 1) * 3 + (seen[:, S:] + 1)) @ (9 ** np.arange(S - 1, -1, -1))
        counts = np.zeros(len(pat), dtype=np.int64)
        counts[code] = n_seen
        return pat[:, :S], pat[:, S:], counts

    def _paired_spec(self):
        if len(self.systems) > ma.PAIRED_MAX_SYSTEMS:
            raise InputError(
                f"the paired Bayesian model takes at most {ma.PAIRED_MAX_SYSTEMS} systems "
                f"(its joint has 2 ** S cells); got {len(self.systems)}: fit pairs of "
                "systems, or use method='closed_form'",
                field="system",
                value=len(self.systems),
            )
        v, h, counts = self._paired_patterns()
        data = dict(counts=counts, verdict=v, human=h)
        structure = dict(systems=self.systems, priors=self.priors)
        names = ("theta", "joint", "confusion")
        return ModelSpec(ma.paired_items_model, data, structure, names)

    def _items_draws_paired(self, post, random_seed) -> np.ndarray:
        """``theta_items`` of the paired model: per draw and pattern, the items' joint truths
        drawn from their posterior given the pattern; labelled answers keep their label.
        """
        v, h, counts = self._paired_patterns()
        S = v.shape[1]
        states = ma.truth_states(S)  # (T, S)
        V, L = ma.pattern_masks(v, h)
        T = states.shape[0]
        joint = post["joint"].values.reshape(-1, T)  # (D, T)
        conf = post["confusion"].values.reshape(-1, T, T)  # (D, T, W)
        per = L[None] * np.einsum("pw,dtw->dpt", V, conf) * joint[:, None, :]  # (D, P, T)
        tot = per.sum(-1, keepdims=True)
        per = np.where(tot > 0, per / np.where(tot > 0, tot, 1), 1.0 / T)
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 11])
        n_t = rng.multinomial(counts[None, :], per)  # (D, P, T)
        answered = (v >= 0) | (h >= 0)  # (P, S)
        right = np.einsum("dpt,ts,ps->ds", n_t, states, answered)
        n_s = (counts[:, None] * answered).sum(0)
        return (right / n_s).reshape(post["theta"].shape)

    def _cluster_cells(self):
        """Per (system, cluster) counts, and each cluster's system code."""
        d = self.data
        if len(d.strata) > 1:
            raise InputError(
                "the clustered Bayesian model has no strata; with both stratum and cluster "
                "use method='closed_form'",
                field="stratum",
                value=d.columns.get("stratum"),
            )
        width = int(d.cluster.max()) + 1
        key = d.system.astype(np.int64) * width + d.cluster
        codes, inv = np.unique(key, return_inverse=True)
        lab = d.labelled
        v = d.judge
        h = np.where(lab, d.human, 0.0)

        def cnt(x):
            return np.rint(np.bincount(inv, weights=x, minlength=codes.size)).astype(np.int64)

        out = {
            "N1": cnt(v),
            "N0": cnt(1 - v),
            "L1": cnt(lab * v),
            "L0": cnt(lab * (1 - v)),
            "H1": cnt(h * v),
            "H0": cnt(h * (1 - v)),
        }
        return out, codes // width

    def _clustered_spec(self):
        c, sys_of = self._cluster_cells()
        m1 = c["H1"] + c["H0"]
        data = dict(
            k=c["N1"] - c["L1"],
            n=c["N1"] + c["N0"] - c["L1"] - c["L0"],
            tp=c["H1"],
            m1=m1,
            tn=c["L0"] - c["H0"],
            m0=c["L1"] + c["L0"] - m1,
            cluster_system=sys_of,
        )
        structure = dict(
            systems=self.systems,
            clusters=tuple(f"c{i}" for i in range(len(sys_of))),
            judge_rates=self.judge_rates,
            priors=self.priors,
        )
        names = ("theta", "mu", "sigma", "z", "q0", "q1")
        return ModelSpec(ma.clustered_items_model, data, structure, names)

    def build_model(self):
        """A fresh ``pm.Model`` (never sampled here)."""
        return self.model_spec().build()

    # --------------------------------------------------------------- fit hooks
    def _info(self, method, parts: FitParts) -> dict:
        estimand = parts.info.get("estimand", self.estimand)
        return {
            "design": "items",
            "estimand": estimand,
            "estimand_text": ESTIMAND_TEXT[estimand],
            "judge_rates": self.judge_rates,
            **self._counts,
        }

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        out = []
        d = self.data
        if (
            method.name in ("laplace", "nuts")
            and d.covariates is not None
            and len(d.systems) > 1
            and self.judge_rates == "shared"
        ):
            out.append(
                f"the judge's rates are shared across systems given "
                f"{', '.join(d.covariate_names)}: a lenience on one system beyond them is not "
                "modelled (covered A - B in 0.63 of simulated sets; judge_rates='per_system' "
                "0.97); check self_preference tests it"
            )
        for s, nm in zip(self.systems, self.data.n_missing, strict=True):
            if nm:
                out.append(
                    f"system {s!r}: {int(nm)} row(s) without a verdict are not evaluated items "
                    "(excluded, counted here)"
                )
        return tuple(out)

    def _attrs(self, method, parts: FitParts) -> dict:
        return {
            "design": "items",
            "estimand": parts.info.get("estimand", self.estimand),
            "judge_rates": self.judge_rates,
            "difficulty": self.difficulty,
        }

    def _point(self, values, ifn, info, notes=()) -> FitParts:
        """A point fit whose tree is built on first use (one value per system)."""
        quantity = next(iter(values))
        bad = [s for s, x in zip(self.systems, values[quantity], strict=True) if not np.isfinite(x)]
        notes = (*notes, *(f"system {s!r}: not estimable from these labels: NaN" for s in bad))
        return FitParts(
            point_tree(values, "system", self.systems),
            quantity=quantity,
            interval_fn=ifn,
            info=info,
            notes=tuple(notes),
        )

    def _with_items_draws(self, parts: FitParts, random_seed) -> FitParts:
        """Posterior predictive of the unlabelled items' labels -> ``theta_items``."""
        idata = parts.idata
        post = idata.posterior
        if self.data.covariates is not None:
            val = self._items_draws_covariates(post, random_seed)
        elif self.data.n_judges > 1:
            val = self._items_draws_multi(post, random_seed)
        elif self.paired:
            val = self._items_draws_paired(post, random_seed)
            v, h, counts = self._paired_patterns()
            answered = ((v >= 0) | (h >= 0)).astype(np.int64)
            parts.info["paired_items"] = (answered.T @ (answered * counts[:, None])).tolist()
        else:
            val = self._items_draws(post, random_seed)
        post["theta_items"] = post["theta"].copy(data=val)
        parts.quantity = self.quantity
        return parts

    def _items_draws(self, post, random_seed) -> np.ndarray:
        if self.data.cluster is not None:
            c, sys_of = self._cluster_cells()
            th = post["theta_cluster"].values
            q0, q1 = post["q0"].values, post["q1"].values
            if self.judge_rates == "per_system":
                q0, q1 = q0[..., sys_of], q1[..., sys_of]
            else:
                q0, q1 = q0[..., None], q1[..., None]
        else:
            c = self.data.cells()
            th = post["theta_stratum"].values
            q0, q1 = post["q0"].values, post["q1"].values
            if self.judge_rates == "shared":
                q0, q1 = q0[..., None, :], q1[..., None, :]
        p = th * q1 + (1 - th) * (1 - q0)
        with np.errstate(invalid="ignore", divide="ignore"):
            a = np.clip(np.nan_to_num(th * q1 / p), 0, 1)
            b = np.clip(np.nan_to_num(th * (1 - q1) / (1 - p)), 0, 1)
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 7])
        u1, u0 = c["N1"] - c["L1"], c["N0"] - c["L0"]
        ok = np.isfinite(a) & np.isfinite(b)
        extra = rng.binomial(u1, np.where(ok, a, 0)) + rng.binomial(u0, np.where(ok, b, 0))
        if self.data.cluster is not None:
            ns = len(self.systems)
            n_s = np.bincount(sys_of, weights=c["N1"] + c["N0"], minlength=ns)
            known = np.bincount(sys_of, weights=c["H1"] + c["H0"], minlength=ns)
            onehot = np.eye(ns)[sys_of]  # (clusters, systems)
            return (known + extra @ onehot) / n_s
        n_s = (c["N1"] + c["N0"]).sum(1)
        known = (c["H1"] + c["H0"]).sum(1)
        return (known + extra.sum(-1)) / n_s

    def _items_draws_multi(self, post, random_seed) -> np.ndarray:
        """``theta_items`` of the joint model: P(h = 1 | pattern) per draw, binomial fill."""
        patterns, u, y, _ = self._pattern_counts()
        th = post["theta"].values[..., :, None]  # (c, d, S, 1)
        if self.difficulty:
            ll1, ll0 = post["log_lik_pos"].values, post["log_lik_neg"].values
        else:
            q0, q1 = post["q0"].values, post["q1"].values
            if self.judge_rates != "per_system":
                q0, q1 = q0[..., None, :], q1[..., None, :]
            v = patterns.astype(float)
            ll1 = np.log(q1) @ v.T + np.log1p(-q1) @ (1 - v).T
            ll0 = np.log1p(-q0) @ v.T + np.log(q0) @ (1 - v).T
        pos = np.log(th) + ll1
        prob = np.exp(pos - np.logaddexp(pos, np.log1p(-th) + ll0))
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 7])
        extra = rng.binomial(u, prob).sum(-1)
        n_s = np.bincount(self.data.system, minlength=len(self.systems))
        return (y.sum(1) + extra) / n_s

    def _one_judge(self, name: str) -> None:
        d = self.data
        if d.n_judges > 1:
            raise InputError(
                f"method {name!r} takes one judge's verdicts; {d.n_judges} judges were given: "
                "fit it on one judge's column, or use 'closed_form' / 'nuts' for all of them",
                field="judge",
                value=list(d.judges),
            )


def _pairs_systems(d: ItemData) -> bool:
    """Whether the Bayesian fits of ``d`` are the paired model (:attr:`ItemStudy.paired`)."""
    return (
        d.item is not None
        and len(d.systems) > 1
        and d.n_judges == 1
        and d.cluster is None
        and len(d.strata) == 1
    )


def _resolve_judge_rates(data: ItemData, judge_rates: str) -> str:
    """``judge_rates`` validated against the data, ``"auto"`` resolved (class docstring)."""
    if judge_rates not in ("auto", *ma.JUDGE_RATES):
        raise InputError(
            f"judge_rates must be one of {('auto', *ma.JUDGE_RATES)}; got {judge_rates!r}",
            field="judge_rates",
            value=judge_rates,
        )
    no_pool = {
        "cluster": data.columns.get("cluster"),
        "judge": list(data.judges) if data.n_judges > 1 else None,
    }
    paired = data.covariates is None and _pairs_systems(data)
    if judge_rates == "auto":
        if paired:
            return "per_system"  # the paired model: each system's own joint confusion
        # one system: the three are one model; clusters, several judges: no pooled form;
        # covariates carry what differs between the systems (check self_preference tests
        # the rest), and pooled intercepts on top cost 62.6 s a warm fit against 11.9 s
        if len(data.systems) == 1 or data.covariates is not None:
            return "shared"
        return "shared" if any(v is not None for v in no_pool.values()) else "pooled"
    if paired and judge_rates != "per_system":
        raise InputError(
            f"judge_rates={judge_rates!r}: with item= the Bayesian fits pair the systems by "
            "item and give the judge a confusion per joint truth, nothing shared across "
            "systems; leave judge_rates out (or 'per_system')",
            field="judge_rates",
            value=judge_rates,
        )
    if judge_rates == "pooled":
        for field_, value in no_pool.items():
            if value is not None:
                raise InputError(
                    f"judge_rates='pooled' is a model of one judge's rates on unclustered "
                    f"items; with {field_}={value!r} use 'shared' or 'per_system'",
                    field="judge_rates",
                    value=judge_rates,
                )
    return judge_rates


#: below this many clusters a study warns (FewClustersWarning)
FEW_CLUSTERS = 10

ESTIMAND_TEXT = {
    "items": "the rate over the N items evaluated",
    "process": "the rate of the process that produced the items",
}


# =========================================================================== methods


@ItemStudy.methods.register(
    "closed_form", engine="closed_form", summary="double sampling, influence variance"
)
def _closed_form(study: ItemStudy, *, random_seed=None) -> FitParts:
    chosen = ie.double_sampling_items(study.data, study.estimand)
    other = next(e for e in ie.ESTIMANDS if e != study.estimand)
    notes = []
    und = chosen.info["undefined_cells"]
    for s, t, c in zip(*np.nonzero(und), strict=True):
        what = (
            f"the judge's {'positives' if c else 'negatives'}"
            if study.data.n_judges == 1
            else f"the items with {c} of {study.data.n_judges} positive votes"
        )
        notes.append(
            f"system {study.systems[s]!r}, stratum {study.data.strata[t]!r}: no labelled item "
            f"among {what}: its human rate is known only to lie in [0, 1], and the "
            "interval spans every value it could take (label some of them to narrow it)"
        )
    design = "iid items"
    if study.data.cluster is not None:
        design = "cluster-robust (CR2) over clusters, t(G - 1) critical value"
    if study.data.weights is not None:
        design += ", Hajek-weighted by the design weights"
    info = {
        "estimator": "double sampling (Tenenbein 1970) over all judged items, "
        f"influence-function variance, {design}; Wald interval clipped to the "
        "estimand's known range"
    }
    if len(study.systems) > 1 and study.data.cluster is None:
        info["contrasts"] = ie.contrasts_items(study.data, chosen, study.estimand)
    parts = study._point({study.quantity: chosen.estimate}, chosen.interval, info, notes)
    # the other estimand's point, when the tree is built
    inner = parts.idata
    lazy_other = _QUANTITY[other]
    parts.idata = inner.then(
        lambda t: _with_var(t, lazy_other, ie.double_sampling_items(study.data, other).estimate)
    )
    return parts


def _with_var(t, name: str, values) -> Any:
    post = t["posterior"]
    post[name] = post[next(iter(post.data_vars))].copy(
        data=np.asarray(values, float).reshape(1, 1, -1)
    )
    return t


def _comparator(name: str, summary: str):
    """Register the comparator ``name`` (a process-rate estimator of one judge)."""

    def fit(study: ItemStudy, *, random_seed=None) -> FitParts:
        study._one_judge(name)
        d = study.data
        if d.cluster is not None:
            raise InputError(
                f"method {name!r} treats items as independent and would ignore cluster="
                f"{d.columns.get('cluster')!r}; use 'closed_form' (cluster-robust) or 'nuts' "
                "(hierarchical), or leave cluster out to compare it",
                field="cluster",
                value=d.columns.get("cluster"),
            )
        extra = {}
        if name in ("ppi", "ppi_plus_plus"):
            est = ie.ppi_items(d, lam=1.0 if name == "ppi" else None)
            point, ifn = est.estimate, est.interval
            extra = {"lam": est.info["lam"].tolist()}
        elif name == "labels_only":
            est = ie.labels_only_items(d)
            point, ifn = est.estimate, est.interval
            if len(d.systems) > 1:
                extra = {"contrasts": ie.labels_only_contrasts(d, est)}
        elif name == "naive":
            est = ie.naive_items(d)
            point, ifn = est.estimate, est.interval
        else:
            point, ifn = _rogan_gladen_items(study)
        return study._point(
            {"theta": point},
            ifn,
            {"estimator": _COMPARATORS[name], "estimand": "process", **extra},
            (f"{name} estimates the process rate (theta), not the N items' rate",),
        )

    fit.__name__ = fit.__qualname__ = f"_{name}"
    ItemStudy.methods.register(name, engine="closed_form", summary=summary)(fit)


def _rogan_gladen_items(study: ItemStudy):
    c = study.data.cells()
    tp, m1 = c["H1"].sum(1), (c["H1"] + c["H0"]).sum(1)
    lab = (c["L1"] + c["L0"]).sum(1)
    tn, m0 = (c["L0"] - c["H0"]).sum(1), lab - m1
    k = (c["N1"] - c["L1"]).sum(1)
    n = (c["N1"] + c["N0"]).sum(1) - lab
    rows = [_lr_one(k[i], n[i], tp[i], m1[i], tn[i], m0[i]) for i in range(len(study.systems))]

    def ifn(alpha):
        out = [r(alpha) for r in rows]
        return np.array([o[1] for o in out]), np.array([o[2] for o in out])

    return np.array([r(0.05)[0] for r in rows]), ifn


for _name, _summary in (
    ("ppi", "PPI (lambda = 1), as ppi_py"),
    ("ppi_plus_plus", "PPI++, as ppi_py"),
    ("labels_only", "mean of the human labels"),
    ("naive", "judge's rate, uncorrected"),
    ("rogan_gladen", "labelled items as calibration"),
):
    _comparator(_name, _summary)


@ItemStudy.methods.register("exact", engine="exact", summary="exact posterior draws")
def _exact(study: ItemStudy, *, random_seed=None, draws: int = 4000) -> FitParts:
    """``draws`` draws of the exact posterior (the study's prior on each stratum's rate,
    Jeffreys's by default, and uniform on the verdict categories given the human label;
    :func:`~.items.exact_items_draws`).
    """
    rng = np.random.default_rng(random_seed)
    dr = ie.exact_items_draws(study.data, draws, rng, theta_prior=study.priors.theta)
    cell_dims = ["system", "stratum", "category"]
    idata = tree(
        {"posterior": {k: dr[k][None] for k in ("theta", "theta_items", "human_rate", "share")}},
        coords={
            "system": list(study.systems),
            "stratum": list(study.data.strata),
            "category": ie.category_names(study.data),
        },
        dims={
            "theta": ["system"],
            "theta_items": ["system"],
            "human_rate": cell_dims,
            "share": cell_dims,
        },
    )
    return FitParts(
        idata,
        quantity=study.quantity,
        info={
            "draws": draws,
            "prior": f"Beta{tuple(study.priors.theta)} on each stratum's rate theta (as in "
            "Laplace and NUTS), uniform on P(verdict category | human label) for each label "
            "and system (one judge: q0, q1 uniform); nothing assumed about how several "
            "judges' errors relate",
            "ess": dr["ess"].tolist(),
        },
    )


@ItemStudy.methods.register("laplace", engine="laplace", summary="MAP + Laplace draws")
def _laplace(
    study: ItemStudy, *, random_seed=None, draws: int = 4000, importance: bool = True
) -> FitParts:
    """``draws`` Laplace draws; ``importance`` checks them by PSIS.  Refused for the
    judge's rates pooled across systems (below), before any work.
    """
    if study.judge_rates == "pooled":
        raise LaplaceError(
            "the Laplace approximation does not fit the judge's rates pooled across systems "
            "(the learnt spread's posterior is a funnel: its importance check refused 40 of "
            "40 simulated two-system sets); use method='nuts', or for Laplace "
            "judge_rates='per_system' (or 'shared', which check self_preference tests)"
        )
    parts = study._laplace(study.model_spec(), random_seed, draws=draws, importance=importance)
    return study._with_items_draws(parts, random_seed)


@ItemStudy.methods.register("nuts", engine="nuts", summary="NUTS with the gate", mcmc=True)
def _nuts(
    study: ItemStudy,
    *,
    random_seed=None,
    sampler=None,
    log_likelihood: bool = False,
    prior_draws: int = 0,
) -> FitParts:
    """NUTS (``sampler``); ``log_likelihood`` and ``prior_draws`` add those groups."""
    parts = study._nuts(
        study.model_spec(),
        study._sampler_key(),
        sampler,
        random_seed,
        log_likelihood=log_likelihood,
        prior_draws=prior_draws,
    )
    return study._with_items_draws(parts, random_seed)


def _lr_one(k, n, tp, m1, tn, m0):
    """Lang-Reiczigel of one system as a function of alpha (NaN if a class is unlabelled)."""

    def f(alpha):
        if min(m1, m0, n) == 0:
            return np.nan, np.nan, np.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ci = cf.lang_reiczigel_from_counts(
                np.array([k]), np.array([n]), float(tp), float(m1), float(tn), float(m0), alpha
            )
        return (
            float(np.atleast_1d(ci.estimate)[0]),
            float(np.atleast_1d(ci.lower)[0]),
            float(np.atleast_1d(ci.upper)[0]),
        )

    return f


# =========================================================================== checks


@ItemStudy.checks.register(
    "judge_dependence",
    summary="are several judges' verdicts independent given the human label? (labelled items)",
)
def _dependence_check(study: ItemStudy, fit=None, *, alpha: float) -> pd.DataFrame:
    r"""For every system, human label and pair of judges, the labelled items' 2 x 2 table of
    the two verdicts: under conditional independence (the latent-class model's assumption)
    their odds ratio is 1.  ``observed`` is the share of items the two agree on,
    ``expected`` the share independence predicts from their marginal rates,
    :math:`p_j p_k + (1-p_j)(1-p_k)`; ``p_value`` is Fisher's exact test, Bonferroni-adjusted
    over the rows (so ``flagged`` holds the family-wise error at ``alpha``).  A pair where
    a judge gives one verdict only carries no information (p = 1).  One judge: no rows.
    """
    d = study.data
    if d.n_judges < 2:
        return pd.DataFrame(columns=list(CHECK_COLUMNS))
    rows = []
    for s, name in enumerate(d.systems):
        for h in (1, 0):
            v = d.votes[d.labelled & (d.system == s) & (d.human == h)].astype(bool)
            for j, k in itertools.combinations(range(d.n_judges), 2):
                a, b = v[:, j], v[:, k]
                table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
                informative = a.size > 1 and 0 < a.mean() < 1 and 0 < b.mean() < 1
                p = stats.fisher_exact(table)[1] if informative else 1.0
                pa, pb = (a.mean(), b.mean()) if a.size else (np.nan, np.nan)
                rows.append(
                    {
                        "unit": f"{name}: {d.judges[j]} & {d.judges[k]} | human {h}",
                        "observed": float(np.mean(a == b)) if a.size else np.nan,
                        "expected": float(pa * pb + (1 - pa) * (1 - pb)),
                        "p_raw": float(p),
                        "n": int(a.size),
                    }
                )
    return bonferroni(rows, alpha)


#: random relabellings behind the ``self_preference`` check's p-values
PERMUTATIONS = 2000


@ItemStudy.checks.register(
    "self_preference",
    summary="does the judge err the same way on every system's items? (labelled items)",
)
def _self_preference_check(study: ItemStudy, fit=None, *, alpha: float) -> pd.DataFrame:
    r"""For every judge and human label, the labelled items' table of system x verdict: with
    shared judge rates (the Laplace and NUTS default) the judge's positive rate given the
    human label, :math:`q_1` or :math:`1 - q_0`, is the same for every system.  A judge that
    favours its own family's answers breaks that.  ``observed`` is the largest distance of a
    system's rate from the pooled one, ``expected`` the pooled rate; ``p_value`` is a
    permutation test of the Pearson statistic (:data:`PERMUTATIONS` relabellings of the
    systems within the human label, seeded, exact for any counts), Bonferroni-adjusted
    over the rows.  Fewer than two systems with labels: no rows.
    """
    d = study.data
    if d.covariates is not None and d.n_judges == 1:
        return _self_preference_given_covariates(study, alpha=alpha)
    rows = []
    rng = np.random.default_rng(20261125)
    votes = d.judge[:, None] if d.votes is None else d.votes
    names = d.judges or (d.columns.get("judge") or "judge",)
    for j, judge in enumerate(names):
        for h in (1, 0):
            keep = d.labelled & (d.human == h)
            sys_, v = d.system[keep], votes[keep, j].astype(float)
            present = np.unique(sys_)
            if present.size < 2 or v.size < 3:
                continue
            code = np.searchsorted(present, sys_)
            k = present.size
            n_s = np.bincount(code, minlength=k).astype(float)
            pooled = v.mean()

            onehot = np.eye(k)[code]  # (n, systems)

            def stat(x, onehot=onehot, n_s=n_s, pooled=pooled):
                pos = x @ onehot  # positives per system, for every relabelling at once
                exp1 = n_s * pooled
                with np.errstate(invalid="ignore", divide="ignore"):
                    terms = (pos - exp1) ** 2 * (1 / exp1 + 1 / (n_s - exp1))
                return np.nansum(terms, axis=-1)

            t0 = stat(v[None])[0]
            perm = rng.permuted(np.broadcast_to(v, (PERMUTATIONS, v.size)), axis=1)
            p = (1 + np.sum(stat(perm) >= t0 - 1e-9)) / (PERMUTATIONS + 1)
            if 0 < pooled < 1:
                rates = np.bincount(code, weights=v, minlength=k) / n_s
                far = float(np.max(np.abs(rates - pooled)))
            else:
                far, p = 0.0, 1.0
            label = "sensitivity" if h == 1 else "1 - specificity"
            rows.append(
                {
                    "unit": f"{judge} | human {h} ({label}) across {k} systems",
                    "observed": far,
                    "expected": float(pooled),
                    "p_raw": float(p),
                    "n": int(v.size),
                }
            )
    return bonferroni(rows, alpha)


#: ridge on the non-intercept logit coefficients of the conditional self-preference test
#: (a N(0, 10) prior's weight): keeps a fit finite when a system's labelled items are all
#: one verdict, and too weak to matter otherwise
RIDGE = 0.1
#: and on the intercept, so that a verdict set that is all one value (a bootstrap draw of
#: a near-perfect judge's few labels) has a finite fit instead of a singular Hessian
RIDGE_INTERCEPT = 1e-3


def _logistic(X: np.ndarray, Y: np.ndarray, iters: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Ridge logistic regressions of each row of ``Y`` (B, n) on ``X`` (n, p), by Newton
    at once; returns (fitted probabilities (B, n), penalised log likelihoods (B,)).
    The first column of ``X`` is the intercept (penalised by :data:`RIDGE_INTERCEPT`
    only).  Newton steps are capped at 5 on the logit scale (near separation).
    """
    pen = np.full(X.shape[1], RIDGE)
    pen[0] = RIDGE_INTERCEPT
    beta = np.zeros((Y.shape[0], X.shape[1]))
    for _ in range(iters):
        mu = expit(beta @ X.T)
        g = (Y - mu) @ X - pen * beta
        H = np.einsum("bn,np,nq->bpq", mu * (1 - mu), X, X) + np.diag(pen)
        step = np.clip(np.linalg.solve(H, g[..., None])[..., 0], -5.0, 5.0)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-8:
            break
    eta = beta @ X.T
    ll = (Y * log_expit(eta) + (1 - Y) * log_expit(-eta)).sum(1) - 0.5 * (pen * beta**2).sum(1)
    return expit(eta), ll


def _self_preference_given_covariates(study: ItemStudy, *, alpha: float) -> pd.DataFrame:
    r"""``self_preference`` when the judge's rates may follow covariates (``covariates=``):
    for each human label, whether the system still explains the judge's verdicts on the
    labelled items once the covariates do.  The statistic is the likelihood ratio of a
    logistic regression of the verdict on the standardised covariates with and without
    system indicators (ridge :data:`RIDGE`); its p-value is a parametric bootstrap of
    :data:`PERMUTATIONS` verdict sets drawn from the covariates-only fit (seeded), which
    stays calibrated with 30 labels a system where the chi-square does not.
    ``observed`` is the largest distance of a system's rate from what the covariates
    predict for its items, ``expected`` the pooled rate.  Bonferroni over the two rows.
    """
    d = study.data
    z, _, _ = ma.standardise(d.covariates)
    rng = np.random.default_rng(20261125)
    judge = d.columns.get("judge") or "judge"
    rows = []
    for h in (1, 0):
        keep = d.labelled & (d.human == h)
        present = np.unique(d.system[keep])
        if present.size < 2 or keep.sum() < 3:
            continue
        code = np.searchsorted(present, d.system[keep])
        v = d.judge[keep].astype(float)
        x0 = np.column_stack([np.ones(v.size), z[keep]])
        x1 = np.column_stack([x0, np.eye(present.size)[code][:, 1:]])
        p0, l0 = _logistic(x0, v[None])
        _, l1 = _logistic(x1, v[None])
        t0 = 2 * (l1[0] - l0[0])
        ystar = (rng.random((PERMUTATIONS, v.size)) < p0).astype(float)
        _, b0 = _logistic(x0, ystar)
        _, b1 = _logistic(x1, ystar)
        p = (1 + np.sum(2 * (b1 - b0) >= t0 - 1e-9)) / (PERMUTATIONS + 1)
        n_s = np.bincount(code, minlength=present.size)
        gap = (np.bincount(code, weights=v - p0[0], minlength=present.size)) / n_s
        label = "sensitivity" if h == 1 else "1 - specificity"
        rows.append(
            {
                "unit": f"{judge} | human {h} ({label}) across {present.size} systems, "
                f"given {', '.join(d.covariate_names)}",
                "observed": float(np.max(np.abs(gap))),
                "expected": float(v.mean()),
                "p_raw": float(p),
                "n": int(v.size),
            }
        )
    return bonferroni(rows, alpha)
