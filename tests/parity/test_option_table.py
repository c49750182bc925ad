"""SPEC 7: one option table per engine (faircode.options.OPTIONS, the browser engine's
OPTIONS), and everything made from it: the CLI's flags and help, the MCP tools' schemas,
the website's controls, and the checks that refuse a bad value.

The invalid values are derived from each record (its bounds, integer-ness, choices and
kind), not listed per option, so an option added to the tables is tested here without
an edit; the two engines' messages for the same value are compared with each other.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from jsbridge import node_command

from faircode import mcptools
from faircode.cli import build_parser, main
from faircode.cliutil import option_help
from faircode.options import OPTIONS, Options, resolve, spelling

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "assets" / "profiler-engine.js"
CLI_COMMANDS = ("profile", "compare", "scan", "audit ll144", "audit datasheet", "audit art10")
TOOLS = ("profile_dataset", "compare_datasets", "proxy_hints")
SMALL = (
    b"sex,race,age,sel\nMale,White,30,1\nFemale,Black,40,0\nFemale,White,50,1\nMale,Asian,60,0\n"
)
#: what a command needs besides its options (a file, a question)
NEEDS = {"compare": 2, "scan": 2, "audit ll144": ["--selected", "sel"]}

#: A value each shape of option refuses (the numbers, choices and switches are derived
#: from their bounds below): the API's value, and the CLI's text when the CLI can give one.
SHAPE_INVALID = {
    "age_bands": ("0,30,18", "0,30,18"),
    "pair": (["a"], "a"),
    "names": ([], " "),
    "delimiter": ("nope", "nope"),
    "encoding": ("no-such-encoding", "no-such-encoding"),
    "na": ([""], "="),
    "recode": ([["a", "", "b"]], "a:b"),
    "column": (" ", " "),
    "value": (5, None),
    "outcome": (["a", "a"], None),
    "held_out": ("nothing", "nothing"),
    "reference": (None, None),
}


def invalid_values(o) -> list:
    """The API values option ``o`` refuses, from its record."""
    if o.kind in ("number", "integer"):
        out: list = ["lots"]
        if o.low is not None:
            out.append(o.low - 1)
            if o.low_open:
                out.append(o.low)
        if o.high is not None:
            above = o.high + 1
            out.append(above if above > o.high else o.high * 10)  # past 2**53, +1 is lost
            if o.high_open:
                out.append(o.high)
        if o.kind == "integer":
            out.append((o.low or 0) + 0.5)
        return out
    if o.kind == "choice":
        return ["nope"]
    if o.kind == "boolean":
        return ["yes", 1]
    value = SHAPE_INVALID[o.kind][0]
    return [] if value is None else [value]


def cli_invalid_texts(o) -> list[str]:
    """The CLI texts option ``o`` refuses (for a switch: a value given to it)."""
    if o.kind in ("number", "integer", "choice", "boolean"):
        return [str(v) for v in invalid_values(o)]
    text = SHAPE_INVALID[o.kind][1]
    return [] if text is None else [text]


def message_flag(o) -> str:
    """The flag an error names: the option's own (a --no- switch's by its name)."""
    if o.flag and not o.flag.startswith("--no-"):
        return o.flag
    return "--" + o.name.replace("_", "-")


def node_json(script: str, payload) -> object:
    run = subprocess.run(
        [*node_command(), "-e", script, str(ENGINE)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(run.stdout)


JS_TABLE = """
const E = require(process.argv[1]);
process.stdout.write(JSON.stringify({table: E.OPTIONS, defaults: E.resolveOptions({})}));
"""

JS_REFUSALS = """
const E = require(process.argv[1]);
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map(([name, value]) => {
    try { E.resolveOptions({ [name]: value }); return null; } catch (e) { return e.message; }
  });
  process.stdout.write(JSON.stringify(out));
});
"""


@pytest.fixture(scope="module")
def js_table() -> dict:
    return node_json(JS_TABLE, None)


def as_json(value):
    return json.loads(json.dumps(value))


def test_the_two_engines_tables_are_equal(js_table):
    python = as_json([o._asdict() for o in OPTIONS])
    assert [r["name"] for r in js_table["table"]] == [r["name"] for r in python]
    for mine, theirs in zip(python, js_table["table"], strict=True):
        assert mine == theirs, mine["name"]


def test_defaults_are_the_records_in_both_engines(js_table):
    d = Options()
    assert list(Options._fields) == [o.name for o in OPTIONS]
    for o in OPTIONS:
        assert as_json(getattr(d, o.name)) == as_json(o.default), o.name
        if not o.python_only:
            assert js_table["defaults"][o.name] == as_json(o.default), o.name
    assert {o.name for o in OPTIONS if not o.python_only} == set(js_table["defaults"])


def test_records_are_consistent():
    for o in OPTIONS:
        assert o.params in ("always", "never") or o.params in Options._fields, o.name
        assert o.needs is None or o.needs in Options._fields, o.name
        if o.flag:
            assert o.flag.startswith("--") and o.commands, o.name
        if o.kind in ("number", "integer"):
            assert o.valid and (o.low is not None or o.high is not None), o.name
        if o.site_label is not None:
            assert o.kind in ("number", "integer") and o.control == f"opt-{o.name}", o.name


def test_every_flag_is_in_its_commands_help():
    for command in CLI_COMMANDS:
        parser = build_parser(command.split()[0])
        sub = parser._subparsers._group_actions[0].choices[command.split()[0]]  # noqa: SLF001
        if " " in command:
            sub = sub._subparsers._group_actions[0].choices[command.split()[1]]  # noqa: SLF001
        text = " ".join(sub.format_help().split())
        packed = "".join(text.split())  # help lines wrap at spaces and hyphens
        actions = {a.dest: a for a in sub._actions}  # noqa: SLF001
        for o in OPTIONS:
            if command not in o.commands or o.flag is None:
                continue
            assert o.flag in text, (command, o.name)
            assert actions[o.name].help == option_help(o, command)
            assert "".join(option_help(o, command).split()) in packed
            if o.kind != "boolean" and o.default not in (None, ()):
                shown = o.default
                if isinstance(shown, tuple):
                    shown = ",".join(map(str, shown))
                assert f"({shown})" in text, (command, o.name)


def test_every_tool_option_is_in_its_mcp_schema():
    types = {
        "number": "number",
        "integer": "integer",
        "boolean": "boolean",
        "choice": "string",
        "delimiter": "string",
        "encoding": "string",
        "column": "string",
        "value": "string",
    }
    for tool in TOOLS:
        props = mcptools.SCHEMAS[tool]["properties"]
        named = {o.name for o in OPTIONS if tool in o.commands}
        assert named <= set(props), tool
        # nothing but the table's options, the paths and the tool's own arguments
        own = {"path", "path_a", "path_b", "overrides", "provenance", "reference", "skip_lines_b"}
        assert set(props) - own == named, tool
        for name in named:
            o = next(r for r in OPTIONS if r.name == name)
            if o.kind in types:
                assert props[name]["type"] == types[o.kind], name
            # the record's help, or the tool's wording of one that names a CLI flag
            help_text = mcptools._HELP_IN_TOOLS.get(name, o.help)
            assert props[name]["description"].startswith(help_text), name
            if o.choices:
                assert props[name]["enum"] == list(o.choices), name


def test_every_site_control_exists():
    html = (ROOT / "site" / "index.html").read_text()
    ids = set(re.findall(r'id="([^"]+)"', html))
    app = (ROOT / "site" / "app.js").read_text()
    assert "E.OPTIONS" in app and 'id="opt-numbers"' in html
    for o in OPTIONS:
        if o.python_only:
            assert o.control is None, o.name
        elif o.site_label is not None:
            assert o.control not in ids, f"{o.control}: made by app.js from the table, not HTML"
        elif o.control is not None:
            assert o.control in ids, o.name
    # no number input of an option is written in the page by hand
    assert "data-opt=" not in html


def test_invalid_values_are_refused_by_both_engines_with_the_same_line():
    cases = [(o, v) for o in OPTIONS for v in invalid_values(o)]
    messages = []
    for o, value in cases:
        # the CLI's spelling, the browser engine's (SPEC 0.6 "Option names in messages")
        with pytest.raises(Exception) as err, spelling("flag"):
            resolve({o.name: value})
        assert type(err.value).__name__ == "InputError", (o.name, value)
        messages.append(str(err.value))
    js = node_json(JS_REFUSALS, [[o.name, v] for o, v in cases])
    for (o, value), mine, theirs in zip(cases, messages, js, strict=True):
        assert theirs is not None, (o.name, value)
        if o.python_only:
            assert "computed by the Python engine only" in theirs, o.name
        elif o.kind != "encoding":  # the browser engine reads UTF-8 only (SPEC 0)
            assert theirs == mine, (o.name, value)
        assert mine.startswith(message_flag(o)), mine


@pytest.mark.parametrize("command", CLI_COMMANDS)
def test_invalid_values_are_refused_by_the_cli(command, tmp_path, capsys):
    data = tmp_path / "small.csv"
    data.write_bytes(SMALL)
    need = NEEDS.get(command, 1)
    files = [str(data)] * need if isinstance(need, int) else [str(data), *need]
    tried = 0
    for o in OPTIONS:
        if command not in o.commands or o.flag is None:
            continue
        for text in cli_invalid_texts(o):
            extra = ["--proxy-hints"] if o.needs == "proxy_hints" else []
            argv = [*command.split(), *files, *extra, f"{o.flag}={text}"]
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's own refusal (a choice, a switch's value)
                code = exc.code
            err = capsys.readouterr().err
            assert code == 2, (argv, err)
            assert err.startswith("faircode: error: ") and err.count("\n") == 1, err
            assert o.flag in err, (argv, err)
            tried += 1
    assert tried


def test_mcp_tools_refuse_invalid_values(tmp_path):
    (tmp_path / "small.csv").write_bytes(SMALL)
    root = mcptools.Root(str(tmp_path))
    try:
        for tool in TOOLS:
            paths = (
                {"path_a": "small.csv", "path_b": "small.csv"}
                if tool == "compare_datasets"
                else {"path": "small.csv"}
            )
            for o in OPTIONS:
                if tool not in o.commands:
                    continue
                for value in invalid_values(o):
                    got = mcptools.run_tool(root, tool, {**paths, o.name: value})
                    assert got.is_error, (tool, o.name, value)
                    # the MCP tools name the argument as their caller wrote it
                    assert got.text.startswith(f"{o.name}: ") or f"'{o.name}'" in got.text, got.text
    finally:
        root.close()


def test_overrides_are_checked_once_and_again_when_they_change():
    """SPEC 1.6: --map is checked against the header once; the checked table handed on
    (the reader's to analyze) is not checked again unless the header, the options or
    the table itself changed."""
    from faircode.detect import CheckedOverrides, check_overrides
    from faircode.errors import InputError

    cols = ["sex", "race", "sel"]
    opts = resolve({"label": "sel"})
    checked = check_overrides({"sex": "sex"}, cols, opts)
    assert isinstance(checked, CheckedOverrides) and checked == {"sex": "sex"}
    assert check_overrides(checked, cols, opts) is checked
    assert check_overrides(checked, cols, resolve({"label": "sel"})) is checked
    with pytest.raises(InputError, match="overrides: no column named 'sex'"):
        check_overrides(checked, ["race", "sel"], opts)
    with pytest.raises(InputError, match="label: no column named 'nope'"):
        check_overrides(checked, cols, resolve({"label": "nope"}))
    checked["race"] = "nonsense"
    with pytest.raises(InputError, match="unknown kind 'nonsense'"):
        check_overrides(checked, cols, opts)


@pytest.mark.parametrize("source", ["csv", "frame"])
def test_a_profile_checks_its_overrides_once(source, tmp_path, monkeypatch):
    import pandas as pd

    import faircode
    from faircode import detect

    made = []

    class Counted(detect.CheckedOverrides):
        __slots__ = ()

        def __init__(self, *args):
            made.append(1)
            super().__init__(*args)

    monkeypatch.setattr(detect, "CheckedOverrides", Counted)
    path = tmp_path / "small.csv"
    path.write_bytes(SMALL)
    data = str(path) if source == "csv" else pd.read_csv(path, dtype=str)
    result = faircode.profile(data, overrides={"age": "categorical"}, opts={"label": "sel"})
    kinds = {d["name"]: d["kind"] for d in result["dimensions"]}
    assert kinds == {"sex": "sex", "race": "race", "age": "categorical"}
    assert len(made) == 1
