"""ARCHITECTURE.md and CONTRIBUTING.md are true to the code: every module, folder and path
they cite exists (the layout tree is read folder by folder, by its indentation)."""

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
PATH = re.compile(r"(?<![/\w.])((?:judgebayes|tests|benchmarks|docs|notebooks)/[\w./-]*\w/?)")
MODULE = re.compile(r"\b([a-z_][a-z0-9_]*\.py)\b")
ENTRY = re.compile(r"^( *)([a-z_][\w]*(?:/|\.py))")


def _cited_paths(text: str) -> set[str]:
    # placeholders (``notebooks/NN_name.py``, ``<family>``, globs) are patterns, not paths;
    # what a build writes (docs/_build) is not in a clone
    return {m.rstrip("/") for m in PATH.findall(text) if not re.search(r"[*<]|NN_|_build", m)}


def _tree_modules(text: str) -> list[str]:
    """Every module the layout tree names, as a path from the repository's root (the
    tree's top entries are the package's; an entry at the margin is the repository's)."""
    block = text.split("```\njudgebayes/\n", 1)[1].split("```", 1)[0]
    stack: list[tuple[int, str]] = [(-1, "judgebayes")]  # (indent, folder) of open folders
    current = "judgebayes"  # the folder the last entry opened (its description's modules)
    found = []
    for line in block.splitlines():
        m = ENTRY.match(line)
        if m and len(m.group(1)) % 2 == 0 and len(m.group(1)) <= 8:
            indent, name = len(m.group(1)), m.group(2)
            stack = [(i, f) for i, f in stack if i < indent and (indent > 0 or i >= 0)]
            parent = "/".join(f for _, f in stack)
            if name.endswith("/"):
                stack.append((indent, name[:-1]))
                current = "/".join(f for _, f in stack)
            else:
                found.append(f"{parent}/{name}" if parent else name)
                current = parent
            rest = line[m.end() :]
        else:
            rest = line
        for mod in MODULE.findall(rest):
            found.append(f"{current}/{mod}" if current else mod)
    return found


def test_the_layout_tree_names_modules_that_exist():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    modules = _tree_modules(text)
    assert len(modules) > 60  # the tree is read, not skipped
    missing = [m for m in modules if not (ROOT / m).exists()]
    assert not missing, missing


def test_the_paths_the_guides_cite_exist():
    for guide in ("ARCHITECTURE.md", "CONTRIBUTING.md"):
        paths = _cited_paths((ROOT / guide).read_text())
        assert paths, guide
        missing = sorted(p for p in paths if not (ROOT / p).exists())
        assert not missing, (guide, missing)


def test_a_wrong_name_is_caught():
    # the reader finds a module the tree names in the wrong folder
    tree = "```\njudgebayes/\n  data/              frames.py, nothere.py\n```\n"
    assert _tree_modules(tree) == ["judgebayes/data/frames.py", "judgebayes/data/nothere.py"]
