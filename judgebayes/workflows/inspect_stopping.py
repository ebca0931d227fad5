r"""Stopping an Inspect AI eval once its judge-corrected pass rate is known well enough.

:class:`InspectStopping` is an Inspect ``EarlyStopping`` manager (``Task(...,
early_stopping=manager)``): it reads one scorer's verdict as each sample completes, joins the
human label of the samples that have one, feeds both to
:class:`~judgebayes.inference.stopping.StoppingRule`, and once the rule stops answers
``EarlyStop`` for every sample scheduled after.  The log's ``results.early_stopping``
summary holds the interval, the samples run and labelled, the samples saved and why it
stopped.  The mathematics is in :mod:`judgebayes.inference.stopping`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

from judgebayes.errors import InputError, JudgeBayesWarning
from judgebayes.inference.stopping import StopDecision, StoppingRule, check_settings

__all__ = ["InspectStopping"]


def _label_value(value, where: str, field: str) -> float:
    """A human label as a float in [0, 1] (NaN = none): a number, a bool, or None."""
    if value is None:
        return math.nan
    ok = isinstance(value, bool | int | float) and (
        math.isnan(float(value)) or 0.0 <= float(value) <= 1.0
    )
    if not ok:
        raise InputError(
            f"{where}: a human label must be 0/1 (or a number in [0, 1], None = no label); "
            f"got {value!r}",
            field=field,
            value=value,
        )
    return float(value)


class InspectStopping:
    r"""An Inspect AI early-stopping manager that stops an eval once the judge-corrected
    interval for its true pass rate is narrow enough, or decides a claim.

    The interval holds at every look at once, so stopping on it keeps its coverage; that
    guarantee needs the samples to run **in random order**: run the task with Inspect's
    ``sample_shuffle=True`` (or a shuffled dataset).  The summary records whether Inspect
    shuffled them and a warning says so when it did not.  The labelled samples must be
    chosen at random, each with chance ``label_prob``, before the run.  Each look
    recomputes the sequence over every sample so far, in Inspect's event loop: on a large
    dataset ``every=10`` looks every ten samples, at a tenth of the cost.

    Parameters
    ----------
    scorer : str
        The scorer whose value is the judge's verdict (``"C"`` / ``"I"`` grades, 0/1, or a
        score in [0, 1]).
    labels : mapping, optional
        Sample id -> human label (0/1, or in [0, 1]; None = not labelled).
    label_key : str, optional
        Instead of ``labels``: the sample metadata key that holds the human label.
    label_prob : float
        The chance each sample had of a label; 0 (no labels) gives an interval for the
        judge's pass rate, not the truth.
    width, claim, alpha, min_samples, every, seed
        The rule's settings (:func:`~judgebayes.inference.stopping.early_stop`).

    Examples
    --------
    >>> import judgebayes as jb
    >>> manager = jb.io.InspectStopping("judge", label_key="human", label_prob=0.2, claim=0.7)
    >>> # Task(dataset=..., solver=..., scorer=..., early_stopping=manager)
    >>> # inspect_ai.eval(task, model=..., sample_shuffle=True)
    """

    def __init__(
        self,
        scorer: str,
        *,
        labels: Mapping | None = None,
        label_key: str | None = None,
        label_prob: float = 0.0,
        width: float | None = None,
        claim: float | None = None,
        alpha: float = 0.05,
        min_samples: int = 10,
        every: int = 1,
        seed: int = 0,
    ):
        if not isinstance(scorer, str) or not scorer:
            raise InputError(
                f"scorer must be a scorer's name; got {scorer!r}", field="scorer", value=scorer
            )
        if labels is not None and label_key is not None:
            raise InputError(
                "give labels= (sample id -> label) or label_key= (a metadata key), not both",
                field="label_key",
                value=label_key,
            )
        if labels is not None and not isinstance(labels, Mapping):
            raise InputError(
                f"labels must map sample ids to labels; got {type(labels).__name__}",
                field="labels",
                value=type(labels).__name__,
            )
        if label_key is not None and (not isinstance(label_key, str) or not label_key):
            raise InputError(
                f"label_key must be a metadata key; got {label_key!r}",
                field="label_key",
                value=label_key,
            )
        # the settings checked now, so a bad one fails before Inspect runs anything
        check_settings(None, label_prob, width, claim, alpha, min_samples, every)
        self.scorer = scorer
        self.label_key = label_key
        self._given = (
            None
            if labels is None
            else {k: _label_value(v, f"labels[{k!r}]", "labels") for k, v in labels.items()}
        )
        self.options = {
            "label_prob": label_prob,
            "width": width,
            "claim": claim,
            "alpha": alpha,
            "min_samples": min_samples,
            "every": every,
            "seed": seed,
        }
        self.rule: StoppingRule | None = None

    # ------------------------------------------------------------------ the protocol
    async def start_task(self, task, samples: list, epochs: int) -> str:
        """Register the task's samples: the population, and each one's label."""
        if epochs != 1:
            raise InputError(
                f"early stopping reads one verdict per sample; the task runs {epochs} epochs",
                field="epochs",
                value=epochs,
            )
        self._labels: dict[Any, float] = {}
        for s in samples:
            if self._given is not None:
                value = self._given.get(s.id)
            elif self.label_key is not None:
                value = (s.metadata or {}).get(self.label_key)
            else:
                value = None
            where = f"sample {s.id!r}"
            self._labels[s.id] = _label_value(value, where, self.label_key or "labels")
        if self.label_key is not None and not any(
            self.label_key in (s.metadata or {}) for s in samples
        ):
            raise InputError(
                f"no sample's metadata has the key {self.label_key!r} (label_key): no label "
                "would reach the rule",
                field="label_key",
                value=self.label_key,
            )
        if self._given is not None:
            unknown = sorted(map(str, set(self._given) - set(self._labels)))
            if unknown:
                raise InputError(
                    f"labels name {len(unknown)} sample id(s) not in the task: "
                    f"{', '.join(unknown[:5])}",
                    field="labels",
                    value=unknown[:5],
                )
        self.rule = StoppingRule(len(samples), **self.options)
        self._stops = 0
        self._late = 0
        self._unscored = 0
        ds, config = getattr(task, "dataset", None), getattr(task, "config", None)
        self._shuffled = bool(
            getattr(ds, "shuffled", None) or getattr(config, "sample_shuffle", None)
        )
        if not self._shuffled:
            warnings.warn(
                "InspectStopping: the samples are not shuffled; the interval's guarantee "
                "needs them in random order (run with sample_shuffle=True)",
                JudgeBayesWarning,
                stacklevel=2,
            )
        return "judgebayes"

    async def schedule_sample(self, id, epoch: int):
        """``EarlyStop`` once the rule has stopped, else None (run the sample)."""
        if self.rule is None or not self.rule.stopped:
            return None
        from inspect_ai.util._early_stopping import EarlyStop

        d = self.rule.decision
        self._stops += 1
        return EarlyStop(
            id=id,
            epoch=epoch,
            reason=f"judgebayes: {d.reason}",
            metadata={"estimate": d.estimate, "lower": d.lower, "upper": d.upper},
        )

    async def complete_sample(self, id, epoch: int, scores: dict) -> None:
        """Add the sample's verdict (and its label) to the rule."""
        if self.rule is None:
            return
        if self.rule.stopped:
            self._late += 1  # already running when the rule stopped
            return
        if scores and self.scorer not in scores:
            raise InputError(
                f"the task has no scorer {self.scorer!r}; its scorers are {sorted(scores)}",
                field="scorer",
                value=self.scorer,
            )
        score = scores.get(self.scorer)
        verdict = None if score is None else _verdict(score, self.scorer)
        if verdict is None:
            self._unscored += 1
            return
        label = self._labels.get(id, math.nan)
        self.rule.update(verdict, None if math.isnan(label) else label)

    async def complete_task(self) -> dict[str, Any]:
        """The decision as metadata: estimate, interval, samples run, labelled and saved,
        the reason; and the scorer, the samples Inspect skipped, those not scored and
        those that ran on after the stop (already started when it came).
        """
        out: dict[str, Any] = {"scorer": self.scorer, "shuffled": self._shuffled}
        if self.rule is not None and self.rule._decision is not None:
            out.update(self.decision.as_dict())
        late = {"n_skipped": self._stops, "n_unscored": self._unscored, "n_after_stop": self._late}
        out.update(late)
        # the samples Inspect did not run (those already running at the stop ran on)
        out["saved"] = self._stops
        return out

    @property
    def decision(self) -> StopDecision:
        """The rule's decision so far."""
        if self.rule is None:
            raise InputError("the task has not started", field="decision", value=None)
        return self.rule.decision


def _verdict(sample_score, scorer: str) -> float | None:
    """The scorer's value as a verdict in [0, 1] (Inspect's grades through its own
    ``value_to_float``); None when the sample has no usable value.
    """
    from inspect_ai.scorer import value_to_float

    value = getattr(getattr(sample_score, "score", None), "value", None)
    if value is None or isinstance(value, dict | list):
        return None
    v = float(value_to_float()(value))
    if not 0.0 <= v <= 1.0:
        raise InputError(
            f"scorer {scorer!r} gave {value!r}: a verdict must be a grade, 0/1 or a score "
            "in [0, 1]",
            field="scorer",
            value=value,
        )
    return v
