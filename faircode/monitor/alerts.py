"""``watch``: one alert per breach, sent once until it clears (SPEC 15.11).

A breach is a gated disparity of a declared attribute whose status is ``exceeded``
(12.7, by the registry's rule). Each new breach becomes one JSON line (to a stream or
appended to a file) and, with a webhook, one HTTP POST of that line (stdlib
``urllib``); then it is recorded in ``alert_state`` with a ``fairness_alert_sent``
audit row in one transaction. A breach already in ``alert_state`` is not sent again;
it clears (its row removed, ``fairness_alert_cleared``) when a watch measures the
disparity within the threshold. A breach whose delivery failed is not recorded, so the
next watch sends it again (at least once, never silently dropped). A watch with nowhere
to deliver (no file, stream or webhook; the command line without --out and --webhook) is
a preview: it writes nothing to the store, so a later watch with a notifier sends those
breaches.
"""

from __future__ import annotations

import json
import math
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import IO, Any

from ..options import spelled
from . import audit
from .args import is_number, text, text_stream_or_path
from .errors import MonitorInputError
from .store import Store, model_key

#: Seconds a webhook may take to answer before the watch gives up on it.
WEBHOOK_TIMEOUT_S = 10.0


def check_webhook(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise MonitorInputError(
            f"--webhook {url!r} is not an http:// or https:// URL; give the endpoint's full URL"
        )
    return url


def _where(url: str) -> str:
    """The webhook without its path and query (they may hold a token), for messages."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


def post(url: str, line: str, timeout: float = WEBHOOK_TIMEOUT_S) -> int:
    """POST one alert line as JSON; its HTTP status, or a one-line MonitorInputError."""
    req = urllib.request.Request(
        url,
        data=line.encode("utf-8"),
        headers={"Content-Type": "application/json", "User-Agent": "faircode-watch"},
        method="POST",
    )
    why = None
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (checked scheme)
            status = int(resp.status)
            resp.read()
    except urllib.error.HTTPError as exc:
        why = f"HTTP {exc.code} {exc.reason}"
    except urllib.error.URLError as exc:
        why = str(exc.reason)
    except TimeoutError:
        why = f"no answer within {timeout:g} s"
    except (OSError, ValueError) as exc:
        why = str(exc) or type(exc).__name__
    else:
        if 200 <= status < 300:
            return status
        why = f"HTTP {status}"
    raise MonitorInputError(
        f"--webhook {_where(url)}: the POST failed ({why}); the alert was not recorded as sent "
        "and the next watch sends it again: check the URL and that the endpoint is up"
    )


def breaches(report: dict[str, Any]) -> tuple[list[dict[str, Any]], set[tuple[str, str]]]:
    """The report's breaches as alerts, and the (attribute, metric) measured within."""
    ev = report["evaluation"]
    alerts, within = [], set()
    for g in ev["groups"]:
        for d in g["disparities"]:
            if not d["gated"]:
                continue
            if d["status"] == "ok":
                within.add((g["name"], d["metric"]))
            if d["status"] != "exceeded":
                continue
            alerts.append(
                {
                    "kind": "faircode.fairness.alert",
                    "model": report["model"],
                    "version": report["version"],
                    "attribute": g["name"],
                    "metric": d["metric"],
                    "value": d["value"],
                    "interval": d["ci95"],
                    "threshold": d["threshold"],
                    "outcome": "fail",
                    "rule": ev["settings"]["rule"],
                    "window": report["window"],
                    "label": ev["columns"].get("label"),
                }
            )
    return alerts, within


def _open_breaches(store: Store, key: str, version: str) -> dict[tuple[str, str], int]:
    return {
        (a, m): int(i)
        for a, m, i in store.query(
            "SELECT attribute, metric, audit_id FROM alert_state WHERE model = ? AND version = ?",
            (key, version),
        )
    }


def _superseded_breaches(store: Store, key: str, version: str) -> list[tuple[str, str, str, int]]:
    """The open breaches of the model's versions that ``version`` superseded: each other
    version whose last prediction batch was logged before ``version``'s first (SPEC
    15.11). A version still logging beside it (a canary, a shadow) is not superseded."""
    return [
        (v, a, m, int(i))
        for v, a, m, i in store.query(
            "SELECT s.version, s.attribute, s.metric, s.audit_id FROM alert_state s "
            "WHERE s.model = ? AND s.version <> ? AND COALESCE((SELECT MAX(b.id) FROM batches "
            "b WHERE b.model = s.model AND b.version = s.version AND b.kind = 'predictions' "
            "AND b.rows_new > 0), 0) < (SELECT MIN(b.id) FROM batches b WHERE b.model = ? "
            "AND b.version = ? AND b.kind = 'predictions' AND b.rows_new > 0) "
            "ORDER BY s.version, s.attribute, s.metric",
            (key, version, key, version),
        )
    ]


def _clear(store: Store, key: str, version: str, detail: dict[str, Any]) -> dict[str, Any]:
    """Close one open alert of ``version`` (its ``attribute`` and ``metric`` in
    ``detail``) and audit it as ``fairness_alert_cleared`` with ``detail``, in one
    transaction; the audit entry."""
    with store.transaction():
        store.execute(
            "DELETE FROM alert_state WHERE model = ? AND version = ? AND attribute = ? "
            "AND metric = ?",
            (key, version, detail["attribute"], detail["metric"]),
        )
        return audit.append(store, "fairness_alert_cleared", key, version, detail)


def check_watch(out: Any, webhook: Any, timeout: Any) -> None:
    """Where alerts go, checked before anything is judged or sent: ``out`` None, a path
    or a text stream, ``webhook`` None or an http(s) URL, ``timeout`` seconds > 0."""
    text_stream_or_path("--out", out)
    if webhook is not None:
        check_webhook(text("--webhook", webhook))
    if not is_number(timeout) or not 0 < timeout < math.inf:
        raise MonitorInputError(
            f"{spelled('--timeout')} must be a number of seconds > 0; got {timeout!r}"
        )


def watch(
    store: Store,
    model: str,
    report: dict[str, Any],
    *,
    out: str | os.PathLike[str] | IO[str] | None = None,
    webhook: str | None = None,
    timeout: float = WEBHOOK_TIMEOUT_S,
) -> dict[str, Any]:
    """Send the report's new breaches, clear the ones measured within; what was done.

    With neither ``out`` nor ``webhook`` it is a preview: the new breaches are returned
    as ``unsent`` and nothing is recorded or cleared."""
    check_watch(out, webhook, timeout)
    preview = out is None and webhook is None
    key = model_key(model)
    version = report["version"]
    current, within = breaches(report)
    open_now = _open_breaches(store, key, version)
    sent, unsent, still_open = [], [], []
    for alert in current:
        k = (alert["attribute"], alert["metric"])
        if k in open_now:
            still_open.append({**alert, "first_alert_row": open_now[k]})
            continue
        alert = {**alert, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if preview:
            # not delivered: recording it would keep it from the next watch's notifier
            # until it cleared (SPEC 15.11)
            unsent.append(alert)
            continue
        line = alert_line(alert)
        if webhook is not None:
            post(webhook, line, timeout)
        _write(out, line)
        with store.transaction():
            entry = audit.append(
                store,
                "fairness_alert_sent",
                key,
                version,
                {
                    "alert": alert,
                    "webhook": None if webhook is None else _where(webhook),
                },
            )
            store.execute(
                "INSERT INTO alert_state (model, version, attribute, metric, first_at, "
                "audit_id) VALUES (?, ?, ?, ?, ?, ?)",
                (key, version, k[0], k[1], alert["at"], entry["id"]),
            )
        sent.append({**alert, "audit_id": entry["id"]})
    cleared, undecided = [], []
    breached = {(a["attribute"], a["metric"]) for a in current}
    status = {
        (g["name"], d["metric"]): d["status"]
        for g in report["evaluation"]["groups"]
        for d in g["disparities"]
        if d["gated"]
    }
    for (attribute, metric), first in sorted(open_now.items()):
        if (attribute, metric) not in within:
            # still exceeded, or undecided: the breach stays open, and an undecided one
            # is named (a summary of "0 still open" would read as all clear)
            if (attribute, metric) not in breached:
                undecided.append(
                    {
                        "attribute": attribute,
                        "metric": metric,
                        "status": status.get((attribute, metric), "not evaluated"),
                        "first_alert_row": first,
                    }
                )
            continue
        if preview:
            continue
        entry = _clear(
            store,
            key,
            version,
            {"attribute": attribute, "metric": metric, "first_alert_row": first},
        )
        cleared.append({"attribute": attribute, "metric": metric, "audit_id": entry["id"]})
    retired = []
    for old, attribute, metric, first in (
        [] if preview else _superseded_breaches(store, key, version)
    ):
        # its version is no longer served, so no watch would measure it again and it
        # would stay open for ever
        entry = _clear(
            store,
            key,
            old,
            {
                "attribute": attribute,
                "metric": metric,
                "first_alert_row": first,
                "superseded_by": version,
            },
        )
        retired.append(
            {
                "version": old,
                "attribute": attribute,
                "metric": metric,
                "first_alert_row": first,
                "audit_id": entry["id"],
            }
        )
    return {
        "model": key,
        "version": version,
        "preview": preview,
        "empty_window": report.get("empty_window"),
        "sent": sent,
        "unsent": unsent,
        "still_open": still_open,
        "undecided": undecided,
        "cleared": cleared,
        "retired": retired,
    }


def alert_line(alert: dict[str, Any]) -> str:
    """One alert as the JSON line that is written and POSTed (sorted keys)."""
    return json.dumps(alert, sort_keys=True, allow_nan=False)


def _write(out: str | os.PathLike[str] | IO[str] | None, line: str) -> None:
    if out is None:
        return
    if hasattr(out, "write"):
        out.write(line + "\n")  # type: ignore[union-attr]
        out.flush()  # type: ignore[union-attr]
        return
    path = Path(os.fspath(out))  # type: ignore[arg-type]
    try:
        with path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
    except OSError as exc:
        raise MonitorInputError(
            f"--out {path}: cannot append the alert: {exc.strerror or exc}; the alert was not "
            "recorded as sent: name a writable file"
        ) from None
