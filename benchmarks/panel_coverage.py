"""Held-out coverage of the default panel model on simulated panels with dependent verdicts.

The acceptance setting: 14 generators x 14 agreeable validators (TPR ~0.96, TNR
0.1-0.5), an invalid output's difficulty shared by every validator (sd 1 logit),
generator-dependent validator rates (0.5 logit), ~9% missing verdicts, 6 of 14 generators
annotated, 300 outputs per generator.  For each seed the default ``ValidatorPanel.fit("nuts")``
(the model it chooses, default sampler) is fitted, and the 90% intervals of the 8
unannotated generators' precision on the outputs judged (``precision_judged``, the
simulation's realised share) and of ``g`` are checked against the realised share.

Printed per seed: gate, coverage of both, MaxAE of the model's and of the validator mean's
held-out estimates; then the totals over all fits and over the fits that passed the gate.
``--retry``: a fit that misses the gate is refitted once with twice the draws and the tune
(what the gate's message tells a user to do), and the refit replaces it; retries are
counted, and a refit that still fails stays a failed fit.
``--variant V``: that model (default: the one ``fit("nuts")`` chooses, the leniency model
where its check passes and the cell model otherwise; the column ``model`` says which).
Run: python benchmarks/panel_coverage.py [--seeds 25] [--start 0] [--retry] [--variant V]
"""

import argparse
import time
import warnings

import numpy as np

from judgebayes.errors import ConvergenceWarning
from judgebayes.simulate import simulate_panel
from judgebayes.studies.panel import ValidatorPanel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--retry", action="store_true")
    models = {c.model_name: c for c in ValidatorPanel.models()}
    ap.add_argument(
        "--variant", choices=models, default=None, help="the Bayesian panel model (default: chosen)"
    )
    a = ap.parse_args()
    base = ValidatorPanel.sampler
    longer = {"draws": 2 * base.draws, "tune": 2 * base.tune}
    rows = []
    print("seed gate  cover(judged)  cover(g)  MaxAE model  MaxAE validator-mean  seconds  model")
    for seed in range(a.start, a.start + a.seeds):
        sim = simulate_panel(14, 14, seed=seed)
        panel = (ValidatorPanel if a.variant is None else models[a.variant])(sim.panel())
        held = np.setdiff1d(np.arange(14), sim.annotated)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = panel.fit("nuts", random_seed=seed)
            retried = a.retry and not fit.diagnostics.passed
            if retried:
                fit = panel.fit("nuts", random_seed=seed, sampler=longer)
        sec = time.perf_counter() - t0
        truth = sim.precision[held]
        out = {"seed": seed, "passed": fit.diagnostics.passed, "seconds": sec, "retried": retried}
        for var in ("precision_judged", "g"):
            iv = fit.interval(alpha=0.1, var=var).to_numpy()[held]
            out[var] = (iv[:, 1] <= truth) & (truth <= iv[:, 2])
            if var == "precision_judged":
                out["maxae"] = np.max(np.abs(iv[:, 0] - truth))
        vm = panel.fit("validator_mean").interval().to_numpy()[held, 0]
        out["maxae_vm"] = np.max(np.abs(vm - truth))
        rows.append(out)
        print(
            f"{seed:4d} {'pass' if out['passed'] else 'FAIL'}{'*' if retried else ' '} "
            f"{out['precision_judged'].mean():13.3f}  {out['g'].mean():8.3f}  "
            f"{out['maxae']:11.3f}  {out['maxae_vm']:20.3f}  {sec:7.1f}  {fit.info['variant']}",
            flush=True,
        )
    print(f"retried with twice the draws: {sum(r['retried'] for r in rows)} (* above)")
    for label, keep in (("all fits", rows), ("passed fits", [r for r in rows if r["passed"]])):
        if not keep:
            continue
        judged = np.concatenate([r["precision_judged"] for r in keep])
        g = np.concatenate([r["g"] for r in keep])
        print(
            f"{label}: {len(keep)} panels, {judged.size} held-out intervals; 90% coverage "
            f"precision_judged {judged.mean():.3f} (MC se {np.sqrt(0.09 / judged.size):.3f}), "
            f"g {g.mean():.3f}; mean MaxAE model {np.mean([r['maxae'] for r in keep]):.3f} "
            f"vs validator mean {np.mean([r['maxae_vm'] for r in keep]):.3f}"
        )


if __name__ == "__main__":
    main()
