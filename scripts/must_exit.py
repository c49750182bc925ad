#!/usr/bin/env python3
"""Run a test command; fail loudly if it is still alive shortly after its summary line.

    scripts/must_exit.py [--grace SECONDS] -- COMMAND [ARGS...]

The command's output passes through unchanged. Once a line looks like a test runner's
closing summary (pytest's `N passed ... in 12.3s`, node's `# fail N` / `ℹ fail N`), the
command has GRACE seconds (default 30) to exit. A process that hangs at interpreter exit
(seen with pyarrow's thread pools) is past any per-test timeout: without this it would
hang until CI's limit. On such a hang the native stacks of the process are printed (when
gdb is installed) so the report shows where it hung, the process group is killed and
the exit code is 1. Otherwise the command's own exit code is returned.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading

SUMMARY = re.compile(r"(^=*\s*\d+ (passed|failed|error)\b.* in [\d.]+s)|(^(# |ℹ )fail \d+\s*$)")


def main(argv: list[str]) -> int:
    grace = 30.0
    if argv[:1] == ["--grace"]:
        grace, argv = float(argv[1]), argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        sys.stderr.write(__doc__ or "")
        return 2
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    # Terminated (scripts/check stopping early, a CI time limit): the command's whole
    # process group goes too, as on Ctrl-C, so no test keeps running unseen.
    signal.signal(signal.SIGTERM, lambda *_: _stop(proc, 143))
    summary_seen = threading.Event()

    def relay() -> None:
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
            if SUMMARY.search(raw.decode("utf-8", "replace").strip()):
                summary_seen.set()

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    try:
        while True:
            try:
                return _finish(proc, reader)
            except subprocess.TimeoutExpired:
                pass
            if summary_seen.wait(timeout=1.0):
                try:
                    proc.wait(timeout=grace)
                    return _finish(proc, reader)
                except subprocess.TimeoutExpired:
                    return _hung(proc, argv, grace)
    except KeyboardInterrupt:
        os.killpg(proc.pid, signal.SIGKILL)
        return 130


def _stop(proc: subprocess.Popen, code: int) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os._exit(code)


def _finish(proc: subprocess.Popen, reader: threading.Thread) -> int:
    code = proc.wait(timeout=0.5)
    reader.join(timeout=5)
    return code


def _hung(proc: subprocess.Popen, argv: list[str], grace: float) -> int:
    sys.stdout.flush()
    sys.stderr.write(
        f"\nmust_exit: `{' '.join(argv)}` printed its summary but was still "
        f"running {grace:g} s later (a hang at exit); native stacks follow\n"
    )
    if shutil.which("gdb"):
        for pid in _processes_of(proc.pid):
            subprocess.run(
                ["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 30"],
                stdout=sys.stderr,
                stderr=subprocess.DEVNULL,
                timeout=60,
                check=False,
            )
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    sys.stderr.write("must_exit: killed; failing the run\n")
    return 1


def _processes_of(pid: int) -> list[int]:
    """pid and its descendants (the test runner may run under a wrapper)."""
    out = [pid]
    try:
        kids = subprocess.run(
            ["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False
        ).stdout.split()
    except FileNotFoundError:
        return out
    for kid in kids:
        out.extend(_processes_of(int(kid)))
    return out


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
