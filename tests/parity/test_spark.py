"""The Spark engine against the local engine: equal results for the same data.

Spark runs in local mode (local[2]) with one session for the module. This module fails,
rather than skips, when PySpark or Java is missing: CI must really run it.
"""

from __future__ import annotations

import datetime
import math
import os
import shutil
import warnings
from decimal import Decimal

import pytest
from util import ADULT_NAMES, data_file

import faircode
from faircode.errors import InputError
from faircode.options import spelling

try:
    import pyspark  # noqa: F401
except ImportError:  # pragma: no cover
    pytest.fail(
        "tests/parity/test_spark.py needs PySpark: pip install -e '.[spark]' "
        "(and a Java 17+ runtime, e.g. apt-get install openjdk-17-jre-headless)",
        pytrace=False,
    )
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):  # pragma: no cover
    pytest.fail(
        "tests/parity/test_spark.py needs a Java runtime for Spark: "
        "apt-get install openjdk-17-jre-headless (or set JAVA_HOME)",
        pytrace=False,
    )

import pandas as pd  # noqa: E402

from faircode import spark as fspark  # noqa: E402


def both(path, spark, overrides=None, **opts):
    """(Spark result, local result) for one file."""
    got = fspark.profile_path(str(path), overrides, opts, spark=spark)
    want = faircode.profile(path, overrides=overrides, opts=opts)
    return got, want


# ----------------------------------------------------------------------- real data

REAL = [
    ("compas-scores-two-years.csv", {}),
    ("compas-scores-raw.csv", {}),
    ("diabetic_data.csv", {}),
    ("insurance.csv", {}),
    ("credit.csv", {}),
    ("seaborn/titanic.csv", {}),
    ("adult.data", {"names": ADULT_NAMES}),
    ("adult.test", {"names": ADULT_NAMES, "skip_lines": 1}),
    # SPEC 1.1 and 1.5 on Spark's complete counts
    (
        "diabetic_data.csv",
        # missing by group with na/recode: test_label_and_missing_cells_equal_the_local_engine
        {
            "na": [["gender", "Unknown/Invalid"], "None"],
            "recode": [["race", "Other", "NA"]],
            "missing_by_group": False,
        },
    ),
    ("compas-scores-two-years.csv", {"score_categoricals": True}),
    # SPEC 17: label base rates and missing data by group (the default) from Spark's counts
    ("compas-scores-two-years.csv", {"label": "two_year_recid"}),
    ("compas-scores-two-years.csv", {"label": "is_recid", "missing_by_group": False}),
    (
        "adult.data",
        {"names": ADULT_NAMES, "label": "income", "na": [["workclass", "Never-worked"]]},
    ),
    # SPEC 21: outcome sums (a recode to missing and to text; fnlwgt: 21,648 values)
    (
        "compas-scores-two-years.csv",
        {
            "outcome": ["priors_count", "decile_score"],
            "label": "two_year_recid",
            "recode": [["priors_count", "0", "NA"], ["decile_score", "10", "x"]],
        },
    ),
    ("adult.data", {"names": ADULT_NAMES, "outcome": ["hours-per-week", "fnlwgt"]}),
]


# Deep cases (--deep): a second file through a path another case already takes on Spark
# (COMPAS raw; diabetic's defaults, which COMPAS's take; adult without a label, which
# its case with one takes; na/recode, outcomes and other labels on a second dataset).
DEEP_REAL = {1, 2, 6, 8, 9, 10, 11, 14}


@pytest.mark.parametrize(
    "rel,opts",
    [
        pytest.param(r, o, id=f"{r}-{i}", marks=[pytest.mark.deep] if i in DEEP_REAL else [])
        for i, (r, o) in enumerate(REAL)
    ],
)
def test_real_datasets_equal_the_local_engine(spark, rel, opts):
    got, want = both(data_file(rel), spark, **opts)
    assert got == want


