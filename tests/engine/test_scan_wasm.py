"""The JS engine's SIMD field scan: the bytes embedded in assets/profiler-engine.js
(SCAN_WASM) are assets/scan.wat assembled by scripts/build_scan_wasm.js, so the text
in the repository is what runs. tests/js/scan.test.js holds the scan to the byte loop's
results."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from util import ROOT

BUILD = ROOT / "scripts" / "build_scan_wasm.js"


def _check(root=None) -> subprocess.CompletedProcess:
    if not shutil.which("node") or not (ROOT / "node_modules" / "wabt").exists():
        if os.environ.get("CI"):
            pytest.fail("node and the wabt package (npm install) are needed in CI")
        pytest.skip("needs node and `npm install` (wabt)")
    args = ["node", str(BUILD), "--check"] + (["--root", str(root)] if root else [])
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT)


def test_the_embedded_scan_is_the_wat_assembled():
    got = _check()
    assert got.returncode == 0, got.stderr
    assert "SCAN_WASM is assets/scan.wat assembled" in got.stdout


def test_a_changed_wat_is_caught(tmp_path):
    (tmp_path / "assets").mkdir()
    shutil.copy(ROOT / "assets" / "profiler-engine.js", tmp_path / "assets")
    wat = (ROOT / "assets" / "scan.wat").read_text(encoding="utf-8")
    changed = wat.replace("(i32.const 13)", "(i32.const 12)")
    assert changed != wat
    (tmp_path / "assets" / "scan.wat").write_text(changed, encoding="utf-8")
    got = _check(tmp_path)
    assert got.returncode == 1
    assert "run node scripts/build_scan_wasm.js" in got.stderr
