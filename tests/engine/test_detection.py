"""SPEC section 1: detection and overrides."""

import pytest
from util import prof

from faircode import InputError
from faircode.detect import kind_from_name, tokenize


@pytest.mark.parametrize(
    "name,tokens",
    [
        ("DateOfBirth", ["date", "of", "birth"]),
        ("Sex_Code_Text", ["sex", "code", "text"]),
        ("ageGroup", ["age", "group"]),
        ("DOBDate", ["dob", "date"]),
        ("age2", ["age", "2"]),
        ("patient-race/ethnicity", ["patient", "race", "ethnicity"]),
        ("ABc", ["a", "bc"]),
        ("G\u00e9nero", ["g", "nero"]),
        ("  ", []),
    ],
)
def test_tokenize(name, tokens):
    assert tokenize(name) == tokens


@pytest.mark.parametrize(
    "name,kind",
    [
        ("sex", "sex"),
        ("Gender", "sex"),
        ("genders", "sex"),
        ("Sex_Code_Text", "sex"),
        ("race", "race"),
        ("Ethnic_Code_Text", "ethnicity"),  # its labels make it race (SPEC 1.2)
        ("ethnicity", "ethnicity"),
        ("age", "age"),
        ("DateOfBirth", "age"),
        ("dob", "age"),
        ("birthYear", "age"),
        ("age_cat", "age"),
        ("region", "geography"),
        ("statecode", "geography"),
        ("zip", "geography"),
        ("ZipCode", "geography"),
        ("native-country", "nationality"),
        ("Agency_Text", None),
        ("Language", None),
        ("stage", None),
        ("zipper", None),
        ("dobby", None),
        ("page", None),
        ("agent", None),
        ("usage", None),
        # the first matching list wins: sex before age
        ("sex_age", "sex"),
        ("age_race", "race"),
    ],
)
def test_kind_from_name(name, kind):
    assert kind_from_name(name) == kind


def _column(values):
    return "\n".join(values)


def test_generic_categorical_needs_2_to_20_distinct_labels():
    rows = [f"{i % 1},{i % 2},{i % 20},{i % 21},{i}" for i in range(420)]
    text = "one,two,twenty,twentyone,id\n" + "\n".join(rows) + "\n"
    r = prof(text, score_categoricals=True)
    assert [d["name"] for d in r["dimensions"]] == ["two", "twenty"]
    assert all(d["kind"] == "categorical" for d in r["dimensions"])
    assert all(d["detected_by"] == "label_count" for d in r["dimensions"])
    # SPEC 1.4: by default they are listed, not scored
    r = prof(text)
    assert r["dimensions"] == [] and r["overall_score"] is None
    assert [u["name"] for u in r["unscored"]] == ["two", "twenty"]


def test_max_categorical_option():
    rows = [f"{i % 21}" for i in range(100)]
    assert prof("c\n" + "\n".join(rows) + "\n", max_categorical=21)["unscored"]
    assert not prof("c\n" + "\n".join(rows) + "\n")["unscored"]


def test_named_dimension_with_more_than_50_groups_is_dropped_except_geography_and_forced():
    rows = [f"r{i},c{i},x{i}" for i in range(51)]
    data = "race,city,code\n" + "\n".join(rows) + "\n"
    r = prof(data)
    assert [d["name"] for d in r["dimensions"]] == ["city"]
    assert r["dropped"] == [{"name": "race", "kind": "race", "n_groups": 51}]
    r = prof(data, {"race": "race", "code": "categorical"})
    assert [d["name"] for d in r["dimensions"]] == ["race", "city", "code"]
    assert prof(data, max_dimension_groups=51)["dropped"] == []


def test_overrides_force_and_ignore():
    data = "gndr,sex,notes\nm,M,a\nf,F,a\nf,F,a\n"
    r = prof(data, {"gndr": "sex", "sex": "ignore", "notes": "categorical"})
    assert [(d["name"], d["kind"]) for d in r["dimensions"]] == [
        ("gndr", "sex"),
        ("notes", "categorical"),
    ]
    assert r["dimensions"][1]["n_groups"] == 1


def test_override_errors_name_the_problem():
    with pytest.raises(InputError, match=r"^overrides: no column named 'gnder' \(columns: gndr"):
        prof("gndr,x\nm,1\n", {"gnder": "sex"})
    with pytest.raises(InputError, match=r"^overrides: unknown kind 'gender' for 'gndr'"):
        prof("gndr,x\nm,1\n", {"gndr": "gender"})
