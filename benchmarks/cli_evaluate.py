"""Seconds of `nbayes evaluate` against `nbayes predict` on the same large CSV.

Usage::

    python -m benchmarks.cli_evaluate                 # 1,000,000 rows, 3 repeats
    python -m benchmarks.cli_evaluate --rows 200000 --repeat 5

It writes a CSV of ``--rows`` rows (two Gaussian columns, an integer column, two categorical
columns) twice -- with 0/1 labels and with five string labels --, trains a model on each
(``--model auto``), then times ``nbayes predict MODEL DATA -o OUT.csv`` and ``nbayes evaluate
MODEL DATA`` alternately and reports the fastest run of each and their ratio. Evaluate reads
the same rows and scores them as predict does, then counts a confusion matrix of integer codes
where predict writes a file, so the ratio should stay near 1. Not a test: timings depend on
the machine (and on what else it runs).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def table(rows: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=rows).round(4),
            "b": rng.normal(size=rows).round(4),
            "c": rng.integers(0, 50, rows),
            "d": rng.choice(["red", "green", "blue", "cyan"], rows),
            "e": rng.choice([f"k{i}" for i in range(30)], rows),
        }
    )
    frame["y"] = ((frame["a"] + rng.normal(size=rows)) > 0.5).astype(int)
    return frame


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=tempfile.gettempdir())
    args = parser.parse_args(argv)
    nbayes = [sys.executable, "-m", "nbayes"]
    with tempfile.TemporaryDirectory(prefix="nbayes-evaluate-", dir=args.dir) as folder:
        folder = Path(folder)
        frame = table(args.rows)
        names = np.array(["ant", "bee", "cat", "dog", "eel"])
        labels = {"0/1 labels": frame["y"], "string labels": names[frame["c"] % 5]}
        for kind, y in labels.items():
            data, model = folder / "data.csv", folder / "model.nbayes"
            frame.assign(y=y).to_csv(data, index=False)
            subprocess.run([*nbayes, "train", "-q", str(data), "-t", "y", "-o", str(model)])
            times: dict[str, list[float]] = {"predict": [], "evaluate": []}
            for _ in range(args.repeat):
                out = folder / "out.csv"
                times["predict"].append(
                    seconds([*nbayes, "predict", "-q", str(model), str(data), "-o", str(out)])
                )
                times["evaluate"].append(
                    seconds([*nbayes, "evaluate", "-q", str(model), str(data)])
                )
            predict, evaluate = min(times["predict"]), min(times["evaluate"])
            print(
                f"{args.rows:,} rows, {kind}: predict {predict:.2f} s, evaluate "
                f"{evaluate:.2f} s (evaluate/predict {evaluate / predict:.2f})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
