"""Distributed fit and predict on a real Dask cluster of two worker processes.

The distributed fit must equal the single-machine fit to 1e-10 relative for every preset and
partitioning (1 to 8 partitions, empty ones, ones missing a class), and must survive a worker
process killed mid-fit.
"""

import os
import re
import signal
import sys
import threading
import time

import cloudpickle
import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _cases import CASES, estimator_cases, make_case
from conformance import check_dask_fit
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

import nbayes
from nbayes import DataError, UnknownLabelError
from nbayes import dask as nbdask
from nbayes.cli import main as cli_main
from nbayes.datasets import load_sms_spam
from nbayes.distributions import Binned

# Workers import this module's helpers by value: the tests folder is not on their path.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

RTOL = 1e-10

# One xdist worker runs this module, so the suite starts one cluster, not one per xdist worker.
pytestmark = pytest.mark.xdist_group("dask-cluster")


@pytest.fixture
def client(dask_client):
    """The session's two-worker cluster (tests/conftest.py)."""
    return dask_client


def assert_same_model(got, want):
    np.testing.assert_array_equal(got.classes_, want.classes_)
    np.testing.assert_allclose(got.class_count_, want.class_count_, rtol=RTOL)
    np.testing.assert_allclose(got.class_log_prior_, want.class_log_prior_, rtol=RTOL)
    for g, w in zip(got.stats_["groups"], want.stats_["groups"]):
        for key in w:
            # atol covers Gaussian means and M2 that are zero up to rounding.
            np.testing.assert_allclose(g[key], w[key], rtol=RTOL, atol=1e-12, err_msg=key)
    for fam, g, w in zip(want.families_, got.params_, want.params_):
        g, w = fam.canonical_params(g), fam.canonical_params(w)
        for key in w:
            np.testing.assert_allclose(g[key], w[key], rtol=RTOL, atol=1e-12, err_msg=key)


def chunks_for(n, n_parts):
    """Uneven row chunks, with an empty chunk once there are enough of them."""
    cuts = np.linspace(0, n, n_parts + 1).astype(int)
    sizes = list(np.diff(cuts))
    if n_parts >= 3:
        sizes[1] += sizes[0]
        sizes[0] = 0
    return tuple(int(s) for s in sizes)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("n_parts", [1, 3, 8])
def test_distributed_fit_equals_local_fit(client, name, n_parts):
    estimator, X, y = make_case(name, n=400, d=6, k=3, seed=n_parts)
    Xd = da.from_array(X, chunks=(chunks_for(len(y), n_parts), 6))
    yd = da.from_array(y, chunks=(Xd.chunks[0],))
    model = nbdask.fit(estimator, Xd, yd)
    assert_same_model(model, CASES[name].factory(X.shape[1]).fit(X, y))


@pytest.mark.parametrize("case", estimator_cases(), ids=lambda c: c.name)
def test_conformance_dask_fit_equals_local_fit(client, case):
    # Every registered estimator, and every registered family through MixedNB by name.
    check_dask_fit(case, client)


@pytest.mark.parametrize(
    "name, factory",
    [
        ("gaussian", lambda: nbayes.GaussianNB(var_smoothing="auto")),
        ("gaussian", lambda: nbayes.GaussianNB(var_pooling="shared")),
        ("gaussian", lambda: nbayes.GaussianNB(estimate="posterior_predictive")),
        ("multinomial", lambda: nbayes.MultinomialNB(alpha="auto")),
        ("categorical", lambda: nbayes.CategoricalNB(alpha="auto")),
    ],
)
def test_settings_chosen_from_the_whole_data_match_too(client, name, factory):
    # Smoothing chosen by evidence and pooled variances are derived at finalize time, from
    # the merged statistics, so they too equal the local fit.
    _, X, y = make_case(name, n=400, d=5, k=3, seed=12)
    Xd = da.from_array(X, chunks=(chunks_for(len(y), 5), 5))
    got, want = nbdask.fit(factory(), Xd, y), factory().fit(X, y)
    if getattr(want, "var_smoothing", None) == "auto":
        # The statistics are exact; the evidence-maximising floor is located from function
        # values, which pins it down only to about sqrt(machine epsilon) (fit and partial_fit
        # differ as much), so the variances built on it agree to that level.
        for key in ("n_weight", "mean", "m2"):
            np.testing.assert_allclose(
                got.stats_["groups"][0][key], want.stats_["groups"][0][key], rtol=RTOL, atol=1e-12
            )
        np.testing.assert_allclose(got.var_, want.var_, rtol=1e-6)
        return
    assert_same_model(got, want)


