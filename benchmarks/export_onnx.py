"""One-row latency of exported ONNX graphs in onnxruntime against ``model.predict_proba``.

Usage::

    python -m benchmarks.export_onnx                # 2000 calls per model and side
    python -m benchmarks.export_onnx --calls 200

Several model kinds are fitted on generated tables shaped like the shared data sets (word
counts like SMS, 57 numbers like Spambase, 22 text columns like Mushroom, a mixed table like
Adult, a binned density), exported with :func:`nbayes.export.to_onnx` (``zipmap=False``) and
scored one row at a time: nbayes on a one-row array or DataFrame, onnxruntime (one thread) on
the same row's inputs, built beforehand. The two sides alternate call by call, so a change of
load on a shared machine hits both alike; the table gives the medians, their ratio and the
largest difference of the probabilities over the test rows. Not a test.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd

from nbayes import CategoricalNB, DensityNB, GaussianNB, MixedNB, MultinomialNB


def _cases(rng: np.random.Generator, n: int) -> list:
    """(name, model, X, the ONNX inputs of an index array of rows) per model kind, and y."""
    y = rng.integers(0, 2, size=n)
    counts = rng.poisson(0.02 + 0.03 * rng.uniform(size=2000) * (1 + y[:, None]))
    counts = counts.astype(np.float64)
    spam = rng.lognormal(y[:, None] * 0.3, 1.0, size=(n, 57))
    letters = np.array(list("abcdefghijkl"), dtype=object)
    strings = letters[(rng.integers(0, 6, size=(n, 22)) + 3 * y[:, None]) % 12]
    mixed = pd.DataFrame(
        {
            "age": rng.normal(38 + 5 * y, 12),
            "workclass": rng.choice(["Private", "State-gov", "Self-emp"], n).astype(object),
            "education": rng.choice(["HS-grad", "Bachelors", "Masters"], n).astype(object),
            "hours": rng.normal(40 + 3 * y, 10),
            "capital_gain": rng.poisson(1 + y, n).astype(np.float64),
            "sex": rng.choice(["Male", "Female"], n).astype(object),
        }
    )
    mixed.loc[::17, "workclass"] = None

    def matrix(X):
        return lambda rows: {"X": X[rows]}

    def frame(df):
        cols = {
            c: (
                df[c].fillna("").to_numpy(dtype=object)
                if df[c].dtype.kind == "O"
                else df[c].to_numpy()
            )
            for c in df.columns
        }
        return lambda rows: {c: v[rows].reshape(-1, 1) for c, v in cols.items()}

    return [
        ("MultinomialNB, 2000 counts", MultinomialNB(), counts, matrix(counts)),
        ("GaussianNB, 57 numbers", GaussianNB(), spam, matrix(spam)),
        ("CategoricalNB, 22 strings", CategoricalNB(unseen="smooth"), strings, matrix(strings)),
        ("MixedNB, 6 mixed columns", MixedNB(), mixed, frame(mixed)),
        ("DensityNB binned, 57 numbers", DensityNB(density="binned"), spam, matrix(spam)),
    ], y


def _rows(X, rows):
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="one-row calls per side")
    parser.add_argument("--rows", type=int, default=3000, help="rows of each generated table")
    args = parser.parse_args(argv)

    import onnxruntime as ort

    from nbayes.export import to_onnx

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    cases, y = _cases(np.random.default_rng(0), args.rows)
    train = np.arange(args.rows // 2)
    print(f"load average before: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    print(
        "| model | nbayes predict_proba (µs) | onnxruntime (µs) | ratio | max abs diff of "
        "probabilities |\n|---|---:|---:|---:|---:|"
    )
    for name, model, X, inputs in cases:
        model.fit(_rows(X, train), y[train])
        session = ort.InferenceSession(
            to_onnx(model, zipmap=False).SerializeToString(),
            options,
            providers=["CPUExecutionProvider"],
        )
        test = np.arange(args.rows // 2, args.rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unseen values of the generated tables
            expected = model.predict_proba(_rows(X, test))
        diff = np.abs(session.run(None, inputs(test))[1] - expected).max()
        rows = [int(i) for i in test[: min(len(test), 200)]]
        feeds = [inputs([i]) for i in rows]
        ones = [_rows(X, [i]) for i in rows]
        ours, theirs = [], []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for c in range(args.calls):  # the two sides alternate: the same load for both
                k = c % len(rows)
                start = time.perf_counter()
                model.predict_proba(ones[k])
                ours.append(time.perf_counter() - start)
                start = time.perf_counter()
                session.run(None, feeds[k])
                theirs.append(time.perf_counter() - start)
        a, b = 1e6 * float(np.median(ours)), 1e6 * float(np.median(theirs))
        print(f"| {name} | {a:.0f} | {b:.0f} | {a / b:.1f}x | {diff:.1e} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}; medians of {args.calls} calls per side")


if __name__ == "__main__":
    main()
