"""The ``cells`` check (judgebayes/checks/panel/cells.py), on fits built from known draws.

The panel is simulated here, with numpy, from parameters this file chooses; the fit's
draws are those parameters with a small spread (an oracle posterior).  So the check's
replicates come from the truth, and what it should flag is known before it runs: nothing
on the counts as simulated, the one cell this file alters, and the validators' rates on
the annotated generators when their rates depend on the generator.
"""

import dataclasses

import numpy as np

from judgebayes.results.trees import tree
from judgebayes.studies.panel import HierarchicalPanel, ValidatorPanel
from judgebayes.studies.panel.fit import PanelFit

G, V, N = 8, 6, 400
ANNOTATED = np.array([0, 1, 2])
GEN = [f"g{i}" for i in range(G)]
VAL = [f"v{j}" for j in range(V)]


def _truth(rng, rate_shift=0.0):
    """Each generator's share valid, each validator's rates, and the per-cell rates (equal
    to the validator's unless ``rate_shift`` moves them by generator on the logit scale)."""
    f = rng.uniform(0.6, 0.95, G)
    tpr, tnr = rng.uniform(0.85, 0.97, V), rng.uniform(0.4, 0.8, V)
    logit = np.log(tpr / (1 - tpr))[None] + rate_shift * rng.normal(0, 1, (G, 1))
    return f, tpr, tnr, 1 / (1 + np.exp(-logit)), np.broadcast_to(tnr, (G, V))


def _panel(rng, f, tpr_cell, tnr_cell) -> ValidatorPanel:
    valid = rng.binomial(N, f)
    tp = rng.binomial(np.repeat(valid[:, None], V, 1), tpr_cell)
    fp = rng.binomial(np.repeat((N - valid)[:, None], V, 1), 1 - tnr_cell)
    ann = np.isin(np.arange(G), ANNOTATED)
    z = np.zeros((G, V), int)
    return HierarchicalPanel.from_arrays(
        np.full((G, V), N),
        tp + fp,
        n_annotated=np.where(ann, N, 0),
        n_valid_human=np.where(ann, valid, 0),
        tp=np.where(ann[:, None], tp, z),
        fn=np.where(ann[:, None], valid[:, None] - tp, z),
        tn=np.where(ann[:, None], (N - valid)[:, None] - fp, z),
        fp=np.where(ann[:, None], fp, z),
    )


def _oracle_fit(rng, f, tpr, tnr, tpr_cell, tnr_cell, draws=2000) -> PanelFit:
    """Draws of the true parameters with a spread of 0.005 (4 chains)."""

    def near(x):
        x = np.asarray(x, float)
        d = np.clip(x[None] + rng.normal(0, 0.005, (draws, *x.shape)), 1e-4, 1 - 1e-4)
        return d.reshape(4, draws // 4, *x.shape)

    post = {
        "g": near(f),
        "f": near(f),
        "tpr": near(tpr),
        "tnr": near(tnr),
        "tpr_cell": near(tpr_cell),
        "tnr_cell": near(tnr_cell),
    }
    dims = {"g": ["generator"], "f": ["generator"], "tpr": ["validator"], "tnr": ["validator"]}
    dims |= {"tpr_cell": ["generator", "validator"], "tnr_cell": ["generator", "validator"]}
    idata = tree({"posterior": post}, coords={"generator": GEN, "validator": VAL}, dims=dims)
    return PanelFit(method="nuts", idata=idata)


def test_counts_from_the_truth_pass_and_an_altered_cell_is_flagged():
    rng = np.random.default_rng(0)
    f, tpr, tnr, tpr_cell, tnr_cell = _truth(rng)
    panel = _panel(rng, f, tpr_cell, tnr_cell)
    fit = _oracle_fit(rng, f, tpr, tnr, tpr_cell, tnr_cell)
    report = panel.check(fit)
    table = report["cells"].table
    cells = table[table["count"] == "cell"]
    # the annotated generators' outputs are all labelled: only the other 5 x 6 cells
    assert len(cells) == (G - ANNOTATED.size) * V
    assert len(table[table["count"] != "cell"]) == 2 * ANNOTATED.size * V
    # 48 p-values from replicates of the truth, each near uniform: Holm at 0.01 flags
    # none unless one is below 0.01 / 48
    assert not table["flagged"].any(), table[table["p_raw"] < 0.05]
    # one unannotated cell set to "every output invalid"
    d = panel.data
    nv = d.n_valid.copy()
    nv[5, 2] = 0
    altered = panel.with_data(dataclasses.replace(d, n_valid=nv))
    t2 = altered.check(fit)["cells"].table.set_index(["generator", "validator", "count"])
    key = (d.generators[5], d.validators[2], "cell")
    assert t2.loc[key, "flagged"] and t2.loc[key, "p_value"] < 1e-3
    assert t2["flagged"].sum() == 1


def test_rates_that_move_with_the_generator_are_flagged_on_the_annotated_cells():
    # the validators' sensitivity moves by generator (sd 1.5 on the logit scale) while the
    # fit's panel-level rate holds one value: the tpr rows of the annotated generators
    # show it, the cell rows (replicated from each cell's own rate) do not
    rng = np.random.default_rng(1)
    f, tpr, tnr, tpr_cell, tnr_cell = _truth(rng, rate_shift=1.5)
    panel = _panel(rng, f, tpr_cell, tnr_cell)
    table = panel.check(_oracle_fit(rng, f, tpr, tnr, tpr_cell, tnr_cell))["cells"].table
    by = table.groupby("count")["flagged"].sum()
    assert by["tpr"] >= 3 and by["cell"] == 0 and by["tnr"] == 0, table


def test_the_check_is_for_the_cell_model_only():
    rng = np.random.default_rng(2)
    f, tpr, tnr, tpr_cell, tnr_cell = _truth(rng)
    panel = _panel(rng, f, tpr_cell, tnr_cell)
    fit = _oracle_fit(rng, f, tpr, tnr, tpr_cell, tnr_cell)
    # a fit without cell rates (the pooled model's) is not the check's
    post = {k: v for k, v in fit.idata.posterior.data_vars.items() if "cell" not in k}
    pooled = PanelFit(
        method="nuts", idata=tree({"posterior": {k: v.values for k, v in post.items()}})
    )
    assert "cells" not in {r.check for r in panel.check(pooled)}
    assert "cells" not in {r.check for r in panel.check(panel.fit("validator_mean"))}
