"""The benchmark runner works end to end on a small generated file (not timed)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from util import ROOT

BENCH = ROOT / "benchmarks"


def _runner(
    data: Path, *args: str, cwd: Path | None = None
) -> tuple[subprocess.CompletedProcess, dict]:
    """benchmarks/run.py on data with args, its JSON report written beside data: the
    finished process (it must have exited 0) and the report."""
    out_json = data.parent / "report.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), str(data), *args, "--json", str(out_json)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(out_json.read_text())


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
    out_md = tmp_path / "table.md"
    _, report = _runner(data, "--markdown", str(out_md))
    results = report["files"][0]["results"]
    skipped = {n.split(":")[0] for n in report["notes"]}
    for note in report["notes"]:  # only genuinely absent tools may be skipped
        print("runner note:", note)
    assert "python" in results and "python" not in skipped
    tools = ("python", "js", "duckdb-same", "papaparse-same", "duckdb-counts", "pandas")
    for tool in (*tools, "papaparse-counts"):
        assert tool in results or tool in skipped, tool
        if tool in results:
            assert "error" not in results[tool], (tool, results[tool])
            assert results[tool]["mb_per_s"] > 0 and results[tool]["rss_mb"] > 0
    # every same-work baseline that ran was checked equal to faircode's tables first
    checks = report["files"][0]["same_work"]["checks"]
    for tool in ("duckdb-same", "papaparse-same"):
        if tool in results:
            assert checks[tool] == "equal to faircode's tables", checks
    ratios = report["files"][0]["ratios"]
    if "duckdb-same" in results:
        assert ratios["python_time_over_duckdb_same"] > 0
    table = out_md.read_text()
    assert "| small.csv" in table and "MB/s" in table and "Machine:" in table
    assert "`duckdb-same` equal to faircode's tables" in table or "duckdb-same" in skipped
    assert Path(report["files"][0]["path"]).name == "small.csv"


def _generated(tmp_path, size="300KB") -> Path:
    data = tmp_path / "small.csv"
    subprocess.run(
        [sys.executable, str(BENCH / "generate.py"), str(data), "--size", size],
        check=True,
        capture_output=True,
    )
    return data


def _padded_copy(src: Path, dest: Path) -> Path:
    """src with cells padded by spaces and tabs, and missing tokens written padded or
    quoted: what SPEC 0.4's trimming and tokens decide (not the generator's plain cells)."""
    import csv
    import random

    rng = random.Random(5)
    with open(src, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    for row in rows[1:]:
        for k in (0, 2, 3, 4, 8, 10, 11):
            if rng.random() < 0.05:
                row[k] = rng.choice([" {} ", "\t{}", "{} ", "{}\t\t"]).format(row[k])
            if rng.random() < 0.02:
                row[k] = rng.choice([" NA", "\t?", "null ", "  ", "N/A", "nan", '"'])
    with open(dest, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, quoting=csv.QUOTE_MINIMAL).writerows(rows)
    return dest


def _same_work():
    sys.path.insert(0, str(BENCH))
    try:
        import same_work
    finally:
        sys.path.remove(str(BENCH))
    return same_work


def test_same_work_baselines_count_faircodes_tables(tmp_path):
    """On a file with padded cells and padded or quoted missing tokens, DuckDB's query and
    the PapaParse program give faircode's tables key for key; the comparison catches a
    count off by one, a missing key, an extra label and a missing pair table."""
    import shutil

    same_work = _same_work()
    data = _padded_copy(_generated(tmp_path), tmp_path / "padded.csv")
    expected = same_work.faircode_tables(str(data))
    shape = same_work.shape_of(expected)
    assert shape["groups"] and shape["pairs"] and len(expected["missing_all"]) == 12
    assert any(rows for _, _, rows in expected["missing_by"])
    got = same_work.canonical(*same_work.baseline_duckdb_same(str(data), shape))
    assert same_work.differences(expected, got) == []
    if shutil.which("node") and (BENCH / "node_modules" / "papaparse").exists():
        out = tmp_path / "pp.json"
        subprocess.run(
            [
                "node",
                str(BENCH / "papaparse-same.js"),
                str(data),
                json.dumps(shape),
                "--tables-out",
                str(out),
            ],
            check=True,
            capture_output=True,
        )
        assert same_work.differences(expected, json.loads(out.read_text())) == []

    def altered(change):
        t = json.loads(json.dumps(got))
        change(t)
        return same_work.differences(expected, t)

    def off_by_one(t):
        t["missing_by"][0][2][0][1] += 1

    def key_lost(t):
        del t["pairs"][0][2][-1]

    def label_added(t):
        t["counts"]["race"].append(["?", 3])

    def table_lost(t):
        del t["pairs"][-1]

    d, c, rows = got["missing_by"][0]
    assert altered(off_by_one) == [
        f"missing_by {[d, c, rows[0][0]]}: {rows[0][1] + 1} (faircode: {rows[0][1]})"
    ]
    a, b, cells = got["pairs"][0]
    assert altered(key_lost) == [
        f"pairs {[a, b, *cells[-1][:2]]}: missing (faircode: {cells[-1][2]})"
    ]
    assert altered(label_added) == ["counts ['race', '?']: 3 (faircode has no such key)"]
    lost = altered(table_lost)
    assert lost[-1].startswith("pair tables") and len(lost) > 1


def test_runner_does_not_time_a_baseline_whose_tables_differ(tmp_path):
    """A same-work baseline given a wrong missing-token list (no "?") counts race "?" as a
    label: the runner's check finds it, the tool is not timed and the runner exits 1."""
    data = _generated(tmp_path)
    out_json = tmp_path / "report.json"
    wrong = json.dumps(["", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL"])
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH / "run.py"),
            str(data),
            "--tools",
            "python,duckdb-same,papaparse-same",
            "--baseline-tokens",
            wrong,
            "--json",
            str(out_json),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr
    report = json.loads(out_json.read_text())
    f = report["files"][0]
    assert f["same_work"]["failed"] == ["duckdb-same", "papaparse-same"] or (
        f["same_work"]["failed"] == ["duckdb-same"]
        and any("papaparse" in n for n in report["notes"])
    )
    for tool in f["same_work"]["failed"]:
        assert "tables differ from faircode's" in f["results"][tool]["error"]
        assert "counts ['race', '?']" in f["results"][tool]["error"]
        assert f"{Path(data).name} {tool}:" not in proc.stderr  # never timed
    assert "error" not in f["results"]["python"]
    assert "same-work baselines whose tables differ" in proc.stderr


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
        [sys.executable, str(BENCH / "generate.py"), str(data), "--size", "34MB"],
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
    out_md = tmp_path / "table.md"
    proc, report = _runner(
        data,
        *("--tree", f"before={a}", "--tree", f"after={b}", "--tools", "python,js"),
        *("--repeat", "2", "--markdown", str(out_md)),
        cwd=tmp_path,
    )
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


def test_runner_variants_of_both_engines(tmp_path):
    """--variant and --js-variant: each variant runs its engine with the extra arguments
    next to the plain run, round by round, and gets a per-round ratio over it. The
    arguments reach the engine: one that it refuses fails that run alone."""
    data = _generated(tmp_path)
    _, report = _runner(
        data,
        *("--tools", "python,js", "--repeat", "2"),
        *("--variant", "nomissing=--no-missing-by-group", "--variant", "refused=--no-such-option"),
        *("--js-variant", "nomissing=--opts '{\"missing_by_group\":false}'"),
        *("--js-variant", "refused=--opts {"),
    )
    results = report["files"][0]["results"]
    ratios = report["files"][0]["ratios"]
    for tool in ("python", "js"):
        assert "error" not in results[tool] and results[tool]["runs"] == 2
        assert "error" not in results[f"{tool}[nomissing]"], results[f"{tool}[nomissing]"]
        assert results[f"{tool}[nomissing]"]["runs"] == 2
        assert "error" in results[f"{tool}[refused]"]
        assert len(ratios[f"{tool}[nomissing]_over_{tool}_rounds"]) == 2
        assert ratios[f"{tool}[nomissing]_over_{tool}"] > 0
        assert f"{tool}[refused]_over_{tool}" not in ratios
    bad = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), str(data), "--tools", "python"]
        + ["--js-variant", "x=--opts {}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "--js-variant needs the js tool" in bad.stderr


def test_simd_scan_benchmark_checks_before_it_times(tmp_path):
    """benchmarks/scan_simd.js times the engine with its SIMD scan and with its byte loop,
    and the scan alone; it refuses to time them (exit 1) unless the two engines agree and
    the scan finds every stop byte, here on LF and CRLF files whose chunks end off a
    16-byte step, with ',' and ';' (the count checked again against Python's)."""
    import shutil

    import pytest

    if not shutil.which("node") or not (ROOT / "node_modules" / "wabt").exists():
        pytest.skip("needs node and `npm install` (wabt)")
    lf = _generated(tmp_path, size="2MB")
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(lf.read_bytes().replace(b"\n", b"\r\n") + b"x,y")
    semi = tmp_path / "semi.csv"
    semi.write_bytes(lf.read_bytes().replace(b",", b";"))
    for data, delim in ((lf, ","), (crlf, ","), (semi, ";")):
        assert data.stat().st_size % 16
        out = subprocess.run(
            ["node", str(BENCH / "scan_simd.js"), str(data), "--rounds", "1", "--delim", delim],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr
        assert "found by wasm-scan; engine-simd's result is engine-loop's" in out.stdout
        stops = int(out.stdout.split(" MB, ")[1].split(" stop bytes")[0].replace(",", ""))
        body = data.read_bytes()
        want = sum(body.count(bytes([c])) for c in (ord(delim), 34, 10, 13))
        assert stops == want


def test_ab_interleaves_two_trees_and_gives_every_ratio(tmp_path):
    """benchmarks/ab.py, both trees this checkout, one round (not timed): each split per
    tree and each mode's after / before, with the round's own ratio."""
    data = _generated(tmp_path)
    proc = subprocess.run(
        [sys.executable, str(BENCH / "ab.py"), str(data), "--before", str(ROOT), "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [line.strip("| ").split(" | ") for line in proc.stdout.splitlines()]
    runs = {(r[1], r[2]): (float(r[3]), float(r[4])) for r in rows if r[0] == "1"}
    assert len(runs) == 6  # two trees, three modes
    splits = {
        "readall / default": ("readall", "default"),
        "nomissing / readall": ("nomissing", "readall"),
        "nomissing / default": ("nomissing", "default"),
    }
    for tree in ("before", "after"):
        for split, (num, den) in splits.items():
            row = next(r for r in rows if r[0] == tree and r[1].startswith(split))
            wall, cpu = (
                runs[tree, num][0] / runs[tree, den][0],
                runs[tree, num][1] / runs[tree, den][1],
            )
            median, one = re.match(r"([\d.]+) \(([\d.]+)\)", row[2]).groups()
            assert median == one  # one round: its ratio is the median
            # from the printed seconds (2 decimals) to the printed ratio (3)
            assert abs(float(median) - wall) < 0.02 * wall + 0.002, (tree, split)
            assert abs(float(row[3]) - cpu) < 0.02 * cpu + 0.002, (tree, split)
    for mode in ("default", "readall", "nomissing"):
        row = next(r for r in rows if r[0] == mode)
        wall = runs["after", mode][0] / runs["before", mode][0]
        assert abs(float(row[1].split()[0]) - wall) < 0.02 * wall + 0.002, mode


def test_ab_names_a_tree_without_the_benchmark(tmp_path):
    data = _generated(tmp_path)
    proc = subprocess.run(
        [sys.executable, str(BENCH / "ab.py"), str(data), "--before", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert f"--before {tmp_path}: no benchmarks/where.py there" in proc.stderr
    assert "Traceback" not in proc.stderr
