"""The website (site/) and the --html report in a real browser (Chromium via Playwright).

The numbers a page shows (read from its DOM: data attributes and text) must equal
``faircode.profile`` for the same file; the page's exported JSON must equal the CLI's
``--json`` (provenance.engine aside); the CLI's ``--html`` report must show the same
numbers; no request may leave the page except to the local server; labels from the
data must render as text. Skipped when Chromium or Playwright is missing, except under
CI (the environment variable CI set), where that is a failure.

Screenshots of each view are written under pytest's temporary folder when
FAIRCODE_SCREENSHOTS=1 (the folder is printed; run with -s to see it); no test reads
them, and taking them was a tenth of the file's time.

The pages: one browser for the module, and the tabs of the site and of the reports
(file:// pages) kept from test to test (Pool): each test's page is a new document
(page.goto) with its own init script, requests and errors, and the default viewport
and media. A new tab (a new browser context, whose new renderer compiles the page's
scripts afresh) cost about a second of CPU, four times a page.goto in a kept one.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from util import data_file

import faircode
from faircode.cli import main as cli_main
from faircode.htmlreport import report_html, site_dir
from faircode.numerics import pct, share_text
from faircode.options import DELIMITERS, spelling
from faircode.reference import load_reference
from faircode.safetext import shown
from faircode.serve import make_server

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
GROUPS_LISTED = 1000  # site/views.js: groups drawn at most per dimension
CHROMIUM = os.environ.get("FAIRCODE_CHROMIUM", "/usr/bin/chromium")

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

_missing = (
    "playwright is not installed (pip install playwright)"
    if sync_playwright is None
    else f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    if not Path(CHROMIUM).exists()
    else None
)
if _missing:
    if os.environ.get("CI"):
        raise RuntimeError(f"tests/website/test_site.py needs a browser under CI: {_missing}")
    pytest.skip(_missing, allow_module_level=True)

# ---------------------------------------------------------------------------------------
# Fixtures: one local server of site/, one browser, a page that records every request


@pytest.fixture(scope="module")
def server():
    # the site these tests run is the one of this tree (an editable install elsewhere
    # would serve another checkout's site/ and test that instead)
    assert site_dir().resolve() == SITE.resolve(), f"faircode serves {site_dir()}, not {SITE}"
    srv = make_server(0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    """``shots(page, name, full_page=True)``: a screenshot of ``page`` under pytest's
    temporary folder when FAIRCODE_SCREENSHOTS=1, else nothing."""
    if os.environ.get("FAIRCODE_SCREENSHOTS", "") in ("", "0"):
        return lambda page, name, full_page=True: None
    d = tmp_path_factory.mktemp("site-screenshots")
    print(f"\nscreenshots: {d}")

    def shot(page, name: str, full_page: bool = True) -> None:
        page.screenshot(path=d / name, full_page=full_page)

    return shot


class Page:
    """A page with its requests, console errors and page errors recorded. A page of the
    pool (Pool.take) goes back to it on close(), for a later test's page.goto."""

    def __init__(self, browser, allowed: tuple[str, ...]):
        self.context = browser.new_context(accept_downloads=True)
        self.context.grant_permissions(["clipboard-read", "clipboard-write"])
        self.page = self.context.new_page()
        self.viewport = self.page.viewport_size
        self.allowed = allowed
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.pool: Pool | None = None
        self.kind = ""
        self.cdp = None
        self.inits: list[str] = []  # the init scripts' ids (add_init)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on(
            "console",
            lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None,
        )

    def add_init(self, script: str) -> None:
        """Run ``script`` in every new document of this page before the page's own
        scripts, until the page goes back to the pool (what context.add_init_script does,
        but removable: through Chromium's DevTools protocol)."""
        if self.cdp is None:
            self.cdp = self.context.new_cdp_session(self.page)
            self.cdp.send("Page.enable")  # scripts run in new documents once it is on
        added = self.cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": script})
        self.inits.append(added["identifier"])

    def check_clean(self):
        # blob: URLs are the page's own workers (built from the engine's source): only the
        # page's origin can create them, and loading one never touches the network
        stray = [
            u for u in self.requests if not u.startswith(self.allowed) and not u.startswith("blob:")
        ]
        assert stray == [], f"requests left the page: {stray}"
        assert self.errors == [], self.errors

    def close(self):
        if self.pool is None or not self.pool.give_back(self):
            self.context.close()


class Pool:
    """Free Pages by kind ('site', 'report'), kept between tests. take() gives one as a
    new page would be: no init script, its records empty, the default viewport and
    media, on about:blank (give_back left it there: the last test's document and its
    workers gone); the caller's goto makes the new document."""

    KEEP = 2  # pages kept per kind: as many as a test uses at once

    def __init__(self, browser):
        self.browser = browser
        self.free: dict[str, list[Page]] = {}

    def take(self, kind: str, allowed: tuple[str, ...]) -> Page:
        free = self.free.get(kind)
        if not free:
            pg = Page(self.browser, allowed)
            pg.pool, pg.kind = self, kind
            return pg
        pg = free.pop()
        pg.allowed = allowed
        pg.requests = []
        pg.errors = []
        pg.page.set_viewport_size(pg.viewport)
        pg.page.emulate_media(media="null", color_scheme="light")  # a new context's
        pg.page.mouse.move(0, 0)
        return pg

    def give_back(self, pg: Page) -> bool:
        free = self.free.setdefault(pg.kind, [])
        if pg in free:
            return True
        if len(free) >= self.KEEP:
            return False
        try:
            while pg.inits:
                pg.cdp.send(
                    "Page.removeScriptToEvaluateOnNewDocument", {"identifier": pg.inits[-1]}
                )
                pg.inits.pop()
            pg.page.goto("about:blank")
        except Exception:  # a crashed or closed page: not kept
            return False
        free.append(pg)
        return True

    def close(self) -> None:
        for free in self.free.values():
            for pg in free:
                pg.context.close()
        self.free.clear()


@pytest.fixture(scope="module")
def pool(browser):
    p = Pool(browser)
    yield p
    p.close()


@pytest.fixture
def site(server, pool):
    """``site(url=None, init=None)``: the site's page, loaded (its workers checked),
    with the script ``init`` run before the page's own."""
    pages = []

    def open_page(url: str | None = None, init: str | None = None) -> Page:
        pg = pool.take("site", (server + "/", "blob:", "data:"))
        pages.append(pg)
        if init:
            pg.add_init(init)
        pg.page.goto(url or server + "/index.html")
        wait_js(pg.page, "() => document.body.dataset.workers !== undefined")
        return pg

    yield open_page
    try:
        for pg in pages:
            pg.check_clean()
    finally:
        for pg in pages:
            pg.close()


@pytest.fixture
def reports(pool):
    """``reports(where)``: a page of the reports' kind (only file:// requests allowed) at
    ``where`` (a file, or a URL); back to the pool at the end of the test if the test
    did not close it."""
    pages = []

    def open_report(where: Path | str) -> Page:
        pg = pool.take("report", ("file://",))
        pages.append(pg)
        pg.page.goto(where.as_uri() if isinstance(where, Path) else where)
        return pg

    yield open_report
    for pg in pages:
        pg.close()


# ---------------------------------------------------------------------------------------
# Reading a result from the DOM, and the same fields from a Python result

DOM_RESULT = """(root) => {
  const v = document.querySelector(root);
  const num = (s) => (s === '' || s === undefined ? null : Number(s));
  const dims = [...v.querySelectorAll('article.dim')].map((c) => ({
    name: c.dataset.dim, heading: c.querySelector('h3 bdi').textContent, kind: c.dataset.kind,
    detected_by: c.dataset.detectedBy, score: num(c.dataset.score),
    n_groups: num(c.dataset.nGroups),
    missing_pct: num(c.dataset.missingPct), missing_count: num(c.dataset.missingCount),
    skewness: num(c.dataset.skewness), age_mode: c.dataset.ageMode || null,
    groups: [...c.querySelectorAll('.bar-row')].map((r) => [r.dataset.label,
      r.querySelector('.bar-label bdi').textContent, num(r.dataset.count), num(r.dataset.share),
      num(r.dataset.ciLow), num(r.dataset.ciHigh), r.dataset.smallGroup === 'true',
      r.dataset.under === 'true']),
    reference: c.querySelector('.reference') ? {
      deviation: num(c.querySelector('.reference').dataset.deviation),
      groups: [...c.querySelectorAll('.ref-table tbody tr')].map((t) => [t.dataset.label,
        num(t.dataset.expected), num(t.dataset.actual), num(t.dataset.delta)]) } : null,
  }));
  const gaps = [...v.querySelectorAll('table.heat td.cell')]
    .filter((t) => t.dataset.state !== 'filled')
    .map((t) => [t.dataset.a, t.dataset.b, num(t.dataset.count)]);
  const heat = v.querySelector('table.heat');
  return {
    n_rows: num(v.dataset.nRows), n_cols: num(v.dataset.nCols), score: num(v.dataset.score),
    grade: v.dataset.grade || null, ring: v.querySelector('.ring').dataset.score,
    ring_text: v.querySelector('.ring-score').textContent, dims,
    cross: heat ? [heat.dataset.a, heat.dataset.b] : null, gaps,
    unscored: [...v.querySelectorAll('.unscored-list li')].map((l) => l.dataset.column),
    flags: [...v.querySelectorAll('li.flag')].map((l) => l.querySelector('bdi').textContent),
  };
}"""


def dom_result(page, root: str = "#results .profile-view") -> dict:
    # open every "more groups" list (drawn when opened)
    page.evaluate(
        "(root) => document.querySelectorAll(root + ' details.more-groups')"
        ".forEach((d) => { d.open = true; })",
        root,
    )
    wait_js(
        page,
        f"() => [...document.querySelectorAll({json.dumps(root + ' details.more-groups')})]"
        ".every((d) => d.dataset.drawn)",
    )
    return page.evaluate(DOM_RESULT, root)


def expected(r: dict) -> dict:
    """The fields of result ``r`` that the page shows, in DOM_RESULT's shape."""
    dims = []
    for d in r["dimensions"]:
        under = set(d["under_represented"])
        ref = d.get("reference")
        dims.append(
            {
                "name": d["name"],
                "heading": shown(d["name"]),
                "kind": d["kind"],
                "detected_by": d["detected_by"],
                "score": d["dimension_score"],
                "n_groups": d["n_groups"],
                "missing_pct": d["missing_pct"],
                "missing_count": d["missing_count"],
                "skewness": d["skewness"],
                "age_mode": d["age_mode"],
                "groups": [
                    [
                        g["label"],
                        shown(g["label"]),
                        g["count"],
                        g["share"],
                        g["ci_low"],
                        g["ci_high"],
                        g["small_group"],
                        g["label"] in under,
                    ]
                    for g in d["groups"][:GROUPS_LISTED]
                ],
                "reference": None
                if ref is None
                else {
                    "deviation": ref["deviation"],
                    "groups": [
                        [g["label"], g["expected"], g["actual"], g["delta"]] for g in ref["groups"]
                    ],
                },
            }
        )
    inter = r["intersections"][0] if r["intersections"] else None
    listed = {}
    if inter:
        la = [
            g["label"]
            for g in next(d for d in r["dimensions"] if d["name"] == inter["dims"][0])["groups"]
        ][:30]
        lb = [
            g["label"]
            for g in next(d for d in r["dimensions"] if d["name"] == inter["dims"][1])["groups"]
        ][:30]
        listed = {
            (c["a"], c["b"]): c["count"] for c in inter["cells"] if c["a"] in la and c["b"] in lb
        }
    return {
        "n_rows": r["n_rows"],
        "n_cols": r["n_cols"],
        "score": r["overall_score"],
        "grade": r["grade"],
        "ring": "" if r["overall_score"] is None else str(r["overall_score"]),
        "ring_text": "–" if r["overall_score"] is None else str(r["overall_score"]),
        "dims": dims,
        "cross": list(inter["dims"]) if inter else None,
        "gaps": listed,
        "unscored": [u["name"] for u in r["unscored"]],
        "flags": [shown(f) for f in r["flags"]],
    }


def assert_shows(page, r: dict, root: str = "#results .profile-view") -> dict:
    got = dom_result(page, root)
    if os.environ.get("SITE_DEBUG"):
        print("page opts:", page.evaluate("() => JSON.stringify(faircodePage.state.shownOpts)"))
    got["gaps"] = {(a, b): c for a, b, c in got["gaps"]}
    want = expected(r)
    assert got == want
    return got


def wait_js(page, fn: str, timeout: float = 60_000) -> None:
    """Wait until ``fn`` (a function of no arguments, or an expression) is true in the
    page. Playwright's wait_for_function evaluates a string, which the page's CSP
    forbids (no 'unsafe-eval'); page.evaluate calls a function and is allowed, so one
    evaluate runs the loop in the page, checking every 10 ms (one round trip instead of
    one per check from here)."""
    done = page.evaluate(
        f"""async (timeout) => {{
      const check = () => {{ const f = ({fn}); return typeof f === 'function' ? f() : f; }};
      const end = performance.now() + timeout;
      while (!check()) {{
        if (performance.now() > end) return false;
        await new Promise((resume) => setTimeout(resume, 10));
      }}
      return true; }}""",
        timeout,
    )
    if not done:
        raise TimeoutError(f"waited {timeout / 1000:.0f} s for {fn}")


def renders(page) -> int:
    return int(page.evaluate("document.getElementById('results').dataset.renders || 0"))


def load(pg: Page, path: Path, timeout: float = 60_000) -> None:
    """Choose ``path`` in the page's file input and wait for its result."""
    before = renders(pg.page)
    pg.page.set_input_files("#file", str(path))
    wait_js(
        pg.page,
        f"() => Number(document.getElementById('results').dataset.renders || 0) > {before}"
        " || document.getElementById('error').textContent !== ''",
        timeout=timeout,
    )
    assert pg.page.text_content("#error") == ""


def open_settings(page) -> None:
    """Open the settings panel (a <details> after the result, closed at first), as a
    visitor does: its summary clicked."""
    if not page.evaluate("document.getElementById('settings').open"):
        page.click("#settings > summary")
    # its dropdowns are made on its toggle event, a task after the click
    wait_js(page, "() => (window.faircodePage.state.controlsFor || {made: true}).made")
    assert page.is_visible("#controls")


def change(pg: Page, action) -> None:
    """Run ``action`` (a control change) and wait for the re-analysis it causes."""
    before = renders(pg.page)
    action()
    wait_js(
        pg.page,
        f"() => Number(document.getElementById('results').dataset.renders || 0) > {before}"
        " || !document.getElementById('reread').hidden"
        " || document.getElementById('error').textContent !== ''",
    )


def reread(pg: Page) -> None:
    """Press "Read the file again" (it must be showing) and wait for the new render."""
    page = pg.page
    assert page.is_visible("#reread"), page.text_content("#notice")
    before = renders(page)
    page.click("#reread")
    wait_js(page, f"() => Number(document.getElementById('results').dataset.renders) > {before}")


# Counts the page's live workers: made and not yet terminated (the page ends every worker
# it makes with terminate()). Playwright's page.workers lags behind: it listed a worker
# ended a second before, and missed one still running.
COUNT_WORKERS = """(() => { const Made = window.Worker; const live = new Set();
  window.__liveWorkers = () => live.size;
  window.Worker = class extends Made {
    constructor(...args) { super(...args); live.add(this); }
    terminate() { live.delete(this); super.terminate(); } }; })();"""


def reads(page) -> int:
    return int(page.evaluate("document.getElementById('results').dataset.reads || 0"))


# Counts calls of the engine's analyze() on the page's own thread (the workers run their
# own copy of the engine, built from its source).
MAIN_THREAD_ANALYSES = """() => { window.__mainAnalyses = 0; const analyze = FaircodeEngine.analyze;
  FaircodeEngine.analyze = (...args) => { window.__mainAnalyses++; return analyze(...args); }; }"""

# Holds the page's request to its hashing worker until window.__releaseHash() (an init
# script: it runs before the page's own scripts).
HOLD_HASH = """(() => { const post = Worker.prototype.postMessage; const held = [];
  let hold = true;
  Worker.prototype.postMessage = function (msg, transfer) {
    if (hold && msg && msg.op === 'hash') { held.push([this, msg]); return; }
    return post.call(this, msg, transfer);
  };
  window.__releaseHash = () => {
    hold = false;
    for (const [w, m] of held.splice(0)) post.call(w, m);
  };
})();"""

