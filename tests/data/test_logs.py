"""Eval-log adapters (judgebayes.io): files written by the tools, or their documented formats.

The Inspect AI logs are written in the test by Inspect itself (the offline ``mockllm``
provider answers, a mock grader gives a model-graded verdict the test chooses per sample).
lm-eval, promptfoo, MT-Bench and Chatbot Arena need an API or a GPU to run, so their files
are written here in the formats of the tools' own writers (cited in data/logs.py).
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.errors import ClusteringWarning, InputError, JudgeBayesWarning

# the grade the mock grader gives each sample's answer, per system: C correct, I incorrect;
# "X" is a grader reply without a grade (Inspect leaves the sample unscored)
PLAN = {
    "mockllm/sys-a": "CCICCICIICCCCICIXCCI",
    "mockllm/sys-b": "CIIICIICIIICCICIIIXC",
}
N = 20


def _reply(text):
    """A mock model's reply, with a usage so Inspect does not fetch a tokenizer."""
    from inspect_ai.model import ModelOutput, ModelUsage

    out = ModelOutput.from_content(model="mockllm", content=text)
    out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return out


def _answer_for(system):
    """The mock system's answer to "question <i>": "<system> answer <i>"."""

    def answer(messages, tools, tool_choice, config):
        return _reply(f"{system} answer {int(messages[-1].text.split()[-1])}")

    return answer


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory):
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import model_graded_qa
    from inspect_ai.solver import generate

    reply, answer_for = _reply, _answer_for

    def grader(messages, tools, tool_choice, config):
        prompt = messages[-1].text
        # the grading prompt quotes the submission: "<system> answer <i>"
        sub = prompt.split("[Submission]: ")[1].split("\n")[0].split()
        g = PLAN[sub[0]][int(sub[2])]
        return reply("Checked." if g == "X" else f"Checked.\nGRADE: {g}")

    log_dir = tmp_path_factory.mktemp("inspect_logs")
    task = Task(
        dataset=[Sample(id=f"q{i}", input=f"question {i}", target="42") for i in range(N)],
        solver=generate(),
        scorer=model_graded_qa(model=get_model("mockllm/grader", custom_outputs=grader)),
    )
    models = [get_model(s, custom_outputs=answer_for(s)) for s in PLAN]
    logs = inspect_eval(task, model=models, log_dir=str(log_dir), display="none")
    assert all(lg.status == "success" for lg in logs)
    return log_dir


def _expected_items(labels: dict) -> pd.DataFrame:
    """The items frame written by hand from the grading plan (independent of the adapter)."""
    rows = []
    for system, plan in PLAN.items():
        for i, g in enumerate(plan):
            judge = {"C": 1.0, "I": 0.0, "X": np.nan}[g]
            rows.append(
                {
                    "sample_id": f"q{i}",
                    "system": system,
                    "judge": judge,
                    "human": labels.get((system, f"q{i}"), np.nan),
                }
            )
    return pd.DataFrame(rows)


LABELS = {
    ("mockllm/sys-a", "q0"): 1,
    ("mockllm/sys-a", "q2"): 0,
    ("mockllm/sys-a", "q3"): 1,
    ("mockllm/sys-a", "q5"): 1,
    ("mockllm/sys-a", "q7"): 0,
    ("mockllm/sys-a", "q10"): 1,
    ("mockllm/sys-b", "q0"): 1,
    ("mockllm/sys-b", "q1"): 0,
    ("mockllm/sys-b", "q4"): 1,
    ("mockllm/sys-b", "q5"): 0,
    ("mockllm/sys-b", "q11"): 1,
    ("mockllm/sys-b", "q13"): 0,
}


def _labels_frame():
    return pd.DataFrame([{"system": s, "sample_id": i, "human": h} for (s, i), h in LABELS.items()])


