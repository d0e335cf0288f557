"""AODE, TAN and KDB on UCI Adult and Mushroom, beside Weka 3.6 on the very same splits.

Floors sit just under what was measured here with the defaults; the Weka figures come from
``python -m benchmarks.seminaive_weka`` (Weka 3.6.14 on the same train/test rows: AODE behind
the supervised Discretize filter, i.e. Fayyad & Irani's MDL, which is ``binning="mdl"`` here;
BayesNet with the TAN search).
"""

import numpy as np
import pytest
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from test_real_tables import load_adult, load_mushroom

import nbayes


@pytest.mark.parametrize(
    ("model", "floor"),
    [
        # measured 0.8617; Weka 3.6 BayesNet-TAN on the same split: 0.8587
        (nbayes.TAN(), 0.861),
        # measured 0.8534; Weka 3.6 AODE after supervised discretisation: 0.8533
        (nbayes.AODE(), 0.853),
        # measured 0.8608 (Weka 3.6 has no KDB)
        (nbayes.KDB(k=2), 0.860),
    ],
    ids=["tan", "aode", "kdb2"],
)
def test_adult_official_test_split(shared_data, model, floor):
    (X_train, y_train), (X_test, y_test) = load_adult(shared_data)
    model.fit(X_train, y_train)
    assert model.bin_edges_["capital-gain"].size >= 2  # MDL finds the cuts that matter
    assert accuracy_score(y_test, model.predict(X_test)) >= floor


@pytest.mark.parametrize(
    ("model", "floor"),
    [
        # measured 0.99959 (1 error in 2438; missing stalk-root as a category, TAN's
        # default); Weka 3.6 BayesNet-TAN on the same split: 1.0 (it imputes the mode).
        (nbayes.TAN(), 0.9995),
        # measured 0.99877 (3 errors); Weka 3.6 AODE on the same split: 0.99877, the same
        # three rows with the same probabilities (0.935, 0.715, 0.816 for the wrong class).
        # The 0.999 is not reached on this split by AODE as published, Weka's or
        # this one (alpha 0.25 .. 2, either missing policy, min_parent_count 1 .. 30 all
        # give 3 or 4 errors; only alpha <= 0.1 with missing="category" gives 2, a choice
        # that would be tuned on this test split). Nor by the other principled defaults:
        # Weka's m-estimate (AODE -M, m=1; alpha_j = 1/K_j here) 3 errors in Weka and here,
        # Webb et al.'s joint Laplace estimate of P(y, x_i) 3, the paper's
        # min_parent_count=30 4, stalk-root imputed with its mode 3. Only the m-estimate
        # together with missing="category" errs on 2 rows (0.99918), and "category" costs
        # AODE elsewhere (beside the m-estimate alone: Adult 0.8534 -> 0.8528, log-loss
        # 0.332 -> 0.335; Spambase log-loss 0.236 -> 0.250). Mean errors over 20 stratified
        # splits (seeds 0..19): default 1.50, "category" 1.20, m-estimate 1.15, both 0.95,
        # min_parent_count=30 1.60.
        (nbayes.AODE(), 0.9987),
        # measured 1.0 (Weka 3.6 has no KDB)
        (nbayes.KDB(k=2), 0.9995),
    ],
    ids=["tan", "aode", "kdb2"],
)
def test_mushroom_stratified_split(shared_data, model, floor):
    X, y = load_mushroom(shared_data)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y
    )
    proba = model.fit(X_train, y_train).predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert accuracy_score(y_test, model.classes_[proba.argmax(axis=1)]) >= floor
