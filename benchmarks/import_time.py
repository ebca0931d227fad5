"""Time `import judgebayes` against a bare interpreter start, in fresh processes.

Prints the median wall time of each over 15 runs and the difference; also lists any heavy
module the import pulled in (there should be none).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def _time(code: str, runs: int = 15) -> float:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    base = _time("pass")
    imp = _time("import judgebayes")
    heavy = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, judgebayes; print(sorted(m for m in "
            "('pymc','pytensor','arviz','pandas','scipy','numpy','xarray') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(
        f"bare interpreter: {base * 1e3:.1f} ms; import judgebayes: {imp * 1e3:.1f} ms; "
        f"cost of the import: {(imp - base) * 1e3:.1f} ms (ratio {imp / base:.2f}x)"
    )
    print(f"heavy modules loaded by the import: {heavy}")


if __name__ == "__main__":
    main()
