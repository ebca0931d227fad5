"""Replicates of a two-frame study (judgebayes/studies/accuracy/replicates.py): a replicate
without test items is NaN and counted, and the contract's cases.
"""

import warnings

import pytest

from judgebayes.errors import ConvergenceWarning, InputError
from tests.contract import EXAMPLES, SMALL, ContractTests


def test_replicate_fits_mark_an_undefined_replicate(mock_nuts):
    # a replicate without data is NaN and counted in the notes, by every method: NUTS's
    # trace is prior draws (what is tested is what the fit makes of a replicate)
    rs = EXAMPLES["accuracy.replicates"]()
    for m in ("closed_form", "laplace", "nuts"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            f = rs.fit(m, random_seed=0, **({"sampler": SMALL} if m == "nuts" else {}))
        iv = f.interval()
        assert iv.loc["2"].isna().all()  # no test item: NaN, counted in notes
        assert iv.loc[["0", "1"]].notna().all().all()
        assert any("1 of 3 replicates" in n for n in f.notes)
    with pytest.raises(InputError, match="ReplicateStudy"):
        EXAMPLES["accuracy.replicates"]().fit("exact")


class TestContract(ContractTests):
    keys = ("accuracy.replicates",)
