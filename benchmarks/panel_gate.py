"""Does the default panel model pass the convergence gate on small plain panels?

The default is ``ValidatorPanel.fit("nuts")``: the hierarchical cell model with the
panel's default sampler (``DEFAULT_SAMPLERS["panel"]``).  "Plain" panels: few generators
and validators, constant validator rates (``rate_shift=0``) or the simulator's default
shift, a few annotated generators.  Printed per panel: R-hat max, bulk/tail ESS min,
divergences, E-BFMI, whether the full gate (every free variable) passed, and seconds;
then the pass count.
Run: python benchmarks/panel_gate.py [--seeds 10] [--variant hierarchical]
[--target-accept 0.99] [--draws 2000]
"""

import argparse
import time
import warnings

import judgebayes as jb
from judgebayes.errors import ConvergenceWarning

SHAPES = [  # (generators, validators, outputs per generator, annotated, rate_shift)
    (5, 4, 100, 3, 0.0),
    (5, 4, 100, 3, 0.5),
    (6, 5, 200, 3, 0.5),  # the README's panel
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    models = {c.model_name: c for c in jb.ValidatorPanel.models()}
    ap.add_argument("--variant", choices=models, default="hierarchical")
    ap.add_argument("--target-accept", type=float, default=None, help="default: the model's")
    ap.add_argument("--draws", type=int, default=None, help="default: the model's")
    a = ap.parse_args()
    passed = total = 0
    sampler = {k: v for k, v in (("target_accept", a.target_accept), ("draws", a.draws)) if v}
    print("G x V  n  ann shift seed | R-hat  bulk  tail div E-BFMI  gate   s  worst")
    for G, V, n, ann, shift in SHAPES:
        for seed in range(a.seeds):
            sim = jb.simulate.simulate_panel(
                G, V, n_outputs=n, n_annotated=ann, seed=seed, rate_shift=shift
            )
            panel = models[a.variant](sim.panel())
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # read from diagnostics
                fit = panel.fit("nuts", random_seed=seed, sampler=sampler)
            s = time.perf_counter() - t0
            d = fit.diagnostics
            total += 1
            passed += d.passed
            print(
                f"{G} x {V} {n:4d} {ann} {shift:4.1f} {seed:4d} | {d.r_hat_max:.3f} "
                f"{d.ess_bulk_min:5.0f} {d.ess_tail_min:5.0f} {d.divergences:3d} "
                f"{d.bfmi_min:6.2f} {'pass' if d.passed else 'FAIL'} {s:5.1f}  {d.worst}",
                flush=True,
            )
    print(f"default panel model ({a.variant}): {passed} of {total} fits passed the gate")


if __name__ == "__main__":
    main()
