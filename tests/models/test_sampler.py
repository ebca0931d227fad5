"""Sampler settings as data (judgebayes/models/sampler.py): the defaults, and a bad setting
is an InputError naming its field.
"""

import pytest

from judgebayes.models.sampler import SamplerConfig
from tests.models.logp import refused_setting

BAD = [
    ("draws", 0),
    ("draws", 10.0),
    ("draws", True),
    ("tune", -1),
    ("tune", "500"),
    ("chains", 0),
    ("target_accept", 0.0),
    ("target_accept", 1.0),
    ("target_accept", float("nan")),
    ("target_accept", True),
    ("backend", "numpyro"),
]


def test_the_defaults():
    cfg = SamplerConfig()
    assert (cfg.draws, cfg.tune, cfg.chains, cfg.target_accept, cfg.backend) == (
        1000, 1000, 4, 0.8, "nutpie",
    )  # fmt: skip
    assert SamplerConfig(tune=0, chains=1, target_accept=0.99, backend="pymc").tune == 0


@pytest.mark.parametrize(("field", "value"), BAD, ids=[f"{f}={v!r}" for f, v in BAD])
def test_a_bad_setting_is_an_input_error_naming_its_field(field, value):
    refused_setting(SamplerConfig, "sampler", field, value)
