"""The column layout: one component for how the fitted columns of a table become the blocks
that the families see, used by every estimator that reads columns of values (CategoricalNB on
values, MixedNB, the semi-naive models, and TextNB's text column).

A layout holds the column groups (positions in the table, one group per family), a category
vocabulary for each categorical group, the ``missing`` and ``unseen`` policies and the column
labels that errors name. It encodes a batch group by group -- category values to codes,
measurements to floats -- with the mode (see :mod:`nbayes.base`) passed as an argument, never
kept as a flag; it re-codes another model's statistics for merge, and gives its state as plain
data for model files. Errors name the column, the value and the row.
"""

from __future__ import annotations

import copy
from typing import cast

import numpy as np
import pandas as pd

from .._validation import column_label, first_true, show
from ..base import Mode, check_mode
from ..distributions.categorical import UNSEEN_CODE
from ..exceptions import DataError
from ._encoding import Vocabulary

MISSING_POLICIES = ("error", "ignore", "category")


def refuses_unseen(mode: Mode, unseen: str) -> bool:
    """Whether a value outside the vocabulary is an error: always when counting against a
    fixed set-up or unlearning, at scoring time when the ``unseen`` policy is "error", never
    when learning (the vocabulary grows)."""
    check_mode(mode)
    return mode in ("count", "unlearn") or (mode == "score" and unseen == "error")


def unseen_error(where: str, value, row: int, mode: Mode, hint: str) -> DataError:
    """The error for ``value`` at ``row`` of ``where`` (a column label), outside the
    vocabulary; ``hint`` says how to fix it at scoring time."""
    if mode == "unlearn":
        why = "so these rows cannot have been learned and cannot be unlearned"
    elif mode == "count":
        why = (
            "but the model was set up to count a fixed vocabulary (a survey of all the data "
            "should have found it); survey the same data that is counted"
        )
    else:
        why = hint
    return DataError(
        f"{where.capitalize()} has the category {show(value)} at row {row}, which no "
        f"training batch contained; {why}."
    )


def one_text_column(X, where: str = "X") -> tuple[pd.Series, object]:
    """The texts of X, one per row, and the name of their column (None where X has none):
    X is a 1-d sequence, a Series, a one-column DataFrame or an (n, 1) array."""
    if isinstance(X, (str, bytes)):
        raise DataError(
            f"{where} must be a sequence of texts, one per row; got one string. "
            "Wrap it in a list: [text]."
        )
    if isinstance(X, pd.DataFrame):
        if X.shape[1] != 1:
            raise DataError(
                f"{where} must hold one text column; got {X.shape[1]} columns "
                f"{list(X.columns)!r}. Select the text column first."
            )
        X = X.iloc[:, 0]
    if isinstance(X, pd.Series):
        return X, X.name
    arr = np.asarray(X, dtype=object)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise DataError(f"{where} must be one text per row; got an array of shape {arr.shape}.")
    return pd.Series(arr, dtype=object), None


def _cell(part, row: int, j: int):
    return part.iat[row, j] if isinstance(part, pd.DataFrame) else part[row, j]


