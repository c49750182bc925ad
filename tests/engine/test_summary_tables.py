"""SPEC 17.2 tables (label_pairs, label_cells, missing_all, missing_by) are the same
whatever reads the table: the reference builder, the pyarrow CSV fast path (in one part
or several), Parquet / Arrow tables (columnar.ArrowSummaryBuilder), pandas frames, and
merges of parts. Generated files with labels and missing patterns, then real data."""

from __future__ import annotations

import csv
import io
import os
import tempfile

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from util import ADULT_NAMES, data_file  # noqa: E402

import faircode  # noqa: E402
from faircode import fastpath  # noqa: E402
from faircode.columnar import ArrowSummaryBuilder  # noqa: E402
from faircode.labels import DEFAULT_RULE  # noqa: E402
from faircode.options import resolve  # noqa: E402
from faircode.summary import SummaryBuilder  # noqa: E402

HEADER = ["sex", "race", "person_id", "note", "outcome", "grp", "age", "skip"]
VOCAB = {
    "sex": ["M", "F", "", "NA", " F ", "?"],
    "race": ["A", "B", "C", "?", "x", "None", "n/a"],
    "note": ["", "a", "b", "NA", "zz", "-"],
    "outcome": ["0", "1", "", "yes", " 1"],
    "grp": ["g1", "g2", "-", "n/a", "g3"],
    "age": ["34", "35", "", "[20-30)", "?", "200"],
    "skip": ["s", "", "t"],
}
OPTIONS = [
    {},
    {"missing_by_group": False},
    {"label": "outcome"},
    {"label": "outcome", "missing_by_group": False},
    {"label": "outcome", "na": [["grp", "-"], "zz"], "recode": [["note", "NA", "kept"]]},
    {"label": "race", "cross": ["sex", "grp"]},
    {"label": "grp", "recode": [["outcome", "yes", "1"], ["sex", "?", "M"]], "na": ["b"]},
    {"label": "outcome", "max_categorical": 3},
    {"label": "outcome", "proxy_hints": True},
]
OVERRIDES = [None, {"skip": "ignore"}, {"note": "categorical", "skip": "ignore"}]


@st.composite
def table(draw, min_rows: int = 1):
    n = draw(st.integers(min_rows, 120))
    wide = draw(st.booleans())  # person_id: distinct values (a column that stops counting)
    rows = []
    for r in range(n):
        row = []
        for col in HEADER:
            if col == "person_id":
                row.append(draw(st.sampled_from(["", "NA", f"p{r}" if wide else "p"])))
            elif col == "note" and draw(st.integers(0, 4)) == 0:
                row.append(f"free text {draw(st.integers(0, 40))}")
            else:
                row.append(draw(st.sampled_from(VOCAB[col])))
        rows.append(row)
    return rows


