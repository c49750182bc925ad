"""Data where it lives: Parquet, Arrow IPC, several files / globs, pandas, polars, pyarrow."""

from __future__ import annotations

import pytest
from util import data_file

import faircode
from faircode import InputError

pa = pytest.importorskip("pyarrow")
pacsv = pytest.importorskip("pyarrow.csv")
pq = pytest.importorskip("pyarrow.parquet")


def strings_table(path):
    """The CSV as Arrow strings, cells exactly as written (no type or null inference)."""
    with open(path, "rb") as fh:
        header = fh.readline().decode().strip().split(",")
    return pacsv.read_csv(
        path,
        convert_options=pacsv.ConvertOptions(
            column_types={c: pa.string() for c in header},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
        read_options=pacsv.ReadOptions(autogenerate_column_names=False),
    )


@pytest.fixture(scope="module")
def compas_csv():
    return faircode.profile(data_file("compas-scores-two-years.csv"))


def test_parquet_of_strings_equals_the_csv(tmp_path):
    src = data_file("diabetic_data.csv")
    out = tmp_path / "diabetic.parquet"
    pq.write_table(strings_table(src), out, row_group_size=10_000)  # 11 row groups
    rows = []
    got = faircode.profile(out, on_rows=rows.append)
    assert got == faircode.profile(src)
    assert sum(rows) == 101766 and len(rows) >= 2  # streamed in bounded batches


def test_arrow_ipc_file_and_stream_equal_the_csv(tmp_path, compas_csv):
    table = strings_table(data_file("compas-scores-two-years.csv"))
    # clean_header renames the duplicate names the same way for every source
    f, s = tmp_path / "c.arrow", tmp_path / "c.arrows"
    with pa.ipc.new_file(f, table.schema) as w:
        for b in table.to_batches(max_chunksize=1000):
            w.write_batch(b)
    with pa.ipc.new_stream(s, table.schema) as w:
        w.write_table(table)
    assert faircode.profile(f) == compas_csv
    assert faircode.profile(s) == compas_csv


def test_typed_parquet_equals_the_pandas_frame(tmp_path):
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(data_file("insurance.csv"))  # age int64, bmi float64, sex str
    out = tmp_path / "ins.parquet"
    df.to_parquet(out)
    r = faircode.profile(out)
    assert r == faircode.profile(df)
    age = next(d for d in r["dimensions"] if d["name"] == "age")
    assert age["age_mode"] == "numeric"


def test_typed_values_become_text():
    import datetime

    from faircode.columnar import typed_label

    assert typed_label(34) == "34" and typed_label(34.0) == "34.0"
    assert typed_label(True) == "True" and typed_label(None) is None
    assert typed_label(float("nan")) is None
    assert typed_label(" NA ") is None and typed_label(" x\t") == "x"
    assert typed_label(datetime.date(2020, 1, 31)) == "2020-01-31"
    assert typed_label(datetime.datetime(2020, 1, 31, 8)) == "2020-01-31 08:00:00"
    assert typed_label(b"F ") == "F"
    t = pa.table(
        {
            "sex": pa.array(["M", None, "F", "M"]),
            "age": pa.array([30, None, 41, 30], pa.int64()),
            "score": pa.array([1.5, float("nan"), None, 0.1], pa.float32()),
            "ok": pa.array([True, False, None, True]),
            "day": pa.array([datetime.date(2020, 1, 1)] * 4),
            "grp": pa.array(["a", "b", "a", "b"]).dictionary_encode(),
        }
    )
    s, _, _ = faircode.summarize(t)
    assert s.counts[0] == {"M": 2, "F": 1} and s.missing[0] == 1
    assert s.counts[1] == {"30": 2, "41": 1} and s.missing[1] == 1
    assert s.counts[2] == {"1.5": 1, "0.1": 1} and s.missing[2] == 2  # float32 as written
    assert s.counts[3] == {"True": 2, "False": 1}
    assert s.counts[4] == {"2020-01-01": 4}
    assert s.counts[5] == {"a": 2, "b": 2}


def test_pyarrow_polars_and_pandas_frames_agree():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    df = pd.read_csv(data_file("compas-scores-two-years.csv"), dtype=str, keep_default_na=False)
    df.columns = [f"c{i}_{c}" for i, c in enumerate(df.columns)]  # polars needs unique names
    expected = faircode.profile(df)
    assert faircode.profile(pa.Table.from_pandas(df, preserve_index=False)) == expected
    assert faircode.profile(pl.from_pandas(df)) == expected
    assert faircode.profile(pl.from_pandas(df).lazy()) == expected
    assert expected["n_rows"] == 7214


def split_csv(src, tmp_path, parts=3):
    lines = src.read_bytes().split(b"\r\n")
    header, body = lines[0], [ln for ln in lines[1:] if ln]
    size = len(body) // parts + 1
    paths = []
    for k in range(parts):
        p = tmp_path / f"part-{k}.csv"
        p.write_bytes(b"\r\n".join([header, *body[k * size : (k + 1) * size]]) + b"\r\n")
        paths.append(p)
    return paths


def test_several_files_and_globs_are_one_dataset(tmp_path):
    src = data_file("diabetic_data.csv")
    paths = split_csv(src, tmp_path)
    whole = faircode.profile(src)
    assert faircode.profile([str(p) for p in paths]) == whole
    assert faircode.profile(str(tmp_path / "part-*.csv")) == whole
    # mixed formats merge too
    pq.write_table(strings_table(paths[0]), tmp_path / "p0.parquet")
    assert faircode.profile([tmp_path / "p0.parquet", *paths[1:]]) == whole


def test_several_files_with_different_headers_are_an_error(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("sex,race\nM,A\n")
    b.write_text("sex,region\nF,B\n")
    with pytest.raises(InputError, match=r"b.csv: its columns differ from .*a.csv"):
        faircode.profile([a, b])


@pytest.mark.parametrize(
    "header,where",
    [
        ("sex,Race,age", "column 2 is 'Race', not 'race'"),
        ("sex,race,age,zip", "1 more column, from column 4 'zip'"),
        ("sex,race,age,zip,id", "2 more columns, from column 4 'zip'"),
        ("sex,race", "2 columns, not 3: no column 3 'age'"),
    ],
)
def test_a_header_that_differs_is_told_where(tmp_path, header, where):
    """SPEC 0.8: the refusal of a file whose header differs names the first difference."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("sex,race,age\nM,A,30\n")
    b.write_text(header + "\n" + ",".join("x" * len(header.split(","))) + "\n")
    with pytest.raises(InputError) as err:
        faircode.profile([a, b])
    assert str(err.value) == (
        f"{b}: its columns differ from {a}'s ({where}); files profiled as one dataset must "
        "have the same header"
    )
    with pytest.raises(InputError, match="no file matches"):
        faircode.profile(str(tmp_path / "nothing-*.csv"))
    with pytest.raises(InputError, match="b.csv: no such file"):
        faircode.profile([a, tmp_path / "missing" / "b.csv"])


def test_broken_and_empty_parquet_files(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\x00" * 20)
    with pytest.raises(InputError, match=r"bad.parquet: not a readable Parquet file"):
        faircode.profile(bad)
    empty = tmp_path / "empty.parquet"
    pq.write_table(pa.table({"sex": pa.array([], pa.string())}), empty)
    with pytest.raises(InputError, match="empty.parquet: no data rows, only a header"):
        faircode.profile(empty)


def test_big_csv_uses_rows_callback(tmp_path):
    rows = []
    r = faircode.profile(data_file("compas-scores-raw.csv"), on_rows=rows.append)
    assert sum(rows) == r["n_rows"] == 60843


def test_bytes_cells_are_decoded_in_a_pandas_frame_as_in_arrow():
    """SPEC 0.4: bytes are UTF-8 text in every typed source (a pandas object column of
    bytes once showed labels as "b'M'")."""
    import pandas as pd
    import pyarrow as pa

    cells = [b"M", b"F", b" M ", b"\xff", None]
    frame = faircode.profile(pd.DataFrame({"sex": cells}))
    table = faircode.profile(pa.table({"sex": pa.array(cells, pa.binary())}))
    assert frame == table
    groups = {g["label"]: g["count"] for g in frame["dimensions"][0]["groups"]}
    assert groups == {"M": 2, "F": 1, "\ufffd": 1}


def groups_of(result, name):
    """label -> count of a dimension or an unscored column."""
    for entry in [*result["dimensions"], *result["unscored"]]:
        if entry["name"] == name:
            return {g["label"]: g["count"] for g in entry["groups"]}
    raise KeyError(name)


SEXES = ["M", "F", "M", "F", "M", "F"]
CATEGORICALS = {"score_categoricals": True}


@pytest.mark.parametrize("bits", [32, 16])
def test_short_floats_are_labelled_at_their_own_precision_in_every_source(tmp_path, bits):
    """SPEC 0.4: a float32 or float16 0.1 is the label "0.1" whatever the source (pandas
    once gave '0.10000000149011612' for float32 and '0.0999755859375' for float16, Arrow
    '0.099975586' for float16)."""
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    values = [0.1, 0.2, 0.1, None, -0.0, 0.1]
    csv = tmp_path / "v.csv"
    csv.write_text(
        "sex,v\n" + "".join(f"{s},{'' if v is None else v}\n" for s, v in zip(SEXES, values))
    )
    expected = faircode.profile(csv, opts=CATEGORICALS)
    assert groups_of(expected, "v") == {"0.1": 3, "0.2": 1, "-0.0": 1}
    arrow_type = pa.float32() if bits == 32 else pa.float16()
    numpy_type = np.float32 if bits == 32 else np.float16
    arr = pa.array([None if v is None else numpy_type(v) for v in values], arrow_type)
    table = pa.table({"sex": SEXES, "v": arr})
    pq.write_table(table, tmp_path / "v.parquet")
    dtypes = [f"float{bits}", pd.ArrowDtype(arrow_type)] + (["Float32"] if bits == 32 else [])
    sources = {
        "arrow": table,
        "parquet": tmp_path / "v.parquet",
        **{str(d): pd.DataFrame({"sex": SEXES, "v": pd.Series(values, dtype=d)}) for d in dtypes},
    }
    if bits == 32:
        pl = pytest.importorskip("polars")
        sources["polars"] = pl.DataFrame({"sex": SEXES, "v": pl.Series(values, dtype=pl.Float32)})
    for what, source in sources.items():
        got = faircode.profile(source, opts=CATEGORICALS)
        assert groups_of(got, "v") == groups_of(expected, "v"), what
        assert got == expected, what


def test_durations_are_python_timedelta_text_in_every_source(tmp_path):
    """SPEC 0.4: a duration is Python's timedelta text, `1 day, 0:00:00`, from a pandas
    frame as from Arrow, Parquet and polars (pandas' Timedelta once gave
    `1 days 00:00:00`, and so did an Arrow duration[ns], which pyarrow hands over as
    one); nanoseconds give nine fraction digits."""
    import datetime

    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    day, hours = datetime.timedelta(days=1), datetime.timedelta(hours=-2, microseconds=250)
    values = [day, hours, day, None, day, hours]
    texts = ["1 day, 0:00:00", "-1 day, 22:00:00.000250", "1 day, 0:00:00", ""] + [
        "1 day, 0:00:00",
        "-1 day, 22:00:00.000250",
    ]
    csv = tmp_path / "d.csv"
    csv.write_text("sex,d\n" + "".join(f'{s},"{t}"\n' for s, t in zip(SEXES, texts)))
    expected = faircode.profile(csv, opts=CATEGORICALS)
    assert groups_of(expected, "d") == {"1 day, 0:00:00": 3, "-1 day, 22:00:00.000250": 2}
    frame = pd.DataFrame({"sex": SEXES, "d": pd.Series(values, dtype="timedelta64[ns]")})
    frame.to_parquet(tmp_path / "ns.parquet")  # duration[ns]
    sources = {
        "arrow": pa.table({"sex": SEXES, "d": pa.array(values, pa.duration("us"))}),
        "arrow ns": pa.table({"sex": SEXES, "d": pa.array(values, pa.duration("ns"))}),
        "parquet": tmp_path / "ns.parquet",
        "polars": pl.DataFrame({"sex": SEXES, "d": values}),
        "pandas": frame,
        "pandas us": frame.astype({"d": "timedelta64[us]"}),
        "pandas arrow": frame.astype({"d": pd.ArrowDtype(pa.duration("ns"))}),
        "pandas object": frame.astype({"d": object}),
    }
    assert pq.read_schema(tmp_path / "ns.parquet").field("d").type == pa.duration("ns")
    for what, source in sources.items():
        got = faircode.profile(source, opts=CATEGORICALS)
        assert groups_of(got, "d") == groups_of(expected, "d"), what
        assert got == expected, what
    ns = [pd.Timedelta(days=1, nanoseconds=5), pd.Timedelta(nanoseconds=-5)] * 3
    frame = faircode.profile(pd.DataFrame({"sex": SEXES, "d": ns}), opts=CATEGORICALS)
    table = pa.table({"sex": SEXES, "d": pa.array(ns, pa.duration("ns"))})
    assert groups_of(frame, "d") == {
        "1 day, 0:00:00.000000005": 3,
        "-1 day, 23:59:59.999999995": 3,
    }
    assert frame == faircode.profile(table, opts=CATEGORICALS)


def test_a_null_frame_column_name_is_column_n_as_in_its_csv(tmp_path):
    """SPEC 0.3, 0.4: a None (NaN, pd.NA) column name is empty, so column_N, as in the
    frame's CSV (it once became 'nan')."""
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"sex": SEXES, "race": list("abcabc")})
    df.insert(1, None, list("xyxyxy"))
    df.insert(3, "later", list("pqpqpq"))
    df.columns = ["sex", None, "race", pd.NA]
    csv = tmp_path / "d.csv"
    df.to_csv(csv, index=False)
    assert csv.read_text().splitlines()[0] == "sex,,race,"
    got = faircode.profile(df, opts=CATEGORICALS)
    assert got == faircode.profile(csv, opts=CATEGORICALS)
    names = [e["name"] for e in [*got["dimensions"], *got["unscored"]]]
    assert "column_2" in names and "column_4" in names and "nan" not in names


