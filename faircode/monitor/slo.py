"""Service-level objectives over the store's SLI, their readings and their gate (SPEC 15.10).

An SLO of a model is a name, a target (the fraction of measurable declared attributes
that must be within the threshold), a window of whole UTC days and whether it gates.
``slo ingest`` takes a *reading*: the SLI of 15.5 over the predictions of the window
that ends on the reading's day, stored with its time. The error budget at a time T sums
the readings taken in the window before T (each reading is one probe of the model's
fairness; a breach spends budget for as long as readings see it). The gate fails when
the budget is spent.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from ..errors import EXIT_BUDGET, EXIT_OK, EXIT_UNMEASURED
from ..options import spelled
from . import audit
from .errors import MonitorInputError
from .stats import exceeds
from .store import Store, model_key
from .timeline import check_target, day_text, parse_time, store_report, versions

#: ``--window``: whole days (``28d``), weeks (``4w``) or a number of days.
_WINDOW = re.compile(r"([0-9]+)([dw]?)")
MAX_WINDOW_DAYS = 3660
#: An SLO's name: what ``slo set`` takes.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
NO_MEASURABLE = "no measurable attributes"


def parse_window(text: str | int) -> int:
    """Days of a ``--window`` value: ``28d``, ``4w`` or a whole number of days."""
    if isinstance(text, int) and not isinstance(text, bool):
        days = text
    else:
        m = _WINDOW.fullmatch(str(text).strip())
        if not m:
            raise MonitorInputError(
                f"{spelled('--window')} {text!r} is not a number of days or weeks; write e.g. "
                "28d or 4w"
            )
        digits = m.group(1).lstrip("0") or "0"
        # more digits than any window has: out of range (and no int() of 5,000 digits)
        days = MAX_WINDOW_DAYS + 1 if len(digits) > 9 else int(digits)
        days *= 7 if m.group(2) == "w" else 1
    if not 1 <= days <= MAX_WINDOW_DAYS:
        raise MonitorInputError(
            f"{spelled('--window')} {text!r} is out of range (1 to {MAX_WINDOW_DAYS} days); "
            "write e.g. 28d or 4w"
        )
    return days


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise MonitorInputError(
            f"SLO name {name!r}: use 1 to 64 letters, digits, '_', '.' or '-', starting with "
            "a letter or digit"
        )
    return name


def _now() -> int:
    return int(time.time())


def parse_at(at: str | None) -> int:
    """Epoch seconds of ``--at`` (default now); a bare date is the end of its day."""
    if at is None:
        return _now()
    moment = parse_time(at, "--at", end=len(at) == 10)
    assert moment is not None
    return moment - 1 if len(at) == 10 else moment


def reading_at(at: str | None) -> int:
    """Epoch seconds of a reading's ``--at`` (SPEC 15.10): as :func:`parse_at`, but never
    after now. Today's date is now (its last second is still to come); a later time is
    refused: the budget at T counts readings up to T, so a reading stamped after now is
    left out of every ``slo show`` and ``slo gate`` until then, and it would measure a
    window whose predictions are not logged yet."""
    moment, now = parse_at(at), _now()
    if moment <= now:
        return moment
    assert at is not None
    if len(at) == 10 and moment // 86400 == now // 86400:
        return now
    raise MonitorInputError(
        f"{spelled('--at')} {at!r} is after now ({_iso(now)}): a reading measures what is "
        f"logged by its time; give a time up to now, or no {spelled('--at')}"
    )


def _iso(epoch: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _row(r: tuple[Any, ...]) -> dict[str, Any]:
    model, name, target, days, gate, who, at, reason = r
    return {
        "model": model,
        "name": name,
        "target": float(target),
        "window_days": int(days),
        "gate": bool(gate),
        "set_by": who,
        "set_at": at,
        "reason": reason,
    }


_SLO_COLUMNS = "model, name, target, window_days, gate, actor, at, reason"


def slos_of(store: Store, model: str, name: str | None = None) -> list[dict[str, Any]]:
    """The model's SLOs (one, with ``name``), by name; an error when there is none."""
    key = model_key(model)
    if store.version < 4:  # a read-only store older than migration 4 (SPEC 15.2)
        raise MonitorInputError(
            f"the store {store.location} holds no SLOs: it is read-only at schema "
            f"{store.version}, older than SLOs (4); open it writable once to upgrade it"
        )
    sql = f"SELECT {_SLO_COLUMNS} FROM slos WHERE model = ?"
    params: tuple[Any, ...] = (key,)
    if name is not None:
        sql += " AND name = ?"
        params = (key, name)
    rows = [_row(r) for r in store.query(sql + " ORDER BY name", params)]
    if not rows:
        known = [r[0] for r in store.query("SELECT name FROM slos WHERE model = ?", (key,))]
        if name is not None and known:
            raise MonitorInputError(
                f"model {model!r} has no SLO named {name!r} (its SLOs: {', '.join(sorted(known))})"
            )
        raise MonitorInputError(
            f"model {model!r} has no SLO; set one with: faircode fairness slo set {model} "
            "NAME --target 0.99"
        )
    return rows


