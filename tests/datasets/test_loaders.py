import hashlib
import pathlib
import subprocess

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
