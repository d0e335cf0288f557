"""What a new model costs: a class implementing the protocol, and its registrations.

This file defines a model nbayes does not ship -- PresenceNB, whether each feature is present,
with a Beta prior whose strength is its one parameter -- registers it for the duration of each
test, and gets model files, ``nbayes.merge``, GridSearchCV and ``nbayes train`` for it with no
change to the library. The registrations it needs are four table entries (see the fixture),
not yet one: ``nbayes.estimators.REGISTRY`` (model files build estimators only from it),
``nbayes.io._dispatch.KINDS`` (its file layout), and the command line's ``PRESETS`` (its
``--model`` name) and ``MODELS`` (the names ``train`` accepts, a tuple fixed when the CLI is
imported, as is the parser's list of choices: the command is reached through its worker).
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
from nbayes.cli import _models
from nbayes.cli import train as train_module
from nbayes.cli.train import train
from nbayes.distributions import Bernoulli
from nbayes.estimators import REGISTRY, BaseNB
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
def registered(monkeypatch):
    monkeypatch.setitem(REGISTRY, "PresenceNB", PresenceNB)
    monkeypatch.setitem(
        _dispatch.KINDS, "PresenceNB", (_dispatch.dump_preset, _dispatch.load_preset)
    )
    monkeypatch.setitem(_models.PRESETS, "presence", PresenceNB)
    monkeypatch.setattr(train_module, "MODELS", (*train_module.MODELS, "presence"))


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
