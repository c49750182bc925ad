"""Hostile input: every CLI path ends in a report, or in one stderr line and exit 2.

Each case runs the real command in a subprocess with a memory ceiling (RLIMIT_AS) and a
timeout, so a regression (an exponential --intersect, a pipe read twice and waiting
forever) fails the test instead of swapping or hanging the machine. Every failure is
checked to be one line `faircode: error: ...`, exit 2, and no traceback or stack.
Both engines (the Python CLI and the JS bridge `scripts/engine-js.js`) where they share
the case.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from jsbridge import node_command

from faircode.safetext import UNSAFE, clip, shown

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = ROOT / "scripts" / "engine-js.js"
MEMORY = 1536 << 20  # bytes of address space per run
TIMEOUT = 60
PY = [sys.executable, "-m", "faircode"]
EVAL = [*PY, "fairness", "evaluate", "--engine", "pandas"]  # fairlearn needs more memory
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(
    cmd: list[str],
    *,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    timeout: float = TIMEOUT,
    **kw,
) -> subprocess.CompletedProcess:
    """The command's result (bytes), under the memory ceiling and a timeout."""
    return subprocess.run(
        cmd,
        input=stdin,
        capture_output="stdout" not in kw,
        cwd=cwd,
        timeout=timeout,
        preexec_fn=_limit,
        **kw,
    )


def node(*args: str, **kw) -> subprocess.CompletedProcess:
    return run([*node_command(), str(BRIDGE), *args], **kw)


def one_error(p: subprocess.CompletedProcess, *needles: str, code: int = 2) -> str:
    """Assert p failed with exactly one `faircode: error:` line; return that line."""
    err = p.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "    at " not in err, err
    assert p.returncode == code, (p.returncode, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("faircode: error: "), err
    assert UNSAFE.search(lines[0]) is None, lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def ok(p: subprocess.CompletedProcess) -> str:
    err = (p.stderr or b"").decode("utf-8", "replace")
    assert p.returncode == 0, (p.returncode, err)
    assert "Traceback" not in err and "Warning" not in err, err
    return p.stdout.decode("utf-8") if p.stdout is not None else ""


def clean_terminal(text: str) -> None:
    """No control or bidi character except the line ends of the report itself."""
    bad = UNSAFE.search(text.replace("\n", ""))
    assert bad is None, repr(text[max(0, bad.start() - 30) : bad.end() + 30])


@pytest.fixture
def d(tmp_path: Path) -> Path:
    (tmp_path / "ok.csv").write_text("sex,race,age\nM,A,30\nF,B,40\nM,A,50\n")
    return tmp_path


# ---------------------------------------------------------------- safetext


@pytest.mark.parametrize(
    "raw, want",
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("a\bb\rc\nd\te", "a\\x08b\\rc\\nd\\te"),
        ("\x7f\x85\x9b", "\\x7f\\x85\\x9b"),
        (
            "abc\u202edef\u2066\u2069\u200e\u200f\u061c",
            "abc\\u202edef\\u2066\\u2069\\u200e\\u200f\\u061c",
        ),
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("plain é 中 😀 \\x", "plain é 中 😀 \\x"),
        # invisible: zero-width space/joiners, word joiner, BOM inside, NBSP, tags
        ("Ma\u200ble", "Ma\\u200ble"),
        ("M\u200cal\u200de\u2060", "M\\u200cal\\u200de\\u2060"),
        ("\ufeffMale", "\\ufeffMale"),
        ("Male\u00a0", "Male\\xa0"),
        ("so\u00adft \u3000 \u2009 \u202f", "so\\xadft \\u3000 \\u2009 \\u202f"),
        ("\u3164\u115f", "\\u3164\\u115f"),
        ("x\U000e0041\U000e007f", "x\\U000e0041\\U000e007f"),
    ],
)
def test_shown_makes_controls_visible(raw: str, want: str) -> None:
    assert shown(raw) == want
    assert shown(shown(raw)) == shown(raw)  # idempotent: a whole line can be re-shown


def test_clip_never_splits_an_escape() -> None:
    label = "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
    for width in range(2, 40):
        out = clip(label, width)
        assert len(out) <= width
        body = out[:-1] if out.endswith("…") else out
        # what is kept is a prefix of the shown text ending on an escape boundary
        assert shown(label).startswith(body)
        assert re.search(r"\\(x[0-9a-f]?|u[0-9a-f]{0,3})$", body) is None, out
    wide = "Ma\U000e0041le\u200d" * 3
    for width in range(2, 40):
        body = clip(wide, width).removesuffix("…")
        assert shown(wide).startswith(body)
        assert re.search(r"\\(U[0-9a-f]{0,7}|u[0-9a-f]{0,3})$", body) is None, body


# ---------------------------------------------------------------- terminal injection

INJECT = (
    '"se\nx",race\n'
    '"\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\ and a long tail of text",A\n'
    "M\x08\x08F,B\n"
    '"\x1b[2J\x07\r\u202e",A\n'
    "\u009b31m,B\n"
)


def test_profile_and_compare_reports_are_escaped(d: Path) -> None:
    f = d / "inj.csv"
    f.write_text(INJECT)
    out = ok(run([*PY, "profile", str(f), "--map", "se\nx=sex"]))
    clean_terminal(out)
    assert "se\\nx (sex, declared with --map)" in out and "\\x1b]8;;http://evil" in out
    out = ok(run([*PY, "compare", str(f), str(f), "--map", "se\nx=sex"]))
    clean_terminal(out)
    # JSON stays exact
    res = json.loads(ok(run([*PY, "profile", str(f), "--json", "--map", "se\nx=sex"])))
    assert res["dimensions"][0]["name"] == "se\nx"
    assert "M\x08\x08F" in {g["label"] for g in res["dimensions"][0]["groups"]}


def test_error_lines_are_escaped_in_both_engines(d: Path) -> None:
    f = d / "esc.csv"
    f.write_text('a\x1b]0;pwn\x07,"b\nfaircode: gate: PASS"\n1,2\n')
    py = one_error(
        run([*PY, "profile", str(f), "--map", "zz\nfaircode: gate: PASS=sex"]),
        "\\x1b]0;pwn\\x07",
        "zz\\nfaircode",
    )
    js = one_error(
        node("profile", str(f), "--overrides", json.dumps({"zz\nfaircode: gate: PASS": "sex"}))
    )
    assert py == js


