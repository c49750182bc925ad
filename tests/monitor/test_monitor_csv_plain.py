"""A plain CSV (no quote, CR or NUL byte; every row as wide as the header) is split
directly by ``monitor/io._plain_columns``; it must give the SPEC 0 reader's cells, and
any other file the reader's result or its exact error (SPEC-monitor 12.1)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faircode import reader
from faircode.monitor import io as mio
from faircode.monitor.errors import MonitorInputError
from faircode.options import spelling
from faircode.reader import not_utf8

NAMES = ["id", "y", " race ", "sex", "id", ""]
CELLS = ["0", "1", "", " ", "  x ", "NA", "None", "02134", "1.50", "x\u00e9", "\U0001f600"]
CELLS += ["a b", "\t", "-", "#N/A", "\u2028", "\x0b", "\x85", "r7"]
#: rare bytes that make a file not plain (the reader then reads it)
ODD = ['"', '"q"', "\r", "\x00", "\udcff"]


@st.composite
def csv_file(draw) -> tuple[bytes, list[str]]:
    delim = draw(st.sampled_from([",", ";", "\t", "|"]))
    width = draw(st.integers(1, len(NAMES)))
    names = draw(st.permutations(NAMES))[:width]
    cells = [c for c in CELLS if delim not in c]
    lines = [""] * draw(st.sampled_from([0, 0, 0, 1, 3]))  # blank lines first
    lines.append(delim.join(names))
    for _ in range(draw(st.integers(0, 40))):
        roll = draw(st.integers(0, 60))
        if roll == 0:
            lines.append("")  # a blank line: no record
        elif roll == 1:
            lines.append(" ")  # a line of spaces: a record
        elif roll == 2:
            n = draw(st.integers(1, width + 1))  # short or long row
            lines.append(delim.join(draw(st.sampled_from(cells)) for _ in range(n)))
        elif roll == 3:
            lines.append(delim.join(draw(st.sampled_from(ODD + cells)) for _ in range(width)))
        else:
            lines.append(delim.join(draw(st.sampled_from(cells)) for _ in range(width)))
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n", "\n\n"]))
    data = text.encode("utf-8", "surrogateescape")  # \udcff: an invalid byte
    if draw(st.integers(0, 6)) == 0:
        data = b"\xef\xbb\xbf" + data
    wanted = draw(st.lists(st.sampled_from(["id", "y", "race", "sex", "id.1"]), min_size=1))
    return data, list(dict.fromkeys(wanted))


def _read(path: Path, required: dict[str, str]) -> pd.DataFrame | str:
    try:
        return mio.read_table(path, required)
    except MonitorInputError as exc:
        return f"error: {exc}"


def _reference(path: Path, required: dict[str, str]) -> pd.DataFrame | str:
    """What the SPEC 0 reader alone gives (the plain split never tried)."""
    kept = mio.PLAIN_MAX_BYTES
    mio.PLAIN_MAX_BYTES = 0
    try:
        return _read(path, required)
    finally:
        mio.PLAIN_MAX_BYTES = kept


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csv_file(), st.sampled_from([1, 7, 64, 1 << 24]))
def test_plain_split_gives_the_readers_cells_or_its_error(
    case: tuple[bytes, list[str]], chunk: int
) -> None:
    data, wanted = case
    required = {c: "--attr" for c in wanted}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.csv"
        path.write_bytes(data)
        want = _reference(path, required)
        kept = mio.PLAIN_CHUNK_BYTES
        mio.PLAIN_CHUNK_BYTES = chunk
        try:
            got = _read(path, required)
        finally:
            mio.PLAIN_CHUNK_BYTES = kept
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
    else:
        assert list(got.columns) == list(want.columns)
        for c in want.columns:
            assert got[c].tolist() == want[c].tolist()
            assert got[c].dtype == want[c].dtype


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = reader.read_records

    def read_records(stream, name, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(name)
        return real(stream, name, **kwargs)

    monkeypatch.setattr(reader, "read_records", read_records)
    # faircode.monitor.io binds the reader's function at import: spy on its name too
    monkeypatch.setattr(mio, "read_records", read_records)
    return calls


def test_a_plain_file_is_split_without_the_record_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _spy(monkeypatch)
    path = tmp_path / "p.csv"
    path.write_text("\n\nid;y;race\nr1;1; a \n\nr2;0;\u00e9\n")
    frame = mio.read_table(path, {"id": "--id", "race": "--attr"})
    assert frame.to_dict("list") == {"id": ["r1", "r2"], "race": [" a ", "\u00e9"]}
    assert calls == []
    # a quoted cell, a CR line end or a short row: the record reader reads the file
    for text in ('id,y\n"r1",1\n', "id,y\r\nr1,1\r\n", "id,y\nr1\nr2,0\n"):
        path.write_text(text, newline="")
        mio.read_table(path, {"id": "--id"})
    assert len(calls) == 3


def test_a_long_row_is_the_readers_error(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text("id,y\nr1,1\nr2,0,5\n")
    with pytest.raises(MonitorInputError, match="line 3: 3 fields but the header has 2"):
        mio.read_table(path, {"id": "--id"})


@pytest.mark.parametrize(
    "text,message",
    [
        (
            "id,y\nr1,1,5\n",
            "line 2: 3 fields but the header has 2; quote values that contain the delimiter",
        ),
        (
            "sep=,\nid,y\nr1,1\n",
            "line 1 is Excel's delimiter line ('sep=,'), not a header; delete that line",
        ),
    ],
)
def test_the_monitor_gives_no_skip_lines_advice(tmp_path: Path, text: str, message: str) -> None:
    """SPEC 0.2, 0.3: the reader offers --skip-lines for a long first record and for
    Excel's sep= line; the monitor has no such option, so its messages do not."""
    path = tmp_path / "f.csv"
    path.write_text(text)
    with pytest.raises(MonitorInputError) as err:
        mio.read_table(path, {"id": "--id"})
    assert str(err.value) == f"{path}: {message}"


