"""Real data and the estimator table of the ecosystem suite (nbayes.testing).

Each registered estimator of ``nbayes.estimators.REGISTRY`` has an entry in :data:`ESTIMATORS`:
its factory, the splits it runs on (one or more with two classes, one with more), and its
reference (scikit-learn's corresponding naive Bayes, or None for ``ProbaOnly`` of itself).
``test_ecosystem.py::test_every_registered_estimator_has_an_ecosystem_entry`` fails when a
registered estimator has none. ``benchmarks/sklearn_wrappers.py`` measures the same table.

The splits are small stratified samples of ``../shared/data`` (a few hundred to a couple of
thousand rows, fixed seeds) so that every estimator under every tool fits in CI's minutes:

* counts / binary / raw text: SMS Spam and Enron-Spam (two classes); "messages", four classes
  of real text: SMS ham, SMS spam, Enron ham and Enron spam;
* continuous: Spambase (two); Adult's six numeric columns predicting ``relationship`` (six);
* category codes: Mushroom edible / poisonous (two), Mushroom's other columns predicting
  ``habitat`` (seven);
* a mixed DataFrame with missing values: Adult ``income`` (two), Adult ``relationship`` (six).
"""

from __future__ import annotations

import csv
import functools
import gzip
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from _adult import ADULT_COLUMNS
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

import nbayes
from nbayes.testing import Split

SEED = 0


def _sample(X, y, n_train: int, n_test: int, name: str) -> Split:
    """A stratified train / test sample of n_train + n_test rows."""
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=n_train, test_size=n_test, random_state=SEED, stratify=y
    )
    return Split(X_train, np.asarray(y_train), X_test, np.asarray(y_test), name)


