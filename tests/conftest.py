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
def inspect_logs(tmp_path_factory):
    """Inspect AI's logs of two mock systems (tests/eval_logs.py), written once a session:
    the tests of the Inspect reader and of the labels attached to its items read them."""
    pytest.importorskip("inspect_ai")
    from tests.eval_logs import write_inspect_logs

    return write_inspect_logs(tmp_path_factory.mktemp("inspect_logs"))


@pytest.fixture(scope="session")
def panel_sim():
    """A simulated panel of 14 generators x 14 validators, 200 outputs each (seed 3): the
    point methods' data in tests/studies/panel/, tests/cli/test_panel_cli.py."""
    from judgebayes.simulate.panel import simulate_panel

    return simulate_panel(seed=3, n_outputs=200)


@pytest.fixture(scope="session")
def beyond_consensus():
    """The real Beyond Consensus panel (the shared data folder): the study, its generators
    and each annotated generator's human valid share."""
    from judgebayes.datasets.beyond_consensus import beyond_consensus_panel
    from judgebayes.studies.panel import ValidatorPanel

    cells, ann = beyond_consensus_panel()
    panel = ValidatorPanel.from_frames(cells, ann[["generator", "n_annotated", "n_valid_human"]])
    gens = panel.data.generators
    # the truth: each annotated generator's human valid share
    truth = dict(zip(ann["generator"], ann["human_precision"], strict=True))
    return panel, gens, truth


@pytest.fixture(scope="session")
def pandalm():
    """PandaLM's judged comparisons as a judge-error ranking (every human preference, and
    200 random instances of them), and the all-human ranking's qualities (naive fit)."""
    import numpy as np

    from judgebayes.datasets import pandalm_comparisons, pandalm_judged
    from judgebayes.studies.ranking import PairwiseRanking

    full = PairwiseRanking.from_frames(pandalm_judged(), human="human", instance="idx")
    mask = np.zeros(full.channel.n_instances, dtype=bool)
    mask[np.random.default_rng(0).choice(full.channel.n_instances, 200, replace=False)] = True
    ref = PairwiseRanking.from_frames(pandalm_comparisons("human")).fit("naive", random_seed=0)
    return full, full.with_labelled(mask), ref.point


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