@pytest.mark.parametrize("name", list(CASES))
def test_partitions_missing_classes_and_empty_ones(client, name):
    estimator, X, y = make_case(name, n=300, d=5, k=3, seed=7)
    order = np.argsort(y, kind="stable")  # sorted labels: most partitions see one class
    X, y = X[order], y[order]
    w = np.random.default_rng(0).uniform(0.2, 3.0, len(y))
    chunks = (0, 60, 0, 90, 70, 0, 80, 0)
    Xd = da.from_array(X, chunks=(chunks, 5))
    model = nbdask.fit(
        estimator,
        Xd,
        da.from_array(y, chunks=(chunks,)),
        sample_weight=da.from_array(w, chunks=(chunks,)),
    )
    assert_same_model(model, CASES[name].factory(X.shape[1]).fit(X, y, sample_weight=w))


# Complement and Poisson count sparse blocks exactly as Multinomial does.
@pytest.mark.parametrize("name", ["multinomial", "bernoulli", "categorical"])
def test_sparse_blocks(client, name):
    estimator, X, y = make_case(name, n=300, d=8, k=3, seed=3)
    Xd = da.from_array(X, chunks=(50, 4)).map_blocks(sp.csr_matrix)
    model = nbdask.fit(estimator, Xd, y)
    local = CASES[name].factory(X.shape[1]).fit(sp.csr_matrix(X), y)
    assert_same_model(model, local)
    np.testing.assert_allclose(
        nbdask.predict_proba(model, Xd).compute(), local.predict_proba(sp.csr_matrix(X)), rtol=1e-10
    )


def test_dataframe_with_label_series_and_lazy_predictions(client):
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        rng.normal(size=(500, 4)) * [1, 10, 100, 1000] + 1e3,
        columns=["age", "income", "clicks", "visits"],
    )
    df["label"] = np.where(rng.random(500) < 0.3, "spam", "ham")
    ddf = dd.from_pandas(df, npartitions=5)
    features = ["age", "income", "clicks", "visits"]
    model = nbdask.fit(nbayes.GaussianNB(), ddf[features], ddf["label"])
    local = nbayes.GaussianNB().fit(df[features], df["label"])
    assert_same_model(model, local)
    assert model.feature_names_in_.tolist() == features

    labels = nbdask.predict(model, ddf[features])
    proba = nbdask.predict_proba(model, ddf[features])
    log_proba = nbdask.predict_log_proba(model, ddf[features])
    assert dask.is_dask_collection(labels) and dask.is_dask_collection(proba)
    assert labels.npartitions == 5
    pd.testing.assert_index_equal(labels.compute().index, df.index)
    np.testing.assert_array_equal(labels.compute().to_numpy(), local.predict(df[features]))
    assert proba.columns.tolist() == ["ham", "spam"]
    np.testing.assert_allclose(
        proba.compute().to_numpy(), local.predict_proba(df[features]), rtol=1e-10
    )
    np.testing.assert_allclose(
        log_proba.compute().to_numpy(), local.predict_log_proba(df[features]), rtol=1e-10
    )


