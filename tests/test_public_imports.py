"""The docs and the notebooks teach the public API only.

Every python block of README.md and of the site's pages (read as tests/readme.py reads
them) and every notebook source (``notebooks/NN_name.py``) may import ``judgebayes`` and
its public namespaces (``jb.estimators``, ``jb.plan``, ``jb.io``, ``jb.simulate``,
``jb.datasets``, ``jb.errors``), and from them only the names they list in ``__all__``;
``jb.<name>`` must be a top-level public name.  A layer's module (``judgebayes.workflows.
...``, ``judgebayes.studies.panel``) or an underscore name in an example is a name a user
cannot rely on, so it fails here.
"""

import ast
import importlib

import pytest

import judgebayes
from tests.readme import PAGES, ROOT, code_blocks

NAMESPACES = ("estimators", "plan", "io", "simulate", "datasets", "errors")
PUBLIC_MODULES = {"judgebayes", *(f"judgebayes.{n}" for n in NAMESPACES)}
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


def _public(module: str) -> set[str]:
    return set(importlib.import_module(module).__all__)


def private_uses(code: str) -> list[str]:
    """Each import of a non-public judgebayes module or name in ``code``, and each
    ``<alias>.<name>`` of the top-level module that is not public."""
    tree = ast.parse(code)
    found, aliases = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "judgebayes" or a.name.startswith("judgebayes."):
                    if a.name not in PUBLIC_MODULES:
                        found.append(f"import {a.name}")
                    elif a.name == "judgebayes":
                        aliases.add(a.asname or "judgebayes")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module != "judgebayes" and not node.module.startswith("judgebayes."):
                continue
            if node.module not in PUBLIC_MODULES:
                found.append(f"from {node.module} import ...")
                continue
            public = _public(node.module)
            for a in node.names:
                if a.name not in public or a.name.startswith("_"):
                    found.append(f"from {node.module} import {a.name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and (node.attr not in judgebayes.__all__ or node.attr.startswith("_"))
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def _sources() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        for i, block in enumerate(code_blocks("python", page)):
            out.append((f"{page.relative_to(ROOT)} block {i}", block))
    for nb in NOTEBOOKS:
        out.append((str(nb.relative_to(ROOT)), nb.read_text()))
    return out


SOURCES = _sources()


def test_every_page_and_notebook_is_read():
    names = {name.split(" block")[0] for name, _ in SOURCES}
    assert "README.md" in names and len(NOTEBOOKS) >= 8
    assert sum(n.startswith("docs/howto/") for n in names) >= 15


@pytest.mark.parametrize("name,code", SOURCES, ids=[n for n, _ in SOURCES])
def test_examples_import_only_public_names(name, code):
    assert private_uses(code) == [], f"{name} reaches past the public API"


def test_the_checker_can_fail():
    bad = """
import judgebayes as jb
import judgebayes.workflows.gate
from judgebayes.workflows.split_protocol import split_protocol
from judgebayes import studies, AccuracyStudy
from judgebayes.estimators import rogan_gladen, _CF
from judgebayes.simulate.accuracy import simulate_accuracy
jb.studies.panel.PooledPanel
jb._EXPORTS
jb.estimators.rogan_gladen(0.6, 0.7, 0.9)
"""
    assert sorted(private_uses(bad)) == sorted(
        [
            "import judgebayes.workflows.gate",
            "from judgebayes.workflows.split_protocol import ...",
            "from judgebayes import studies",
            "from judgebayes.estimators import _CF",
            "from judgebayes.simulate.accuracy import ...",
            "jb.studies",
            "jb._EXPORTS",
        ]
    )
    good = "import judgebayes as jb\nfrom judgebayes.io import reduce_items\njb.AccuracyStudy"
    assert private_uses(good) == []
