"""Grid search from fold statistics against scikit-learn's GridSearchCV (issue 19, point 6;
issue 32, point 6: TF-IDF features of 20 topics).

    python -m benchmarks.model_selection [--rows 200000] [--features 100000] [--repeat 1]
                                         [--topics-docs 40000] [--no-real]

Both searches run in this process, side by side, on the same data, folds and candidates: 10
alphas (0.001 .. 10) x 5 stratified folds of MultinomialNB, scored by accuracy (scikit-learn's
default) and by log-loss. scikit-learn's ``GridSearchCV(n_jobs=1)`` refits the nbayes
estimator on every (alpha, fold); ``nbayes.model_selection.GridSearchCV`` counts every fold
once, and per fold finalizes every candidate from (total - fold) statistics and scores them
all in one product over the held-out rows. The fold scores of the two are checked equal in
the run (max abs difference printed). The load average of the machine is printed before
and after. Cases:

* Enron-spam enron1 (5,172 e-mails, CountVectorizer word counts), from ../shared/data;
* a synthetic text case: ``rows`` documents over a ``features``-word Zipf vocabulary, about 60
  words each, two classes with different word frequencies (CSR counts, fixed seed);
* TF-IDF features (scikit-learn's ``TfidfVectorizer()`` defaults) of a generated corpus of
  ``topics-docs`` forum-like posts in 20 topics (:mod:`benchmarks.topic_corpus`), the case of
  issue 32: the candidates' tables cost the class x word cells that hold a count only, and
  the held-out rows are scored against all candidates side by side in one product.

Times are the best of ``repeat`` runs (wall seconds, and in brackets the CPU seconds of that
run: both searches run the same estimator with nbayes' default threads). Timings are not
tests: run this on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import tarfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV as SklearnSearch
from sklearn.model_selection import StratifiedKFold

import nbayes
from nbayes.model_selection import GridSearchCV

ALPHAS = np.logspace(-3, 1, 10)


def _data_dir() -> Path:
    """``$NBAYES_DATA_DIR``, else ``shared/data`` beside the checkout or one of its parents
    (as tests/conftest.py finds it)."""
    if os.environ.get("NBAYES_DATA_DIR"):
        return Path(os.environ["NBAYES_DATA_DIR"])
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


DATA = _data_dir()


def enron(folder: Path = DATA):
    from sklearn.feature_extraction.text import CountVectorizer

    texts, labels = [], []
    with tarfile.open(folder / "enron_spam_enron1" / "enron1.tar.gz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 3 and parts[1] in ("ham", "spam"):
                texts.append(tar.extractfile(member).read().decode("latin-1"))
                labels.append(parts[1])
    return CountVectorizer().fit_transform(texts).tocsr(), np.array(labels)


def synthetic_text(rows: int, features: int, words: int = 60, seed: int = 0):
    """Zipf word counts: class 1 draws from a vocabulary whose ranks are shuffled in part."""
    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.3).astype(np.int64)
    p = 1.0 / np.arange(1, features + 1)
    p /= p.sum()
    lengths = rng.poisson(words, rows)
    doc = np.repeat(np.arange(rows), lengths)
    rank = rng.choice(features, size=doc.size, p=p)
    other = np.arange(features)
    moved = rng.permutation(features // 10)
    other[: features // 10] = moved  # class 1 favours other frequent words
    word = np.where(y[doc] == 1, other[rank], rank)
    X = sp.csr_matrix((np.ones(doc.size), (doc, word)), shape=(rows, features), dtype=np.float64)
    X.sum_duplicates()
    return X, y


def topics_tfidf(n_docs: int):
    """TF-IDF features of the generated 20-topic corpus, and its labels."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from .topic_corpus import topic_corpus

    texts, labels = topic_corpus(n_docs)
    return TfidfVectorizer().fit_transform(texts).tocsr(), labels


def best(f, repeat: int):
    """(wall seconds, CPU seconds of this process, result) of the fastest of ``repeat`` runs.

    CPU time above wall time means more than one core worked; on a shared machine, wall
    time well above CPU time means the run waited for a core."""
    runs, out = [], None
    for _ in range(repeat):  # bounded: a few repeats
        start, cpu = time.perf_counter(), time.process_time()
        out = f()
        runs.append((time.perf_counter() - start, time.process_time() - cpu))
    wall, cpu = min(runs)
    return wall, cpu, out


def compare(name: str, X, y, scoring: str, repeat: int) -> dict:
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    grid = {"alpha": ALPHAS.tolist()}
    est = nbayes.MultinomialNB()
    t_sk, cpu_sk, sk = best(
        lambda: SklearnSearch(est, grid, cv=cv, scoring=scoring, n_jobs=1).fit(X, y), repeat
    )
    t_nb, cpu_nb, nb = best(
        lambda: GridSearchCV(est, grid, cv=cv, scoring=scoring).fit(X, y), repeat
    )
    diff = max(
        float(
            np.abs(
                nb.cv_results_[f"split{i}_test_score"] - sk.cv_results_[f"split{i}_test_score"]
            ).max()
        )
        for i in range(5)
    )
    return {
        "case": name,
        "scoring": scoring,
        "sklearn_s": t_sk,
        "nbayes_s": t_nb,
        "sklearn_cpu_s": cpu_sk,
        "nbayes_cpu_s": cpu_nb,
        "count_s": nb.count_time_,
        "speedup": t_sk / t_nb,
        "cpu_speedup": cpu_sk / cpu_nb,
        "max_abs_score_diff": diff,
        "same_best": nb.best_params_ == sk.best_params_,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-real", action="store_true", help="skip Enron")
    parser.add_argument(
        "--topics-docs", type=int, default=40_000, help="posts of the TF-IDF case (0: skip it)"
    )
    args = parser.parse_args(argv)
    cases = []
    if not args.no_real:
        cases.append(("Enron enron1", *enron()))
    if args.rows:
        X, y = synthetic_text(args.rows, args.features)
        cases.append((f"text {args.rows:,} x {args.features:,}", X, y))
    if args.topics_docs:
        cases.append(
            (f"TF-IDF, 20 topics, {args.topics_docs:,} posts", *topics_tfidf(args.topics_docs))
        )
    print("10 alphas x 5 folds, MultinomialNB; sklearn GridSearchCV(n_jobs=1) refits it")
    print("load average before: {:.2f} {:.2f} {:.2f}\n".format(*os.getloadavg()))
    print(
        "| case | shape (nnz) | scoring | sklearn s (CPU) | nbayes s (CPU) | of which counting"
        " | speed-up (CPU) | max fold-score diff | same best |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for name, X, y in cases:  # bounded: three cases
        for scoring in ("accuracy", "neg_log_loss"):
            r = compare(name, X, y, scoring, args.repeat)
            print(
                f"| {name} | {X.shape[0]:,} x {X.shape[1]:,} ({X.nnz:,}) | {scoring} | "
                f"{r['sklearn_s']:.3f} ({r['sklearn_cpu_s']:.3f}) | "
                f"{r['nbayes_s']:.3f} ({r['nbayes_cpu_s']:.3f}) | {r['count_s']:.3f} | "
                f"{r['speedup']:.1f}x ({r['cpu_speedup']:.1f}x) | "
                f"{r['max_abs_score_diff']:.1e} | {r['same_best']} |",
                flush=True,
            )
    print("\nload average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