def test_gate_lines_cannot_be_forged_by_a_column_name(d: Path) -> None:
    name = "g\nfaircode: gate: PASS"
    rows = ["A,1,1"] * 40 + ["B,0,1"] * 40
    f = d / "g.csv"
    f.write_text(f'"{name}",pred,label\n' + "\n".join(rows) + "\n")
    p = run([*EVAL, str(f), "--pred", "pred", "--label", "label", "--attr", name, "--gate"])
    assert p.returncode == 1
    err = p.stderr.decode()
    assert all(line.startswith("faircode: gate: ") for line in err.splitlines()), err
    assert "faircode: gate: PASS" not in err.splitlines()
    report = p.stdout.decode()
    clean_terminal(report)
    assert "g\\nfaircode: gate: PASS" in report
    p = run([*EVAL, str(f), "--pred", "pred", "--attr", "x\nfaircode: gate: PASS"])
    one_error(p, "x\\nfaircode")


def test_evaluate_reports_are_escaped(d: Path) -> None:
    labels = ["\x1b[31mred", "a\rb", "<img src=x onerror=alert(1)>", "`tick`|pipe", "\u202eevil"]
    rows = [f'"{lab}",{i % 2},{(i // 2) % 2}' for lab in labels for i in range(40)]
    attr = "at`tr\n# heading <b>"
    f = d / "m.csv"
    f.write_text(f'"{attr}",pred,label\n' + "\n".join(rows) + "\n")
    base = [*EVAL, str(f), "--pred", "pred", "--label", "label", "--attr", attr, "--threshold", "0"]
    clean_terminal(ok(run(base)))
    md = ok(run([*base, "--markdown"]))
    clean_terminal(md)
    assert "\r" not in md and "<img" not in md and "<b>" not in md
    assert "&lt;img src=x onerror=alert(1)&gt;" in md
    assert "\\`tick\\`\\|pipe" in md
    assert "at\\`tr\\\\n\\# heading &lt;b&gt;" in md
    assert not any(line.startswith("# ") for line in md.splitlines())
    html = d / "r.html"
    ok(run([*base, "--html", str(html)]))
    text = html.read_text()
    assert "<img" not in text and "\x1b" not in text
    report = json.loads(ok(run([*base, "--json"])))  # JSON keeps the raw labels
    assert {s["key"][attr] for s in report["groups"][0]["slices"]} == set(labels)


# ---------------------------------------------------------------- monitor reads by SPEC 0


def evaluate_json(path: Path, *args: str) -> dict:
    return json.loads(ok(run([*EVAL, str(path), "--pred", "pred", "--json", *args])))


def test_monitor_long_row_is_an_error_naming_the_line(d: Path) -> None:
    f = d / "long.csv"
    f.write_bytes(b"grp,pred,label\nA,1,1\nB,0,0\nA,1,0,B,0\n")
    one_error(
        run([*EVAL, str(f), "--pred", "pred", "--label", "label", "--attr", "grp"]),
        "long.csv: line 4: 5 fields but the header has 3",
    )


def test_monitor_labels_are_as_written(d: Path) -> None:
    labels = [
        "02134",
        "2134",
        "007",
        "7",
        "1.50",
        "1.5",
        "None",
        "#N/A",
        "-nan",
        "<NA>",
        "TRUE",
        "true",
    ]
    missing = ["", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "?"]
    f = d / "z.csv"
    f.write_text("zip,pred\n" + "".join(f"{x},1\n" for x in labels + missing))
    r = evaluate_json(f, "--attr", "zip", "--min-samples", "1")
    keys = [s["key"]["zip"] for s in r["groups"][0]["slices"]]
    assert keys == sorted(labels) + [None]
    assert r["groups"][0]["slices"][-1]["n"] == len(missing)


def test_monitor_short_rows_read_as_missing_and_header_trimmed(d: Path) -> None:
    f = d / "short.csv"
    f.write_text(" grp , pred ,label\nA,1,1\nA,0\nB\n")
    r = evaluate_json(f, "--attr", "grp", "--label", "label", "--min-samples", "1")
    assert r["rows"] == {
        "total": 3,
        "without_prediction": 1,
        "scored": 2,
        "labelled": 1,
        "awaiting_label": 1,
    }


def test_monitor_nul_byte_is_refused(d: Path) -> None:
    f = d / "nul.csv"
    f.write_bytes(b"grp,pred\nA,1\nB\x00,0\n")
    one_error(run([*EVAL, str(f), "--pred", "pred", "--attr", "grp"]), "nul.csv: byte 14: NUL byte")


def test_monitor_attribute_with_no_value(d: Path) -> None:
    f = d / "nov.csv"
    f.write_text("grp,pred\nNA,1\n,0\n")
    r = evaluate_json(f, "--attr", "grp", "--min-samples", "1")
    assert [s["key"] for s in r["groups"][0]["slices"]] == [{"grp": None}]


def test_monitor_huge_threshold_and_values(d: Path) -> None:
    f = d / "t.csv"
    f.write_text("grp,pred,label\n" + "A,1e90,-1e90\nB,0,0\n" * 5)
    ok(
        run(
            [
                *EVAL,
                str(f),
                "--pred",
                "pred",
                "--attr",
                "grp",
                "--threshold",
                "1e297",
                "--label",
                "label",
                "--gate",
                "--min-samples",
                "1",
            ]
        )
    )
    r = evaluate_json(
        f, "--attr", "grp", "--label", "label", "--min-samples", "1", "--threshold", "1e80"
    )
    assert r["status"] == "exceeded"  # mae_range 2e90 > 1e80
    f.write_text("grp,pred,label\nA,1e300,1\nB,0,0\n")
    one_error(
        run([*EVAL, str(f), "--pred", "pred", "--attr", "grp", "--label", "label"]),
        "beyond +-1e100",
    )


def test_monitor_list_valued_jsonl_attribute(d: Path) -> None:
    f = d / "l.jsonl"
    f.write_text('{"g": "a", "pred": 1}\n{"g": ["a", "b"], "pred": 0}\n')
    one_error(
        run([*EVAL, str(f), "--pred", "pred", "--attr", "g"]),
        "row 2: attribute column 'g' holds a list",
    )


