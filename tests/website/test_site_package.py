"""The website's files in a built wheel, the --html report from an installed wheel, and
``faircode serve`` (no browser needed: tests/website/test_site.py drives one)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from faircode.htmlreport import inline_json

ROOT = Path(__file__).resolve().parents[2]
SITE_FILES = ["index.html", "app.js", "views.js", "style.css", "profiler-engine.js"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
        check=True,
        capture_output=True,
        env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"),
    )
    (whl,) = out.glob("faircode-*.whl")
    return whl


def test_wheel_ships_the_site(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        for f in SITE_FILES:
            assert f"faircode/site/{f}" in names, f
        # the engine is the engine itself (site/profiler-engine.js links to assets/)
        engine = z.read("faircode/site/profiler-engine.js")
        assert engine == (ROOT / "assets" / "profiler-engine.js").read_bytes()
        samples = [n for n in names if n.startswith("faircode/site/samples/")]
        assert len(samples) == 5
        assert sum(z.getinfo(n).file_size for n in samples) < 4_000_000


def test_installed_wheel_writes_the_html_report(wheel, tmp_path):
    target = tmp_path / "site-packages"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    out = tmp_path / "report.html"
    env = dict(os.environ, PYTHONPATH=str(target))
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import faircode.htmlreport as h, sys; print(h.site_dir()); "
            "from faircode.cli import main; sys.exit(main(sys.argv[1:]))",
            "profile",
            "--sample",
            "--html",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.splitlines()[0]) == target / "faircode" / "site"
    page = out.read_text(encoding="utf-8")
    views = (ROOT / "site" / "views.js").read_text(encoding="utf-8")
    assert f"<script>{views}</script>" in page
    (csp,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert csp.startswith("default-src 'none'; script-src 'sha256-") and "unsafe" not in csp
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    assert "faircode: wrote the HTML report to" in run.stderr


def test_inline_json_cannot_end_its_script_element():
    hostile = {"label": "</script><script>alert(1)</script>\u2028\u2029<!--"}
    text = inline_json(hostile)
    assert "<" not in text and "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == hostile


def test_html_refuses_to_overwrite_its_input(tmp_path):
    src = tmp_path / "d.csv"
    src.write_text("sex\nF\nM\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "faircode", "profile", str(src), "--html", str(src)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "is an input file" in run.stderr
    assert src.read_text(encoding="utf-8") == "sex\nF\nM\n"


def test_serve_hands_out_the_site_on_localhost():
    proc = subprocess.Popen(
        [sys.executable, "-m", "faircode", "serve", "--port", "0", "--no-open"],
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    try:
        line = proc.stderr.readline()
        assert line.startswith("faircode: serving the site at http://127.0.0.1:"), line
        url = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url) as r:
            assert b"Content-Security-Policy" in r.read()
        with urllib.request.urlopen(url + "profiler-engine.js") as r:
            assert r.headers["Content-Type"].startswith("text/javascript")
            assert r.read() == (ROOT / "assets" / "profiler-engine.js").read_bytes()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
