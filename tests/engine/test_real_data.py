"""Published figures and quirks of the real datasets in tests/data (tests/data/README.md)."""

import io

import pytest
from util import ADULT_NAMES, counts, data_file, dim

import faircode


@pytest.fixture(scope="module")
def compas():
    return faircode.profile(data_file("compas-scores-two-years.csv"))


def test_compas_published_counts(compas):
    assert compas["n_rows"] == 7214
    race = counts(compas, "race")
    assert race["African-American"] == 3696 and race["Caucasian"] == 2454
    assert counts(compas, "sex") == {"Male": 5819, "Female": 1395}


def test_compas_crlf_duplicate_headers_and_dropped_dob(compas):
    unscored = [u["name"] for u in compas["unscored"]]
    assert "decile_score.1" in unscored and "decile_score" in unscored
    assert compas["n_cols"] == 53
    assert compas["dropped"][0]["name"] == "dob"
    assert compas["intersections"][0]["dims"] == ["sex", "age"]
    age = dim(compas, "age")
    assert age["age_mode"] == "numeric" and sum(g["count"] for g in age["groups"]) == 7214


def test_diabetic_interval_ages_and_question_mark_missing():
    r = faircode.profile(data_file("diabetic_data.csv"))
    assert r["n_rows"] == 101766
    age = dim(r, "age")
    # decades cross the band edges 18 and 75: they are the groups, as written (SPEC 2)
    assert age["age_mode"] == "interval_as_written"
    assert counts(r, "age")["[0-10)"] == 161 and counts(r, "age")["[10-20)"] == 691
    assert dim(r, "race")["missing_count"] == 2273
    assert counts(r, "gender")["Unknown/Invalid"] == 3
    serum = next(u for u in r["unscored"] if u["name"] == "max_glu_serum")
    assert "None" in {g["label"] for g in serum["groups"]}


def test_adult_headerless_with_names():
    r = faircode.profile(data_file("adult.data"), opts={"names": ADULT_NAMES})
    assert r["n_rows"] == 32561
    assert counts(r, "sex") == {"Male": 21790, "Female": 10771}
    assert dim(r, "native-country")["missing_count"] == 583
    t = faircode.profile(data_file("adult.test"), opts={"names": ADULT_NAMES, "skip_lines": 1})
    assert t["n_rows"] == 16281


def test_compas_raw_legacy_labels_kept():
    r = faircode.profile(data_file("compas-scores-raw.csv"))
    assert r["n_rows"] == 60843
    assert {"African-Am", "Oriental", "Arabic"} <= set(counts(r, "Ethnic_Code_Text"))
    assert r["dropped"][0]["name"] == "DateOfBirth"


def test_dataframe_source_matches_csv_for_string_frames():
    import pandas as pd

    path = data_file("insurance.csv")
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert faircode.profile(df) == faircode.profile(path)
    # numeric frames: ints stay ints as text, NaN is missing
    titanic = pd.read_csv(data_file("seaborn/titanic.csv"))
    r = faircode.profile(titanic)
    assert dim(r, "age")["missing_count"] == 177
    assert dim(r, "age")["age_mode"] == "numeric"


def test_tiny_blocks_give_the_identical_result_on_a_real_file():
    data = data_file("compas-scores-two-years.csv").read_bytes()
    whole = faircode.profile(io.BytesIO(data))
    assert faircode.profile(io.BytesIO(data), block_size=4099) == whole
    assert faircode.profile(io.BytesIO(data[:60000]), block_size=7) == faircode.profile(
        io.BytesIO(data[:60000])
    )


def test_summaries_merge_to_the_whole():
    data = data_file("insurance.csv").read_bytes().decode()
    header, *rows = data.splitlines(keepends=True)
    part1 = (header + "".join(rows[:500])).encode()
    part2 = (header + "".join(rows[500:])).encode()
    s1, _, opts = faircode.summarize(io.BytesIO(part1))
    s2, _, _ = faircode.summarize(io.BytesIO(part2))
    whole, _, _ = faircode.summarize(io.BytesIO(data.encode()))
    from faircode.analyze import analyze

    assert analyze(s1.merge(s2), {}, opts) == analyze(whole, {}, opts)
