"""The conformance suite: the contract of a family and of an estimator, written as checks.

Like scikit-learn's ``estimator_checks``, each check is a plain function that any family (by
registry name) or estimator case (``_cases.Case``) runs unchanged:

* :data:`FAMILY_CHECKS` take a family name of ``nbayes.distributions.REGISTRY``;
* :data:`ESTIMATOR_CHECKS` take a case of ``_cases.estimator_cases()``;
* :func:`check_dask_fit` takes a case and a ``distributed.Client``.

``test_conformance.py`` runs them over both registries, ``test_new_family.py`` over a family
defined in the test file itself. What DESIGN.md promises for every family: fit == partial_fit
over any chunking == a merge tree of shards == Dask; integer weights == repeated rows; zero
weight == dropped row; sparse == dense; model files round-trip; merge and unlearn are exact;
log-densities equal scipy.stats; probabilities sum to one; explanations add up to the scores.
"""

from __future__ import annotations

import inspect
import itertools
import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _cases import Case
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import nbayes
from nbayes import _engine as engine
from nbayes.distributions import REGISTRY as FAMILIES
from nbayes.distributions import Labels
from nbayes.exceptions import ParameterError

# No shrinking: a failing example is reported as drawn (the data are small anyway), and a
# declared known failure (test_conformance.KNOWN_FAILURES) costs no search.
SETTINGS = settings(
    max_examples=15, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate)
)
#: Families whose scores are not a normalised density of x given the class, so scipy.stats
#: has no reference for them (their ``reference_log_density`` returns None).
NOT_A_DENSITY = {"complement": "scores from the complement classes (Rennie et al.)"}


# -- helpers --------------------------------------------------------------------------------
def requires(*needs):
    """Declare what a check needs of its case (``Case`` attributes such as ``sparse``) or
    family (class attributes such as ``sparse_ok``). Runners generate only the pairs that
    apply, so no parametrised test passes without testing (see :func:`applies`)."""

    def mark(check):
        check.requires = needs
        return check

    return mark


def applies(check, subject) -> bool:
    """Whether ``check`` applies to a case, or to a family (class or registry name)."""
    if isinstance(subject, str):
        subject = FAMILIES[subject]
    return all(getattr(subject, need) for need in getattr(check, "requires", ()))


def rows_of(X, rows):
    """Rows of a matrix, sparse matrix, DataFrame or list of texts."""
    if isinstance(X, pd.DataFrame):
        return X.iloc[rows]
    return X[rows]


def assert_same_model(a, b, X, rtol=1e-9):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=1e-12)
    # MixedNB numbers categories in order of first appearance, which differs between
    # chunkings: there the scores below are the comparison (they cover every category of X).
    by_code = not getattr(a, "categories_", None)
    for fam, pa, pb in zip(a.families_, a.params_, b.params_) if by_code else ():
        pa, pb = fam.canonical_params(pa), fam.canonical_params(pb)
        assert pa.keys() == pb.keys()
        for key in pa:
            np.testing.assert_allclose(pa[key], pb[key], rtol=rtol, atol=1e-12, err_msg=key)
    ja, jb = a.predict_joint_log_proba(X), b.predict_joint_log_proba(X)
    # Scores of a class with (near) zero variance reach 1e9; judge rounding against that scale.
    scale = np.abs(jb[np.isfinite(jb)]).max(initial=1.0)
    np.testing.assert_allclose(ja, jb, rtol=rtol, atol=1e-14 * scale)


def cut_points(fractions, n):
    return sorted({int(f * n) for f in fractions} | {0, n})


def family_batch(name, n=40, d=4, k=3, seed=0, **params):
    """A family, a prepared batch of its example data and random labels."""
    fam = FAMILIES[name](**params)
    rng = np.random.default_rng(seed)
    X = fam.prepare(fam.example_data(rng, n, d))
    codes = rng.integers(0, k, size=n)
    codes[:k] = np.arange(k)
    return fam, X, Labels(codes, rng.uniform(0.5, 2.0, size=n), k)


def assert_same_stats(a, b, rtol=1e-10):
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_allclose(a[key], b[key], rtol=rtol, atol=1e-10, err_msg=key)


