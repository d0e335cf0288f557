"""Cost of ``predict_proba_interval`` beside ``predict_proba`` on real data.

Usage::

    python -m benchmarks.interval                       # 1000 draws, 1000 held-out rows
    python -m benchmarks.interval --draws 200 --rows 5000

For SMS (MultinomialNB over word counts), Spambase (GaussianNB) and Adult (MixedNB over
Gaussian and categorical columns): fit on all but ``--rows`` rows, then seconds of
``predict_proba`` on the held-out rows, of a first ``predict_proba_interval`` (drawing the
models and scoring) and of a second with the same seed (the draws kept: scoring alone), the
model's number of statistics cells, and the mean width of the 90 % interval of the predicted
class with the full training set and with its first 100 rows. Not a test.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import nbayes as nb

from .cases import adult, sms, spambase


def _rows(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _width(model, X, draws: int) -> float:
    lower, upper = model.predict_proba_interval(X, 0.9, draws, random_state=1)
    best = model.predict_proba(X).argmax(axis=1)
    rows = np.arange(len(best))
    return float(np.mean(upper[rows, best] - lower[rows, best]))


def _case(load, make, n_test: int, draws: int) -> list:
    """Statistics cells, the three timings and the two widths of one data set."""
    X, y = load(1.0)
    order = np.random.default_rng(0).permutation(len(y))
    test, train = order[:n_test], order[n_test:]
    model = make().fit(_rows(X, train), y[train])
    X_test = _rows(X, test)
    cells = sum(v.size for g in model.stats_["groups"] for v in g.values())
    times = []
    for call in ("proba", "interval", "again"):  # the second interval reuses the draws
        start = time.perf_counter()
        if call == "proba":
            model.predict_proba(X_test)
        else:
            model.predict_proba_interval(X_test, 0.9, draws, random_state=0)
        times.append(time.perf_counter() - start)
    few = make().fit(_rows(X, train[:100]), y[train[:100]])
    return [cells, *times, _width(model, X_test, draws), _width(few, X_test, draws)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=1000, help="held-out rows scored")
    parser.add_argument("--data", default=os.environ.get("NBAYES_DATA", "../shared/data"))
    args = parser.parse_args(argv)
    data = Path(args.data)
    cases = {
        "SMS MultinomialNB": (sms(data), nb.MultinomialNB),
        "Spambase GaussianNB": (spambase(data), nb.GaussianNB),
        "Adult MixedNB": (adult(data), nb.MixedNB),
    }
    print(f"load average {os.getloadavg()[0]:.2f}; {args.draws} draws, 90 % intervals")
    print(
        f"{'case':22} {'stat cells':>10} {'proba s':>8} {'interval s':>10} "
        f"{'again s':>8} {'width':>6} {'width@100':>9}"
    )
    for name, (load, make) in cases.items():  # bounded: three cases
        cells, t_proba, t_first, t_again, width, few = _case(load, make, args.rows, args.draws)
        print(
            f"{name:22} {cells:>10,} {t_proba:8.3f} {t_first:10.3f} {t_again:8.3f} "
            f"{width:6.3f} {few:9.3f}"
        )


if __name__ == "__main__":
    main()
