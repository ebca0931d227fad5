"""lm-eval-harness samples and promptfoo results (judgebayes/data/logs/harness.py): the
tools need an API or a GPU to run, so their files are written here in the formats of
their own writers.
"""

import json

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.errors import ClusteringWarning, InputError
from tests.eval_logs import promptfoo_result


# ------------------------------------------------------------------ lm-eval-harness
def _lm_eval_record(doc_id, acc, flt="none"):
    # the keys lm_eval/evaluator.py writes per sample with --log_samples (v0.4)
    return {
        "doc_id": doc_id,
        "doc": {"question": f"q{doc_id}"},
        "target": "A",
        "arguments": [["prompt", " A"]],
        "resps": [[["-1.2", False]]],
        "filtered_resps": [["-1.2", False]],
        "filter": flt,
        "metrics": ["acc"],
        "doc_hash": "h",
        "prompt_hash": "p",
        "target_hash": "t",
        "acc": acc,
    }


def test_lm_eval_items(tmp_path, capsys):
    model_dir = tmp_path / "my-model"
    model_dir.mkdir()
    accs = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    with open(model_dir / "samples_hellaswag_2026-11-23T01-00-00.jsonl", "w") as f:
        for i, a in enumerate(accs):
            f.write(json.dumps(_lm_eval_record(i, a)) + "\n")
    labels = pd.DataFrame({"sample_id": ["0", "1", "4"], "human": [1, 1, 0]})
    df = jb.io.lm_eval_items(model_dir, labels, metric="acc")
    assert df["system"].unique().tolist() == ["my-model"]
    assert df["task"].unique().tolist() == ["hellaswag"]  # one task: lm-eval's own doc ids
    assert df["sample_id"].tolist() == [str(i) for i in range(len(accs))]
    np.testing.assert_array_equal(df["judge"], accs)
    np.testing.assert_array_equal(df["human"], [1, 1, np.nan, np.nan, 0, np.nan])
    with pytest.raises(InputError, match="no metric 'exact_match'"):
        jb.io.lm_eval_items(model_dir, metric="exact_match")
    assert main(["accuracy", "--lm-eval", str(model_dir)]) == 2
    assert "needs --metric" in capsys.readouterr().err


def test_lm_eval_of_several_filters_asks_for_one(tmp_path):
    # a task logged with two filters (gsm8k's strict-match and flexible-extract): one record
    # per filter and sample; without filter= the verdicts would be two per output
    model_dir = tmp_path / "m"
    model_dir.mkdir()
    with open(model_dir / "samples_gsm8k_2026-11-23T01-00-00.jsonl", "w") as f:
        for i, (strict, flexible) in enumerate([(1.0, 1.0), (0.0, 1.0), (0.0, 0.0)]):
            f.write(json.dumps(_lm_eval_record(i, strict, "strict-match")) + "\n")
            f.write(json.dumps(_lm_eval_record(i, flexible, "flexible-extract")) + "\n")
    with pytest.raises(
        InputError, match="2 filters, \\['flexible-extract', 'strict-match'\\]"
    ) as err:
        jb.io.lm_eval_items(model_dir, metric="acc")
    assert err.value.field == "filter"
    df = jb.io.lm_eval_items(model_dir, metric="acc", filter="flexible-extract")
    np.testing.assert_array_equal(df["judge"], [1, 1, 0])
    with pytest.raises(InputError, match="no sample records with filter 'strict'"):
        jb.io.lm_eval_items(model_dir, metric="acc", filter="strict")


def test_lm_eval_positive_must_be_a_value_of_the_metric(tmp_path):
    # a metric with partial credit (0, 0.5, 1): positive= names the full mark
    model_dir = tmp_path / "my-model"
    model_dir.mkdir()
    marks = [1.0, 0.5, 0.0, 1.0, 0.5]
    with open(model_dir / "samples_squad_2026-11-23T01-00-00.jsonl", "w") as f:
        for i, a in enumerate(marks):
            f.write(json.dumps(_lm_eval_record(i, a)) + "\n")
    df = jb.io.lm_eval_items(model_dir, metric="acc", positive=1)
    np.testing.assert_array_equal(df["judge"], [1, 0, 0, 1, 0])
    with pytest.raises(InputError) as err:  # no mark is 2: every verdict would be 0
        jb.io.lm_eval_items(model_dir, metric="acc", positive=2)
    assert err.value.field == "positive" and err.value.value == 2
    assert "[0.0, 0.5, 1.0]" in str(err.value) and "metric acc" in str(err.value)


