"""The command line: output, exit codes and one-line errors for bad input."""

import json
import subprocess
import sys

import pytest
from util import ADULT_NAMES, DATA


def run(*args, stdin: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "faircode", *args], input=stdin,
                          capture_output=True, timeout=120)


def test_sample_report_leads_with_score_and_grade():
    p = run("profile", "--sample")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert out.startswith("Score 71/100  grade B")
    assert "African-American" in out and "Flags (" in out


def test_json_output_and_published_counts():
    p = run("profile", str(DATA / "compas-scores-two-years.csv"), "--json")
    assert p.returncode == 0
    result = json.loads(p.stdout)
    race = next(d for d in result["dimensions"] if d["name"] == "race")
    assert {g["label"]: g["count"] for g in race["groups"]}["African-American"] == 3696


def test_map_cross_thresholds_and_stdin():
    data = b"gndr,ethnicity,x\nm,A,1\nf,B,1\nf,A,1\n"
    p = run("profile", "-", "--json", "--map", "gndr=sex", "--cross", "ethnicity,gndr",
            "--min-share", "0.4", "--min-group-size", "2", stdin=data)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["dimensions"][0]["kind"] == "sex"
    assert r["intersections"][0]["dims"] == ["ethnicity", "gndr"]
    assert r["dimensions"][0]["under_represented"] == ["m"]


def test_fail_under_exit_codes():
    assert run("profile", "--sample", "--fail-under", "70").returncode == 0
    p = run("profile", "--sample", "--fail-under", "72")
    assert p.returncode == 1 and b"below --fail-under 72" in p.stderr


def test_headerless_adult():
    p = run("profile", str(DATA / "adult.data"), "--names", ADULT_NAMES, "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)["n_rows"] == 32561


@pytest.fixture
def bad_files(tmp_path):
    files = {
        "empty": b"", "header_only": b"sex,race\n",
        "binary": b"SQLite format 3\x00\x10\x00\x01\x01", "png": b"\x89PNG\r\n\x1a\n\x00",
        "utf8": b"sex\nM\n\xe9\n", "ragged": b"sex,race\nM,A\nF,B,C\n",
    }
    for name, data in files.items():
        (tmp_path / f"{name}.csv").write_bytes(data)
    return tmp_path


@pytest.mark.parametrize("case,args,message", [
    ("missing path", ["{d}/nope.csv"], "{d}/nope.csv: no such file"),
    ("directory", ["{d}"], "{d}: is a directory, not a file"),
    ("empty file", ["{d}/empty.csv"], "{d}/empty.csv: file is empty"),
    ("header only", ["{d}/header_only.csv"], "{d}/header_only.csv: no data rows, only a header"),
    ("binary", ["{d}/binary.csv"], "{d}/binary.csv: byte 15: NUL byte; this looks like a binary"),
    ("png", ["{d}/png.csv"], "{d}/png.csv: byte 0: not valid UTF-8"),
    ("invalid utf-8", ["{d}/utf8.csv"], "{d}/utf8.csv: byte 6: not valid UTF-8"),
    ("ragged row", ["{d}/ragged.csv"], "{d}/ragged.csv: line 3: 3 fields but the header has 2"),
    ("unknown column", ["--sample", "--map", "gnder=sex"], "--map: no column named 'gnder'"),
    ("unknown kind", ["--sample", "--map", "sex=gender"], "--map: unknown kind 'gender'"),
    ("bad map", ["--sample", "--map", "sex"], "--map: expected COLUMN=KIND, got 'sex'"),
    ("out of range", ["--sample", "--min-share", "1.5"], "--min-share: 1.5 is out of range"),
    ("not a number", ["--sample", "--imbalance-flag", "x"], "--imbalance-flag: x is out of range"),
    ("fail-under range", ["--sample", "--fail-under", "101"], "--fail-under: 101 is out of range"),
    ("no path", [], "profile needs a PATH"),
    ("unknown option", ["--sample", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_input_gives_one_line_and_exit_2(bad_files, case, args, message):
    p = run("profile", *[a.format(d=bad_files) for a in args])
    err = p.stderr.decode()
    assert p.returncode == 2, (case, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("faircode: error: " + message.format(d=bad_files)), err
