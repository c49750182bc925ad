"""SPEC section 0: reading a table."""

import io
import re

import pytest
from util import counts, dim, prof

import faircode
from faircode import InputError, reader
from faircode.reader import clean_header, sniff_delimiter


def columns(data: bytes, **opts) -> list[str]:
    summary, _, _ = faircode.summarize(io.BytesIO(data), opts=opts, name="t.csv")
    return summary.columns


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_every_line_end_reads_the_same(eol):
    data = eol.join([b"sex,race", b"M,A", b"F,B", b"F,A", b""])
    r = prof(data)
    assert r["n_rows"] == 3
    assert counts(r, "sex") == {"F": 2, "M": 1}


def test_quoted_delimiters_newlines_and_escaped_quotes_stay_in_the_value():
    r = prof(b'sex,note\nM,"a,\r\nb"\nF,"say ""hi"""\nF,x\n')
    assert r["n_rows"] == 3
    assert counts(r, "sex") == {"F": 2, "M": 1}
    summary, _, _ = faircode.summarize(io.BytesIO(b'g,note\n"x""y",1\n"a"b,2\nc"d,3\n'))
    assert summary.counts[0] == {'x"y': 1, "ab": 1, 'c"d': 1}


def test_bom_is_dropped_from_the_first_header():
    r = prof("\ufeffsex,x\nM,1\nF,2\n")
    assert r["dimensions"][0]["name"] == "sex"


@pytest.mark.parametrize(
    "line,expected",
    [
        ("a;b;c,d", ";"),
        ("a,b;c", ","),
        ("a\tb\tc", "\t"),
        ("a|b", "|"),
        ("abc", ","),
        ('"a,b,c";d;e', ";"),
        ("a;b\tc|d", ";"),
        ("a|b|c;d;e", ";"),
        ("a|b|c;d", "|"),
    ],
)
def test_delimiter_sniffing(line, expected):
    assert sniff_delimiter(line) == expected


@pytest.mark.parametrize(
    "line,following,expected",
    [
        ("sex,x\trace,y\tage", "M\tw\t30", "\t"),  # a TSV whose names hold commas
        ("sex,note\tx", "M,a\t\tb", ","),  # held as often as in the header wins
        ("a,b;c", "1;2;3", ";"),  # then held most often
        ("a,b;c", "1 2", ","),  # then the fixed order
        ("a,b;c", None, ","),  # no next line
        ("a,b;c;d", "1,2,3", ";"),  # no tie: the next line is not looked at
    ],
)
def test_a_tie_is_broken_by_the_next_line(line, following, expected):
    """SPEC 0.2: a tie in the header line was decided by the fixed order alone, so a TSV
    whose header holds as many commas as tabs was read as one comma-separated mess."""
    assert sniff_delimiter(line, following) == expected


def test_a_tied_header_is_read_with_the_delimiter_of_its_rows():
    for eol in ("\n", "\r\n", "\r"):
        r = prof(f"sex,x\trace,y\tage{eol}{eol}M\tw\t30{eol}F\tb\t40{eol}")
        assert r["columns"] == ["sex,x", "race,y", "age"]
        assert r["n_rows"] == 2
        r = prof(f"M,x\tw{eol}F\tb{eol}", names=["sex", "race"])
        assert counts(r, "sex") == {"M,x": 1, "F": 1}


def test_semicolon_file_is_sniffed_and_read():
    r = prof("sex;age\nM;30\nF;40\nF;50\n")
    assert counts(r, "sex") == {"F": 2, "M": 1}
    assert counts(r, "age") == {"30-44": 2, "45-59": 1}


def test_empty_and_duplicate_header_names():
    assert clean_header(["sex", "sex", "", " x ", "sex.1", "sex"]) == [
        "sex",
        "sex.1",
        "column_3",
        "x",
        "sex.1.1",
        "sex.2",
    ]
    assert columns(b"sex,sex,,x\nM,F,1,2\n") == ["sex", "sex.1", "column_3", "x"]


