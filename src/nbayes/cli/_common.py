"""Pieces every command shares: error types, progress bars, plain-text tables."""

from __future__ import annotations

import re
import shlex
import sys
import unicodedata
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from .._output import same_file
from ..exceptions import NBayesError, UnseenCategoryWarning


class CLIError(NBayesError):
    """A data or runtime problem the command reports without a traceback (exit status 1)."""


class UsageError(CLIError, ValueError):
    """Options that do not fit together (exit status 2, like argparse's own errors)."""


#: The warnings said by the command now running (each is said once).
_said: set[str] = set()
#: The input columns of the model the command now running loaded (see :func:`name_inputs`).
_inputs: list[str] = []


def name_inputs(columns: Sequence[str]) -> None:
    """Tell the warnings of the command now running the input columns of its model, so
    that one about a calendar feature (``when.month``) names its date column (``when``),
    the name that ``train --exclude`` takes."""
    _inputs[:] = [str(c) for c in columns]


def say_warning(text: str, key: str | None = None) -> None:
    """Print ``nbayes: warning: TEXT`` on standard error, unless this command said it (or
    one with the same ``key``, default: the text) already."""
    key = text if key is None else key
    if key in _said:
        return
    _said.add(key)
    try:
        print(f"nbayes: warning: {text}", file=sys.stderr)
    except OSError:  # stderr is gone: the exit status still tells
        pass


#: The library's advice for an unseen category column, which the command line replaces.
_UNSEEN_ADVICE = "check that the column holds the same kind of values as at fit."
_COLUMN = re.compile(r"^[Cc]olumn '((?:[^'\\]|\\.)*)'")
_QUOTED_OR_FIGURE = re.compile(r"'(?:[^'\\]|\\.)*'|\d[\d,.]*")


def _house_text(message: Warning | str, category: type[Warning]) -> str:
    """A library warning as the command line says it: lower case first, advice that applies."""
    text = " ".join(str(message).split())
    if text[:1].isupper() and text[1:2].islower():
        text = text[0].lower() + text[1:]
    named = _COLUMN.match(text)
    if issubclass(category, UnseenCategoryWarning) and named:
        column = named[1]
        source = column
        if _inputs and column not in _inputs:
            from ..columns import input_column

            source = input_column(column, _inputs) or column
        if source != column:  # a calendar feature: the dates are new, not an identifier
            advice = (
                f"the dates of DATA fall outside those of training; if the model should not "
                f"depend on when, train it again with --exclude {shlex.quote(source)}."
            )
        else:
            advice = (
                "if the column names or numbers the rows (an identifier), train the model "
                f"again with --exclude {shlex.quote(column)}; otherwise check that DATA writes "
                "it as the training file did."
            )
        text = text.replace(_UNSEEN_ADVICE, advice)
    return text


@contextmanager
def house_warnings() -> Iterator[None]:
    """Route Python's warnings raised while a command runs to :func:`say_warning`: one
    ``nbayes: warning: ...`` line each, said once, never a file name and line number."""
    _said.clear()

    def show(message, category, filename, lineno, file=None, line=None):
        text = _house_text(message, category)
        # One per kind and column: raised for each chunk of rows, it differs in its figures
        # and examples only.
        named = _COLUMN.match(text)
        key = f"{category.__name__}:{named[1] if named else ''}:{_QUOTED_OR_FIGURE.sub('#', text)}"
        say_warning(text, key)

    with warnings.catch_warnings():
        warnings.simplefilter("always")  # said once by say_warning, not once per code line
        # What Python hides by default stays hidden: those speak to nbayes' developers (a
        # library's deprecations, a file left for the garbage collector), not to the user.
        for hidden in (
            DeprecationWarning,
            PendingDeprecationWarning,
            FutureWarning,
            ImportWarning,
            ResourceWarning,
        ):
            warnings.simplefilter("ignore", hidden)
        warnings.showwarning = show
        try:
            yield
        finally:
            _said.clear()
            _inputs.clear()


class _NoProgress:
    """Stand-in for a tqdm bar when progress is off."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def close(self) -> None:
        pass


@contextmanager
def progress_bar(enabled: bool, total: int | None = None, unit: str = "B", desc: str | None = None):
    """A tqdm progress bar on stderr, or a silent stand-in.

    Bars appear only when ``enabled`` (the caller passes ``not quiet``) and stderr is a
    terminal; piped output stays clean. tqdm is imported here, not at module level, so that
    commands that never show a bar do not pay for the import.
    """
    bar = _NoProgress()
    if enabled and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(
            total=total,
            unit=unit,
            unit_scale=unit == "B",
            unit_divisor=1024,
            desc=desc,
            leave=False,
            file=sys.stderr,
            dynamic_ncols=True,
        )
    try:
        yield bar
    finally:
        bar.close()


def format_table(rows: Sequence[Sequence], headers: Sequence[str], align: str | None = None) -> str:
    """Rows as an aligned plain-text table; ``align`` has one 'l' or 'r' per column."""
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(display_width(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)
    lines = []
    for n, row in enumerate(cells):
        padded = []
        for c, w, a in zip(row, widths, align):  # one cell per column: bounded by the width
            pad = " " * (w - display_width(c))
            padded.append(c + pad if a == "l" else pad + c)
        lines.append("  ".join(padded).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide (CJK) characters take two, combining marks
    none.

    Examples
    --------
    >>> display_width("猫"), display_width("cat"), display_width("e\u0301")
    (2, 3, 1)
    """
    if text.isascii():
        return len(text)
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def names(items, limit: int = 8) -> str:
    """A list of column names for a message, shortened after ``limit`` entries."""
    items = [str(i) for i in items]
    shown = ", ".join(repr(i) for i in items[:limit])
    more = len(items) - limit
    return f"[{shown}, ... ({more} more)]" if more > 0 else f"[{shown}]"


def plural(n: int, word: str) -> str:
    """``1 row`` / ``2 rows`` with thousands separators."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def check_output(output: str | None, **inputs: str | None) -> None:
    """Refuse an ``-o`` that names a file the command reads (``MODEL=path, DATA=path``):
    the same file by device and inode, so ``./data.csv``, a symbolic or a hard link count."""
    if output in (None, "-"):
        return
    for what, path in inputs.items():  # the command's inputs: two or three
        if path not in (None, "-") and same_file(output, path):
            raise UsageError(
                f"-o {output} is {what} ({path}), which this command reads; writing it would "
                "destroy it. Choose another output file."
            )
