r"""The leaderboard study: many systems on the same items, the family's one door.

``jb.LeaderboardStudy.from_items(frame, system=..., item=..., score=...)`` (columns:
:func:`~judgebayes.data.leaderboard.board_from_frame`; ``judge=`` names the score column
when it holds a judge's verdicts, ``human=`` the labels that correct it) returns the
one-parameter model (:class:`~.variants.RaschBoard`); the other models are asked for by
their class.  Every method takes every board, judged or not:

* ``closed_form``: each system's mean over the items every system answered, paired by
  item, its cluster-robust covariance (:mod:`judgebayes.inference.leaderboard.paired`);
  a judge's scores corrected by the labels first
  (:mod:`~judgebayes.inference.leaderboard.judged`), or its pull towards ``adjust=``
  covariates taken out (:mod:`~judgebayes.inference.leaderboard.adjusted`);
* ``bootstrap``: the same scores, the items (or clusters) resampled as HELM reports;
* ``nuts`` (default) and ``laplace``: the Bayesian model
  (:func:`~judgebayes.models.leaderboard.board_model`), a judge's sensitivity and
  specificity learnt from the labelled rows, per system, partially pooled.

:meth:`~.fit.BoardFit.leaderboard` is the one table of every fit, its header naming the
estimand: the closed forms estimate each system's mean on the item population
(``theta_process``), the Bayesian models on these items (``theta``) and the population.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from judgebayes.checks.leaderboard.clustering import CHECK as CLUSTERING
from judgebayes.checks.leaderboard.labelling import CHECK as LABELLING
from judgebayes.data.leaderboard import BoardData, board_from_frame
from judgebayes.errors import (
    ClusteringWarning,
    FewClustersWarning,
    LabellingWarning,
    MethodRefused,
    require_type,
    route_keywords,
)
from judgebayes.inference.leaderboard import posterior
from judgebayes.inference.leaderboard.judged import FEW_LABELS
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models.leaderboard import BoardPriors, board_model, success_probabilities
from judgebayes.studies.base import FitParts, Study, register_bayes
from judgebayes.studies.leaderboard.fit import BoardFit

__all__ = ["CENTRED_TRIALS", "FEW_CLUSTERS", "LeaderboardStudy"]

#: successes and failures an item needs for its deviation to be drawn centred: on
#: LiveCodeBench (45 systems x 10 samples) every item non-centred reached R-hat 1.6 and
#: every item centred 1.39 (the items no system solves)
CENTRED_TRIALS = 10
#: below this many clusters a board warns that its cluster-robust claims rest on few sums
FEW_CLUSTERS = 10
#: the level at which labels that are not a random choice of the rows are warned about
#: (Holm over the systems and columns): random labels on 300 simulated boards of 10
#: systems warned on 1.3% of them at 0.01; the items design warns at the same 0.001
LABELLING_ALPHA = 0.001
#: the level at which an undeclared grouping of the items is warned about (Holm over the
#: board's candidate columns: independent items warn on at most 0.1% of boards)
GROUPING_ALPHA = 0.001


class LeaderboardStudy(Study):
    """Many systems' outcomes on the same items (module docstring): the family's door.

    Parameters
    ----------
    data : BoardData
        From :func:`~judgebayes.data.leaderboard.board_from_frame`.
    priors : BoardPriors, optional
        The Bayesian models' priors.
    """

    family = "leaderboard"
    key = "leaderboard"
    abstract = True
    fit_type = BoardFit
    default_method = "nuts"
    default_methods = ("closed_form", "nuts")
    #: the items' spread is learnt from items measured well and badly alike: its R-hat
    #: was 1.017 at 4 x 1000 on 8 LiveCodeBench models x 181 problems; 0.9 keeps the
    #: small boards of the tests free of divergences
    sampler = SamplerConfig(draws=2000, tune=1500, target_accept=0.9)
    item_effects: ClassVar[bool] = True
    discrimination: ClassVar[bool] = False
    guessing: ClassVar[bool] = False

    def __init__(self, data: BoardData, *, priors: BoardPriors | None = None):
        self.data = require_type(data, BoardData, "data", "use LeaderboardStudy.from_items")
        self.priors = require_type(priors or BoardPriors(), BoardPriors, "priors")
        if data.clusters and len(data.clusters) < FEW_CLUSTERS:
            warnings.warn(
                f"{len(data.clusters)} clusters in {data.column('cluster')!r}: the closed "
                "form's cluster-robust claims rest on that many sums (CR2, with Student's t "
                f"at {len(data.clusters) - 1} degrees of freedom), so they are wide, and "
                "the bootstrap resamples only that many (it refuses fewer than 20); the "
                "Bayesian boards' spread of the clusters' offsets rests on their prior",
                FewClustersWarning,
                stacklevel=3,
            )

    @classmethod
    def from_items(cls, frame, *, priors: BoardPriors | None = None, **columns: Any):
        """From one row per outcome (:func:`~judgebayes.data.leaderboard.board_from_frame`'s
        columns: ``system``, ``item``, ``score`` or ``judge``, ``trials``, ``human``,
        ``cluster``, ``adjust``, ``scale``).
        """
        (roles,) = route_keywords(f"{cls.__name__}.from_items", columns, board_from_frame)
        return cls(board_from_frame(frame, **roles), priors=priors)

    from_frame = from_items

    @classmethod
    def _variant_data(cls, data: Any = None, *args: Any, **kwargs: Any) -> BoardData:
        return require_type(data, BoardData, "data", "use LeaderboardStudy.from_items")

    # ----------------------------------------------------------------- facts
    @property
    def systems(self) -> tuple[str, ...]:
        """System labels."""
        return self.data.systems

    @property
    def centred(self) -> tuple[int, ...]:
        """Per item, its cluster when the model draws its deviation centred, else -1:
        centred when its outcomes hold at least :data:`CENTRED_TRIALS` successes and as
        many failures (the data then pin its difficulty down; with fewer, the non-centred
        form samples better).
        """
        d = self.data
        k = (d.k + d.h1).sum(axis=0)
        n = (d.n + d.n_l).sum(axis=0)
        well = np.minimum(k, n - k) >= CENTRED_TRIALS
        return tuple(int(c) if w else -1 for c, w in zip(d.cluster, well, strict=True))

    @property
    def overdispersed(self) -> bool:
        """Whether the cells' rates vary around the model's (a concentration is learnt):
        a board whose cells hold several trials, the scores the truth.
        """
        return bool(not self.data.judged and self.data.n.max() >= 2)

    # ----------------------------------------------------------------- hooks
    def _prepare(self, method) -> None:
        """Every method: a judge's verdicts labelled where it said each of its values; the
        Bayesian models read 0/1 outcomes or counts, and no ``adjust=``.
        """
        d = self.data
        if d.judged:
            self._labelled_where_the_judge_said(method.name)
        if method.engine not in ("nuts", "laplace"):
            return
        if not d.counts:
            raise MethodRefused(
                "the Bayesian boards model 0/1 outcomes (or whole counts of trials) and 0/1 "
                f"labels; these scores take values between the ends of their scale {d.scale} "
                "(fractions or grades): use method "
                "'closed_form' or 'bootstrap'",
                method=method.name,
            )
        if d.covariates is not None:
            raise MethodRefused(
                f"adjust={list(d.covariate_names)!r} takes a judge's pull out of the closed "
                "form's and the bootstrap's scores; the Bayesian boards do not model it: use "
                "method 'closed_form' or 'bootstrap', or leave adjust= out",
                method=method.name,
            )

    def _labelled_where_the_judge_said(self, method: str) -> None:
        """Refuse when some score value of the judge's (of at most ten) has no label:
        nothing says what the human rate is there (labels drawn only where the judge said
        1 say nothing about where it said 0).
        """
        d = self.data
        seen = d.rows > 0
        values = np.unique(d.scores[seen])
        if values.size > 10:
            return
        labelled = ~np.isnan(d.labels)
        missing = [v for v in values if not (labelled & (d.scores == v)).any()]
        if missing:
            where = int(((d.scores == missing[0]) & seen).sum())
            raise MethodRefused(
                f"no labelled row has the judge's score {missing[0]:g} ({where} cell(s) do): "
                "nothing says what the human rate is there (labels drawn only where the "
                "judge said 1 say nothing about where it said 0); label some of them",
                method=method,
            )

    def _info(self, method, parts: FitParts) -> dict:
        d = self.data
        sampling = method.name in ("closed_form", "bootstrap")
        return {
            "estimand": "process" if sampling else "items",
            "table": method.name if sampling else "posterior",
            "n_items": len(d.items),
            "n_missing": d.n_missing,
            "judged": d.judged,
            "ability_sd": self.priors.ability_sd,
        }

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        d = self.data
        notes = []
        if d.n_missing:
            notes.append(f"{d.n_missing} row(s) without a score left out")
        if d.blank_systems:
            notes.append(
                f"{len(d.blank_systems)} system(s) have no row with a score and are not on the "
                f"board: {', '.join(map(repr, d.blank_systems[:5]))}"
            )
        if d.n_repeated and method.name in ("closed_form", "bootstrap"):
            notes.append(f"{d.n_repeated} (system, item) cell(s) hold several rows: averaged")
        elif d.n_repeated:
            notes.append(
                f"{d.n_repeated} (system, item) cell(s) hold several rows: counted as repeated "
                "samples of the cell (a row given twice by mistake counts twice)"
            )
        empty = int((d.rows == 0).sum())
        if empty and method.name not in ("closed_form", "bootstrap"):
            notes.append(
                f"{empty} (system, item) cell(s) without an outcome: the model "
                "predicts them from the system's ability and the item's difficulty"
            )
        notes += self._grouping_notes(method)
        if d.judged:
            notes += self._label_notes(method)
        return tuple(notes)

    def _label_notes(self, method) -> list[str]:
        """What every judged fit must say of its labels: systems with few (each method
        trusts them differently), and labels that were not a random choice of the rows
        (the check ``board_labelling``; a warning too).
        """
        d = self.data
        n_s = d.n_l.sum(axis=1) if d.counts else (~np.isnan(d.labels)).sum(axis=1)
        notes = []
        thin = np.flatnonzero(n_s < FEW_LABELS)
        if thin.size:
            named = ", ".join(f"{d.systems[s]!r}: {int(n_s[s])}" for s in thin[:5])
            if method.name in ("closed_form", "bootstrap"):
                why = (
                    "each system's correction rests on its own labels, so its interval is wide "
                    "and approximate"
                )
            else:
                why = (
                    "their judge's rates are learnt mostly from the other systems' labels "
                    "(pooled): where the judge errs differently on one of them (kinder to it, "
                    "say), its interval is too narrow and its rank too sure"
                )
            note = (
                f"{thin.size} system(s) have fewer than {FEW_LABELS} labels ({named}): {why}; "
                "label more of their rows"
            )
            notes.append(note)
            if method.name not in ("closed_form", "bootstrap"):
                warnings.warn(note, LabellingWarning, stacklevel=5)
        result = LABELLING(self, None, alpha=LABELLING_ALPHA)
        flagged = result.table[result.table["flagged"]]
        if not flagged.empty:
            first = flagged.iloc[0]
            columns = sorted(set(flagged["column"]) - {"judge's scores"})
            consequence = (
                f"the labels followed {', '.join(map(repr, columns))}: where the judge follows "
                "it too, the corrected means are biased"
                if columns
                else "where a system's labels are not a random choice of its rows within each "
                "of the judge's verdicts, its corrected mean is biased"
            )
            note = (
                f"the labelled rows are not a random choice of the rows ({first['unit']}: "
                f"p = {first['p_value']:.2g}, Holm over the systems and columns); {consequence}; "
                "draw the labels at random within each system"
            )
            warnings.warn(note, LabellingWarning, stacklevel=5)
            notes.append(note)
        return notes

    def _grouping_notes(self, method) -> list[str]:
        """One warning and note naming every column the items look grouped by, undeclared."""
        if method.name not in ("closed_form", "bootstrap") or not self.data.item_groups:
            return []
        result = CLUSTERING(self, None, alpha=GROUPING_ALPHA)
        flagged = result.table[result.table["flagged"]]
        if flagged.empty:
            return []
        said = ", ".join(
            f"{r['column']!r} (F = {r['observed']:.3g}, p = {r['p_value']:.2g})"
            for _, r in flagged.iterrows()
        )
        first = flagged["column"].iloc[0]
        note = (
            f"the items look grouped by column(s) {said}, which cluster= does not declare: if "
            "a column's groups are a sample of those the benchmark could have drawn "
            f"(subtasks, sources), give it as cluster= (cluster={first!r}), or every interval "
            "and rank claim is too narrow; if they are the benchmark's fixed strata, the "
            "claims are conservative"
        )
        warnings.warn(note, ClusteringWarning, stacklevel=5)
        return [note]

    # ----------------------------------------------------------------- the model
    def replicates(self, fit: BoardFit, count: int, rng) -> list[tuple[np.ndarray, np.ndarray]]:
        r"""``count`` posterior predictive replicates of the unlabelled cells' counts, each
        with its draw's probability of a positive outcome (systems, items): the success
        probability, or with a judge its verdict's, :math:`p\,\mathrm{se}_s + (1 - p)(1 -
        \mathrm{sp}_s)`; with a concentration, each cell's rate drawn around it first.
        """
        fit._require_draws("the posterior predictive")
        post = fit.tree.posterior
        total = post.sizes["chain"] * post.sizes["draw"]
        pick = rng.choice(total, size=min(count, total), replace=False)
        names = ("ability", "difficulty", "discrimination", "guessing", "sensitivity",
                 "specificity", "concentration")  # fmt: skip
        d = {v: fit.draws(v).values[pick] for v in names if v in post}
        q = success_probabilities(
            d["ability"], d.get("difficulty"), d.get("discrimination"), d.get("guessing")
        )
        q = np.broadcast_to(q, (pick.size, *self.data.shape))
        if self.data.judged:
            se, sp = d["sensitivity"][:, :, None], d["specificity"][:, :, None]
            q = q * se + (1 - q) * (1 - sp)
        phi = d.get("concentration")
        r = q if phi is None else posterior.cell_rates(q, phi, 0, 0, rng)
        k = rng.binomial(self.data.n, r)
        return list(zip(q, k, strict=True))

    def model_spec(self) -> ModelSpec:
        """:func:`~judgebayes.models.leaderboard.board_model` of this class's structure."""
        d = self.data
        cs, ci = np.nonzero(d.n > 0)
        ls, li = np.nonzero(d.n_l > 0)
        names = ["ability"]
        if self.item_effects:
            names += ["sigma_item", *(["sigma_cluster"] if d.clusters else [])]
        if self.discrimination:
            names.append("sigma_disc")
        if self.guessing:
            names.append("floor")
        if d.judged:
            names += ["sensitivity", "specificity"]
        if self.overdispersed:
            names.append("concentration")
        return ModelSpec(
            board_model,
            {
                "k": d.k[cs, ci],
                "n": d.n[cs, ci],
                "cell_system": cs,
                "cell_item": ci,
                "h1": d.h1[ls, li],
                "n_l": d.n_l[ls, li],
                "lab_system": ls,
                "lab_item": li,
                "confusion": d.confusion,
                "item_cluster": d.cluster,
            },
            {
                "systems": d.systems,
                "items": d.items,
                "clusters": d.clusters,
                "item_effects": self.item_effects,
                "discrimination": self.discrimination,
                "judged": d.judged,
                "priors": self.priors,
                "centred": self.centred,
                "overdispersed": self.overdispersed,
                "guessing": self.guessing,
            },
            tuple(names),
            sampler=self.sampler,
        )

    def _bayes_done(self, parts: FitParts, random_seed) -> FitParts:
        """``theta`` (the benchmark's items) and ``theta_process`` (Bayesian-bootstrap
        weights over the items) from the draws (:func:`~judgebayes.inference.leaderboard.
        posterior.estimands`).
        """
        import xarray as xr

        post = parts.idata.posterior
        ch, dr = post.sizes["chain"], post.sizes["draw"]
        names = ("ability", "difficulty", "discrimination", "guessing", "concentration")
        draws = {v: post[v].values.reshape(ch * dr, -1) for v in names if v in post}
        if "concentration" in draws:
            draws["concentration"] = draws["concentration"][:, 0]
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 17])
        theta, process = posterior.estimands(draws, self.data.k, self.data.n, rng)
        coords = {
            "chain": post["chain"].values,
            "draw": post["draw"].values,
            "system": list(self.systems),
        }
        for name, x in (("theta", theta), ("theta_process", process)):
            post[name] = xr.DataArray(
                x.reshape(ch, dr, -1), dims=("chain", "draw", "system"), coords=coords
            )
        parts.quantity = "theta"
        return parts


register_bayes(LeaderboardStudy)
