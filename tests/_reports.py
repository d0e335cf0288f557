"""The reports the issues name: the SMS demo model, the Adult MixedNB model and the Adult TAN
model, each scored on its held-out data (used by test_report.py and test_browser.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from _adult import ADULT_COLUMNS
from sklearn.model_selection import train_test_split

from nbayes.cli.demo import demo
from nbayes.cli.report import report
from nbayes.cli.train import train
from nbayes.datasets import load_sms_spam

ADULT = ADULT_COLUMNS


def sms_report(folder: Path) -> tuple[Path, dict]:
    """`nbayes demo`'s model, reported on the demo's held-out quarter."""
    model = folder / "sms-spam.nbayes"
    demo(str(model))
    _, test = train_test_split(
        load_sms_spam(), test_size=0.25, random_state=0, stratify=load_sms_spam()["label"]
    )
    data = folder / "sms-test.csv"
    test.to_csv(data, index=False)
    out = folder / "sms-report.html"
    return out, report(str(model), str(data), str(out))


def _adult_csv(data_dir: Path, name: str, skip: int, out: Path) -> Path:
    frame = pd.read_csv(
        data_dir / "adult" / name, names=ADULT, skipinitialspace=True, na_values="?", skiprows=skip
    ).dropna(how="all")
    frame["income"] = frame["income"].str.rstrip(".")
    frame.to_csv(out, index=False)
    return out


def adult_report(folder: Path, data_dir: Path) -> tuple[Path, dict]:
    """`nbayes train --model mixed` on Adult's training file, reported on its test file."""
    train_csv = _adult_csv(data_dir, "adult.data.gz", 0, folder / "adult-train.csv")
    test_csv = _adult_csv(data_dir, "adult.test.gz", 1, folder / "adult-test.csv")
    model = folder / "adult.nbayes"
    train(str(train_csv), "income", str(model), model="mixed")
    out = folder / "adult-report.html"
    return out, report(str(model), str(test_csv), str(out))


def adult_tan_report(folder: Path, data_dir: Path) -> tuple[Path, dict]:
    """`nbayes train --model tan` on Adult's training file, reported on its test file."""
    train_csv = _adult_csv(data_dir, "adult.data.gz", 0, folder / "adult-train.csv")
    test_csv = _adult_csv(data_dir, "adult.test.gz", 1, folder / "adult-test.csv")
    model = folder / "adult-tan.nbayes"
    train(str(train_csv), "income", str(model), model="tan")
    out = folder / "adult-tan-report.html"
    return out, report(str(model), str(test_csv), str(out))
