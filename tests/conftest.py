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
# models, so each model compiles once.  ``all_fits`` samples NUTS for real (for the tests
# that read a posterior's numbers); the contract's own cases take ``mock_fits``, whose MCMC
# methods draw the prior instead (the contract tests what the code around the sampler
# makes of a trace, not the sampler).


@pytest.fixture(scope="session")
def studies():
    from tests.contract import Studies

    return Studies()


@pytest.fixture(scope="session")
def all_fits(studies):
    from tests.contract import Fits

    return Fits(studies)


@pytest.fixture(scope="session")
def mock_fits(studies):
    from tests.contract import Fits

    return Fits(studies, mock=True)


@pytest.fixture
def mock_nuts():
    """NUTS replaced by draws of the prior shaped as a posterior while the test runs
    (``tests.helpers.prior_as_posterior``): for a test of the code around the sampler
    (tables, save and load, plots, a command's output), never of a posterior's numbers.
    """
    from tests.helpers import prior_as_posterior

    with prior_as_posterior():
        yield
