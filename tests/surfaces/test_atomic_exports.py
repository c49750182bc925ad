"""Atomic exports (SPEC 6.1): every file faircode writes (--html, --csv PATH, --markdown
PATH of profile, compare and fairness evaluate) goes to a temporary file in the target's
directory, is flushed to the disk and renamed into place. A failed write (a full disk, an
I/O error) leaves the old file as it was and no partial, empty or temporary file, and its
one error line names the cause instead of "check the directory exists".

The full disk is simulated in-process (every write under one directory past a budget of
free bytes fails with ENOSPC, through open() and os.write alike) and, when the tests run
as root, is a real 64 KiB tmpfs.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from faircode.cli import main

PY = [sys.executable, "-m", "faircode"]
DATA = "sex,race,age\nM,White,30\nF,Black,40\nF,Asian,50\nM,White,22\n"
PREDS = "g,pred\nA,1\nB,0\nA,0\nB,1\n"
OLD = b"<!-- the old report: still valid -->\n"
FLAGS = ("--html", "--csv", "--markdown")


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def d(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "in" / "a.csv").write_text(DATA)
    (tmp_path / "in" / "b.csv").write_text(DATA.replace("M,White,22", "M,Black,22"))
    (tmp_path / "in" / "p.csv").write_text(PREDS)
    return tmp_path


def command(d: Path, which: str) -> list[str]:
    """The arguments of one command of each kind that writes files."""
    return {
        "profile": ["profile", str(d / "in" / "a.csv")],
        "compare": ["compare", str(d / "in" / "a.csv"), str(d / "in" / "b.csv")],
        "evaluate": [
            "fairness",
            "evaluate",
            str(d / "in" / "p.csv"),
            "--pred",
            "pred",
            "--attr",
            "g",
            "--engine",
            "pandas",
        ],
    }[which]


class FullDisk:
    """A disk with ``free`` bytes left under ``where``: a write there past the budget
    writes what fits and then fails with ENOSPC, whether it goes through open() (text or
    binary) or os.write; ``fsync_errno`` makes os.fsync of a file there fail too."""

    def __init__(self, where: Path, free: int, fsync_errno: int | None = None) -> None:
        self.where = str(where.resolve()) + os.sep
        self.free = free
        self.fsync_errno = fsync_errno
        self.real_open, self.real_write, self.real_fsync = builtins.open, os.write, os.fsync

    def _mine(self, path: object) -> bool:
        return os.path.realpath(os.fspath(path)).startswith(self.where)  # type: ignore[arg-type]

    def _fd_mine(self, fd: int) -> bool:
        try:
            return self._mine(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            return False

    def _take(self, n: int) -> int:
        if self.free <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = min(n, self.free)
        self.free -= n
        return n

    def open(self, file, mode="r", *args, **kwargs):
        fh = self.real_open(file, mode, *args, **kwargs)
        if isinstance(file, (str, os.PathLike)) and set(mode) & set("wax+") and self._mine(file):
            return _Limited(fh, self)
        return fh

    def write(self, fd: int, data) -> int:
        if not self._fd_mine(fd):
            return self.real_write(fd, data)
        n = self._take(len(data))
        return self.real_write(fd, bytes(data)[:n])

    def fsync(self, fd: int) -> None:
        if self.fsync_errno is not None and self._fd_mine(fd):
            raise OSError(self.fsync_errno, os.strerror(self.fsync_errno))
        self.real_fsync(fd)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(builtins, "open", self.open)
        monkeypatch.setattr(io, "open", self.open)  # pathlib's
        monkeypatch.setattr(os, "write", self.write)
        monkeypatch.setattr(os, "fsync", self.fsync)


class _Limited:
    """A file object of FullDisk.open: writes count against the budget."""

    def __init__(self, fh, disk: FullDisk) -> None:
        self._fh, self._disk = fh, disk

    def write(self, s):
        data = s.encode("utf-8") if isinstance(s, str) else bytes(s)
        n = self._disk._take(len(data))
        if n < len(data):
            self._fh.write(s[:n])
            self._fh.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self._fh.write(s)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()

    def __getattr__(self, name):
        return getattr(self._fh, name)


def assert_one_write_error(code: int, err: str, target: Path, cause: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert lines and lines[-1].startswith("faircode: error: cannot write"), err
    assert str(target) in lines[-1] and cause in lines[-1], err
    assert "check the directory exists" not in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("which", ["profile", "compare", "evaluate"])
@pytest.mark.parametrize("flag", FLAGS)
def test_a_full_disk_keeps_the_old_file(d, capsys, monkeypatch, which, flag):
    target = d / "out" / f"report{flag.replace('--', '.')}"
    target.write_bytes(OLD)
    target.chmod(0o640)
    FullDisk(d / "out", free=100).install(monkeypatch)
    code, _, err = run(capsys, *command(d, which), flag, target)
    monkeypatch.undo()
    assert_one_write_error(code, err, target, "No space left on device")
    assert target.read_bytes() == OLD  # not truncated, not a partial report
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in (d / "out").iterdir()) == [target.name]  # no temporary


@pytest.mark.parametrize("flag", FLAGS)
def test_a_full_disk_leaves_no_file_when_there_was_none(d, capsys, monkeypatch, flag):
    target = d / "out" / "new.out"
    FullDisk(d / "out", free=0).install(monkeypatch)
    code, _, err = run(capsys, *command(d, "profile"), flag, target)
    monkeypatch.undo()
    assert_one_write_error(code, err, target, "No space left on device")
    assert list((d / "out").iterdir()) == []  # no 0-byte file, no temporary


@pytest.mark.parametrize("flag", FLAGS)
def test_an_io_error_at_fsync_keeps_the_old_file(d, capsys, monkeypatch, flag):
    """The data reaches the disk before the rename: an error then (EIO) is a failure."""
    target = d / "out" / "report.out"
    target.write_bytes(OLD)
    FullDisk(d / "out", free=10**9, fsync_errno=errno.EIO).install(monkeypatch)
    code, _, err = run(capsys, *command(d, "profile"), flag, target)
    monkeypatch.undo()
    assert_one_write_error(code, err, target, "Input/output error")
    assert target.read_bytes() == OLD
    assert sorted(p.name for p in (d / "out").iterdir()) == [target.name]


@pytest.mark.parametrize("which", ["profile", "compare", "evaluate"])
def test_a_missing_directory_still_says_so(d, capsys, which):
    """... before anything is read or printed (SPEC 6.1): no report, then exit 2."""
    target = d / "out" / "no" / "such" / "report.html"
    for flag in FLAGS:
        code, out, err = run(capsys, *command(d, which), flag, target)
        assert code == 2 and err.count("\n") == 1, err
        assert "No such file or directory" in err and "check the directory exists" in err
        assert out == "", flag


def test_an_output_that_cannot_be_written_is_refused_before_reading(d, capsys):
    """A directory as PATH, a file in a file, a directory that takes no file (SPEC 6.1)."""
    (d / "out" / "file").write_text("x")
    cases = [(d / "out", "Is a directory"), (d / "out" / "file" / "x.csv", "Not a directory")]
    locked = d / "locked"
    locked.mkdir(mode=0o500)
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):  # root may write anywhere
        cases.append((locked / "x.csv", "Permission denied"))
    for target, cause in cases:
        for flag in FLAGS:
            code, out, err = run(capsys, *command(d, "profile"), flag, target)
            assert code == 2 and out == "" and err.count("\n") == 1, (flag, target, err)
            assert "cannot write the" in err and cause in err, err


def test_a_rewrite_keeps_the_mode_and_a_new_file_follows_the_umask(d, capsys):
    old = d / "out" / "old.csv"
    old.write_bytes(OLD)
    old.chmod(0o604)
    new = d / "out" / "new.md"
    mask = os.umask(0o027)
    try:
        code, _, err = run(capsys, *command(d, "profile"), "--csv", old, "--markdown", new)
    finally:
        os.umask(mask)
    assert code == 0, err
    assert old.read_bytes() != OLD and old.read_bytes().startswith(b"section,")
    assert stat.S_IMODE(old.stat().st_mode) == 0o604
    assert stat.S_IMODE(new.stat().st_mode) == 0o640
    assert sorted(p.name for p in (d / "out").iterdir()) == ["new.md", "old.csv"]


def test_a_read_only_file_is_not_replaced(d, capsys):
    """A report the user made read-only stays: as open() for writing refused it before."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root may write a read-only file")
    target = d / "out" / "keep.csv"
    target.write_bytes(OLD)
    target.chmod(0o444)
    code, _, err = run(capsys, *command(d, "profile"), "--csv", target)
    assert code == 2 and "Permission denied" in err, err
    assert target.read_bytes() == OLD


