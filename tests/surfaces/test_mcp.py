"""`faircode-mcp` (SPEC.md section 11), end to end over stdio with the real MCP client.

One server (`python -m faircode.mcp_server --root ROOT`) serves the module's calls
through an anyio blocking portal; ROOT is a temporary folder holding a copy of ProPublica's
COMPAS data. Results are checked against the Python API and against the CLI's --json
output byte for byte; errors by their exact one-line text. Without the `mcp` package the
module is skipped, and FAILS when CI is set (CI must run it: the `test` extra has mcp).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from util import ROOT, data_file

import faircode
from faircode.mcptools import Root, run_tool

NO_MCP = "the mcp package is not installed: pip install 'faircode[mcp]' (the test extra has it)"
HAVE_MCP = importlib.util.find_spec("mcp") is not None
if not HAVE_MCP and not os.environ.get("CI"):
    pytest.skip(NO_MCP, allow_module_level=True)

COMPAS = data_file("compas-scores-two-years.csv")
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SERVER = [sys.executable, "-m", "faircode.mcp_server"]
EVALUATE = {
    "path": "compas.csv",
    "score": "decile_score",
    "decision_threshold": 5,
    "label": "two_year_recid",
    "attrs": ["race", "sex"],
    "engine": "pandas",
}


@pytest.fixture(scope="module", autouse=True)
def _needs_mcp() -> None:
    if not HAVE_MCP:
        pytest.fail(NO_MCP, pytrace=False)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ROOT/compas.csv, ROOT/later.csv (a junk first line, then the first 3,000 rows),
    and ways out: ROOT/../outside.csv, a link to it, a link to its folder."""
    base = tmp_path_factory.mktemp("mcp")
    root = base / "root"
    (root / "sub").mkdir(parents=True)
    shutil.copy(COMPAS, root / "compas.csv")
    lines = COMPAS.read_bytes().splitlines(keepends=True)
    (root / "later.csv").write_bytes(b"exported 2026-11-30\n" + b"".join(lines[:3001]))
    (root / "sub" / "ref.csv").write_text("column,group,share\nsex,Male,0.5\nsex,Female,0.5\n")
    rows = [f"{r},{i % 2},{i % 3 % 2}" for i in range(90) for r in ("Île", "Réunion")]
    (root / "latin1.csv").write_bytes(
        "région,pred,label\n".join(["", "\n".join(rows)]).encode("latin-1")
    )
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text("sex,race\nMale,Other\nFemale,Other\n")
    (root / "link.csv").symlink_to(outside / "secret.csv")
    (root / "linkdir").symlink_to(outside)
    os.mkfifo(root / "pipe.csv")  # opening it would block the server until a writer came
    (root / "globbed").mkdir()
    shutil.copy(root / "sub" / "ref.csv", root / "globbed" / "a.csv")
    (root / "globbed" / "b.csv").symlink_to(outside / "secret.csv")
    return root


class Client:
    """The MCP client session of one server process, called from sync tests."""

    def __init__(self, portal: Any, session: Any) -> None:
        self.portal, self.session = portal, session

    def tools(self) -> list[Any]:
        return self.portal.call(self.session.list_tools).tools

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        return self.portal.call(self.session.call_tool, tool, arguments)

    def ok(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        res = self.call(tool, arguments)
        assert not res.is_error, res.content[0].text
        assert json.loads(res.content[0].text) == res.structured_content
        return res.structured_content

    def error(self, tool: str, arguments: dict[str, Any]) -> str:
        res = self.call(tool, arguments)
        assert res.is_error, res.structured_content
        (block,) = res.content
        assert "\n" not in block.text.strip(), block.text
        return block.text


@contextlib.asynccontextmanager
async def connect(args: list[str], cwd: Path | None = None) -> AsyncIterator[Any]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=SERVER[0], args=[*SERVER[1:], *args], env=ENV, cwd=cwd)
    with open(os.devnull, "w") as errlog:  # the tracebacks of the internal-error test
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@contextlib.contextmanager
def client(args: list[str], cwd: Path | None = None) -> Iterator[Client]:
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(connect(args, cwd)) as session:
            yield Client(portal, session)