# -- the raw tables, read once per process -----------------------------------------------------
@functools.cache
def _sms(data: Path) -> tuple[np.ndarray, np.ndarray]:
    with open(data / "sms_spam_collection" / "SMSSpamCollection", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return np.array([r[1] for r in rows], dtype=object), np.array([r[0] for r in rows])


@functools.cache
def _enron(data: Path) -> tuple[np.ndarray, np.ndarray]:
    texts, labels = [], []
    with tarfile.open(data / "enron_spam_enron1" / "enron1.tar.gz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 3 and parts[1] in ("ham", "spam"):
                texts.append(tar.extractfile(member).read().decode("latin-1"))
                labels.append(parts[1])
    return np.array(texts, dtype=object), np.array(labels)


@functools.cache
def _adult(data: Path) -> pd.DataFrame:
    with gzip.open(data / "adult" / "adult.data.gz", "rt") as f:
        df = pd.read_csv(f, names=ADULT_COLUMNS, skipinitialspace=True, na_values="?")
    return df.dropna(subset=["income"]).reset_index(drop=True)


@functools.cache
def _mushroom(data: Path) -> pd.DataFrame:
    df = pd.read_csv(data / "mushroom" / "agaricus-lepiota.data", header=None, na_values="?")
    return df.rename(columns=lambda c: f"c{c}")


def _codes(df: pd.DataFrame) -> np.ndarray:
    """Category codes 0..K-1 per column (missing as its own code)."""
    return np.column_stack(
        [pd.factorize(df[c].fillna("?"), sort=True)[0] for c in df.columns]
    ).astype(np.int64)


# -- the splits --------------------------------------------------------------------------------
def _text_split(name: str, data: Path) -> Split:
    if name == "sms":
        texts, y = _sms(data)
        return _sample(texts, y, 1200, 800, "SMS")
    if name == "enron":
        texts, y = _enron(data)
        return _sample(texts, y, 600, 400, "Enron")
    # "messages": four classes of real text, SMS and e-mail, ham and spam
    sms_texts, sms_y = _sms(data)
    enron_texts, enron_y = _enron(data)
    texts = np.concatenate([sms_texts, enron_texts])
    y = np.concatenate([np.char.add("sms-", sms_y), np.char.add("email-", enron_y)])
    return _sample(texts, y, 1000, 700, "messages (4 classes)")


def _counted(split: Split, binary: bool) -> Split:
    vec = CountVectorizer(min_df=2)
    X_train, X_test = vec.fit_transform(split.X_train), vec.transform(split.X_test)
    if binary:
        X_train.data[:], X_test.data[:] = 1, 1
    kind = "presence" if binary else "counts"
    return Split(X_train, split.y_train, X_test, split.y_test, f"{split.name} {kind}")


def _table_split(name: str, data: Path) -> Split:
    if name in ("adult", "adult-relationship"):
        df = _adult(data)
        target = "income" if name == "adult" else "relationship"
        title = "Adult income" if name == "adult" else "Adult relationship (6 classes)"
        return _sample(df.drop(columns=target), df[target].to_numpy(), 1500, 1000, title)
    if name in ("adult-numeric", "adult-numeric-relationship"):
        df = _adult(data)
        target = "income" if name == "adult-numeric" else "relationship"
        numeric = df.select_dtypes("number").astype(float)
        title = "Adult numeric " + ("income" if target == "income" else "relationship (6)")
        return _sample(numeric.to_numpy(), df[target].to_numpy(), 1500, 1000, title)
    if name == "spambase":
        table = np.loadtxt(data / "spambase" / "spambase.data", delimiter=",")
        return _sample(table[:, :-1], table[:, -1].astype(np.int64), 1500, 1000, "Spambase")
    df = _mushroom(data)
    target = "c0" if name == "mushroom" else "c22"  # edible / poisonous, or habitat
    title = "Mushroom" if name == "mushroom" else "Mushroom habitat (7 classes)"
    return _sample(_codes(df.drop(columns=target)), df[target].to_numpy(), 800, 800, title)


@dataclass(frozen=True)
class SplitSpec:
    """How to build a split, and what the test collection needs to know without reading it."""

    build: Callable[[Path], Split]
    n_classes: int
    text: bool = False
    #: Whether a decision boundary's grid over two columns means anything: continuous
    #: columns, not counts, presence or category codes.
    numeric: bool = False
    #: Whether X holds strings (raw text, a table with text or category columns).
    strings: bool = False


def _text(name: str, n_classes: int) -> SplitSpec:
    return SplitSpec(lambda d: _text_split(name, d), n_classes, text=True, strings=True)


def _bag(name: str, n_classes: int, binary: bool) -> SplitSpec:
    return SplitSpec(lambda d: _counted(_text_split(name, d), binary), n_classes)


def _tabular(name: str, n_classes: int, numeric: bool, strings: bool = False) -> SplitSpec:
    return SplitSpec(lambda d: _table_split(name, d), n_classes, numeric=numeric, strings=strings)


SPLITS: dict[str, SplitSpec] = {
    "sms-text": _text("sms", 2),
    "enron-text": _text("enron", 2),
    "messages-text": _text("messages", 4),
    "sms-counts": _bag("sms", 2, False),
    "enron-counts": _bag("enron", 2, False),
    "messages-counts": _bag("messages", 4, False),
    "sms-presence": _bag("sms", 2, True),
    "messages-presence": _bag("messages", 4, True),
    "spambase": _tabular("spambase", 2, True),
    "adult-numeric-relationship": _tabular("adult-numeric-relationship", 6, True),
    "mushroom": _tabular("mushroom", 2, False),
    "mushroom-habitat": _tabular("mushroom-habitat", 7, False),
    "adult": _tabular("adult", 2, True, strings=True),
    "adult-relationship": _tabular("adult-relationship", 6, True, strings=True),
}


@functools.cache
def split(name: str, data: Path) -> Split:
    """The named split of :data:`SPLITS`, built once per process."""
    return SPLITS[name].build(data)


# -- references --------------------------------------------------------------------------------
def _texts_of(X):
    """A 1-d array of documents from raw text or a one-column table of it (the reference
    pipeline's first step, so that it reads what TextNB reads)."""
    X = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X, dtype=object)
    return X.ravel()


def sklearn_text_nb():
    """scikit-learn's text naive Bayes: CountVectorizer then MultinomialNB."""
    return make_pipeline(FunctionTransformer(_texts_of), CountVectorizer(), sk.MultinomialNB())


def sklearn_categorical_nb():
    # Mushroom's codes: at most 12 values per column; unseen test codes need the room.
    return sk.CategoricalNB(min_categories=12)


@dataclass(frozen=True)
class Entry:
    """An estimator of the ecosystem suite: how to build it, where it runs, its reference."""

    factory: Callable[[], object]
    splits: tuple[str, ...]
    reference: Callable[[], object] | None = None  # None: ProbaOnly of the estimator


def _categorical(cls) -> Callable[[], object]:
    # Mushroom's 21 code columns, all declared categorical (numbers would be binned).
    return lambda: cls(categorical=list(range(21)))


CODES = ("mushroom", "mushroom-habitat")
#: Registered estimator -> its entry. A new model gets the suite by an entry here.
ESTIMATORS: dict[str, Entry] = {
    "GaussianNB": Entry(
        nbayes.GaussianNB, ("spambase", "adult-numeric-relationship"), sk.GaussianNB
    ),
    "DensityNB": Entry(nbayes.DensityNB, ("spambase", "adult-numeric-relationship")),
    "MultinomialNB": Entry(
        nbayes.MultinomialNB, ("sms-counts", "messages-counts"), sk.MultinomialNB
    ),
    "ComplementNB": Entry(
        nbayes.ComplementNB, ("enron-counts", "messages-counts"), sk.ComplementNB
    ),
    "PoissonNB": Entry(nbayes.PoissonNB, ("sms-counts", "messages-counts")),
    "BernoulliNB": Entry(nbayes.BernoulliNB, ("sms-presence", "messages-presence"), sk.BernoulliNB),
    "CategoricalNB": Entry(
        lambda: nbayes.CategoricalNB(min_categories=12), CODES, sklearn_categorical_nb
    ),
    "AODE": Entry(_categorical(nbayes.AODE), CODES),
    "TAN": Entry(_categorical(nbayes.TAN), CODES),
    "KDB": Entry(_categorical(nbayes.KDB), CODES),
    "JointBayes": Entry(_categorical(nbayes.JointBayes), CODES),
    "MixedNB": Entry(nbayes.MixedNB, ("adult", "adult-relationship")),
    "TextNB": Entry(nbayes.TextNB, ("sms-text", "enron-text", "messages-text"), sklearn_text_nb),
}
