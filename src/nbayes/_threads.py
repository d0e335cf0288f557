"""Worker threads for row chunks, and the setting that sizes them.

The engine already works in row chunks whose statistics merge (fit) or whose scores are
independent (predict). The numpy, BLAS and scipy.sparse calls that do the work release the GIL,
so chunks run on several cores from plain threads: no processes, no copies of the data.

Results come back in chunk order, so a parallel fit merges chunk statistics in the same order
as a serial one (bit-for-bit equal results) and the first failing chunk raises the same error.
"""

from __future__ import annotations

import contextvars
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from .exceptions import ParameterError

#: Environment variable read when no thread count has been set in the program.
ENV_VAR = "NBAYES_NUM_THREADS"

_N_THREADS: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "nbayes_n_threads", default=None
)
_PROCESS_THREADS: int | None = None  # set_threads: for every thread of the process
_POOL: ThreadPoolExecutor | None = None
_POOL_PID = 0  # the process that made _POOL: a forked child inherits the object, not the threads
_BLAS = None  # threadpoolctl's controller, made on first use (it inspects loaded libraries)


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _check(n, source: str) -> int:
    text = str(n).strip()
    if isinstance(n, bool) or not text.isdigit() or int(text) < 1:
        raise ParameterError(
            f"{source} must be a positive whole number of threads; got {n!r}. Use 1 to run "
            "on the calling thread only."
        )
    return int(text)


def get_threads() -> int:
    """Threads the engine uses for one fit or predict call.

    In order: the innermost :func:`threads` context, :func:`set_threads`, the environment
    variable ``NBAYES_NUM_THREADS``, and otherwise every CPU this process may run on.

    Returns
    -------
    int
        The number of threads, at least 1.

    Examples
    --------
    >>> import nbayes
    >>> with nbayes.threads(2):
    ...     nbayes.get_threads()
    2
    """
    n = _N_THREADS.get()
    if n is None:
        n = _PROCESS_THREADS
    if n is not None:
        return n
    env = os.environ.get(ENV_VAR)
    if env:
        return _check(env, f"Environment variable {ENV_VAR}")
    return _available_cpus()


def set_threads(n: int | None) -> None:
    """Use ``n`` threads for every later call, from any thread; ``None`` restores the default.

    Parameters
    ----------
    n : int or None
        A positive number of threads (1 runs on the calling thread only), or None for the
        default of :func:`get_threads`.

    Raises
    ------
    ParameterError
        ``n`` is not a positive whole number.

    Examples
    --------
    >>> import nbayes
    >>> nbayes.set_threads(1)
    >>> nbayes.get_threads()
    1
    >>> nbayes.set_threads(None)
    """
    global _PROCESS_THREADS
    _PROCESS_THREADS = None if n is None else _check(n, "The number of threads")


@contextmanager
def threads(n: int | None):
    """Context in which the engine uses ``n`` threads (``None``: as outside it).

    Use ``threads(1)`` where the caller already runs one fit or predict per core (a Dask
    worker, a joblib pool), so that the cores are not asked for twice as many threads.

    Parameters
    ----------
    n : int or None
        A positive number of threads, or None to keep the setting outside the context.

    Yields
    ------
    None

    Raises
    ------
    ParameterError
        ``n`` is not a positive whole number.

    Examples
    --------
    >>> import nbayes
    >>> with nbayes.threads(1):
    ...     nbayes.get_threads()
    1
    """
    token = _N_THREADS.set(None if n is None else _check(n, "The number of threads"))
    try:
        yield
    finally:
        _N_THREADS.reset(token)


def single_threaded_blas():
    """Context that runs BLAS on one thread, for small products and solves.

    The engine's scoring products have one column per class, and the calibrators' L-BFGS
    (scipy's, which calls LAPACK since scipy 1.15) has one or two parameters: too small
    for BLAS threads to pay off, and on a busy machine threads waiting for each other stall
    every call many times over (scipy issue 22438). scikit-learn limits threads the same
    way where oversubscription hurts.
    """
    global _BLAS
    from threadpoolctl import ThreadpoolController

    if _BLAS is None:
        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


def _pool() -> ThreadPoolExecutor:
    # One pool for the process, as large as any call may ask; a call uses at most its own
    # thread count of it by keeping that many chunks in flight.
    global _POOL, _POOL_PID
    if _POOL is None or _POOL_PID != os.getpid():
        _POOL = ThreadPoolExecutor(
            max_workers=max(_available_cpus(), 2), thread_name_prefix="nbayes"
        )
        _POOL_PID = os.getpid()
    return _POOL


def map_chunks(work: Callable, chunks: Iterable) -> Iterator:
    """``work(chunk)`` for every chunk, yielded in chunk order.

    With one thread (or one chunk) this is a plain loop on the calling thread. Otherwise at
    most ``get_threads()`` chunks are in flight, which bounds memory to that many chunks'
    temporaries. Each chunk runs in a copy of the caller's context, so context settings
    (row offsets in error messages, numpy's errstate) hold inside the workers; engine calls
    nested in a chunk's work run on that worker alone.
    """
    n_threads = get_threads()
    chunks = iter(chunks)
    first = next(chunks, None)
    if first is None:
        return
    second = next(chunks, None)
    if n_threads == 1 or second is None:
        yield work(first)
        if second is not None:
            yield work(second)
            for chunk in chunks:
                yield work(chunk)
        return
    pool = _pool()
    pending: deque = deque()

    def submit(chunk):
        pending.append(pool.submit(contextvars.copy_context().run, _in_worker, work, chunk))

    submit(first)
    submit(second)
    try:
        for chunk in chunks:
            if len(pending) >= n_threads:
                yield pending.popleft().result()
            submit(chunk)
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:  # an error or an abandoned generator: drop what is queued
            future.cancel()


def _in_worker(work: Callable, chunk):
    # The task's own context copy: engine calls nested in a chunk's work stay on its worker
    # (waiting there for tasks queued behind it on the same pool could wait forever).
    _N_THREADS.set(1)
    return work(chunk)