def check_slo(name: str, target: Any, window: str | int) -> tuple[float, int]:
    """An SLO's name, target and window checked, before any store is opened or made:
    (the target, the window in days)."""
    _check_name(name)
    return check_target(target), parse_window(window)


def set_slo(
    store: Store,
    model: str,
    name: str,
    *,
    target: float,
    window: str | int = "28d",
    gate: bool = False,
    reason: str | None = None,
) -> dict[str, Any]:
    """Create or replace an SLO, recorded as ``fairness_slo_set`` with the one before."""
    target, days = check_slo(name, target, window)
    key = model_key(model)
    with store.transaction():
        before = store.query(
            f"SELECT {_SLO_COLUMNS} FROM slos WHERE model = ? AND name = ?", (key, name)
        )
        now = _iso(_now())
        who = audit.actor()
        store.execute(
            "INSERT INTO slos (model, name, target, window_days, gate, actor, at, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (model, name) DO UPDATE SET "
            "target = excluded.target, window_days = excluded.window_days, "
            "gate = excluded.gate, actor = excluded.actor, at = excluded.at, "
            "reason = excluded.reason",
            (key, name, target, days, int(gate), who, now, reason),
        )
        store.execute(
            "INSERT INTO models (key, name) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
            (key, model.strip()),
        )
        slo = {"name": name, "target": target, "window_days": days, "gate": bool(gate)}
        entry = audit.append(
            store,
            "fairness_slo_set",
            key,
            None,
            {
                "slo": slo,
                "before": None
                if not before
                else {k: _row(before[0])[k] for k in ("name", "target", "window_days", "gate")},
                "reason": reason,
            },
        )
    return {"model": key, **slo, "reason": reason, "audit_id": entry["id"]}


# -- readings --------------------------------------------------------------------------
def _window_days(at: int, days: int) -> tuple[str, str]:
    """The first and last UTC day (YYYY-MM-DD) of a window of ``days`` ending on the day
    holding ``at``."""
    last = at // 86400
    return day_text(last - days + 1), day_text(last)


def _has_rows(store: Store, key: str, version: str, since: str, until: str) -> bool:
    first = parse_time(since, "--since")
    end = parse_time(until, "--until", end=True)
    assert first is not None and end is not None
    n = store.one(
        "SELECT SUM(n) FROM slice_stats WHERE model = ? AND version = ? AND day >= ? AND day < ?",
        (key, version, first // 86400, end // 86400),
    )
    return bool(n)


def measure(
    store: Store,
    model: str,
    registry: Any,
    *,
    days: int,
    at: int,
    version: str | None = None,
    registry_source: str | None = None,
) -> dict[str, Any]:
    """The SLI of 15.5 over the window of ``days`` ending on ``at``'s day.

    No predictions (no version logged, or none of the version in the window) is an SLI
    of 0/0, never a pass: ``unmeasurable`` says why.
    """
    key = model_key(model)
    since, until = _window_days(at, days)
    known = versions(store, key)
    if version is not None and version not in known:
        listed = ", ".join(known) or "none"
        raise MonitorInputError(
            f"model {model!r} has no predictions for version {version!r} (logged versions: "
            f"{listed})"
        )
    chosen = version if version is not None else (known[-1] if known else None)
    base = {"version": chosen, "since": since, "until": until}
    if chosen is None or not _has_rows(store, key, chosen, since, until):
        why = (
            "no predictions logged"
            if chosen is None
            else f"no predictions of version {chosen} from {since} to {until}"
        )
        return {
            **base,
            "good": 0,
            "total": 0,
            "ratio": None,
            "within_threshold": [],
            "exceeded": [],
            "unmeasurable": [{"attribute": a, "reason": why} for a in registry.slices],
            "status": NO_MEASURABLE,
        }
    report = store_report(
        store,
        model,
        registry,
        version=chosen,
        since=since,
        until=until,
        trend=False,
        registry_source=registry_source,
    )
    s = report["sli"]
    return {
        **base,
        **{k: s[k] for k in ("good", "total", "ratio", "within_threshold", "exceeded")},
        "unmeasurable": s["unmeasurable"],
        "status": NO_MEASURABLE if s["total"] == 0 else "measured",
    }


def ingest(
    store: Store,
    model: str,
    registry: Any,
    *,
    name: str | None = None,
    at: str | None = None,
    version: str | None = None,
    registry_source: str | None = None,
) -> list[dict[str, Any]]:
    """Take and store one reading per SLO of the model (or the one named)."""
    slos = slos_of(store, model, name)
    moment = reading_at(at)
    # a bare date is that day's reading, whatever instant it is stamped at (SPEC 15.10)
    day = at if at is not None and len(at) == 10 else None
    key = model_key(model)
    cache: dict[int, dict[str, Any]] = {}
    readings = []
    for slo in slos:
        days = slo["window_days"]
        if days not in cache:
            cache[days] = measure(
                store,
                model,
                registry,
                days=days,
                at=moment,
                version=version,
                registry_source=registry_source,
            )
        readings.append({"slo": slo["name"], "at": _iso(moment), "day": day, **cache[days]})
    who = audit.actor()
    with store.transaction():
        store.lock("faircode-slo-readings")
        last = store.one("SELECT MAX(id) FROM slo_readings")
        next_id = 1 if last is None else int(last) + 1
        for r in readings:
            fields = ("within_threshold", "exceeded", "unmeasurable", "status", "day")
            details = {k: r[k] for k in fields}
            same = _same_look(store, key, r["slo"], moment, day)
            for rid in same:
                store.execute("DELETE FROM slo_readings WHERE id = ?", (rid,))
            r["replaces"] = same
            store.execute(
                "INSERT INTO slo_readings (id, model, name, at, version, since_day, until_day, "
                "good, total, details, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    next_id,
                    key,
                    r["slo"],
                    moment,
                    r["version"],
                    r["since"],
                    r["until"],
                    r["good"],
                    r["total"],
                    audit.canonical(details),
                    who,
                ),
            )
            r["id"] = next_id
            next_id += 1
    return readings


