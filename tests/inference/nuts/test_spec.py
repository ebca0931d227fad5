"""A model's spec and the interpreted evaluations (judgebayes/inference/nuts/spec.py): the
compiler is restored after an interpreted block, even on an error.
"""

import pytest

from judgebayes.inference.nuts import interpreted


def test_the_compiler_is_restored_after_an_interpreted_block_even_on_error():
    import pytensor

    before = pytensor.config.cxx
    with pytest.raises(RuntimeError), interpreted():
        assert pytensor.config.cxx == ""
        raise RuntimeError("inside")
    assert pytensor.config.cxx == before
