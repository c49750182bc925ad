"""The MCP root holds under races (SPEC.md section 11, "Root confinement"; issue 25).

A hostile client (or another process with write access to the root) swaps names while
the server reads: a file for a symbolic link to a file outside the root, a folder for a
link to an outside folder, a file for a FIFO. Each test runs hundreds of calls against a
swapping process and counts what was read: nothing outside, no call blocked. The glob
tests put directory links (a link to `..`, two links to `.`, a link to /usr) in the
root; a pattern must neither name an outside file nor hang. The last test closes the
server's standard input during a long call: the process must exit at once.

Most calls go through `mcptools.run_tool` (what the server runs for a tools/call), for
speed; one race runs through the real `mcp` client over stdio.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from util import ROOT

from faircode.errors import InputError
from faircode.mcptools import Outcome, Root, run_tool

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SECRET = "ZebraOutside"  # a label only the outside files hold
INSIDE = b"sex,race,pred\nMale,A,1\nFemale,B,0\nMale,B,0\nFemale,A,1\n"
OUTSIDE = f"sex,race,pred\n{SECRET},X,1\nOther,Y,0\n{SECRET},Y,0\nOther,X,1\n{SECRET},X,1\n"
OUTSIDE_BYTES = OUTSIDE.encode()
# Calls per race through run_tool (a few milliseconds at most; a refusal much less),
# and over stdio: 2,000 for a plain profile, fewer for the slower tools. Before the fix
# the outside file was read in 1 to 20 of 500-2,000 calls (the hostile tester saw 9 and
# 13 in 400); a miss is possible, a pass with the leak is then unlikely across them.
CALLS = 2000
STDIO_CALLS = 200

# A separate process swaps NAME in a loop until it is killed: `link` replaces the
# regular file NAME.inside (a hard link to it) by a symbolic link to TARGET and back,
# `fifo` by a FIFO and back, `dir` a folder by a link to the folder TARGET and back.
# The link and the FIFO are made once and hard-linked in too, so each state lasts about
# one system call (creating a link to a long target is much slower than linking it).
# Each replacement is one rename, so NAME always exists (but for `dir`). It prints
# "ready" after its first round.
SWAPPER = r"""
import os, sys
mode, name, target = sys.argv[1:4]
tmp, made = name + ".swap", name + ".made"
if mode == "link":
    os.symlink(target, made)
elif mode == "fifo":
    os.mkfifo(made)
first = True
while True:
    if mode == "dir":  # a folder cannot be replaced by a rename: move it aside and back
        os.rename(name, tmp)
        os.symlink(target, name)
        os.unlink(name)
        os.rename(tmp, name)
    else:
        os.link(made, tmp, follow_symlinks=False)
        os.replace(tmp, name)
        os.link(name + ".inside", tmp)
        os.replace(tmp, name)
    if first:
        print("ready", flush=True)
        first = False
