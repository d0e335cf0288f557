"""The grid density readings against GaussianNB and scikit-learn's KernelDensity (issue 16).

    python -m benchmarks.density [--rows 1000000] [--features 50] [--repeat 2]
                                 [--sk-rows 5000] [--sk-features 5]

Part 1, ``rows`` x ``features``, 2 classes, skewed and bimodal columns from a fixed seed:
fit (one pass) and predict_proba of DensityNB (kde, binned, auto) beside GaussianNB in the
same run; the issue's target is predict_proba within 3x GaussianNB's.

Part 2, ``sk-rows`` x ``sk-features``: the pipeline a user would write today for a kernel
naive Bayes -- one ``sklearn.neighbors.KernelDensity`` per class and feature (the same
Silverman bandwidths as nbayes), log-densities summed with the log prior -- against
``DensityNB(density="kde")`` on the same data; the target is 10x faster. Both predict the
training rows. Times are the best of ``repeat`` runs; timings are not tests: run this on a
quiet machine.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import logsumexp

import nbayes
from nbayes._accel import describe


def data(rows: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows)
    shift = y[:, None] * rng.uniform(0.2, 1.0, d)
    kind = np.arange(d) % 3
    X = np.empty((rows, d))
    X[:, kind == 0] = rng.lognormal(shift[:, kind == 0], 1.0)  # skewed
    bimodal = rng.normal(shift[:, kind == 1], 0.5) + 3 * rng.integers(
        0, 2, (rows, (kind == 1).sum())
    )
    X[:, kind == 1] = bimodal
    spiky = rng.exponential(1 + shift[:, kind == 2])
    X[:, kind == 2] = np.where(rng.random(spiky.shape) < 0.5, 0.0, spiky)  # spike at zero
    return X, y


def best(f, repeat: int):
    times, out = [], None
    for _ in range(repeat):  # bounded: a few repeats
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return min(times), out


def sklearn_kde_nb(X, y, bandwidth):
    """Naive Bayes with one scikit-learn KernelDensity per class and feature."""
    from sklearn.neighbors import KernelDensity

    classes = np.unique(y)
    log_prior = np.log(np.bincount(y) / y.size)
    fitted = [
        [
            KernelDensity(bandwidth=float(bandwidth[k, j])).fit(X[y == c, j : j + 1])
            for j in range(X.shape[1])
        ]
        for k, c in enumerate(classes)
    ]

    def predict_proba(Xt):
        jll = np.stack(
            [
                log_prior[k] + sum(kde.score_samples(Xt[:, j : j + 1]) for j, kde in enumerate(row))
                for k, row in enumerate(fitted)
            ],
            axis=1,
        )
        return np.exp(jll - logsumexp(jll, axis=1, keepdims=True))

    return predict_proba


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--sk-rows", type=int, default=5_000)
    parser.add_argument("--sk-features", type=int, default=5)
    args = parser.parse_args(argv)

    X, y = data(args.rows, args.features)
    print(f"{args.rows} rows x {args.features} features, 2 classes; {describe()}")
    print(
        "{:22s} {:>8s} {:>6s} {:>9s} {:>6s}".format("model", "fit s", "x GNB", "proba s", "x GNB")
    )
    models = {
        "GaussianNB": lambda: nbayes.GaussianNB(),
        "DensityNB(kde)": lambda: nbayes.DensityNB(density="kde"),
        "DensityNB(binned)": lambda: nbayes.DensityNB(density="binned"),
        "DensityNB(auto)": lambda: nbayes.DensityNB(),
    }
    base = None
    for name, make in models.items():  # bounded: four models
        t_fit, model = best(lambda make=make: make().fit(X, y), args.repeat)
        t_proba, _ = best(lambda model=model: model.predict_proba(X), args.repeat)
        base = base or (t_fit, t_proba)
        print(
            f"{name:22s} {t_fit:8.2f} {t_fit / base[0]:6.1f} {t_proba:9.2f} "
            f"{t_proba / base[1]:6.1f}",
            flush=True,
        )

    Xs, ys = data(args.sk_rows, args.sk_features, seed=1)
    print(f"\n{args.sk_rows} rows x {args.sk_features} features: kernel naive Bayes")
    t_ours_fit, ours = best(lambda: nbayes.DensityNB(density="kde").fit(Xs, ys), args.repeat)
    t_ours, p_ours = best(lambda: ours.predict_proba(Xs), args.repeat)
    start = time.perf_counter()
    sk = sklearn_kde_nb(Xs, ys, ours.bandwidth_)
    t_sk_fit = time.perf_counter() - start
    t_sk, p_sk = best(lambda: sk(Xs), 1)
    print(f"{'DensityNB(kde)':22s} fit {t_ours_fit:8.3f} s  predict_proba {t_ours:8.3f} s")
    print(f"{'sklearn KernelDensity':22s} fit {t_sk_fit:8.3f} s  predict_proba {t_sk:8.3f} s")
    print(
        f"nbayes is {t_sk / t_ours:.0f}x faster at predict_proba; largest probability "
        f"difference {np.abs(p_ours - p_sk).max():.2e} (the grid's binning error)"
    )


if __name__ == "__main__":
    main()
