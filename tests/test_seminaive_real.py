"""AODE, TAN and KDB on UCI Adult and Mushroom, beside Weka 3.6's figures from issue 15.

Floors sit just under what was measured here (commit of this file). Weka's figures come from
its own 70/30 split of Mushroom and from Adult's official test split, with Weka's supervised
discretisation (Fayyad & Irani's MDL, which is ``binning="mdl"`` here, the default).
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
        # measured 0.8614; Weka 3.6 BayesNet-TAN: 0.859
        (nbayes.TAN(), 0.860),
        # measured 0.8534; Weka 3.6 AODE after supervised discretisation: 0.853
        (nbayes.AODE(), 0.852),
        # measured 0.8590 (no Weka figure)
        (nbayes.KDB(k=2), 0.858),
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
        # measured 0.99959 (1 error in 2438); Weka 3.6 BayesNet-TAN: 1.0. With missing
        # stalk-root summed out (missing="ignore") TAN measures 0.99836: on Mushroom a
        # missing stalk-root tells about the class, and "category" keeps that.
        (nbayes.TAN(missing="category"), 0.9995),
        # measured 0.99877 (3 errors, the same with missing="ignore"); Weka 3.6 AODE:
        # 0.9996. The issue asked for 0.999: not reached on this split (the three rows share
        # one rare pattern; A2DE gets 0.99877 too, KDB(k=2) 1.0).
        (nbayes.AODE(), 0.998),
        # measured 1.0 (no Weka figure)
        (nbayes.KDB(k=2, missing="category"), 0.9995),
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
