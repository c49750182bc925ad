"""Concurrency and faults with real processes on one SQLite store (SPEC 15.8)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import storeutil

from faircode.monitor.store import open_store


def _batch(path: Path, prefix: str, n: int) -> None:
    rng = np.random.default_rng(len(prefix) + n)
    pd.DataFrame(
        {
            "rid": [f"{prefix}{i}" for i in range(n)],
            "race": rng.choice(["a", "b", "c"], n),
            "pred": rng.integers(0, 2, n),
        }
    ).to_csv(path, index=False)


def _log(db: Path | str, path: Path, version: str, **popen: object) -> subprocess.Popen:
    env = {**os.environ, "FAIRCODE_DB": str(db), **popen.pop("env", {})}  # type: ignore[dict-item]
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "faircode.monitor",
            "fairness",
            "log",
            "m",
            str(path),
            "--version",
            version,
            "--id",
            "rid",
            "--pred",
            "pred",
            "--attr",
            "race",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def test_two_processes_logging_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    n = 120_000
    paths = []
    for k in range(3):
        p = tmp_path / f"b{k}.csv"
        _batch(p, f"p{k}-", n)
        paths.append(p)
    procs = [_log(db, p, f"v{k}") for k, p in enumerate(paths)]
    results = [proc.communicate(timeout=300) for proc in procs]
    for proc, (_, err) in zip(procs, results):
        assert proc.returncode == 0, err
    store = open_store(str(db))
    try:
        assert store.one("SELECT COUNT(*) FROM predictions") == 3 * n
        assert store.one("SELECT COUNT(DISTINCT batch) FROM predictions") == 3
        assert store.one("SELECT COUNT(*) FROM attr_values") == 3  # a, b, c once each
    finally:
        store.close()


def test_a_process_killed_mid_batch_leaves_nothing_behind(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    path = tmp_path / "big.csv"
    _batch(path, "k", 130_000)  # three chunks of at most 50,000 rows
    proc = _log(db, path, "v1", env={"FAIRCODE_TEST_INGEST_PAUSE": "60"})
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    line = ""
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if "paused after 50000 rows" in line or not line:
            break
    assert "paused after 50000 rows" in line, line
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    store = open_store(str(db))
    try:
        assert store.one("SELECT COUNT(*) FROM predictions") == 0
        assert store.one("SELECT COUNT(*) FROM batches") == 0
    finally:
        store.close()
    again = _log(db, path, "v1")
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    store = open_store(str(db))
    try:
        assert store.one("SELECT COUNT(*) FROM predictions") == 130_000
    finally:
        store.close()


def test_progress_goes_to_a_terminal_only(tmp_path: Path) -> None:
    import pty

    path = tmp_path / "p.csv"
    _batch(path, "t", 120_000)
    quiet = _log(tmp_path / "a.db", path, "v1")
    _, err = quiet.communicate(timeout=300)
    assert quiet.returncode == 0 and "logged 120000" in err and "/120,000" not in err
    master, slave = pty.openpty()
    env = {**os.environ, "FAIRCODE_DB": str(tmp_path / "b.db")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "faircode.monitor",
            "fairness",
            "log",
            "m",
            str(path),
            "--version",
            "v1",
            "--id",
            "rid",
            "--pred",
            "pred",
            "--attr",
            "race",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=300)
    os.close(master)
    assert proc.returncode == 0
    assert b"50,000/120,000 rows" in seen and b"120,000/120,000 rows" in seen


def test_postgresql_concurrent_batches_and_one_batch_sent_twice(
    tmp_path: Path, pg_server_url: str
) -> None:
    url = storeutil.fresh_pg_database(pg_server_url)
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    _batch(a, "a", 60_000)
    _batch(b, "b", 60_000)
    procs = [_log(url, p, "v1") for p in (a, a, b)]
    results = [proc.communicate(timeout=300) for proc in procs]
    for proc, (_, err) in zip(procs, results):
        assert proc.returncode == 0, err
    assert sum("already logged" in err for _, err in results) == 1
    store = open_store(url)
    try:
        assert store.one("SELECT COUNT(*) FROM predictions") == 120_000
        assert store.one("SELECT COUNT(*) FROM batches") == 2
    finally:
        store.close()
