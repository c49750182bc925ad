"""The seams between reading and analysis: the label rules' module, summarize's named
result, analyze's option dict, Summary.merge's SPEC 0.5 invariant."""

from __future__ import annotations

import io

import pytest
from util import data_file

import faircode
from faircode.analyze import analyze
from faircode.errors import InputError
from faircode.labels import DEFAULT_RULE, MISSING_TOKENS, MissingRule, clean_header, label_of
from faircode.options import Options, resolve
from faircode.summary import LABEL_CAP, SummaryBuilder


def _summarize(text: str, **opts):
    return faircode.summarize(io.BytesIO(text.encode()), opts=opts, name="t.csv")


def test_summarize_returns_a_named_result_that_unpacks_as_three():
    got = _summarize("sex\nM\nF\n", min_share=0.2)
    summary, overrides, options = got
    assert got.summary is summary and got.overrides is overrides and got.options is options
    assert summary.n_rows == 2 and overrides == {} and options.min_share == 0.2
    assert got._fields == ("summary", "overrides", "options")


def test_analyze_takes_an_option_dict_like_the_js_engine():
    summary, _, _ = _summarize("sex,grp\nM,a\nF,b\nF,a\n")
    opts = {"min_share": 0.4, "min_group_size": 1}
    assert analyze(summary, {"grp": "categorical"}, opts) == analyze(
        summary, {"grp": "categorical"}, resolve(opts)
    )
    assert analyze(summary) == analyze(summary, {}, Options())
    with pytest.raises(InputError, match="^min_share: "):
        analyze(summary, None, {"min_share": 2})
    with pytest.raises(InputError, match="no column named 'nope'"):
        analyze(summary, {"nope": "sex"})


def test_merge_keeps_missing_zero_for_a_column_no_longer_counted():
    """SPEC 0.5: a column one side stopped counting (or whose union passed LABEL_CAP)
    has missing 0 in the merge, as SummaryBuilder.finish and the JS merge give."""
    few = "sex,note\nM,a\nF,\nM,NA\n"  # note: 1 label, 2 missing
    many = "sex,note\n" + "".join(f"F,n{k}\n" for k in range(30)) + "M,\n"
    a, _, _ = _summarize(few)
    b, _, _ = _summarize(many)
    assert a.counts[1] is not None and a.missing[1] == 2
    assert b.counts[1] is None and b.missing[1] == 0  # > max_categorical: dropped
    for merged in (a.merge(b), b.merge(a)):
        assert merged.counts[1] is None and merged.missing[1] == 0
        assert merged.missing[0] == 0 and merged.n_rows == a.n_rows + b.n_rows
    whole, _, _ = _summarize(few + many.split("\n", 1)[1])
    assert a.merge(b) == whole


def test_merge_past_the_label_cap_drops_missing_too():
    opts = resolve(None)
    half = LABEL_CAP // 2 + 1
    sides = []
    for part in range(2):
        builder = SummaryBuilder("t", ["zip"], {"zip": "geography"}, opts)
        builder.add_columns([[f"z{part}-{k}" for k in range(half)] + ["", "NA"]], half + 2)
        sides.append(builder.finish())
    assert all(s.counts[0] is not None and s.missing[0] == 2 for s in sides)
    merged = sides[0].merge(sides[1])
    assert merged.counts[0] is None and merged.is_capped(0) and merged.missing[0] == 0


def test_add_columns_counts_rows_like_add_rows():
    opts = resolve(None)
    rows = [["M", " a "], ["F", "?"], ["F", "b"]]
    by_rows = SummaryBuilder("t", ["sex", "grp"], {}, opts)
    by_rows.add_rows(rows)
    by_cols = SummaryBuilder("t", ["sex", "grp"], {}, opts)
    by_cols.add_columns([list(c) for c in zip(*rows)], len(rows))
    by_cols.add_columns([[], []], 0)
    assert by_rows.finish() == by_cols.finish()