def test_lm_eval_output_path_of_many_models_is_a_leaderboard(tmp_path):
    # lm-eval writes <output_path>/<model>/samples_<task>_<time>.jsonl per model
    rng = np.random.default_rng(0)
    accs = {}
    for m, rate in (("model-a", 0.8), ("model-b", 0.5), ("model-c", 0.3)):
        (tmp_path / m).mkdir()
        accs[m] = (rng.random(40) < rate).astype(float)
        with open(tmp_path / m / "samples_arc_2026-11-23T01-00-00.jsonl", "w") as f:
            for i, a in enumerate(accs[m]):
                f.write(json.dumps(_lm_eval_record(i, a)) + "\n")
    frame = jb.io.lm_eval_items(tmp_path, metric="acc")
    assert sorted(frame["system"].unique()) == ["model-a", "model-b", "model-c"]
    study = jb.LeaderboardStudy.from_frame(frame, item="sample_id", score="judge")
    fit = study.fit("closed_form")
    want = [accs[m].mean() for m in ("model-a", "model-b", "model-c")]
    np.testing.assert_allclose(fit.interval()["estimate"], want, atol=1e-12)


def test_lm_eval_tasks_are_kept_apart_and_named(tmp_path):
    # two models, each run on two tasks whose doc ids coincide (each task numbers its own)
    rng = np.random.default_rng(1)
    accs = {}
    for m in ("model-a", "model-b"):
        (tmp_path / m).mkdir()
        for task, rate in (("arc_easy", 0.9), ("gsm8k", 0.2)):
            accs[m, task] = (rng.random(12) < rate).astype(float)
            with open(tmp_path / m / f"samples_{task}_2026-11-23T01-00-00.jsonl", "w") as f:
                for i, a in enumerate(accs[m, task]):
                    f.write(json.dumps(_lm_eval_record(i, a)) + "\n")
    frame = jb.io.lm_eval_items(tmp_path, metric="acc")
    assert len(frame) == 2 * 2 * 12 and set(frame["task"]) == {"arc_easy", "gsm8k"}
    got = frame.set_index(["system", "task", "sample_id"])["judge"]
    for (m, task), a in accs.items():
        ids = [f"{task}/{i}" for i in range(12)]
        np.testing.assert_array_equal(got.loc[m, task].loc[ids].to_numpy(), a)
    # the leaderboard sees the task column as a grouping of the items it was not told of
    study = jb.LeaderboardStudy.from_frame(frame, item="sample_id", score="judge")
    assert study.data.item_groups["task"].size == 24
    assert sorted(study.data.item_groups) == ["task"]
    with pytest.warns(ClusteringWarning, match="'task'"):
        jb.leaderboard(frame, item="sample_id", score="judge")


def test_promptfoo_items(tmp_path):
    recs = [
        promptfoo_result(0, "gpt-a", True),
        promptfoo_result(1, "gpt-a", False),
        promptfoo_result(2, "gpt-a", True, other_pass=False),
        promptfoo_result(0, "gpt-b", True),
        promptfoo_result(1, "gpt-b", True, error=True),
        promptfoo_result(2, "gpt-b", False),
    ]
    path = tmp_path / "results.json"
    doc = {"evalId": "e1", "results": {"version": 3, "results": recs, "stats": {}}}
    path.write_text(json.dumps(doc))
    rubric = jb.io.promptfoo_items(path, assertion="llm-rubric")
    np.testing.assert_array_equal(rubric["judge"], [1, 0, 1, 1, np.nan, 0])
    overall = jb.io.promptfoo_items(path)
    np.testing.assert_array_equal(overall["judge"], [1, 0, 0, 1, np.nan, 0])
    assert rubric["system"].tolist() == ["gpt-a"] * 3 + ["gpt-b"] * 3
    with pytest.raises(InputError, match="no 'factuality' assertion"):
        jb.io.promptfoo_items(path, assertion="factuality")
    path.write_text(json.dumps({"results": []}))
    with pytest.raises(InputError, match="not promptfoo output"):
        jb.io.promptfoo_items(path)


def test_promptfoo_grading_scores(tmp_path):
    recs = [
        promptfoo_result(0, "gpt-a", True),
        promptfoo_result(1, "gpt-a", False),
        promptfoo_result(0, "gpt-b", True, error=True),
    ]
    recs[0]["gradingResult"]["score"] = 0.8
    recs[1]["gradingResult"]["componentResults"][0]["score"] = 0.25
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"version": 3, "results": recs}}))
    overall = jb.io.promptfoo_items(path, scores=True)
    np.testing.assert_array_equal(overall["score"], [0.8, 0.0, np.nan])
    rubric = jb.io.promptfoo_items(path, assertion="llm-rubric", scores=True)
    np.testing.assert_array_equal(rubric["score"], [1.0, 0.25, np.nan])
