import os

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


# Distribution: each group of tests (tests/groups.py) runs on one worker, so a group's
# session fixtures and compiled models are built once: a file is a group, and a study's
# contract cases join its family's file, which compiles the same models.  The scheduler is
# xdist's file scheduler with that grouping (in xdist's order: most tests first).  (xdist's own
# ``xdist_group`` markers do not reach its scheduler under pytest 9, whose node ids are no
# longer xdist's to rewrite.)


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadFileScheduling

    from tests.groups import group_of

    class GroupScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return GroupScheduling(config, log)


# The contract's examples and fits (tests/contract.py), shared by every test file of a
# worker: a study's contract cases run in its family's file, whose tests compile the same
# models, so each model compiles once.
import pytest  # noqa: E402


@pytest.fixture(scope="session")
def studies():
    from tests.contract import Studies

    return Studies()


@pytest.fixture(scope="session")
def all_fits(studies):
    from tests.contract import Fits

    return Fits(studies)
