"""Finding and reading the files of an eval log: paths and globs, JSON and JSON-lines
records, the keys a record must have.
"""

from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Iterable
from typing import Any

from judgebayes.errors import InputError

ITEM_COLUMNS = ("sample_id", "system", "judge", "human")


def is_listlike(x: Any) -> bool:
    """Whether ``x`` is a list of sources (an iterable that is not one string)."""
    return isinstance(x, Iterable) and not isinstance(x, (str, bytes))


PATHS = "a path, a directory or a list of them"


def wrong_type(accepts: str, value: Any, what: str, within: Any = None) -> InputError:
    """The error for an argument ``what`` (``within`` it, when it is a list) that is not
    one of ``accepts``: names the argument and the type it got.
    """
    got = type(value).__name__
    held = got if within is None else f"{type(within).__name__} holding {got}"
    return InputError(f"{what} must be {accepts}; got {held}", field=what, value=got)


def find_files(
    source: Any, what: str, patterns: tuple[str, ...], accepts: str = PATHS
) -> list[pathlib.Path]:
    """Files named by ``source``: a path, a directory (its ``patterns`` files) or a list.

    ``what`` is the reader's parameter, named in errors; ``accepts`` what it takes.
    """
    listed = is_listlike(source)
    items = list(source) if listed else [source]
    out: list[pathlib.Path] = []
    for s in items:
        if not isinstance(s, str | os.PathLike):
            raise wrong_type(accepts, s, what, source if listed else None)
        p = pathlib.Path(s)
        if p.is_dir():
            found = sorted(f for pat in patterns for f in p.glob(pat))
            if not found:
                raise InputError(
                    f"{what}: directory {p} has no {' / '.join(patterns)} files",
                    field=what,
                    value=str(p),
                )
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(f"{what} file not found: {p}", field=what, value=str(p))
    if not out:
        raise InputError(f"{what}: no file given", field=what, value=source)
    return out


def read_json(path: pathlib.Path, what: str) -> Any:
    """The JSON document of ``path``; unreadable or invalid JSON is an error naming ``what``."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            f"{what} file {path} is not valid JSON: {str(exc).splitlines()[0]}",
            field=what,
            value=str(path),
        ) from None
    except PermissionError:
        raise InputError(
            f"{what} file {path} cannot be read (permission denied)", field=what, value=str(path)
        ) from None


def read_records(path: pathlib.Path, what: str) -> list[dict]:
    """Records of a JSON list or a JSON-lines file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, PermissionError) as exc:
        raise InputError(
            f"{what} file {path} cannot be read: {type(exc).__name__}", field=what, value=str(path)
        ) from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        records = read_json(path, what)
    else:
        records = []
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"{what} file {path}, line {i}: not a JSON record ({exc.msg})",
                    field=what,
                    value=str(path),
                ) from None
    bad = [i for i, r in enumerate(records) if not isinstance(r, dict)]
    if bad:
        raise InputError(
            f"{what} file {path}: record {bad[0]} is not a JSON object",
            field=what,
            value=str(path),
        )
    if not records:
        raise InputError(f"{what} file {path} has no records", field=what, value=str(path))
    return records


def require_keys(record: dict, keys: tuple[str, ...], what: str, path: Any, i: int) -> None:
    """An error naming the first of ``keys`` that record ``i`` of ``path`` lacks."""
    missing = [k for k in keys if k not in record]
    if missing:
        raise InputError(
            f"{what} file {path}, record {i}: no field {missing[0]!r} (fields: {sorted(record)})",
            field=missing[0],
            value=None,
        )
