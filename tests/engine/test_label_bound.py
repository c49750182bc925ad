"""Labels capped in length in every output (issue 25, item 7; SPEC 0.9 LABEL_SHOWN): a
1 MB cell is shown as its first 200 code points and a marker in the text, JSON,
Markdown, CSV and HTML outputs and the MCP reply; the counts are not touched, and two
labels that differ only past the cut stay apart (the marker holds a hash of the whole
label). Both engines cap the same way (`bounded` in `safetext.py` and in the JS engine)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsbridge import node_command
from util import data_file

import faircode
from faircode.safetext import LABEL_SHOWN, bounded, capped

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "assets" / "profiler-engine.js"
MB = 1 << 20
BIG = "A" * MB
TWIN = "A" * (MB - 1) + "B"  # differs from BIG only at its last character


def cut_of(label: str) -> str:
    digest = hashlib.sha256(label.encode()).hexdigest()[:12]
    return f"{label[:200]}... ({len(label) - 200} more characters, sha256 {digest})"


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory) -> Path:
    f = tmp_path_factory.mktemp("bound") / "big.csv"
    rows = ["sex,race,note"]
    for i in range(60):
        race = (BIG, TWIN, "c", "d")[i % 4] if i < 56 else "rare"
        rows.append(f"{'MF'[i % 2]},{race},x")
    f.write_text("\n".join(rows) + "\n")
    return f


def test_capped_form():
    assert LABEL_SHOWN == 200
    assert capped("x" * 200) == "x" * 200
    assert capped(BIG) == cut_of(BIG) and capped(TWIN) == cut_of(TWIN)
    assert capped(BIG) != capped(TWIN) and capped(BIG).startswith("A" * 200 + "... (1048376 ")
    emoji = "😀" * 201  # code points, not UTF-16 units or bytes
    assert capped(emoji) == cut_of(emoji) and "(1 more characters" in capped(emoji)


def test_a_1mb_label_is_capped_in_every_output(big_csv):
    r = faircode.profile(big_csv)
    race = next(d for d in r["dimensions"] if d["name"] == "race")
    counts = {g["label"]: g["count"] for g in race["groups"]}
    assert counts == {BIG: 14, TWIN: 14, "c": 14, "d": 14, "rare": 4}  # raw, counted apart
    for form in ("text", "json", "markdown", "csv", "html"):
        out = r.report(form)
        assert len(out) < 80_000, (form, len(out))  # was: 2 MB and more
        assert "A" * 201 not in out, form
    js = json.loads(r.report("json"))
    shown = {g["label"]: g["count"] for g in js["dimensions"][1]["groups"]}
    assert shown == {cut_of(BIG): 14, cut_of(TWIN): 14, "c": 14, "d": 14, "rare": 4}
    assert cut_of(BIG) in r.report("csv") and cut_of(BIG) in r.report("markdown")
    html = r.report("html")
    assert cut_of(BIG) in html and cut_of(TWIN) in html
    cli = subprocess.run(
        [sys.executable, "-m", "faircode", "profile", str(big_csv), "--json"],
        capture_output=True,
        timeout=120,
    )
    assert (
        cli.returncode == 0
        and len(cli.stdout) < 20_000
        and {**json.loads(cli.stdout), "provenance": None} == {**js, "provenance": None}
    )


def test_flags_keep_their_text_around_a_capped_label(big_csv):
    # groups of 14 rows: above a floor of 10, so their intersection cells are tested (SPEC 4)
    r = faircode.profile(big_csv, opts={"min_group_size": 10})
    raw = [f for f in r["flags"] if BIG in f]
    assert raw  # the flag names the 1 MB label ...
    flags = json.loads(r.report("json"))["flags"]
    for f in raw:  # ... and keeps its own words around the capped form
        want = f.replace(TWIN, cut_of(TWIN)).replace(BIG, cut_of(BIG))
        assert want in flags and len(want) < 1000


def test_mcp_reply_is_capped(big_csv):
    from faircode.mcptools import Root, run_tool

    out = run_tool(Root(str(big_csv.parent)), "profile_dataset", {"path": big_csv.name})
    assert not out.is_error, out.text
    assert len(out.text) < 20_000 and cut_of(BIG) in out.text
    assert json.loads(out.text) == out.data


def test_nothing_changes_without_a_long_label():
    r = faircode.profile(data_file("compas-scores-two-years.csv"), opts={"label": "two_year_recid"})
    assert bounded(r) is r
    long_name = {
        "dimensions": [{"name": "n" * 300}],
        "flags": ["x" * 300],
        "provenance": {"p": "q" * 300},
    }
    got = bounded(long_name)
    assert got["dimensions"][0]["name"] == capped("n" * 300)
    assert got["flags"] == ["x" * 300] and got["provenance"] == {"p": "q" * 300}


HOSTILE = {
    "dimensions": [
        {
            "name": "r" * 250,
            "groups": [
                {"label": lab, "count": 1}
                for lab in ("a" * 300, "a" * 299 + "b", "😀" * 210, "é" * 150)
            ],
        }
    ],
    "by_label": {"k" * 201: 1, "short": 2},
    "findings": [{"text": f"'{'a' * 300}' x 'b' is absent", "groups": ["a" * 300]}],
    "flags": [
        f"{'r' * 250}: '{'a' * 300}' is under-represented (1.00%)",
        f"'{'a' * 299 + 'b'}' x '{'😀' * 210}' is absent",
        "y" * 400,
    ],
    "provenance": {"path": "p" * 300},
}


def test_both_engines_cap_the_same(big_csv):
    """Python's and the JS engine's `bounded` on one value, and on the two
    engines' own results of the 1 MB file."""
    script = (
        f"const E = require({json.dumps(str(ENGINE))}); let s = '';"
        "process.stdin.on('data', (d) => { s += d; });"
        "process.stdin.on('end', () => { const v = JSON.parse(s);"
        "process.stdout.write(JSON.stringify(v.map(E.bounded))); });"
    )
    js_result = json.loads(
        subprocess.run(
            [*node_command(), str(ROOT / "scripts" / "engine-js.js"), "profile", str(big_csv)],
            capture_output=True,
            timeout=120,
            check=True,
        ).stdout
    )
    py_result = dict(faircode.profile(big_csv))
    assert js_result == py_result  # the engines agree on the raw result
    values = [HOSTILE, py_result]
    p = subprocess.run(
        [*node_command(), "-e", script],
        input=json.dumps(values).encode(),
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == [bounded(v) for v in values]


def test_bounding_twice_is_bounding_once(big_csv):
    once = json.loads(faircode.profile(big_csv).report("json"))
    assert bounded(once) is once and capped(capped(BIG)) == capped(BIG)


def test_a_saved_profile_compares_with_its_csv(big_csv, tmp_path):
    """A saved `profile --json` holds the capped labels; compared with the file it came
    from, every group matches (the fresh side is capped the same way)."""
    saved = tmp_path / "big.faircode.json"
    cli = [sys.executable, "-m", "faircode"]
    p = subprocess.run([*cli, "profile", str(big_csv), "--json"], capture_output=True, timeout=120)
    saved.write_bytes(p.stdout)
    p = subprocess.run(
        [*cli, "compare", str(saved), str(big_csv), "--json"], capture_output=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    race = next(d for d in r["dimensions"] if d["name"] == "race")
    assert race["drift_level"] == "none" and race["psi"] == 0, race


def test_sentences_keep_their_words():
    got = bounded(HOSTILE)
    a, r = capped("a" * 300), capped("r" * 250)
    assert got["findings"][0] == {"text": f"'{a}' x 'b' is absent", "groups": [a]}
    assert got["flags"][0] == f"{r}: '{a}' is under-represented (1.00%)"
    assert got["flags"][2] == "y" * 400  # a long sentence without a long label: whole
    assert got["by_label"] == {capped("k" * 201): 1, "short": 2}
    assert got["provenance"] == HOSTILE["provenance"]
