"""Docstring text that many objects share, written once.

Three mechanisms, so that every reference page says the same thing in the same words and a
change is made in one place:

* Parameters: a docstring names a shared parameter by its header line alone
  (``decision_threshold : float, optional``); :func:`shared_parameters` fills in the
  description from :data:`PARAMETERS`. A header that already has its own description keeps it.
* Methods that do the same thing on many classes (``predict``, ``predict_proba``, ... of the
  estimators, of the wrappers that delegate to one, of :mod:`nbayes.dask`): :func:`shared_doc`
  builds their docstring from a template of :data:`METHODS`, filling its ``{{field}}`` lines
  (the ``X`` a class takes, its examples) with text the class gives once.
* The estimator protocol: a method that implements one of
  :class:`~nbayes.base.EstimatorProtocol`'s takes the sections it does not
  write itself (Parameters, Returns, Examples, ...) from the protocol's docstring of that
  method (:func:`inherit_docstrings`, run for every subclass of the protocol).

The sections are merged by title (:func:`merge_docstrings`), so numpydoc sees complete
Parameters / Returns / Examples sections in every final ``__doc__``.
"""

from __future__ import annotations

import inspect
import re
import textwrap

#: Parameter name -> its description (plain text, wrapped by the docstring's indentation).
PARAMETERS = {
    "alpha": """
        Concentration of the symmetric Dirichlet (Beta, Gamma) prior of each discrete
        parameter: the pseudo-count every value receives. "auto" chooses it at fit time by
        maximising the evidence (the marginal likelihood of the training features under the
        prior), from the counts alone.""",
    "force_alpha": """
        Keep ``alpha`` as given even when it is below 1e-10 (scikit-learn's parameter; False
        raises such an alpha to 1e-10, as scikit-learn does).""",
    "fit_prior": """
        Learn the class prior from the class counts; False gives every class the same prior.""",
    "class_prior": """
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.""",
    "estimate": """
        How a discrete parameter is estimated from its counts n out of N under the prior:
        "posterior_mean" (n + alpha) / (N + K alpha), Lidstone smoothing and scikit-learn's
        estimate; "map" (n + alpha - 1) / (N + K (alpha - 1)), the posterior mode, for
        alpha >= 1; "mle" n / N, where an unseen value has probability zero.""",
    "prior_alpha": """
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).""",
    "missing": """
        What a missing cell (NaN) means: "error" refuses it, naming the column and the first
        row; "ignore" leaves it out of the statistics at fit and out of the product at
        predict, which is exact marginalisation under the naive assumption; "category"
        (category values only) makes missingness a category of its own.""",
    "y": """
        The class label of each row.""",
    "sample_weight": """
        Weight of each row, 1 by default: an integer weight counts as that many copies of
        the row, and a zero weight as no row.""",
    "y_true": """
        The true class of each row.""",
    "decision_threshold": """
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.""",
    "ax": """
        The matplotlib Axes to draw on; by default a new figure's.""",
    "threshold_scale": """
        The scale of ``decision_threshold``: log-odds, or the probability of ``classes_[1]``.""",
}

_HEADER = re.compile(r"^(?P<indent>[ ]*)(?P<name>\w+) : .*$")


def fill_parameters(doc: str) -> str:
    """``doc`` with a shared description under every bare header of a shared parameter."""
    lines = doc.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):  # bounded by the docstring's length
        out.append(line)
        match = _HEADER.match(line)
        if not match or match["name"] not in PARAMETERS:
            continue
        indent = match["indent"]
        following = lines[i + 1] if i + 1 < len(lines) else ""
        has_own = following.startswith(indent + " ") and following.strip()
        if not has_own:
            text = textwrap.dedent(PARAMETERS[match["name"]]).strip()
            out.extend(indent + "    " + t for t in text.splitlines())
    return "\n".join(out) + ("\n" if doc.endswith("\n") else "")


