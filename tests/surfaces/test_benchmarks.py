"""The benchmark runner works end to end on a small generated file (not timed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from util import ROOT

BENCH = ROOT / "benchmarks"


def test_generator_is_seeded_and_realistic(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for p in (a, b):
        subprocess.run(
            [sys.executable, str(BENCH / "generate.py"), str(p), "--size", "300KB"],
            check=True,
            capture_output=True,
        )
    assert a.read_bytes() == b.read_bytes()
    assert a.stat().st_size >= 300 * 1024
    import faircode

    r = faircode.profile(a)
    names = [d["name"] for d in r["dimensions"]]
    assert names == ["gender", "race", "age", "region", "zip"]
    # education and employment status are counted but not scored (SPEC 1.4)
    assert [u["name"] for u in r["unscored"]] == ["education", "employment_status"]
    assert r["n_cols"] == 12


def test_runner_end_to_end(tmp_path):
    data = tmp_path / "small.csv"
    subprocess.run(
        [sys.executable, str(BENCH / "generate.py"), str(data), "--size", "2MB"],
        check=True,
        capture_output=True,
    )
    out_md, out_json = tmp_path / "table.md", tmp_path / "report.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH / "run.py"),
            str(data),
            "--markdown",
            str(out_md),
            "--json",
            str(out_json),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out_json.read_text())
    results = report["files"][0]["results"]
    skipped = {n.split(":")[0] for n in report["notes"]}
    for note in report["notes"]:  # only genuinely absent tools may be skipped
        print("runner note:", note)
    assert "python" in results and "python" not in skipped
    for tool in ("python", "js", "duckdb", "pandas", "papaparse"):
        assert tool in results or tool in skipped, tool
        if tool in results:
            assert "error" not in results[tool], (tool, results[tool])
            assert results[tool]["mb_per_s"] > 0 and results[tool]["rss_mb"] > 0
    table = out_md.read_text()
    assert "| small.csv" in table and "MB/s" in table and "Machine:" in table
    assert Path(report["files"][0]["path"]).name == "small.csv"


def test_big_export_in_parts_equals_one_read_and_hashes_in_order(tmp_path):
    """A generated export above the parts threshold goes through the default CLI path
    (fast path, parts parsed at once): same result as the reference reader, and the
    provenance digest is the file's SHA-256 (bytes hashed in file order). The JS bridge
    (worker threads) gives the same result."""
    import hashlib

    import faircode
    from faircode import fastpath

    data = tmp_path / "export.csv"
    subprocess.run(
        [sys.executable, str(BENCH / "generate.py"), str(data), "--size", "40MB"],
        check=True,
        capture_output=True,
    )
    assert data.stat().st_size >= fastpath.SPLIT_MIN_BYTES
    proc = subprocess.run(
        [sys.executable, "-m", "faircode", "profile", str(data), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)
    prov = cli.pop("provenance")
    assert prov["dataset_hash"] == "sha256:" + hashlib.sha256(data.read_bytes()).hexdigest()
    assert cli == faircode.profile(data, engine="reference")
    from jsbridge import node_command

    js = subprocess.run(
        [*node_command(), str(ROOT / "scripts" / "engine-js.js"), "profile", str(data)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert js.returncode == 0, js.stderr
    assert json.loads(js.stdout) == cli


def _checkout_copy(dest: Path) -> Path:
    """A copy of this tree's engines whose entry points note in dest/ran-* that they ran."""
    import shutil

    skip = shutil.ignore_patterns("__pycache__", "node_modules")
    shutil.copytree(ROOT / "faircode", dest / "faircode", ignore=skip)
    (dest / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "engine-js.js", dest / "scripts" / "engine-js.js")
    shutil.copytree(ROOT / "assets", dest / "assets", ignore=skip)
    main_py = dest / "faircode" / "__main__.py"
    main_py.write_text(
        "import pathlib\n"
        "with open(pathlib.Path(__file__).parents[1] / 'ran-python', 'a') as _f:\n"
        "    _f.write('x')\n" + main_py.read_text()
    )
    js = dest / "scripts" / "engine-js.js"
    first, rest = js.read_text().split("\n", 1)
    js.write_text(
        first + "\nrequire('fs').appendFileSync("
        "require('path').join(__dirname, '..', 'ran-js'), 'x');\n" + rest
    )
    return dest


def test_runner_trees_run_each_trees_own_code(tmp_path):
    """--tree LABEL=PATH: python@LABEL and js@LABEL run that checkout's code (each copy's
    entry points leave a mark), the report names the faircode each tree imports, and the
    ratio rows compare the later tree with the first."""
    data = tmp_path / "small.csv"
    subprocess.run(
        [sys.executable, str(BENCH / "generate.py"), str(data), "--size", "2MB"],
        check=True,
        capture_output=True,
    )
    a, b = _checkout_copy(tmp_path / "a"), _checkout_copy(tmp_path / "b")
    out_md, out_json = tmp_path / "table.md", tmp_path / "report.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH / "run.py"),
            str(data),
            "--tree",
            f"before={a}",
            "--tree",
            f"after={b}",
            "--tools",
            "python,js",
            "--repeat",
            "2",
            "--markdown",
            str(out_md),
            "--json",
            str(out_json),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out_json.read_text())
    trees = report["trees"]
    assert list(trees) == ["before", "after"]
    for label, root in (("before", a), ("after", b)):
        assert trees[label]["faircode_file"] == str(root.resolve() / "faircode" / "__init__.py")
        assert f"tree {label}: faircode.__file__ = {root.resolve()}" in proc.stderr
        assert (root / "ran-python").read_text() == "xx"  # the two timed rounds, not the check
        assert (root / "ran-js").read_text() == "xx"
    results = report["files"][0]["results"]
    assert list(results) == ["python@before", "python@after", "js@before", "js@after"]
    for r in results.values():
        assert "error" not in r and r["runs"] == 2 and r["mb_per_s"] > 0
    ratios = report["files"][0]["ratios"]
    assert set(ratios) == {"python@after_over_before", "js@after_over_before"}
    table = out_md.read_text()
    assert "| python@after |" in table and "| js@after_over_before |" in table
    assert f"`@before` = {a.resolve()}" in table