# -- family checks ----------------------------------------------------------------------------
def check_family_contract(name):
    """Registered under its own name, rebuilt from get_params (model files), JSON-able
    hyperparameters, and MixedNB can hand it every parameter it declares as shared."""
    cls = FAMILIES[name]
    assert cls.name == name
    assert not inspect.isabstract(cls), sorted(cls.__abstractmethods__)
    fam = cls()
    params = fam.get_params()
    json.dumps(params)
    assert cls(**params) == fam
    keywords = inspect.signature(cls.__init__).parameters
    mixed = nbayes.MixedNB().get_params()
    for p in cls.shared_params:
        assert p in keywords and p in mixed, p
    assert "missing" in keywords  # MixedNB passes its missing policy to every family


def check_example_data_is_in_domain(name):
    fam = FAMILIES[name]()
    X = fam.example_data(np.random.default_rng(1), 30, 4)
    assert X.shape == (30, 4) and not sp.issparse(X)
    prepared = fam.prepare(X)
    assert prepared.shape == (30, 4)


def check_log_density_equals_scipy(name, **params):
    """log_likelihood_terms add up to the scores and equal scipy.stats' density (of the
    family built with ``params``; defaults when none)."""
    fam, X, labels = family_batch(name, seed=2, **params)
    params = fam.finalize(fam.accumulate(X, labels))
    terms = fam.log_likelihood_terms(params, X)
    n, d = X.shape
    assert terms.shape == (n, labels.n_classes, d)
    total = fam.joint_log_likelihood(params, X) + fam.log_normalizer(params, X)[:, None]
    np.testing.assert_allclose(terms.sum(axis=2), total, rtol=1e-10, atol=1e-10)
    reference = fam.reference_log_density(params, X)
    assert (reference is None) == (name in NOT_A_DENSITY), "no scipy reference density"
    if reference is None:
        return
    # A family that interpolates a precomputed density declares how close it stays.
    rtol = getattr(fam, "reference_rtol", 1e-10)
    atol = max(rtol, 1e-12) if rtol > 1e-10 else 1e-12
    if reference.ndim == 3:
        np.testing.assert_allclose(terms, reference, rtol=rtol, atol=atol)
    else:
        np.testing.assert_allclose(terms.sum(axis=2), reference, rtol=rtol, atol=atol)


@SETTINGS
@given(
    fractions=st.lists(st.floats(0, 1), min_size=1, max_size=6),
    order=st.randoms(use_true_random=False),
    seed=st.integers(0, 10**6),
)
def check_merge_algebra(name, fractions, order, seed):
    """Shard statistics merged in any tree (zeros included) equal one accumulate; merge is
    commutative; subtract undoes merge."""
    fam, X, labels = family_batch(name, seed=seed)
    whole = fam.accumulate(X, labels)
    shards = [
        fam.accumulate(X[lo:hi], labels[lo:hi])
        for lo, hi in itertools.pairwise(cut_points(fractions, X.shape[0]))
    ]
    shards.append(fam.zeros(labels.n_classes, X.shape[1]))  # the identity
    order.shuffle(shards)
    first = shards[0]
    while len(shards) > 1:  # a random binary tree of merges
        i = order.randrange(len(shards) - 1)
        shards[i : i + 2] = [fam.merge(shards[i], shards[i + 1])]
    assert_same_stats(shards[0], whole)
    if first is not whole:
        rest = fam.subtract(whole, first)
        assert_same_stats(fam.merge(rest, first), whole)
        assert_same_stats(fam.merge(first, rest), whole)


@requires("sparse_ok")
def check_sparse_equals_dense_statistics(name):
    fam, X, labels = family_batch(name, seed=4)
    Xs = fam.prepare(sp.csr_matrix(X))
    assert sp.issparse(Xs)
    assert_same_stats(fam.accumulate(Xs, labels), fam.accumulate(X, labels))
    params = fam.finalize(fam.accumulate(X, labels))
    np.testing.assert_allclose(
        fam.joint_log_likelihood(params, Xs), fam.joint_log_likelihood(params, X), rtol=1e-12
    )


