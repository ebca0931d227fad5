r"""The items study: every item judged, a subset labelled by humans, one frame.

``AccuracyStudy.from_items(frame, judge=..., human=...)`` returns an :class:`ItemStudy`
(a blank human label means unlabelled).  Its fits are :class:`AccuracyFit` s of the
accuracy family, with one of two estimands, stated in every fit
(``fit.info["estimand"]``, ``fit.quantity``):

* ``"items"`` (default): the rate over the :math:`N` items evaluated
  (quantity ``theta_items``): the labelled items are known, only the unlabelled part is
  uncertain;
* ``"process"``: the rate of the process that produced them (quantity ``theta``).

Methods (:data:`judgebayes.inference.registry.METHODS` ``["accuracy.items"]``):
``closed_form`` (double sampling; cluster-robust with ``cluster``, Hajek-weighted with
``weights``), ``exact`` (the conjugate posterior), ``laplace`` and ``nuts`` (the items
model of :mod:`judgebayes.models.accuracy`; with ``cluster``, its hierarchical clustered
model; with several judges, ``judge=[...]``, the joint latent-class model), and the
comparators ``ppi``,
``ppi_plus_plus`` (as ``ppi_py``), ``labels_only``, ``naive`` and ``rogan_gladen``
(labelled items as a calibration set for the others, Lang-Reiczigel).  The comparators
estimate the process rate whatever the study's estimand, and say so in their notes.
"""

from __future__ import annotations

import time
import warnings
from functools import partial
from typing import Any

import numpy as np

from judgebayes.data.items import ItemData, items_from_frame
from judgebayes.errors import InputError
from judgebayes.inference import items as ie
from judgebayes.results import Comparable

__all__ = ["ItemStudy"]

_QUANTITY = {"items": "theta_items", "process": "theta"}
_COMPARATORS = {
    "ppi": "PPI (lambda = 1), ppi_py's interval",
    "ppi_plus_plus": "PPI++ (tuned lambda, clipped to [0, 1]), ppi_py's interval",
    "labels_only": "the human-labelled items' mean",
    "naive": "the judge's positive rate, uncorrected (biased unless the judge is perfect)",
    "rogan_gladen": "labelled items as a calibration set for the unlabelled ones: "
    "Rogan-Gladen with the Lang-Reiczigel interval (ignores what the labels say about "
    "the rate itself)",
}


