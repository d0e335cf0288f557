"""TextNB's prediction, explanations and summary, mixed into :class:`~.text.TextNB`: the
texts are vectorised and the classifier scores the counts.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .. import _analyzer
from ..exceptions import ParameterError
from ._text_input import read_texts


class _TextPrediction:
    """Transform, predict, score, explain and summarise texts with the fitted model."""

    if TYPE_CHECKING:  # what TextNB supplies
        classifier_: Any
        vectorizer_: Any

        @property
        def _hashing(self) -> bool: ...

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
        >>> model.transform(["cash prize now"]).toarray()
        array([[0, 1, 0, 0, 0, 1, 1, 0, 0, 0]])
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
        >>> model.predict(["free cash", "noon lunch"]).tolist()
        ['spam', 'ham']
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
        >>> model.predict_proba(["cash prize now", "lunch today"]).round(2)
        array([[0.06, 0.94],
               [0.74, 0.26]])
        """
        return self.classifier_.predict_proba(self.encode(X))

    def predict_proba_interval(self, X, level=0.9, n_samples=1000, random_state=None):
        """Credible interval of each class probability, from the posterior over the word
        tables: the classifier's ``predict_proba_interval`` (see
        :meth:`nbayes.MultinomialNB.predict_proba_interval`) on the encoded texts.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.
        level : float, default=0.9
            Posterior probability inside each interval, in (0, 1).
        n_samples : int, default=1000
            Models drawn from the posterior.
        random_state : int, numpy Generator or None, default=None
            Seed of the draws.

        Returns
        -------
        lower, upper : ndarray of shape (n_samples, n_classes)
            Bounds of P(y | x) per text and class, columns in ``classes_`` order.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> lower, upper = model.predict_proba_interval(["cash prize"], random_state=0)
        >>> bool(lower[0, 1] < model.predict_proba(["cash prize"])[0, 1] < upper[0, 1])
        True
        """
        return self.classifier_.predict_proba_interval(
            self.encode(X), level, n_samples, random_state
        )

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
        >>> model.predict_log_proba(["cash prize now"]).round(2)
        array([[-2.73, -0.07]])
        """
        return self.classifier_.predict_log_proba(self.encode(X))

    def decision_function(self, X) -> np.ndarray:
        """Log-odds for two classes, the posterior otherwise.

        Two classes: log P(classes_[1] | x) - log P(classes_[0] | x); its sign gives
        ``predict`` (threshold 0) and its logistic sigmoid ``predict_proba[:, 1]``. Exact
        within log(1 / eps) of float64, about 36.04, the range where the probabilities are
        resolved, and clipped to it beyond, where the likelier class's probability rounds to
        1 (``predict_log_proba`` keeps the unbounded values). More classes: the posterior
        P(y | x), as ``predict_proba``; its argmax gives ``predict``. scikit-learn's tools
        that read one column at a time (``CalibratedClassifierCV``, one-vs-rest curves) then
        fit and rank what they would around scikit-learn's naive Bayes.

        Parameters
        ----------
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The log-odds of ``classes_[1]`` (two classes) or the posterior of every class.

        Examples
        --------
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> model.decision_function(["cash prize now", "lunch today"]).round(2)
        array([ 2.67, -1.04])
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
        >>> model.predict_joint_log_proba(["cash prize now"]).round(2)
        array([[-7.4 , -4.73]])
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
        >>> from nbayes import TextNB
        >>> texts = ["win cash now", "cheap cash prize", "lunch at noon?", "see you at lunch"]
        >>> model = TextNB().fit(texts, ["spam", "spam", "ham", "ham"])
        >>> scores = model.joint_log_scores(["cash prize"])
        >>> joint = model.predict_joint_log_proba(["cash prize"])
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