def check_small_chunks_inside_the_engine_change_nothing(name):
    fam, X, labels = family_batch(name, n=200, seed=9)
    whole = engine.accumulate([fam], [X], labels)
    tiny = engine.accumulate([fam], [X], labels, budget=1)
    assert_same_stats(tiny["groups"][0], whole["groups"][0])
    params = engine.finalize([fam], whole)
    prior = np.log(np.full(labels.n_classes, 1 / labels.n_classes))
    np.testing.assert_allclose(
        engine.joint_log_likelihood([fam], params, prior, [X], budget=1),
        engine.joint_log_likelihood([fam], params, prior, [X]),
        rtol=1e-12,
    )


def check_observed_weight(name):
    """Per-feature observed weight is the class weight total on complete data (or NaN where
    the family does not keep it)."""
    fam, X, labels = family_batch(name, seed=6)
    observed = fam.observed_weight(fam.accumulate(X, labels))
    assert observed.shape == (X.shape[1],)
    if not np.isnan(observed).all():
        np.testing.assert_allclose(observed, labels.weights.sum(), rtol=1e-12)


def check_scale_equals_scaled_weights(name):
    """Statistics scaled by a factor (EM's weight of the unlabeled rows) equal those of the
    rows with their weights times the factor; averages stay, sums scale."""
    fam, X, labels = family_batch(name, seed=8)
    scaled = Labels(labels.codes, 0.3 * labels.weights, labels.n_classes)
    assert_same_stats(fam.scale(fam.accumulate(X, labels), 0.3), fam.accumulate(X, scaled))


FAMILY_CHECKS = [
    check_scale_equals_scaled_weights,
    check_family_contract,
    check_example_data_is_in_domain,
    check_log_density_equals_scipy,
    check_merge_algebra,
    check_sparse_equals_dense_statistics,
    check_small_chunks_inside_the_engine_change_nothing,
    check_observed_weight,
]


