"""The audit log: append-only, hash-chained (SPEC 15.7).

Every row's ``hash`` is SHA-256 over the previous row's hash and the row's canonical
JSON content (id, time, actor, event, model, version, details), so changing, removing
or reordering a row breaks the chain from that row on. The chain is one sequence over
all models; appending takes the store's write lock so two writers cannot fork it. The
database also refuses UPDATE and DELETE on the table (triggers).
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import time
from typing import Any

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


def verify(store: Store) -> list[str]:
    """Problems found walking the whole chain in id order (empty when it is intact)."""
    problems: list[str] = []
    prev = GENESIS
    expected_id = 1
    for e in entries(store):
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