def test_blank_lines_are_skipped_but_delimiter_only_lines_are_rows():
    r = prof(b"\n\nsex,x\n\nM,1\n\n,\nF,2\n\n")
    assert r["n_rows"] == 3
    assert dim(r, "sex")["missing_count"] == 1


def test_short_rows_are_missing_cells():
    r = prof(b"race,sex\nA,M\nB\nA,F\n")
    assert r["n_rows"] == 3
    assert dim(r, "sex")["missing_count"] == 1


def test_long_row_names_its_line():
    with pytest.raises(InputError, match=r"^t.csv: line 4: 3 fields but the header has 2;"):
        prof(b"a,b\n1,2\n\n1,2,3\n")


@pytest.mark.parametrize(
    "data",
    [
        b"Staff export\n\nsex,race\nM,A\n",
        b"Export, 2024\r\nsex,x,race\r\nM,1,A\r\n",
        b"\xef\xbb\xbfTitle\rsex,race\rM,A\r",
    ],
)
def test_a_line_above_the_table_is_told_to_be_skipped_and_skipping_it_works(data):
    """SPEC 0.3: the first record below a header that is really a line above the table
    (a title) is long; the message offers skip_lines=h (the API's spelling of
    --skip-lines h, SPEC 0.6), which reads it."""
    with pytest.raises(InputError) as err:
        prof(data)
    got = re.fullmatch(
        r"t\.csv: line \d+: \d+ fields but the header \(line (\d+)\) has \d+; if the table "
        r"starts below line \1, pass skip_lines=\1 \(skip_lines_b=\1 for the second file of "
        r"compare or scan\); else quote values that contain the delimiter",
        str(err.value),
    )
    assert got, str(err.value)
    r = prof(data, skip_lines=int(got.group(1)))
    assert r["n_rows"] == 1 and dim(r, "sex")["groups"][0]["label"] == "M"


def test_a_repeated_header_is_refused_at_its_first_line():
    """SPEC 0.3: `cat a.csv b.csv` repeats the header inside the data; it was counted as
    a row (a group 'sex', exit 0). The first record equal to the header, field by field
    (quoted or not, after blank lines), is named; block boundaries do not matter."""
    data = b"sex,race\n" + b"M,A\nF,B\n" * 50 + b'\n"sex",race\r\nM,A\nsex,race\n'
    line = 103  # 1 header line, 100 rows, a blank line
    for block in (7, 64, 1 << 20):
        with pytest.raises(InputError) as err:
            faircode.summarize(io.BytesIO(data), opts={}, name="t.csv", block_size=block)
        assert str(err.value).startswith(f"t.csv: line {line} repeats the header (files joined")


@pytest.mark.parametrize(
    "header,repeat",
    [
        ("sex,race", '\ufeff"sex",race'),
        ('"s""ex",race', '\ufeff"s""ex",race'),
        ("sex,race", '\ufeff"s"ex,race'),
        ("\ufeffsex,race", '\ufeff"sex","race"'),
    ],
)
def test_a_repeated_header_after_a_bom_with_its_first_name_quoted(header, repeat):
    """SPEC 0.3: after a BOM a quote is not the field's first character, so the name
    was read as written (`"sex"`), matched nothing, and the line was counted as data."""
    data = f"{header}\nM,A\n{repeat}\nF,B\n".encode()
    for block in (1, 5, 1 << 20):
        with pytest.raises(InputError, match=r"^t.csv: line 3 repeats the header "):
            faircode.summarize(
                io.BytesIO(data), overrides=None, opts={}, name="t.csv", block_size=block
            )


@pytest.mark.parametrize("repeat", ['\ufeff"sex"x,race', '\ufeff"sex,race', '\ufeff"se""x",race'])
def test_after_a_bom_a_first_field_that_is_no_quoted_name_is_data(repeat):
    assert prof(f"sex,race\nM,A\n{repeat}\nF,B\n")["n_rows"] == 3


