"""Which worker runs which tests: the test groups of pytest-xdist (tests/conftest.py).

A group runs on one worker, so its session fixtures and compiled models are built once.
Every test is in its file's group, except the cases of the files in :data:`SPREAD` (each
its own group, or beside a family's file: :data:`README_BESIDE`) and the contract tests of
``test_base.py``, whose first parameter is a registered study: a study's cases run beside
its family's tests, which compile the same models (:data:`GROUPS`), and a study found
nowhere else is a group of its own.
"""

CONTRACT = "tests/studies/test_base.py"
#: files whose parametrised cases are groups of their own (long cases that compile
#: different models: one group would keep one worker busy while the other idles)
SPREAD = {"tests/test_readme.py"}
README = "tests/test_readme.py"
#: a README part whose code holds this text fits a family test's model on the same data:
#: it runs beside that file's tests, where the model is compiled already
README_BESIDE = {'.fit("judge_error"': "tests/studies/test_ranking_channel.py"}

#: the test file beside which a study's contract cases run
GROUPS = {
    "accuracy.binary": "tests/studies/test_accuracy.py",
    "accuracy.multiclass": "tests/studies/test_accuracy.py",
    "accuracy.replicates": CONTRACT,  # beside test_base.py's own replicate test
    "items.plain": "tests/studies/test_items.py",
    "items.covariates": "tests/studies/test_items.py",
    "items.paired": "tests/studies/test_items.py",
    "items.raters": "tests/studies/test_raters.py",
    "panel.hierarchical": "tests/studies/test_panel.py",
    "panel.pooled": "tests/studies/test_panel.py",
    "panel.overdispersed": "tests/studies/test_panel.py",
    "panel.leniency": "tests/studies/test_panel_leniency.py",
    "ranking": "tests/studies/test_ranking.py",
    "ranking.channel": "tests/studies/test_ranking_channel.py",
    "repeats": "tests/workflows/test_repeats.py",
    "scores": "tests/studies/test_scores.py",
}


def study_group(key: str) -> str:
    """The group of a study's contract cases."""
    return GROUPS.get(key, f"{CONTRACT}[{key}]")


def group_of(nodeid: str) -> str:
    """The group of a test (its node id: ``path::name[param-ids]``)."""
    path, _, rest = nodeid.partition("::")
    _, _, params = rest.partition("[")
    if path == README and params.startswith("part"):
        beside = _readme_beside(int(params.rstrip("]")[4:]))
        if beside:
            return beside
    if path in SPREAD and params:
        return f"{path}[{params}"
    if path != CONTRACT:
        return path
    return study_group(params.split("-")[0].rstrip("]")) if params else path


def _readme_beside(part: int) -> str | None:
    """The family file a README part runs beside (:data:`README_BESIDE`), if any."""
    from tests.readme import PARTS

    code = "\n".join(PARTS[part][1]) if part < len(PARTS) else ""
    return next((f for text, f in README_BESIDE.items() if text in code), None)
