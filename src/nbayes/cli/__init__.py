"""The ``nbayes`` command: train, predict, evaluate, explain, inspect and report on models.

Each command is one module with a pure worker function (``train``, ``predict``, ...) that the
tests call directly, an ``add_parser`` that declares its options and a ``run`` that prints.
:func:`main` turns errors into ``nbayes: error: <message>`` without a traceback (``--debug``
shows it) and exit statuses: 0 success, 1 data or runtime error, 2 usage error.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
import warnings
from contextlib import contextmanager
from importlib import import_module
from typing import TYPE_CHECKING

from .._output import WriteError, stop_signals
from .._threads import threads
from ..exceptions import ColumnWarning, NBayesError, ParameterError
from ._common import CLIError, UsageError, house_warnings

if TYPE_CHECKING:
    from ._tables import ReadOptions

# Start-up: this module imports no numerical library (numpy, pandas, scikit-learn). `nbayes
# --help` and `nbayes --version` need none, and :func:`main` installs its signal handlers
# before it imports the command's module (which imports them), so that Ctrl-C during those
# imports is an interruption like any other: exit 130, one line, no traceback.

COMMANDS = ("train", "predict", "evaluate", "explain", "inspect", "report", "export", "demo")
#: What ``nbayes --help`` says of each command, without importing the command's module (each
#: module's ``HELP``, which a test keeps equal to this).
COMMAND_HELP = {
    "train": "learn a model from a table (CSV/TSV, Parquet, JSON lines) and save it",
    "predict": "classify every row of a table with a saved model",
    "evaluate": "score a saved model on a labelled table",
    "explain": "show the most indicative features per class, and what drove predictions for DATA",
    "inspect": "show what a model file holds: classes, priors, families per column, format",
    "report": "write an HTML report of a model (and of its scores on a labelled table)",
    "export": "write a saved model as an ONNX graph or a SQL query that scores a table",
    "demo": "train, evaluate and explain a spam filter on the bundled SMS Spam Collection",
}

__all__ = ["COMMANDS", "COMMAND_HELP", "CLIError", "UsageError", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse with the house error line: ``nbayes: error: ...`` and exit status 2."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(2, f"nbayes: error: {message}\n")


def split_list(value: str | None) -> list[str] | None:
    """``"a,b, c"`` -> ``["a", "b", "c"]``; None stays None."""
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def _separator(value: str) -> str:
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}
    sep = named.get(value.lower(), value)
    if len(sep) != 1:
        raise argparse.ArgumentTypeError(f"must be one character (or tab/comma/...); got {value!r}")
    return sep


def _positive(value: str) -> int:
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {value}")
    return n


def read_options(args) -> ReadOptions:
    """The input options shared by commands that read DATA."""
    from ._tables import ReadOptions  # pandas: imported by the commands that read DATA

    return ReadOptions(
        format=getattr(args, "format", None),
        sep=getattr(args, "sep", None),
        header=not getattr(args, "no_header", False),
        names=tuple(split_list(args.names) or ()) if getattr(args, "names", None) else None,
        encoding=getattr(args, "encoding", None) or "utf-8",
        encoding_given=getattr(args, "encoding", None) is not None,
        quoting=not getattr(args, "no_quoting", False),
        chunk_rows=getattr(args, "chunk_rows", None),
        decimal=getattr(args, "decimal", None) or ".",
        thousands=getattr(args, "thousands", None),
        na_values=tuple(split_list(getattr(args, "na_values", None)) or ()),
    )


def command_named(argv: list[str]) -> str | None:
    """The command that ``argv`` names, or None (``--help``, ``--version``, a misspelt
    command). Options before the command are the top-level parser's, which take no value,
    so the command is the first word that is not an option."""
    for i, word in enumerate(argv):
        if word == "--":
            word = argv[i + 1] if i + 1 < len(argv) else ""
        elif word.startswith("-"):
            continue
        return word if word in COMMANDS else None
    return None


def build_parser(commands: tuple[str, ...] = COMMANDS) -> argparse.ArgumentParser:
    """The argument parser with the options of ``commands`` (default: every command). The
    other commands are listed with their help only, without importing their modules, which
    import numpy and pandas: :func:`main` builds the parser of the command named alone."""
    from .._accel import describe
    from .._version import __version__

    general = argparse.ArgumentParser(add_help=False)
    g = general.add_argument_group("general options")
    g.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bars or notes (bars also stay off when piped)",
    )
    g.add_argument("--debug", action="store_true", help="show the traceback of an error")
    g.add_argument(
        "--threads",
        type=_positive,
        metavar="N",
        help="threads for fitting and scoring row chunks (default: "
        "$NBAYES_NUM_THREADS, or every core)",
    )
    reading = argparse.ArgumentParser(add_help=False)
    r = reading.add_argument_group("reading DATA")
    r.add_argument(
        "--format",
        choices=("csv", "tsv", "parquet", "jsonl"),
        help="input format (default: from the file name; CSV otherwise)",
    )
    r.add_argument(
        "--sep", type=_separator, help="CSV separator (default: guessed from the first lines)"
    )
    r.add_argument(
        "--no-header",
        action="store_true",
        help="the CSV has no header line; columns are named 0, 1, 2, ...",
    )
    r.add_argument(
        "--names", metavar="COLS", help="comma-separated column names for a CSV without header"
    )
    r.add_argument(
        "--encoding",
        help="text encoding (default utf-8, or the one given when the model was trained)",
    )
    r.add_argument(
        "--no-quoting", action="store_true", help="treat quote characters as ordinary text"
    )
    r.add_argument(
        "--decimal",
        type=_separator,
        metavar="CHAR",
        help="decimal separator of numbers in a CSV, e.g. ',' for 3,5 (default '.')",
    )
    r.add_argument(
        "--thousands",
        type=_separator,
        metavar="CHAR",
        help="thousands separator of numbers in a CSV, e.g. '.' for 1.234,5 (default none)",
    )
    r.add_argument(
        "--na-values",
        metavar="MARKS",
        help="comma-separated values that mark a missing cell in a CSV, e.g. '?' (besides "
        "pandas' own: empty, NA, NULL, NaN, ...); remembered by the model for predict",
    )
    r.add_argument(
        "--chunk-rows",
        type=_positive,
        metavar="N",
        help="rows read at a time (default: about 16 MB of input)",
    )

    parser = _Parser(
        prog="nbayes",
        description="Naive Bayes from the command line: train, "
        "predict, evaluate, explain and inspect models over CSV/TSV, Parquet and "
        "JSON-lines tables. Start with `nbayes demo`.",
    )
    parser.add_argument(
        "--version", action="version", version=f"nbayes {__version__} ({describe(load=False)})"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if name not in commands:
            sub.add_parser(name, help=COMMAND_HELP[name])
            continue
        module = import_module(f".{name}", __name__)
        parents = (
            [general, reading]
            if name in ("train", "predict", "evaluate", "explain", "report")
            else [general]
        )
        module.add_parser(sub, parents).set_defaults(_run=module.run)
    return parser


def _describe(exc: BaseException) -> tuple[int, str]:
    """(exit status, message) for an error that reached the command line."""
    if isinstance(exc, (UsageError, ParameterError)):
        return 2, str(exc)
    if isinstance(exc, FileNotFoundError):
        name = exc.filename if exc.filename is not None else None
        return 1, f"{name}: no such file." if name else str(exc)
    if isinstance(exc, OSError) and exc.filename is not None:
        return 1, f"{exc.filename}: {exc.strerror or exc}"
    # (scikit-learn's NotFittedError, which nbayes raises, is a ValueError)
    if isinstance(exc, (NBayesError, OSError, ValueError, MemoryError)):
        return 1, str(exc) or type(exc).__name__
    return 1, (
        f"unexpected {type(exc).__name__}: {exc} (this is a bug in nbayes; run with "
        "--debug for the traceback and report it)"
    )


#: Signals that stop a command cleanly: (exit status, what the message says). The handler
#: raises KeyboardInterrupt so that every ``finally`` runs -- temporary files are removed and
#: an output being written keeps its old content -- and records the signal, because a
#: library may turn the exception into another one (pandas' CSV reader reports an interrupted
#: read as "Error tokenizing data"): the record, not the exception, decides the exit status.
_STOP_SIGNALS: dict[int, tuple[int, str]] = {
    signal.SIGINT: (130, "interrupted"),
    signal.SIGTERM: (143, "terminated"),
}


@contextmanager
def _stop_on_signals(received: list[int]):
    def stop(signum, frame):
        received.append(signum)
        raise KeyboardInterrupt

    previous = {}
    try:
        for sig in _STOP_SIGNALS:
            previous[sig] = signal.signal(sig, stop)
    except ValueError:  # not the main thread (main() called from a worker): leave them be
        pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _record_signals(received: list[int]) -> None:
    """From now on a signal is only recorded: the command is already stopping, and a second
    Ctrl-C must not interrupt the message that says so with a traceback."""

    def record(signum, frame):
        received.append(signum)

    try:
        for sig in _STOP_SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                signal.signal(sig, record)
    except ValueError:  # not the main thread: the handlers are not ours
        pass


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that Python's own flush at exit does not fail
    again on a pipe whose reader left or a full disk (only opens /dev/null for writing)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a test's capture: nothing to do
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _flush_stdout() -> None:
    """Flush what the command printed; a failure is a WriteError naming standard output."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        _silence_stdout()
        raise WriteError("standard output", exc) from None


