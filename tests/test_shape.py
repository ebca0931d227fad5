"""The package's shape: a module is one idea (sized by meaning: a module past 700 lines has
absorbed a second one), every function at most 80 lines of code, one variant protocol (no
model chosen by a name string in the studies, models or engines), and tests that import
shared helpers, never another test file.

Lines of code: lines of a function's body that are not blank, comments or docstrings.
"""

import ast
import pathlib
import re

import judgebayes

ROOT = pathlib.Path(judgebayes.__file__).parent
TESTS = pathlib.Path(__file__).parent
MAX_MODULE_LINES = 700
MAX_FUNCTION_LINES = 80


def _modules():
    return sorted(ROOT.rglob("*.py"))


def _code_lines(lines: list[str], node: ast.AST) -> int:
    docs = set()
    for n in ast.walk(node):
        body = getattr(n, "body", None)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    docs.update(range(first.lineno, first.end_lineno + 1))
    return sum(
        1
        for i in range(node.lineno, node.end_lineno + 1)
        if i not in docs and lines[i - 1].strip() and not lines[i - 1].strip().startswith("#")
    )


def _function_lines() -> dict[str, int]:
    out = {}
    for path in _modules():
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out[f"{path.relative_to(ROOT)}::{node.name}"] = _code_lines(lines, node)
    return out


def test_no_module_has_absorbed_a_second_idea():
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules()
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_over_80_lines_of_code():
    long = {k: n for k, n in _function_lines().items() if n > MAX_FUNCTION_LINES}
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines of code: {long}"


def test_a_variant_is_a_class_not_a_name_string():
    """No ``variant=`` keyword and no lookup of a study class by its key in the layers that
    build and fit models: a study class is chosen by ``matches`` (studies/base.py)."""
    for layer in ("studies", "models", "inference"):
        for path in (ROOT / layer).rglob("*.py"):
            text = path.read_text()
            assert "variant=" not in text, path
            if path != ROOT / "studies" / "base.py":
                assert not re.search(r"STUDIES\[", text), path


def test_a_test_file_imports_shared_helpers_never_another_test_file():
    for path in TESTS.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                last = node.module.split(".")[-1]
                assert not (node.module.startswith("tests.") and last.startswith("test_")), (
                    f"{path.relative_to(TESTS)} imports {node.module}"
                )
