"""Progress of long work: sweeps (a bar over tasks) and NUTS fits (nutpie's own display).

One switch decides, in this order: a ``progress=`` argument where a function has one;
:func:`set_progress` (``judgebayes.set_progress(False)`` silences everything); the
environment variable ``JUDGEBAYES_PROGRESS`` (``0`` / ``1``); otherwise *auto*: shown in
Jupyter and on an interactive terminal, never in a pipe, a log file or a test run, so
output that a program reads stays clean.  Bars go to stderr (tqdm's ``tqdm.auto`` picks a
notebook widget or a terminal line); nothing is imported until a bar is drawn.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from judgebayes.errors import InputError

__all__ = ["Progress", "progress_enabled", "progress_switch", "set_progress"]

_SWITCH: dict[str, bool | None] = {"enabled": None}


def set_progress(enabled: bool | None) -> None:
    """Show (True), hide (False) or auto-detect (None) progress everywhere in the package."""
    if enabled is not None and not isinstance(enabled, bool):
        raise InputError(
            f"progress must be True, False or None; got {enabled!r}",
            field="progress",
            value=enabled,
        )
    _SWITCH["enabled"] = enabled


@contextlib.contextmanager
def progress_switch(enabled: bool | None):
    """:func:`set_progress` for the duration of a ``with`` block (the CLI's ``--quiet``)."""
    before = _SWITCH["enabled"]
    set_progress(enabled)
    try:
        yield
    finally:
        _SWITCH["enabled"] = before


def in_notebook() -> bool:
    """True inside a Jupyter kernel."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython() if hasattr(ipython, "get_ipython") else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def progress_enabled(progress: bool | None = None) -> bool:
    """Whether to show progress (module docstring: argument, switch, environment, auto)."""
    if progress is not None:
        return bool(progress)
    if _SWITCH["enabled"] is not None:
        return _SWITCH["enabled"]
    env = os.environ.get("JUDGEBAYES_PROGRESS")
    if env is not None:
        return env.strip().lower() not in ("", "0", "false", "no", "off")
    return in_notebook() or bool(getattr(sys.stderr, "isatty", lambda: False)())


class Progress:
    """A bar over ``total`` units of work, or nothing when progress is off.

    Use as a context manager; ``update(n)`` after each finished piece.
    """

    def __init__(self, total: int, desc: str, progress: bool | None = None, unit: str = "task"):
        self.total, self.desc, self.unit = int(total), desc, unit
        self.enabled = progress_enabled(progress) and self.total > 0
        self._bar: Any = None

    def __enter__(self) -> Progress:
        if self.enabled:
            from tqdm.auto import tqdm

            self._bar = tqdm(
                total=self.total, desc=self.desc, unit=self.unit, file=sys.stderr, leave=True
            )
        return self

    def update(self, n: int = 1) -> None:
        """Count ``n`` more units done."""
        if self._bar is not None:
            self._bar.update(n)

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.close()