def test_parquet_labels_read_in_fewer_partitions_than_the_features(client, tmp_path):
    # Dask fuses the partitions of a narrow column selection (here the label alone), so
    # X and y differ in partition count; the fit aligns them and equals the local fit.
    rng = np.random.default_rng(8)
    frames = []
    for i in range(8):
        part = pd.DataFrame(rng.poisson(2.0, size=(50, 5)), columns=list("abcde"))
        part["label"] = np.where(part["a"] > 2, "many", "few")
        part["weight"] = rng.uniform(0.5, 2.0, 50)
        part.to_parquet(tmp_path / f"part-{i}.parquet")
        frames.append(part)
    df = pd.concat(frames)
    features = list("abcde")
    with dask.config.set({"dataframe.parquet.minimum-partition-size": 10**9}):
        ddf = dd.read_parquet(tmp_path)
        assert len(ddf["label"].to_delayed()) < len(ddf[features].to_delayed())
        model = nbdask.fit(
            nbayes.MultinomialNB(), ddf[features], ddf["label"], sample_weight=ddf["weight"]
        )
        by_name = nbdask.fit(nbayes.MultinomialNB(), ddf.drop(columns="weight"), "label")
    want = nbayes.MultinomialNB().fit(df[features], df["label"], sample_weight=df["weight"])
    assert_same_model(model, want)
    assert_same_model(by_name, nbayes.MultinomialNB().fit(df[features], df["label"]))
    assert by_name.feature_names_in_.tolist() == features


def test_dataframe_labels_partitioned_differently_align_by_index(client):
    rng = np.random.default_rng(9)
    df = pd.DataFrame(rng.normal(size=(300, 3)), columns=["x", "y", "z"])
    labels = pd.Series(rng.integers(0, 2, 300))
    model = nbdask.fit(
        nbayes.GaussianNB(),
        dd.from_pandas(df, npartitions=4),
        dd.from_pandas(labels, npartitions=7),
    )
    assert_same_model(model, nbayes.GaussianNB().fit(df, labels))


@pytest.mark.parametrize(
    "vectorizer",
    [
        CountVectorizer(min_df=2, max_features=300, ngram_range=(1, 2)),
        HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None),
        CountVectorizer(vocabulary=["free", "call", "now", "lunch", "win"]),
    ],
    ids=["learned-vocabulary", "hashing", "fixed-vocabulary"],
)
def test_text_model_with_a_distributed_vocabulary_pass(client, vectorizer, tmp_path):
    df = load_sms_spam().iloc[:1500]
    ddf = dd.from_pandas(df, npartitions=4)
    model = nbdask.fit(nbayes.TextNB(vectorizer=vectorizer), ddf["text"], ddf["label"])
    local = nbayes.TextNB(vectorizer=vectorizer).fit(df["text"], df["label"])
    if hasattr(local.vectorizer_, "vocabulary_"):
        assert model.vectorizer_.vocabulary_ == local.vectorizer_.vocabulary_
    assert_same_model(model.classifier_, local.classifier_)
    labels = nbdask.predict(model, ddf["text"]).compute()
    np.testing.assert_array_equal(labels.to_numpy(), local.predict(df["text"]))
    nbayes.save(model, tmp_path / "text.nbayes")
    np.testing.assert_allclose(
        nbayes.load(tmp_path / "text.nbayes").predict_proba(df["text"]),
        local.predict_proba(df["text"]),
        rtol=1e-10,
    )


ADULT = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
]


def assert_same_mixed(got, want):
    assert got.column_groups_ == want.column_groups_
    assert got.categories_.keys() == want.categories_.keys()
    for col, values in want.categories_.items():
        np.testing.assert_array_equal(got.categories_[col], values, err_msg=col)
    assert_same_model(got, want)


