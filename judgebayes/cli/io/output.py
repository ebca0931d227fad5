"""What the command line prints and reads: its one-line errors, numbers and tables, and
the CSV files it is given.
"""

from __future__ import annotations

import argparse
import math
from typing import Any


class CLIError(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (:class:`CLIError`), never a usage block."""

    def error(self, message: str):  # one line, no usage block
        """Raise :class:`CLIError` with the message."""
        raise CLIError(f"{self.prog}: {message}")


def fmt(x: Any, digits: int = 3) -> str:
    """A table cell: integers as integers, floats to ``digits`` places, NaN as ``-``."""
    import numpy as np

    if isinstance(x, (bool, np.bool_, str)) or x is None:
        return str(x)
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return "-" if math.isnan(f) else f"{f:.{digits}f}"


def clean(v: Any) -> Any:
    """JSON-safe scalar: NaN / inf -> None, numpy -> python."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def render(rows: list[dict], columns: list[tuple[str, str]], style: str) -> str:
    """Rows as an aligned text table or a markdown pipe table (``style``: "table" or "markdown")."""
    head = [h for _, h in columns]
    body = [
        [
            fmt(r[c]) if c not in ("system", "subset", "note", "item") else str(r[c])
            for c, _ in columns
        ]
        for r in rows
    ]
    if style == "markdown":
        import pandas as pd

        from judgebayes.report import markdown_table

        return markdown_table(pd.DataFrame(body, columns=head))
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]

    def line(cells):
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in pairs)

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(b) for b in body])


def read_csv(path: str, what: str):
    """Read a CSV file; a missing or unreadable file is an :class:`InputError` naming ``what``."""
    import pandas as pd

    from judgebayes.errors import InputError

    try:
        return pd.read_csv(path, keep_default_na=True)
    except FileNotFoundError:
        raise InputError(f"{what} file not found: {path}", field=what, value=path) from None
    except IsADirectoryError:
        raise InputError(
            f"{what} file {path} is a directory; give a CSV file", field=what, value=path
        ) from None
    except PermissionError:
        raise InputError(
            f"{what} file {path} cannot be read (permission denied)", field=what, value=path
        ) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"{what} file {path} is not a readable CSV: {msg}", field=what, value=path
        ) from None
