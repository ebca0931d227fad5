"""MT-Bench judgments and Chatbot Arena battles as a comparisons frame
(judgebayes/data/logs/pairs.py), in the formats FastChat writes.
"""

import json
import warnings

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.errors import JudgeBayesWarning


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
