"""The gate on true claims when a check flags an assumption the method does not make.

Two designs, simulated here in numpy, 200 sets each: (1) systems A (rate 0.8) and B (0.5),
600 items and 150 random labels each, the judge's specificity 0.8 on A and 0.6 on B (mild
self-preference; ``exact`` and the closed form share no judge rates), claim ``A > B``; (2)
three judges whose errors share an item difficulty (sd 1.5 logits), 600 items, 200
labels, rate 0.7, claim ``rate > 0.5`` with ``exact`` (the vote-count posterior assumes
nothing about the judges' dependence).  Printed: the share of sets the gate passes (every
claim supported at 0.95 and no failure among the checks of the fit's own assumptions) and
the share in which the other check flagged (shown as a warning).

Run: python benchmarks/gate_assumptions.py [--reps 200]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.workflows.gate import check_claims


def items(rng, n, theta, sens, spec, n_lab):
    h = rng.random(n) < theta
    v = np.where(h, rng.random(n) < sens, rng.random(n) > spec)
    lab = np.zeros(n, bool)
    lab[rng.choice(n, n_lab, replace=False)] = True
    return pd.DataFrame({"judge": v * 1.0, "human": np.where(lab, h * 1.0, np.nan)})


def judges3(rng, n, theta, n_lab, tau=1.5):
    h = rng.random(n) < theta
    d = rng.normal(0, tau, n)
    cols = {}
    for j in range(3):
        lo = np.where(h, 2.0 - d, 1.4 - d)  # a shared item difficulty moves all judges
        p_right = 1 / (1 + np.exp(-lo))
        right = rng.random(n) < p_right
        cols[f"j{j}"] = np.where(right, h, ~h) * 1.0
    lab = np.zeros(n, bool)
    lab[rng.choice(n, n_lab, replace=False)] = True
    return pd.DataFrame({**cols, "human": np.where(lab, h * 1.0, np.nan)})


def _gate(study, fit, claim, check) -> tuple[bool, bool]:
    ok = bool(check_claims(fit, [claim], 0.95)["supported"].all())
    rep = study.check(fit)
    flagged = any(getattr(w, "check", "") == check for w in [*rep.warnings, *rep.failures])
    return ok and not rep.failures, flagged


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    out: dict[str, list] = {}
    for r in range(args.reps):
        rng = np.random.default_rng(r)
        f = pd.concat(
            [
                items(rng, 600, 0.8, 0.85, 0.8, 150).assign(system="A"),
                items(rng, 600, 0.5, 0.85, 0.6, 150).assign(system="B"),
            ]
        )
        st = jb.AccuracyStudy.from_items(f, system="system")
        for m in ("exact", "closed_form"):
            fit = st.fit(m, random_seed=r)
            out.setdefault(f"self-preference, {m}", []).append(
                _gate(st, fit, "A > B", "self_preference")
            )
        st = jb.AccuracyStudy.from_items(judges3(rng, 600, 0.7, 200), judge=["j0", "j1", "j2"])
        fit = st.fit("exact", random_seed=r)
        out.setdefault("correlated judges, exact", []).append(
            _gate(st, fit, "rate > 0.5", "judge_dependence")
        )
    for k, v in out.items():
        v = np.array(v, float)
        print(
            f"{k:30s} gate passes {v[:, 0].mean():.3f}, "
            f"the check flagged (a warning) {v[:, 1].mean():.3f}"
        )


if __name__ == "__main__":
    main()
