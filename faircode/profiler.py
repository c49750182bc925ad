"""Entry points: turn a source into a Summary, and a Summary into a result."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable

from .analyze import analyze
from .calling import keyword_args
from .detect import check_overrides, kind_from_name
from .errors import InputError
from .formats import (
    GZIP_MAGIC,
    Gunzipped,
    Prefixed,
    frame_name,
    is_arrow_table,
    is_pandas_frame,
    is_polars_frame,
    sniff_format,
    summarize_file,
    summarize_frame,
    summarize_table,
)
from .options import Options, TupleBase, named_tuple, number_arg, resolve, spelled
from .reader import BLOCK_SIZE, open_input, read_records
from .results import ProfileResult
from .summary import Summary, SummaryBuilder

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    #: opener(path, label) -> (binary file, is it a regular file), as open_input
    Opener = Callable[[str, str], tuple[BinaryIO, bool]]

__all__ = [
    "FAST_MIN_BYTES",
    "Summarized",
    "check_overrides",
    "display_name",
    "open_input",
    "profile",
    "summarize",
]


# From this size `engine="auto"` tries the pyarrow fast path; below it the reference
# reader is as fast, and neither fastpath.py (threads, logging) nor pyarrow is imported.
# fastpath.FAST_MIN_BYTES is its twin (tests/engine/test_fastpath.py checks they agree).
FAST_MIN_BYTES = 4 << 20


@named_tuple
class Summarized(TupleBase):
    """What `summarize` returns; unpacks as (summary, overrides, options)."""

    summary: Summary  # the counts every metric is computed from (SPEC 0.5)
    overrides: dict[str, str]  # the declared kinds, checked against the header
    options: Options  # the resolved options


def display_name(source: Any, side: str = "") -> str:
    """What a source is called in messages and results: a path as given, a list of
    paths (one dataset, SPEC 0.8) ``FIRST (+N more)`` (its one path alone), a frame or
    table `<dataframe>` (formats.frame_name; `<dataframe A>` as ``side`` A of two), a
    file object its name or `<stream>` (`<stream A>`)."""
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    if isinstance(source, (list, tuple)) and source:
        more = f" (+{len(source) - 1} more)" if len(source) > 1 else ""
        return f"{os.fspath(source[0])}{more}"
    if is_pandas_frame(source) or is_arrow_table(source) or is_polars_frame(source):
        return frame_name(side)
    if isinstance(getattr(source, "name", None), str):
        return source.name
    return f"<stream {side}>" if side else "<stream>"


GLOB_CHARS = frozenset("*?[")


@keyword_args("faircode.summarize", "overrides", "opts")
def summarize(
    source: Any,
    *,
    overrides: dict[str, str] | None = None,
    opts: dict | Options | None = None,
    name: str | None = None,
    block_size: int = BLOCK_SIZE,
    on_bytes: Callable[[bytes], None] | None = None,
    on_rows: Callable[[int], None] | None = None,
    engine: str = "auto",
    opener: Opener | None = None,
) -> Summarized:
    """Read a source once into the counts every metric is computed from (SPEC 0.5).

    The first half of :func:`profile`: its result is what ``faircode.analyze.analyze``
    turns into the profile, and summaries of parts of one table merge with
    ``Summary.merge``. Reading follows SPEC 0 (0.8: sources, many files, the fast path).

    Parameters
    ----------
    source : str, path-like, list of paths, binary file object or DataFrame
        A path (CSV, Parquet or Arrow IPC, told apart by their magic bytes, SPEC 0.8; a
        gzip-compressed CSV is decompressed as it is read), a glob string or a list of
        paths (profiled as one dataset: their summaries are merged and the headers must
        be equal), a binary file object, or a pandas / polars DataFrame or a pyarrow
        Table.
    overrides : dict of str to str, optional
        ``--map``: column name -> kind (``"sex"``, ``"race"``, ``"age"``, ...,
        ``"categorical"`` or ``"ignore"``), forcing or refusing a dimension (SPEC 1.6).
    opts : dict or Options, optional
        The options of SPEC 7 by their Python names (``min_share``, ``cross``, ``na``,
        ``recode``, ``label``, ``skip_lines``, ...); unnamed ones take their defaults.
    name : str, optional
        What the summary (and its messages) call the source; default the path as given,
        ``<dataframe>`` for a frame, a file object's name or ``<stream>``, and for many
        files ``FIRST (+N more)``.
    block_size : int
        Bytes the reference reader takes at a time (default 1 MiB).
    on_bytes : callable, optional
        ``on_bytes(block)`` sees every byte read (the CLI hashes them, SPEC 10).
    on_rows : callable, optional
        ``on_rows(n)`` is called with the number of data rows just counted (an
        increment: a progress bar).
    engine : {"auto", "fast", "reference"}
        ``"auto"``: the pyarrow fast path for seekable CSV files of 4 MB
        (``FAST_MIN_BYTES``) or more, when installed; ``"fast"``: try it whatever the
        size; ``"reference"``: never. The summary is the same (SPEC 0.8).
    opener : callable, optional
        ``opener(path, label)`` opens each path, returning (binary file, is it a regular
        file) as ``open_input`` does (the default); the file is then read from that open
        file only. The MCP server passes its root's confined open (SPEC 11); with an
        opener a string is a path, never expanded as a glob pattern (the caller
        expands it).

    Returns
    -------
    Summarized
        A named tuple ``(summary, overrides, options)`` that unpacks as such:
        ``summary`` the :class:`~faircode.summary.Summary` (``n_rows``, ``columns``,
        each column's label counts and missing cells), ``overrides`` the declared kinds
        checked against the header, ``options`` the resolved
        :class:`~faircode.options.Options`.

    Raises
    ------
    InputError
        Bad input, in one line naming the file or option: a path that names no file
        (``data.csv: no such file``), an option out of its range (``--min-share: 2 is
        out of range (0..1)``), an override naming no column, files of one dataset
        whose headers differ, a Parquet file without pyarrow installed, ...

    Examples
    --------
    >>> from importlib import resources
    >>> import faircode
    >>> sample = str(resources.files("faircode") / "data" / "compas-scores-two-years.csv")
    >>> summary, overrides, options = faircode.summarize(sample, overrides={"race": "race"})
    >>> summary.n_rows, len(summary.columns), overrides, options.min_share
    (7214, 53, {'race': 'race'}, 0.05)
    >>> from faircode.analyze import analyze
    >>> analyze(summary, overrides, options)["grade"]
    'B'
    >>> faircode.summarize(sample, engine="turbo")
    Traceback (most recent call last):
    ...
    faircode.errors.InputError: engine: unknown engine 'turbo' (use auto, fast or reference)
    """
    if engine not in ("auto", "fast", "reference"):
        raise InputError(f"engine: unknown engine '{engine}' (use auto, fast or reference)")
    options = resolve(opts)
    block_size = number_arg("block_size", block_size, 1, None, "integer >= 1", integer=True)
    if is_pandas_frame(source):
        summary, checked = summarize_frame(
            source, name or frame_name(), overrides, options, on_rows
        )
        return Summarized(summary, checked, options)
    if is_arrow_table(source) or is_polars_frame(source):
        summary, checked = summarize_table(
            source, name or frame_name(), overrides, options, on_rows
        )
        return Summarized(summary, checked, options)
    paths = _expand_paths(source, globs=opener is None)
    if paths is not None:
        return _summarize_many(
            paths, overrides, options, name, block_size, on_bytes, on_rows, engine, opener
        )
    if isinstance(source, (str, os.PathLike)):
        return _summarize_path(
            os.fspath(source),
            name or str(source),
            overrides,
            options,
            block_size,
            on_bytes,
            on_rows,
            engine,
            opener,
        )
    if hasattr(source, "read"):
        source, gzipped = _gzip_sniffed(source, name or display_name(source))
        if gzipped:  # SPEC 0.8: decompressed as it is read
            label = name or display_name(source)
            return _summarize_stream(
                Gunzipped(source, label, on_bytes),
                label,
                overrides,
                options,
                block_size,
                None,
                on_rows,
                "reference",
            )
        return _summarize_stream(
            source,
            name or display_name(source),
            overrides,
            options,
            block_size,
            on_bytes,
            on_rows,
            engine,
        )
    raise InputError(
        f"cannot profile a {type(source).__name__}: give a path, a list of "
        "paths, a binary file object, or a pandas / polars DataFrame or a "
        "pyarrow Table"
    )


def _gzip_sniffed(stream: BinaryIO, label: str) -> tuple[BinaryIO, bool]:
    """(the stream, rewound or replaying what was looked at; does it start with the gzip
    magic 1f 8b). A stream that is not gzip reads exactly as before; one that reads
    text (a file opened in text mode, io.StringIO) is refused with one line."""
    try:
        seekable = stream.seekable()
    except (AttributeError, OSError, ValueError):
        seekable = False
    if seekable:
        here = stream.tell()
        head = stream.read(2)
        stream.seek(here)
        _bytes_read(head, label)
        return stream, head == GZIP_MAGIC
    head = _bytes_read(stream.read(2), label)
    if len(head) == 1:
        head += stream.read(1)
    return Prefixed(head, stream), head == GZIP_MAGIC


def _bytes_read(head, label: str) -> bytes:
    """``head``, what a file object's read gave, when it is bytes; else InputError."""
    if not isinstance(head, (bytes, bytearray, memoryview)):
        raise InputError(
            f"{label}: the file object reads {type(head).__name__}, not bytes; "
            "open the file in binary mode (open(path, 'rb')) or pass io.BytesIO"
        )
    return head


def _expand_paths(source: Any, globs: bool = True) -> list[str] | None:
    """The files of a list of paths or (when `globs`) a glob pattern; None for any other
    source."""
    if isinstance(source, (list, tuple)):
        if not source:
            raise InputError("no files to profile: the list of paths is empty")
        return [str(p) for p in source]
    if (
        globs
        and isinstance(source, str)
        and not os.path.exists(source)
        and GLOB_CHARS & set(source)
    ):
        import glob  # lazy: start-up

        found = sorted(p for p in glob.glob(source, recursive=True) if os.path.isfile(p))
        if not found:
            raise InputError(f"{source}: no file matches this pattern")
        return found
    return None


def _header_difference(got: list[str], first: list[str]) -> str:
    """SPEC 0.8: where a file's header first differs from the first file's, in words."""
    for i, (a, b) in enumerate(zip(got, first)):
        if a != b:
            return f"column {i + 1} is '{a}', not '{b}'"
    n = len(first)
    if len(got) > n:
        more = len(got) - n
        return f"{more} more column{'s' if more > 1 else ''}, from column {n + 1} '{got[n]}'"
    return f"{len(got)} columns, not {n}: no column {len(got) + 1} '{first[len(got)]}'"


def _summarize_many(
    paths: list[str],
    overrides,
    options: Options,
    name: str | None,
    block_size: int,
    on_bytes,
    on_rows,
    engine: str,
    opener: Opener | None = None,
) -> Summarized:
    if options.proxy_with and len(paths) > 1:
        raise InputError(
            f"{spelled('--proxy-hints-with')}: profile one file (rows are aligned with one file)"
        )
    total: Summary | None = None
    checked: dict[str, str] = {}
    for path in paths:
        summary, checked, _ = _summarize_path(
            path, path, overrides, options, block_size, on_bytes, on_rows, engine, opener
        )
        if total is None:
            total = summary
            continue
        if summary.columns != total.columns:
            raise InputError(
                f"{path}: its columns differ from {paths[0]}'s "
                f"({_header_difference(summary.columns, total.columns)}); files profiled "
                "as one dataset must have the same header"
            )
        total = total.merge(summary)
    assert total is not None
    if name is not None or len(paths) > 1:
        total.name = name or display_name(paths)
    return Summarized(total, checked, options)


def _summarize_path(
    path: str,
    label: str,
    overrides,
    options: Options,
    block_size: int,
    on_bytes,
    on_rows,
    engine: str,
    opener: Opener | None = None,
) -> Summarized:
    fh, regular = (opener or open_input)(path, label)
    try:
        with fh:
            fmt, source = sniff_format(fh, path, regular)
            if fmt == "gzip":  # SPEC 0.8: a gzip-compressed CSV, decompressed as read
                return _summarize_stream(
                    Gunzipped(source, label, on_bytes),
                    label,
                    overrides,
                    options,
                    block_size,
                    None,  # on_bytes saw the compressed bytes
                    on_rows,
                    "reference",
                )
            if fmt is not None:
                summary, checked = summarize_file(
                    source, fmt, label, overrides, options, on_bytes, on_rows
                )
                return Summarized(summary, checked, options)
            # a pipe or special file: no fast path (it needs seeking)
            return _summarize_stream(
                source,
                label,
                overrides,
                options,
                block_size,
                on_bytes,
                on_rows,
                engine if regular else "reference",
            )
    except PermissionError:
        raise InputError(f"{label}: permission denied") from None
    except IsADirectoryError:
        raise InputError(f"{label}: is a directory, not a file") from None
    except OSError as exc:
        if exc.filename is None and exc.errno in (errno.ENOSPC, errno.EBADF):
            raise  # writing the report failed, not reading the input
        raise InputError(f"{label}: cannot read ({exc.strerror or exc})") from None


def _stream_size(stream: BinaryIO) -> int | None:
    """Bytes left in a seekable stream, or None when it cannot seek."""
    try:
        if not stream.seekable():
            return None
        here = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(here)
        return end - here
    except (AttributeError, OSError, ValueError):
        return None


def _summarize_stream(
    stream: BinaryIO,
    name: str,
    overrides,
    options: Options,
    block_size: int,
    on_bytes,
    on_rows=None,
    engine: str = "auto",
) -> Summarized:
    if engine != "reference":
        size = _stream_size(stream)
        if size is not None and (engine == "fast" or size >= FAST_MIN_BYTES):
            from . import fastpath  # lazy: start-up

            got = fastpath.summarize_csv(
                stream, name, overrides, options, on_bytes=on_bytes, on_rows=on_rows
            )
            if not isinstance(got, fastpath.Fallback):
                summary, checked = got
                return Summarized(summary, checked, options)
            on_bytes = fastpath.skip_reported(on_bytes, got.bytes_reported, len)
            on_rows = fastpath.skip_reported(on_rows, got.rows_reported, int)
    header, batches = read_records(
        stream,
        name,
        encoding=options.encoding,
        delimiter=options.delimiter,
        names=options.names,
        skip_lines=options.skip_lines,
        block_size=block_size,
        on_bytes=on_bytes,
        one_column=options.one_column,
    )
    checked = check_overrides(overrides, header, options)
    builder = SummaryBuilder(name, header, checked, options)
    for batch in batches:
        builder.add_rows(batch)
        if on_rows is not None:
            on_rows(len(batch))
    return Summarized(builder.finish(), checked, options)


@keyword_args("faircode.profile", "overrides", "opts")
def profile(
    source: Any,
    *,
    overrides: dict[str, str] | None = None,
    opts: dict | Options | None = None,
    name: str | None = None,
    block_size: int = BLOCK_SIZE,
    on_bytes: Callable[[bytes], None] | None = None,
    on_rows: Callable[[int], None] | None = None,
    engine: str = "auto",
    opener: Opener | None = None,
) -> ProfileResult:
    """Profile who is, and is not, represented in a table: its score, grade and findings.

    Reads the source once (:func:`summarize`, SPEC 0) and analyses the counts: the
    demographic dimensions detected (SPEC 1), their groups and shares (SPEC 3), the
    score and grade (SPEC 5), and the findings with their verdicts (SPEC 18).

    Parameters
    ----------
    source : str, path-like, list of paths, binary file object or DataFrame
        A path (CSV, Parquet or Arrow IPC, told apart by their magic bytes; a
        gzip-compressed CSV), a glob string or a list of paths (one dataset: the headers
        must be equal), a binary file object, or a pandas / polars DataFrame or a
        pyarrow Table (SPEC 0.8).
    overrides : dict of str to str, optional
        ``--map``: column name -> kind (``"sex"``, ``"race"``, ``"age"``, ...,
        ``"categorical"`` or ``"ignore"``), forcing or refusing a dimension (SPEC 1.6).
    opts : dict or Options, optional
        The options of SPEC 7 by their Python names, e.g. ``{"min_share": 0.1, "cross":
        ["race", "sex"], "label": "hired"}``; unnamed ones take their defaults.
    name : str, optional
        What the result's reports call the source (SPEC 6.2); default the path as
        given, ``<dataframe>`` for a frame.
    block_size, on_bytes, on_rows, engine, opener
        How the source is read, as for :func:`summarize`: bytes read at a time
        (default 1 MiB), a callback seeing every byte read, a callback given each
        number of rows counted, ``"auto"`` / ``"fast"`` / ``"reference"`` (the pyarrow
        CSV fast path or not; the result is the same), and a function opening each path.

    Returns
    -------
    ProfileResult
        A dict (SPEC 6; ``faircode/schemas/profile.schema.json``) that displays itself
        in a notebook (SPEC 6.2): ``n_rows``, ``n_cols``, ``columns``,
        ``overall_score`` (0-100), ``overall_ci`` and ``grade`` (A-F; all None when no
        dimension is scored, SPEC 5), ``dimensions`` (each with its ``groups``, shares
        and intervals), ``intersections``, ``unscored``, ``dropped``, ``label_rates``
        (with ``label``), ``missing_by_group``, ``findings`` (each with its
        ``verdict``), ``evidence`` and ``flags`` (the findings' texts). The provenance
        block is not in it: see :func:`provenance_for` (SPEC 10).

    Raises
    ------
    InputError
        Bad input, in one line naming the file or option: a path that names no file
        (``data.csv: no such file``), an unknown option or one out of its range
        (``--min-share: 2 is out of range (0..1)``), an override naming no column
        (``--map: no column named 'gndr' ...``), a file that is not readable text, ...

    Examples
    --------
    >>> from importlib import resources
    >>> import faircode
    >>> sample = str(resources.files("faircode") / "data" / "compas-scores-two-years.csv")
    >>> r = faircode.profile(sample)
    >>> r["n_rows"], r["overall_score"], r["grade"]
    (7214, 82, 'B')
    >>> [d["name"] for d in r["dimensions"]]
    ['sex', 'age', 'age_cat', 'race']
    >>> first = r["findings"][0]
    >>> first["verdict"], first["text"]
    ('confirmed', "sex: imbalance ratio 4.2 ('Male' vs 'Female')")
    >>> faircode.profile(sample, opts={"min_share": 2})
    Traceback (most recent call last):
    ...
    faircode.errors.InputError: min_share: 2 is out of range (0..1)
    """
    summary, checked, options = summarize(
        source,
        overrides=overrides,
        opts=opts,
        name=name,
        block_size=block_size,
        on_bytes=on_bytes,
        on_rows=on_rows,
        engine=engine,
        opener=opener,
    )
    name = name or display_name(source)
    return ProfileResult(analyze_read(summary, checked, options), name=name)


def analyze_read(summary: Summary, checked: dict[str, str], options: Options) -> dict:
    """analyze() of a summary whose nested columns (SPEC 0.4, `summary.unread`) are
    listed in `dropped`, in column order with the others, as
    `{"name", "kind", "n_groups": null, "why": "nested values (list) are not profiled"}`
    (`kind`: the declared one, else the one the name gives, else null); a column the
    overrides ignore is not listed."""
    if not summary.unread:
        return analyze(summary, checked, options)
    cols = summary.columns
    result = analyze(summary, {**checked, **{cols[i]: "ignore" for i in summary.unread}}, options)
    listed = [
        {
            "name": cols[i],
            "kind": checked.get(cols[i]) or kind_from_name(cols[i]),
            "n_groups": None,
            "why": f"nested values ({word}) are not profiled",
        }
        for i, word in sorted(summary.unread.items())
        if checked.get(cols[i]) != "ignore"
    ]
    at = {c: i for i, c in enumerate(cols)}
    result["dropped"] = sorted([*result["dropped"], *listed], key=lambda d: at[d["name"]])
    return result
