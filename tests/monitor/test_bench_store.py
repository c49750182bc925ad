"""benchmarks/bench_store.py runs end to end on a tiny input (a smoke test, not timed),
with its second-version mode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_store_smoke(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_store.py"),
            "--rows",
            "3000",
            "--repeat",
            "1",
            "--no-postgres",
            "--fairlearn-rows",
            "3000",
            "--second-version",
            "--workdir",
            str(tmp_path / "work"),
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    (run,) = result["runs"]
    assert run["backend"] == "sqlite" and run["equals_evaluate"] is True
    assert run["days"] == 30 and result["metricframe_rows"] == 3000
    # --second-version: v2 of the same requests takes every label; after both versions,
    # each label joins two predictions
    second = run["second_version"]
    assert second["v2_labels_joined"] == result["labels"]
    assert second["shadow_labels_joined"] == 2 * result["labels"]
    assert second["v2_to_v1_log_seconds_ratio"] > 0