@pytest.mark.parametrize("where", ["header", "first line", "last line"])
def test_an_invalid_byte_in_a_plain_file_is_the_readers_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """No quote, CR or NUL, but a byte that is not UTF-8: the plain split declines the
    file wherever the byte is (it decodes each chunk once) and the reader names it."""
    lines = [b"id,race"] + [b"r%d,%s" % (k, b"ab"[k % 2 : k % 2 + 1]) for k in range(3000)]
    at = {"header": 0, "first line": 1, "last line": len(lines) - 1}[where]
    lines[at] = lines[at] + b"\xff"
    path = tmp_path / "bad.csv"
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(data)
    monkeypatch.setattr(mio, "PLAIN_CHUNK_BYTES", 1024)  # the byte in a later chunk
    got = _read(path, {"id": "--id", "race": "--attr"})
    assert got == _reference(path, {"id": "--id", "race": "--attr"})
    bad = data.index(b"\xff")
    assert got.endswith(f"byte {bad}: {not_utf8(0xFF)}")


@pytest.mark.parametrize("text", ["g,pred\nA,1\n", 'g,pred\n"A",1\n'])  # plain, then reader
def test_a_one_column_header_names_a_fix_the_monitor_has(tmp_path: Path, text: str) -> None:
    """SPEC-monitor 12.1: the monitor has no --delimiter or --one-column, so its message
    for a comma-separated .tsv names one it has (the profiler's is unchanged)."""
    required = {"g": "--attr", "pred": "--pred"}
    path = tmp_path / "ok.tsv"
    path.write_text(text)
    with pytest.raises(MonitorInputError) as caught:
        mio.read_table(path, required)
    assert str(caught.value) == (
        f"{path}: the header is one column, but ',' would split it into 2; a .tsv file is "
        "read with tab between fields: rename it to .csv, whose delimiter is detected"
    )
    assert mio.read_table(path.rename(tmp_path / "ok.csv"), required)["pred"].tolist() == ["1"]
    colon = tmp_path / "colon.tsv"
    colon.write_text(text.replace(",", ":"))
    with pytest.raises(MonitorInputError) as caught:
        mio.read_table(colon, required)
    assert str(caught.value).endswith(
        "':' would split it into 2; the monitor reads , ; tab or | between fields: convert the file"
    )
    # one column holding every named column reads as it is
    assert mio.read_table(colon, {"g:pred": "--pred"})["g:pred"].tolist() == ["A:1"]
    with spelling("flag"):  # the CLI's (SPEC 0.6)
        split = reader.one_column_split(["g,pred"], "\t")
    assert split == (
        "the header is one column, but ',' would split it into 2; pass --delimiter ',' (or "
        "--one-column if the table has one column)"
    )


@pytest.mark.parametrize(
    "text, again",
    [
        ("id,y\nr1,1\nid,y\nr2,0\n", "id,y"),
        ("id,y\nr1,1\nr2,0\nid,y", "id,y"),
        # `cat` after an Excel export repeats the header line with a BOM before it
        ("id,y\nr1,1\n\ufeffid,y\nr2,0\n", "\ufeffid,y"),
        ("\ufeffid,y\nr1,1\nr2,0\n\ufeffid,y\n", "\ufeffid,y"),
    ],
)
def test_a_repeated_header_is_the_readers_error(tmp_path: Path, text: str, again: str) -> None:
    """SPEC 0.3: files joined with cat repeat the header line (after a BOM too); the plain
    split counted it as a row ('y' a label). The reader names its line, without the
    profiler's advice of a pattern (the monitor reads one file)."""
    path = tmp_path / "joined.csv"
    path.write_bytes(text.encode())
    with pytest.raises(MonitorInputError) as err:
        mio.read_table(path, {"id": "--id", "y": "--label"})
    line = text.splitlines().index(again, 1) + 1
    assert str(err.value) == (
        f"{path}: line {line} repeats the header (files joined with cat?); remove the "
        "repeated header lines"
    )