@pytest.mark.parametrize("missing", ["ignore", "category"])
def test_mixed_table_with_a_survey_pass(client, shared_data, missing):
    # Strings, small and large integers, and gaps: groups and category codes are decided
    # from all rows (a survey pass), exactly as fit on the whole table decides them.
    df = pd.read_csv(
        shared_data / "adult" / "adult.data.gz",
        header=None,
        names=ADULT,
        skipinitialspace=True,
        na_values="?",
        nrows=6000,
    )
    df["over_40"] = df["age"] > 40
    y = df.pop("income")
    ddf = dd.from_pandas(df.assign(income=y), npartitions=5)
    model = nbdask.fit(nbayes.MixedNB(missing=missing), ddf.drop(columns="income"), ddf["income"])
    local = nbayes.MixedNB(missing=missing).fit(df, y)
    assert_same_mixed(model, local)
    assert model.column_families_["native_country"] == "categorical"
    proba = nbdask.predict_proba(model, ddf.drop(columns="income")).compute()
    np.testing.assert_allclose(proba.to_numpy(), local.predict_proba(df), rtol=1e-9)


def test_mixed_columns_named_categorical_and_integers_past_the_survey_cap(client, monkeypatch):
    rng = np.random.default_rng(4)
    n = 400
    df = pd.DataFrame(
        {
            "score": rng.integers(0, 6, n).astype(float),  # float, named categorical
            "small": rng.integers(0, 5, n),  # few integers
            "ids": rng.integers(0, 10**6, n),  # many integers: Gaussian
            "city": rng.choice(["Oslo", "Rome", None], n),
        }
    )
    y = rng.choice(["a", "b"], n)
    ddf = dd.from_pandas(df, npartitions=4)
    for model in (
        nbayes.MixedNB(columns=[("categorical", ["score"])]),
        nbayes.MixedNB(max_int_categories=10),
    ):
        local = clone(model).fit(df, y)
        # A cap of 3 distinct values forces the second, narrow pass for 'small' too.
        monkeypatch.setattr(nbayes.estimators._survey, "SURVEY_CAP", 3)
        shell, _ = nbdask._set_up(model, ddf, ddf._meta, 8)
        assert [f.name for f in shell.families_] == [f.name for f in local.families_]
        for mine, theirs in zip(shell._layout.vocabularies, local._layout.vocabularies):
            assert (mine is None) == (theirs is None)
            if mine is not None:
                for j in range(mine.n_columns):
                    np.testing.assert_array_equal(mine.categories(j), theirs.categories(j))
        got = nbdask.fit(clone(model), ddf, dd.from_pandas(pd.Series(y), npartitions=4))
        assert_same_mixed(got, local)


def test_categorical_values_on_a_dask_dataframe_are_surveyed_then_counted(client):
    # CategoricalNB on category values (not codes) sets up its vocabulary from a survey
    # pass, as MixedNB does: the codes are those of fit on all rows.
    rng = np.random.default_rng(7)
    n = 300
    df = pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue", "green", None], n),
            "size": rng.choice(["S", "M", "L"], n),
        }
    )
    y = rng.choice(["a", "b"], n)
    local = nbayes.CategoricalNB(missing="category").fit(df, y)
    ddf = dd.from_pandas(df.assign(label=y), npartitions=4)
    got = nbdask.fit(nbayes.CategoricalNB(missing="category"), ddf, "label")
    assert [c.tolist() for c in got.categories_] == [c.tolist() for c in local.categories_]
    assert_same_model(got, local)


def test_array_predictions_are_lazy_and_per_block(client):
    estimator, X, y = make_case("multinomial", n=300, d=6, seed=2)
    Xd = da.from_array(X, chunks=((0, 100, 200), (3, 3)))
    model = nbdask.fit(estimator, Xd, y)
    local = nbayes.MultinomialNB(alpha=0.5).fit(X, y)
    labels = nbdask.predict(model, Xd)
    log_proba = nbdask.predict_log_proba(model, Xd)
    assert labels.chunks == ((0, 100, 200),) and log_proba.chunks == ((0, 100, 200), (3,))
    np.testing.assert_array_equal(labels.compute(), local.predict(X))
    np.testing.assert_allclose(log_proba.compute(), local.predict_log_proba(X), rtol=1e-10)
    np.testing.assert_allclose(
        nbdask.predict_joint_log_proba(model, Xd).compute(),
        local.predict_joint_log_proba(X),
        rtol=1e-10,
    )