def test_a_repeated_header_without_the_dataset_advice_for_one_file_readers():
    """The monitor reads one file: no pattern to advise (reader.repeated_header)."""
    header, records = reader.open_table(io.BytesIO(b"a,b\n1,2\na,b\n"), "t.csv", skip_hint=False)
    with pytest.raises(InputError) as err:
        list(records)
    assert str(err.value) == (
        "t.csv: line 3 repeats the header (files joined with cat?); remove the repeated "
        "header lines"
    )


@pytest.mark.parametrize(
    "data",
    [
        b"sex,smoker,diabetic\nM,smoker,\nsex,,diabetic\nsex,smoker,\n",  # checkbox export
        b"sex,race\nM,A\nsex\n",  # a short row, padded
        b" sex,race\nM,A\nsex,race\n",  # the header's raw field is ' sex'
    ],
)
def test_a_record_equal_to_the_header_in_some_fields_only_is_data(data):
    r = prof(data)
    assert r["n_rows"] == data.count(b"\n") - 1


def test_long_row_line_counts_newlines_inside_quotes():
    with pytest.raises(InputError, match=r"line 4: 3 fields"):
        prof(b'a,b\n1,"x\ny"\n1,2,3\n')


def test_unterminated_quote_names_the_line_where_the_record_starts():
    with pytest.raises(InputError) as err:
        prof(b'a,b\n1,2\n3,"never\nclosed\n')
    assert str(err.value) == (
        "t.csv: line 3: a quoted field is never closed; add the closing quote"
    )


def test_quote_closed_at_the_very_end_without_newline_is_fine():
    r = prof(b'sex,b\nM,"x"\nF,"y"')
    assert r["n_rows"] == 2
    with pytest.raises(InputError, match="line 3: a quoted field is never closed"):
        prof(b'sex,b\nM,"x"\nF,"y')


def test_invalid_utf8_names_the_byte_offset():
    with pytest.raises(InputError) as err:
        prof(b"sex\nM\n\xffF\n")
    assert str(err.value) == (
        "t.csv: byte 6: not valid UTF-8 (the byte FF, 'ÿ' in Windows-1252); re-save the file "
        "as UTF-8, or pass its encoding: encoding='cp1252' if it is Windows-1252"
    )


@pytest.mark.parametrize(
    "data,offset",
    [
        (b"sex\nM\xc3\n", 5),
        (b"sex\n\xe2\x82A\n", 4),
        (b"sex\n\xc0\x80\n", 4),
        (b"sex\n\xed\xa0\x80\n", 4),
        (b"sex\nM\n\xf0\x9f\x98", 6),
        (b"s\n\x80", 2),
    ],
)
def test_ill_formed_sequences_report_their_first_byte(data, offset):
    with pytest.raises(InputError, match=rf"byte {offset}: not valid UTF-8"):
        prof(data)


def test_encoding_option_reads_latin1():
    r = prof("sex\nMännlich\nWeiblich\n".encode("latin-1"), encoding="latin-1")
    assert counts(r, "sex") == {"Männlich": 1, "Weiblich": 1}


def test_nul_byte_is_binary():
    with pytest.raises(InputError, match=r"^t.csv: byte 5: NUL byte; this looks like a binary"):
        prof(b"sex\nM\x00\n")


def test_problems_are_reported_in_file_order():
    with pytest.raises(InputError, match="line 3: 3 fields"):
        prof(b"a,b\n1,2\n1,2,3\n\xff\x00\n")
    with pytest.raises(InputError, match="byte 8: NUL"):
        prof(b"a,b\n1,2\n\x00,\xff\n1,2,3\n")


def test_empty_and_header_only_files():
    with pytest.raises(InputError, match="^t.csv: file is empty$"):
        prof(b"")
    with pytest.raises(InputError, match="^t.csv: file is empty$"):
        prof(b"\n\r\n\n")
    with pytest.raises(InputError, match="^t.csv: no data rows, only a header$"):
        prof(b"sex,race\n\n")


