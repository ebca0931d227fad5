"""Leave one annotated generator out on the notebook's 14 x 14 panel.

The panel of ``notebooks/02_validator_panel.py`` (``simulate_panel(14, 14, n_outputs=700,
rate_shift=0.5, seed=11)``: agreeable validators whose rates shift from one generator to
another, ~9% missing verdicts, 6 annotated generators).  For each annotated generator in
turn its human labels are removed, the panel is rebuilt from the items, and the held-out
generator's precision is estimated by the default ``ValidatorPanel.fit("nuts")`` (95%
interval against the realised share), by the validator mean and by the regression.

Printed: per held-out generator the error of each method, the model's interval and
whether it covers; then the largest error, the coverage count and the mean width.
``--variant V``: that Bayesian model (default: the hierarchical cell model, whichever
model ``fit("nuts")`` would choose, so the rows stay the cell model's).
Run: python benchmarks/panel_loo.py [--outputs 700] [--seed 11] [--variant V]
"""

import argparse
import time
import warnings

import numpy as np

from judgebayes.data.panel import panel_from_items
from judgebayes.errors import ConvergenceWarning
from judgebayes.simulate import simulate_panel
from judgebayes.studies.panel import ValidatorPanel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outputs", type=int, default=700)
    ap.add_argument("--seed", type=int, default=11)
    models = {c.model_name: c for c in ValidatorPanel.models()}
    ap.add_argument(
        "--variant", choices=models, default="hierarchical", help="the Bayesian panel model"
    )
    a = ap.parse_args()
    sim = simulate_panel(14, 14, n_outputs=a.outputs, rate_shift=0.5, seed=a.seed)
    rows = []
    print("held-out  truth  model [lower, upper] covers gate  validator-mean  regression  seconds")
    for g in sim.annotated:
        items = sim.items.copy()
        gen_names = panel_from_items(sim.items).generators
        items.loc[items["generator"] == gen_names[g], "human"] = None
        panel = models[a.variant](panel_from_items(items))
        truth = sim.precision[g]
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = panel.fit("nuts", random_seed=a.seed)
        sec = time.perf_counter() - t0
        est, lo, hi = fit.interval(alpha=0.05, var="precision_judged").to_numpy()[g, :3]
        vm = panel.fit("validator_mean").interval().to_numpy()[g, 0]
        reg = panel.fit("regression").interval().to_numpy()[g, 0]
        covers = lo <= truth <= hi
        rows.append((abs(est - truth), covers, hi - lo, abs(vm - truth), abs(reg - truth)))
        print(
            f"{gen_names[g]:>8}  {truth:.3f}  {est:.3f} [{lo:.3f}, {hi:.3f}] "
            f"{'yes' if covers else 'NO ':>3}  {'pass' if fit.diagnostics.passed else 'FAIL'}"
            f"  {vm:14.3f}  {reg:10.3f}  {sec:7.1f}",
            flush=True,
        )
    r = np.array(rows, dtype=float)
    print(
        f"model: largest error {r[:, 0].max():.3f}, mean error {r[:, 0].mean():.3f}, "
        f"covered {int(r[:, 1].sum())} of {len(r)}, mean width {r[:, 2].mean():.3f}; "
        f"validator mean: largest {r[:, 3].max():.3f}, mean {r[:, 3].mean():.3f}; "
        f"regression: largest {r[:, 4].max():.3f}, mean {r[:, 4].mean():.3f}"
    )


if __name__ == "__main__":
    main()
