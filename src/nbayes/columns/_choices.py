"""The readings as a table, as plain data for a model file, as text, and as warnings."""

from __future__ import annotations

import warnings

import pandas as pd

from ._coded import code_text
from ._dates import CALENDAR_PARTS
from ._reading import ColumnReading


def choices_table(readings) -> pd.DataFrame:
    """The readings as a table.

    Parameters
    ----------
    readings : iterable of ColumnReading
        The columns' readings.

    Returns
    -------
    DataFrame
        Indexed by column: ``kind``, ``family`` (``"left out"`` for an identifier) and
        ``why``.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import choices_table, read_columns
    >>> choices_table(read_columns(pd.DataFrame({"f": [0.5, 1.5]}))).loc["f"].tolist()
    ['number', 'gaussian', 'numbers (float64)']
    """
    rows = [(r.column, r.kind, r.family or "left out", r.why) for r in readings]
    table = pd.DataFrame(rows, columns=["column", "kind", "family", "why"])
    return table.set_index("column")


def choices_state(readings) -> list:
    """The readings as plain data for a model file: ``[column, kind, family, why, parts]``
    each (the calendar parts give the names of a timestamp's features)."""
    return [[r.column, r.kind, r.family, r.why, list(r.parts)] for r in readings]


def choices_from_state(state) -> list | None:
    """The readings of :func:`choices_state` (None for a file without them); ValueError
    when they are malformed."""
    if state is None:
        return None
    out = []
    for item in list(state):  # one per column of the table fitted on
        if (
            not isinstance(item, (list, tuple))
            or len(item) != 5
            or not all(isinstance(v, str) for v in (item[1], item[3]))
            or not (item[2] is None or isinstance(item[2], str))
            or not all(part in CALENDAR_PARTS for part in item[4])
        ):
            raise ValueError(f"the column choice {item!r} is malformed")
        column, kind, family, why, parts = item
        out.append(ColumnReading(column, kind, family, why, parts=tuple(parts)))
    return out


def format_choices(readings, width: int = 100) -> list[str]:
    """The choices table as text lines (for a terminal): column, kind, family, why."""
    rows = [(str(r.column), r.kind, r.family or "left out", r.why) for r in readings]
    head = ("column", "kind", "family", "why")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(3)]
    lines = []
    for row in [head, *rows]:  # one line per column of the table
        left = "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths))
        why = row[3]
        room = max(width - len(left) - 2, 20)
        lines.append(f"{left}  {why if len(why) <= room else why[: room - 3] + '...'}")
    return lines


def warn_of(readings, estimator: str, keep: str = "") -> None:
    """Warn (:class:`~nbayes.exceptions.ColumnWarning`) of the identifiers among
    ``readings``, which the estimator leaves out, in one warning that says how to keep them
    (``keep``; by default by naming one in a group of MixedNB's ``columns``), of the ranks
    it models (which could be row numbers), and of each number column that codes missing
    values.
    """
    from .._validation import user_stacklevel
    from ..exceptions import ColumnWarning

    ids = [r for r in readings if r.kind == "identifier"]
    if ids:
        labels = [r.column for r in ids]
        evidence = "; ".join(f"{r.column!r}: {r.why}" for r in ids)
        keep = keep or (
            f"To model one, name it in a group: columns=[({ids[0].kept_family!r}, "
            f"[{labels[0]!r}])] (the other columns stay 'auto')."
        )
        said = (
            f"{estimator} leaves out column(s) {labels!r}: identifiers ({evidence}), which "
            f"would let the model learn which rows belong to which class. {keep}"
        )
        warnings.warn(said, ColumnWarning, stacklevel=user_stacklevel())
    ranks = [r.column for r in readings if r.kind == "rank"]
    if ranks:
        warnings.warn(
            f"{estimator} models column(s) {ranks!r} as numbers: whole numbers distinct in "
            "every row that fill most of their range, a rank or an ordering. If one numbers "
            "the rows, leave it out of X: it would let the model learn which rows belong to "
            "which class.",
            ColumnWarning,
            stacklevel=user_stacklevel(),
        )
    for r in readings:  # bounded by the table's width
        if r.kind == "coded number":
            codes = ", ".join(map(code_text, r.codes))
            warnings.warn(
                f"Column {r.column!r} holds {codes} repeated far outside its other values, "
                "most likely a code for a missing value, modelled as a number; replace it "
                f"with NaN before fitting: df[{r.column!r}] = df[{r.column!r}].replace("
                f"[{codes}], np.nan).",
                ColumnWarning,
                stacklevel=user_stacklevel(),
            )