# The JSON the page exported before its reads moved to workers, for the file chosen:
# the engine run whole on the page's thread, its provenance with the SHA-256 of the
# bytes, JSON.stringify(.., null, 2) and a newline.
ENGINE_ON_THIS_PAGE = """async (overrides) => { const E = FaircodeEngine;
  const f = window.faircodePage.state.blob;
  const bytes = new Uint8Array(await f.arrayBuffer());
  const r = E.profileBytes(bytes, f.name, overrides, {});
  const h = E.createSha256(); h.update(bytes);
  r.provenance = E.provenance({ opts: {}, overrides, hashes: { dataset_hash: h.hex() } });
  return JSON.stringify(r, null, 2) + '\\n'; }"""


# The page cuts files into parts from this size (the engine's rule, SPEC 0.8, with its
# threshold of 32 MB lowered through defaultParts' minBytes) once small_parts(page) ran:
# reading in parts on workers is proven on a few MB.
PARTS_MIN_BYTES = 1 << 20
SMALL_PARTS = """(min) => { const E = FaircodeEngine; const rule = E.defaultParts;
  E.defaultParts = (size, cores, opts) => rule(size, cores, opts, min); }"""


def small_parts(page) -> None:
    page.evaluate(SMALL_PARTS, PARTS_MIN_BYTES)


def parts_of(page, path: Path) -> int:
    """How many parts the page cuts ``path`` into (its rule and cores)."""
    return page.evaluate(
        "(size) => FaircodeEngine.defaultParts(size, navigator.hardwareConcurrency || 2, {})",
        path.stat().st_size,
    )


def timings(page) -> dict:
    return json.loads(page.get_attribute("#results", "data-timings") or "{}")


