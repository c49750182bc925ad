"""The tools of the MCP server (SPEC.md section 11), without the MCP wiring.

Each tool takes the arguments of one `tools/call` (a JSON object) and returns the
JSON text and the object the CLI's ``--json`` prints for the same request. Nothing
here imports ``mcp``: :mod:`faircode.mcp_server` connects these functions to the
protocol. Every file a tool reads is opened by :meth:`Root.open` (the readers get it as
their ``opener``) and read from that open file only.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import io
import json
import math
import os
import stat
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO, NamedTuple

from .cliparse import default_help
from .compare import compare
from .detect import OVERRIDE_VALUES
from .errors import FaircodeError, InputError, NoSuchFile
from .options import (
    FAIRNESS_ALPHA,
    FAIRNESS_ENCODING_HELP,
    FAIRNESS_ENGINE_HELP,
    FAIRNESS_MIN_SAMPLES,
    FAIRNESS_RULES,
    FAIRNESS_THRESHOLD,
    OPTIONS,
    Option,
    options_of,
    resolve,
)
from .profiler import GLOB_CHARS, profile
from .provenance import StreamHash, provenance, sha256_bytes
from .reference import BUILTIN, load_reference
from .renderers import render_as

#: Paths that name the server's own standard input, which carries the protocol.
STDIN_NAMES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


#: The most symbolic links one path may pass through (Linux's own limit, MAXSYMLINKS).
MAX_LINKS = 40
#: How often a name may change between looking at it and opening it before giving up.
MAX_RETRIES = 8
#: The bounds of a glob pattern: files it may match, seconds of searching, and folders
#: below where the pattern's wildcards start.
GLOB_MATCHES = 10_000
GLOB_SECONDS = 10.0
GLOB_DEPTH = 100

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: A folder on the way: never through a link (O_NOFOLLOW), and only a folder.
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
#: The file: never through a link, and without blocking (a FIFO swapped in after the
#: look opens at once, and is then refused by fstat).
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _NOCTTY | _CLOEXEC
#: The errors of an O_NOFOLLOW open when the name has become a link or a non-folder.
_CHANGED = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})


class OutsideRoot(InputError):
    """A path that a symbolic link (or '..' in a link's target) takes out of the root."""


def _components(path: str) -> list[str]:
    """The names of a relative path, last first (a stack to pop from)."""
    return [p for p in reversed(path.split(os.sep)) if p not in ("", ".")]


class Root:
    """The one folder every tool reads from (``--root``; default the working directory).

    A path is taken relative to the root, or absolute inside it. It is opened once, by
    walking it from a descriptor of the root one component at a time (``openat`` with
    ``O_NOFOLLOW``): a symbolic link on the way is read and its target walked the same
    way, from the folder it is in, and a link (or ``..``) that would leave the root is
    refused. So no name is looked up twice: swapping a file or folder for a link while a
    call runs cannot take the read outside (SPEC 11). The file is opened without
    blocking, checked to be a regular file on the open descriptor, and read from that
    descriptor only (the tools hand ``opener`` to the readers).
    """

    def __init__(
        self,
        path: str,
        *,
        glob_matches: int = GLOB_MATCHES,
        glob_seconds: float = GLOB_SECONDS,
        glob_depth: int = GLOB_DEPTH,
    ) -> None:
        real = os.path.realpath(path)
        if not os.path.isdir(real):
            raise InputError(f"--root: {path}: not a directory; give an existing folder")
        if os.open not in os.supports_dir_fd or not _NOFOLLOW:
            raise InputError(
                "--root: this system cannot open a file relative to a folder without "
                "following links (openat, O_NOFOLLOW), which keeping reads inside the root "
                "needs; run the MCP server on Linux, macOS or another POSIX system"
            )
        self.path = real
        self._spelled = os.path.abspath(path)  # the root as given, before links are followed
        self._fd = os.open(real, _DIR_FLAGS & ~_NOFOLLOW)
        self.glob_matches = glob_matches
        self.glob_seconds = glob_seconds
        self.glob_depth = glob_depth

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    # -- names -------------------------------------------------------------------------

    def _relative(self, given: Any, argument: str) -> str:
        """`given` relative to the root, normalised ('' for the root itself), or an
        InputError for a path that is not one or that leads out by its text alone."""
        if not isinstance(given, str) or not given.strip():
            raise InputError(f"{argument}: give a file path (a non-empty string)")
        if "\0" in given:
            raise InputError(f"{argument}: a path cannot hold a NUL character")
        if given in STDIN_NAMES or os.path.normpath(given) in STDIN_NAMES:
            raise InputError(
                f"{argument}: {given}: the MCP server does not read standard input (it "
                "carries the protocol); give a file inside the root"
            )
        # an absolute `given` replaces the root; '..' is taken by its text
        rel = self._below(os.path.join(self.path, given))
        if rel is not None:
            return rel
        if os.path.isabs(given):
            raise InputError(
                f"{argument}: {given} is outside the server's root {self.path}; "
                "give a path inside it (start the server with --root DIR to change it)"
            )
        raise InputError(
            f"{argument}: {given}: '..' leads outside the server's root {self.path}; "
            "give a path inside it"
        )

    def _below(self, path: str) -> str | None:
        """The absolute `path` (normalised by its text) relative to the root, as resolved
        or as spelled; None when it is outside."""
        norm = os.path.normpath(path)
        for root in (self.path, self._spelled):
            if norm == root:
                return ""
            prefix = root.rstrip(os.sep) + os.sep
            if norm.startswith(prefix):
                return norm[len(prefix) :]
        return None

    def _shown(self, rel: str) -> str:
        """A path inside the root as the tools name it: relative to the root when the
        server runs in it (the messages and reports then name the file as a CLI run
        there would), else absolute."""
        if os.path.realpath(os.getcwd()) == self.path:
            return rel or "."
        return os.path.join(self.path, rel) if rel else self.path

    def confine(self, given: Any, argument: str) -> str:
        """The name the tools use for ``given`` (an argument's value): checked by its
        text here (not a path, standard input, absolute outside the root, '..' out),
        and by every component when it is opened (`open`). Or an InputError."""
        return self._shown(self._relative(given, argument))

    # -- opening -----------------------------------------------------------------------

    def open(self, path: str, argument: str, label: str | None = None) -> tuple[BinaryIO, bool]:
        """Open the file ``path`` inside the root once, as `reader.open_input` opens a
        path: (binary file, True). Errors are one line: what the root refuses names
        the argument (``path: x.csv: a symbolic link leads outside ...``), what the
        reader would say names ``label`` (``x.csv: no such file``)."""
        fd = self._walk(self._relative(path, argument), path, argument, label or path, "file")
        raw = io.FileIO(fd, "r", closefd=True)
        raw.name = path  # type: ignore[misc]
        return io.BufferedReader(raw), True

    def opener(self, argument: str) -> Callable[[str, str], tuple[BinaryIO, bool]]:
        """`open` for the readers' ``opener`` argument (profile, evaluate, references)."""
        return lambda path, label: self.open(path, argument, label)

    def _walk(self, rel: str, given: str, argument: str, label: str, want: str) -> Any:
        """Walk ``rel`` from the root's descriptor. ``want``: "file" -> the descriptor of
        the regular file it names; "dir" -> a descriptor of the folder; "stat" -> the
        lstat result of what it names (not opened). Links are followed inside the root
        only; each component is looked at (lstat) and then opened with O_NOFOLLOW, so a
        name changed in between is looked at again, never followed blindly."""
        todo = _components(rel)
        stack: list[int] = []  # descriptors of the folders (and file) below the root
        links = retries = 0
        through_link = False  # the current name came from a link's target
        opened_file = False
        try:
            while todo:
                name = todo.pop()
                if name == "..":
                    if not stack:  # (a given '..' out is refused by its text before)
                        raise self._out(argument, given)
                    os.close(stack.pop())
                    continue
                here = stack[-1] if stack else self._fd
                try:
                    st = os.stat(name, dir_fd=here, follow_symlinks=False)
                except FileNotFoundError:
                    raise self._missing(label, through_link and not todo) from None
                except OSError as exc:
                    raise self._unopened(label, exc) from None
                if stat.S_ISLNK(st.st_mode):
                    links += 1
                    if links > MAX_LINKS:
                        raise InputError(
                            f"{label}: a symbolic link loop (too many levels of symbolic "
                            "links); point the link at a file"
                        )
                    try:
                        target = os.readlink(name, dir_fd=here)
                    except OSError:  # no longer a link: look again
                        retries = self._retry(retries, label)
                        todo.append(name)
                        continue
                    if os.path.isabs(target):
                        below = self._below(target)
                        if below is None:
                            raise self._out(argument, given)
                        while stack:  # an absolute target inside: walk it from the root
                            os.close(stack.pop())
                        target = below
                    todo.extend(_components(target))
                    through_link = True
                    continue
                through_link = False
                last = not todo
                if last and want == "stat":
                    return st
                if last and want == "file":
                    if stat.S_ISDIR(st.st_mode):
                        raise InputError(f"{label}: is a directory, not a file")
                    if not stat.S_ISREG(st.st_mode):
                        raise self._special(argument, given)
                    flags = _FILE_FLAGS
                elif stat.S_ISDIR(st.st_mode):
                    flags = _DIR_FLAGS
                else:
                    raise InputError(f"{label}: cannot open (Not a directory)")
                try:
                    fd = os.open(name, flags, dir_fd=here)
                except FileNotFoundError:
                    raise self._missing(label, False) from None
                except OSError as exc:
                    if exc.errno not in _CHANGED:
                        raise self._unopened(label, exc) from None
                    retries = self._retry(retries, label)  # became a link: look again
                    todo.append(name)
                    continue
                stack.append(fd)
                if flags == _FILE_FLAGS:
                    mode = os.fstat(fd).st_mode  # what was opened, not what was looked at
                    if stat.S_ISDIR(mode):
                        raise InputError(f"{label}: is a directory, not a file")
                    if not stat.S_ISREG(mode):
                        raise self._special(argument, given)
                    os.set_blocking(fd, True)
                    opened_file = True
            # the whole path is walked: it names the root itself or a folder in it
            # (through '..' or a link), or, for "file", the file just opened
            if want == "stat":
                return os.fstat(stack[-1] if stack else self._fd)
            if want == "file" and not opened_file:
                raise InputError(f"{label}: is a directory, not a file")
            return stack.pop() if stack else os.dup(self._fd)
        finally:
            for fd in stack:
                os.close(fd)

    def _out(self, argument: str, given: str) -> InputError:
        return OutsideRoot(
            f"{argument}: {given}: a symbolic link leads outside the server's root "
            f"{self.path}; copy the file into the root instead"
        )

    @staticmethod
    def _special(argument: str, given: str) -> InputError:
        return InputError(
            f"{argument}: {given}: not a regular file (a pipe, socket or device); "
            "the MCP server reads files only"
        )

    @staticmethod
    def _missing(label: str, broken_link: bool) -> InputError:
        if broken_link:
            return InputError(
                f"{label}: a broken symbolic link (its target does not exist); point it at a file"
            )
        return NoSuchFile(f"{label}: no such file")

    @staticmethod
    def _unopened(label: str, exc: OSError) -> InputError:
        if isinstance(exc, PermissionError):
            return InputError(f"{label}: permission denied")
        return InputError(f"{label}: cannot open ({exc.strerror or exc})")

    @staticmethod
    def _retry(retries: int, label: str) -> int:
        if retries >= MAX_RETRIES:
            raise InputError(
                f"{label}: it kept changing while being opened (replaced {MAX_RETRIES} "
                "times); try again"
            )
        return retries + 1

    # -- glob patterns -----------------------------------------------------------------

    def source(self, given: Any, argument: str) -> str | list[str]:
        """The table to profile for ``given``: its name (`confine`), or, for a glob
        pattern (SPEC 0) that names no file as written, the names of its matches
        (`glob`). Either is then opened through `opener`."""
        rel = self._relative(given, argument)
        if not GLOB_CHARS & set(given):
            return self._shown(rel)
        try:
            self._walk(rel, given, argument, given, "stat")
            return self._shown(rel)  # a file whose name holds * ? [
        except OutsideRoot:
            raise
        except InputError:
            pass  # no such name: a pattern
        return [self._shown(m) for m in self.glob(given, argument)]

    def glob(self, pattern: str, argument: str) -> list[str]:
        """The files a glob pattern matches inside the root (relative to it, sorted),
        as `glob.glob(recursive=True)` would, except that a folder link is never
        entered after the first wildcard (the part before it is walked as any path:
        links inside the root followed), and a file link is a match (opening it then
        refuses a link out). Bounded: more than ``glob_matches`` files, more than
        ``glob_seconds`` of searching, or folders ``glob_depth`` levels below the first
        wildcard is an InputError saying so."""
        rel = self._relative(pattern, argument)
        parts = _components(rel)[::-1]
        first = next((i for i, p in enumerate(parts) if GLOB_CHARS & set(p)), None)
        if first is None:  # no wildcard left once '..' and '.' are taken by their text
            raise InputError(f"{pattern}: no file matches this pattern")
        start = os.sep.join(parts[:first])
        search = _Search(self, pattern, argument)
        try:
            fd = self._walk(start, pattern, argument, pattern, "dir")
        except OutsideRoot:
            raise
        except InputError:  # the part before the wildcards names no folder
            raise InputError(f"{pattern}: no file matches this pattern") from None
        try:
            search.match(fd, start, parts[first:])
        finally:
            os.close(fd)
        if not search.found:
            raise InputError(f"{pattern}: no file matches this pattern")
        return sorted(search.found)


class _Search:
    """One glob search (Root.glob): folders are entered by descriptor with O_NOFOLLOW,
    so a link to a folder (`.`, `..`, /usr) is never entered and no loop can form."""

    def __init__(self, root: Root, pattern: str, argument: str) -> None:
        self.root, self.pattern, self.argument = root, pattern, argument
        self.found: set[str] = set()
        self.folders = 0
        self.deadline = time.monotonic() + root.glob_seconds

    def _check_time(self) -> None:
        if time.monotonic() >= self.deadline:
            raise InputError(
                f"{self.argument}: {self.pattern}: the search for matching files stopped "
                f"after {self.root.glob_seconds:g} s ({self.folders} folders looked at); "
                "narrow the pattern"
            )

    def _add(self, rel: str) -> None:
        self.found.add(rel)
        if len(self.found) > self.root.glob_matches:
            limit = self.root.glob_matches
            raise InputError(
                f"{self.argument}: {self.pattern}: more than {limit} files match this "
                f"pattern; narrow it (the MCP server takes at most {limit} files in one call)"
            )

    def _entries(self, fd: int) -> list[tuple[str, bool, bool, bool]]:
        """(name, is a folder, is a regular file, is a link) of a folder's entries, none
        followed."""
        self.folders += 1
        self._check_time()
        out = []
        try:
            with os.scandir(fd) as it:
                for entry in it:
                    self._check_time()
                    try:
                        out.append(
                            (
                                entry.name,
                                entry.is_dir(follow_symlinks=False),
                                entry.is_file(follow_symlinks=False),
                                entry.is_symlink(),
                            )
                        )
                    except OSError:
                        continue
        except OSError:
            return []  # unreadable: as glob.glob, no matches from it
        return out

    def _descend(self, fd: int, name: str, rel: str, parts: list[str], depth: int) -> None:
        """match() in the sub-folder `name`, entered without following a link."""
        if depth >= self.root.glob_depth:
            raise InputError(
                f"{self.argument}: {self.pattern}: the search for matching files reached "
                f"folders {self.root.glob_depth} levels deep; narrow the pattern"
            )
        try:
            sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
        except OSError:
            return  # gone, unreadable, or become a link since it was listed: not entered
        try:
            self.match(sub, rel, parts, depth + 1)
        finally:
            os.close(sub)

    def _file(self, rel: str, regular: bool, link: bool) -> None:
        """A name that matched the last part: a regular file, or a link that is one (or
        that leads out, which opening it then refuses, naming the link)."""
        if regular:
            self._add(rel)
        elif link:
            try:
                st = self.root._walk(rel, rel, self.argument, rel, "stat")
            except OutsideRoot:
                self._add(rel)  # opening it refuses it, naming the link (inside the root)
                return
            except InputError:
                return
            if stat.S_ISREG(st.st_mode):
                self._add(rel)

    def match(self, fd: int, rel: str, parts: list[str], depth: int = 0) -> None:
        """Add the files below the folder `fd` (at `rel`) that match `parts`."""
        part, rest = parts[0], parts[1:]
        if part == "**" and rest:
            self.match(fd, rel, rest, depth)  # ** matches no folder too
        for name, is_dir, regular, link in self._entries(fd):
            if name.startswith(".") and not (part != "**" and part.startswith(".")):
                continue  # as glob.glob: hidden names only for a pattern starting with .
            if part != "**" and not fnmatch.fnmatchcase(name, part):
                continue
            path = os.path.join(rel, name) if rel else name
            if not rest:
                self._file(path, regular, link)
            if is_dir and (rest or part == "**"):
                self._descend(fd, name, path, parts if part == "**" else rest, depth)


# ---------------------------------------------------------------------------------------
# Input schemas


def _opt(kind: str | list[str], text: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": text, **extra}


_LIST_OF_TEXT = {"type": ["array", "string"], "items": {"type": "string"}}
#: The JSON schema of each kind of option (faircode.options.OPTIONS) and the shapes it
#: takes, for the description.
_KIND_SCHEMAS: dict[str, tuple[dict[str, Any], str]] = {
    "number": ({"type": "number"}, ""),
    "integer": ({"type": "integer"}, ""),
    "boolean": ({"type": "boolean"}, ""),
    "choice": ({"type": "string"}, ""),
    "delimiter": ({"type": "string"}, ""),
    "encoding": ({"type": "string"}, ""),
    "column": ({"type": "string"}, ""),
    "value": ({"type": "string"}, ""),
    "age_bands": (
        {"type": ["array", "string"], "items": {"type": "integer"}},
        "e.g. [0, 18, 30, 45, 60, 75] or '0,18,30,45,60,75'",
    ),
    "pair": (_LIST_OF_TEXT, "[A, B] or 'A,B'"),
    "names": (_LIST_OF_TEXT, "[A, B, ...] or 'A,B,...'"),
    "outcome": (_LIST_OF_TEXT, "a name or a list of names"),
    "na": (
        {
            "type": ["array", "string"],
            "items": {
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
            },
        },
        "'TOKEN' (every column) or [column, token] pairs",
    ),
    "recode": ({"type": ["array", "object"]}, "[[column, from, to], ...] or {column: {from: to}}"),
}


#: Help lines a tool words in its own parameters where the record's names a CLI flag
#: (SPEC 11: a tool's schema speaks of its arguments, which have no --no- switch).
_HELP_IN_TOOLS = {"missing_by_group": "missing data by group; false leaves it out"}


def option_schema(option: Option) -> dict[str, Any]:
    """The input schema of an option's argument, from its record (SPEC 7, 11): the type
    of its kind, its choices, and its help with the shapes it takes and its default."""
    schema, shapes = _KIND_SCHEMAS[option.kind]
    text = _HELP_IN_TOOLS.get(option.name, option.help) + (f"; {shapes}" if shapes else "")
    if option.default not in (None, ()):
        default = option.default
        shown = json.dumps(default) if isinstance(default, bool) else default
        text = default_help(text, shown)
    out = {**schema, "description": text}
    if option.choices:
        out["enum"] = list(option.choices)
    return out


def tool_options(tool: str) -> dict[str, dict[str, Any]]:
    """The schemas of the SPEC 7 options an MCP tool takes, in table order, after its
    `overrides` (section 1's --map)."""
    return {"overrides": _OVERRIDES, **{o.name: option_schema(o) for o in options_of(tool)}}


_PATH = _opt("string", "a file inside the server's root (relative to it, or absolute)")
_OVERRIDES = _opt(
    "object",
    "force a column's kind, {column: kind}; kinds: " + ", ".join(OVERRIDE_VALUES),
    additionalProperties={"type": "string"},
)
_PROVENANCE = _opt("boolean", "attach the SPEC section 10 provenance block (true)")
EVALUATE_OPTIONS: dict[str, dict[str, Any]] = {
    "path": _opt("string", "predictions inside the root: CSV, Parquet or JSON lines"),
    "attrs": _opt(
        ["array", "string"], "attributes to slice by (one or more)", items={"type": "string"}
    ),
    "pred": _opt("string", "prediction column (0/1 or numeric)"),
    "label": _opt("string", "label column; rows with a missing label await a label"),
    "score": _opt("string", "score column; prediction = score >= decision_threshold"),
    "decision_threshold": _opt("number", "decision threshold for score (or a regression pred)"),
    "task": _opt(
        "string", "model type (default: inferred from the file)", enum=["binary", "regression"]
    ),
    "threshold": _opt("number", f"largest allowed disparity ({FAIRNESS_THRESHOLD})"),
    "min_samples": _opt(
        "integer", f"a slice counts for a metric only with this many rows ({FAIRNESS_MIN_SAMPLES})"
    ),
    "intersect": _opt("boolean", "also slice by every combination of the attributes (false)"),
    "engine": _opt(
        "string",
        FAIRNESS_ENGINE_HELP,
        enum=["auto", "pandas", "fairlearn"],
    ),
    "rule": _opt(
        "string",
        f"how gated disparities are judged: by their interval, or the value alone "
        f"({FAIRNESS_RULES[0]})",
        enum=list(FAIRNESS_RULES),
    ),
    "alpha": _opt("number", f"family-wise error of the intervals ({FAIRNESS_ALPHA})"),
    "weight": _opt(
        "string",
        "sample (survey) weight column: every rate and disparity weighted; intervals and the "
        "low-n guard at the effective sample size (sum w)^2 / sum w^2",
    ),
    "ref_groups": _opt(
        "object",
        "reference slice per attribute, {attribute: value}; a value, 'maj' (the slice with "
        "the most rows) or 'min' (per metric, the lowest eligible rate): each slice's "
        "difference and ratio to it, with 95% intervals",
        additionalProperties={"type": ["string", "number", "boolean"]},
    ),
    "encoding": _opt("string", FAIRNESS_ENCODING_HELP),
}


def _schema(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


SCHEMAS: dict[str, dict[str, Any]] = {
    "profile_dataset": _schema(
        {
            "path": _PATH,
            **tool_options("profile_dataset"),
            "reference": _opt(
                "string",
                "population baseline: us-2019, us-2024, or a column,group,share CSV in the root",
            ),
            "provenance": _PROVENANCE,
        },
        ["path"],
    ),
    "compare_datasets": _schema(
        {
            "path_a": _opt("string", "baseline file inside the root (e.g. training data)"),
            "path_b": _opt("string", "current file inside the root (e.g. production data)"),
            **tool_options("compare_datasets"),
            "skip_lines_b": _opt("integer", "skip_lines for path_b only"),
            "provenance": _PROVENANCE,
        },
        ["path_a", "path_b"],
    ),
    "proxy_hints": _schema({"path": _PATH, **tool_options("proxy_hints")}, ["path"]),
    "evaluate_model": _schema(EVALUATE_OPTIONS, ["path", "attrs"]),
}
DESCRIPTIONS = {
    "profile_dataset": (
        "Profile who is, and is not, represented in a table: demographic dimensions, shares "
        "with 95% intervals, a 0-100 score and grade, flags (SPEC sections 6 and 10; the "
        "result of `faircode profile --json`)."
    ),
    "compare_datasets": (
        "Representation drift between a baseline and a current table: PSI, TVD, the drift "
        "level with its verdict (chi-squared test) and group shares per dimension (SPEC "
        "section 8; the result of `faircode compare --json`)."
    ),
    "proxy_hints": (
        "Pairs of columns that may stand in for each other (chi-squared test, Cramer's V): "
        "{'hints': [...]}. Only columns present in the file are tested."
    ),
    "evaluate_model": (
        "Per-slice model performance and fairness disparities of a predictions file "
        "(SPEC section 12.11; the result of `faircode fairness evaluate --json`)."
    ),
}


# ---------------------------------------------------------------------------------------
# Argument checks

_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def checked_arguments(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments with nulls dropped, after checking names, requirements and types
    against the tool's input schema (one-line InputError naming the argument)."""
    schema = SCHEMAS[tool]
    props = schema["properties"]
    args = {k: v for k, v in arguments.items() if v is not None}
    unknown = sorted(set(args) - set(props))
    if unknown:
        raise InputError(
            f"{tool}: unknown argument '{unknown[0]}' (known: {', '.join(sorted(props))})"
        )
    for name in schema["required"]:
        if name not in args:
            raise InputError(f"{tool}: the argument '{name}' is required")
    for name, value in args.items():
        kinds = props[name]["type"]
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_TYPES[k](value) for k in kinds):
            raise InputError(
                f"{tool}: '{name}' must be {' or '.join(kinds)}, got {_shown_value(value)}"
            )
        # a JSON number past 1e308 arrives as inf, an integer of 400 digits as itself
        if _TYPES["number"](value) and not _finite(value):
            raise InputError(f"{tool}: '{name}' must be a finite number, got {_shown_value(value)}")
        allowed = props[name].get("enum")
        if allowed is not None and value not in allowed:
            # the schema's choices are the only ones: `engine` "spark" would open paths
            # by name, past the root's checks
            raise InputError(
                f"{tool}: '{name}' must be one of {', '.join(allowed)}, got {_shown_value(value)}"
            )
    return args


def _finite(value: float | int) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def _shown_value(value: Any) -> str:
    """A value as JSON text, cut: an argument may be megabytes long (an integer of
    thousands of digits has no text under Python's digit limit)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


_NUMERIC = {o.name for o in OPTIONS if o.kind in ("number", "integer")}


def _opts(args: dict[str, Any], tool: str) -> dict[str, Any]:
    """The `opts` of profile() for the options ``tool`` takes. A number is handed over as
    its text, as the CLI hands over an option's text, so the resolved values (and the
    provenance params) are those of the same CLI run: 100 -> 100.0 for --max-age."""
    opts: dict[str, Any] = {}
    for name in (o.name for o in options_of(tool)):
        if name in args:
            value = args[name]
            opts[name] = repr(value) if name in _NUMERIC else value
    return opts


def _overrides(args: dict[str, Any]) -> dict[str, str]:
    table = args.get("overrides", {})
    for col, kind in table.items():
        if not isinstance(kind, str):
            raise InputError(
                f"overrides: the kind of '{col}' must be a string ({', '.join(OVERRIDE_VALUES)})"
            )
    return {col.strip(" \t"): kind.strip(" \t") for col, kind in table.items()}


# ---------------------------------------------------------------------------------------
# The tools


def profile_dataset(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    opts = _opts(args, "profile_dataset")
    overrides = _overrides(args)
    reference_hash = None
    if "reference" in args:
        spec = args["reference"]
        if spec in BUILTIN:
            opts["reference"], ref_bytes, _ = load_reference(spec)
        else:
            shown = root.confine(spec, "reference")
            opts["reference"], ref_bytes, _ = load_reference(shown, root.opener("reference"))
        reference_hash = sha256_bytes(ref_bytes)
    source = root.source(args["path"], "path")
    want = args.get("provenance", True)
    hasher = StreamHash()
    result = profile(
        source,
        overrides=overrides,
        opts=opts,
        name=args["path"],
        on_bytes=hasher if want else None,
        opener=root.opener("path"),
    )
    if want:
        result["provenance"] = provenance(
            params=resolve(opts).params(),
            overrides=overrides,
            dataset_hashes={"dataset_hash": hasher.digest()},
            reference_hash=reference_hash,
        )
    return _profile_json(result)


def compare_datasets(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    opts = _opts(args, "compare_datasets")
    opts_b = dict(opts)
    if "skip_lines_b" in args:
        from .cli import _number_arg  # lazy: start-up (the CLI's parser)

        # checked as the CLI checks it, before either file is read, so its error names
        # --skip-lines-b, not B's --skip-lines (SPEC 8)
        text = repr(args["skip_lines_b"])
        opts_b["skip_lines"] = repr(_number_arg("--skip-lines-b", text, True, 0, None))
    overrides = _overrides(args)
    want = args.get("provenance", True)
    results, hashes = [], {}
    for key, o in (("a", opts), ("b", opts_b)):
        source = root.source(args[f"path_{key}"], f"path_{key}")
        hasher = StreamHash()
        results.append(
            profile(
                source,
                overrides=overrides,
                opts=o,
                name=args[f"path_{key}"],
                on_bytes=hasher if want else None,
                opener=root.opener(f"path_{key}"),
            )
        )
        hashes[f"dataset_hash_{key}"] = hasher.digest()
    result = compare(results[0], results[1], opts=opts)
    if want:
        result["provenance"] = provenance(
            params=resolve(opts).params(), overrides=overrides, dataset_hashes=hashes
        )
    return _profile_json(result)


def proxy_hints(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """SPEC 16's block ({"alpha", "correction", "exact", "hints": [...], "not_tested"}),
    an object, never a bare list."""
    from .proxy import proxy_hints as hints_of  # lazy: start-up

    source = root.source(args["path"], "path")
    opts = _opts(args, "proxy_hints")
    block = hints_of(source, _overrides(args), opts, opener=root.opener("path"))
    return _profile_json(block)


def evaluate_model(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    from .monitor import MonitorInputError, evaluate  # lazy: start-up
    from .monitor.render import render_json  # lazy: start-up

    attrs = args["attrs"]
    if isinstance(attrs, list) and not all(isinstance(a, str) for a in attrs):
        raise MonitorInputError("evaluate_model: 'attrs' must be column names (strings)")

    def number(name: str) -> float | None:  # the CLI's type=float
        return float(args[name]) if name in args else None

    threshold = number("threshold")
    report = evaluate(
        root.confine(args["path"], "path"),
        pred=args.get("pred"),
        attrs=attrs,
        label=args.get("label"),
        score=args.get("score"),
        decision_threshold=number("decision_threshold"),
        task=args.get("task"),
        threshold=FAIRNESS_THRESHOLD if threshold is None else threshold,
        min_samples=args.get("min_samples", FAIRNESS_MIN_SAMPLES),
        intersect=args.get("intersect", False),
        engine=args.get("engine", "auto"),
        opener=root.opener("path"),
        rule=args.get("rule", FAIRNESS_RULES[0]),
        alpha=FAIRNESS_ALPHA if number("alpha") is None else number("alpha"),
        ref_groups=args.get("ref_groups"),
        weight=args.get("weight"),
        encoding=args.get("encoding"),
    )
    text = render_json(report)
    return text, json.loads(text)


def _profile_json(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    text = render_as("profile", "json", result)
    return text, json.loads(text)


TOOLS: dict[str, Callable[[Root, dict[str, Any]], tuple[str, dict[str, Any]]]] = {
    "profile_dataset": profile_dataset,
    "compare_datasets": compare_datasets,
    "proxy_hints": proxy_hints,
    "evaluate_model": evaluate_model,
}


class Outcome(NamedTuple):
    """What one tool call gives the client: JSON text and object, or an error line."""

    text: str
    data: dict[str, Any] | None
    is_error: bool


def run_tool(
    root: Root,
    name: str,
    arguments: dict[str, Any] | None,
    tools: dict[str, Callable[[Root, dict[str, Any]], tuple[str, dict[str, Any]]]] = TOOLS,
) -> Outcome:
    """One tool call, never raising: an anticipated failure (FaircodeError, an OSError
    naming a file) is its one-line message; anything else is reported as an internal
    error with its type and first line, and its traceback goes to stderr."""
    try:
        if name not in tools:
            raise InputError(f"unknown tool '{name}' (known: {', '.join(tools)})")
        args = checked_arguments(name, arguments or {}) if name in SCHEMAS else arguments or {}
        text, data = tools[name](root, args)
        return Outcome(text, data, False)
    except FaircodeError as err:
        return Outcome(str(err), None, True)
    except OSError as err:
        if err.filename is None:
            return _internal(name, err)
        return Outcome(f"{err.filename}: {err.strerror or err}", None, True)
    except Exception as err:  # the server must outlive a bug in one call
        return _internal(name, err)


def _internal(name: str, err: BaseException) -> Outcome:
    traceback.print_exception(err, file=sys.stderr)
    first = (str(err).strip().splitlines() or [""])[0]
    return Outcome(
        f"{name}: internal error ({type(err).__name__}: {first}); this is a bug in faircode, "
        "please report it",
        None,
        True,
    )
