"""The panel command (judgebayes/cli/panel.py): items and cells files through the point methods
against the library, one spelling of method names, a sampler flag no method uses refused,
and every registered Bayesian panel model offered by --variant.
"""

import itertools
import json

import numpy as np
import pandas as pd

from judgebayes.inference.panel import ensembles as ens
from judgebayes.studies.panel import ValidatorPanel
from tests.helpers import cli, run


def test_the_command_line_offers_every_panel_model():
    """``judgebayes panel --variant`` takes each registered Bayesian panel model."""
    import argparse

    from judgebayes.cli import build_parser

    sub = next(
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    ).choices["panel"]
    (variant,) = [a for a in sub._actions if a.dest == "variant"]
    assert tuple(variant.choices) == tuple(c.model_name for c in ValidatorPanel.models())
    assert set(variant.choices) == {"pooled", "hierarchical", "overdispersed", "leniency"}


def test_cli_panel_items_and_cells(tmp_path, panel_sim):
    panel_sim.items.to_csv(tmp_path / "items.csv", index=False)
    out = run("panel", tmp_path / "items.csv", "--items", "--method", "veto", "--format", "json")
    assert out.returncode == 0, out.stderr
    js = json.loads(out.stdout)
    assert js["methods"] == ["validator_mean", "veto"] and len(js["generators"]) == 14
    d = panel_sim.panel()
    np.testing.assert_allclose(
        [r["validator_mean"] for r in js["generators"]], ens.validator_mean(d), rtol=1e-12
    )
    assert sum(r["n_missing"] for r in js["generators"]) == d.n_missing.sum() > 0
    cells = pd.DataFrame(
        [
            {
                "generator": g,
                "validator": v,
                "n_judged": d.n_judged[i, j],
                "n_valid": d.n_valid[i, j],
            }
            for (i, g), (j, v) in itertools.product(
                enumerate(d.generators), enumerate(d.validators)
            )
        ]
    )
    cells.to_csv(tmp_path / "cells.csv", index=False)
    tab = cli("panel", tmp_path / "cells.csv", "--method", "regression")
    assert tab.returncode == 0 and "validator mean" in tab.stdout and "regression" in tab.stdout
    bad = cells.assign(n_valid=cells.n_judged + 1)
    bad.to_csv(tmp_path / "bad.csv", index=False)
    err = cli("panel", tmp_path / "bad.csv")
    assert err.returncode == 2 and "n_valid" in err.stderr
    assert len(err.stderr.strip().splitlines()) == 1
    # one spelling of method names across subcommands: plug_in is plug-in
    a, b = (cli("panel", tmp_path / "items.csv", "--items", "--method", m, "--format", "json")
            for m in ("plug-in", "plug_in"))  # fmt: skip
    assert a.returncode == 0 and a.stdout == b.stdout and '"plug_in"' in a.stdout
    # a sampler flag that no chosen method uses is refused, not ignored
    err = cli("panel", tmp_path / "cells.csv", "--method", "regression", "--variant", "pooled")
    assert err.returncode == 2 and "--variant pooled" in err.stderr
    assert len(err.stderr.strip().splitlines()) == 1
