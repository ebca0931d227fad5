r"""Rankings corrected for the judges' own errors: human preferences on some comparisons.

:class:`JudgeErrorRanking` (``PairwiseRanking.from_frames(..., human="human")``) adds two
methods to the Bradley-Terry ones:

``"judge_error"``
    Bradley-Terry on the *human* preference, each judge's verdict a noisy channel of it
    with its own confusion matrix, learned jointly with the qualities
    (:mod:`judgebayes.models.ranking.channel`), NUTS with the gate; the channel may depend on the
    covariates and on the items (a judge that favours one system's answers).
``"ppi"``
    Its frequentist comparator: prediction-powered Bradley-Terry (PPI++), the judges'
    verdicts as predictions of the human preference, with a sandwich covariance
    (:mod:`judgebayes.inference.ranking.ppi`; as ``ppi_py`` for two outcomes).

>>> ranking = PairwiseRanking.from_frames(judged, human="human", instance="pair_id")
>>> fit = ranking.fit("judge_error", random_seed=0)
>>> fit.channel_table()  # each judge's confusion matrix against the humans
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from judgebayes.data.ranking import PairwiseData, pairwise_from_arrays
from judgebayes.data.ranking.channel import ChannelData, channel_from_frames, row_covariates
from judgebayes.errors import InputError, require_type
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.ranking.ppi import ppi_bradley_terry
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models.ranking.channel import channel_var_names, judge_channel_model
from judgebayes.results import tree
from judgebayes.studies.base import FitParts
from judgebayes.studies.ranking.base import PairwiseRanking, RankingInputs

__all__ = ["CHANNEL_METHODS", "JudgeErrorRanking"]

#: methods that rank by the human preference, using the judges as noisy witnesses
CHANNEL_METHODS = ("judge_error", "ppi")


class JudgeErrorRanking(PairwiseRanking):
    """Pairwise verdicts with human preferences on some comparisons (module docstring)."""

    key = "ranking.channel"
    #: a few qualities and a confusion simplex per judge; on PandaLM (999 instances, 2
    #: judges, ties) 0.9 passes the gate with bulk ESS > 1,800
    sampler_channel = SamplerConfig(target_accept=0.9)
    #: with a channel that depends on covariates or item favouritism (a half-normal scale
    #: per judge, non-centred): on a 5-system simulation with a length-biased judge 2 of 6
    #: fits diverged at 0.9, none of 6 at 0.95
    sampler_bias = SamplerConfig(target_accept=0.95)

    def __init__(self, data: PairwiseData, *, priors=None, channel: ChannelData, instance=None):
        super().__init__(data, priors=priors)
        channel = require_type(channel, ChannelData, "channel")
        if channel.items != self.data.items:
            channel = channel.with_items(self.data.items)
        self.channel = channel

    priority = 10

    @classmethod
    def matches(cls, data: RankingInputs) -> bool:
        """Verdicts with human preferences on some comparisons."""
        return data.channel is not None

    @classmethod
    def _from_parsed(cls, comparisons, data, parsed, *, human, instance, priors):
        """The study of ``comparisons`` (already read into ``data`` and ``parsed``) with
        the human preferences of column ``human`` (:func:`channel_from_frames`).
        """
        channel = channel_from_frames(
            comparisons,
            human=human,
            instance=instance,
            items=data.items,
            ties=data.ties,
            parsed=parsed,
            row_covariates=row_covariates(comparisons, data, parsed),
        )
        return cls(data, priors=priors, channel=channel)

    def with_labelled(self, mask: Sequence[bool] | np.ndarray) -> PairwiseRanking:
        """The same study with human labels used only on the instances where ``mask`` is
        true (order of ``self.channel.instance_ids``): a labelled subset of a fully
        labelled set, e.g. to measure what a small human budget buys.
        """
        ch = self.channel
        return JudgeErrorRanking(self.data, priors=self.priors, channel=ch.with_labelled(mask))

    def human_only(self) -> PairwiseRanking:
        """The human preferences of the labelled instances as a study of their own (one
        verdict per instance, judge ``"human"``): the ranking a small human budget gives
        without the judges.
        """
        ch = self.channel
        m = ch.human >= 0
        code = ch.human[m]
        y = np.where(code == 0, 1.0, np.where(code == 1, 0.0, 0.5))
        ties = "davidson" if ch.n_outcomes == 3 else "drop"
        data = pairwise_from_arrays(
            ch.first[m], ch.second[m], y, items=self.data.items, judges=("human",), ties=ties
        )
        return PairwiseRanking(data, priors=self.priors)

    def judge_bias_terms(self, judge_bias: Any = "auto") -> tuple[tuple[str, ...], bool]:
        """The channel's terms for ``judge_bias`` (see method ``judge_error``): the
        covariates it uses, and whether judges may favour items.
        """
        ch = self.channel
        if isinstance(judge_bias, str) and judge_bias in ("auto", "none"):
            return (ch.covariates, True) if judge_bias == "auto" else ((), False)
        terms = (judge_bias,) if isinstance(judge_bias, str) else tuple(judge_bias)
        valid = (*ch.covariates, "items")
        for t in terms:
            if t not in valid:
                raise InputError(
                    f"judge_bias: {t!r} is neither 'items' nor a covariate of this study "
                    f"(valid: 'auto', 'none' or some of {list(valid)})",
                    field="judge_bias",
                    value=t,
                )
        return tuple(c for c in ch.covariates if c in terms), "items" in terms

    def channel_spec(self, *, complete: bool = False, judge_bias: Any = "none"):
        """The :class:`~judgebayes.inference.nuts.ModelSpec` of the judge-error model
        (``complete``: see :meth:`~judgebayes.data.ranking.channel.ChannelData.groups`;
        ``judge_bias``: see method ``judge_error``; default the constant channel).
        """
        ch = self.channel
        covs, favour = self.judge_bias_terms(judge_bias)
        used = ch.without_covariates()
        if covs:
            cols = [ch.covariates.index(c) for c in covs]
            used = replace(used, X=ch.X[:, cols], covariates=covs)
        pr = self.priors
        structure = {
            "items": ch.items,
            "judges": ch.judges,
            "n_outcomes": ch.n_outcomes,
            "lam": pr.lam,
            "lam_nu": pr.lam_nu,
            "confusion_diag": pr.confusion_diag,
            "confusion_off": pr.confusion_off,
        }
        if covs or favour:
            structure |= {
                "channel_covariates": covs,
                "favour": favour,
                "coef_sd": pr.channel_coef_sd,
                "favour_scale": pr.favour_scale,
            }
        return ModelSpec(
            builder=judge_channel_model,
            data=used.groups(complete=complete),
            structure=structure,
            var_names=channel_var_names(ch.n_outcomes, bool(covs), favour),
            sampler=self.sampler_bias if covs or favour else self.sampler_channel,
        )

    def _channel_info(self) -> dict[str, Any]:
        ch = self.channel
        return {
            "n_instances": ch.n_instances,
            "n_labelled": ch.n_labelled,
            "n_outcomes": ch.n_outcomes,
            "dropped": dict(ch.dropped),
        }

    def _channel_notes(self) -> tuple[str, ...]:
        ch = self.channel
        notes = []
        if ch.dropped["judge_ties"] or ch.dropped["human_ties"]:
            notes.append(
                f"ties dropped: {ch.dropped['judge_ties']} judge verdict(s) and "
                f"{ch.dropped['human_ties']} human-tied instance(s)"
            )
        if ch.dropped["no_verdict"]:
            notes.append(
                f"{ch.dropped['no_verdict']} instance(s) with neither a verdict nor a human "
                "label left out"
            )
        return tuple(notes)


# =========================================================================== methods


@JudgeErrorRanking.methods.register(
    "judge_error",
    engine="nuts",
    summary="BT on human preferences, judges as noisy channels, NUTS",
    mcmc=True,
)
def _judge_error(
    ranking: JudgeErrorRanking,
    *,
    random_seed=None,
    sampler=None,
    reference: str | None = None,
    warn: bool = True,
    prior_draws: int = 0,
    judge_bias: Any = "auto",
) -> FitParts:
    """Rank by the human preference, each judge's verdict a noisy channel of it (a confusion
    matrix per judge, learned with the qualities from the labelled comparisons).

    ``judge_bias``: what the judge's errors may depend on
    (:mod:`judgebayes.models.ranking.channel`): ``"auto"`` (default) the study's covariates
    and the items (a judge may favour some systems' answers: self-preference), ``"none"``
    one confusion matrix for every comparison, or a list of covariate names and/or
    ``"items"``.
    """
    ch = ranking.channel
    ranking._check_reference(reference)
    covs, favour = ranking.judge_bias_terms(judge_bias)
    parts = ranking._nuts(
        ranking.channel_spec(judge_bias=judge_bias),
        sampler,
        random_seed,
        prior_draws=prior_draws,
    )
    parts.info |= ranking._channel_info() | {
        "channel_covariates": list(covs),
        "judge_favours_items": favour,
    }
    parts.notes = ranking._channel_notes()
    unused = [c for c in ranking.data.covariates if c not in covs]
    if unused:
        parts.notes = (
            *parts.notes,
            f"the judge channel does not use the covariates {unused} (judge_bias="
            f"{judge_bias!r}); study.check(fit)'s 'channel' rows test that on the labelled "
            "comparisons",
        )
    return ranking._identified(parts, reference, (ch.first, ch.second))


@JudgeErrorRanking.methods.register(
    "ppi", engine="closed_form", summary="prediction-powered BT (PPI++), sandwich"
)
def _ppi(
    ranking: JudgeErrorRanking,
    *,
    random_seed=None,
    draws: int = 1500,
    reference: str | None = None,
    power_tuning: bool = True,
    warn: bool = True,
) -> FitParts:
    """Prediction-powered Bradley-Terry: the judges' verdicts as predictions of the human
    preference, PPI++ (``power_tuning``; False: PPI, lambda = 1), a sandwich covariance and
    ``draws`` draws of its normal.
    """
    ch = ranking.channel
    ranking._check_reference(reference)
    K = ch.n_outcomes
    has_v = (ch.verdicts >= 0).any(axis=1)
    counts = np.stack([(ch.verdicts == k).sum(axis=1) for k in range(K)], axis=1)
    pred = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    lab = (ch.human >= 0) & has_v
    unl = (ch.human < 0) & has_v
    res = ppi_bradley_terry(
        ch.first[lab],
        ch.second[lab],
        np.eye(K)[ch.human[lab]],
        pred[lab],
        ch.first[unl],
        ch.second[unl],
        pred[unl],
        len(ch.items),
        lam=None if power_tuning else 1.0,
    )
    th, log_nu = res.draws(draws, np.random.default_rng(random_seed))
    post: dict[str, np.ndarray] = {"theta": th[None]}
    if log_nu is not None:
        post["nu"] = np.exp(log_nu)[None]
    notes = ranking._channel_notes()
    n_skip = int(np.sum((ch.human >= 0) & ~has_v))
    if n_skip:
        notes += (
            f"{n_skip} labelled instance(s) without a judge verdict left out (PPI needs "
            "a prediction on every labelled comparison)",
        )
    parts = FitParts(
        tree({"posterior": post}, coords={"item": list(ch.items)}, dims={"theta": ["item"]}),
        info={
            **ranking._channel_info(),
            "lam": res.lam,
            "n": res.n,
            "N": res.N,
            "iterations": res.iterations,
            "draws": draws,
        },
        notes=notes,
        point=res.theta.copy(),
    )
    return ranking._identified(parts, reference, (ch.first, ch.second))
