"""Category look-up on a large vocabulary: partial_fit against fit, and one-row predict.

Usage::

    python -m benchmarks.vocab_lookup                    # 1e6 categories over 100 chunks
    python -m benchmarks.vocab_lookup --categories 200000 --chunks 50

A MixedNB column of ids in which every chunk brings new values (the vocabulary grows to
``--categories``), next to a small categorical and a Gaussian column. Reports seconds for
``fit`` on all rows, for ``partial_fit`` over ``--chunks`` chunks (the look-up must not be
rebuilt from the whole vocabulary per chunk: within 2x of fit), and the median of one-row
``predict_proba`` calls on the fitted model (a few milliseconds at most). Not a test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from nbayes import MixedNB


def table(n_rows: int, n_categories: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n_rows)
    # Row i holds id i % n_categories: chunks in row order keep meeting new ids.
    ids = np.char.add("id", (np.arange(n_rows) % n_categories).astype(str)).astype(object)
    frame = pd.DataFrame(
        {
            "id": ids,
            "colour": np.array(["red", "green", "blue"], dtype=object)[rng.integers(0, 3, n_rows)],
            "size": rng.normal(size=n_rows) + y,
        }
    )
    return frame, y


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--categories", type=int, default=1_000_000)
    parser.add_argument("--chunks", type=int, default=100)
    parser.add_argument("--rows", type=int, default=None, help="default: 2 x categories")
    parser.add_argument("--predict-calls", type=int, default=50)
    args = parser.parse_args(argv)
    n_rows = args.rows or 2 * args.categories
    X, y = table(n_rows, args.categories)

    start, cpu = time.perf_counter(), time.process_time()
    whole = MixedNB().fit(X, y)
    fit_s, fit_cpu = time.perf_counter() - start, time.process_time() - cpu

    model = MixedNB()
    start, cpu = time.perf_counter(), time.process_time()
    for rows in np.array_split(np.arange(n_rows), args.chunks):
        model.partial_fit(X.iloc[rows], y[rows], classes=[0, 1])
    partial_s, partial_cpu = time.perf_counter() - start, time.process_time() - cpu
    assert np.allclose(model.predict_proba(X[:1000]), whole.predict_proba(X[:1000]))

    one = X.iloc[[n_rows // 2]]
    times = []
    for _ in range(args.predict_calls):
        start = time.perf_counter()
        model.predict_proba(one)
        times.append(time.perf_counter() - start)

    print(f"rows {n_rows:,}, categories {args.categories:,}, chunks {args.chunks}")
    # CPU seconds too: on a shared machine they move less than wall-clock seconds.
    print(f"fit                 {fit_s:8.2f} s   (CPU {fit_cpu:.2f} s)")
    print(
        f"partial_fit         {partial_s:8.2f} s   (CPU {partial_cpu:.2f} s; "
        f"{partial_s / fit_s:.1f}x fit, CPU {partial_cpu / fit_cpu:.1f}x)"
    )
    print(
        f"one-row predict     {1e3 * float(np.median(times)):8.2f} ms (median of {len(times)}; "
        f"fastest {1e3 * min(times):.2f} ms)"
    )


if __name__ == "__main__":
    main()
