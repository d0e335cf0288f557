"""The estimator protocol (nbayes/estimators/_protocol.py) on its own, without Dask: survey
passes, set-up, accumulate per chunk, merge, install -- equal to ``fit`` for every registered
estimator. Also: modes are arguments, every call that learns finalizes, and reading a fitted
attribute changes nothing (no ``__getattr__``, no finalize on first read)."""

from __future__ import annotations

import itertools
from functools import reduce

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.base import MODES, EstimatorProtocol, check_mode
from nbayes.distributions import Labels
from nbayes.estimators import REGISTRY
from nbayes.estimators._base import PENDING
from nbayes.exceptions import DataError


def _table(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "city": rng.choice(["Oslo", "Rome", "Lima", None], n),
            "rooms": rng.integers(1, 5, n),
            "area": rng.normal(80, 20, n),
            "garden": rng.random(n) < 0.4,
        }
    )


def _words(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    vocab = np.array(["cash", "prize", "lunch", "noon", "meet", "win", "now", "see"])
    texts = [" ".join(rng.choice(vocab, rng.integers(1, 6))) for _ in range(n)]
    return pd.DataFrame({"text": texts})


def _case(name: str):
    """(estimator, X as a DataFrame, y) for each registered estimator."""
    rng = np.random.default_rng(1)
    n = 120
    y = rng.choice(["a", "b", "c"], n)
    counts = pd.DataFrame(rng.poisson(2.0, (n, 5)), columns=[f"w{j}" for j in range(5)])
    return {
        "BernoulliNB": (nbayes.BernoulliNB(), (counts > 1).astype(int), y),
        "CategoricalNB": (nbayes.CategoricalNB(), counts.clip(upper=3), y),
        "CategoricalNB-values": (
            nbayes.CategoricalNB(missing="category"),
            _table(n).drop(columns=["area", "rooms"]).astype(object),
            y,
        ),
        "ComplementNB": (nbayes.ComplementNB(), counts, y),
        "GaussianNB": (nbayes.GaussianNB(), counts.astype(float) + rng.normal(size=(n, 5)), y),
        "DensityNB": (nbayes.DensityNB(), counts.astype(float) + rng.normal(size=(n, 5)), y),
        "MixedNB": (nbayes.MixedNB(), _table(n), y),
        "MultinomialNB": (nbayes.MultinomialNB(), counts, y),
        "PoissonNB": (nbayes.PoissonNB(), counts, y),
        "TextNB": (nbayes.TextNB(), _words(n), y),
        # The semi-naive models: categories, and a numeric column whose bin edges come from
        # a survey pass with the labels (supervised MDL binning), as fit finds them.
        **{
            cls.__name__: (cls(categorical=["rooms"]), _table(n), y)
            for cls in (nbayes.AODE, nbayes.TAN, nbayes.KDB, nbayes.JointBayes)
        },
    }[name]


def fit_by_protocol(est: EstimatorProtocol, chunks: list, ys: list, classes):
    """A distributed fit in miniature: survey passes, set-up, count chunks, merge, install."""
    meta = chunks[0].iloc[:0]
    summary = None
    while (step := est.survey_step(meta, summary)) is not None:
        parts = [c if step.columns is None else c[step.columns] for c in chunks]
        if step.labels:  # the pass needs each chunk's labels (and weights: None, unit)
            parts = [step.summarize(c, y, None) for c, y in zip(parts, ys)]
        else:
            parts = [step.summarize(c) for c in parts]
        summary = step.finish(summary, step.combine(*parts))
    est.setup(meta, summary)
    stats = [
        est.accumulate(
            chunk, Labels(np.searchsorted(classes, y), np.ones(len(y)), len(classes)), mode="count"
        )
        for chunk, y in zip(chunks, ys)
    ]
    return est.install(classes, reduce(est.merge_statistics, stats))


@pytest.mark.parametrize("name", [*sorted(REGISTRY), "CategoricalNB-values"])
def test_survey_setup_accumulate_merge_install_equals_fit(name):
    est, X, y = _case(name)
    assert isinstance(est, EstimatorProtocol)
    local = type(est)(**est.get_params(deep=False)).fit(X, y)
    cuts = [0, 17, 60, 61, len(y)]
    chunks = [X.iloc[a:b] for a, b in itertools.pairwise(cuts)]
    ys = [y[a:b] for a, b in itertools.pairwise(cuts)]
    got = fit_by_protocol(type(est)(**est.get_params(deep=False)), chunks, ys, np.unique(y))
    np.testing.assert_array_equal(got.classes_, local.classes_)
    np.testing.assert_allclose(
        got.predict_joint_log_proba(X), local.predict_joint_log_proba(X), rtol=1e-10
    )
    # The statistics are plain data that a second model of the same set-up can merge.
    state = got.get_state()
    assert type(est)(**est.get_params(deep=False)).set_state(state).predict(X).tolist() == (
        local.predict(X).tolist()
    )


def test_counting_against_a_fixed_vocabulary_refuses_a_value_the_survey_did_not_find():
    model = nbayes.MixedNB()
    df = _table(40)
    meta = df.iloc[:0]
    step = model.survey_step(meta)
    model.setup(meta, step.finish(None, step.combine(step.summarize(df[step.columns]))))
    new = df.iloc[:3].assign(city=["Oslo", "Paris", "Rome"])
    with pytest.raises(
        DataError,
        match=r"Column 'city' \(index 0\) has the category 'Paris' at row 1.*fixed vocabulary",
    ):
        model.accumulate(new, Labels([0, 1, 0], np.ones(3), 2), mode="count")
    stats = model.accumulate(new, Labels([0, 1, 0], np.ones(3), 2), mode="learn")
    assert stats["class_count"].tolist() == [2.0, 1.0]
    with pytest.raises(ValueError, match="mode must be one of"):
        check_mode("predict")
    assert MODES == ("learn", "count", "unlearn", "score")


def test_set_up_without_the_survey_names_the_columns_it_lacks():
    df = pd.DataFrame({"city": ["Oslo", "Rome"], "area": [80.0, 95.0]})
    with pytest.raises(
        nbayes.exceptions.ParameterError,
        match=r"MixedNB cannot read column\(s\) \['city', 'area'\]: no survey of their "
        r"values; run the survey passes of survey_step\(\) first\.",
    ):
        nbayes.MixedNB().setup(df.iloc[:0], None)
    with pytest.raises(
        nbayes.exceptions.ParameterError,
        match=r"MixedNB cannot number its categories: no surveyed values for column 'city' "
        r"\(index 0\); run the survey passes of survey_step\(\) first\.",
    ):
        nbayes.MixedNB(columns=[("categorical", ["city"])], remainder="drop").setup(
            df.iloc[:0], None
        )


def test_mixed_needs_a_table_to_set_up_from():
    with pytest.raises(DataError, match="MixedNB learns its column groups from a table"):
        nbayes.MixedNB().setup(4)


def _fitted_attributes(model) -> list[str]:
    return [
        name
        for name in dir(model)
        if name.endswith("_") and not name.startswith("_") and hasattr(model, name)
    ]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_no_mode_flags_and_no_attribute_magic(name):
    est, X, y = _case(name)
    for cls in type(est).__mro__:
        assert "__getattr__" not in vars(cls), f"{cls.__name__} finalizes on attribute access"
    model = type(est)(**est.get_params(deep=False)).fit(X, y)
    model.partial_fit(X, y)
    for flag in ("_learning", "_accumulating", "_stale", "_derived"):
        assert not hasattr(model, flag)
    inner = getattr(model, "classifier_", model)
    assert "params_" in vars(inner)  # partial_fit finalized, as fit does
    # Reading every fitted attribute changes nothing (stats_ may add the batches kept
    # apart: a merge, the same statistics).
    before = {k: v for k, v in vars(inner).items() if k not in ("stats_", PENDING)}
    _fitted_attributes(model)
    model.predict(X)
    after = {k: v for k, v in vars(inner).items() if k not in ("stats_", PENDING)}
    assert after.keys() == before.keys()
    assert all(after[k] is before[k] for k in before)


def test_every_published_attribute_is_current_right_after_partial_fit():
    X = np.random.default_rng(0).normal(size=(60, 3))
    y = np.arange(60) % 2
    model = nbayes.GaussianNB(estimate="posterior_predictive").fit(X[:30], y[:30])
    model.partial_fit(X[30:], y[30:])
    assert "dof_" in vars(model)  # set by partial_fit itself, not derived on first read
    full = nbayes.GaussianNB(estimate="posterior_predictive").fit(X, y)
    np.testing.assert_allclose(model.dof_, full.dof_)


@pytest.mark.parametrize("cls", [nbayes.MultinomialNB, nbayes.GaussianNB, nbayes.PoissonNB])
def test_install_without_finalize_drops_every_published_attribute(cls):
    """A fitted model given other statistics with finalize=False kept the published tables
    of its earlier fit (feature_log_prob_, alpha_, theta_ ...) beside the new statistics."""
    rng = np.random.default_rng(0)
    X, y = rng.poisson(2, (40, 3)).astype(float), np.repeat([0, 1], 20)
    other = cls().fit(X[::2] * 3, y[::2])
    model = cls().fit(X, y)
    published = {k for k in vars(model) if k.endswith("_")} - {"stats_", "classes_"}
    model.install(other.classes_, other.stats_, finalize=False)
    assert not published & set(vars(model)) - {"families_", "n_features_in_"}
    with pytest.raises(nbayes.NotFittedError, match="call finalize"):
        model.predict(X)
    model.finalize()
    np.testing.assert_allclose(model.predict_proba(X), other.predict_proba(X), rtol=1e-12)
    assert {k for k in vars(model) if k.endswith("_")} >= published


@pytest.mark.parametrize(
    "make, key",
    [
        (nbayes.MultinomialNB, "n_counts"),
        (nbayes.BernoulliNB, "n_ones"),
        (nbayes.PoissonNB, "n_sum"),
        (nbayes.CategoricalNB, "n_counts"),
    ],
)
@pytest.mark.parametrize("bad", [-5.0, np.nan])
def test_set_state_refuses_a_negative_or_nan_count(make, key, bad):
    """set_state took statistics with a negative (or NaN) count and predicted from them
    without a word; model files are checked when read, and the Python API now is too."""
    X = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 1.0]])
    state = make().fit(X, [0, 1, 1]).get_state()
    table = np.array(state["statistics"]["groups"][0][key], dtype=np.float64)
    table.flat[0] = bad
    state["statistics"]["groups"][0][key] = table
    with pytest.raises(ValueError, match=rf"'{key}' of column group 0 holds a negative or NaN"):
        make().set_state(state)
    state = make().fit(X, [0, 1, 1]).get_state()
    state["statistics"]["class_count"] = np.array([1.0, -2.0])
    with pytest.raises(ValueError, match="class_count holds a negative or NaN count"):
        make().set_state(state)
