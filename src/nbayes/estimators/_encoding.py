"""Tables in, numeric blocks out: DataFrame conversion, family inference and category codes.

A category vocabulary is kept per column group as three flat arrays -- the values, the column
(within the group) each value belongs to, and its code -- so encoding a column is one hash
factorisation plus a look-up of its few distinct values, with no loop over rows. Vocabularies only
grow: values are appended with the next free code of their column, so codes learned earlier
never change and statistics accumulated with them stay valid.

The look-up is a hash table per column from value to code, built once from the flat arrays
when first needed (after loading or merging) and extended as values are appended, so encoding a
batch costs the batch's distinct values, not the vocabulary: partial_fit over many chunks and
one-row predictions stay fast on vocabularies of millions of values. A column of text gets the
compiled :class:`nbayes._kernels.TextTable` where the loops are built (a probe into a dict of a
million strings costs several cache misses; the table's one or two), any other column a dict,
which answers the same.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._validation import show, user_stacklevel
from ..distributions.categorical import MISSING_CODE, UNSEEN_CODE
from ..exceptions import DataError, ModelFormatError, UnseenCategoryWarning

#: At predict, a column where more than this share of the values (and at least
#: UNSEEN_WARN_MIN_VALUES of them) is outside the vocabulary gets a UserWarning: most likely
#: the column changed meaning or type since training, which would otherwise pass silently.
UNSEEN_WARN_SHARE = 0.5
UNSEEN_WARN_MIN_VALUES = 10
_TYPE_NAMES = {"s": "str", "i": "int", "f": "float", "b": "bool", "?": "other"}


def as_frame(X, estimator: str = "MixedNB") -> pd.DataFrame:
    """Return X as a DataFrame: DataFrames pass through, pyarrow tables keep their Arrow
    dtypes, arrays get positional column labels 0 .. d-1."""
    if isinstance(X, pd.DataFrame):
        return X
    if hasattr(X, "to_pandas") and hasattr(X, "schema"):  # pyarrow Table or RecordBatch
        return X.to_pandas(types_mapper=pd.ArrowDtype)
    if sp.issparse(X):
        raise DataError(
            f"{estimator} needs a dense table; got a sparse matrix. Pass a DataFrame, or use "
            "MultinomialNB / BernoulliNB for sparse counts."
        )
    if isinstance(X, pd.Series):
        raise DataError(
            f"{estimator} needs a 2D table; got a Series. Use series.to_frame() for one column."
        )
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise DataError(
            f"Expected 2D array, got {arr.ndim}D array instead. Reshape your data with "
            "array.reshape(-1, 1) for a single feature or array.reshape(1, -1) for one sample."
        )
    if arr.dtype.kind == "c":
        raise DataError("Complex data not supported; got a complex array. Pass real values.")
    # No copy: like a DataFrame passed in, the frame is read, never written.
    frame = pd.DataFrame(arr, copy=False)
    return frame.infer_objects() if arr.dtype == object else frame


@dataclass
class Vocabulary:
    """Category values of one column group, append-only.

    Attributes
    ----------
    values : ndarray of object, shape (n_entries,)
        The category values, in the order they were learned.
    column : ndarray of int, shape (n_entries,)
        Column (index within the group) of each value.
    code : ndarray of int, shape (n_entries,)
        Code of each value within its column.
    n_columns : int
    first_code : int
        1 when code 0 is reserved for the "missing" category (missing="category"), else 0.
    """

    n_columns: int
    first_code: int = 0
    values: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=object))
    column: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    code: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    #: Per column, value -> code; built lazily from the arrays (None: not built yet).
    _lookup: list[dict] | None = field(default=None, repr=False, compare=False)

    def copy(self) -> Vocabulary:
        return Vocabulary(
            self.n_columns,
            self.first_code,
            self.values.copy(),
            self.column.copy(),
            self.code.copy(),
        )

    def __copy__(self) -> Vocabulary:
        # The arrays are never changed in place (appending makes new ones), so a snapshot
        # shares them; the look-up is extended in place, so a snapshot rebuilds its own.
        return Vocabulary(self.n_columns, self.first_code, self.values, self.column, self.code)

    def __getstate__(self) -> dict:
        # Only the flat arrays travel: the look-up is a cache rebuilt on first use. A Dask
        # worker that holds a shell sends it on to another worker while scoring with it, so
        # pickling must never see the cache being built (nor ship a million-entry dict).
        state = dict(self.__dict__)  # one C-level copy: atomic for other Python threads
        for cache in ("_lookup", "_types", "_buffers"):
            state.pop(cache, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lookup = None

    def _tables(self) -> list:
        """The per-column look-up (:func:`_new_table`: a compiled :class:`TextTable` for a
        column of text, else a dict), built from the flat arrays on first use, with the set
        of value types (:func:`_type_tag`) of each column beside it."""
        if self._lookup is None:
            # Built aside and published last: another thread scoring with this model (or
            # pickling it for a Dask worker) never sees a half-filled look-up, which would
            # score known values as unseen.
            lookup: list = []
            tags: list[set[str]] = []
            order = np.argsort(self.column, kind="stable")
            split = np.cumsum(np.bincount(self.column, minlength=self.n_columns))[:-1]
            for values, codes in zip(  # bounded by the group's width
                np.split(self.values[order], split), np.split(self.code[order], split)
            ):
                keys = values.tolist()
                tags.append(_type_tags(keys))
                lookup.append(_new_table(keys, codes, tags[-1]))
            self._types = tags
            self._lookup = lookup
        return self._lookup

    def n_categories(self) -> np.ndarray:
        """Number of codes per column, including the reserved missing code."""
        if self._lookup is None:
            return np.bincount(self.column, minlength=self.n_columns) + self.first_code
        return np.array([len(t) for t in self._lookup], dtype=np.int64) + self.first_code

    def categories(self, j: int) -> np.ndarray:
        """Values of column ``j`` in code order (object array)."""
        mine = self.column == j
        return self.values[mine][np.argsort(self.code[mine], kind="stable")]

    def by_column(self) -> list[np.ndarray]:
        """Values of every column in code order (object arrays), one sort for all columns."""
        order = np.lexsort((self.code, self.column))
        split = np.cumsum(np.bincount(self.column, minlength=self.n_columns))[:-1]
        return np.split(self.values[order], split)

    def encode(
        self, values, learn: bool, missing_as_category: bool, describe=None, warn: bool = True
    ):
        """Codes of an (n, d) table (array or DataFrame); extends the vocabulary when ``learn``.

        Returns ``(codes, first_unseen)``: int64 codes of shape (n, d) with -1 for missing
        (0 under ``missing_as_category``) and UNSEEN_CODE for values outside the vocabulary,
        and the flat (row-major) index of the first unseen cell (None when there is none).
        Columns are factorised one at a time, straight from a DataFrame's own storage (Arrow
        strings stay Arrow), so temporaries stay at one column: a whole-group object array
        would cost a pointer and a Python object per cell.

        When not learning, values of another type than a column's vocabulary are matched by
        what they unambiguously stand for (:meth:`_coerce`: the number 7 for the text "7" and
        the reverse), and a column where most values are still unseen gets a UserWarning that
        names it through ``describe(j)`` (default ``"column index j"``) unless ``warn`` is
        False.
        """
        integers = _integer_block(values)
        if integers is not None:
            fast = self._encode_integers(integers, learn, describe, warn, values)
            if fast is not None:
                return fast
        n, d = values.shape
        codes = np.empty((n, d), dtype=np.int64)
        first_unseen = None
        for j in range(d):  # bounded by the group's width
            column = values.iloc[:, j] if isinstance(values, pd.DataFrame) else values[:, j]
            cell, unseen, missing = self._encode_column(j, column, learn, missing_as_category)
            if warn and not learn:
                self._warn_unseen(j, column, unseen, missing, describe)
            cell[unseen] = UNSEEN_CODE
            codes[:, j] = cell
            if unseen.any():
                flat = int(np.argmax(unseen)) * d + j
                first_unseen = flat if first_unseen is None else min(first_unseen, flat)
        return codes, first_unseen

    def _encode_integers(self, X: np.ndarray, learn: bool, describe, warn: bool, values):
        """:meth:`encode` of an integer block (no missing values) without hashing: the
        distinct values of each column are found by counting the cells of each value over
        the column's range, and the codes written through a table over those ranges, each a
        single compiled pass over the rows. The values' codes come from the same look-up
        (:meth:`_codes_of`, :meth:`_append`, :meth:`_coerce`) as in the general path, so the
        codes are the same. None (use the general path) where the loops are not built or
        the ranges are much wider than the block. ``values`` is the block as given (for the
        examples of warnings)."""
        from .._accel import kernels

        compiled = kernels()
        n, d = X.shape
        if compiled is None or not X.size:
            return None
        low, high = X.min(axis=0), X.max(axis=0)
        span = high - low + 1
        if span.sum() > 2 * X.size + 65536:
            return None
        offsets = np.concatenate([[0], np.cumsum(span)[:-1]]).astype(np.int64)
        counts = np.zeros(int(span.sum()), dtype=np.int64)
        compiled.present_values(X, low, offsets, counts)
        table = np.full(counts.size, UNSEEN_CODE, dtype=np.int64)
        any_unseen = False
        for j in range(d):  # bounded by the group's width
            at = slice(int(offsets[j]), int(offsets[j] + span[j]))
            present = np.flatnonzero(counts[at])
            uniques = present + low[j]  # increasing, as factorize(sort=True) gives them
            code_of = self._codes_of(j, uniques)
            if learn and (code_of < 0).any():
                new = code_of < 0
                code_of[new] = self._append(j, uniques, new)
            elif not learn and (code_of < 0).any():
                self._coerce(j, uniques, code_of)
            unseen = code_of < 0
            if unseen.any():
                any_unseen = True
                count = int(counts[at][present[unseen]].sum())
                if warn and not learn and count > UNSEEN_WARN_SHARE * n:
                    mask = np.isin(X[:, j], uniques[unseen])
                    column = values.iloc[:, j] if hasattr(values, "iloc") else values[:, j]
                    self._warn_unseen(j, column, mask, np.zeros(n, dtype=bool), describe)
                code_of[unseen] = UNSEEN_CODE
            table[offsets[j] + present] = code_of
        codes = np.empty((n, d), dtype=np.int64)
        compiled.look_up_values(X, low, offsets, table, codes)
        first_unseen = None
        if any_unseen:
            first_unseen = int(np.argmax((codes == UNSEEN_CODE).ravel()))
        return codes, first_unseen

    def _encode_column(self, j: int, column, learn: bool, missing_as_category: bool):
        """Codes of one column (missing: MISSING_CODE or 0, unseen: marked), the unseen
        mask and the missing mask. Sorting a learning batch's values makes a first fit's
        codes follow the values' order (as scikit-learn's OrdinalEncoder does); later
        batches append."""
        try:
            cell_value, uniques = pd.factorize(column, sort=learn)
        except TypeError:  # values that cannot be ordered: keep first-appearance order
            try:
                cell_value, uniques = pd.factorize(column)
            except TypeError as exc:
                raise DataError(
                    f"Category values must be hashable (strings, numbers, booleans); {exc}. "
                    "Convert the column, e.g. df[col].astype(str)."
                ) from None
        # NaN, None, pd.NA and NaT factorise to -1.
        missing = cell_value < 0
        code_of = self._codes_learning(j, uniques) if learn else self._codes_of(j, uniques)
        if not learn and (code_of < 0).any():
            # Only when not learning: fit on the same rows keeps "7" and 7 apart, and
            # partial_fit must agree with it.
            self._coerce(j, uniques, code_of)
        # Missing cells (-1) read the last entry here and are overwritten below.
        cell = code_of[cell_value] if code_of.size else np.full(len(column), -1, np.int64)
        unseen = (cell < 0) & ~missing
        cell[missing] = 0 if missing_as_category else MISSING_CODE
        return cell, unseen, missing

    def _codes_of(self, j: int, uniques) -> np.ndarray:
        """Code in column ``j`` of each value of ``uniques`` (-1: not in the vocabulary).

        One hash probe per distinct value of the batch (dict.get mapped in C), whatever the
        size of the vocabulary. Values compare as Python values, as pandas' hashing does
        (1 == 1.0 == True; NaN never reaches here: factorize marks it missing)."""
        if not len(uniques) or (self._lookup is None and not np.any(self.column == j)):
            # Nothing to find (a first fit): no look-up is built, which fit never needs.
            return np.full(len(uniques), -1, dtype=np.int64)
        table = self._tables()[j]
        if not len(table):
            return np.full(len(uniques), -1, dtype=np.int64)
        return _find(table, _python_values(uniques))

    def _codes_learning(self, j: int, uniques) -> np.ndarray:
        """Code in column ``j`` of each value of ``uniques`` (distinct values), appending
        those the vocabulary lacks with fresh codes in the order of ``uniques``. A column of
        text with a compiled table does both in one probe per value."""
        table = None if self._lookup is None else self._lookup[j]
        if len(uniques) and table is not None and not isinstance(table, dict):
            # One conversion (Arrow text becomes Python str once) for the probes and the
            # values appended.
            values = np.asarray(uniques, dtype=object)
            try:
                code_of, new = table.find_or_add(values.tolist(), int(self.n_categories()[j]))
            except TypeError:  # a value that is not text: the general path below
                pass
            else:
                if new.any():
                    self._record(j, values[new])
                return code_of
        code_of = self._codes_of(j, uniques)
        if (code_of < 0).any():
            new = code_of < 0
            code_of[new] = self._append(j, uniques, new)
        return code_of

    def _coerce(self, j: int, uniques, code_of: np.ndarray) -> None:
        """Fill ``code_of`` for values of ``uniques`` outside the vocabulary whose type differs
        from that of every value of column ``j``, when they unambiguously stand for a value it
        holds: numbers for a column of text ("7" for 7, "2.5" for 2.5, "3" for 3.0 when the
        column holds "3" but not "3.0"), text for a column of numbers ("7" -> 7, "2.5" -> 2.5).
        A CSV read with other types at predict than at fit then still matches."""
        table = self._tables()[j]
        types = self._types[j]
        if types not in ({"s"}, {"i"}, {"f"}, {"i", "f"}):
            return  # an empty, mixed or boolean vocabulary: no unambiguous reading
        miss = np.flatnonzero(code_of < 0)
        values = np.asarray(_python_values(uniques), dtype=object)[miss]
        tags = np.array(list(map(_type_tag, values)), dtype="<U1")
        if types == {"s"}:
            ints, floats = tags == "i", tags == "f"
            text = np.full(values.size, None, dtype=object)
            text[ints] = values[ints].astype(str)
            x = values[floats].astype(np.float64)
            whole = np.isfinite(x) & (x == np.round(x))
            as_int = np.where(whole, x, 0).astype(np.int64).astype(str).astype(object)
            as_float = x.astype(str).astype(object)
            # 3.0 is "3.0" if the column holds that, else "3"; both present: ambiguous.
            exact, short = _find(table, as_float.tolist()), _find(table, as_int.tolist())
            short[~whole] = -1
            none = np.array(None, dtype=object)
            pick = np.where(exact >= 0, as_float, np.where(short >= 0, as_int, none))
            pick[(exact >= 0) & (short >= 0) & (exact != short)] = None
            text[floats] = pick
            keys = text
        else:
            keys = np.full(values.size, None, dtype=object)
            words = tags == "s"
            number = pd.to_numeric(pd.Series(values[words], dtype=object), errors="coerce")
            keys[words] = number.to_numpy(dtype=np.float64, na_value=np.nan)
        # None (no reading) is never a key: missing values are not in the vocabulary.
        code_of[miss] = _find(table, keys.tolist())

    def _warn_unseen(self, j: int, column, unseen: np.ndarray, missing, describe) -> None:
        """UserWarning when most observed values of a column at predict are unseen."""
        observed, count = int(missing.size - missing.sum()), int(unseen.sum())
        if observed < UNSEEN_WARN_MIN_VALUES or count <= UNSEEN_WARN_SHARE * observed:
            return
        row = int(np.argmax(unseen))
        example = column.iloc[row] if hasattr(column, "iloc") else column[row]
        known = self.categories(j)[:3].tolist()
        self._tables()  # the value types are kept beside the look-up
        seen_types = ", ".join(sorted(_TYPE_NAMES[t] for t in self._types[j])) or "nothing"
        where = describe(j) if describe is not None else f"column index {j}"
        warnings.warn(
            f"{where[0].upper()}{where[1:]}: {count} of its {observed} values "
            f"({count / observed:.0%}) were never seen in training, e.g. {show(example)} of "
            f"type {type(example).__name__}; training saw {seen_types} values such as "
            f"{', '.join(show(v) for v in known)}. They are scored as unseen categories: "
            "check that the column holds the same kind of values as at fit.",
            UnseenCategoryWarning,
            stacklevel=user_stacklevel(),
        )

    def _append(self, j: int, uniques, new: np.ndarray) -> np.ndarray:
        """Add the ``new`` values of ``uniques`` to column ``j`` with fresh codes, in the
        order of ``uniques``; return those codes."""
        added = np.asarray(uniques[np.flatnonzero(new)], dtype=object)
        first = int(self.n_categories()[j])
        codes = first + np.arange(added.size, dtype=np.int64)
        if self._lookup is not None:  # else built when first needed (fit never needs it)
            keys = _python_values(added)
            table = self._lookup[j]
            try:
                _add(table, keys, codes)
            except TypeError:  # a value that is not text: this column's look-up is a dict
                mine = self.column == j
                table = dict(zip(self.values[mine].tolist(), self.code[mine].tolist()))
                table.update(zip(keys, codes.tolist()))
                self._lookup[j] = table
        self._record(j, added, first)
        return codes

    def _record(self, j: int, added: np.ndarray, first: int | None = None) -> None:
        """Append ``added`` (object array), which the look-up of column ``j`` already maps to
        the next free codes of the column, to the flat arrays and the column's value types."""
        if first is None:
            first = int(self.n_categories()[j]) - added.size  # the look-up counts them
        if self._lookup is not None:
            self._types[j].update(_type_tags(added.tolist()))
        self.values = self._extend("values", added)
        self.column = self._extend("column", np.full(added.size, j, dtype=np.int64))
        self.code = self._extend("code", first + np.arange(added.size, dtype=np.int64))

    def _extend(self, name: str, added: np.ndarray) -> np.ndarray:
        """``getattr(self, name)`` followed by ``added``, in a buffer that doubles when full:
        appending chunk after chunk then copies each value about twice in all, not once per
        chunk. The result is a view of the first entries of the buffer, so a snapshot taken
        before (:meth:`__copy__`, which shares the arrays but not the buffers) never sees
        what is written after its end."""
        current = getattr(self, name)
        buffers = self.__dict__.setdefault("_buffers", {})
        buf, n = buffers.get(name), current.size
        if buf is None or current.base is not buf or buf.size < n + added.size:
            buf = np.empty(max(2 * (n + added.size), 256), dtype=current.dtype)
            buf[:n] = current
            buffers[name] = buf
        buf[n : n + added.size] = added
        return buf[: n + added.size]

    def linear_names(self, column_names, n_categories: np.ndarray) -> list[str]:
        """``"column=value"`` for every (column, code) of a flat categorical layout with
        ``n_categories`` codes per column; the reserved missing code reads ``<missing>`` and
        codes without a value (``min_categories``) read as the number."""
        from ..distributions.categorical import offsets_of

        n_categories = np.asarray(n_categories)
        off = offsets_of(n_categories)
        feature = np.repeat(np.arange(n_categories.size), n_categories)
        code = np.arange(feature.size) - off[feature]
        label = code.astype(str).astype(object)
        if self.first_code:
            label[off] = "<missing>"
        inside = self.code < n_categories[self.column]
        label[off[self.column[inside]] + self.code[inside]] = self.values[inside].astype(str)
        return [f"{column_names[f]}={v}" for f, v in zip(feature.tolist(), label.tolist())]

    # -- merging ----------------------------------------------------------------------------
    def absorb(self, other: Vocabulary) -> np.ndarray:
        """Append the values of ``other`` that this vocabulary lacks (in ``other``'s code
        order); return the code here of each of ``other``'s entries."""
        value_id, _ = pd.factorize(np.concatenate([self.values, other.values]))
        mine, theirs = value_id[: self.values.size], value_id[self.values.size :]
        width = int(value_id.max(initial=0)) + 1
        pos = pd.Index(self.column * width + mine).get_indexer(other.column * width + theirs)
        new = np.flatnonzero(pos < 0)
        new = new[np.lexsort((other.code[new], other.column[new]))]
        new_col = other.column[new]
        rank = np.arange(new_col.size) - np.searchsorted(new_col, new_col, side="left")
        new_code = self.n_categories()[new_col] + rank
        codes = np.zeros(other.code.size, dtype=np.int64)
        hit = pos >= 0
        codes[hit] = self.code[pos[hit]]
        codes[new] = new_code
        self.values = np.concatenate([self.values, other.values[new]])
        self.column = np.concatenate([self.column, new_col])
        self.code = np.concatenate([self.code, new_code])
        self._lookup = None  # rebuilt on the next look-up
        return codes

    def remap_counts(self, other: Vocabulary, stats: dict) -> dict:
        """Re-express categorical statistics coded with ``other`` in this vocabulary's codes
        (after :meth:`absorb`), so that they can be merged with statistics coded here."""
        from ..distributions.categorical import offsets_of

        new_code = self.absorb(other)
        n_cat_old = np.asarray(stats["n_categories"])
        off_old = offsets_of(n_cat_old)
        target = np.full(int(n_cat_old.sum()), -1, dtype=np.int64)
        keep = other.code < n_cat_old[other.column]
        target[off_old[other.column[keep]] + other.code[keep]] = new_code[keep]
        if self.first_code:  # the reserved "missing" code keeps its place
            target[off_old] = 0
        feature = np.repeat(np.arange(n_cat_old.size), n_cat_old)
        counts = np.asarray(stats["n_counts"])
        orphan = (target < 0) & counts.any(axis=0)
        if orphan.any():
            raise ModelFormatError(
                "Cannot merge: category statistics refer to codes that no vocabulary entry "
                "names; the model is corrupt."
            )
        n_cat_new = np.maximum(self.n_categories(), n_cat_old)
        out = np.zeros((counts.shape[0], int(n_cat_new.sum())))
        used = target >= 0
        out[:, offsets_of(n_cat_new)[feature[used]] + target[used]] = counts[:, used]
        return {**stats, "n_counts": out, "n_categories": n_cat_new.astype(np.int64)}

    def restricted(self, stats: dict) -> tuple[Vocabulary, dict]:
        """This vocabulary without the values that categorical ``stats`` (coded here) do not
        count, renumbered, and the statistics in the new codes: what a fit on the rows of
        ``stats`` alone would have learned. The reserved "missing" code stays; a column
        with no value left keeps one empty category, as a fit that saw none of it has."""
        from ..distributions.categorical import offsets_of

        n_cat = np.asarray(stats["n_categories"])
        counts = np.asarray(stats["n_counts"])
        off = offsets_of(n_cat)
        feature = np.repeat(np.arange(n_cat.size), n_cat)
        local = np.arange(int(n_cat.sum())) - off[feature]
        observed: np.ndarray = np.asarray(counts.any(axis=0))
        keep = observed | (local < self.first_code)
        empty = np.bincount(feature[keep], minlength=n_cat.size) == 0
        keep[off[empty]] = True
        n_kept = np.bincount(feature[keep], minlength=n_cat.size)
        new_flat = np.cumsum(keep) - 1
        inside = self.code < n_cat[self.column]
        flat = np.where(inside, off[self.column] + np.where(inside, self.code, 0), 0)
        entry = inside & observed[flat]
        column = self.column[entry]
        code = new_flat[flat[entry]] - offsets_of(n_kept)[column]
        vocab = Vocabulary(self.n_columns, self.first_code, self.values[entry], column, code)
        return vocab, {
            **stats,
            "n_counts": counts[:, keep],
            "n_categories": n_kept.astype(np.int64),
        }

    # -- model files -----------------------------------------------------------------------
    def to_arrays(self) -> dict[str, np.ndarray]:
        """Arrays without object dtype: values as unicode text plus a one-letter type tag."""
        kinds = (
            np.array([_type_tag(v) for v in self.values], dtype="<U1")
            if self.values.size
            else np.empty(0, dtype="<U1")
        )
        if (kinds == "?").any():
            bad = self.values[np.argmax(kinds == "?")]
            raise ModelFormatError(
                f"Category value {bad!r} of type {type(bad).__name__} cannot be written to a "
                "model file (supported: str, int, float, bool). Convert the column, e.g. "
                "df[col].astype(str), before fitting."
            )
        text = self.values.astype(str) if self.values.size else np.empty(0, dtype="<U1")
        return {
            "values": text,
            "kinds": kinds,
            "column": self.column.astype(np.int64),
            "code": self.code.astype(np.int64),
        }

    @classmethod
    def from_arrays(cls, n_columns: int, first_code: int, arrays: dict) -> Vocabulary:
        text, kinds = np.asarray(arrays["values"]), np.asarray(arrays["kinds"])
        column, code = np.asarray(arrays["column"]), np.asarray(arrays["code"])
        if (
            not (text.shape == kinds.shape == column.shape == code.shape and text.ndim == 1)
            or text.dtype.kind != "U"
            or column.dtype.kind != "i"
            or code.dtype.kind != "i"
            or (column.size and (column.min() < 0 or column.max() >= n_columns))
        ):
            raise ModelFormatError("Category vocabulary arrays are inconsistent or corrupt.")
        values = np.empty(text.size, dtype=object)
        for tag, convert in _FROM_TEXT.items():  # bounded: four value types
            sel = kinds == tag
            if sel.any():
                values[sel] = convert(text[sel])
        if (~np.isin(kinds, list(_FROM_TEXT))).any():
            raise ModelFormatError("Category vocabulary has an unknown value type tag.")
        # Codes of each column must be first_code, first_code + 1, ... with no gap or repeat.
        order = np.lexsort((code, column))
        col_sorted = column[order]
        rank = np.arange(code.size) - np.searchsorted(col_sorted, col_sorted, side="left")
        if np.any(code[order] != rank + first_code):
            raise ModelFormatError("Category vocabulary codes are not consecutive per column.")
        vocab = cls(n_columns, first_code, values, column.astype(np.int64), code.astype(np.int64))
        vocab._tables()
        if np.any(vocab.n_categories() != np.bincount(column, minlength=n_columns) + first_code):
            raise ModelFormatError("Category vocabulary repeats a value within a column.")
        return vocab


