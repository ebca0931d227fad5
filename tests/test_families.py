"""The family is the unit of the layout: each family is a folder under its name in every
layer it uses, the rest of a layer is the short list of code every family shares, and
frames are parsed in ``data/`` alone.

A new family adds a row to :data:`FAMILIES` and its folders; a module that fits no family
goes to its layer's :data:`SHARED` list, on purpose and in review.
"""

import ast
import pathlib

import judgebayes

ROOT = pathlib.Path(judgebayes.__file__).parent

CORE = ("data", "models", "inference", "studies", "checks")

# family -> the core layers it has a folder in
FAMILIES = {
    "accuracy": {"data", "models", "inference", "studies", "checks"},
    "items": {"data", "models", "inference", "studies", "checks"},
    "scores": {"data", "models", "inference", "studies", "checks"},
    "repeats": {"data", "models", "inference", "studies"},
    "panel": {"data", "models", "inference", "studies", "checks"},
    "ranking": {"data", "models", "inference", "studies", "checks"},
    "leaderboard": {"data", "models", "inference", "studies", "checks"},
    "agreement": {"data", "inference"},
    "monitor": {"data", "inference"},
}

# what a layer holds besides its families: the code every family shares
SHARED = {
    "data": {"frames", "large", "logs"},
    "models": {"sampler", "simplex"},
    "inference": {
        "nuts",
        "laplace",
        "executors",
        "progress",
        "registry",
        "multiplicity",
        "sequences",
        "stopping",
    },
    "studies": {"base", "methods", "notes", "archive"},
    "checks": {"base"},
}

# the frame readers' parsing helpers (judgebayes/data/frames.py and kin): called in data/ only
PARSING = {
    "as_pandas",
    "group_labels",
    "group_codes",
    "numeric_column",
    "binary_labels",
    "require_column",
    "require_roles",
    "distinct_roles",
    "column_values",
    "period_codes",
    "time_periods",
}


def _entries(layer: str) -> set[str]:
    folder = ROOT / layer
    names = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in folder.iterdir() if (p / "__init__.py").exists()}
    return names


def test_every_family_has_its_folder_in_each_layer_it_uses():
    missing = [
        f"judgebayes/{layer}/{family}/"
        for family, layers in FAMILIES.items()
        for layer in sorted(layers)
        if not (ROOT / layer / family / "__init__.py").exists()
    ]
    assert not missing, missing


def test_a_layer_holds_its_families_and_its_shared_code_only():
    stray = {}
    for layer in CORE:
        families = {f for f, layers in FAMILIES.items() if layer in layers}
        extra = _entries(layer) - families - SHARED[layer]
        if extra:
            stray[layer] = sorted(extra)
    # a family folder that the table does not declare for its layer is stray too
    assert not stray, f"declare these in FAMILIES or SHARED: {stray}"


def test_workflow_and_command_named_after_a_family_sit_under_its_name():
    # a workflow or command module of a family is named after it, not after a new stem
    for layer in ("workflows", "cli"):
        for name in _entries(layer):
            stem = name.split("_")[0]
            assert not (stem in FAMILIES and name != stem and f"{stem}s" != name), (
                f"judgebayes/{layer}/{name}: a family's {layer[:-1]} is named {stem}"
            )


def _parsing_calls(path: pathlib.Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            if name in PARSING:
                found.add(name)
    return found


def test_frames_are_parsed_in_data_only():
    outside = {
        str(p.relative_to(ROOT.parent)): sorted(calls)
        for p in ROOT.rglob("*.py")
        if p.relative_to(ROOT).parts[0] not in ("data",) and (calls := _parsing_calls(p))
    }
    assert not outside, outside