class ItemStudy(Comparable):
    r"""One item frame of the items design (module docstring); fits by any method.

    Parameters
    ----------
    data : ItemData
        Validated items (:func:`judgebayes.data.items.items_from_frame`).
    estimand : {"items", "process"}
        What the intervals are for (module docstring).
    judge_rates : {"per_system", "shared"}
        Bayesian model only: the judge's rates per system (no assumption across
        systems; default) or one set for every system (borrows strength; assumes the
        judge errs the same way on every system's items).
    priors : AccuracyPriors, optional
        Beta priors of the Laplace / NUTS model.
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

    default_methods = ("closed_form", "ppi_plus_plus", "labels_only", "exact", "nuts")
    family = "accuracy"
    registry = "accuracy.items"

    def __init__(
        self,
        data: ItemData,
        *,
        estimand: str = "items",
        judge_rates: str = "per_system",
        priors: Any = None,
        better_than_chance: bool = False,
        difficulty: bool = False,
    ):
        from judgebayes.models.accuracy import JUDGE_RATES, AccuracyPriors

        if not isinstance(data, ItemData):
            raise InputError(
                "data must be ItemData (use AccuracyStudy.from_items)",
                field="data",
                value=type(data).__name__,
            )
        ie._check_estimand(estimand)
        if judge_rates not in JUDGE_RATES:
            raise InputError(
                f"judge_rates must be one of {JUDGE_RATES}; got {judge_rates!r}",
                field="judge_rates",
                value=judge_rates,
            )
        if difficulty and data.n_judges == 1:
            raise InputError(
                "difficulty=True models errors that several judges share on hard items; "
                "it needs several judges (judge=[...])",
                field="difficulty",
                value=True,
            )
        self.difficulty = bool(difficulty)
        self.data, self.estimand, self.judge_rates = data, estimand, judge_rates
        self.priors = priors if priors is not None else AccuracyPriors()
        self.better_than_chance = bool(better_than_chance)
        ns = len(data.systems)
        self._counts = {
            "n_items": np.bincount(data.system, minlength=ns).tolist(),
            "n_labelled": np.bincount(data.system[data.labelled], minlength=ns).tolist(),
        }

    @classmethod
    def from_frame(
        cls,
        items,
        *,
        judge: str = "judge",
        human: str = "human",
        system: str | None = None,
        stratum: str | None = None,
        cluster: str | None = None,
        weights: str | None = None,
        positive: Any = None,
        count: str | None = None,
        **kwargs: Any,
    ) -> ItemStudy:
        """Validate ``items`` (:func:`~judgebayes.data.items.items_from_frame`) and wrap it."""
        data = items_from_frame(
            items,
            judge=judge,
            human=human,
            system=system,
            stratum=stratum,
            cluster=cluster,
            weights=weights,
            positive=positive,
            count=count,
        )
        return cls(data, **kwargs)

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

    def _notes(self) -> tuple[str, ...]:
        out = []
        for s, nm in zip(self.systems, self.data.n_missing, strict=True):
            if nm:
                out.append(
                    f"system {s!r}: {int(nm)} row(s) without a verdict are not evaluated items "
                    "(excluded, counted here)"
                )
        return tuple(out)

    # --------------------------------------------------------------- planning
    def plan(self, width: float, alpha: float = 0.05, max_labels: int | None = None):
        """How many more labels, and where, bring every system's interval to ``width``.

        Labels are allocated greedily where they lower the estimand's variance most
        (:func:`judgebayes.inference.items.allocate_labels`: Neyman allocation across
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
        import pandas as pd

        from judgebayes.inference.closed_form import z_value
        from judgebayes.results import check_alpha

        alpha = check_alpha(alpha)
        if isinstance(width, bool) or not isinstance(width, int | float) or not 0 < width < 1:
            raise InputError(
                f"width must be a number in (0, 1); got {width!r}", field="width", value=width
            )
        z = z_value(alpha)
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
        import pandas as pd

        from judgebayes.inference.registry import check_count, check_seed

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
        """The :class:`~judgebayes.inference.sampling.ModelSpec` of the items model."""
        from judgebayes.inference.sampling import ModelSpec
        from judgebayes.models import accuracy as ma

        if self.data.weights is not None:
            raise InputError(
                "the Bayesian items model takes items labelled at random within verdicts and "
                "strata; with design weights use method='closed_form' (Hajek-weighted)",
                field="weights",
                value=self.data.columns.get("weights"),
            )
        if self.data.n_judges > 1:
            return self._multi_judge_spec()
        if self.data.cluster is not None:
            return self._clustered_spec()
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
        if not self.better_than_chance:  # the numpy log density Laplace uses (no compile)
            density = partial(
                ma.ItemsLogDensity,
                **data,
                **{k: v for k, v in structure.items() if k != "better_than_chance"},
            )
        return ModelSpec(ma.items_accuracy_model, data, structure, names, density=density)

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
        from judgebayes.inference.sampling import ModelSpec
        from judgebayes.models import accuracy as ma

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
        from judgebayes.inference.sampling import ModelSpec
        from judgebayes.models import accuracy as ma

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
            priors=self.priors,
        )
        names = ("theta", "mu", "sigma", "z", "q0", "q1")
        return ModelSpec(ma.clustered_items_model, data, structure, names)

    def build_model(self):
        """A fresh ``pm.Model`` (never sampled here)."""
        return self.model_spec().build()

    # --------------------------------------------------------------- fitting
    def fit(self, method: str = "nuts", *, random_seed: int | None = None, **options: Any):
        """Fit by ``method`` (module docstring); options as for
        :meth:`AccuracyStudy.fit <judgebayes.studies.accuracy.AccuracyStudy.fit>`.

        Returns
        -------
        AccuracyFit
            ``fit.quantity`` is ``theta_items`` or ``theta`` (the estimand);
            ``fit.info["estimand"]`` says which, in words.
        """
        from judgebayes.inference.registry import check_seed, resolve
        from judgebayes.results import replace_fit, stamped

        spec = resolve(self.registry, method, options)
        random_seed = check_seed(random_seed)
        t0 = time.perf_counter()
        if spec.name in _COMPARATORS:
            fit = self._fit_comparator(spec.name)
        else:
            fit = getattr(self, f"_fit_{spec.name}")(random_seed=random_seed, **options)
        estimand = fit.info.get("estimand", self.estimand)
        info = {
            "design": "items",
            "estimand": estimand,
            "estimand_text": (
                "the rate over the N items evaluated"
                if estimand == "items"
                else "the rate of the process that produced the items"
            ),
            "judge_rates": self.judge_rates,
            **self._counts,
            **fit.info,
        }
        idata = stamped(
            fit,
            method=spec.name,
            family=self.family,
            random_seed=random_seed,
            priors=self.priors,
            sampler=info.get("sampler"),
            design="items",
            estimand=estimand,
            judge_rates=self.judge_rates,
            difficulty=self.difficulty,
        )
        notes = (*fit.notes, *self._notes())
        return replace_fit(
            fit, idata=idata, seconds=time.perf_counter() - t0, info=info, notes=notes
        )

    def _point(self, values, quantity: str, ifn, info, notes=(), more=None):
        """A point fit whose ``InferenceData`` is built on first use
        (:class:`~judgebayes.results.Deferred`).

        ``values`` maps variables (the quantity among them) to one value per system;
        ``more``, a callable returning more such variables, runs only at that build.
        """
        from judgebayes.results import Deferred
        from judgebayes.studies.accuracy_fit import AccuracyFit

        systems = list(self.systems)

        def every():
            return values if more is None else {**values, **more()}

        def build():
            import xarray as xr

            # built directly (az.from_dict costs 3x as much: most of a closed-form fit's time)
            post = xr.Dataset(
                {
                    k: (("chain", "draw", "system"), np.asarray(v, float).reshape(1, 1, -1))
                    for k, v in every().items()
                },
                coords={"chain": [0], "draw": [0], "system": systems},
            )
            return xr.DataTree.from_dict({"posterior": post})

        bad = [s for s, x in zip(self.systems, values[quantity], strict=True) if not np.isfinite(x)]
        notes = (*notes, *(f"system {s!r}: not estimable from these labels: NaN" for s in bad))
        return AccuracyFit(
            info.pop("method"),
            Deferred(build, "system", systems, values),
            quantity=quantity,
            interval_fn=ifn,
            info=info,
            notes=tuple(notes),
        )

    def _fit_closed_form(self, random_seed=None):
        chosen = ie.double_sampling_items(self.data, self.estimand)
        other = next(e for e in ie.ESTIMANDS if e != self.estimand)
        notes = []
        und = chosen.info["undefined_cells"]
        for s, t, c in zip(*np.nonzero(und), strict=True):
            what = (
                f"the judge's {'positives' if c else 'negatives'}"
                if self.data.n_judges == 1
                else f"the items with {c} of {self.data.n_judges} positive votes"
            )
            notes.append(
                f"system {self.systems[s]!r}, stratum {self.data.strata[t]!r}: no labelled item "
                f"among {what}, whose human rate is then unknown: NaN"
            )
        design = "iid items"
        if self.data.cluster is not None:
            design = "cluster-robust (CR1) over clusters"
        if self.data.weights is not None:
            design += ", Hajek-weighted by the design weights"
        return self._point(
            {self.quantity: chosen.estimate},
            self.quantity,
            chosen.interval,
            {
                "method": "closed_form",
                "estimator": "double sampling (Tenenbein 1970) over all judged items, "
                f"influence-function variance, {design}; Wald interval clipped to the "
                "estimand's known range",
            },
            notes,
            more=lambda: {_QUANTITY[other]: ie.double_sampling_items(self.data, other).estimate},
        )

    def _fit_comparator(self, name: str):
        d = self.data
        if d.n_judges > 1 and name != "labels_only":
            raise InputError(
                f"method {name!r} takes one judge's verdicts; {d.n_judges} judges were given: "
                "fit it on one judge's column, or use 'closed_form' / 'nuts' for all of them",
                field="judge",
                value=list(d.judges),
            )
        if name in ("ppi", "ppi_plus_plus"):
            est = ie.ppi_items(d, lam=1.0 if name == "ppi" else None)
            extra = {"lam": est.info["lam"].tolist()}
        elif name == "labels_only":
            est, extra = ie.labels_only_items(d), {}
        elif name == "naive":
            est, extra = ie.naive_items(d), {}
        else:
            c = d.cells()
            tp, m1 = c["H1"].sum(1), (c["H1"] + c["H0"]).sum(1)
            lab = (c["L1"] + c["L0"]).sum(1)
            tn, m0 = (c["L0"] - c["H0"]).sum(1), lab - m1
            k = (c["N1"] - c["L1"]).sum(1)
            n = (c["N1"] + c["N0"]).sum(1) - lab
            rows = [
                _lr_one(k[i], n[i], tp[i], m1[i], tn[i], m0[i]) for i in range(len(self.systems))
            ]

            def ifn(alpha):
                out = [r(alpha) for r in rows]
                return np.array([o[1] for o in out]), np.array([o[2] for o in out])

            point = np.array([r(0.05)[0] for r in rows])
            return self._point(
                {"theta": point},
                "theta",
                ifn,
                {"method": name, "estimator": _COMPARATORS[name], "estimand": "process"},
                (f"{name} estimates the process rate (theta), not the N items' rate",),
            )
        return self._point(
            {"theta": est.estimate},
            "theta",
            est.interval,
            {"method": name, "estimator": _COMPARATORS[name], "estimand": "process", **extra},
            (f"{name} estimates the process rate (theta), not the N items' rate",),
        )

    def _fit_exact(self, random_seed=None, draws: int = 4000):
        from judgebayes.results import tree
        from judgebayes.studies.accuracy_fit import AccuracyFit

        rng = np.random.default_rng(random_seed)
        dr = ie.exact_items_draws(self.data, int(draws), rng)
        cell_dims = ["system", "stratum", "category"]
        idata = tree(
            {
                "posterior": {
                    "theta": dr["theta"][None],
                    "theta_items": dr["theta_items"][None],
                    "human_rate": dr["human_rate"][None],
                    "share": dr["share"][None],
                }
            },
            coords={
                "system": list(self.systems),
                "stratum": list(self.data.strata),
                "category": ie.category_names(self.data),
            },
            dims={
                "theta": ["system"],
                "theta_items": ["system"],
                "human_rate": cell_dims,
                "share": cell_dims,
            },
        )
        return AccuracyFit(
            "exact",
            idata,
            quantity=self.quantity,
            info={
                "draws": int(draws),
                "prior": "uniform (Dirichlet(1)) on the shares of the verdict categories and "
                "uniform on P(human = 1 | category) for each category, conjugate; nothing "
                "assumed about how several judges' errors relate",
            },
        )

    def _add_items_draws(self, idata, random_seed):
        """Posterior predictive of the unlabelled items' labels -> ``theta_items``."""
        post = idata.posterior
        if self.data.n_judges > 1:
            return self._add_items_draws_multi(idata, random_seed)
        if self.data.cluster is not None:
            c, sys_of = self._cluster_cells()
            th = post["theta_cluster"].values
            q0, q1 = post["q0"].values[..., sys_of], post["q1"].values[..., sys_of]
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
            val = (known + extra @ onehot) / n_s
        else:
            n_s = (c["N1"] + c["N0"]).sum(1)
            known = (c["H1"] + c["H0"]).sum(1)
            val = (known + extra.sum(-1)) / n_s
        post["theta_items"] = post["theta"].copy(data=val)
        return idata

    def _add_items_draws_multi(self, idata, random_seed):
        """``theta_items`` of the joint model: P(h = 1 | pattern) per draw, binomial fill."""
        post = idata.posterior
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
        val = (y.sum(1) + extra) / n_s
        post["theta_items"] = post["theta"].copy(data=val)
        return idata

    def _fit_laplace(self, random_seed=None, draws: int = 4000, importance: bool = True):
        from judgebayes.inference.laplace import fit_laplace
        from judgebayes.studies.accuracy_fit import AccuracyFit

        idata, info = fit_laplace(
            self.model_spec(), draws=draws, random_seed=random_seed, importance=importance
        )
        idata = self._add_items_draws(idata, random_seed)
        return AccuracyFit("laplace", idata, quantity=self.quantity, info=info)

    def _fit_nuts(self, random_seed=None, sampler=None):
        from judgebayes.inference.registry import resolve_sampler
        from judgebayes.inference.sampling import sample_nuts
        from judgebayes.studies.accuracy_fit import AccuracyFit

        cfg = resolve_sampler("accuracy", sampler)
        idata, diag, info = sample_nuts(self.model_spec(), random_seed=random_seed, sampler=cfg)
        idata = self._add_items_draws(idata, random_seed)
        return AccuracyFit(
            "nuts", idata, quantity=self.quantity, diagnostics=diag, info={**info, "sampler": cfg}
        )


def _lr_one(k, n, tp, m1, tn, m0):
    """Lang-Reiczigel of one system as a function of alpha (NaN if a class is unlabelled)."""
    from judgebayes.inference import closed_form as cf

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
