"""The command line: output, exit codes and one-line errors for bad input."""

import json
import subprocess
import sys

import pytest
from util import ADULT_NAMES, data_file


def run(*args, stdin: bytes | None = None):
    return subprocess.run(
        [sys.executable, "-m", "faircode", *args], input=stdin, capture_output=True, timeout=120
    )


def test_sample_report_leads_with_score_and_grade():
    p = run("profile", "--sample")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    # score v3 (SPEC 5): COMPAS 82 [80, 83] B (sex 71, age 88, age_cat 89, race 78)
    assert out.startswith("Score 82/100 [80-83]  grade B")
    assert "African-American" in out and "Findings and notes (" in out
    assert "Flags (" not in out


def test_json_output_and_published_counts():
    p = run("profile", str(data_file("compas-scores-two-years.csv")), "--json")
    assert p.returncode == 0
    result = json.loads(p.stdout)
    race = next(d for d in result["dimensions"] if d["name"] == "race")
    assert {g["label"]: g["count"] for g in race["groups"]}["African-American"] == 3696


def test_map_cross_thresholds_and_stdin():
    data = b"gndr,ethnicity,x\nm,A,1\nf,B,1\nf,A,1\n"
    p = run(
        "profile",
        "-",
        "--json",
        "--map",
        "gndr=sex",
        "--cross",
        "ethnicity,gndr",
        "--min-share",
        "0.4",
        "--min-group-size",
        "2",
        stdin=data,
    )
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["dimensions"][0]["kind"] == "sex"
    assert r["intersections"][0]["dims"] == ["ethnicity", "gndr"]
    assert r["dimensions"][0]["under_represented"] == ["m"]


def test_fail_under_exit_codes():
    assert run("profile", "--sample", "--fail-under", "82").returncode == 0
    p = run("profile", "--sample", "--fail-under", "83")
    assert p.returncode == 1 and b"below --fail-under 83" in p.stderr
    # --score-rule v2 gates on version 2's number, 74
    assert run("profile", "--sample", "--score-rule", "v2", "--fail-under", "74").returncode == 0
    p = run("profile", "--sample", "--score-rule", "v2", "--fail-under", "75")
    assert p.returncode == 1 and b"below --fail-under 75" in p.stderr


