"""The website's worker path against PapaParse in the same browser, in one run.

    python benchmarks/browser.py FILE [--repeat N] [--markdown OUT]

Both read FILE through a real file input in Chromium (Debian's /usr/bin/chromium, driven
by Playwright for Python), served from 127.0.0.1:

* ``site``: the website (site/index.html), as a user runs it: the engine on Web Workers,
  the file cut by planParts into one part per core, summaries merged, SHA-256 hashed
  on one more worker, then the analysis and the drawing of the result.
* ``papaparse``: what a web page usually does: PapaParse (benchmarks/node_modules,
  ``npm install --prefix benchmarks papaparse``) in one Web Worker, counting the values
  of the same columns as benchmarks/run.py (a Map per column).

Measured per run, a fresh browser each:

* ``seconds``: the wall time from choosing the file to the result on the page (for
  ``site``, the profile drawn; the page no longer waits for the hash to show it), and
  ``hash_seconds``: to the result *and* the SHA-256 of the file (``site`` only: the
  exported JSON's provenance needs it; Copy and Download JSON wait for it);
* ``renderer_peak_mb``: the renderer process's peak memory (VmHWM of the page's
  renderer, workers included: they are threads of that process);
* ``added_mb``: the workers' added memory, that peak less the same renderer's resident
  memory (VmRSS) after the page has loaded and before the file is chosen;
* ``frame_gap_ms``: the page thread's longest gap between two animation frames while the
  file is read and the result drawn (a page that stays responsive draws a frame every
  ~16 ms); ``frame_gap_hash_ms`` the same until the hash is done too.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from run import DEFAULT_SKIP, header_of  # noqa: E402

CHROMIUM = os.environ.get("FAIRCODE_CHROMIUM", "/usr/bin/chromium")

PAPA_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self';
 worker-src 'self'">
<title>PapaParse baseline</title></head>
<body><input type="file" id="file" aria-label="file"><p id="out"></p>
<script src="bench.js"></script></body></html>
"""

PAPA_MAIN = """'use strict';
const COLS = %s;
document.getElementById('file').addEventListener('change', () => {
  const f = document.getElementById('file').files[0];
  const w = new Worker('papa-worker.js');
  w.onmessage = (ev) => {
    const out = document.getElementById('out');
    out.dataset.rows = String(ev.data.rows);
    out.dataset.labels = JSON.stringify(ev.data.labels);
    out.textContent = ev.data.rows + ' rows';
    out.dataset.done = 'true';
  };
  w.postMessage({ file: f, cols: COLS });
});
"""

PAPA_WORKER = """'use strict';
importScripts('papaparse.min.js');
self.onmessage = (ev) => {
  const { file, cols } = ev.data;
  let idx = null;
  let counts = null;
  let rows = 0;
  Papa.parse(file, {
    chunk(results) {
      for (const row of results.data) {
        if (idx === null) {
          idx = cols.map((c) => row.indexOf(c));
          counts = cols.map(() => new Map());
          continue;
        }
        if (row.length === 1 && row[0] === '') continue;
        rows += 1;
        for (let k = 0; k < idx.length; k++) {
          const v = row[idx[k]];
          const m = counts[k];
          m.set(v, (m.get(v) || 0) + 1);
        }
      }
    },
    complete() {
      self.postMessage({ rows, labels: counts.map((m) => m.size) });
    },
  });
};
"""

GAP_PROBE = """() => { window.__gap = 0; let last = performance.now();
  const tick = (t) => { window.__gap = Math.max(window.__gap, t - last); last = t;
    requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {
            **http.server.SimpleHTTPRequestHandler.extensions_map,
            ".js": "text/javascript",
        }

        def log_message(self, *args) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(root))
    )
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def renderer_memory(browser) -> dict[int, dict[str, float]]:
    """VmRSS and VmHWM (MB) of each of this browser's renderer processes, by pid."""
    cdp = browser.new_browser_cdp_session()
    info = cdp.send("SystemInfo.getProcessInfo")
    out = {}
    for p in info["processInfo"]:
        if p["type"] != "renderer":
            continue
        try:
            status = Path(f"/proc/{p['id']}/status").read_text()
        except OSError:
            continue
        mem = {}
        for line in status.splitlines():
            if line.startswith(("VmHWM:", "VmRSS:")):
                mem[line.split(":")[0]] = int(line.split()[1]) / 1024
        out[p["id"]] = mem
    return out