def test_no_columns_is_one_error_for_every_typed_source(tmp_path):
    """SPEC 0.4, 0.6: a frame or table with no columns is an input error whatever its
    rows (a pandas frame or Arrow table of 3 rows and no columns once gave a result
    with n_cols 0, while polars said 'no data rows')."""
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    table = pa.table({"a": [1, 2, 3]}).select([])
    pq.write_table(table, tmp_path / "none.parquet")
    sources = {
        "pandas": pd.DataFrame(index=range(3)),
        "pandas empty": pd.DataFrame(),
        "arrow": table,
        "polars": pl.DataFrame({"a": [1, 2, 3]}).select([]),
        "parquet": tmp_path / "none.parquet",
    }
    for what, source in sources.items():
        with pytest.raises(InputError, match=r": no columns, nothing to profile$") as got:
            faircode.profile(source)
        assert str(got.value).startswith("<dataframe>: " if what != "parquet" else str(tmp_path))


def test_an_empty_frame_is_named_dataframe_in_every_api():
    """SPEC 0.6: a frame without a `name` is `<dataframe>`, in scan too (it said <stream>)."""
    pd = pytest.importorskip("pandas")
    empty = pd.DataFrame({"sex": [], "y": []})
    for call in (faircode.profile, lambda df: faircode.scan(df, label="y")):
        with pytest.raises(InputError, match=r"^<dataframe>: no data rows, only a header$"):
            call(empty)
    result = faircode.profile(pd.DataFrame({"sex": SEXES}))
    assert result._name == "<dataframe>"  # the name its renderers show