def run_cli(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """``faircode ARGS`` run in this process (faircode.cli.main: the program but for its
    start-up), from ``cwd`` if given: (exit code, stdout, stderr). The twenty runs here
    each started a Python and imported faircode (0.4 s on a busy machine) for a run on
    a sample that took about as long."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
            code = cli_main(list(args))
    return code, out.getvalue(), err.getvalue()


def cli_ok(*args: str) -> str:
    """``faircode ARGS`` in this process, which must succeed: its stdout."""
    code, out, err = run_cli(*args)
    assert code == 0, err
    return out


_CLI_JSON: dict[str, str] = {}


def cli_json(*args: str) -> dict:
    """``faircode ARGS --json``'s result. A profile's is run once per module for the same
    options and file contents (a file argument counts by its suffixes and its bytes:
    the JSON names no file): the export and gzip tests ask for plain COMPAS's four
    times."""
    if args[0] != "profile":
        return json.loads(cli_ok(*args, "--json"))
    key = json.dumps([_file_key(a) for a in args])
    if key not in _CLI_JSON:
        _CLI_JSON[key] = cli_ok(*args, "--json")
    return json.loads(_CLI_JSON[key])


def _file_key(arg: str) -> str | list[str]:
    path = Path(arg)
    if not path.is_file():
        return arg
    return ["".join(path.suffixes), hashlib.sha256(path.read_bytes()).hexdigest()]


_PROFILES: dict[str, dict] = {}


def profile(path: Path, overrides: dict | None = None, opts: dict | None = None) -> dict:
    """``faircode.profile(path, overrides, opts)``: a copy of the one result per file
    (as it is now) and settings in this module, several tests checking a sample's page
    against the same result."""
    st = Path(path).stat()
    key = json.dumps(
        [str(Path(path).resolve()), st.st_size, st.st_mtime_ns, overrides, opts],
        sort_keys=True,
        default=repr,
    )
    if key not in _PROFILES:
        _PROFILES[key] = faircode.profile(
            path, overrides=copy.deepcopy(overrides), opts=copy.deepcopy(opts)
        )
    return copy.deepcopy(_PROFILES[key])


def key_order(x):
    """Every object's keys in order, nested (JSON equality ignores key order)."""
    if isinstance(x, dict):
        return [(k, key_order(v)) for k, v in x.items()]
    if isinstance(x, list):
        return [key_order(v) for v in x]
    return None


def without_engine(r: dict) -> dict:
    r = json.loads(json.dumps(r))
    assert r["provenance"].pop("engine") in ("js", "python")
    return r


# ---------------------------------------------------------------------------------------
# Tests

SAMPLES = {
    "compas-scores-two-years.csv": ROOT / "faircode" / "data" / "compas-scores-two-years.csv",
    "insurance.csv": SITE / "samples" / "insurance.csv",
    "diabetic_data-4000.csv": SITE / "samples" / "diabetic_data-4000.csv",
}


def test_samples_shown_as_python_profiles_them(site, shots):
    pg = site()
    for name, path in SAMPLES.items():
        before = renders(pg.page)
        pg.page.click(f"button.sample[data-name='{name}']")
        wait_js(
            pg.page, f"Number(document.getElementById('results').dataset.renders || 0) > {before}"
        )
        assert_shows(pg.page, profile(path))
        shots(pg.page, f"profile-{name}.png")
    assert pg.page.evaluate("document.body.dataset.workers") == "yes"
    # the diabetic sample: unscored medications listed, one line each
    items = pg.page.locator(".unscored-list li")
    assert items.count() == len(profile(SAMPLES["diabetic_data-4000.csv"])["unscored"])


@pytest.mark.parametrize(
    "name", ["compas-scores-raw.csv", "credit.csv", "adult.data", "diabetic_data.csv"]
)
def test_real_data_through_the_file_input(site, name):
    path = data_file(name)
    pg = site()
    load(pg, path)
    assert_shows(pg.page, profile(path))


def test_a_space_separated_real_file_gets_the_clis_line(site):
    """UCI's german.data is space-separated (SPEC 0.2): the page gives the CLI's one
    line, naming the spaces, not a profile of one column."""
    path = data_file("german.data")
    pg = site()
    pg.page.set_input_files("#file", str(path))
    wait_js(pg.page, "() => document.getElementById('error').textContent !== ''")
    want = cli_error(path)
    assert want.startswith("german.data: the header is one column, but spaces would split")
    assert pg.page.text_content("#error") == want


OPTION_CONTROLS = """() => Object.fromEntries(
  [...document.querySelectorAll('[data-opt]')].map((el) => [el.dataset.opt, {
    id: el.id, type: el.type, inputmode: el.inputMode, step: el.dataset.step, value: el.value,
    placeholder: el.placeholder, label: el.parentElement.textContent.trim()}]))"""


def test_option_controls_follow_the_table(site):
    """SPEC 7: the page makes a text box for each number option with a site_label, from
    the engine's table (label, step, default), and the age bands' default; checked
    against the Python engine's table. ArrowUp and ArrowDown step a value by site_step
    within the option's bounds."""
    from faircode.options import OPTIONS

    pg = site()
    page = pg.page
    got = page.evaluate(OPTION_CONTROLS)
    want = {}
    for o in OPTIONS:
        if o.site_label is None:
            continue
        want[o.name] = {
            "id": o.control,
            "type": "text",
            "inputmode": "decimal",
            "step": f"{o.site_step:g}",
            "value": f"{o.default:g}",
            "placeholder": f"{o.default:g}",
            "label": o.site_label,
        }
    assert got == want
    bands = ",".join(map(str, next(o.default for o in OPTIONS if o.name == "age_bands")))
    assert page.input_value("#opt-age_bands") == bands
    load(pg, SAMPLES["insurance.csv"])
    open_settings(page)
    for key, after in (("ArrowUp", "0.06"), ("ArrowDown", "0.05"), ("ArrowDown", "0.04")):
        change(pg, lambda key=key: page.press("#opt-min_share", key))
        assert page.input_value("#opt-min_share") == after
    page.fill("#opt-min_share", "0")
    page.press("#opt-min_share", "ArrowDown")  # not below the bound
    assert page.input_value("#opt-min_share") == "0"
    page.fill("#opt-alpha", "abc")
    page.press("#opt-alpha", "ArrowUp")  # a text the engine refuses stays as typed
    assert page.input_value("#opt-alpha") == "abc"


def test_controls_reanalyse_from_the_summary(site, shots):
    path = SAMPLES["compas-scores-two-years.csv"]
    pg = site()
    page = pg.page
    load(pg, path)
    assert reads(page) == 1
    assert page.get_attribute("#results", "data-analysed-in") == "worker"
    open_settings(page)
    # the analysis worker keeps the merged summary: the page's thread never analyses
    page.evaluate(MAIN_THREAD_ANALYSES)
    # a kind: decile_score declared categorical
    change(pg, lambda: page.select_option("select[data-column='decile_score']", "categorical"))
    ov = {"decile_score": "categorical"}
    assert_shows(page, profile(path, ov))
    # a threshold
    change(pg, lambda: page.fill("#opt-min_share", "0.1") or page.press("#opt-min_share", "Enter"))
    opts = {"min_share": 0.1}
    assert_shows(page, profile(path, ov, opts))
    # the cross: race x sex
    change(pg, lambda: page.select_option("#cross-a", "race"))
    change(pg, lambda: page.select_option("#cross-b", "sex"))
    opts["cross"] = ["race", "sex"]
    got = assert_shows(page, profile(path, ov, opts))
    assert got["cross"] == ["race", "sex"]
    # missing tokens and a recode: answered from the summary once missing data by group
    # is off (its tables are counted with the read's tokens and recodes, SPEC 1.1)
    change(pg, lambda: page.uncheck("#opt-missing_by_group"))
    opts["missing_by_group"] = False
    assert_shows(page, profile(path, ov, opts))
    change(pg, lambda: page.fill("#opt-na", "Other") or page.locator("#opt-na").blur())
    opts["na"] = ["Other"]
    change(
        pg,
        lambda: (
            page.fill("#opt-recode", "sex:Male=M,Female=F") or page.locator("#opt-recode").blur()
        ),
    )
    opts["recode"] = [["sex", "Male", "M"], ["sex", "Female", "F"]]
    assert_shows(page, profile(path, ov, opts))
    shots(page, "reanalysed.png")
    assert reads(page) == 1, "a control change read the file again"
    assert int(page.get_attribute("#results", "data-analyses")) >= 7
    assert page.get_attribute("#results", "data-analysed-in") == "worker"
    assert page.evaluate("window.__mainAnalyses") == 0, "analyze() ran on the page's thread"
    # with missing data by group on again, these tokens need a read that counts with them
    change(pg, lambda: page.check("#opt-missing_by_group"))
    assert "missing tokens and recodes of the read" in page.text_content("#notice")
    reread(pg)
    del opts["missing_by_group"]
    assert reads(page) == 2
    assert_shows(page, profile(path, ov, opts))
    # a column whose labels were not counted (name: thousands of labels) needs a re-read
    change(pg, lambda: page.select_option("select[data-column='name']", "geography"))
    assert page.is_visible("#reread")
    assert "needs the file to be read again" in page.text_content("#notice")
    assert page.get_attribute("#results", "data-stale") == "true"
    shots(page, "reread-needed.png")
    before = renders(page)
    page.click("#reread")
    wait_js(page, f"() => Number(document.getElementById('results').dataset.renders) > {before}")
    assert reads(page) == 3
    ov["name"] = "geography"
    assert_shows(page, profile(path, ov, opts))
    # a cross whose pair the read did not count: the read counted race x sex only
    change(pg, lambda: page.select_option("#cross-a", ""))
    change(pg, lambda: page.select_option("#cross-b", ""))
    del opts["cross"]
    if page.is_visible("#reread"):
        assert "was not counted while reading" in page.text_content("#notice")
        before = renders(page)
        page.click("#reread")
        wait_js(page, f"Number(document.getElementById('results').dataset.renders) > {before}")
    assert_shows(page, profile(path, ov, opts))


def cli_refuses(path: Path, *flags: str) -> str:
    """The CLI's one error line for ``faircode profile PATH FLAGS``, without the
    `faircode: error: ` prefix."""
    code, out, err = run_cli("profile", str(path), "--json", *flags)
    assert code == 2, (code, err)
    (line,) = err.splitlines()
    return line.removeprefix("faircode: error: ")


def type_text(page, selector: str, text: str) -> None:
    """Type ``text`` into a control as a person does: select what is there, type, and
    Enter (a textarea: leave it)."""
    page.click(selector)
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    page.keyboard.type(text)
    if page.evaluate(f"document.querySelector({json.dumps(selector)}).tagName") == "TEXTAREA":
        page.locator(selector).blur()
    else:
        page.keyboard.press("Enter")


#: (control, CLI flag, text typed): texts the CLI refuses, typed into the settings panel.
TYPED_REFUSED = [
    *[("#opt-min_group_size", "--min-group-size", t) for t in ("5e", "1e400", "1e", "-", "1e20")],
    ("#opt-min_share", "--min-share", "2"),
    ("#opt-alpha", "--alpha", "0"),
    ("#opt-max_age", "--max-age", "0x10"),
    *[
        ("#opt-age_bands", "--age-bands", t)
        for t in ("0,1e1,30", "0,0x12,30", "0,18.0,30", "0,18,abc", "0,,18", "0,18,")
    ],
    ("#opt-age_bands", "--age-bands", "0,99999999999999999999"),
    ("#opt-age_bands", "--age-bands", "0,9007199254740993,9007199254740994"),
    ("#opt-recode", "--recode", ":a=b"),
]


def test_typed_text_is_judged_as_the_cli_judges_it(site):
    """SPEC 7: text typed into a setting is read as the CLI reads the flag's text (the
    engine's fromFlags and resolveOptions): what the CLI refuses is refused with the
    CLI's line, the text stays in its box, and nothing is re-analysed. A number box's
    text it cannot parse (5e, 1e400) once read as empty, so the default was used and
    the page said "Re-analysed"; 0x12 was read as 18."""
    path = SAMPLES["compas-scores-two-years.csv"]
    pg = site()
    page = pg.page
    load(pg, path)
    open_settings(page)
    for selector, flag, text in TYPED_REFUSED:
        want = cli_refuses(path, f"{flag}={text}")
        before = page.input_value(selector)
        shown = renders(page)
        type_text(page, selector, text)
        wait_js(
            page,
            "() => document.getElementById('error').textContent !== ''"
            f" || Number(document.getElementById('results').dataset.renders) > {shown}",
            timeout=10_000,
        )
        page.wait_for_timeout(200)  # (an analysis would be drawn by now)
        assert page.text_content("#error") == want, text
        assert page.input_value(selector) == text
        assert renders(page) == shown, text
        assert page.text_content("#notice") == "", text
        change(pg, lambda s=selector, b=before: type_text(page, s, b))
        assert page.text_content("#error") == ""
    # a text the CLI takes gives the CLI's result, export and all
    change(pg, lambda: type_text(page, "#opt-min_group_size", "50"))
    want = cli_json("profile", str(path), "--min-group-size", "50")
    assert without_engine(exported_json(pg)) == without_engine(want)


def test_a_bad_setting_is_said_before_any_reread(site):
    """SPEC 7: a change that needs the file read again is first checked against what
    the page kept (checkSettings): a column no header has, an --na or --recode text the
    CLI refuses, an outcome of text, a label's positive value that is not one of its
    values are said at once with the CLI's line, and no read is asked for; a valid
    change then asks. On a worker and on the page's own thread."""
    path = SAMPLES["compas-scores-two-years.csv"]
    cases = [
        (["--na", "nocol=x"], lambda page: type_text(page, "#opt-na", "nocol=x")),
        (["--na", "sex="], lambda page: type_text(page, "#opt-na", "sex=")),
        (["--recode", "nocol:a=b"], lambda page: type_text(page, "#opt-recode", "nocol:a=b")),
        (["--outcome", "race"], lambda page: page.select_option("#outcome-col", "race")),
        (["--label", "race"], lambda page: page.select_option("#label-col", "race")),
        (
            ["--label", "race", "--positive", "Zzz"],
            lambda page: (
                page.fill("#label-positive", "Zzz"),
                page.select_option("#label-col", "race"),
            ),
        ),
        (
            ["--label", "two_year_recid", "--positive", "7"],
            lambda page: (
                page.select_option("#label-col", "two_year_recid"),
                type_text(page, "#label-positive", "7"),
            ),
        ),
    ]
    # The page's own thread checks with the same checkSettings over what it kept: one
    # option's case and one label's case there (each case is a reload and a read).
    for init, its_cases in ((None, cases), ("window.Worker = undefined;", cases[::6])):
        pg = site(init=init)
        page = pg.page
        for flags, action in its_cases:
            page.reload()
            wait_js(page, "() => document.body.dataset.workers !== undefined")
            load(pg, path)
            open_settings(page)
            want = cli_refuses(path, *flags)
            action(page)
            wait_js(page, "() => document.getElementById('error').textContent !== ''", 10_000)
            page.wait_for_timeout(200)  # (a call to read again would be shown by now)
            assert page.text_content("#error") == want, (init, flags)
            assert page.is_hidden("#reread") and page.is_hidden("#reread-here"), flags
            assert "read again" not in page.text_content("#notice"), flags
            assert reads(page) == 1
        # a valid positive value: the label's tables need the read
        change(pg, lambda page=page: type_text(page, "#label-positive", "1"))
        assert page.text_content("#error") == ""
        reread(pg)
        want = cli_json("profile", str(path), "--label", "two_year_recid", "--positive", "1")
        assert without_engine(exported_json(pg)) == without_engine(want)


def test_a_missing_token_may_hold_a_comma(site, tmp_path):
    """SPEC 1.1, 7: the missing tokens are one --na text per line, as the CLI takes
    them; a token with a comma in it could not be typed when the box was split on
    commas ("Not stated" and "refused" were two tokens, and the group stayed)."""
    path = tmp_path / "stated.csv"
    rows = ["sex,race"] + [
        f"{sex},{race}"
        for i in range(90)
        for sex, race in [(("M", "F", '"Not stated, refused"')[i % 3], ("White", "Other")[i % 2])]
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    pg = site()
    page = pg.page
    load(pg, path)
    open_settings(page)
    change(pg, lambda: type_text(page, "#opt-na", "Not stated, refused\nrace=Other"))
    reread(pg)  # missing data by group counts with the read's tokens (SPEC 1.1)
    want = cli_json("profile", str(path), "--na", "Not stated, refused", "--na", "race=Other")
    assert [g["label"] for g in want["dimensions"][0]["groups"]] == ["F", "M"]
    assert without_engine(exported_json(pg)) == without_engine(want)


# race words in three spellings: 60 labels that pass SPEC 1.3 (more than --max-groups 50)
_RACE_SPELLINGS = [
    f(w)
    for w in (
        "White", "Black", "Asian", "Hispanic", "Latino", "Latina", "Latinx", "Caucasian",
        "African-American", "Multiracial", "Mixed", "Arab", "Indigenous", "Aboriginal",
        "Biracial", "Other", "Unknown", "Declined", "Missing", "Invalid",
    )
    for f in (str, str.lower, str.upper)
]  # fmt: skip


def test_a_change_the_kept_summary_cannot_answer_reads_again(site, tmp_path):
    """SPEC 7, 17.2, 21.2: a column the read proved no dimension (more groups than the
    read's --max-groups, or the kind it then had) lost its tables by group while reading,
    so a change making it a dimension needs a read (the page said "race: label rates and
    missing data by group not counted ('race' is not among the first 64 counted
    columns)" of a six-column file); so do other missing tokens for an outcome column,
    whose cells are missing after the read's, with missing data by group off too (the
    page gave the means of the rows the new token makes missing)."""
    path = tmp_path / "pruned.csv"
    rows = [
        f"{('Male', 'Female')[i % 2]},{20 + i % 50},{_RACE_SPELLINGS[i % 60]},g{i % 120},"
        f"{'' if i % 7 == 0 else 'x'},{i % 9}"
        for i in range(720)
    ]
    path.write_text("sex,age,race,gender,note,score\n" + "\n".join(rows) + "\n")
    pg = site()
    page = pg.page
    load(pg, path)
    open_settings(page)
    flags: list[str] = []

    def read_again_for(why: str) -> None:
        assert page.is_visible("#reread"), page.text_content("#notice")
        assert why in page.text_content("#notice")
        reread(pg)
        want = cli_json("profile", str(path), *flags)
        assert without_engine(exported_json(pg)) == without_engine(want), flags

    def groups_to(n: str) -> None:
        page.fill("#opt-max_dimension_groups", n)
        page.press("#opt-max_dimension_groups", "Enter")

    change(pg, lambda: groups_to("100"))
    flags += ["--max-groups", "100"]
    read_again_for("'race' was no dimension under the read's settings")
    change(pg, lambda: page.select_option("select[data-column='gender']", "sex"))
    flags += ["--map", "gender=sex"]
    read_again_for("'gender' was no dimension under the read's settings")
    change(pg, lambda: page.select_option("#outcome-col", "score"))
    flags += ["--outcome", "score"]
    read_again_for("the outcome column's sums are counted while reading")
    change(pg, lambda: page.uncheck("#opt-missing_by_group"))
    flags += ["--no-missing-by-group"]
    change(pg, lambda: type_text(page, "#opt-na", "8"))
    flags += ["--na", "8"]
    read_again_for("sums are counted with the missing tokens and recodes of the read")


def test_another_file_starts_from_the_defaults_the_panel_shows(site):
    """A new file's first read is given no setting but the delimiter: the panel shows
    that. It kept the file before's texts and boxes, which the next change in the panel
    then applied without a word."""
    compas, insurance = SAMPLES["compas-scores-two-years.csv"], SAMPLES["insurance.csv"]
    pg = site()
    page = pg.page
    load(pg, compas)
    open_settings(page)
    change(pg, lambda: type_text(page, "#opt-min_group_size", "50"))
    change(pg, lambda: page.check("#opt-score_categoricals"))
    load(pg, insurance)
    assert page.input_value("#opt-min_group_size") == ""
    assert not page.is_checked("#opt-score_categoricals")
    assert without_engine(exported_json(pg)) == without_engine(cli_json("profile", str(insurance)))
    # a change in the panel now gives only itself
    change(pg, lambda: type_text(page, "#opt-min_share", "0.1"))
    want = cli_json("profile", str(insurance), "--min-share", "0.1")
    assert without_engine(exported_json(pg)) == without_engine(want)


def test_the_same_file_chosen_again_is_read_again(site, tmp_path):
    """SPEC 7: choosing the file that is the input's selection again (re-exported with
    new rows, or after its read was cancelled) reads it again. The input fired no change
    for an unchanged selection, and the old result stayed as if it were the new one."""
    path = tmp_path / "again.csv"
    path.write_text("sex\n" + "M\nF\n" * 60, encoding="utf-8")
    pg = site()
    page = pg.page
    load(pg, path)
    assert page.get_attribute("#results .profile-view", "data-n-rows") == "120"
    path.write_text("sex\n" + "M\nF\n" * 70, encoding="utf-8")
    load(pg, path)  # the same path, chosen again (no empty selection between)
    assert page.get_attribute("#results .profile-view", "data-n-rows") == "140"
    assert without_engine(exported_json(pg)) == without_engine(cli_json("profile", str(path)))


# Drops the page's requests to read a file while window.__holdReads is true (an init
# script): the read stays under way until it is cancelled.
HOLD_READS = """(() => { const post = Worker.prototype.postMessage;
  window.__holdReads = false;
  Worker.prototype.postMessage = function (msg, transfer) {
    if (window.__holdReads && msg && ['plan', 'read', 'gunzip'].includes(msg.op)) return;
    return post.call(this, msg, transfer);
  };
})();"""


def test_a_cancelled_read_of_another_file_leaves_no_result(site, tmp_path):
    """SPEC 7: a read cancelled is as a read that failed: the result of the file before
    is taken off the page (it stayed without its export buttons and settings, under the
    cancelled file's name), and the focus, on Cancel as it went, goes to the file
    chooser (it fell to the page's body). The file chosen again is read. A read that
    another file's read cancels says nothing over it (its "Cancelled" notice and its
    hidden progress bar were laid over the other read's)."""
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    first.write_text("sex\n" + "M\nF\n" * 50, encoding="utf-8")
    second.write_text("sex\n" + "M\nF\n" * 60, encoding="utf-8")
    pg = site(init=HOLD_READS)
    page = pg.page
    load(pg, SAMPLES["insurance.csv"])
    page.evaluate("() => { window.__holdReads = true; }")
    page.set_input_files("#file", str(first))
    page.wait_for_selector("#cancel", state="visible")
    page.set_input_files("#file", str(second))
    page.wait_for_timeout(300)
    assert page.text_content("#notice") == "Reading second.csv in your browser…"
    assert page.is_visible("#cancel")
    page.focus("#cancel")
    page.keyboard.press("Enter")
    wait_js(page, "() => document.getElementById('notice').textContent.startsWith('Cancelled')")
    assert page.locator("#results .profile-view").count() == 0
    assert page.is_hidden("#result-tools") and page.is_hidden("#settings")
    assert page.evaluate("window.faircodePage.state.result") is None
    assert page.evaluate("window.faircodePage.exportReady()") is False
    assert page.evaluate("document.activeElement.id") == "file"
    page.evaluate("() => { window.__holdReads = false; }")
    load(pg, second)
    assert page.get_attribute("#results .profile-view", "data-n-rows") == "120"


def test_the_focus_ring_of_a_kind_dropdown_is_whole(site):
    """WCAG 2.4.7: the kind rows skip layout off-screen (content-visibility), and the
    paint containment that comes with it clipped the focus ring of their dropdowns to
    a sliver. The band just above a focused dropdown, outside its row, shows the ring."""
    pg = site()
    page = pg.page
    load(pg, SAMPLES["compas-scores-two-years.csv"])
    open_settings(page)
    sel = '#kinds select[data-column="sex"]'
    page.locator(sel).scroll_into_view_if_needed()
    box = page.locator(sel).bounding_box()
    band = {"x": box["x"], "y": box["y"] - 5, "width": box["width"], "height": 4}
    unfocused = page.screenshot(clip=band)
    page.focus('#kinds select[data-column="compas_screening_date"]')
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    assert page.evaluate("document.activeElement.dataset.column") == "sex"
    assert page.screenshot(clip=band) != unfocused


def test_a_failed_read_leaves_no_other_file_and_no_stale_notice(site, tmp_path):
    """SPEC 7: a read that fails says its one line and nothing else: the notice of the
    read ("Reading ... in your browser") and any call to read again go. After another
    file's result, that result is taken off the page (and out of the exports): under a
    new file's error it read as the new file's. A re-read of the same file that fails
    (its settings) leaves that file's result, from the settings before."""
    good = SAMPLES["insurance.csv"]
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("sex,region\nMale,Bogot\xe1\nFemale,Lima\n".encode("latin-1"))
    pg = site()
    page = pg.page
    load(pg, good)
    page.set_input_files("#file", str(bad))
    wait_js(page, "() => document.getElementById('error').textContent !== ''")
    page.wait_for_timeout(300)
    assert page.text_content("#error") == cli_error(bad)
    assert page.text_content("#notice") == ""
    assert page.locator("#results .profile-view").count() == 0
    assert page.is_hidden("#result-tools")
    assert page.evaluate("window.faircodePage.exportReady()") is False
    assert page.evaluate("window.faircodePage.state.result") is None
    # a good file, then a setting it fails with once read again: an outcome of text
    # whose labels the page did not keep (300 names, past --max-categorical), so that
    # checkSettings cannot tell
    good = tmp_path / "names.csv"
    names = [f"{('M', 'F')[i % 2]},name{i}" for i in range(300)]
    good.write_text("sex,name\n" + "\n".join(names) + "\n", encoding="utf-8")
    load(pg, good)
    open_settings(page)
    change(pg, lambda: page.select_option("#outcome-col", "name"))
    assert page.is_visible("#reread")
    want = cli_refuses(good, "--outcome", "name")
    page.click("#reread")
    wait_js(page, "() => document.getElementById('error').textContent !== ''")
    page.wait_for_timeout(300)
    assert page.text_content("#error") == want
    assert page.text_content("#notice") == ""
    assert page.is_hidden("#reread") and page.is_hidden("#reread-here")
    assert page.locator("#results .profile-view").count() == 1  # the same file's, kept
    assert page.get_attribute("#results .profile-view", "data-n-rows") == "300"


def test_a_line_naming_a_cli_flag_says_what_to_do_on_the_page(site, tmp_path):
    """SPEC 7: a read's line is the CLI's (SPEC 0.6), and where it names a flag the page
    has no box for, the page says under it what to do here: it sent its user to pass
    --encoding or --one-column, which the page has not."""
    files = {
        "latin1.csv": "sex,region\nMale,Bogot\xe1\nFemale,Lima\n".encode("latin-1"),
        "utf16.csv": "sex,region\nMale,Lima\n".encode("utf-16"),
        "spaces.data": ("a b c d e f\n" + "1 2 3 4 5 6\n" * 5).encode(),
    }
    pg = site()
    page = pg.page
    hints = page.evaluate("window.faircodePage.PAGE_HINTS")
    for name, data, flag in zip(
        files, files.values(), ("--encoding", "--encoding", "--one-column")
    ):
        path = tmp_path / name
        path.write_bytes(data)
        page.set_input_files("#file", str(path))
        wait_js(page, "() => document.getElementById('error').textContent !== ''")
        line = cli_error(path)
        assert page.text_content("#error") == line and flag in line
        assert page.text_content("#error-hint") == hints[flag]
        assert page.is_visible("#error-hint")
    load(pg, SAMPLES["insurance.csv"])
    assert page.text_content("#error-hint") == ""


def test_export_json_is_the_cli_json(site, tmp_path):
    path = SAMPLES["compas-scores-two-years.csv"]
    pg = site()
    page = pg.page
    load(pg, path)
    with page.expect_download() as d:
        page.click("#download-json")
    got = json.loads(Path(d.value.path()).read_text(encoding="utf-8"))
    assert got["provenance"]["engine"] == "js"
    assert without_engine(got) == without_engine(cli_json("profile", str(path)))
    # with options, a kind, a reference: the same again (provenance records them)
    open_settings(page)
    change(pg, lambda: page.select_option("select[data-column='decile_score']", "categorical"))
    change(
        pg,
        lambda: (
            page.fill("#opt-min_group_size", "50") or page.press("#opt-min_group_size", "Enter")
        ),
    )
    change(pg, lambda: page.fill("#opt-na", "Other") or page.locator("#opt-na").blur())
    reread(pg)  # missing data by group counts with the read's tokens (SPEC 1.1)
    change(pg, lambda: page.select_option("#label-col", "two_year_recid"))
    reread(pg)  # the label's tables are counted while reading (SPEC 17.2)
    change(pg, lambda: page.select_option("#reference", "samples/reference-us-2024.csv"))
    with page.expect_download() as d:
        page.click("#download-json")
    got = json.loads(Path(d.value.path()).read_text(encoding="utf-8"))
    want = cli_json(
        "profile",
        str(path),
        "--map",
        "decile_score=categorical",
        "--min-group-size",
        "50",
        "--na",
        "Other",
        "--reference",
        "us-2024",
        "--label",
        "two_year_recid",
    )
    assert got["dimensions"][0]["reference"]
    assert got["label_rates"]["dimensions"] and got["missing_by_group"]
    assert without_engine(got) == without_engine(want)
    assert key_order(got) == key_order(want)
    page.click("#copy-json")
    wait_js(page, "() => document.getElementById('notice').textContent.includes('Copied')")
    copied = json.loads(page.evaluate("navigator.clipboard.readText()"))
    assert without_engine(copied) == without_engine(want)


def test_export_waits_for_the_hash_then_gives_the_same_bytes(site, tmp_path):
    """The result is shown before the file's SHA-256 is known; Copy and Download JSON
    say so and wait for it, then export the bytes the page exported before (the engine
    run whole on the page's thread) and the CLI's JSON."""
    path = SAMPLES["compas-scores-two-years.csv"]
    pg = site(init=HOLD_HASH)
    page = pg.page
    load(pg, path)
    assert page.get_attribute("#results", "data-hash") == "pending"
    for button in ("#copy-json", "#download-json"):
        assert page.is_disabled(button)
        assert "hashing the file: 0%" in page.text_content(button)
    t = timings(page)
    assert t["resultShown"] > 0 and "hashDone" not in t
    # the controls work meanwhile (on the analysis worker), the export still waits
    open_settings(page)
    change(pg, lambda: page.select_option("select[data-column='decile_score']", "categorical"))
    assert page.get_attribute("#results", "data-hash") == "pending"
    assert page.is_disabled("#download-json")
    page.evaluate("window.__releaseHash()")
    wait_js(page, "() => document.getElementById('results').dataset.hash === 'done'")
    assert (
        page.is_enabled("#download-json") and page.text_content("#download-json") == "Download JSON"
    )
    t = timings(page)
    assert t["hashDone"] >= t["resultShown"] > 0
    with page.expect_download() as d:
        page.click("#download-json")
    text = Path(d.value.path()).read_text(encoding="utf-8")
    overrides = [["decile_score", "categorical"]]
    assert text == page.evaluate(ENGINE_ON_THIS_PAGE, overrides)
    want = cli_json("profile", str(path), "--map", "decile_score=categorical")
    got = json.loads(text)
    assert without_engine(got) == without_engine(want)
    assert key_order(got) == key_order(want)
    page.click("#copy-json")
    wait_js(page, "() => document.getElementById('notice').textContent.includes('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") + "\n" == text


def test_without_workers_the_page_reads_and_analyses_on_its_thread(site):
    """Where no worker can start, the page reads, hashes and analyses on its own thread
    (slice by slice, and says so); the result and the export are the same."""
    path = SAMPLES["compas-scores-two-years.csv"]
    pg = site(init="window.Worker = undefined;")
    page = pg.page
    assert page.evaluate("document.body.dataset.workers") == "no"
    load(pg, path)
    assert "Web Workers are not available here" in page.text_content("#notice")
    assert page.get_attribute("#results", "data-read-parts") == "0"
    assert page.get_attribute("#results", "data-analysed-in") == "page"
    assert page.get_attribute("#results", "data-hash") == "done"  # hashed while reading
    assert_shows(page, profile(path))
    open_settings(page)
    change(pg, lambda: page.select_option("select[data-column='decile_score']", "categorical"))
    assert_shows(page, profile(path, {"decile_score": "categorical"}))
    assert reads(page) == 1
    with page.expect_download() as d:
        page.click("#download-json")
    text = Path(d.value.path()).read_text(encoding="utf-8")
    assert text == page.evaluate(ENGINE_ON_THIS_PAGE, [["decile_score", "categorical"]])


def test_reference_builtin_and_uploaded(site, shots, tmp_path):
    path = SAMPLES["compas-scores-two-years.csv"]
    pg = site()
    page = pg.page
    load(pg, path)
    open_settings(page)
    change(pg, lambda: page.select_option("#reference", "samples/reference-us-2019.csv"))
    table, _, _ = load_reference("us-2019")
    got = assert_shows(page, profile(path, opts={"reference": table}))
    assert got["dims"][0]["reference"]["deviation"] > 0
    shots(page, "reference-us-2019.png")
    own = tmp_path / "baseline.csv"
    own.write_text(
        "column,group,share\nrace,African-American,0.13\nrace,Caucasian,0.6\n"
        "race,Hispanic,0.19\nrace,Asian,0.06\nrace,Other,0.02\n",
        encoding="utf-8",
    )
    page.select_option("#reference", "upload")
    change(pg, lambda: page.set_input_files("#reference-file", str(own)))
    table, _, _ = load_reference(str(own))
    assert_shows(page, profile(path, opts={"reference": table}))


def test_the_reference_applied_is_the_one_the_dropdown_shows(site, tmp_path):
    """SPEC 7: "a table of my own" with no table chosen applies no reference (US 2024
    stayed applied, in the view and the export, and for the next file read); a table
    that cannot be read leaves none applied, says so, and no notice of a re-analysis."""
    path = SAMPLES["compas-scores-two-years.csv"]
    pg = site()
    page = pg.page
    load(pg, path)
    open_settings(page)
    change(pg, lambda: page.select_option("#reference", "samples/reference-us-2024.csv"))
    assert exported_json(pg)["provenance"].get("reference_hash")
    change(pg, lambda: page.select_option("#reference", "upload"))
    assert_shows(page, profile(path))
    assert "reference_hash" not in exported_json(pg)["provenance"]
    change(pg, lambda: page.select_option("#reference", "samples/reference-us-2024.csv"))
    bad = tmp_path / "notaref.csv"
    bad.write_text("col,grp\nsex,Male\n", encoding="utf-8")
    page.select_option("#reference", "upload")
    change(pg, lambda: page.set_input_files("#reference-file", str(bad)))
    wait_js(page, "() => document.getElementById('error').textContent !== ''")
    page.wait_for_timeout(300)
    with pytest.raises(faircode.InputError) as err:
        load_reference(str(bad))
    assert page.text_content("#error") == (
        f"{bad.name}{str(err.value).split(str(bad), 1)[1]}."
        " No population reference is applied; choose another table."
    )
    assert page.text_content("#notice") == ""
    assert_shows(page, profile(path))
    assert "reference_hash" not in exported_json(pg)["provenance"]
    other = SAMPLES["insurance.csv"]
    load(pg, other)
    assert "reference_hash" not in exported_json(pg)["provenance"]


def test_compare_view_and_its_json(site, reports, shots, tmp_path):
    # the first 4,000 encounters against all 101,766: race, gender and age shared
    a = SAMPLES["diabetic_data-4000.csv"]
    b = data_file("diabetic_data.csv")
    pg = site()
    page = pg.page
    page.click("#tab-compare")
    page.set_input_files("#file-a", str(a))
    page.set_input_files("#file-b", str(b))
    page.click("#run-compare")
    page.wait_for_selector("#compare-results .compare-view", timeout=60_000)
    want = faircode.compare(profile(a), profile(b))
    got = page.evaluate(
        """() => [...document.querySelectorAll('#compare-results article.drift')].map((c) => [
        c.dataset.dim, Number(c.dataset.psi), Number(c.dataset.tvd), c.dataset.driftLevel,
        [...c.querySelectorAll('.bar-row')].map((r) => [r.dataset.label, Number(r.dataset.shareA),
          Number(r.dataset.shareB), Number(r.dataset.shareDelta), r.dataset.status])])"""
    )
    assert len(want["dimensions"]) == 3 and any(d["psi"] > 0 for d in want["dimensions"])
    assert got == [
        [
            d["name"],
            d["psi"],
            d["tvd"],
            d["drift_level"],
            [
                [g["label"], g["share_a"], g["share_b"], g["share_delta"], g["status"]]
                for g in d["groups"][:40]
            ],
        ]
        for d in want["dimensions"]
    ]
    added = page.eval_on_selector_all("[data-added]", "els => els.map((e) => e.dataset.added)")
    removed = page.eval_on_selector_all(
        "[data-removed]", "els => els.map((e) => e.dataset.removed)"
    )
    assert (added, removed) == (want["added_dimensions"], want["removed_dimensions"])
    shots(page, "compare.png")
    with page.expect_download() as d:
        page.click("#compare-download-json")
    got = json.loads(Path(d.value.path()).read_text(encoding="utf-8"))
    assert without_engine(got) == without_engine(cli_json("compare", str(a), str(b)))
    # the page's compare report: the same view, standalone
    with page.expect_download() as d:
        page.click("#compare-download-report")
    report = tmp_path / "page-compare.html"
    shutil.copy(d.value.path(), report)
    rp = reports(report)
    rp.page.wait_for_selector("#report .compare-view")
    psis = rp.page.eval_on_selector_all(
        "#report article.drift", "els => els.map((e) => [e.dataset.dim, Number(e.dataset.psi)])"
    )
    assert psis == [[d["name"], d["psi"]] for d in want["dimensions"]]
    rp.check_clean()
    rp.close()


def compare_json(page) -> dict:
    """The Compare tab's Download JSON (its hashes done: the button waits for them)."""
    wait_js(page, "() => !document.getElementById('compare-download-json').disabled")
    with page.expect_download() as d:
        page.click("#compare-download-json")
    return json.loads(Path(d.value.path()).read_text(encoding="utf-8"))


def run_compare(page, a: Path, b: Path) -> None:
    page.set_input_files("#file-a", str(a))
    page.set_input_files("#file-b", str(b))
    page.click("#run-compare")


def test_only_the_latest_comparison_is_shown(site, tmp_path):
    """SPEC 7: Compare pressed again while a comparison runs ends that one; its answer
    (a slower read) came last and replaced the later comparison on the page and in the
    export."""
    small_a, small_b = SAMPLES["insurance.csv"], SAMPLES["compas-scores-two-years.csv"]
    head, _, rows = small_a.read_bytes().rstrip(b"\n").partition(b"\n")
    rows += b"\n"
    big = tmp_path / "big.csv"
    big.write_bytes(head + b"\n" + rows * (24_000_000 // len(rows)))
    pg = site(init=COUNT_WORKERS)
    page = pg.page
    page.click("#tab-compare")
    run_compare(page, big, big)
    run_compare(page, small_a, small_b)
    wait_js(
        page,
        "() => window.__liveWorkers() === 0"
        " && document.getElementById('compare-notice').textContent.startsWith('Compared')",
    )
    page.wait_for_timeout(300)
    assert page.text_content("#compare-notice").startswith(
        f"Compared {small_a.name} with {small_b.name}:"
    )
    got = compare_json(page)
    want = cli_json("compare", str(small_a), str(small_b))
    assert without_engine(got) == without_engine(want)


def test_a_failed_comparison_takes_the_one_before_off_the_page(site, tmp_path):
    """SPEC 7: a comparison that fails says its one line, and the comparison before it
    (of other files) is taken off the page and out of the exports."""
    a, b = SAMPLES["insurance.csv"], SAMPLES["compas-scores-two-years.csv"]
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("sex,region\nMale,Bogot\xe1\nFemale,Lima\n".encode("latin-1"))
    pg = site()
    page = pg.page
    page.click("#tab-compare")
    run_compare(page, a, b)
    compare_json(page)
    run_compare(page, a, bad)
    wait_js(page, "() => document.getElementById('compare-notice').textContent.includes('UTF-8')")
    page.wait_for_timeout(300)
    assert page.text_content("#compare-notice") == cli_error(bad)
    assert page.locator("#compare-results .compare-view").count() == 0
    for b in ("#compare-copy-json", "#compare-download-json", "#compare-download-report"):
        assert page.is_disabled(b)
    assert page.evaluate("window.faircodePage.compareState.exported") is None


def test_compare_says_the_profile_settings_it_is_given(site):
    """SPEC 7: the Compare tab says which of the Profile tab's settings both files are
    read with, by the names of the page's controls, and an error found in one file's
    header names it and its side, as the CLI's (`insurance.csv (A): --label: ...`; SPEC
    10)."""
    compas, ins = SAMPLES["compas-scores-two-years.csv"], SAMPLES["insurance.csv"]
    pg = site()
    page = pg.page
    load(pg, compas)
    open_settings(page)
    change(pg, lambda: page.select_option("#label-col", "two_year_recid"))
    change(pg, lambda: type_text(page, "#opt-min_share", "0.2"))
    change(pg, lambda: page.uncheck("#opt-missing_by_group"))
    page.click("#tab-compare")
    run_compare(page, ins, compas)
    wait_js(page, "() => document.getElementById('compare-notice').textContent.includes('--label')")
    code, _, err = run_cli("compare", str(ins), str(compas), "--label", "two_year_recid")
    assert code == 2
    want = err.strip().removeprefix("faircode: error: ").replace(str(ins), ins.name)
    assert page.text_content("#compare-notice") == want
    # named as the page names its controls, not by the CLI's flags (SPEC 7)
    assert page.text_content("#compare-settings") == (
        "Settings from the Profile tab applied to both files: minimum share: 0.2, "
        "Label: two_year_recid, missing data by group: off."
    )


def test_cli_html_report_shows_the_same_numbers(reports, tmp_path, shots):
    path = SAMPLES["compas-scores-two-years.csv"]
    out = tmp_path / "report.html"
    cli_ok("profile", str(path), "--html", str(out))
    pg = reports(out)
    pg.page.wait_for_selector("#report .profile-view")
    assert_shows(pg.page, profile(path), "#report .profile-view")
    shots(pg.page, "cli-html-profile.png")
    assert pg.requests == [out.as_uri()]
    pg.check_clean()
    pg.close()
    b = SAMPLES["insurance.csv"]
    out = tmp_path / "compare.html"
    cli_ok("compare", str(path), str(b), "--html", str(out))
    pg = reports(out)
    pg.page.wait_for_selector("#report .compare-view")
    want = faircode.compare(profile(path), profile(b))
    dims = pg.page.eval_on_selector_all(
        "#report article.drift", "els => els.map((e) => [e.dataset.dim, Number(e.dataset.psi)])"
    )
    assert dims == [[d["name"], d["psi"]] for d in want["dimensions"]]
    shots(pg.page, "cli-html-compare.png")
    assert pg.requests == [out.as_uri()]
    pg.check_clean()
    pg.close()


def drift_cards(reports, a: Path, b: Path, fields: str) -> tuple[Page, list[list[str]]]:
    """`compare A B --html` opened as a report: its page, and per drift card the data
    attributes named in ``fields`` (camelCase, space-separated), then the card head's text."""
    out = a.parent / "compare.html"
    cli_ok("compare", str(a), str(b), "--html", str(out))
    pg = reports(out)
    pg.page.wait_for_selector("#report .compare-view")
    cards = pg.page.eval_on_selector_all(
        "#report article.drift",
        "(els, fields) => els.map((e) => [...fields.map((f) => e.dataset[f]),"
        " e.querySelector('.card-head').textContent])",
        fields.split(),
    )
    return pg, cards


def test_cli_html_compare_shows_a_dimension_not_compared(reports, tmp_path):
    """SPEC 8: B's blank sex column is not compared; the view says so (no 'null drift')."""
    rows = [("MF"[i % 3 % 2], "AB"[i % 4 // 3]) for i in range(120)]
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("sex,race\n" + "".join(f"{s},{r}\n" for s, r in rows), encoding="utf-8")
    b.write_text("sex,race\n" + "".join(f",{r}\n" for _, r in rows), encoding="utf-8")
    pg, cards = drift_cards(reports, a, b, "dim psi driftLevel")
    assert cards[0][:3] == ["sex", "", ""]
    assert "not compared" in cards[0][3] and "PSI - · TVD -" in cards[0][3]
    assert "null" not in cards[0][3]
    assert cards[1][0] == "race" and cards[1][2] in ("none", "moderate", "significant")
    pg.check_clean()
    pg.close()


def test_cli_html_compare_shows_the_drift_verdict(reports, tmp_path):
    """SPEC 8: two 100-row samples of one distribution reach the significant PSI band;
    the card says the level with its verdict (possible) and the test's p."""
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    for path, counts in (
        (a, (18, 19, 20, 8, 11, 7, 10, 2, 3, 2)),
        (b, (27, 20, 17, 9, 9, 9, 1, 5, 0, 3)),
    ):
        path.write_text("race\n" + "".join(f"g{i}\n" * c for i, c in enumerate(counts)))
    pg, cards = drift_cards(reports, a, b, "driftLevel driftVerdict driftP")
    assert cards[0][:3] == ["significant", "possible", "1"]
    assert "significant drift, possible" in cards[0][3]
    assert "PSI 0.4614 (Holm-adjusted p 1)" in cards[0][3]
    pg.check_clean()
    pg.close()


HOSTILE = [
    "<script>window.__pwned=1</script>",
    "<img src=x onerror=window.__pwned=2>",
    "\"double\" and 'single' quotes",
    "javascript:window.__pwned=3",
    "\u202eevil\u202c",
    "</script><script>window.__pwned=4</script>",
    "a\u2028b",
]


def hostile_csv(tmp_path: Path) -> Path:
    """A file whose race labels are HOSTILE and whose sex column's name is markup."""
    col = "<b onmouseover=window.__pwned=5>sex"
    rows = [f'"{col}",race']
    for i, label in enumerate(HOSTILE * 30):
        q = label.replace('"', '""')
        rows.append(f'{"Male" if i % 2 else "Female"},"{q}"')
    path = tmp_path / "hostile.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_hostile_labels_render_as_text(site, reports, tmp_path, shots):
    path = hostile_csv(tmp_path)
    want = profile(path)
    assert {g["label"] for g in want["dimensions"][1]["groups"]} == set(HOSTILE)
    pg = site()
    load(pg, path)
    assert_shows(pg.page, want)
    assert pg.page.evaluate("window.__pwned") is None
    assert pg.page.locator("#results img, #results script, #results b, #results a").count() == 0
    texts = pg.page.eval_on_selector_all(
        "article[data-dim='race'] .bar-label bdi", "els => els.map((e) => e.textContent)"
    )
    assert "\\u202eevil\\u202c" in texts and "a\\u2028b" in texts
    shots(pg.page, "hostile-labels.png")
    # the --html report of the same file
    out = tmp_path / "hostile.html"
    cli_ok("profile", str(path), "--html", str(out))
    rp = reports(out)
    rp.page.wait_for_selector("#report .profile-view")
    assert_shows(rp.page, want, "#report .profile-view")
    assert rp.page.evaluate("window.__pwned") is None
    assert rp.page.locator("#report img, #report script, #report b").count() == 0
    rp.check_clean()
    rp.close()


# Where an element is, from the top of the page: the top of its label when it sits in
# one (a label and its control are one cell of a grid row); inside a scrolled box (the
# column kinds) its place in the box's content, at most the box's height down, so that
# neither the box's scrolling nor what it hides reorders the page.
PAGE_TOP = """const pageTop = (node) => {
  const el = node.closest('label') || node;
  let top = el.getBoundingClientRect().top;
  for (let p = el.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if (o === 'auto' || o === 'scroll') {
      const b = p.getBoundingClientRect();
      top = b.top + Math.min(Math.max(top - b.top + p.scrollTop, 0), p.clientHeight);
    }
  }
  return top + window.scrollY; };"""

# Where each focus stop is, in the order the page shows them from the top: the page's
# header, the file chooser, the result's tools, the result, the settings.
REGIONS = ["header", "drop", "result-tools", "results", "settings"]

FOCUS_STOP = f"""() => {{ {PAGE_TOP}
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const region = el.closest('#drop, #result-tools, #results, #settings, header.top, .skip');
  return {{ id: el.id || el.tagName.toLowerCase(), top: pageTop(el),
    region: region === null ? 'other' : region.matches('header.top, .skip') ? 'header' : region.id,
    control: !!el.closest('#controls'), summary: el.matches('#settings > summary') }}; }}"""

# Every focusable element of the profile panel in DOM order (the order Tab follows: the
# page has no positive tabindex), with its place from the top of the page.
FOCUSABLE_TOPS = f"""() => {{ {PAGE_TOP}
  const sel = 'a[href], button, input, select, textarea, summary, [tabindex]';
  const out = [];
  for (const el of document.querySelectorAll(sel)) {{
    if (!el.checkVisibility() || el.disabled || el.closest('#panel-compare, footer')) continue;
    out.push([el.id || el.tagName.toLowerCase() + '.' + el.className, pageTop(el)]);
  }}
  return out; }}"""


@pytest.mark.parametrize("width", [1280, 375])
def test_result_comes_before_the_settings(site, tmp_path, shots, width):
    """Issue 27 item 8: no progress bar or Cancel before a file is chosen (nor after it
    is read); once read, the score, then the findings, then the dimension cards, all
    above the settings (a closed panel, opened from the keyboard); focus follows the
    page from the top, so the result comes before every setting. COMPAS (the bundled
    sample: the bytes of tests/data's) and a file of hostile labels, on a laptop's
    width and a phone's."""
    height = 800 if width > 1000 else 812
    for path in (SAMPLES["compas-scores-two-years.csv"], hostile_csv(tmp_path)):
        pg = site()
        page = pg.page
        page.set_viewport_size({"width": width, "height": height})
        for hidden in ("#progress-box", "#progress", "#cancel", "#settings", "#result-tools"):
            assert not page.is_visible(hidden), f"{hidden} shows before a file is chosen"
        load(pg, path)
        wait_js(page, "() => document.getElementById('results').dataset.hash === 'done'")
        assert not page.is_visible("#progress") and not page.is_visible("#cancel")
        assert page.get_attribute("#progress-box", "data-state") == "done"
        assert page.is_visible("#settings") and not page.is_visible("#controls")
        page.evaluate("() => window.scrollTo(0, 0)")
        box = {
            name: page.locator(sel).first.bounding_box()
            for name, sel in (
                ("score", "#results .ring"),
                ("grade", "#results .grade-meaning"),
                ("findings", "#results section.findings"),
                ("dims", "#results article.dim"),
                ("settings", "#settings"),
            )
        }
        tops = [box[k]["y"] for k in ("score", "findings", "dims", "settings")]
        assert tops == sorted(tops) and len(set(tops)) == 4, box
        assert box["score"]["y"] + box["score"]["height"] <= box["findings"]["y"]
        # the score's ring (the score and the grade) is on the first screen, its words
        # (the grade's meaning, the interval) begin there
        assert box["score"]["y"] + box["score"]["height"] <= height, box["score"]
        assert box["grade"]["y"] < height, box["grade"]
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1
        shots(page, f"result-first-{width}-{path.stem}.png", full_page=False)
        # the keyboard, from the top of the page: the settings' summary opens with Enter
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        stops = []
        for _ in range(400):
            page.keyboard.press("Tab")
            stop = page.evaluate(FOCUS_STOP)
            if stop is None or (stops and stop["id"] == stops[0]["id"]):
                break  # out of the page, or round again
            stops.append(stop)
            if stop["summary"] and not page.evaluate("document.getElementById('settings').open"):
                page.keyboard.press("Enter")
                assert page.is_visible("#controls")
        regions = [s["region"] for s in stops]
        assert regions[0] == "header" and "other" not in regions, stops
        assert [REGIONS.index(r) for r in regions] == sorted(REGIONS.index(r) for r in regions)
        assert {"drop", "result-tools", "settings"} <= set(regions), regions
        controls = [i for i, s in enumerate(stops) if s["control"]]
        summary = next(i for i, s in enumerate(stops) if s["summary"])
        kinds = page.locator("#kinds select").count()
        assert len(controls) > kinds and summary < controls[0], stops
        drift = [(a, b) for a, b in zip(stops, stops[1:]) if b["top"] < a["top"] - 1]
        assert drift == [], f"focus went up the page: {drift}"
        # and in the DOM: every focusable element, the result's region included, from the
        # top of the page down
        page.evaluate(
            "() => { window.scrollTo(0, 0); document.getElementById('kinds').scrollTop = 0; }"
        )
        order = page.evaluate(FOCUSABLE_TOPS)
        ids = [i for i, _ in order]
        assert ids.index("download-report") < ids.index("results") < ids.index("opt-min_share")
        up = [(a, b) for a, b in zip(order, order[1:]) if b[1] < a[1] - 1]
        assert up == [], f"DOM order goes up the page: {up}"
        assert page.evaluate("window.__pwned") is None


def test_file_url_main_thread_fallback(reports, shots):
    pg = reports(SITE / "index.html")
    wait_js(pg.page, "() => document.body.dataset.workers !== undefined")
    # workers on file:// need the engine's source from the engine itself (its factory,
    # a Blob URL); without it the page reads on its own thread and says so
    factory = pg.page.evaluate("() => typeof FaircodeEngine.factory === 'function'")
    assert pg.page.evaluate("document.body.dataset.workers") == ("yes" if factory else "no")
    path = SAMPLES["compas-scores-two-years.csv"]
    load(pg, path)
    assert_shows(pg.page, profile(path))
    if not factory:
        assert "file://" in pg.page.text_content("#notice")
    assert pg.page.get_attribute("#results", "data-read-parts") == ("1" if factory else "0")
    shots(pg.page, "file-url.png")
    pg.check_clean()
    pg.close()


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """96 MB (three times the 32 MB from which the page reads in parts, progress every
    8 MB in each part): benchmarks/generate.py's 12 MB eight times over, one header
    (generating 96 MB whole took longer than the rest of the test). 48 MB was tried: on
    a quiet machine the read ended before the bar had moved three times."""
    d = tmp_path_factory.mktemp("big")
    seed = d / "generated-12MB.csv"
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "generate.py"), str(seed), "--size", "12MB"],
        check=True,
        capture_output=True,
    )
    head, _, rows = seed.read_bytes().partition(b"\n")
    assert rows.endswith(b"\n")
    out = d / "generated-96MB.csv"
    with out.open("wb") as fh:
        fh.write(head + b"\n")
        for _ in range(8):
            fh.write(rows)
    seed.unlink()
    yield out
    shutil.rmtree(out.parent, ignore_errors=True)


def test_big_file_in_workers_with_progress_and_cancel(site, big_file, shots):
    pg = site(init=COUNT_WORKERS)
    page = pg.page
    # the longest gap between two animation frames while the file is read
    page.evaluate(
        """() => { window.__gap = 0; let last = performance.now();
        const tick = (t) => { window.__gap = Math.max(window.__gap, t - last); last = t;
          requestAnimationFrame(tick); };
        requestAnimationFrame(tick); }"""
    )
    # every value the progress bar takes, recorded in the page (polling from here can
    # miss them all when the read is fast)
    page.evaluate(
        """() => { window.__done = [];
        new MutationObserver((records) => { for (const r of records) {
            if (r.target.id === 'progress') window.__done.push(Number(r.target.dataset.done || 0));
          } }).observe(document.body,
            { attributes: true, subtree: true, attributeFilter: ['data-done'] }); }"""
    )
    page.set_input_files("#file", str(big_file))
    t0 = time.monotonic()
    while reads(page) < 1 and time.monotonic() - t0 < 120:
        # the page answers while it reads (its thread is not blocked)
        assert page.evaluate("1 + 1") == 2
        time.sleep(0.05)
    seen = set(page.evaluate("window.__done"))
    assert page.text_content("#error") == ""
    wait_js(page, "() => Number(document.getElementById('results').dataset.renders || 0) > 0")
    moving = sorted(v for v in seen if 0 < v < big_file.stat().st_size)
    assert len(moving) >= 3, f"the progress bar did not move: {moving}"
    parts = int(page.get_attribute("#results", "data-read-parts"))
    assert parts >= 2, "a 96 MB file is read in parts on workers"
    secs = float(page.get_attribute("#results", "data-read-seconds"))
    t1 = time.monotonic()
    print(
        f"\n96 MB in the browser: {secs:.2f} s, {big_file.stat().st_size / 1e6 / secs:.0f} MB/s, "
        f"{parts} workers"
    )
    gap = page.evaluate("() => window.__gap")
    print(f"longest frame gap while reading: {gap:.0f} ms")
    assert gap < 2000, "the page's thread was blocked while the workers read"
    # a large result (over DRAW_IN_FRAMES, 256 KB of JSON: site/app.js) is drawn over
    # several frames: the page ends with the same view as one renderProfile() of it
    size = page.evaluate("() => JSON.stringify(faircodePage.state.result).length")
    assert size > 256 << 10, size
    assert page.evaluate(
        "() => { const s = faircodePage.state;"
        " const ctx = { name: s.name, proxyWhere: true };"
        " return FaircodeViews.renderProfile(s.result, ctx).outerHTML"
        " === document.querySelector('#results .profile-view').outerHTML; }"
    )
    # the page records its timings: the result, the hash, its thread's longest task
    wait_js(page, "() => document.getElementById('results').dataset.hash === 'done'", 120_000)
    # of the workers (the part workers start beside the analysis worker's plan) only the
    # analysis worker, which keeps the merged summary, is left
    assert page.evaluate("window.__liveWorkers()") == 1
    t = timings(page)
    print(f"page timings (ms): {t}")
    assert t["hashDone"] >= t["resultShown"] >= t["parts"] > 0
    assert t["worker_simd"] == 1  # the workers' field scan ran in WebAssembly
    assert t["longestTask"] >= 0 and t["render"] > 0
    shots(page, "big-file.png")
    want = profile(big_file)
    assert_shows(page, want)
    zips = next(d for d in want["dimensions"] if d["name"] == "zip")
    assert len(zips["groups"]) > GROUPS_LISTED
    note = page.get_attribute("article[data-dim='zip'] .not-listed", "data-not-listed")
    assert int(note) == len(zips["groups"]) - GROUPS_LISTED
    print(f"faircode.profile of the same file (and the DOM check): {time.monotonic() - t1:.1f} s")
    # a second run (the same file chosen again), cancelled part way
    page.set_input_files("#file", [])
    page.set_input_files("#file", str(big_file))
    wait_js(page, "() => Number(document.getElementById('progress').dataset.done) > 0")
    page.click("#cancel")
    wait_js(page, "() => document.getElementById('notice').textContent.startsWith('Cancelled')")
    assert page.get_attribute("#progress-box", "data-state") == "cancelled"
    assert reads(page) == 1
    assert page.evaluate("faircodePage.state.job") is None
    # another file was chosen: the first file's analysis worker ended with its controls
    assert page.evaluate("window.__liveWorkers()") == 0
    shots(page, "big-file-cancelled.png")


def test_other_delimiters(site, tmp_path):
    """TSV, semicolons and pipes are sniffed; the delimiter menu forces one (a re-read)."""
    rows = (SAMPLES["insurance.csv"]).read_text(encoding="utf-8").splitlines()
    pg = site()
    for name, sep in (("insurance.tsv", "\t"), ("insurance-semicolon.csv", ";"), ("pipe.txt", "|")):
        path = tmp_path / name
        path.write_text("\n".join(r.replace(",", sep) for r in rows) + "\n", encoding="utf-8")
        load(pg, path)
        got = assert_shows(pg.page, profile(path))
        assert got["n_cols"] == 7
    # forcing the comma on the pipe file: one column whose name '|' would split, which
    # is the input error of SPEC 0.2 (issue 27), shown as the Python engine words it for
    # the command line (the page's engine speaks in flags, SPEC 0.6)
    change(pg, lambda: pg.page.select_option("#delimiter", ","))
    assert "another delimiter" in pg.page.text_content("#notice")
    with pytest.raises(faircode.InputError) as exc, spelling("flag"):
        faircode.profile(str(path), opts={"delimiter": ","}, name=path.name)
    assert "'|' would split it into 7" in str(exc.value)
    pg.page.click("#reread")
    want = json.dumps(str(exc.value))
    wait_js(pg.page, f"() => document.getElementById('error').textContent === {want}")


def test_delimiter_menu_is_the_option_table(site, tmp_path):
    """The Delimiter menu offers every delimiter --delimiter takes (the engine's option
    table), `:` too: the sniffer never tries it, so only the menu reads such a file."""
    pg = site()
    values = pg.page.eval_on_selector_all("#delimiter option", "os => os.map(o => o.value)")
    assert values == ["", *[d for d in DELIMITERS if d != "\t"]]
    rows = (SAMPLES["insurance.csv"]).read_text(encoding="utf-8").splitlines()
    path = tmp_path / "insurance-colon.txt"
    path.write_text("\n".join(r.replace(",", ":") for r in rows) + "\n", encoding="utf-8")
    pg.page.select_option("#delimiter", ":")
    load(pg, path)
    got = assert_shows(pg.page, profile(path, opts={"delimiter": ":"}))
    assert got["n_cols"] == 7


def report_head(page: str) -> list[str]:
    """The lines of a report's <head> but its <title>."""
    head = page[page.index("<head>") : page.index("</head>")]
    return [line for line in head.splitlines() if not line.startswith("<title>")]


def test_download_report_from_the_page(site, reports, tmp_path, shots):
    path = SAMPLES["compas-scores-two-years.csv"]
    pg = site()
    load(pg, path)
    with pg.page.expect_download() as d:
        pg.page.click("#download-report")
    out = tmp_path / "page-report.html"
    shutil.copy(d.value.path(), out)
    # the page builds the head the CLI's --html builds (its policy, no referrer...),
    # but for the title: the page's had no `referrer` meta
    assert report_head(out.read_text(encoding="utf-8")) == report_head(
        report_html("profile", {}, {"name": path.name})
    )
    rp = reports(out)
    rp.page.wait_for_selector("#report .profile-view")
    assert_shows(rp.page, profile(path), "#report .profile-view")
    assert rp.requests == [out.as_uri()]
    shots(rp.page, "page-report.png")
    rp.check_clean()
    rp.close()


def test_keyboard_themes_phone_and_print(site, shots):
    pg = site()
    page = pg.page
    # keyboard only: Tab to the first sample, Enter runs it
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.classList.contains('sample')"):
            break
    else:
        raise AssertionError("no sample button reachable with Tab")
    before = renders(page)
    page.keyboard.press("Enter")
    wait_js(
        page, f"() => Number(document.getElementById('results').dataset.renders || 0) > {before}"
    )
    # every control has a label; the result is announced in a live region
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('select, input, textarea')].filter((el) =>
        !el.labels?.length && !el.getAttribute('aria-label') && el.type !== 'hidden'
        && !el.hidden).map((el) => el.id || el.outerHTML)"""
    )
    assert unlabelled == []
    assert page.get_attribute("#notice", "aria-live") == "polite"
    assert "grade B" in page.text_content("#notice")
    # dark and light themes follow the system
    page.emulate_media(color_scheme="light")
    light = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    page.emulate_media(color_scheme="dark")
    dark = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert light != dark
    shots(page, "dark.png")
    # a phone: nothing wider than the screen
    page.set_viewport_size({"width": 375, "height": 800})
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 375 + 1, wide
    shots(page, "phone.png")
    # print: the controls are not printed, the results are
    page.emulate_media(media="print", color_scheme="light")
    assert page.evaluate("() => getComputedStyle(document.getElementById('controls')).display") == (
        "none"
    )
    assert page.is_visible("#results .profile-view")


def test_input_errors_are_the_engines_line(site, tmp_path):
    """A bad file shows the one-line error of SPEC 0.6, as Python words it; in a file of
    parts the failing part is read again as one, for the exact line (the page cuts
    files from PARTS_MIN_BYTES here, so a 3 MB file is read in parts)."""
    small = tmp_path / "ragged.csv"
    small.write_text("sex,race\nF,White\nM,Black,extra\n", encoding="utf-8")
    big = tmp_path / "ragged-big.csv"
    with big.open("w", encoding="utf-8") as fh:
        rows = insurance_in_parts(fh)
        fh.write("19,female,27.9,0,yes,southwest,16884.924,surplus\n")
        fh.write(rows)
    pg = site()
    small_parts(pg.page)
    assert parts_of(pg.page, small) == 1 and parts_of(pg.page, big) >= 2
    for path in (small, big):
        with pytest.raises(faircode.InputError) as exc:
            faircode.profile(str(path), name=path.name)
        pg.page.set_input_files("#file", str(path))
        want = json.dumps(str(exc.value))  # the two files' messages differ (their names)
        wait_js(pg.page, f"() => document.getElementById('error').textContent === {want}", 120_000)
        assert pg.page.get_attribute("#results", "aria-busy") == "false"
        assert "line" in str(exc.value)


def repeated_insurance(path: Path, eol: str, size: int, again: bool = False) -> None:
    """The insurance sample's header, then its rows over and over to ``size`` bytes, lines
    ended by ``eol``; ``again``: then a second export, its header kept (files joined with
    cat)."""
    body = (SAMPLES["insurance.csv"]).read_text(encoding="utf-8").splitlines()
    rows = eol.join(body[1:]) + eol
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.write(body[0] + eol)
        while fh.tell() < size:
            fh.write(rows)
        if again:
            fh.write(body[0] + eol + rows)


def test_a_file_the_plan_reads_in_one_part_leaves_no_worker(site, tmp_path):
    """The part workers start beside the analysis worker's plan; a file the plan cannot
    cut (old Mac line ends, a lone CR: no LF to cut after) is read in one part, and the
    worker started for its second part ends unused."""
    path = tmp_path / "mac.csv"
    repeated_insurance(path, "\r", 3 * PARTS_MIN_BYTES)
    pg = site(init=COUNT_WORKERS)
    small_parts(pg.page)
    assert parts_of(pg.page, path) >= 2
    pg.page.set_input_files("#file", str(path))
    wait_js(pg.page, "() => document.getElementById('results').dataset.hash === 'done'", 120_000)
    assert pg.page.get_attribute("#results", "data-read-parts") == "1"
    assert_shows(pg.page, faircode.profile(str(path), name=path.name))
    assert pg.page.evaluate("window.__liveWorkers()") == 1  # the analysis worker


def test_a_repeated_header_in_a_later_part_is_the_cli_s_error(site, tmp_path):
    """SPEC 0.3, 0.8: a header line repeated in the last part (files joined with cat) is
    refused on the page as by the CLI, at its first line, though another worker read it."""
    path = tmp_path / "joined.csv"
    repeated_insurance(path, "\n", 2 * PARTS_MIN_BYTES, again=True)
    pg = site()
    small_parts(pg.page)
    assert parts_of(pg.page, path) >= 2
    with pytest.raises(faircode.InputError) as exc:
        faircode.profile(str(path), name=path.name)
    assert "repeats the header" in str(exc.value)
    pg.page.set_input_files("#file", str(path))
    want = json.dumps(str(exc.value))
    wait_js(pg.page, f"() => document.getElementById('error').textContent === {want}", 120_000)


def test_the_policy_blocks_other_hosts(site):
    """The page's CSP refuses a request to any other host (and says so), and allows
    the page's own files: what makes the page private by construction."""
    pg = site()
    got = pg.page.evaluate(
        """async () => {
      const seen = [];
      document.addEventListener('securitypolicyviolation', (e) => seen.push(e.violatedDirective));
      let external = 'allowed';
      try { await fetch('http://192.0.2.1/x'); } catch (e) { external = 'refused'; }
      const own = (await fetch('views.js')).ok;
      const img = await new Promise((done) => {
        const i = new Image(); i.onload = () => done('loaded');
        i.onerror = () => done('refused'); i.src = 'http://192.0.2.1/pixel.png'; });
      await new Promise((r) => setTimeout(r, 50));
      // 'wasm-unsafe-eval' lets the engine compile its field scan, and no more: eval is
      // still refused
      const simd = FaircodeEngine.createProfiler({ name: 't.csv' }).scanner.simd !== null;
      let evaluated = 'allowed';
      try { (0, eval)('1'); } catch (e) { evaluated = 'refused'; }
      return { external, own, img, seen, simd, evaluated };
    }"""
    )
    assert got["external"] == "refused" and got["img"] == "refused" and got["own"]
    assert got["simd"] and got["evaluated"] == "refused"
    assert "connect-src" in got["seen"] and "img-src" in got["seen"]
    pg.errors.clear()  # the browser logs the two refusals as console errors
    # Playwright reports the refused image as a request (it never reached the network:
    # 192.0.2.1 is a documentation address and the image failed at once)
    pg.requests = [u for u in pg.requests if not u.startswith("http://192.0.2.1/")]


def test_browser_benchmark_runs_end_to_end(tmp_path):
    """benchmarks/browser.py on a small file (not timed): both tools count every row."""
    if not (ROOT / "benchmarks" / "node_modules" / "papaparse").exists():
        if os.environ.get("CI"):
            pytest.fail("papaparse is missing (npm install --prefix benchmarks papaparse)")
        pytest.skip("papaparse is not installed (npm install --prefix benchmarks papaparse)")
    data = tmp_path / "g.csv"
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "generate.py"), str(data), "--size", "2MB"],
        check=True,
        capture_output=True,
    )
    out = tmp_path / "table.md"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "browser.py"),
            str(data),
            "--markdown",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    runs = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    assert [r["tool"] for r in runs] == ["site", "papaparse"]
    assert runs[0]["rows"] == runs[1]["rows"] == profile(data)["n_rows"]
    assert all(r["renderer_peak_mb"] > 0 for r in runs)
    # both times, the memory added by reading (peak less the loaded page's resident
    # memory) and the frame gap measured to the result and to the hash
    site_run = runs[0]
    assert site_run["hash_seconds"] >= site_run["seconds"] > 0
    assert all(r["added_mb"] is not None and r["added_mb"] < r["renderer_peak_mb"] for r in runs)
    assert site_run["frame_gap_hash_ms"] >= site_run["frame_gap_ms"] > 0
    assert site_run["analysed_in"] == "worker"
    assert {"parts", "resultShown", "hashDone", "longestTask"} <= set(site_run["timings_ms"])
    table = out.read_text(encoding="utf-8")
    assert "| site |" in table and "workers' added memory" in table
    assert "to the result and the hash" in table