# -- estimator checks -------------------------------------------------------------------------
@st.composite
def drawn(draw, case: Case, sparse=False):
    """(estimator, X, y) of the case with a drawn shape; shrinks towards 2 classes, 2 rows,
    1 feature, dense data."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(k, 60))
    d = draw(st.integers(1, 6))
    density = draw(st.sampled_from([1.0, 0.5, 0.1])) if case.sparse else 1.0
    seed = draw(st.integers(0, 2**32 - 1))
    return case.make(n=n, d=d, k=k, seed=seed, sparse=sparse, density=density)


def _partial_fit_over_any_chunking_equals_fit(case: Case, fractions, data, sparse):
    model, X, y = data.draw(drawn(case, sparse))
    full = clone(model).fit(X, y)
    for lo, hi in itertools.pairwise(cut_points(fractions, len(y))):
        if hi > lo:
            model.partial_fit(rows_of(X, slice(lo, hi)), y[lo:hi], classes=np.unique(y))
    assert_same_model(model, full, X)


@SETTINGS
@given(fractions=st.lists(st.floats(0, 1), min_size=1, max_size=6), data=st.data())
def check_partial_fit_over_any_chunking_equals_fit(case: Case, fractions, data):
    _partial_fit_over_any_chunking_equals_fit(case, fractions, data, sparse=False)


@requires("sparse")
@SETTINGS
@given(fractions=st.lists(st.floats(0, 1), min_size=1, max_size=6), data=st.data())
def check_partial_fit_over_any_sparse_chunking_equals_fit(case: Case, fractions, data):
    _partial_fit_over_any_chunking_equals_fit(case, fractions, data, sparse=True)


@SETTINGS
@given(
    fractions=st.lists(st.floats(0, 1), min_size=1, max_size=7),
    order=st.randoms(use_true_random=False),
    data=st.data(),
)
def check_merge_tree_of_shards_equals_fit(case: Case, fractions, order, data):
    """Models fitted on shards (partial_fit with all classes) merged in a random tree by
    nbayes.merge equal the fit on all rows. The statistics' own merge tree, with zeros as
    identity, is :func:`check_merge_algebra`."""
    model, X, y = data.draw(drawn(case))
    full = clone(model).fit(X, y)
    shards = [
        clone(model).partial_fit(rows_of(X, slice(lo, hi)), y[lo:hi], classes=np.unique(y))
        for lo, hi in itertools.pairwise(cut_points(fractions, len(y)))
        if hi > lo
    ]
    order.shuffle(shards)
    while len(shards) > 1:  # a random binary tree of merges
        i = order.randrange(len(shards) - 1)
        shards[i : i + 2] = [nbayes.merge(shards[i], shards[i + 1])]
    assert_same_model(shards[0], full, X)


@SETTINGS
@given(data=st.data())
def check_integer_weights_equal_duplicated_rows(case: Case, data):
    model, X, y = data.draw(drawn(case))
    n, k = len(y), len(np.unique(y))
    low = 0 if case.zero_weight_exact else 1
    w = np.array(data.draw(st.lists(st.integers(low, 3), min_size=n, max_size=n)))
    w[:k] = np.maximum(w[:k], 1)  # keep every class present (Case.make puts them first)
    weighted = clone(model).fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(n), w)
    duplicated = clone(model).fit(rows_of(X, rows), y[rows])
    assert_same_model(weighted, duplicated, rows_of(X, rows))


def _zero_weight_equals_dropped_row(case: Case, sparse):
    model, X, y = case.make(seed=3, sparse=sparse)
    w = np.ones(len(y))
    w[10:20] = 0
    keep = np.flatnonzero(w > 0)
    assert_same_model(
        clone(model).fit(X, y, sample_weight=w),
        clone(model).fit(rows_of(X, keep), y[keep]),
        rows_of(X, keep),
    )


def check_zero_weight_equals_dropped_row(case: Case):
    _zero_weight_equals_dropped_row(case, sparse=False)


@requires("sparse")
def check_zero_weight_equals_dropped_sparse_row(case: Case):
    _zero_weight_equals_dropped_row(case, sparse=True)


@requires("sparse")
def check_sparse_equals_dense(case: Case):
    model, X, y = case.make(seed=5)
    dense = clone(model).fit(X, y)
    sparse = clone(model).fit(sp.csr_matrix(X), y)
    assert_same_model(sparse, dense, X)
    np.testing.assert_allclose(
        sparse.predict_log_proba(sp.csr_matrix(X)),
        dense.predict_log_proba(X),
        rtol=1e-10,
        atol=1e-12,
    )


@requires("matrix")
def check_float32_input_gives_float64_results(case: Case):
    model, X, y = case.make(seed=11)
    X32 = X.astype(np.float32)
    a, b = clone(model).fit(X32, y), clone(model).fit(X.astype(np.float64), y)
    assert a.predict_proba(X32).dtype == np.float64
    np.testing.assert_allclose(
        a.predict_log_proba(X32), b.predict_log_proba(X), rtol=1e-5, atol=1e-6
    )


def check_probabilities_sum_to_one(case: Case):
    model, X, y = case.make(seed=13)
    model.fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (len(y), len(model.classes_))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.exp(model.predict_log_proba(X)), proba, rtol=1e-10)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])


@requires("explains")
def check_explanations_add_up_to_the_scores(case: Case):
    """Per-feature terms of ``explain`` add up to the joint log-probability, and the
    contributions to the predicted class's log-odds over the runner-up."""
    model, X, y = case.make(seed=23)
    model.fit(X, y)
    ex = model.explain(X)
    n, k = len(y), len(model.classes_)
    assert ex.terms.shape == (n, k, model.n_features_in_)
    jll = model.predict_joint_log_proba(X)
    np.testing.assert_allclose(ex.joint_log_proba, jll, rtol=1e-10, atol=1e-9)
    np.testing.assert_array_equal(ex.predicted_class, model.predict(X))
    rows = np.arange(n)
    np.testing.assert_allclose(
        ex.log_odds, jll[rows, ex.predicted] - jll[rows, ex.runner_up], rtol=1e-10, atol=1e-9
    )
    np.testing.assert_allclose(
        ex.prior_log_odds + ex.contributions.sum(axis=1), ex.log_odds, rtol=1e-12, atol=1e-9
    )


