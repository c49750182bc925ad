"""Which registry is in force, runtime overrides, ``apply``, and the promotion gate.

The YAML file is the declaration; a runtime override in the store wins over it (an
operator's deliberate act on a live system), but never silently: ``show`` names every
field where the two disagree, and every override, apply and gate decision is written
to the audit log in the same transaction as the change it records.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ..errors import EXIT_OK
from . import audit
from .errors import MonitorInputError
from .gate import gate_code
from .registry import DEFAULTS, Registry, RegistryError, check_fields, diff, from_json, load_yaml
from .store import Store, model_key
from .timeline import latest_version, store_report


def registry_state(store: Store, model: str, yaml_path: Path) -> dict[str, Any]:
    """The YAML entry, the store override, which is in force, and their drift."""
    key = model_key(model)
    declared: Registry | None = None
    yaml_note = None
    yaml_form = None
    if yaml_path.exists():
        declarations = load_yaml(yaml_path)
        yaml_form = declarations.form
        declared = declarations.get(key)
        if declared is None:
            yaml_note = f"{yaml_path} does not declare model {model!r}"
    else:
        yaml_note = f"{yaml_path} does not exist"
    row = store.execute(
        "SELECT config, actor, at, reason FROM registry_overrides WHERE model = ?", (key,)
    ).fetchone()
    override = None
    override_info = None
    if row is not None:
        name = declared.model if declared else _display_name(store, key, model)
        override = from_json(name, row[0])
        override_info = {"actor": row[1], "at": row[2], "reason": row[3]}
    in_force = override or declared
    source = "store" if override is not None else ("yaml" if declared is not None else None)
    drift = []
    if declared is not None and override is not None:
        drift = [{"field": f, "yaml": y, "store": s} for f, y, s in diff(declared, override)]
    return {
        "model": in_force.model if in_force else model,
        "key": key,
        "source": source,
        "in_force": in_force,
        "yaml": declared,
        "yaml_path": str(yaml_path),
        "yaml_form": yaml_form,
        "yaml_note": yaml_note,
        "store": override,
        "store_info": override_info,
        "drift": drift,
    }


def _display_name(store: Store, key: str, fallback: str) -> str:
    name = store.one("SELECT name FROM models WHERE key = ?", (key,))
    return str(name) if name else fallback


def require_registry(state: dict[str, Any]) -> Registry:
    reg = state["in_force"]
    if reg is None:
        raise MonitorInputError(
            f"no fairness registry for model {state['model']!r}: {state['yaml_note']}; declare "
            "it in fairness.yaml or set one with: faircode fairness config MODEL --attr COL "
            "--reason TEXT"
        )
    return reg


def state_json(state: dict[str, Any]) -> dict[str, Any]:
    def fields(r: Registry | None) -> dict[str, Any] | None:
        return None if r is None else r.fields()

    return {
        "kind": "faircode.fairness.registry",
        "model": state["model"],
        "source": state["source"],
        "in_force": fields(state["in_force"]),
        "yaml": fields(state["yaml"]),
        "yaml_path": state["yaml_path"],
        "yaml_form": state["yaml_form"],
        "yaml_note": state["yaml_note"],
        "store": fields(state["store"]),
        "store_info": state["store_info"],
        "drift": state["drift"],
    }


#: Why ``config`` and ``apply`` need ``--reason`` (SPEC 15.4), by command.
REASON_NEEDED = {
    "config": "a runtime override changes what reports and the gate decide",
    "apply": "discarding a runtime override changes what reports and the gate decide",
}


def require_reason(command: str, reason: str | None) -> str:
    """``--reason`` of ``config`` / ``apply``: required and not blank, so the audit log
    keeps why the registry in force changed as well as who changed it (SPEC 15.4)."""
    if reason is None or not reason.strip():
        given = "is empty" if reason is not None else "is required"
        raise MonitorInputError(
            f"fairness {command}: --reason {given}: {REASON_NEEDED[command]}, and the audit "
            "log keeps who did it and why; e.g. --reason 'incident 42'"
        )
    return reason


def set_config(
    store: Store,
    model: str,
    yaml_path: Path,
    *,
    attrs: list[str] | None,
    threshold: float | None,
    min_samples: int | None,
    gate: bool | None,
    task: str | None,
    enabled: bool | None,
    reason: str | None,
    rule: str | None = None,
) -> dict[str, Any]:
    """Write a runtime override (fields not given keep the value in force) and audit it."""
    require_reason("config", reason)
    state = registry_state(store, model, yaml_path)
    base = state["in_force"]
    fields: dict[str, Any] = dict(DEFAULTS) if base is None else base.fields()
    given = {
        "slices": attrs,
        "threshold": threshold,
        "min_samples": min_samples,
        "gate": gate,
        "task": task,
        "enabled": enabled,
        "rule": rule,
    }
    fields.update({k: v for k, v in given.items() if v is not None})
    if "slices" not in fields or fields["slices"] is None:
        raise MonitorInputError(
            f"model {model!r} has no registry yet; pass the attributes with --attr COL"
        )
    fields["slices"] = list(fields["slices"])
    if attrs is not None:
        _check_logged(store, state["key"], model, attrs)
    try:
        checked = check_fields("faircode fairness config", fields, model)
    except RegistryError as exc:
        text = str(exc)
        for key, option in (
            ("slices", "--attr"),
            ("threshold", "--threshold"),
            ("min_samples", "--min-samples"),
        ):
            text = text.replace(f"key '{key}'", option)
        raise MonitorInputError(text) from None
    name = state["model"]
    new = Registry(model=name, **{**DEFAULTS, **checked})
    with store.transaction():
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        who = audit.actor()
        store.execute(
            "INSERT INTO registry_overrides (model, config, actor, at, reason) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (model) DO UPDATE SET config = excluded.config, "
            "actor = excluded.actor, at = excluded.at, reason = excluded.reason",
            (state["key"], new.to_json(), who, now, reason),
        )
        store.execute(
            "INSERT INTO models (key, name) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
            (state["key"], name),
        )
        entry = audit.append(
            store,
            "fairness_config_set",
            state["key"],
            None,
            {
                "before": None if base is None else base.fields(),
                "before_source": state["source"],
                "after": new.fields(),
                "yaml": None if state["yaml"] is None else state["yaml"].fields(),
                "drift_from_yaml": []
                if state["yaml"] is None
                else [{"field": f, "yaml": y, "store": s} for f, y, s in diff(state["yaml"], new)],
                "reason": reason,
            },
        )
    return {"registry": new, "audit": entry}


def _check_logged(store: Store, key: str, model: str, attrs: list[str]) -> None:
    """Refuse ``config --attr`` naming an attribute the model's predictions never carried
    (SPEC 15.4): every report and gate would stop on it. A model with nothing logged yet
    may be configured ahead of its first batch."""
    logged = [r[0] for r in store.query("SELECT name FROM attributes WHERE model = ?", (key,))]
    missing = [a for a in attrs if a not in logged]
    if logged and missing:
        listed = ", ".join(sorted(logged))
        raise MonitorInputError(
            f"--attr {', '.join(missing)}: never logged for model {model!r} (its logged "
            f"attributes: {listed}); name logged ones, or log predictions with --attr "
            f"{missing[0]} first; nothing was changed"
        )


def apply_yaml(store: Store, model: str, yaml_path: Path, reason: str | None) -> dict[str, Any]:
    """Remove the store override so the YAML declaration is in force again (audited)."""
    require_reason("apply", reason)
    state = registry_state(store, model, yaml_path)
    if state["yaml"] is None and state["store"] is None:
        raise MonitorInputError(
            f"cannot apply: {state['yaml_note']} and the store holds no override for it; "
            "nothing to apply or discard: declare the model there first"
        )
    # an override of a model the YAML does not declare is discarded too, leaving no
    # registry in force: `config` accepted it, so it must be revocable (SPEC 15.4)
    with store.transaction():
        store.execute("DELETE FROM registry_overrides WHERE model = ?", (state["key"],))
        entry = audit.append(
            store,
            "fairness_registry_applied",
            state["key"],
            None,
            {
                "yaml_path": state["yaml_path"],
                "yaml": None if state["yaml"] is None else state["yaml"].fields(),
                "discarded_override": None if state["store"] is None else state["store"].fields(),
                "drift": state["drift"],
                "reason": reason,
            },
        )
    return {"state": state, "audit": entry}


def _verdict_details(
    report: dict[str, Any], reg: Registry, source: str | None, reason: str | None
) -> dict[str, Any]:
    ev = report["evaluation"]
    return {
        "status": ev["status"],
        "registry_source": source,
        "rule": ev["settings"]["rule"],
        "threshold": reg.threshold,
        "min_samples": reg.min_samples,
        "slices": list(reg.slices),
        "rows": ev["rows"],
        "disparities": [
            {
                "group": g["name"],
                "metric": d["metric"],
                "value": d["value"],
                "ci95": d["ci95"],
                "threshold": d["threshold"],
                "status": d["status"],
            }
            for g in ev["groups"]
            for d in g["disparities"]
            if d["gated"]
        ],
        "failures": ev["failures"],
        "insufficient": ev["insufficient"],
        "unmeasured": ev["unmeasured"],
        "reason": reason,
    }


def run_gate(
    store: Store,
    model: str,
    yaml_path: Path,
    version: str | None,
    *,
    force: bool,
    reason: str | None,
) -> dict[str, Any]:
    """Judge ``version``'s predictions only (None: the latest logged); record the
    decision; return code, event, report and the version judged."""
    if force and not (reason and reason.strip()):
        raise MonitorInputError("--force needs --reason TEXT; an override must say why")
    state = registry_state(store, model, yaml_path)
    reg = require_registry(state)
    key = state["key"]
    if version is None:
        version = latest_version(store, model)
    if not reg.enabled:
        entry = audit.append(
            store,
            "fairness_gate_disabled",
            key,
            version,
            {"registry_source": state["source"], "enabled": False, "reason": reason},
        )
        return {
            "code": EXIT_OK,
            "event": entry["event"],
            "version": version,
            "report": None,
            "state": state,
            "audit": entry,
            "message": f"fairness gate disabled for {reg.model} (enabled: false in the "
            f"{state['source']} registry); version {version} was not judged",
        }
    report = store_report(
        store, model, reg, version=version, trend=False, registry_source=state["source"]
    )
    status = report["evaluation"]["status"]
    code = gate_code(report["evaluation"])
    details = _verdict_details(report, reg, state["source"], reason)
    message = None
    if code != EXIT_OK and not reg.gate:
        details["advisory"] = True
        event = "fairness_gate_passed"
        message = (
            f"gate is advisory for {reg.model} (gate: false): status {status} "
            "recorded, promotion not blocked"
        )
        code = EXIT_OK
    elif code != EXIT_OK and force:
        details["would_exit"] = code
        event = "fairness_gate_override"
        code = EXIT_OK
    elif code != EXIT_OK:
        event = "promotion_blocked_by_fairness"
    else:
        event = "fairness_gate_passed"
        if force:
            details["force_unused"] = True
    entry = audit.append(store, event, key, version, details)
    return {
        "code": code,
        "event": event,
        "version": version,
        "report": report,
        "state": state,
        "message": message,
        "audit": entry,
    }


def override_json(state: dict[str, Any]) -> str:
    return json.dumps(state_json(state), indent=2)
