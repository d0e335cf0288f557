"""Benchmark cases: synthetic data of the sizes the issue names, plus the real datasets.

Every case builds its data once (``load``) and lists the estimator pairs run on it. Synthetic
data is drawn from a fixed seed, so two runs time the same numbers. ``scale`` shrinks the row
counts (``--quick``) without changing the shape of the problem.
"""

from __future__ import annotations

import csv
import gzip
import io
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn import naive_bayes as sk

import nbayes as nb

SEED = 0


@dataclass
class Pair:
    """An nbayes estimator, its scikit-learn counterpart and why they are comparable."""

    name: str
    nbayes: Callable
    sklearn: Callable
    note: str = ""
    #: Whether the two should give the same probabilities (checked, reported as max |diff|).
    same_model: bool = True
    #: Whether both sides have partial_fit (a scikit-learn Pipeline has not).
    partial_fit: bool = True


@dataclass
class Case:
    name: str
    description: str
    load: Callable[[float], tuple]  # scale -> (X, y)
    pairs: list[Pair]
    real: bool = False
    tags: list[str] = field(default_factory=list)


# -- estimator pairs -------------------------------------------------------------------------

GAUSSIAN = Pair("GaussianNB", nb.GaussianNB, sk.GaussianNB)
BERNOULLI = Pair("BernoulliNB", nb.BernoulliNB, sk.BernoulliNB)
MULTINOMIAL = Pair("MultinomialNB", nb.MultinomialNB, sk.MultinomialNB)
COMPLEMENT = Pair("ComplementNB", nb.ComplementNB, sk.ComplementNB)
CATEGORICAL = Pair("CategoricalNB", nb.CategoricalNB, sk.CategoricalNB)
POISSON = Pair(
    "PoissonNB",
    nb.PoissonNB,
    sk.MultinomialNB,
    note="no scikit-learn counterpart; compared with MultinomialNB, the closest model for "
    "counts (a Poisson NB with equal document lengths)",
    same_model=False,
)
COUNT_PAIRS = [MULTINOMIAL, COMPLEMENT, BERNOULLI, POISSON]


# -- synthetic data ---------------------------------------------------------------------------


def _rows(n: int, scale: float) -> int:
    return max(200, int(n * scale))


def _labels(rng: np.random.Generator, n: int, n_classes: int) -> np.ndarray:
    # Every class present even at tiny scales, then uniformly random labels.
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    return y


def gaussian(n: int, d: int, n_classes: int) -> Callable:
    def load(scale: float):
        rng = np.random.default_rng(SEED)
        m = _rows(n, scale)
        y = _labels(rng, m, n_classes)
        means = rng.normal(0.0, 1.0, size=(n_classes, d))
        X = rng.standard_normal((m, d))
        X += means[y]
        return X, y

    return load


def categorical(n: int, d: int, n_categories: int, n_classes: int) -> Callable:
    def load(scale: float):
        rng = np.random.default_rng(SEED)
        m = _rows(n, scale)
        y = _labels(rng, m, n_classes)
        # Each class prefers a shifted category; the rest is uniform noise.
        shift = rng.integers(0, n_categories, size=(n_classes, d))
        noise = rng.integers(0, n_categories, size=(m, d))
        keep = rng.random((m, d)) < 0.3
        X = np.where(keep, shift[y], noise).astype(np.int64)
        X[:1] = n_categories - 1  # every category seen at least once, even at tiny scales
        X[1:2] = 0
        return X, y

    return load


def binary(n: int, d: int, n_classes: int) -> Callable:
    def load(scale: float):
        rng = np.random.default_rng(SEED)
        m = _rows(n, scale)
        y = _labels(rng, m, n_classes)
        p = rng.uniform(0.1, 0.9, size=(n_classes, d))
        X = (rng.random((m, d)) < p[y]).astype(np.float64)
        return X, y

    return load


def dense_counts(n: int, d: int, n_classes: int) -> Callable:
    def load(scale: float):
        rng = np.random.default_rng(SEED)
        m = _rows(n, scale)
        y = _labels(rng, m, n_classes)
        rate = rng.gamma(2.0, 1.0, size=(n_classes, d))
        X = rng.poisson(rate[y]).astype(np.float64)
        return X, y

    return load


