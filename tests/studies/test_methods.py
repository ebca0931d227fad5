"""A study class's methods table (judgebayes/studies/methods.py): a method's options are the
keyword-only parameters of its registered function.
"""

import judgebayes as jb
from judgebayes.studies import STUDIES


def test_method_options_come_from_the_registered_signature():
    import inspect

    for cls in STUDIES.values():
        for m in cls.methods.values():
            params = inspect.signature(m.fn).parameters
            kw = [n for n, v in params.items() if v.kind == v.KEYWORD_ONLY]
            assert m.options == tuple(n for n in kw if n != "random_seed")
    # a study class registers a method once, and fit() takes exactly its keywords
    assert "importance" in jb.AccuracyStudy.methods["laplace"].options
    assert jb.ValidatorPanel.methods["nuts"].options[:2] == ("sampler", "log_likelihood")