def check_model_file_round_trip(case: Case):
    import tempfile
    from pathlib import Path

    model, X, y = case.make(seed=17)
    half = len(y) // 2
    model.fit(rows_of(X, slice(0, half)), y[:half])
    with tempfile.TemporaryDirectory() as folder:
        loaded = nbayes.load(nbayes.save(model, Path(folder) / "m.nbayes"))
    assert type(loaded) is type(model)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    # Statistics are stored, so learning on from the file equals one fit on all rows.
    loaded.partial_fit(rows_of(X, slice(half, None)), y[half:])
    assert_same_model(loaded, clone(model).fit(X, y), X)


def check_unlearn_is_exact(case: Case):
    model, X, y = case.make(n=90, seed=19)
    w = np.random.default_rng(19).uniform(0.2, 3.0, len(y))
    forget = np.zeros(len(y), bool)
    forget[np.random.default_rng(20).choice(np.arange(3, len(y)), 30, replace=False)] = True
    drop, keep = np.flatnonzero(forget), np.flatnonzero(~forget)
    fitted = clone(model).fit(X, y, sample_weight=w)
    fitted.unlearn(rows_of(X, drop), y[drop], sample_weight=w[drop])
    assert_same_model(fitted, clone(model).fit(rows_of(X, keep), y[keep], sample_weight=w[keep]), X)
    fitted.partial_fit(rows_of(X, drop), y[drop], sample_weight=w[drop])
    assert_same_model(fitted, clone(model).fit(X, y, sample_weight=w), X)


def with_numeric_column(X, y, seed):
    """X (category codes) as a table with one more column, numeric and informative about y,
    labelled by the next integer (the cases declare only the codes' columns categorical)."""
    X = pd.DataFrame(X)
    rng = np.random.default_rng(seed)
    return X.assign(**{str(X.shape[1]): rng.normal(size=len(y)) + y}).rename(
        columns={str(X.shape[1]): X.shape[1]}
    )


def fit_by_survey(est, chunks: list, ys: list, classes):
    """A fit through the estimator protocol, as nbayes.dask and ``nbayes train`` run it:
    survey passes over the chunks (with their labels when a pass asks), set-up, counts per
    chunk, merge, install."""
    from functools import reduce

    meta = chunks[0].iloc[:0]
    summary = None
    while (step := est.survey_step(meta, summary)) is not None:
        parts = [c if step.columns is None else c[step.columns] for c in chunks]
        if step.labels:
            parts = [step.summarize(c, yc, None) for c, yc in zip(parts, ys)]
        else:
            parts = [step.summarize(c) for c in parts]
        summary = step.finish(summary, step.combine(*parts))
    est.setup(meta, summary)
    stats = [
        est.accumulate(c, Labels(np.searchsorted(classes, yc), np.ones(len(yc)), len(classes)))
        for c, yc in zip(chunks, ys)
    ]
    return est.install(classes, reduce(est.merge_statistics, stats))


@requires("numeric")
def check_numeric_columns_bin_alike(case: Case):
    """A numeric column whose bin edges the data decide: ``fit``, a survey pass over chunks
    (what nbayes.dask and ``nbayes train`` run) and ``partial_fit`` given the fitted
    ``bin_edges_`` find the same edges and probabilities, for both binnings; ``partial_fit``
    with no edges is refused by the documented rule."""
    model, X, y = case.make(n=150, d=3, seed=29)
    X = with_numeric_column(X, y, seed=29)
    classes = np.unique(y)
    cuts = [0, 40, 41, 100, len(y)]
    pieces = list(itertools.pairwise(cuts))
    for binning in ("mdl", "quantile"):
        model.set_params(binning=binning, n_bins=4)
        full = clone(model).fit(X, y)
        assert full.bin_edges_[3].size > 0, binning  # the check needs cuts to compare
        chunks = [X.iloc[lo:hi] for lo, hi in pieces]
        surveyed = fit_by_survey(clone(model), chunks, [y[lo:hi] for lo, hi in pieces], classes)
        np.testing.assert_array_equal(surveyed.bin_edges_[3], full.bin_edges_[3])
        assert_same_model(surveyed, full, X, rtol=1e-10)
        given = clone(model).set_params(bin_edges=full.bin_edges_)
        for lo, hi in pieces:
            given.partial_fit(X.iloc[lo:hi], y[lo:hi], classes=classes)
        assert_same_model(given, full, X, rtol=1e-10)
        with pytest.raises(ParameterError, match=r"Column 3 is numeric.*partial_fit needs them"):
            clone(model).partial_fit(X.iloc[:10], y[:10], classes=classes)