def test_a_symbolic_link_is_written_through(d, capsys):
    real = d / "out" / "real.html"
    real.write_bytes(OLD)
    link = d / "out" / "link.html"
    link.symlink_to(real)
    code, _, err = run(capsys, *command(d, "profile"), "--html", link)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes().startswith(b"<!DOCTYPE html>")
    assert sorted(p.name for p in (d / "out").iterdir()) == ["link.html", "real.html"]


def test_a_fifo_is_written_not_replaced(d, capsys):
    """A special file (a FIFO here; /dev/null, /dev/stdout alike) is written in place."""
    fifo = d / "out" / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    try:
        code, _, err = run(capsys, *command(d, "profile"), "--csv", fifo)
    finally:
        reader.join(20)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got and got[0].startswith(b"section,")


def test_the_helper_writes_whole_files_only(tmp_path, monkeypatch):
    from faircode.atomic import write_text

    target = tmp_path / "t.txt"
    write_text(str(target), "first\n")
    assert target.read_text() == "first\n"
    write_text(str(target), "zweite Fassung é\n")
    assert target.read_text(encoding="utf-8") == "zweite Fassung é\n"
    FullDisk(tmp_path, free=3).install(monkeypatch)
    with pytest.raises(OSError) as exc:
        write_text(str(target), "third, too long for the disk\n")
    monkeypatch.undo()
    assert exc.value.errno == errno.ENOSPC
    assert target.read_text(encoding="utf-8") == "zweite Fassung é\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.txt"]


