"""AlpacaEval's annotation files: many models' judged answers as one leaderboard frame.

AlpacaEval (``alpaca_eval evaluate``) writes, per evaluated model, ``annotations.json``: a
list of records, one per instruction, with the reference's answer (``output_1``,
``generator_1``), the model's (``output_2``, ``generator_2``), the judge configuration
(``annotator``) and its ``preference``: 1 the reference preferred, 2 the model, 1.5 a draw
(also written without asking the judge when the two answers are identical; legacy files
write 0), fractional for a judge that gives a probability, and blank when the judge's
answer could not be parsed.  The model's win is ``preference - 1``; AlpacaEval's win rate
is 100 times its mean over the non-blank rows.

A preference outside that scale (3, -1, a word) is refused, not read: ``preference - 1``
would make it a win of 2 or -2, and counting it blank would call it a judge's answer that
did not parse, which AlpacaEval writes as blank itself.  So is a JSON boolean: ``true``
read as 1 would be the reference preferred and ``false`` a legacy draw, though neither
says which answer won.  Such a value comes from another tool's convention or an edited
file, and the reader cannot know what it meant; like a record without one of AlpacaEval's
keys, it is one error naming the file and the record.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from judgebayes.data.logs.files import find_files, read_records, require_keys
from judgebayes.errors import InputError

__all__ = ["alpaca_eval_items"]

_KEYS = ("instruction", "output_1", "generator_1", "output_2", "generator_2", "preference")


def _records(path: Path) -> pd.DataFrame:
    rows = read_records(path, "paths")
    for i, r in enumerate(rows):
        require_keys(r, _KEYS, "paths", path, i)
    return pd.DataFrame(rows).assign(file=str(path), record=range(len(rows)))


def alpaca_eval_items(paths, *, annotator: str | None = None) -> pd.DataFrame:
    """One row per (model, instruction) of AlpacaEval annotation files, paired on the
    instruction.

    Parameters
    ----------
    paths : str, path or list of them
        ``annotations.json`` files, or folders holding them (searched below, as AlpacaEval's
        ``results/<model>/<annotator>/``).
    annotator : str, optional
        The judge configuration to keep; required when the files hold several.

    Returns
    -------
    DataFrame
        ``system`` (``generator_2``), ``item`` (12 hex digits of the instruction's SHA-1,
        the same for every model), ``score`` (the model's win, ``preference - 1``, draws
        0.5; blank where the judge's answer did not parse), ``identical`` (the model's
        answer is the reference's), ``len_chars_model``, ``len_chars_ref``, ``log_len``
        (log of their ratio: a covariate for ``jb.leaderboard(adjust=)``) and
        ``instruction``; ``attrs``: ``annotator``, ``reference`` and ``n_missing`` (blank
        scores per system).

    Raises
    ------
    InputError
        ``paths`` that is not a path or a list of them (``field="paths"``, ``value`` the
        type's name), a path that holds no annotations (``field="paths"``), a record
        without one of AlpacaEval's keys (``field`` the key), a preference off
        AlpacaEval's scale (``field="preference"``: not blank, 0, or a number between 1
        and 2; a boolean is none of them), several annotators without ``annotator=``,
        several references, or one model's instruction twice (two files of one model).
    """
    files = find_files(paths, "paths", ("**/annotations.json",))
    frame = pd.concat([_records(p) for p in files], ignore_index=True)
    names = sorted(frame["annotator"].dropna().astype(str).unique()) if "annotator" in frame else []
    if annotator is not None:
        if annotator not in names:
            raise InputError(f"annotator {annotator!r} is not in the files; they hold {names}",
                             field="annotator", value=annotator)  # fmt: skip
        frame = frame[frame["annotator"] == annotator]
    elif len(names) > 1:
        raise InputError(f"the files hold {len(names)} annotators {names}: name one (annotator=)",
                         field="annotator", value=None)  # fmt: skip
    refs = sorted(frame["generator_1"].astype(str).unique())
    if len(refs) > 1:
        raise InputError(f"the files compare against {len(refs)} references {refs}: a "
                         "leaderboard needs one", field="generator_1", value=refs)  # fmt: skip
    twice = frame.duplicated(["generator_2", "instruction"], keep=False)
    if twice.any():
        row = frame[twice].iloc[0]
        raise InputError(
            f"model {row['generator_2']!r} answers one instruction {int(twice.sum())} times "
            f"(files {sorted(frame.loc[twice, 'file'].unique())}); keep one file per model",
            field="paths",
            value=row["generator_2"],
        )
    return _frame(frame, names[0] if names and annotator is None else annotator, refs[0])


def _wins(frame: pd.DataFrame) -> np.ndarray:
    """The model's win per record, ``preference - 1`` (NaN where blank); a preference off
    AlpacaEval's scale is an error naming the first such record.
    """
    given = frame["preference"].tolist()
    pref = pd.to_numeric(frame["preference"], errors="coerce").to_numpy(float)
    blank = frame["preference"].isna().to_numpy()
    # a JSON boolean is no preference: to_numeric reads true as 1 and false as 0
    boolean = np.array([isinstance(v, bool | np.bool_) for v in given], dtype=bool)
    with np.errstate(invalid="ignore"):
        bad = ~blank & (boolean | ~((pref == 0) | ((pref >= 1) & (pref <= 2))))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = frame.iloc[i]
        more = f"; {int(bad.sum())} such records in all" if bad.sum() > 1 else ""
        what = "a boolean, " if boolean[i] else ""
        raise InputError(
            f"paths file {row['file']}, record {row['record']}: preference {given[i]!r} is "
            f"{what}not on AlpacaEval's scale (1 the reference preferred, 2 the model, "
            f"between them a draw or a probability, 0 a legacy draw, blank unparsed){more}",
            field="preference",
            value=given[i],
        )
    return np.where(pref == 0, 0.5, pref - 1)  # legacy files write a draw as 0


def _frame(frame: pd.DataFrame, annotator, reference) -> pd.DataFrame:
    score = _wins(frame)
    out = pd.DataFrame(
        {
            "system": frame["generator_2"].astype(str).to_numpy(),
            "item": [hashlib.sha1(str(s).encode()).hexdigest()[:12] for s in frame["instruction"]],
            "score": score,
            "identical": (frame["output_1"] == frame["output_2"]).to_numpy(),
            "len_chars_model": frame["output_2"].astype(str).str.len().to_numpy(),
            "len_chars_ref": frame["output_1"].astype(str).str.len().to_numpy(),
            "instruction": frame["instruction"].astype(str).to_numpy(),
        }
    )
    ratio = out["len_chars_model"].clip(lower=1) / out["len_chars_ref"].clip(lower=1)
    out.insert(6, "log_len", np.log(ratio))
    out = out.sort_values(["system", "item"], kind="stable").reset_index(drop=True)
    out.attrs.update(
        annotator=annotator,
        reference=reference,
        n_missing=out["score"].isna().groupby(out["system"]).sum().astype(int).to_dict(),
    )
    return out
