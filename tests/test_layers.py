"""The package's folders are its layers: imports run one way and never in a cycle.

Every ``import`` / ``from ... import`` of a judgebayes module anywhere in a file counts,
including the lazy ones inside functions (a lazy import still couples the two modules).
"""

import ast
import pathlib

import judgebayes

ROOT = pathlib.Path(judgebayes.__file__).parent

# lower rank = lower layer; a module may import only its own layer or lower ones
LAYERS = {
    "errors": 0,
    # the lazy-namespace helper imports nothing of the package
    "_lazy": 0,
    "data": 1,
    "datasets": 2,
    "models": 3,
    "results": 4,
    "inference": 5,
    # checks read a study's data and a fit's draws through what the study classes offer,
    # and the studies run them: below the studies, above the engines
    "checks": 6,
    "studies": 7,
    "simulate": 8,
    # below workflows (a departure from DESIGN's order, see ARCHITECTURE.md): reports render
    # fits and studies, and a workflow (the demo) writes one
    "report": 9,
    "workflows": 10,
    "cli": 11,
    "__main__": 12,
    # the public namespaces (``jb.estimators``, ``jb.plan``, ``jb.io``): facades that name
    # what they offer in every layer and import it on first use; no module imports them
    "estimators": 13,
    "plan": 13,
    "io": 13,
}


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "judgebayes":
                found |= {f"judgebayes.{a.name}" for a in node.names}
            elif node.module.startswith("judgebayes."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("judgebayes.")}
    return found


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        deps = set()
        for imp in _imports(path):
            # resolve "judgebayes.x.y" to the longest module that exists
            while imp not in modules and "." in imp:
                imp = imp.rsplit(".", 1)[0]
            if imp in modules and imp != name:
                deps.add(imp)
        graph[name] = deps
    return graph


def test_every_module_belongs_to_a_layer():
    unknown = sorted(m for m in _graph() if m != "judgebayes" and _layer(m) not in LAYERS)
    assert unknown == [], f"modules outside the layers: {unknown}"


def test_imports_never_point_upward():
    upward = []
    for mod, deps in _graph().items():
        if mod == "judgebayes":  # the lazy public API may name any layer
            continue
        for dep in deps:
            if dep == "judgebayes" and not mod.endswith("__main__"):
                continue  # __version__ only
            if LAYERS[_layer(dep)] > LAYERS[_layer(mod)]:
                upward.append(f"{mod} -> {dep}")
    assert upward == [], "imports pointing up a layer:\n" + "\n".join(sorted(upward))


def test_no_import_cycles():
    graph = {m: {d for d in deps if d != "judgebayes"} for m, deps in _graph().items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                cycles.append(" -> ".join([*stack[stack.index(dep) :], dep]))
            elif dep not in state:
                visit(dep, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def test_the_layer_test_can_fail(tmp_path):
    # the parser sees lazy imports inside functions (what the layer rule is about)
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from judgebayes.cli.io import read_csv\n")
    assert _imports(f) == {"judgebayes.cli.io"}
