"""The fitted state of :class:`~._base.BaseNB` as plain data (``get_state`` /
``set_state``), on which the model files of :mod:`nbayes.io` are built."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils.validation import check_is_fitted


def check_counts(families, stats: dict) -> None:
    """Weights in plain statistics (the class weights, and what each family's declared
    statistic types hold as weights) must be non-negative numbers, and each statistic's
    arrays must fit together: a hand-edited or forged state with a negative or NaN count
    would finalize into parameters that predict without a word. ValueError names the first."""
    named = [("class_count", stats["class_count"])]
    for g, (family, group) in enumerate(zip(families, stats["groups"])):  # bounded: groups
        for slot in family.statistics:  # bounded: a family's few statistics
            named += [
                (f"{key!r} of column group {g}", group[key]) for key in slot.non_negative_keys
            ]
            if not slot.take(group).consistent():
                raise ValueError(
                    f"the statistics {list(slot.keys)} of column group {g} do not fit "
                    "together, so the state was edited or corrupted."
                )
    for name, value in named:  # bounded: a few per group
        arr = np.asarray(value)
        if arr.dtype.kind in "fiu" and arr.size and not (arr >= 0).all():
            raise ValueError(
                f"the statistics' {name} holds a negative or NaN count; counts of rows and "
                "values cannot be, so the state was edited or corrupted."
            )


class _State:
    """``get_state`` and ``set_state``, and the column layout hooks they use."""

    if TYPE_CHECKING:  # what the host (BaseNB) supplies
        classes_: np.ndarray
        families_: Any
        n_features_in_: int
        stats_: Any
        get_params: Callable[..., Any]
        install: Callable[..., Any]

    # -- state as plain data (model files in nbayes.io are built on it) -----------------------
    def _group_widths(self) -> list[int]:
        """Number of columns in each family's block; presets have one block of all columns.

        Estimators with several column groups (MixedNB) override this.
        """
        return [int(self.n_features_in_)]

    def _storable_params(self) -> dict:
        """Constructor parameters as data (MixedNB swaps code for what it resolved to)."""
        return self.get_params(deep=False)

    def _get_layout(self):
        """Plain description of how columns become blocks (vocabularies, groups); None for
        estimators that take columns as they come."""
        return None

    def _set_layout(self, layout, n_features: int) -> None:
        """Install the layout of :meth:`_get_layout`; raise ValueError if it is inconsistent."""
        if layout is not None:
            raise ValueError(f"{type(self).__name__} has no column layout; got {layout!r}.")

    def get_state(self) -> dict:
        """The fitted state as plain data: numbers, strings, lists, dicts, numpy arrays and
        registered families.

        Statistics, not only final parameters, are included, so :meth:`set_state` gives back
        a model that predicts identically, keeps learning and can be merged.

        Returns
        -------
        dict
            Keys ``params`` (constructor parameters), ``n_features_in``,
            ``feature_names_in`` (array or None), ``classes``, ``families`` (list of Family),
            ``statistics`` (``{"class_count": (n_classes,), "groups": [dict of arrays, ...]}``,
            one group per family) and ``layout`` (None, or the estimator's column layout).

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).predict([[3, 0]]).tolist()
        ['a']
        """
        check_is_fitted(self, "stats_")
        return {
            "params": self._storable_params(),
            "n_features_in": int(self.n_features_in_),
            "feature_names_in": getattr(self, "feature_names_in_", None),
            "classes": self.classes_,
            "families": list(self.families_),
            "statistics": self.stats_,
            "layout": self._get_layout(),
        }

    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output (``params`` is not applied:
        build the estimator with them first).

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
            The parts do not fit together (families for other column groups, a layout for
            another number of columns, statistics that cannot be finalized).

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).classes_.tolist()
        ['a', 'b']
        """
        n_features = int(state["n_features_in"])
        self.__dict__.pop("feature_names_in_", None)
        self.n_features_in_ = n_features
        names = state.get("feature_names_in")
        if names is not None:
            self.feature_names_in_ = np.asarray(names).astype(object)
        self._set_layout(state.get("layout"), n_features)
        families = list(state["families"])
        widths = self._group_widths()
        if len(widths) != len(families):
            raise ValueError(f"{len(families)} families for {len(widths)} column groups.")
        self.families_ = families
        check_counts(families, state["statistics"])
        return self.install(state["classes"], state["statistics"])
