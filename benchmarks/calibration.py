"""Calibration from fold statistics against scikit-learn's CalibratedClassifierCV (issue 33,
point 6).

    python -m benchmarks.calibration [--repeat 1] [--adult-rows 32561]

On a stratified 70/30 held-out split of each data set (SMS and Enron as word counts of a
CountVectorizer fitted on the training part, Spambase, UCI Adult as a table, scikit-learn's
bundled 8x8 digits as 10 classes), for MultinomialNB, GaussianNB and MixedNB where they
apply: the held-out log-loss and expected calibration error (top-label, 15 equal-width bins)
of the uncalibrated model, of ``nbayes.calibration.CalibratedClassifierCV`` (cv=5, each
method), of scikit-learn's ``CalibratedClassifierCV`` over the same nbayes estimator (the same
folds; the largest difference of the two's probabilities is printed) and of
LogisticRegression. Both calibrations are timed side by side in this process (best of
``repeat`` fits, wall seconds) with cv=5 and the default ensemble; both fit the same
scikit-learn calibrators, so the part that fold statistics replace is timed apart too: every
row's out-of-fold decision value (``FoldStatistics`` and one pass over the held-out folds,
against scikit-learn's ``cross_val_predict``, which refits per fold). The load average of the
machine is printed before and after, and the BLAS threads (``OPENBLAS_NUM_THREADS=1`` takes
the stall of scipy's L-BFGS-B on BLAS threads out of both sides): timings are not tests; run
this on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import tarfile
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV as SklearnCalibrated
from sklearn.datasets import load_digits
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold, cross_val_predict, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from threadpoolctl import threadpool_info

import nbayes
from nbayes.calibration import CalibratedClassifierCV
from nbayes.calibration._out_of_fold import out_of_fold
from nbayes.estimators._folds import take_rows
from nbayes.model_selection import FoldStatistics

from .model_selection import DATA, best

METHODS = ("sigmoid", "isotonic", "temperature")
ADULT = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income",
]  # fmt: skip


def ece(proba: np.ndarray, y_codes: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error of the top-label confidence: the row-weighted mean gap
    between confidence and accuracy over ``bins`` equal-width confidence bins."""
    confidence = proba.max(axis=1)
    hit = (proba.argmax(axis=1) == y_codes).astype(float)
    which = np.minimum((confidence * bins).astype(int), bins - 1)
    total = 0.0
    for b in np.unique(which):  # bounded by the bins
        rows = which == b
        total += rows.sum() * abs(hit[rows].mean() - confidence[rows].mean())
    return total / len(y_codes)


def _texts(pairs):
    texts, labels = zip(*pairs)
    return list(texts), np.array(labels)


def sms():
    df = pd.read_csv(
        DATA / "sms_spam_collection" / "SMSSpamCollection", sep="\t", header=None,
        names=["label", "text"], quoting=3, dtype=str, keep_default_na=False,
    )  # fmt: skip
    return df["text"].tolist(), df["label"].to_numpy()


def enron():
    pairs = []
    with tarfile.open(DATA / "enron_spam_enron1" / "enron1.tar.gz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 3 and parts[1] in ("ham", "spam"):
                pairs.append((tar.extractfile(member).read().decode("latin-1"), parts[1]))
    return _texts(pairs)


def spambase():
    data = np.loadtxt(DATA / "spambase" / "spambase.data", delimiter=",")
    return data[:, :-1], data[:, -1].astype(int)


def adult(rows: int):
    df = pd.read_csv(
        DATA / "adult" / "adult.data.gz", names=ADULT, skipinitialspace=True, na_values="?"
    ).dropna(how="all")
    df = df.iloc[:rows].reset_index(drop=True)
    df["capital-gain"] = df["capital-gain"].replace([99999], np.nan)  # the missing-value code
    return df.drop(columns="income"), df["income"].to_numpy()


def cases(adult_rows: int):
    """(name, X_train, X_test, y_train, y_test, {model name: estimator}, logistic)."""
    # Integer columns with at most 200 values are categories in every fold alike.
    mixed = nbayes.MixedNB(max_int_categories=200)
    split = dict(test_size=0.3, random_state=0)
    for name, load in (("SMS", sms), ("Enron", enron)):
        texts, y = load()
        a, b, ya, yb = train_test_split(texts, y, stratify=y, **split)
        vec = CountVectorizer().fit(a)
        logistic = make_pipeline(MaxAbsScaler(), LogisticRegression(max_iter=2000))
        yield (
            name,
            vec.transform(a),
            vec.transform(b),
            ya,
            yb,
            {"MultinomialNB": nbayes.MultinomialNB()},
            logistic,
        )
    X, y = spambase()
    a, b, ya, yb = train_test_split(X, y, stratify=y, **split)
    models = {"MultinomialNB": nbayes.MultinomialNB(), "GaussianNB": nbayes.GaussianNB(),
              "MixedNB": mixed}  # fmt: skip
    logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    yield "Spambase", a, b, ya, yb, models, logistic
    X, y = adult(adult_rows)
    a, b, ya, yb = train_test_split(X, y, stratify=y, **split)
    yield "Adult", a, b, ya, yb, {"MixedNB": mixed}, _AdultLogistic()
    X, y = load_digits(return_X_y=True)
    a, b, ya, yb = train_test_split(X, y, stratify=y, **split)
    models = {"MultinomialNB": nbayes.MultinomialNB(), "GaussianNB": nbayes.GaussianNB(),
              "MixedNB": nbayes.MixedNB(max_int_categories=200)}  # fmt: skip
    logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    yield "digits (10 classes)", a, b, ya, yb, models, logistic


class _AdultLogistic:
    """LogisticRegression on Adult: one-hot categories, scaled numbers, missing as a level."""

    def fit(self, X, y):
        self.columns_ = pd.get_dummies(X, dummy_na=True).columns
        self.model_ = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
        self.model_.fit(self._encode(X), y)
        return self

    def _encode(self, X):
        encoded = pd.get_dummies(X, dummy_na=True).reindex(columns=self.columns_, fill_value=0)
        return encoded.fillna(0).to_numpy(dtype=float)

    def predict_proba(self, X):
        return self.model_.predict_proba(self._encode(X))


def _table(X):
    """MixedNB reads a table: an array's columns named x0, x1, ..."""
    if isinstance(X, pd.DataFrame):
        return X
    return pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])


