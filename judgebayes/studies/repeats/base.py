r"""Repeated generations per prompt and repeated judge runs: one study, fits by method.

The verdict variance splits into prompts, generations within a prompt and judge runs
(:mod:`judgebayes.workflows.repeats` states it).  :class:`RepeatsStudy` fits it by its
methods (:mod:`~judgebayes.studies.repeats.methods`):

* ``"closed_form"``: the nested analysis of variance (method of moments, unbalanced designs
  allowed; a negative component is set to 0 and said), the mean's cluster-robust standard
  error (prompts as clusters, t(I - 1)) in ``info``, and intervals that hold with 10
  prompts (:mod:`judgebayes.inference.repeats.closed_form`): modified large-sample
  intervals of differences of mean squares for the prompt and generation components, an
  expanded percentile bootstrap over prompts for the judge runs;
* ``"nuts"``: :func:`judgebayes.models.repeats.repeated_verdicts_model` (logit-normal
  prompt and generation effects, binomial runs), the components computed per draw over
  the observed prompts' effects with Bayesian-bootstrap weights.

Both are :class:`~judgebayes.studies.accuracy.fit.AccuracyFit` with ``quantity="variance"``
and ``unit="component"`` (``prompt``, ``generation``, ``judge run``); ``rate`` is the mean
pass probability.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgebayes.data.repeats import repeated_counts
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models import accuracy as ma
from judgebayes.models.repeats import repeated_verdicts_model
from judgebayes.studies.accuracy.fit import AccuracyFit
from judgebayes.studies.base import FitParts, Study

__all__ = ["COMPONENTS", "RepeatsStudy"]

COMPONENTS = ("prompt", "generation", "judge run")


class RepeatsStudy(Study):
    """Judge runs on several generations of several prompts (module docstring).

    Parameters
    ----------
    counts : dict
        From :func:`~judgebayes.data.repeats.repeated_counts`.
    priors : AccuracyPriors, optional
        ``cluster_mu``, ``cluster_sigma`` of the NUTS model.
    """

    family = "accuracy"
    key = "repeats"
    fit_type = AccuracyFit
    default_method = "closed_form"
    #: two non-centred normal effects (prompt, and generation within prompt); the
    #: generation sd, which three runs per generation barely see, had R-hat 1.023 and bulk
    #: ESS 224 at 4 x 1000 (150 prompts x 4 generations x 3 runs); 4 x 2000 after 1500
    #: tuning passed on 3 of 3 seeds
    sampler = SamplerConfig(draws=2000, tune=1500, target_accept=0.95)
    default_methods = ("closed_form", "nuts")

    def __init__(self, counts: dict, *, priors: Any = None):
        self.counts = counts
        self.priors = priors if priors is not None else ma.AccuracyPriors()
        k, runs, pc = counts["k"], counts["runs"], counts["prompt"]
        self.n_prompts = len(counts["prompts"])
        self.n_generations = np.bincount(pc, minlength=self.n_prompts)
        self.design = {
            "prompts": self.n_prompts,
            "generations_per_prompt": float(self.n_generations.mean()),
            "runs_per_generation": float(runs.mean()),
        }
        notes = []
        if runs.max() < 2:
            notes.append("one judge run per generation: the judge-run component is not identified")
        if self.n_generations.max() < 2:
            notes.append("one generation per prompt: the generation component is not identified")
        if k.sum() in (0, runs.sum()):
            notes.append(
                f"every judge run gave {int(k.sum() > 0)}: there is no variance to split, and "
                "the closed form's rate interval is a point (nuts' prior still gives it width)"
            )
        self._design_notes = tuple(notes)
        self._k = k

    @classmethod
    def from_frame(
        cls,
        frame,
        *,
        prompt: str = "prompt",
        generation: str = "generation",
        verdict: str = "judge",
        priors: Any = None,
    ) -> RepeatsStudy:
        """From one row per judge run (:func:`~judgebayes.data.repeats.repeated_counts`)."""
        return cls(
            repeated_counts(frame, prompt=prompt, generation=generation, verdict=verdict),
            priors=priors,
        )

    def _info(self, method, parts: FitParts) -> dict:
        return {"design": dict(self.design), "n_missing": self.counts["n_missing"]}

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        return self._design_notes

    def model_spec(self) -> ModelSpec:
        """The hierarchical model of :func:`~judgebayes.models.repeats.repeated_verdicts_model`."""
        c = self.counts
        return ModelSpec(
            repeated_verdicts_model,
            {"k": c["k"], "runs": c["runs"], "prompt": c["prompt"]},
            {"n_prompts": self.n_prompts, "priors": self.priors},
            ("mu", "sigma_prompt", "sigma_generation"),
            sampler=self.sampler,
        )
