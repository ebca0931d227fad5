"""Finding a log's files (judgebayes/data/logs/files.py): a source that is no path is named
with its type, by every reader.
"""

import pytest

import judgebayes as jb
from judgebayes.errors import InputError


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
