"""What a new model costs: a class implementing the protocol, and one registration.

This file defines a model nbayes does not ship -- PresenceNB, whether each feature is present,
with a Beta prior whose strength is its one parameter -- registers it for the duration of each
test with one call, ``nbayes.base.register(PresenceNB, cli_name="presence")`` (the fixture;
``unregister`` undoes it), and gets model files, ``nbayes.merge``, GridSearchCV and
``nbayes train --model presence`` for it with no change to the library.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes import base
from nbayes._params import Interval
from nbayes._registry import LAYOUTS
from nbayes.cli import main
from nbayes.cli._common import UsageError
from nbayes.cli._models import model_names
from nbayes.cli.train import train
from nbayes.distributions import Bernoulli
from nbayes.estimators import REGISTRY, BaseNB
from nbayes.exceptions import ParameterError
from nbayes.io import _dispatch
from nbayes.model_selection import GridSearchCV


class PresenceNB(BaseNB):
    """Presence (x > 0) of each feature, with a symmetric Beta(alpha, alpha) prior.

    Parameters
    ----------
    alpha : float, default=1.0
        The prior's strength.
    """

    _finalize_only = frozenset({"alpha"})
    _parameter_constraints: ClassVar[dict] = {"alpha": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, *, alpha=1.0):
        self.alpha = alpha

    def _make_families(self, n_features):
        return [Bernoulli(alpha=self.alpha, binarize=0.0)]

    def capabilities(self) -> frozenset[str]:
        return super().capabilities() | {base.NUMERIC_INPUT}


@pytest.fixture(autouse=True)
def registered():
    """The one registration, for the duration of each test."""
    base.register(PresenceNB, cli_name="presence")
    yield
    base.unregister(PresenceNB)


def data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.poisson(np.where(y[:, None] == 0, [2.0, 0.2, 1.0], [0.2, 2.0, 1.0])).astype(float)
    return X, y


def test_it_implements_the_protocol_and_declares_its_capabilities():
    model = PresenceNB().fit(*data())
    assert isinstance(model, base.Model)
    assert base.supports(model, base.NUMERIC_INPUT) and base.supports(model, base.LINEAR)
    assert not base.supports(model, base.TEXT_INPUT)


def test_a_model_file_gives_back_the_same_model(tmp_path):
    X, y = data()
    model = PresenceNB(alpha=0.5).fit(X, y)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "presence.nbayes"))
    assert type(loaded) is PresenceNB and loaded.alpha == 0.5
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_merged_shards_equal_one_fit():
    X, y = data()
    merged = nbayes.merge(PresenceNB().fit(X[::2], y[::2]), PresenceNB().fit(X[1::2], y[1::2]))
    np.testing.assert_allclose(merged.predict_proba(X), PresenceNB().fit(X, y).predict_proba(X))


def test_grid_search_chooses_alpha_from_fold_statistics():
    X, y = data()
    search = GridSearchCV(PresenceNB(), {"alpha": [0.1, 1.0, 10.0]}, cv=3).fit(X, y)
    assert search.best_params_["alpha"] in (0.1, 1.0, 10.0)
    refit = PresenceNB(alpha=search.best_params_["alpha"]).fit(X, y)
    np.testing.assert_allclose(search.best_estimator_.predict_proba(X), refit.predict_proba(X))


def test_the_command_line_trains_it_by_name(tmp_path):
    X, y = data()
    table = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y)
    table.to_csv(tmp_path / "rows.csv", index=False)
    result = train(
        str(tmp_path / "rows.csv"), "label", str(tmp_path / "m.nbayes"), model="presence"
    )
    loaded = nbayes.load(result.output)
    assert type(loaded) is PresenceNB
    np.testing.assert_allclose(
        loaded.predict_proba(table[["a", "b", "c"]]),
        PresenceNB().fit(table[["a", "b", "c"]], y).predict_proba(table[["a", "b", "c"]]),
    )


def rows_file(tmp_path):
    X, y = data()
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y).to_csv(
        tmp_path / "rows.csv", index=False
    )


def test_the_parser_offers_a_name_registered_after_import(tmp_path, capsys):
    rows_file(tmp_path)
    argv = ["train", str(tmp_path / "rows.csv"), "-t", "label", "-o", str(tmp_path / "m.nbayes")]
    assert main([*argv, "--model", "presence", "-q"]) == 0
    assert type(nbayes.load(tmp_path / "m.nbayes")) is PresenceNB
    base.unregister(PresenceNB)
    try:
        assert main([*argv, "--model", "presence", "-q"]) == 2
        assert "invalid choice: 'presence'" in capsys.readouterr().err
        with pytest.raises(UsageError, match=r"--model must be one of \('auto', 'gaussian'"):
            train(str(tmp_path / "rows.csv"), "label", str(tmp_path / "m.nbayes"), model="presence")
    finally:
        base.register(PresenceNB, cli_name="presence")  # for the fixture to undo


def test_an_unknown_name_lists_the_registered_ones(tmp_path):
    rows_file(tmp_path)
    with pytest.raises(UsageError, match=r"one of \(.*'presence'.*\); got 'absence'"):
        train(str(tmp_path / "rows.csv"), "label", str(tmp_path / "m.nbayes"), model="absence")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({}, ParameterError, r"'PresenceNB' is registered already .*unregister\(PresenceNB\)"),
        ({"layout": "flat"}, ParameterError, r"layout must be one of \['categorical'"),
        ({"cli_name": "Presence"}, ParameterError, r"cli_name must be lower-case .*'Presence'"),
        ({"cli_name": "gaussian"}, ParameterError, r"--model gaussian is taken \(GaussianNB's\)"),
        ({"cli_name": "auto"}, ParameterError, r"--model auto is taken \(the command line's"),
    ],
)
def test_a_registration_that_cannot_hold_is_refused(kwargs, error, message):
    class Other(PresenceNB):
        pass

    target = PresenceNB if not kwargs else Other
    with pytest.raises(error, match=message):
        base.register(target, **kwargs)
    assert "Other" not in REGISTRY


def test_the_command_line_is_offered_only_what_it_can_build():
    class Words(BaseNB):
        """Not NUMERIC_INPUT, no table layout: the command line could not build it."""

        def __init__(self, *, alpha=1.0):
            self.alpha = alpha

        def _make_families(self, n_features):
            return [Bernoulli(alpha=self.alpha)]

    with pytest.raises(ParameterError, match="cannot build Words as --model words"):
        base.register(Words, cli_name="words")
    base.register(Words)  # model files only
    try:
        assert "Words" in REGISTRY and "words" not in model_names()
    finally:
        base.unregister(Words)
    with pytest.raises(TypeError, match="takes a model class"):
        base.register(PresenceNB())
    with pytest.raises(ParameterError, match="not registered"):
        base.unregister(Words)


def test_the_file_layouts_are_the_registry_s():
    assert set(_dispatch.LAYOUTS) == set(LAYOUTS)
    assert list(REGISTRY) == list(_dispatch.KINDS)