def scores(model, X, y, classes) -> tuple[float, float]:
    proba = model.predict_proba(X)
    codes = np.searchsorted(classes, y)
    return log_loss(codes, proba, labels=np.arange(classes.size)), ece(proba, codes)


def out_of_fold_times(est, X, y, cv, repeat: int) -> tuple[float, float, float]:
    """(nbayes s, scikit-learn s, max abs difference) of every row's out-of-fold decision
    value: fold statistics against scikit-learn's refits."""
    splits = list(cv.split(X, y))

    def ours():
        parts = [take_rows(X, test) for _, test in splits]
        return out_of_fold(FoldStatistics(est, X, y, splits, None, parts), parts, len(y))

    t_nb, _, a = best(ours, repeat)
    t_sk, _, b = best(
        lambda: cross_val_predict(est, X, y, cv=splits, method="decision_function"), repeat
    )
    return t_nb, t_sk, float(np.abs(a - b.reshape(a.shape)).max())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--adult-rows", type=int, default=32561)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # scikit-learn's convergence notes on the logistic model
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    print("held-out 30 %; calibrations cv=5 (stratified, shuffled), ensemble='auto'")
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    # nbayes fits its calibrators with BLAS on one thread; scikit-learn uses these threads.
    blas = {
        (i["internal_api"], i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"
    }
    print("BLAS threads: " + ", ".join(f"{api} {n}" for api, n in sorted(blas)) + "\n")
    print(
        "| data | model | uncalibrated log-loss / ECE | method | nbayes log-loss / ECE "
        "| max abs diff to sklearn | nbayes fit s | sklearn fit s | speed-up |"
    )
    print("|---|---|---|---|---|---:|---:|---:|---:|")
    timed = []
    for name, a0, b0, ya, yb, models, logistic in cases(args.adult_rows):  # bounded: 5 cases
        classes = np.unique(ya)
        for label, est in models.items():  # bounded: three models
            a, b = (_table(a0), _table(b0)) if label == "MixedNB" else (a0, b0)
            plain = scores(clone(est).fit(a, ya), b, yb, classes)
            timed.append((name, label, *out_of_fold_times(est, a, ya, cv, args.repeat)))
            for method in METHODS:  # bounded: three methods
                ours_cal = CalibratedClassifierCV(est, method=method, cv=cv)
                sk_cal = SklearnCalibrated(est, method=method, cv=cv)
                t_nb, _, ours = best(lambda m=ours_cal, X=a, y=ya: m.fit(X, y), args.repeat)
                t_sk, _, theirs = best(lambda m=sk_cal, X=a, y=ya: m.fit(X, y), args.repeat)
                diff = np.abs(ours.predict_proba(b) - theirs.predict_proba(b)).max()
                ll, err = scores(ours, b, yb, classes)
                print(
                    f"| {name} | {label} | {plain[0]:.4f} / {plain[1]:.4f} | {method} | "
                    f"{ll:.4f} / {err:.4f} | {diff:.1e} | {t_nb:.3f} | {t_sk:.3f} | "
                    f"{t_sk / t_nb:.1f}x |",
                    flush=True,
                )
        ll, err = scores(logistic.fit(a0, ya), b0, yb, classes)
        print(f"| {name} | LogisticRegression | {ll:.4f} / {err:.4f} | - | - | - | - | - | - |")
    print("\nEvery row's out-of-fold decision value (cv=5), the part fold statistics replace:\n")
    print("| data | model | nbayes s | sklearn cross_val_predict s | speed-up | max abs diff |")
    print("|---|---|---:|---:|---:|---:|")
    for name, label, t_nb, t_sk, diff in timed:  # bounded: the cases above
        print(f"| {name} | {label} | {t_nb:.3f} | {t_sk:.3f} | {t_sk / t_nb:.1f}x | {diff:.1e} |")
    print("\nload average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
