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


def test_readme_python_blocks_run_and_their_numbers_hold(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    blocks = _blocks("python")
    assert len(blocks) >= 5
    ns: dict = {}
    checked = 0
    for block in blocks:
        with warnings.catch_warnings():
            # the README shows code as users run it, warnings included (its claims are
            # checked below); elsewhere the suite turns judgebayes warnings into errors
            warnings.simplefilter("default", JudgeBayesWarning)
            exec(compile(block, "README.md", "exec"), ns)
        for expr, printed in _claims(block):
            _check(eval(expr, ns), printed)
            checked += 1
    assert checked >= 4  # the quick-start numbers are really checked


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