def test_missing_group_row_follows_the_more_note(reports, tmp_path):
    """SPEC 6.1, 17.4: in the rates table the '(missing DIM)' row comes after the
    dimension's groups and their "more" note, as the terminal and Markdown put it; and a
    count of one group is "1 more group"."""
    drawn = 40  # views.js GROUPS_SHOWN, checked below
    rows = ["race,y"]
    for k in range(drawn + 1):  # one group past those drawn at once
        rows += [f"g{k:02d},{i % 2}" for i in range(30)]
    rows += [f",{i % 2}" for i in range(30)]  # the missing group
    path = tmp_path / "many.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "many.html"
    cli_ok("profile", str(path), "--label", "y", "--html", str(out))
    pg = reports(out)
    pg.page.wait_for_selector("#report section.label-rates")
    assert pg.page.evaluate("() => FaircodeViews.GROUPS_SHOWN") == drawn
    order = pg.page.eval_on_selector_all(
        "#report section.label-rates article .more-note,"
        " #report section.label-rates article .rate-row[data-missing-group]",
        "els => els.map((e) => e.matches('.more-note') ? 'more' : 'missing')",
    )
    assert order == ["more", "missing"]
    summary = pg.page.locator("#report article[data-dim='race'] details.more-groups > summary")
    assert summary.inner_text() == "1 more group"


