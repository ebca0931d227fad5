"""Sphinx configuration of the judgebayes site (``make docs``).

The site samples nothing: the gallery shows the notebooks' committed outputs, the how-to
pages show code whose numbers the test suite checks, and the reference comes from the
docstrings and the CLI's parser.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT))

import judgebayes  # noqa: E402

project = "judgebayes"
author = "the judgebayes developers"
copyright = "the judgebayes developers, MIT licence"
version = release = judgebayes.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_design",
    "generated",
]

# pages and notebooks
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "llms.txt", "SKILL.md"]
# the assistant guide and skill are served beside the pages: <site>/llms.txt, <site>/SKILL.md
html_extra_path = ["llms.txt", "SKILL.md"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # the committed outputs; the site build samples nothing
nb_merge_streams = True

# the reference: numpydoc docstrings, one page per public name
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

html_theme = "pydata_sphinx_theme"
html_title = "judgebayes"
# MathJax from the jupyter-server-mathjax wheel (the docs extra), served with the site: the
# pages render their math without a network
html_static_path = ["_mathjax"]
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
# the wheel carries the STIX-Web fonts only; the pages mark their math with the class "math"
# (MyST marks the rest of the page to be ignored)
mathjax2_config = {
    "tex2jax": {
        "inlineMath": [["\\(", "\\)"]],
        "displayMath": [["\\[", "\\]"]],
        "processClass": "math|output_area",
        "ignoreClass": "tex2jax_ignore|mathjax_ignore|document",
    },
    "HTML-CSS": {
        "availableFonts": ["STIX-Web"],
        "preferredFont": "STIX-Web",
        "webFont": "STIX-Web",
        "imageFont": None,
    },
}
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "navbar_align": "left",
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
}
html_sidebars = {"index": [], "benchmarks": []}


def _copy_notebooks() -> None:
    """The tutorial and the gallery are the executed notebooks of ``notebooks/``, copied in
    (not committed): ``00_get_started`` is the tutorial, the others the gallery."""
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        tutorial = nb.name.startswith("00_")
        target = HERE / "get-started" / "tutorial.ipynb" if tutorial else HERE / "gallery" / nb.name
        if not target.exists() or target.read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, target)


def _copy_mathjax() -> None:
    """MathJax 2 from the installed ``jupyter_server_mathjax`` into ``_mathjax/mathjax``."""
    import jupyter_server_mathjax

    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    target = HERE / "_mathjax" / "mathjax"
    if not (target / "MathJax.js").exists():
        shutil.copytree(source, target, dirs_exist_ok=True)


_copy_notebooks()
_copy_mathjax()
