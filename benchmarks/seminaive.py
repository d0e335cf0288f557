"""Semi-naive models against CategoricalNB on the same codes (issue 15, point 8).

    python -m benchmarks.seminaive [--rows 1000000] [--repeat 2] [--threads N] [--clock cpu]

Data: ``rows`` x 20 categorical features with 10 values each and 5 classes, drawn from a
fixed seed as a chain (each feature copies its left neighbour half the time), so that the
dependencies TAN and KDB look for exist. Every model fits the same integer codes (declared
categorical) and predicts probabilities for all rows; times are the best of ``repeat`` runs,
and the ratios to CategoricalNB measured in the same run are what the issue's targets name
(TAN fit <= 10x, predict_proba <= 5x; AODE predict_proba <= 20x). The memory of the count
tables is reported per model. Timings are not tests: run this on a quiet machine. On a busy
one, ``--threads 1 --clock cpu`` (CPU seconds of one thread) gives steadier ratios.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import nbayes
from nbayes._accel import describe


def data(rows: int, seed: int = 0, d: int = 20, k: int = 10, n_classes: int = 5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, rows)
    X = np.empty((rows, d), dtype=np.int64)
    X[:, 0] = (y * 2 + rng.integers(0, 2, rows)) % k
    for j in range(1, d):  # bounded: 20 features
        X[:, j] = np.where(rng.random(rows) < 0.5, X[:, j - 1], rng.integers(0, k, rows))
    return X, y


CLOCK = time.perf_counter


def best(f, repeat: int):
    times, out = [], None
    for _ in range(repeat):  # bounded: a few repeats
        start = CLOCK()
        out = f()
        times.append(CLOCK() - start)
    return min(times), out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None, help="engine threads (default: all)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    with nbayes.threads(args.threads):
        run(args)


def run(args) -> None:
    X, y = data(args.rows)
    cols = list(range(X.shape[1]))
    models = {
        "CategoricalNB": lambda: nbayes.CategoricalNB(),
        "TAN": lambda: nbayes.TAN(categorical=cols),
        "KDB(k=1)": lambda: nbayes.KDB(k=1, categorical=cols),
        "AODE": lambda: nbayes.AODE(categorical=cols),
    }
    print(
        f"{args.rows} rows x {X.shape[1]} features, 5 classes; {describe()}; "
        f"{nbayes.get_threads()} thread(s), {args.clock} seconds"
    )
    head = ("model", "fit s", "x CNB", "proba s", "x CNB", "tables")
    print("{:14s} {:>8s} {:>6s} {:>8s} {:>6s} {:>10s}".format(*head))
    base = None
    for name, make in models.items():  # bounded: four models
        t_fit, model = best(lambda make=make: make().fit(X, y), args.repeat)
        t_proba, _ = best(lambda model=model: model.predict_proba(X), args.repeat)
        base = base or (t_fit, t_proba)
        size = model.table_bytes() / 2**20 if hasattr(model, "table_bytes") else float("nan")
        print(
            f"{name:14s} {t_fit:8.2f} {t_fit / base[0]:6.1f} {t_proba:8.2f} "
            f"{t_proba / base[1]:6.1f} {size:8.1f} MiB",
            flush=True,
        )
    core(X, y, args.repeat)


def core(X, y, repeat: int) -> None:
    """The pure core on the integer codes (no table encoding): counting, finalize, scoring."""
    from nbayes.distributions import Labels
    from nbayes.seminaive import _counts, aode, network

    labels = Labels(y, np.ones(y.size), 5)
    log_prior = np.log(np.bincount(y) / y.size)
    a = np.ones(X.shape[1])
    t_count, stats = best(lambda: _counts.accumulate(X, labels, 2), repeat)
    t_tan, net = best(lambda: network.finalize(stats, network.structure(stats, None), a), repeat)
    t_aode, levels = best(lambda: aode.finalize(stats, 1, a, 1), repeat)
    t_score_tan, _ = best(lambda: network.log_joint(X, net, log_prior), repeat)
    t_score_aode, _ = best(lambda: aode.log_joint(X, levels, log_prior), repeat)
    print(
        f"core on codes: pair counts {t_count:.2f} s, TAN finalize {t_tan:.2f} s, AODE "
        f"finalize {t_aode:.2f} s; log P(y, x): TAN {t_score_tan:.2f} s, AODE "
        f"{t_score_aode:.2f} s"
    )


if __name__ == "__main__":
    main()