@pytest.fixture(scope="module")
def server(root: Path) -> Iterator[Client]:
    with client(["--root", str(root)]) as c:
        yield c


def cli_json(root: Path, *args: str) -> str:
    """What `faircode ARGS --json` prints, run in ROOT."""
    run = subprocess.run(
        [sys.executable, "-m", "faircode", *args, "--json"],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


# ---------------------------------------------------------------------------------------
# tools/list


def test_lists_the_four_tools_with_schemas_naming_the_options(server: Client):
    tools = {t.name: t for t in server.tools()}
    assert list(tools) == ["profile_dataset", "compare_datasets", "proxy_hints", "evaluate_model"]
    # the section 7 options of each tool are its records' (faircode.options.OPTIONS,
    # tests/parity/test_option_table.py), plus the arguments of the tool itself
    from faircode.options import OPTIONS

    def section7(tool: str) -> set[str]:
        return {o.name for o in OPTIONS if tool in o.commands}

    props = {name: set(t.input_schema["properties"]) for name, t in tools.items()}
    own = {"overrides", "provenance"}
    assert props["profile_dataset"] == section7("profile_dataset") | own | {"path", "reference"}
    assert props["compare_datasets"] == section7("compare_datasets") | own | {
        "path_a",
        "path_b",
        "skip_lines_b",
    }
    assert props["proxy_hints"] == section7("proxy_hints") | {"path", "overrides"}
    # the options every reader takes are in all three; cross and the reference only in
    # profile's, the share gap only in compare's
    for name in ("min_share", "min_group_size", "na", "recode", "names", "encoding"):
        assert all(name in props[t] for t in ("profile_dataset", "compare_datasets"))
    assert {"cross", "reference_flag", "outcome", "outcome_gap"} <= (
        props["profile_dataset"] - props["compare_datasets"]
    )
    assert "share_gap" in props["compare_datasets"] - props["profile_dataset"]
    assert {"path", "overrides", "min_share", "min_group_size"} <= props["proxy_hints"]
    assert props["evaluate_model"] == {
        "path",
        "attrs",
        "pred",
        "label",
        "score",
        "decision_threshold",
        "task",
        "threshold",
        "min_samples",
        "intersect",
        "engine",
        "rule",
        "alpha",
        "ref_groups",
        "weight",
        "encoding",
    }
    required = {name: t.input_schema["required"] for name, t in tools.items()}
    assert required == {
        "profile_dataset": ["path"],
        "compare_datasets": ["path_a", "path_b"],
        "proxy_hints": ["path"],
        "evaluate_model": ["path", "attrs"],
    }
    for t in tools.values():
        assert t.input_schema["type"] == "object" and t.description


def test_argument_descriptions_speak_in_the_tools_arguments(server: Client):
    # SPEC 11: an argument's description names no CLI flag (`missing_by_group` said
    # "on unless --no-missing-by-group", a switch no tool has)
    for t in server.tools():
        for name, prop in t.input_schema["properties"].items():
            assert not re.search(r"--[a-z]", prop["description"]), (t.name, name)
    props = {t.name: t.input_schema["properties"] for t in server.tools()}
    for tool in ("profile_dataset", "compare_datasets"):
        assert props[tool]["missing_by_group"]["description"] == (
            "missing data by group; false leaves it out (true)"
        )


# ---------------------------------------------------------------------------------------
# Results: the Python API's, with provenance as the CLI attaches it, and the CLI's bytes


def test_profile_dataset_is_profile_with_the_cli_provenance(server: Client, root: Path):
    from faircode.provenance import sha256_bytes
    from faircode.reference import load_reference

    overrides = {"decile_score": "ignore"}
    opts = {"min_share": 0.1, "cross": ["sex", "race"], "recode": [["sex", "Male", "M"]]}
    got = server.ok(
        "profile_dataset",
        {"path": "compas.csv", "overrides": overrides, "reference": "us-2024", **opts},
    )
    table, data, _ = load_reference("us-2024")
    path = root / "compas.csv"
    expected = faircode.profile(path, overrides=overrides, opts={**opts, "reference": table})
    expected["provenance"] = faircode.provenance_for(
        path, overrides=overrides, opts=opts, reference_hash=sha256_bytes(data)
    )
    assert got == expected
    assert got["provenance"]["dataset_hash"].startswith("sha256:")
    assert got["provenance"]["params"]["min_share"] == 0.1


def test_profile_dataset_prints_what_the_cli_prints(server: Client, root: Path):
    args = {"path": "compas.csv", "max_age": 100, "na": ["Other"], "score_categoricals": True}
    res = server.call("profile_dataset", args)
    cli = cli_json(
        root, "profile", "compas.csv", "--max-age", "100", "--na", "Other", "--score-categoricals"
    )
    assert res.content[0].text == cli


def test_provenance_false_leaves_the_profile_alone(server: Client, root: Path):
    got = server.ok("profile_dataset", {"path": "compas.csv", "provenance": False})
    assert got == faircode.profile(root / "compas.csv")


def test_a_reference_file_in_the_root(server: Client, root: Path):
    got = server.ok("profile_dataset", {"path": "compas.csv", "reference": "sub/ref.csv"})
    sex = next(d for d in got["dimensions"] if d["name"] == "sex")
    assert {g["label"]: g["expected"] for g in sex["reference"]["groups"]} == {
        "Male": 0.5,
        "Female": 0.5,
    }
    ref = (root / "sub" / "ref.csv").read_bytes()
    from faircode.provenance import sha256_bytes

    assert got["provenance"]["reference_hash"] == sha256_bytes(ref)


def test_compare_datasets_with_skip_lines_b(server: Client, root: Path):
    args = {"path_a": "compas.csv", "path_b": "later.csv", "skip_lines_b": 1, "min_share": 0.1}
    res = server.call("compare_datasets", args)
    assert not res.is_error, res.content[0].text
    flags = ("--skip-lines-b", "1", "--min-share", "0.1")
    cli = cli_json(root, "compare", "compas.csv", "later.csv", *flags)
    assert res.content[0].text == cli
    got = res.structured_content
    a = faircode.profile(root / "compas.csv", opts={"min_share": 0.1})
    b = faircode.profile(root / "later.csv", opts={"min_share": 0.1, "skip_lines": 1})
    expected = faircode.compare(a, b, opts={"min_share": 0.1})
    assert {k: v for k, v in got.items() if k != "provenance"} == expected
    hashes = {k: v for k, v in got["provenance"].items() if k.startswith("dataset_hash")}
    assert hashes == {
        "dataset_hash_a": faircode.provenance_for(root / "compas.csv")["dataset_hash"],
        "dataset_hash_b": faircode.provenance_for(root / "later.csv")["dataset_hash"],
    }
    assert got["b"]["n_rows"] == 3000


def test_evaluate_model_is_fairness_evaluate(
    server: Client, root: Path, monkeypatch: pytest.MonkeyPatch
):
    from faircode.monitor import evaluate

    got = server.ok("evaluate_model", EVALUATE)
    monkeypatch.chdir(root)  # the report's "source" is the path as the server opened it
    kwargs = {k: v for k, v in EVALUATE.items() if k != "path"}
    assert got == evaluate("compas.csv", pred=None, **kwargs)
    assert got["source"] == "compas.csv" and got["columns"]["attributes"] == ["race", "sex"]
    cli = cli_json(
        root,
        "fairness",
        "evaluate",
        "compas.csv",
        "--score",
        "decile_score",
        "--decision-threshold",
        "5",
        "--label",
        "two_year_recid",
        "--attr",
        "race",
        "--attr",
        "sex",
        "--engine",
        "pandas",
    )
    assert server.call("evaluate_model", EVALUATE).content[0].text == cli


def test_evaluate_model_takes_reference_groups(
    server: Client, root: Path, monkeypatch: pytest.MonkeyPatch
):
    """`ref_groups` is `--ref-group` (SPEC 12.6): the same report as the CLI's."""
    args = {**EVALUATE, "ref_groups": {"race": "Caucasian", "sex": "maj"}}
    got = server.ok("evaluate_model", args)
    refs = {g["name"]: g["reference"] for g in got["groups"] if "reference" in g}
    assert refs["race"]["slice"] == "Caucasian" and refs["sex"]["slice"] == "Male"
    assert refs["sex"]["method"] == "maj"
    cli = cli_json(
        root,
        *("fairness", "evaluate", "compas.csv", "--score", "decile_score"),
        *("--decision-threshold", "5", "--label", "two_year_recid", "--attr", "race"),
        *("--attr", "sex", "--engine", "pandas", "--ref-group", "race=Caucasian"),
        *("--ref-group", "sex=maj"),
    )
    assert server.call("evaluate_model", args).content[0].text == cli
    bad = server.call("evaluate_model", {**EVALUATE, "ref_groups": {"race": "Caucasion"}})
    assert bad.is_error and "not a slice of race" in bad.content[0].text


def test_evaluate_model_takes_a_weight_column(server: Client, root: Path):
    """`weight` is `--weight` (SPEC 12.4): the same weighted report as the CLI's."""
    args = {**EVALUATE, "weight": "priors_count"}
    got = server.ok("evaluate_model", args)
    assert got["columns"]["weight"] == "priors_count"
    assert "n_eff" in got["groups"][0]["slices"][0]["metrics"]["selection_rate"]
    cli = cli_json(
        root,
        *("fairness", "evaluate", "compas.csv", "--score", "decile_score"),
        *("--decision-threshold", "5", "--label", "two_year_recid", "--attr", "race"),
        *("--attr", "sex", "--engine", "pandas", "--weight", "priors_count"),
    )
    assert server.call("evaluate_model", args).content[0].text == cli
    bad = server.call("evaluate_model", {**EVALUATE, "weight": "race"})
    assert bad.is_error and "weight column 'race' is not numeric" in bad.content[0].text


def test_evaluate_model_takes_an_encoding(server: Client, root: Path):
    """`encoding` is `--encoding`: a Latin-1 file's slices as the CLI reads them."""
    args = {"path": "latin1.csv", "attrs": "région", "pred": "pred", "label": "label"}
    got = server.ok("evaluate_model", {**args, "encoding": "latin-1"})
    assert [s["slice"] for s in got["groups"][0]["slices"]] == ["Réunion", "Île"]
    cli = cli_json(
        root,
        *("fairness", "evaluate", "latin1.csv", "--attr", "région", "--pred", "pred"),
        *("--label", "label", "--encoding", "latin-1"),
    )
    assert server.call("evaluate_model", {**args, "encoding": "latin-1"}).content[0].text == cli
    # without it the file is UTF-8 and is refused; a bad name is the option's message
    assert "utf-8" in server.error("evaluate_model", args).lower()
    assert "encoding" in server.error("evaluate_model", {**args, "encoding": "klingon"})


def test_proxy_hints_is_the_profile_block(server: Client, root: Path):
    res = server.call("proxy_hints", {"path": "compas.csv"})
    assert not res.is_error, res.content[0].text
    from faircode.proxy import proxy_hints

    want = proxy_hints(root / "compas.csv")
    assert res.structured_content == json.loads(json.dumps(want))
    assert isinstance(res.structured_content["hints"], list) and want["hints"]


# ---------------------------------------------------------------------------------------
# Errors: the one-line message, as a tool error; the server carries on


def _outside(root: Path) -> str:
    return str(root.parent / "outside" / "secret.csv")


ERRORS = [
    ("profile_dataset", {"path": "missing.csv"}, "missing.csv: no such file"),
    ("profile_dataset", {"path": "sub"}, "sub: is a directory, not a file"),
    (
        "profile_dataset",
        {"path": "compas.csv", "min_share": 2},
        "min_share: 2.0 is out of range (0..1)",
    ),
    (
        "profile_dataset",
        {"path": "compas.csv", "min_share": "lots"},
        "profile_dataset: 'min_share' must be number, got \"lots\"",
    ),
    (
        "profile_dataset",
        {"path": "compas.csv", "cross": ["sex", "sex"]},
        "cross: expected two different column names A,B, got sex,sex",
    ),
    ("profile_dataset", {"path": "compas.csv", "min_shares": 0.1}, "unknown argument 'min_shares'"),
    # a wrong shape of recode names both forms the tool takes (SPEC 1.1, 11)
    (
        "profile_dataset",
        {"path": "compas.csv", "recode": {"sex": {"Male": 1}}},
        "recode: give [column, from, to] items or {column: {from: to}}, all strings",
    ),
    ("profile_dataset", {}, "profile_dataset: the argument 'path' is required"),
    ("profile_dataset", {"path": "-"}, "path: -: the MCP server does not read standard input"),
    ("profile_dataset", {"path": "/dev/stdin"}, "the MCP server does not read standard input"),
    ("profile_dataset", {"path": "pipe.csv"}, "path: pipe.csv: not a regular file"),
    ("profile_dataset", {"path": "a\0b.csv"}, "path: a path cannot hold a NUL character"),
    ("profile_dataset", {"path": "OUTSIDE"}, "OUTSIDE is outside the server's root ROOT"),
    ("profile_dataset", {"path": "/etc/passwd"}, "/etc/passwd is outside the server's root"),
    (
        "profile_dataset",
        {"path": "../outside/secret.csv"},
        "path: ../outside/secret.csv: '..' leads outside the server's root ROOT",
    ),
    ("profile_dataset", {"path": "sub/../../x.csv"}, "'..' leads outside the server's root"),
    (
        "profile_dataset",
        {"path": "link.csv"},
        "path: link.csv: a symbolic link leads outside the server's root ROOT",
    ),
    ("profile_dataset", {"path": "linkdir/secret.csv"}, "a symbolic link leads outside"),
    ("profile_dataset", {"path": "globbed/*.csv"}, "a symbolic link leads outside"),
    (
        "profile_dataset",
        {"path": "compas.csv", "reference": "../outside/secret.csv"},
        "reference: ../outside/secret.csv: '..' leads outside",
    ),
    ("profile_dataset", {"path": "compas.csv", "reference": "nope.csv"}, "reference: nope.csv"),
    ("compare_datasets", {"path_a": "compas.csv", "path_b": "link.csv"}, "path_b: link.csv: a "),
    # the CLI's line, naming B's own option, not --skip-lines (SPEC 8, 11)
    (
        "compare_datasets",
        {"path_a": "compas.csv", "path_b": "compas.csv", "skip_lines_b": -1},
        "--skip-lines-b: -1 is out of range (integer 0..)",
    ),
    ("proxy_hints", {"path": "link.csv"}, "symbolic link leads outside|not available"),
    ("evaluate_model", {**EVALUATE, "path": "OUTSIDE"}, "path: OUTSIDE is outside"),
    ("evaluate_model", {**EVALUATE, "attrs": ["nope"]}, "nope"),
    ("evaluate_model", {**EVALUATE, "threshold": -1}, "threshold"),
    ("no_such_tool", {}, "unknown tool 'no_such_tool'"),
]


@pytest.mark.parametrize(("tool", "arguments", "message"), ERRORS)
def test_errors_are_one_line_tool_errors(
    server: Client, root: Path, tool: str, arguments: dict[str, Any], message: str
):
    arguments = {
        k: v.replace("OUTSIDE", _outside(root)) if isinstance(v, str) else v
        for k, v in arguments.items()
    }
    text = server.error(tool, arguments)
    wanted = message.replace("OUTSIDE", _outside(root)).replace("ROOT", str(root))
    assert any(w in text for w in wanted.split("|")), text
    assert not text.startswith("Error executing tool"), text


def test_the_server_carries_on_after_errors(server: Client):
    server.error("profile_dataset", {"path": "link.csv"})
    server.error("profile_dataset", {"path": "compas.csv", "min_share": 2})
    got = server.ok("profile_dataset", {"path": "compas.csv", "provenance": False})
    assert got["n_rows"] == 7214


def test_an_unexpected_exception_is_an_internal_error_not_a_crash(root: Path):
    def broken(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "", {"ratio": 1 / len(args)}

    out = run_tool(Root(str(root)), "broken", {}, tools={"broken": broken})
    assert out.is_error and out.data is None
    assert out.text.startswith("broken: internal error (ZeroDivisionError: division by zero)")


# ---------------------------------------------------------------------------------------
# The process: root default, exit when the client closes, the missing extra, --help


def test_without_root_the_working_directory_is_the_root(root: Path):
    with client([], cwd=root / "sub") as c:
        got = c.ok("profile_dataset", {"path": "ref.csv", "provenance": False})
        assert got["n_rows"] == 2
        text = c.error("profile_dataset", {"path": "../compas.csv"})
        assert f"'..' leads outside the server's root {root / 'sub'}" in text


class RawServer:
    """One server process spoken to line by line, as a client would (no mcp client):
    `send` writes JSON-RPC lines, `answer` reads the next line (30 s at most)."""

    def __init__(self, root: Path) -> None:
        import queue
        import threading

        self.proc = subprocess.Popen(
            [*SERVER, "--root", str(root)],
            env=ENV,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        out = self.proc.stdout
        assert out is not None
        threading.Thread(target=lambda: [self.lines.put(x) for x in out], daemon=True).start()

    def send(self, *lines: bytes | dict[str, Any]) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        for line in lines:
            stdin.write(line if isinstance(line, bytes) else json.dumps(line).encode())
            stdin.write(b"\n")
        stdin.flush()

    def answer(self) -> dict[str, Any]:
        return json.loads(self.lines.get(timeout=30))  # queue.Empty: no answer came

    def initialize(self) -> dict[str, Any]:
        from mcp_types import LATEST_PROTOCOL_VERSION

        params = {
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        }
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        return self.answer()

    def close(self) -> int:
        """Close standard input; the exit code (the server must exit by itself)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=20)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def test_the_server_exits_when_the_client_closes(root: Path):
    server = RawServer(root)
    try:
        answer = server.initialize()
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "faircode"
        assert server.close() == 0
    finally:
        server.kill()


def test_a_line_that_is_no_message_is_answered(root: Path):
    """JSON-RPC 2.0 (5.1): text that is not JSON is -32700, JSON that is no message
    -32600, each with a null id, and the server carries on (SPEC 11)."""
    server = RawServer(root)
    try:
        assert server.initialize()["id"] == 1
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for line, code in ((b"not json", -32700), (b'{"id": 7}', -32600), (b"[1, 2]", -32600)):
            server.send(line)
            got = server.answer()
            assert got["id"] is None and got["error"]["code"] == code, (line, got)
        server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert server.answer()["id"] == 2  # still serving
        assert server.close() == 0
    finally:
        server.kill()


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=60
    )


def test_without_mcp_one_line_names_the_extra_and_exit_2():
    # sys.modules["mcp"] = None makes `import mcp` fail as it does when it is not installed
    run = _run(
        "import sys; sys.modules['mcp'] = None\n"
        "from faircode.mcp_server import main; raise SystemExit(main([]))"
    )
    assert run.returncode == 2
    assert run.stderr == (
        "faircode-mcp: error: faircode-mcp needs mcp, which is not installed: "
        "pip install 'faircode[mcp]'\n"
    )


def test_importing_faircode_does_not_import_mcp():
    run = _run(
        "import sys, faircode, faircode.mcp_server, faircode.mcptools\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    assert run.returncode == 0 and run.stdout == "[]\n", run.stderr


def test_help_says_the_working_directory_is_the_default_root():
    run = subprocess.run([*SERVER, "--help"], env=ENV, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0
    assert "--root DIR" in run.stdout
    assert "(default: the working directory)" in " ".join(run.stdout.split())


def test_a_bad_root_is_one_line_and_exit_2(root: Path):
    run = subprocess.run(
        [*SERVER, "--root", str(root / "compas.csv")],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2
    assert run.stderr == (
        f"faircode-mcp: error: --root: {root / 'compas.csv'}: not a directory; "
        "give an existing folder\n"
    )
