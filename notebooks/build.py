"""Make the executed notebooks from their sources.

The sources are the jupytext percent-format files ``notebooks/NN_name.py`` (linted with the
package).  This script turns each into ``NN_name.ipynb`` and executes it in place with the
full settings of its ``parameters`` cell, so the committed notebook shows real outputs:

    python notebooks/build.py             # every notebook
    python notebooks/build.py 02 04       # the ones whose name starts with 02 or 04

``tests/test_notebooks.py`` checks that every ``.ipynb``'s code equals its source and runs
each source with smaller parameters injected after its ``parameters`` cell.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def sources() -> list[Path]:
    """The notebook sources, in order."""
    return sorted(p for p in HERE.glob("[0-9][0-9]_*.py"))


def load(source: Path, parameters: str | None = None):
    """The notebook of ``source``; ``parameters`` (code) is injected after its parameters cell."""
    import jupytext
    import nbformat

    nb = jupytext.read(source)
    if parameters is not None:
        at = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
        if len(at) != 1:
            raise ValueError(f"{source.name}: expected one cell tagged 'parameters', got {len(at)}")
        cell = nbformat.v4.new_code_cell(parameters)
        cell.metadata["tags"] = ["injected-parameters"]
        nb.cells.insert(at[0] + 1, cell)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def execute(nb, cwd: Path, timeout: int = 3600):
    """Run every cell in a fresh kernel (errors raise)."""
    from nbclient import NotebookClient

    # the committed notebooks carry results, not sampler progress displays (the kernel
    # inherits this; a reader running the notebook sees nutpie's progress)
    os.environ.setdefault("JUDGEBAYES_PROGRESS", "0")
    NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return nb


def main(argv: list[str]) -> int:
    """Build the notebooks named by prefix in ``argv`` (all when empty)."""
    import nbformat

    for src in sources():
        if argv and not any(src.name.startswith(a) for a in argv):
            continue
        t0 = time.perf_counter()
        nb = execute(load(src), HERE)
        nbformat.write(nb, src.with_suffix(".ipynb"))
        print(f"{src.with_suffix('.ipynb').name}: executed in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