def test_two_frames_are_named_by_their_side():
    """SPEC 0.6: compare's and scan's two frames are `<dataframe A>` and `<dataframe B>`
    in the header and in an error reading one side (both read `<dataframe>`), and
    faircode.monitor.evaluate names its frame `<dataframe>` as profile does (it said
    `data`)."""
    pd = pytest.importorskip("pandas")
    a = pd.DataFrame({"sex": SEXES, "y": ["1", "0"] * (len(SEXES) // 2)})
    empty = pd.DataFrame({"sex": [], "y": []})
    head = "faircode compare: A = <dataframe A>  ->  B = <dataframe B>\n"
    assert faircode.compare(a, a).report("text").startswith(head)
    for call in (faircode.compare, lambda x, y: faircode.scan(x, other=y)):
        with pytest.raises(InputError, match=r"^<dataframe B>: no data rows, only a header$"):
            call(a, empty)
        with pytest.raises(InputError, match=r"^<dataframe A>: no data rows, only a header$"):
            call(empty, a)
    pytest.importorskip("numpy")
    from faircode.monitor import MonitorInputError, evaluate

    with pytest.raises(MonitorInputError, match=r"^<dataframe>: column 'p' \(pred\) not "):
        evaluate(a, pred="p", attrs=["sex"])
