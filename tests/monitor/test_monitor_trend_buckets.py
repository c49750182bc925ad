"""``fairness report --bucket``: the trend per week, month or N predictions (SPEC 15.5).

Every bucket's numbers are checked against an independent pandas computation on the
same COMPAS rows (a ``groupby`` over ISO weeks, calendar months, or chunks of the rows
sorted by time and request id), its intervals against ``evaluate`` on the bucket's rows,
and SQLite against PostgreSQL. Tests taking ``logged`` run on both stores; reports only
read the store, so COMPAS is logged once per store for the whole module.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import storeutil

from faircode.monitor import evaluate, fairness_report
from faircode.monitor.cli import run

GUARD = 30
YAML = f"""\
models:
  compas:
    slices: [race, sex]
    threshold: 0.1
    min_samples: {GUARD}
    rule: point
"""
GATED = ("demographic_parity_difference", "equalized_odds_difference", "accuracy_range")


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    df = pd.read_csv(storeutil.require_compas())
    df = df[["id", "race", "sex", "decile_score", "two_year_recid", "compas_screening_date"]]
    # request ids whose bytewise order differs from a locale's (B < Z < a < é in bytes):
    # rows of one day are ordered by them, on both stores alike
    prefixes = ["a", "B", "é", "Z"]
    df = df.assign(rid=[f"{prefixes[i % 4]}{v}" for i, v in enumerate(df["id"])])
    df["pred"] = (df["decile_score"] >= 5).astype(int)
    df["date"] = pd.to_datetime(df["compas_screening_date"])
    return df


@pytest.fixture(scope="module")
def stores(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, compas: pd.DataFrame
) -> Callable[[str], tuple[str, str]]:
    """``stores(kind) -> (store, registry)``: COMPAS logged and labelled once per store
    kind for this module (its reports only read the store)."""
    made: dict[str, tuple[str, str]] = {}

    def get(kind: str) -> tuple[str, str]:
        if kind not in made:
            folder = tmp_path_factory.mktemp(f"trend-{kind}")
            if kind == "sqlite":
                db = str(folder / "monitor.db")
            else:
                db = storeutil.fresh_pg_database(request.getfixturevalue("pg_server_url"))
            made[kind] = (db, _log(db, folder, compas))
        return made[kind]

    return get


@pytest.fixture(params=["sqlite", "postgresql"])
def logged(request: pytest.FixtureRequest, stores: Callable[[str], tuple[str, str]]):
    """(store, registry) of the logged COMPAS rows, on SQLite then PostgreSQL."""
    return stores(request.param)


def _log(db: str, folder: Path, frame: pd.DataFrame) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    registry = folder / "fairness.yaml"
    registry.write_text(YAML)
    frame.to_csv(folder / "c.csv", index=False)
    common = ["--db", db, "--registry", str(registry)]
    log = ["--id", "rid", "--score", "decile_score", "--decision-threshold", "5"]
    log += ["--attr", "race", "--attr", "sex", "--at", "compas_screening_date"]
    assert (
        run(["fairness", "log", "compas", str(folder / "c.csv"), "--version", "v1"] + log + common)
        == 0
    )
    label = ["--id", "rid", "--label", "two_year_recid"]
    assert run(["fairness", "label", "compas", str(folder / "c.csv"), *label, *common]) == 0
    return str(registry)


def _range(rates: pd.Series, counts: pd.Series) -> float | None:
    """Max - min of the rates of the slices with at least GUARD rows (None: < 2)."""
    ok = rates[(counts >= GUARD) & (counts > 0)]
    return None if len(ok) < 2 else float(ok.max() - ok.min())


def _expected(rows: pd.DataFrame, attr: str) -> dict[str, Any]:
    """The gated disparities of one attribute over ``rows``, by pandas alone."""
    g = rows.groupby(attr)
    n = g.size()
    pos = rows[rows["two_year_recid"] == 1].groupby(attr)
    neg = rows[rows["two_year_recid"] == 0].groupby(attr)
    n_pos = pos.size().reindex(n.index, fill_value=0)
    n_neg = neg.size().reindex(n.index, fill_value=0)
    tpr = (pos["pred"].sum().reindex(n.index) / n_pos).dropna()
    fpr = (neg["pred"].sum().reindex(n.index) / n_neg).dropna()
    halves = [
        v for v in (_range(tpr, n_pos[tpr.index]), _range(fpr, n_neg[fpr.index])) if v is not None
    ]
    accuracy = g.apply(lambda s: (s["pred"] == s["two_year_recid"]).mean(), include_groups=False)
    return {
        "n": n,
        "demographic_parity_difference": _range(g["pred"].mean(), n),
        "equalized_odds_difference": max(halves) if halves else None,
        "accuracy_range": _range(accuracy, n),
    }


def _dp_note(n: pd.Series) -> str:
    """What a bucket whose demographic parity is unmeasured says, from pandas counts."""
    total = int(n.sum())
    if total < GUARD:
        return f"below the guard: n={total} < {GUARD}"
    eligible = int((n >= GUARD).sum())
    low = n[n < GUARD].sort_values(ascending=False, kind="stable")
    if low.empty:
        return f"{eligible} eligible slice(s) for selection_rate, need 2"
    named = ", ".join(
        f"{name} n={int(c)} < {GUARD}" for name, c in low.iloc[: 2 - eligible].items()
    )
    return f"below the guard: {named}"


def _check_bucket(bucket: dict[str, Any], rows: pd.DataFrame) -> int:
    """The bucket's counts, values, notes and intervals against pandas and evaluate on
    its rows; returns how many disparities were unmeasured."""
    assert bucket["n"] == len(rows) and bucket["labelled"] == len(rows)
    direct = evaluate(
        rows,
        pred="pred",
        attrs=["race", "sex"],
        label="two_year_recid",
        threshold=0.1,
        min_samples=GUARD,
        rule="point",
        engine="pandas",
    )
    by_name = {g["name"]: g for g in direct["groups"]}
    unmeasured = 0
    for group in bucket["groups"]:
        want = _expected(rows, group["name"])
        for metric in GATED:
            got, expect = group["disparities"][metric], want[metric]
            if expect is None:
                assert got is None, (bucket["bucket"], group["name"], metric)
                assert group["ci95"][metric] is None
                note = group["notes"][metric]
                assert note, (bucket["bucket"], metric)
                if metric == "demographic_parity_difference":
                    assert note == _dp_note(want["n"]), bucket["bucket"]
                unmeasured += 1
                continue
            assert got == pytest.approx(expect, abs=1e-12), (
                bucket["bucket"],
                group["name"],
                metric,
            )
            assert metric not in group["notes"]
            ci = group["ci95"][metric]
            lo, hi = ci[0], math.inf if ci[1] is None else ci[1]
            assert lo <= got + 1e-12 and got <= hi + 1e-12
            d = next(d for d in by_name[group["name"]]["disparities"] if d["metric"] == metric)
            assert d["value"] == pytest.approx(got, abs=1e-12)
            assert ci == pytest.approx(d["ci95"], abs=1e-12)
    return unmeasured


@pytest.mark.parametrize("kind", ["week", "month"])
def test_week_and_month_buckets_equal_a_pandas_groupby_on_compas(
    logged: tuple[str, str], compas: pd.DataFrame, kind: str
) -> None:
    db, registry = logged
    report = fairness_report("compas", store=db, registry=registry, bucket=kind)
    assert report["bucket"] == kind
    # ISO weeks start on Monday (a week "ending Sunday" in pandas); months are calendar months
    period = compas["date"].dt.to_period("W-SUN" if kind == "week" else "M")
    groups = sorted(compas.groupby(period), key=lambda kv: kv[0].start_time)
    assert len(report["trend"]) == len(groups)
    unmeasured = 0
    for bucket, (p, rows) in zip(report["trend"], groups, strict=True):
        start = p.start_time
        if kind == "week":
            iso = start.isocalendar()
            assert start.day_of_week == 0
            assert bucket["bucket"] == f"{iso.year}-W{iso.week:02d}"
        else:
            assert bucket["bucket"] == start.strftime("%Y-%m")
        assert bucket["first"] == start.date().isoformat()
        assert bucket["last"] == p.end_time.date().isoformat()
        assert "day" not in bucket
        unmeasured += _check_bucket(bucket, rows)
    # the thin buckets say why (COMPAS has weeks and months below the guard)
    assert unmeasured > 0


@pytest.mark.parametrize("kind", ["week", "month"])
def test_a_bucket_the_window_cuts_names_the_window_days_it_holds(
    logged: tuple[str, str], compas: pd.DataFrame, kind: str
) -> None:
    # a Wednesday to a Tuesday: the first and last weeks (and the months) are cut
    since, until = "2013-02-13", "2013-04-16"
    db, registry = logged
    report = fairness_report(
        "compas", store=db, registry=registry, bucket=kind, since=since, until=until
    )
    inside = compas[(compas["date"] >= since) & (compas["date"] <= until)]
    period = inside["date"].dt.to_period("W-SUN" if kind == "week" else "M")
    groups = sorted(inside.groupby(period), key=lambda kv: kv[0].start_time)
    assert len(report["trend"]) == len(groups) > 2
    for bucket, (p, rows) in zip(report["trend"], groups, strict=True):
        # first..last are the days the bucket's rows come from: its period within the window
        first = max(p.start_time, pd.Timestamp(since)).date().isoformat()
        last = min(p.end_time, pd.Timestamp(until)).date().isoformat()
        assert (bucket["first"], bucket["last"]) == (first, last)
        held = compas[(compas["date"] >= first) & (compas["date"] <= last)]
        assert bucket["n"] == len(rows) == len(held)
    assert report["trend"][0]["first"] == since and report["trend"][-1]["last"] == until


def test_row_buckets_follow_time_then_request_id_bytewise(
    logged: tuple[str, str], compas: pd.DataFrame
) -> None:
    db, registry = logged
    size = 500
    report = fairness_report("compas", store=db, registry=registry, bucket=f"{size}-rows")
    assert report["bucket"] == f"{size}-rows"
    # time order, ties (every row of a day has the same time) by request id, bytewise
    ordered = compas.assign(key=compas["rid"].map(lambda r: r.encode()))
    ordered = ordered.sort_values(["date", "key"], kind="stable").reset_index(drop=True)
    chunks = [ordered.iloc[i : i + size] for i in range(0, len(ordered), size)]
    assert len(report["trend"]) == len(chunks) == math.ceil(len(compas) / size)
    for k, (bucket, rows) in enumerate(zip(report["trend"], chunks, strict=True)):
        first, last = k * size + 1, k * size + len(rows)
        assert bucket["rows"] == [first, last] and bucket["bucket"] == f"{first}-{last}"
        assert bucket["first"] == rows["date"].min().date().isoformat()
        assert bucket["last"] == rows["date"].max().date().isoformat()
        _check_bucket(bucket, rows)
    # one bucket of every row is the whole window's evaluation
    whole = fairness_report("compas", store=db, registry=registry, bucket="100000-rows")
    (bucket,) = whole["trend"]
    for group in bucket["groups"]:
        full = next(g for g in whole["evaluation"]["groups"] if g["name"] == group["name"])
        for d in full["disparities"]:
            if d["gated"]:
                assert group["disparities"][d["metric"]] == d["value"]
                assert group["ci95"][d["metric"]] == d["ci95"]


def test_a_bucket_below_the_guard_says_so(logged: tuple[str, str]) -> None:
    db, registry = logged
    report = fairness_report("compas", store=db, registry=registry, bucket="12-rows")
    bucket = report["trend"][0]
    assert bucket["n"] == 12
    for group in bucket["groups"]:
        assert group["disparities"]["demographic_parity_difference"] is None
        assert group["notes"]["demographic_parity_difference"] == "below the guard: n=12 < 30"
    # the renderings say it too, where a value would be
    common = ["--db", db, "--registry", registry]
    for fmt in ([], ["--markdown"]):
        args = ["fairness", "report", "compas", "--bucket", "12-rows", "--until", "2013-01-01"]
        out = _stdout(args + fmt + common)
        assert "below the guard: n=12 < 30" in out
    out = _stdout(["fairness", "report", "compas", "--bucket", "week", *common])
    assert "trend per ISO week (Monday start, UTC)" in out
    assert "2013-W01  2012-12-31  2013-01-06" in out
    text = next(line for line in out.splitlines() if line.startswith("2013-W01 "))
    assert "below the guard: Female n=20 < 30" in text  # sex's DP that week
    out = _stdout(["fairness", "report", "compas", "--bucket", "month", "--markdown", *common])
    assert (
        "### Trend per calendar month (UTC)" in out
        and "| 2013-01 | 2013-01-01 | 2013-01-31 |" in out
    )


def _stdout(argv: list[str]) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert run(argv) == 0
    return buf.getvalue()


def test_sqlite_and_postgresql_give_equal_trends(
    stores: Callable[[str], tuple[str, str]],
) -> None:
    (lite, registry), (pg, _) = stores("sqlite"), stores("postgresql")
    # 25-rows: 289 buckets, every one below the guard of 30
    for bucket in ("day", "week", "month", "500-rows", "25-rows"):
        a = fairness_report("compas", store=lite, registry=registry, bucket=bucket)
        b = fairness_report("compas", store=pg, registry=registry, bucket=bucket)
        assert a["bucket"] == b["bucket"] == bucket
        assert a["trend"] == b["trend"], bucket
        assert len(a["trend"]) > 10


def test_the_day_trend_keeps_its_day_key(tmp_path: Path, compas: pd.DataFrame) -> None:
    db = str(tmp_path / "monitor.db")
    registry = _log(db, tmp_path, compas.iloc[:400])
    report = fairness_report("compas", store=db, registry=registry)
    assert report["bucket"] == "day"
    days = sorted(compas.iloc[:400]["compas_screening_date"].unique())
    assert [b["day"] for b in report["trend"]] == [b["bucket"] for b in report["trend"]] == days
    assert all(b["first"] == b["last"] == b["day"] for b in report["trend"])


@pytest.fixture(scope="module")
def ten_thousand(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The store and registry options of 10,001 logged predictions (two slices)."""
    folder = tmp_path_factory.mktemp("bad-bucket")
    db = str(folder / "monitor.db")
    frame = pd.DataFrame(
        {"rid": range(10_001), "g": ["x", "y"] * 5000 + ["x"], "p": [0, 1] * 5000 + [1]}
    )
    frame.to_csv(folder / "p.csv", index=False)
    (folder / "m.yaml").write_text("fairness:\n  slices: [g]\n")
    common = ["--db", db, "--registry", str(folder / "m.yaml")]
    log = ["--version", "v1", "--id", "rid", "--pred", "p", "--attr", "g"]
    assert run(["fairness", "log", "m", str(folder / "p.csv"), *log, *common]) == 0
    return common


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("rows:500", "--bucket 'rows:500' is not day, week, month or N-rows"),
        ("0-rows", "--bucket '0-rows' is not day, week, month or N-rows"),
        ("fortnight", "(N predictions per bucket, e.g. 500-rows)"),
        ("1-rows", "--bucket 1-rows makes 10,001 buckets of the window's 10,001 predictions"),
    ],
)
def test_a_bad_bucket_is_one_line(
    ten_thousand: list[str], capsys: pytest.CaptureFixture, value: str, words: str
) -> None:
    capsys.readouterr()
    assert run(["fairness", "report", "m", "--bucket", value, *ten_thousand]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("faircode: error: ")
    assert words in err
    if value == "1-rows":
        assert "use at least 2-rows, or a shorter window" in err


def test_the_row_bucket_cap_is_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a cap of 100 buckets, 201 predictions take 3-rows (67 buckets) but not 2-rows
    (101): the cap is tested at its edge on a small store (the real cap's text above)."""
    from faircode.monitor import timeline

    monkeypatch.setattr(timeline, "MAX_ROW_BUCKETS", 100)
    frame = pd.DataFrame(
        {"rid": range(201), "g": ["x", "y"] * 100 + ["x"], "p": [0, 1] * 100 + [1]}
    )
    frame.to_csv(tmp_path / "p.csv", index=False)
    (tmp_path / "m.yaml").write_text("fairness:\n  slices: [g]\n")
    common = ["--db", str(tmp_path / "monitor.db"), "--registry", str(tmp_path / "m.yaml")]
    log = ["--version", "v1", "--id", "rid", "--pred", "p", "--attr", "g"]
    assert run(["fairness", "log", "m", str(tmp_path / "p.csv"), *log, *common]) == 0
    capsys.readouterr()
    assert run(["fairness", "report", "m", "--bucket", "2-rows", *common]) == 2
    err = capsys.readouterr().err
    assert "2-rows makes 101 buckets" in err and "use at least 3-rows" in err
    report = json.loads(
        _stdout(["fairness", "report", "m", "--bucket", "3-rows", "--json", *common])
    )
    assert report["bucket"] == "3-rows" and len(report["trend"]) == 67
    assert report["trend"][-1]["rows"] == [199, 201]


def test_typed_and_mixed_attribute_values_trend_as_evaluate_on_the_buckets_rows(
    tmp_path: Path, compas: pd.DataFrame
) -> None:
    """A trend reads each bucket's slices from the window's attributes: text values as
    a subset of the window's codes, typed values mixed (True, 1, 1.0, "1", 10, 9) built
    from the bucket's own cells. Either way each month's disparities and intervals are
    ``evaluate``'s on that month's rows (JSON lines keep the types)."""
    rows = compas
    mixed = [True, 1, 1.0, "1", 10, 9, "b", False, 0]
    path = tmp_path / "p.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for k, r in enumerate(rows.itertuples()):
            cells = {"rid": r.rid, "race": r.race, "mixed": mixed[k % 9], "pred": int(r.pred)}
            cells |= {"y": int(r.two_year_recid), "at": r.date.strftime("%Y-%m-%dT00:00:00Z")}
            fh.write(json.dumps(cells) + "\n")
    registry = tmp_path / "fairness.yaml"
    registry.write_text(YAML.replace("[race, sex]", "[race, mixed]"))
    db = str(tmp_path / "s.db")
    common = ["--db", db, "--registry", str(registry)]
    log = ["--version", "v1", "--id", "rid", "--pred", "pred", "--attr", "race", "--attr", "mixed"]
    assert run(["fairness", "log", "compas", str(path), *log, "--at", "at", *common]) == 0
    assert (
        run(["fairness", "label", "compas", str(path), "--id", "rid", "--label", "y", *common]) == 0
    )
    report = fairness_report("compas", store=db, registry=str(registry), bucket="month")
    frame = pd.read_json(path, lines=True, dtype=False)
    frame["month"] = pd.to_datetime(frame["at"]).dt.tz_localize(None).dt.to_period("M")
    months = sorted(frame.groupby("month"), key=lambda kv: kv[0].start_time)
    assert len(report["trend"]) == len(months)
    measured = 0
    for bucket, (_, part) in zip(report["trend"], months, strict=True):
        direct = evaluate(
            part, pred="pred", attrs=["race", "mixed"], label="y", threshold=0.1, min_samples=GUARD,
            rule="point", engine="pandas",
        )  # fmt: skip
        want = {g["name"]: g for g in direct["groups"]}
        for group in bucket["groups"]:
            by_metric = {d["metric"]: d for d in want[group["name"]]["disparities"]}
            for metric, value in group["disparities"].items():
                d = by_metric[metric]
                assert value == d["value"], (bucket["bucket"], group["name"], metric)
                assert group["ci95"][metric] == d["ci95"]
                measured += value is not None
    assert measured > 0
