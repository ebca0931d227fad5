"""The ``judgebayes`` command.

Sub-commands: ``accuracy`` (naive vs corrected accuracy from CSV files), ``plan``
(calibration size for a target interval width), ``panel`` (generator precision from a
validator panel, :mod:`judgebayes.cli.panel`), ``rank`` (bias-aware Bradley-Terry,
:mod:`judgebayes.cli.rank`, whose docstring has its JSON schema), ``report`` (a written
markdown/HTML accuracy report, :mod:`judgebayes.cli.report`), ``demo`` (the main job
on bundled data) and ``gate`` (exit 1 unless stated claims about corrected rates hold,
:mod:`judgebayes.cli.gate`), ``scores`` (mean human label from a judge's scores) and
``agreement`` (agreement between raters, :mod:`judgebayes.cli.agreement`) and ``monitor``
(the corrected rate after every period of a growing log, :mod:`judgebayes.cli.monitor`;
``gate --sequential`` reads claims off it) and ``label-next`` (which items to label next,
and the estimate from the rounds so far, :mod:`judgebayes.cli.label`).  Bad input
prints one line on stderr and exits with status 2; a reader that stops reading early
(``judgebayes leaderboard ... | head``) ends the command quietly with status 141
(:func:`entry`).

JSON output (``--format json``)
-------------------------------
``accuracy``: ``{"alpha": float, "comparison": [row, ...], "pairwise": [row, ...],
"diagnostics": {method: GATE} (:func:`judgebayes.cli.io.diagnostics_json`: each NUTS
fit's convergence gate and settings), "calibration": {"m0", "m1", "q0", "q1", "n_missing"},
"systems": [{"system", "n", "n_missing", "k", "naive", "naive_lower", "naive_upper",
"estimate", "lower", "upper", "degenerate", "note"}, ...]}`` (NaN written as null).
``plan``: ``{"plans": [CalibrationPlan fields, ...]}`` with ``n`` null when infinite.
``demo``: ``{"evaluator", "calibration_fraction", "seed", "rows": [...], "judge_bias":
[...] | null, "agreement": [...] | null, "report": str | null}``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence

from judgebayes.cli.commands import COMMANDS
from judgebayes.cli.io import CLIError, Parser

__all__ = ["entry", "main"]

#: subcommand -> module with ``add_parser(sub)`` and ``run(args) -> str``
SUBCOMMANDS = {name: c.module for name, c in COMMANDS.items()}


def build_parser(only: str | None = "*") -> Parser:
    """The argument parser: every subcommand in full (``only="*"``), or only the one named
    (``only=name``: the others listed by name and help, their modules not imported, so
    that ``judgebayes --help`` and a command's arguments are read before the studies are
    imported).
    """
    p = Parser(prog="judgebayes", description="What LLM judges' verdicts really say.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    for name, command in COMMANDS.items():
        if only in ("*", name):
            importlib.import_module(command.module).add_parser(sub)
        else:
            sub.add_parser(name, help=command.help)
    return p


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option), if any."""
    return next((w for w in argv if not w.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok; 1 a ``gate`` claim not supported, or the
    chosen method refuses these data, with the reason on stderr; 2 bad input).
    """
    from judgebayes.errors import JudgeBayesError, MethodRefused

    args = None
    pressed: list[bool] = []

    def on_sigint(signum, frame):  # as Python's own, but remembered: a KeyboardInterrupt
        pressed.append(True)  # raised inside a garbage-collector callback (JAX's) is
        raise KeyboardInterrupt  # swallowed there, and the command ran on to exit 0

    def on_unraisable(u, _hook=sys.unraisablehook):
        # a Ctrl-C that lands in a C callback (numba's compiler calls Python back) cannot
        # leave it: Python would print "Exception ignored ..." and run on; instead it is
        # delivered again a moment later, from another thread, once the callback returned
        if isinstance(u.exc_value, KeyboardInterrupt) and hasattr(signal, "pthread_kill"):
            main_id = threading.main_thread().ident
            threading.Timer(0.01, signal.pthread_kill, (main_id, signal.SIGINT)).start()
        else:
            _hook(u)

    previous = hook = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, on_sigint)
        hook, sys.unraisablehook = sys.unraisablehook, on_unraisable
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(only=_command_in(words)).parse_args(words)
        if args.version:
            from judgebayes import __version__

            print(__version__)
            return 0
        if args.command is None:
            *first, last = SUBCOMMANDS
            raise CLIError(
                f"judgebayes: choose a command: {', '.join(first)} or {last} (see --help)"
            )
        from judgebayes.inference.progress import progress_switch

        quiet = getattr(args, "quiet", False)
        with progress_switch(False) if quiet else contextlib.nullcontext():
            out = importlib.import_module(SUBCOMMANDS[args.command]).run(args)
        status = 0
        if isinstance(out, tuple):  # (stdout, status): ``gate`` exits 1 on a failed claim
            out, status = out
    except CLIError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except MethodRefused as exc:  # valid data the chosen method cannot serve: not bad input
        print(f"judgebayes {args.command}: refused: {exc}", file=sys.stderr)
        return 1
    except JudgeBayesError as exc:
        print(f"judgebayes {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback, no partial result
        return _interrupted(args, argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
            sys.unraisablehook = hook
    if pressed:  # interrupted, but the KeyboardInterrupt was swallowed on its way
        return _interrupted(args, argv)
    print(out)
    return status


def _interrupted(args, argv) -> int:
    """The one line of an interrupted command, named by the command even when Ctrl-C came
    while the parser was still importing the subcommands (seconds on a loaded machine).
    """
    words = sys.argv[1:] if argv is None else list(argv)
    command = getattr(args, "command", None) or next((w for w in words if w in SUBCOMMANDS), None)
    print(f"{'judgebayes ' + command if command else 'judgebayes'}: interrupted", file=sys.stderr)
    return 130


def entry() -> None:
    """The installed command and ``python -m judgebayes``: :func:`main`, then exit with its
    status.

    After Ctrl-C the process ends with ``os._exit(130)`` once its one line is flushed: a
    KeyboardInterrupt that passed through a C extension's own evaluation of Python code
    (during the imports) leaves CPython's "unhandled interrupt" flag set even though
    :func:`main` caught it, and the interpreter would then kill itself with SIGINT on a
    normal exit (status -2 instead of 130).

    When the reader of stdout stops early (``judgebayes ... | head``), writing the rest
    fails with a broken pipe: the command then ends without a word and with status 141,
    the 128 + SIGPIPE a shell reports for a program that a closed pipe stopped (``cat``,
    ``grep``), whatever status the command would have had.  Not 0: the output was not
    all read, and under ``set -o pipefail`` the pipeline fails as it would with those
    programs.  Python ignores SIGPIPE, so the write raises BrokenPipeError; stdout is
    then pointed at ``os.devnull``, so that the interpreter's last flush of what is
    still buffered does not fail again on the way out.
    """
    try:
        try:
            status: int | str | None = main()
        except SystemExit as exc:  # argparse's --help: its text may still be buffered
            status = exc.code
        sys.stdout.flush()  # the pipe fails here at the latest, not in the exit's flush
    except BrokenPipeError:
        _stdout_to_devnull()
        status = 141
    if status == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    sys.exit(status)


def _stdout_to_devnull() -> None:
    """Point the stdout file descriptor at ``os.devnull`` (what is still buffered for the
    closed pipe is then dropped at exit instead of failing again).
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    entry()