def test_inspect_items_reads_the_graders_verdicts(inspect_logs):
    df = jb.io.inspect_items(inspect_logs, labels=_labels_frame())
    got = df.set_index(["system", "sample_id"]).sort_index()
    want = _expected_items(LABELS).set_index(["system", "sample_id"]).sort_index()
    assert len(got) == 2 * N
    np.testing.assert_array_equal(got["judge"].to_numpy(), want["judge"].to_numpy())
    np.testing.assert_array_equal(got["human"].to_numpy(float), want["human"].to_numpy(float))
    assert set(df["epoch"]) == {1}
    # the unscored samples ("X") are missing verdicts, counted by the study, not dropped
    study = jb.AccuracyStudy.from_items(df, system="system")
    assert study.data.n_missing.tolist() == [1, 1]


def test_inspect_cli_end_to_end_matches_the_hand_made_frame(inspect_logs, tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    _labels_frame().to_csv(labels, index=False)
    argv = ["accuracy", "--inspect", str(inspect_logs), "--labels", str(labels)]
    assert main([*argv, "--method", "closed-form", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["system"]: r for r in out["comparison"]}
    ref = (
        jb.AccuracyStudy.from_items(_expected_items(LABELS), system="system")
        .fit("closed_form")
        .interval()
    )
    for system in PLAN:
        assert rows[system]["estimate"] == pytest.approx(ref.loc[system, "estimate"], abs=1e-12)
        assert rows[system]["lower"] == pytest.approx(ref.loc[system, "lower"], abs=1e-12)
        assert rows[system]["upper"] == pytest.approx(ref.loc[system, "upper"], abs=1e-12)


def test_inspect_labels_must_name_the_output(inspect_logs, tmp_path, capsys):
    lab = _labels_frame()
    with pytest.raises(InputError, match="add a 'system' column"):
        jb.io.inspect_items(inspect_logs, labels=lab.drop(columns="system"))
    with pytest.raises(InputError, match="match no output"):
        jb.io.inspect_items(
            inspect_logs, labels=pd.concat([lab, lab.iloc[:1].assign(sample_id="q99")])
        )
    with pytest.raises(InputError, match="two labels for one output"):
        jb.io.inspect_items(inspect_logs, labels=pd.concat([lab, lab.iloc[:1]]))
    with pytest.raises(InputError, match="no scorer 'rubric'"):
        jb.io.inspect_items(inspect_logs, scorer="rubric")
    not_a_log = tmp_path / "x.json"
    not_a_log.write_text("{}")
    with pytest.raises(InputError, match="not an Inspect AI eval log"):
        jb.io.inspect_items(not_a_log)
    assert main(["accuracy", "--inspect", str(inspect_logs), "items.csv"]) == 2
    assert "give one source" in capsys.readouterr().err


def test_a_positive_no_verdict_takes_is_refused(inspect_logs):
    # positive= names the grades meaning correct; one the logs never give would read every
    # verdict as incorrect
    with pytest.raises(InputError) as err:
        jb.io.inspect_items(inspect_logs, positive="P")
    assert err.value.field == "positive" and err.value.value == "P"
    assert "positive='P'" in str(err.value) and "['C', 'I']" in str(err.value)
    # a partial grade named beside C, though these logs hold none: C correct, I not
    df = jb.io.inspect_items(inspect_logs, positive=["C", "P"])
    got = df.set_index(["system", "sample_id"]).sort_index()["judge"]
    want = _expected_items({}).set_index(["system", "sample_id"]).sort_index()["judge"]
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())


@pytest.mark.parametrize(
    ("bad", "got"), [(None, "NoneType"), (3, "int"), ([3], "list holding int"), (b"x", "bytes")]
)
def test_a_source_that_is_no_path_is_named_with_its_type(bad, got):
    # before: pathlib's TypeError ("argument should be a str or an os.PathLike object")
    pytest.importorskip("inspect_ai")
    readers = [
        (lambda: jb.io.inspect_items(bad), "log"),
        (lambda: jb.io.lm_eval_items(bad, metric="acc"), "samples"),
        (lambda: jb.io.promptfoo_items(bad), "results"),
    ]
    for read, field in readers:
        with pytest.raises(InputError) as err:
            read()
        assert err.value.field == field and err.value.value == got.split()[-1]
        assert str(err.value).startswith(f"{field} must be ") and f"got {got}" in str(err.value)


def test_a_directory_is_searched_below_for_logs_and_other_json_is_skipped(inspect_logs, tmp_path):
    # a folder of runs: one model's log (.eval) in a subfolder, the other's written by
    # Inspect as JSON two levels down, beside a labels file and a config in JSON
    from inspect_ai.log import read_eval_log, write_eval_log

    a, b = sorted(inspect_logs.glob("*.eval"))
    top = tmp_path / "runs"
    (top / "run-1").mkdir(parents=True)
    (top / "run-2" / "json").mkdir(parents=True)
    (top / "run-1" / a.name).write_bytes(a.read_bytes())
    write_eval_log(read_eval_log(str(b)), str(top / "run-2" / "json" / "log.json"), "json")
    (top / "labels.json").write_text(_labels_frame().to_json(orient="records"))
    (top / "run-2" / "config.json").write_text(json.dumps({"model": "sys-b"}))
    got = jb.io.inspect_items(top, labels=_labels_frame())
    want = jb.io.inspect_items(inspect_logs, labels=_labels_frame())
    key = ["system", "sample_id"]
    pd.testing.assert_frame_equal(
        got.sort_values(key).reset_index(drop=True), want.sort_values(key).reset_index(drop=True)
    )
    # a folder with no log at all names the JSON files that are not logs
    (top / "run-1" / a.name).unlink()
    (top / "run-2" / "json" / "log.json").unlink()
    with pytest.raises(InputError, match="holds no Inspect AI eval log") as err:
        jb.io.inspect_items(top)
    assert err.value.field == "log" and err.value.value == str(top)
    assert "labels.json" in str(err.value) and "config.json" in str(err.value)
    # a JSON file named on its own must be a log
    with pytest.raises(InputError, match="not an Inspect AI eval log"):
        jb.io.inspect_items(top / "labels.json")


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


# ------------------------------------------------------------------ promptfoo
def _promptfoo_result(test_idx, provider, rubric_pass, other_pass=True, error=False):
    # promptfoo's EvaluateResult (src/types): provider, testIdx, promptIdx, gradingResult
    rec = {
        "provider": {"id": f"openai:{provider}", "label": provider},
        "prompt": {"raw": "Answer: {{q}}", "label": "p"},
        "vars": {"q": f"question {test_idx}"},
        "testIdx": test_idx,
        "promptIdx": 0,
        "success": rubric_pass and other_pass,
        "score": float(rubric_pass),
        "latencyMs": 12,
    }
    if error:
        rec["error"] = "API error"
        rec["success"] = False
        return rec
    rec["gradingResult"] = {
        "pass": rubric_pass and other_pass,
        "score": float(rubric_pass),
        "reason": "graded",
        "componentResults": [
            {"pass": rubric_pass, "score": 1.0, "assertion": {"type": "llm-rubric", "value": "ok"}},
            {"pass": other_pass, "score": 1.0, "assertion": {"type": "contains", "value": "x"}},
        ],
    }
    return rec


def test_promptfoo_items(tmp_path):
    recs = [
        _promptfoo_result(0, "gpt-a", True),
        _promptfoo_result(1, "gpt-a", False),
        _promptfoo_result(2, "gpt-a", True, other_pass=False),
        _promptfoo_result(0, "gpt-b", True),
        _promptfoo_result(1, "gpt-b", True, error=True),
        _promptfoo_result(2, "gpt-b", False),
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


# ------------------------------------------------------------------ MT-Bench, Chatbot Arena
def test_mt_bench_pairs_both_orders_ties_and_errors(tmp_path):
    # FastChat llm_judge/common.py play_a_match_pair: g1 shows model_1 first, g2 model_2
    recs = [
        {"question_id": 81, "model_1": "vicuna", "model_2": "alpaca", "g1_winner": "model_1",
         "g2_winner": "model_1", "judge": ["gpt-4", "pair-v2"], "turn": 1},
        {"question_id": 82, "model_1": "vicuna", "model_2": "alpaca", "g1_winner": "model_1",
         "g2_winner": "model_2", "judge": ["gpt-4", "pair-v2"], "turn": 1},
        {"question_id": 83, "model_1": "alpaca", "model_2": "llama", "g1_winner": "tie",
         "g2_winner": "error", "judge": ["gpt-4", "pair-v2"], "turn": 1},
    ]  # fmt: skip
    path = tmp_path / "gpt-4_pair.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs))
    with pytest.warns(JudgeBayesWarning, match="1 verdict"):
        df = jb.io.mt_bench_pairs(path)
    assert df.attrs["n_missing"] == 1
    got = list(zip(df["first"], df["second"], df["winner"], strict=True))
    assert got == [
        ("vicuna", "alpaca", "vicuna"),
        ("alpaca", "vicuna", "vicuna"),
        ("vicuna", "alpaca", "vicuna"),
        ("alpaca", "vicuna", "alpaca"),
        ("alpaca", "llama", ""),
    ]
    assert set(df["judge"]) == {"gpt-4/pair-v2"}
    data = jb.PairwiseRanking.from_frames(df).data
    assert data.y.size == 5 and data.n_ties == 1

    human = tmp_path / "human.jsonl"  # the MT-Bench human judgments: model_a shown first
    human.write_text(
        json.dumps({"question_id": 81, "model_a": "gpt-4", "model_b": "claude-v1",
                    "winner": "model_b", "judge": "expert_0", "turn": 1})
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = jb.io.mt_bench_pairs(human)
    assert h.iloc[0][["first", "second", "winner", "judge"]].tolist() == [
        "gpt-4", "claude-v1", "claude-v1", "expert_0"
    ]  # fmt: skip


def test_arena_pairs_with_token_lengths(tmp_path):
    battles = [
        {"model_a": "m1", "model_b": "m2", "winner": "model_a", "turn": 1,
         "conv_metadata": {"sum_assistant_a_tokens": 300, "sum_assistant_b_tokens": 120}},
        {"model_a": "m2", "model_b": "m1", "winner": "tie (bothbad)", "turn": 1,
         "conv_metadata": {"sum_assistant_a_tokens": 90, "sum_assistant_b_tokens": 200}},
        {"model_a": "m3", "model_b": "m1", "winner": "model_b", "turn": 2,
         "conv_metadata": {"sum_assistant_a_tokens": 50, "sum_assistant_b_tokens": 400}},
        {"model_a": "m2", "model_b": "m3", "winner": "tie", "turn": 1,
         "conv_metadata": {"sum_assistant_a_tokens": 70, "sum_assistant_b_tokens": 80}},
    ]  # fmt: skip
    path = tmp_path / "clean_battle.json"
    path.write_text(json.dumps(battles))
    df = jb.io.arena_pairs(path)
    assert df["winner"].tolist() == ["m1", "", "m1", ""]
    assert df["tokens_first"].tolist() == [300, 90, 50, 70]
    data = jb.PairwiseRanking.from_frames(df, covariates=["tokens"]).data
    assert data.y.size == 4 and data.n_ties == 2
    # without token counts in every record, no covariate columns are invented
    del battles[0]["conv_metadata"]
    path.write_text("\n".join(json.dumps(b) for b in battles))
    assert "tokens_first" not in jb.io.arena_pairs(path).columns


def test_rank_cli_reads_mt_bench_judgments(tmp_path, capsys):
    models = ["vicuna", "alpaca", "llama", "koala"]
    rng = np.random.default_rng(3)
    recs = []
    for q in range(40):
        i, j = rng.choice(4, size=2, replace=False)
        g1, g2 = (rng.choice(["model_1", "model_2", "tie"], p=[0.5, 0.35, 0.15]) for _ in "12")
        recs.append(
            {"question_id": q, "model_1": models[i], "model_2": models[j], "g1_winner": g1,
             "g2_winner": g2 if q != 7 else "error", "judge": ["gpt-4", "pair-v2"], "turn": 1}
        )  # fmt: skip
    path = tmp_path / "gpt-4_pair.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs))
    argv = ["rank", str(path), "--source", "mt-bench", "--method", "naive", "--k", "2"]
    argv += ["--format", "json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "1 verdict(s) the judge did not give" in captured.err
    out = json.loads(captured.out)
    assert out["n_comparisons"] == 79  # 40 records x 2 orders, one "error" left out
    assert {r["item"] for r in out["items"]} == set(models)


def test_inspect_logs_of_two_models_on_the_same_samples_give_paired_contrasts(
    inspect_logs, tmp_path, capsys
):
    # two models ran the same 20 samples: item="sample_id" pairs them; the unscored
    # samples (one per model, different ones) leave 18 pairs
    df = jb.io.inspect_items(inspect_logs, labels=_labels_frame())
    paired = jb.AccuracyStudy.from_items(df, system="system", item="sample_id")
    assert paired.data.summary()["n_unpaired"].tolist() == [1, 1]
    c = paired.fit("closed_form").contrasts().set_index(["a", "b"])
    row = c.loc[("mockllm/sys-a", "mockllm/sys-b")]
    assert row["estimand"] == "items, paired on 18 items"
    labels = tmp_path / "labels.csv"
    _labels_frame().to_csv(labels, index=False)
    argv = ["accuracy", "--inspect", str(inspect_logs), "--labels", str(labels)]
    argv += ["--item", "sample_id", "--method", "closed-form", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    got = {(r["a"], r["b"]): r for r in out["pairwise"]}
    cli = got[("mockllm/sys-a", "mockllm/sys-b")]
    assert cli["estimand"] == "items, paired on 18 items"
    assert cli["difference"] == pytest.approx(row["difference"], abs=1e-12)
    assert cli["lower"] == pytest.approx(row["lower"], abs=1e-12)


def test_inspect_logs_of_several_models_are_a_leaderboard(inspect_logs):
    # each log's model a system; the samples a model's grader left unscored are blank
    df = jb.io.inspect_items(inspect_logs)
    study = jb.LeaderboardStudy.from_frame(df, item="sample_id", score="judge")
    assert study.data.n_missing == 2  # one unscored sample per model
    fit = study.fit("closed_form")
    wide = _expected_items({}).pivot(index="system", columns="sample_id", values="judge")
    want = wide.dropna(axis=1).mean(axis=1)  # the closed form pairs on items all answered
    np.testing.assert_allclose(fit.interval()["estimate"], want.loc[list(fit.units)])
    assert any("not answered by every system" in n for n in fit.notes)


# ------------------------------------------------------------------ several tasks
#: the grade per (task, system) of samples q0..q5 of two tasks whose sample ids coincide
TASK_PLAN = {
    ("arith", "mockllm/sys-a"): "CCICCI",
    ("arith", "mockllm/sys-b"): "ICIIIC",
    ("trivia", "mockllm/sys-a"): "IIICIC",
    ("trivia", "mockllm/sys-b"): "CCCCIC",
}


@pytest.fixture(scope="module")
def inspect_task_logs(tmp_path_factory):
    """Logs Inspect writes for two tasks, each with samples q0..q5, run by two models:
    the log file of each (task, system)."""
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import model_graded_qa
    from inspect_ai.solver import generate

    reply = _reply

    def answer_for(system):  # "<system> <task> <i>", so the grader knows whose answer
        def answer(messages, tools, tool_choice, config):
            task, _, i = messages[-1].text.split()
            return reply(f"{system} {task} {i}")

        return answer

    def grader(messages, tools, tool_choice, config):
        system, task, i = messages[-1].text.split("[Submission]: ")[1].split("\n")[0].split()
        return reply(f"Checked.\nGRADE: {TASK_PLAN[(task, system)][int(i)]}")

    scorer = model_graded_qa(model=get_model("mockllm/grader", custom_outputs=grader))
    tasks = [
        Task(
            name=name,
            dataset=[
                Sample(id=f"q{i}", input=f"{name} question {i}", target="42") for i in range(6)
            ],
            solver=generate(),
            scorer=scorer,
        )
        for name in ("arith", "trivia")
    ]
    systems = sorted({s for _, s in TASK_PLAN})
    models = [get_model(s, custom_outputs=answer_for(s)) for s in systems]
    log_dir = tmp_path_factory.mktemp("inspect_task_logs")
    logs = inspect_eval(tasks, model=models, log_dir=str(log_dir), display="none")
    assert all(lg.status == "success" for lg in logs) and len(logs) == len(TASK_PLAN)
    return log_dir, {(lg.eval.task, str(lg.eval.model)): lg.location for lg in logs}


def test_samples_of_two_tasks_are_different_items(inspect_task_logs):
    log_dir, _ = inspect_task_logs
    df = jb.io.inspect_items(log_dir)
    assert len(df) == 4 * 6
    got = df.set_index(["task", "system", "sample_id"])["judge"]
    for (task, system), plan in TASK_PLAN.items():
        for i, g in enumerate(plan):
            assert got.loc[(task, system, f"{task}/q{i}")] == {"C": 1.0, "I": 0.0}[g]
    # each system answered 12 items, the same 12: the leaderboard's means are over both tasks
    assert df.groupby("system")["sample_id"].apply(set).map(len).tolist() == [12, 12]
    board = jb.leaderboard(df, item="sample_id", score="judge")
    for system in ("mockllm/sys-a", "mockllm/sys-b"):
        grades = "".join(p for (_, s), p in TASK_PLAN.items() if s == system)
        estimate = board.set_index("system").loc[system, "estimate"]
        assert estimate == pytest.approx(grades.count("C") / 12)
    # labels name the sample as the frame does: <task>/<id>
    labels = pd.DataFrame(
        {"system": ["mockllm/sys-a"] * 2, "sample_id": ["arith/q0", "trivia/q0"], "human": [1, 0]}
    )
    lab = jb.io.inspect_items(log_dir, labels=labels).set_index(["system", "sample_id"])["human"]
    assert lab.dropna().to_dict() == {
        ("mockllm/sys-a", "arith/q0"): 1,
        ("mockllm/sys-a", "trivia/q0"): 0,
    }
    with pytest.raises(InputError, match="match no output"):
        jb.io.inspect_items(log_dir, labels=labels.assign(sample_id=["q0", "q1"]))


def test_systems_run_on_different_tasks_share_no_item(inspect_task_logs):
    # sys-a ran arith, sys-b ran trivia: their sample q0 is not one item answered twice
    _, files = inspect_task_logs
    df = jb.io.inspect_items(
        [files[("arith", "mockllm/sys-a")], files[("trivia", "mockllm/sys-b")]]
    )
    items = df.groupby("system")["sample_id"].apply(set)
    assert not items["mockllm/sys-a"] & items["mockllm/sys-b"]
    assert set(df["task"]) == {"arith", "trivia"}
    # one task alone keeps Inspect's own sample ids
    one = jb.io.inspect_items(
        [files[("arith", "mockllm/sys-a")], files[("arith", "mockllm/sys-b")]]
    )
    assert set(one["sample_id"]) == {f"q{i}" for i in range(6)} and set(one["task"]) == {"arith"}


# ------------------------------------------------------------------ numeric scores
#: the 1-10 grade the mock grader gives each sample's answer, per system ("X": no grade)
GRADES = {
    "mockllm/sys-a": [7, 3, 9, 5, 8, 2, 6, 4, 10, 1, 7, 7],
    "mockllm/sys-b": [6, 6, 2, "X", 9, 4, 5, 5, 8, 3, 2, 9],
}


@pytest.fixture(scope="module")
def inspect_score_logs(tmp_path_factory):
    """Logs Inspect writes for a model-graded scorer with numeric grades (the grader is
    a mock model; the scorer asks it for a 1-10 grade and records the number).
    """
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import Score, mean, scorer
    from inspect_ai.solver import generate

    reply, answer_for = _reply, _answer_for

    def grader(messages, tools, tool_choice, config):
        sub = messages[-1].text.split("[Submission]: ")[1].split()
        g = GRADES[sub[0]][int(sub[2])]
        return reply("No grade." if g == "X" else f"GRADE: {g}")

    grader_model = get_model("mockllm/grader", custom_outputs=grader)

    @scorer(metrics=[mean()])
    def rubric_grade():
        async def score(state, target):
            out = await grader_model.generate(f"[Submission]: {state.output.completion}")
            text = out.completion
            if "GRADE:" not in text:
                return None  # no grade: Inspect records the sample unscored
            return Score(value=float(text.split("GRADE:")[1]))

        return score

    log_dir = tmp_path_factory.mktemp("inspect_score_logs")
    n = len(GRADES["mockllm/sys-a"])
    task = Task(
        dataset=[Sample(id=f"q{i}", input=f"question {i}", target="42") for i in range(n)],
        solver=generate(),
        scorer=rubric_grade(),
    )
    models = [get_model(s, custom_outputs=answer_for(s)) for s in GRADES]
    logs = inspect_eval(task, model=models, log_dir=str(log_dir), display="none")
    assert all(lg.status == "success" for lg in logs)
    return log_dir


def test_inspect_numeric_scores_and_the_scores_cli(inspect_score_logs, tmp_path, capsys):
    labels = pd.DataFrame(
        {
            "system": ["mockllm/sys-a"] * 4 + ["mockllm/sys-b"] * 4,
            "sample_id": ["q0", "q1", "q2", "q4"] * 2,
            "human": [4, 2, 5, 4, 3, 3, 1, 5],
        }
    )
    df = jb.io.inspect_items(inspect_score_logs, labels=labels, scores=True)
    got = df.set_index(["system", "sample_id"])["score"]
    for system, grades in GRADES.items():
        for i, g in enumerate(grades):
            v = got.loc[(system, f"q{i}")]
            assert np.isnan(v) if g == "X" else v == g, (system, i, v)
    study = jb.ScoreStudy.from_items(df, score="score", human="human", system="system")
    missing = dict(zip(study.systems, study.data.n_missing.tolist(), strict=True))
    assert missing == {"mockllm/sys-a": 0, "mockllm/sys-b": 1}  # the ungraded sample
    path = tmp_path / "labels.csv"
    labels.to_csv(path, index=False)
    argv = ["scores", "--inspect", str(inspect_score_logs), "--labels", str(path)]
    assert main([*argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = study.fit("closed_form").interval()
    for r in out["systems"]:
        assert r["estimate"] == pytest.approx(ref.loc[r["unit"], "estimate"], abs=1e-12)
    with pytest.raises(InputError, match="not a number"):
        jb.io.promptfoo_items(_write_promptfoo(tmp_path, "bad"), scores=True)


def _write_promptfoo(tmp_path, score):
    recs = [_promptfoo_result(0, "gpt-a", True), _promptfoo_result(1, "gpt-a", False)]
    recs[0]["gradingResult"]["score"] = score
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"results": {"version": 3, "results": recs}}))
    return path


def test_promptfoo_grading_scores(tmp_path):
    recs = [
        _promptfoo_result(0, "gpt-a", True),
        _promptfoo_result(1, "gpt-a", False),
        _promptfoo_result(0, "gpt-b", True, error=True),
    ]
    recs[0]["gradingResult"]["score"] = 0.8
    recs[1]["gradingResult"]["componentResults"][0]["score"] = 0.25
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"version": 3, "results": recs}}))
    overall = jb.io.promptfoo_items(path, scores=True)
    np.testing.assert_array_equal(overall["score"], [0.8, 0.0, np.nan])
    rubric = jb.io.promptfoo_items(path, assertion="llm-rubric", scores=True)
    np.testing.assert_array_equal(rubric["score"], [1.0, 0.25, np.nan])
