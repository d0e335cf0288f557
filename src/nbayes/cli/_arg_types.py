"""Value types of the command line's numeric options, for argparse: each turns the
text into the value or says what the option takes."""

from __future__ import annotations

import argparse

import numpy as np


def weight_or_auto(value: str):
    if value == "auto":
        return value
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not (number >= 0 and np.isfinite(number)):
        raise argparse.ArgumentTypeError(f"must be a number >= 0 or 'auto'; got {value!r}")
    return number


def number_auto_or_cv(value: str):
    if value in ("auto", "cv"):
        return value
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number, 'auto' or 'cv'; got {value!r}"
        ) from None


def whole_number(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number; got {value!r}") from None


def at_least_one(unit: str):
    """An argparse type: a whole number of ``unit``, at least 1."""

    def check(value: str) -> int:
        number = whole_number(value)
        if number < 1:
            raise argparse.ArgumentTypeError(f"must be at least 1 ({unit}); got {value}")
        return number

    return check


def min_df(value: str) -> float:
    """A number of texts (a whole number >= 0) or a fraction of them (between 0 and 1)."""
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not (0 <= number <= 1 or (number > 1 and number.is_integer())):
        raise argparse.ArgumentTypeError(
            f"must be a number of texts (a whole number: 1, 2, ...) or a fraction of them "
            f"(between 0 and 1); got {value!r}"
        )
    return number