def _same_look(store: Store, key: str, name: str, moment: int, day: str | None) -> list[int]:
    """The ids of the SLO's stored readings a new one at ``moment`` replaces: one look per
    SLO and instant, and one per day for a reading given as a date (SPEC 15.10). Why: a
    re-run (`--at D` again, a CI retry) must not count the same look twice, and today's
    date is stamped now, a different instant each run."""
    first = moment - moment % 86400
    same = []
    for rid, at, details in store.query(
        "SELECT id, at, details FROM slo_readings WHERE model = ? AND name = ? AND at >= ? "
        "AND at < ? ORDER BY id",
        (key, name, first, first + 86400),
    ):
        if int(at) == moment or (day is not None and json.loads(details).get("day") == day):
            same.append(int(rid))
    return same


def readings_of(
    store: Store, key: str, name: str, since: int | None = None, until: int | None = None
) -> list[dict[str, Any]]:
    """Readings of one SLO with ``since < at <= until`` (epoch seconds), oldest first."""
    sql = (
        "SELECT id, at, version, since_day, until_day, good, total, details FROM slo_readings "
        "WHERE model = ? AND name = ?"
    )
    params: list[Any] = [key, name]
    if since is not None:
        sql += " AND at > ?"
        params.append(since)
    if until is not None:
        sql += " AND at <= ?"
        params.append(until)
    out = []
    for rid, at, version, first, last, good, total, details in store.query(
        sql + " ORDER BY at, id", params
    ):
        out.append(
            {
                "id": int(rid),
                "at": _iso(int(at)),
                "version": version,
                "since": first,
                "until": last,
                "good": int(good),
                "total": int(total),
                "day": None,  # a reading stored before readings named their day
                **json.loads(details),
            }
        )
    return out


def budget(slo: dict[str, Any], readings: list[dict[str, Any]]) -> dict[str, Any]:
    """The error budget of ``slo`` over ``readings`` (those in its window).

    good and total are summed over the readings; ``allowed_bad = (1 - target) * total``,
    ``bad = total - good``, ``remaining = allowed_bad - bad``; spent when ``bad`` exceeds
    ``allowed_bad`` by the exceed rule (12.7: 12 decimals, strict), so float noise in
    ``(1 - 0.9) * 10`` does not spend a budget that one bad attribute reading exactly
    uses. No readings, or none measurable, is unmeasured: never a pass.
    """
    good = sum(r["good"] for r in readings)
    total = sum(r["total"] for r in readings)
    out: dict[str, Any] = {
        "readings": len(readings),
        "good": good,
        "total": total,
        "ratio": None if total == 0 else good / total,
        "allowed_bad": None,
        "bad": total - good,
        "remaining": None,
        "remaining_fraction": None,
    }
    if not readings:
        return {**out, "outcome": "unmeasured", "reason": "no readings in the window"}
    if total == 0:
        return {**out, "outcome": "unmeasured", "reason": NO_MEASURABLE}
    allowed = (1.0 - slo["target"]) * total
    bad = total - good
    spent = exceeds(float(bad), allowed)
    out.update(
        allowed_bad=allowed,
        remaining=allowed - bad,
        remaining_fraction=None if allowed == 0 else (allowed - bad) / allowed,
    )
    return {**out, "outcome": "exhausted" if spent else "ok", "reason": None}


