"""Displays of what a model learned: a feature's class-conditional distribution, and the
features that drive each class."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..exceptions import ParameterError
from ._common import matplotlib_axes, require_matplotlib

#: The y-axis label of each kind of FeatureDistribution.
Y_LABELS = {
    "pmf": "P(x | class)",
    "density": "density p(x | class)",
    "share": "P(word | class)",
    "mean": "mean count per row",
}


def _column(estimator, X, feature):
    """The values of ``feature`` in X (a table or a 2-D array), or None where X holds
    something else (texts, sparse counts): they only set a density's range and histogram."""
    if X is None or sp.issparse(X):
        return None
    if isinstance(X, pd.DataFrame):
        if feature in X.columns:
            return X[feature].to_numpy()
        return X.iloc[:, feature].to_numpy() if isinstance(feature, (int, np.integer)) else None
    values = np.asarray(X)
    if values.ndim != 2:
        return None
    if not isinstance(feature, (int, np.integer)):
        names = list(getattr(estimator, "feature_names_in_", []))
        if feature not in names:
            return None
        feature = names.index(feature)
    return values[:, feature]


class ClassConditionalDisplay:
    """The class-conditional distribution P(x_j | y) of one feature, one colour per class.

    Bars for categories, 0/1 and counts (Categorical, Bernoulli, Poisson), curves for densities
    (Gaussian, Student-t), and a bar per class for one word of a document-term model. With
    data, a density is drawn over the data's range and each class's histogram is drawn under
    its curve, which shows where the family fits the data and where it does not. Create it
    with :meth:`from_estimator`.

    Parameters
    ----------
    distribution : FeatureDistribution
        What :meth:`nbayes.MixedNB.feature_distribution` (any estimator's) returns.
    data : array-like of shape (n_samples,), optional
        The feature's values in some data set, for the histograms.
    labels : array-like of shape (n_samples,), optional
        Their classes.
    max_values : int, default=20
        The most values drawn as bars; the least probable of the others are added up into
        one bar "other (n)".

    Attributes
    ----------
    lines_ : list of Line2D
        One curve per class (densities).
    bars_ : list of BarContainer
        One set of bars per class (probabilities, shares, means).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from nbayes import MixedNB
    >>> from nbayes.plot import ClassConditionalDisplay
    >>> X = pd.DataFrame({"colour": ["red", "red", "blue", "blue"], "size": [1., 2., 5., 6.]})
    >>> model = MixedNB().fit(X, ["a", "a", "b", "b"])
    >>> display = ClassConditionalDisplay.from_estimator(model, "colour")
    >>> [round(float(bar.get_height()), 3) for bar in display.bars_[0]]
    [0.25, 0.75]
    >>> display = ClassConditionalDisplay.from_estimator(model, "size", X, ["a", "a", "b", "b"])
    >>> len(display.lines_)
    2
    """

    def __init__(self, distribution, *, data=None, labels=None, max_values: int = 20):
        self.distribution = distribution
        self.data = data
        self.labels = labels
        self.max_values = max_values

    @classmethod
    def from_estimator(
        cls, estimator, feature, X=None, y=None, *, values=None, max_values: int = 20, ax=None
    ) -> ClassConditionalDisplay:
        """Draw the distribution of ``feature`` that a fitted ``estimator`` learned.

        Parameters
        ----------
        estimator : fitted nbayes estimator
            One that models its columns one at a time (the naive Bayes estimators, TextNB).
        feature : str or int
            The column's name or position (a word, for TextNB).
        X : array-like or DataFrame, optional
            Data whose values of the feature set a density's range and, with ``y``, the
            per-class histograms.
        y : array-like of shape (n_samples,), optional
            The class label of each row.
        values : array-like, optional
            The values to evaluate instead of the family's own.
        max_values : int, default=20
            Most bars drawn per class; the least probable values are added up into one.
        ax : matplotlib Axes, optional
            The matplotlib Axes to draw on; by default a new figure's.

        Returns
        -------
        ClassConditionalDisplay
            The display, drawn.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from nbayes import GaussianNB
        >>> X, y = [[1.0], [2.0], [6.0], [7.0]], ["a", "a", "b", "b"]
        >>> display = ClassConditionalDisplay.from_estimator(GaussianNB().fit(X, y), 0, X, y)
        >>> display.distribution.kind, len(display.lines_)
        ('density', 2)
        """
        require_matplotlib()
        data = _column(estimator, X, feature)
        dist = estimator.feature_distribution(feature, values=values, data=data)
        labels = None if y is None or data is None else np.asarray(y)
        return cls(dist, data=data, labels=labels, max_values=max_values).plot(ax=ax)

    def _shown(self) -> tuple[list[str], np.ndarray]:
        """Values and probabilities to draw as bars: at most ``max_values`` bars, the least
        probable values (by their largest probability over classes) added up into one."""
        dist = self.distribution
        names = [str(v) for v in dist.values]
        prob = dist.probability
        if len(names) <= self.max_values:
            return names, prob
        keep = np.sort(np.argsort(-prob.max(axis=0), kind="stable")[: self.max_values - 1])
        rest = np.setdiff1d(np.arange(len(names)), keep)
        other = prob[:, rest].sum(axis=1, keepdims=True)
        return [names[i] for i in keep] + [f"other ({len(rest)})"], np.hstack(
            [prob[:, keep], other]
        )

    def plot(self, ax=None) -> ClassConditionalDisplay:
        """Draw on ``ax`` (a new figure by default).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            The matplotlib Axes to draw on; by default a new figure's.

        Returns
        -------
        ClassConditionalDisplay
            This display, with ``ax_``, ``figure_`` and ``lines_`` or ``bars_`` set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> from nbayes import CategoricalNB
        >>> from nbayes.plot import ClassConditionalDisplay
        >>> model = CategoricalNB().fit([["red"], ["red"], ["blue"]], ["a", "a", "b"])
        >>> display = ClassConditionalDisplay.from_estimator(model, 0)
        >>> fig, ax = plt.subplots()
        >>> display.plot(ax=ax).ax_ is ax, len(display.bars_)
        (True, 2)
        >>> plt.close("all")
        """
        ax = matplotlib_axes(ax)
        dist = self.distribution
        colours = [f"C{k % 10}" for k in range(len(dist.classes))]
        self.lines_, self.bars_ = [], []
        if dist.kind == "density":
            for k, c in enumerate(dist.classes):  # bounded by the classes
                (line,) = ax.plot(dist.values, dist.probability[k], color=colours[k], label=str(c))
                self.lines_.append(line)
                if self.data is not None and self.labels is not None:
                    x = np.asarray(self.data, dtype=np.float64)[self.labels == c]
                    x = x[np.isfinite(x)]
                    if x.size:
                        ax.hist(
                            x,
                            bins=30,
                            range=(dist.values[0], dist.values[-1]),
                            density=True,
                            alpha=0.25,
                            color=colours[k],
                        )
            ax.set_xlabel(dist.feature)
        else:
            names, prob = self._shown()
            width = 0.8 / len(dist.classes)
            x = np.arange(len(names))
            for k, c in enumerate(dist.classes):  # bounded by the classes
                self.bars_.append(
                    ax.bar(
                        x + (k + 0.5) * width - 0.4, prob[k], width, color=colours[k], label=str(c)
                    )
                )
            # Labels that would not fit side by side are slanted.
            slant = sum(len(n) + 1 for n in names) > 36
            ax.set_xticks(x, names, rotation=45 if slant else 0, ha="right" if slant else "center")
        ax.set_ylabel(Y_LABELS.get(dist.kind, dist.kind))
        ax.set_title(f"{dist.feature} ({dist.family})")
        ax.legend(title="class")
        self.ax_, self.figure_ = ax, ax.figure
        return self


