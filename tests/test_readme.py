"""README.md cannot drift from the API: its code runs, its numbers hold, its flags exist.

Every ```python block runs, in order, in one namespace (real fits, real data); a line whose
comment starts with a number or a tuple of numbers (``x  # 0.533``, ``lo, hi = f()  #
(0.430, 0.636)``) is checked against the value, rounded as printed.  Every
``judgebayes ...`` command line of the shell blocks is parsed by the real CLI parser, so a
flag the README shows and the CLI lacks fails here.
"""

import ast
import re
import shlex
import warnings
from pathlib import Path

import numpy as np
import pytest

from judgebayes.errors import JudgeBayesWarning

README = Path(__file__).parents[1] / "README.md"
NUMBER = re.compile(r"^\s*(\(?\s*-?\d+(\.\d+)?(\s*,\s*-?\d+(\.\d+)?)*\s*\)?)(\s|$)")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(), flags=re.S)


def _claims(block: str) -> list[tuple[str, str]]:
    """(expression, printed value) for lines whose comment starts with numbers."""
    out = []
    for line in block.splitlines():
        if "  # " not in line:
            continue
        code, comment = line.split("  # ", 1)
        m = NUMBER.match(comment)
        if not m or not code.strip():
            continue
        tree = ast.parse(code.strip())
        stmt = tree.body[0]
        expr = stmt.value if isinstance(stmt, ast.Assign | ast.Expr) else None
        if expr is not None:
            out.append((ast.unparse(expr), m.group(1)))
    return out


def _check(value, printed: str) -> None:
    nums = [s.strip() for s in printed.strip("() ").split(",")]
    vals = np.atleast_1d(np.asarray(tuple(value) if isinstance(value, tuple) else value, float))
    assert vals.size == len(nums), (value, printed)
    for v, s in zip(vals, nums, strict=True):
        digits = len(s.split(".")[1]) if "." in s else 0
        assert round(float(v), digits) == pytest.approx(float(s)), (value, printed)


def _names(block: str) -> tuple[set[str], set[str], list[str]]:
    """(names a block computes, names it reads, its import statements)."""
    tree = ast.parse(block)
    computed, loaded, imports = set(), set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (computed if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imports.append(ast.unparse(node))
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            computed.add(node.name)
    return computed, loaded, imports


def _parts(blocks: list[str]) -> list[tuple[list[str], list[str]]]:
    """``blocks`` as parts that run on their own: (the earlier blocks' imports, the
    blocks).  A block that reads a name an earlier block computed (not imported) joins that
    block's part, so every part runs what the README runs before it, in order.
    """
    parts: list[tuple[list[str], list[str]]] = []
    computed: dict[str, int] = {}  # name -> index of the part that assigned it
    imports: list[str] = []
    for block in blocks:
        own, loaded, own_imports = _names(block)
        needs = {computed[n] for n in loaded - own if n in computed}
        if needs:  # run with every part it reads from: merge them and those between
            first = min(needs)
            merged = [b for _, run in parts[first:] for b in run]
            parts[first:] = [(parts[first][0], [*merged, block])]
            computed = {n: min(i, first) for n, i in computed.items()}
        else:
            parts.append((list(imports), [block]))
        computed |= dict.fromkeys(own, len(parts) - 1)
        imports += own_imports
    return parts


PARTS = _parts(_blocks("python"))


@pytest.mark.parametrize("part", range(len(PARTS)), ids=lambda i: f"part{i}")
def test_readme_python_blocks_run_and_their_numbers_hold(part, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    prelude, blocks = PARTS[part]
    ns: dict = {}
    exec("\n".join(prelude), ns)  # what the README imported before this part
    for block in blocks:
        with warnings.catch_warnings():
            # the README shows code as users run it, warnings included (its claims are
            # checked below); elsewhere the suite turns judgebayes warnings into errors
            warnings.simplefilter("default", JudgeBayesWarning)
            exec(compile(block, "README.md", "exec"), ns)
        for expr, printed in _claims(block):
            _check(eval(expr, ns), printed)


def test_readme_parts_are_every_block_in_order_and_check_numbers():
    blocks = _blocks("python")
    assert len(blocks) >= 5 and len(PARTS) > 1  # the parts spread over the test workers
    assert [b for _, part in PARTS for b in part] == blocks
    assert sum(len(_claims(b)) for b in blocks) >= 4  # the quick-start numbers are checked
    # a block joins the part of what it reads, and the blocks between come along
    parts = _parts(["import numpy as np", "x = np.ones(2)", "y = 3", "z = x + 1", "w = 2"])
    assert parts == [
        ([], ["import numpy as np"]),
        (["import numpy as np"], ["x = np.ones(2)", "y = 3", "z = x + 1"]),
        (["import numpy as np"], ["w = 2"]),
    ]


def test_readme_claim_checker_can_fail():
    with pytest.raises(AssertionError):
        _check((93, 107), "(97, 103)")
    assert _claims("x = f(1)  # (0.430, 0.636)\ny  # m=626: no") == [("f(1)", "(0.430, 0.636)")]


def test_readme_command_lines_parse():
    from judgebayes.cli import build_parser

    parser = build_parser()
    lines = []
    for block in _blocks("sh"):
        # join continuation lines, then keep the judgebayes commands
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("judgebayes "):
                lines.append(line)
    assert len(lines) >= 7
    for line in lines:
        # [a|b] and [--flag x] are the README's notation for choices and optional flags
        words = shlex.split(re.sub(r"\[([^\]]*)\]", lambda m: m.group(1).split("|")[0], line))
        flags = [w for w in words if w.startswith("--")]
        sub = parser._subparsers._group_actions[0].choices[words[1]]
        known = {o for a in sub._actions for o in a.option_strings}
        assert set(flags) <= known, f"{line}: unknown flags {set(flags) - known}"
