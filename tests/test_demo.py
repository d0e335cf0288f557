"""`nbayes demo`, the README's first command: a spam filter on the bundled SMS data."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nbayes import TextNB, load
from nbayes.cli import main
from nbayes.cli.demo import EXAMPLES, demo

ROOT = Path(__file__).resolve().parents[1]


def test_demo_trains_evaluates_explains_and_saves(tmp_path):
    result = demo(str(tmp_path / "spam.nbayes"), k=8)
    evaluation = result["evaluation"]
    assert result["train_rows"] + result["test_rows"] == 5574
    assert evaluation["rows"] == result["test_rows"]
    assert evaluation["accuracy"] > 0.97
    # Beside the accuracy, the baseline of always saying ham (the larger class in training).
    assert evaluation["baseline_class"] == "ham"
    assert 0.8 < evaluation["baseline_accuracy"] < evaluation["accuracy"]
    model = load(tmp_path / "spam.nbayes")
    assert isinstance(model, TextNB) and model.classes_.tolist() == ["ham", "spam"]
    words = [w for w, _ in result["spam_words"]]
    weights = [v for _, v in result["spam_words"]]
    assert len(words) == 8 and set(words) <= set(model.get_feature_names_out())
    assert weights == sorted(weights, reverse=True) and weights[-1] > 0
    p_spam = model.predict_proba(list(EXAMPLES))[:, 1]
    np.testing.assert_allclose([e["p_spam"] for e in result["examples"]], p_spam)
    # The examples alternate an obvious spam and an obvious personal message.
    assert [e["label"] for e in result["examples"]] == ["spam", "ham", "spam", "ham"]


def test_demo_command_prints_the_report(capsys, tmp_path):
    assert main(["demo", "-o", str(tmp_path / "m.nbayes")]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "words that most indicate spam" in out
    assert "majority baseline" in out and "n/a" not in out
    assert f"nbayes inspect {tmp_path / 'm.nbayes'}" in out


def test_readme_first_command_is_the_demo_and_ci_runs_the_second():
    lines = (ROOT / "README.md").read_text().splitlines()
    commands = [line for line in lines[:10] if line.startswith("python3 -m venv")]
    assert commands[0].endswith("&& nbayes demo")
    test_command = commands[1].split('pip install -e ".[test]" && ', 1)[1]
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == test_command