def zipf_counts(
    n: int, vocabulary: int, n_classes: int, tokens: int = 120, exponent: float = 1.1
) -> Callable:
    """Documents of ``tokens`` Zipf-distributed words; repeated words add up to counts.

    A fifth of each document's words come from a class-specific rotation of the vocabulary,
    so classes differ. About 100 distinct words per row remain after adding up repeats.
    """

    def load(scale: float):
        rng = np.random.default_rng(SEED)
        m = _rows(n, scale)
        y = _labels(rng, m, n_classes)
        cdf = np.cumsum(1.0 / np.arange(1, vocabulary + 1) ** exponent)
        cdf /= cdf[-1]
        shift = rng.integers(0, vocabulary, size=n_classes)
        data, indices, nnz_per_row = [], [], []
        step = 50_000  # rows per generation chunk, to bound the temporaries
        for start in range(0, m, step):
            rows = slice(start, min(start + step, m))
            k = rows.stop - rows.start
            words = np.searchsorted(cdf, rng.random((k, tokens))).astype(np.int64)
            topical = rng.random((k, tokens)) < 0.2
            words = np.where(topical, (words + shift[y[rows], None]) % vocabulary, words)
            words.sort(axis=1)
            first = np.ones_like(words, dtype=bool)
            first[:, 1:] = words[:, 1:] != words[:, :-1]
            starts = np.flatnonzero(first.ravel())
            counts = np.diff(np.append(starts, words.size))
            data.append(counts.astype(np.float64))
            indices.append(words.ravel()[starts].astype(np.int32))
            nnz_per_row.append(first.sum(axis=1))
        indptr = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(np.concatenate(nnz_per_row), out=indptr[1:])
        if indptr[-1] < np.iinfo(np.int32).max:
            indptr = indptr.astype(np.int32)
        X = sp.csr_matrix(
            (np.concatenate(data), np.concatenate(indices), indptr), shape=(m, vocabulary)
        )
        return X, y

    return load


# -- real data ----------------------------------------------------------------------------------


def _vectorise(texts, labels):
    from sklearn.feature_extraction.text import CountVectorizer

    X = CountVectorizer().fit_transform(texts)  # int64 counts, as a user would pass them
    return X, np.asarray(labels)


def sms(data_dir: Path) -> Callable:
    def load(scale: float):
        path = data_dir / "sms_spam_collection" / "SMSSpamCollection"
        with open(path, encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
        return _vectorise([r[1] for r in rows], [r[0] for r in rows])

    return load


def enron(data_dir: Path) -> Callable:
    def load(scale: float):
        texts, labels = [], []
        with tarfile.open(data_dir / "enron_spam_enron1" / "enron1.tar.gz") as tar:
            for member in tar:
                if not member.isfile() or not member.name.endswith((".ham.txt", ".spam.txt")):
                    continue
                texts.append(tar.extractfile(member).read().decode("latin-1"))
                labels.append("spam" if member.name.endswith(".spam.txt") else "ham")
        return _vectorise(texts, labels)

    return load


def spambase(data_dir: Path) -> Callable:
    def load(scale: float):
        raw = (data_dir / "spambase" / "spambase.data").read_text()
        table = np.loadtxt(io.StringIO(raw), delimiter=",")
        return np.ascontiguousarray(table[:, :-1]), table[:, -1].astype(np.int64)

    return load


#: The UCI Adult table's column names (its files have no header).
ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
                 "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
                 "hours-per-week", "native-country", "income"]  # fmt: skip


def adult(data_dir: Path) -> Callable:
    def load(scale: float):
        import pandas as pd

        with gzip.open(data_dir / "adult" / "adult.data.gz", "rt") as f:
            df = pd.read_csv(
                f, header=None, names=ADULT_COLUMNS, skipinitialspace=True, na_values="?"
            )
        df = df.dropna(subset=["income"])
        return df.drop(columns="income"), df["income"].to_numpy()

    return load