def _say(message: str) -> None:
    try:
        print(message, file=sys.stderr)
    except OSError:  # stderr is gone too: the exit status still tells
        pass


def main(argv: list[str] | None = None) -> int:
    """Run ``nbayes`` with ``argv`` (default: ``sys.argv[1:]``); return the exit status.

    Exit statuses: 0 success (also when the reader of standard output goes away, as with
    ``nbayes predict ... | head``), 1 data or runtime error (a failed write included), 2 usage
    error, 130 interrupted (SIGINT, Ctrl-C), 143 terminated (SIGTERM).
    """
    stop_signals.clear()
    try:
        # The handlers come first: building the command's parser imports its module, and
        # with it numpy and pandas, which an impatient Ctrl-C may interrupt.
        with _stop_on_signals(stop_signals):
            try:
                return _parse_and_run(sys.argv[1:] if argv is None else list(argv))
            except KeyboardInterrupt:
                return _stopped(stop_signals or [signal.SIGINT])
    finally:
        stop_signals.clear()  # a later call in this process starts afresh


def _parse_and_run(argv: list[str]) -> int:
    command = command_named(argv)
    parser = build_parser(() if command is None else (command,))
    try:
        args, rest = parser.parse_known_args(argv)
        # argparse fills an optional DATA (explain, report) before the options that follow
        # MODEL, so `nbayes report model -o out.html data.csv` would refuse data.csv.
        if len(rest) == 1 and not rest[0].startswith("-") and getattr(args, "data", 0) is None:
            args.data, rest = rest[0], []
        if rest:
            parser.error(f"unrecognized arguments: {' '.join(rest)}")
    except SystemExit as stop:  # --help, --version and usage errors
        return int(stop.code or 0)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    return _run(args, stop_signals)