def test_monitor_jsonl_strings_follow_the_label_rules(d: Path) -> None:
    f = d / "s.jsonl"
    f.write_text('{"g": " 007 ", "pred": 1}\n{"g": "NA", "pred": 0}\n{"g": 7, "pred": "1"}\n')
    r = evaluate_json(f, "--attr", "g", "--min-samples", "1")
    assert [s["key"]["g"] for s in r["groups"][0]["slices"]] == [7, "007", None]


def test_monitor_intersect_is_bounded(d: Path) -> None:
    names = [f"a{i}" for i in range(12)]
    rows = [",".join(str((r * (i + 3)) % 5) for i in range(12)) + f",{r % 2}" for r in range(2000)]
    f = d / "wide.csv"
    f.write_text(",".join(names) + ",pred\n" + "\n".join(rows) + "\n")
    attrs = [x for n in names for x in ("--attr", n)]
    t = time.monotonic()
    one_error(
        run([*EVAL, str(f), "--pred", "pred", *attrs, "--intersect"]),
        "--intersect with 12 attributes",
        "at most 6",
    )
    assert time.monotonic() - t < 30
    # six attributes are allowed, and the total number of slices is capped
    ok(
        run(
            [*EVAL, str(f), "--pred", "pred", *attrs[:12], "--intersect", "--json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    )


def test_monitor_identifier_like_attribute_is_refused(d: Path) -> None:
    f = d / "id.csv"
    f.write_text("id,pred\n" + "".join(f"u{i},{i % 2}\n" for i in range(1500)))
    one_error(
        run([*EVAL, str(f), "--pred", "pred", "--attr", "id"]),
        "1,500 distinct values",
        "looks like an identifier",
    )


def test_monitor_too_many_intersected_slices(d: Path) -> None:
    f = d / "many.csv"
    rows = "".join(f"{i % 1000},{(i * 7) % 997},{i % 2}\n" for i in range(60_000))
    f.write_text("a,b,pred\n" + rows)
    one_error(
        run([*EVAL, str(f), "--pred", "pred", "--attr", "a", "--attr", "b", "--intersect"]),
        "above 50,000 slices",
    )


def test_monitor_html_never_overwrites_the_input(d: Path) -> None:
    f = d / "in.csv"
    f.write_text("g,pred\nA,1\nB,0\n")
    before = f.read_bytes()
    one_error(
        run([*EVAL, str(f), "--pred", "pred", "--attr", "g", "--html", str(f)]),
        "is an input file",
    )
    assert f.read_bytes() == before


# ---------------------------------------------------------------- pipes and special files


def test_profile_reads_stdin_and_dev_stdin(d: Path) -> None:
    data = (d / "ok.csv").read_bytes()
    for arg in ("-", "/dev/stdin"):
        assert "3 rows" in ok(run([*PY, "profile", arg], stdin=data))
    assert json.loads(ok(node("profile", "-", stdin=data)))["n_rows"] == 3


def test_process_substitution(d: Path) -> None:
    script = 'faircode_cmd "$@" <(cat "$F")'
    env = dict(os.environ, F=str(d / "ok.csv"))
    for cmd in ([*PY, "profile"], [*node_command(), str(BRIDGE), "profile"]):
        full = ["bash", "-c", script.replace("faircode_cmd", " ".join(map(_q, cmd)))]
        out = ok(run(full, env=env))
        assert '"n_rows":3' in out or "3 rows" in out
    f = d / "p.csv"
    f.write_text("g,pred\nA,1\nB,0\n")
    env["F"] = str(f)
    cmd = " ".join(map(_q, [*EVAL])) + ' <(cat "$F") --pred pred --attr g --json'
    assert json.loads(ok(run(["bash", "-c", cmd], env=env)))["rows"]["total"] == 2


def _q(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


@pytest.mark.parametrize("engine", ["python", "js", "monitor"])
def test_fifo_with_a_slow_writer(d: Path, engine: str) -> None:
    fifo = d / "fifo"
    os.mkfifo(fifo)
    data = (d / "ok.csv").read_bytes() if engine != "monitor" else b"g,pred\nA,1\nB,0\n"

    def writer() -> None:
        time.sleep(1)
        with open(fifo, "wb") as fh:
            fh.write(data[:5])
            fh.flush()
            time.sleep(0.5)
            fh.write(data[5:])

    t = threading.Thread(target=writer)
    t.start()
    try:
        if engine == "python":
            assert "3 rows" in ok(run([*PY, "profile", str(fifo)], timeout=20))
        elif engine == "js":
            assert '"n_rows":3' in ok(node("profile", str(fifo), timeout=20))
        else:
            out = ok(run([*EVAL, str(fifo), "--pred", "pred", "--attr", "g"], timeout=20))
            assert "2 total" in out
    finally:
        t.join(10)


def test_csv_named_par1_is_csv_and_broken_parquet_is_named(d: Path) -> None:
    f = d / "par.csv"
    f.write_text("PAR1,b,sex\n1,2,M\n3,4,F\n")
    assert "2 rows" in ok(run([*PY, "profile", str(f)]))
    assert "2 rows" in ok(run([*PY, "profile", "-"], stdin=f.read_bytes()))
    bad = d / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\x00" * 20)
    one_error(run([*PY, "profile", str(bad)]), "not a readable Parquet file")


def test_parquet_from_a_pipe(d: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    f = d / "t.parquet"
    pq.write_table(pa.table({"sex": ["M", "F", "F"], "pred": [1, 0, 1]}), f)
    assert "3 rows" in ok(run([*PY, "profile", "-"], stdin=f.read_bytes()))
    out = ok(run([*EVAL, "-", "--pred", "pred", "--attr", "sex", "--json"], stdin=f.read_bytes()))
    assert json.loads(out)["rows"]["total"] == 3


# ---------------------------------------------------------------- no traceback


@pytest.mark.parametrize("enc", ["utf-16", "utf-32", "rot13", "base64", "zlib", "hex", "nonesuch"])
def test_bad_encodings(d: Path, enc: str) -> None:
    one_error(run([*PY, "profile", str(d / "ok.csv"), "--encoding", enc]))


@pytest.mark.parametrize("cmd", ["profile", "evaluate"])
def test_output_to_dev_full(d: Path, cmd: str) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    argv = (
        [*PY, "profile", str(d / "ok.csv"), "--json"]
        if cmd == "profile"
        else [
            *EVAL,
            str(d / "ok.csv"),
            "--pred",
            "age",
            "--task",
            "regression",
            "--decision-threshold",
            "35",
            "--attr",
            "sex",
            "--json",
        ]
    )
    with open("/dev/full", "wb") as full:
        one_error(run(argv, stdout=full, stderr=subprocess.PIPE), "standard output")
    with open("/dev/full", "wb") as full:
        one_error(
            node("profile", str(d / "ok.csv"), stdout=full, stderr=subprocess.PIPE),
            "standard output",
        )


def _closed_pipe_run(cmd: list[str]) -> subprocess.CompletedProcess:
    r, w = os.pipe()
    os.close(r)  # nobody will ever read: the first write fails with EPIPE
    try:
        return run(cmd, stdout=w, stderr=subprocess.PIPE)
    finally:
        os.close(w)


def test_broken_pipe_exits_141_quietly(d: Path) -> None:
    for cmd in (
        [*PY, "profile", str(d / "ok.csv"), "--json"],
        [*PY, "profile", str(d / "ok.csv")],
        [
            *EVAL,
            str(d / "ok.csv"),
            "--pred",
            "age",
            "--task",
            "regression",
            "--decision-threshold",
            "35",
            "--attr",
            "sex",
        ],
        [*node_command(), str(BRIDGE), "profile", str(d / "ok.csv")],
    ):
        p = _closed_pipe_run(cmd)
        assert p.returncode == 141, (cmd, p.stderr)
        assert p.stderr == b"", p.stderr


def test_closed_stdout(d: Path) -> None:
    script = f"exec {' '.join(map(_q, [*PY, 'profile', str(d / 'ok.csv')]))} >&-"
    p = run(["bash", "-c", script])
    one_error(p, "standard output is closed")


def test_symlink_loop_and_broken_link(d: Path) -> None:
    (d / "l1").symlink_to(d / "l2")
    (d / "l2").symlink_to(d / "l1")
    (d / "dangling").symlink_to(d / "nowhere")
    for target, needle in (("l1", "symbolic link loop"), ("dangling", "broken symbolic link")):
        py = one_error(run([*PY, "profile", str(d / target)]), needle)
        js = one_error(node("profile", str(d / target)), needle)
        assert py == js
        one_error(run([*EVAL, str(d / target), "--pred", "p", "--attr", "g"]), needle)


@pytest.mark.skipif(ROOT_USER, reason="root reads every file")
def test_unreadable_file(d: Path) -> None:
    f = d / "secret.csv"
    f.write_text("a\n1\n")
    f.chmod(0)
    py = one_error(run([*PY, "profile", str(f)]), "permission denied")
    assert py == one_error(node("profile", str(f)))


def test_directory_inputs(d: Path) -> None:
    py = one_error(run([*PY, "profile", str(d)]), "is a directory")
    assert py == one_error(node("profile", str(d)))
    ok_csv = str(d / "ok.csv")
    py = one_error(
        run([*PY, "profile", ok_csv, "--reference", str(d)]), f"--reference: {d}: is a directory"
    )
    assert py == one_error(node("profile", ok_csv, "--reference", str(d)))


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--fail-under", "abc"], "--fail-under: 'abc' is not a number"),
        (["--fail-under", "101"], "--fail-under: 101 is out of range"),
        (["--names", ""], "--names: give at least one column name"),
        (["--age-bands", "0,18,"], "--age-bands: 0,18, is out of range"),
        (["--age-bands", "0,,18"], "--age-bands: 0,,18 is out of range"),
        (["--map", "sex=sex", "--map", "sex=ignore"], "--map: 'sex' is given twice"),
        (["--map", "nope=sex"], "--map: no column named 'nope'"),
    ],
)
def test_option_errors(d: Path, args: list[str], needle: str) -> None:
    one_error(run([*PY, "profile", str(d / "ok.csv"), *args]), needle)


def test_repeated_identical_map_is_fine(d: Path) -> None:
    ok(run([*PY, "profile", str(d / "ok.csv"), "--map", "sex=sex", "--map", "sex=sex"]))


def test_missing_file_everywhere(d: Path) -> None:
    nope = str(d / "nope.csv")
    py = one_error(run([*PY, "profile", nope]), "no such file")
    assert py == one_error(node("profile", nope))
    one_error(run([*PY, "compare", nope, str(d / "ok.csv")]), "no such file")
    one_error(run([*EVAL, nope, "--pred", "p", "--attr", "g"]), "no such file")


def test_reference_through_a_pipe_in_both_engines(d: Path) -> None:
    (d / "ref.csv").write_text("column,group,share\nsex,M,0.5\nsex,F,0.5\n")
    env = dict(os.environ, F=str(d / "ref.csv"), OK=str(d / "ok.csv"))
    for cmd in ([*PY, "profile", "--json"], [*node_command(), str(BRIDGE), "profile"]):
        script = " ".join(map(_q, cmd)) + ' "$OK" --reference <(cat "$F")'
        res = json.loads(ok(run(["bash", "-c", script], env=env)))
        assert res["dimensions"][0]["reference"] is not None


@pytest.mark.parametrize(
    "dev, needle",
    [
        ("/dev/zero", "byte 0: NUL byte"),
        ("/dev/null", "file is empty"),
        # random bytes: usually an invalid byte, but now and then a valid first line, so
        # the one line may name missing columns instead; it always names the device
        ("/dev/urandom", "/dev/urandom: "),
    ],
)
def test_character_devices(dev: str, needle: str) -> None:
    if not Path(dev).exists():
        pytest.skip(f"no {dev}")
    py = one_error(run([*PY, "profile", dev]), needle)
    if dev != "/dev/urandom":  # random bytes: the first bad byte may differ in kind
        assert py == one_error(node("profile", dev))
    one_error(run([*EVAL, dev, "--pred", "p", "--attr", "g"]), needle)


def test_compare_reads_two_pipes(d: Path) -> None:
    env = dict(os.environ, OK=str(d / "ok.csv"))
    script = " ".join(map(_q, [*PY, "compare"])) + ' <(cat "$OK") <(cat "$OK")'
    assert "3 -> 3 rows" in ok(run(["bash", "-c", script], env=env))


def test_monitor_reads_bom_gzip_and_tsv(d: Path) -> None:
    import gzip

    text = "\ufeffg,pred\nA,1\nB,0\n"
    (d / "b.csv").write_text(text, encoding="utf-8")
    (d / "b.csv.gz").write_bytes(gzip.compress(text.encode()))
    (d / "b.tsv").write_text(text.replace(",", "\t"))
    for name in ("b.csv", "b.csv.gz", "b.tsv"):
        r = evaluate_json(d / name, "--attr", "g", "--min-samples", "1")
        assert [s["key"]["g"] for s in r["groups"][0]["slices"]] == ["A", "B"], name
    (d / "bad.csv.gz").write_bytes(b"not gzip at all")
    one_error(run([*EVAL, str(d / "bad.csv.gz"), "--pred", "pred", "--attr", "g"]), "bad.csv.gz")


def test_monitor_module_entry_point_broken_pipe(d: Path) -> None:
    p = _closed_pipe_run(
        [
            sys.executable,
            "-m",
            "faircode.monitor",
            "fairness",
            "evaluate",
            str(d / "ok.csv"),
            "--engine",
            "pandas",
            "--pred",
            "age",
            "--task",
            "regression",
            "--decision-threshold",
            "35",
            "--attr",
            "sex",
        ]
    )
    assert p.returncode == 141 and p.stderr == b"", p.stderr


def test_monitor_typed_values_that_python_calls_equal_stay_apart(d: Path) -> None:
    f = d / "t.jsonl"
    f.write_text(
        '{"g": true, "pred": 1}\n{"g": 1, "pred": 0}\n{"g": 1.0, "pred": 0}\n'
        '{"g": null, "pred": 0}\n{"g": "1", "pred": 1}\n'
    )
    r = evaluate_json(f, "--attr", "g", "--min-samples", "1")
    keys = [s["key"]["g"] for s in r["groups"][0]["slices"]]
    assert len(keys) == 5 and keys[-1] is None
    assert {repr(k) for k in keys[:-1]} == {"True", "1", "1.0", "'1'"}


def test_monitor_refuses_arrow_ipc_clearly(d: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    f = d / "t.csv"  # named .csv, but the bytes decide
    with pa.ipc.new_file(str(f), pa.schema([("g", pa.string())])) as w:
        w.write_table(pa.table({"g": ["a"]}))
    one_error(run([*EVAL, str(f), "--pred", "p", "--attr", "g"]), "an Arrow IPC file")
    one_error(
        run([*EVAL, "-", "--pred", "p", "--attr", "g"], stdin=f.read_bytes()),
        "<stdin>: an Arrow IPC file",
    )


def test_shown_is_the_same_function_in_both_engines(d: Path) -> None:
    edges = [
        *range(1, 0x22),
        0x7E,
        0x7F,
        *range(0x80, 0xA2),
        0x061B,
        0x061C,
        0x061D,
        *range(0x200C, 0x2011),
        *range(0x2027, 0x2030),
        *range(0x2065, 0x206B),
        0xA0,
        0xAD,
        0x200B,
        0x2060,
        0x3164,
        0xFEFF,
        0x1F600,
        0xE0041,
    ]
    name = "".join(chr(c) for c in edges if chr(c) not in '",') + "z"
    f = d / "all.csv"
    f.write_bytes(('"' + name + '",b\n1,2\n').encode("utf-8"))
    py = one_error(run([*PY, "profile", str(f), "--map", "nope=sex"]))
    js = one_error(node("profile", str(f), "--overrides", json.dumps({"nope": "sex"})))
    assert py == js
    assert "\\x1f" in py and "\\x7f" in py and "\\x9f" in py and "\\u2069" in py
    assert "\\xa0" in py and "\\ufeff" in py and "\\u200b" in py and "\\U000e0041" in py
    assert "\U0001f600" in py  # printable: kept


def _js_unsafe(path: Path) -> str:
    """The UNSAFE class of a JS file, as written (whitespace between pieces dropped)."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r"const UNSAFE = new RegExp\((.*?)\);", text, re.S)
    assert m, path
    return re.sub(r"'\s*\+\s*'", "", m.group(1))


def test_shown_is_one_rule_on_every_code_point() -> None:
    """SPEC 0.6: the Python `shown`, the bridge's and the views' escape the same code
    points the same way, on all of Unicode (not only the edges above)."""
    views = ROOT / "site" / "views.js"
    assert _js_unsafe(BRIDGE) == _js_unsafe(views)
    script = (
        f"require({json.dumps(str(views))}); const s = globalThis.FaircodeViews.shown; "
        "const out = []; for (let c = 0; c < 0x110000; c++) { "
        "if (c >= 0xd800 && c <= 0xdfff) continue; const ch = String.fromCodePoint(c); "
        "const t = s(ch); if (t !== ch) out.push([c, t]); } "
        "process.stdout.write(JSON.stringify(out));"
    )
    p = run([*node_command(), "-e", script])
    assert p.returncode == 0, p.stderr
    js = json.loads(p.stdout)
    py = [
        [c, shown(chr(c))]
        for c in range(0x110000)
        if not 0xD800 <= c <= 0xDFFF and shown(chr(c)) != chr(c)
    ]
    assert js == py
    assert len(py) == 257  # the ranges of SPEC 0.6, counted


def test_invisible_characters_in_labels_are_shown(d: Path) -> None:
    """Four groups that print as 'Male' (a zero-width joiner, a zero-width space, a BOM
    inside, an NBSP) are told apart in the text and Markdown reports; counts and the
    JSON labels are the raw text."""
    labels = ["Male", "Ma\u200dle", "Male\u200b", "\ufeffMale", "Male\u00a0"]
    f = d / "zw.csv"
    f.write_text("sex\n" + "\n".join(labels * 3 + ["Female"] * 4) + "\n", encoding="utf-8")
    p = run([*PY, "profile", str(f), "--json"])
    got = {g["label"]: g["count"] for g in json.loads(p.stdout)["dimensions"][0]["groups"]}
    assert got == {**dict.fromkeys(labels, 3), "Female": 4}
    text = run([*PY, "profile", str(f)]).stdout.decode()
    md = run([*PY, "profile", str(f), "--markdown", "-"]).stdout.decode()
    for out, slash in ((text, "\\"), (md, "\\\\")):  # Markdown escapes the backslash
        for seen in ("Ma|u200dle", "Male|u200b", "|ufeffMale", "Male|xa0"):
            assert seen.replace("|", slash) in out, (seen, out)
        assert not re.search("[\u200b-\u200d\ufeff\u00a0]", out), out


# ---------------------------------------------------------------- outputs never replace an input
# (issue 25) An output is compared with every input by device and inode, so a hard link,
# a symbolic link, the --reference or --proxy-hints-with file, either side of compare,
# the file standard input reads or a file a glob matches is refused before anything is
# read, with one line naming both; two outputs to one file are refused the same way.


def _link(src: Path, dst: Path) -> Path:
    os.link(src, dst)
    return dst


OVERWRITES = {
    # name: (argv after faircode, given d; the file that must survive; needles)
    "hard link of the input": (
        lambda d: ["profile", str(d / "ok.csv"), "--csv", str(_link(d / "ok.csv", d / "l.csv"))],
        "ok.csv",
        ["--csv ", "l.csv: is an input file (the same file as the input ", "ok.csv)"],
    ),
    "symbolic link of the input": (
        lambda d: ["profile", str(d / "ok.csv"), "--markdown", str(d / "s.md")],
        "ok.csv",
        ["--markdown ", "s.md: is an input file (the same file as the input ", "ok.csv)"],
    ),
    "the --reference file": (
        lambda d: (
            ["profile", str(d / "ok.csv"), "--reference", str(d / "ref.csv")]
            + ["--csv", str(d / "ref.csv")]
        ),
        "ref.csv",
        ["ref.csv: is an input file (the same file as --reference ", "ref.csv)"],
    ),
    "the --proxy-hints-with file": (
        lambda d: (
            ["profile", str(d / "ok.csv"), "--proxy-hints"]
            + ["--proxy-hints-with", f"{d / 'held.csv'}=race", "--html", str(d / "held.csv")]
        ),
        "held.csv",
        ["--html ", "held.csv: is an input file (the same file as --proxy-hints-with "],
    ),
    "compare's side B through a hard link": (
        lambda d: (
            ["compare", str(d / "ok.csv"), str(d / "b.csv")]
            + ["--markdown", str(_link(d / "b.csv", d / "bl.md"))]
        ),
        "b.csv",
        ["bl.md: is an input file (the same file as the input ", "b.csv)"],
    ),
    "compare's side A as --html": (
        lambda d: ["compare", str(d / "ok.csv"), str(d / "b.csv"), "--html", str(d / "ok.csv")],
        "ok.csv",
        ["--html ", "ok.csv: is an input file", "write the report elsewhere"],
    ),
    "evaluate's FILE through a hard link": (
        lambda d: (
            ["fairness", "evaluate", str(d / "p.csv"), "--pred", "pred", "--attr", "g"]
            + ["--csv", str(_link(d / "p.csv", d / "pl.csv"))]
        ),
        "p.csv",
        ["pl.csv: is an input file (the same file as the input ", "p.csv)"],
    ),
    "evaluate's FILE as --html": (
        lambda d: (
            ["fairness", "evaluate", str(d / "p.csv"), "--pred", "pred", "--attr", "g"]
            + ["--html", str(d / "p.csv")]
        ),
        "p.csv",
        ["--html ", "p.csv: is an input file", "write the report elsewhere"],
    ),
    "a file of the glob": (
        lambda d: ["profile", str(d / "parts" / "*.csv"), "--csv", str(d / "parts" / "2.csv")],
        "parts/2.csv",
        ["2.csv: is an input file (the same file as the input ", "parts/2.csv)"],
    ),
    "two outputs to one file": (
        lambda d: (
            ["profile", str(d / "ok.csv"), "--csv", str(d / "o.txt")]
            + ["--markdown", str(d / "o.txt")]
        ),
        "o.txt",
        ["o.txt: is also the path of --", "; give each output its own path"],
    ),
}


@pytest.mark.parametrize("case", list(OVERWRITES))
def test_no_output_overwrites_an_input(d: Path, case: str) -> None:
    argv, keep, needles = OVERWRITES[case]
    (d / "ref.csv").write_text("column,group,share\nsex,M,0.5\nsex,F,0.5\n")
    (d / "held.csv").write_text("race\nX\nY\nX\n")
    (d / "b.csv").write_text("sex,race,age\nF,A,30\nF,B,40\nM,A,50\n")
    (d / "p.csv").write_text("g,pred\nA,1\nB,0\n")
    (d / "o.txt").write_text("an earlier output\n")
    (d / "s.md").symlink_to(d / "ok.csv")
    (d / "parts").mkdir()
    for i in (1, 2):
        (d / "parts" / f"{i}.csv").write_text("sex,race\nM,A\nF,B\n")
    args = argv(d)
    before = {p: p.read_bytes() for p in d.rglob("*") if p.is_file()}
    one_error(run([*PY, *args]), *needles)
    assert (d / keep).read_bytes() == before[d / keep]
    assert {p: p.read_bytes() for p in d.rglob("*") if p.is_file()} == before


def test_several_paths_take_no_html(d: Path) -> None:
    """Each file's report would overwrite the last, and a later input (it was)."""
    b = d / "b.csv"
    b.write_text("sex,race\nM,A\nF,B\n")
    before = b.read_bytes()
    one_error(
        run([*PY, "profile", str(d / "ok.csv"), str(b), "--html", str(b)]),
        "several PATHs print one text or Markdown report each; for --json, --csv or --html",
    )
    assert b.read_bytes() == before


def test_no_output_overwrites_the_file_standard_input_reads(d: Path) -> None:
    f = d / "ok.csv"
    before = f.read_bytes()
    with open(f, "rb") as stdin:
        p = subprocess.run(
            [*PY, "profile", "-", "--csv", str(f)],
            stdin=stdin,
            capture_output=True,
            timeout=TIMEOUT,
            preexec_fn=_limit,
        )
    one_error(p, "ok.csv: is an input file (the same file as the standard input)")
    assert f.read_bytes() == before


def test_the_input_check_leaves_special_files_alone(d: Path) -> None:
    """A terminal, /dev/null or a pipe is no input file to protect: `-` and /dev/stdout
    may be one device, and several outputs may go to /dev/null."""
    out = ok(
        run(
            [*PY, "profile", "-", "--csv", "/dev/null", "--markdown", "/dev/null"],
            stdin=(d / "ok.csv").read_bytes(),
        )
    )
    assert "3 rows" in out


# ---------------------------------------------------------------- any stdout encoding
# (issue 25) An output that cannot encode the report's characters gets ASCII bars and
# `\uXXXX` escapes (valid JSON stays valid and exact), never a UnicodeEncodeError.

NON_UTF8 = {
    "PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
    "C locale, no coercion": {
        "LC_ALL": "C",
        "LANG": "C",
        "PYTHONCOERCECLOCALE": "0",
        "PYTHONUTF8": "0",
        "PYTHONIOENCODING": None,
    },
}
LABELS = "sex,race,age\nM,Métis,30\nF,Black,40\nF,中文,50\nM,Métis,22\nF,█…,33\n"


def _env(which: str) -> dict[str, str]:
    env = dict(os.environ)
    for k, v in NON_UTF8[which].items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def ascii_ok(p: subprocess.CompletedProcess, *codes: int) -> str:
    err = p.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "UnicodeEncodeError" not in err, err
    assert p.returncode in (codes or (0,)), (p.returncode, err)
    return p.stdout.decode("ascii")  # every byte ASCII


@pytest.mark.parametrize("which", list(NON_UTF8))
def test_profile_and_compare_on_a_non_utf8_stdout(d: Path, which: str) -> None:
    env = _env(which)
    plain = d / "ok.csv"
    f = d / "labels.csv"
    f.write_text(LABELS, encoding="utf-8")
    text = ascii_ok(run([*PY, "profile", str(plain)], env=env))
    assert "  M     ################         66.67%" in text  # ASCII bars, same widths
    text = ascii_ok(run([*PY, "profile", str(f)], env=env))
    assert "M\\u00e9tis" in text and "\\u4e2d\\u6587" in text and "  F     ###" in text
    assert "\\u2588" in text  # a label holding a bar character is escaped, not a bar
    out = ascii_ok(run([*PY, "profile", str(f), "--json"], env=env))
    labels = {g["label"] for dim in json.loads(out)["dimensions"] for g in dim["groups"]}
    assert {"Métis", "中文", "█…"} <= labels  # exact through the escapes
    for form in ("markdown", "csv"):
        assert "M\\u00e9tis" in ascii_ok(run([*PY, "profile", str(f), "--format", form], env=env))
    text = ascii_ok(run([*PY, "compare", str(plain), str(f)], env=env))
    assert "M\\u00e9tis" in text and "->" in text
    ascii_ok(run([*PY, "compare", str(f), str(f), "--json"], env=env))
    assert "usage:" in ascii_ok(run([*PY, "profile", "--help"], env=env))


@pytest.mark.parametrize(
    "which",
    # the monitor's commands start pandas in ~25 processes: the second way to a
    # non-UTF-8 stdout is a deep case (the profile commands above take both)
    [
        pytest.param(w, marks=[pytest.mark.deep] if w != "C locale, no coercion" else [])
        for w in NON_UTF8
    ],
)
def test_fairness_commands_on_a_non_utf8_stdout(d: Path, which: str) -> None:
    env = _env(which)
    env.update(FAIRCODE_DB=str(d / "store.db"), FAIRCODE_ACTOR="test")
    preds = d / "p.csv"
    preds.write_text(
        "id,g,pred,label\n"
        + "".join(
            f"{i},{'Métis' if i % 2 else '中文'},{i // 3 % 2},{i // 2 % 2}\n" for i in range(60)
        ),
        encoding="utf-8",
    )
    (d / "fairness.yaml").write_text(
        "models:\n  m:\n    slices: [g]\n    threshold: 0.9\n    min_samples: 5\n"
        "    gate: true\n    enabled: true\n"
    )
    fair = [*PY, "fairness"]
    text = ascii_ok(
        run([*EVAL, str(preds), "--pred", "pred", "--label", "label", "--attr", "g"], env=env)
    )
    assert "M\\u00e9tis" in text
    for form in ("--json", "--format=markdown", "--format=csv"):
        ascii_ok(run([*EVAL, str(preds), "--pred", "pred", "--attr", "g", form], env=env))
    ascii_ok(
        run(
            [
                *fair,
                "log",
                "m",
                str(preds),
                "--version",
                "v1",
                "--id",
                "id",
                "--pred",
                "pred",
                "--attr",
                "g",
            ],
            env=env,
            cwd=d,
        )
    )
    ascii_ok(
        run([*fair, "label", "m", str(preds), "--id", "id", "--label", "label"], env=env, cwd=d)
    )
    for argv in (
        ["show", "m"],
        ["report", "m"],
        ["report", "m", "--markdown"],
        ["report", "m", "--json"],
        ["slice", "m", "g"],
        ["slice", "m", "g", "--json"],
        ["audit", "m"],
        ["audit", "m", "--verify"],
        ["validate"],
    ):
        ascii_ok(run([*fair, *argv], env=env, cwd=d))
    assert "M\\u00e9tis" in ascii_ok(run([*fair, "slice", "m", "g"], env=env, cwd=d))
    ascii_ok(run([*fair, "gate", "m", "--version", "v1"], env=env, cwd=d), 0, 1, 3)
    ascii_ok(run([*fair, "gate", "m", "--version", "v1", "--json"], env=env, cwd=d), 0, 1, 3)


# ---------------------------------------------------------------- help into a full disk


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["profile", "--help"],
        ["compare", "--help"],
        ["fairness", "--help"],
        ["fairness", "evaluate", "--help"],
        ["fairness", "report", "--help"],
    ],
)
def test_help_and_version_into_dev_full_are_an_error(argv: list[str]) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    for cmd in ([*PY, *argv], [sys.executable, "-m", "faircode.monitor", *argv]):
        if cmd[2] == "faircode.monitor" and argv[0] in ("--version", "profile", "compare"):
            continue
        with open("/dev/full", "wb") as full:
            one_error(
                run(cmd, stdout=full, stderr=subprocess.PIPE),
                "cannot write to standard output (No space left on device)",
            )


# ---------------------------------------------------------------- the Python API


def test_api_compare_takes_paths(d: Path) -> None:
    import faircode

    a, b = d / "ok.csv", d / "b.csv"
    b.write_text("sex,race,age\nF,A,30\nF,B,40\nM,A,50\nF,B,60\n")
    opts = {"min_share": 0.2}
    want = faircode.compare(
        faircode.profile(str(a), opts=opts), faircode.profile(b, opts=opts), opts=opts
    )
    assert faircode.compare(str(a), b, opts=opts) == want  # str or PathLike
    saved = d / "a.json"
    with open(saved, "wb") as fh:
        ok(run([*PY, "profile", str(a), "--json", "--min-share", "0.2"], stdout=fh))
    assert faircode.compare(saved, b, opts=opts) == want  # a saved profile --json is a side
    with pytest.raises(faircode.InputError, match="profiled with other options"):
        faircode.compare(saved, b)
    with pytest.raises(faircode.InputError, match="no such file"):
        faircode.compare(d / "nope.csv", b)
    with pytest.raises(faircode.InputError, match="cannot profile a int"):
        faircode.compare(3, b)  # type: ignore[arg-type]


#: Every defect of the reliability and security pass (issue 25), the line it now gets or
#: the behaviour that holds, and the test that reproduces it (each failed on the code
#: before its fix). The test below keeps this index honest: every test it names exists.
ISSUE_25_CASES = [
    (
        "MCP: a name swapped for a link out of the root mid-call",
        "the outside file is never read",
        "surfaces/test_mcp_confinement.py::test_a_name_swapped_for_a_link_out_is_never_read",
    ),
    (
        "MCP: the same race through the mcp client over stdio",
        "0 outside reads in 200 calls",
        "surfaces/test_mcp_confinement.py::test_the_race_through_the_mcp_client_over_stdio",
    ),
    (
        "MCP: a glob through a link to .. names an outside file",
        "`no file matches this pattern`",
        "surfaces/test_mcp_confinement.py::test_a_glob_never_names_a_file_behind_a_link_out",
    ),
    (
        "MCP: a glob through a -> . and b -> . hangs",
        "returns at once, `no file matches`",
        "surfaces/test_mcp_confinement.py::test_a_glob_through_directory_links_returns_promptly",
    ),
    (
        "MCP: a FIFO swapped in between check and open",
        "no call blocks",
        "surfaces/test_mcp_confinement.py::test_a_fifo_swapped_in_never_blocks_a_call",
    ),
    (
        "MCP: stdin closed during a long call",
        "the server exits",
        "surfaces/test_mcp_confinement.py::test_the_server_exits_when_stdin_closes_during_a_long_call",
    ),
    (
        "--html/--csv/--markdown on a full disk",
        "`... (No space left on device); free some space there; any old file is unchanged`",
        "surfaces/test_atomic_exports.py::test_a_full_disk_keeps_the_old_file",
    ),
    (
        "a real 64 KiB tmpfs filling up",
        "every old file intact",
        "surfaces/test_atomic_exports.py::test_a_real_full_tmpfs_keeps_every_old_file",
    ),
    (
        "--csv to a hard link of the input, --reference, --proxy-hints-with",
        "`--csv PATH: is an input file (the same file as ...); write the export elsewhere`",
        "engine/test_hostile.py::test_no_output_overwrites_an_input",
    ),
    (
        "audit rows deleted from the tail, or the chain rewritten",
        "`audit --verify --head H` names the missing rows or the row whose hash differs",
        "monitor/test_monitor_store_edges.py::test_audit_head_detects_tail_deletion_and_a_rewritten_chain",
    ),
    (
        "nested Parquet / Arrow / polars columns",
        "listed in `dropped` with why; the rest profiles",
        "engine/test_typed_inputs.py::test_nested_parquet_columns_are_listed_and_the_rest_profiles",
    ),
    (
        "pandas list or dict cells",
        "listed in `dropped` with why",
        "engine/test_typed_inputs.py::test_pandas_list_and_dict_cells",
    ),
    (
        "True, 1 and 1.0 in one object column",
        "the groups of the frame's CSV",
        "engine/test_typed_inputs.py::test_mixed_types_in_an_object_column_equal_the_csv",
    ),
    (
        "labels 1e300 and epoch times out of the ISO range at ingest",
        "refused naming line and id",
        "monitor/test_monitor_store_edges.py::test_huge_values_and_times_outside_the_iso_range_are_refused_at_ingest",
    ),
    (
        "binary labels 2, -1, 0.5",
        "refused naming the line and the request id",
        "monitor/test_monitor_store_edges.py::test_binary_labels_other_than_0_1_are_refused_naming_line_and_request_id",
    ),
    (
        "reports over an older store's bad rows",
        "one line naming the rows; remove-batch repairs",
        "monitor/test_monitor_store_edges.py::test_bad_rows_of_an_older_store_give_one_line_then_remove_batch_repairs",
    ),
    (
        "PYTHONIOENCODING=ascii",
        "ASCII bars and escapes, never a traceback",
        "engine/test_hostile.py::test_profile_and_compare_on_a_non_utf8_stdout",
    ),
    ("profile x.csv.gz", "read as CSV", "engine/test_sniffing.py::test_gzip_csv_is_read_streaming"),
    (
        "an Arrow IPC stream named .csv",
        "read as Arrow",
        "engine/test_sniffing.py::test_arrow_ipc_stream_named_csv_is_read_as_arrow",
    ),
    (
        "zero-width joiners and NBSP in labels",
        "shown as escapes in both engines",
        "engine/test_hostile.py::test_invisible_characters_in_labels_are_shown",
    ),
    (
        "a store on read-only media",
        "opened read-only and readable",
        "monitor/test_monitor_store_edges.py::test_a_store_this_process_cannot_write_is_opened_read_only",
    ),
    (
        "a 1 MB label",
        "capped at 200 characters in every output",
        "engine/test_label_bound.py::test_a_1mb_label_is_capped_in_every_output",
    ),
    (
        "--help / --version into /dev/full",
        "`cannot write to standard output ...`, exit 2",
        "engine/test_hostile.py::test_help_and_version_into_dev_full_are_an_error",
    ),
    (
        "a SQLite file of another application",
        "refused unless empty",
        "monitor/test_monitor_store_edges.py::test_a_foreign_sqlite_file_is_refused_unless_empty",
    ),
    (
        "faircode.compare('a.csv', 'b.csv')",
        "each side profiled with the call's options",
        "engine/test_hostile.py::test_api_compare_takes_paths",
    ),
]


def test_every_issue_25_case_names_a_test_that_exists() -> None:
    tests = ROOT / "tests"
    for defect, _line, node in ISSUE_25_CASES:
        file, name = node.split("::")
        text = (tests / file).read_text(encoding="utf-8")
        assert f"\ndef {name}(" in text, f"{defect}: no test {node}"
