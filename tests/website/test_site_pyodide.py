"""The website's "Check with the Python engine" (SPEC 14.1) in Chromium, and the site
build that makes it possible (scripts/build_site.py).

The site is built into a temporary folder (the wheel, Pyodide's core and standard
library from node_modules, the lock file by `pyodide lockfile add-wheels`) and served by
`faircode serve`'s server (`--site`). The button must load Pyodide and faircode from
the page's own origin only when pressed, and say "identical" on COMPAS and on a file of
hostile labels; a difference names its JSON path and both values.

Needs what tests/website/test_site.py needs (Playwright, Chromium) and the pyodide npm package;
under CI (CI set) a missing one fails, else the module is skipped with the reason.
"""

from __future__ import annotations

import email.parser
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if not (ROOT / "node_modules" / "pyodide" / "package.json").is_file() and not os.environ.get("CI"):
    pytest.skip(
        "the pyodide npm package is not installed: run `npm install`", allow_module_level=True
    )

from test_site import (  # noqa: E402  (its module-level skip applies here too)
    HOSTILE,
    Page,
    browser,  # noqa: F401  (the fixture)
    change,
    hostile_csv,
    load,
    open_settings,
    reread,
    wait_js,
)
from util import data_file  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
import build_site  # noqa: E402

from faircode.pagecheck import profile_json  # noqa: E402
from faircode.reference import builtin_bytes  # noqa: E402
from faircode.serve import WORKER_POLICY, make_server  # noqa: E402

