r"""The accuracy study of two frames: a judge's verdicts on a test set and its calibration.

:class:`AccuracyStudy` is the family's base class and its door: ``from_counts``,
``from_frames``, ``from_multiclass_*`` and the constructor itself pick the variant from the
data (:class:`~.binary.BinaryAccuracy`, :class:`~.strata.StrataAccuracy`,
:class:`~.multiclass.MulticlassAccuracy`); ``from_items`` is the items design
(:class:`~judgebayes.studies.items.ItemStudy`).  Each variant owns its model, its closed
form and its sampler default; ``laplace`` and ``nuts`` are written once here, on the
variant's :meth:`model_spec`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from judgebayes.data.accuracy import (
    CalibrationCounts,
    MulticlassCounts,
    TestCounts,
    counts_from_frames,
    counts_from_multiclass_frames,
)
from judgebayes.errors import InputError, route_keywords
from judgebayes.models import accuracy as ma
from judgebayes.results import point_tree
from judgebayes.studies.accuracy.fit import AccuracyFit
from judgebayes.studies.base import FitParts, Study, register_bayes
from judgebayes.studies.items import ItemStudy

__all__ = ["AccuracyStudy"]

_DESIGNS = ("stratified", "random", "shifted")


@dataclass(frozen=True)
class TwoFrames:
    """What the two-frame variants are chosen from: the test and calibration counts, or a
    K-class judge's counts (:meth:`AccuracyStudy.matches` of each variant).
    """

    test: TestCounts | None = None
    calibration: CalibrationCounts | None = None
    multiclass: MulticlassCounts | None = None


class AccuracyStudy(Study):
    r"""Validated test and calibration counts of one accuracy study; fits by any method.

    Nothing samples in ``__init__``.  ``AccuracyStudy(test, calibration, ...)`` and the
    factories return the variant the data call for: ``binary`` (one or several systems
    sharing one calibration set, calibration ``design`` "stratified", "random" or
    "shifted"), ``strata`` (calibration strata with partially pooled judge rates) or
    ``multiclass`` (a K-class judge); ``study.kind`` names it.

    Examples
    --------
    >>> study = AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    >>> study.fit("closed_form").interval().round(3)  # doctest: +NORMALIZE_WHITESPACE
            estimate  lower  upper
    system
    all        0.533   0.43  0.636
    """

    family = "accuracy"
    key = "accuracy"
    abstract = True  # the factories return a variant
    fit_type = AccuracyFit
    default_method = "nuts"
    default_methods = ("closed_form", "laplace", "nuts")
    #: the variant's name ("binary", "strata", "multiclass")
    kind: ClassVar[str] = ""

    @classmethod
    def _variant_data(cls, test=None, calibration=None, *, multiclass=None, **_) -> TwoFrames:
        """The counts the variants are chosen from."""
        return TwoFrames(test, calibration, multiclass)

    def __init__(
        self,
        test: TestCounts | None = None,
        calibration: CalibrationCounts | None = None,
        *,
        multiclass: MulticlassCounts | None = None,
        design: str = "stratified",
        priors: ma.AccuracyPriors | None = None,
        better_than_chance: bool = True,
    ):
        if design not in _DESIGNS:
            raise InputError(
                f"design must be stratified, random or shifted; got {design!r}",
                field="design",
                value=design,
            )
        self.test, self.calibration, self.multiclass = test, calibration, multiclass
        self.design = design
        self.better_than_chance = bool(better_than_chance)
        self.priors = ma.AccuracyPriors() if priors is None else priors
        self._validate()

    def _validate(self) -> None:
        """The variant's own checks of the data given to the constructor."""
        if self.test is None or self.calibration is None:
            raise InputError("give test and calibration counts", field="test")
        if self.design != "stratified":
            raise InputError(
                f"design={self.design!r} is available for the binary model only", field="design"
            )

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_counts(
        cls, k, n, tn, m0, tp, m1, *, systems=None, n_missing=0, **kwargs
    ) -> AccuracyStudy:
        """Counts: ``k`` of ``n`` judged positive (scalar or one per system); calibration
        ``tn`` of ``m0`` truly negative and ``tp`` of ``m1`` truly positive judged right.
        """
        (kwargs,) = route_keywords("AccuracyStudy.from_counts", kwargs, AccuracyStudy.__init__)
        test = TestCounts.from_arrays(k, n, n_missing=n_missing, systems=systems)
        cal = CalibrationCounts(tp=[tp], m1=[m1], tn=[tn], m0=[m0])
        return AccuracyStudy(test, cal, **kwargs)

    @classmethod
    def from_frames(
        cls,
        test_df: pd.DataFrame,
        calibration_df: pd.DataFrame,
        *,
        judge: str = "judge",
        human: str = "human",
        system: str | None = None,
        stratum: str | None = None,
        positive: Any = None,
        item: str | None = None,
        **kwargs,
    ) -> AccuracyStudy:
        """Item-level frames (see :mod:`judgebayes.data.accuracy`); ``stratum`` names a column of
        both frames and selects the pooled-strata model.

        No item may be in both frames (its verdict would count in the test rate and in the
        judge's calibration): the same frame passed twice is refused, and ``item`` (an id
        column of both frames) makes the check item by item.
        """
        (kwargs,) = route_keywords("AccuracyStudy.from_frames", kwargs, AccuracyStudy.__init__)
        test, cal = counts_from_frames(
            test_df,
            calibration_df,
            judge=judge,
            human=human,
            system=system,
            stratum=stratum,
            positive=positive,
            item=item,
        )
        return AccuracyStudy(test, cal, **kwargs)

    @classmethod
    def from_items(cls, items, **kwargs):
        """One frame, every item judged, some labelled by humans (blank ``human`` = unlabelled).

        Returns an :class:`~judgebayes.studies.items.ItemStudy` of the variant the frame
        calls for (same ``fit`` / ``compare`` API; its docstring lists the estimands,
        designs and methods).  The column keywords are
        :func:`~judgebayes.data.items.items_from_frame`'s: ``judge`` (one column, or a list
        of several judges' columns), ``human``, ``system``, ``item`` (the prompt several
        systems answered: paired comparisons), ``stratum`` (strata of the labelling
        design), ``cluster`` (groups of correlated items), ``weights`` (1 / the probability
        of being labelled), ``covariates``, ``positive``, ``count`` (multiplicities of a
        reduced log, :func:`judgebayes.data.large.reduce_items`).  The study's:
        ``estimand`` ("items" or "process"), ``judge_rates``, ``priors``,
        ``better_than_chance``, ``difficulty``.  An unknown keyword is an
        :class:`InputError` listing these.
        """
        return ItemStudy.from_frame(items, **kwargs)

    @classmethod
    def from_multiclass_counts(
        cls, confusion, test, *, classes, systems=None, **kwargs
    ) -> AccuracyStudy:
        """K-class judge from a (K, K) confusion count matrix (rows: true class) and the
        judged-class counts of each system.
        """
        (kwargs,) = route_keywords(
            "AccuracyStudy.from_multiclass_counts", kwargs, AccuracyStudy.__init__
        )
        test = np.atleast_2d(np.asarray(test))
        if systems is None:
            n = test.shape[0]
            systems = ("all",) if n == 1 else tuple(f"system_{i}" for i in range(n))
        mc = MulticlassCounts(
            confusion=confusion, test=test, classes=tuple(map(str, classes)), systems=systems
        )
        return AccuracyStudy(multiclass=mc, **kwargs)

    @classmethod
    def from_multiclass_frames(cls, test_df, calibration_df, **kwargs) -> AccuracyStudy:
        """K-class item-level frames.

        See :func:`~judgebayes.data.accuracy.counts_from_multiclass_frames` for the arguments.
        """
        frame_kw, study_kw = route_keywords(
            "AccuracyStudy.from_multiclass_frames",
            kwargs,
            counts_from_multiclass_frames,
            AccuracyStudy.__init__,
        )
        mc = counts_from_multiclass_frames(test_df, calibration_df, **frame_kw)
        return AccuracyStudy(multiclass=mc, **study_kw)

    # ----------------------------------------------------------------- model
    @property
    def systems(self) -> tuple[str, ...]:
        """System names."""
        return self.test.systems

    def model_spec(self):
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of this variant's model."""
        raise NotImplementedError

    def build_model(self):
        """A fresh ``pm.Model`` (never sampled here)."""
        return self.model_spec().build()

    def _bayes_done(self, parts: FitParts, random_seed) -> FitParts:
        parts.quantity = self.quantity
        return parts

    # ----------------------------------------------------------------- fit hooks
    def _info(self, method, parts: FitParts) -> dict:
        return {"kind": self.kind, "design": self.design, "estimand": "process"}

    def _attrs(self, method, parts: FitParts) -> dict:
        return {
            "kind": self.kind,
            "design": self.design,
            "better_than_chance": self.better_than_chance,
        }

    def _point(self, values: dict[str, Any], dims: dict[str, list[str]] | None = None, **coords):
        """A one-atom posterior over this study's coords (``results.point_tree``)."""
        return point_tree(values, "system", self.systems, dims=dims, coords=coords)


# =========================================================================== methods


AccuracyStudy.methods.refuse(
    "exact",
    "method='exact' is the binary model's quadrature (one system, a stratified calibration "
    "design, the uniform theta prior); this variant has no exact posterior: use 'nuts'",
)

register_bayes(AccuracyStudy)
