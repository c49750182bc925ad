"""`faircode fairness evaluate`: formats, gate exit codes and one-line input errors."""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd
import pytest

from faircode.monitor.cli import add_fairness_parser, run

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "faircode" / "monitor" / "schema.json"


def write(tmp_path: Path, df: pd.DataFrame, name: str = "preds.csv") -> str:
    path = tmp_path / name
    if name.endswith(".parquet"):
        df.to_parquet(path)
    elif name.endswith(".jsonl"):
        df.to_json(path, orient="records", lines=True)
    else:
        df.to_csv(path, index=False)
    return str(path)


def fair_frame(gap: int = 0, n: int = 100) -> pd.DataFrame:
    """Two groups of n; group b's predictions flip ``gap`` correct negatives to 1."""
    rows = []
    for g in ("a", "b"):
        for i in range(n):
            y = i % 2
            p = y if not (g == "b" and y == 0 and i < 2 * gap) else 1
            rows.append({"group": g, "pred": p, "label": y, "region": "n" if i < n // 2 else "s"})
    return pd.DataFrame(rows)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(["fairness", "evaluate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


BASE = ("--pred", "pred", "--label", "label", "--attr", "group", "--engine", "pandas")
POINT = ("--rule", "point")  # the seed's rule: the value alone (SPEC 12.7)


def test_within_threshold_exits_0_and_prints_the_table(tmp_path: Path, capsys) -> None:
    """Two groups of 2,000 with no gap: every interval lies below 0.1 (on 100 rows each
    the same table is insufficient evidence, below)."""
    path = write(tmp_path, fair_frame(0, n=2000))
    code, out, err = cli(capsys, path, *BASE, "--gate")
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("Slice"))
    assert header.split() == [
        "Slice",
        "N",
        "Labelled",
        "Accuracy",
        "Sel.Rate",
        "TPR",
        "FPR",
        "Guard",
    ]
    assert "demographic parity difference" in out and "equalized odds difference" in out
    assert "gate: passed" in err


def test_the_same_rows_fewer_times_are_insufficient_evidence(tmp_path: Path, capsys) -> None:
    """SPEC 12.7/12.9: no gap on 100 rows a group cannot show a disparity under 0.1: exit
    5, each straddling disparity with its interval and the rows that would settle it;
    `--rule point` passes it as before."""
    path = write(tmp_path, fair_frame(0))
    code, out, err = cli(capsys, path, *BASE, "--gate")
    assert code == 5, err
    lines = [line for line in err.splitlines() if "gate: INSUFFICIENT" in line]
    assert [line.split(":")[3].split(" = ")[0].strip() for line in lines] == [
        "demographic_parity_difference",
        "equalized_odds_difference",
    ]  # accuracy is 100% in both: its interval lies within
    assert lines[0].startswith(
        "faircode: gate: INSUFFICIENT group: demographic_parity_difference = 0 (95% CI 0.000-"
    )
    assert (
        "straddles threshold 0.1; about " in lines[0] and " rows in each of 'a' and 'b'" in lines[0]
    )
    assert "(now 100 and 100) would settle it" in lines[0]
    assert "labelled positives in each of" in lines[1]
    assert err.splitlines()[-1].startswith("faircode: gate: insufficient evidence: 2 disparities")
    assert "INSUFFICIENT (interval across 0.1" in out
    assert cli(capsys, path, *BASE, "--gate", *POINT)[0] == 0


def test_exceeded_exits_1_under_the_interval_rule(tmp_path: Path, capsys) -> None:
    """A 20-point gap on 1,000 rows a group: each interval lies above 0.1."""
    path = write(tmp_path, fair_frame(gap=200, n=1000))
    code, out, err = cli(capsys, path, *BASE, "--gate", "--json")
    assert code == 1, err
    report = json.loads(out)
    gated = {d["metric"]: d for d in report["groups"][0]["disparities"] if d["gated"]}
    assert [f["metric"] for f in report["failures"]] == list(gated)
    for f in report["failures"]:
        d = gated[f["metric"]]
        assert f["ci95"] == d["ci95"] and d["ci95"][0] > 0.1 and d["evidence"]["p_exceeds"] < 0.05
    assert [line.split(" > ")[0] for line in err.splitlines() if "gate: FAIL" in line][0] == (
        "faircode: gate: FAIL group: demographic_parity_difference = 0.2 (95% CI "
        f"{report['failures'][0]['ci95'][0]:.3f}-{report['failures'][0]['ci95'][1]:.3f})"
    )


def test_exceeded_exits_1_and_names_each_failure(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, fair_frame(gap=20))  # b: 20 of 50 negatives predicted 1
    code, out, err = cli(capsys, path, *BASE, "--gate", "--threshold", "0.15", *POINT)
    assert code == 1
    fails = [line for line in err.splitlines() if "gate: FAIL" in line]
    assert fails == [
        "faircode: gate: FAIL group: demographic_parity_difference = 0.2 > threshold 0.15",
        "faircode: gate: FAIL group: equalized_odds_difference = 0.4 > threshold 0.15",
        "faircode: gate: FAIL group: accuracy_range = 0.2 > threshold 0.15",
    ]
    assert "EXCEEDED" in out
    # without --gate the same evaluation exits 0
    assert cli(capsys, path, *BASE, "--threshold", "0.15")[0] == 0


def test_unmeasured_exits_3_unless_allowed(tmp_path: Path, capsys) -> None:
    """Both slices of 100 rows under a guard of 101: the seed's rule calls it unmeasured
    (3, or 0 with --allow-unmeasured); the interval rule calls it insufficient (5) and
    asks for rows in both slices, since more rows would measure it (SPEC 12.8). One
    slice alone is unmeasured under either rule: no number of rows adds a second."""
    path = write(tmp_path, fair_frame(0))
    code, out, err = cli(capsys, path, *BASE, "--gate", "--min-samples", "101", *POINT)
    assert code == 3
    assert "UNMEASURED group: demographic_parity_difference" in err
    assert "low-n" in out
    code, out, err = cli(
        capsys, path, *BASE, "--gate", "--min-samples", "101", "--allow-unmeasured", *POINT
    )
    assert code == 0
    assert "faircode: warning:" in err
    code, out, err = cli(capsys, path, *BASE, "--gate", "--min-samples", "101")
    assert code == 5
    assert "INSUFFICIENT group: demographic_parity_difference: no value" in err
    assert "below the low-n guard of 101" in err and "'a' and 'b' (now 100 and 100)" in err
    one = fair_frame(0)
    one = write(tmp_path, one[one["group"] == "a"], "one.csv")
    code, out, err = cli(capsys, one, *BASE, "--gate")
    assert code == 3
    assert "UNMEASURED group: demographic_parity_difference" in err


def test_the_unmeasured_verdict_names_its_cause(tmp_path: Path, capsys) -> None:
    """Slices with no labelled rows want labels, not a lower guard; slices with a value
    below the guard want a lower --min-samples (SPEC 12.8)."""
    df = fair_frame(0)
    df.loc[df["group"] == "b", "label"] = None  # b: predictions, no labels yet
    code, _, err = cli(capsys, write(tmp_path, df), *BASE, "--gate", *POINT)
    verdict = err.splitlines()[-1]
    assert code == 3 and "labels are missing (no labelled rows in 1 slice)" in verdict
    assert "--label column" in verdict and "min-samples" not in verdict
    path = write(tmp_path, fair_frame(0), "guard.csv")
    code, _, err = cli(capsys, path, *BASE, "--gate", "--min-samples", "101", *POINT)
    verdict = err.splitlines()[-1]
    assert code == 3 and "below the low-n guard: lower --min-samples" in verdict
    assert "label" not in verdict


def test_a_pass_names_the_slices_below_the_guard_it_did_not_compare(tmp_path: Path, capsys) -> None:
    """Two groups of 2,000 with no gap pass; a third of 20 rows, every one predicted 1,
    is below the guard and left out of every disparity: the pass says so (SPEC 12.9)."""
    df = fair_frame(0, n=2000)
    small = pd.DataFrame({"group": "c", "pred": 1, "label": [0, 1] * 10, "region": "n"})
    path = write(tmp_path, pd.concat([df, small], ignore_index=True))
    code, _, err = cli(capsys, path, *BASE, "--gate")
    assert code == 0, err
    assert err.splitlines()[-1] == (
        "faircode: gate: passed: every disparity within threshold 0.1; 1 slice below the "
        "low-n guard not compared (group: c): lower --min-samples or add rows to compare it"
    )
    code, _, err = cli(capsys, write(tmp_path, df, "two.csv"), *BASE, "--gate")
    assert code == 0 and err.splitlines()[-1].endswith("within threshold 0.1"), err


def test_exceeded_wins_over_unmeasured(tmp_path: Path, capsys) -> None:
    df = fair_frame(gap=20)
    df.loc[df["group"] == "b", "label"] = None  # b has predictions but no labels
    path = write(tmp_path, df)
    code, _, err = cli(capsys, path, *BASE, "--gate", *POINT)
    assert code == 1
    assert "FAIL group: demographic_parity_difference" in err
    assert "UNMEASURED group: accuracy_range" in err


def bad_inputs(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    good = write(tmp_path, fair_frame(0))
    nonbin = fair_frame(0)
    nonbin.loc[3, "label"] = 2
    text_pred = fair_frame(0).astype({"pred": object})
    text_pred.loc[5, "pred"] = "yes"
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    header_only = tmp_path / "header.csv"
    header_only.write_text("group,pred,label\n")
    return {
        "missing column": ([good, "--pred", "pred", "--attr", "race"], "'race' (--attr)"),
        "missing label column": (
            [good, "--pred", "pred", "--label", "y", "--attr", "group"],
            "'y' (--label)",
        ),
        "non-binary label": (
            [write(tmp_path, nonbin, "nonbin.csv"), *BASE],
            "label column 'label' has 3 classes (0, 1, 2); faircode evaluates binary or "
            "regression models",
        ),
        "non-numeric prediction": (
            [write(tmp_path, text_pred, "text.csv"), *BASE],
            "prediction column 'pred' is not numeric (found 'yes')",
        ),
        "empty file": ([str(empty), *BASE], "empty.csv: file is empty"),
        "header only": ([str(header_only), *BASE], "header.csv: no data rows"),
        "missing file": ([str(tmp_path / "nope.csv"), *BASE], "nope.csv: no such file"),
        "unknown type": ([str(tmp_path / "x.xlsx"), *BASE], "unknown file type"),
        "score without threshold": (
            [good, "--score", "pred", "--attr", "group"],
            "--score needs --decision-threshold",
        ),
        "no attribute": ([good, "--pred", "pred"], "required: --attr"),
        "bad task": ([good, *BASE, "--task", "ranking"], "invalid choice"),
        "bad threshold": ([good, *BASE, "--threshold", "lots"], "invalid float value"),
        # a value out of range names the option as it is typed, with its dashes
        "nan threshold": (
            [good, *BASE, "--threshold", "nan"],
            "--threshold must be a finite number >= 0, got nan",
        ),
        "negative min-samples": (
            [good, *BASE, "--min-samples", "-1"],
            "--min-samples must be a whole number >= 0, got -1",
        ),
        "alpha above 1": (
            [good, *BASE, "--alpha", "2"],
            "--alpha must be a number between 0 and 1, got 2.0",
        ),
        "nan decision threshold": (
            [good, "--score", "pred", "--decision-threshold", "nan", "--attr", "group"],
            "--decision-threshold must be a finite number, got nan",
        ),
    }


@pytest.mark.parametrize(
    "case",
    [
        "missing column",
        "missing label column",
        "non-binary label",
        "non-numeric prediction",
        "empty file",
        "header only",
        "missing file",
        "unknown type",
        "score without threshold",
        "no attribute",
        "bad task",
        "bad threshold",
        "nan threshold",
        "negative min-samples",
        "alpha above 1",
        "nan decision threshold",
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys, case: str) -> None:
    (tmp_path / "x.xlsx").write_text("not a spreadsheet")
    argv, needle = bad_inputs(tmp_path)[case]
    code, out, err = cli(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("faircode: error: ")
    assert needle in lines[0]


def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def json_report(capsys, *argv: str) -> dict[str, Any]:
    code, out, _ = cli(capsys, *argv, "--json")
    assert code == 0
    return json.loads(out)


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--min-samples", "1000"],
        ["--intersect", "--attr", "region"],
    ],
)
def test_json_output_matches_the_schema(tmp_path: Path, capsys, extra: list[str]) -> None:
    df = fair_frame(5)
    df.loc[::7, "label"] = None
    path = write(tmp_path, df)
    report = json_report(capsys, path, *BASE, *extra)
    validator().validate(report)


def test_json_schema_covers_regression_and_no_label(tmp_path: Path, capsys) -> None:
    df = fair_frame(0).assign(score=lambda d: d["label"] * 3.5 + d.index % 3)
    path = write(tmp_path, df)
    v = validator()
    reg = json_report(
        capsys,
        path,
        "--pred",
        "score",
        "--label",
        "label",
        "--attr",
        "group",
        "--decision-threshold",
        "2",
        "--engine",
        "pandas",
    )
    assert reg["task"]["type"] == "regression"
    v.validate(reg)
    nolabel = json_report(
        capsys, path, "--pred", "pred", "--attr", "group", "--attr", "region", "--engine", "pandas"
    )
    v.validate(nolabel)
    # the schema is not a rubber stamp
    broken = dict(nolabel, status="fine")
    with pytest.raises(jsonschema.ValidationError):
        v.validate(broken)


def test_auto_engine_is_pandas_with_fairlearn_installed(tmp_path: Path, capsys) -> None:
    """SPEC 12.10: the default engine does not depend on what is installed."""
    if importlib.util.find_spec("fairlearn") is None:
        pytest.fail("fairlearn is not installed; install the 'fairness' extra", pytrace=False)
    path = write(tmp_path, fair_frame(0))
    args = ("--pred", "pred", "--label", "label", "--attr", "group")
    report = json_report(capsys, path, *args)
    assert report["engine"] == "pandas"
    validator().validate(report)
    assert json_report(capsys, path, *args, "--engine", "fairlearn")["engine"] == "fairlearn"


@pytest.mark.parametrize("name", ["preds.parquet", "preds.jsonl"])
def test_parquet_and_json_lines_read_like_csv(tmp_path: Path, capsys, name: str) -> None:
    df = fair_frame(7)
    df.loc[::5, "label"] = None
    from_csv = json_report(capsys, write(tmp_path, df), *BASE)
    other = json_report(capsys, write(tmp_path, df, name), *BASE)
    assert other["groups"] == from_csv["groups"]
    assert (
        other["rows"]
        == from_csv["rows"]
        == {
            "total": 200,
            "without_prediction": 0,
            "scored": 200,
            "labelled": 160,
            "awaiting_label": 40,
        }
    )


def test_markdown_report(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, fair_frame(gap=20))
    code, out, _ = cli(capsys, path, *BASE, "--markdown", *POINT)
    assert code == 0
    assert out.startswith("### faircode fairness: disparity exceeded")
    assert "| Slice | N | Labelled | Accuracy | Sel.Rate | TPR | FPR | Guard |" in out
    assert "| Slice | Precision | FNR | FOR | FDR | NPV |" in out  # the error-rate table
    assert "- **group** `equalized_odds_difference` = 0.4 > 0.1" in out
    assert "| equalized odds difference | 0.4000 |" in out


def test_html_report_is_written_and_escaped(tmp_path: Path, capsys) -> None:
    df = fair_frame(0)
    df.loc[df["group"] == "b", "group"] = "<script>x</script>"
    path = write(tmp_path, df)
    target = tmp_path / "report.html"
    code, out, err = cli(capsys, path, *BASE, "--html", str(target))
    assert code == 0
    html = target.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>" not in html
    assert "<table>" in html and "Wilson" in html
    assert "<th>FNR</th><th>FOR</th><th>FDR</th><th>NPV</th>" in html
    assert "wrote the HTML report" in err
    code, _, err = cli(capsys, path, *BASE, "--html", str(tmp_path / "no" / "r.html"))
    assert code == 2 and err.startswith("faircode: error: cannot write the HTML report")


def test_output_formats_are_exclusive(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, fair_frame(0))
    code, _, err = cli(capsys, path, *BASE, "--json", "--markdown")
    assert code == 2 and "not allowed with argument" in err


def test_add_fairness_parser_wires_into_another_cli(tmp_path: Path, capsys) -> None:
    parser = argparse.ArgumentParser(prog="faircode")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("profile")  # the host CLI's own commands keep working
    add_fairness_parser(sub)
    path = write(tmp_path, fair_frame(gap=20))
    args = parser.parse_args(["fairness", "evaluate", path, *BASE, "--gate", *POINT])
    assert args.func(args) == 1
    assert "gate: FAIL group" in capsys.readouterr().err
    assert parser.parse_args(["profile"]).command == "profile"
    with pytest.raises(SystemExit) as info:
        parser.parse_args(["fairness"])
    assert info.value.code == 2
    assert capsys.readouterr().err.startswith("faircode: error:")


def test_help_exits_0(capsys) -> None:
    assert run(["fairness", "evaluate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--decision-threshold" in out and "--allow-unmeasured" in out


def _subcommands(
    parser: argparse.ArgumentParser, path: str = ""
) -> dict[str, tuple[argparse.ArgumentParser, str]]:
    """Every subcommand under ``parser`` by its words: (its parser, its help line)."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            lines = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                found[f"{path} {name}".strip()] = (sub, lines.get(name, ""))
                found.update(_subcommands(sub, f"{path} {name}"))
    return found


def test_the_gates_help_names_every_exit_code_it_gives() -> None:
    """SPEC 12.9, 15.6: `fairness gate` exits 5 on insufficient evidence too; its help
    said `exit 0/1/3, 2 error`. `evaluate --gate` names the verdicts other than a pass."""
    from faircode.cli import build_parser
    from faircode.errors import EXIT_INPUT, EXIT_OK
    from faircode.monitor.gate import gate_code

    statuses = ("within_threshold", "exceeded", "insufficient_evidence", "unmeasured")
    verdicts = {gate_code({"status": s}) for s in statuses}
    assert len(verdicts) == 4
    commands = _subcommands(build_parser("fairness"))
    gate = commands["fairness gate"][1]
    assert {int(d) for d in re.findall(r"\b[0-9]\b", gate)} == verdicts | {EXIT_INPUT}
    evaluate = commands["fairness evaluate"][0]
    flag = next(a.help or "" for a in evaluate._actions if "--gate" in a.option_strings)
    assert {int(d) for d in re.findall(r"\b[0-9]\b", flag)} == verdicts - {EXIT_OK}


@pytest.mark.parametrize(
    ("bad", "needle"),
    [
        (b'{"id": 200, "pred": 1, "group": "a"', "line 201: not valid JSON (Expecting ','"),
        (b"[1, 2]", "line 201: a JSON list, not an object"),
        (b'{"id": 200, "pred": 1, "group": "\xe9"}', "line 201: byte "),
    ],
)
def test_a_bad_json_line_is_named_by_its_line(
    tmp_path: Path, capsys, bad: bytes, needle: str
) -> None:
    """`evaluate` and `log` name the line of a JSON lines file that is not one JSON
    object, not pandas' character position ("at position 9336")."""
    lines = [
        b'{"id": %d, "pred": %d, "group": "%c"}' % (i, i % 2, b"ab"[i % 2]) for i in range(200)
    ]
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"\n".join([*lines, bad, *lines[:3]]) + b"\n")
    code, out, err = cli(capsys, str(path), "--pred", "pred", "--attr", "group")
    assert (code, out) == (2, "")
    assert err.startswith(f"faircode: error: {path}: {needle}") and err.count("\n") == 1, err
    assert "position" not in err
    db = str(tmp_path / "m.db")
    argv = ["fairness", "log", "m", str(path), "--version", "1", "--id", "id", "--pred", "pred"]
    assert run([*argv, "--attr", "group", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"faircode: error: {path}: {needle}") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "text", ['[{"pred": 1, "group": "a"}, {"pred": 0, "group": "b"}]', '\n [\n {"pred": 1}\n]\n']
)
def test_a_json_array_is_named(tmp_path: Path, capsys, text: str) -> None:
    """A JSON array is not JSON lines (SPEC 12.1): one line saying so, for `evaluate` and
    `log`; pandas read the one-line array as a row of lists (`columns ... not found;
    available columns: '0', '1'`)."""
    path = tmp_path / "p.json"
    path.write_text(text)
    needle = f"faircode: error: {path}: a JSON array (its first character is '['), not JSON"
    code, out, err = cli(capsys, str(path), "--pred", "pred", "--attr", "group")
    assert (code, out) == (2, "") and err.startswith(needle) and err.count("\n") == 1, err
    argv = ["fairness", "log", "m", str(path), "--version", "1", "--id", "id", "--pred", "pred"]
    assert run([*argv, "--attr", "group", "--db", str(tmp_path / "m.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(needle) and err.count("\n") == 1, err


def _advised(err: str) -> list[str]:
    """The ``--encoding`` the error advises, as arguments (a bare ``pass --encoding``:
    the name the user would find out, here latin-1; a named one may end the line, or be
    followed by the encoding it is for: `--encoding cp1252 if it is Windows-1252`)."""
    m = re.search(r"--encoding( [\w-]+)?( if it is [\w-]+)?\n", err)
    assert m is not None, err
    return ["--encoding", (m.group(1) or " latin-1").strip()]


@pytest.mark.parametrize(
    ("name", "codec"),
    [("utf16.csv", "utf-16"), ("latin1.csv", "latin-1"), ("latin1.jsonl", "latin-1")],
)
def test_the_encoding_advice_of_evaluate_log_and_label_works(
    tmp_path: Path, capsys, name: str, codec: str
) -> None:
    """A file that is not UTF-8 is refused with "... or pass --encoding [NAME]"; evaluate,
    log and label take that option, and following the advice reads the file as its UTF-8
    copy is read (SPEC 12.1, 15.3)."""
    df = fair_frame(0)
    df["id"] = [f"r{i}" for i in range(len(df))]
    df["group"] = df["group"].map({"a": "Bogotá", "b": "Zürich"})
    utf8, other = tmp_path / ("utf8." + name.split(".")[1]), tmp_path / name
    if name.endswith(".jsonl"):
        text = df.to_json(orient="records", lines=True, force_ascii=False)
    else:
        text = df.to_csv(index=False)
    utf8.write_text(text, encoding="utf-8")
    other.write_text(text, encoding=codec)

    base = ["--pred", "pred", "--label", "label", "--attr", "group", "--json"]
    code, out, err = cli(capsys, str(other), *base)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    advice = _advised(err)
    code, out, err = cli(capsys, str(other), *base, *advice)
    assert code == 0, err
    report = json.loads(out)
    assert run(["fairness", "evaluate", str(utf8), *base]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert report == expected | {"source": str(other)}

    (tmp_path / "fairness.yaml").write_text("models:\n  m:\n    slices: [group]\n")
    db = ["--db", str(tmp_path / "m.db"), "--registry", str(tmp_path / "fairness.yaml")]
    log = ["fairness", "log", "m", str(other), "--version", "1", "--id", "id", "--pred", "pred"]
    label = ["fairness", "label", "m", str(other), "--id", "id", "--label", "label"]
    for argv in (log + ["--attr", "group"], label):
        assert run([*argv, *db]) == 2
        assert _advised(capsys.readouterr().err) == advice
        assert run([*argv, *db, *advice]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert run(["fairness", "slice", "m", "group", "--json", *db]) == 0
    stored = json.loads(capsys.readouterr().out)["evaluation"]["groups"]
    assert stored[0]["slices"] == expected["groups"][0]["slices"]