def spec_missing_tokens() -> frozenset[str]:
    """SPEC 0.4's list, read from SPEC.md (tests/js/helpers.js reads it the same way), so
    adding a token is one edit per engine plus the spec."""
    import re

    from util import ROOT

    line = next(
        s
        for s in (ROOT / "SPEC.md").read_text(encoding="utf-8").splitlines()
        if s.strip().startswith('`""` (empty)')
    )
    return frozenset("" if t == '""' else t for t in re.findall(r"`([^`]*)`", line))


def test_the_default_missing_rule_is_spec_0_4():
    assert {"", "NA", "?"} <= spec_missing_tokens()  # the SPEC line was found and read
    assert DEFAULT_RULE.tokens == MISSING_TOKENS == spec_missing_tokens()
    assert label_of(" \tNA ") is None and label_of(" None ") == "None"
    assert label_of("\u00a0x") == "\u00a0x"  # only ASCII space and tab are trimmed
    assert clean_header([" a ", "", "a"]) == ["a", "column_2", "a.1"]


def test_a_missing_rule_takes_extra_tokens():
    rule = MissingRule(extra=["-", "unknown"])
    assert rule.label_of(" - ") is None and rule.label_of("unknown") is None
    assert rule.label_of("NA") is None and rule.label_of("Unknown") == "Unknown"
    assert rule.typed_label(b"-") is None and rule.typed_label(5) == "5"
    assert rule.frame_label(None) is None and rule.frame_label("\t-") is None
    assert label_of("-") == "-"  # the default rule is untouched
    opts = resolve(None)
    builder = SummaryBuilder("t", ["sex"], {}, opts, label_fn=rule.label_of)
    builder.add_rows([["M"], ["-"], ["F"]])
    summary = builder.finish()
    assert summary.counts[0] == {"M": 1, "F": 1} and summary.missing[0] == 1


def test_check_overrides_lives_in_detect():
    from faircode import detect, profiler

    assert profiler.check_overrides is detect.check_overrides
    assert detect.check_overrides(None, ["a"]) == {}
    with pytest.raises(InputError, match="unknown kind 'x'"):
        detect.check_overrides({"a": "x"}, ["a"])


def test_a_pandas_frame_is_read_through_formats():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"sex": ["M", None, " F", "NA"], "age": [30, 40, None, 50]})
    summary, checked, _ = faircode.summarize(df)
    assert summary.counts[0] == {"M": 1, "F": 1} and summary.missing[0] == 2
    assert summary.counts[1] == {"30.0": 1, "40.0": 1, "50.0": 1} and summary.missing[1] == 1
    big = pd.read_csv(data_file("insurance.csv"))
    assert faircode.profile(big)["n_rows"] == len(big)


@pytest.mark.parametrize("seed", range(4))
def test_pure_python_pair_counts_equal_the_arrow_builders(seed):
    """The reference reader's pair tables (bitsets, or zipped rows for wide columns and
    many combinations) hold exactly what columnar.py's numpy tables hold."""
    pytest.importorskip("pyarrow")
    import random

    import pyarrow as pa

    from faircode.columnar import ArrowSummaryBuilder

    rng = random.Random(seed)
    names = ["sex", "race", "age", "grp", "zip"]
    overrides = {"zip": "categorical", "grp": "categorical"}
    pools = [
        ["M", "F", "", "NA"],
        [f"r{k}" for k in range(7)] + ["?"],
        [str(a) for a in range(90)] + [""],
        [f"g{k}" for k in range(30)],
        [f"{k:05d}" for k in range(600)] + ["null"],
    ]
    opts = resolve({"max_dimension_groups": 1000, "max_categorical": 1000})
    py = SummaryBuilder("t", names, overrides, opts)
    arrow = ArrowSummaryBuilder("t", names, overrides, opts)
    for n in (5000, 1, 3000, 700):
        cols = [[rng.choice(pool) for _ in range(n)] for pool in pools]
        py.add_columns(cols, n)
        arrow.add_arrays([pa.array(c) for c in cols], n)
    a, b = py.finish(), arrow.finish()
    # (0, 1): bitsets; (1, 2): 7 x 90 combinations, zipped; (3, 4): zip's codes pass a byte
    assert {(0, 1), (1, 2), (3, 4)} <= set(a.pairs) and a == b
    for key in a.pairs:
        assert dict(a.pairs[key]) == dict(b.pairs[key])