def test_overrides_cross_and_thresholds(spark):
    path = data_file("compas-scores-two-years.csv")
    overrides = {
        "race": "ignore",
        "c_charge_degree": "categorical",
        "age": "age",
        "juv_fel_count": "categorical",
    }
    opts = {
        "cross": "c_charge_degree,age",
        "min_share": 0.1,
        "max_categorical": 8,
        "max_dimension_groups": 12,
        "age_bands": "0,25,45,65",
        "max_age": 70,
        "intersection_floor": 0.05,
        "imbalance_flag": 2,
        "missing_flag": 0.01,
        "min_group_size": 500,
    }
    got, want = both(path, spark, overrides, **opts)
    assert got == want
    assert got["intersections"][0]["dims"] == ["c_charge_degree", "age"]
    # a cross naming a non-dimension: no pair is counted, the flag says so
    got, want = both(path, spark, None, cross="sex,name")
    assert got == want and got["intersections"] == []


def test_override_errors_match(spark):
    path = data_file("insurance.csv")
    for overrides in ({"nope": "sex"}, {"sex": "gender"}):
        with pytest.raises(InputError) as local:
            faircode.profile(path, overrides=overrides)
        with pytest.raises(InputError) as remote:
            fspark.profile_path(str(path), overrides, spark=spark)
        assert str(remote.value) == str(local.value)


# ----------------------------------------------------------------------- generated CSV

GENERATED = {
    "quoted_delims_newlines.csv": b"id,sex,race,note,region\n"
    b'1,F,"Black, African","a, b",north\n'
    b'2, M ,White,"line one\nline two",south\n'
    b'3,?,"",NA,  \n'
    b'4,F,Asian,"say ""hi""",north\n'
    b"\n\n"
    b"5,F,White,x,N/A\n"
    b"6,m,NaN,y,nan\n"
    b'7,\t M\t,White,"",null\n',
    "blank_short_dup.csv": b"\n\nsex,sex,,age,age,grp\n"
    b"F,F,1,34,34.0,a\n"
    b"M\n"
    b"F,M,2,,35,b\n"
    b",,,,,\n"
    b"   ,x,3,70,?,a\n"
    b"F,x,4,NULL,120,None\n",
    "semicolon_bom.csv": "\ufeffGender;Ethnicity;Age Group;Zip\n"
    "Femme;Blanc;[20-30);01234\n"
    "Homme; Noir ;[30-40);01234\n"
    "Homme;Blanc;[20-30);1234\n"
    "Femme;Noir;[40-50);n/a\n".encode(),
    "crlf.csv": b"sex,race,age\r\nF,A,20\r\nM,B,30\r\n\r\nM,A,-1\r\nF,B,999\r\n",
    "cr_only.csv": b"sex,race,age\rF,A,20\rM,B,30\rM,A,41\r",
    # SPEC 0.3: equal to the header in some fields only (a checkbox column), short: data
    "near_header.csv": b"sex,race,age\nF,A,20\nsex,race,age \nsex,race\nsex,B,30\n",
    # only one leading BOM of the first field is passed over: data
    "near_header_bom.csv": b"sex,race\nF,A\n\xef\xbb\xbf\xef\xbb\xbfsex,race\n"
    b"sex,\xef\xbb\xbfrace\n",
    "unicode_pipe.csv": "r\u00e9gion|sexe|\u00e2ge\n"
    "\u00cele-de-France|F|22\n"
    "Provence\u2013Alpes|M|22\n"
    "\u00cele-de-France|\u00a0F|23\n".encode(),
}


@pytest.mark.parametrize("fname", sorted(GENERATED))
def test_generated_csv_equal_the_local_engine(spark, tmp_path, fname):
    path = tmp_path / fname
    path.write_bytes(GENERATED[fname])
    got, want = both(path, spark, None)
    assert got == want


def test_generated_csv_with_names_skip_and_overrides(spark, tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"title line, not a record\n\na,b,c\n1,x,F\n2,y,M\n3,x,M\n4,,F\n")
    got, want = both(
        path,
        spark,
        {"n": "age", "loc": "geography"},
        names="n,loc,sex",
        skip_lines=1,
        delimiter=",",
    )
    assert got == want
    assert got["n_rows"] == 5  # the 'a,b,c' line is data when names are given


