"""The class-conditional distribution of one feature, as data to print or plot.

A fitted family scores a block of columns; the distribution of one column is read from its
per-feature log-likelihood terms on a set of values (:meth:`Family.log_likelihood_terms`), so
every family, including ones added later, is shown by the same code that scores it. How the
values are chosen depends on what the family models:

* categories (Categorical), 0/1 (Bernoulli), counts (Poisson): a probability per value;
* continuous values (Gaussian, Student-t, and any other density): a density on a grid;
* one column of a document-term matrix (Multinomial, Complement): a word's share of the
  class's words, or its mean count per row (Complement's weights are not probabilities).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..exceptions import ParameterError

#: How many grid points a density is drawn with.
GRID_POINTS = 200
#: Mass left out of a Poisson's drawn range (the upper tail beyond the plotted counts).
POISSON_TAIL = 1e-3


@dataclass(frozen=True)
class FeatureDistribution:
    """P(x_j | y) of one feature for every class, at a set of values.

    Attributes
    ----------
    feature : str
        The column's name (``feature_names_in_``, a word, or ``x3``).
    family : str
        The family that models the column (``"gaussian"``, ``"categorical"``, ...).
    kind : {"pmf", "density", "share", "mean"}
        ``"pmf"``: probability of each value; ``"density"``: probability density on a grid;
        ``"share"``: P(word | class) of a multinomial (one column of a document-term matrix);
        ``"mean"``: mean count per row in the class (ComplementNB).
    values : ndarray of shape (n_values,)
        The values (category labels, counts, or grid points).
    probability : ndarray of shape (n_classes, n_values)
        The probability, density, share or mean at each value, class axis first.
    classes : ndarray of shape (n_classes,)
    """

    feature: str
    family: str
    kind: str
    values: np.ndarray
    probability: np.ndarray
    classes: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """The distribution as a table: one row per value, one column per class."""
        return pd.DataFrame(
            self.probability.T,
            index=pd.Index(self.values, name=self.feature),
            columns=pd.Index(self.classes, name="class"),
        )


def _terms(family, params, width: int, local: int, values: np.ndarray) -> np.ndarray:
    """log P(x_local = v | y) for every value v, shape (n_classes, n_values). The other
    columns of the block hold 0, a value every family accepts; their terms are not used."""
    X = np.zeros((len(values), width))
    X[:, local] = values
    prepared = family.prepare(X)
    return family.log_likelihood_terms(params, prepared)[:, :, local].T


def _density_grid(family, params, local: int, data) -> np.ndarray:
    """Where a continuous column's density is drawn: the data's central 99 %, else four
    standard deviations around every class mean (Gaussian parameters)."""
    if data is not None:
        x = np.asarray(data, dtype=np.float64)
        x = x[np.isfinite(x)]
        if x.size:
            lo, hi = np.quantile(x, [0.005, 0.995])
            pad = 0.1 * (hi - lo) if hi > lo else max(abs(lo), 1.0)
            return np.linspace(lo - pad, hi + pad, GRID_POINTS)
    if "mean" in params and "var" in params:
        mean, sd = params["mean"][:, local], np.sqrt(params["var"][:, local])
        return np.linspace((mean - 4 * sd).min(), (mean + 4 * sd).max(), GRID_POINTS)
    raise ParameterError(
        f"The {family.name} family gives no range to draw its density over; pass values= "
        "(the points to evaluate) or the data X."
    )


def feature_distribution(
    family,
    params: dict,
    stats: dict,
    class_count: np.ndarray,
    width: int,
    local: int,
    name: str,
    classes: np.ndarray,
    category_labels=None,
    values=None,
    data=None,
) -> FeatureDistribution:
    """The distribution of column ``local`` of a block of ``width`` columns.

    ``category_labels`` names the codes of a categorical column (None: the codes);
    ``values`` overrides the values evaluated; ``data`` (the column's training or test
    values) sets the grid of a density.
    """
    kind = family.name
    if kind == "text":
        raise ParameterError(
            f"Column {name!r} is read as words (hashed into buckets): it has no single "
            "distribution to draw. Use top_features for the words' weights."
        )
    if kind == "complement":
        mean = family.feature_means(stats, params, class_count)[:, local]
        return FeatureDistribution(name, kind, "mean", np.asarray([name]), mean[:, None], classes)
    if kind == "multinomial":
        share = np.exp(_terms(family, params, width, local, np.ones(1)))
        return FeatureDistribution(name, kind, "share", np.asarray([name]), share, classes)
    if values is not None:
        grid = np.asarray(values, dtype=np.float64)
        out_kind = "pmf" if kind in ("bernoulli", "categorical", "poisson") else "density"
    elif kind == "bernoulli":
        grid, out_kind = np.array([0.0, 1.0]), "pmf"
    elif kind == "categorical":
        grid, out_kind = np.arange(int(params["n_categories"][local]), dtype=np.float64), "pmf"
    elif kind == "poisson":
        from scipy.stats import poisson

        top = poisson.ppf(1 - POISSON_TAIL, family.rate_tables(params)[1][:, local]).max()
        grid, out_kind = np.arange(int(top) + 1, dtype=np.float64), "pmf"
    else:  # Gaussian, Student-t, and any density family added later
        grid, out_kind = _density_grid(family, params, local, data), "density"
    probability = np.exp(_terms(family, params, width, local, grid))
    shown: np.ndarray = grid
    if kind == "categorical":
        codes = grid.astype(np.intp)
        shown = np.asarray(
            codes if category_labels is None else [category_labels[c] for c in codes],
            dtype=object,
        )
    elif out_kind == "pmf":
        shown = grid.astype(np.int64) if np.all(grid == np.round(grid)) else grid
    return FeatureDistribution(name, kind, out_kind, shown, probability, classes)
