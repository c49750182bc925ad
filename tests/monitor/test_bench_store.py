"""benchmarks/bench_store.py runs end to end on a tiny input (a smoke test, not timed)."""

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