def test_cli_html_report_shows_label_rates_and_missing_by_group(reports, tmp_path, shots):
    """SPEC 17's blocks in the --html report: the rates and highest/lowest marks equal
    the result's, the missing-data table lists the terminal's columns, and a hostile
    label or column name is text."""
    label = "<img src=x onerror=window.__pwned=6>"
    col = "<b onmouseover=window.__pwned=7>c|x"
    rows = ["race,sex,y," + json.dumps(col)]
    for k, race in enumerate([label, "B", "C"]):
        for i in range(200):
            cell = "" if k == 0 else "v"
            rows.append(f"{json.dumps(race)},{'MF'[i % 2]},{(i + k) % 3 == 0},{cell}")
    for i in range(30):  # rows without a race: the '(missing race)' row (SPEC 17.4, 17.5)
        rows.append(f",{'MF'[i % 2]},{i % 2 == 0},{'' if i % 3 else 'v'}")
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "labels.html"
    cli_ok("profile", str(path), "--label", "y", "--html", str(out))
    want = profile(path, None, {"label": "y"})
    pg = reports(out)
    pg.page.wait_for_selector("#report section.label-rates")
    got = pg.page.eval_on_selector_all(
        "#report section.label-rates .rate-row[data-dim]",
        "els => els.map((e) => [e.dataset.dim, e.dataset.label, Number(e.dataset.n),"
        " Number(e.dataset.rate), e.dataset.highest === 'true', e.dataset.lowest === 'true'])",
    )
    assert got == [
        [
            d["name"],
            g.get("label"),
            g["n"],
            g["rate"],
            g.get("label") == d["highest"],
            g.get("label") == d["lowest"],
        ]
        for d in want["label_rates"]["dimensions"]
        for g in d["groups"] + ([d["missing_group"]] if d.get("missing_group") else [])
    ]
    race = next(d for d in want["label_rates"]["dimensions"] if d["name"] == "race")
    assert race["missing_group"]["count"] == 30
    assert pg.page.locator("#report .rate-row[data-missing-group] .bar-label").inner_text() == (
        "(missing race)"
    )
    cols = pg.page.eval_on_selector_all(
        "#report section.missing-by-group article > .heat-wrap tr[data-column]",
        "els => els.map((e) => [e.dataset.dim, e.dataset.column, Number(e.dataset.flagged)])",
    )
    from faircode.render import missing_columns_shown

    assert cols == [
        [e["dimension"], c["name"], len(c["flagged"])]
        for e in want["missing_by_group"]
        for c in missing_columns_shown(e)[0]
    ]
    assert [col, 1] in [[c[1], c[2]] for c in cols if c[0] == "race"]
    text = pg.page.locator("#report section.missing-by-group").inner_text()
    assert col in text and label in text
    assert "(missing race): 30 rows" in text
    # SPEC 17.4: the lowest is named with the groups its interval does not tell apart
    alike = ", ".join(
        x if isinstance(x, str) else " × ".join(x) for x in race["gap"]["lowest_alike"]
    )
    assert alike and race["gap"]["lowest_alike"][0] == label
    facts = pg.page.locator("#report section.label-rates article[data-dim='race'] .facts")
    assert f"lowest {race['lowest']} (not told apart from {alike} at 95%):" in facts.inner_text()
    assert pg.page.evaluate("window.__pwned") is None
    assert pg.page.locator("#report img, #report b").count() == 0
    shots(pg.page, "cli-html-label-missing.png")
    pg.check_clean()
    pg.close()


