"""Simulation-based calibration of every NUTS model the package ships.

Runs :func:`judgebayes.simulate.sbc.sbc_study` for each problem of
``judgebayes.simulate.sbc.PROBLEMS`` at each model's default sampler settings, and prints
per problem: fits, fits failing the gate, the smallest uniformity p-value over the
reported quantities and judge rates (passed fits, and all fits), and the time.  One JSON
line per problem goes to ``--out`` as it finishes.

Run: python benchmarks/sbc.py [--problems binary_random strata ...] [--n 200]
[--n-panel 100] [--executor 1] [--out sbc.jsonl]
"""

import argparse
import json
import time

from judgebayes.simulate.sbc import PROBLEMS, sbc_study

PANEL = ("panel_cells", "panel_items")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", nargs="*", default=list(PROBLEMS))
    ap.add_argument("--n", type=int, default=200, help="datasets per accuracy problem")
    ap.add_argument("--n-panel", type=int, default=100, help="datasets per panel problem")
    ap.add_argument("--executor", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    for name in args.problems:
        n = args.n_panel if name in PANEL else args.n
        t0 = time.perf_counter()
        res = sbc_study(name, n, random_seed=args.seed, executor=args.executor)
        u = res.uniformity()
        line = {
            "problem": name,
            "setting": res.settings["setting"],
            "n": res.n_datasets,
            "failed": res.n_failed,
            "redrawn": res.redrawn,
            "n_ranks": res.n_ranks,
            "min_p_passed": float(u["p_value"].min()),
            "min_p_all": float(u["p_value_all"].min()),
            "n_components": len(u),
            "seconds": round(time.perf_counter() - t0, 1),
            "sampler": str(res.settings["sampler"]),
            "p": {
                f"{r.component}": [round(r.p_value, 4), round(r.p_value_all, 4)]
                for r in u.itertuples()
            },
            "fail_messages": sorted({m[:160] for m in res.messages if m != "converged"})[:5],
        }
        print(
            f"{name:15s} fits {line['n']:4d} failed {line['failed']:3d} redrawn "
            f"{line['redrawn']:3d} min p (passed) {line['min_p_passed']:.3f} "
            f"(all) {line['min_p_all']:.3f} over {line['n_components']} components "
            f"{line['seconds']:7.1f} s",
            flush=True,
        )
        if args.out:
            with open(args.out, "a") as fh:
                fh.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