def added_mb(before: dict, after: dict) -> tuple[float | None, float | None]:
    """The renderer with the largest peak: (its peak, its peak less its resident memory
    before the file was chosen, or None when it was not running then)."""
    if not after:
        return None, None
    pid = max(after, key=lambda p: after[p].get("VmHWM", 0))
    peak = after[pid].get("VmHWM")
    base = before.get(pid, {}).get("VmRSS")
    return peak, None if base is None or peak is None else peak - base


def wait(page, fn: str, timeout: float) -> None:
    """Until fn() is true in the page. The test runs in the page at each animation
    frame and answers once: asking the page every 20 ms from here (a round trip through
    Playwright's driver, the browser and the page's main thread each time) took about
    0.15 CPU-s a second from the site's counting workers (benchmarks/README.md)."""
    page.wait_for_function(fn, polling="raf", timeout=timeout * 1000)


FRAMES_AFTER = 0.3  # seconds waited after an end, so its last frames are counted


def one_run(pw, tool: str, url: str, path: str) -> dict:
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    try:
        page = browser.new_page()
        if tool.startswith("site"):
            page.goto(url + f"/{tool}/index.html")
            wait(page, "() => document.body.dataset.workers !== undefined", 30)
            done = "() => Number(document.getElementById('results').dataset.renders || 0) > 0"
        else:
            page.goto(url + "/papa/index.html")
            done = "() => document.getElementById('out').dataset.done === 'true'"
        time.sleep(1.0)  # the page loaded and settled: its memory before the file
        before = renderer_memory(browser)
        page.evaluate(GAP_PROBE)
        t0 = time.monotonic()
        page.set_input_files("#file", path)
        wait(page, done, 1800)
        wall = time.monotonic() - t0
        time.sleep(FRAMES_AFTER)
        gap = page.evaluate("() => window.__gap")
        out = {"tool": tool, "seconds": wall, "frame_gap_ms": gap}
        if tool.startswith("site"):
            # (a page without data-hash waits for the hash before it shows the result)
            wait(
                page,
                "() => (document.getElementById('results').dataset.hash || 'done') === 'done'",
                1800,
            )
            t = json.loads(page.get_attribute("#results", "data-timings") or "{}")
            later = max(0.0, t.get("hashDone", 0) - t.get("resultShown", 0)) / 1000
            out["hash_seconds"] = wall + later  # the page's own clock from result to hash
            time.sleep(FRAMES_AFTER)
            out["frame_gap_hash_ms"] = page.evaluate("() => window.__gap")
        peak, added = added_mb(before, renderer_memory(browser))
        out["renderer_peak_mb"] = peak
        out["added_mb"] = added
        if tool.startswith("site"):
            out["rows"] = int(
                page.evaluate("() => document.querySelector('.profile-view').dataset.nRows")
            )
            out["parts"] = int(page.get_attribute("#results", "data-read-parts"))
            out["analysed_in"] = page.get_attribute("#results", "data-analysed-in")
            out["timings_ms"] = json.loads(page.get_attribute("#results", "data-timings"))
        else:
            out["rows"] = int(page.get_attribute("#out", "data-rows"))
        return out
    finally:
        browser.close()


