"""The report's pictures of the models beyond the naive assumption (issue 36): the learned
structure with its edges' conditional mutual information, each feature's share of the
evidence, JointBayes' joint and backoff rows, and long parameters folded."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

import nbayes
from nbayes.cli import _pictures
from nbayes.cli.report import report
from nbayes.plot import StructureDisplay

pytest.importorskip("matplotlib")
from test_report import images, self_contained


def _table(n: int = 600, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Two features that copy each other given the class, one independent, one number."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], n)
    a = np.where(rng.random(n) < 0.7, y, rng.choice(["no", "yes"], n))
    b = np.where(rng.random(n) < 0.9, a, "other")
    X = pd.DataFrame(
        {"a": a, "b": b, "c": rng.choice(list("pqr"), n), "x": rng.normal(size=n) + (y == "yes")}
    )
    return X, y


@pytest.fixture
def tan_files(tmp_path):
    X, y = _table()
    model = tmp_path / "tan.nbayes"
    edges = {"x": list(np.linspace(-2, 2, 15).round(2))}  # a long parameter
    nbayes.save(nbayes.TAN(bin_edges=edges).fit(X, y), model)
    data = tmp_path / "data.csv"
    X.assign(label=y).to_csv(data, index=False)
    return model, data


def test_mutual_information_is_the_per_class_average_of_each_pair_information():
    X, y = _table()
    mi, cmi = nbayes.TAN(binning="quantile").fit(X, y).mutual_information()
    assert mi["a"] == pytest.approx(mutual_info_score(X["a"], y))
    expected = sum(
        np.mean(y == k) * mutual_info_score(X["a"][y == k], X["b"][y == k]) for k in ("no", "yes")
    )
    assert cmi.loc["a", "b"] == cmi.loc["b", "a"] == pytest.approx(expected)
    assert cmi.loc["a", "b"] > 10 * cmi.loc["a", "c"]
    assert np.all(np.diag(cmi.to_numpy()) == 0)
    with pytest.raises(NotImplementedError, match="JointBayes keeps no pair counts"):
        nbayes.JointBayes().fit(X, y).mutual_information()


def test_tan_report_draws_its_structure_and_each_features_share_of_evidence(tan_files, tmp_path):
    model, data = tan_files
    out = tmp_path / "tan.html"
    result = report(str(model), str(data), str(out), target="label")
    page = out.read_text()
    self_contained(page)
    assert result["sections"] == [
        "summary",
        "structure",
        "features",
        "evidence",
        "distributions",
        "evaluation",
    ]
    assert set(images(page)) == {
        "learned structure",
        "share of the evidence per feature",
        "confusion matrix",
        "precision and recall against the threshold",
        "reliability curve",
    }
    assert all(w > 100 and h > 100 for w, h in images(page).values())
    assert "labelled with I(child; parent | class) in nats" in page
    # the bin edges: a summary, the whole value one column a line on a click
    assert "<details><summary>1 entry: x</summary><pre>x: [-2.0, -1.71," in page


def test_the_tree_layout_stays_readable_at_60_features():
    # a star of 40 leaves under one root and a chain of 20: every leaf on a row of its own,
    # every parent one step left of its children, level with their middle
    parents = {"root": []} | {f"s{i}": ["root"] for i in range(40)}
    parents |= {"c0": ["root"]} | {f"c{i}": [f"c{i - 1}"] for i in range(1, 20)}
    place = StructureDisplay(parents, None, None).layout()
    assert set(place) == set(parents)
    leaves = [name for name in parents if not any(name in pa for pa in parents.values())]
    assert sorted(place[leaf][1] for leaf in leaves) == list(range(len(leaves)))
    for name, pa in parents.items():
        if pa:
            assert place[name][0] == place[pa[0]][0] + 1
    star = [place[f"s{i}"][1] for i in range(40)] + [place["c0"][1]]
    assert place["root"][1] == pytest.approx(np.mean(star))


def test_the_share_of_evidence_is_the_mean_absolute_contribution(tan_files):
    X, y = _table()
    for est in (nbayes.TAN().fit(X, y), nbayes.MixedNB().fit(X, y), nbayes.AODE().fit(X, y)):
        share = _pictures.evidence_share(est, X)
        raw = np.abs(est.explain(X.iloc[: _pictures.EVIDENCE_ROWS]).contributions).mean(axis=0)
        expected = pd.Series(raw / raw.sum(), index=X.columns)
        pd.testing.assert_series_equal(share, expected[share.index], check_names=False)
        assert share.index[0] == "a"  # the feature that tells most of the class


def test_joint_bayes_report_counts_the_rows_scored_by_its_table_and_by_the_backoff(tmp_path):
    X, y = _table()
    X = X.drop(columns="x")
    est = nbayes.JointBayes(min_count=5).fit(X.iloc[:300], y[:300])
    nbayes.save(est, tmp_path / "joint.nbayes")
    X.assign(label=y).to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "joint.html"
    result = report(
        str(tmp_path / "joint.nbayes"), str(tmp_path / "data.csv"), str(out), target="label"
    )
    page = out.read_text()
    assert result["sections"][:2] == ["summary", "structure"]
    own = est.scored_by_joint(X)
    assert 0 < own.sum() < len(X)
    assert f'<td class="num">{own.sum():,}</td>' in page
    assert f'<td class="num">{(~own).sum():,}</td>' in page


def test_aode_report_draws_the_pairs_conditional_mutual_information(tmp_path):
    X, y = _table()
    nbayes.save(nbayes.AODE().fit(X, y), tmp_path / "aode.nbayes")
    report(str(tmp_path / "aode.nbayes"), None, str(tmp_path / "aode.html"))
    page = (tmp_path / "aode.html").read_text()
    assert "conditional mutual information of feature pairs" in images(page)
    assert "every feature is in turn the parent of all the others" in page


def test_long_parameters_are_folded_and_short_ones_shown_whole():
    edges = {f"column{i}": [float(v) for v in range(30)] for i in range(12)}
    html = _pictures.parameters({"alpha": 1.0, "bin_edges": edges, "name": "x" * 200})
    assert "<td>1.0</td>" in html
    assert "<summary>12 entries: column0, column1, column2, column3, ...</summary>" in html
    assert "\ncolumn11: [0.0, 1.0," in html  # one entry a line
    assert "<summary>" + "x" * 77 + "...</summary>" in html
