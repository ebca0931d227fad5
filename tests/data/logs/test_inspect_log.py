"""Inspect AI's eval logs read into the items frame (judgebayes/data/logs/inspect_log.py):
logs written by Inspect itself, with the offline ``mockllm`` provider and a mock grader
(tests/eval_logs.py), one log or a folder of them, several tasks, numeric scores.
"""

import json

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.errors import InputError
from tests.eval_logs import LABELS, PLAN, N, answer_for, labels_frame, promptfoo_result, reply


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


def test_inspect_items_reads_the_graders_verdicts(inspect_logs):
    df = jb.io.inspect_items(inspect_logs, labels=labels_frame())
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
    labels_frame().to_csv(labels, index=False)
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
    (top / "labels.json").write_text(labels_frame().to_json(orient="records"))
    (top / "run-2" / "config.json").write_text(json.dumps({"model": "sys-b"}))
    got = jb.io.inspect_items(top, labels=labels_frame())
    want = jb.io.inspect_items(inspect_logs, labels=labels_frame())
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


def test_inspect_logs_of_two_models_on_the_same_samples_give_paired_contrasts(
    inspect_logs, tmp_path, capsys
):
    # two models ran the same 20 samples: item="sample_id" pairs them; the unscored
    # samples (one per model, different ones) leave 18 pairs
    df = jb.io.inspect_items(inspect_logs, labels=labels_frame())
    paired = jb.AccuracyStudy.from_items(df, system="system", item="sample_id")
    assert paired.data.summary()["n_unpaired"].tolist() == [1, 1]
    c = paired.fit("closed_form").contrasts().set_index(["a", "b"])
    row = c.loc[("mockllm/sys-a", "mockllm/sys-b")]
    assert row["estimand"] == "items, paired on 18 items"
    labels = tmp_path / "labels.csv"
    labels_frame().to_csv(labels, index=False)
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
    recs = [promptfoo_result(0, "gpt-a", True), promptfoo_result(1, "gpt-a", False)]
    recs[0]["gradingResult"]["score"] = score
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"results": {"version": 3, "results": recs}}))
    return path


@pytest.fixture(scope="module")
def anchor_runs(tmp_path_factory):
    """Five weekly Inspect runs of one task: 40 anchors (labelled) and 60 new samples, a
    scorer whose verdicts follow a plan in which the judge's sensitivity falls from 0.9 to
    0.5 from the fourth run; the logs' folder, the anchors' labels and the plan."""
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import generate

    rng = np.random.default_rng(8)
    label = {f"a{i}": int(rng.random() < 0.7) for i in range(40)}
    log_dir = tmp_path_factory.mktemp("anchor_runs")
    plan = {}
    for week in range(5):
        sens = 0.9 if week < 3 else 0.5
        truth = {**label, **{f"n{i}": int(rng.random() < 0.7) for i in range(60)}}
        right = {k: rng.random() < (sens if y else 0.85) for k, y in truth.items()}
        plan[week] = {k: "C" if (y == 1) == right[k] else "I" for k, y in truth.items()}

        @scorer(metrics=[accuracy()])
        def verdicts(week=week):
            async def score(state, target):
                return Score(value=plan[week][str(state.sample_id)])

            return score

        task = Task(
            name="weekly",
            dataset=[Sample(id=k, input=f"item {k}", target="x") for k in plan[week]],
            solver=generate(),
            scorer=verdicts(),
        )
        model = get_model("mockllm/model", custom_outputs=lambda *a: reply("an answer"))
        (lg,) = inspect_eval(task, model=model, log_dir=str(log_dir), display="none")
        assert lg.status == "success", lg.error
    labels = pd.DataFrame({"sample_id": list(label), "human": list(label.values())})
    return log_dir, labels, plan


def test_weekly_runs_read_again_feed_the_anchor_design(anchor_runs):
    log_dir, labels, plan = anchor_runs
    with pytest.raises(InputError, match="two verdicts for one output"):
        jb.io.inspect_items(log_dir, labels=labels)  # one sample judged in five runs
    df = jb.io.inspect_items(log_dir, labels=labels, rerun=True)
    assert len(df) == 5 * 100 and df["created"].nunique() == 5
    weeks = df["created"].rank(method="dense").astype(int) - 1
    said = df.apply(lambda r: plan[weeks[r.name]][r["sample_id"]], axis=1)
    np.testing.assert_array_equal(df["judge"].to_numpy(), (said == "C").to_numpy(float))
    is_anchor = df["sample_id"].str.startswith("a")
    table = jb.monitor(df[~is_anchor], "judge", "human", "created", anchors=df[is_anchor],
                       item="sample_id", reference=2)  # fmt: skip
    assert len(table) == 5 and (table["n_anchors"] == 40).all()
    assert table["verdict"].iloc[-1] == "judge"
    assert table["judge_moved"].iloc[-1] == "sensitivity down"