def shared_parameters(obj):
    """Class or function decorator: fill in the shared parameter descriptions of its
    docstring (see the module docstring).

    Examples
    --------
    >>> @shared_parameters
    ... class Model:
    ...     '''A model.
    ...
    ...     Parameters
    ...     ----------
    ...     prior_alpha : float, default=0.0
    ...     '''
    >>> print(Model.__doc__.splitlines()[5].strip())
    Pseudo-observations of every class added to the class counts of the fitted class
    """
    if obj.__doc__:
        obj.__doc__ = fill_parameters(obj.__doc__)
    return obj


# -- templates: placeholders and section merges ------------------------------------------------
_PLACEHOLDER = re.compile(r"^(?P<indent>[ ]*)\{\{(?P<name>\w+)\}\}[ ]*$")

#: numpydoc's order of sections (a merged docstring lists them in this order).
SECTION_ORDER = (
    "Parameters",
    "Returns",
    "Yields",
    "Receives",
    "Other Parameters",
    "Raises",
    "Warns",
    "Warnings",
    "See Also",
    "Notes",
    "References",
    "Examples",
)


def fill_placeholders(doc: str, fields: dict) -> str:
    """``doc`` with every line ``{{name}}`` replaced by ``fields[name]`` at its indentation.

    A placeholder without a field is a KeyError, so a misspelt name fails at import time
    rather than printing braces on the reference page.
    """
    out: list[str] = []
    for line in doc.splitlines():  # bounded by the docstring's length
        match = _PLACEHOLDER.match(line)
        if match is None:
            out.append(line)
            continue
        name = match["name"]
        if name not in fields:
            raise KeyError(
                f"docstring placeholder {{{{{name}}}}} has no text; given {sorted(fields)}"
            )
        text = inspect.cleandoc(fields[name])
        out.extend((match["indent"] + t) if t else "" for t in text.splitlines())
    return "\n".join(out)


def _split_sections(doc: str) -> tuple[list[str], dict[str, list[str]]]:
    """The summary paragraphs of a cleaned docstring and its sections by title."""
    lines = inspect.cleandoc(doc).splitlines()
    heads = [
        i
        for i in range(len(lines) - 1)  # bounded by the docstring's length
        if lines[i].strip()
        and not lines[i].startswith(" ")
        and set(lines[i + 1].strip()) == {"-"}
        and len(lines[i + 1].strip()) == len(lines[i].strip())
    ]
    summary = lines[: heads[0]] if heads else lines
    sections = {}
    for k, i in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        sections[lines[i].strip()] = lines[i + 2 : end]
    return summary, sections