def test_named_wide_columns_and_cap(spark, tmp_path):
    rows = ["dob,zip,ident,grp,sex"]
    for k in range(400):
        rows.append(f"19{k % 90:02d}-01-{k % 28 + 1:02d},{k % 60:05d},id{k},g{k % 3},{'FM'[k % 2]}")
    path = tmp_path / "wide.csv"
    path.write_text("\n".join(rows) + "\n")
    got, want = both(path, spark, None)
    assert got == want
    assert [d["name"] for d in got["dropped"]] == ["dob"]


def test_label_cap_applies_in_spark(spark):
    """SPEC 0.9 on Spark: a forced column one label past LABEL_CAP is capped in Spark (its
    summary holds no counts, listed in `dropped` with more_than), a geography column at
    exactly LABEL_CAP is not; the same result as the local engine's reading of the
    values collect() returns."""
    from faircode.analyze import analyze
    from faircode.summary import LABEL_CAP

    n = LABEL_CAP + 1
    sdf = spark.range(n).selectExpr(
        "concat('i', cast(id as string)) as ident",
        "concat('z', cast(id % " + str(LABEL_CAP) + " as string)) as zip",
        "if(id % 2 = 0, 'F', 'M') as sex",
    )
    overrides = {"ident": "categorical"}
    summary, checked, options = fspark.summarize(sdf, overrides)
    # capped from Spark's distinct count: none of its labels was brought to the driver
    assert summary.counts[0] is None and summary.capped == [True, False, False]
    got = analyze(summary, checked, options)
    pdf = pd.DataFrame([list(r) for r in sdf.collect()], columns=["ident", "zip", "sex"])
    assert got == faircode.profile(pdf, overrides=overrides)
    assert got["dropped"] == [
        {"name": "ident", "kind": "categorical", "n_groups": None, "more_than": LABEL_CAP}
    ]
    assert len(next(d for d in got["dimensions"] if d["name"] == "zip")["groups"]) == LABEL_CAP


# ----------------------------------------------------------------------- errors

ERRORS = {
    "long_row.csv": b"sex,age\nF,1\nM,2,\n",
    "nul.csv": b"sex,age\nF,1\nM\x00,2\n",
    "bad_utf8.csv": b"sex,age\nF,1\n\xffM,2\n",
    "header_only.csv": b"sex,age\n\n",
    "empty.csv": b"\n\r\n",
    "sep_line.csv": b"sep=;\r\nsex;age\r\nF;1\r\n",
    "title_line.csv": b"Staff export\nsex,age\nF,1\n",
    "web_page.csv": b"<!DOCTYPE html>\n<html></html>\n",
    "trailing_delimiter.csv": b"sex,age\nF,1,\nM,2,\n",
    # SPEC 0.3: files joined with cat; the first repeat (quoted) is named
    "repeated_header.csv": b'sex,age\nF,1\n\n"sex",age\nM,2\nsex,age\n',
    # cat after Excel exports: a BOM before the repeated header line, the first with one
    # or without one
    "repeated_header_bom.csv": b"sex,age\nF,1\n\xef\xbb\xbfsex,age\nM,2\n",
    "repeated_header_boms.csv": b"\xef\xbb\xbfsex,age\nF,1\n\xef\xbb\xbfsex,age\nM,2\n",
    # the repeated line's first name quoted after the BOM: unquoted, it is the header's
    "repeated_header_bom_quoted.csv": b'se"x,age\nF,1\n\xef\xbb\xbf"se""x",age\nM,2\n',
}


@pytest.mark.parametrize("fname", sorted(ERRORS))
def test_reading_errors_match_the_local_engine(spark, tmp_path, fname):
    path = tmp_path / fname
    path.write_bytes(ERRORS[fname])
    with pytest.raises(InputError) as local:
        faircode.profile(path)
    with pytest.raises(InputError) as remote:
        fspark.profile_path(str(path), spark=spark)
    assert str(remote.value) == str(local.value)


def test_a_tied_header_line_is_read_with_the_delimiter_of_its_rows(spark, tmp_path):
    """SPEC 0.2: a tie in the header line is broken by the next line, as locally (Spark
    is given the delimiter open_table chose)."""
    path = tmp_path / "tied.tsv"
    path.write_bytes(b"sex,x\trace,y\tage\n" + b"M\tw\t30\nF\tb\t40\n" * 60)
    got, want = both(path, spark)
    assert got == want and got["columns"] == ["sex,x", "race,y", "age"]


