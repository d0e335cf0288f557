"""The profile of a column of strings: category, short text or free text."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Values a string column's role is judged on (splitting long e-mails into words is not free).
ROLE_SAMPLE = 2000
#: Median words per value from which a string column is free text (sentences).
TEXT_WORDS = 8
#: A column of short multi-word values is short text when at least this share of its values
#: is distinct and each of its words occurs this often on average.
WORDS_DISTINCT, WORDS_REUSE = 0.3, 2.0


@dataclass(frozen=True)
class StringProfile:
    """How a column of strings reads, from a sample of its values.

    Parameters
    ----------
    role : {"text", "words", "category"}
        Free text (sentences), short multi-word values that are mostly distinct but share
        their words (addresses, names, product titles), or categories.
    n_values : int
        Values the profile was made from.
    words : float
        Median number of words per value.
    distinct : float
        Share of distinct values.
    reuse : float
        Occurrences of each word, on average.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import string_profile
    >>> string_profile(pd.Series(["red", "blue", "red"])).role
    'category'
    """

    role: str
    n_values: int
    words: float
    distinct: float
    reuse: float

    def describe(self) -> str:
        """The profile in words, for a message.

        Returns
        -------
        str
            Words per value, distinct share and word reuse.

        Examples
        --------
        >>> from nbayes.columns import StringProfile
        >>> StringProfile("category", 10, 1.0, 0.5, 2.0).describe()[:29]
        '1 word(s) per value, 50% dist'
        """
        if not self.words:  # codes such as '01.12' or 'A-17': no words to count
            return f"{self.distinct:.0%} distinct values in the first {self.n_values:,}"
        return (
            f"{self.words:g} word(s) per value, {self.distinct:.0%} distinct values, each word "
            f"used {self.reuse:.1f} times on average in the first {self.n_values:,} values"
        )


def _strings(series: pd.Series) -> pd.Series | None:
    """The first :data:`ROLE_SAMPLE` values of ``series`` when every one is a string, else
    None (numbers, booleans or mixed values)."""
    values = series.dropna().iloc[:ROLE_SAMPLE]
    if values.empty or values.map(type).ne(str).any():
        return None
    return values.astype(object)


def string_profile(series: pd.Series) -> StringProfile:
    """The :class:`StringProfile` of a column (non-strings make it a category column).

    Spaces alone do not make text: repeated values ("New York City") are categories, and
    mostly distinct values are words only when their words recur across rows (a street
    name, a brand), which is what a bag of words can learn from and categories cannot.

    Parameters
    ----------
    series : Series
        The column; its first 2,000 values are read.

    Returns
    -------
    StringProfile
        The role and the evidence for it.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.columns import string_profile
    >>> string_profile(pd.Series(["a long sentence of many words that goes on and on"])).role
    'text'
    """
    values = _strings(series)
    if values is None:
        return StringProfile("category", int(series.notna().sum()), 0.0, 0.0, 0.0)
    from ..distributions.text import WORD

    # Each distinct value is split once (a column of categories has few), weighted by its
    # count: the same figures as splitting every value.
    counts = values.value_counts(sort=False)
    unique = pd.Series(counts.index, dtype=object)
    words = unique.str.lower().str.findall(WORD)  # the words a text group would learn
    lengths = words.str.len().to_numpy()
    per_value = float(np.median(np.repeat(lengths, counts.to_numpy())))
    n_tokens = int((lengths * counts.to_numpy()).sum())
    reuse = n_tokens / max(words.explode().dropna().nunique(), 1)
    distinct = len(unique) / len(values)
    if per_value >= TEXT_WORDS:
        role = "text"
    elif per_value >= 2 and distinct >= WORDS_DISTINCT and reuse >= WORDS_REUSE:
        role = "words"
    else:
        role = "category"
    return StringProfile(role, len(values), per_value, distinct, reuse)