def status(store: Store, model: str, at: str | None = None) -> dict[str, Any]:
    """Every SLO of the model with its budget at ``at`` (default now) and its readings."""
    moment = parse_at(at)
    key = model_key(model)
    out = []
    for slo in slos_of(store, model):
        start = moment - slo["window_days"] * 86400
        window = readings_of(store, key, slo["name"], start, moment)
        out.append(
            {
                **slo,
                "window": {"from": _iso(start), "to": _iso(moment)},
                "budget": budget(slo, window),
                "latest": window[-1] if window else None,
            }
        )
    return {"kind": "faircode.fairness.slo", "model": key, "at": _iso(moment), "slos": out}


def gate(store: Store, model: str, *, name: str | None = None, at: str | None = None) -> dict:
    """Judge the SLOs' budgets at ``at`` and record the decision (one audit row).

    Exit: 6 a gating SLO's budget is spent (wins), 3 a gating SLO is unmeasured (no
    readings in its window, or none measurable), else 0. An SLO set without ``--gate``
    is judged and recorded but only warns.
    """
    state = status(store, model, at)
    judged = [s for s in state["slos"] if name is None or s["name"] == name]
    if not judged:
        slos_of(store, model, name)  # the error naming the SLOs there are
    gating = [s for s in judged if s["gate"]]
    outcomes = {s["budget"]["outcome"] for s in gating}
    if "exhausted" in outcomes:
        code, event = EXIT_BUDGET, "fairness_slo_budget_exhausted"
    elif "unmeasured" in outcomes:
        code, event = EXIT_UNMEASURED, "fairness_slo_gate_unmeasured"
    else:
        code, event = EXIT_OK, "fairness_slo_gate_passed"
    details = {
        "at": state["at"],
        "slos": [
            {
                "name": s["name"],
                "target": s["target"],
                "window_days": s["window_days"],
                "gate": s["gate"],
                **{
                    k: s["budget"][k]
                    for k in ("outcome", "readings", "good", "total", "bad", "allowed_bad")
                },
                "reason": s["budget"]["reason"],
            }
            for s in judged
        ],
    }
    entry = audit.append(store, event, state["model"], None, details)
    return {
        "model": state["model"],
        "at": state["at"],
        "exit": code,
        "event": event,
        "audit_id": entry["id"],
        "slos": judged,
    }


def pct_text(x: float | None) -> str:
    """A ratio as the SLO lines show it (``-`` when there is none)."""
    return "-" if x is None else f"{x:.1%}"


def budget_line(s: dict[str, Any]) -> str:
    """An SLO and its budget in one line, as `slo show` and `slo gate` print it."""
    b = s["budget"]
    head = (
        f"SLO {s['name']}: target {s['target']:g} over {s['window_days']} days"
        f"{' (gates)' if s['gate'] else ' (advisory)'}: {b['readings']} reading(s)"
    )
    if b["outcome"] == "unmeasured":
        return f"{head}; SLI 0/0: {b['reason']}; budget not judged (never a pass)"
    left = "SPENT" if b["outcome"] == "exhausted" else f"{pct_text(b['remaining_fraction'])} left"
    return (
        f"{head}; SLI {b['good']}/{b['total']} ({pct_text(b['ratio'])}); {b['bad']} bad of "
        f"{b['allowed_bad']:.3g} allowed: budget {left}"
    )


def reading_line(r: dict[str, Any]) -> str:
    """A reading in one line, as `slo show` and `slo ingest` print it."""
    if r["total"] == 0:
        reasons = {u["reason"] for u in r["unmeasurable"]}
        why = (
            reasons.pop()
            if len(reasons) == 1
            else "undecided: " + ", ".join(u["attribute"] for u in r["unmeasurable"])
        )
        sli = f"SLI 0/0: no measurable attributes ({why})"
    else:
        sli = f"SLI {r['good']}/{r['total']}"
        if r["exceeded"]:
            sli += f", exceeded: {', '.join(r['exceeded'])}"
        if r["unmeasurable"]:
            sli += f", not counted: {', '.join(u['attribute'] for u in r['unmeasurable'])}"
    version = f"version {r['version']}" if r["version"] else "no version"
    return f"{r['at']}  {version}  {r['since']}..{r['until']}  {sli}"
