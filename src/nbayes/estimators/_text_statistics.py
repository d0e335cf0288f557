"""TextNB's statistics (see :mod:`nbayes.base`), mixed into :class:`~.text.TextNB`: its
classifier's statistics over the words, their algebra across vocabularies, the finalizes for
model selection and the state as plain data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from .. import base
from ..base import Mode
from ..distributions import Labels
from ..exceptions import ParameterError
from ._encoding import Vocabulary
from ._text_chunks import _feature_axes


class _TextStatistics:
    """Accumulate, merge, subtract, clear, scale, align, re-code, finalize; state."""

    if TYPE_CHECKING:  # what TextNB supplies
        classifier_: Any
        vectorizer_: Any

        @property
        def _hashing(self) -> bool: ...

        _is_hashing: Callable[..., bool]
        _new_classifier: Callable[..., Any]
        _new_vectorizer: Callable[..., Any]
        encode: Callable[..., Any]
        get_params: Callable[..., dict]

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
        >>> from nbayes.distributions import Labels
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> stats = model.accumulate(["cash cash"], Labels(np.array([1]), np.array([2.0]), 2))
        >>> stats["class_count"].tolist(), int(stats["groups"][0]["n_counts"].sum())
        ([0.0, 2.0], 4)
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.merge_statistics(model.stats_, model.stats_)["class_count"].tolist()
        [4.0, 4.0]
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
        >>> from nbayes.distributions import Labels
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> row = model.accumulate(texts[:1], Labels(np.array([1]), np.ones(1), 2))
        >>> model.subtract_statistics(model.stats_, row)["class_count"].tolist()
        [2.0, 1.0]
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.scale_statistics(model.stats_, 0.5)["class_count"].tolist()
        [1.0, 1.0]
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.align_statistics(model.stats_, np.array([0, 2]), 3)["class_count"].tolist()
        [2.0, 0.0, 2.0]
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> other = TextNB().fit(["free cash"], ["spam"])  # one new word: free
        >>> model.recode_statistics(other)["groups"][0]["n_counts"].shape  # its class, 11 words
        (1, 11)
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> twin = TextNB()
        >>> twin.setup(1, twin.survey_step(1).summarize(texts))
        >>> twin.install(model.classes_, model.stats_).predict(["cash prize"]).tolist()
        ['spam']
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> twin = TextNB()
        >>> twin.setup(1, twin.survey_step(1).summarize(texts))
        >>> _ = twin.install(model.classes_, model.stats_, finalize=False)
        >>> twin.finalize()
        >>> twin.predict(["cash prize"]).tolist()
        ['spam']
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
        >>> from sklearn.feature_extraction.text import HashingVectorizer
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> y = ["spam", "spam", "ham", "ham"]
        >>> vec = HashingVectorizer(n_features=64, alternate_sign=False, norm=None)  # no vocabulary
        >>> model = TextNB(vectorizer=vec).fit(texts, y)
        >>> sorted(model.finalize_params())[:3]
        ['classifier__alpha', 'classifier__class_prior', 'classifier__decision_threshold']
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
        >>> from sklearn.feature_extraction.text import HashingVectorizer
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> y = ["spam", "spam", "ham", "ham"]
        >>> vec = HashingVectorizer(n_features=64, alternate_sign=False, norm=None)  # no vocabulary
        >>> model = TextNB(vectorizer=vec).fit(texts, y)
        >>> smoother = model.finalize_with({"classifier__alpha": 0.5})
        >>> refit = TextNB(MultinomialNB(alpha=0.5), vec).fit(texts, y)
        >>> np.allclose(smoother.predict_proba(texts), refit.predict_proba(texts))
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> round(model.log_prior(), 3)
        -47.91
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> TextNB().set_state(model.get_state()).predict(["cash prize"]).tolist()
        ['spam']
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


def _words(model: _TextStatistics) -> np.ndarray | None:
    """The words of a fitted CountVectorizer in code order (None for hashing)."""
    vocab = getattr(model.vectorizer_, "vocabulary_", None)
    if vocab is None:
        return None
    words = np.empty(len(vocab), dtype=object)
    words[list(vocab.values())] = list(vocab.keys())
    return words


def _words_of(model: _TextStatistics) -> np.ndarray:
    """:func:`_words` of a CountVectorizer model."""
    words = _words(model)
    assert words is not None  # asked of CountVectorizer models only
    return words


def _word_vocabulary(model: _TextStatistics) -> Vocabulary:
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
