"""The estimator protocol of the semi-naive models (see :mod:`nbayes.base`).

Survey, set-up, the statistics' algebra and finalize, mixed into the shared base class
:class:`~._seminaive_base._SemiNaiveNB`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._params import check_params
from ..base import SurveyStep
from ..distributions._estimates import check_alpha, pseudo_count
from ..distributions.statistics import by_slots
from ._seminaive_survey import _combine_surveys, _survey_partition


class _SemiNaiveProtocol:
    """Survey, set-up, merge, subtract, scale, clear, align, re-code and finalize."""

    if TYPE_CHECKING:  # what the host (_SemiNaiveNB on BaseNB) supplies
        alpha: Any
        binning: Any
        estimate: str
        classes_: np.ndarray
        stats_: Any
        _columns: list
        _numeric: np.ndarray
        _layout: Any
        _choices: list | None
        _forget: Callable[..., Any]
        _set_columns: Callable[..., Any]
        _set_edges: Callable[..., Any]
        _merge_stats: Callable[..., Any]
        _merge_state_from: Callable[..., Any]
        _log_prior: Callable[..., Any]
        _build: Callable[..., Any]
        _publish: Callable[..., Any]
        _statistics: Callable[..., Any]

    # -- the estimator protocol (see nbayes.base) -----------------------------------------------
    def survey_step(self, meta, summary=None) -> SurveyStep | None:
        """One pass, with the labels, for the distinct values of the categorical columns (so
        that codes are those of ``fit`` on all rows) and the :func:`value_weights` of the
        numeric columns without given ``bin_edges`` (so that their edges are those of
        ``fit``); None when nothing needs surveying.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            The data's columns and dtypes (a table), or its number of columns (an array).
        summary : object, optional
            What the passes so far found (None before the first pass).

        Returns
        -------
        SurveyStep or None
            The pass to run over all the data, or None when :meth:`setup` can go ahead.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> step = TAN().survey_step(df.iloc[:0])  # the columns, no rows
        >>> step.columns, sorted(step.summarize(df, None, None)["values"]["a"])
        (['a', 'b'], ['x', 'y'])
        """
        if summary is not None:
            return None
        check_params(self)
        probe = clone(self)
        frame = _meta_frame(meta)
        probe._set_columns(frame, isinstance(meta, pd.DataFrame))
        numeric = probe._unbinned()
        categorical = [probe._columns[p] for p in np.flatnonzero(~probe._numeric)]
        if not numeric and not categorical:
            return None
        return SurveyStep(
            categorical + numeric if isinstance(meta, pd.DataFrame) else None,
            partial(_survey_partition, numeric=tuple(numeric), binning=self.binning),
            _combine_surveys,
            labels=bool(numeric),
        )

    def setup(self, meta, summary=None) -> None:
        """Get ready to accumulate batches (see :meth:`EstimatorProtocol.setup`): columns from
        ``meta`` (a DataFrame with no rows, or the number of columns), category codes and bin
        edges from the survey's ``summary`` (see :meth:`survey_step`) as ``fit`` on all the
        rows would make them; without a survey, numeric columns need ``bin_edges``.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            As in :meth:`survey_step`.
        summary : object, optional
            The final summary of the survey passes, if :meth:`survey_step` asked for any.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> from nbayes.distributions import Labels
        >>> model = TAN()
        >>> step = model.survey_step(df.iloc[:0])
        >>> model.setup(df.iloc[:0], step.summarize(df, None, None))
        >>> stats = model.accumulate(df, Labels(np.array([0, 1, 1, 0]), np.ones(4), 2))
        >>> stats["class_count"].tolist()
        [2.0, 2.0]
        """
        check_params(self)
        self._forget()
        # No rows to read: every column is modelled as it is (as MixedNB from a survey).
        self.__dict__.pop("_reading", None)
        self._choices = None
        self._set_columns(_meta_frame(meta), isinstance(meta, pd.DataFrame))
        self._set_edges(None if summary is None else summary["bins"])
        cat = np.flatnonzero(~self._numeric).tolist()
        if summary and cat:
            # Codes follow the values' order of first appearance, as in a fit on all rows.
            found = summary["values"]
            self._layout.learn_values({p: found.get(self._columns[p], []) for p in cat})

    def merge_statistics(self, a: dict, b: dict) -> dict:
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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> model = TAN().fit(df, [0, 1, 1, 0])
        >>> model.merge_statistics(model.stats_, model.stats_)["class_count"].tolist()
        [4.0, 4.0]
        """
        return self._merge_stats(a, b)

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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> from nbayes.distributions import Labels
        >>> model = TAN().fit(df, [0, 1, 1, 0])
        >>> row = model.accumulate(df.iloc[:1], Labels(np.array([0]), np.ones(1), 2))
        >>> model.subtract_statistics(model.stats_, row)["class_count"].tolist()
        [1.0, 2.0]
        """
        return self._subtract_stats(a, b)

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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> model = TAN().fit(df, [0, 1, 1, 0])
        >>> model.scale_statistics(model.stats_, 0.5)["class_count"].tolist()
        [1.0, 1.0]
        """
        return by_slots(self._statistics(), "scale", stats, factor)

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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> model = TAN().fit(df, [0, 1, 1, 0])
        >>> cleared = model.clear_statistics(model.stats_)
        >>> cleared["class_count"].tolist(), float(cleared["n2"].sum())
        ([0.0, 0.0], 0.0)
        """
        return by_slots(self._statistics(), "clear", stats)

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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> model = TAN().fit(df, [0, 1, 1, 0])
        >>> model.align_statistics(model.stats_, np.array([0, 2]), 3)["class_count"].tolist()
        [2.0, 0.0, 2.0]
        """
        positions = np.asarray(positions)
        return by_slots(self._statistics(), "align_classes", stats, positions, n_classes)

    def recode_statistics(self, other) -> dict:
        """The statistics of fitted ``other`` (same kind, same settings) in this model's
        encoding, ready to merge with this model's (vocabularies are extended as needed).

        Parameters
        ----------
        other : estimator
            A fitted model of the same class and set-up parameters, over the same columns.

        Returns
        -------
        dict
            ``other``'s statistics, encoded as this model's (over ``other``'s classes).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> a = TAN().fit(df, [0, 1, 1, 0])
        >>> b = TAN().fit(pd.DataFrame({"a": ["z"], "b": ["u"]}), [0])
        >>> a.recode_statistics(b)["n_categories"].tolist()  # "z" joins column a's codes
        [4, 3]
        """
        return self._merge_state_from(other)

    def _subtract_stats(self, a: dict, b: dict) -> dict:
        return by_slots(self._statistics(), "subtract", a, b, self.classes_.tolist())

    def finalize(self) -> None:
        """Derive the scoring tables (structure included) from the statistics now.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import TAN
        >>> model = TAN().fit(df, [0, 1, 1, 0])
        >>> twin = TAN()
        >>> twin.setup(df.iloc[:0], twin.survey_step(df.iloc[:0]).summarize(df, None, None))
        >>> _ = twin.install(model.classes_, model.stats_, finalize=False)
        >>> twin.finalize()
        >>> twin.structure_ == model.structure_
        True
        """
        stats = self.stats_
        d = stats["n_categories"].size
        a = pseudo_count(check_alpha(self.alpha, d, self.estimate), self.estimate)
        log_prior = self._log_prior(stats["class_count"])
        params = self._build(stats, a)
        # tables_ holds the scoring structure; params_ lists its float tables, as the other
        # estimators' params_ do (model files check them for NaN).
        self.tables_, self.params_ = params, [_float_tables(params)]
        self.class_log_prior_ = log_prior
        self.class_count_ = stats["class_count"]
        self._publish()


def _meta_frame(meta) -> pd.DataFrame:
    """The protocol's ``meta`` as a table with no rows (a number of columns: floats)."""
    return meta if isinstance(meta, pd.DataFrame) else pd.DataFrame(np.zeros((0, int(meta))))


def _float_tables(tables, path: str = "") -> dict:
    """Every float array inside the nested dicts and lists of ``tables``, by path."""
    if isinstance(tables, np.ndarray):
        return {path: tables} if tables.dtype.kind == "f" else {}
    if not isinstance(tables, (dict, list)):
        return {}
    items = tables.items() if isinstance(tables, dict) else enumerate(tables)
    out = {}
    for key, value in items:  # bounded by the size of the parameter structure
        out.update(_float_tables(value, f"{path}/{key}" if path else str(key)))
    return out
