"""Typed inputs handled as data (issue 25, items 4 and 7): nested columns are listed as
not profiled and the rest of the file profiles; values of different types in one
pandas column stay distinct groups, as in the CSV of the same frame; a gzip-compressed
CSV and an Arrow IPC stream are told by their first bytes, whatever their name."""

from __future__ import annotations

import pytest

import faircode
from faircode import InputError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

SEX = ["M", "F", "M", "F", "M", "F"]


def groups(result: dict, name: str) -> dict[str, int]:
    """label -> count of a dimension or an unscored column."""
    for entry in [*result["dimensions"], *result["unscored"]]:
        if entry["name"] == name:
            return {g["label"]: g["count"] for g in entry["groups"]}
    raise KeyError(name)


def nested_table():
    return pa.table(
        {
            "sex": SEX,
            "address": [{"city": "a", "zip": 1}, None, {"city": "b", "zip": 2}] * 2,
            "tags": [["x"], [], None, ["x", "y"], ["y"], ["x"]],
            "attrs": pa.array(
                [[("k", 1)], [], None, [("k", 2)], [("j", 1)], []],
                pa.map_(pa.string(), pa.int64()),
            ),
            "race_list": pa.array([[1, 2]] * 6, pa.list_(pa.int64(), 2)),  # fixed size
            "race": ["a", "b", "a", "b", "a", "b"],
        }
    )


NESTED = [
    {
        "name": "address",
        "kind": None,
        "n_groups": None,
        "why": "nested values (struct) are not profiled",
    },
    {
        "name": "tags",
        "kind": None,
        "n_groups": None,
        "why": "nested values (list) are not profiled",
    },
    {
        "name": "attrs",
        "kind": None,
        "n_groups": None,
        "why": "nested values (map) are not profiled",
    },
    {
        "name": "race_list",
        "kind": "race",
        "n_groups": None,
        "why": "nested values (list) are not profiled",
    },
]


def test_nested_parquet_columns_are_listed_and_the_rest_profiles(tmp_path):
    f = tmp_path / "nested.parquet"
    pq.write_table(nested_table(), f)
    r = faircode.profile(f)  # was: cannot read (Function 'dictionary_encode' has no kernel ...)
    assert r["dropped"] == NESTED
    assert [d["name"] for d in r["dimensions"]] == ["sex", "race"]
    assert groups(r, "sex") == {"F": 3, "M": 3} and r["n_cols"] == 6
    # the same table without the nested columns gives the same dimensions
    plain = faircode.profile(nested_table().select(["sex", "race"]))
    assert r["dimensions"] == plain["dimensions"]


def test_nested_arrow_table_ipc_and_polars(tmp_path):
    t = nested_table()
    assert faircode.profile(t)["dropped"] == NESTED
    s = tmp_path / "t.arrows"
    with pa.ipc.new_stream(s, t.schema) as w:
        w.write_table(t)
    assert faircode.profile(s)["dropped"] == NESTED
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(
        {
            "sex": SEX,
            "address": [{"city": "a"}, None, {"city": "b"}] * 2,
            "tags": [["x"], [], None, ["x", "y"], ["y"], ["x"]],
            "race": ["a", "b", "a", "b", "a", "b"],
        }
    )
    r = faircode.profile(frame)  # was: cannot read (... dictionary_encode ...)
    assert [(d["name"], d["why"]) for d in r["dropped"]] == [
        ("address", "nested values (struct) are not profiled"),
        ("tags", "nested values (list) are not profiled"),
    ]
    assert groups(r, "race") == {"a": 3, "b": 3}
    assert faircode.profile(frame.lazy()) == r


def test_nested_column_declared_ignore_or_a_kind_or_the_label():
    t = nested_table()
    r = faircode.profile(t, overrides={"tags": "ignore", "address": "geography"})
    assert [(d["name"], d["kind"]) for d in r["dropped"]] == [
        ("address", "geography"),
        ("attrs", None),
        ("race_list", "race"),
    ]
    with pytest.raises(InputError, match=r"^label: 'tags' of <dataframe> holds nested values"):
        faircode.profile(t, opts={"label": "tags"})