def check_scaled_statistics_equal_scaled_weights(case: Case):
    """``scale_statistics`` (EM's weight of the unlabeled rows, for every estimator) equals
    counting the rows with their weights times the factor."""
    model, X, y = case.make(seed=5)
    model = clone(model).fit(X, y)
    codes = np.searchsorted(model.classes_, y)
    w = np.random.default_rng(5).uniform(0.5, 2.0, len(y))
    k = len(model.classes_)
    got = model.scale_statistics(model.accumulate(X, Labels(codes, w, k)), 0.3)
    expected = model.accumulate(X, Labels(codes, 0.3 * w, k))
    flat_got, flat_expected = _leaves(got), _leaves(expected)
    assert [p for p, _ in flat_got] == [p for p, _ in flat_expected]
    for (path, a), (_, b) in zip(flat_got, flat_expected):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=path)


def _leaves(stats, path=""):
    if isinstance(stats, dict):
        return [leaf for key in sorted(stats) for leaf in _leaves(stats[key], f"{path}.{key}")]
    if isinstance(stats, (list, tuple)):
        return [leaf for i, part in enumerate(stats) for leaf in _leaves(part, f"{path}[{i}]")]
    return [(path, np.asarray(stats))]


ESTIMATOR_CHECKS = [
    check_scaled_statistics_equal_scaled_weights,
    check_partial_fit_over_any_chunking_equals_fit,
    check_partial_fit_over_any_sparse_chunking_equals_fit,
    check_merge_tree_of_shards_equals_fit,
    check_integer_weights_equal_duplicated_rows,
    check_zero_weight_equals_dropped_row,
    check_zero_weight_equals_dropped_sparse_row,
    check_sparse_equals_dense,
    check_float32_input_gives_float64_results,
    check_probabilities_sum_to_one,
    check_explanations_add_up_to_the_scores,
    check_model_file_round_trip,
    check_unlearn_is_exact,
    check_numeric_columns_bin_alike,
]


# -- Dask -------------------------------------------------------------------------------------
def check_dask_fit(case: Case, client, n_parts=3):
    """nbayes.dask.fit over uneven partitions (one empty) equals the local fit; MixedNB gets
    a dask DataFrame (it surveys the table first), the others a dask array."""
    import dask.array as da
    import dask.dataframe as dd

    from nbayes import dask as nbdask

    model, X, y = case.make(n=300, d=5, seed=n_parts)
    sizes = (0, 110, 70, 120)
    if isinstance(model, nbayes.MixedNB) or model.survey_step(X.shape[1]) is not None:
        # A model that surveys its data first (categories, bin edges) gets a table; one
        # whose numeric columns are binned gets a numeric column too (edges by survey).
        X = with_numeric_column(X, y, n_parts) if case.numeric else pd.DataFrame(X)
        if isinstance(model, nbayes.MixedNB):
            X.columns = [f"x{j}" for j in range(X.shape[1])]
        table = dd.from_pandas(X.assign(label=y), npartitions=n_parts)
        Xd, yd = table.drop(columns="label"), table["label"]
    else:
        Xd = da.from_array(X, chunks=(sizes, X.shape[1]))
        yd = da.from_array(y, chunks=(sizes,))
    got = nbdask.fit(clone(model), Xd, yd)
    want = clone(model).fit(X, y)
    if "groups" in want.stats_:
        for g, w in zip(got.stats_["groups"], want.stats_["groups"]):
            assert_same_stats(g, w)
    else:  # the semi-naive models' count tables, and their structure
        assert_same_stats(got.stats_, want.stats_)
        assert getattr(got, "structure_", None) == getattr(want, "structure_", None)
        assert want.bin_edges_[5].size > 0
        np.testing.assert_array_equal(got.bin_edges_[5], want.bin_edges_[5])
    assert_same_model(got, want, X, rtol=1e-10)
