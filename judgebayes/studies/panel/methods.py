"""The methods of a validator panel: the practitioners' votes, Jain et al.'s regression,
and the Bayesian cell and item-level models (NUTS); Laplace is refused, with the reason.
"""

from __future__ import annotations

import numpy as np

from judgebayes.errors import MethodRefused
from judgebayes.inference.panel import ensembles as ens
from judgebayes.inference.panel.regression import fit_regression
from judgebayes.inference.registry import check_count
from judgebayes.studies.base import FitParts
from judgebayes.studies.panel.base import ValidatorPanel
from judgebayes.studies.panel.cells import HierarchicalPanel

ValidatorPanel.methods.refuse(
    "laplace",
    "Laplace is not offered for panels: the cell model is hierarchical (generator "
    "and validator populations with learned spreads), and a Gaussian at its mode "
    "is far too wide for g and fails the importance check; use "
    "method='nuts' (cell model) or 'nuts_items' (item-level model)",
)


@ValidatorPanel.methods.register(
    "validator_mean", engine="votes", summary="mean of validator rates"
)
def _validator_mean(panel: ValidatorPanel, *, random_seed=None) -> FitParts:
    return panel._point(ens.validator_mean(panel.data))


@ValidatorPanel.methods.register("best_individual", engine="votes", summary="best validator")
def _best_individual(panel: ValidatorPanel, *, random_seed=None) -> FitParts:
    d = panel.data
    rates = ens.individual(d)
    H = d.annotated
    if H.size:
        err = np.nanmax(np.abs(rates[H] - d.human_precision[H, None]), axis=0)
        j = int(np.nanargmin(err))
    else:
        j = int(np.nanargmin(np.nanmean(rates, axis=0)))  # the most critical one
    return panel._point(rates[:, j], {"validator": d.validators[j]})


def _need_items(panel: ValidatorPanel, name: str) -> None:
    """Refuse ``name`` on a panel built from cells: it reads each output's verdicts."""
    if panel.data.items is None:
        raise MethodRefused(
            f"method {name!r} reads each output's verdicts, and this panel holds counts per "
            "generator x validator cell only: build it from items (panel_from_items), or use "
            "'nuts', 'regression' or 'validator_mean'",
            method=name,
            field="items",
            value=None,
        )


def _vote(panel: ValidatorPanel, rule: str, threshold: int | None, default, name: str) -> FitParts:
    d = panel.data
    _need_items(panel, name)
    counts = ens.vote_counts(d)
    H = d.annotated
    if threshold is not None:
        t = check_count(threshold, "threshold")
    elif default is not None:
        t = default
    elif H.size:
        t = ens.choose_threshold(d, rule, H, d.human_precision, counts)
    else:
        t = d.shape[1] // 2 + 1 if rule == "majority" else min(4, d.shape[1])
    return panel._point(ens.vote(d, rule, t, counts), {"threshold": t})


@ValidatorPanel.methods.register("majority", engine="votes", summary="majority vote")
def _majority(panel: ValidatorPanel, *, random_seed=None, threshold: int | None = None):
    """``threshold`` votes make "valid" (default: chosen on the annotated generators, else
    V // 2 + 1).
    """
    return _vote(panel, "majority", threshold, None, "majority")


@ValidatorPanel.methods.register("super_majority", engine="votes", summary="70% vote")
def _super_majority(panel: ValidatorPanel, *, random_seed=None, threshold: int | None = None):
    """``threshold`` votes make "valid" (default: at least 70% of the validators)."""
    default = int(np.ceil(0.7 * panel.data.shape[1]))
    return _vote(panel, "majority", threshold, default, "super_majority")


@ValidatorPanel.methods.register("veto", engine="votes", summary="minority veto")
def _veto(panel: ValidatorPanel, *, random_seed=None, threshold: int | None = None):
    """``threshold`` "invalid" votes veto (default: chosen on the annotated generators,
    else 4).
    """
    return _vote(panel, "veto", threshold, None, "veto")


@ValidatorPanel.methods.register("plug_in", engine="votes", summary="per-validator Rogan-Gladen")
def _plug_in(panel: ValidatorPanel, *, random_seed=None) -> FitParts:
    g = ens.plug_in_rogan_gladen(panel.data)
    notes = ()
    if np.isnan(np.asarray(g, float)).all():
        notes = (
            "plug_in needs confusion counts (human labels on the validators' verdicts) in "
            "every validator's cells; this panel has none, so every estimate is NaN",
        )
    return panel._point(g, notes=notes)


@ValidatorPanel.methods.register("regression", engine="regression", summary="Jain et al.")
def _regression(panel: ValidatorPanel, *, random_seed=None, restarts: int = 25) -> FitParts:
    """Jain et al.'s regression with ``restarts`` restarts (25 in the paper)."""
    r = fit_regression(panel.data, restarts=check_count(restarts, "restarts"), seed=random_seed)
    info = {"loss": r.loss, "iterations": r.iterations}
    return panel._point(r.g, info, r.tpr, r.tnr)


@ValidatorPanel.methods.register(
    "nuts", engine="nuts", summary="the panel's model, NUTS", mcmc=True
)
def _nuts(
    panel: ValidatorPanel,
    *,
    random_seed=None,
    sampler=None,
    log_likelihood: bool = False,
    prior_draws: int = 0,
    posterior_predictive: bool = False,
) -> FitParts:
    """The panel's Bayesian model (its class: :mod:`~judgebayes.studies.panel.cells`,
    :mod:`~judgebayes.studies.panel.leniency`); when the data chose it, a note says which
    and why.  ``log_likelihood`` stores the unannotated cells' pointwise log-likelihood
    (for LOO).
    """
    panel._refuse_overlap()
    parts = panel._nuts(
        panel.model_spec(),
        sampler,
        random_seed,
        log_likelihood=["cells"] if log_likelihood else False,
        prior_draws=prior_draws,
        posterior_predictive=posterior_predictive,
    )
    parts.info["variant"] = panel.model_name
    if not isinstance(panel, HierarchicalPanel):  # the default model keeps plain "nuts"
        parts.info["label"] = f"nuts/{panel.model_name}"
    if panel.chosen is not None:  # the model was chosen from the data: say which and why
        parts.info["variant_chosen"] = panel.chosen
        parts.notes = (*parts.notes, f"model chosen from the data: {panel.chosen}")
    return parts


@ValidatorPanel.methods.register(
    "nuts_items", engine="nuts", summary="item-level Dawid-Skene model, NUTS", mcmc=True
)
def _nuts_items(
    panel: ValidatorPanel,
    *,
    random_seed=None,
    difficulty: bool = False,
    sampler=None,
    prior_draws: int = 0,
) -> FitParts:
    """The item-level model (``difficulty``: an item effect shared by the validators)."""
    _need_items(panel, "nuts_items")
    panel._refuse_overlap()
    parts = panel._nuts(
        panel.item_model_spec(difficulty=difficulty),
        sampler,
        random_seed,
        prior_draws=prior_draws,
    )
    parts.info["variant"] = "items"
    return parts