def test_a_last_ctrl_z_line_is_refused_with_one_line(spark, tmp_path):
    """SPEC 0.7: the local engine drops a last line of only a Ctrl-Z (0.2); Spark's
    reader would count it as a row, so faircode.spark says so."""
    path = tmp_path / "dos.csv"
    path.write_bytes(b"sex,age\r\nF,1\r\nM,2\r\n\x1a\r\n")
    assert faircode.profile(path)["n_rows"] == 2
    with pytest.raises(InputError) as err:
        fspark.profile_path(str(path), spark=spark)
    assert str(err.value) == (
        f"{path}: its last line is a Ctrl-Z (1A, a DOS end-of-file mark), which Spark's CSV "
        "reader reads as a row; delete that line, or profile the file with the local engine"
    )


def test_a_remote_repeated_header_says_so_without_a_line():
    """SPEC 0.7: Spark has no line numbers; a remote file's rows equal to the header
    record are counted, with one file's advice (Spark reads one file)."""
    with pytest.raises(InputError) as err:
        fspark._raise_remote("hdfs:///t.csv", {"H": 2}, 2, False)
    assert str(err.value) == (
        "hdfs:///t.csv: 2 records repeat the header (files joined with cat?; Spark cannot "
        "report the line); remove the repeated header lines"
    )


def test_a_remote_file_s_advice_is_spelled_as_the_surface_spells_options():
    """SPEC 0.6: the API's keyword (names, encoding), the CLI's flag."""
    for flags, api, cli in (
        ({"L": 2}, "the 3 names names gives", "the 3 names --names gives"),
        ({"U": 1}, "re-save the file as UTF-8 or pass encoding", "or pass --encoding"),
    ):
        with pytest.raises(InputError) as err:
            fspark._raise_remote("hdfs:///t.csv", flags, 3, True)
        assert api in str(err.value)
        with pytest.raises(InputError) as err, spelling("flag"):
            fspark._raise_remote("hdfs:///t.csv", flags, 3, True)
        assert cli in str(err.value)


def test_names_refuse_a_sniffed_delimiter_as_the_local_engine(spark, tmp_path, monkeypatch):
    """SPEC 0.2: with names and a sniffed delimiter, a first record of fewer fields than
    the names is refused, also when the file is longer than the head Spark's reader
    reads first (adult.test's first line, '|1x3 Cross validator')."""
    monkeypatch.setattr(fspark, "HEAD_BYTES", 64)
    monkeypatch.setattr(fspark, "MAX_HEAD_BYTES", 256)
    path = tmp_path / "adult_test.csv"
    path.write_bytes(b"|1x3 Cross validator\n" + b"25, Private, Male\n" * 400)
    with pytest.raises(InputError) as local:
        faircode.profile(path, opts={"names": "age,workclass,sex"})
    with pytest.raises(InputError) as remote:
        fspark.profile_path(str(path), None, {"names": "age,workclass,sex"}, spark=spark)
    assert str(remote.value) == str(local.value)
    assert "line 1: 2 fields where names gives 3" in str(local.value)  # the API's (SPEC 0.6)


def test_genuine_replacement_character_is_accepted(spark, tmp_path):
    path = tmp_path / "fffd.csv"
    path.write_bytes("sex,age\nF,1\nM\ufffd,2\nM,3\n".encode())
    got, want = both(path, spark)
    assert got == want


