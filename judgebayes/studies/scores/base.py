r"""The scores design: judges that give scores, calibrated to the human labels of some rows.

``ScoreStudy.from_items(frame, score=..., human=..., system=...)`` (columns:
:func:`~judgebayes.data.scores.scores_from_frame`).  The quantity is each system's mean
human label (a pass rate for 0/1 labels), for one of two estimands stated in every fit:

* ``"items"`` (default, quantity ``mu_items``): the mean over the :math:`N` rows scored;
* ``"process"`` (quantity ``mu``): the mean of the process that produced them.

Methods (one :class:`ScoreFit` contract):

* ``closed_form`` (default): cross-fitted monotone calibration of the human label on the
  score(s) (``calibration=``), power-tuned, the augmented mean, its influence variance and
  t intervals (:mod:`judgebayes.inference.scores`), paired by ``item=``, by ``cluster=``;
* ``nuts``: the ordinal model of the human level given the scores
  (:mod:`judgebayes.models.scores`): cutpoints on the human scale, a slope per judge, a
  partially pooled offset per system (``system_shift``); draws give contrasts, ranks;
* comparators (of the process mean): ``ppi`` and ``ppi_plus_plus`` on the first judge's
  raw score (as ppi_py), ``labels_only`` and ``naive`` (the judge's mean, uncorrected).

With ``time=`` the closed form calibrates within each period and pools the period means by
rows (:meth:`ScoreFit.periods`); ``label_prob=`` (known probabilities) or ``labelled_by=``
(strata of the columns the labelling followed) weights the closed form's residuals.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from judgebayes.data.items.roles import LABELLED_BY_BINS
from judgebayes.data.scores import ScoreData, ScoreRoles, scores_from_frame
from judgebayes.errors import (
    InputError,
    MethodRefused,
    check_choice,
    require_type,
    route_keywords,
)
from judgebayes.inference import scores as sc
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.results import point_tree
from judgebayes.studies.base import FitParts, Study, register_bayes
from judgebayes.studies.notes import missing_notes
from judgebayes.studies.scores.fit import ScoreFit

__all__ = ["ScoreStudy", "refuse_nuts", "refuse_time"]

QUANTITY = {"items": "mu_items", "process": "mu"}
ESTIMAND_TEXT = {
    "items": "the mean human label over the N rows scored",
    "process": "the mean human label of the process that produced the rows",
}
#: at most this many distinct human labels make the levels of the Bayesian model
MAX_LEVELS = 40


class ScoreStudy(Study):
    r"""One scores frame (module docstring); fits by any method.

    Parameters
    ----------
    data : ScoreData
        Validated rows (:func:`~judgebayes.data.scores.scores_from_frame`).
    estimand : {"items", "process"}
    system_shift : bool
        The Bayesian model gives each system an offset of the human level at the same
        score (a judge kinder to some systems' outputs), partially pooled; default True.
        Without it one calibration serves every system (the check
        ``calibration_transport`` tests that).
    folds : int
        Folds of the closed form's cross-fitted calibration (default 5).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame(
    ...     {"score": [7, 3, 9, 5, 8, 2, 6, 4], "human": [1, 0, 1, None, None, 0, None, 0]}
    ... )
    >>> fit = ScoreStudy.from_items(frame, score="score", human="human").fit()
    >>> fit.info["estimand"]
    'items'
    """

    family = "scores"
    key = "scores"
    fit_type = ScoreFit
    default_method = "closed_form"
    default_methods = ("closed_form", "ppi_plus_plus", "labels_only", "naive", "nuts")
    #: the system offsets' scale is learnt from a few labels per system (a funnel)
    sampler: ClassVar[SamplerConfig] = SamplerConfig(target_accept=0.95)

    def __init__(
        self,
        data: ScoreData,
        *,
        estimand: str = "items",
        system_shift: bool = True,
        folds: int = sc.FOLDS,
    ):
        require_type(data, ScoreData, "data", "use ScoreStudy.from_items")
        check_choice(estimand, tuple(QUANTITY), "estimand", "estimand")
        if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
            raise InputError(
                f"folds must be an integer >= 2; got {folds!r}", field="folds", value=folds
            )
        self.data, self.estimand = data, estimand
        self.system_shift = bool(system_shift)
        self.folds = folds
        ns = len(data.systems)
        self._counts = {
            "n_items": np.bincount(data.system, minlength=ns).tolist(),
            "n_labelled": np.bincount(data.system[data.labelled], minlength=ns).tolist(),
        }

    @classmethod
    def from_items(cls, items, **kwargs: Any) -> ScoreStudy:
        """Validate ``items`` (:func:`~judgebayes.data.scores.scores_from_frame`'s column
        keywords) and make the study (its own keywords: ``estimand``, ``system_shift``,
        ``folds``); any other keyword is an :class:`InputError` that lists them.
        """
        frame_kw, study_kw = route_keywords(
            "ScoreStudy.from_items", kwargs, ScoreRoles, ScoreStudy.__init__
        )
        return cls(scores_from_frame(items, ScoreRoles(**frame_kw)), **study_kw)

    # ----------------------------------------------------------------- facts
    @property
    def systems(self) -> tuple[str, ...]:
        """System names."""
        return self.data.systems

    @property
    def quantity(self) -> str:
        """``mu_items`` (the rows' mean) or ``mu`` (the process mean)."""
        return QUANTITY[self.estimand]

    def summary(self) -> pd.DataFrame:
        """Rows, labelled rows, mean scores, the labelled rows' mean label, missing rows."""
        return self.data.summary()

    # ----------------------------------------------------------------- fit hooks
    def _info(self, method, parts: FitParts) -> dict:
        estimand = parts.info.get("estimand", self.estimand)
        return {
            "design": "scores",
            "estimand": estimand,
            "estimand_text": ESTIMAND_TEXT[estimand],
            "human_scale": list(self.data.human_scale),
            **self._counts,
        }

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        bins = self.data.columns.get("labelled_by_bins", {})
        fewer = [f"{c!r} in {k} bins" for c, k in bins.items() if k < LABELLED_BY_BINS]
        notes = missing_notes(self.systems, self.data.n_missing, "every judge's score")
        if fewer:
            said = ", ".join(fewer)
            notes += (f"labelled_by: {said} (the quintiles left a stratum without a label)",)
        return notes

    def _attrs(self, method, parts: FitParts) -> dict:
        return {
            "design": "scores",
            "estimand": parts.info.get("estimand", self.estimand),
            "system_shift": self.system_shift,
        }

    def _point(self, quantity: str, est: sc.ScoreEstimate, info: dict, notes=()) -> FitParts:
        bad = [s for s, x in zip(self.systems, est.se, strict=True) if not np.isfinite(x)]
        notes = (
            *notes,
            *(
                f"system {s!r}: fewer than 2 labelled rows, so no variance: its interval is "
                "NaN (label some of its rows)"
                for s in bad
            ),
        )
        return FitParts(
            point_tree({quantity: est.estimate}, "system", self.systems),
            quantity=quantity,
            interval_fn=est.interval,
            info=info,
            notes=tuple(notes),
        )

    # ----------------------------------------------------------------- the Bayesian model
    def levels(self) -> np.ndarray:
        """The human levels of the Bayesian model (the distinct labels seen)."""
        return np.unique(self.data.human[self.data.labelled])

    def _standardised(self) -> np.ndarray:
        s = self.data.score
        sd = s.std(0)
        return (s - s.mean(0)) / np.where(sd > 0, sd, 1.0)

    def model_spec(self) -> ModelSpec:
        """The ordinal model (:func:`~judgebayes.models.scores.scores_model`)."""
        from judgebayes.models.scores import PAD, distinct_lines, scores_model

        d = self.data
        refuse_nuts(d)
        lv = self.levels()
        if lv.size > MAX_LEVELS:
            raise MethodRefused(
                f"the human label takes {lv.size} distinct values; the Bayesian model's "
                f"levels are the labels seen (at most {MAX_LEVELS}): round the labels to "
                "their scale's steps, give threshold=, or use method='closed_form'",
                field="human",
                value=d.columns.get("human"),
            )
        if lv.size < 2:
            raise MethodRefused(
                f"every labelled row has the human label {lv[0]:g}: the Bayesian model has "
                "no levels to tell apart; use method='closed_form' or label more rows",
                field="human",
                value=d.columns.get("human"),
            )
        z = self._standardised()
        lab = d.labelled
        level = np.searchsorted(lv, d.human[lab]).astype(np.int64)
        lines, w = distinct_lines(np.column_stack([d.system[lab], level, z[lab]]), pad=PAD)
        data = {
            "score_lab": lines[:, 2:],
            "level_lab": lines[:, 1].astype(np.int64),
            "sys_lab": lines[:, 0].astype(np.int64),
            "w_lab": w,
        }
        structure = {
            "systems": self.systems,
            "levels": tuple(float(v) for v in lv),
            "judges": d.judges,
            "system_shift": self.system_shift,
        }
        return ModelSpec(scores_model, data, structure, ("cutpoints", "beta"), sampler=self.sampler)

    def _bayes_spec(self, method: str):
        return self.model_spec()

    def _bayes_done(self, parts: FitParts, random_seed) -> FitParts:
        """``mu`` (each system's rows' expected level, Bayesian-bootstrap weights) and
        ``mu_items`` (each unlabelled row's level drawn) from the posterior.
        """
        from judgebayes.models.scores import distinct_lines, level_probabilities

        post = parts.idata.posterior
        d = self.data
        lv = self.levels()
        lab = d.labelled
        z = self._standardised()
        ch, dr = post.sizes["chain"], post.sizes["draw"]

        def flat(name):
            if name not in post:
                return None
            v = post[name].values
            return v.reshape(ch * dr, *v.shape[2:])

        cut, beta, alpha = flat("cutpoints"), flat("beta"), flat("alpha")
        lines, counts = distinct_lines(np.column_stack([d.system, ~lab, z]))
        sys_l, unl_l, z_l = lines[:, 0].astype(np.int64), lines[:, 1] > 0, lines[:, 2:]
        n_l = counts.astype(np.int64)
        onehot = np.eye(len(self.systems))[sys_l]  # lines -> their system's sums, per draw
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 11])
        ns = len(self.systems)
        n_all = np.bincount(d.system, minlength=ns)
        known = np.bincount(d.system[lab], weights=d.human[lab], minlength=ns)
        mu, items = np.empty((ch * dr, ns)), np.empty((ch * dr, ns))
        step = max(1, 4_000_000 // max(1, len(lines) * lv.size))
        for i in range(0, ch * dr, step):
            sl = slice(i, i + step)
            p = level_probabilities(
                z_l, sys_l, cut[sl], beta[sl], None if alpha is None else alpha[sl]
            )
            expected = p @ lv  # (draws, lines)
            # Bayesian bootstrap over each system's rows: Gamma(count) weight per line
            g = rng.gamma(np.broadcast_to(counts, expected.shape))
            wsum, esum = g @ onehot, (g * expected) @ onehot
            mu[sl] = esum / wsum
            n_u = np.where(unl_l, n_l, 0)
            k = rng.multinomial(np.broadcast_to(n_u, p.shape[:2]), p)
            sums = k @ lv
            items[sl] = (known + sums @ onehot) / n_all
        shape = (ch, dr, ns)
        dims = ("chain", "draw", "system")
        coords = {
            "chain": post["chain"].values,
            "draw": post["draw"].values,
            "system": list(self.systems),
        }
        import xarray as xr

        post["mu"] = xr.DataArray(mu.reshape(shape), dims=dims, coords=coords)
        post["mu_items"] = xr.DataArray(items.reshape(shape), dims=dims, coords=coords)
        parts.quantity = self.quantity
        return parts


register_bayes(ScoreStudy)
ScoreStudy.methods.refuse(
    "laplace",
    "the Laplace approximation does not fit the scores model: the system offsets' scale "
    "is learnt from a few labels per system, a funnel a Gaussian misses; use method='nuts' "
    "or 'closed_form'",
)


def refuse_time(name: str, d: ScoreData) -> None:
    """A method that fits one calibration across periods, given ``time=``."""
    raise MethodRefused(
        f"method {name!r} fits one calibration across the periods of "
        f"time={d.columns.get('time')!r}, biased when the labelling rate changes while the "
        "judge drifts; use 'closed_form', which calibrates within each period",
        field="time",
        value=d.columns.get("time"),
    )


def _score_columns(d: ScoreData) -> set[str]:
    given = d.columns.get("score")
    if isinstance(given, dict):
        return {str(c) for cols in given.values() for c in cols} | {str(k) for k in given}
    return {given} if isinstance(given, str) else {str(c) for c in given}


def refuse_nuts(d: ScoreData) -> None:
    """The ordinal model conditions on the scores and the system: labelling that followed
    anything else (``labelled_by=`` another column) biases it.
    """
    if d.period is not None:
        refuse_time("nuts", d)
    by = d.columns.get("labelled_by")
    if by is None:
        return
    cols = list(by) if isinstance(by, dict | list | tuple) else [by]
    other = [c for c in cols if c not in _score_columns(d)]
    if other:
        raise MethodRefused(
            f"method 'nuts' conditions on the scores and the system only; labelled_by= names "
            f"{other!r}, which the labelling followed besides them: use 'closed_form' (its "
            "residuals are weighted within the strata)",
            field="labelled_by",
            value=other,
        )
