import os

import pytest
from hypothesis import HealthCheck, settings

# derandomised so that a CI run is reproducible; 'dev' explores more
settings.register_profile(
    "ci", max_examples=200, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# no progress bars in test output (notebook kernels inherit it); tests/inference/test_progress.py
# turns them on explicitly
os.environ.setdefault("JUDGEBAYES_PROGRESS", "0")


# The contract's examples and fits (tests/contract.py), shared by every test file of a
# worker: a study's contract cases run in its family's file, whose tests compile the same
# models, so each model compiles once.


@pytest.fixture(scope="session")
def studies():
    from tests.contract import Studies

    return Studies()


@pytest.fixture(scope="session")
def all_fits(studies):
    from tests.contract import Fits

    return Fits(studies)


@pytest.fixture(scope="session")
def inspect_logs(tmp_path_factory):
    """Inspect AI's logs of two mock systems (tests/eval_logs.py), written once a session:
    the tests of the Inspect reader and of the labels attached to its items read them."""
    pytest.importorskip("inspect_ai")
    from tests.eval_logs import write_inspect_logs

    return write_inspect_logs(tmp_path_factory.mktemp("inspect_logs"))
