"""Option names in messages (SPEC 0.6): the Python API names the keyword its caller
wrote (``min_group_size``), the command line the flag (``--min-group-size``); the rest of
the message is the same text."""

from __future__ import annotations

import ast
import re
import sqlite3
import sys
import threading

import pytest

import faircode
import faircode.monitor
from faircode.cli import main
from faircode.options import GROUP_OPTIONS, OPTIONS, spelling

CSV = "sex,race,age,hired\n" + "".join(
    f"{'FM'[i % 2]},{'ABC'[i % 3]},{18 + i % 50},{i % 2}\n" for i in range(60)
)

#: Every number option the profile command takes by a flag: "abc" is no number for any.
NUMBERS = [
    o for o in OPTIONS if o.flag and "profile" in o.commands and o.kind in ("number", "integer")
]


@pytest.fixture(scope="module")
def path(tmp_path_factory) -> str:
    p = tmp_path_factory.mktemp("spell") / "s.csv"
    p.write_text(CSV)
    return str(p)


def _api(call) -> str:
    with pytest.raises(faircode.InputError) as err:
        call()
    return str(err.value)


def _cli(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    return capsys.readouterr().err.strip().removeprefix("faircode: error: ")


@pytest.mark.parametrize("o", NUMBERS, ids=[o.name for o in NUMBERS])
def test_a_number_option_names_the_keyword_on_the_api_and_the_flag_on_the_cli(path, o, capsys):
    api = _api(lambda: faircode.profile(path, opts={o.name: "abc"}))
    cli = _cli(["profile", path, f"{o.flag}=abc"], capsys)
    assert api.startswith(f"{o.name}: "), api
    assert cli.startswith(f"{o.flag}: "), cli
    assert api.removeprefix(o.name) == cli.removeprefix(o.flag)


@pytest.mark.parametrize(
    "opts,overrides,argv,keyword,flag",
    [
        ({"proxy_with": 5}, None, None, "proxy_with", None),
        ({"cross": "sex"}, None, ["--cross", "sex"], "cross", "--cross"),
        ({"label": "nope"}, None, ["--label", "nope"], "label", "--label"),
        ({"delimiter": "x"}, None, None, "delimiter", None),
        (None, {"nope": "race"}, ["--map", "nope=race"], "overrides", "--map"),
        (None, {"age": "height"}, ["--map", "age=height"], "overrides", "--map"),
    ],
)
def test_options_and_overrides_are_named_as_the_surface_spells_them(
    path, opts, overrides, argv, keyword, flag, capsys
):
    api = _api(lambda: faircode.profile(path, overrides=overrides, opts=opts))
    assert api.startswith(f"{keyword}: "), api
    if argv is not None:
        cli = _cli(["profile", path, *argv], capsys)
        assert cli.startswith(f"{flag}: "), cli
        assert api.removeprefix(keyword) == cli.removeprefix(flag)


def test_api_arguments_of_scan_the_audits_and_the_monitor_name_their_keyword(path, capsys):
    assert _api(lambda: faircode.scan(path, label="hired", max_seconds="x")).startswith(
        "max_seconds: x is not a number"
    )
    assert _api(lambda: faircode.audit_ll144(path, selected="hired", audit_date="1")) == (
        "audit_date: expected a date YYYY-MM-DD, got '1'"
    )
    with pytest.raises(faircode.monitor.MonitorInputError) as err:
        faircode.monitor.evaluate(path, pred="hired", attrs=["sex"], threshold=-1)
    assert str(err.value) == "threshold must be a finite number >= 0, got -1"
    cli = _cli(
        ["fairness", "evaluate", path, "--pred", "hired", "--attr", "sex", "--threshold", "-1"],
        capsys,
    )
    assert cli == "--threshold must be a finite number >= 0, got -1.0"


def test_a_cli_run_leaves_the_api_spelling_alone(path, capsys):
    _cli(["profile", path, "--min-share", "2"], capsys)
    assert _api(lambda: faircode.profile(path, opts={"min_share": 2})).startswith("min_share:")
    # another thread's spelling is its own (a server's request threads)
    seen = []
    with spelling("flag"):
        worker = threading.Thread(
            target=lambda: seen.append(_api(lambda: faircode.profile(path, opts={"min_share": 2})))
        )
        worker.start()
        worker.join()
        assert _api(lambda: faircode.profile(path, opts={"min_share": 2})).startswith(
            "--min-share:"
        )
    assert seen[0].startswith("min_share:")


#: Files whose refusal advises what to pass (SPEC 0.6 "Option names in messages":
#: advice), the API's opts, and the advice as the CLI and the API write it.
ADVICE_FILES = [
    (
        b"Staff export\nsex,race\nM,A\n",
        {},
        [("pass --skip-lines 1", "pass skip_lines=1"), ("--skip-lines-b 1", "skip_lines_b=1")],
    ),
    (
        b"sep=;\nsex;race\nM;A\n",
        {},
        [("pass --skip-lines 1", "pass skip_lines=1"), ("--skip-lines-b 1", "skip_lines_b=1")],
    ),
    (b"sex\nM\n\xe9F\n", {}, [("--encoding cp1252", "encoding='cp1252'")]),
    (b"\xff\xfes\x00e\x00x\x00", {}, [("--encoding utf-16", "encoding='utf-16'")]),
    (b"s\x00e\x00x\x00,\x00r\x00", {}, [("--encoding utf-16-le", "encoding='utf-16-le'")]),
    (
        b"sex;race;age\nF;A;30\n",
        {"delimiter": ","},
        [("--delimiter ';'", "delimiter=';'"), ("--one-column", "one_column=True")],
    ),
    (b"\n\n", {"skip_lines": 5}, [("--skip-lines 5", "skip_lines=5")]),
]


def _flags_of(opts: dict) -> list[str]:
    return [a for k, v in opts.items() for a in (f"--{k.replace('_', '-')}", str(v))]


@pytest.mark.parametrize("data,opts,advice", ADVICE_FILES)
def test_a_reading_refusal_advises_in_the_surface_s_spelling(tmp_path, data, opts, advice, capsys):
    """The API's advice is the CLI's with the flag and its value in the API's spelling;
    nothing else differs, and no flag is left in it."""
    p = tmp_path / "f.csv"
    p.write_bytes(data)
    api = _api(lambda: faircode.profile(str(p), opts=opts))
    cli = _cli(["profile", str(p), *_flags_of(opts)], capsys)
    for flag_text, keyword_text in advice:
        assert flag_text in cli, cli
        cli = cli.replace(flag_text, keyword_text)
    assert api == cli
    assert "--" not in api, api


def test_the_api_s_advice_reads_the_file_as_written(tmp_path):
    """`pass skip_lines=2`, `encoding='utf-16-le'`: the keyword and value the API's
    message gives, passed as they are, read the table."""
    p = tmp_path / "f.csv"
    for data in (b"Title\n\nsex,race\nM,A\n", "sex,race\r\nM,A\r\n".encode("utf-16-le")):
        p.write_bytes(data)
        message = _api(lambda: faircode.profile(str(p)))
        key, value = re.search(r"pass (skip_lines|encoding)=(\S+?)[ ,;)]?(?: |$)", message).groups()
        result = faircode.profile(str(p), opts={key: ast.literal_eval(value)})
        assert result["columns"] == ["sex", "race"], message


def test_the_monitor_s_and_audits_advice_names_keywords(path, capsys):
    def monitor(**kw) -> str:
        with pytest.raises(faircode.monitor.MonitorInputError) as err:
            faircode.monitor.evaluate(path, **{"attrs": ["sex"], "label": "hired", **kw})
        return str(err.value)

    assert monitor(pred="hired", threshold="x") == "threshold must be a number, e.g. threshold=0.1"
    assert monitor(pred="hired", attrs=[]) == "at least one attribute is needed; pass attrs=COL"
    assert monitor(pred="hired", ref_groups={"race": "A"}) == (
        "ref_groups: 'race' is not an attribute (attrs: sex); add 'race' to attrs, or drop "
        "its reference"
    )
    cli = _cli(
        ["fairness", "evaluate", path, "--pred", "hired", "--attr", "sex", "--label", "hired"]
        + ["--ref-group", "race=A"],
        capsys,
    )
    assert cli == (
        "--ref-group: 'race' is not an attribute (--attr: sex); add --attr race, or drop "
        "its reference"
    )
    assert monitor(pred=None, score="hired") == (
        "score needs decision_threshold=T (prediction = score >= T)"
    )
    assert _api(lambda: faircode.audit_ll144(path, selected="hired", exclusion_note="n")) == (
        "exclusion_note goes with exclude_small"
    )
    cli = _cli(["audit", "ll144", path, "--selected", "hired", "--exclusion-note", "n"], capsys)
    assert cli == "--exclusion-note goes with --exclude-small"


@pytest.mark.parametrize(
    "column,bad,kw,api_advice,cli_advice",
    [
        ("sc", "high", "score", "na=[['sc', 'high']]", "--na sc=high"),
        ("sel", "maybe", "selected", "recode=[['sel', 'maybe', '0']]", "--recode sel:maybe=0"),
    ],
)
def test_an_audit_s_advice_is_the_api_s_shape_and_works(
    tmp_path, column, bad, kw, api_advice, cli_advice, capsys
):
    """`declare it missing with na=[['sc', 'high']]`: the API's na and recode shapes
    (the CLI's `--na sc=high`), which, passed as written, let the audit run."""
    good = ("1.5", "2.5") if kw == "score" else ("1", "0")
    rows = [f"{s},{r},{good[i % 2]}" for i, (s, r) in enumerate([("F", "A"), ("M", "B")] * 30)]
    p = tmp_path / "a.csv"
    p.write_text("\n".join([f"sex,race,{column}", *rows, f"M,B,{bad}"]) + "\n")
    api = _api(lambda: faircode.audit_ll144(str(p), **{kw: column}))
    cli = _cli(["audit", "ll144", str(p), f"--{kw}", column], capsys)
    assert api.endswith(api_advice) and cli.endswith(cli_advice), (api, cli)
    key, value = api_advice.split("=", 1)
    faircode.audit_ll144(str(p), **{kw: column}, opts={key: ast.literal_eval(value)})


def test_an_slo_s_window_is_named_as_the_surface_spells_it(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    with pytest.raises(faircode.monitor.MonitorInputError) as err:
        faircode.monitor.slo_set("m", "s", target=0.9, window="3x", store=db)
    assert str(err.value) == "window '3x' is not a number of days or weeks; write e.g. 28d or 4w"
    argv = ["fairness", "slo", "set", "m", "s", "--target", "0.9", "--window", "3x", "--db", db]
    assert _cli(argv, capsys) == f"--{err.value}"


def test_the_store_s_advice_names_store_on_the_api_and_db_on_the_cli(tmp_path, capsys):
    """The monitor's API takes the store as ``store=`` (the CLI's --db)."""
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("create table t(x)").connection.commit()
    for location, advice in (
        (str(other), "nothing was changed: pass {} a new or empty file"),
        (str(tmp_path / "none.db"), "nothing was logged there; check {} / FAIRCODE_DB"),
        (" ", "{} is empty; give a SQLite file path"),
    ):
        with pytest.raises(Exception) as err:
            faircode.monitor.fairness_report("m", store=location)
        assert advice.format("store") in str(err.value)
        cli = _cli(["fairness", "report", "m", "--db", location], capsys)
        assert advice.format("--db") in cli
        api = str(err.value).replace(advice.format("store"), advice.format("--db"))
        assert cli == api.replace("(without store:", "(without --db:")


@pytest.mark.parametrize(
    "kwargs,argv,api_text,cli_text",
    [
        (
            {"exclude_small": True},
            ["--exclude-small"],
            "exclude_small needs exclusion_note=TEXT: ",
            "--exclude-small needs --exclusion-note TEXT: ",
        ),
        (
            {"date_column": "d", "date_range": "2024-01-01,2024-12-31"},
            ["--date-column", "d", "--date-range", "2024-01-01,2024-12-31"],
            "give date_column or date_range, not both",
            "give --date-column or --date-range, not both",
        ),
        (
            {"overrides": {"hired": "sex"}},
            ["--map", "hired=sex"],
            "selected: 'hired' is declared overrides={'hired': 'sex'}; it cannot",
            "--selected: 'hired' is declared --map hired=sex; it cannot",
        ),
    ],
)
def test_an_audit_s_advice_names_its_options_as_the_surface_spells_them(
    path, kwargs, argv, api_text, cli_text, capsys
):
    api = _api(lambda: faircode.audit_ll144(path, selected="hired", **kwargs))
    cli = _cli(["audit", "ll144", path, "--selected", "hired", *argv], capsys)
    assert api_text in api and cli_text in cli, (api, cli)
    assert api.replace(api_text, cli_text) == cli


def test_two_sex_columns_are_told_apart_by_overrides_on_the_api(tmp_path, capsys):
    """Two sex columns: the advice to ignore one is the API's overrides (the CLI's --map)."""
    p = tmp_path / "two.csv"
    rows = CSV.splitlines()
    p.write_text(
        "\n".join(
            ["sex,gender,race,age,hired"] + [r.replace(",", f",{r[0]},", 1) for r in rows[1:]]
        )
        + "\n"
    )
    api = _api(lambda: faircode.audit_ll144(str(p), selected="hired"))
    cli = _cli(["audit", "ll144", str(p), "--selected", "hired"], capsys)
    assert api.endswith("keep one with overrides={'gender': 'ignore'}"), api
    assert cli.endswith("keep one with --map gender=ignore"), cli


def test_held_out_and_date_column_refusals_name_the_keyword(path, tmp_path, capsys):
    short = tmp_path / "short.csv"
    short.write_text("protected\nA\nB\n")
    opts = {"proxy_hints": True, "proxy_with": [[str(short), "protected", None]]}
    api = _api(lambda: faircode.profile(path, opts=opts))
    flags = ["--proxy-hints", "--proxy-hints-with", f"{short}=protected"]
    cli = _cli(["profile", path, *flags], capsys)
    assert api.startswith(f"proxy_with {short}: it has 2 rows")
    # the advice to join by a key is the API's item there, the flag's text on the CLI
    assert api.endswith("(give [PATH, COLUMN, KEY] to join by a key column)"), api
    assert cli == "--proxy-hints-with" + api.removeprefix("proxy_with").replace(
        "[PATH, COLUMN, KEY]", "PATH=COLUMN:KEY"
    )
    api = _api(lambda: faircode.audit_ll144(path, selected="hired", date_column="age"))
    cli = _cli(["audit", "ll144", path, "--selected", "hired", "--date-column", "age"], capsys)
    assert api == "date_column age: '18' is not a date YYYY-MM-DD"
    assert cli == "--date-column" + api.removeprefix("date_column")


def test_the_spark_engine_s_refusals_name_engine_spark_as_the_surface_spells_it():
    """Refused before Spark starts: a pandas DataFrame given to the Spark engine."""
    import pandas as pd  # lazy: the frames extra, as the monitor's API

    frame = pd.DataFrame({"p": [0, 1], "g": ["a", "b"]})

    def refusal() -> str:
        with pytest.raises(faircode.monitor.MonitorInputError) as err:
            faircode.monitor.evaluate(frame, pred="p", attrs="g", engine="spark")
        return str(err.value)

    assert refusal().startswith("engine='spark' reads a file or a Spark DataFrame")
    with spelling("flag"):
        assert refusal().startswith("--engine spark reads a file or a Spark DataFrame")


def test_the_monitor_s_missing_columns_are_tagged_with_the_keyword_on_the_api(path, capsys):
    """``column 'x' (--attr) not found`` names the argument as the surface spells it."""
    with pytest.raises(faircode.monitor.MonitorInputError) as err:
        faircode.monitor.evaluate(path, pred="nope", attrs=["gone"], label="hired")
    api = str(err.value)
    assert "columns 'gone' (attrs), 'nope' (pred) not found" in api, api
    argv = ["--pred", "nope", "--attr", "gone", "--label", "hired"]
    cli = _cli(["fairness", "evaluate", path, *argv], capsys)
    assert cli == api.replace("(attrs)", "(--attr)").replace("(pred)", "(--pred)")


def test_the_monitor_s_attribute_and_group_option_advice_names_the_keyword(path, capsys):
    def monitor(**kw) -> str:
        with pytest.raises(faircode.monitor.MonitorInputError) as err:
            faircode.monitor.evaluate(path, pred="hired", **kw)
        return str(err.value)

    twice = "an attribute is given twice; "
    assert monitor(attrs=["sex", "sex"]) == twice + "list each once in attrs"
    argv = ["--pred", "hired", "--attr", "sex", "--attr", "sex"]
    assert _cli(["fairness", "evaluate", path, *argv], capsys) == twice + "pass each --attr once"
    assert monitor(attrs=["sex"], opts={"label": "hired"}).endswith(
        f"(its group options: {', '.join(GROUP_OPTIONS)}, and overrides)"
    )


def test_a_held_out_file_s_reading_refusals_name_proxy_with_on_the_api(path, tmp_path, capsys):
    held = tmp_path / "held.csv"
    held.write_text("protected\n" + "A\n" * 60)
    for item, flag in [
        ([str(held), "nope", None], f"{held}=nope"),
        ([str(held) + "x", "p", None], f"{held}x=p"),
    ]:
        opts = {"proxy_hints": True, "proxy_with": [item]}
        api = _api(lambda opts=opts: faircode.profile(path, opts=opts))
        cli = _cli(["profile", path, "--proxy-hints", "--proxy-hints-with", flag], capsys)
        assert api.startswith(f"proxy_with {item[0]}: "), api
        assert cli == "--proxy-hints-with" + api.removeprefix("proxy_with")


def test_held_out_columns_on_spark_are_refused_as_the_surface_spells_it(path):
    """Refused before Spark starts, by faircode.spark on the API (--engine spark on the
    CLI)."""
    spark = pytest.importorskip("faircode.spark")
    opts = {"proxy_hints": True, "proxy_with": [[path, "sex", None]]}
    tail = "; join the column to the table in Spark and profile the result"
    assert _api(lambda: spark.profile_path(path, opts=opts)) == (
        "held-out columns (proxy_with) are not supported by faircode.spark" + tail
    )
    with spelling("flag"):
        assert _api(lambda: spark.profile_path(path, opts=opts)) == (
            "held-out columns (--proxy-hints-with) are not supported with --engine spark" + tail
        )


def test_proxy_hints_without_scipy_name_the_option_as_the_surface_spells_it(
    path, monkeypatch, capsys
):
    monkeypatch.setitem(sys.modules, "scipy.stats", None)  # an import of it fails
    api = _api(lambda: faircode.profile(path, opts={"proxy_hints": True}))
    assert api.startswith("proxy hints (proxy_hints) needs scipy, which is not installed"), api
    cli = _cli(["profile", path, "--proxy-hints"], capsys)
    assert cli == api.replace("(proxy_hints)", "(--proxy-hints)")
