"""Human labels attached to a log's items (judgebayes/data/logs/labels.py): a label names
the output it judges, once.
"""

import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.errors import InputError
from tests.eval_logs import labels_frame


def test_inspect_labels_must_name_the_output(inspect_logs, tmp_path, capsys):
    lab = labels_frame()
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
