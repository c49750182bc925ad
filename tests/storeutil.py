"""Helpers for the prediction-store tests: a PostgreSQL server and fresh databases.

The server is ``$FAIRCODE_TEST_PG_URL`` when set; otherwise ``scripts/pg-test-server``
starts a throwaway one when Debian's PostgreSQL binaries are installed. Without either,
the PostgreSQL tests fail when ``$CI`` is set (so CI cannot pass without them) and are
skipped otherwise.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from datafiles import data_file

ROOT = Path(__file__).resolve().parents[1]
PG_SCRIPT = ROOT / "scripts" / "pg-test-server"
COMPAS = data_file("compas-scores-two-years.csv")


def _unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests cannot run: {why}", pytrace=False)
    pytest.skip(f"PostgreSQL tests skipped: {why}")


def pg_server() -> Iterator[str]:
    """Yield a server URL for the session (the body of a session fixture)."""
    if importlib.util.find_spec("psycopg") is None:
        _unavailable("psycopg is missing; pip install 'faircode[postgres]'")
    url = os.environ.get("FAIRCODE_TEST_PG_URL")
    if url:
        yield url
        return
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        _unavailable(
            "set FAIRCODE_TEST_PG_URL or install PostgreSQL (apt-get install -y postgresql)"
        )
    done = subprocess.run([str(PG_SCRIPT)], capture_output=True, text=True, timeout=180)
    if done.returncode != 0:
        pytest.fail(f"scripts/pg-test-server failed: {done.stderr.strip()}", pytrace=False)
    url, directory = done.stdout.split()[:2]
    try:
        yield url
    finally:
        subprocess.run([str(PG_SCRIPT), "stop", directory], capture_output=True, timeout=120)


def fresh_pg_database(server_url: str) -> str:
    """Create an empty database on the server; its URL."""
    import psycopg

    name = "faircode_test_" + uuid.uuid4().hex[:12]
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    base, _, rest = server_url.partition("?")
    head = base.rsplit("/", 1)[0]
    return f"{head}/{name}" + (f"?{rest}" if rest else "")


def require_compas() -> Path:
    if not COMPAS.exists():
        pytest.fail(f"test data missing: {COMPAS}", pytrace=False)
    return COMPAS


# ---- The store tests' fixtures (tests/conftest.py imports them for every test module) ----


@pytest.fixture(scope="session")
def pg_server_url():
    yield from pg_server()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh store: an SQLite file, then a database on the PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "store" / "monitor.db")
    return fresh_pg_database(request.getfixturevalue("pg_server_url"))


@pytest.fixture
def cli(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """Run ``faircode fairness ...`` in-process in tmp_path against ``db`` (no registry
    from the environment): ``cli(*argv) -> (exit code, stdout, stderr)``."""
    from faircode.monitor.cli import run

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAIRCODE_DB", db)
    monkeypatch.setenv("FAIRCODE_ACTOR", "test-operator")
    monkeypatch.delenv("FAIRCODE_REGISTRY", raising=False)

    def call(*argv: str) -> tuple[int, str, str]:
        code = run(["fairness", *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return call
