"""Text family: the words of short text columns (addresses, names, product titles) inside a
table model, as word counts hashed into a fixed number of buckets per column.

Each text column is a bag of words with its own multinomial per class. Hashing (scikit-learn's
``HashingVectorizer``) needs no vocabulary, so the statistics are plain counts of a fixed
shape: ``fit``, ``partial_fit`` over any chunking, merged shards and Dask all add the same
arrays. Smoothing then acts on the buckets that training filled (at least ``min_count`` words
over all classes), and a word in any other bucket is left out at predict, as a vectoriser's
vocabulary leaves out unknown words: the model is the multinomial over the words it learned,
derived from the merged counts alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..exceptions import DataError, ParameterError
from ._base import Params, Stats
from ._estimates import log_normalise, pseudo_count
from .multinomial import Multinomial

#: A word: letters and digits with at least one letter ("Lake", "128GB", "B2"). Numbers alone
#: (house numbers, model numbers, quantities) are left out: in short values they are mostly
#: identifiers, each seen a few times, whose counts are noise that the naive product of word
#: likelihoods would take as evidence. nbayes' compiled analyzer finds the same words
#: (:data:`nbayes._analyzer.LETTER_PATTERN`).
WORD = r"(?u)\b\w*[^\W\d_]\w*\b"

#: Most buckets per text column: 32 MB of counts per class and column (and a bound on what a
#: model file may make a loader allocate).
MAX_BUCKETS = 2**22

#: Buckets per text column by default: about 65k, so that the few thousand distinct words of a
#: column of short values rarely share a bucket, at 0.5 MB of counts per class and column.
DEFAULT_BUCKETS = 2**16


class Text(Multinomial):
    """Words of a text column, hashed into ``n_buckets`` count features (see :meth:`encode`).

    A multinomial per class over the features that training filled (at least ``min_count``
    words over all classes), smoothed with a symmetric Dirichlet(alpha) over those; a word in
    any other feature is left out, like a word outside a vectoriser's vocabulary (and rare
    words, with ``min_count`` > 1): it carries no evidence either way. A missing text is an
    empty one: it contributes nothing. MixedNB gives every text column its own group, so each
    column has its own multinomial.

    Parameters
    ----------
    alpha : float or "auto", default=1.0
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
    n_buckets : int, default=65536
        Hash buckets of :meth:`encode` (at most 2**22).
    min_count : int, default=1
        Words a feature needs over all classes and training rows to be part of the model.
    lowercase : bool, default=True
        Whether :meth:`encode` lowercases the words.
    missing : {"error", "ignore"}, default="ignore"
        Kept for the family protocol: missing texts are empty texts.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes.distributions import Labels
    >>> from nbayes.distributions.text import Text
    >>> fam = Text(n_buckets=64)
    >>> X = fam.encode(np.array([["red apple"], ["green apple"], ["blue plum"]], dtype=object))
    >>> stats = fam.accumulate(X, Labels(np.array([0, 0, 1]), np.ones(3), n_classes=2))
    >>> int((fam.finalize(stats)["log_theta"] != 0).any(axis=0).sum())  # 5 words learned
    5
    """

    name = "text"
    stacks_columns = False  # its blocks are made from texts; it finalizes otherwise

    def __init__(
        self,
        alpha=1.0,
        estimate="posterior_mean",
        n_buckets: int = DEFAULT_BUCKETS,
        min_count: int = 1,
        lowercase: bool = True,
        missing="ignore",
    ):
        super().__init__(alpha=alpha, estimate=estimate, missing=missing)
        for key, value, low, high in (
            ("n_buckets", n_buckets, 2, MAX_BUCKETS),
            ("min_count", min_count, 1, np.inf),
        ):
            if (
                not isinstance(value, (int, np.integer))
                or isinstance(value, bool)
                or not low <= value <= high
            ):
                raise ParameterError(
                    f"Parameter {key!r} of the text family must be an integer from {low} to "
                    f"{high}; got {value!r}."
                )
        self.n_buckets = int(n_buckets)
        self.min_count = int(min_count)
        self.lowercase = bool(lowercase)

    def get_params(self) -> dict:
        return {
            **super().get_params(),
            "n_buckets": self.n_buckets,
            "min_count": self.min_count,
            "lowercase": self.lowercase,
        }

    # -- input ------------------------------------------------------------------------------
    def encode(self, texts) -> sp.csr_matrix:
        """Word counts of a column of texts (a Series, or an (n, 1) table): a CSR matrix
        (n, n_buckets). Missing cells (None, NaN, pd.NA) are empty texts; other values are
        read as text. Words are runs of letters and digits with at least one letter, found
        and hashed by nbayes' compiled analyzer where it is built (HashingVectorizer's
        features, to the bit), by scikit-learn's HashingVectorizer otherwise."""
        from sklearn.feature_extraction.text import HashingVectorizer

        column = texts if isinstance(texts, pd.Series) else pd.DataFrame(texts).iloc[:, 0]
        if isinstance(texts, pd.DataFrame) and texts.shape[1] != 1:
            raise DataError(
                f"The text family encodes one column at a time; got {texts.shape[1]} columns."
            )
        values = column.astype(object).where(column.notna(), "").map(str)
        from .. import _analyzer

        vectorizer = HashingVectorizer(
            n_features=self.n_buckets,
            alternate_sign=False,
            norm=None,
            lowercase=self.lowercase,
            token_pattern=WORD,
            dtype=np.float64,
        )
        return _analyzer.vectorize(vectorizer, values).tocsr()

    def block_width(self, n_columns: int) -> int:
        return n_columns * self.n_buckets

    # -- parameters --------------------------------------------------------------------------
    def _kept(self, counts: np.ndarray) -> np.ndarray:
        """Features that training filled, shape (n_features,)."""
        total = counts.sum(axis=0)
        return (total > 0) & (total >= self.min_count)

    def finalize(self, stats: Stats) -> Params:
        counts = stats["n_counts"]
        kept = self._kept(counts)
        alpha = self.resolve_alpha(stats, counts.shape[1])
        smoothed = np.where(kept, counts + pseudo_count(alpha, self.estimate), 0.0)
        log_theta = log_normalise(
            smoothed, smoothed.sum(axis=1, keepdims=True), max(int(kept.sum()), 1)
        )
        return {"log_theta": np.where(kept, log_theta, 0.0), "learned": kept, "alpha": alpha}

    def evidence_function(self, stats: Stats):
        # The Dirichlet-multinomial evidence over the features learned.
        counts = stats["n_counts"]
        return super().evidence_function({"n_counts": counts[:, self._kept(counts)]})

    # -- scores ------------------------------------------------------------------------------
    def _learned_words(self, params: Params, X):
        """X restricted to the features the model learned (the others carry no evidence)."""
        learned = np.asarray(params["learned"], dtype=np.float64)
        if sp.issparse(X):
            return sp.csr_matrix(X.multiply(learned[None, :]))
        return X * learned

    def log_normalizer(self, params: Params, X) -> np.ndarray:
        return super().log_normalizer(params, self._learned_words(params, X))

    def log_likelihood_terms(self, params: Params, X) -> np.ndarray:
        return super().log_likelihood_terms(params, self._learned_words(params, X))

    def reference_log_density(self, params, X):
        # The multinomial over the learned features, as scipy.stats computes it.
        from scipy import stats

        learned = np.asarray(params["learned"], dtype=bool)
        theta = np.exp(params["log_theta"][:, learned])
        words = np.asarray(X)[:, learned]
        return np.stack(
            [stats.multinomial.logpmf(words, words.sum(axis=1), t) for t in theta], axis=1
        )

    def linear_feature_names(self, params: Params, names) -> list[str]:
        """``"title#17"`` for feature 17 of a text column ``title`` (hashed words have no
        names); names given one per feature are kept."""
        width = params["log_theta"].shape[1]
        if len(names) == width:
            return list(names)
        return [f"{name}#{b}" for name in names for b in range(width // max(len(names), 1))]