def test_headerless_adult():
    p = run("profile", str(data_file("adult.data")), "--names", ADULT_NAMES, "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)["n_rows"] == 32561


@pytest.fixture
def bad_files(tmp_path):
    files = {
        "empty": b"",
        "header_only": b"sex,race\n",
        "binary": b"data format 3\x01\x02\x00\x10\x00\x01\x01",
        "sqlite": b"SQLite format 3\x00\x10\x00\x01\x01",
        "png": b"\x89PNG\r\n\x1a\n\x00",
        "utf8": b"sex\nM\n\xe9\n",
        "ragged": b"sex,race\nM,A\nF,B,C\n",
    }
    for name, data in files.items():
        (tmp_path / f"{name}.csv").write_bytes(data)
    return tmp_path


@pytest.mark.parametrize(
    "case,args,message",
    [
        ("missing path", ["{d}/nope.csv"], "{d}/nope.csv: no such file"),
        ("directory", ["{d}"], "{d}: is a directory, not a file"),
        ("empty file", ["{d}/empty.csv"], "{d}/empty.csv: file is empty"),
        (
            "header only",
            ["{d}/header_only.csv"],
            "{d}/header_only.csv: no data rows, only a header",
        ),
        (
            "binary",
            ["{d}/binary.csv"],
            "{d}/binary.csv: byte 15: NUL byte; this looks like a binary",
        ),
        ("sqlite", ["{d}/sqlite.csv"], "{d}/sqlite.csv: an SQLite database, not CSV"),
        ("png", ["{d}/png.csv"], "{d}/png.csv: a PNG image, not a table"),
        ("invalid utf-8", ["{d}/utf8.csv"], "{d}/utf8.csv: byte 6: not valid UTF-8"),
        ("ragged row", ["{d}/ragged.csv"], "{d}/ragged.csv: line 3: 3 fields but the header has 2"),
        ("unknown column", ["--sample", "--map", "gnder=sex"], "--map: no column named 'gnder'"),
        ("unknown kind", ["--sample", "--map", "sex=gender"], "--map: unknown kind 'gender'"),
        ("bad map", ["--sample", "--map", "sex"], "--map: expected COLUMN=KIND, got 'sex'"),
        ("out of range", ["--sample", "--min-share", "1.5"], "--min-share: 1.5 is out of range"),
        (
            "not a number",
            ["--sample", "--imbalance-flag", "x"],
            "--imbalance-flag: x is not a number (>= 1)",
        ),
        (
            "fail-under range",
            ["--sample", "--fail-under", "101"],
            "--fail-under: 101 is out of range",
        ),
        ("no path", [], "profile needs a PATH"),
        ("unknown option", ["--sample", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(bad_files, case, args, message):
    p = run("profile", *[a.format(d=bad_files) for a in args])
    err = p.stderr.decode()
    assert p.returncode == 2, (case, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("faircode: error: " + message.format(d=bad_files)), err


COMPAS_EVAL = [
    "fairness",
    "evaluate",
    str(data_file("compas-scores-two-years.csv")),
    "--score",
    "decile_score",
    "--decision-threshold",
    "5",
    "--label",
    "two_year_recid",
    "--attr",
    "race",
    "--engine",
    "pandas",
]


def _main(capsys, *args):
    from faircode.cli import main

    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_format_option(capsys):
    """--format picks the renderer; --json, --markdown and --csv (no PATH, or -) are its
    aliases (SPEC 12.11, 6.1)."""
    sample = ["profile", "--sample"]
    assert _main(capsys, *sample, "--format", "json")[1] == _main(capsys, *sample, "--json")[1]
    text = _main(capsys, *sample)[1]
    assert _main(capsys, *sample, "--format", "text")[1] == text and text.startswith("Score")
    for args in (
        [*sample, "--format", "yaml"],
        [*sample, "--json", "--format", "text"],
        [*sample, "--markdown", "--json"],
        [*sample, "--csv", "-", "--format", "markdown"],
    ):
        with pytest.raises(SystemExit) as exc:
            _main(capsys, *args)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.endswith("(see 'faircode profile --help')\n"), err
    for fmt, alias in (("json", ["--json"]), ("markdown", ["--markdown"]), ("csv", ["--csv", "-"])):
        a = _main(capsys, *COMPAS_EVAL, "--format", fmt)
        b = _main(capsys, *COMPAS_EVAL, *alias)
        assert a == b and a[0] == 0
    for fmt in ("markdown", "csv"):
        a = _main(capsys, *sample, "--format", fmt)
        assert a == _main(capsys, *sample, f"--{fmt}") and a[0] == 0
    assert _main(capsys, *COMPAS_EVAL, "--format", "text")[1] == _main(capsys, *COMPAS_EVAL)[1]
    html = _main(capsys, *COMPAS_EVAL, "--format", "html")[1]
    assert html.startswith("<!DOCTYPE html>")


def test_one_usage_error_format_for_every_command(capsys):
    from faircode.cli import build_parser

    for args, prog in (
        (["profile", "--bogus"], "faircode profile"),
        (["compare", "a"], "faircode compare"),
        (["fairness", "evaluate", "f.csv"], "faircode fairness evaluate"),
        (["fairness", "nope"], "faircode fairness"),
    ):
        with pytest.raises(SystemExit) as exc:
            build_parser().parse_args(args)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("faircode: error: ") and err.count("\n") == 1, err
        assert err.endswith(f"(see '{prog} --help')\n"), err


def test_help_defaults_come_from_options():
    from faircode.cli import build_parser
    from faircode.options import FAIRNESS_MIN_SAMPLES, FAIRNESS_THRESHOLD, Options

    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices  # noqa: SLF001
    helps = {a.dest: a.help for a in sub["profile"]._actions}  # noqa: SLF001
    d = Options()
    assert helps["min_share"].endswith(f"({d.min_share})")
    assert helps["max_age"].endswith(f"({d.max_age})")
    assert helps["age_bands"].endswith("(" + ",".join(map(str, d.age_bands)) + ")")
    assert helps["reference_flag"].endswith(f"({d.reference_flag})")
    fairness = sub["fairness"]._subparsers._group_actions[0].choices["evaluate"]  # noqa: SLF001
    fh = {a.dest: (a.help, a.default) for a in fairness._actions}  # noqa: SLF001
    assert fh["threshold"] == (
        f"largest allowed disparity (default {FAIRNESS_THRESHOLD})",
        FAIRNESS_THRESHOLD,
    )
    assert fh["min_samples"][0].endswith(f"({FAIRNESS_MIN_SAMPLES})")
    assert fh["min_samples"][1] == FAIRNESS_MIN_SAMPLES


def test_input_errors_share_one_base_with_exit_code_2():
    from faircode.errors import EXIT_INPUT, FaircodeError, InputError
    from faircode.monitor import MonitorInputError

    for cls in (InputError, MonitorInputError):
        assert issubclass(cls, FaircodeError) and cls("x").exit_code == EXIT_INPUT == 2
    assert issubclass(MonitorInputError, ValueError)


def test_renderer_registry_lists_each_commands_formats():
    from faircode.renderers import FORMATS, RENDERERS, formats_of

    assert formats_of("profile") == ("text", "json", "markdown", "csv", "html")
    assert formats_of("compare") == ("text", "json", "markdown", "csv", "html")
    assert formats_of("fairness evaluate") == FORMATS
    assert formats_of("scan") == ("text", "json", "markdown", "html")
    assert formats_of("audit ll144") == FORMATS
    assert formats_of("audit datasheet") == FORMATS  # its CSV: one row per measure
    assert formats_of("audit art10") == FORMATS
    assert set(RENDERERS) == {
        "profile", "compare", "scan", "fairness evaluate", "audit ll144", "audit datasheet",
        "audit art10",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["profile", "--sample", "--lable", "x"], "; did you mean --label?"),
        (
            ["compare", "a.csv", "b.csv", "--fail-on-dirft", "moderate"],
            "; did you mean --fail-on-drift?",
        ),
        (
            ["fairness", "evaluate", "p.csv", "--attr", "a", "--tresholds", "1"],
            "; did you mean --threshold?",
        ),
        (["profile", "--sample", "--zzz"], ""),
    ],
)
def test_an_unknown_option_suggests_the_closest(argv, suggestion):
    """Issue 27: one line, exit 2, and the closest known option when one is close."""
    p = run(*argv)
    assert p.returncode == 2
    err = p.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("faircode: error: unrecognized arguments: ")
    assert err.split(" (see '")[0].endswith(suggestion or argv[-1])


@pytest.mark.parametrize("command", [["profile"], ["compare", "B"]])
def test_html_dash_is_refused_before_reading(tmp_path, command):
    """`--html -` wrote a file named `-`; --markdown - prints, so `-` is refused with the
    way to print HTML, and nothing is written."""
    data = tmp_path / "a.csv"
    data.write_text("sex,age\nM,30\nF,40\n")
    args = [command[0], str(data)] + [str(data) for _ in command[1:]]
    p = subprocess.run(
        [sys.executable, "-m", "faircode", *args, "--html", "-"],
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert p.returncode == 2, p.stderr
    assert p.stderr.decode() == (
        "faircode: error: --html -: --html writes a file; print the HTML report with "
        "--format html\n"
    )
    assert not (tmp_path / "-").exists()


def test_an_integer_range_is_written_in_full():
    p = run("scan", str(data_file("insurance.csv")), "--seed", "-1")
    assert p.returncode == 2
    assert p.stderr.decode() == (
        "faircode: error: --seed: -1 is out of range (integer 0..4294967295)\n"
    )


def test_serve_names_a_port_out_of_range_or_in_use():
    """`serve --port`: a port outside 0..65535 is one line, not bind()'s OverflowError; a
    port another server holds names the port and the way out (another --port)."""
    import socket

    for port in ("-1", "99999999"):
        p = run("serve", "--no-open", "--port", port)
        assert p.returncode == 2
        assert p.stderr.decode() == (
            f"faircode: error: --port: {port} is out of range (0..65535; 0: any free port)\n"
        )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        p = run("serve", "--no-open", "--port", str(port))
    assert p.returncode == 2
    assert p.stderr.decode() == (
        f"faircode: error: --port {port}: the port is in use on 127.0.0.1 (another server "
        "listens there); pass another --port, or --port 0 for any free one\n"
    )


def test_compare_names_the_side_an_option_error_is_about(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("sex,y\nM,1\nF,0\n")
    b.write_text("sex\nM\nF\n")
    p = run("compare", str(a), str(b), "--label", "y")
    assert p.returncode == 2
    assert p.stderr.decode() == (
        f"faircode: error: {b} (B): --label: no column named 'y' (columns: sex)\n"
    )
    p = run("compare", str(a), str(a), "--skip-lines-b", "-3")
    assert p.returncode == 2
    assert p.stderr.decode() == (
        "faircode: error: --skip-lines-b: -3 is out of range (integer 0..)\n"
    )


def test_a_compare_option_out_of_range_names_no_file(tmp_path):
    """SPEC 7: an option holds for both files, so its range error is one line naming no
    file, given before either is read (not prefixed with A)."""
    a = tmp_path / "a.csv"
    a.write_text("sex\nM\nF\n")
    for missing in (False, True):
        b = tmp_path / ("nothing.csv" if missing else "a.csv")
        p = run("compare", str(a), str(b), "--share-gap", "2")
        assert p.returncode == 2 and not p.stdout
        assert p.stderr.decode() == "faircode: error: --share-gap: 2.0 is out of range (0..1)\n"


def test_compare_refuses_outcome(tmp_path):
    """SPEC 8, 21.1: compare has no outcome comparison, so --outcome is refused (it was
    taken, recorded in provenance and reported nowhere); its help does not offer it."""
    a = tmp_path / "a.csv"
    a.write_text("sex,y\nM,1\nF,0\n")
    for flags in (["--outcome", "y"], ["--outcome-gap", "0.5"]):
        p = run("compare", str(a), str(a), *flags)
        assert p.returncode == 2 and not p.stdout
        assert p.stderr.decode().splitlines() == [
            f"faircode: error: unrecognized arguments: {' '.join(flags)} "
            "(see 'faircode compare --help')"
        ]
    assert b"--outcome" not in run("compare", "--help").stdout
    assert b"--outcome" in run("profile", "--help").stdout


@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_fail_on_is_refused_not_a_gate_turned_off(value):
    """SPEC 18: `--fail-on "$KINDS"` with KINDS empty is one error line (exit 2), as
    `--fail-on ,` is; it does not run the profile with the gate off."""
    p = run("profile", "--sample", "--fail-on", value)
    assert p.returncode == 2 and not p.stdout
    assert p.stderr.decode().splitlines() == [
        "faircode: error: --fail-on: the value is empty; give the kinds to fail on "
        "(under_represented, imbalance, missing, reference_gap, intersection_gap, "
        "label_gap, missing_gap, outcome_gap, or any)"
    ]
