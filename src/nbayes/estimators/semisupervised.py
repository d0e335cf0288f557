"""Semi-supervised naive Bayes: EM over a few labeled and many unlabeled rows (Nigam et al. 2000).

Each EM iteration is one pass of the engine's own fit: the E-step scores every row under the
current model (``predict_joint_log_proba``) and turns the scores into fractional class weights
(responsibilities); the M-step accumulates the rows with those weights as
:class:`~nbayes.distributions.SoftLabels` -- the same accumulate path as sample weights, one
product ``W.T @ X`` per batch instead of one copy of X per class -- and installs the merged
statistics (finalize, the family's MAP estimate). Because an iteration is accumulate -> merge
-> finalize, it is one pass of the training driver (:func:`nbayes._training.train_passes`)
over the estimator protocol (:mod:`._semisupervised_passes`), in memory, over chunks from an
iterable, or on Dask (:func:`nbayes.dask.fit_semisupervised`), with the same numbers.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Iterator
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .. import _engine as engine
from .. import _training as training
from .. import base
from .._labels import fit_classes
from .._params import Interval, StrOptions, check_params
from .._rowhash import hash_folds
from .._training import set_up
from ..base import EstimatorProtocol
from ..exceptions import DataError, EMWarning, ParameterError
from ._em import EM_ADVICE as EM_ADVICE
from ._em import StepSettings
from ._em import component_shares as component_shares
from ._em import responsibilities as responsibilities
from ._semisupervised_labels import UNLABELED as UNLABELED
from ._semisupervised_labels import (
    KnownClasses,
    _as_labels,
    _labeled,
    _n_rows,
    _unpack,
    _warn_of_marker_labels,
)
from ._semisupervised_labels import unlabeled_mask as unlabeled_mask
from ._semisupervised_passes import _EMPasses

#: The held-out folds of EM's figures, under the name this module gave them before the one row
#: hash (:mod:`nbayes._rowhash`) served the command line and Dask too.
fold_of = hash_folds


#: The candidates of ``unlabeled_weight="auto"``: no weight (the labeled rows alone) up to
#: plain EM, roughly evenly on a log scale.
AUTO_WEIGHTS = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0)


# -- the estimator --------------------------------------------------------------------------
Batch = tuple  # (X, y) or (X, y, sample_weight)


def _meta(X):
    """What :meth:`EstimatorProtocol.setup` needs of the data: a table's columns (no rows),
    or the number of columns of an array (1 for a sequence of texts)."""
    if isinstance(X, pd.DataFrame):
        return X.iloc[:0]
    if isinstance(X, pd.Series):
        return X.to_frame().iloc[:0]
    shape = X.shape if sp.issparse(X) or hasattr(X, "shape") else np.shape(X)
    return int(shape[1]) if len(shape) == 2 else 1


def _survey_part(X, columns):
    """The part of a batch a survey pass reads: survey passes read tables (Dask partitions),
    so a 2-d array becomes a table with columns 0..d-1 (as its set-up numbers them)."""
    if not isinstance(X, (pd.DataFrame, pd.Series)) and not sp.issparse(X):
        array = np.asarray(X)
        if array.ndim == 2:
            X = pd.DataFrame(array)
    if columns is None:
        return X
    if not isinstance(X, pd.DataFrame):
        raise DataError(f"This estimator surveys the columns {columns!r} of a table; got an array.")
    return X[list(columns)]


class SemiSupervisedNB(_EMPasses, ClassifierMixin, BaseEstimator, EstimatorProtocol):
    """Any nbayes model trained by EM on a few labeled and many unlabeled rows.

    Nigam, McCallum, Thrun & Mitchell (2000), "Text classification from labeled and unlabeled
    documents using EM", Machine Learning 39. EM starts from the model of the labeled rows
    alone, then repeats: score every row (E-step: class posteriors of the unlabeled rows,
    component posteriors within the class of the labeled ones), and fit the model to all
    rows weighted by those posteriors (M-step: the same accumulate path as sample weights,
    then the family's estimate). Unlabeled rows are marked as in scikit-learn: label -1, or
    None / NaN for object or float labels.

    **Objective.** With ``lambda = unlabeled_weight``, labeled rows L (class y_i), unlabeled
    rows U and sample weights w_i, EM maximises the log posterior

        sum_{i in L} w_i log p(x_i, y_i | theta) + lambda sum_{i in U} w_i log p(x_i | theta)
        + log p(theta)

    where p(x, y) sums over the class's components and p(x) over all components, and
    p(theta) is the prior whose mode the family's estimate is: with ``alpha`` and
    ``estimate="posterior_mean"`` (Laplace / Lidstone smoothing) a Dirichlet(alpha + 1),
    with ``estimate="map"`` a Dirichlet(alpha), with ``estimate="mle"`` a flat prior (see
    ``log_prior`` of the estimators). Each iteration does not decrease it (for lambda <= 1
    and for lambda > 1 alike: the weights are fixed). ``history_`` records it. The Gaussian
    family's variance floor (``var_smoothing``) and the semi-naive models' smoothing have no
    ``log_prior``: their objective is the likelihood alone, which EM then keeps
    non-decreasing only approximately (the smoothing moves each M-step off its maximum).

    Parameters
    ----------
    estimator : nbayes estimator, default MultinomialNB()
        The model (unfitted; it is cloned): MultinomialNB, BernoulliNB, CategoricalNB,
        GaussianNB, PoissonNB, MixedNB, TextNB, or a semi-naive model. ComplementNB's scores
        are not probabilities of the rows, so EM does not apply to it.
    unlabeled_weight : float, list of floats or "auto", default=1.0
        The weight lambda of an unlabeled row relative to a labeled one (Nigam et al.'s
        EM-lambda). 1 is plain EM; below 1 limits the influence of the unlabeled rows where
        they outnumber the labeled ones and the model's assumptions fit the data loosely.
        A list of candidates (or "auto": 0, 0.01, 0.03, 0.1, 0.3, 1) lets EM choose it
        from held-out labeled rows, without a refit per candidate (see *Choosing lambda*).
    n_components : int, default=1
        Mixture components per class (Nigam et al.'s "multiple mixture components per
        class"): a class that is a union of topics is modelled as several sub-classes,
        summed for prediction. Components start from a random split of the class's labeled
        rows (``random_state``).
    max_iter : int, default=30
        Most EM iterations (0 gives the labeled-only model).
    tol : float, default=1e-6
        Stop when an iteration raises the objective by less than ``tol`` per unit of row
        weight (labeled weight plus lambda times the unlabeled weight).
    random_state : int, RandomState or None, default=None
        Seeds the initial split of labeled rows among components (for n_components > 1)
        and the held-out folds (None: the same folds on every fit).
    cv : int or None, default=5
        Number of held-out folds of the labeled rows, for choosing lambda among candidates
        and for the :class:`~nbayes.EMWarning` check; None turns both off (then
        ``unlabeled_weight`` must be one number).

    Attributes
    ----------
    estimator_ : nbayes estimator
        The fitted model: an ordinary nbayes model (predict, save / load, explain, merge).
        With ``n_components=1`` its classes are ``classes_``; with more, sub-class ``j``
        is component ``j % n_components`` of class ``classes_[j // n_components]``.
    classes_ : ndarray of shape (n_classes,)
    history_ : list of float
        The objective (above) of the model entering each iteration: ``history_[0]`` is that
        of the labeled-only model. The rows' class-independent terms (multinomial
        coefficients, Gaussian constants) are left out: they do not change from one
        iteration to the next and cost a pass of log-gamma (see ``joint_log_scores``).
    n_iter_ : int
        EM iterations run.
    converged_ : bool
        Whether the objective stopped changing (by ``tol``) before ``max_iter``.
    unlabeled_weight_ : float
        The lambda of the final model (the chosen one, with candidates).
    unlabeled_weight_scores_ : dict or None
        With candidates: each one's held-out log-likelihood at the last iteration (the
        chosen one is the largest); None for a fixed ``unlabeled_weight``.
    heldout_log_likelihood_ : dict or None
        ``{"labeled_only": ..., "em": ...}``: the held-out conditional log-likelihood of the
        labeled rows (summed over the folds, weighted) under the labeled rows alone and
        under EM (see *Notes*); None without folds (``cv=None``, ``unlabeled_weight=0``,
        ``max_iter=0``, or a model that cannot weigh its statistics).

    Notes
    -----
    **Choosing lambda.** The labeled rows are split into ``cv`` folds (by a hash of the row
    index, so the folds do not depend on chunking). Every pass counts each fold's labeled
    rows apart and the unlabeled rows once with weight 1, so the M-step of any lambda is a
    merge of statistics: ``labeled + lambda * unlabeled``, and the model of the labeled rows
    outside fold f is ``labeled - fold f + lambda * unlabeled`` -- one finalize, no refit and
    no pass over the data. Each iteration keeps the candidate whose out-of-fold models give
    the folds' labeled rows the highest conditional log-likelihood ``sum w log p(y | x)``
    (the held-out log loss: what classification needs, where the joint likelihood would
    mostly reward modelling x), and installs its M-step. The labeled part of these models is
    exact cross-validation; the unlabeled rows' posteriors come from the model of all the
    labeled rows (scoring them once per fold would cost a pass per fold), so a held-out row
    reaches its fold's model through them only. ``history_`` is the objective of the lambda
    chosen at each iteration; it is non-decreasing once the choice settles, and EM stops
    only then. Memory holds the labeled rows (to score them) besides one batch.

    **The warning.** After the last iteration the same statistics (with a fixed lambda, those
    of one more pass over the data, which counts the folds apart: one pass per fit rather
    than a little more work on every pass) give the held-out conditional log-likelihood of
    the labeled rows under the labeled rows alone (lambda 0: exactly ``cv``-fold
    cross-validation of the supervised model) and under EM's final lambda
    (``heldout_log_likelihood_``). Where EM's is lower, the unlabeled rows made the
    labeled ones less predictable -- the known failure of EM when the model's assumptions
    are badly violated -- and :class:`~nbayes.EMWarning` says so. Choosing among candidates
    that include 0 never warns.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB, SemiSupervisedNB
    >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
    >>> y = np.array([0, -1, 1, -1, -1, -1])  # two labeled rows, four unlabeled
    >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, y)
    >>> em.predict(X).tolist()
    [0, 0, 1, 1, 0, 1]
    >>> bool(np.all(np.diff(em.history_) >= 0))
    True
    >>> auto = SemiSupervisedNB(MultinomialNB(), unlabeled_weight=[0.0, 1.0], cv=2).fit(X, y)
    >>> auto.unlabeled_weight_ in (0.0, 1.0)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [None, EstimatorProtocol],
        "unlabeled_weight": [Real, list, tuple, np.ndarray, StrOptions({"auto"})],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Integral],  # and >= 0: see _check_params
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "cv": [Interval(Integral, 2, None, closed="left"), None],
    }
    _parameter_messages: ClassVar[dict] = {
        "estimator": "estimator must be an nbayes estimator; got {kind}.",
        "unlabeled_weight": (
            "Parameter 'unlabeled_weight' must be a number, a list of candidates or 'auto'; "
            "got {value}."
        ),
    }

    def __init__(
        self,
        estimator=None,
        *,
        unlabeled_weight=1.0,
        n_components: int = 1,
        max_iter: int = 30,
        tol: float = 1e-6,
        random_state=None,
        cv: int | None = 5,
    ):
        self.estimator = estimator
        self.unlabeled_weight = unlabeled_weight
        self.cv = cv
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def capabilities(self) -> frozenset[str]:
        """Learning from unlabeled rows, over an inner model held as part of it (see
        :meth:`nbayes.base.EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            ``semi_supervised`` and ``holds_model``.

        Examples
        --------
        >>> from nbayes import SemiSupervisedNB
        >>> sorted(SemiSupervisedNB().capabilities())
        ['holds_model', 'semi_supervised']
        """
        return frozenset({base.SEMI_SUPERVISED, base.HOLDS_MODEL})

    # -- parameters -----------------------------------------------------------------------------
    def _new_model(self) -> EstimatorProtocol:
        from .presets import MultinomialNB

        est = MultinomialNB() if self.estimator is None else self.estimator
        if not isinstance(est, base.Model):
            raise ParameterError(
                f"estimator must be an nbayes estimator; got {type(est).__name__}."
            )
        if base.supports(est, base.SEMI_SUPERVISED):
            raise ParameterError(
                f"estimator is a {type(est).__name__}, which trains a model by EM itself; pass "
                "the model to train (e.g. MultinomialNB())."
            )
        if not base.supports(est, base.JOINT_PROBABILITY):
            raise ParameterError(
                "SemiSupervisedNB needs a model of the rows' probability; "
                f"{type(base.inner_model(est)).__name__}'s scores are not probabilities of the "
                "rows, so EM has nothing to maximise. Use MultinomialNB (the generative "
                "counterpart of ComplementNB) or another generative model."
            )
        return clone(est)

    def _candidates(self) -> list[float]:
        """The values of lambda to choose from: one for a fixed ``unlabeled_weight``."""
        lam = self.unlabeled_weight
        if isinstance(lam, str):  # "auto", as declared
            return list(AUTO_WEIGHTS)
        values = list(lam) if isinstance(lam, (list, tuple, np.ndarray)) else [lam]
        if not values:
            raise ParameterError(
                "Parameter 'unlabeled_weight' got no candidates; give one or more."
            )
        for v in values:
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not float(v) >= 0:
                raise ParameterError(
                    f"Parameter 'unlabeled_weight' must be a non-negative number (or a list of "
                    f"them, or 'auto'); got {v!r}."
                )
            if not np.isfinite(float(v)):
                raise ParameterError(f"Parameter 'unlabeled_weight' must be finite; got {v!r}.")
        return sorted({float(v) for v in values})

    def _n_folds(self, model: EstimatorProtocol, candidates: list[float]) -> int:
        """Held-out folds of the labeled rows: ``cv``, or 0 where nothing needs them (a fixed
        lambda of 0, ``cv=None``) or the model cannot weigh statistics."""
        cv = self.cv
        scales = type(model).scale_statistics is not EstimatorProtocol.scale_statistics
        if len(candidates) > 1:
            if cv is None:
                raise ParameterError(
                    "Choosing unlabeled_weight among candidates needs held-out labeled rows: "
                    "set cv to a number of folds (>= 2), or give one unlabeled_weight."
                )
            if not scales:
                raise ParameterError(
                    f"{type(model).__name__} cannot weigh its statistics, so "
                    "SemiSupervisedNB cannot choose unlabeled_weight for it; give one number."
                )
        if cv is None or not scales or candidates == [0.0]:
            return 0
        return int(cv)

    def _settings(self, n_classes: int, init: bool, n_folds: int = 0) -> StepSettings:
        lam = self._candidates()[-1]  # a fixed lambda; with candidates, the M-step chooses
        M = self.n_components
        seed = np.random.RandomState(self.random_state).randint(2**31) if M > 1 else 0
        # Folds are fixed by random_state, and the same for every fit when it is None, so
        # that a choice of lambda is reproducible (as scikit-learn's unshuffled KFold).
        fold_seed = 0 if self.random_state is None else seed ^ 0x5EED
        return StepSettings(
            n_classes * int(M), int(M), float(lam), int(seed), init, n_folds, int(fold_seed)
        )

    def _check_params(self) -> None:
        check_params(self)
        # The declared table says "an integer"; its sign gets a message of its own.
        if self.max_iter < 0:
            raise ParameterError(f"Parameter 'max_iter' must be >= 0; got {self.max_iter!r}.")

    # -- fitting --------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Run EM on the rows of X: labeled where ``y`` holds a class, unlabeled where it
        holds -1 (or None / NaN).

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.
        y : array-like of shape (n_samples,)
            Labels; -1, None or NaN mark an unlabeled row.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row, 1 by default: an integer weight counts as that many copies of
            the row, and a zero weight as no row.

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
        >>> y = np.array([0, -1, 1, -1, -1, -1])  # two labeled rows, four unlabeled
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, y)
        >>> em.classes_.tolist(), bool(em.converged_)
        ([0, 1], True)
        """
        _warn_of_marker_labels(y)
        return self._fit_chunks([(X, y, sample_weight)], None, in_memory=True)

    def fit_chunks(
        self,
        chunks: Iterable[Batch] | Callable[[], Iterable[Batch]],
        classes=None,
        typed: Callable[[np.ndarray], np.ndarray] | None = None,
    ):
        """Run EM over data that comes in chunks, one pass over the chunks per iteration.

        Memory holds one chunk and the statistics, whatever the size of the data; the result
        equals :meth:`fit` on all rows to floating-point rounding.

        Parameters
        ----------
        chunks : iterable of (X, y) or (X, y, sample_weight), or a callable returning one
            Read once per pass: a list, or anything that can be iterated again (a callable
            that opens the file anew each time). A one-shot iterator is refused.
        classes : array-like, optional
            Every class. By default a first pass over the labels finds them.
        typed : callable, optional
            Maps the classes as the chunks give them (an object array, sorted) to their
            final type, once, after the first pass (the command line reads labels as text);
            None keeps them as they are.

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
        >>> y = np.array([0, -1, 1, -1, -1, -1])
        >>> em = SemiSupervisedNB(MultinomialNB()).fit_chunks([(X[:3], y[:3]), (X[3:], y[3:])])
        >>> em.predict(X).tolist()
        [0, 0, 1, 1, 0, 1]
        """
        return self._fit_chunks(chunks, classes, in_memory=False, typed=typed)

    def _fit_chunks(self, chunks, classes, in_memory: bool, typed=None):
        self._check_params()
        if callable(chunks):
            source = chunks
        else:
            if iter(chunks) is chunks:
                raise ParameterError(
                    "chunks must be readable once per EM iteration: pass a list, or a callable "
                    "that returns a fresh iterator (e.g. lambda: pd.read_csv(path, "
                    "chunksize=10_000)); got a one-shot iterator."
                )
            source = lambda: chunks  # noqa: E731

        found_classes = None if classes is None else np.unique(np.asarray(classes))
        if found_classes is None:
            seen = [np.unique(_labeled(_unpack(b)[1])) for b in source()]
            found_classes = fit_classes(np.concatenate(seen)) if seen else np.array([])
        self.begin(found_classes, in_memory=in_memory)
        first = next(iter(source()), None)
        if first is None:
            raise DataError("chunks gave no rows: there is nothing to learn from.")

        def survey(step):
            parts = []
            for batch in source():
                X, y, w = _unpack(batch)
                part = _survey_part(X, step.columns)
                parts.append(step.summarize(part, y, w) if step.labels else step.summarize(part))
            return step.combine(*parts)

        set_up(self, _meta(_unpack(first)[0]), survey)
        encoded: dict = {}  # in memory: the batch's features, encoded once (see _encoder)

        def batches() -> Iterator[tuple]:
            encode = self._em.encode
            for i, batch in enumerate(source()):
                X, y, w = _unpack(batch)
                n, n_labels = _n_rows(X), _as_labels(y).shape[0]
                if n_labels != n:
                    raise DataError(f"X has {n} rows but y has {n_labels} labels; they must match.")
                if encode is not None:
                    X = encoded[i] if i in encoded else encoded.setdefault(i, encode(X))
                yield X, y, w

        return training.train_passes(self, batches, KnownClasses(found_classes), typed)

    # -- prediction -------------------------------------------------------------------------------
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """Joint log-probability log P(x, y) of every class, for each sample: the class's
        components summed.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
        >>> y = np.array([0, -1, 1, -1, -1, -1])  # two labeled rows, four unlabeled
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, y)
        >>> em.predict_joint_log_proba([[3, 1]]).round(2)
        array([[-1.66, -6.01]])
        """
        check_is_fitted(self, "estimator_")
        jll = self.estimator_.predict_joint_log_proba(X)
        M = int(self.n_components)
        if M == 1:
            return jll
        return logsumexp(jll.reshape(jll.shape[0], -1, M), axis=2)

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior log P(y | x) of every class, for each sample.

        Computed in log space (log-sum-exp), so a class far less probable than another keeps a
        finite log-probability where :meth:`predict_proba` would round it to 0.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; ``exp`` of each row sums to one.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
        >>> y = np.array([0, -1, 1, -1, -1, -1])  # two labeled rows, four unlabeled
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, y)
        >>> em.predict_log_proba([[3, 1]]).round(2)
        array([[-0.01, -4.36]])
        """
        jll = self.predict_joint_log_proba(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X) -> np.ndarray:
        """Posterior probability P(y | x) of every class, for each sample.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; each row sums to one.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
        >>> y = np.array([0, -1, 1, -1, -1, -1])  # two labeled rows, four unlabeled
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, y)
        >>> em.predict_proba([[3, 1], [1, 3]]).round(2)
        array([[0.99, 0.01],
               [0.04, 0.96]])
        """
        return np.exp(self.predict_log_proba(X))

    def decision_function(self, X) -> np.ndarray:
        """Log-odds for two classes (clipped to about ±36.04), the posterior otherwise: the
        convention of every nbayes estimator, from the components summed per class.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The log-odds of ``classes_[1]`` (two classes) or the posterior of every class.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
        >>> y = np.array([0, -1, 1, -1, -1, -1])  # two labeled rows, four unlabeled
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, y)
        >>> em.decision_function([[3, 1], [1, 3]]).round(2)
        array([-4.35,  3.13])
        """
        jll = self.predict_joint_log_proba(X)
        if jll.shape[1] == 2:
            return engine.bound_decision(engine.log_odds(jll))
        return engine.normalise(np.ascontiguousarray(jll, dtype=np.float64))

    def predict(self, X) -> np.ndarray:
        """Most probable class of each sample (with ``n_components=1``, exactly the
        predictions of ``estimator_``, its ``decision_threshold`` included).

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per sample.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB, SemiSupervisedNB
        >>> X = np.array([[5, 0], [4, 1], [0, 5], [1, 4], [6, 1], [0, 6]])
        >>> y = np.array([0, -1, 1, -1, -1, -1])  # two labeled rows, four unlabeled
        >>> em = SemiSupervisedNB(MultinomialNB()).fit(X, y)
        >>> em.predict([[3, 1], [1, 3]]).tolist()
        [0, 1]
        """
        check_is_fitted(self, "estimator_")
        if int(self.n_components) == 1:
            model: Any = self.estimator_  # every nbayes estimator predicts
            return model.predict(X)
        return self.classes_[np.argmax(self.predict_joint_log_proba(X), axis=1)]


__all__ = [
    "AUTO_WEIGHTS",
    "UNLABELED",
    "EMWarning",
    "SemiSupervisedNB",
    "component_shares",
    "fold_of",
    "unlabeled_mask",
]