def _run(args, received: list[int]) -> int:
    """Run the command; ``received`` (shared with the output writer, which commits nothing
    once a signal arrived) collects SIGINT and SIGTERM."""
    try:
        with threads(getattr(args, "threads", None)), house_warnings():
            # The commands say what the library's column reading warns of themselves, in
            # their own words and options (nbayes train's choices and warnings).
            warnings.simplefilter("ignore", ColumnWarning)
            status = args._run(args)
            _flush_stdout()
    except BrokenPipeError:
        if received:
            return _stopped(received)
        # The reader went away (e.g. `nbayes predict ... | head`): it has what it wanted.
        _silence_stdout()
        return 0
    except Exception as exc:  # noqa: BLE001 - the one place that turns errors into messages
        if received:  # an interrupt that a library reported as an error of its own
            return _stopped(received)
        if args.debug:
            traceback.print_exc()
        try:
            sys.stdout.flush()  # what was printed before the error still goes out
        except OSError:
            _silence_stdout()
        status, message = _describe(exc)
        _say(f"nbayes: error: {message}")
        return status
    except KeyboardInterrupt:
        return _stopped(received or [signal.SIGINT])
    if received:  # an interrupt swallowed on the way: the work may be incomplete
        return _stopped(received)
    return status


def _stopped(received: list[int]) -> int:
    _record_signals(received)
    status, word = _STOP_SIGNALS.get(received[0], (130, "interrupted"))
    try:
        sys.stdout.flush()
    except OSError:
        _silence_stdout()
    _say(f"nbayes: {word}")
    return status
