"""Run the browser engine (assets/profiler-engine.js) from Python tests.

Node is found on PATH (`node`, version 18 or newer), else through the `nodejs-bin`
package (the `test` extra) as `python -m nodejs`. When neither exists the parity tests
FAIL with instructions: they must never skip silently in CI.

One persistent `node scripts/engine-js.js batch` process serves a whole test session:
requests and answers are JSON lines, so thousands of cases cost one node start-up.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BRIDGE = ROOT / "scripts" / "engine-js.js"
MIN_NODE = 18

NO_NODE = (
    "Node.js 18+ is required for the JS parity tests and was not found. "
    "Install it with `pip install nodejs-bin` (it is in the `test` extra: "
    "`pip install -e .[test]`), or install Node 18+ so that `node` is on PATH."
)


class NodeMissing(RuntimeError):
    pass


def _version_ok(cmd: list[str]) -> bool:
    try:
        out = subprocess.run(cmd + ["--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    text = out.stdout.strip().lstrip("v")
    try:
        return out.returncode == 0 and int(text.split(".")[0]) >= MIN_NODE
    except ValueError:
        return False


def node_command() -> list[str]:
    """The command that runs node: ["node"] or [python, "-m", "nodejs"] (a new list)."""
    return list(_node_command())


@functools.cache
def _node_command() -> tuple[str, ...]:
    """Found once per process: each check starts node (`--version`)."""
    path = shutil.which("node")
    if path and _version_ok([path]):
        return (path,)
    try:
        import nodejs  # noqa: F401  (the nodejs-bin package)
    except ImportError:
        raise NodeMissing(NO_NODE) from None
    cmd = [sys.executable, "-m", "nodejs"]
    if _version_ok(cmd):
        return tuple(cmd)
    raise NodeMissing(NO_NODE)


def _pairs(overrides: dict | None) -> list:
    """Overrides as [column, kind] pairs: a JSON object would let JS reorder
    integer-like column names, and the first bad override is the one reported."""
    return [[k, v] for k, v in (overrides or {}).items()]


class JSEngine:
    """A persistent batch-mode bridge process."""

    def __init__(self) -> None:
        self.cmd = node_command() + [str(BRIDGE), "batch"]
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                self.cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        return self._proc

    def request(self, req: dict) -> dict:
        with self._lock:
            proc = self._start()
            req = dict(req, id=next(self._ids))
            proc.stdin.write(json.dumps(req) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the JS bridge exited (code {proc.poll()})")
            answer = json.loads(line)
            if answer.get("id") != req["id"]:
                raise RuntimeError(f"JS bridge answered out of order: {answer!r}")
            return answer

    def profile_bytes(
        self,
        data: bytes,
        name: str = "t.csv",
        overrides=None,
        opts=None,
        chunk_size: int | None = None,
    ) -> dict:
        """{"result": ...} or {"error": message} (plus "internal": true on a crash)."""
        req = {
            "bytes_b64": base64.b64encode(data).decode("ascii"),
            "name": name,
            "overrides": _pairs(overrides),
            "opts": opts or {},
        }
        if chunk_size:
            req["chunk_size"] = chunk_size
        return self.request(req)

    def profile_path(
        self,
        path: str | Path,
        name: str | None = None,
        overrides=None,
        opts=None,
        chunk_size: int | None = None,
    ) -> dict:
        req = {
            "path": str(path),
            "name": name if name is not None else str(path),
            "overrides": _pairs(overrides),
            "opts": opts or {},
        }
        if chunk_size:
            req["chunk_size"] = chunk_size
        return self.request(req)

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        self._proc = None
