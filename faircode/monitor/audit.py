"""The audit log: append-only, hash-chained (SPEC 15.7).

Every row's ``hash`` is SHA-256 over the previous row's hash and the row's canonical
JSON content (id, time, actor, event, model, version, details), so changing, removing
or reordering a row breaks the chain from that row on. The chain is one sequence over
all models; appending takes the store's write lock so two writers cannot fork it. The
database also refuses UPDATE and DELETE on the table (triggers).

The chain is unkeyed: whoever can write the database can drop the triggers, cut rows
from the tail or rewrite rows and recompute every hash, and the chain still verifies.
Two checks reach past that. The *head* (row count and last hash, :func:`head`) kept
outside the database (a CI artifact, a commit) anchors the chain: :func:`verify_head`
names the rows missing from the tail or the row whose hash differs. And the store's
state implies audit rows (:func:`state_problems`): a registry override needs the
``fairness_config_set`` that wrote it, a removed batch its ``fairness_batch_removed``,
an SLO its ``fairness_slo_set``, an open alert its ``fairness_alert_sent``.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from .errors import MonitorInputError
from .store import Store

GENESIS = "0" * 64

#: Events written by faircode (SPEC 15.7).
EVENTS = (
    "fairness_config_set",
    "fairness_registry_applied",
    "fairness_gate_passed",
    "promotion_blocked_by_fairness",
    "fairness_gate_override",
    "fairness_gate_disabled",
    "fairness_batch_removed",
    "fairness_slo_set",
    "fairness_slo_gate_passed",
    "fairness_slo_budget_exhausted",
    "fairness_slo_gate_unmeasured",
    "fairness_alert_sent",
    "fairness_alert_cleared",
)


def actor() -> str:
    """Who acts: ``$FAIRCODE_ACTOR``, else the operating-system user."""
    env = os.environ.get("FAIRCODE_ACTOR", "").strip()
    if env:
        return env
    try:
        return getpass.getuser()
    except Exception:  # no user name available (containers without passwd entries)
        return f"uid:{os.getuid()}" if hasattr(os, "getuid") else "unknown"


def canonical(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def row_hash(prev_hash: str, content: dict[str, Any]) -> str:
    return hashlib.sha256((prev_hash + "\n" + canonical(content)).encode("utf-8")).hexdigest()


def _content(
    row_id: int, at: str, who: str, event: str, model: str, version: str | None, details: Any
) -> dict[str, Any]:
    return {
        "id": row_id,
        "at": at,
        "actor": who,
        "event": event,
        "model": model,
        "version": version,
        "details": details,
    }


def append(
    store: Store, event: str, model: str, version: str | None, details: dict[str, Any]
) -> dict[str, Any]:
    """Append one event (inside the caller's transaction when there is one)."""
    with store.transaction():
        store.lock("faircode-audit")
        last = store.execute("SELECT id, hash FROM audit ORDER BY id DESC LIMIT 1").fetchone()
        row_id = 1 if last is None else int(last[0]) + 1
        prev = GENESIS if last is None else str(last[1])
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        who = actor()
        content = _content(row_id, at, who, event, model, version, details)
        digest = row_hash(prev, content)
        store.execute(
            "INSERT INTO audit (id, at, actor, event, model, version, details, prev_hash, hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row_id, at, who, event, model, version, canonical(details), prev, digest),
        )
    return {**content, "prev_hash": prev, "hash": digest}


def entries(store: Store, model: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT id, at, actor, event, model, version, details, prev_hash, hash FROM audit"
    params: tuple[Any, ...] = ()
    if model is not None:
        sql += " WHERE model = ?"
        params = (model,)
    out = []
    for row_id, at, who, event, m, version, details, prev, digest in store.query(
        sql + " ORDER BY id", params
    ):
        try:
            parsed: Any = json.loads(details)
        except ValueError:
            parsed = details
        out.append(
            {
                "id": int(row_id),
                "at": at,
                "actor": who,
                "event": event,
                "model": m,
                "version": version,
                "details": parsed,
                "prev_hash": prev,
                "hash": digest,
            }
        )
    return out


def verify(store: Store, rows: list[dict[str, Any]] | None = None) -> list[str]:
    """Problems found walking the whole chain in id order, then comparing the store's
    state with the events that must have recorded it (empty when both hold)."""
    rows = entries(store) if rows is None else rows
    return chain_problems(rows) + state_problems(store, rows)


def chain_problems(rows: list[dict[str, Any]]) -> list[str]:
    """Rows whose id, link or content breaks the hash chain."""
    problems: list[str] = []
    prev = GENESIS
    expected_id = 1
    for e in rows:
        if e["id"] != expected_id:
            problems.append(
                f"row {e['id']}: expected row {expected_id} here (rows missing or renumbered)"
            )
        if e["prev_hash"] != prev:
            problems.append(f"row {e['id']}: prev_hash does not match the hash of the row before")
        try:
            recomputed = row_hash(
                e["prev_hash"],
                _content(
                    e["id"], e["at"], e["actor"], e["event"], e["model"], e["version"], e["details"]
                ),
            )
        except ValueError:
            recomputed = ""
        if recomputed != e["hash"]:
            problems.append(f"row {e['id']}: content does not match its hash (the row was changed)")
        prev = e["hash"]
        expected_id = e["id"] + 1
    return problems


def state_problems(store: Store, rows: list[dict[str, Any]]) -> list[str]:
    """Audit rows the store's current state implies but the log lacks.

    Every registry override was written with a ``fairness_config_set`` row holding it
    (``after``), and only ``apply`` (which writes ``fairness_registry_applied``) removes
    one; every batch marked removed was removed with a ``fairness_batch_removed`` row.
    So cutting those rows from the log shows, even when the chain itself is intact.
    """
    problems: list[str] = []
    last: dict[str, dict[str, Any]] = {}
    removed_logged: set[int] = set()
    for e in rows:
        if e["event"] in ("fairness_config_set", "fairness_registry_applied"):
            last[e["model"]] = e
        elif e["event"] == "fairness_batch_removed" and isinstance(e["details"], dict):
            batch = e["details"].get("batch")
            if isinstance(batch, int):
                removed_logged.add(batch)
    overrides = set()
    for model, config, who, at in store.query(
        "SELECT model, config, actor, at FROM registry_overrides ORDER BY model"
    ):
        overrides.add(model)
        e = last.get(model)
        try:
            held: Any = json.loads(config)
        except ValueError:
            held = config
        if e is None or e["event"] != "fairness_config_set":
            problems.append(
                f"model {model}: the store holds a registry override (set by {who} at {at}) "
                "that no fairness_config_set row records: audit rows are missing"
            )
        elif not isinstance(e["details"], dict) or e["details"].get("after") != held:
            problems.append(
                f"model {model}: the store's registry override (set by {who} at {at}) is "
                f"not the one the last fairness_config_set (row {e['id']}) records: the row "
                "that set it is missing"
            )
    for model, e in sorted(last.items()):
        if e["event"] == "fairness_config_set" and model not in overrides:
            problems.append(
                f"model {model}: the last registry event is fairness_config_set (row "
                f"{e['id']}) but the store holds no override: the fairness_registry_applied "
                "row that removed it is missing"
            )
    problems += _slo_problems(store, rows)
    for batch, model in store.query(
        "SELECT id, model FROM batches WHERE kind LIKE ? ORDER BY id", ("removed:%",)
    ):
        if int(batch) not in removed_logged:
            problems.append(
                f"model {model}: batch {batch} is marked removed but no "
                "fairness_batch_removed row records it: audit rows are missing"
            )
    return problems


def _slo_problems(store: Store, rows: list[dict[str, Any]]) -> list[str]:
    """An SLO needs the ``fairness_slo_set`` that wrote it (the last for its name, with
    its fields); an open breach needs the ``fairness_alert_sent`` row it names (SPEC
    15.10, 15.11). Stores older than migration 4 have neither table."""
    if store.version < 4:
        return []
    problems: list[str] = []
    set_rows: dict[tuple[str, str], dict[str, Any]] = {}
    by_id = {e["id"]: e for e in rows}
    for e in rows:
        if e["event"] == "fairness_slo_set" and isinstance(e["details"], dict):
            slo = e["details"].get("slo")
            if isinstance(slo, dict):
                set_rows[(e["model"], str(slo.get("name")))] = e
    for model, name, target, days, gate in store.query(
        "SELECT model, name, target, window_days, gate FROM slos ORDER BY model, name"
    ):
        held = {"name": name, "target": float(target), "window_days": int(days), "gate": bool(gate)}
        e = set_rows.get((model, name))
        if e is None or e["details"]["slo"] != held:
            which = (
                "no fairness_slo_set row records it"
                if e is None
                else (f"the last fairness_slo_set for it (row {e['id']}) records another")
            )
            problems.append(
                f"model {model}: the store's SLO {name} ({held}) is not audited: {which}: "
                "audit rows are missing"
            )
    for model, version, attribute, metric, audit_id in store.query(
        "SELECT model, version, attribute, metric, audit_id FROM alert_state "
        "ORDER BY model, version, attribute, metric"
    ):
        e = by_id.get(int(audit_id))
        alert = e["details"].get("alert") if e and isinstance(e["details"], dict) else None
        if (
            e is None
            or e["event"] != "fairness_alert_sent"
            or not isinstance(alert, dict)
            or (alert.get("attribute"), alert.get("metric")) != (attribute, metric)
        ):
            problems.append(
                f"model {model}: the open alert on {attribute} {metric} (version {version}) "
                f"names audit row {audit_id}, which is not its fairness_alert_sent: audit "
                "rows are missing"
            )
    return problems


def head(rows: list[dict[str, Any]]) -> tuple[int, str]:
    """(row count, hash of the last row) of the chain ``rows``: 0 and 64 zeros if empty."""
    return (len(rows), rows[-1]["hash"] if rows else GENESIS)


def head_text(rows: list[dict[str, Any]]) -> str:
    n, digest = head(rows)
    return f"{n}:{digest}"


_HEAD = re.compile(r"([0-9]+):([0-9a-f]{64})")


def parse_head(value: str) -> tuple[int, str]:
    """A head given to ``--verify --head``: ``ROWS:HASH`` as ``audit --head`` prints it,
    or a file holding that (or ``audit --head --json``'s output)."""
    text = value.strip()
    if not _HEAD.fullmatch(text):
        path = Path(value)
        try:
            if not path.is_file():
                raise FileNotFoundError
            text = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError, ValueError):
            raise MonitorInputError(
                f"--head {value!r} is neither a head (ROWS:HASH, as 'faircode fairness "
                "audit --head' prints it) nor a file holding one; to print the head, pass "
                "--head without a value (after MODEL)"
            ) from None
        if text.startswith("{"):
            try:
                doc = json.loads(text)
                given = doc["head"]
                text = f"{given['rows']}:{given['hash']}" if isinstance(given, dict) else given
            except (ValueError, KeyError, TypeError):
                text = ""
        if not isinstance(text, str) or not _HEAD.fullmatch(text):
            raise MonitorInputError(
                f"--head {value}: the file does not hold a head (ROWS:HASH, as 'faircode "
                "fairness audit --head' prints it)"
            )
    m = _HEAD.fullmatch(text)
    assert m is not None
    return int(m.group(1)), m.group(2)


def verify_head(rows: list[dict[str, Any]], n: int, digest: str) -> list[str]:
    """What differs between the chain ``rows`` and a head taken earlier (``n`` rows,
    the last one's hash ``digest``); rows appended since are fine."""
    if n == 0:
        return [] if digest == GENESIS else ["the head has 0 rows but a hash other than 64 zeros"]
    if len(rows) < n:
        gone = f"row {n}" if len(rows) + 1 == n else f"rows {len(rows) + 1}..{n}"
        return [
            f"rows missing from the tail: the head has {n} rows, the store holds "
            f"{len(rows)} ({gone} gone)"
        ]
    at = rows[n - 1]
    if at["id"] != n:
        return [f"row {n}: not at its place (rows missing or renumbered before it)"]
    if at["hash"] != digest:
        return [
            f"row {n}: hash differs from the head ({at['hash'][:12]}... in the store, "
            f"{digest[:12]}... in the head): rows up to {n} were changed since the head "
            "was taken"
        ]
    return []
