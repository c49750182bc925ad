"""Where the website's CPU goes while it profiles a file, by Chromium process and thread.

    python benchmarks/site_cpu.py FILE [--repeat N]

The site (site/index.html, served from 127.0.0.1 as benchmarks/browser.py serves it) is
given FILE through its real file input in Debian's Chromium, driven by Playwright. The
CPU time of every Chromium process (from /proc/PID/stat, which keeps the time of
threads that have ended, such as a part's worker) and of each live thread by name is
read just before the file is chosen and once the result is drawn; the differences are
printed, largest first. Chromium names its threads: `DedicatedWorker` (the engine's
workers), `ThreadPoolForeg` (in the renderer: V8's concurrent GC and compilation; in
the browser: reading the file), `Chrome_IOThread` (IPC), the page's main thread as
`chromium`.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from browser import CHROMIUM, GAP_PROBE, serve, wait  # noqa: E402
from where import cpu_seconds  # noqa: E402


def sample(processes: dict[int, str]) -> collections.Counter:
    """CPU seconds by (process type, 'all') and by (process type, thread name)."""
    out: collections.Counter = collections.Counter()
    for pid, kind in processes.items():
        try:
            out[(kind, "all", pid)] += cpu_seconds(Path(f"/proc/{pid}/stat").read_text())
            for tid in os.listdir(f"/proc/{pid}/task"):
                stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
                name = stat[stat.index("(") + 1 : stat.rindex(")")]
                out[(kind, name, int(tid))] += cpu_seconds(stat)
        except OSError:  # a process or thread that ended meanwhile
            continue
    return out


def one_run(pw, url: str, path: str) -> tuple[float, collections.Counter]:
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    try:
        page = browser.new_page()
        page.goto(url + "/site/index.html")
        wait(page, "() => document.body.dataset.workers !== undefined", 30)
        time.sleep(1.0)
        info = browser.new_browser_cdp_session().send("SystemInfo.getProcessInfo")
        processes = {p["id"]: p["type"] for p in info["processInfo"]}
        page.evaluate(GAP_PROBE)  # as browser.py measures: its frames are part of the cost
        before = sample(processes)
        t0 = time.monotonic()
        page.set_input_files("#file", path)
        wait(page, "() => Number(document.getElementById('results').dataset.renders || 0) > 0", 600)
        wall = time.monotonic() - t0
        after = sample(processes)
    finally:
        browser.close()
    spent: collections.Counter = collections.Counter()
    for (kind, name, ident), secs in after.items():
        spent[(kind, name)] += secs - before.get((kind, name, ident), 0.0)
    return wall, spent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.symlink(ROOT / "site", root / "site")
        srv, url = serve(root)
        with sync_playwright() as pw:
            for _ in range(args.repeat):
                wall, spent = one_run(pw, url, args.file)
                total = sum(v for (kind, name), v in spent.items() if name == "all")
                print(f"result shown at {wall:.2f} s; {total:.2f} CPU-s in all Chromium processes")
                for (kind, name), secs in spent.most_common():
                    if secs >= 0.02:
                        print(f"  {secs:6.2f}  {kind:12s} {name}")
        srv.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
