"""Datasets shipped inside nbayes, readable offline.

``load_sms_spam`` returns the SMS Spam Collection v.1 (Almeida, Gómez Hidalgo & Yamakami,
DocEng 2011; UCI dataset 228). The creators provide it free of charge with attribution: the
copyright stays with Tiago A. Almeida and José María Gómez Hidalgo, without warranty. Their
readme ships beside the data (``data/SMSSpamCollection.readme``); cite the paper when you use it.
"""

from __future__ import annotations

import csv
import gzip
from importlib import resources

import pandas as pd

SMS_SPAM_CITATION = (
    "Almeida, T.A., Gómez Hidalgo, J.M., Yamakami, A. Contributions to the Study of SMS Spam "
    "Filtering: New Collection and Results. DocEng'11, Mountain View, CA, 2011."
)


def load_sms_spam() -> pd.DataFrame:
    """Load the 5,574 SMS messages of the SMS Spam Collection v.1.

    Returns
    -------
    DataFrame
        Columns ``label`` ("ham" or "spam") and ``text``, one row per message, in file
        order.

    Examples
    --------
    >>> from nbayes.datasets import load_sms_spam
    >>> df = load_sms_spam()
    >>> df.shape, df["label"].value_counts().to_dict()
    ((5574, 2), {'ham': 4827, 'spam': 747})
    """
    path = resources.files(__name__) / "data" / "SMSSpamCollection.gz"
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="") as f:
        # QUOTE_NONE: some messages contain '"', which default quoting would swallow.
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return pd.DataFrame(rows, columns=["label", "text"])


__all__ = ["SMS_SPAM_CITATION", "load_sms_spam"]
