"""Row chunks on worker threads: the same numbers as one thread, the same errors, a clear knob."""

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from _cases import CASES, make_case

import nbayes
import nbayes.distributions._arrays as base
from nbayes import _threads
from nbayes.exceptions import DataError, ParameterError


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of a few dozen rows, so that a few thousand rows make many chunks."""
    monkeypatch.setattr(base, "CHUNK_BYTES", 4096)


@pytest.mark.parametrize(
    ("name", "sparse"),
    [
        (name, sparse)
        for name in sorted(CASES)
        for sparse in (False, True)
        if CASES[name].sparse or not sparse
    ],
)
def test_threads_give_the_numbers_of_one_thread_exactly(name, sparse, small_chunks):
    _, X, y = make_case(name, n=3000, d=6, k=4, seed=1, sparse=sparse)
    results = {}
    for n_threads in (1, 3):
        with nbayes.threads(n_threads):
            model = make_case(name)[0].fit(X, y)
            results[n_threads] = (
                model.stats_,
                model.predict_proba(X),
                model.predict_log_proba(X),
                model.predict_joint_log_proba(X),
            )
    serial, threaded = results[1], results[3]
    # Chunk statistics merge in chunk order whatever thread made them: bit-for-bit equal.
    for a, b in zip(serial[0]["groups"], threaded[0]["groups"]):
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    for a, b in zip(serial[1:], threaded[1:]):
        np.testing.assert_array_equal(a, b)


def test_threads_are_used_for_many_chunks(small_chunks, monkeypatch):
    seen = set()
    score = nbayes.distributions.Gaussian.joint_log_likelihood

    def spy(self, params, X):
        seen.add(threading.current_thread().name)
        return score(self, params, X)

    monkeypatch.setattr(nbayes.distributions.Gaussian, "joint_log_likelihood", spy)
    model, X, y = make_case("gaussian", n=3000, d=6)
    model.fit(X, y)
    with nbayes.threads(2):
        model.predict_proba(X)
    assert seen and all(name.startswith("nbayes") for name in seen)
    seen.clear()
    with nbayes.threads(1):
        model.predict_proba(X)
    assert seen == {threading.current_thread().name}


@pytest.mark.parametrize("stage", ["fit", "predict"])
def test_first_bad_chunk_raises_with_its_row(stage, small_chunks):
    # Several chunks fail; the error is the first one in row order, with rows of the user's
    # data (each chunk reports from its own offset, also on a worker thread).
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, size=(3000, 4)).astype(float)
    y = np.arange(3000) % 3
    bad = X.copy()
    bad[[1234, 2222, 2900], 2] = -1.0
    model = nbayes.MultinomialNB()
    with nbayes.threads(2):
        if stage == "predict":
            model.fit(X, y)
        with pytest.raises(DataError, match=r"[Cc]olumn index 2 .* at row 1234\."):
            model.fit(bad, y) if stage == "fit" else model.predict_proba(bad)


def test_threads_apply_to_sparse_chunks(small_chunks):
    rng = np.random.default_rng(3)
    X = sp.random(
        4000,
        300,
        density=0.05,
        format="csr",
        random_state=rng,
        data_rvs=lambda n: rng.integers(1, 5, n),
    )
    y = rng.integers(0, 5, 4000)
    with nbayes.threads(1):
        one = nbayes.MultinomialNB().fit(X, y).predict_proba(X)
    with nbayes.threads(2):
        two = nbayes.MultinomialNB().fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(one, two)


def test_thread_count_precedence(monkeypatch):
    monkeypatch.setenv(_threads.ENV_VAR, "3")
    assert nbayes.get_threads() == 3
    try:
        nbayes.set_threads(2)
        assert nbayes.get_threads() == 2
        with nbayes.threads(1):
            assert nbayes.get_threads() == 1
            # A thread of the user's own sees the process setting, not this context.
            other = []
            t = threading.Thread(target=lambda: other.append(nbayes.get_threads()))
            t.start()
            t.join()
            assert other == [2]
        assert nbayes.get_threads() == 2
    finally:
        nbayes.set_threads(None)
    assert nbayes.get_threads() == 3
    monkeypatch.delenv(_threads.ENV_VAR)
    assert nbayes.get_threads() >= 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, "two", True, None])
def test_bad_thread_counts_are_refused(bad, monkeypatch):
    if bad is not None:
        with pytest.raises(ParameterError, match="positive whole number of threads"):
            nbayes.set_threads(bad)
        with pytest.raises(ParameterError, match="positive whole number of threads"):
            with nbayes.threads(bad):
                pass
    monkeypatch.setenv(_threads.ENV_VAR, str(bad))
    with pytest.raises(ParameterError, match="NBAYES_NUM_THREADS must be a positive"):
        nbayes.get_threads()


def _predict_in_child(model, X, queue):
    with nbayes.threads(2):
        queue.put(model.predict_proba(X).sum())


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_makes_its_own_threads(small_chunks):
    # A child forked after the parent used its pool inherits the pool object but none of its
    # threads: work queued there would wait forever.
    import multiprocessing

    model, X, y = make_case("gaussian", n=3000, d=6)
    with nbayes.threads(2):
        model.fit(X, y).predict_proba(X)  # the parent's pool exists now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_predict_in_child, args=(model, X, queue))
    child.start()
    child.join(timeout=60)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive, "the forked child hung on the parent's thread pool"
    assert queue.get(timeout=5) == pytest.approx(3000.0)


def test_engine_calls_nested_in_a_chunk_stay_on_its_worker():
    # Work that itself maps over chunks (a model scored inside another's chunk) must not wait
    # for tasks queued behind it on the same pool: with every worker waiting, none would run.
    def inner(i):
        return i * 10

    def outer(i):
        return sum(_threads.map_chunks(inner, range(i, i + 3)))

    result = []

    def run():
        with nbayes.threads(2):
            result.extend(_threads.map_chunks(outer, range(6)))

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(timeout=30)
    assert not runner.is_alive(), "nested chunk maps deadlocked on the worker pool"
    assert result == [30 * i + 30 for i in range(6)]