class TopFeaturesDisplay:
    """The features that most favour each class, by log-odds weight (or impact).

    One horizontal bar chart per class: the weight of a feature is the class's score weight
    minus that of its strongest rival per unit of the feature, the log-odds weight ``coef_``
    for two classes (see :meth:`nbayes.MultinomialNB.top_features`). Create it with
    :meth:`from_estimator`.

    Parameters
    ----------
    tables : dict
        Class label -> DataFrame with columns ``feature`` and ``weight`` (and ``impact``),
        best first, as ``top_features`` returns.
    by : {"weight", "impact"}, default="weight"
        The column drawn.

    Attributes
    ----------
    bars_ : dict
        Class label -> BarContainer.
    axes_ : list of matplotlib Axes
        One per class.
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes.plot import TopFeaturesDisplay
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 4, 2]])
    >>> model = MultinomialNB().fit(X, ["a", "a", "b"])
    >>> display = TopFeaturesDisplay.from_estimator(model, k=2, classes=["b"])
    >>> [t.get_text() for t in display.axes_[0].get_yticklabels()]
    ['x2', 'x1']
    """

    def __init__(self, tables: dict, *, by: str = "weight"):
        self.tables = tables
        self.by = by

    @classmethod
    def from_estimator(
        cls, estimator, *, k: int = 10, by: str = "weight", classes=None, ax=None
    ) -> TopFeaturesDisplay:
        """Rank the features of a fitted ``estimator`` for each class and draw them.

        Parameters
        ----------
        estimator : fitted nbayes estimator with ``top_features``
            A linear model (the naive Bayes estimators, TextNB).
        k : int, default=10
            Features per class.
        by : {"weight", "impact"}, default="weight"
            Rank by log-odds weight, or by weight times the feature's mean in the class.
        classes : list, optional
            The classes to show; all by default.
        ax : matplotlib Axes or sequence of Axes, optional
            One Axes per class; a new figure by default.

        Returns
        -------
        TopFeaturesDisplay
            The display, drawn.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[3, 0, 1], [2, 1, 0], [0, 4, 2]], ["a", "a", "b"])
        >>> display = TopFeaturesDisplay.from_estimator(model, k=1)
        >>> [table["feature"].tolist() for table in display.tables.values()]
        [['x0'], ['x1']]
        """
        require_matplotlib()
        shown = list(estimator.classes_ if classes is None else classes)
        tables = {c: estimator.top_features(c, k=k, by=by) for c in shown}  # bounded: classes
        return cls(tables, by=by).plot(ax=ax)

    def plot(self, ax=None) -> TopFeaturesDisplay:
        """Draw one bar chart per class.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, optional
            One Axes per class; a new figure of one row by default.

        Returns
        -------
        TopFeaturesDisplay
            This display, with ``axes_``, ``figure_`` and ``bars_`` set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> from nbayes import MultinomialNB
        >>> from nbayes.plot import TopFeaturesDisplay
        >>> model = MultinomialNB().fit([[3, 0, 1], [2, 1, 0], [0, 4, 2]], ["a", "a", "b"])
        >>> display = TopFeaturesDisplay.from_estimator(model, k=2)
        >>> fig, axes = plt.subplots(1, 2)
        >>> display.plot(ax=axes).axes_[1] is axes[1], len(display.bars_)
        (True, 2)
        >>> plt.close("all")
        """
        n = len(self.tables)
        if ax is None:
            first = matplotlib_axes()
            figure = first.figure
            figure.clear()
            k = max((len(t) for t in self.tables.values()), default=1)
            figure.set_size_inches(4.2 * n, 1.2 + 0.3 * k)
            axes = list(np.atleast_1d(figure.subplots(1, n)))
        else:
            axes = list(np.atleast_1d(ax))
        if len(axes) != n:
            raise ParameterError(f"ax must hold one Axes per class shown ({n}); got {len(axes)}.")
        self.bars_ = {}
        for i, (a, (c, table)) in enumerate(zip(axes, self.tables.items())):  # bounded: classes
            score = table[self.by].to_numpy()[::-1]
            names = table["feature"].astype(str).to_numpy()[::-1]
            self.bars_[c] = a.barh(names, score, color=f"C{i % 10}")
            a.set_title(f"class {c}")
            a.set_xlabel("log-odds weight" if self.by == "weight" else "impact")
        self.axes_, self.figure_ = axes, axes[0].figure
        with warnings.catch_warnings():
            # Long class or feature names leave no room to tighten: the figure is drawn as
            # it is, and matplotlib's notice would reach a command's user as a warning.
            warnings.filterwarnings("ignore", "Tight layout not applied", UserWarning)
            self.figure_.tight_layout()
        return self
