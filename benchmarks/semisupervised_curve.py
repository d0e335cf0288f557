"""Learning curve of SemiSupervisedNB against the labeled rows alone (issue 17; the table
in docs/user_guide/semisupervised.rst).

    python -m benchmarks.semisupervised_curve [--data ../shared/data] [--seeds 0]

SMS spam (bundled) and Enron-Spam enron1 (``--data``), each split 75/25 (stratified, seed 0).
Of the training rows, 1 %, 2 %, 5 %, 10 %, 20 % and 100 % keep their labels (a uniform draw
per row from ``--seeds``); the others are marked unlabeled. "supervised" fits the model to the
labeled rows alone, "EM" runs SemiSupervisedNB with the same model on all training rows.
Both are scored on the test rows. The same settings as tests/test_semisupervised_real.py.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from nbayes import MultinomialNB, SemiSupervisedNB, TextNB
from nbayes.datasets import load_sms_spam

from .cli_enron import enron_frame

ROOT = Path(__file__).resolve().parents[1]

#: dataset -> (model maker, lambda). Enron's long messages make Laplace smoothing over a
#: vocabulary that the unlabeled messages enlarge tilt every word unseen in the labeled rows
#: towards the class with fewer words; a small alpha keeps that tilt small.
CONFIG = {
    "sms": (lambda: TextNB(MultinomialNB(alpha=0.01)), 1.0),
    "enron": (lambda: TextNB(MultinomialNB(alpha=0.01)), 0.3),
}


def split(df: pd.DataFrame):
    return train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])


def label_fraction(labels: pd.Series, fraction: float, seed: int = 0):
    """(labels with all but ``fraction`` of them set to None, mask of the kept ones)."""
    kept = np.random.default_rng(seed).random(len(labels)) < fraction
    marked = labels.to_numpy(dtype=object).copy()
    marked[~kept] = None
    return marked, kept


def curve(name: str, df: pd.DataFrame, fractions, seeds) -> list[dict]:
    train, test = split(df)
    make, lam = CONFIG[name]
    rows = []
    for fraction in fractions:
        for seed in seeds:
            labels, kept = label_fraction(train["label"], fraction, seed)
            sup = make().fit(train["text"][kept], train["label"][kept])
            start = time.perf_counter()
            em = SemiSupervisedNB(make(), unlabeled_weight=lam).fit(train["text"], labels)
            seconds = time.perf_counter() - start
            rows.append(
                {
                    "data": name,
                    "labeled": f"{fraction:.0%} ({int(kept.sum())})",
                    "seed": seed,
                    "supervised": sup.score(test["text"], test["label"]),
                    "EM": em.score(test["text"], test["label"]),
                    "iterations": em.n_iter_,
                    "EM seconds": round(seconds, 1),
                }
            )
            print(rows[-1], flush=True)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument(
        "--fractions", type=float, nargs="+", default=[0.01, 0.02, 0.05, 0.1, 0.2, 1.0]
    )
    args = parser.parse_args(argv)
    rows = curve("sms", load_sms_spam(), args.fractions, args.seeds)
    tar = Path(args.data) / "enron_spam_enron1" / "enron1.tar.gz"
    rows += curve("enron", enron_frame(tar), args.fractions, args.seeds)
    table = pd.DataFrame(rows)
    print(table.to_markdown(index=False, floatfmt=".4f"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
