import hashlib
import pathlib
import subprocess

import numpy as np
import pytest

from judgebayes import datasets
from judgebayes.errors import DataNotFoundError, InputError

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_data_are_read_where_they_live_and_their_licences_stay_there():
    folder = datasets.data_dir()
    assert (folder / "llmbar" / "LICENSE").read_text().startswith("MIT")
    assert "Apache" in (folder / "pandalm" / "LICENSE").read_text()
    # no file of the shared data is committed to the project (compared by content)
    shared = {
        hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file() and p.stat().st_size > 20_000
    }
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    copies = [
        name.decode()
        for name in tracked
        if name and hashlib.sha256((ROOT / name.decode()).read_bytes()).hexdigest() in shared
    ]
    assert copies == []


def test_a_missing_data_folder_is_one_typed_error_naming_where_it_looked(tmp_path, monkeypatch):
    with pytest.raises(DataNotFoundError, match="no data folder") as e:
        datasets.llmbar_accuracy_items(data_dir=tmp_path / "nowhere")
    assert e.value.field == "data_dir" and "JUDGEBAYES_DATA" in str(e.value)
    monkeypatch.setenv("JUDGEBAYES_DATA", str(tmp_path))
    with pytest.raises(DataNotFoundError, match=r"no llmbar/llmbar_judgments\.csv"):
        datasets.load_llmbar_judgments()
    # data_dir= wins over the environment
    assert len(datasets.load_pandalm_pairs(data_dir=datasets.base._beside_checkout())) == 999


def test_judgments_frame():
    d = datasets.load_llmbar_judgments()
    assert len(d) == 30_963
    assert set(d["evaluator"]) == set(datasets.LLMBAR_EVALUATORS)
    assert set(d["subset"]) == set(datasets.LLMBAR_SUBSETS)
    assert set(d["label"]) == {1, 2}


def test_accuracy_items_plain_prompt():
    it = datasets.llmbar_accuracy_items("GPT-4")
    # 100 + 134 + 92 + 47 + 46 LLMBar instances and 200 + 66 + 200 processed ones
    assert len(it) == 885
    assert it.groupby("subset").size().to_dict()["LLMBar_Natural"] == 100
    assert set(it.loc[it["subset"].str.startswith("Processed"), "strategy"]) == {"Vanilla_NoRules"}
    assert int(it["judge"].isna().sum()) == 6
    assert set(it["human"]) == {0, 1}


def test_instances_and_errors():
    inst = datasets.load_llmbar_instances("LLMBar_Natural")
    assert len(inst) == 100 and {"input", "output_1", "output_2", "label"} <= set(inst.columns)
    with pytest.raises(InputError, match="subset"):
        datasets.load_llmbar_instances("nope")
    with pytest.raises(InputError, match="evaluator"):
        datasets.llmbar_accuracy_items("GPT-5")


def test_hanna_scores_reproduce_the_data_readme():
    from scipy import stats

    from judgebayes.datasets import HANNA_CRITERIA, hanna_scores

    # the data README: Beluga-13B against the human mean, story level, Spearman averaged
    # over the six criteria, 0.39-0.45 across the four prompts
    per_prompt = []
    for prompt in (1, 2, 3, 4):
        rho = []
        for c in HANNA_CRITERIA:
            h = hanna_scores(c, "Beluga-13B", prompt=prompt)
            m = h["Beluga-13B"].notna()
            rho.append(stats.spearmanr(h.loc[m, "Beluga-13B"], h.loc[m, "human_mean"])[0])
        per_prompt.append(np.mean(rho))
    assert 0.385 <= min(per_prompt) and max(per_prompt) <= 0.455, per_prompt
    h = hanna_scores("RE", ["Beluga-13B", "Mistral-7B"], prompt=1)
    assert len(h) == 1056 and h["system"].nunique() == 11 and h["prompt_id"].nunique() == 96
    # Mistral-7B's failure codes (ratings outside 1-5) are missing, not scores
    assert h["Mistral-7B"].isna().sum() > 0 and h["Mistral-7B"].dropna().between(1, 5).all()
    np.testing.assert_allclose(
        h[["human_1", "human_2", "human_3"]].mean(axis=1), h["human_mean"], atol=1e-4
    )


def test_llm_rubric_scores_reproduce_the_upstream_correlation():
    from scipy import stats

    from judgebayes.datasets import llm_rubric_scores

    r = llm_rubric_scores("real", "Q0")
    m = r["human"].notna()
    # the data README (and upstream's expected_llm row): Pearson 0.177, Spearman 0.087
    assert stats.pearsonr(r.loc[m, "judge_expected"], r.loc[m, "human"])[0] == pytest.approx(
        0.177, abs=5e-4
    )
    assert stats.spearmanr(r.loc[m, "judge_expected"], r.loc[m, "human"])[0] == pytest.approx(
        0.087, abs=5e-4
    )
    np.testing.assert_allclose(r[["p1", "p2", "p3", "p4"]].sum(axis=1), 1, atol=1e-4)
