"""The files faircode writes (an --html report, a --csv or --markdown export): the one
home of how they are written and of which paths they may not take (SPEC 6.1).

:func:`write_text` writes the whole text to a temporary file in the target's directory,
flushes it to the disk (fsync) and renames it over the target (``os.replace``, atomic on
POSIX). A failure at any step (a full disk, an I/O error) removes the temporary file and
leaves the target as it was: the old report, or no file, never a truncated or empty one.
A target that exists keeps its permission bits; a new one gets those ``open()`` would
give it (0666 less the umask). A symbolic link is written through (its target is
replaced, the link stays); a special file (``/dev/null``, a FIFO, a terminal) is written
in place, as there is nothing to replace.

:func:`check_outputs` refuses an output that is one of the command's input files,
compared by device and inode (a hard link, a symbolic link or another spelling of the
path is the same file), and two outputs to one file, before anything is read;
:func:`check_writable` one that cannot be written (no such directory, no permission).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence

from .errors import InputError

#: What to check in a failed write's error line, by errno: the cause is strerror's.
HINTS = {
    errno.ENOENT: "check the directory exists",
    errno.ENOTDIR: "check the directory exists",
    errno.ENOSPC: "free some space there; any old file is unchanged",
    errno.EDQUOT: "free some space there; any old file is unchanged",
    errno.EFBIG: "any old file is unchanged",
    errno.EIO: "check the disk; any old file is unchanged",
    errno.EACCES: "check the permissions of the file and its directory",
    errno.EPERM: "check the permissions of the file and its directory",
    errno.EROFS: "write it to another file system",
    errno.EISDIR: "give a file name, not a directory",
}
_TEMP_TRIES = 100


def write_text(path: str, text: str) -> None:
    """Write ``text`` (UTF-8, no newline translation) to ``path`` atomically; raises the
    OSError of a failure, with the target unchanged and no temporary file left."""
    data = text.encode("utf-8")
    target = os.path.realpath(path)  # through a symbolic link, as open() writes
    try:
        old: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        with open(path, "wb") as fh:  # a device or FIFO: nothing to replace
            fh.write(data)
        return
    if old is not None and not os.access(target, os.W_OK):
        # a file made read-only is not replaced behind the user's back (open() refused it)
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    directory = os.path.dirname(target)
    try:
        fd, temp = _temporary(directory, os.path.basename(target), old)
    except PermissionError:
        if old is None:
            raise
        # a writable file in a directory that takes no new file: rewritten in place
        with open(target, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)  # the bytes are on the disk before the name points at them
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    _sync_directory(directory)


def _temporary(directory: str, name: str, old: os.stat_result | None) -> tuple[int, str]:
    """A new file beside the target (a hidden name), open for writing, with the old
    file's permission bits (and owner, where allowed) or open()'s default ones."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(_TEMP_TRIES):
        temp = os.path.join(directory, f".{name[:200]}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(temp, flags, 0o666)  # the umask applies, as for open()
        except FileExistsError:
            continue
        break
    else:  # pragma: no cover - 100 random names taken
        raise FileExistsError(errno.EEXIST, "no free temporary name", directory)
    if old is not None:
        try:
            os.fchmod(fd, stat.S_IMODE(old.st_mode) & 0o777)
            if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(fd, old.st_uid, old.st_gid)
                except OSError:
                    pass  # not allowed: the file becomes the writer's, as a copy would
        except BaseException:
            os.close(fd)
            os.unlink(temp)
            raise
    return fd, temp


def _sync_directory(directory: str) -> None:
    """The rename on the disk too (best effort: not every system opens directories)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_error(what: str, path: str, exc: OSError) -> InputError:
    """The one error line of a failed write: what, where, the cause, what to check."""
    cause = exc.strerror or str(exc)
    hint = HINTS.get(exc.errno) if exc.errno is not None else None
    return InputError(f"cannot write {what} to {path} ({cause})" + (f"; {hint}" if hint else ""))


def write_output(path: str, text: str, what: str) -> None:
    """:func:`write_text`, a failure raised as :func:`write_error`'s InputError."""
    try:
        write_text(path, text)
    except OSError as exc:
        raise write_error(what, path, exc) from None


def check_writable(path: str, what: str) -> None:
    """Refuse, before anything is read or printed (SPEC 6.1), a PATH :func:`write_text`
    cannot take: a directory, a file not writable, or a new file whose directory is
    missing, is not a directory or takes no file; as :func:`write_error`'s line. A write
    can still fail later (a full disk): :func:`write_output` says so then."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    if os.path.isdir(target):
        code = errno.EISDIR
    elif os.path.exists(target):
        code = None if os.access(target, os.W_OK) else errno.EACCES
    elif not os.path.exists(directory):
        code = errno.ENOENT
    elif not os.path.isdir(directory):
        code = errno.ENOTDIR
    else:
        code = None if os.access(directory, os.W_OK | os.X_OK) else errno.EACCES
    if code is not None:
        raise write_error(what, path, OSError(code, os.strerror(code), path))


def _file_id(path: str) -> tuple[int, int, bool] | None:
    """(device, inode, is a regular file) of what ``path`` names (``-``: standard
    input), following links; None when it cannot be stat()ed."""
    try:
        st = os.fstat(0) if path == "-" else os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, stat.S_ISREG(st.st_mode)


def check_outputs(
    outputs: Sequence[tuple[str, str | None]], inputs: Iterable[tuple[str, str | None]]
) -> None:
    """Refuse, as one InputError line naming both, an output ``(flag, path)`` that is
    the same file as an input ``(how the command names it, path)`` or as an earlier
    output. Only regular files count: a terminal, /dev/null or a pipe is no file to lose."""
    seen_inputs = [(what, src, _file_id(src)) for what, src in inputs if src]
    seen_outputs: list[tuple[str, str, tuple]] = []
    for flag, path in outputs:
        if not path or path == "-":
            continue
        fid = _file_id(path)
        if fid is not None and not fid[2]:
            continue  # an existing special file
        noun = "report" if flag == "--html" else "export"
        if fid is not None:
            for what, src, sid in seen_inputs:
                if sid is not None and sid[:2] == fid[:2]:
                    of = what if src == "-" else f"{what} {src}"
                    raise InputError(
                        f"{flag} {path}: is an input file (the same file as {of}); "
                        f"write the {noun} elsewhere"
                    )
        key = fid[:2] if fid is not None else (os.path.realpath(path),)
        for other, _, other_key in seen_outputs:
            if other_key == key:
                raise InputError(
                    f"{flag} {path}: is also the path of {other}; give each output its own path"
                )
        seen_outputs.append((flag, path, key))


def input_paths(what: str, path: str | None) -> list[tuple[str, str]]:
    """The input files of a path argument: the path itself, or each file a glob pattern
    that names no file matches (as the profiler expands it); ``-`` is standard input."""
    if not path:
        return []
    if path in ("-", "/dev/stdin"):
        return [("the standard input", "-")]
    if not os.path.exists(path) and set(path) & set("*?["):
        import glob  # lazy: start-up

        return [(what, p) for p in sorted(glob.glob(path, recursive=True))]
    return [(what, path)]