def csv_bytes(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(HEADER)
    for row in rows:
        writer.writerow(row)
    return out.getvalue().encode()


def reference(data: bytes, overrides, opts):
    return faircode.summarize(
        io.BytesIO(data), overrides=overrides, opts=opts, name="t", engine="reference"
    )[0]


def fast(data: bytes, overrides, opts, parts: int, block_size: int = 256, probe_rows: int = 5):
    got = fastpath.summarize_csv(
        io.BytesIO(data),
        "t",
        overrides,
        resolve(opts),
        block_size=block_size,
        probe_rows=probe_rows,
        parts=parts,
    )
    assert not isinstance(got, fastpath.Fallback), got.reason
    return got[0]


def arrow_table(rows: list[list[str]]):
    return pa.table({c: pa.array([r[i] for r in rows], pa.string()) for i, c in enumerate(HEADER)})


def tables_of(summary) -> tuple:
    return summary.label_pairs, summary.label_cells, summary.missing_all, summary.missing_by


@settings(max_examples=40, deadline=None)
@given(
    table(),
    st.sampled_from(OPTIONS),
    st.sampled_from(OVERRIDES),
    st.integers(1, 3),
    st.sampled_from([64, 256, 4096]),
)
def test_every_reader_gives_the_reference_summary(rows, opts, overrides, parts, block_size):
    data = csv_bytes(rows)
    want = reference(data, overrides, opts)
    assert fast(data, overrides, opts, parts, block_size) == want
    assert fast(data, overrides, opts, 1, 1 << 16, probe_rows=1000) == want
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.parquet")
        pq.write_table(arrow_table(rows), path, row_group_size=7)
        got, _, _ = faircode.summarize(path, overrides=overrides, opts=opts, name="t")
    assert got == want
    frame = pd.DataFrame(rows, columns=HEADER)
    assert faircode.summarize(frame, overrides=overrides, opts=opts, name="t")[0] == want
    if opts.get("label") or opts.get("missing_by_group", True):
        assert any(tables_of(want)), "the options ask for SPEC 17.2 tables"


@settings(max_examples=30, deadline=None)
@given(table(min_rows=2), st.sampled_from(OPTIONS[:7]), st.data())
def test_merged_parts_equal_one_read(rows, opts, data):
    """Parts with the same columns pruned (here: few labels per column, and person_id
    either one value or distinct in every part) merge to the whole read's summary."""
    opts = dict(opts, max_categorical=60)
    cut = data.draw(st.integers(1, len(rows) - 1))
    whole = reference(csv_bytes(rows), None, opts)
    a = reference(csv_bytes(rows[:cut]), None, opts)
    b = ArrowSummaryBuilder("t", HEADER, {}, resolve(opts))
    rest = arrow_table(rows[cut:])
    b.add_arrays(rest.columns, rest.num_rows)
    merged = a.merge(b.finish())
    assert merged == whole


def test_typed_columns_not_counted_match_the_reference():
    """Typed columns read only for their missing cells (SPEC 17.2, 0.4 typed sources):
    ints with nulls, floats with NaN, a declared token matching an integer's text, a
    dictionary column, binary cells."""
    n = 300
    tbl = pa.table(
        {
            "sex": pa.array([["M", "F", None, " NA "][i % 4] for i in range(n)]),
            "y": pa.array([[0, 1, None][i % 3] for i in range(n)], pa.int64()),
            "num": pa.array([None if i % 7 == 0 else i for i in range(n)], pa.int64()),
            "tok": pa.array([i % 50 for i in range(n)], pa.int32()),
            "flt": pa.array([float("nan") if i % 5 == 0 else i / 3 for i in range(n)]),
            "cat": pa.array([f"c{i}" if i % 9 else "?" for i in range(n)]).dictionary_encode(),
            "bin": pa.array([b"NA" if i % 11 == 0 else b"v%d" % i for i in range(n)]),
            "txt": pa.array(
                [" NA" if i % 13 == 0 else f"t{i}" for i in range(n)], pa.large_string()
            ),
        }
    )
    for opts in (
        {"label": "y"},
        {"label": "y", "na": [["tok", "7"], ["num", "5"]], "recode": [["txt", "t1", ""]]},
        {"missing_by_group": True, "na": ["c1"]},
    ):
        ref = SummaryBuilder("t", tbl.schema.names, {}, resolve(opts), DEFAULT_RULE.typed_label)
        for batch in tbl.to_batches(max_chunksize=64):
            ref.add_columns([c.to_pylist() for c in batch.columns], batch.num_rows)
        want = ref.finish()
        got = faircode.summarize(tbl, opts=opts, name="t")[0]
        assert got == want, opts
        declared = ["num", "5"] in opts.get("na", [])
        assert want.missing_all[tbl.schema.names.index("num")] == 43 + declared


# ------------------------------------------------------------------------ real data

REAL = [
    ("compas-scores-two-years.csv", {"label": "two_year_recid"}),
    ("compas-scores-two-years.csv", {"label": "is_recid", "cross": ["sex", "race"]}),
    # (a cross keeps the reference builder's pure-Python label cells to one pair)
    ("diabetic_data.csv", {"label": "readmitted", "cross": ["race", "gender"]}),
    ("adult.data", {"names": ADULT_NAMES, "label": "income"}),
    (
        "adult.data",
        {
            "names": ADULT_NAMES,
            "label": "sex",
            "na": [["workclass", "Never-worked"]],
            "recode": [["race", "Other", "?"]],
        },
    ),
]


def _string_table(path, opts):
    """The file's cells as text, read as SPEC 0 reads them (for Parquet and pandas)."""
    import pyarrow.csv as pacsv

    names = opts["names"].split(",") if "names" in opts else None
    read = pacsv.ReadOptions(column_names=names, autogenerate_column_names=False)
    conv = pacsv.ConvertOptions(
        strings_can_be_null=False, null_values=[], quoted_strings_can_be_null=False
    )
    with open(path, "rb") as fh:
        tbl = pacsv.read_csv(fh, read_options=read, convert_options=conv)
    return tbl.cast(pa.schema([(f.name, pa.string()) for f in tbl.schema]))


# Deep (--deep): diabetic's 100,000 rows take COMPAS's path (a label and a cross), 7 s.
DEEP_REAL = {2}


@pytest.mark.parametrize(
    "rel,opts",
    [
        pytest.param(r, o, id=f"{r}-{i}", marks=[pytest.mark.deep] if i in DEEP_REAL else [])
        for i, (r, o) in enumerate(REAL)
    ],
)
def test_real_data_every_reader(rel, opts, tmp_path):
    path = data_file(rel)
    want, _, _ = faircode.summarize(path, opts=opts, name=rel, engine="reference")
    assert any(tables_of(want))
    for parts in (1, 2):
        with open(path, "rb") as fh:
            got = fastpath.summarize_csv(fh, rel, None, resolve(opts), parts=parts)
        assert not isinstance(got, fastpath.Fallback), got.reason
        assert got[0] == want, parts
    typed = {k: v for k, v in opts.items() if k != "names"}
    tbl = _string_table(path, opts)
    pq.write_table(tbl, tmp_path / "t.parquet", row_group_size=10_000)
    got, _, _ = faircode.summarize(tmp_path / "t.parquet", opts=typed, name=rel)
    assert got == want
    got, _, _ = faircode.summarize(tbl.to_pandas(), opts=typed, name=rel)
    assert got == want
    half = tbl.num_rows // 2
    a = faircode.summarize(tbl.slice(0, half), opts=typed, name=rel)[0]
    b = faircode.summarize(tbl.slice(half).to_pandas(), opts=typed, name=rel)[0]
    merged = a.merge(b)
    # A merge keeps a column a half did not prove wide (an open column with 21 labels
    # in the whole, fewer in each half); where both keep it, the tables are the same.
    assert merged.missing_all == want.missing_all
    assert want.missing_by.keys() <= merged.missing_by.keys()
    for d in want.missing_by:
        assert merged.missing_by[d] == want.missing_by[d]
    for d in want.label_pairs:
        assert merged.label_pairs[d] == want.label_pairs[d]


def test_real_data_label_counts_are_a_crosstab():
    """COMPAS: label_pairs[race] is the crosstab of race and two_year_recid."""
    frame = pd.read_csv(data_file("compas-scores-two-years.csv"), dtype=str, keep_default_na=False)
    s, _, _ = faircode.summarize(
        data_file("compas-scores-two-years.csv"), opts={"label": "two_year_recid"}, engine="fast"
    )
    race = s.columns.index("race")
    want = frame.groupby(["race", "two_year_recid"]).size().to_dict()
    assert s.label_pairs[race] == want
    assert s.missing_all[s.columns.index("two_year_recid")] == 0


@pytest.mark.parametrize("dense_limit", [20, None])
def test_label_pairs_survive_the_pruning_of_their_pair(monkeypatch, dense_limit):
    """The Arrow builder reads a group column's label pairs off its pair tables; when
    the last of them is pruned (here `race` passes max_dimension_groups mid-file), the
    counts so far move to a table of its own. Dense and sparse pair tables."""
    import random

    from faircode import columnar

    if dense_limit is not None:
        monkeypatch.setattr(columnar, "_DENSE_LIMIT", dense_limit)
    rng = random.Random(2)
    header = ["sex", "race", "grp", "y"]
    rows = [
        [
            rng.choice(["M", "F", "", "?"]),
            rng.choice("ABC") if k < 700 else f"r{rng.randint(0, 90)}",
            rng.choice(["g1", "g2"]),
            rng.choice(["0", "1", ""]),
        ]
        for k in range(2000)
    ]
    for opts in ({"label": "y", "cross": ["sex", "race"]}, {"label": "y"}):
        options = resolve(opts)
        builder = ArrowSummaryBuilder("t", header, {}, options)
        for start in range(0, len(rows), 250):
            part = rows[start : start + 250]
            builder.add_arrays([pa.array([r[i] for r in part]) for i in range(4)], len(part))
        ref = SummaryBuilder("t", header, {}, options)
        ref.add_rows(rows)
        want = ref.finish()
        assert builder.finish() == want
        assert 0 in want.label_pairs and 1 not in want.label_pairs


@pytest.mark.parametrize("dense_limit", [12, 30, None])
def test_tables_turning_sparse_mid_file_match_the_reference(monkeypatch, dense_limit):
    """A dense pair or missing-by-group table that turns sparse when its columns meet new
    labels keeps only the cells a sparse table counts: its missing row and column (code
    0) never become code -1, the last label (counts a label never had, pairs that never
    occurred). The missing_by table keeps its missing row: the rows without a group."""
    import random

    from faircode import columnar

    if dense_limit is not None:
        monkeypatch.setattr(columnar, "_DENSE_LIMIT", dense_limit)
    rng = random.Random(1)
    header = ["sex", "race", "note"]
    rows = [[rng.choice(["M", "F", ""]), rng.choice(["A", "B", ""]), "x"] for _ in range(40)]
    rows += [
        [rng.choice(["M", "F", "", "X"]), rng.choice("CDEFGHAB") if k % 3 else "", "x"]
        for k in range(40)
    ]
    # race's last label, "Z", comes last and never has a missing note; rows without a
    # race do
    rows += [["", "Z", "x"], ["M", "", ""], ["F", "C", ""], ["", "", ""]]
    for opts in ({}, {"label": "note"}):
        options = resolve(opts)
        builder = ArrowSummaryBuilder("t", header, {}, options)
        for part in (rows[:40], rows[40:]):
            builder.add_arrays([pa.array([r[i] for r in part]) for i in range(3)], len(part))
        ref = SummaryBuilder("t", header, {}, options)
        ref.add_rows(rows)
        want = ref.finish()
        got = builder.finish()
        assert got.missing_by == want.missing_by
        assert got == want