def test_classes_passed_in_keep_unseen_labels_and_reject_unknown_ones(client):
    estimator, X, y = make_case("bernoulli", n=200, seed=4)
    Xd = da.from_array(X, chunks=50)
    model = nbdask.fit(estimator, Xd, y, classes=[0, 1, 2, 3])
    want = nbayes.BernoulliNB().partial_fit(X, y, classes=[0, 1, 2, 3])
    assert_same_model(model, want)
    with pytest.raises(
        UnknownLabelError,
        match=r"In partition \d \(rows \d+\.\.\d+\): Label 2 "
        r"at row \d+ is not among classes \[0, 1\]",
    ):
        nbdask.fit(nbayes.BernoulliNB(), Xd, y, classes=[0, 1])


def test_data_errors_name_the_partition_and_the_row(client):
    X = np.ones((120, 3))
    X[97, 1] = -4.0
    with pytest.raises(
        DataError,
        match=r"In partition 2 \(rows 80\.\.119\): Column index 1 "
        r"must hold non-negative counts.*at row 97",
    ):
        nbdask.fit(nbayes.MultinomialNB(), da.from_array(X, chunks=40), np.arange(120) % 2)


def test_a_missing_label_is_refused_as_fit_refuses_it(client):
    # One reading of labels: each partition finds its classes as fit does.
    X, y = np.ones((30, 2)), np.array([0.0, 1.0] * 15)
    y[17] = np.nan
    message = r"The label at row 17 is missing \(nan\): every row a model learns from"
    with pytest.raises(DataError, match=message):
        nbayes.GaussianNB().fit(X, y)
    with pytest.raises(DataError, match=r"In partition 1 \(rows 10\.\.19\): " + message):
        nbdask.fit(nbayes.GaussianNB(), da.from_array(X, chunks=10), da.from_array(y, chunks=10))


def test_input_errors():
    X = da.ones((10, 2), chunks=5)
    with pytest.raises(DataError, match="X must be a dask array or dask DataFrame; got ndarray"):
        nbdask.fit(nbayes.GaussianNB(), np.ones((10, 2)), np.zeros(10))
    with pytest.raises(DataError, match="X has 10 rows but y has shape \\(9,\\)"):
        nbdask.fit(nbayes.GaussianNB(), X, np.zeros(9))
    frame = dd.from_pandas(pd.DataFrame({"a": np.ones(10)}), npartitions=2)
    with pytest.raises(DataError, match="y must be a column name of X or a dask Series"):
        nbdask.fit(nbayes.GaussianNB(), frame, np.zeros(10))
    with pytest.raises(DataError, match=r"y='label' is not a column of X; columns are \['a'\]"):
        nbdask.fit(nbayes.GaussianNB(), frame, "label")
    with pytest.raises(DataError, match="X has 2 row blocks but y has 3"):
        nbdask.fit(nbayes.GaussianNB(), X, dd.from_pandas(pd.Series(np.zeros(10)), npartitions=3))
    with pytest.raises(DataError, match="no rows in any partition"):
        nbdask.fit(nbayes.GaussianNB(), da.ones((0, 2), chunks=5), np.zeros(0))
    with pytest.raises(DataError, match="sample_weight is zero for every row"):
        nbdask.fit(nbayes.GaussianNB(), X, np.zeros(10), sample_weight=np.zeros(10))
    with pytest.raises(nbayes.NotFittedError):
        nbdask.predict(nbayes.GaussianNB(), X)