def test_cli_html_report_names_the_one_missing_cell_s_group_the_highest(reports, tmp_path):
    """SPEC 17.5: one missing cell of 30,001, in 'M': the --html report's missing-data row
    names 'F' the lowest group and 'M' the highest, as the JSON's `lowest`/`highest` (by
    share; the 4-dp intervals tied at 0.0000 and named 'F' both)."""
    path = tmp_path / "one.csv"
    data = "sex,income\n" + "M,1\n" * 14999 + "M,\n" + "F,2\n" * 15000 + ",2\n"
    path.write_text(data, encoding="utf-8")
    out = tmp_path / "one.html"
    cli_ok("profile", str(path), "--html", str(out))
    want = profile(path, None, {})
    (col,) = want["missing_by_group"][0]["columns"]
    assert (col["lowest"], col["highest"]) == ("F", "M")
    pg = reports(out)
    cells = pg.page.eval_on_selector_all(
        "#report section.missing-by-group tr[data-column='income'] td",
        "els => els.map((e) => e.innerText.trim())",
    )
    assert cells[1:3] == ["F 0.00%", "M 0.01%"], cells
    pg.check_clean()
    pg.close()


def test_the_heatmap_marks_the_cells_the_json_does_not_list(reports, tmp_path, shots):
    """SPEC 4: an intersection lists its first 1,000 gaps in A's then B's group order; a
    drawn cell past the last listed one is not known from the JSON ('?'), never drawn as
    filled. 40 zip codes x 50 regions, each zip code in 3 regions: 1,880 gaps."""
    rows = ["zip,region"]
    for z in range(40):
        for r in range(3):
            rows += [f"{10000 + z},Region {(z + r * 7) % 50:02d}"] * (4 + r)
    path = tmp_path / "zips.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "zips.html"
    cli_ok("profile", str(path), "--cross", "zip,region", "--html", str(out))
    want = profile(path, None, {"cross": ["zip", "region"]})
    (inter,) = want["intersections"]
    assert inter["cells_not_listed"] > 0
    groups = {d["name"]: [g["label"] for g in d["groups"]] for d in want["dimensions"]}
    la, lb = groups["zip"][:30], groups["region"][:30]
    gaps = {(c["a"], c["b"]): c["count"] for c in inter["cells"]}
    last = inter["cells"][-1]
    end = (groups["zip"].index(last["a"]), groups["region"].index(last["b"]))
    expected = [
        [
            ("absent" if gaps[(a, b)] == 0 else "near-empty")
            if (a, b) in gaps
            else ("filled" if (i, j) <= end else "not-listed")
            for j, b in enumerate(lb)
        ]
        for i, a in enumerate(la)
    ]
    assert any("not-listed" in row for row in expected)
    pg = reports(out)
    got = pg.page.eval_on_selector_all(
        "#report table.heat tbody tr",
        "trs => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.state))",
    )
    assert got == expected
    shots(pg.page, "cli-html-heat-unlisted.png")
    pg.check_clean()
    pg.close()


def test_a_flagged_group_past_the_listed_ones_is_named(reports, tmp_path):
    """SPEC 17.5: a group is flagged among all groups, while the JSON lists the first
    1,000; a flagged group past them is named in the table, without the share the JSON
    does not hold. 1,100 zip codes: the last one (fewest rows) misses most scores."""
    rows = ["zip,score"]
    for z in range(1100):
        n = 30 if z == 1099 else 31
        for i in range(n):
            gone = i < 20 if z == 1099 else i == 0
            rows.append(f"{10000 + z},{'' if gone else i}")
    path = tmp_path / "zips.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "zips.html"
    cli_ok("profile", str(path), "--min-group-size", "30", "--html", str(out))
    want = profile(path, None, {"min_group_size": 30})
    (entry,) = [e for e in want["missing_by_group"] if e["dimension"] == "zip"]
    (column,) = entry["columns"]
    listed = {g["label"] for g in column["groups"]}
    assert column["flagged"] == ["11099"] and "11099" not in listed
    pg = reports(out)
    got = pg.page.eval_on_selector_all(
        "#report section.missing-by-group .flagged", "els => els.map((e) => e.textContent)"
    )
    assert got == ["11099"]
    pg.check_clean()
    pg.close()


def test_long_and_invisible_labels_on_the_page(site, tmp_path):
    """SPEC 0.9 LABEL_SHOWN and 0.6: the page draws and exports a 1 MB label capped as
    the CLI writes it (the same JSON), and labels that all read 'Male' told apart."""
    from faircode.safetext import bounded, capped

    big = "A" * (1 << 20)
    labels = [big, big[:-1] + "B", "Male", "Ma\u200dle", "Male\u00a0"]
    rows = ["race,sex"] + [f"{labels[i % 5]},{'MF'[i % 2]}" for i in range(50)]
    path = tmp_path / "long.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    want = bounded(profile(path))
    pg = site()
    page = pg.page
    load(pg, path)
    assert_shows(page, want)
    texts = page.eval_on_selector_all(
        "article[data-dim='race'] .bar-label bdi", "els => els.map((e) => e.textContent)"
    )
    assert capped(big) in texts and "Ma\\u200dle" in texts and "Male\\xa0" in texts
    with page.expect_download() as d:
        page.click("#download-json")
    got = json.loads(Path(d.value.path()).read_text(encoding="utf-8"))
    assert without_engine(got) == without_engine(cli_json("profile", str(path)))
    assert len(json.dumps(got)) < 50_000


