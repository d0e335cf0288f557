"""Identifiers: row labels and codes, which a model leaves out."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ._strings import _strings, string_profile

#: Rows a column must have before values distinct in every row make it an identifier: with
#: a name like a row index, or strings (a category distinct in every row says nothing of
#: new rows); and whole numbers filling half their range without such a name (n values of
#: a measure drawn from a span of 2n are all distinct with a chance of about exp(-n/4),
#: under 0.1 % from 30 rows).
ID_ROWS_NAMED, ID_ROWS = 20, 30
#: Words a value may have in a column of names or codes distinct in every row, the share of
#: values that must keep to it (a few longer names: "Papua New Guinea" among countries), and
#: the share of values one word may appear in (a word in most values, "Main street", "Oak
#: street", makes short text, not names).
ID_WORDS, ID_WORDS_SHARE, ID_COMMON_WORD = 2, 0.9, 0.5
#: Share of the range between the least and greatest value that distinct whole numbers must
#: fill to be row numbers (a 70 % shuffled split of 1..n fills 70 % of it).
ID_DENSITY = 0.5
#: Names of a row index or a row identifier, compared in lower case without spaces, dots,
#: dashes and underscores.
ID_NAMES = frozenset({"", "id", "rownames", "rowname", "index", "rowid", "rownumber", "row"})
#: Names of a code that identifies a row (compared as :data:`ID_NAMES`): short forms of an
#: identifier (``PID``), and endings of a number's or a code's name (``distcod``, ``case_nr``)
#: on names longer than four letters.
CODE_NAMES = frozenset({"pid", "uid", "sid", "cid", "fid", "gid", "oid", "uuid", "guid"})
#: Names of a time or a rank (compared as :data:`ID_NAMES`, or ending in ``year`` or
#: ``rank``): whole numbers distinct in every row under such a name fill their range as row
#: numbers do, but are the years of a yearly series or an ordering, which are measures
#: (Ecdat/bankingCrises' ``year``, datasets/Nile's ``time``, HSAUR/Forbes2000's ``rank``).
MEASURE_NAMES = frozenset({"year", "yr", "time", "date", "period", "rank", "ranking"})
#: Names under which whole numbers distinct in every row that fill half their range are row
#: numbers (compared as :data:`ID_NAMES`): R's row names read back (``X``), an observation's
#: or a case's number (``obs``, ``idcase``, ``case_no``), a counter, a key. Under any other name
#: (HistData/Guerry's ``Wealth``, a rank of 1..86) such numbers are kept, with a warning: a
#: rank or an ordering is a measure, and only the name tells it from a row number.
ROW_NUMBER_NAMES = frozenset(
    {"x", "i", "n", "no", "nr", "num", "number", "idx", "line", "key", "pk"}
)
ROW_NUMBER_STEMS = ("id", "obs", "case", "row", "seq", "record")
CODE_ENDINGS = ("nr", "cod", "code")
#: Endings that are also the end of ordinary words (``casino``, ``maximum``): a code's name only
#: after a separator or a capital (``case_no``, ``DocNum``) or after a word of
#: :data:`CODE_STEMS` (``docno``).
WORD_ENDINGS = ("no", "num")
CODE_STEMS = frozenset(
    {
        "doc",
        "case",
        "row",
        "id",
        "serial",
        "item",
        "order",
        "record",
        "ticket",
        "invoice",
        "account",
        "patient",
        "subject",
        "sample",
        "file",
        "ref",
        "seq",
        "obs",
        "unit",
    }
)
#: A number written with a sign, separators or a unit ("1.234,5", "12%", "$3"): never a code.
_WRITTEN_NUMBER = r"(?!\d+$)[\s+\-$€£¥]*[\d.,' ]*\d[\d.,' ]*[\s%$€£¥]*"


def _name_key(name) -> str:
    return re.sub(r"[\s._-]+", "", str(name)).lower()


def looks_like_index_name(name) -> bool:
    """Whether a column name is that of a row index or a row identifier: ``id``, ``ID``,
    ``rownames``, ``index``, ``Unnamed: 0`` (an unnamed header cell, as pandas reads it),
    or a name ending in ``_id`` / `` id`` (``patient_id``)."""
    text = str(name)
    key = _name_key(text)
    return (
        key in ID_NAMES
        or text.startswith("Unnamed: ")
        or bool(re.search(r"(^|[\s._-])(id|ID|Id)$", text))
    )


def looks_like_code_name(name) -> bool:
    """Whether a column name is that of a code: :data:`CODE_NAMES`, a name of more than four
    letters ending in one of :data:`CODE_ENDINGS`, or one of :data:`WORD_ENDINGS` as a word
    of its own (see there)."""
    key = _name_key(name)
    if key in CODE_NAMES or (len(key) > 4 and key.endswith(CODE_ENDINGS)):
        return True
    for ending in WORD_ENDINGS:
        if len(key) > len(ending) + 1 and key.endswith(ending):
            text = str(name)
            apart = re.search(rf"[\s._-]{ending}$", text, re.I) or text.endswith(
                ending.capitalize()
            )
            if apart or key[: -len(ending)] in CODE_STEMS:
                return True
    return False


def looks_like_measure_name(name) -> bool:
    """Whether a column name is that of a time or a rank (:data:`MEASURE_NAMES`): ``year``,
    ``Year``, ``birth_year``, ``time``, ``rank``."""
    key = _name_key(name)
    return key in MEASURE_NAMES or key.endswith(("year", "rank"))


def looks_like_row_number_name(name) -> bool:
    """Whether whole numbers distinct in every row and filling half their range are row
    numbers under this name: a row index's or a code's name, :data:`ROW_NUMBER_NAMES`, or
    a name starting with one of :data:`ROW_NUMBER_STEMS` (``obs``, ``idcase``,
    ``caseno``)."""
    key = _name_key(name)
    return (
        looks_like_index_name(name)
        or looks_like_code_name(name)
        or key in ROW_NUMBER_NAMES
        or key.startswith(ROW_NUMBER_STEMS)
    )


def _dense(numbers: np.ndarray) -> float:
    """The share of the range between the least and greatest of ``numbers`` they fill."""
    return numbers.size / (float(numbers.max()) - float(numbers.min()) + 1)


def _filling(numbers: np.ndarray) -> str:
    return (
        f"whole numbers distinct in all {numbers.size:,} rows, filling {_dense(numbers):.0%} "
        f"of the range {int(numbers.min()):,}..{int(numbers.max()):,}"
    )


def rank_evidence(name, values: pd.Series, n_rows: int) -> str | None:
    """The evidence that an integer column is a rank (kept, with a warning), or None: whole
    numbers distinct in every row (at least :data:`ID_ROWS`) filling half their range, as
    row numbers do, under a name that is neither a row number's nor a time's or a rank's
    (those are read as what they say)."""
    if getattr(values.dtype, "kind", "O") not in "iu" or n_rows < ID_ROWS:
        return None
    if looks_like_row_number_name(name) or looks_like_measure_name(name):
        return None
    present = values.dropna()
    if len(present) != n_rows:
        return None
    numbers = present.to_numpy(dtype=np.int64)
    if np.unique(numbers).size != n_rows or _dense(numbers) < ID_DENSITY:
        return None
    return f"{_filling(numbers)}: a rank or an ordering, or row numbers"


def _row_names(name, values: pd.Series) -> bool:
    """Numbers with a fraction that are row labels: named like a row index or an identifier
    (not ``index``: a price index is a measure), none negative, each with one decimal at
    most (R's row names of a subset, ``17.1``, ``17.2``, or a subject's ``6.1``)."""
    if not looks_like_index_name(name) or _name_key(name) == "index":
        return False
    x = values.to_numpy(dtype=np.float64)
    return bool(np.isfinite(x).all() and x.min() >= 0 and np.allclose(x * 10, np.round(x * 10)))


def _whole(values: pd.Series) -> np.ndarray | None:
    """The values (of a number column) as int64 when they are all whole numbers (an integer
    dtype, or floats without a fraction), else None."""
    if getattr(values.dtype, "kind", "O") in "iu":
        return values.to_numpy(dtype=np.int64)
    x = values.to_numpy(dtype=np.float64)
    if np.isfinite(x).all() and (x == np.round(x)).all() and np.abs(x).max() < 2**53:
        return x.astype(np.int64)
    return None


def _identifier(name, values: pd.Series, n_rows: int) -> str | None:
    """The evidence that a column is an identifier, or None (see the module's table)."""
    present = values.dropna()
    if len(present) != n_rows or n_rows < ID_ROWS_NAMED:
        return None  # an identifier labels every row
    named = looks_like_index_name(name)
    kind = getattr(values.dtype, "kind", "O")
    numbers = _whole(present) if kind in "iuf" else None
    if kind in "iuf" and numbers is None:
        if _row_names(name, present) and present.nunique() == n_rows:
            return f"named like a row index, values distinct in all {n_rows:,} rows"
        return None  # measurements: floats with a fraction are never identifiers otherwise
    if numbers is not None:
        if np.unique(numbers).size != n_rows:
            return None
        if named:
            return f"named like a row index, whole numbers distinct in all {n_rows:,} rows"
        if looks_like_code_name(name):
            return f"named like a code, whole numbers distinct in all {n_rows:,} rows"
        if kind == "f" or n_rows < ID_ROWS or looks_like_measure_name(name):
            return None
        if not looks_like_row_number_name(name):
            return None  # under another name: a rank (see rank_evidence)
        if _dense(numbers) >= ID_DENSITY:
            return f"{_filling(numbers)}: row numbers"
        return None
    strings = _strings(present)
    if strings is None or strings.nunique() != len(strings) or present.nunique() != n_rows:
        return None
    if named:
        return f"named like a row index, values distinct in all {n_rows:,} rows"
    if (
        (strings.str.split().str.len() <= ID_WORDS).mean() >= ID_WORDS_SHARE
        and _most_common_word_share(strings) <= ID_COMMON_WORD
        and not strings.str.fullmatch(_WRITTEN_NUMBER).all()
        and string_profile(strings).role == "category"  # words that recur are short text
    ):
        return f"names or codes distinct in all {n_rows:,} rows"
    return None


def _most_common_word_share(strings: pd.Series) -> float:
    """The share of values that hold the most frequent word (counted once per value)."""
    words = strings.str.lower().str.split().map(set).explode().dropna()
    return float(words.value_counts().iloc[0] / len(strings)) if len(words) else 0.0


def _group_identifier(name, values: pd.Series, n_unique: int) -> str | None:
    """The evidence that a column named like a row index identifies a subject or a group
    of rows (a patient of a panel, a sample measured twice), or None: whole numbers or
    codes, at least :data:`ID_ROWS_NAMED` distinct. New rows bring new ones, and rows of
    one subject that fall on both sides of a split let the model learn the subject."""
    if n_unique < ID_ROWS_NAMED or not looks_like_index_name(name):
        return None
    present = values.dropna()
    kind = getattr(values.dtype, "kind", "O")
    if kind in "iuf" and _whole(present) is None and not _row_names(name, present):
        return None  # measurements
    if kind not in "iuf" and _strings(present) is None:
        return None
    return (
        f"named like a row index, {n_unique:,} distinct values over {len(present):,} rows "
        "(a subject's or group's identifier)"
    )