def test_labels_are_the_text_as_written_trimmed_of_ascii_space_and_tab():
    summary, _, _ = faircode.summarize(
        io.BytesIO("zip\n02134\n 02134\t\n2134\n1.50\n1.5\nTRUE\ntrue\n\u00a0x\n".encode())
    )
    assert summary.counts[0] == {
        "02134": 2,
        "2134": 1,
        "1.50": 1,
        "1.5": 1,
        "TRUE": 1,
        "true": 1,
        "\u00a0x": 1,
    }


def test_missing_tokens_are_exact_and_case_sensitive():
    tokens = ["", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "?", " NA ", "\t?"]
    near = ["na", "None", "none", "Null", "N.A.", "-", "??", "NAN"]
    data = "race\n" + "\n".join(f'"{t}"' for t in tokens + near) + "\n"
    summary, _, _ = faircode.summarize(io.BytesIO(data.encode()))
    assert summary.missing[0] == len(tokens)
    assert sorted(summary.counts[0]) == sorted(near)


def test_skip_lines_and_names_for_headerless_files():
    data = b"|junk line\n39, State-gov, Male\n50, Private, Female\n"
    r = prof(data, names="age,workclass,sex", skip_lines=1)
    assert r["n_rows"] == 2
    assert counts(r, "sex") == {"Female": 1, "Male": 1}


TRICKY = "\ufeffsexe;Gender;race;age;note\r" + "".join(
    f'{s};{g};{r};{a};"l\u00e9\r\nn{i};""q"""\r'
    for i, (s, g, r, a) in enumerate(
        [
            ("\U0001f600", "F", "\u05e9\u05dc\u05d5\u05dd", "34"),
            ("e\u0301", "M", "A", "[70-80)"),
            ("x", " F ", "B", ""),
        ]
        * 40
    )
)


@pytest.mark.parametrize("block", [1, 2, 3, 5, 64, 1000])
def test_block_size_never_changes_the_result(block):
    data = TRICKY.encode()
    whole = faircode.profile(io.BytesIO(data))
    assert faircode.profile(io.BytesIO(data), block_size=block) == whole


@pytest.mark.parametrize(
    "data",
    [
        b"sep=;\r\nsex;race\r\nM;A\r\n",
        b"sep=;\nsex;x;race\nM;1;A\n",
        b"\nsep=\t\nsex\trace\nM\tA\n",
        b"sep=,\nsex,race\nM,A\n",
    ],
)
@pytest.mark.parametrize("delimiter", [None, ",", ";"])
def test_excel_s_sep_line_is_no_header_and_skipping_it_works(data, delimiter):
    """SPEC 0.2: Excel's `sep=;` line is refused as a header (a two-column table was
    profiled with the columns `sep=` and `column_2`); skip_lines=h, as the API's message
    advises (--skip-lines h on the command line), reads the table."""
    with pytest.raises(InputError) as err:
        prof(data, delimiter=delimiter)
    got = re.fullmatch(
        r"t\.csv: line (\d+) is Excel's delimiter line \('sep=(.|tab)'\), not a header; pass "
        r"skip_lines=\1 \(skip_lines_b=\1 for the second file of compare or scan\)",
        str(err.value),
    )
    assert got, str(err.value)
    r = prof(data, skip_lines=int(got.group(1)))
    assert r["columns"][0] == "sex" and dim(r, "sex")["groups"][0]["label"] == "M"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_is_named_and_its_advice_reads_it(codec):
    """SPEC 0.6: UTF-16 with no byte order mark (SQL Server's bcp -w) is named with the
    encoding to pass, which then reads it; it is not "a NUL byte" of a binary file."""
    data = "sex,race\r\nM,A\r\nF,B\r\n".encode(codec)
    with pytest.raises(InputError) as err:
        prof(data)
    assert str(err.value).endswith(f"; re-save it as UTF-8 or pass encoding={codec!r}")
    assert "without a byte order mark" in str(err.value)
    r = prof(data, encoding=codec)
    assert r["columns"] == ["sex", "race"] and r["n_rows"] == 2