def test_cli_html_report_shows_outcome_means(reports, tmp_path, shots):
    """SPEC 21.4 in the --html report: one table row per group and cell with the
    result's n and mean, in its order, and a hostile group label stays text."""
    label = "<img src=x onerror=window.__pwned=8>"
    rows = ["race,sex,y"]
    for k, race in enumerate([label, "B", "C"]):
        for i in range(150):
            rows.append(f"{json.dumps(race)},{'MF'[i % 2]},{(i * 7 + k * 3) % 11}")
    path = tmp_path / "outcome.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "outcome.html"
    cli_ok("profile", str(path), "--outcome", "y", "--html", str(out))
    want = profile(path, None, {"outcome": "y"})["outcomes"][0]
    pg = reports(out)
    pg.page.wait_for_selector("#report section.outcome")
    got = pg.page.eval_on_selector_all(
        "#report section.outcome tbody tr",
        "els => els.map((e) => [Number(e.dataset.n), Number(e.dataset.mean)])",
    )
    expected = [[g["n"], g["mean"]] for d in want["dimensions"] for g in d["groups"]]
    expected += [[c["n"], c["mean"]] for c in want["intersection"]["cells"]]
    assert got == expected
    assert label in pg.page.locator("#report section.outcome").inner_text()
    assert pg.page.evaluate("window.__pwned") is None
    shots(pg.page, "cli-html-outcome.png")
    pg.check_clean()


# ---------------------------------------------------------------------------------------
# One number per fact (issue 27 item 1, SPEC 13's P): the same result through the
# terminal, Markdown, CSV, the --html report and the website shows every figure as the
# JSON's 4-dp value, rounded once, and the same facts in each.

FIGURE = re.compile(r"(?<![\w.])-?\d+\.\d+(?=\s?%|\s?pts)")


def _numbers(x, out: set) -> set:
    if isinstance(x, dict):
        for v in x.values():
            _numbers(v, out)
    elif isinstance(x, list):
        for v in x:
            _numbers(v, out)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        out.add(x)
    return out


def _allowed(result: dict) -> set[str]:
    """P of every fraction the result holds (and its magnitude: a change reads +/-)."""
    out = set()
    for v in _numbers(result, set()):
        if -1 <= v <= 1:
            out |= {pct(v), pct(abs(v))}
    # an unscored column's labels carry counts; reports show count / the column's rows
    for u in result["unscored"]:
        n = sum(g["count"] for g in u["groups"]) or 1
        out |= {pct(g["count"] / n) for g in u["groups"]}
    return out


def _figures_outside(text: str, allowed: set[str]) -> list[str]:
    return sorted({f.lstrip("-") for f in FIGURE.findall(text)} - allowed)


def _facts(result: dict) -> list[str]:
    """Figures each human format must show: the first groups of every dimension (share),
    label rates, reference rows (expected, actual, change)."""
    out = []
    for d in result["dimensions"]:
        out += [pct(g["share"]) for g in d["groups"][:3]]
        for g in (d.get("reference") or {}).get("groups", [])[:3]:
            out += [pct(g["expected"]), pct(g["actual"]), pct(abs(g["delta"]))]
    for d in (result.get("label_rates") or {}).get("dimensions", []):
        out += [pct(g["rate"]) for g in d.get("groups", [])[:3] if g["rate"] is not None]
    return out


ONE_NUMBER_CASES = {
    "compas": ([], None, None),
    "adult": (["--label", "income", "--positive", ">50K"], ("income", ">50K"), None),
    "diabetic": (["--reference", "us-2024"], None, "samples/reference-us-2024.csv"),
}


@pytest.mark.parametrize("case", list(ONE_NUMBER_CASES))
def test_every_format_shows_one_number_per_fact(case, site, reports, tmp_path):
    args, label, reference = ONE_NUMBER_CASES[case]
    if case == "compas":
        path = SAMPLES["compas-scores-two-years.csv"]
    elif case == "diabetic":
        path = data_file("diabetic_data.csv")
    else:  # the site reads a header; adult.data has none, so the test writes one
        path = tmp_path / "adult.csv"
        names = [
            "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
            "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
            "hours-per-week", "native-country", "income",
        ]  # fmt: skip
        body = Path(data_file("adult.data")).read_text(encoding="utf-8")
        path.write_text(",".join(names) + "\n" + body, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def cli(*more: str) -> subprocess.Popen:
        cmd = [sys.executable, "-m", "faircode", "profile", str(path), *args, *more]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

    def output(run: subprocess.Popen) -> str:
        stdout, stderr = run.communicate()
        assert run.returncode == 0, stderr.decode()
        return stdout.decode()

    # two runs of the CLI at once: --json, and the terminal report that also writes the
    # Markdown, CSV and HTML reports (the same bytes as --format markdown, csv, html)
    md, table, html = tmp_path / "report.md", tmp_path / "report.csv", tmp_path / "report.html"
    as_json = cli("--json")
    exports = cli("--markdown", str(md), "--csv", str(table), "--html", str(html))
    result = json.loads(output(as_json))
    allowed = _allowed(result)
    facts = _facts(result)
    assert facts
    out = {"terminal": output(exports), "markdown": md.read_text(encoding="utf-8")}
    rp = reports(html)
    rp.page.wait_for_selector("#report .profile-view")
    out["html"] = rp.page.inner_text("#report")
    rp.close()
    pg = site()
    load(pg, path, timeout=120_000)
    if label or reference:
        open_settings(pg.page)
    if label:
        change(pg, lambda: pg.page.select_option("#label-col", label[0]))
        reread(pg)
        change(
            pg,
            lambda: (
                pg.page.fill("#label-positive", label[1])
                or pg.page.press("#label-positive", "Enter")
            ),
        )
    if reference:
        change(pg, lambda: pg.page.select_option("#reference", reference))
    out["website"] = pg.page.inner_text("#results")
    for where, text in out.items():
        assert _figures_outside(text, allowed) == [], where
        missing = [f for f in facts if f not in text]
        assert missing == [], where
    # CSV holds the JSON's numbers themselves, and its text cells the same figures
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    shares = {
        (r["dimension"], r["label"]): float(r["share"])
        for r in rows
        if r.get("section") == "group" and r.get("share")
    }
    for d in result["dimensions"]:
        for g in d["groups"][:3]:
            assert shares[(d["name"], g["label"])] == g["share"]
    cells = " ".join(v for r in rows for v in r.values() if isinstance(v, str))
    assert _figures_outside(cells, allowed) == []


# ---------------------------------------------------------------------------------------
# Every block in every format (issue 27 item 3): the browser's formats. The blocks are
# the result's own keys (tests/surfaces/test_every_block.py walks them for the terminal, Markdown
# and CSV); here the --html report, the notebook's frame and the website.

VIEW_FACTS = """(root) => {
  const v = document.querySelector(root);
  const q = (s) => [...v.querySelectorAll(s)];
  const num = (s) => (s === '' || s === undefined ? null : Number(s));
  const ev = v.querySelector('section.findings p.evidence');
  const facts = (c) => [c.dataset.dim || c.dataset.dims, c.querySelector('.facts').textContent];
  const refOf = (c) => {
    const r = c.querySelector('.reference');
    const rows = [...r.querySelectorAll('tbody tr')].map((t) => [t.dataset.label,
      num(t.dataset.expected), num(t.dataset.actual), num(t.dataset.delta), t.textContent,
      num(t.dataset.count)]);
    const head = r.querySelector('h4').textContent;
    return [c.dataset.dim, { deviation: num(r.dataset.deviation), head, rows }];
  };
  const proxy = (s) => ({ where: s.classList.contains('proxy-where'), text: s.textContent,
    hints: [...s.querySelectorAll('tr[data-cramers-v]')].map((t) => [t.dataset.a,
      t.dataset.b, num(t.dataset.cramersV), num(t.dataset.pAdjusted), t.textContent]),
    features: [...s.querySelectorAll('tr[data-method]')].map((t) => [t.dataset.a, t.dataset.b]),
  });
  return {
    dims: q('article.dim').map((c) => c.dataset.dim),
    reference: Object.fromEntries(q('article.dim').filter((c) => c.querySelector('.reference'))
      .map(refOf)),
    heat: q('section.intersections table.heat').map((t) => [t.dataset.a, t.dataset.b]),
    unscored: q('.unscored-list li').map((l) => l.dataset.column),
    dropped: q('.dropped-list li').map((l) => l.dataset.column),
    label_rates: q('section.label-rates').map((s) => ({ label: s.dataset.label,
      positive: s.dataset.positive, cards: [...s.querySelectorAll('article.rates')].map(facts) })),
    outcomes: q('section.outcome').map((s) => ({ column: s.dataset.column,
      cards: [...s.querySelectorAll('article.outcome-card')].map(facts) })),
    missing: q('section.missing-by-group article.missing').map((c) => c.dataset.dim),
    findings: q('section.findings li.flag').map((l) => [l.dataset.flag, l.dataset.verdict]),
    evidence: ev ? [num(ev.dataset.tests), num(ev.dataset.confirmed), num(ev.dataset.possible)]
      : null,
    proxy: q('section.proxy-hints').map(proxy),
  };
}"""


def view_markers(r: dict, website: bool) -> dict:
    """Per block of ``r``, whether the views (site/views.js) drew it, from VIEW_FACTS.
    The website's engine computes no proxy hints (SPEC 16): it says where they come
    from instead."""
    from faircode.proxy import p_text

    def spread(text: str, d: dict) -> bool:
        gap = d["gap"]
        ci = f"[{pct(gap['ci_low'])}-{pct(gap['ci_high'])}]"
        diff = f"difference {pct(d['max_difference'])} pts {ci}"
        return diff in text and text.endswith(f"; {gap['verdict']}")

    def cards(entries: list[dict], inter: dict | None) -> list[str]:
        return [d["name"] for d in entries] + (["\0".join(inter["dims"])] if inter else [])

    lr = r.get("label_rates")
    # the website's findings are the result's without the proxy hints' notes
    kept = [f for f in r["findings"] if not (website and f["kind"] == "proxy")]
    notes = [(f["text"], f["verdict"] or "note") for f in kept]
    hints = (r.get("proxy_hints") or {}).get("hints", [])
    return {
        "dimensions": lambda f: f["dims"] == [d["name"] for d in r["dimensions"]],
        "intersections": lambda f: f["heat"] == [i["dims"] for i in r["intersections"]],
        "unscored": lambda f: f["unscored"] == [u["name"] for u in r["unscored"]],
        "dropped": lambda f: f["dropped"] == [d["name"] for d in r["dropped"]],
        "label_rates": lambda f: (
            len(f["label_rates"]) == 1
            and (f["label_rates"][0]["label"], f["label_rates"][0]["positive"])
            == (lr["label"], lr["positive"])
            and [c[0] for c in f["label_rates"][0]["cards"]]
            == cards(lr["dimensions"], lr["intersection"])
            and all(
                spread(text, d)
                for (_, text), d in zip(
                    f["label_rates"][0]["cards"], [*lr["dimensions"], lr["intersection"]]
                )
            )
        ),
        "outcomes": lambda f: (
            [o["column"] for o in f["outcomes"]] == [o["column"] for o in r["outcomes"]]
            and all(
                [c[0] for c in fo["cards"]] == cards(o["dimensions"], o["intersection"])
                and all(
                    text.endswith(f"; {d['gap']['verdict']}")
                    for (_, text), d in zip(fo["cards"], [*o["dimensions"], o["intersection"]])
                )
                for fo, o in zip(f["outcomes"], r["outcomes"])
            )
        ),
        "missing_by_group": lambda f: (
            f["missing"]
            == [e["dimension"] for e in r["missing_by_group"] if not e.get("not_counted")]
        ),
        "findings": lambda f: [tuple(x) for x in f["findings"]] == notes,
        "evidence": lambda f: (
            f["evidence"] == [r["evidence"][k] for k in ("tests", "confirmed", "possible")]
        ),
        "flags": lambda f: (
            [x[0] for x in f["findings"]]
            == [t for t in r["flags"] if not (website and t.startswith("proxy: "))]
        ),
        "proxy_hints": (
            (
                lambda f: (
                    len(f["proxy"]) == 1
                    and f["proxy"][0]["where"]
                    and "faircode profile FILE --proxy-hints" in f["proxy"][0]["text"]
                )
            )
            if website
            else lambda f: (
                len(f["proxy"]) == 1
                and not f["proxy"][0]["where"]
                and [x[:4] for x in f["proxy"][0]["hints"]]
                == [[h["a"], h["b"], h["cramers_v"], h["p_adjusted"]] for h in hints[:20]]
                and all(
                    p_text(h["p_adjusted"]) in x[4] for x, h in zip(f["proxy"][0]["hints"], hints)
                )
                and len(f["proxy"][0]["features"]) == min(20, len(r["proxy_hints"]["features"]))
            )
        ),
    }


def view_reference(facts: dict, d: dict) -> dict[str, bool]:
    ref = d["reference"]
    got = facts["reference"].get(d["name"])
    if got is None:
        return {}
    ages = ref.get("ages")
    rows = [[*x[:4], x[5]] for x in got["rows"]]
    want = [[g["label"], g["expected"], g["actual"], g["delta"], g["count"]] for g in ref["groups"]]
    n = sum(g["count"] for g in ref["groups"])
    texts = all(
        f"{pct(g['expected'])}%" in x[4]
        and share_text(g["actual"], g["count"], n) in x[4]
        and pct(g["delta"]) in x[4]
        for x, g in zip(got["rows"], ref["groups"])
    )
    same = rows == want and texts
    return {
        "deviation": got["deviation"] == ref["deviation"]
        and f"deviation {pct(ref['deviation'])} pts" in got["head"],
        "ages": ages is not None and f"over ages {ages[0]}\u2013{ages[1]}" in got["head"],
        "groups": same,
        "label": same,
        "expected": same,
        "actual": same,
        "delta": same,
        "count": same,
    }


def without_proxy(r: dict) -> dict:
    """``r`` as the browser engine gives it: no proxy_hints, nor their notes (SPEC 16;
    they are notes outside the family, so evidence is unchanged)."""
    r = json.loads(json.dumps(r))
    r.pop("proxy_hints")
    r.pop("provenance", None)
    r["findings"] = [f for f in r["findings"] if f["kind"] != "proxy"]
    r["flags"] = [f["text"] for f in r["findings"]]
    return r


def test_every_block_in_the_html_report_notebook_and_website(site, reports, tmp_path, shots):
    from blockwalk import ARGS, COMPAS, blocks, check_renderer, compas_result

    path = data_file(COMPAS)
    html = tmp_path / "compas.html"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "faircode", "profile", str(path), *ARGS, "--html", str(html)]
    report = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    # the API's result for the same settings, computed while the CLI writes its report
    # (the CLI's --json is this result: tests/surfaces/test_every_block.py
    # test_the_case_holds_every_block_and_is_the_cli_result; a third computation of the
    # proxy hints, for the CLI's --json, proved nothing more)
    api = compas_result()
    result = json.loads(json.dumps(api))
    assert "proxy_hints" in blocks(result) and "outcomes" in blocks(result)
    _, stderr = report.communicate()
    assert report.returncode == 0, stderr.decode()
    # the --html report
    rp = reports(html)
    rp.page.wait_for_selector("#report .profile-view")
    facts = rp.page.evaluate(VIEW_FACTS, "#report")
    shots(rp.page, "every-block-html.png")
    rp.check_clean()
    rp.close()
    check_renderer("html", result, facts, view_markers(result, False), view_reference)
    # the notebook: the same report in a sandboxed frame (SPEC 6.2)
    nb = reports("about:blank")
    nb.page.set_content(f"<!DOCTYPE html><html><body>{api._repr_html_()}</body></html>")
    frame = nb.page.frames[-1]
    frame.wait_for_selector("#report .profile-view")
    facts = frame.evaluate(VIEW_FACTS, "#report")
    nb.close()
    check_renderer("notebook", api, facts, view_markers(api, False), view_reference)
    # the website: the same settings through its controls; its engine gives the same
    # result without proxy hints, and says where they come from
    pg = site()
    page = pg.page
    load(pg, path)
    open_settings(page)

    def settle() -> None:
        if page.is_visible("#reread"):
            reread(pg)

    change(pg, lambda: page.select_option("#cross-a", "sex"))
    change(pg, lambda: page.select_option("#cross-b", "race"))
    settle()
    change(pg, lambda: page.select_option("#label-col", "two_year_recid"))
    settle()
    change(pg, lambda: page.select_option("#outcome-col", "priors_count"))
    assert "outcome column" in page.text_content("#notice")
    settle()
    change(pg, lambda: page.select_option("#reference", "samples/reference-us-2024.csv"))
    assert page.text_content("#error") == ""
    shown_result = page.evaluate("() => window.faircodePage.state.result")
    assert shown_result == without_proxy(result)
    facts = page.evaluate(VIEW_FACTS, "#results")
    shots(page, "every-block-website.png")
    check_renderer("website", result, facts, view_markers(result, True), view_reference)