def test_dialect_mismatches_are_refused_or_warned(spark, tmp_path):
    mixed = tmp_path / "mixed.csv"
    mixed.write_bytes(b"sex,age\nF,1\r\nM,2\n")
    with pytest.raises(InputError, match="carriage return"):
        fspark.profile_path(str(mixed), spark=spark)
    stray = tmp_path / "stray.csv"
    stray.write_bytes(b'sex,age\n"F"x,1\nM,2\n')
    with pytest.raises(InputError, match="starting with"):
        fspark.profile_path(str(stray), spark=spark)
    crlf_text = tmp_path / "crlf_text.csv"
    notes = b"".join(b"M,note %d\r\n" % k for k in range(25))  # too wide for a dimension
    crlf_text.write_bytes(b'sex,note\r\nF,"a\r\nb"\r\n' + notes)
    with pytest.warns(fspark.SparkDialectWarning):
        got = fspark.profile_path(str(crlf_text), spark=spark)
    assert got == faircode.profile(crlf_text)  # the text column is no dimension
    crlf_dim = tmp_path / "crlf_dim.csv"
    crlf_dim.write_bytes(b'sex,note\r\n"F\r\nx",a\r\nM,x\r\n')
    with pytest.raises(InputError, match="line break"):
        fspark.profile_path(str(crlf_dim), spark=spark)