def _integer_block(values) -> np.ndarray | None:
    """``values`` as a C-ordered int64 array when it is a block of plain integers (an integer
    array, or a DataFrame of numpy integer columns), else None. Unsigned 64-bit values that
    do not fit int64 get None too."""
    if isinstance(values, pd.DataFrame):
        if not len(values.columns) or not all(
            isinstance(t, np.dtype) and t.kind in "iu" for t in values.dtypes
        ):
            return None
        values = values.to_numpy()
    if not isinstance(values, np.ndarray) or values.ndim != 2 or values.dtype.kind not in "iu":
        return None
    if values.dtype == np.uint64 and values.size and values.max() > np.iinfo(np.int64).max:
        return None
    return np.ascontiguousarray(values, dtype=np.int64)


def _python_values(values) -> list:
    """Values as a list of Python objects (numpy scalars become int, float, str, bool), so
    that they hash and compare like the values kept in the look-up."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        return values.tolist()
    return np.asarray(values, dtype=object).tolist()


def _new_table(keys: list, codes: np.ndarray, tags: set[str]):
    """Look-up from ``keys`` (Python values) to ``codes``: the compiled :class:`TextTable`
    where the loops are built and every key is text (it answers as a dict would, several
    times faster on a large vocabulary), else a dict."""
    from .._accel import kernels

    compiled = kernels()
    if compiled is not None and tags <= {"s"}:
        table = compiled.TextTable()
        try:
            table.add(keys, np.ascontiguousarray(codes, dtype=np.int64))
            return table
        except TypeError:  # text with no UTF-8 form (a lone surrogate): a dict
            pass
    return dict(zip(keys, np.asarray(codes).tolist()))


def _find(table, keys: list) -> np.ndarray:
    """Code of each of ``keys`` in a look-up of :func:`_new_table` (-1: not held)."""
    if isinstance(table, dict):
        # (np.array of a list: faster here than np.fromiter)
        return np.array(list(map(table.get, keys, repeat(-1))), dtype=np.int64)
    return table.lookup(keys)


def _add(table, keys: list, codes: np.ndarray) -> None:
    """Add ``keys`` with their ``codes`` to a look-up of :func:`_new_table`; TypeError, with
    the look-up unchanged, where a compiled table cannot hold one of them."""
    if isinstance(table, dict):
        table.update(zip(keys, codes.tolist()))
    else:
        table.add(keys, np.ascontiguousarray(codes, dtype=np.int64))


def _type_tags(values) -> set[str]:
    """The set of :func:`_type_tag` of ``values``: one tag per distinct Python type, found
    with the builtin ``type`` mapped in C rather than a Python call per value."""
    return {_tag_of_type(kind) for kind in set(map(type, values))}


def _type_tag(v) -> str:
    return _tag_of_type(type(v))


def _tag_of_type(kind: type) -> str:
    if issubclass(kind, (bool, np.bool_)):
        return "b"
    if issubclass(kind, (int, np.integer)):
        return "i"
    if issubclass(kind, (float, np.floating)):
        return "f"
    if issubclass(kind, str):
        return "s"
    return "?"


_FROM_TEXT = {
    "s": lambda t: t.astype(object),
    "i": lambda t: t.astype(np.int64).astype(object),
    "f": lambda t: t.astype(np.float64).astype(object),
    "b": lambda t: (t == "True").astype(object),
}
