"""Column reading: what each column of a table is, and which family models it.

One declared typology, shared by :class:`nbayes.MixedNB` (``columns="auto"``), the
semi-naive models and the ``nbayes`` command. Every column gets one kind, with the evidence
for it:

================  ==========================================================================
kind              rule (judged on the column's values; strings on the first 2,000 of them)
================  ==========================================================================
empty             no value at all
constant          one distinct value
identifier        a row label, left out of the model: values distinct in every row (at
                  least 20 rows) of a column named like a row index (``id``, ``rownames``,
                  ``index``, ``Unnamed: 0``, ``..._id``; whole numbers, codes, or numbers
                  with a fraction such as R's ``17.1`` unless named ``index``) or like a
                  code (``PID``, ``docno``, ``distcod``, ``case_nr``: whole numbers); whole
                  numbers distinct in every row (at least 30 rows) that fill at least half
                  of the range between their least and greatest value (row numbers, even
                  after a shuffled split) under a row number's name (``X``, ``obs``,
                  ``idcase``, ``n``, a row index's or a code's); names or codes
                  (strings of at most two words whose words do not recur) distinct in
                  every row (at least 20 rows);
                  values named like a row index that repeat, with at least 20 distinct
                  values (a subject's or group's identifier, as a patient's in a panel)
rank              whole numbers distinct in every row (at least 30 rows) that fill at
                  least half of their range, as row numbers do, under another name (not
                  a time's or a rank's either, which are numbers): a rank or an ordering
                  (HistData/Guerry's ``Wealth``), kept and modelled as a number, with a
                  warning that names it (only the name tells it from row numbers)
timestamp         dates or times: a datetime dtype, or strings of which at least 95 % parse
                  under one of the written forms ISO 8601 (``2022-02-11``,
                  ``2022-02-11T08:30:00Z``, offsets), ``YY-MM-DD``, ``M/D/YY``,
                  ``M/D/YYYY``, ``D/M/YYYY``, ``D.M.YYYY``, ``YYYY/MM/DD``, with or without
                  a time; or integers that are all calendar dates written ``YYMMDD`` or
                  ``YYYYMMDD`` (all of six or all of eight digits, at least 10 distinct
                  values); modelled as calendar features (year, month, day of week, and
                  hour where a time is written). A two-digit year that would fall after
                  the current year is read a century earlier (``3/1/64``: 1964, not 2064)
boolean           true/false values (a bool dtype, or Python booleans with gaps)
coded number      a number column in which a value written with nines (99, 999, ...,
                  999999.375) or a negative code (-1, -9, -99, ...) repeats (3 times or
                  more) and lies far outside the other values (farther from their greatest
                  than twice their range): a number with coded missing values, reported
                  with the fix (read it as missing) and modelled as the number it is
number            integers and floats; floats that are all whole numbers, with empty cells,
                  count as integers (pandas reads an integer column with a gap as floats)
category          strings (and pandas categoricals) that are not text
short text        short multi-word strings, mostly distinct, whose words recur across rows
                  (addresses, names, titles)
free text         strings of 8 or more words per value (the median)
================  ==========================================================================

Floats are never identifiers (a measurement may well be distinct in every row). The kind
decides the family: identifiers are left out, timestamps become calendar features (each a
category), booleans are Bernoulli, numbers and ranks are Gaussian (integers with few distinct values
categorical), categories, texts, constants and empty columns categorical.

Examples
--------
>>> import pandas as pd
>>> from nbayes.columns import read_columns, choices_table
>>> table = pd.DataFrame({
...     "rownames": range(1, 61),
...     "when": pd.date_range("2024-01-01", periods=60, freq="D").strftime("%Y-%m-%d"),
...     "city": ["Oslo", "Rome", "Lima"] * 20,
... })
>>> for reading in read_columns(table):
...     print(reading.column, reading.kind, reading.family)
rownames identifier None
when timestamp calendar
city category categorical
"""

from __future__ import annotations

from ._choices import choices_from_state as choices_from_state
from ._choices import choices_state as choices_state
from ._choices import choices_table
from ._choices import format_choices as format_choices
from ._choices import warn_of as warn_of
from ._coded import code_text, coded_missing
from ._dates import CALENDAR_PARTS as CALENDAR_PARTS
from ._dates import DATE_FORMATS as DATE_FORMATS
from ._dates import Calendar as Calendar
from ._dates import calendar_features, input_column
from ._dates import date_format as date_format
from ._identifiers import looks_like_code_name as looks_like_code_name
from ._identifiers import looks_like_index_name as looks_like_index_name
from ._reading import KINDS as KINDS
from ._reading import ColumnReading, read_column, read_columns
from ._strings import ROLE_SAMPLE as ROLE_SAMPLE
from ._strings import StringProfile, string_profile

__all__ = [
    "ColumnReading",
    "StringProfile",
    "calendar_features",
    "choices_table",
    "code_text",
    "coded_missing",
    "input_column",
    "read_column",
    "read_columns",
    "string_profile",
]
