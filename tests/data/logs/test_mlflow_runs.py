"""``jb.io.mlflow_items``: real MLflow GenAI evaluation runs (``mlflow.genai.evaluate``
with a code scorer, written to a local store in a temporary folder), read as one
leaderboard frame paired on the request; human feedback logged with ``mlflow.log_feedback``.
"""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb

mlflow = pytest.importorskip("mlflow")

# three systems answer 40 questions; the truth of each answer is fixed here, the scorer
# compares the answer with the expectation, a human re-grades some answers
QUESTIONS = 40
SKILL = {"good": 0.8, "fair": 0.6, "poor": 0.3}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    import os

    from mlflow.entities import AssessmentSource
    from mlflow.genai.scorers import scorer

    store = tmp_path_factory.mktemp("mlflow")
    # the local file store (MLflow 3 keeps it for tests like this one; a server or a
    # database is what a team uses, read the same way through the tracking URI)
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    mlflow.set_tracking_uri(store.as_uri())
    mlflow.set_experiment("board")
    rng = np.random.default_rng(0)
    right = {s: rng.random(QUESTIONS) < p for s, p in SKILL.items()}
    data = [
        {"inputs": {"qid": f"q{i:02d}", "text": f"question {i}"}, "expectations": {"answer": "A"}}
        for i in range(QUESTIONS)
    ]

    @scorer
    def correct(outputs, expectations):
        return outputs == expectations["answer"]

    def system(ok):  # the app under evaluation: its arguments are the request's fields
        def predict(qid, text):
            return "A" if ok[int(qid[1:])] else "B"

        return predict

    ids = {}
    for name, ok in right.items():
        with mlflow.start_run(run_name=name):
            res = mlflow.genai.evaluate(data=data, predict_fn=system(ok), scorers=[correct])
        ids[name] = res.run_id
    # a human grades the first 10 traces of "good", disagreeing on the first
    exp = mlflow.get_run(ids["good"]).info.experiment_id
    good = mlflow.search_traces(locations=[exp], run_id=ids["good"], return_type="list")
    human = {}
    for t in sorted(good, key=lambda t: t.data.request)[:10]:
        qid = __import__("json").loads(t.data.request)["qid"]
        value = bool(right["good"][int(qid[1:])]) != (qid == "q00")
        mlflow.log_feedback(
            trace_id=t.info.trace_id,
            name="human_grade",
            value=value,
            source=AssessmentSource(source_type="HUMAN", source_id="rater"),
        )
        human[qid] = float(value)
    yield store.as_uri(), ids, right, human
    mlflow.set_tracking_uri(None)


def test_runs_are_one_frame_paired_on_the_request(runs):
    uri, ids, right, human = runs
    frame = jb.io.mlflow_items(
        list(ids.values()), scorer="correct", item="qid", human="human_grade", tracking_uri=uri
    )
    assert sorted(frame["system"].unique()) == sorted(SKILL)
    for name, ok in right.items():
        rows = frame[frame["system"] == name].set_index("item").sort_index()
        assert rows["score"].tolist() == [float(v) for v in ok]
    graded = frame[(frame["system"] == "good") & frame["human"].notna()].set_index("item")
    assert graded["human"].to_dict() == human
    assert frame.loc[frame["system"] != "good", "human"].isna().all()
    assert frame.attrs["n_missing"] == dict.fromkeys(SKILL, 0)
    # each row carries its run's start (the period of a run judged again)
    import mlflow

    client = mlflow.MlflowClient(tracking_uri=uri)
    for name, run_id in ids.items():
        start = pd.Timestamp(client.get_run(run_id).info.start_time, unit="ms", tz="UTC")
        assert (frame.loc[frame["system"] == name, "created"] == start).all()
    # the frame is a leaderboard's: the closed form's means are the runs' pass rates
    board = jb.leaderboard(frame, score="score").set_index("system")
    for name, ok in right.items():
        assert board.loc[name, "estimate"] == pytest.approx(ok.mean())
    # without item= the whole request pairs the rows (the same questions in every run)
    whole = jb.io.mlflow_items(list(ids.values()), scorer="correct", tracking_uri=uri)
    assert whole.groupby("item")["system"].nunique().eq(3).all()


