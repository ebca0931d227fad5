"""What a check is (judgebayes/checks/base.py): a check's rows Holm-adjusted (against
statsmodels), flagged below alpha, where it applies, and a report's failures and warnings
by whether the fit's model makes the assumption."""

import numpy as np
from statsmodels.stats.multitest import multipletests

import judgebayes as jb
from judgebayes.checks.base import Check, CheckReport

P_RAW = [0.001, 0.02, 0.3, 0.004]


def _rows(study, fit, *, alpha):
    return [
        {"unit": f"u{i}", "observed": 1.0, "expected": 0.0, "p_raw": p} for i, p in enumerate(P_RAW)
    ]


def test_a_checks_rows_are_holm_adjusted_and_flagged_below_alpha():
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    check = Check("toy", _rows, applies_to=("accuracy.binary",), assumption="a toy")
    res = check(study, alpha=0.01)
    want = multipletests(P_RAW, method="holm")[1]  # 0.004, 0.04, 0.3, 0.012
    np.testing.assert_allclose(res.table["p_value"], want)
    assert res.table["flagged"].tolist() == [True, False, False, False]
    assert list(res.table.columns[:7]) == list(jb.checks.CHECK_COLUMNS)
    assert not res.passed and res.relevant  # no fit: the data's own assumption
    # where it applies: its study keys, and a fit with draws for a check that needs one
    assert check.applies(study) and not Check("x", _rows, ("scores",), "x").applies(study)
    draws = Check("d", _rows, ("accuracy.binary",), "d", needs="draws")
    assert not draws.applies(study) and not draws.applies(study, study.fit("closed_form"))


def test_a_report_splits_failures_from_warnings_by_relevance():
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    fit = study.fit("closed_form")
    made = Check("made", _rows, ("accuracy.binary",), "made")
    not_made = Check("not_made", _rows, ("accuracy.binary",), "not made", tests=lambda s, f: False)
    report = CheckReport([made(study, fit), not_made(study, fit)])
    assert [r.check for r in report.failures] == ["made"]
    assert [r.check for r in report.warnings] == ["not_made"]
    assert not report.passed and report["not_made"].check == "not_made"
    assert len(report.flagged) == 2 and len(report.table) == 8
