"""The benchmark harness runs end to end on tiny data (a smoke test; no timing assertions)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_benchmark_harness_quick_mode_writes_a_report(tmp_path):
    out = tmp_path / "report.json"
    cmd = [
        sys.executable,
        "-m",
        "benchmarks",
        "--quick",
        "--scale",
        "0.0005",
        "--no-real",
        "--cases",
        "gauss-1M-50-k2,categorical",
        "--threads",
        "2",
        "--json",
        str(out),
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["environment"]["nbayes_threads"] == 2
    names = [case["case"] for case in report["cases"]]
    assert names == ["gauss-1M-50-k2", "categorical-1M-50-k20"]
    for case in report["cases"]:
        for pair in case["pairs"]:
            assert set(pair["ratio"]) == {"fit", "partial_fit", "predict_proba"}
            assert all(r > 0 for r in pair["ratio"].values())
            if "max_abs_proba_diff" in pair:  # same model in both libraries: same answers
                assert pair["max_abs_proba_diff"] < 1e-6, pair["estimator"]
    assert "| GaussianNB |" in proc.stdout  # the Markdown table


def test_text_speed_runs_on_a_small_corpus(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.text_speed",
        "--docs",
        "400",
        "--gb",
        "0.001",
        "--repeat",
        "1",
        "--dir",
        str(tmp_path),
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "predictions equal" in proc.stdout
    for table in ("| fit + predict |", "MB of ASCII text", "| two-column CSV |"):
        assert table in proc.stdout
    assert not list(tmp_path.iterdir())  # the CSV and the model are deleted
    cli_only = subprocess.run(
        [*cmd, "--cli-only"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert cli_only.returncode == 0, cli_only.stderr
    assert "| two-column CSV |" in cli_only.stdout and "| CPU time |" in cli_only.stdout
    assert "predictions equal" not in cli_only.stdout
