"""Coverage of the latent-truth model of several raters against the raters' majority taken as
the truth, on three raters of accuracy 0.85-0.9 who label 30% of the items and a judge of
sensitivity 0.9 and specificity 0.8 (the simulator is the test module's, numpy only).

    python benchmarks/raters_coverage.py [--sets 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.studies.items.test_raters import coverage


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=200)
    args = ap.parse_args()
    sd = (0.95 * 0.05 / (2 * args.sets)) ** 0.5
    print(f"{args.sets} sets x 2 systems; Monte-Carlo sd of a 95% coverage {sd:.4f}")
    for estimand in ("process", "items"):
        t0 = time.perf_counter()
        latent, majority = coverage(args.sets, 31, estimand)
        print(
            f"{estimand}: latent truth (nuts) {latent:.3f}, majority as gold (closed form) "
            f"{majority:.3f}  [{time.perf_counter() - t0:.0f} s]",
            flush=True,
        )


if __name__ == "__main__":
    main()
