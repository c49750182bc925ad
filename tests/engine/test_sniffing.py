"""Inputs told by their first bytes, whatever their name (issue 25, item 7): a
gzip-compressed CSV is read as it is decompressed, an Arrow IPC stream as Arrow."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys

import pytest

import faircode
from faircode import InputError

pa = pytest.importorskip("pyarrow")

SEX = ["M", "F", "M", "F", "M", "F"]

CSV = b"sex,race\nM,a\nF,b\nM,a\nF,c\n"


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "faircode", *args], input=stdin, capture_output=True, timeout=120
    )


@pytest.mark.parametrize("name", ["x.csv.gz", "x.csv", "noext"])
def test_gzip_csv_is_read_streaming(tmp_path, name):
    f = tmp_path / name
    f.write_bytes(gzip.compress(CSV[:9]) + gzip.compress(CSV[9:]))  # two members
    plain = tmp_path / "plain.csv"
    plain.write_bytes(CSV)
    seen = []
    r = faircode.profile(f, on_bytes=seen.append)  # was: byte 1: not valid UTF-8
    assert r == faircode.profile(plain)
    assert b"".join(seen) == f.read_bytes()  # the hash is of the file's own bytes
    p = cli("profile", str(f), "--json")
    assert p.returncode == 0, p.stderr
    piped = cli("profile", "-", "--json", stdin=f.read_bytes())
    assert piped.returncode == 0 and piped.stdout == p.stdout.replace(str(f).encode(), b"<stdin>")


def test_gzip_errors_are_one_line(tmp_path):
    whole = gzip.compress(CSV)
    cases = {
        "cut.csv.gz": (whole[:20], "cut.csv.gz: not a readable gzip file (Compressed file ended"),
        "tail.csv.gz": (
            whole + b"junk",
            "tail.csv.gz: not a readable gzip file (Not a gzipped file",
        ),
        "bad.csv.gz": (gzip.compress(b"sex\nM\n\xff\n"), "bad.csv.gz: byte 6: not valid UTF-8"),
    }
    for name, (data, want) in cases.items():
        f = tmp_path / name
        f.write_bytes(data)
        p = cli("profile", str(f))
        assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
        assert p.stderr.decode().startswith("faircode: error: " + str(tmp_path / want)), p.stderr


def test_arrow_ipc_stream_named_csv_is_read_as_arrow(tmp_path):
    t = pa.table({"sex": SEX, "race": ["a", "b", "a", "b", "a", "b"]})
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    f = tmp_path / "s.csv"
    f.write_bytes(sink.getvalue())
    assert faircode.profile(f) == faircode.profile(t) | {}  # was: byte 0: not valid UTF-8
    p = cli("profile", "-", "--json", stdin=f.read_bytes())
    assert p.returncode == 0, p.stderr
    broken = tmp_path / "broken.csv"
    broken.write_bytes(sink.getvalue()[:40])
    with pytest.raises(InputError, match=r"broken.csv: not a readable Arrow IPC file \("):
        faircode.profile(broken)


def test_gzip_file_object_is_read_too(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_bytes(CSV)
    want = faircode.profile(plain)
    assert faircode.profile(io.BytesIO(gzip.compress(CSV))) == want  # seekable
    with open(plain, "rb") as fh:  # a plain file object reads as before
        assert faircode.profile(fh) == want

    class Pipe(io.RawIOBase):  # not seekable, one byte per read
        def __init__(self, data: bytes) -> None:
            self.data = data

        def readable(self) -> bool:
            return True

        def readinto(self, buf) -> int:
            n = min(1, len(self.data))
            buf[:n], self.data = self.data[:n], self.data[n:]
            return n

    assert faircode.profile(Pipe(gzip.compress(CSV))) == want
    assert faircode.profile(Pipe(CSV)) == want