# -- the command line: nbayes train / predict --dask -------------------------------------------
def cli(capsys, *argv):
    status = cli_main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_train_and_predict_on_the_cluster_equal_the_chunked_run(
    capsys, client, tmp_path, shared_data
):
    spambase = shared_data / "spambase" / "spambase.data"
    address = client.scheduler.address
    common = ["--no-header", "--target", "57", "--model", "gaussian", "--chunk-rows", "900"]
    status, out, err = cli(
        capsys, "train", spambase, *common, "-o", tmp_path / "d.nbayes", "--dask", address
    )
    assert status == 0, err
    assert "4,601 rows" in out
    status, _, err = cli(capsys, "train", spambase, *common, "-o", tmp_path / "c.nbayes")
    assert status == 0, err
    assert_same_model(nbayes.load(tmp_path / "d.nbayes"), nbayes.load(tmp_path / "c.nbayes"))
    for name, extra in (("d.csv", ["--dask", address]), ("c.csv", [])):
        status, _, err = cli(
            capsys,
            "predict",
            tmp_path / "d.nbayes",
            spambase,
            "--no-header",
            "--proba",
            "--keep",
            "57",
            "-o",
            tmp_path / name,
            *extra,
        )
        assert status == 0, err
    got, want = pd.read_csv(tmp_path / "d.csv"), pd.read_csv(tmp_path / "c.csv")
    assert len(got) == 4601 and list(got.columns) == ["57", "prediction", "proba_0", "proba_1"]
    pd.testing.assert_frame_equal(got, want, rtol=1e-10)


def test_cli_text_model_on_the_cluster(capsys, client, tmp_path):
    df = load_sms_spam().iloc[:2000]
    df.to_csv(tmp_path / "sms.csv", index=False)
    for name, extra in (("d", ["--dask", client.scheduler.address]), ("c", [])):
        status, _, err = cli(
            capsys,
            "train",
            tmp_path / "sms.csv",
            "--target",
            "label",
            "--text-column",
            "text",
            "--min-df",
            "2",
            "-o",
            tmp_path / f"{name}.nbayes",
            *extra,
        )
        assert status == 0, err
    got, want = nbayes.load(tmp_path / "d.nbayes"), nbayes.load(tmp_path / "c.nbayes")
    assert got.vectorizer_.vocabulary_ == want.vectorizer_.vocabulary_
    assert_same_model(got.classifier_, want.classifier_)


def test_cli_mixed_table_on_the_cluster(capsys, client, tmp_path, shared_data):
    df = pd.read_csv(
        shared_data / "adult" / "adult.data.gz",
        header=None,
        names=ADULT,
        skipinitialspace=True,
        na_values="?",
        nrows=5000,
    )
    df.to_csv(tmp_path / "adult.csv", index=False)
    # One chunk for the chunked run: its first batch is then all rows, as for the survey.
    for name, extra in (
        ("d", ["--dask", client.scheduler.address]),
        ("c", ["--chunk-rows", "10000"]),
    ):
        status, out, err = cli(
            capsys,
            "train",
            tmp_path / "adult.csv",
            "--target",
            "income",
            "-o",
            tmp_path / f"{name}.nbayes",
            *extra,
        )
        assert status == 0, err
        assert "trained MixedNB (mixed) on 5,000 rows" in out
    assert_same_mixed(nbayes.load(tmp_path / "d.nbayes"), nbayes.load(tmp_path / "c.nbayes"))


