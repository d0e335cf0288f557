"""The ``nbayes`` command: train, predict, evaluate, explain and inspect models over tables.

Each command is one module with a pure worker function (``train``, ``predict``, ...) that the
tests call directly, an ``add_parser`` that declares its options and a ``run`` that prints.
:func:`main` turns errors into ``nbayes: error: <message>`` without a traceback (``--debug``
shows it) and exit statuses: 0 success, 1 data or runtime error, 2 usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from importlib import import_module

from .._threads import threads
from ..exceptions import NBayesError, NotFittedError, ParameterError
from ._common import CLIError, UsageError
from ._tables import ReadOptions

COMMANDS = ("train", "predict", "evaluate", "explain", "inspect", "demo")

__all__ = ["COMMANDS", "CLIError", "UsageError", "main"]


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
    return ReadOptions(
        format=getattr(args, "format", None),
        sep=getattr(args, "sep", None),
        header=not getattr(args, "no_header", False),
        names=tuple(split_list(args.names)) if getattr(args, "names", None) else None,
        encoding=getattr(args, "encoding", "utf-8"),
        quoting=not getattr(args, "no_quoting", False),
        chunk_rows=getattr(args, "chunk_rows", None),
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
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
    r.add_argument("--encoding", default="utf-8", help="text encoding (default utf-8)")
    r.add_argument(
        "--no-quoting", action="store_true", help="treat quote characters as ordinary text"
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
        "--version", action="version", version=f"nbayes {__version__} ({describe()})"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = import_module(f".{name}", __name__)
        parents = (
            [general, reading] if name in ("train", "predict", "evaluate", "explain") else [general]
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
    if isinstance(exc, (NBayesError, NotFittedError, OSError, ValueError, MemoryError)):
        return 1, str(exc) or type(exc).__name__
    return 1, (
        f"unexpected {type(exc).__name__}: {exc} (this is a bug in nbayes; run with "
        "--debug for the traceback and report it)"
    )


def main(argv: list[str] | None = None) -> int:
    """Run ``nbayes`` with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, --version and usage errors
        return int(stop.code or 0)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        with threads(getattr(args, "threads", None)):
            return args._run(args)
    except KeyboardInterrupt:
        print("nbayes: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `nbayes predict ... | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as exc:  # noqa: BLE001 - the one place that turns errors into messages
        if args.debug:
            traceback.print_exc()
        status, message = _describe(exc)
        print(f"nbayes: error: {message}", file=sys.stderr)
        return status
