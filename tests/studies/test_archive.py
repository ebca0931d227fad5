"""Fits saved and loaded back (judgebayes/studies/archive.py): files that are no fits, and
paths that cannot be written, are typed errors naming the path.
"""

import pytest

import judgebayes as jb
from judgebayes.errors import InputError

BASE = jb.simulate.simulate_items(300, n_labelled=60, seed=0).frame


def _items(frame=BASE, **kw):
    return jb.AccuracyStudy.from_items(frame, **kw)


def test_fit_files_that_are_no_fits_are_typed_errors(tmp_path):
    fit = _items().fit("closed_form")
    fit.save(tmp_path / "a.nc")
    raw = (tmp_path / "a.nc").read_bytes()
    (tmp_path / "cut.nc").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    (tmp_path / "folder").mkdir()
    for path in ("cut.nc", "x.csv", "folder", "absent.nc"):
        with pytest.raises(InputError) as e:
            jb.load_fit(tmp_path / path)
        assert e.value.field == "path" and str(tmp_path / path) in str(e.value)
    for path in (tmp_path / "no" / "f.nc", tmp_path / "folder"):
        with pytest.raises(InputError, match="cannot save") as e:
            fit.save(path)
        assert e.value.field == "path"
