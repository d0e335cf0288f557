"""The capabilities a model may declare beyond the protocol of :mod:`nbayes.base`, and the
questions code around the models asks of them (:func:`supports`, never a class or its name).
Re-exported by :mod:`nbayes.base`, their public home."""

from __future__ import annotations

#: ``explain(X)`` splits each row's score into per-feature terms, and
#: ``feature_distribution`` shows P(x | class) of one feature (``nbayes explain``, reports).
EXPLANATIONS = "explanations"
#: ``finalize_params``, ``finalize_with`` and ``joint_log_scores_with``: models that differ in
#: finalize-time parameters only are made and scored from one set of statistics (GridSearchCV,
#: ``alpha="cv"``). A model may still refuse a set-up that depends on the rows it learned.
CANDIDATE_SCORING = "candidate_scoring"
#: Linear log-odds: ``coef_``, ``intercept_`` and ``linear_features`` (export, top features).
LINEAR = "linear"
#: Reads raw texts (one str per row); its features are the words of a vocabulary.
TEXT_INPUT = "text_input"
#: Models a (sparse) matrix of non-negative word counts, as a vectoriser gives them, so that
#: TextNB can put it behind its vectoriser.
WORD_COUNTS = "word_counts"
#: Reads X as one matrix of numbers, every column modelled alike (the presets but
#: CategoricalNB): the command line passes every column on as a float.
NUMERIC_INPUT = "numeric_input"
#: ``joint_log_scores`` are log P(x, y) of a generative model, up to a term per row: what EM
#: (:class:`nbayes.SemiSupervisedNB`) maximises. ComplementNB's scores are not.
JOINT_PROBABILITY = "joint_probability"
#: Leaving a feature out of the model is dropping its terms from the scores, with the other
#: features' parameters unchanged (:class:`nbayes.model_selection.FeatureSelectionCV`). Not so
#: where parameters are normalised over all the features (multinomial word shares).
FEATURE_SUBSETS = "feature_subsets"
#: Learns from unlabeled rows by EM (``fit(X, y)`` with unlabeled rows marked), over an inner
#: model (:func:`nbayes.dask.fit_semisupervised`).
SEMI_SUPERVISED = "semi_supervised"
#: A fixed map of the input, ``encode(X)``, feeds an inner model, ``inner_model()``, that
#: holds the class statistics and parameters (TextNB: its vectoriser and classifier); see
#: :func:`inner_model`.
INNER_MODEL = "inner_model"
#: Holds another nbayes model as part of its own (TextNB's classifier, JointBayes' backoff,
#: SemiSupervisedNB's estimator). A model held by another holds none itself in a model file,
#: which keeps the files' nesting one level deep.
HOLDS_MODEL = "holds_model"

#: Every capability a model may declare, and what it promises.
CAPABILITIES: dict[str, str] = {
    EXPLANATIONS: "explain(X) and feature_distribution(feature)",
    CANDIDATE_SCORING: "finalize_with and joint_log_scores_with over shared statistics",
    LINEAR: "coef_, intercept_ and linear_features",
    TEXT_INPUT: "X holds raw texts; the features are words",
    WORD_COUNTS: "models a document-term matrix of counts (TextNB's classifier)",
    NUMERIC_INPUT: "X is one matrix of numbers",
    JOINT_PROBABILITY: "joint_log_scores are a generative model's log P(x, y)",
    FEATURE_SUBSETS: "leaving a feature out drops its terms and nothing else",
    SEMI_SUPERVISED: "learns from unlabeled rows by EM",
    INNER_MODEL: "encode(X) feeds inner_model(), which holds the class statistics",
    HOLDS_MODEL: "holds another nbayes model",
}


def capabilities(model) -> frozenset[str]:
    """The capabilities ``model`` declares (empty for an object that is no nbayes model).

    Parameters
    ----------
    model : object
        A model (an instance, not a class).

    Returns
    -------
    frozenset of str
        Names from :data:`CAPABILITIES`.

    Examples
    --------
    >>> from nbayes import ComplementNB, MultinomialNB
    >>> from nbayes.base import JOINT_PROBABILITY, capabilities
    >>> JOINT_PROBABILITY in capabilities(MultinomialNB())
    True
    >>> JOINT_PROBABILITY in capabilities(ComplementNB())
    False
    >>> capabilities(object())
    frozenset()
    """
    declared = None if isinstance(model, type) else getattr(model, "capabilities", None)
    return frozenset(declared()) if callable(declared) else frozenset()


def supports(model, capability: str) -> bool:
    """Whether ``model`` declares ``capability`` (one of :data:`CAPABILITIES`).

    Parameters
    ----------
    model : object
        A model (an instance, not a class).
    capability : str
        One of :data:`CAPABILITIES`.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        ``capability`` is not a known one (a typo would otherwise read as "no").

    Examples
    --------
    >>> from nbayes import TextNB, MultinomialNB
    >>> from nbayes.base import TEXT_INPUT, supports
    >>> supports(TextNB(), TEXT_INPUT), supports(MultinomialNB(), TEXT_INPUT)
    (True, False)
    """
    if capability not in CAPABILITIES:
        raise ValueError(f"capability must be one of {sorted(CAPABILITIES)}; got {capability!r}.")
    return capability in capabilities(model)


def inner_model(model):
    """The model that holds ``model``'s class statistics and parameters: the inner model of
    a wrapper that declares :data:`INNER_MODEL` (TextNB's classifier), else ``model`` itself.

    Parameters
    ----------
    model : object
        A model.

    Returns
    -------
    object
        The inner model, or ``model``.

    Examples
    --------
    >>> from nbayes import MultinomialNB, TextNB
    >>> from nbayes.base import inner_model
    >>> model = TextNB().fit(["good film", "bad film"], ["+", "-"])
    >>> type(inner_model(model)).__name__, type(inner_model(MultinomialNB())).__name__
    ('MultinomialNB', 'MultinomialNB')
    """
    return model.inner_model() if supports(model, INNER_MODEL) else model
