"""Naive Bayes over raw text: a scikit-learn vectoriser feeding an nbayes count model.

The vectoriser is scikit-learn's (``CountVectorizer`` / ``HashingVectorizer``), and so are its
settings and fitted vocabulary; the tokens and counts come from nbayes' compiled analyzer
(:mod:`nbayes._analyzer`) wherever it covers those settings, which gives the same matrix
several times faster, and from scikit-learn otherwise (``summary()`` says which and why).
This wrapper keeps the vectoriser and the model together so that the same settings are
applied at predict time, supports out-of-core training (a vocabulary pass, or a stateless
hashing vectoriser) and is stored in safe model files with its vocabulary.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from functools import partial, reduce
from typing import ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .. import _analyzer, base
from .._params import HasMethods, check_params
from ..base import EstimatorProtocol, Mode, SurveyStep
from ..distributions import Labels
from ..exceptions import DataError, ParameterError
from ._columns import ColumnLayout, one_text_column
from ._encoding import Vocabulary
from ._text_chunks import _feature_axes, fit_chunks

#: What TextNB's classifier passes on as TextNB's own capabilities (the vectoriser keeps them).
_PASSED_ON = frozenset(
    {base.EXPLANATIONS, base.CANDIDATE_SCORING, base.JOINT_PROBABILITY, base.LINEAR}
)


def read_texts(X, vectorizer, where: str = "X") -> pd.Series | np.ndarray:
    """One str per row of X, read as the column layout reads a text column: its errors name
    the column (X's own, where it has a name) and the row; bytes are decoded as
    ``vectorizer`` decodes them, and a missing text is an empty one.

    Accepts a 1-D sequence, a Series, a one-column DataFrame or an (n, 1) array. Texts that
    are all str already come back as they are (an object array), without a copy.
    """
    column, name = one_text_column(X, where)
    if column.dtype == object:
        values = column.to_numpy()
        if pd.api.types.infer_dtype(values, skipna=False) == "string":
            return values  # every row a str: nothing to decode or fill in
    elif isinstance(column.dtype, pd.StringDtype):  # a string column holds no bytes
        return column.to_numpy(dtype=object, na_value="")
    layout = ColumnLayout(
        [np.array([0])], [False], None if name is None else [name], "ignore", "ignore"
    )
    return layout.texts(
        column,
        0,
        encoding=getattr(vectorizer, "encoding", "utf-8"),
        decode_error=getattr(vectorizer, "decode_error", "strict"),
    )


def _weighted_texts(texts, sample_weight) -> np.ndarray | None:
    """The texts of the rows whose weight is not zero, where some weight is zero (else None):
    the vocabulary is learned from those, so that a zero weight equals a dropped row. Weights
    that are not one per row are left to the classifier's own check."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight)
    if weights.ndim != 1 or len(weights) != len(texts) or weights.dtype.kind not in "iuf":
        return None
    keep = weights != 0
    return None if keep.all() else np.asarray(texts, dtype=object)[keep]


class TextNB(ClassifierMixin, BaseEstimator, EstimatorProtocol):
    """Naive Bayes text classifier: a vectoriser (words -> counts) and an nbayes count model.

    Parameters
    ----------
    classifier : MultinomialNB, ComplementNB, BernoulliNB or PoissonNB, default MultinomialNB()
        The model over word counts; its parameters (alpha, estimate, ...) are used as given.
    vectorizer : CountVectorizer or HashingVectorizer, default CountVectorizer()
        The scikit-learn tokeniser. A CountVectorizer learns its vocabulary in ``fit`` (or in
        :meth:`learn_vocabulary` for data that does not fit in memory) and stores it in model
        files, which makes explanations readable. A ``HashingVectorizer(alternate_sign=False,
        norm=None)`` needs no vocabulary, so ``partial_fit`` can stream text in one pass, but
        its features are hash buckets rather than words. Callable options (tokenizer,
        preprocessor) work in memory but cannot be saved to a model file.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    vectorizer_ : the fitted vectoriser
    classifier_ : the fitted nbayes estimator; its ``stats_`` are the model.

    Examples
    --------
    >>> from nbayes import TextNB
    >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
    >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
    >>> model.predict(["cash prize now", "lunch today"]).tolist()
    ['spam', 'ham']
    """

    _parameter_constraints: ClassVar[dict] = {
        "classifier": [None, HasMethods(["partial_fit", "predict_joint_log_proba"])],
        "vectorizer": [None, HasMethods(["fit", "transform"])],
    }
    _parameter_messages: ClassVar[dict] = {
        "classifier": (
            "Parameter 'classifier' must be None (MultinomialNB) or a model of word counts "
            "(MultinomialNB, ComplementNB, BernoulliNB or PoissonNB); "
            "got {value}."
        ),
        "vectorizer": (
            "Parameter 'vectorizer' must be None (CountVectorizer), a CountVectorizer or a "
            "HashingVectorizer; got {value}."
        ),
    }

    def __init__(self, classifier=None, vectorizer=None):
        self.classifier = classifier
        self.vectorizer = vectorizer

    # -- configuration ----------------------------------------------------------------------------
    def set_params(self, **params):
        """Set parameters, nested ones too (``classifier__alpha``, ``vectorizer__min_df``).

        A nested parameter of a default left as None (``TextNB()``) sets it on the default
        (MultinomialNB, CountVectorizer), so that ``GridSearchCV(TextNB(),
        {"classifier__alpha": [...]})`` works.

        Parameters
        ----------
        **params : dict
            Parameter names (``classifier``, ``vectorizer``, or nested ones with ``__``) and
            their new values.

        Returns
        -------
        self
            The estimator.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> TextNB().set_params(classifier__alpha=0.5).classifier
        MultinomialNB(alpha=0.5)
        """
        for name in ("classifier", "vectorizer"):  # the two components: bounded
            nested = any(key.startswith(f"{name}__") for key in params)
            if nested and name not in params and getattr(self, name) is None:
                maker = self._new_classifier if name == "classifier" else self._new_vectorizer
                setattr(self, name, maker())
        return super().set_params(**params)

    def _new_classifier(self):
        from .presets import MultinomialNB

        clf = MultinomialNB() if self.classifier is None else clone(self.classifier)
        if not base.supports(clf, base.WORD_COUNTS):
            raise ParameterError(
                "TextNB's classifier must be one of the models of word counts (MultinomialNB, "
                f"ComplementNB, BernoulliNB, PoissonNB); got {type(clf).__name__}. Word counts "
                "are not continuous features."
            )
        return clf

    def _new_vectorizer(self):
        from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

        vec = CountVectorizer() if self.vectorizer is None else clone(self.vectorizer)
        if type(vec) not in (CountVectorizer, HashingVectorizer):
            raise ParameterError(
                "TextNB's vectorizer must be a CountVectorizer or a HashingVectorizer; got "
                f"{type(vec).__name__} (TF-IDF weights are not counts)."
            )
        if isinstance(vec, HashingVectorizer) and (vec.alternate_sign or vec.norm is not None):
            raise ParameterError(
                "A HashingVectorizer for TextNB must produce counts: pass "
                "HashingVectorizer(alternate_sign=False, norm=None); got "
                f"alternate_sign={vec.alternate_sign!r}, norm={vec.norm!r}."
            )
        return vec

    @property
    def _hashing(self) -> bool:
        return type(self.vectorizer_).__name__ == "HashingVectorizer"

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Learn the vocabulary (CountVectorizer) and the model from texts X and labels y.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.
        y : array-like of shape (n_samples,)
            The class label of each row.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row, 1 by default: an integer weight counts as that many copies of
            the row, and a zero weight as no row.

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
        >>> model.get_feature_names_out()[[1, 5, 6]].tolist()
        ['cash', 'now', 'prize']
        """
        check_params(self)
        clf, vec = self._new_classifier(), self._new_vectorizer()
        texts = read_texts(X, vec)
        learned = _weighted_texts(texts, sample_weight)
        try:
            if learned is None:
                counts = _analyzer.vectorize(vec, texts, fit=True, dtype=np.float64)
            else:  # the words of the rows that weigh something: a weight of 0 drops a row
                _analyzer.vectorize(vec, learned, fit=True, dtype=np.float64)
                counts = _analyzer.vectorize(vec, texts, dtype=np.float64)
        except ValueError as exc:  # scikit-learn's "empty vocabulary" / "no terms remain"
            raise DataError(
                f"No words to learn from: {exc}. Check the text column, or relax "
                "min_df / max_df / stop_words."
            ) from None
        clf.fit(counts, y, sample_weight=sample_weight)
        self.vectorizer_, self.classifier_, self.classes_ = vec, clf, clf.classes_
        return self

    def learn_vocabulary(self, chunks: Iterable):
        """First pass of out-of-core training: build the vocabulary from chunks of texts.

        Memory is bounded by the vocabulary, not by the data. ``min_df``, ``max_df`` and
        ``max_features`` of the CountVectorizer are applied to the totals over all chunks,
        so the result equals ``CountVectorizer.fit`` on all texts at once. Then call
        :meth:`partial_fit` chunk by chunk (a second pass).

        Parameters
        ----------
        chunks : iterable of text sequences
            The texts in chunks (e.g. one list of str per chunk); read once.

        Returns
        -------
        self
            The estimator, with its vocabulary learned (not yet fitted).

        Examples
        --------
        >>> from nbayes import TextNB
        >>> model = TextNB().learn_vocabulary([["a cat sat"], ["the cat ran"]])
        >>> sorted(model.vectorizer_.vocabulary_)
        ['cat', 'ran', 'sat', 'the']
        """
        check_params(self)
        vec = self._new_vectorizer()
        if self._is_hashing(vec):
            raise ParameterError(
                "A HashingVectorizer has no vocabulary to learn; call partial_fit directly."
            )
        if vec.vocabulary is not None:
            raise ParameterError("The CountVectorizer already has a fixed vocabulary.")
        if _analyzer.unsupported(vec) is None:  # compiled: one table of the words
            counts = _analyzer.VocabularyCounts(vec)
            for chunk in chunks:
                counts.add(read_texts(chunk, vec))
            words = counts.words()
            return self._set_vocabulary(
                vec,
                pd.Series(counts.doc_freq, index=words, dtype=np.float64),
                pd.Series(counts.term_freq, index=words, dtype=np.float64),
                counts.n_docs,
            )
        doc_freq = pd.Series(dtype=np.float64)
        term_freq = pd.Series(dtype=np.float64)
        total_docs = 0
        for chunk in chunks:
            n_docs, docs, terms = self._count_terms(vec, chunk)
            total_docs += n_docs
            doc_freq = doc_freq.add(docs, fill_value=0)
            term_freq = term_freq.add(terms, fill_value=0)
        return self._set_vocabulary(vec, doc_freq, term_freq, total_docs)

    def fit_chunks(self, chunks: Iterable):
        """Learn the vocabulary and the model from chunks of texts and labels, in one pass.

        Memory holds one chunk, the words and the statistics, whatever the size of the data.
        A CountVectorizer's vocabulary grows as the chunks come (min_df, max_df and
        max_features are applied to the totals over all chunks at the end), so the result
        equals :meth:`fit` on all rows, without the vocabulary pass of
        :meth:`learn_vocabulary`.

        Parameters
        ----------
        chunks : iterable of (X, y)
            Texts (as :meth:`fit` takes them) and their labels, chunk by chunk; read once.

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        DataError
            No chunks, a missing label, or no word left to learn from.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> chunks = [(["win cash now", "lunch at noon?"], ["spam", "ham"]),
        ...           (["cheap cash prize", "see you at lunch"], ["spam", "ham"])]
        >>> model = TextNB().fit_chunks(chunks)
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        """
        check_params(self)
        vec = self._new_vectorizer()
        return fit_chunks(self, vec, ((read_texts(X, vec), y) for X, y in chunks))

    @staticmethod
    def _count_terms(vec, texts) -> tuple[int, pd.Series, pd.Series]:
        """(number of texts, document frequency, term frequency) of every word in ``texts``.

        Counts add up over chunks (or Dask partitions); :meth:`_set_vocabulary` applies the
        vectoriser's limits to the totals.
        """
        texts = read_texts(texts, vec)
        one = clone(vec).set_params(min_df=1, max_df=1.0, max_features=None)
        try:
            counts = _analyzer.vectorize(one, texts, fit=True).tocsc()
        except ValueError:  # a chunk without any word (empty vocabulary)
            empty = pd.Series(dtype=np.float64)
            return len(texts), empty, empty.copy()
        terms = one.get_feature_names_out()
        return (
            len(texts),
            pd.Series(np.diff(counts.indptr), index=terms, dtype=np.float64),
            pd.Series(np.asarray(counts.sum(axis=0)).ravel(), index=terms, dtype=np.float64),
        )

    def _set_vocabulary(self, vec, doc_freq: pd.Series, term_freq: pd.Series, n_docs: int):
        """Fix ``vec``'s vocabulary from word counts over all texts and keep it."""
        keep = self._limit(vec, doc_freq, term_freq, n_docs)
        vec.vocabulary_ = {term: i for i, term in enumerate(keep)}
        vec.fixed_vocabulary_ = False
        self.vectorizer_ = vec
        return self

    @staticmethod
    def _is_hashing(vec) -> bool:
        return type(vec).__name__ == "HashingVectorizer"

    @staticmethod
    def _limit(vec, doc_freq: pd.Series, term_freq: pd.Series, n_docs: int) -> list[str]:
        """Apply min_df / max_df / max_features as CountVectorizer.fit does."""

        def as_count(v):
            return v if isinstance(v, (int, np.integer)) else v * n_docs

        mask = (doc_freq >= as_count(vec.min_df)) & (doc_freq <= as_count(vec.max_df))
        kept = term_freq[mask].sort_index()  # CountVectorizer sorts before it limits
        if vec.max_features is not None and kept.size > vec.max_features:
            # The same (unstable) argsort over the same int64 array as CountVectorizer, so that
            # ties at the cut are resolved identically.
            order = (-kept.to_numpy(dtype=np.int64)).argsort()[: vec.max_features]
            kept = kept.iloc[np.sort(order)]
        if kept.size == 0:
            raise DataError(
                "No words are left to learn from: the texts are empty or every "
                "word falls outside min_df / max_df. Check the text column or "
                "relax those settings."
            )
        return sorted(kept.index)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the model with one chunk of texts; equals ``fit`` over all chunks.

        Needs a vocabulary fixed in advance (:meth:`learn_vocabulary`, or a CountVectorizer
        with ``vocabulary=``) or a HashingVectorizer; words outside the vocabulary are ignored.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.
        y : array-like of shape (n_samples,)
            The class label of each row.
        classes : array-like, optional
            All labels; required on the first call (a later call may add classes).
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row, 1 by default: an integer weight counts as that many copies of
            the row, and a zero weight as no row.

        Returns
        -------
        self
            The estimator, updated with the batch.

        Examples
        --------
        >>> from sklearn.feature_extraction.text import HashingVectorizer
        >>> from nbayes import TextNB
        >>> model = TextNB(vectorizer=HashingVectorizer(alternate_sign=False, norm=None))
        >>> _ = model.partial_fit(["win cash now"], ["spam"], classes=["ham", "spam"])
        >>> _ = model.partial_fit(["see you at lunch"], ["ham"])
        >>> model.predict(["cash now", "lunch"]).tolist()
        ['spam', 'ham']
        """
        check_params(self)
        if not hasattr(self, "vectorizer_"):
            vec = self._new_vectorizer()
            if not self._is_hashing(vec) and vec.vocabulary is None:
                raise ParameterError(
                    "partial_fit needs a fixed vocabulary: call learn_vocabulary(chunks) first "
                    "(one pass over the texts), give CountVectorizer(vocabulary=...), or use "
                    "HashingVectorizer(alternate_sign=False, norm=None)."
                )
            self.vectorizer_ = vec
        clf = getattr(self, "classifier_", None) or self._new_classifier()
        counts = self.encode(X)
        clf.partial_fit(counts, y, classes=classes, sample_weight=sample_weight)
        self.classifier_, self.classes_ = clf, clf.classes_
        return self

    # -- prediction -------------------------------------------------------------------------------
    def transform(self, X):
        """Document-term counts of texts X with the fitted vectoriser.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.

        Returns
        -------
        sparse matrix of shape (n_samples, n_features)
            Word counts (CSR), columns as :meth:`get_feature_names_out`.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
        >>> model.get_feature_names_out()[[1, 5, 6]].tolist()
        ['cash', 'now', 'prize']
        """
        check_is_fitted(self, "classifier_")
        return _analyzer.vectorize(self.vectorizer_, read_texts(X, self.vectorizer_))

    def encode(self, X):
        """The classifier's input for texts X: :meth:`transform` with float64 counts where
        nbayes' analyzer makes them (the classifier's type: no conversion of the vectoriser's
        int64 on the way in). With :meth:`inner_model`, what the ``inner_model`` capability
        promises (:mod:`nbayes.base`).

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame
            The texts.

        Returns
        -------
        sparse matrix of shape (n_samples, n_features)
            Word counts (CSR), as the classifier takes them.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> model = TextNB().fit(["good film", "bad film"], ["+", "-"])
        >>> model.encode(["good good film"]).toarray().tolist()
        [[0.0, 1.0, 2.0]]
        """
        check_is_fitted(self, "vectorizer_")
        vec = self.vectorizer_
        return _analyzer.vectorize(vec, read_texts(X, vec), dtype=np.float64)

    def predict(self, X) -> np.ndarray:
        """Most probable class of each sample.

        Where the model has a ``decision_threshold`` (two classes only; for a wrapper, its
        inner model's), ``classes_[1]`` is predicted exactly when its log-odds exceed the
        threshold; otherwise the most probable class (ties go to the first class, as
        ``argmax``), which is the threshold 0.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per sample.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
        >>> model.get_feature_names_out()[[1, 5, 6]].tolist()
        ['cash', 'now', 'prize']
        """
        return self.classifier_.predict(self.encode(X))

    def predict_proba(self, X) -> np.ndarray:
        """Posterior probability P(y | x) of every class, for each sample.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; each row sums to one.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
        >>> model.get_feature_names_out()[[1, 5, 6]].tolist()
        ['cash', 'now', 'prize']
        """
        return self.classifier_.predict_proba(self.encode(X))

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior log P(y | x) of every class, for each sample.

        Computed in log space (log-sum-exp), so a class far less probable than another keeps a
        finite log-probability where :meth:`predict_proba` would round it to 0.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; ``exp`` of each row sums to one.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
        >>> model.get_feature_names_out()[[1, 5, 6]].tolist()
        ['cash', 'now', 'prize']
        """
        return self.classifier_.predict_log_proba(self.encode(X))

    def decision_function(self, X) -> np.ndarray:
        """Log-odds for two classes, the log posterior otherwise.

        Two classes: log P(classes_[1] | x) - log P(classes_[0] | x); its sign gives
        ``predict`` (threshold 0) and its logistic sigmoid ``predict_proba[:, 1]``. More
        classes: the log posterior log P(y | x), as ``predict_log_proba``; its argmax gives
        ``predict``. Each row is normalised, so that scikit-learn's tools that read one
        column at a time (``CalibratedClassifierCV``, one-vs-rest curves) compare rows on
        one scale. Exact within log(1 / eps) of float64, about 36.04, the range where the
        probabilities are resolved; beyond it a score is squeezed into one more nat, in the
        same order, so that confidently wrong rows do not dominate Platt or temperature
        scaling (``predict_log_proba`` keeps the unbounded values).

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The log-odds of ``classes_[1]`` (two classes) or the log posterior of every class.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
        >>> model.get_feature_names_out()[[1, 5, 6]].tolist()
        ['cash', 'now', 'prize']
        """
        return self.classifier_.decision_function(self.transform(X))

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """Joint log-probability log P(counts, y) of each text's word counts and every class.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
        >>> model.get_feature_names_out()[[1, 5, 6]].tolist()
        ['cash', 'now', 'prize']
        """
        return self.classifier_.predict_joint_log_proba(self.encode(X))

    def joint_log_scores(self, X) -> np.ndarray:
        """log P(x, y) up to a term per row that is the same for every class: what posteriors
        and EM need, without the class-independent normalisers (multinomial coefficients
        cost a log-gamma per stored value). By default :meth:`predict_joint_log_proba`
        itself.

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The samples to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; differences between columns are exact log-odds.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> scores = model.joint_log_scores([[1, 1]])
        >>> joint = model.predict_joint_log_proba([[1, 1]])
        >>> bool(abs((scores[0, 0] - scores[0, 1]) - (joint[0, 0] - joint[0, 1])) < 1e-12)
        True
        """
        return self.classifier_.joint_log_scores(self.encode(X))

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """The words (vocabulary order), or ``hash_<i>`` bucket names for a HashingVectorizer.

        Parameters
        ----------
        input_features : None
            Unused; scikit-learn's signature.

        Returns
        -------
        ndarray of str objects, shape (n_features,)
            The name of each column of :meth:`transform`.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.predict(["cash prize now", "lunch today"]).tolist()
        ['spam', 'ham']
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
        >>> model.get_feature_names_out()[[1, 5, 6]].tolist()
        ['cash', 'now', 'prize']
        """
        check_is_fitted(self, "vectorizer_")
        if self._hashing:
            return np.asarray(
                [f"hash_{i}" for i in range(self.vectorizer_.n_features)], dtype=object
            )
        return self.vectorizer_.get_feature_names_out()

    def top_features(self, class_, k: int | None = 10, by: str = "weight"):
        """The words that most favour ``class_``; see :meth:`BaseNB.top_features`.

        Parameters
        ----------
        class_ : label
            One of ``classes_``.
        k : int or None, default=10
            How many words to return; None returns all, best first.
        by : {"weight", "impact"}, default="weight"
            Rank by log-odds weight, or by weight times the word's mean count in the class.

        Returns
        -------
        DataFrame
            Columns ``feature`` (the word) and ``weight`` (and ``impact``), best first.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.top_features("spam", k=2)["feature"].tolist()
        ['cash', 'cheap']
        """
        check_is_fitted(self, "classifier_")
        return self.classifier_.top_features(
            class_, k=k, by=by, feature_names=self.get_feature_names_out()
        )

    def feature_distribution(self, word, values=None, data=None):
        """P(word | class) of one word of the vocabulary; see
        :meth:`BaseNB.feature_distribution`.

        Parameters
        ----------
        word : str or int
            A word of the vocabulary (:meth:`get_feature_names_out`) or its position.
        values : array-like, optional
            As in :meth:`BaseNB.feature_distribution`.
        data : array-like, optional
            As in :meth:`BaseNB.feature_distribution`.

        Returns
        -------
        FeatureDistribution
            The word's share of each class's words (or its mean count, or its probability of
            occurring, as the classifier models it).

        Examples
        --------
        >>> from nbayes import TextNB
        >>> model = TextNB().fit(["win a prize", "see you at lunch"], ["spam", "ham"])
        >>> dist = model.feature_distribution("prize")
        >>> dist.kind, dist.classes.tolist(), dist.probability.ravel().round(3).tolist()
        ('share', ['ham', 'spam'], [0.1, 0.25])
        """
        check_is_fitted(self, "classifier_")
        names = self.get_feature_names_out()
        if not isinstance(word, (int, np.integer)):
            found = np.flatnonzero(names == word)
            if not found.size:
                raise ParameterError(f"The word {word!r} is not in the model's vocabulary.")
            word = int(found[0])
        dist = self.classifier_.feature_distribution(word, values=values, data=data)
        name = str(names[word])
        if dist.kind in ("share", "mean"):  # one value: the word itself
            return dataclasses.replace(dist, feature=name, values=np.asarray([name]))
        return dataclasses.replace(dist, feature=name)

    def explain(self, X):
        """Per-text, per-word contributions to the prediction; see :meth:`BaseNB.explain`.

        Memory is n_texts x n_classes x n_words: explain a few texts at a time.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts to explain.

        Returns
        -------
        Explanation
            The words' contributions, named by the vocabulary.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> ex = model.explain(["cash prize"])
        >>> ex.predicted_class.tolist(), ex.to_frame(0)["feature"].tolist()[:2]
        (['spam'], ['cash', 'prize'])
        """
        return self.classifier_.explain(
            self.transform(X), feature_names=self.get_feature_names_out()
        )

    def summary(self) -> pd.DataFrame:
        """The text column as MixedNB's summary shows a column: its family, its features and
        which analyzer reads it.

        Returns
        -------
        DataFrame
            One row, indexed ``"(text)"``, with columns ``family`` (the classifier's),
            ``features`` (the vectoriser and its number of words or hash buckets) and
            ``analyzer``: ``"nbayes (compiled)"``, the same tokens and counts as
            scikit-learn's several times faster, or ``"scikit-learn"`` with the setting of
            the vectoriser that nbayes' analyzer does not cover (or that it is not built).

        Examples
        --------
        >>> from nbayes import TextNB
        >>> model = TextNB().fit(["win cash now", "see you at lunch"], ["spam", "ham"])
        >>> model.summary()[["family", "features"]]
                     family                  features
        (text)  multinomial  CountVectorizer, 7 words
        """
        check_is_fitted(self, "classifier_")
        vec = self.vectorizer_
        reason = _analyzer.unsupported(vec)
        if reason is None:
            analyzer = "nbayes (compiled)"
        else:
            analyzer = f"scikit-learn (nbayes' analyzer does not cover {reason})"
        if self._hashing:
            features = f"{type(vec).__name__}, {vec.n_features:,} buckets"
        else:
            features = f"{type(vec).__name__}, {len(vec.vocabulary_):,} words"
        return pd.DataFrame(
            {
                "family": [self.classifier_.families_[0].name],
                "features": [features],
                "analyzer": [analyzer],
            },
            index=pd.Index(["(text)"]),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.input_tags.sparse = False
        return tags

    # -- the estimator protocol (see nbayes.base): TextNB delegates to its classifier ------------
    def capabilities(self) -> frozenset[str]:
        """Text input; an inner model, its classifier, held as part of it; and what the
        classifier declares of explanations, candidate scoring, a generative joint
        probability and a linear form (see :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        clf = getattr(self, "classifier_", None) or self.classifier
        if clf is None:
            from .presets import MultinomialNB

            clf = MultinomialNB()
        own = {base.TEXT_INPUT, base.INNER_MODEL, base.HOLDS_MODEL}
        return frozenset(own) | (base.capabilities(clf) & _PASSED_ON)

    def inner_model(self):
        """The model that holds the class statistics and parameters: the fitted classifier,
        or before fitting the configured one (``classifier``; None for the default).

        Returns
        -------
        estimator or None
            The classifier.

        Examples
        --------
        >>> from nbayes import BernoulliNB, TextNB
        >>> TextNB(BernoulliNB()).inner_model()
        BernoulliNB()
        """
        return getattr(self, "classifier_", None) or self.classifier

    def survey_step(self, meta, summary=None) -> SurveyStep | None:
        """A CountVectorizer without a fixed vocabulary needs one pass of word counts
        (document and term frequencies, added up over partitions); none otherwise.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            The data's columns and dtypes (a table), or its number of columns (an array).
        summary : object, optional
            What the passes so far found (None before the first pass).

        Returns
        -------
        SurveyStep or None
            The pass to run over all the data, or None when :meth:`setup` can go ahead.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import MixedNB, MultinomialNB
        >>> MultinomialNB().survey_step(3) is None
        True
        >>> meta = pd.DataFrame({"city": pd.Series(dtype=object), "t": pd.Series(dtype=float)})
        >>> MixedNB().survey_step(meta).columns
        ['city', 't']
        """
        check_params(self)
        _check_text_meta(meta)
        vec = self._new_vectorizer()
        if summary is not None or self._is_hashing(vec) or vec.vocabulary is not None:
            return None
        return SurveyStep(None, partial(_count_terms, vec), _add_terms)

    def setup(self, meta, summary=None) -> None:
        """A vectoriser with its vocabulary (from the survey's word counts, fixed, or none
        for hashing) and a classifier set up over its features. ``meta`` (one text column)
        holds no more information.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            As in :meth:`survey_step`.
        summary : object, optional
            The final summary of the survey passes, if :meth:`survey_step` asked for any.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB()
        >>> model.setup(2)
        >>> stats = model.accumulate(np.array([[1, 0], [0, 2]]), Labels([0, 1], [1.0, 1.0], 2))
        >>> model.install(np.array(["a", "b"]), stats).predict([[3, 0]]).tolist()
        ['a']
        """
        check_params(self)
        _check_text_meta(meta)
        for name in ("vectorizer_", "classifier_", "classes_"):
            self.__dict__.pop(name, None)
        vec, clf = self._new_vectorizer(), self._new_classifier()
        if summary is not None:
            n_docs, doc_freq, term_freq = summary
            self._set_vocabulary(vec, doc_freq, term_freq, n_docs)
        elif not self._is_hashing(vec):
            if vec.vocabulary is None:
                raise ParameterError(
                    "TextNB with a CountVectorizer needs its vocabulary pass before counting: "
                    "run the survey of survey_step(), or give CountVectorizer(vocabulary=...)."
                )
            vec.fit([""])  # a fixed vocabulary: validates it and sets vocabulary_
        n_features = vec.n_features if self._is_hashing(vec) else len(vec.vocabulary_)
        clf.setup(n_features)
        self.vectorizer_, self.classifier_ = vec, clf

    def accumulate(self, X, labels: Labels, *, mode: Mode = "count") -> dict:
        """Word counts of texts ``X`` accumulated by the classifier.

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The rows to count, with the columns of :meth:`setup`.
        labels : Labels
            Class codes (indices into the classes the statistics are laid out over), sample
            weights and the number of classes.
        mode : {"learn", "count", "unlearn", "score"}, default="count"
            Why the batch is read (the modes of :mod:`nbayes.base`); decides
            what an unseen value does.

        Returns
        -------
        dict
            Statistics (as :mod:`nbayes.base` lays them out), over
            ``labels.n_classes`` classes.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> stats = model.accumulate([[1, 1]], Labels(np.array([1]), np.array([2.0]), 2))
        >>> stats["class_count"].tolist(), stats["groups"][0]["n_counts"].tolist()
        ([0.0, 2.0], [[0.0, 0.0], [2.0, 2.0]])
        """
        return self.classifier_.accumulate(self.encode(X), labels, mode=mode)

    def merge_statistics(self, a: dict, b: dict) -> dict:
        # After recode_statistics took in another model's words, statistics made before it
        # are narrower: the words at the end were in none of their texts (count zero).
        """Statistics of the rows of ``a`` and of ``b`` together (pure; same classes).

        Associative and commutative, so partial statistics (chunks, Dask partitions, models
        fitted apart) can be merged in any order or tree.

        Parameters
        ----------
        a, b : dict
            Statistics in this model's set-up, over the same classes.

        Returns
        -------
        dict
            The statistics of all their rows; ``a`` and ``b`` are left unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> more = model.accumulate([[1, 1]], Labels(np.array([0]), np.array([1.0]), 2))
        >>> model.merge_statistics(model.stats_, more)["class_count"].tolist()
        [3.0, 1.0]
        """
        width = self.classifier_.n_features_in_
        return self.classifier_.merge_statistics(self._widened(a, width), self._widened(b, width))

    def subtract_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` without those of ``b``: the exact inverse of
        :meth:`merge_statistics` (unlearning, the training part of a cross-validation fold).

        Parameters
        ----------
        a : dict
            Statistics of some rows.
        b : dict
            Statistics of some of those rows, in the same set-up and classes.

        Returns
        -------
        dict
            The statistics of the rows of ``a`` that are not in ``b``.

        Raises
        ------
        DataError
            ``b`` cannot be part of ``a`` (a count would become negative); the message names
            the class and column.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> row = model.accumulate([[1, 1]], Labels(np.array([0]), np.array([1.0]), 2))
        >>> model.subtract_statistics(model.stats_, row)["groups"][0]["n_counts"].tolist()
        [[2.0, 0.0], [0.0, 3.0]]
        """
        return self.classifier_.subtract_statistics(a, b)

    def clear_statistics(self, stats: dict) -> dict:
        """``stats`` with every count zero but what describes the columns kept (category
        vocabularies carried in the statistics): the statistics of no rows, in the same
        encoding, so that merging them adds the columns' categories and nothing else.

        Parameters
        ----------
        stats : dict
            Statistics in this model's set-up.

        Returns
        -------
        dict
            The statistics of no rows, laid out as ``stats``.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.clear_statistics(model.stats_)["class_count"].tolist()
        [0.0, 0.0]
        """
        return self.classifier_.clear_statistics(stats)

    def scale_statistics(self, stats: dict, factor: float) -> dict:
        """``stats`` with every row's weight multiplied by ``factor`` >= 0: the statistics the
        same rows would give with their sample weights times ``factor`` (sums scale, averages
        stay). EM uses it to weigh the unlabeled rows by lambda after counting them once.

        Parameters
        ----------
        stats : dict
            Statistics in this model's set-up.
        factor : float
            The weight multiplier, >= 0.

        Returns
        -------
        dict
            The scaled statistics, laid out as ``stats``.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.scale_statistics(model.stats_, 0.5)["class_count"].tolist()
        [1.0, 0.5]
        """
        return self.classifier_.scale_statistics(stats, factor)

    def align_statistics(self, stats: dict, positions, n_classes: int) -> dict:
        """``stats`` laid out over ``n_classes`` classes: class ``i`` of ``stats`` goes to
        ``positions[i]``; other classes get zeros (merging models that know different
        classes).

        Parameters
        ----------
        stats : dict
            Statistics over ``len(positions)`` classes.
        positions : ndarray of int
            The new index of each class of ``stats``, all different and below ``n_classes``.
        n_classes : int
            The number of classes of the result.

        Returns
        -------
        dict
            Statistics over ``n_classes`` classes.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.align_statistics(model.stats_, np.array([0, 2]), 3)["class_count"].tolist()
        [2.0, 0.0, 1.0]
        """
        return self.classifier_.align_statistics(stats, positions, n_classes)

    def recode_statistics(self, other) -> dict:
        """``other``'s word counts in this model's word codes, for :func:`nbayes.merge`.

        Both vocabularies go through the column layout's :class:`Vocabulary` (one column of
        words): a vocabulary that ``fit`` learned without limits (``min_df=1``,
        ``max_df=1.0``, no ``max_features``) takes in the words only ``other`` knows, after
        its own, and ``other``'s counts are re-coded to match. None of this model's texts
        held those words, so their counts here are zero and the merged model equals a fit
        on all the texts (its words in another order). A fixed vocabulary or a hashing
        vectoriser needs no re-coding.

        Parameters
        ----------
        other : estimator
            A fitted model of the same class and set-up parameters, over the same columns.

        Returns
        -------
        dict
            ``other``'s statistics, encoded as this model's (over ``other``'s classes).

        Raises
        ------
        ParameterError
            Different learned vocabularies under limits: which words a fit on all the texts
            keeps depends on counts that neither model has.

        Examples
        --------
        >>> from nbayes import CategoricalNB
        >>> a = CategoricalNB().fit([["red"], ["blue"]], [0, 1])
        >>> b = CategoricalNB().fit([["green"]], [0])
        >>> a.recode_statistics(b)["groups"][0]["n_counts"].tolist()  # blue, red, green
        [[0.0, 0.0, 1.0]]
        """
        if self._hashing or np.array_equal(_words_of(self), _words_of(other)):
            return self.classifier_.recode_statistics(other.classifier_)
        if not _learns_every_word(self.vectorizer_):
            vec = self.vectorizer_
            raise ParameterError(
                "Cannot merge TextNB models whose vocabularies were learned under limits "
                f"(min_df={vec.min_df!r}, max_df={vec.max_df!r}, max_features="
                f"{vec.max_features!r}): which words a fit on all the texts keeps depends on "
                "counts over all of them. Learn one vocabulary first "
                "(learn_vocabulary over all chunks, or CountVectorizer(vocabulary=...)) and "
                "fit every shard with it, or use HashingVectorizer(alternate_sign=False, "
                "norm=None)."
            )
        mine, theirs = _word_vocabulary(self), _word_vocabulary(other)
        code_here = mine.absorb(theirs)  # of each of other's words, in other's code order
        width = int(mine.values.size)
        added = mine.values[len(self.vectorizer_.vocabulary_) :].tolist()
        self.vectorizer_.vocabulary_.update(
            zip(added, range(len(self.vectorizer_.vocabulary_), width))
        )
        self.classifier_.n_features_in_ = width
        return self._over_words(other.classifier_.stats_, code_here, width)

    def _widened(self, stats: dict, width: int) -> dict:
        """``stats`` over ``width`` words: its own first, then words that came in later."""
        axes = _feature_axes(self.classifier_.families_[0], stats["groups"][0])
        n_words = next((v.shape[a] for v, a in axes.values() if a is not None), width)
        if n_words == width:
            return stats
        return self._over_words(stats, np.arange(n_words), width)

    def _over_words(self, stats: dict, code_here: np.ndarray, width: int) -> dict:
        """Word statistics laid out over ``width`` words, word ``j`` of ``stats`` at
        ``code_here[j]``. The texts behind ``stats`` held none of the other words: those
        columns get the statistics of texts without them (zero counts, but observed: a
        Bernoulli or Poisson model learns from absences too)."""
        family = self.classifier_.families_[0]
        class_count = np.asarray(stats["class_count"], dtype=np.float64)
        k = class_count.size
        # Each class's texts as one weighted row of zeros over all the words.
        absent = family.accumulate(sp.csr_matrix((k, width)), Labels(np.arange(k), class_count, k))
        out = {}
        for key, (value, axis) in _feature_axes(family, stats["groups"][0]).items():
            if axis is None:
                out[key] = value
                continue
            laid = np.array(absent[key], dtype=np.result_type(value, absent[key]))
            index: list = [slice(None)] * value.ndim
            index[axis] = code_here
            laid[tuple(index)] = value
            out[key] = laid
        return {**stats, "groups": [out]}

    def unlearn(self, X, y, sample_weight=None):
        """Remove texts learned earlier, exactly: their word counts are subtracted (see
        :meth:`BaseNB.unlearn`).

        The vocabulary stays as it is, so the model equals ``partial_fit`` of the remaining
        texts with this vectoriser; a ``fit`` on them alone could learn fewer words.

        Parameters
        ----------
        X : sequence of str, length n_samples
            Texts the model was trained on.
        y : array-like of shape (n_samples,)
            The class label of each row.
        sample_weight : array-like of shape (n_samples,), optional
            The weights the texts were learned with.

        Returns
        -------
        self
            The estimator, as if it had never seen those rows.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts, y = ["cash now", "lunch at noon", "cash prize"], ["spam", "ham", "spam"]
        >>> model = TextNB().fit(texts, y).unlearn(texts[2:], y[2:])
        >>> int(model.classifier_.class_count_.sum())
        2
        """
        check_is_fitted(self, "classifier_")
        self.classifier_.unlearn(self.transform(X), y, sample_weight=sample_weight)
        return self

    @property
    def stats_(self) -> dict:
        """The classifier's statistics: what :func:`nbayes.merge` adds up."""
        check_is_fitted(self, "classifier_")
        return self.classifier_.stats_

    def install(self, classes, stats: dict, *, finalize: bool = True):
        """Become the fitted model of ``stats`` over ``classes`` (after :meth:`setup` or on a
        fitted model with the same columns); finalizes.

        Parameters
        ----------
        classes : ndarray of shape (n_classes,)
            The class labels, sorted, in the order of the statistics' class axis.
        stats : dict
            Statistics in this model's set-up.
        finalize : bool, default=True
            False: hold the statistics only, without parameters (the model then makes
            :meth:`finalize_with` models and scores nothing itself until :meth:`finalize`
            is called; nothing is derived on reading an attribute). For a model just
            :meth:`setup`, by a caller that makes other finalizes of the statistics (a grid
            search's candidates) and never uses this model's own.

        Returns
        -------
        self
            The fitted model.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> twin = MultinomialNB()
        >>> twin.setup(2)
        >>> twin.install(model.classes_, model.stats_).predict([[0, 1]]).tolist()
        ['b']
        """
        self.classifier_.install(classes, stats, finalize=finalize)
        self.classes_ = self.classifier_.classes_
        return self

    def finalize(self) -> None:
        """Derive the parameters (and the published fitted attributes) from the statistics
        now. ``fit``, every ``partial_fit`` and :meth:`install` do; a model installed with
        ``finalize=False`` needs this call before it scores.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [0, 3]], ["a", "b"])
        >>> twin = MultinomialNB()
        >>> twin.setup(2)
        >>> _ = twin.install(model.classes_, model.stats_, finalize=False)
        >>> twin.finalize()
        >>> twin.feature_log_prob_.shape
        (2, 2)
        """
        self.classifier_.finalize()

    # -- other finalizes of the same statistics (model selection) ---------------------------------
    def finalize_params(self) -> frozenset[str]:
        """The classifier's finalize-time parameters, as nested names (``classifier__alpha``).

        Returns
        -------
        frozenset of str
            The parameter names (empty when none can be changed this way).

        Raises
        ------
        ParameterError
            For a CountVectorizer that learns its vocabulary: a model of part of the rows
            would know other words (its own, after min_df / max_df), which statistics of all
            the words cannot give.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> sorted(MultinomialNB().finalize_params())[:3]
        ['alpha', 'class_prior', 'decision_threshold']
        """
        vec = self._new_vectorizer()
        if not self._is_hashing(vec) and vec.vocabulary is None:
            raise ParameterError(
                "TextNB learns its CountVectorizer vocabulary from the rows it is fitted on, so "
                "a model of the rows outside a fold cannot be made from statistics. Use "
                "HashingVectorizer(alternate_sign=False, norm=None) or a fixed vocabulary "
                "(CountVectorizer(vocabulary=...)), vectorize first and search over "
                "MultinomialNB, or use sklearn.model_selection.GridSearchCV, which refits."
            )
        return frozenset(f"classifier__{p}" for p in self._new_classifier().finalize_params())

    def finalize_with(self, params: dict | None = None, stats: dict | None = None):
        """A new fitted TextNB with other finalize-time classifier parameters, over ``stats``
        (see :meth:`EstimatorProtocol.finalize_with`); the vectoriser is shared.

        Parameters
        ----------
        params : dict, optional
            New values of some of :meth:`finalize_params`.
        stats : dict, optional
            Statistics over ``classes_`` in this model's set-up, e.g. this model's minus
            those of some rows (:meth:`subtract_statistics`).

        Returns
        -------
        estimator
            A new fitted estimator of the same class; ``get_params()`` shows ``params``.

        Raises
        ------
        ParameterError
            A name in ``params`` that is not in :meth:`finalize_params`.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0], [2, 1], [0, 4]]); y = [0, 0, 1]
        >>> model = MultinomialNB().fit(X, y).finalize_with({"alpha": 0.5})
        >>> refit = MultinomialNB(alpha=0.5).fit(X, y)
        >>> np.allclose(model.feature_log_prob_, refit.feature_log_prob_)
        True
        """
        check_is_fitted(self, "classifier_")
        params = dict(params or {})
        nested = {
            k.partition("__")[2]: v for k, v in params.items() if k.startswith("classifier__")
        }
        refused = sorted(k for k in params if not k.startswith("classifier__"))
        if refused:
            raise ParameterError(
                f"TextNB's parameter(s) {refused!r} change what is counted, so a model with "
                "other values must be fitted again (sklearn.model_selection.GridSearchCV "
                "does); the classifier's finalize-time parameters are "
                f"{sorted(self.finalize_params())!r}."
            )
        if stats is not None:
            self.finalize_params()  # refuses a learned vocabulary
        model = clone(self).set_params(**params)
        model.vectorizer_ = self.vectorizer_
        model.classifier_ = self.classifier_.finalize_with(nested, stats)
        model.classes_ = model.classifier_.classes_
        return model

    def log_prior(self) -> float:
        """log p(parameters) of the fitted model under the prior whose mode its estimates are,
        up to a constant (0 where the estimates are maximum likelihood, or the prior is not
        known): with the data's log-likelihood, the objective that EM maximises
        (:class:`nbayes.SemiSupervisedNB`).

        Returns
        -------
        float
            The log prior density of the fitted parameters, up to a constant.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> X, y = [[2, 0], [1, 1], [0, 3]], ["a", "a", "b"]
        >>> round(MultinomialNB(alpha=2.0).fit(X, y).log_prior(), 3)
        -6.08
        """
        return self.classifier_.log_prior()

    # -- state as plain data (model files in nbayes.io are built on it) -----------------------
    def get_state(self) -> dict:
        """The fitted state as plain data: the vectoriser and classifier as unfitted
        estimators (their parameters), the vocabulary (None for a HashingVectorizer) and the
        classifier's :meth:`BaseNB.get_state`.

        Returns
        -------
        dict
            The state; :meth:`set_state` of it gives back a model that predicts identically,
            keeps learning and can be merged.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> state = TextNB().fit(["cash now", "lunch at noon"], ["spam", "ham"]).get_state()
        >>> TextNB().set_state(state).predict(["cash"]).tolist()
        ['spam']
        """
        check_is_fitted(self, "classifier_")
        return {
            "params": self.get_params(deep=False),
            "vectorizer": clone(self.vectorizer_),
            "vocabulary": None if self._hashing else _words(self),
            "classifier": clone(self.classifier_),
            "classifier_state": self.classifier_.get_state(),
        }

    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output.

        Parameters
        ----------
        state : dict
            What :meth:`get_state` returned, for an estimator of this class.

        Returns
        -------
        self
            The fitted model.

        Raises
        ------
        ValueError
            A vectoriser or classifier TextNB cannot use, or a vocabulary that does not fit
            the classifier.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).classes_.tolist()
        ['a', 'b']
        """
        vec, clf = state["vectorizer"], state["classifier"]
        if not base.supports(clf, base.WORD_COUNTS):
            raise ValueError(f"TextNB cannot use a {type(clf).__name__}.")
        clf.set_state(state["classifier_state"])
        if self._is_hashing(vec):
            width = vec.n_features
        elif type(vec).__name__ == "CountVectorizer":
            terms = np.asarray(state["vocabulary"]).tolist()
            if len(set(terms)) != len(terms):
                raise ValueError("the vocabulary has repeated words.")
            vec.vocabulary_ = {t: i for i, t in enumerate(terms)}
            vec.fixed_vocabulary_ = vec.vocabulary is not None
            width = len(terms)
        else:
            raise ValueError(f"TextNB cannot use a {type(vec).__name__}.")
        if clf.n_features_in_ != width:
            raise ValueError(
                f"the vectorizer gives {width} features but the classifier was trained on "
                f"{clf.n_features_in_}."
            )
        self.vectorizer_, self.classifier_, self.classes_ = vec, clf, clf.classes_
        return self


def _words(model: TextNB) -> np.ndarray | None:
    """The words of a fitted CountVectorizer in code order (None for hashing)."""
    vocab = getattr(model.vectorizer_, "vocabulary_", None)
    if vocab is None:
        return None
    words = np.empty(len(vocab), dtype=object)
    words[list(vocab.values())] = list(vocab.keys())
    return words


def _words_of(model: TextNB) -> np.ndarray:
    """:func:`_words` of a CountVectorizer model."""
    words = _words(model)
    assert words is not None  # asked of CountVectorizer models only
    return words


def _word_vocabulary(model: TextNB) -> Vocabulary:
    """The model's words as a one-column :class:`Vocabulary` (code i: the i-th word)."""
    words = _words_of(model)
    n = words.size
    return Vocabulary(1, 0, words, np.zeros(n, dtype=np.int64), np.arange(n, dtype=np.int64))


def _learns_every_word(vec) -> bool:
    """Whether a CountVectorizer keeps every word it sees (no min_df / max_df / max_features
    cut, no fixed vocabulary): then the vocabulary of all texts is the union of shards'."""
    return bool(
        vec.vocabulary is None
        and isinstance(vec.min_df, (int, np.integer))
        and vec.min_df <= 1
        and isinstance(vec.max_df, float)
        and vec.max_df >= 1.0
        and vec.max_features is None
    )


# -- the vocabulary survey (run on Dask workers: module-level functions) ----------------------
def _count_terms(vectorizer, texts) -> tuple[int, pd.Series, pd.Series]:
    """(texts, document frequencies, term frequencies) of one partition of texts."""
    return TextNB._count_terms(vectorizer, texts)


def _add_terms(*parts):
    """Add up (texts, document frequencies, term frequencies) of several partitions."""
    return (
        sum(p[0] for p in parts),
        reduce(lambda a, b: a.add(b, fill_value=0), [p[1] for p in parts]),
        reduce(lambda a, b: a.add(b, fill_value=0), [p[2] for p in parts]),
    )


def _check_text_meta(meta) -> None:
    """Texts come as one column (a table's) or a 1-d sequence."""
    if isinstance(meta, pd.DataFrame) and meta.shape[1] != 1:
        raise DataError(
            f"TextNB needs one text column; got {meta.shape[1]} columns "
            f"{list(meta.columns)!r}. Select the text column first."
        )