COMPAS = ROOT / "faircode" / "data" / "compas-scores-two-years.csv"
VERDICT = "() => document.getElementById('py-check-result').dataset.verdict || ''"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(output folder, what build_site reported) of one build for the module."""
    out = tmp_path_factory.mktemp("built") / "site"
    info = build_site.build(out, build_site.DEFAULT_TOOL_VENV)
    if os.environ.get("CI"):
        # this machine has Python 3.12+ (pyenv): CI must exercise the real tool
        assert info["lock"] == "pyodide lockfile add-wheels", info
    return out, info


@pytest.fixture(scope="module")
def served(built):
    srv = make_server(0, built[0])
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


class Recorded(Page):
    """A Page that also records its workers' requests (the context sees them; a page's
    own request may be recorded twice, which no test here counts)."""

    def __init__(self, browser, allowed):  # noqa: F811
        super().__init__(browser, allowed)
        self.context.on("request", lambda r: self.requests.append(r.url))


@pytest.fixture
def site_py(browser, served):  # noqa: F811
    pages = []

    def open_page() -> Recorded:
        pg = Recorded(browser, (served + "/", "blob:", "data:"))
        pg.page.goto(served + "/index.html")
        wait_js(pg.page, "() => document.body.dataset.workers !== undefined")
        pages.append(pg)
        return pg

    yield open_page
    for pg in pages:
        pg.check_clean()
        pg.close()


def pyodide_requests(pg: Page) -> list[str]:
    """Pyodide's and the worker's requests (not the small manifest each press reads)."""
    return [
        u
        for u in pg.requests
        if ("/pyodide/" in u or "pycheck-worker" in u) and not u.endswith("site-build.json")
    ]


def press(pg: Page, timeout: float = 180_000) -> str:
    """Press the button (enabled once the hash is done) and wait for its verdict."""
    wait_js(pg.page, "() => !document.getElementById('py-check').disabled")
    pg.page.evaluate("document.getElementById('py-check-result').dataset.verdict = ''")
    pg.page.click("#py-check")
    wait_js(pg.page, VERDICT, timeout=timeout)
    return pg.page.evaluate(VERDICT)


# ---------------------------------------------------------------------------------------
# The build


def test_the_lock_file_lists_faircode_with_no_dependency(built):
    out, info = built
    pyo = out / "pyodide"
    lock = json.loads((pyo / "pyodide-lock.json").read_text())
    node = ROOT / "node_modules" / "pyodide"
    assert lock["info"] == json.loads((node / "pyodide-lock.json").read_text())["info"]
    # only what the site serves: faircode, whose wheel is there with that digest
    assert set(lock["packages"]) == {"faircode"}
    entry = lock["packages"]["faircode"]
    wheel = pyo / entry["file_name"]
    assert entry["depends"] == [] and entry["imports"] == ["faircode"]
    assert entry["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    # the wheel's own metadata: no requirement outside an extra (read here, not by the
    # script's helper)
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        reqs = email.parser.Parser().parsestr(z.read(meta).decode()).get_all("Requires-Dist")
        assert "faircode/pagecheck.py" in z.namelist()
    assert [r for r in reqs if "extra ==" not in r] == []
    # Pyodide's core and standard library, byte for byte the pinned package's
    for name in build_site.PYODIDE_FILES:
        assert (pyo / name).read_bytes() == (node / name).read_bytes(), name
    # the fallback writes the tool's entry for the same wheel
    assert build_site.lock_entry(wheel) == entry
    manifest = json.loads((pyo / "site-build.json").read_text())
    assert manifest["fetched_bytes"] == sum(
        (pyo / n).stat().st_size
        for n in ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", wheel.name)
    )


def test_the_build_refuses_the_repository_site_folder():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_site.py"), "--out", "site", "--no-tool"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"build_site: error: --out {ROOT / 'site'}: give a folder of its own "
        "(not the repository or site/)"
    ]


def test_pagecheck_prints_what_the_cli_prints(tmp_path):
    """faircode.pagecheck (the worker's Python side) under CPython: the CLI's --json
    text, byte for byte, with options, kinds and a reference."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cli = subprocess.run(
        [
            sys.executable, "-m", "faircode", "profile", str(COMPAS), "--json",
            "--label", "two_year_recid", "--na", "Other", "--map", "decile_score=categorical",
            "--reference", "us-2024", "--min-group-size", "50",
        ],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    got = profile_json(
        COMPAS.read_bytes(),
        COMPAS.name,
        {"label": "two_year_recid", "na": ["Other"], "min_group_size": 50},
        [["decile_score", "categorical"]],
        builtin_bytes("us-2024"),
        "us-2024",
    )
    assert got == cli.stdout


# ---------------------------------------------------------------------------------------
# The page


def test_compas_identical_and_nothing_leaves_the_origin(site_py, served, tmp_path):
    pg = site_py()
    page = pg.page
    load(pg, COMPAS)
    wait_js(page, "() => document.getElementById('results').dataset.hash === 'done'")
    time.sleep(0.5)
    assert pyodide_requests(pg) == [], "Pyodide loaded before the button was pressed"
    assert press(pg) == "identical", page.text_content("#py-check-result")
    text = page.text_content("#py-check-result")
    assert text.startswith("Identical: the Python engine (CPython 3.14")
    got = pyodide_requests(pg)
    for name in ("pycheck-worker.mjs", "pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        assert any(u.endswith("/" + name) for u in got), (name, got)
    assert any(u.endswith(".whl") for u in got)
    assert all(u.startswith(served + "/") for u in got)
    bar = page.evaluate(
        "[document.getElementById('py-check-progress').value,"
        " document.getElementById('py-check-progress').max]"
    )
    assert bar[0] == bar[1] > 14_000_000
    # the worker's own policy (a worker loaded from a URL takes its response's)
    resp = page.request.get(served + "/pycheck-worker.mjs")
    assert resp.headers["content-security-policy"] == WORKER_POLICY
    assert "wasm-unsafe-eval" in WORKER_POLICY and "http" not in WORKER_POLICY
    # with settings: a kind, a threshold, a missing token, a label, a reference; Pyodide
    # is loaded once per page
    before = len(pyodide_requests(pg))
    open_settings(page)
    change(pg, lambda: page.select_option("select[data-column='decile_score']", "categorical"))
    change(
        pg,
        lambda: (
            page.fill("#opt-min_group_size", "50") or page.press("#opt-min_group_size", "Enter")
        ),
    )  # noqa: E501
    change(pg, lambda: page.fill("#opt-na", "Other") or page.locator("#opt-na").blur())
    reread(pg)
    change(pg, lambda: page.select_option("#label-col", "two_year_recid"))
    reread(pg)
    change(pg, lambda: page.select_option("#reference", "samples/reference-us-2024.csv"))
    assert press(pg) == "identical", page.text_content("#py-check-result")
    assert len(pyodide_requests(pg)) == before
    # a difference is named: its JSON path and both values (the page's export altered)
    page.evaluate(
        """() => { const p = window.faircodePage; const real = p.exported;
        p.exported = () => {
          const r = real(); r.dimensions[1].groups[0].count += 1; return r; }; }"""
    )
    assert press(pg) == "different"
    path = page.get_attribute("#py-check-result", "data-path")
    assert path == "$.dimensions[1].groups[0].count"
    text = page.text_content("#py-check-result")
    want = profile_json(
        COMPAS.read_bytes(),
        COMPAS.name,
        {"label": "two_year_recid", "na": ["Other"], "min_group_size": 50},
        [["decile_score", "categorical"]],
        builtin_bytes("us-2024"),
        "us-2024",
    )
    n = json.loads(want)["dimensions"][1]["groups"][0]["count"]
    assert text == f"Different at {path}: this page {n + 1}, Python {n}."


def test_hostile_labels_identical_after_a_cancel(site_py, tmp_path):
    pg = site_py()
    page = pg.page
    load(pg, hostile_csv(tmp_path))
    wait_js(page, "() => !document.getElementById('py-check').disabled")
    # The worker's answer is held back until the cancel is pressed: on a loaded machine a
    # warm Pyodide answered a small file before the click arrived, and the test saw
    # "identical" (a race in the test, not in the page). The stand-in Worker passes every
    # progress message on and keeps the answer; the page's own Worker is put back after.
    page.evaluate(
        """() => {
      const Real = window.Worker;
      window.__realWorker = Real;
      window.Worker = class extends Real {
        set onmessage(f) {
          super.onmessage = (ev) => {
            const m = ev.data;
            if (m.progress === undefined && m.stage === undefined) window.__held = true;
            else f(ev);
          };
        }
      };
    }"""
    )
    page.click("#py-check")
    wait_js(page, "() => window.__held === true")  # the check is running and has answered
    page.click("#py-check-cancel")
    wait_js(page, VERDICT)
    assert page.evaluate(VERDICT) == "cancelled"
    page.evaluate("() => { window.Worker = window.__realWorker; }")
    assert press(pg) == "identical", page.text_content("#py-check-result")
    assert page.evaluate("window.__pwned") is None
    labels = {
        g["label"]
        for g in json.loads(page.evaluate("JSON.stringify(faircodePage.exported())"))["dimensions"][
            1
        ]["groups"]
    }  # noqa: E501
    assert labels == set(HOSTILE)


def test_unavailable_without_the_build_and_on_file_urls(browser, tmp_path):  # noqa: F811
    """Served from site/ (no pyodide/ folder) the button says how to build the engine;
    on a file:// page it says why it cannot run there. Neither fetches Pyodide."""
    srv = make_server(0)  # the package's site: no pyodide/
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    try:
        pg = Recorded(browser, (base + "/", "blob:", "data:"))
        pg.page.goto(base + "/index.html")
        load(pg, data_file("insurance.csv"))
        assert press(pg) == "unavailable"
        assert "python scripts/build_site.py" in pg.page.text_content("#py-check-result")
        assert pyodide_requests(pg) == []
        pg.close()
    finally:
        srv.shutdown()
        srv.server_close()
    fp = Recorded(browser, ("file://",))
    fp.page.goto((ROOT / "site" / "index.html").as_uri())
    load(fp, data_file("insurance.csv"))
    assert press(fp) == "unavailable"
    assert "file:// page" in fp.page.text_content("#py-check-result")
    assert pyodide_requests(fp) == []
    fp.close()