def sklearn_mixed_pipeline():
    """scikit-learn's closest model of a mixed table: categories imputed and ordinal-encoded,
    numbers binned into 10 quantile bins, one CategoricalNB over both."""
    from sklearn.compose import make_column_selector, make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

    encode = make_column_transformer(
        (
            make_pipeline(
                SimpleImputer(strategy="most_frequent"),
                OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
            ),
            make_column_selector(dtype_include=object),
        ),
        (
            KBinsDiscretizer(
                n_bins=10,
                encode="ordinal",
                strategy="quantile",
                quantile_method="averaged_inverted_cdf",
            ),
            make_column_selector(dtype_include="number"),
        ),
    )
    return make_pipeline(encode, sk.CategoricalNB(min_categories=10))


def mixed_pair() -> Pair | None:
    if not hasattr(nb, "MixedNB"):
        return None
    return Pair(
        "MixedNB",
        nb.MixedNB,
        sklearn_mixed_pipeline,
        note="vs a scikit-learn Pipeline (impute + OrdinalEncoder for categories, "
        "10 quantile bins for numbers, CategoricalNB); a Pipeline has no "
        "partial_fit",
        same_model=False,
        partial_fit=False,
    )


# -- the list -------------------------------------------------------------------------------------


def all_cases(data_dir: Path) -> list[Case]:
    cases = [
        Case(
            "gauss-1M-50-k2",
            "dense Gaussian 1,000,000 x 50, 2 classes",
            gaussian(1_000_000, 50, 2),
            [GAUSSIAN],
        ),
        Case(
            "gauss-1M-50-k20",
            "dense Gaussian 1,000,000 x 50, 20 classes",
            gaussian(1_000_000, 50, 20),
            [GAUSSIAN],
        ),
        Case(
            "gauss-200k-200-k100",
            "dense Gaussian 200,000 x 200, 100 classes",
            gaussian(200_000, 200, 100),
            [GAUSSIAN],
        ),
        Case(
            "categorical-1M-50-k20",
            "integer codes 1,000,000 x 50, 10 categories, 20 classes",
            categorical(1_000_000, 50, 10, 20),
            [CATEGORICAL],
        ),
        Case(
            "binary-1M-50-k2",
            "dense 0/1 1,000,000 x 50, 2 classes",
            binary(1_000_000, 50, 2),
            [BERNOULLI],
        ),
        Case(
            "counts-1M-50-k20",
            "dense Poisson counts 1,000,000 x 50, 20 classes",
            dense_counts(1_000_000, 50, 20),
            [MULTINOMIAL, COMPLEMENT, POISSON],
        ),
        Case(
            "sparse-200k-100k-k20",
            "sparse Zipf counts 200,000 docs x 100,000 words (~100 nnz/row), 20 classes",
            zipf_counts(200_000, 100_000, 20),
            COUNT_PAIRS,
        ),
        Case(
            "sparse-1M-200k-k2",
            "sparse Zipf counts 1,000,000 docs x 200,000 words (~100 nnz/row), 2 classes",
            zipf_counts(1_000_000, 200_000, 2),
            COUNT_PAIRS,
        ),
        Case(
            "sms",
            "SMS Spam Collection, CountVectorizer counts (int64 CSR)",
            sms(data_dir),
            [MULTINOMIAL, COMPLEMENT, BERNOULLI],
            real=True,
        ),
        Case(
            "enron1",
            "Enron-Spam enron1, CountVectorizer counts (int64 CSR)",
            enron(data_dir),
            [MULTINOMIAL, COMPLEMENT, BERNOULLI],
            real=True,
        ),
        Case(
            "spambase",
            "UCI Spambase, 57 continuous features",
            spambase(data_dir),
            [GAUSSIAN, MULTINOMIAL, BERNOULLI],
            real=True,
        ),
    ]
    pair = mixed_pair()
    if pair is not None:
        cases.append(
            Case(
                "adult",
                "UCI Adult (32,561 rows, 6 numeric + 8 categorical "
                "columns with missing values), pandas DataFrame",
                adult(data_dir),
                [pair],
                real=True,
            )
        )
    return cases
