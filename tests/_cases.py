"""Estimators and matching random data for the conformance suite, built from the registries.

Data comes from each family's own ``example_data`` (``nbayes.distributions.REGISTRY``), so a new
family needs no entry here. The one hand-kept table, :data:`PRESETS`, says which family each
single-family estimator of ``nbayes.estimators.REGISTRY`` models and with which settings the
suite runs it; ``test_conformance.py::test_every_registered_estimator_has_a_case`` fails when a
registered estimator is in none of :data:`PRESETS`, :data:`OWN_DATA` and :data:`OWN_SUITES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

import nbayes
from nbayes.distributions import REGISTRY as FAMILIES
from nbayes.estimators import REGISTRY as ESTIMATORS

#: Single-family estimator (registry name) -> (family it models, factory the suite uses).
PRESETS: dict[str, tuple[str, Callable]] = {
    "GaussianNB": ("gaussian", lambda: nbayes.GaussianNB()),
    "BernoulliNB": ("bernoulli", lambda: nbayes.BernoulliNB()),
    "MultinomialNB": ("multinomial", lambda: nbayes.MultinomialNB(alpha=0.5)),
    "ComplementNB": ("complement", lambda: nbayes.ComplementNB(alpha=0.7)),
    "CategoricalNB": ("categorical", lambda: nbayes.CategoricalNB(alpha=2.0)),
    "PoissonNB": ("poisson", lambda: nbayes.PoissonNB()),
    "DensityNB": ("density", lambda: nbayes.DensityNB()),
}


def mixed_table(rng, n, d):
    """A numeric table with one column per family (the registry's order), cycled to d."""
    names = sorted(FAMILIES)
    cols = [FAMILIES[names[j % len(names)]]().example_data(rng, n, 1) for j in range(d)]
    return np.hstack(cols).astype(np.float64)


def mixed_groups(d):
    names = sorted(FAMILIES)
    return [(name, [j for j in range(d) if names[j % len(names)] == name]) for name in names]


def codes(rng, n, d):
    """Category codes, as the categorical family draws them."""
    return FAMILIES["categorical"]().example_data(rng, n, d)


#: Estimators whose input is not one family's matrix: (factory, data maker, X is a matrix).
OWN_DATA: dict[str, tuple[Callable, Callable, bool]] = {
    # Every family in one table; MixedNB also runs each family alone (family cases below).
    "MixedNB": (lambda d: nbayes.MixedNB(columns=mixed_groups(d)), mixed_table, True),
    # The semi-naive models on category codes (declared categorical: numeric columns would
    # need fixed bin edges for partial_fit).
    "AODE": (lambda d: nbayes.AODE(categorical=list(range(d))), codes, True),
    "TAN": (lambda d: nbayes.TAN(categorical=list(range(d))), codes, True),
    "KDB": (lambda d: nbayes.KDB(categorical=list(range(d))), codes, True),
    "JointBayes": (
        lambda d: nbayes.JointBayes(categorical=list(range(d))),
        codes,
        True,
    ),
}
#: Registered estimators outside this suite, and where they are tested instead.
OWN_SUITES: dict[str, str] = {
    "TextNB": "tests/test_text.py (a vectoriser in front of a preset, which runs here)",
}


@dataclass(frozen=True)
class Case:
    """One estimator configuration of the conformance suite and the data it fits on."""

    name: str
    factory: Callable[[int], object]  # n_features -> unfitted estimator
    maker: Callable  # (rng, n_samples, n_features) -> X
    sparse: bool  # accepts scipy sparse X (and keeps the results)
    matrix: bool  # X is a numeric matrix (float32 copies, column slices)
    family: str | None = None  # the one family the case models, if any
    #: Whether a row of weight zero leaves no trace (every estimator now: the semi-naive
    #: models learn category values through the shared column layout, which skips them).
    zero_weight_exact: bool = True
    #: Whether the model cuts numeric columns into bins whose edges the data decide (the
    #: semi-naive models): fit, a survey pass (Dask, the CLI) and partial_fit with the
    #: fitted edges must agree (conformance.check_numeric_columns_bin_alike).
    numeric: bool = False
    #: Whether scores split into per-feature terms (explain).
    explains: bool = True

    def make(self, n=60, d=5, k=3, seed=0, sparse=False, density=1.0):
        """A fresh estimator and (X, y); every class occurs (in the first k rows).
        ``density`` < 1 sets about that fraction of the cells to zero (for families that take
        sparse input)."""
        rng = np.random.default_rng(seed)
        X = self.maker(rng, n, d)
        if density < 1:
            X[rng.uniform(size=X.shape) >= density] = 0
        y = rng.integers(0, k, size=n)
        y[:k] = np.arange(k)
        if sparse:
            X = sp.csr_matrix(X)
        return self.factory(d), X, y


def family_data(name):
    return lambda rng, n, d: FAMILIES[name]().example_data(rng, n, d)


def preset_case(estimator: str) -> Case:
    family, factory = PRESETS[estimator]
    return Case(
        estimator,
        lambda d: factory(),
        family_data(family),
        FAMILIES[family].sparse_ok,
        True,
        family,
    )


def family_case(name: str) -> Case:
    """The family ``name`` on its own, through MixedNB by name (no preset needed)."""
    return Case(
        f"MixedNB[{name}]",
        lambda d: nbayes.MixedNB(columns=[(name, list(range(d)))]),
        family_data(name),
        False,
        True,
        name,
    )


def own_case(estimator: str) -> Case:
    factory, maker, matrix = OWN_DATA[estimator]
    return Case(
        estimator,
        factory,
        maker,
        False,
        matrix,
        numeric=estimator != "MixedNB",
    )


def estimator_cases() -> list[Case]:
    """Every registered estimator, plus every registered family through MixedNB."""
    cases = [
        preset_case(name) if name in PRESETS else own_case(name)
        for name in sorted(ESTIMATORS)
        if name not in OWN_SUITES
    ]
    return cases + [family_case(name) for name in sorted(FAMILIES)]


#: family name -> preset case of that family (the older tests' ``make_case("gaussian")``).
CASES: dict[str, Case] = {PRESETS[e][0]: preset_case(e) for e in PRESETS}


def make_case(name, n=60, d=5, k=3, seed=0, sparse=False, density=1.0):
    """A fresh estimator and (X, y) for the named family's preset."""
    return CASES[name].make(n=n, d=d, k=k, seed=seed, sparse=sparse, density=density)


# The data makers by kind, for tests that shape data further (test_linear_form.py).
gaussian_data = family_data("gaussian")
count_data = family_data("poisson")
binary_data = family_data("bernoulli")
code_data = family_data("categorical")