"""


@contextlib.contextmanager
def swapping(mode: str, name: Path, target: Path) -> Iterator[None]:
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, mode, str(name), str(target)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        yield
        assert proc.poll() is None, f"the swapper stopped early: {proc.communicate()[1]}"
    finally:
        proc.kill()
        proc.wait()
    # leave NAME as the inside version whatever the kill interrupted
    tmp = name.with_name(name.name + ".swap")
    if mode == "dir":
        if tmp.is_dir():
            if name.is_symlink():
                name.unlink()
            tmp.rename(name)
    else:
        tmp.unlink(missing_ok=True)
        name.with_name(name.name + ".made").unlink(missing_ok=True)
        name.unlink(missing_ok=True)
        name.write_bytes(name.with_name(name.name + ".inside").read_bytes())


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path)


def make_tree(tmp_path: Path) -> Path:
    """BASE/root (the server's root) and BASE/outside, both holding sex,race,pred
    tables: the outside ones have other rows and the label SECRET."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    for d in (root / "d", outside):
        d.mkdir(parents=True)
    (outside / "race.csv").write_bytes(OUTSIDE_BYTES)
    (outside / "ref.csv").write_text(f"column,group,share\nsex,{SECRET},1\n")
    for name in ("race.csv", "d/race.csv"):
        (root / name).write_bytes(INSIDE)
        (root / (name + ".inside")).write_bytes(INSIDE)
    (root / "ref.csv").write_text("column,group,share\nsex,Male,0.5\nsex,Female,0.5\n")
    (root / "ref.csv.inside").write_bytes((root / "ref.csv").read_bytes())
    pq = pytest.importorskip("pyarrow.parquet")
    pa_csv = pytest.importorskip("pyarrow.csv")
    for folder, data in ((root, INSIDE), (outside, OUTSIDE_BYTES)):
        pq.write_table(pa_csv.read_csv(io.BytesIO(data)), folder / "race.parquet")
    (root / "race.parquet.inside").write_bytes((root / "race.parquet").read_bytes())
    return root


def tally(outcomes: list[Any], inside: Any) -> Counter:
    """How the calls ended: read the outside file (a result other than `inside`, the
    answer before the swapping began, or any text naming SECRET), read the inside
    file, or refused with one line. How many read the inside file depends on the
    timing (the load of the machine): a call that meets a link, or a name that changes
    under it 8 times, is refused; the tests ask only that none read outside and that
    the swapping ran (some calls were refused)."""
    assert not inside.is_error, inside.text
    kinds: Counter = Counter()
    for out in outcomes:
        if SECRET in out.text or (not out.is_error and out.text != inside.text):
            kinds["outside"] += 1
        elif out.is_error:
            assert "\n" not in out.text.strip(), out.text
            assert "Traceback" not in out.text and "internal error" not in out.text, out.text
            kinds["refused"] += 1
        else:
            kinds["inside"] += 1
    return kinds


NO_PROVENANCE = {"provenance": False}
RACES = [
    # (what the swapper swaps, calls, the tool and its arguments)
    pytest.param("link", "race.csv", CALLS, "profile_dataset", {"path": "race.csv"}, id="profile"),
    pytest.param(
        "link",
        "race.csv",
        CALLS // 2,
        "profile_dataset",
        {"path": "rac?.csv", **NO_PROVENANCE},
        id="profile-glob",
    ),
    pytest.param(
        "link",
        "race.parquet",
        CALLS // 2,
        "profile_dataset",
        {"path": "race.parquet"},
        id="profile-parquet",
    ),
    pytest.param("link", "race.csv", CALLS // 4, "proxy_hints", {"path": "race.csv"}, id="proxy"),
    pytest.param(
        "link",
        "race.csv",
        CALLS // 4,
        "compare_datasets",
        {"path_a": "d/race.csv", "path_b": "race.csv", **NO_PROVENANCE},
        id="compare",
    ),
    pytest.param(
        "link",
        "ref.csv",
        CALLS // 2,
        "profile_dataset",
        {"path": "d/race.csv", "reference": "ref.csv", **NO_PROVENANCE},
        id="reference",
    ),
    pytest.param(
        "dir",
        "d",
        CALLS // 2,
        "profile_dataset",
        {"path": "d/race.csv", **NO_PROVENANCE},
        id="folder",
    ),
]


@pytest.mark.parametrize(("mode", "swapped", "calls", "tool", "args"), RACES)
def test_a_name_swapped_for_a_link_out_is_never_read(
    tree: Path, mode: str, swapped: str, calls: int, tool: str, args: dict[str, Any]
):
    root = Root(str(tree))
    outside = tree.parent / "outside"
    inside = run_tool(root, tool, args)
    with swapping(mode, tree / swapped, outside / swapped if mode == "link" else outside):
        outcomes = [run_tool(root, tool, args) for _ in range(calls)]
    kinds = tally(outcomes, inside)
    assert kinds["outside"] == 0, dict(kinds)
    assert kinds["refused"] > 0, dict(kinds)  # the swapping ran during the calls


@pytest.mark.parametrize("name", ["race.csv", "race.parquet"])
def test_evaluate_model_never_reads_a_link_out(tree: Path, name: str):
    root = Root(str(tree))
    args = {"path": name, "pred": "pred", "attrs": ["sex"], "engine": "pandas"}
    inside = run_tool(root, "evaluate_model", args)
    with swapping("link", tree / name, tree.parent / "outside" / name):
        kinds = tally([run_tool(root, "evaluate_model", args) for _ in range(CALLS // 8)], inside)
    assert kinds["outside"] == 0, dict(kinds)
    assert kinds["refused"] > 0, dict(kinds)


def test_the_race_through_the_mcp_client_over_stdio(tree: Path):
    pytest.importorskip("mcp")
    from test_mcp import client

    args = {"path": "race.csv"}
    with client(["--root", str(tree)]) as c:
        inside = c.call("profile_dataset", args)
        with swapping("link", tree / "race.csv", tree.parent / "outside" / "race.csv"):
            results = [c.call("profile_dataset", args) for _ in range(STDIO_CALLS)]
    kinds = tally(
        [Outcome(r.content[0].text, None, r.is_error) for r in results],
        Outcome(inside.content[0].text, None, inside.is_error),
    )
    assert kinds["outside"] == 0, dict(kinds)
    assert kinds["refused"] > 0, dict(kinds)


def _within(seconds: float, fn: Any, *args: Any) -> Any:
    """fn(*args) on a daemon thread; fails when it has not returned after `seconds`
    (a blocked or hung call is left behind on its thread)."""
    box: list[Any] = []
    worker = threading.Thread(target=lambda: box.append(fn(*args)), daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(seconds)
    assert box, f"no answer after {time.monotonic() - started:.1f} s"
    return box[0]


def test_a_fifo_swapped_in_never_blocks_a_call(tree: Path):
    root = Root(str(tree))
    args = {"path": "race.csv", "provenance": False}
    inside = run_tool(root, "profile_dataset", args)

    def calls() -> list[Any]:  # most are refused at once: twice as many calls
        return [run_tool(root, "profile_dataset", args) for _ in range(2 * CALLS)]

    with swapping("fifo", tree / "race.csv", Path(os.devnull)):
        kinds = tally(_within(15, calls), inside)
    assert kinds["outside"] == 0 and kinds["refused"] > 0, dict(kinds)


# ---------------------------------------------------------------------------------------
# Globs


def test_a_glob_never_names_a_file_behind_a_link_out(tree: Path):
    base = tree.parent
    (base / "gen1.py").write_text("sex\nMale\n")
    (tree / "indir_link").symlink_to("..")
    root = Root(str(tree))
    found = run_tool(root, "profile_dataset", {"path": "**/gen*.py"})
    nothing = run_tool(root, "profile_dataset", {"path": "**/nomatch*.py"})
    assert found.is_error and nothing.is_error
    assert "indir_link" not in found.text and "gen1" not in found.text, found.text
    # the same answer whether or not a file outside matches: no existence oracle
    assert found.text == nothing.text.replace("nomatch", "gen"), (found.text, nothing.text)
    assert found.text == "**/gen*.py: no file matches this pattern"


@pytest.mark.parametrize(
    "links", [{"a": ".", "b": "."}, {"usr": "/usr"}, {"up": "..", "a": ".", "b": "."}]
)
def test_a_glob_through_directory_links_returns_promptly(tree: Path, links: dict[str, str]):
    for name, target in links.items():
        (tree / "d" / name).symlink_to(target)
    root = Root(str(tree))
    started = time.monotonic()
    out = _within(10, run_tool, root, "profile_dataset", {"path": "**/zz*"})
    assert time.monotonic() - started < 2
    assert out.is_error and out.text == "**/zz*: no file matches this pattern", out.text


def test_a_glob_is_bounded_in_matches(tree: Path):
    for i in range(6):
        (tree / "d" / f"m{i}.csv").write_bytes(INSIDE)
    out = run_tool(Root(str(tree), glob_matches=5), "profile_dataset", {"path": "**/m*.csv"})
    assert out.is_error and out.text == (
        "path: **/m*.csv: more than 5 files match this pattern; narrow it (the MCP server "
        "takes at most 5 files in one call)"
    )
    out = run_tool(Root(str(tree), glob_matches=6), "profile_dataset", {"path": "**/m*.csv"})
    assert not out.is_error, out.text


def test_a_glob_is_bounded_in_time(tree: Path):
    out = run_tool(Root(str(tree), glob_seconds=0), "profile_dataset", {"path": "**/zz*"})
    assert out.is_error and out.text.startswith(
        "path: **/zz*: the search for matching files stopped after 0 s ("
    )
    assert out.text.endswith("folders looked at); narrow the pattern"), out.text


# ---------------------------------------------------------------------------------------
# The process: standard input closed during a long call

# The server with profile_dataset replaced by a call that takes a minute (a file large
# enough to take that long would make the test slow); it touches MARKER when it starts.
SLOW_SERVER = r"""
import sys, time
import faircode.mcptools as tools
marker, root = sys.argv[1:3]

def slow(root, args):
    open(marker, "w").close()
    time.sleep(60)
    return "{}", {}

tools.TOOLS["profile_dataset"] = slow
from faircode.mcp_server import main
raise SystemExit(main(["--root", root]))
"""


def test_the_server_exits_when_stdin_closes_during_a_long_call(tree: Path):
    mcp_types = pytest.importorskip("mcp_types")
    marker = tree.parent / "started"
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_SERVER, str(marker), str(tree)],
        env=ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin and proc.stdout
    try:
        init = {
            "protocolVersion": mcp_types.LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        }
        messages = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "profile_dataset", "arguments": {"path": "race.csv"}},
            },
        ]
        for message in messages:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        deadline = time.monotonic() + 20
        while not marker.exists():
            assert time.monotonic() < deadline and proc.poll() is None, "the call never started"
            time.sleep(0.02)
        closed = time.monotonic()
        proc.stdin.close()
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail("the server was still running 5 s after its standard input closed")
        assert time.monotonic() - closed < 3
        assert code == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ---------------------------------------------------------------------------------------
# What the confined open still allows, and refuses, without a race


def test_links_inside_the_root_are_followed_inside_it(tree: Path):
    (tree / "alias.csv").symlink_to("race.csv")
    (tree / "abs.csv").symlink_to(tree / "race.csv")
    (tree / "d" / "up.csv").symlink_to("../race.csv")
    (tree / "dlink").symlink_to("d")
    (tree / "d" / "out.csv").symlink_to("../../outside/race.csv")
    (tree / "d" / "abs_out.csv").symlink_to(tree.parent / "outside" / "race.csv")
    (tree / "loop1").symlink_to("loop2")
    (tree / "loop2").symlink_to("loop1")
    (tree / "broken.csv").symlink_to("nowhere.csv")
    root = Root(str(tree))
    inside = run_tool(root, "profile_dataset", {"path": "race.csv", "provenance": False})
    for path in ("alias.csv", "abs.csv", "d/up.csv", "dlink/race.csv", "dlink/../race.csv"):
        out = run_tool(root, "profile_dataset", {"path": path, "provenance": False})
        assert out.text == inside.text, (path, out.text)
    refused = {
        "d/out.csv": "path: d/out.csv: a symbolic link leads outside the server's root",
        "d/abs_out.csv": "path: d/abs_out.csv: a symbolic link leads outside",
        "loop1": "loop1: a symbolic link loop (too many levels of symbolic links)",
        "broken.csv": "broken.csv: a broken symbolic link (its target does not exist)",
        "race.csv/x.csv": "race.csv/x.csv: cannot open (Not a directory)",
        ".": ".: is a directory, not a file",
        "dlink": "dlink: is a directory, not a file",
    }
    for path, message in refused.items():
        out = run_tool(root, "profile_dataset", {"path": path})
        shown = out.text.replace(str(tree) + os.sep, "").replace(str(tree) + ":", ".:")
        assert out.is_error and shown.startswith(message), (path, out.text)


def test_a_glob_walks_links_before_its_first_wildcard_only(tree: Path):
    (tree / "dlink").symlink_to("d")
    (tree / "d" / "e").mkdir()
    (tree / "d" / "e" / "race.csv").write_bytes(INSIDE)
    root = Root(str(tree))
    assert root.glob("dlink/*.csv", "path") == ["dlink/race.csv"]
    assert root.glob("**/race.csv", "path") == ["d/e/race.csv", "d/race.csv", "race.csv"]
    (tree / "d" / "e" / "deeper").mkdir()
    with pytest.raises(InputError, match=r"^path: \*\*/x: the search .* reached folders 2 levels"):
        Root(str(tree), glob_depth=2).glob("**/x", "path")


def test_a_glob_names_a_file_link_out_and_opening_it_refuses_it(tree: Path):
    (tree / "d" / "secret.csv").symlink_to(tree.parent / "outside" / "race.csv")
    (tree / "d" / "gone.csv").symlink_to(tree.parent / "outside" / "nothing.csv")
    root = Root(str(tree))
    # a link out is named whether or not its target exists: no existence oracle
    assert root.glob("d/*.csv", "path") == ["d/gone.csv", "d/race.csv", "d/secret.csv"]
    out = run_tool(root, "profile_dataset", {"path": "d/*.csv"})
    assert out.is_error and "d/gone.csv: a symbolic link leads outside" in out.text, out.text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"engine": "spark"}, "'engine' must be one of auto, pandas, fairlearn, got \"spark\""),
        ({"task": "multiclass"}, "'task' must be one of binary, regression"),
        ({"threshold": 10**400}, "'threshold' must be a finite number, got an integer of"),
        ({"alpha": float("inf")}, "'alpha' must be a finite number, got inf"),
    ],
)
def test_evaluate_model_takes_only_its_schemas_choices_and_finite_numbers(tree: Path, args, says):
    """An `engine` outside the schema's enum was run: "spark" opened the path by name,
    past the root's checks (a link out, a FIFO, `file:` outside the root); a number past
    a float's range was an internal error. Each is one refusal, before any file."""
    out = tree.parent / "outside" / "race.csv"
    call = {"path": f"file:{out}", "pred": "pred", "attrs": ["sex"], **args}
    got = run_tool(Root(str(tree)), "evaluate_model", call)
    assert got.is_error, got.text
    assert got.text.startswith(f"evaluate_model: {says}"), got.text