def _strip_blank(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while lines and not lines[0].strip():
        lines = lines[1:]
    return lines


def merge_docstrings(own: str | None, base: str) -> str:
    """A docstring with ``own``'s summary and sections, and ``base``'s where ``own`` has none.

    Examples
    --------
    >>> base = "Base summary.\\n\\nReturns\\n-------\\nint\\n    A number."
    >>> print(merge_docstrings("Own summary.", base))
    Own summary.
    <BLANKLINE>
    Returns
    -------
    int
        A number.
    <BLANKLINE>
    """
    own_summary, own_sections = _split_sections(own or "")
    base_summary, sections = _split_sections(base)
    sections.update(own_sections)
    summary = _strip_blank(own_summary) or _strip_blank(base_summary)
    rank = {title: i for i, title in enumerate(SECTION_ORDER)}
    ordered = sorted(sections, key=lambda t: rank.get(t, len(rank)))
    parts = ["\n".join(summary)]
    for title in ordered:  # bounded by the number of sections
        body = _strip_blank(sections[title])
        parts.append("\n".join([title, "-" * len(title), *body]))
    return "\n\n".join(parts) + "\n"


# -- methods that many classes share -------------------------------------------------------------
#: Method name -> docstring template; ``{{X}}`` is the class's description of its input and
#: ``{{examples}}`` its examples of the prediction methods (see :func:`shared_doc`).
METHODS = {
    "predict": """
        Most probable class of each sample.

        Where the model has a ``decision_threshold`` (two classes only; for a wrapper, its
        inner model's), ``classes_[1]`` is predicted exactly when its log-odds exceed the
        threshold; otherwise the most probable class (ties go to the first class, as
        ``argmax``), which is the threshold 0.

        Parameters
        ----------
        {{X}}

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per sample.

        Examples
        --------
        {{examples}}
        """,
    "predict_proba": """
        Posterior probability P(y | x) of every class, for each sample.

        Parameters
        ----------
        {{X}}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; each row sums to one.

        Examples
        --------
        {{examples}}
        """,
    "predict_log_proba": """
        Log posterior log P(y | x) of every class, for each sample.

        Computed in log space (log-sum-exp), so a class far less probable than another keeps a
        finite log-probability where :meth:`predict_proba` would round it to 0.

        Parameters
        ----------
        {{X}}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; ``exp`` of each row sums to one.

        Examples
        --------
        {{examples}}
        """,
    "predict_joint_log_proba": """
        Joint log-probability log P(x, y) of every class, for each sample.

        Includes the class-independent terms (e.g. multinomial coefficients), so it is a true
        log-probability: log-sum-exp over the classes gives log P(x).

        Parameters
        ----------
        {{X}}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order.

        Examples
        --------
        {{examples}}
        """,
    "decision_function": """
        Log-odds for two classes, the log posterior otherwise.

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
        {{X}}

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The log-odds of ``classes_[1]`` (two classes) or the log posterior of every class.

        Examples
        --------
        {{examples}}
        """,
}

#: Descriptions of the input ``X`` that several classes take, for the ``{{X}}`` field.
INPUTS = {
    "estimator": """
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).""",
    "texts": """
        X : sequence of str, Series or one-column DataFrame, length n_samples
            The texts.""",
    "delegated": """
        X : array-like, sparse matrix, DataFrame or texts, n_samples long
            The samples, as the fitted model takes them.""",
}


def shared_doc(template: str | None = None, **fields):
    """Function decorator: its docstring from :data:`METHODS` ``[template]`` with the
    ``{{field}}`` lines filled in from ``fields``, merged under its own docstring (whose
    summary and sections take precedence, and whose own ``{{field}}`` lines are filled too);
    then the shared parameter descriptions, as :func:`shared_parameters` fills them.

    Examples
    --------
    >>> @shared_doc("predict_proba", X=INPUTS["estimator"], examples=">>> 1 + 1\\n2")
    ... def predict_proba(self, X):
    ...     pass
    >>> print(predict_proba.__doc__.splitlines()[0])
    Posterior probability P(y | x) of every class, for each sample.
    """

    def decorate(func):
        own = fill_placeholders(inspect.cleandoc(func.__doc__), fields) if func.__doc__ else None
        if template is None:
            func.__doc__ = None if own is None else own + "\n"
        else:
            func.__doc__ = merge_docstrings(own, fill_placeholders(METHODS[template], fields))
        return shared_parameters(func)

    return decorate


def inherit_docstrings(cls, base) -> None:
    """Merge the docstring of every method of ``cls`` that implements one of ``base``'s
    (by name) over ``base``'s docstring of it: the sections ``cls`` does not write come from
    ``base``. Methods of other names are left as they are.

    Examples
    --------
    >>> class Base:
    ...     def run(self, n):
    ...         '''Run.
    ...
    ...         Parameters
    ...         ----------
    ...         n : int
    ...             How many times.
    ...         '''
    >>> class Impl(Base):
    ...     def run(self, n):
    ...         '''Run fast.'''
    >>> inherit_docstrings(Impl, Base)
    >>> print(Impl.run.__doc__)
    Run fast.
    <BLANKLINE>
    Parameters
    ----------
    n : int
        How many times.
    <BLANKLINE>
    """
    for name, value in vars(cls).items():  # bounded by the class's attributes
        if not inspect.isfunction(value):
            continue
        documented = getattr(vars(base).get(name), "__doc__", None)
        if documented:
            value.__doc__ = merge_docstrings(value.__doc__, documented)