@pytest.mark.parametrize(
    "data,encoding",
    [
        (b"\xef\xbb\xbfsex,r\xe9gion\nM,A\n", "cp1252"),
        (b"\xef\xbb\xbfsex,r\xe9gion\nM,A\n", "latin-1"),
        ("\ufeffsex,région\nM,A\n".encode("utf-16-le"), "utf-16-le"),
        ("\ufeffsex,région\nM,A\n".encode("utf-16-be"), "utf-16-be"),
        ("\ufeffsex,région\nM,A\n".encode("utf-32-le"), "utf-32-le"),
    ],
)
@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 1 << 20])
def test_a_byte_order_mark_is_dropped_whatever_the_encoding(data, encoding, block_size):
    """SPEC 0.1: a BOM is no part of the first name under --encoding either (a UTF-8
    BOM under a one-byte codec, U+FEFF under utf-16-le and the like), whatever the
    blocks; a later byte's offset still counts the BOM's bytes."""
    header, records = reader.open_table(
        io.BytesIO(data), "t.csv", encoding=encoding, block_size=block_size
    )
    assert header == ["sex", "région"]
    assert [rec for rec, _ in records] == [["M", "A"]]
    if encoding in ("cp1252", "latin-1"):
        with pytest.raises(InputError, match=r"^t\.csv: byte 20: NUL byte"):
            header, records = reader.open_table(
                io.BytesIO(data + b"F,\x00\n"), "t.csv", encoding=encoding, block_size=block_size
            )
            list(records)


@pytest.mark.parametrize(
    "encoding,start",
    [("nosuch", "encoding: unknown encoding 'nosuch'"), ("rot13", "encoding: 'rot13' is not")],
)
def test_an_encoding_that_cannot_read_text_says_what_to_name(encoding, start):
    """SPEC 0.6: both refusals of --encoding end with what to give instead."""
    with pytest.raises(InputError) as err:
        prof(b"sex\nM\n", encoding=encoding)
    assert str(err.value).startswith(start)
    assert str(err.value).endswith("; name the file's character set (e.g. latin-1, cp1252, utf-16)")


@pytest.mark.parametrize("end", ["\x1a", "\x1a\n", "\x1a\r\n", "\x1a\r"])
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_a_last_line_of_only_a_ctrl_z_is_no_line(end, eol):
    """SPEC 0.2: DOS tools end a text file with a Ctrl-Z; it was a row of the group
    '\\x1a' in the first column (and all other cells missing)."""
    r = prof(f"sex,race{eol}M,w{eol}F,b{eol}{end}")
    assert r["n_rows"] == 2
    assert counts(r, "sex") == {"M": 1, "F": 1}


@pytest.mark.parametrize(
    "data,sex",
    [
        ("sex,race\nM,w\n\x1a\nF,b\n", {"M": 1, "\x1a": 1, "F": 1}),  # not the last line
        ("sex,race\nM,w\n\x1a\n\n", {"M": 1, "\x1a": 1}),  # a blank line after it
        ("sex,race\nM,w\n\x1a\r\r", {"M": 1, "\x1a": 1}),
        ("sex,race\nM,w\n\x1a\x1a\n", {"M": 1, "\x1a\x1a": 1}),
    ],
)
def test_a_ctrl_z_elsewhere_is_data(data, sex):
    assert counts(prof(data), "sex") == sex


def test_a_ctrl_z_after_the_header_leaves_no_data_rows():
    with pytest.raises(InputError, match="^t.csv: no data rows, only a header$"):
        faircode.summarize(
            io.BytesIO(b"\xef\xbb\xbfsex,race\r\n\x1a\r\n"), overrides=None, opts={}, name="t.csv"
        )