class ColumnLayout:
    """Column groups, their vocabularies and the missing / unseen policies of one model.

    Parameters
    ----------
    positions : list of int arrays
        Positions (in the fitted table) of the columns of each group, one group per family.
    categorical : list of bool
        Which groups hold category values (they get a vocabulary).
    names : list or None
        Labels of the fitted table's columns, for messages (None: positions only).
    missing : {"error", "ignore", "category"}
        "category" reserves code 0 of every categorical column for missing cells.
    unseen : {"smooth", "ignore", "error"}
        What a category value outside the vocabulary does at scoring time.
    hint : str
        How to fix an unseen value at scoring time (the estimator's own options).

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.estimators._columns import ColumnLayout
    >>> layout = ColumnLayout([np.array([0])], [True], ["city"], "ignore", "error")
    >>> values = np.array([["Rome"], ["Oslo"]], dtype=object)
    >>> layout.encode(values, 0, "learn").ravel().tolist()
    [1, 0]
    >>> layout.encode(np.array([["Lima"]], dtype=object), 0, "score")
    Traceback (most recent call last):
    ...
    nbayes.exceptions.DataError: Column 'city' (index 0) has the category 'Lima' at row 0, ...
    """

    def __init__(
        self,
        positions,
        categorical,
        names,
        missing: str,
        unseen: str,
        hint: str = "partial_fit with it, or pass unseen='smooth' or 'ignore'",
    ):
        self.positions = [np.asarray(p, dtype=np.intp) for p in positions]
        self.names = None if names is None else list(names)
        self.missing = missing
        self.unseen = unseen
        self.hint = hint
        first_code = int(missing == "category")
        self.vocabularies: list[Vocabulary | None] = [
            Vocabulary(len(p), first_code) if cat else None
            for p, cat in zip(self.positions, categorical)
        ]

    # -- labels --------------------------------------------------------------------------------
    def label(self, p: int) -> str:
        """``column 'city' (index 3)``, or ``column index 3`` without names."""
        return column_label(int(p), self.names)

    def _vocabulary(self, g: int) -> Vocabulary:
        # Asked for categorical groups only: fit and set_state give each one a vocabulary.
        return cast(Vocabulary, self.vocabularies[g])

    # -- encoding a batch -----------------------------------------------------------------------
    def check_missing(self, part, g: int) -> None:
        """Under missing="error", a DataError naming the first missing cell of group ``g``."""
        if self.missing != "error":
            return
        mask = part.isna().to_numpy() if isinstance(part, pd.DataFrame) else pd.isna(part)
        where = first_true(mask)
        if where is not None:
            row, j = where
            raise DataError(
                f"{self.label(self.positions[g][j]).capitalize()} is missing at row {row}; got "
                f"{_cell(part, row, j)!r}. Impute or drop it, or pass missing='ignore' "
                "(marginalised, exact under the naive assumption) or 'category'."
            )

    def encode(self, part, g: int, mode: Mode, counted: np.ndarray | None = None) -> np.ndarray:
        """Category codes of group ``g``'s columns ``part`` (array or DataFrame), shape
        (n, width). ``mode="learn"`` extends the vocabulary; otherwise a value outside it is
        an error or left to the family's unseen policy (see :func:`refuses_unseen`).

        ``counted`` (learning only) marks the rows of non-zero weight. The vocabulary learns
        from those alone, as if the others were dropped: a value seen only in rows of weight
        zero gets no code (it would count in K_j and change the smoothing). Such a value is
        given code 0 in its row, which its zero weight keeps out of every count."""
        self.check_missing(part, g)
        if counted is not None:
            rows = np.flatnonzero(counted)
            self.encode(part.iloc[rows] if hasattr(part, "iloc") else part[rows], g, mode)
            vocab = self._vocabulary(g)
            codes, _ = vocab.encode(part, False, self.missing == "category", warn=False)
            codes[codes == UNSEEN_CODE] = 0
            return codes
        positions = self.positions[g]
        codes, unseen = self._vocabulary(g).encode(
            part,
            mode == "learn",
            self.missing == "category",
            lambda j: self.label(int(positions[j])),
        )
        if unseen is not None and refuses_unseen(mode, self.unseen):
            row, j = divmod(unseen, part.shape[1])
            raise unseen_error(
                self.label(self.positions[g][j]), _cell(part, row, j), row, mode, self.hint
            )
        return codes

    def texts(
        self, part, g: int, encoding: str = "utf-8", decode_error: str = "strict"
    ) -> pd.Series:
        """Group ``g``'s one text column ``part`` (a Series or 1-d array) as one str per row.

        A missing text (None, NaN) is an empty text under missing="ignore": it has no words,
        so nothing is learned or scored from it but its row (the model's choice for
        documents). Bytes are decoded as the vectoriser decodes them (``encoding``,
        ``decode_error``); other values become their text. A DataError names the column and
        the row of a text that cannot be decoded."""
        column = part if isinstance(part, pd.Series) else pd.Series(part, dtype=object)
        self.check_missing(column.to_frame(), g)
        column = column.reset_index(drop=True)
        kind = pd.api.types.infer_dtype(column, skipna=True)
        if kind not in ("string", "empty"):
            # All bytes (but missing texts) known from the inferred kind; a mixed column is
            # looked at value by value.
            if kind == "bytes":
                raw = column.notna().to_numpy()
            else:
                raw = column.map(lambda v: isinstance(v, bytes)).to_numpy(dtype=bool)
            if raw.any():
                column = column.astype(object)
                column[raw] = self._decoded(column[raw], g, encoding, decode_error)
        return column.fillna("").astype(str)

    def _decoded(self, raw: pd.Series, g: int, encoding: str, decode_error: str) -> pd.Series:
        """Bytes texts as str, or a DataError that names the first one that cannot be."""
        try:
            return raw.str.decode(encoding, decode_error)
        except LookupError:
            raise DataError(
                f"The vectorizer's encoding {encoding!r} is not one Python knows; name a codec "
                "such as 'utf-8' or 'latin-1'."
            ) from None
        except UnicodeDecodeError as exc:
            # Texts are decoded in order: the first that fails is the error's (its row found
            # by a pass that runs on this error path only).
            rows = [r for r, v in raw.items() if v is exc.object or v == exc.object][:1]
            at = f" at row {rows[0]}" if rows else ""
            raise DataError(
                f"{self.label(self.positions[g][0]).capitalize()} has a text{at} that "
                f"is not {encoding}: {exc.reason} at byte {exc.start} "
                f"({show(exc.object[:40])}). Give the vectorizer the texts' encoding "
                "(CountVectorizer(encoding='latin-1'), say), or decode_error='replace'."
            ) from None

    def numbers(self, part: pd.DataFrame, g: int, family: str) -> np.ndarray:
        """Group ``g``'s columns of a table as float64 (missing as NaN); a DataError names the
        column, the value and the row of a cell that is not a number."""
        self.check_missing(part, g)
        # A complex column converts to float64 with only a warning, dropping the imaginary
        # part: a silent wrong answer, so it goes to the error path below.
        if not any(dtype.kind == "c" for dtype in part.dtypes):
            try:
                return part.to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError):
                pass
            values = part.to_numpy(dtype=object)  # object columns mixing pd.NA with numbers
            try:
                return np.where(pd.isna(values), np.nan, values).astype(np.float64)
            except (TypeError, ValueError):
                pass
        for j in range(part.shape[1]):  # error path only: find the column that is not numeric
            col = part.iloc[:, j]
            if col.dtype.kind == "c":
                bad = ~col.isna().to_numpy()
            else:
                num = pd.to_numeric(col, errors="coerce")
                bad = (num.isna() & ~col.isna()).to_numpy()
                if num.dtype.kind == "c":  # complex numbers among other objects
                    bad = bad | (num.to_numpy().imag != 0)
            rows = np.flatnonzero(bad)
            if rows.size:
                raise DataError(
                    f"{self.label(self.positions[g][j]).capitalize()} is modelled by the "
                    f"{family} family and needs numbers; got {show(col.iat[rows[0]])} at row "
                    f"{rows[0]}. Put it in a 'categorical' group, or convert it."
                )
        raise DataError(
            f"Columns {part.columns.tolist()!r} could not be converted to real numbers (a "
            "complex number with no imaginary part, say). Put them in a 'categorical' group, "
            "or convert them."
        )

    # -- set-up from a survey -----------------------------------------------------------------
    def learn_values(self, found: dict) -> None:
        """Number surveyed values (column position -> distinct values) as a fit on all rows
        would: one learning batch per group holding every value (padding cells are missing,
        which learning skips)."""
        for g, vocab in enumerate(self.vocabularies):  # bounded by the number of groups
            if vocab is None:
                continue
            lacking = [self.label(p) for p in self.positions[g] if found.get(int(p)) is None]
            if lacking:
                raise ValueError(
                    f"no surveyed values for {', '.join(lacking)}; run the survey passes of "
                    "survey_step() first."
                )
            values = [np.asarray(found[int(p)], dtype=object) for p in self.positions[g]]
            grid = np.full((max(1, *(v.size for v in values)), len(values)), None, dtype=object)
            for j, v in enumerate(values):  # bounded by the group's width
                grid[: v.size, j] = v
            vocab.encode(grid, True, self.missing == "category")

    # -- reading the vocabularies ---------------------------------------------------------------
    def copy(self) -> ColumnLayout:
        """A copy whose vocabularies can grow without touching these (a batch that fails
        half-way restores the copy)."""
        new = copy.copy(self)
        # A snapshot (Vocabulary.__copy__) shares the append-only arrays instead of copying
        # them: a per-batch copy of a large vocabulary cost more than the batch itself.
        new.vocabularies = [None if v is None else copy.copy(v) for v in self.vocabularies]
        return new

    def with_unseen(self, unseen: str) -> ColumnLayout:
        """This layout with another ``unseen`` policy (itself when it is the same)."""
        if unseen == self.unseen:
            return self
        new = copy.copy(self)
        new.unseen = unseen
        return new

    def restricted(self, groups: list) -> tuple[ColumnLayout, list]:
        """A layout whose vocabularies hold only the categories that the statistics
        ``groups`` count, and those statistics in its codes: the layout a fit on the rows
        of ``groups`` alone would have made (model selection fits folds this way)."""
        new = copy.copy(self)
        new.vocabularies = list(self.vocabularies)
        out = []
        for g, (vocab, stats) in enumerate(zip(self.vocabularies, groups)):  # bounded: groups
            if vocab is None:
                out.append(stats)
                continue
            new.vocabularies[g], stats = vocab.restricted(stats)
            out.append(stats)
        return new, out

    def categories(self) -> dict:
        """Column position -> its category values in code order, for every categorical
        column."""
        out: dict = {}
        for pos, vocab in zip(self.positions, self.vocabularies):  # bounded by the groups
            if vocab is not None:
                out.update(zip(pos.tolist(), vocab.by_column()))
        return out

    def linear_names(self, g: int, column_names, n_categories) -> list[str]:
        """``"column=value"`` for every one-hot column of categorical group ``g``."""
        return self._vocabulary(g).linear_names(column_names, n_categories)

    # -- merging ---------------------------------------------------------------------------
    def recode(self, other: ColumnLayout, groups: list) -> list:
        """``other``'s group statistics in this layout's category codes; this layout's
        vocabularies take in the values only ``other`` has."""
        return [
            stats if mine is None or theirs is None else mine.remap_counts(theirs, stats)
            for mine, theirs, stats in zip(self.vocabularies, other.vocabularies, groups)
        ]

    # -- plain data (model files) --------------------------------------------------------------
    def vocabulary_state(self) -> list:
        """Each group's vocabulary as plain arrays with its first code (None: not
        categorical); values are unicode text with a type tag, so 1, 1.0, True and "1" come
        back as they were."""
        return [
            None if v is None else {"first_code": int(v.first_code), **v.to_arrays()}
            for v in self.vocabularies
        ]

    def set_vocabulary_state(self, specs: list) -> None:
        """Install :meth:`vocabulary_state` output (one entry per group, as the callers
        check); ValueError when an entry is malformed."""
        vocabularies: list[Vocabulary | None] = []
        for spec, pos in zip(specs, self.positions, strict=True):  # bounded by the groups
            if spec is None:
                vocabularies.append(None)
                continue
            if spec.get("first_code") not in (0, 1):
                raise ValueError("a category vocabulary is malformed.")
            parts = {k: v for k, v in spec.items() if k != "first_code"}
            vocabularies.append(Vocabulary.from_arrays(len(pos), spec["first_code"], parts))
        self.vocabularies = vocabularies