def test_pandas_list_and_dict_cells():
    df = pd.DataFrame(
        {
            "sex": SEX,
            "tags": [["a"], ["b"], [], None, ["a"], ["c"]],
            "meta": [{"a": 1}, {}, None, {"b": 2}, {"a": 1}, {}],
            "mixed": ["x", ["y"], {"z": 1}, None, "x", "x"],
            "race": ["a", "b", "a", "b", "a", "b"],
        }
    )
    r = faircode.profile(df)  # was: TypeError: unhashable type: 'list'
    assert [(d["name"], d["why"]) for d in r["dropped"]] == [
        ("tags", "nested values (list) are not profiled"),
        ("meta", "nested values (dict) are not profiled"),
        ("mixed", "nested values (dict, list) are not profiled"),
    ]
    assert groups(r, "sex") == {"F": 3, "M": 3} and groups(r, "race") == {"a": 3, "b": 3}
    # an Arrow-backed nested dtype too
    arrow = pd.DataFrame(
        {
            "sex": SEX,
            "tags": pd.Series(
                nested_table()["tags"].to_pylist(), dtype=pd.ArrowDtype(pa.list_(pa.string()))
            ),
        }
    )
    assert [d["name"] for d in faircode.profile(arrow)["dropped"]] == ["tags"]
    # in every output
    for form in ("text", "markdown", "csv", "json", "html"):
        assert "nested values (list) are not profiled" in r.report(form)


def test_nested_in_one_part_of_a_dataset(tmp_path):
    """Files profiled as one dataset: a column nested in one part is nested in all."""
    t = nested_table().select(["sex", "tags"])
    pq.write_table(t, tmp_path / "a.parquet")
    (tmp_path / "b.csv").write_text("sex,tags\nM,x\nF,y\n")
    r = faircode.profile([str(tmp_path / "a.parquet"), str(tmp_path / "b.csv")])
    assert [d["name"] for d in r["dropped"]] == ["tags"] and groups(r, "sex") == {"F": 4, "M": 4}


def test_mixed_types_in_an_object_column_equal_the_csv(tmp_path):
    from decimal import Decimal

    df = pd.DataFrame(
        {
            "sex": SEX + ["M", "F"],
            "v": [True, 1, 1.0, "1", 1, False, 0, 0.0],
            "d": [Decimal("1.0"), Decimal("1.00"), Decimal("1.0"), None, 2, 2.0, "2", True],
            "z": [0.0, -0.0, 0.0, 1.0, -0.0, 2.0, None, 0.0],
        }
    )
    f = tmp_path / "mixed.csv"
    df.to_csv(f, index=False)
    opts = {"score_categoricals": True}
    r, csv = faircode.profile(df, opts=opts), faircode.profile(f, opts=opts)
    # was: {'True': 3, '1': 1, ...}: True, 1 and 1.0 counted as one group
    assert groups(r, "v") == {"1": 3, "True": 1, "1.0": 1, "False": 1, "0": 1, "0.0": 1}
    assert groups(r, "d") == {"1.0": 2, "1.00": 1, "2": 2, "2.0": 1, "True": 1}
    assert groups(r, "z") == {"0.0": 3, "-0.0": 2, "1.0": 1, "2.0": 1}
    for col in ("v", "d", "z"):
        assert groups(r, col) == groups(csv, col), col


def test_negative_zero_in_parquet_is_its_own_group(tmp_path):
    """-0.0 and 0.0 are different labels, as in the CSV (no cell is lost)."""
    t = pa.table({"sex": SEX, "z": [0.0, -0.0, 0.0, 1.0, -0.0, 0.0]})
    f = tmp_path / "z.parquet"
    pq.write_table(t, f)
    r = faircode.profile(f, opts={"score_categoricals": True})
    assert groups(r, "z") == {"0.0": 3, "-0.0": 2, "1.0": 1}  # was {'0.0': 1, '1.0': 1}
