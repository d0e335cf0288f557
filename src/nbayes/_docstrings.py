"""Parameter descriptions that many estimators share, written once.

A docstring names a shared parameter by its header line alone (``decision_threshold : float,
optional``); :func:`shared_parameters` fills in the description from :data:`PARAMETERS`, so
every estimator's reference page says the same thing in the same words, and a change is made
in one place. A header that already has its own description keeps it.
"""

from __future__ import annotations

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
    "decision_threshold": """
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.""",
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