def test_cli_local_cluster_and_errors(capsys, client, tmp_path):
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.poisson(3, size=(300, 3)), columns=["a", "b", "c"])
    df["label"] = np.where(df["a"] > 3, "high", "low")
    df.to_csv(tmp_path / "counts.csv", index=False)
    status, _, err = cli(
        capsys,
        "train",
        tmp_path / "counts.csv",
        "--target",
        "label",
        "--model",
        "multinomial",
        "-o",
        tmp_path / "m.nbayes",
        "--dask",
        "local:1",
    )
    assert status == 0, err
    want = nbayes.MultinomialNB().fit(df[["a", "b", "c"]], df["label"])
    assert_same_model(nbayes.load(tmp_path / "m.nbayes"), want)

    status, _, err = cli(
        capsys,
        "train",
        tmp_path / "counts.csv",
        "--target",
        "label",
        "--model",
        "multinomial",
        "-o",
        tmp_path / "x.nbayes",
        "--dask",
        "yarn",
    )
    assert status == 2
    assert "--dask must be local, local:N or tcp://HOST:PORT; got 'yarn'" in err
    df["b"] = df["b"].astype(object)
    df.loc[250, "b"] = "many"
    df.to_csv(tmp_path / "bad.csv", index=False)
    args = [
        "train",
        tmp_path / "bad.csv",
        "--target",
        "label",
        "--model",
        "multinomial",
        "-o",
        tmp_path / "x.nbayes",
        "--dask",
        client.scheduler.address,
    ]
    # The first rows fix the column types: text seen there is reported with its row...
    status, _, err = cli(capsys, *args)
    assert status == 1
    assert re.search(
        r"column 'b' must hold numbers for multinomial; got 'many' at row 250.*"
        r"in partition 0 of DATA",
        err,
    ), err
    # ... text further down fails the typed CSV reader on the workers.
    status, _, err = cli(capsys, *args, "--chunk-rows", "100")
    assert status == 1
    assert re.search(
        r"bad.csv: a column that holds numbers in its first rows holds text "
        r"further down \(could not convert string to float: 'many'\)",
        err,
    ), err


def slow_block(block):
    """Stand-in for an expensive read, so that a worker can be killed while tasks run."""
    time.sleep(0.15)
    return block


def test_fit_survives_a_worker_killed_mid_fit(client):
    # Last in the module: it shares the cluster, whose nanny restarts the killed worker.
    estimator, X, y = make_case("gaussian", n=1200, d=4, k=3, seed=11)
    Xd = da.from_array(X, chunks=(100, 4)).map_blocks(slow_block)
    victim = next(iter(client.run(os.getpid).values()))
    killed = threading.Event()

    def kill_when_busy():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(client.processing().values()):
            time.sleep(0.02)
        time.sleep(0.3)  # let the victim finish a few partitions and hold their results
        os.kill(victim, signal.SIGKILL)
        killed.set()

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    model = nbdask.fit(estimator, Xd, da.from_array(y, chunks=100), split_every=4)
    finished = killed.is_set()
    killer.join()
    assert finished, "the worker was killed only after the fit had finished"
    assert victim not in client.run(os.getpid).values()
    assert_same_model(model, nbayes.GaussianNB().fit(X, y))


@pytest.mark.parametrize(
    "model",
    [
        nbayes.AODE(),
        nbayes.AODE(n=2, binning="quantile", n_bins=3),
        nbayes.TAN(missing="category"),
        # cuts from the Binned family's grid counts, added up over the partitions
        nbayes.TAN(binning=Binned(bins=32)),
        nbayes.KDB(k=2),
        nbayes.JointBayes(),
    ],
    ids=lambda m: repr(m),
)
def test_seminaive_on_a_messy_table_with_weights(client, model):
    # Strings with gaps, a boolean, a numeric column with NaN (edges from the labelled
    # survey pass, weights included) and lazy predictions: all equal to fit on one machine.
    rng = np.random.default_rng(8)
    n = 400
    y = rng.choice(["no", "yes"], n)
    df = pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue", "green", None], n),
            "big": rng.random(n) < 0.3,
            "size": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n) + (y == "yes")),
            "weight": rng.integers(1, 4, n).astype(float),
        }
    )
    ddf = dd.from_pandas(df.assign(label=y), npartitions=4)
    X = ddf.drop(columns=["label", "weight"])
    got = nbdask.fit(clone(model), X, ddf["label"], sample_weight=ddf["weight"])
    local = clone(model).fit(df.drop(columns="weight"), y, sample_weight=df["weight"])
    assert local.bin_edges_["size"].size > 0
    np.testing.assert_array_equal(got.bin_edges_["size"], local.bin_edges_["size"])
    assert {k: v.tolist() for k, v in got.categories_.items()} == {
        k: v.tolist() for k, v in local.categories_.items()
    }
    assert getattr(got, "structure_", None) == getattr(local, "structure_", None)
    for key, value in local.stats_.items():
        np.testing.assert_allclose(got.stats_[key], value, rtol=RTOL, err_msg=key)
    lazy = nbdask.predict_proba(got, X)
    assert isinstance(lazy, dd.DataFrame)
    want = local.predict_proba(df.drop(columns="weight"))
    np.testing.assert_allclose(lazy.compute().to_numpy(), want, rtol=RTOL, atol=1e-12)
    labels = nbdask.predict(got, X).compute().to_numpy()
    np.testing.assert_array_equal(labels, local.predict(df.drop(columns="weight")))


