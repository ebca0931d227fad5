"""README.md cannot drift from the API: its code runs, its numbers hold, its flags exist.

Every ```python block runs, in order, in one namespace (real fits, real data); a line whose
comment starts with a number or a tuple of numbers (``x  # 0.533``, ``lo, hi = f()  #
(0.430, 0.636)``) is checked against the value, rounded as printed.  Every
``judgebayes ...`` command line of the shell blocks is parsed by the real CLI parser, so a
flag the README shows and the CLI lacks fails here.
"""

import re
import shlex
import warnings

import pytest

from judgebayes.errors import JudgeBayesWarning
from tests.readme import PARTS, _blocks, _check, _claims, _parts


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