def test_directory_of_csv_is_refused(spark, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("sex\nF\n")
    with pytest.raises(InputError, match="no such file"):
        fspark.profile_path(str(tmp_path / "missing.csv"), spark=spark)
    with pytest.raises(InputError, match="directory"):
        fspark.profile_path(str(tmp_path / "d"), spark=spark)


# ----------------------------------------------------------------------- DataFrames


def _typed_pandas() -> pd.DataFrame:
    n = 40
    return pd.DataFrame(
        {
            "sex": pd.Series(
                [[" F", "M ", "?", None, "NA", "F"][k % 6] for k in range(n)], dtype=object
            ),
            "age": pd.Series([float(18 + k) if k % 7 else math.nan for k in range(n)]),
            "n_kids": pd.Series([k % 3 for k in range(n)], dtype="int64"),
            "smoker": pd.Series([k % 4 == 0 for k in range(n)], dtype=bool),
            "score": pd.Series([[0.1 + 0.2, 1e16, -0.0, 34.0][k % 4] for k in range(n)]),
            "race": pd.Series([["A", "B", "C\tD", "  "][k % 4] for k in range(n)], dtype=object),
        }
    )


def test_spark_dataframe_equals_pandas_dataframe(spark):
    pdf = _typed_pandas()
    sdf = spark.createDataFrame(pdf)
    assert fspark.profile(sdf) == faircode.profile(pdf)
    opts = {"cross": ["smoker", "sex"], "min_share": 0.2}
    assert fspark.profile(sdf, {"score": "categorical"}, opts) == faircode.profile(
        pdf, overrides={"score": "categorical"}, opts=opts
    )


def test_label_and_missing_cells_equal_the_local_engine(spark, tmp_path):
    """SPEC 17 on a CSV file and on typed frames: a label with missing cells, missing
    cells after SPEC 1.1 (declared tokens, a recode to missing, a token that is an
    integer's text), an uncounted wide column with blanks, and an intersection."""
    lines = ["sex,race,person_id,grp,hired,note"]
    for k in range(400):
        sex = ["F", "M", "", "M", "NA", " F"][k % 6]
        race = ["A", "B", "C", "?", "B", "A", "-"][k % 7]
        pid = "" if k % 11 == 0 else f"p{k}"
        grp = ["g1", "g2", "x", "g1"][k % 4]
        hired = ["yes", "no", "", "no", "yes", "n/a", "no"][(k * 3) % 7]
        note = ["", "ok", "zz", "fine"][(k // 3) % 4]
        lines.append(f"{sex},{race},{pid},{grp},{hired},{note}")
    path = tmp_path / "hire.csv"
    path.write_text("\n".join(lines) + "\n")
    cases = [
        {"label": "hired"},
        {"label": "hired", "positive": "no", "cross": ["race", "sex"], "missing_gap": 0.01},
        {"label": "grp", "positive": "g1", "na": ["-", ["note", "zz"]]},
        {"recode": [["note", "fine", ""], ["race", "?", "C"]], "missing_gap": 0.0},
    ]
    for opts in cases:
        got, want = both(path, spark, None, **opts)
        assert got == want, opts
        assert want["missing_by_group"], opts
    pdf = _typed_pandas()
    pdf["hired"] = pd.Series([["1", "0", None, "0"][k % 4] for k in range(len(pdf))], dtype=object)
    sdf = spark.createDataFrame(pdf)
    for opts in (
        {"label": "hired"},
        {"label": "n_kids", "positive": "2", "na": [["score", "34.0"], ["smoker", "True"]]},
    ):
        got = fspark.profile(sdf, {"n_kids": "ignore"} if opts["label"] == "hired" else None, opts)
        want = faircode.profile(
            pdf, overrides={"n_kids": "ignore"} if opts["label"] == "hired" else None, opts=opts
        )
        assert got == want, opts
        assert want["label_rates"]["dimensions"], opts


def test_float32_labels_equal_the_local_engine(spark, tmp_path):
    """A 32-bit float is labelled at its own precision (SPEC 0.4): float32 0.1 is `0.1`
    in Spark as in Arrow and pandas, not the double it widens to."""
    values = [0.1, 0.7, 1e10, -0.0, 0.0, None, math.inf, 3.4028235e38, 1e-45]
    pdf = pd.DataFrame(
        {
            "sex": pd.Series([["F", "M", "F"][k % 3] for k in range(90)], dtype=object),
            "ratio": pd.Series([values[k % 9] for k in range(90)], dtype="float32"),
        }
    )
    path = tmp_path / "f32.parquet"
    pdf.to_parquet(path)
    overrides = {"ratio": "categorical"}
    want = faircode.profile(pdf, overrides=overrides)
    labels = [g["label"] for d in want["dimensions"] if d["name"] == "ratio" for g in d["groups"]]
    assert "0.1" in labels and "0.7" in labels
    assert fspark.profile(spark.createDataFrame(pdf), overrides) == want
    assert fspark.profile_path(str(path), spark=spark, overrides=overrides) == want


def test_spark_dataframe_other_types_and_duplicate_names(spark):
    rows = [
        (
            k % 2 == 0,
            Decimal("1.50") if k % 3 else Decimal("0.00000001"),
            datetime.date(2020, 1, 1 + k % 3),
            datetime.datetime(2020, 1, 2, 3, 4, k % 2),
            None if k % 5 == 0 else f" g{k % 2}",
            k,
        )
        for k in range(30)
    ]
    sdf = spark.createDataFrame(
        rows, "flag boolean, amount decimal(20,8), day date, ts timestamp, grp string, grp long"
    )
    got = fspark.profile(sdf, {"amount": "categorical", "ts": "categorical"})
    # the pandas reference: the values collect() returns, with the same header rule
    pdf = pd.DataFrame(
        [list(r) for r in sdf.collect()],
        columns=["flag", "amount", "day", "ts", "grp", "grp"],
        dtype=object,
    )
    want = faircode.profile(pdf, overrides={"amount": "categorical", "ts": "categorical"})
    assert got == want
    assert got["n_cols"] == 6 and "grp" in [u["name"] for u in got["unscored"]]


def test_proxy_hints_equal_the_local_engine(spark):
    """SPEC 16 from Spark's pair tables: every pair of dimensions, and each dimension
    against every other column (chi-squared, or ANOVA from exact sums for numbers;
    adult's fnlwgt, past 1,000 labels, not tested), with a label, an outcome and a
    cross; the block is `==` the local engine's."""
    adult = data_file("adult.data")
    opts = {
        "names": ADULT_NAMES,
        "proxy_hints": True,
        "label": "income",
        "outcome": ["hours-per-week"],
        "cross": ["race", "sex"],
    }
    got, want = both(adult, spark, **opts)
    assert got == want
    block = got["proxy_hints"]
    assert {f["method"] for f in block["features"]} == {"chi2", "anova"}
    assert {"a": "sex", "b": "fnlwgt", "why": "'fnlwgt' has more than 1000 labels"} in (
        block["features_not_tested"]
    )


@pytest.mark.deep
def test_proxy_hints_of_a_second_dataset_equal_the_local_engine(spark):
    """A deep case of the test above: COMPAS's 50-odd columns through the same pair
    tables, with no label, outcome or cross."""
    got, want = both(data_file("compas-scores-two-years.csv"), spark, proxy_hints=True)
    assert got == want
    assert len(got["proxy_hints"]["features"]) > 50


def test_outcome_sums_of_typed_columns_equal_the_local_engine(spark):
    """SPEC 21.2 on a Spark DataFrame: doubles (NaN, null, -0.0, inf, out of range),
    decimals, booleans (no numbers, unless a recode makes one), longs with nulls and
    padded text; the local engine reads the values collect() returns; the mean of the
    doubles is the exact one."""
    from fractions import Fraction

    ys = [1.5, None, math.nan, -0.0, math.inf, 1e200, 0.1, -3.0, 1e-7, 2.5e-300]
    rows = [
        (
            ["F", "M", "X"][k % 3],
            ys[k % 10],
            Decimal("1.50") if k % 3 else Decimal("-0.00000001"),
            k % 4 == 0,
            None if k % 7 == 0 else k * 1000003,
            [" 3 ", "abc", "", "NA", "1e5", "-2", "99", ".5"][k % 8],
        )
        for k in range(120)
    ]
    sdf = spark.createDataFrame(
        rows, "sex string, y double, amount decimal(20,8), flag boolean, big long, t string"
    )
    opts = {
        "outcome": ["y", "amount", "flag", "big", "t"],
        "recode": [["flag", "True", "1"], ["t", "99", "NA"], ["y", "0.1", "n/a"]],
    }
    got = fspark.profile(sdf, None, opts)
    pdf = pd.DataFrame(
        [list(r) for r in sdf.collect()],
        columns=["sex", "y", "amount", "flag", "big", "t"],
        dtype=object,
    )
    assert got == faircode.profile(pdf, opts=opts)
    y = got["outcomes"][0]
    values = [v for v in ys if v is not None and abs(v) <= 1e140 and v not in (0.1,)]
    values = [v for v in values if not math.isnan(v) and (v == 0 or abs(v) >= 1e-140)]
    assert y["n"] == 12 * len(values)
    assert y["mean"] == float(sum(map(Fraction, values)) / len(values))
    flag = got["outcomes"][2]
    assert (flag["n"], flag["non_numeric"], flag["mean"]) == (30, 90, 1.0)


def test_spark_dataframe_complex_column_warns(spark):
    sdf = spark.createDataFrame([(["a"], "F"), (["b"], "M")], "tags array<string>, sex string")
    with pytest.warns(fspark.SparkDialectWarning, match="tags"):
        fspark.profile(sdf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fspark.profile(sdf, {"tags": "ignore"})
    with pytest.raises(InputError, match="no data rows"):
        fspark.profile(sdf.limit(0), {"tags": "ignore"})


# ----------------------------------------------------------------------- Parquet


def test_parquet_file_and_spark_written_directory(spark, tmp_path):
    pdf = _typed_pandas()
    path = tmp_path / "typed.parquet"
    pdf.to_parquet(path)
    assert fspark.profile_path(str(path), spark=spark) == faircode.profile(pdf)
    # a Spark-written dataset (a directory of part files) of a real CSV, all strings
    csv_path = data_file("insurance.csv")
    frame = spark.read.csv(str(csv_path), header=True)
    out = tmp_path / "insurance.parquet"
    frame.repartition(3).write.parquet(str(out))
    assert fspark.profile_path(str(out), spark=spark) == faircode.profile(csv_path)


def test_cli_engine_spark_matches_local(spark, capsys):
    """`faircode profile --engine spark` in this process: the CLI takes the active
    session (its own JVM start in a fresh process, with the JVM's stderr sent to a log,
    is test_cli_engine_spark_json_equals_the_local_cli's, through the same
    cliutil.spark_session_quietly)."""
    import json

    from faircode.cli import main

    path = str(data_file("insurance.csv"))
    outs = []
    for engine in ("spark", "local"):
        assert main(["profile", path, "--json", "--engine", engine]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        outs.append(json.loads(out))
    spark_out, local_out = outs
    spark_prov, local_prov = spark_out.pop("provenance"), local_out.pop("provenance")
    assert spark_out == local_out
    assert spark_prov["engine"] == "spark" and spark_prov["dataset_hash"] is None
    assert spark_prov["dataset_hash_note"] and local_prov["dataset_hash"].startswith("sha256:")
