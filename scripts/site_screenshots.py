"""Screenshots of the website's result for COMPAS at 1280 and 375 px (docs/site-*.png).

Serves this tree's site/ on a free local port, opens it in Debian's Chromium through
Playwright (no browser is downloaded), presses the COMPAS sample and, once the result
is drawn, saves the viewport (not the whole page) at each width: what a visitor sees
first after a file is read. Light theme, so the images do not follow the machine's.

    PYTHONPATH=. .venv/bin/python scripts/site_screenshots.py [--out docs] [--full]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faircode.serve import make_server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
SIZES = {1280: 800, 375: 812}  # width: viewport height (a laptop, a phone)


def wait_js(page, fn: str, timeout: float = 60.0) -> None:
    # the page's CSP forbids eval, so no wait_for_function: poll page.evaluate
    end = time.monotonic() + timeout
    while not page.evaluate(fn):
        if time.monotonic() > end:
            raise TimeoutError(fn)
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs", help="folder (default: docs/)")
    ap.add_argument("--full", action="store_true", help="the whole page, not the viewport")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    srv = make_server(0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/index.html"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            for width, height in SIZES.items():
                ctx = browser.new_context(
                    viewport={"width": width, "height": height}, color_scheme="light"
                )
                page = ctx.new_page()
                page.goto(url)
                wait_js(page, "() => document.body.dataset.workers !== undefined")
                page.click("button.sample[data-name='compas-scores-two-years.csv']")
                wait_js(
                    page,
                    "() => Number(document.getElementById('results').dataset.renders || 0) > 0"
                    " && document.getElementById('results').dataset.hash === 'done'",
                )
                page.evaluate("() => window.scrollTo(0, 0)")
                out = args.out / f"site-{width}.png"
                page.screenshot(path=str(out), full_page=args.full)
                print(f"{out}: {out.stat().st_size:,} bytes")
                ctx.close()
            browser.close()
    finally:
        srv.shutdown()
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
