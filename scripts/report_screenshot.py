"""A screenshot of the `--html` report of the bundled sample (docs/report-sample.png).

Writes `faircode profile --sample --html` into a temporary folder, opens it in Debian's
Chromium through Playwright (no browser is downloaded; the report loads nothing) and
saves the first screen at 1280 x 900 px, light theme: what the README shows.

    PYTHONPATH=. .venv/bin/python scripts/report_screenshot.py [--out docs/report-sample.png]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "report-sample.png")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.html"
        subprocess.run(
            [sys.executable, "-m", "faircode", "profile", "--sample", "--html", str(report)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
            page = ctx.new_page()
            page.goto(report.as_uri())
            page.wait_for_load_state("load")
            page.screenshot(path=str(args.out))
            browser.close()
    print(f"{args.out}: {args.out.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