def median(values: list[float]) -> float:
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--markdown", metavar="OUT", help="write the table as Markdown")
    ap.add_argument(
        "--before",
        metavar="DIR",
        help="also run the site in DIR (another checkout's site/, e.g. from `git archive`) "
        "as `site-before`, interleaved",
    )
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    papa = HERE / "node_modules" / "papaparse" / "papaparse.min.js"
    if not papa.exists():
        sys.exit("papaparse is not installed: npm install --prefix benchmarks papaparse")
    cols = [c for c in header_of(args.file) if c not in DEFAULT_SKIP]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.symlink(ROOT / "site", root / "site")
        tools = ["site", "papaparse"]
        if args.before:
            os.symlink(Path(args.before).resolve(), root / "site-before")
            tools.insert(1, "site-before")
        (root / "papa").mkdir()
        shutil.copy(papa, root / "papa" / "papaparse.min.js")
        (root / "papa" / "index.html").write_text(PAPA_HTML, encoding="utf-8")
        (root / "papa" / "bench.js").write_text(PAPA_MAIN % json.dumps(cols), encoding="utf-8")
        (root / "papa" / "papa-worker.js").write_text(PAPA_WORKER, encoding="utf-8")
        srv, url = serve(root)
        load = os.getloadavg()
        runs = []
        with sync_playwright() as pw:
            for _ in range(args.repeat):
                for tool in tools:  # interleaved
                    r = one_run(pw, tool, url, args.file)
                    print(json.dumps(r), file=sys.stderr)
                    runs.append(r)
        srv.shutdown()
    size = os.path.getsize(args.file)
    name = f"{Path(args.file).name} ({size / 2**20:,.0f} MB)"
    by = {tool: [r for r in runs if r["tool"] == tool] for tool in tools}

    def med(tool: str, key: str) -> float | None:
        vals = [r[key] for r in by[tool] if r.get(key) is not None]
        return median(vals) if vals else None

    def worst(tool: str, key: str) -> float | None:
        vals = [r[key] for r in by[tool] if r.get(key) is not None]
        return max(vals) if vals else None

    def cell(x: float | None, fmt: str) -> str:
        return "" if x is None else format(x, fmt)

    lines = [
        "| file | tool | result shown (s) | MB/s | result and hash (s) | renderer peak (MB) "
        "| workers' added memory (MB) | longest frame gap (ms) | rows |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for tool in tools:
        secs = med(tool, "seconds")
        gap = cell(worst(tool, "frame_gap_ms"), ".0f")
        gap_hash = worst(tool, "frame_gap_hash_ms")
        if gap_hash is not None:
            gap += f" ({gap_hash:.0f} to the hash)"
        hash_s = cell(med(tool, "hash_seconds"), ".2f")
        peak = cell(worst(tool, "renderer_peak_mb"), ".0f")
        added = cell(worst(tool, "added_mb"), ".0f")
        lines.append(
            f"| {name} | {tool} | {secs:.2f} | {size / 1e6 / secs:.1f} | {hash_s} | {peak} | "
            f"{added} | {gap} | {by[tool][0]['rows']:,} |"
        )
    papa_s = med("papaparse", "seconds")
    lines.append("")
    for tool in tools[:-1]:
        lines.append(
            f"{tool} throughput over PapaParse: {papa_s / med(tool, 'seconds'):.2f}x to the "
            f"result shown, {papa_s / med(tool, 'hash_seconds'):.2f}x to the result and the hash."
        )
    for tool in tools[:-1]:
        timings = [r.get("timings_ms", {}) for r in by[tool]]
        keys = sorted({k for t in timings for k in t})
        if keys:
            meds = [f"{k} {median([t[k] for t in timings if k in t]):.0f}" for k in keys]
            lines.append("")
            lines.append(f"Page timings of `{tool}` (ms, median): " + ", ".join(meds) + ".")
    if args.repeat > 1:
        rounds = []
        for tool in tools:
            each = [
                f"{r['seconds']:.2f}" + (f"/{r['hash_seconds']:.2f}" if "hash_seconds" in r else "")
                for r in by[tool]
            ]
            rounds.append(f"{tool} " + ", ".join(each))
        lines.append("")
        lines.append("Rounds (s; site: result/hash): " + "; ".join(rounds) + ".")
    lines.append("")
    lines.append(
        f"Chromium {Path(CHROMIUM).name}, {os.cpu_count()} CPUs, {platform.platform()}; "
        f"load average at start {tuple(round(x, 2) for x in load)}, "
        f"at the end {tuple(round(x, 2) for x in os.getloadavg())}; "
        f"median of {args.repeat} interleaved run(s)."
    )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
