from importlib import resources

import pytest

from judgebayes import datasets
from judgebayes.errors import InputError


def test_licence_and_attribution_are_bundled():
    root = resources.files("judgebayes.datasets").joinpath("llmbar")
    assert "MIT License" in root.joinpath("LICENSE").read_text()
    assert "princeton-nlp/LLMBar" in root.joinpath("ATTRIBUTION.md").read_text()


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
