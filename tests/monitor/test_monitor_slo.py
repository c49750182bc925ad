"""SLOs over the store's SLI and alerts on breaches (SPEC 15.10, 15.11; issue 28 items 2, 4).

Tests taking ``db`` run on a SQLite file and on a fresh PostgreSQL database (see
tests/storeutil.py for where the server comes from). The expected SLIs, budgets and
breaches are computed here with pandas from the COMPAS file, not from faircode.
"""

from __future__ import annotations

import http.server
import io
import json
import math
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import storeutil

from faircode.errors import EXIT_BUDGET, EXIT_INPUT, EXIT_OK, EXIT_UNMEASURED
from faircode.monitor import (
    fairness_report,
    fairness_watch,
    slo_gate,
    slo_ingest,
    slo_set,
    slo_show,
)
from faircode.monitor.store import open_store

ATTRS = ["race", "sex", "age_cat", "c_charge_degree"]
THRESHOLD = 0.3
GUARD = 30
# the point rule (12.7): a disparity's status is its value against the threshold, which
# pandas can compute alone (the interval rule's Holm-adjusted intervals it cannot)
YAML = f"""\
models:
  compas:
    slices: [{", ".join(ATTRS)}]
    threshold: {THRESHOLD}
    min_samples: {GUARD}
    rule: point
"""
GATED = ("demographic_parity_difference", "equalized_odds_difference", "accuracy_range")


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    df = pd.read_csv(storeutil.require_compas())
    return df[["id", *ATTRS, "decile_score", "two_year_recid", "compas_screening_date"]]


def _one_error(err: str, *parts: str) -> None:
    assert err.count("\n") == 1 and err.startswith("faircode: error: "), err
    assert "Traceback" not in err
    for part in parts:
        assert part in err, (part, err)


def _log(cli, tmp_path: Path, rows: pd.DataFrame, yaml: str = YAML) -> None:
    (tmp_path / "fairness.yaml").write_text(yaml)
    rows.to_csv(tmp_path / "compas.csv", index=False)
    code, _, err = cli(
        "log", "compas", "compas.csv", "--version", "v1", "--id", "id", "--score",
        "decile_score", "--decision-threshold", "5", *sum((["--attr", a] for a in ATTRS), []),
        "--at", "compas_screening_date",
    )  # fmt: skip
    assert code == 0, err
    code, _, err = cli("label", "compas", "compas.csv", "--id", "id", "--label", "two_year_recid")
    assert code == 0, err


# -- the independent computation ----------------------------------------------------------
def _round12(x: float) -> int:
    return math.floor(x * 1e12 + 0.5)


def _exceeds(value: float | None, threshold: float) -> bool:
    return value is not None and _round12(value) > _round12(threshold)


def _disparities(df: pd.DataFrame, attr: str) -> dict[str, str]:
    """Each gated disparity's status by the point rule (SPEC 12.6-12.8), with pandas."""
    pred = (df["decile_score"] >= 5).astype(int)
    label = df["two_year_recid"]
    by = df[attr]

    def spread(values: pd.Series, counts: pd.Series) -> float | None:
        kept = values[counts.reindex(values.index).fillna(0) >= GUARD]
        return None if len(kept) < 2 else float(kept.max() - kept.min())

    n = by.value_counts()
    dp = spread(pred.groupby(by).mean(), n)
    acc = spread((pred == label).groupby(by).mean(), n)
    pos, neg = label == 1, label == 0
    tpr = spread(pred[pos].groupby(by[pos]).mean(), by[pos].value_counts())
    fpr = spread(pred[neg].groupby(by[neg]).mean(), by[neg].value_counts())
    halves = [h for h in (tpr, fpr) if h is not None]
    eo = max(halves) if halves else None

    def status(value: float | None, measured: bool) -> str:
        if _exceeds(value, THRESHOLD):
            return "exceeded"
        return "ok" if measured else "unmeasured"

    return {
        "demographic_parity_difference": status(dp, dp is not None),
        "equalized_odds_difference": status(eo, len(halves) == 2),
        "accuracy_range": status(acc, acc is not None),
    }


def _attribute_status(df: pd.DataFrame, attr: str) -> str:
    found = set(_disparities(df, attr).values())
    if "exceeded" in found:
        return "exceeded"
    return "unmeasured" if "unmeasured" in found else "within_threshold"


