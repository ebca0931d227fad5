"""Which worker runs which tests: the test groups of pytest-xdist (tests/conftest.py).

A group runs on one worker, so its session fixtures and compiled models are built once.
Every test is in its file's group (a study's contract cases are in its family's file:
tests/contract.py), except the README's parts, each a group of its own so that they spread
over the workers, or beside the family file whose model a part fits (:data:`README_BESIDE`).
"""

README = "tests/test_readme.py"
#: a README part whose code holds this text fits a family test's model on the same data:
#: it runs beside that file's tests, where the model is compiled already
README_BESIDE = {'.fit("judge_error"': "tests/studies/test_ranking_channel.py"}


def group_of(nodeid: str) -> str:
    """The group of a test (its node id: ``path::name[param-ids]``)."""
    path, _, rest = nodeid.partition("::")
    _, _, params = rest.partition("[")
    if path != README or not params:
        return path
    if params.startswith("part"):
        beside = _readme_beside(int(params.rstrip("]")[4:]))
        if beside:
            return beside
    return f"{path}[{params}"


def _readme_beside(part: int) -> str | None:
    """The family file a README part runs beside (:data:`README_BESIDE`), if any."""
    from tests.readme import PARTS

    code = "\n".join(PARTS[part][2]) if part < len(PARTS) else ""
    return next((f for text, f in README_BESIDE.items() if text in code), None)
