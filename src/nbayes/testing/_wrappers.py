"""The tools of the ecosystem suite: each of scikit-learn's tools that take a classifier, with
the data it is defined for (:class:`Wrapper`), and the table of them all (:data:`WRAPPERS`)."""

from __future__ import annotations

from dataclasses import dataclass

from ._data import Split
from ._displays import (
    _calibration,
    _confusion_matrix,
    _curve,
    _decision_boundary,
    _display,
)
from ._runners import (
    Runner,
    _bagging,
    _calibrated,
    _cross_val_predict,
    _fit_predict,
    _fixed_threshold,
    _on_table,
    _one_vs_one,
    _one_vs_rest,
    _permutation_importance,
    _self_training,
    _stacking,
    _tuned_threshold,
    _voting,
)


@dataclass(frozen=True)
class Wrapper:
    """One of scikit-learn's tools that take a classifier, as the suite runs it.

    Parameters
    ----------
    name : str
        Its key in :data:`WRAPPERS`.
    run : callable
        ``run(estimator, split, cv, random_state)`` fits, scores and returns an
        :class:`Outcome`.
    classes : {"any", "binary", "multiclass"}, default "any"
        For which numbers of classes the tool is defined.
    table : bool, default False
        Whether it needs a 2-d X (raw text is then passed as a one-column DataFrame).
    numbers_only : bool, default False
        Whether scikit-learn converts X to numbers first (so it refuses text and
        categories written as strings).
    two_columns : bool, default False
        Whether it draws over two numeric columns (not for text or category codes).

    Examples
    --------
    >>> from nbayes.testing import WRAPPERS
    >>> WRAPPERS["tuned-threshold"].classes
    'binary'
    """

    name: str
    run: Runner
    classes: str = "any"
    table: bool = False
    numbers_only: bool = False
    two_columns: bool = False

    def applies(
        self, n_classes: int, text: bool = False, numeric: bool = True, strings: bool = False
    ) -> bool:
        """Whether the tool is defined for such data.

        Parameters
        ----------
        n_classes : int
            How many classes the data hold.
        text : bool, default False
            Whether X is raw text.
        numeric : bool, default True
            Whether the columns are continuous (False: counts, presence or category codes,
            where a grid between values means nothing).
        strings : bool, default False
            Whether X holds strings (see :attr:`Split.has_strings`).

        Returns
        -------
        bool
            True when the tool runs on such data.

        Examples
        --------
        >>> from nbayes.testing import WRAPPERS
        >>> WRAPPERS["display-calibration"].applies(3)
        False
        """
        if self.classes == "binary" and n_classes != 2:
            return False
        if self.classes == "multiclass" and n_classes < 3:
            return False
        if self.numbers_only and (strings or text):
            return False
        return not (self.two_columns and (text or not numeric))


#: Every tool of the suite, by name.
WRAPPERS: dict[str, Wrapper] = {
    w.name: w
    for w in [
        *(
            Wrapper(f"calibrated-{m}-{'ensemble' if e else 'single'}", _calibrated(m, e))
            for m in ("sigmoid", "isotonic", "temperature")
            for e in (True, False)
        ),
        Wrapper("stacking", _stacking("auto")),
        Wrapper("stacking-decision_function", _stacking("decision_function")),
        Wrapper("voting-soft", _voting("soft")),
        Wrapper("voting-hard", _voting("hard")),
        Wrapper("one-vs-rest", _fit_predict("one-vs-rest", _one_vs_rest)),
        Wrapper("one-vs-one", _fit_predict("one-vs-one", _one_vs_one), numbers_only=True),
        Wrapper(
            "tuned-threshold", _fit_predict("tuned-threshold", _tuned_threshold), classes="binary"
        ),
        Wrapper(
            "fixed-threshold", _fit_predict("fixed-threshold", _fixed_threshold), classes="binary"
        ),
        Wrapper("self-training", _self_training, numbers_only=True),
        Wrapper("bagging", _on_table(_fit_predict("bagging", _bagging)), table=True),
        *(
            Wrapper(f"cross_val_predict-{m}", _cross_val_predict(m))
            for m in ("predict", "predict_proba", "predict_log_proba", "decision_function")
        ),
        Wrapper("permutation_importance", _permutation_importance, table=True),
        Wrapper(
            "display-confusion_matrix", _display(_confusion_matrix, "display-confusion_matrix")
        ),
        Wrapper("display-roc_curve", _display(_curve("roc_auc"), "display-roc_curve")),
        Wrapper(
            "display-precision_recall",
            _display(_curve("average_precision"), "display-precision_recall"),
        ),
        Wrapper("display-decision_boundary", _decision_boundary, two_columns=True),
        Wrapper(
            "display-calibration", _display(_calibration, "display-calibration"), classes="binary"
        ),
    ]
}


def applicable_wrappers(split: Split, numeric: bool = True) -> list[str]:
    """Names of the tools of :data:`WRAPPERS` defined for ``split``.

    Parameters
    ----------
    split : Split
        The data.
    numeric : bool, default True
        False leaves out the tools that draw over two numeric columns (for counts or category
        codes, whose grid points between values mean nothing). Raw text leaves those out too.

    Returns
    -------
    list of str
        Names in the order of :data:`WRAPPERS`.

    Examples
    --------
    >>> from nbayes.testing import Split, applicable_wrappers
    >>> names = applicable_wrappers(Split([[0], [1], [2]], [0, 1, 2], [[1]], [1]))
    >>> "tuned-threshold" in names, "calibrated-sigmoid-ensemble" in names
    (False, True)
    """
    return [
        name
        for name, w in WRAPPERS.items()
        if w.applies(split.n_classes, split.is_text, numeric, split.has_strings)
    ]
