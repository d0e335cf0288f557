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

from collections.abc import Iterable
from functools import partial, reduce
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from .. import _analyzer, base
from .._params import HasMethods, check_params
from ..base import EstimatorProtocol, SurveyStep
from ..exceptions import DataError, ParameterError
from ._text_chunks import fit_chunks
from ._text_input import _weighted_texts, read_texts
from ._text_prediction import _TextPrediction
from ._text_statistics import _TextStatistics

#: What TextNB's classifier passes on as TextNB's own capabilities (the vectoriser keeps them).
_PASSED_ON = frozenset(
    {base.EXPLANATIONS, base.CANDIDATE_SCORING, base.JOINT_PROBABILITY, base.LINEAR}
)


class TextNB(_TextPrediction, _TextStatistics, ClassifierMixin, BaseEstimator, EstimatorProtocol):
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
        >>> model.classes_.tolist(), len(model.vectorizer_.vocabulary_)
        (['ham', 'spam'], 10)
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
        >>> from nbayes import TextNB
        >>> passed_on = {"candidate_scoring", "explanations", "joint_probability"}
        >>> sorted(TextNB().capabilities() - passed_on)
        ['holds_model', 'inner_model', 'text_input']
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> step = TextNB().survey_step(1)  # a vocabulary pass: texts, document and term counts
        >>> n_texts, doc_freq, term_freq = step.summarize(texts)
        >>> n_texts, int(doc_freq["cash"]), int(term_freq["lunch"])
        (4, 2, 2)
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB()
        >>> model.setup(1, model.survey_step(1).summarize(texts))
        >>> len(model.vectorizer_.vocabulary_)
        10
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