def test_bad_runs_and_fields_are_named(runs):
    uri, ids, _, _ = runs
    with pytest.raises(jb.InputError, match="not found") as err:
        jb.io.mlflow_items("0" * 32, scorer="correct", tracking_uri=uri)
    assert err.value.field == "runs"
    with pytest.raises(jb.InputError, match="no request field 'nope'") as err:
        jb.io.mlflow_items(ids["good"], scorer="correct", item="nope", tracking_uri=uri)
    assert err.value.field == "item"
    with pytest.raises(jb.InputError, match="is given 2 times: each run is a system"):
        jb.io.mlflow_items([ids["good"], ids["good"]], scorer="correct", tracking_uri=uri)
    # a human assessment no trace has (a typo) is named with the ones the runs have, not
    # read as a board without labels
    with pytest.raises(jb.InputError, match=r"they have: \['answer', 'human_grade'\]"):
        jb.io.mlflow_items(list(ids.values()), scorer="correct", human="grade", tracking_uri=uri)
    # a scorer no trace has (a typo, or None) is named with the run's scorers, not read
    # as a run of blank scores
    for name in ("corect", None, ["correct"]):
        with pytest.raises(jb.InputError) as err:
            jb.io.mlflow_items(ids["fair"], scorer=name, tracking_uri=uri)
        assert err.value.field == "scorer" and err.value.value == name
        message = str(err.value)
        assert f"no assessment {name!r}" in message and "'fair'" in message
        assert "its scorers are ['correct']" in message
    # a run without the scorer beside runs with it: the run named
    human_only = jb.io.mlflow_items(ids["good"], scorer="human_grade", tracking_uri=uri)
    assert human_only["score"].notna().sum() == 10  # human_grade is an assessment of good
    with pytest.raises(jb.InputError, match="run 'fair' has no assessment 'human_grade'"):
        jb.io.mlflow_items([ids["good"], ids["fair"]], scorer="human_grade", tracking_uri=uri)


def test_a_run_without_traces_is_named_not_dropped(runs):
    uri, ids, _, _ = runs
    with mlflow.start_run(run_name="crashed") as run:  # a run whose evaluation never ran
        mlflow.log_param("model", "crashed")
    empty = run.info.run_id
    with pytest.raises(jb.InputError) as err:
        jb.io.mlflow_items([*ids.values(), empty], scorer="correct", tracking_uri=uri)
    assert err.value.field == "runs" and err.value.value == empty
    message = str(err.value)
    assert "'crashed'" in message and empty in message and "no traces" in message
    assert "drop it from runs" in message and "log its traces" in message
    # every run empty: said as such, with every run named
    with mlflow.start_run(run_name="unstarted") as run:
        pass
    both = [empty, run.info.run_id]
    with pytest.raises(jb.InputError, match="none of the 2 runs has traces") as err:
        jb.io.mlflow_items(both, scorer="correct", tracking_uri=uri)
    assert err.value.value == both and all(i in str(err.value) for i in both)


@pytest.mark.parametrize(
    ("bad", "got"), [(None, "NoneType"), (3, "int"), (["abc", 3], "list holding int")]
)
def test_runs_that_are_no_run_ids_are_named_with_their_type(bad, got):
    # before: TypeError "'NoneType' object is not iterable" from list(runs)
    with pytest.raises(jb.InputError) as err:
        jb.io.mlflow_items(bad, scorer="correct")
    assert err.value.field == "runs" and err.value.value == got.split()[-1]
    assert str(err.value).startswith("runs must be ") and f"got {got}" in str(err.value)


def test_one_evaluation_run_again_under_its_name_is_kept_with_rerun(runs):
    from mlflow.genai.scorers import scorer

    uri, _, right, _ = runs
    data = [{"inputs": {"qid": f"q{i:02d}", "text": "x"}} for i in range(QUESTIONS)]

    @scorer
    def correct(outputs):
        return outputs == "A"

    again = []
    for week in range(2):  # the "good" evaluation judged again, under one name
        with mlflow.start_run(run_name="anchors"):
            ok = right["good"] if week == 0 else ~right["good"]
            res = mlflow.genai.evaluate(
                data=data, predict_fn=lambda qid, text, ok=ok: "A" if ok[int(qid[1:])] else "B",
                scorers=[correct],
            )  # fmt: skip
        again.append(res.run_id)
    with pytest.raises(jb.errors.InputError, match="rerun=True") as e:
        jb.io.mlflow_items(again, scorer="correct", item="qid", tracking_uri=uri)
    assert e.value.field == "runs"
    frame = jb.io.mlflow_items(again, scorer="correct", item="qid", tracking_uri=uri, rerun=True)
    assert len(frame) == 2 * QUESTIONS and frame["created"].nunique() == 2
    first = frame[frame["created"] == frame["created"].min()].set_index("item").sort_index()
    assert first["score"].tolist() == [float(v) for v in right["good"]]