def test_seminaive_on_a_dask_array_needs_a_table_or_given_edges(client):
    # Numeric columns of an array need a survey pass, which reads tables; given edges do not.
    rng = np.random.default_rng(9)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    Xd = da.from_array(X, chunks=50)
    with pytest.raises(DataError, match="AODE surveys its data before counting"):
        nbdask.fit(nbayes.AODE(), Xd, y)
    edges = {0: [-0.5, 0.0, 0.5], 1: [0.0]}
    got = nbdask.fit(nbayes.AODE(bin_edges=edges), Xd, y)
    local = nbayes.AODE(bin_edges=edges).fit(X, y)
    np.testing.assert_allclose(got.predict_proba(X), local.predict_proba(X), rtol=RTOL)


@pytest.mark.parametrize("model", ["tan", "aode"])
def test_cli_seminaive_on_the_cluster_equals_the_run_in_memory(
    capsys, client, tmp_path, monkeypatch, model
):
    # Strings with gaps, a numeric column with gaps, a small integer column and true/false:
    # the Dask run surveys every partition for categories and bin edges, counts on the
    # workers and merges; its model must predict what the run without --dask predicts.
    rng = np.random.default_rng(5)
    n = 300
    y = rng.choice(["yes", "no"], n)
    size = np.round(rng.normal(size=n) + 1.5 * (y == "yes"), 3)
    size[rng.random(n) < 0.1] = np.nan
    pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue", "green", None], n),
            "size": size,
            "doors": rng.integers(0, 4, n),
            "flag": rng.choice(["true", "false"], n),
            "label": y,
        }
    ).to_csv(tmp_path / "messy.csv", index=False)
    # Small blocks, so that the file is several partitions (the CLI reads 64 MB blocks).
    read_csv = dd.read_csv
    monkeypatch.setattr(dd, "read_csv", lambda *a, **k: read_csv(*a, **{**k, "blocksize": 2000}))
    assert dd.read_csv(tmp_path / "messy.csv").npartitions > 2
    for name, extra in (("d", ["--dask", client.scheduler.address]), ("c", [])):
        status, out, err = cli(
            capsys,
            "train",
            tmp_path / "messy.csv",
            "--target",
            "label",
            "--model",
            model,
            "-o",
            tmp_path / f"{name}.nbayes",
            *extra,
        )
        assert status == 0, err
        assert "on 300 rows" in out, out
    got, want = nbayes.load(tmp_path / "d.nbayes"), nbayes.load(tmp_path / "c.nbayes")
    assert type(got) is type(want) is {"tan": nbayes.TAN, "aode": nbayes.AODE}[model]
    assert want.bin_edges_["size"].size > 0
    for column, edges in want.bin_edges_.items():
        np.testing.assert_array_equal(got.bin_edges_[column], edges, err_msg=column)
    assert getattr(got, "structure_", None) == getattr(want, "structure_", None)
    for name in ("d", "c"):
        status, _, err = cli(
            capsys,
            "predict",
            tmp_path / f"{name}.nbayes",
            tmp_path / "messy.csv",
            "--proba",
            "-o",
            tmp_path / f"{name}.csv",
        )
        assert status == 0, err
    got_p, want_p = pd.read_csv(tmp_path / "d.csv"), pd.read_csv(tmp_path / "c.csv")
    assert list(want_p.columns) == ["prediction", "proba_no", "proba_yes"]
    pd.testing.assert_frame_equal(got_p, want_p, rtol=1e-10)
