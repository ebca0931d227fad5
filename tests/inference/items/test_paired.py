"""The exact posterior of systems answering the same prompts
(judgebayes/inference/items/paired.py): the prompt table by hand, every prompt labelled on
both systems against the conjugate posterior's mean written out, and its refusals."""

import numpy as np
import pandas as pd
import pytest

from judgebayes.data.items import items_from_frame
from judgebayes.errors import MethodRefused
from judgebayes.inference.items.paired import exact_paired_draws, prompt_table


def _frame(judge_a, judge_b, human_a, human_b):
    n = len(judge_a)
    return pd.DataFrame(
        {
            "prompt": np.tile(np.arange(n), 2),
            "system": np.repeat(["A", "B"], n),
            "judge": np.r_[judge_a, judge_b],
            "human": np.r_[human_a, human_b],
        }
    )


def test_the_prompt_table_holds_each_prompts_verdicts_and_labels():
    f = _frame([1, 0, 1], [0, 0, 1], [1, np.nan, np.nan], [0, np.nan, 1])
    v, h = prompt_table(items_from_frame(f, system="system", item="prompt"))
    assert v.tolist() == [[1, 0], [0, 0], [1, 1]]
    assert h.tolist() == [[1, 0], [-1, -1], [-1, 1]]  # -1: no label


def test_fully_labelled_prompts_give_the_conjugate_posterior_mean():
    # every prompt labelled on both systems: no importance weight, the posterior is
    # Dirichlet(2^-1 + n_w) over the 4 joint verdicts and Dirichlet(2^-3 + c_w.) over the
    # joint truths given each, so E[theta_A] = sum_w E[s_w] sum_t E[r_wt] t_A
    rng = np.random.default_rng(0)
    truth = rng.random((60, 2)) < [0.7, 0.5]
    verdict = np.where(truth, rng.random((60, 2)) < 0.9, rng.random((60, 2)) < 0.2)
    f = _frame(verdict[:, 0] * 1.0, verdict[:, 1] * 1.0, truth[:, 0] * 1.0, truth[:, 1] * 1.0)
    out = exact_paired_draws(
        items_from_frame(f, system="system", item="prompt"), 4000, np.random.default_rng(1)
    )
    states = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    w = verdict[:, 0] * 2 + verdict[:, 1]
    t = truth[:, 0] * 2 + truth[:, 1]
    n_w = np.bincount(w, minlength=4)
    c = np.zeros((4, 4))
    np.add.at(c, (w, t), 1)
    share = (0.5 + n_w) / (2 + 60)
    given = (0.125 + c) / (0.5 + n_w[:, None])
    mean = share @ given @ states
    # 4000 draws of a posterior sd ~0.06: the mean's Monte-Carlo sd ~0.001
    np.testing.assert_allclose(out["theta"].mean(0), mean, atol=0.005)
    # the N prompts' rate is known exactly: every truth is labelled
    np.testing.assert_allclose(out["theta_items"], np.broadcast_to(truth.mean(0), (4000, 2)))
    assert out["n_partial"] == 0 and out["n_prompts"] == 60


def test_a_prompt_one_system_did_not_answer_is_refused_by_name():
    f = _frame([1, 0, 1], [0, 0, 1], [1, 0, 1], [0, 1, 1]).iloc[:-1]  # B skipped prompt 2
    with pytest.raises(MethodRefused, match="1 prompt") as e:
        exact_paired_draws(
            items_from_frame(f, system="system", item="prompt"), 100, np.random.default_rng(0)
        )
    assert e.value.field == "item"
