"""The pyarrow CSV fast path gives the reference reader's Summary, or its exact error.

Generated files mix every SPEC section 0 quirk (line ends, BOM, blank and whitespace
lines, quotes, short and long rows, invalid UTF-8, NUL, unterminated quotes) and are
read with tiny Arrow blocks, so quoted newlines straddle block boundaries.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

pytest.importorskip("pyarrow")

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from util import ADULT_NAMES, data_file  # noqa: E402

import faircode  # noqa: E402
from faircode import InputError, fastpath, profiler  # noqa: E402
from faircode.columnar import _padded, null_mask  # noqa: E402
from faircode.options import resolve  # noqa: E402

NAMES = ["sex", "race", "age", "zip", "note", "grp", "id", "sex"]
CELLS = [
    "M",
    "F",
    " M ",
    "\tF",
    "A",
    "B",
    "C",
    "",
    "NA",
    " NA ",  # missing once trimmed (SPEC 0.4): found from the cell's end bytes
    "null\t",
    "?",
    "nan",
    "None",
    "34",
    "34.0",
    "[20-30)",
    "-1",
    "200",
    "x\u00e9",
    "\U0001f600",
    "a b",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "11",
    "12",
    "13",
    "14",
    "15",
    "16",
    "17",
    "18",
    "19",
    "20",
    "21",
    "22",
]
EOLS = ["\n", "\r\n", "\r"]


def quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


@st.composite
def cell(draw, delim: str) -> str:
    kind = draw(st.integers(0, 12))
    base = draw(st.sampled_from(CELLS))
    if kind <= 6:
        return base
    if kind == 7:
        return quoted(base + draw(st.sampled_from(["\n", "\r\n", "\r", delim, '"', ""])) + base)
    if kind == 8:
        return quoted(base) + draw(st.sampled_from(["x", " ", '"', "ab"]))  # after the quote
    if kind == 9:
        return base + '"' + base  # a quote inside an unquoted field
    if kind == 10:
        return quoted("\n".join([base] * draw(st.integers(1, 30))))  # a long quoted field
    if kind == 11:
        return " " + quoted(base)
    return quoted("")


@st.composite
def csv_bytes(draw) -> bytes:
    delim = draw(st.sampled_from([",", ",", ";", "\t", "|"]))
    width = draw(st.integers(1, 6))
    names = draw(st.permutations(NAMES))[:width]
    eol = draw(st.sampled_from(EOLS))
    mixed = draw(st.booleans())
    lines = []
    if draw(st.integers(0, 4)) == 0:  # blank lines before the header (a cut may fall there)
        lines.extend([""] * draw(st.sampled_from([1, 2, 40])))
    lines.append(delim.join(names))
    for _ in range(draw(st.integers(0, 120))):
        roll = draw(st.integers(0, 40))
        if roll == 0:
            lines.append("")  # blank line
        elif roll == 1:
            lines.append(draw(st.sampled_from([" ", "\t", "  ", delim])))
        elif roll == 2:
            n = draw(st.integers(1, max(1, width - 1)))  # short row
            lines.append(delim.join(draw(cell(delim)) for _ in range(n)))
        elif roll == 3 and draw(st.integers(0, 15)) == 0:
            lines.append(delim.join(draw(cell(delim)) for _ in range(width + 1)))  # long
        else:
            lines.append(delim.join(draw(cell(delim)) for _ in range(width)))
    text = ""
    for line in lines:
        text += line + (draw(st.sampled_from(EOLS)) if mixed else eol)
    if draw(st.booleans()):
        text = text.rstrip("\r\n")  # no final line end
    if draw(st.integers(0, 9)) == 0:
        text += eol + '"never closed' + eol + "x"
    data = text.encode()
    if draw(st.integers(0, 4)) == 0:
        data = b"\xef\xbb\xbf" + data
    bad = draw(st.integers(0, 20))
    if bad <= 1 and data:
        pos = draw(st.integers(0, len(data)))
        data = (
            data[:pos]
            + [b"\x00", b"\xff", b"\xe2\x82", b"\xc0\x80"][draw(st.integers(0, 3))]
            + data[pos:]
        )
    return data


def reference(data: bytes, **opts):
    try:
        return faircode.summarize(io.BytesIO(data), opts=opts, name="t.csv", engine="reference")[0]
    except InputError as err:
        return str(err)


def fast(data: bytes, block_size: int, probe_rows: int = 1, parts: int = 1, **opts):
    """(summary or error text, whether the fast path itself produced it). A probe of one
    record leaves every later problem to Arrow and the checks around it."""
    got = fastpath.summarize_csv(
        io.BytesIO(data),
        "t.csv",
        None,
        resolve(opts),
        block_size=block_size,
        probe_rows=probe_rows,
        parts=parts,
    )
    if isinstance(got, fastpath.Fallback):
        return reference(data, **opts), False
    return got[0], True


@settings(max_examples=150)
@given(
    csv_bytes(),
    st.sampled_from([64, 200, 1000, 1 << 16]),
    st.integers(2, 20),
    st.sampled_from([1, 3, 1000]),
    st.integers(1, 4),
)
def test_fast_path_equals_reference_reader(data, block_size, max_categorical, probe_rows, parts):
    """Whatever the block size and however many parts the file is cut into and parsed
    at once (a cut may fall inside a quoted field)."""
    opts = {"max_categorical": max_categorical}
    assert fast(data, block_size, probe_rows, parts, **opts)[0] == reference(data, **opts)


@settings(max_examples=60)
@given(csv_bytes(), st.sampled_from([64, 1000]), st.integers(1, 4))
def test_parts_report_bytes_in_order_and_rows_once(data, block_size, parts):
    """on_bytes sees the file's bytes in order (a hash needs that) even though parts are
    parsed at once; on_rows adds up to the rows; a fallback says how much was reported."""
    seen: list[bytes] = []
    rows: list[int] = []
    got = fastpath.summarize_csv(
        io.BytesIO(data),
        "t.csv",
        None,
        resolve(None),
        block_size=block_size,
        probe_rows=1,
        parts=parts,
        on_bytes=seen.append,
        on_rows=rows.append,
    )
    if isinstance(got, fastpath.Fallback):
        assert b"".join(seen) == data[: got.bytes_reported]
        assert sum(rows) == got.rows_reported
    else:
        assert b"".join(seen) == data
        assert sum(rows) == got[0].n_rows


@pytest.mark.parametrize(
    "data",
    [
        b"\n" * 40 + b"sex,race\nM,A\nF,B\n",
        b"\xef\xbb\xbf" + b"\r\n" * 30 + b"sex,race\r\nM,A\r\nF,B\r\n",
    ],
)
def test_no_cut_before_the_end_of_the_header(data):
    """Part 0 must hold the header (only there is it skipped): found by a deep
    hypothesis run, where a cut fell among blank lines before the header."""
    for parts in (2, 3, 4):
        bounds = fastpath._split_points(lambda off, n: data[off : off + n], 0, len(data), parts)
        assert all(b >= data.index(b"race") + 5 for b in bounds[1:])
        assert fast(data, 64, parts=parts)[0] == reference(data)


def _rows(n: int, mark: Callable[[int, str], str]) -> bytes:
    """A header and n rows, row k written as mark(k, row)."""
    rows = [mark(k, f"{'M' if k % 2 else 'F'},{'A' if k % 3 else 'B'}\n") for k in range(n)]
    return ("sex,race\n" + "".join(rows)).encode()


@pytest.mark.parametrize(
    "mark",
    [
        lambda k, row: "\ufeff" + row if k % 2 else row,  # a BOM that starts a line: data
        lambda k, row: row + "\x1a\n" if k % 2 else row,  # a Ctrl-Z line inside: data
    ],
)
def test_no_cut_before_a_bom_nor_after_a_ctrl_z_line(mark):
    """SPEC 0.8: Arrow drops a BOM at the start of a part, so a cut before a row that
    starts with one changed its label ('\ufeffM' became 'M')."""
    data = _rows(300, mark)
    for parts in (2, 3, 4):
        bounds = fastpath._split_points(lambda off, n: data[off : off + n], 0, len(data), parts)
        assert len(bounds) == parts + 1
        for cut in bounds[1:-1]:
            assert data[cut : cut + 3] != b"\xef\xbb\xbf" and data[cut - 2] != 0x1A
        summary, on_fast = fast(data, 64, parts=parts)
        assert on_fast and summary == reference(data)


@pytest.mark.parametrize("repeat", ['\ufeff"sex",race\n', '\ufeff"sex"x,race\n'])
def test_a_repeated_header_after_a_bom_with_its_first_name_quoted(repeat):
    """SPEC 0.3: Arrow reads `\ufeff"sex"` as written; the witness of the first column
    falls back on a value that starts with U+FEFF and a quote, and the reference reader
    decides (it was counted as a row, exit 0)."""
    data = _rows(300, lambda k, row: repeat + row if k == 150 else row)
    for parts in (1, 2, 3):
        summary, on_fast = fast(data, 64, parts=parts)
        assert summary == reference(data)
    assert str(
        reference(_rows(300, lambda k, row: '\ufeff"sex",race\n' + row if k == 150 else row))
    ).startswith("t.csv: line 152 repeats the header")


@pytest.mark.parametrize("end", [b"\x1a", b"\x1a\n", b"\x1a\r\n", b"\x1a\r"])
def test_a_last_line_of_only_a_ctrl_z_on_the_fast_path(end):
    """SPEC 0.2: Arrow would read it as a row; it is left out of the parts, and on_bytes
    still sees every byte (the dataset hash is the file's)."""
    data = _rows(300, lambda k, row: row) + end
    for parts in (1, 3):
        seen: list[bytes] = []
        got = fastpath.summarize_csv(
            io.BytesIO(data),
            "t.csv",
            None,
            resolve(None),
            block_size=64,
            parts=parts,
            on_bytes=seen.append,
        )
        assert not isinstance(got, fastpath.Fallback)
        assert got[0] == reference(data) and got[0].n_rows == 300
        assert b"".join(seen) == data


@pytest.mark.parametrize("block_size", [16, 17, 64, 100])
def test_crlf_inside_quotes_at_every_block_boundary(block_size):
    """Arrow drops the LF of a CRLF inside quotes when a block ends between the two:
    found by a deep hypothesis run (80 of these 960 cases were silently wrong)."""
    for pad in range(120):
        data = b"a,b\n" + b"x" * pad + b',"B\r\nB"\n1,2\r\n"\r\n\r\n",\r\r\n' + b'y,"\r\n"\n' * 5
        for parts in (1, 2):
            assert fast(data, block_size, parts=parts)[0] == reference(data), (pad, parts)


def test_a_cut_inside_a_quoted_header_is_read_again_in_one_part():
    data = b'"s' + b"\n" * 30 + b'x",race\n' + b"M,A\nF,B\n" * 3
    cuts = fastpath._split_points(lambda off, n: data[off : off + n], 0, len(data), 4)
    assert cuts[1] < data.index(b"race")  # inside the header's quotes
    summary, on_fast = fast(data, 64, parts=4)
    assert on_fast and summary == reference(data)


def test_a_cut_inside_a_quoted_field_is_read_again_in_one_part():
    """The cut prefers a LF between lines with even numbers of quotes: the inner lines
    of this long quoted field qualify, so the first part ends inside quotes, the
    sentinel shows it, and the file is read again as one part (still on the fast path)."""
    body = "\n".join(f"line {k}" for k in range(400))
    rows = [f'{"F" if k % 3 else "M"},A,"{body if k == 5 else "note"}"' for k in range(10)]
    data = ("sex,race,note\n" + "\n".join(rows) + "\n").encode()
    bounds = fastpath._split_points(lambda off, n: data[off : off + n], 0, len(data), 2)
    inside = data.index(b"line 0"), data.index(b"line 399")
    assert inside[0] < bounds[1] < inside[1]  # the cut does fall inside the field
    summary, on_fast = fast(data, 1 << 16, parts=2)
    assert on_fast and summary == reference(data)


@settings(max_examples=30)
@given(csv_bytes(), st.sampled_from([64, 1000]))
def test_callbacks_see_every_byte_once_and_every_row(data, block_size):
    seen: list[bytes] = []
    rows: list[int] = []
    try:
        summary, _, _ = faircode.summarize(
            io.BytesIO(data), engine="fast", on_bytes=seen.append, on_rows=rows.append
        )
    except InputError:
        return
    assert b"".join(seen) == data  # even when the fast path fell back half way
    assert sum(rows) == summary.n_rows


NASTY_BUT_VALID = {
    "cr line ends": b"sex,race\rM,A\rF,B\r\rF,A",
    "crlf + blank lines": b"\r\n\r\nsex,race\r\n\r\nM,A\r\nF,B\r\n\r\n",
    "bom": b"\xef\xbb\xbfsex,race\nM,A\nF,B\n",
    "whitespace and delimiter-only lines": b"sex,race\n \nM,A\n\t\n,\nF,B\n",
    "short rows": b"sex,race,age\nM\nF,B\nM,A,30\n",
    "text after closing quote": b'sex,race\n"M"x,A\n"F" ,"B"y\n',
    "quote inside unquoted field": b'sex,race\nM"a,A\nF,B"b"\n',
    "escaped quotes": b'sex,race\n"M""",A\n"""F",B\n',
    "semicolons": b"sex;race\nM;A\nF;B\n",
}


@pytest.mark.parametrize("case", sorted(NASTY_BUT_VALID))
def test_valid_quirks_stay_on_the_fast_path(case):
    data = NASTY_BUT_VALID[case]
    got, on_fast_path = fast(data, 1 << 16)
    assert on_fast_path, case
    assert got == reference(data)


@settings(max_examples=200)
@given(
    st.lists(
        st.none()
        | st.text(st.sampled_from([" ", "\t", "\n", "\r", "\x01", "!", "a", "é", "\U0001f600"]))
    ),
    st.lists(st.integers(0, 6), max_size=4),
    st.booleans(),
)
def test_padded_cells_are_exactly_those_trimming_changes(cells, cuts, large):
    """columnar._padded, on plain and chunked arrays (cut anywhere, empty chunks too):
    the non-null cells that start or end with a space or a tab, nothing else (a cell
    ending in another byte under 33, a CR or LF, is not)."""
    want = [j for j, c in enumerate(cells) if c and (c[0] in " \t" or c[-1] in " \t")]
    typ = pa.large_string() if large else pa.string()
    whole = pa.array(cells, typ)
    assert _padded(whole, null_mask(whole)).tolist() == want
    assert _padded(whole.slice(1), null_mask(whole.slice(1))).tolist() == [j - 1 for j in want if j]
    bounds, at = [], 0
    for step in cuts:
        at = min(len(cells), at + step)
        bounds.append(at)
    edges = [0, *bounds, len(cells)]
    chunked = pa.chunked_array([whole.slice(a, b - a) for a, b in zip(edges, edges[1:])], typ)
    assert _padded(chunked, null_mask(chunked)).tolist() == want


def test_a_null_slot_holding_padded_bytes_is_not_padded():
    """Arrow lets a null slot of a string array span bytes (its content is undefined):
    one holding " NA" is null, not a padded token."""
    text = pa.py_buffer(b" NAx y")
    offsets = pa.py_buffer(np.array([0, 3, 4, 6], dtype=np.int32).tobytes())
    validity = pa.py_buffer(bytes([0b110]))  # cell 0 null
    arr = pa.Array.from_buffers(pa.string(), 3, [validity, offsets, text], null_count=1)
    assert arr.to_pylist() == [None, "x", " y"]
    assert _padded(arr, null_mask(arr)).tolist() == [2]


def test_padded_tokens_of_a_text_only_column_are_found_in_every_block():
    """A column dead after the probe is read as plain text for its missing cells (SPEC
    17.2), a count batch of many blocks chunk by chunk: " NA" and "null\t" are missing
    once trimmed wherever they fall, " n7" and "n7 " are not."""
    rows = ["sex,note"]
    for r in range(3000):
        note = f"n{r}" if r < 40 else [" NA", "null\t", f" n{r}", f"n{r} "][r % 4]
        rows.append(f"{'MF'[r % 2]},{note}")
    data = ("\n".join(rows) + "\n").encode()
    for block, parts in ((256, 1), (1000, 2), (1 << 16, 1)):
        got, on_fast_path = fast(data, block, probe_rows=30, parts=parts, max_categorical=5)
        assert on_fast_path
        assert got.counts[1] is None  # dead: its cells were never labelled
        assert got.missing_all[1] == 1480  # rows 40..2999 with r % 4 in (0, 1)
        assert got.missing_by[0][1] == {"M": 740, "F": 740}
        assert got == reference(data, max_categorical=5)


@pytest.mark.parametrize("na", [["unknown"], [["note", "unknown"]]])
def test_declared_missing_texts_of_a_text_only_column_are_found_in_every_block(na):
    """`na` adds texts the Arrow reader does not make null: they are looked up in the
    dead column's chunks, as written and once trimmed."""
    rows = ["sex,note"]
    for r in range(3000):
        note = f"n{r}" if r < 40 else [" NA", "unknown", " unknown\t", f"n{r} ", "null"][r % 5]
        rows.append(f"{'MF'[r % 2]},{note}")
    data = ("\n".join(rows) + "\n").encode()
    for block, parts in ((256, 1), (1000, 2)):
        got, on_fast_path = fast(data, block, probe_rows=30, parts=parts, max_categorical=5, na=na)
        assert on_fast_path
        assert got.missing_all[1] == 2368  # rows 40..2999 with r % 5 != 3
        assert got.missing_by[0][1] == {"M": 1184, "F": 1184}
        assert got == reference(data, max_categorical=5, na=na)


def test_quoted_newlines_straddling_many_blocks_stay_on_the_fast_path():
    rows = [
        f'{"MF"[i % 2]},{"ABC"[i % 3]},"line {i},\nnext ""{i}""\r\nend",{i % 90}\n'
        for i in range(3000)
    ]
    data = ("sex,race,note,age\n" + "".join(rows)).encode()
    for block in (256, 1000, 4096):
        got, on_fast_path = fast(data, block)
        assert on_fast_path
        assert got == reference(data)


@pytest.mark.parametrize(
    "data,message",
    [
        (b"sex,race\nM,A\n1,2,3\n", "t.csv: line 3: 3 fields but the header has 2"),
        (b'sex,race\nM,A\nF,"open\n', "t.csv: line 3: a quoted field is never closed"),
        (b"sex,race\nM,A\nF,\x00\n", "t.csv: byte 15: NUL byte"),
        (b"sex,race\nM,A\nF,\xff\n", "t.csv: byte 15: not valid UTF-8"),
        (b"sex\nM\n" + b'"x\n' + b"M\n" * 3000, "t.csv: line 3: a quoted field is never closed"),
    ],
    ids=["long row", "unterminated", "nul", "utf8", "unterminated after many blocks"],
)
def test_problems_fall_back_and_report_the_reference_error(data, message):
    got, on_fast_path = fast(data, 256)
    assert not on_fast_path
    assert got.startswith(message)


UTF8_PIECES = [b"a", b"\n", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\x80", b"\xc3"]
# (cut short, overlong, a surrogate, past U+10FFFF, never a lead byte)
UTF8_PIECES += [b"\xe2\x82", b"\xf0\x9f", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]
UTF8_PIECES += [b"\xff"]


@settings(max_examples=400)
@given(
    st.lists(
        st.one_of(st.sampled_from(UTF8_PIECES), st.binary(min_size=1, max_size=4)),
        max_size=30,
    ),
    st.lists(st.integers(1, 9), min_size=1, max_size=8),
)
def test_a_part_refuses_exactly_what_python_cannot_decode(pieces, sizes):
    """The part stream's UTF-8 check (Arrow's validator on whole sequences, an incomplete
    one carried to the next block) accepts a part iff Python decodes it, however the
    reads cut it: overlong forms, surrogates, code points past U+10FFFF, lone
    continuation bytes, a sequence cut off at the end."""
    data = b"".join(pieces)
    try:
        data.decode("utf-8")
        expected = b"\x00" not in data  # (a NUL byte is refused too, by its own check)
    except UnicodeDecodeError:
        expected = False
    part = fastpath._PartStream(
        lambda offset, n: data[offset : offset + n], 0, len(data), fastpath._Shared(), b"\n"
    )
    got, k = True, 0
    try:
        while part.read(sizes[k % len(sizes)]):
            k += 1
    except fastpath._Abort:
        got = False
    assert got == expected
    if b"\x00" not in data:
        assert expected or part.problem in ("invalid UTF-8", "truncated UTF-8 sequence at the end")


@pytest.mark.parametrize(
    "data,cut",
    [
        (b"", 0),
        (b"ab", 2),
        (b"a\xc3", 1),
        (b"a\xc3\xa9", 3),
        (b"\xe2\x82", 0),
        (b"x\xf0\x9f\x98", 1),
        (b"\xf0\x9f\x98\x80", 4),
        (b"\x80\x80\x80\x80", 4),  # no lead byte: left in, for the check to refuse
        (b"a\xff", 2),
    ],
)
def test_utf8_complete_holds_back_only_an_unfinished_sequence(data, cut):
    assert fastpath.utf8_complete(data) == cut


@pytest.mark.parametrize(
    "path",
    ["compas-scores-two-years.csv", "diabetic_data.csv", "compas-scores-raw.csv", "insurance.csv"],
)
def test_real_files_stay_on_the_fast_path_and_match(path):
    opts = resolve(None)
    with open(data_file(path), "rb") as fh:
        got = fastpath.summarize_csv(fh, path, None, opts)
    assert not isinstance(got, fastpath.Fallback), got
    ref, _, _ = faircode.summarize(data_file(path), name=path, engine="reference")
    assert got[0] == ref


@pytest.mark.parametrize("parts", [2, 3, 4])
@pytest.mark.parametrize(
    "opts,overrides",
    [
        ({}, None),
        ({"cross": ["sex", "race"], "max_categorical": 5}, {"c_charge_degree": "categorical"}),
        ({"delimiter": ","}, {"race": "ignore"}),
    ],
)
def test_real_files_in_parts_match_with_options(parts, opts, overrides):
    """Parts with options that change what is counted (cross, caps, overrides)."""
    path = "compas-scores-two-years.csv"
    with open(data_file(path), "rb") as fh:
        got = fastpath.summarize_csv(fh, path, overrides, resolve(opts), parts=parts)
    assert not isinstance(got, fastpath.Fallback), got
    ref, _, _ = faircode.summarize(
        data_file(path), overrides=overrides, opts=opts, name=path, engine="reference"
    )
    assert got[0] == ref


def test_headerless_file_in_parts_matches():
    """--names: no header row, so part 0's first record is data too."""
    opts = {"names": ADULT_NAMES}
    with open(data_file("adult.data"), "rb") as fh:
        got = fastpath.summarize_csv(fh, "adult.data", None, resolve(opts), parts=3)
    assert not isinstance(got, fastpath.Fallback), got
    ref, _, _ = faircode.summarize(
        data_file("adult.data"), opts=opts, engine="reference", name="adult.data"
    )
    assert got[0] == ref and ref.n_rows == 32561


def test_summarize_picks_the_fast_path_for_big_files(tmp_path, monkeypatch):
    calls = []
    real = fastpath.summarize_csv
    monkeypatch.setattr(fastpath, "summarize_csv", lambda *a, **k: calls.append(1) or real(*a, **k))
    faircode.summarize(data_file("insurance.csv"))
    assert not calls  # small: the reference reader, no pyarrow import needed
    monkeypatch.setattr(profiler, "FAST_MIN_BYTES", 1000)
    faircode.summarize(data_file("insurance.csv"))
    assert calls


def test_the_dispatch_threshold_is_the_fast_paths():
    assert profiler.FAST_MIN_BYTES == fastpath.FAST_MIN_BYTES


def test_short_rows_are_counted_without_loading_pandas():
    """Short rows (padded with missing cells, a 0.4 token among them) go to the fast
    path's builder as Arrow arrays made from buffers: pa.array would load pandas, a
    second of start-up for a CLI run on such a file."""
    import subprocess  # lazy: only this test starts a process
    import sys  # lazy: only this test starts a process

    code = (
        "import io, sys; from faircode import fastpath; from faircode.options import resolve\n"
        "data = b'sex,race,age\\n' + b'M,A,30\\nF\\nNA,B\\n' * 400\n"
        "got = fastpath.summarize_csv(io.BytesIO(data), 't.csv', None, resolve(None), "
        "block_size=256, probe_rows=1, parts=2)\n"
        "assert not isinstance(got, fastpath.Fallback), got\n"
        "print(got[0].n_rows, 'pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1200", "False"]


def _joined_exports(repeat_at: list[float], header: bytes = b"sex,race,grp,id\n") -> bytes:
    """A file over FAST_MIN_BYTES made by joining exports: the header line again at each
    fraction of the rows in `repeat_at` (quoted differently the second time)."""
    rows = 320_000
    body = [
        b"%s,%s,g%d,%d\n" % (b"MF"[k % 2 : k % 2 + 1], b"ABC"[k % 3 : k % 3 + 1], k % 7, k)
        for k in range(rows)
    ]
    for n, at in enumerate(sorted(repeat_at, reverse=True)):
        body.insert(int(rows * at), header if n % 2 else b'"sex","race",grp,id\r\n')
    data = header + b"".join(body)
    assert len(data) > fastpath.FAST_MIN_BYTES
    return data


@pytest.mark.parametrize(
    ("repeat_at", "parts"),
    [([0.5], 1), ([0.5], 2), ([0.75], 2), ([0.4, 0.9], 3), ([0.6, 0.9], 4)],
)
def test_a_repeated_header_falls_back_and_the_first_one_is_named(repeat_at, parts):
    """SPEC 0.3: a header line repeated inside the data (files joined with cat) was
    counted as a row by Arrow. The fast path sees the header's field among a column's
    values and falls back; the reference reader names the first such line, in whichever
    part it lies (0.75 of the rows is in the second of two parts)."""
    data = _joined_exports(repeat_at)
    line = 2 + int(320_000 * min(repeat_at))
    got, on_fast = fast(data, fastpath.ARROW_BLOCK_SIZE, parts=parts)
    assert not on_fast
    assert got.startswith(f"t.csv: line {line} repeats the header (files joined with cat?)")


def test_a_column_holding_its_own_name_is_still_profiled_on_the_fast_path_s_terms():
    """A checkbox export (a column's value is its name) is no repeated header unless
    every field matches: the fast path may fall back, the summary is the reference's."""
    data = _joined_exports([]).replace(b"\nM,A,g3,", b"\nsex,A,g3,")
    assert b"\nsex,A,g3," in data
    for parts in (1, 3):
        got, _ = fast(data, fastpath.ARROW_BLOCK_SIZE, parts=parts)
        assert got == reference(data) and got.n_rows == 320_000


def test_no_repeated_header_stays_on_the_fast_path():
    """The header's own values in part 0's first batch are sliced off, not taken for a
    repeat (the dictionary still holds them)."""
    data = _joined_exports([])
    for parts in (1, 3):
        got, on_fast = fast(data, fastpath.ARROW_BLOCK_SIZE, parts=parts)
        assert on_fast and got == reference(data)


@pytest.mark.parametrize("bom_first", [False, True])
@pytest.mark.parametrize(("at", "parts"), [(0.5, 1), (0.75, 2), (0.9, 4), (0.6, 3), (0.3, 3)])
def test_a_repeated_header_after_a_bom_falls_back_and_is_named(bom_first, at, parts):
    """SPEC 0.3: `cat` after an Excel export repeats the header line with a BOM
    (U+FEFF) before its first field, which Arrow keeps; the first column's look-up (the
    column the fast path watches here) takes that field too, whether the file's first
    line has a BOM or not, and in whichever part the repeat lies."""
    bom = b"\xef\xbb\xbf"
    header = b"sex,race,grp,id\n"
    data = _joined_exports([])
    assert data.startswith(header)
    rows = data[len(header) :].split(b"\n")
    k = int(320_000 * at)
    rows.insert(k, bom + header.rstrip(b"\n"))
    data = (bom if bom_first else b"") + header + b"\n".join(rows)
    got, on_fast = fast(data, fastpath.ARROW_BLOCK_SIZE, parts=parts)
    assert not on_fast
    assert got.startswith(f"t.csv: line {k + 2} repeats the header (files joined with cat?)")