# ---------------------------------------------------------------- a real full disk


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "64k"):
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)


def fill(where: Path) -> None:
    """Fill the file system of ``where`` to the last byte."""
    with open(where / "filler", "wb", buffering=0) as fh:
        for size in (1 << 16, 4096, 512, 64, 1):
            with contextlib.suppress(OSError):
                while True:
                    fh.write(b"x" * size)


def test_a_real_full_tmpfs_keeps_every_old_file(d):
    """The issue's case: reports rewritten on a full disk. The old files are small, the
    new ones do not fit in the space they and the rest of the disk free."""
    with tmpfs(d / "full") as full:
        many = d / "in" / "many.csv"  # a table with 300 groups: a CSV export past 8 KiB
        many.write_text(
            "state,sex\n" + "".join(f"S{i:03d},{'MF'[i % 2]}\n" for i in range(300)) * 2
        )
        targets = {flag: full / f"old{flag.replace('--', '.')}" for flag in FLAGS}
        for target in targets.values():
            target.write_bytes(OLD)
        fill(full)
        for flag, target in targets.items():
            p = subprocess.run(
                [*PY, "profile", str(many), "--map", "state=geography", flag, str(target)],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert_one_write_error(p.returncode, p.stderr, target, "No space left on device")
            assert target.read_bytes() == OLD, flag
        names = sorted(p.name for p in full.iterdir())
        assert names == sorted(["filler", *(t.name for t in targets.values())])


@pytest.mark.parametrize("which", ["profile", "compare", "evaluate"])
def test_a_report_file_is_the_format_on_stdout(d: Path, capsys, which: str) -> None:
    """--markdown/--csv/--html PATH write the bytes --format markdown/csv/html prints
    (tests/website/test_site.py reads the files where it once ran --format per form)."""
    args = command(d, which) + ["--no-provenance"] * (which != "evaluate")
    out = d / "out"
    code, text, err = run(
        capsys, *args, "--markdown", out / "r.md", "--csv", out / "r.csv", "--html", out / "r.html"
    )
    assert code == 0, err
    assert text and text == run(capsys, *args)[1]  # the usual report still prints
    for flag, name in (("markdown", "r.md"), ("csv", "r.csv"), ("html", "r.html")):
        code, printed, err = run(capsys, *args, "--format", flag)
        assert code == 0, err
        assert (out / name).read_bytes().decode("utf-8") == printed, flag