def test_a_large_result_draws_outcomes_and_the_proxy_line_in_place(site, tmp_path):
    """A result over 256 KB of JSON is drawn in two halves (site/app.js show): the
    outcome section and the proxy-hints line are in the second, in renderProfile's
    order, and the page ends with one renderProfile() of the whole result."""
    import random

    rng = random.Random(1)
    path = tmp_path / "zips.csv"
    rows = ["zip,sex,y,score"]  # 6,000 zip codes: a geography of 6,000 groups
    for _ in range(30000):
        score = "" if rng.random() < 0.1 else rng.randrange(50)  # missing data by zip too
        rows.append(f"{10000 + rng.randrange(6000)},{rng.choice('MF')},{rng.randrange(2)},{score}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    want = profile(path, None, {"label": "y", "outcome": ["score"]})
    assert len(json.dumps(want)) > 256 << 10
    pg = site()
    page = pg.page
    load(pg, path)
    open_settings(page)
    change(pg, lambda: page.select_option("#label-col", "y"))
    reread(pg)
    change(pg, lambda: page.select_option("#outcome-col", "score"))
    reread(pg)
    assert page.evaluate("() => window.faircodePage.state.result") == json.loads(json.dumps(want))
    order = page.evaluate(
        "() => [...document.querySelector('#results .profile-view').children]"
        ".map((s) => s.className)"
    )
    assert order[-4:] == ["label-rates", "outcome", "missing-by-group", "proxy-hints proxy-where"]
    # Missing data by zip: the lowest and highest group are among the groups listed.
    (zips,) = [e for e in want["missing_by_group"] if e["dimension"] == "zip"]
    (column,) = zips["columns"]
    listed, total = len(column["groups"]), len(column["groups"]) + column["groups_not_listed"]
    scope = page.locator(
        "#results section.missing-by-group article[data-dim='zip'] .extremes-scope"
    )
    assert scope.inner_text() == (
        f"lowest and highest among the first {listed:,} of {total:,} groups, those the JSON lists"
    )
    # A card's count of what it does not draw includes the groups the JSON only counts.
    drawn = page.evaluate("() => FaircodeViews.GROUPS_SHOWN")
    for section, block in (("label-rates", want["label_rates"]), ("outcome", want["outcomes"][0])):
        zips = next(d for d in block["dimensions"] if d["name"] == "zip")
        listed, more = len(zips["groups"]), zips["groups_not_listed"]
        note = page.locator(f"#results section.{section} article[data-dim='zip'] .more-note")
        assert note.inner_text() == (
            f"{listed - drawn + more:,} more (the JSON export lists the first {listed:,})"
        )
    assert page.evaluate(
        "() => { const s = faircodePage.state;"
        " const ctx = { name: s.name, proxyWhere: true };"
        " return FaircodeViews.renderProfile(s.result, ctx).outerHTML"
        " === document.querySelector('#results .profile-view').outerHTML; }"
    )


# gzip (SPEC 0.8): the page reads a gzip-compressed CSV as the CLI does


def compas_bytes() -> bytes:
    return data_file("compas-scores-two-years.csv").read_bytes()


def exported_json(pg: Page) -> dict:
    """The page's Download JSON (its hash done: the button waits for it)."""
    wait_js(pg.page, "() => document.getElementById('results').dataset.hash === 'done'")
    with pg.page.expect_download() as d:
        pg.page.click("#download-json")
    return json.loads(Path(d.value.path()).read_text(encoding="utf-8"))


def insurance_in_parts(fh) -> str:
    """Write insurance.csv's header, then its rows over and over until the page reads
    the file in parts (3 x PARTS_MIN_BYTES); the rows, to write more."""
    body = SAMPLES["insurance.csv"].read_text(encoding="utf-8").splitlines()
    fh.write(body[0] + "\n")
    rows = "\n".join(body[1:]) + "\n"
    while fh.tell() < 3 * PARTS_MIN_BYTES:
        fh.write(rows)
    return rows


def cli_error(path: Path) -> str:
    """The CLI's one error line for `path`, run from its folder (so that it names the
    file as the page does, by its name), without the `faircode: error: ` prefix."""
    code, out, err = run_cli("profile", path.name, "--json", cwd=path.parent)
    assert code == 2, (code, out, err)
    (line,) = err.splitlines()
    return line.removeprefix("faircode: error: ")


@pytest.mark.parametrize("workers", [True, False], ids=["worker", "page-thread"])
def test_a_gzip_file_is_read_as_the_cli_reads_it(site, tmp_path, workers):
    """COMPAS gzip-compressed through the file input: the exported JSON is the CLI's
    (provenance.engine aside), its dataset_hash the SHA-256 of the compressed file,
    its rows those pandas reads from the uncompressed bytes; progress counts the
    compressed bytes. On a worker and, without workers, on the page's thread."""
    import gzip

    import pandas as pd

    raw = compas_bytes()
    path = tmp_path / "compas-scores-two-years.csv.gz"
    path.write_bytes(gzip.compress(raw))
    pg = site(init=None if workers else "window.Worker = undefined;")
    load(pg, path)
    page = pg.page
    assert page.get_attribute("#results", "data-read-parts") == ("1" if workers else "0")
    got = exported_json(pg)
    assert without_engine(got) == without_engine(cli_json("profile", str(path)))
    stored = path.read_bytes()
    assert got["provenance"]["dataset_hash"] == "sha256:" + hashlib.sha256(stored).hexdigest()
    assert got["n_rows"] == len(pd.read_csv(io.BytesIO(raw)))
    assert page.evaluate("document.getElementById('progress').max") == len(stored)
    assert page.evaluate("document.getElementById('progress').value") == len(stored)
    # the uncompressed file's result, but for the hash
    plain = tmp_path / "compas-scores-two-years.csv"
    plain.write_bytes(raw)
    want = cli_json("profile", str(plain))
    got["provenance"].pop("dataset_hash")
    want["provenance"].pop("dataset_hash")
    assert without_engine(got) == without_engine(want)


def test_a_multi_member_gzip_file(site, tmp_path):
    """`cat a.gz b.gz` (members cut inside a line, zero padding between and after, one
    member with a file name in its header, one of no data) reads as Python's gzip reads
    it: the result equals the CLI's, and the uncompressed file's."""
    import gzip

    raw = compas_bytes()
    a, b = len(raw) // 3, 2 * len(raw) // 3 + 7
    named = io.BytesIO()
    with gzip.GzipFile(filename="part-b.csv", mode="wb", fileobj=named, mtime=0) as gz:
        gz.write(raw[a:b])
    data = (
        gzip.compress(raw[:a], compresslevel=1)
        + b"\x00" * 5
        + named.getvalue()
        + gzip.compress(b"")
        + gzip.compress(raw[b:], compresslevel=9)
        + b"\x00" * 3
    )
    assert gzip.decompress(data) == raw
    path = tmp_path / "members.csv.gz"
    path.write_bytes(data)
    pg = site()
    load(pg, path)
    got = exported_json(pg)
    assert without_engine(got) == without_engine(cli_json("profile", str(path)))
    plain = tmp_path / "plain.csv"
    plain.write_bytes(raw)
    want = cli_json("profile", str(plain))
    for r in (got, want):
        r["provenance"].pop("dataset_hash")
    assert without_engine(got) == without_engine(want)


def test_a_corrupt_gzip_file_is_one_line(site, tmp_path):
    """A gzip file cut short, one with a wrong CRC, one with a wrong length, one whose
    deflate data is broken: one line in #error, the CLI's own; bytes after the last
    member that are no gzip member: one line naming the file as not readable gzip."""
    import gzip

    whole = gzip.compress(compas_bytes())
    crc = bytearray(whole)
    crc[-8] ^= 0x01
    size = bytearray(whole)
    size[-1] ^= 0x01
    block = bytearray(whole)
    block[10] = 0xFF  # the first deflate block's header: BTYPE 11, invalid
    cases = {
        "cut.csv.gz": whole[: len(whole) // 2],
        "crc.csv.gz": bytes(crc),
        "size.csv.gz": bytes(size),
        "block.csv.gz": bytes(block),
        "header.csv.gz": whole[:6],
        "method.csv.gz": b"\x1f\x8b\x07" + whole[3:],
    }
    pg = site()
    page = pg.page
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        want = cli_error(path)
        assert want.startswith(f"{name}: not a readable gzip file ("), want
        page.set_input_files("#file", str(path))
        wait_js(page, "() => document.getElementById('error').textContent !== ''")
        assert page.text_content("#error") == want, name
        page.evaluate("document.getElementById('error').textContent = ''")
    junk = tmp_path / "junk.csv.gz"
    junk.write_bytes(whole + b"\x00\x00junk")
    assert cli_error(junk) == "junk.csv.gz: not a readable gzip file (Not a gzipped file (b'ju'))"
    page.set_input_files("#file", str(junk))
    wait_js(page, "() => document.getElementById('error').textContent !== ''")
    shown_error = page.text_content("#error")
    assert shown_error.startswith("junk.csv.gz: not a readable gzip file (")
    assert "\n" not in shown_error


def _gzip_of_bad_contents(tmp_path: Path) -> list[Path]:
    """gzip files whose decompressed bytes fail as CSV (SPEC 0.6): at the start, and after
    many pieces of the inflater (a Latin-1 byte past 2 MB of COMPAS rows); a Parquet file
    inside gzip (Python reads its bytes as CSV: a NUL byte, SPEC 0.8)."""
    import gzip

    raw = compas_bytes()
    rows = raw.split(b"\n", 1)[1]
    cases = {
        "latin1.csv.gz": "sex,race\nF,Caf\xe9\nM,White\n".encode("latin-1"),
        "late-latin1.csv.gz": raw + rows * 2 + b"Jos\xe9" + raw[-200:],
        "nul.csv.gz": b"sex,race\nF,Wh\x00ite\n",
        "long-row.csv.gz": raw + b"1,2,3," * 100 + b"\n",
        "lines.jsonl.gz": b'{"sex": "F", "race": "White"}\n{"sex": "M", "race": "Black"}\n',
        "colon.csv.gz": b"sex:race:age\nF:White:30\n",
        "utf16.csv.gz": "sex,race\nF,White\n".encode("utf-16"),
        "parquet.gz": b"PAR1\x15\x00\x15\x1c\x15\x00\x00\x00PAR1",
    }
    paths = []
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(gzip.compress(data))
        paths.append(path)
    return paths


@pytest.mark.parametrize("where", ["worker", "page-thread", "compare"])
def test_a_gzip_file_whose_contents_fail_is_one_line_at_once(site, tmp_path, where):
    """A gzip file that decompresses but is no CSV (not UTF-8, a NUL byte, a long row,
    JSON lines, a `:` header, UTF-16, Parquet inside): the CLI's one line, at once, on a
    worker, on the page's thread and in the Compare tab; the page never stays on
    "Reading ..." (the inflater was awaited while still open, and never settled)."""
    pg = site(init="window.Worker = undefined;" if where == "page-thread" else None)
    page = pg.page
    if where == "compare":
        page.click("#tab-compare")
        page.set_input_files("#file-a", str(SAMPLES["insurance.csv"]))
    for path in _gzip_of_bad_contents(tmp_path):
        want = cli_error(path)
        assert "Python engine" not in want, want
        if where == "compare":
            page.set_input_files("#file-b", str(path))
            page.click("#run-compare")
            notice = "document.getElementById('compare-notice').textContent"
            wait_js(page, f"() => {notice} === {json.dumps(want)}", 20_000)
            continue
        page.set_input_files("#file", str(path))
        wait_js(page, "() => document.getElementById('error').textContent !== ''", 20_000)
        assert page.text_content("#error") == want, path.name
        assert page.get_attribute("#results", "aria-busy") == "false"
        assert page.is_hidden("#progress-box")
        page.evaluate("document.getElementById('error').textContent = ''")


# Garbage collection while a file is read: Chromium collected a Blob's stream whose read
# was waiting for the file's bytes when only that read's promise referred to it, and the
# read never settled (a part never counted; the page stayed on "Reading ..." with no
# error). A browser of its own with --expose-gc, and a collection every few ms on the
# page and in every worker the page builds (their scripts are Blob URLs of type
# text/javascript), make that interleaving happen on every read.

GC_STORM = """(() => {
  const STORM = 'setInterval(() => { if (self.gc) self.gc(); }, 3);\\n';
  if (window.gc) setInterval(() => window.gc(), 3);
  const make = URL.createObjectURL;
  URL.createObjectURL = function (obj) {
    if (obj instanceof Blob && obj.type === 'text/javascript') {
      obj = new Blob([STORM, obj], { type: obj.type });
    }
    return make.call(URL, obj);
  };
})();"""


@pytest.fixture(scope="module")
def gc_browser(browser):
    b = browser.browser_type.launch(
        executable_path=CHROMIUM, args=["--no-sandbox", "--js-flags=--expose-gc"]
    )
    yield b
    b.close()


def test_reads_end_whatever_the_garbage_collector_does(server, gc_browser, tmp_path):
    """With a garbage collection every 3 ms on the page and in every worker: a small
    file, a file read in parts (its parts' summaries posted to the analysis worker) and
    a gzip file each show their result, and the hash (one more worker's read) ends."""
    import gzip

    big = tmp_path / "insurance-big.csv"
    with big.open("w", encoding="utf-8") as fh:
        insurance_in_parts(fh)
    packed = tmp_path / "compas.csv.gz"
    packed.write_bytes(gzip.compress(compas_bytes()))
    pg = Page(gc_browser, (server + "/", "blob:", "data:"))
    try:
        pg.add_init(GC_STORM)
        page = pg.page
        page.goto(server + "/index.html")
        wait_js(page, "() => document.body.dataset.workers !== undefined")
        assert page.evaluate("typeof window.gc") == "function"
        small_parts(page)
        assert parts_of(page, big) >= 2
        for path in (SAMPLES["insurance.csv"], big, packed):
            before = renders(page)
            page.set_input_files("#file", str(path))
            wait_js(
                page,
                f"() => Number(document.getElementById('results').dataset.renders || 0) > {before}"
                " && document.getElementById('results').dataset.hash === 'done'"
                " || document.getElementById('error').textContent !== ''",
                30_000,
            )
            assert page.text_content("#error") == "", path.name
            assert_shows(page, faircode.profile(str(path), name=path.name))
        assert page.get_attribute("#results", "data-read-parts") == "1"  # the gzip file
        pg.check_clean()
    finally:
        pg.context.close()


def test_a_wide_file_lays_out_no_closed_settings(site, tmp_path):
    """The settings panel holds a kind dropdown per column (and four column lists):
    for 20,000 columns 1.1 million elements, styled and laid out in one task of 5-11 s
    while the panel was closed, and, once not laid out, still made in 3 s. A closed
    panel's controls are not laid out (display: none), and its dropdowns are made when
    it is first opened; the result shows the CLI's numbers (2,000 columns here)."""
    n = 2_000
    path = tmp_path / "wide.csv"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(",".join(f"c{i}" for i in range(n)) + "\n")
        for r in range(20):
            fh.write(",".join(str((r * 7 + i) % 5) for i in range(n)) + "\n")
    pg = site()
    page = pg.page
    load(pg, path, timeout=120_000)
    assert_shows(page, faircode.profile(str(path), name=path.name))
    closed = """() => [document.getElementById('settings').open,
      getComputedStyle(document.getElementById('controls')).display,
      document.getElementById('kinds').getClientRects().length]"""
    assert page.evaluate(closed) == [False, "none", 0]
    made = """() => [document.querySelectorAll('#kinds select').length,
      document.getElementById('label-col').options.length]"""
    assert page.evaluate(made) == [0, 1]
    open_settings(page)
    is_open, display, rects = page.evaluate(closed)
    assert is_open and display != "none" and rects > 0
    assert page.is_visible("#kinds select")
    assert page.evaluate(made) == [n, n + 1]
