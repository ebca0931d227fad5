"""README.md and the site's pages read as the tests run them: each page's python blocks in
parts (each a prelude of the page's imports and its blocks), and the numbers its comments
claim."""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
#: every page whose code the tests run: the README, then the site's pages (not its build)
PAGES = [
    README,
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts),
]
NUMBER = re.compile(r"^\s*(\(?\s*-?\d+(\.\d+)?(\s*,\s*-?\d+(\.\d+)?)*\s*\)?)(\s|$)")


def code_blocks(lang: str, page: Path = README) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", page.read_text(), flags=re.S)


def number_claims(block: str) -> list[tuple[str, str]]:
    """(expression, printed value) for statements whose last line's comment starts with
    numbers (a statement may span lines, as the formatter wraps it)."""
    lines = block.splitlines()
    out = []
    for stmt in ast.walk(ast.parse(block)):
        if not isinstance(stmt, ast.Assign | ast.Expr):
            continue
        last = lines[stmt.end_lineno - 1]
        if "  # " not in last:
            continue
        m = NUMBER.match(last.split("  # ", 1)[1])
        if m:
            out.append((ast.unparse(stmt.value), m.group(1)))
    return out


def check_number(value, printed: str) -> None:
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


def split_parts(blocks: list[str]) -> list[tuple[list[str], list[str]]]:
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


#: (page, the page's imports before the part, the part's blocks), page by page
PARTS = [
    (str(page.relative_to(ROOT)), prelude, blocks)
    for page in PAGES
    for prelude, blocks in split_parts(code_blocks("python", page))
]