def _expected_reading(compas: pd.DataFrame, last_day: str, days: int) -> dict[str, Any]:
    """The SLI over the whole UTC days last_day - days + 1 .. last_day."""
    day = pd.to_datetime(compas["compas_screening_date"]).dt.normalize()
    end = pd.Timestamp(last_day)
    rows = compas[(day > end - pd.Timedelta(days=days)) & (day <= end)]
    status = {a: _attribute_status(rows, a) for a in ATTRS}
    within = [a for a in ATTRS if status[a] == "within_threshold"]
    exceeded = [a for a in ATTRS if status[a] == "exceeded"]
    return {"good": len(within), "total": len(within) + len(exceeded), "exceeded": exceeded}


# -- SLO readings and the budget gate ------------------------------------------------------
def test_slo_readings_and_budget_equal_a_pandas_computation_on_compas(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    _log(cli, tmp_path, compas)
    code, out, err = cli(
        "slo", "set", "COMPAS", "weekly", "--target", "0.6", "--window", "4w", "--gate",
        "--reason", "issue 28", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["window_days"] == 28 and "audit row" in err

    days = [d.date().isoformat() for d in pd.date_range("2013-09-03", "2014-03-25", freq="7D")]
    readings = {}
    for day in days:
        code, out, err = cli("slo", "ingest", "compas", "--at", day, "--json")
        assert code == 0, err
        [reading] = json.loads(out)
        readings[day] = reading
        want = _expected_reading(compas, day, 28)
        assert (reading["good"], reading["total"]) == (want["good"], want["total"]), day
        assert reading["exceeded"] == want["exceeded"], day
        assert reading["at"] == f"{day}T23:59:59Z" and reading["until"] == day
        assert reading["since"] == (pd.Timestamp(day) - pd.Timedelta(days=27)).date().isoformat()
    # the readings are not all alike: some attributes within, some exceeded, sex never
    # measurable (its Female slice has too few rows for the guard in four weeks)
    assert {r["good"] for r in readings.values()} >= {1, 2}
    assert all("sex" in [u["attribute"] for u in r["unmeasurable"]] for r in readings.values())

    outcomes = set()
    for i, day in enumerate(days):
        # the budget at the end of `day` sums the readings of the four weeks before it
        counted = [readings[d] for d in days[max(0, i - 3) : i + 1]]
        good = sum(r["good"] for r in counted)
        total = sum(r["total"] for r in counted)
        allowed = (1 - 0.6) * total
        spent = _round12(total - good) > _round12(allowed)
        code, out, err = cli("slo", "gate", "compas", "--at", day, "--json")
        decision = json.loads(out)
        budget = decision["slos"][0]["budget"]
        assert (budget["readings"], budget["good"], budget["total"]) == (len(counted), good, total)
        assert math.isclose(budget["allowed_bad"], allowed, rel_tol=1e-12)
        assert code == (EXIT_BUDGET if spent else EXIT_OK), (day, budget)
        assert decision["event"] == (
            "fairness_slo_budget_exhausted" if spent else "fairness_slo_gate_passed"
        )
        assert ("SPENT" in err) == spent
        outcomes.add(code)
    assert outcomes == {EXIT_OK, EXIT_BUDGET}  # both verdicts happen on this data

    # show gives the same budget and the latest reading; the API is the CLI's code path
    shown = json.loads(cli("slo", "show", "compas", "--at", days[-1], "--json")[1])
    api = slo_show("compas", at=days[-1], store=db)
    assert shown == api
    assert shown["slos"][0]["latest"]["id"] == readings[days[-1]]["id"]
    gate = slo_gate("compas", at=days[-1], store=db)
    assert (
        bool(gate) == (gate.exit_code == EXIT_OK)
        and gate.slos[0]["budget"] == (shown["slos"][0]["budget"])
    )

    # every set and decision is in the audit log; the chain verifies
    code, out, _ = cli("audit", "compas", "--json")
    events = [e["event"] for e in json.loads(out)["entries"]]
    assert events[0] == "fairness_slo_set"
    assert (
        events.count("fairness_slo_budget_exhausted") + events.count("fairness_slo_gate_passed")
        == len(days) + 1
    )
    assert cli("audit", "--verify")[0] == 0


def test_an_advisory_slo_warns_and_several_slos_gate_together(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    _log(cli, tmp_path, compas)
    assert cli("slo", "set", "compas", "strict", "--target", "1")[0] == 0  # advisory
    loose = ["--target", "0.1", "--window", "7d", "--gate"]
    assert cli("slo", "set", "compas", "loose", *loose)[0] == 0
    code, out, err = cli("slo", "ingest", "compas", "--at", "2013-03-29", "--json")
    assert code == 0, err
    by_name = {r["slo"]: r for r in json.loads(out)}
    assert by_name["strict"]["since"] == "2013-03-02" and by_name["loose"]["since"] == "2013-03-23"
    for name, days in (("strict", 28), ("loose", 7)):
        want = _expected_reading(compas, "2013-03-29", days)
        assert (by_name[name]["good"], by_name[name]["total"]) == (want["good"], want["total"])
    assert by_name["strict"]["good"] < by_name["strict"]["total"]  # target 1: spent
    loose_bad = by_name["loose"]["total"] - by_name["loose"]["good"]
    loose_spent = _round12(loose_bad) > _round12(0.9 * by_name["loose"]["total"])
    code, _, err = cli("slo", "gate", "compas", "--at", "2013-03-29")
    assert code == (EXIT_BUDGET if loose_spent else EXIT_OK), err
    assert "WARNING (advisory) SPENT SLO strict" in err
    # one SLO by name; an unknown name lists the SLOs there are
    assert cli("slo", "gate", "compas", "--name", "strict", "--at", "2013-03-29")[0] == EXIT_OK
    code, _, err = cli("slo", "gate", "compas", "--name", "nope")
    assert code == EXIT_INPUT
    _one_error(err, "no SLO named 'nope'", "loose, strict")


def test_only_low_n_slices_or_no_data_read_0_of_0_never_a_pass(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    # 29 rows: every slice of every attribute is below the guard of 30 (the interval
    # rule, default: insufficient evidence, never counted)
    _log(cli, tmp_path, compas.head(29), YAML.replace("    rule: point\n", ""))
    assert cli("slo", "set", "compas", "s", "--target", "0.9", "--gate")[0] == 0
    last = pd.to_datetime(compas.head(29)["compas_screening_date"]).max().date().isoformat()
    code, out, err = cli("slo", "ingest", "compas", "--at", last, "--json")
    assert code == 0, err
    [reading] = json.loads(out)
    assert (reading["good"], reading["total"], reading["ratio"]) == (0, 0, None)
    assert reading["status"] == "no measurable attributes"
    assert sorted(u["attribute"] for u in reading["unmeasurable"]) == sorted(ATTRS)
    assert "SLI 0/0: no measurable attributes" in err
    code, out, err = cli("slo", "gate", "compas", "--at", last, "--json")
    assert code == EXIT_UNMEASURED and json.loads(out)["event"] == "fairness_slo_gate_unmeasured"
    assert "SLI 0/0: no measurable attributes" in err
    budget = json.loads(out)["slos"][0]["budget"]
    assert (budget["outcome"], budget["ratio"], budget["remaining"]) == ("unmeasured", None, None)

    # no predictions in the window: 0/0 as well; no readings in the window: unmeasured
    [empty] = slo_ingest("compas", at="2020-06-30", store=db, registry="fairness.yaml")
    assert (empty["good"], empty["total"]) == (0, 0)
    assert empty["unmeasurable"][0]["reason"] == (
        "no predictions of version v1 from 2020-06-03 to 2020-06-30"
    )
    assert slo_gate("compas", at="2020-06-30", store=db).exit_code == EXIT_UNMEASURED
    gate = slo_gate("compas", at="2030-01-01", store=db)
    assert not gate and gate.slos[0]["budget"]["reason"] == "no readings in the window"

    # a model with an SLO but nothing logged
    assert slo_set("fresh", "s", target=0.5, gate=True, store=db)["window_days"] == 28
    (tmp_path / "fresh.yaml").write_text("models:\n  fresh:\n    slices: [race]\n")
    [none] = slo_ingest("fresh", store=db, registry=tmp_path / "fresh.yaml")
    assert (none["good"], none["total"], none["version"]) == (0, 0, None)


def test_a_reading_of_today_counts_at_once_and_one_after_now_is_refused(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    # every row logged today: `slo ingest --at TODAY` (what a daily job passes) reads them
    today = pd.Timestamp.now(tz="UTC").date().isoformat()
    rows = compas.assign(compas_screening_date=today)
    _log(cli, tmp_path, rows)
    assert cli("slo", "set", "compas", "daily", "--target", "0.5", "--gate")[0] == 0
    want = _expected_reading(rows, today, 28)
    code, out, err = cli("slo", "ingest", "compas", "--at", today, "--json")
    assert code == 0, err
    [reading] = json.loads(out)
    assert (reading["good"], reading["total"]) == (want["good"], want["total"]) != (0, 0)
    # stamped now, not at the day's last second still to come: the budget of `slo show`
    # and `slo gate` right after it (at now) counts it
    assert reading["at"] <= pd.Timestamp.now(tz="UTC").strftime("%Y-%m-%dT%H:%M:%SZ")
    [slo] = slo_show("compas", store=db)["slos"]
    assert slo["budget"]["readings"] == 1 and slo["latest"]["id"] == reading["id"]
    gate = slo_gate("compas", store=db)
    bad, allowed = want["total"] - want["good"], 0.5 * want["total"]
    assert gate.exit_code == (EXIT_BUDGET if bad > allowed else EXIT_OK)
    # a time after now is one line, and no reading is taken
    tomorrow = (pd.Timestamp(today) + pd.Timedelta(days=1)).date().isoformat()
    for later in (tomorrow, f"{tomorrow}T00:00:00Z", "2999-01-01"):
        code, _, err = cli("slo", "ingest", "compas", "--at", later)
        assert code == EXIT_INPUT
        _one_error(err, f"--at '{later}' is after now", "give a time up to now")
    assert slo_show("compas", store=db)["slos"][0]["budget"]["readings"] == 1


def test_an_undecided_attributes_reason_says_where_its_interval_lies(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    # the interval rule (default): in February 2013 age_cat's demographic parity interval
    # lies above 0.3 at 95% alone, and only Holm's correction leaves it insufficient
    _log(cli, tmp_path, compas, YAML.replace("    rule: point\n", ""))
    assert cli("slo", "set", "compas", "s", "--target", "0.9", "--window", "28d")[0] == 0
    [reading] = slo_ingest("compas", at="2013-02-28", store=db, registry="fairness.yaml")
    report = fairness_report(
        "compas", store=db, registry="fairness.yaml", since="2013-02-01", until="2013-02-28"
    )
    reasons = {u["attribute"]: u["reason"] for u in reading["unmeasurable"]}
    assert reasons == {u["attribute"]: u["reason"] for u in report["sli"]["unmeasurable"]}
    seen = set()
    for group in report["evaluation"]["groups"]:
        for d in group["disparities"]:
            if d["status"] != "insufficient" or "guard" in (d["rows_needed"] or {}):
                continue
            lo, hi = d["ci95"]
            above = _round12(lo) > _round12(THRESHOLD)
            where = (
                "above threshold 0.3 only before Holm's correction"
                if above
                else ("across threshold 0.3")
            )
            assert f"{d['metric']}: interval {lo:.3f}-{hi:.3f} {where}" in reasons[group["name"]]
            seen.add(above)
    assert seen == {True, False}  # both kinds occur in this window


def test_a_reading_taken_again_at_the_same_time_replaces_it(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    # a backfill re-run: `slo ingest --at D` twice is one look at the model, not two
    _log(cli, tmp_path, compas)
    assert cli("slo", "set", "compas", "m", "--target", "0.6", "--window", "4w", "--gate")[0] == 0
    day = "2013-03-29"
    want = _expected_reading(compas, day, 28)
    code, out, err = cli("slo", "ingest", "compas", "--at", day, "--json")
    assert code == 0, err
    [first] = json.loads(out)
    assert first["replaces"] == [] and "replaces" not in err
    code, out, err = cli("slo", "ingest", "compas", "--at", day, "--json")
    assert code == 0, err
    [again] = json.loads(out)
    assert again["replaces"] == [first["id"]]
    assert f"reading {again['id']} (replaces reading {first['id']}, taken for the same day" in err
    [slo] = slo_show("compas", at=day, store=db)["slos"]
    budget = slo["budget"]
    assert (budget["readings"], budget["good"], budget["total"]) == (
        1,
        want["good"],
        want["total"],
    )
    bad, allowed = want["total"] - want["good"], 0.4 * want["total"]
    assert slo_gate("compas", at=day, store=db).exit_code == (
        EXIT_BUDGET if _round12(bad) > _round12(allowed) else EXIT_OK
    )
    # another time of the same day is another look, counted; that time again replaces it
    assert cli("slo", "ingest", "compas", "--at", f"{day}T12:00:00Z")[0] == 0
    code, out, err = cli("slo", "ingest", "compas", "--at", f"{day}T12:00:00Z", "--json")
    [timed] = json.loads(out)
    assert timed["replaces"] == [timed["id"] - 1] and "taken at the same time)" in err
    assert slo_show("compas", at=day, store=db)["slos"][0]["budget"]["readings"] == 2


def test_todays_daily_reading_taken_twice_counts_once(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a daily job's `slo ingest --at $(date +%F)` retried later the same day: today's date
    # is stamped now, another instant each run, and is still that day's one reading
    from faircode.monitor import slo as slo_module

    _log(cli, tmp_path, compas)
    assert cli("slo", "set", "compas", "m", "--target", "0.6", "--window", "4w", "--gate")[0] == 0
    day = "2013-03-29"
    want = _expected_reading(compas, day, 28)
    now = int(pd.Timestamp(f"{day}T10:00:00Z").timestamp())
    ids = []
    for hour in (0, 3):
        monkeypatch.setattr(slo_module, "_now", lambda h=hour: now + 3600 * h)
        code, out, err = cli("slo", "ingest", "compas", "--at", day, "--json")
        assert code == 0, err
        [reading] = json.loads(out)
        assert reading["at"] == f"{day}T{10 + hour}:00:00Z"
        ids.append(reading["id"])
    [slo] = slo_show("compas", at=f"{day}T23:00:00Z", store=db)["slos"]
    budget = slo["budget"]
    assert (budget["readings"], budget["good"], budget["total"]) == (
        1,
        want["good"],
        want["total"],
    )
    assert reading["replaces"] == ids[:1] and reading["day"] == day
    assert f"reading {ids[1]} (replaces reading {ids[0]}, taken for the same day, {day})" in err
    # a reading at a time of that day is another look, and not the day's reading
    assert cli("slo", "ingest", "compas", "--at", f"{day}T12:00:00Z")[0] == 0
    code, out, err = cli("slo", "ingest", "compas", "--at", day, "--json")
    assert code == 0 and json.loads(out)[0]["replaces"] == ids[1:]
    assert slo_show("compas", at=f"{day}T23:00:00Z", store=db)["slos"][0]["budget"]["readings"] == 2


def test_slo_input_errors_are_one_line(cli, db: str, tmp_path: Path) -> None:
    refused_sets = (
        (["set", "m", "a b", "--target", "0.9"], ["SLO name 'a b'"]),
        (["set", "m", "s", "--target", "0"], ["--target must be a number in (0, 1]"]),
        (["set", "m", "s", "--target", "1.5"], ["--target must be a number in (0, 1]"]),
        (["set", "m", "s", "--target", "0.9", "--window", "3x"], ["--window '3x'", "28d"]),
        (["set", "m", "s", "--target", "0.9", "--window", "0d"], ["1 to 3660 days"]),
        # more days than any window: out of range, not "not a number of days"
        (
            ["set", "m", "s", "--target", "0.9", "--window", "99999999999999999999d"],
            ["--window '99999999999999999999d' is out of range (1 to 3660 days)"],
        ),
        (
            ["set", "m", "s", "--target", "0.9", "--window", "9" * 5000],
            ["is out of range (1 to 3660 days)"],
        ),
        (["set", "m", "s", "--target", "0.9", "--window", "523w"], ["out of range"]),
    )
    for argv, parts in refused_sets:
        code, _, err = cli("slo", *argv)
        assert code == EXIT_INPUT, (argv, err)
        _one_error(err, *parts)
    if not db.startswith("postgresql"):  # a refused `set` makes no store (SPEC 15.10)
        assert not Path(db).exists()
    assert cli("slo", "set", "other", "s", "--target", "0.9")[0] == 0
    for argv, parts in (
        (["show", "m"], ["model 'm' has no SLO", "slo set m NAME"]),
        (["gate", "m"], ["model 'm' has no SLO"]),
        (["ingest", "m", "--at", "yesterday"], ["--at 'yesterday' is not a date"]),
    ):
        code, _, err = cli("slo", *argv)
        assert code == EXIT_INPUT, (argv, err)
        _one_error(err, *parts)


# -- alerts --------------------------------------------------------------------------------
class _Hook:
    """A real HTTP server on 127.0.0.1 in a thread, recording each POST's body."""

    def __init__(self, status: int = 200) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.status = status
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers["Content-Length"])
                body = self.rfile.read(length)
                if hook.status == 200:
                    assert self.headers["Content-Type"] == "application/json"
                    hook.bodies.append(json.loads(body))
                self.send_response(hook.status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/T0KEN"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook() -> Iterator[_Hook]:
    h = _Hook()
    yield h
    h.close()


def _breaches(compas: pd.DataFrame) -> set[tuple[str, str]]:
    return {
        (a, m)
        for a in ATTRS
        for m, status in _disparities(compas, a).items()
        if status == "exceeded"
    }


def test_watch_posts_once_per_breach_and_records_each_alert(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame, hook: _Hook
) -> None:
    _log(cli, tmp_path, compas)
    want = _breaches(compas)
    assert len(want) >= 2  # race and age_cat exceed 0.3 on the whole file

    code, out, err = cli("watch", "compas", "--webhook", hook.url)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert {(a["attribute"], a["metric"]) for a in lines} == want
    assert hook.bodies == lines  # each line POSTed once, as written
    for a in lines:
        assert (a["model"], a["version"], a["outcome"], a["threshold"]) == (
            "compas",
            "v1",
            "fail",
            THRESHOLD,
        )
        assert a["interval"][0] <= a["value"] <= a["interval"][1]
    assert f"{len(want)} new alert(s) sent to stdout and the webhook" in err

    # a second watch in a row sends nothing: the breaches are still open
    code, out, err = cli("watch", "compas", "--webhook", hook.url)
    assert code == 0 and out == "" and len(hook.bodies) == len(want)
    assert f"{len(want)} breach(es) still open" in err

    code, out, _ = cli("audit", "compas", "--json")
    sent = [e for e in json.loads(out)["entries"] if e["event"] == "fairness_alert_sent"]
    assert len(sent) == len(want)
    assert [e["details"]["alert"] for e in sent] == lines
    # the webhook's path (it may hold a token) is not kept
    assert all(e["details"]["webhook"] == hook.url.split("/hooks")[0] for e in sent)

    # the breach clears when measured within the threshold (a raised threshold), and a
    # new breach after it is sent again
    assert cli("config", "compas", "--threshold", "0.9", "--reason", "test")[0] == 0
    code, out, err = cli("watch", "compas", "--webhook", hook.url)
    assert code == 0 and out == "" and f"{len(want)} cleared" in err
    assert cli("apply", "compas", "--reason", "test over")[0] == 0
    code, out, err = cli("watch", "compas", "--out", "alerts.jsonl", "--webhook", hook.url)
    assert code == 0 and out == ""
    again = [json.loads(line) for line in (tmp_path / "alerts.jsonl").read_text().splitlines()]
    assert {(a["attribute"], a["metric"]) for a in again} == want
    assert hook.bodies[len(want) :] == again
    events = [e["event"] for e in json.loads(cli("audit", "compas", "--json")[1])["entries"]]
    assert events.count("fairness_alert_cleared") == len(want)
    assert events.count("fairness_alert_sent") == 2 * len(want)
    assert cli("audit", "--verify")[0] == 0

    # the API writes to a stream and sees the same open breaches
    res = fairness_watch("compas", store=db, registry=tmp_path / "fairness.yaml")
    assert res["sent"] == [] and len(res["still_open"]) == len(want)


def test_a_watch_with_nowhere_to_deliver_records_nothing_and_the_notifier_gets_it_later(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame, hook: _Hook
) -> None:
    # a person looking (`watch` alone, or the API without out or webhook) is not a
    # delivery: were it recorded, the webhook set up next would never get these breaches
    _log(cli, tmp_path, compas)
    want = _breaches(compas)
    code, shown, said = cli("watch", "compas")
    assert code == 0
    assert {(a["attribute"], a["metric"]) for a in map(json.loads, shown.splitlines())} == want
    res = fairness_watch("compas", store=db, registry="fairness.yaml")
    code, out, err = cli("watch", "compas", "--webhook", hook.url)
    assert code == 0 and {(b["attribute"], b["metric"]) for b in hook.bodies} == want
    assert "preview, nothing recorded" in said and "--out - (stdout)" in said
    assert res["preview"] and res["sent"] == [] and len(res["unsent"]) == len(want)
    # stdout as the notifier (`--out -`): delivered, so recorded, and not sent again
    assert cli("config", "compas", "--threshold", "0.9", "--reason", "clear them")[0] == 0
    assert cli("watch", "compas", "--out", "-")[0] == 0
    assert cli("apply", "compas", "--reason", "test over")[0] == 0
    code, out, err = cli("watch", "compas", "--out", "-")
    assert code == 0 and len(out.splitlines()) == len(want)
    assert f"{len(want)} new alert(s) sent to stdout" in err
    code, out, err = cli("watch", "compas", "--out", "-")
    assert code == 0 and out == "" and f"{len(want)} breach(es) still open" in err


def test_a_superseded_versions_open_alerts_are_cleared_and_a_canarys_are_kept(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    # no watch measures a version that is no longer served, so its open breaches must not
    # stay open for ever; one still logging beside the new one (a canary) is still served
    (tmp_path / "fairness.yaml").write_text(YAML)
    quarter = len(compas) // 4
    parts = [compas.iloc[i * quarter : (i + 1) * quarter] for i in range(4)]
    for i, part in enumerate(parts):
        part.to_csv(tmp_path / f"part{i}.csv", index=False)

    def log(i: int, version: str) -> None:
        code, _, err = cli(
            "log", "compas", f"part{i}.csv", "--version", version, "--id", "id", "--score",
            "decile_score", "--decision-threshold", "5", *sum((["--attr", a] for a in ATTRS), []),
            "--at", "compas_screening_date",
        )  # fmt: skip
        assert code == 0, err
        code, _, err = cli(
            "label", "compas", f"part{i}.csv", "--id", "id", "--label", "two_year_recid"
        )
        assert code == 0, err

    def open_versions() -> list[str]:
        store = open_store(db)
        try:
            return [v for (v,) in store.query("SELECT version FROM alert_state ORDER BY version")]
        finally:
            store.close()

    log(0, "v1")
    assert cli("watch", "compas", "--out", "-")[0] == 0
    v1_open = open_versions()
    assert v1_open and set(v1_open) == {"v1"}
    log(1, "v2")
    log(2, "v1")  # v1 still logging after v2 started: a canary, still served
    code, _, err = cli("watch", "compas", "--out", "-")
    assert code == 0 and "superseded" not in err
    assert open_versions().count("v1") == len(v1_open)
    log(3, "v3")  # logged after the last batches of v1 and v2: both are superseded
    before = open_versions()
    code, _, err = cli("watch", "compas", "--out", "-")
    assert code == 0 and {"v1", "v2"} & set(open_versions()) == set()
    assert f"(and {len(before)} of superseded versions)" in err
    entries = json.loads(cli("audit", "compas", "--json")[1])["entries"]
    retired = [e for e in entries if e["event"] == "fairness_alert_cleared"]
    assert sorted(e["version"] for e in retired) == before
    assert all(e["details"]["superseded_by"] == "v3" for e in retired)
    res = fairness_watch("compas", store=db, registry="fairness.yaml", out=io.StringIO())
    assert res["retired"] == []
    assert cli("audit", "--verify")[0] == 0


def test_a_watch_of_a_window_without_predictions_judges_nothing_and_exits_0(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    # an hour or a day without traffic is not an input error: a watch is a notifier, and
    # a cron job must not fail for a quiet window; its open breaches stay open, named
    _log(cli, tmp_path, compas)
    want = _breaches(compas)
    assert cli("watch", "compas", "--out", "-")[0] == 0
    window = ("--since", "2000-01-01", "--until", "2000-01-31")
    code, out, err = cli("watch", "compas", *window, "--out", "-")
    assert code == EXIT_OK and out == "", err
    assert "no predictions in the window (since 2000-01-01, until 2000-01-31)" in err
    for attribute, metric in want:
        assert f"still open {attribute}: {metric} is not evaluated now" in err
    res = fairness_watch(
        "compas", store=db, registry="fairness.yaml", until="2000-01-31", out=io.StringIO()
    )
    assert res["empty_window"] == "since the start, until 2000-01-31"
    assert res["sent"] == res["cleared"] == [] and len(res["undecided"]) == len(want)
    # report and gate still refuse an empty window: they have nothing to show or judge
    code, _, err = cli("report", "compas", *window)
    assert code == EXIT_INPUT and "no predictions in the window" in err


def test_an_open_breach_that_is_undecided_now_is_named_and_kept_open(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    _log(cli, tmp_path, compas)
    want = _breaches(compas)
    code, out, err = cli("watch", "compas", "--out", "-")
    assert (
        code == 0
        and {(a["attribute"], a["metric"]) for a in map(json.loads, out.splitlines())} == want
    )
    # a guard no slice reaches: every disparity is unmeasured, so nothing is sent or
    # cleared, and each open breach is named as still open rather than left unsaid
    assert cli("config", "compas", "--min-samples", "100000", "--reason", "test")[0] == 0
    code, out, err = cli("watch", "compas", "--out", "-")
    assert code == 0 and out == ""
    assert "0 new alert(s) sent to stdout; 0 breach(es) still open" in err and "0 cleared" in err
    res = fairness_watch("compas", store=db, registry="fairness.yaml")
    assert {(u["attribute"], u["metric"]) for u in res["undecided"]} == want
    assert {u["status"] for u in res["undecided"]} == {"unmeasured"}
    for attribute, metric in want:
        assert f"faircode: watch: still open {attribute}: {metric} is unmeasured now" in err
    store = open_store(db)
    try:
        assert store.one("SELECT COUNT(*) FROM alert_state") == len(want)
    finally:
        store.close()


def test_a_failing_webhook_is_one_line_and_the_alert_is_sent_next_time(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame, hook: _Hook
) -> None:
    _log(cli, tmp_path, compas)
    want = _breaches(compas)
    broken = _Hook(status=500)
    try:
        code, out, err = cli("watch", "compas", "--webhook", broken.url)
    finally:
        broken.close()
    assert code == EXIT_INPUT and out == ""
    _one_error(err, "--webhook http://127.0.0.1:", "HTTP 500", "sends it again")
    assert "T0KEN" not in err
    # nothing answers on a closed port: one line too
    code, _, err = cli("watch", "compas", "--webhook", broken.url, "--timeout", "2")
    assert code == EXIT_INPUT
    _one_error(err, "the POST failed")
    code, _, err = cli("watch", "compas", "--webhook", "ftp://example.org/x")
    _one_error(err, "not an http:// or https:// URL")
    # nothing was recorded as sent, so the working webhook gets every breach
    store = open_store(db)
    try:
        assert store.one("SELECT COUNT(*) FROM alert_state") == 0
    finally:
        store.close()
    code, out, err = cli("watch", "compas", "--webhook", hook.url)
    assert code == 0, err
    assert {(b["attribute"], b["metric"]) for b in hook.bodies} == want
    assert [json.loads(line) for line in out.splitlines()] == hook.bodies


def test_a_store_at_schema_3_upgrades_and_takes_slos(
    db: str, tmp_path: Path, compas: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migration 4 (slos, slo_readings, alert_state) applies in place to a store filled
    at schema 3; its reports are unchanged."""
    from faircode.monitor import fairness_report
    from faircode.monitor import store as store_module
    from faircode.monitor.ingest import log_labels, log_predictions

    (tmp_path / "fairness.yaml").write_text(YAML)
    rows = compas.head(1500)
    rows.to_csv(tmp_path / "c.csv", index=False)
    with monkeypatch.context() as m:
        m.setattr(store_module, "MIGRATIONS", store_module.MIGRATIONS[:3])
        m.setattr(store_module, "SCHEMA_VERSION", 3)
        store = open_store(db)
        try:
            assert store.schema_version() == 3
            log_predictions(
                store, "compas", tmp_path / "c.csv", version="v1", id_col="id", attrs=ATTRS,
                at_col="compas_screening_date", score="decile_score", decision_threshold=5,
            )  # fmt: skip
            log_labels(store, "compas", tmp_path / "c.csv", id_col="id", label_col="two_year_recid")
        finally:
            store.close()
        before = fairness_report("compas", store=db, registry=tmp_path / "fairness.yaml")
    store = open_store(db)
    try:
        assert store.schema_version() == store_module.SCHEMA_VERSION
        for table in ("slos", "slo_readings", "alert_state"):
            assert store.one(f"SELECT COUNT(*) FROM {table}") == 0
    finally:
        store.close()
    assert fairness_report("compas", store=db, registry=tmp_path / "fairness.yaml") == before
    slo_set("compas", "s", target=0.5, store=db)
    [reading] = slo_ingest("compas", at="2013-01-31", store=db, registry=tmp_path / "fairness.yaml")
    want = _expected_reading(compas.head(1500), "2013-01-31", 28)
    assert (reading["good"], reading["total"]) == (want["good"], want["total"])


def test_audit_verify_finds_slos_and_open_alerts_written_outside_faircode(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    _log(cli, tmp_path, compas.head(1500))
    assert cli("slo", "set", "compas", "s", "--target", "0.9")[0] == 0
    assert cli("watch", "compas", "--out", "alerts.jsonl")[0] == 0
    assert cli("audit", "--verify")[0] == 0
    store = open_store(db)
    try:
        with store.transaction():
            store.execute("UPDATE slos SET target = 0.5 WHERE name = 's'")
            store.execute(
                "INSERT INTO slos (model, name, target, window_days, gate, actor, at, reason) "
                "VALUES ('compas', 'sneaky', 0.1, 28, 1, 'x', 'y', NULL)"
            )
            store.execute("UPDATE alert_state SET audit_id = 1")
    finally:
        store.close()
    code, _, err = cli("audit", "--verify")
    assert code == 1
    assert "SLO s ({'name': 's', 'target': 0.5" in err and "records another" in err
    assert "SLO sneaky" in err and "no fairness_slo_set row records it" in err
    assert "names audit row 1, which is not its fairness_alert_sent" in err


def test_report_budget_spent_only_past_the_allowed_count():
    """`report --target`'s budget (timeline.sli) uses the exceed rule: at target 0.9 one
    bad attribute in ten uses the budget exactly ((1 - 0.9) * 10 is 0.9999999999999998
    in floating point) and is not spent; a second bad one spends it."""
    from faircode.monitor.timeline import sli

    def evaluation(bad: int) -> dict:
        groups = [
            {"name": f"a{i}", "status": "exceeded" if i < bad else "within_threshold"}
            for i in range(10)
        ]
        return {"groups": [dict(g, disparities=[]) for g in groups]}

    names = [f"a{i}" for i in range(10)]
    one = sli(evaluation(1), names, 0.9)["error_budget"]
    assert one["bad"] == 1 and one["exhausted"] is False
    two = sli(evaluation(2), names, 0.9)["error_budget"]
    assert two["exhausted"] is True
    none = sli(evaluation(1), names, 1.0)["error_budget"]
    assert none["allowed_bad"] == 0 and none["exhausted"] is True
