r"""A K-class judge: the judged classes' counts through a confusion matrix.

:class:`MulticlassAccuracy` (``AccuracyStudy.from_multiclass_counts`` / ``_frames``): each
true class's row of the judge's confusion matrix is a Dirichlet, each system's judged-class
counts a multinomial of its class prevalences through that matrix
(:func:`~judgebayes.models.accuracy.multiclass_accuracy_model`).  The reported quantity is
``prevalence`` (system, true class).  Closed form: confusion-matrix inversion with a
delta-method interval.
"""

from __future__ import annotations

from judgebayes.errors import InputError
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import accuracy as ma
from judgebayes.results import tree
from judgebayes.studies.accuracy.base import AccuracyStudy, TwoFrames
from judgebayes.studies.base import FitParts

__all__ = ["MulticlassAccuracy"]


class MulticlassAccuracy(AccuracyStudy):
    """A K-class judge (module docstring)."""

    key = "accuracy.multiclass"
    kind = "multiclass"
    #: low-dimensional Dirichlets shared by every system, as the binary model (0.9)
    sampler = SamplerConfig(target_accept=0.9)
    priority = 10

    @classmethod
    def matches(cls, data: TwoFrames) -> bool:
        """A K-class judge's counts."""
        return data.multiclass is not None

    def _validate(self) -> None:
        if self.multiclass is None:
            raise InputError("give the multiclass counts", field="multiclass")
        if self.design != "stratified":
            raise InputError(
                f"design={self.design!r} is available for the binary model only", field="design"
            )

    @property
    def systems(self) -> tuple[str, ...]:
        """System names."""
        return self.multiclass.systems

    @property
    def quantity(self) -> str:
        """The reported variable: each system's class prevalences."""
        return "prevalence"

    def model_spec(self) -> ModelSpec:
        """The K-class model (:func:`~judgebayes.models.accuracy.multiclass_accuracy_model`)."""
        mc = self.multiclass
        return ModelSpec(
            ma.multiclass_accuracy_model,
            dict(confusion=mc.confusion, test=mc.test),
            dict(classes=mc.classes, systems=mc.systems, priors=self.priors),
            ("prevalence", "confusion_rates"),
            sampler=self.sampler,
        )


@MulticlassAccuracy.methods.register(
    "closed_form", engine="closed_form", summary="confusion-matrix inversion"
)
def _closed_form(study: MulticlassAccuracy, *, random_seed=None) -> FitParts:
    mc = study.multiclass
    est, _, _ = cf.confusion_inversion(mc.confusion, mc.test)
    rates = mc.confusion / mc.confusion.sum(1, keepdims=True)

    def ifn(alpha):
        _, lo_, hi_ = cf.confusion_inversion(mc.confusion, mc.test, alpha)
        return lo_.ravel(), hi_.ravel()

    idata = tree(
        {"posterior": {"prevalence": est[None, None], "confusion_rates": rates[None, None]}},
        coords={
            "system": list(study.systems),
            "true_class": list(mc.classes),
            "judged_class": list(mc.classes),
        },
        dims={
            "prevalence": ["system", "true_class"],
            "confusion_rates": ["true_class", "judged_class"],
        },
    )
    return FitParts(
        idata,
        quantity="prevalence",
        interval_fn=ifn,
        info={"estimator": "confusion-matrix inversion, delta method"},
    )
