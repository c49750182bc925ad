"""Processes that use Arrow exit as soon as their work is done.

The test command once hung after pytest's summary, in Arrow's ThreadPool::Shutdown during
interpreter exit. The cause was ours: when the fast path fell back, the exception a
parsing thread handed over kept that thread's frames, and with them its Arrow CSV reader
(whose read-ahead calls our Python stream from Arrow's IO pool), alive in a reference
cycle. The garbage collector then freed the reader at an arbitrary moment on an arbitrary
thread, sometimes during interpreter exit, when the IO pool can no longer take the GIL.
"""

from __future__ import annotations

import gc
import io
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from util import ROOT, data_file

pa = pytest.importorskip("pyarrow")

from faircode import fastpath  # noqa: E402
from faircode.options import resolve  # noqa: E402

GOOD = b"sex,race,age\n" + b'M,A,34\nF,B,20\n"x\ny",C,1\n' * 5000
BODY = GOOD[len(b"sex,race,age\n") :]
CASES = {
    "clean": GOOD,
    "nul": GOOD + b"M,\x00,1\n" + BODY,
    "invalid utf-8": GOOD + b"M,\xff,1\n" + BODY,
    "long row": GOOD + b"M,A,1,2\n" + BODY,
    "short row": GOOD + b"M\n" + BODY,
    "unterminated quote": GOOD + b'"M,A,1\nF,B,2\n',  # the quote never closes
}


def _readers_alive() -> int:
    return sum(isinstance(o, pa.RecordBatchReader) for o in gc.get_objects())


@pytest.mark.parametrize("parts", [1, 2, 3])
@pytest.mark.parametrize("case", sorted(CASES))
def test_no_arrow_reader_or_thread_outlives_a_read(case, parts):
    """Deterministic form of the hang's cause: with the garbage collector off, nothing of
    a read (Arrow reader, reading thread) is left once summarize_csv returns."""
    gc.collect()
    before = _readers_alive()
    gc.disable()
    try:
        got = fastpath.summarize_csv(
            io.BytesIO(CASES[case]), "t.csv", None, resolve(None), block_size=4096, parts=parts
        )
        assert isinstance(got, fastpath.Fallback) == (case not in ("clean", "short row"))
        assert _readers_alive() == before
        assert not [t.name for t in threading.enumerate() if t.name.startswith("faircode")]
    finally:
        gc.enable()


WORK = textwrap.dedent("""
    import gc, io, sys
    gc.disable()  # leave every reference cycle to the interpreter's exit, as a worst case
    import faircode
    from faircode import fastpath
    from faircode.options import resolve
    import pyarrow as pa, pyarrow.parquet as pq
    cases = {cases!r}
    for round_ in range({rounds}):
        for data in cases.values():
            for parts in (1, 2):
                fastpath.summarize_csv(io.BytesIO(data), "t.csv", None, resolve(None),
                                       block_size=4096, parts=parts)
    faircode.profile({sample!r}, engine="fast")
    parquet, arrow = {parquet!r} + sys.argv[1], {arrow!r} + sys.argv[1]  # one per process
    table = pa.table({{"sex": ["M", "F"] * 500, "race": ["A", "B", "C", "D"] * 250}})
    pq.write_table(table, parquet, row_group_size=100)
    faircode.profile(parquet)
    with pa.OSFile(arrow, "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    faircode.profile(arrow)
    faircode.profile(table)
    try:
        import polars
        faircode.profile(polars.from_arrow(table))
    except ImportError:
        pass
    print("work done", flush=True)
""")


def test_processes_using_arrow_exit_promptly(tmp_path):
    """The issue's check: the fast path and every Arrow-backed format, in fresh processes,
    many times; each must exit within seconds of finishing its work."""
    script = tmp_path / "work.py"
    script.write_text(
        WORK.format(
            cases=CASES,
            rounds=3,
            sample=str(data_file("compas-scores-two-years.csv")),
            parquet=str(tmp_path / "t.parquet"),
            arrow=str(tmp_path / "t.arrow"),
        )
    )
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(i)],
            cwd=ROOT,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(8)
    ]
    hung = []
    for proc in procs:
        line = proc.stdout.readline()  # blocks until the work is done (or the process died)
        done_at = time.monotonic()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            hung.append(f"still alive {time.monotonic() - done_at:.0f} s after {line!r}")
            continue
        assert line == "work done\n", proc.stderr.read()
        assert proc.returncode == 0, proc.stderr.read()
    assert not hung, hung
