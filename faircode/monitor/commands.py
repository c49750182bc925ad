"""CLI for the prediction store, the registry and the gate (SPEC section 15).

``faircode fairness log | label | remove-batch | validate | config | show | apply | slice |
report | gate | audit``. Errors are one ``faircode: error: ...`` line and exit 2; ``gate``
exits like ``evaluate --gate`` (its codes: ``gate.GATE_EXITS``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..cliparse import Parser, usage_hint
from ..errors import EXIT_INPUT, EXIT_OK
from ..options import FAIRNESS_ENCODING_HELP, FAIRNESS_RULES
from ..safetext import shown
from .errors import MonitorInputError
from .gate import GATE_EXITS

#: Help texts of options that several commands declare alike (one home each).
_REASON_HELP = "why (kept in the audit log)"
_VERSION_HELP = "model version (default: the latest logged)"
_ID_HELP = "request id column"
_ONLY_SLO_HELP = "only this SLO"
_BATCH_JSON_HELP = "print the batch summary as JSON"


def _store_options(p: argparse.ArgumentParser, registry: bool = True) -> None:
    p.add_argument(
        "--db",
        metavar="URL|PATH",
        help="store: a SQLite path or postgresql:// URL "
        "(default $FAIRCODE_DB, else .faircode/monitor.db)",
    )
    if registry:
        p.add_argument(
            "--registry",
            metavar="FILE",
            help="slice registry: fairness.yaml, or a model's own YAML with a fairness: block "
            "(default $FAIRCODE_REGISTRY, else fairness.yaml)",
        )


def _output_options(p: argparse.ArgumentParser) -> None:
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--markdown", action="store_true", help="print Markdown")


def _window_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--version", help=_VERSION_HELP)
    p.add_argument("--since", metavar="WHEN", help="first day or time (YYYY-MM-DD or ISO)")
    p.add_argument("--until", metavar="WHEN", help="last day (inclusive) or time")


def _progress() -> Callable[[int, int], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\rfaircode: {done:,}/{total:,} rows{end}")
        sys.stderr.flush()

    return show


def _write_json(value: Any) -> None:
    """Pretty JSON on stdout; NaN is refused, not written as invalid JSON."""
    sys.stdout.write(json.dumps(value, indent=2, allow_nan=False) + "\n")


def _run(
    func: Callable[[argparse.Namespace], int],
    create: bool = False,
    before: Callable[[argparse.Namespace], object] | None = None,
) -> Callable[[argparse.Namespace], int]:
    """``func`` with ``args.store`` open, its errors one line. ``create``: the command
    may create a missing store (it stores what it is given: log, label, config, apply,
    slo set); the others need one that exists and never create a file (SPEC 15.2).
    ``before`` checks the arguments first, so a refused command makes no store."""

    def wrapped(args: argparse.Namespace) -> int:
        from ..cliutil import input_error  # lazy: start-up
        from .store import open_store  # lazy: start-up

        store = None
        try:
            if before is not None:
                before(args)
            store = open_store(getattr(args, "db", None), create=create)
            args.store = store
            return func(args)
        except MonitorInputError as exc:
            return input_error(exc)
        except Exception as exc:  # a database error: one line, not a traceback
            mod = type(exc).__module__.split(".")[0]
            if mod not in ("sqlite3", "psycopg"):
                raise
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            print(f"faircode: error: store: {shown(first)}", file=sys.stderr)
            return EXIT_INPUT
        finally:
            if store is not None:
                store.close()

    return wrapped


def _yaml_path(args: argparse.Namespace) -> Path:
    from .registry import resolve_path  # lazy: start-up

    return resolve_path(getattr(args, "registry", None))


# -- log / label ----------------------------------------------------------------
def _declared_task(args: argparse.Namespace) -> str | None:
    """The task the registry in force declares for the model (None: inferred)."""
    from .control import registry_state  # lazy: start-up

    reg = registry_state(args.store, args.model, _yaml_path(args))["in_force"]
    return None if reg is None else reg.task


def _log_batch(
    args: argparse.Namespace,
    log: Callable[..., dict[str, Any]],
    describe: Callable[[dict[str, Any]], str],
    **columns: Any,
) -> int:
    """``log`` FILE's batch (``log_predictions`` or ``log_labels``; ``columns``: its own
    options) by request id, for the registry's task; say what it did (``describe``) or
    that the file was logged before; ``--json``: the summary too."""
    from .audit import actor  # lazy: start-up

    summary = log(
        args.store,
        args.model,
        args.file,
        id_col=args.id,
        actor_name=actor(),
        progress=_progress(),
        task=_declared_task(args),
        **columns,
    )
    if summary["duplicate_of"] is not None:
        dup = summary["duplicate_of"]
        stale = ""
        stale_n, later = summary.get("not_in_force", 0), summary.get("replaced_by", [])
        if stale_n:
            by = "labels an older faircode stored"
            if later:
                by = f"label batch{'es' if len(later) > 1 else ''} {', '.join(map(str, later))}"
            stale = (
                f"; but {stale_n} of its label(s) differ from the stored ones (replaced by "
                f"{by}): to store this file's labels again, remove batch {dup} (faircode "
                f"fairness remove-batch {summary['model']} {dup} --reason TEXT) and send it again"
            )
        print(
            f"faircode: {args.file}: this batch was already logged (batch {dup}); "
            f"nothing changed{stale}",
            file=sys.stderr,
        )
    else:
        print(describe(summary), file=sys.stderr)
    if args.json:
        print(json.dumps(summary))
    return EXIT_OK


def cmd_log(args: argparse.Namespace) -> int:
    from .ingest import log_predictions  # lazy: start-up

    def logged(s: dict[str, Any]) -> str:
        extra = f", {s['already_stored']} already stored (kept)" if s["already_stored"] else ""
        # waiting labels, and the labels of these requests in another version
        joined = f", {s['labels_joined']} labels joined" if s["labels_joined"] else ""
        weighted = f", weighted by {args.weight}" if args.weight else ""
        return (
            f"faircode: logged {s['new']} predictions of {s['model']} version {args.version} "
            f"(batch {s['batch']}{weighted}{extra}{joined})"
        )

    return _log_batch(
        args,
        log_predictions,
        logged,
        version=args.version,
        attrs=args.attr,
        pred=args.pred,
        score=args.score,
        decision_threshold=args.decision_threshold,
        at_col=args.at,
        weight=args.weight,
        encoding=args.encoding,
    )


def cmd_label(args: argparse.Namespace) -> int:
    from .ingest import log_labels  # lazy: start-up

    def labelled(s: dict[str, Any]) -> str:
        return (
            f"faircode: {s['rows']} labels for {s['model']} (batch {s['batch']}): "
            f"{s['joined']} joined to predictions, {s['orphans']} orphans (no prediction "
            f"yet), {s['replaced']} replaced an earlier different label"
        )

    return _log_batch(args, log_labels, labelled, label_col=args.label, encoding=args.encoding)


def cmd_remove_batch(args: argparse.Namespace) -> int:
    from .audit import actor  # lazy: start-up
    from .ingest import remove_batch  # lazy: start-up

    r = remove_batch(args.store, args.model, args.batch, reason=args.reason, actor_name=actor())
    if r["kind"] == "predictions":
        what = f"{r['predictions_removed']} predictions of version {r['version']}"
        if r["labels_waiting_again"]:
            what += f"; {r['labels_waiting_again']} of their labels wait again as orphans"
        if r["labels_removed"]:
            what += (
                f"; {r['labels_removed']} labels stored before label batches were recorded "
                "went with them"
            )
    else:
        what = f"{r['labels_removed']} labels, {r['orphan_labels_removed']} orphan labels"
    print(
        f"faircode: removed batch {r['batch']} of {r['model']} ({r['kind']}, "
        f"{r['file'] or 'no file recorded'}): {what} (audit row {r['audit']['id']}); "
        "the same file can be sent again",
        file=sys.stderr,
    )
    if args.json:
        print(
            json.dumps(
                {k: v for k, v in r.items() if k != "audit"} | {"audit_id": r["audit"]["id"]}
            )
        )
    return EXIT_OK


# -- registry -------------------------------------------------------------------
def cmd_validate(args: argparse.Namespace) -> int:
    from ..cliutil import input_error  # lazy: start-up
    from .registry import load_yaml, resolve_path  # lazy: start-up

    path = resolve_path(args.file)
    try:
        models = load_yaml(path)
    except MonitorInputError as exc:
        return input_error(exc)
    names = ", ".join(r.model for r in models.values())
    if models.form == "model file":
        print(f"faircode: {path}: valid; the fairness: block of model {names}", file=sys.stderr)
    else:
        print(f"faircode: {path}: valid; {len(models)} model(s): {names}", file=sys.stderr)
    return EXIT_OK


def _fmt_field(v: Any) -> str:
    if isinstance(v, dict):
        return json.dumps(v, sort_keys=True, ensure_ascii=False)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(str(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "(inferred)"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _show_text(state: dict[str, Any]) -> str:
    from .registry import FIELDS  # lazy: start-up

    reg = state["in_force"]
    where = ""
    if state["source"] == "yaml":  # which file declared it (SPEC 15.4)
        block = ", its fairness: block" if state["yaml_form"] == "model file" else ""
        where = f" ({state['yaml_path']}{block})"
    lines = [
        f"model {state['model']}: registry in force from "
        f"{state['source'] or 'nowhere (none declared)'}{where}"
    ]
    if reg is not None:
        shown_fields = reg.fields()
        for f in FIELDS:
            if f in shown_fields:  # `groups` only when given
                lines.append(f"  {f}: {_fmt_field(shown_fields[f])}")
    if state["store_info"]:
        i = state["store_info"]
        why = f", reason: {i['reason']}" if i["reason"] else ""
        lines.append(f"store override set by {i['actor']} at {i['at']}{why}")
    if state["yaml_note"]:
        lines.append(f"yaml: {state['yaml_note']}")
    if state["drift"]:
        lines.append(
            f"DRIFT: the store override differs from {state['yaml_path']} in "
            f"{len(state['drift'])} field(s):"
        )
        for d in state["drift"]:
            lines.append(
                f"  {d['field']}: yaml {_fmt_field(d['yaml'])}, "
                f"store {_fmt_field(d['store'])} (in force)"
            )
        lines.append("run 'faircode fairness apply MODEL' to make the YAML authoritative again")
    elif state["yaml"] is not None and state["store"] is not None:
        lines.append("the store override equals the YAML declaration (no drift)")
    return "\n".join(lines) + "\n"


def cmd_show(args: argparse.Namespace) -> int:
    from .control import registry_state, state_json  # lazy: start-up

    state = registry_state(args.store, args.model, _yaml_path(args))
    if args.json:
        print(json.dumps(state_json(state), indent=2))
    else:
        sys.stdout.write(_show_text(state))
    return EXIT_OK


def _needs_a_setting(
    p: argparse.ArgumentParser, settable: list[argparse.Action]
) -> Callable[[argparse.Namespace], None]:
    """``config``'s check that it has something to set (SPEC 15.4): an override of
    nothing would freeze fairness.yaml as it is, its later edits ignored until
    ``apply``. The options named are the parser's own."""

    def check(args: argparse.Namespace) -> None:
        if all(getattr(args, a.dest) is None for a in settable):
            names = ", ".join(o for a in settable for o in a.option_strings)
            raise MonitorInputError(
                f"fairness config: nothing to set; pass at least one of {names} "
                f"{usage_hint(p.prog)}"
            )
        _needs_a_reason("config")(args)

    return check


def _needs_a_reason(command: str) -> Callable[[argparse.Namespace], None]:
    """``config`` and ``apply`` say why before the store is opened (SPEC 15.4)."""

    def check(args: argparse.Namespace) -> None:
        from .control import require_reason  # lazy: start-up

        require_reason(command, args.reason)

    return check


def cmd_config(args: argparse.Namespace) -> int:
    from .control import set_config  # lazy: start-up

    res = set_config(
        args.store,
        args.model,
        _yaml_path(args),
        attrs=args.attr,
        threshold=args.threshold,
        min_samples=args.min_samples,
        gate=args.gate,
        task=args.task,
        enabled=args.enabled,
        rule=args.rule,
        reason=args.reason,
    )
    reg = res["registry"]
    print(
        f"faircode: runtime override set for {reg.model} (audit row {res['audit']['id']}); "
        "it wins over fairness.yaml until 'faircode fairness apply'",
        file=sys.stderr,
    )
    return EXIT_OK


def cmd_apply(args: argparse.Namespace) -> int:
    from .control import apply_yaml  # lazy: start-up

    res = apply_yaml(args.store, args.model, _yaml_path(args), args.reason)
    st = res["state"]
    if st["yaml"] is None:
        print(
            f"faircode: discarded the store override of {st['model']} (audit row "
            f"{res['audit']['id']}); {st['yaml_note']}, so no registry is in force for it "
            "now: report, gate, slo ingest and watch refuse it until it is declared there "
            "or set again with 'faircode fairness config'",
            file=sys.stderr,
        )
        return EXIT_OK
    what = "discarded the store override" if st["store"] is not None else "no override existed"
    print(
        f"faircode: {st['yaml_path']} is authoritative for {st['model']} ({what}; audit row "
        f"{res['audit']['id']})",
        file=sys.stderr,
    )
    return EXIT_OK


# -- reports --------------------------------------------------------------------
# `report`, `slice` and `gate` are the Python API's functions (faircode/monitor/api.py),
# rendered: one code path for both (SPEC 15.9).
def _window(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "store": args.store,
        "registry": args.registry,
        "version": args.version,
        "since": args.since,
        "until": args.until,
    }


def cmd_report(args: argparse.Namespace) -> int:
    from .api import fairness_report  # lazy: start-up

    report = fairness_report(
        args.model,
        **_window(args),
        target=args.target,
        intersect=args.intersect,
        bucket=args.bucket,
    )
    sys.stdout.write(report.report("json" if args.json else _form(args)))
    return EXIT_OK


def _form(args: argparse.Namespace) -> str:
    return "markdown" if args.markdown else "text"


def cmd_slice(args: argparse.Namespace) -> int:
    from .api import slice_metrics  # lazy: start-up

    res = slice_metrics(args.model, args.attr, **_window(args))
    sys.stdout.write(res.render("json" if args.json else _form(args)))
    return EXIT_OK


def cmd_gate(args: argparse.Namespace) -> int:
    from .api import fairness_gate  # lazy: start-up

    res = fairness_gate(
        args.model,
        store=args.store,
        registry=args.registry,
        version=args.version,
        force=args.force,
        reason=args.reason,
    )
    if args.json:
        sys.stdout.write(res.render("json"))
    sys.stderr.write(res.render("text"))
    return res.exit_code


# -- SLOs and alerts (SPEC 15.10, 15.11): the API's functions, rendered -------------------
def _check_batch_file(args: argparse.Namespace) -> None:
    from .ingest import existing_file  # lazy: start-up (pandas)

    existing_file(args.file)


def _check_slo_args(args: argparse.Namespace) -> None:
    from .slo import check_slo  # lazy: start-up

    check_slo(args.name, args.target, args.window)


def cmd_slo_set(args: argparse.Namespace) -> int:
    from .api import slo_set  # lazy: start-up

    res = slo_set(
        args.model,
        args.name,
        target=args.target,
        window=args.window,
        gate=args.gate,
        reason=args.reason,
        store=args.store,
    )
    print(
        f"faircode: SLO {res['name']} of {res['model']}: target {res['target']:g} over "
        f"{res['window_days']} days, {'gates' if res['gate'] else 'advisory'} (audit row "
        f"{res['audit_id']})",
        file=sys.stderr,
    )
    if args.json:
        print(json.dumps(res))
    return EXIT_OK


def cmd_slo_show(args: argparse.Namespace) -> int:
    from .api import slo_show  # lazy: start-up
    from .slo import budget_line, reading_line  # lazy: start-up

    state = slo_show(args.model, at=args.at, store=args.store)
    if args.json:
        _write_json(state)
        return EXIT_OK
    lines = [f"model {state['model']}: SLOs at {state['at']}"]
    for s in state["slos"]:
        lines.append(budget_line(s))
        if s["latest"] is not None:
            lines.append(f"  latest reading: {reading_line(s['latest'])}")
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


def cmd_slo_ingest(args: argparse.Namespace) -> int:
    from .api import slo_ingest  # lazy: start-up
    from .slo import reading_line  # lazy: start-up

    readings = slo_ingest(
        args.model,
        name=args.name,
        at=args.at,
        version=args.version,
        store=args.store,
        registry=args.registry,
    )
    for r in readings:
        again = ", ".join(map(str, r["replaces"]))
        same = f"taken for the same day, {r['day']}" if r["day"] else "taken at the same time"
        again = f" (replaces reading {again}, {same})" if again else ""
        print(
            f"faircode: SLO {r['slo']} reading {r['id']}{again}: {reading_line(r)}",
            file=sys.stderr,
        )
    if args.json:
        _write_json(readings)
    return EXIT_OK


def cmd_slo_gate(args: argparse.Namespace) -> int:
    from .api import slo_gate  # lazy: start-up

    res = slo_gate(args.model, name=args.name, at=args.at, store=args.store)
    if args.json:
        sys.stdout.write(res.render("json"))
    sys.stderr.write(res.render("text"))
    return res.exit_code


def cmd_watch(args: argparse.Namespace) -> int:
    from .alerts import alert_line  # lazy: start-up
    from .api import fairness_watch  # lazy: start-up

    # `--out -` delivers to stdout; with neither --out nor --webhook stdout is a preview
    # that records nothing, so a later watch's notifier still gets the breaches
    out = sys.stdout if args.out == "-" or (args.out is None and args.webhook) else args.out
    res = fairness_watch(
        args.model, **_window(args), out=out, webhook=args.webhook, timeout=args.timeout
    )
    err = sys.stderr
    if res["empty_window"]:
        print(
            f"faircode: watch {res['model']} version {res['version']}: no predictions in the "
            f"window ({res['empty_window']}): nothing to judge, no alert sent or cleared",
            file=err,
        )
    open_text = f"{len(res['still_open'])} breach(es) still open (alerted before, not sent again)"
    if res["preview"]:
        for alert in res["unsent"]:
            sys.stdout.write(alert_line(alert) + "\n")
        print(
            f"faircode: watch {res['model']} version {res['version']}: preview, nothing "
            f"recorded: {len(res['unsent'])} new breach(es) printed to stdout and not "
            f"recorded as sent; {open_text}; give --webhook URL, --out FILE or --out - "
            "(stdout) to deliver and record them",
            file=err,
        )
    else:
        where = "stdout" if out is sys.stdout else args.out
        hook = " and the webhook" if args.webhook else ""
        print(
            f"faircode: watch {res['model']} version {res['version']}: {len(res['sent'])} "
            f"new alert(s) sent to {where}{hook}; {open_text}; {len(res['cleared'])} cleared"
            + (f" (and {len(res['retired'])} of superseded versions)" if res["retired"] else ""),
            file=err,
        )
    for c in res["cleared"]:
        print(
            f"faircode: watch: cleared {c['attribute']}: {c['metric']} is within threshold "
            f"again (audit row {c['audit_id']})",
            file=err,
        )
    for r in res["retired"]:
        print(
            f"faircode: watch: cleared version {r['version']}'s {r['attribute']}: "
            f"{r['metric']} (alerted in audit row {r['first_alert_row']}): version "
            f"{res['version']} superseded it, logged after its last predictions (audit row "
            f"{r['audit_id']})",
            file=err,
        )
    for u in res["undecided"]:
        print(
            f"faircode: watch: still open {u['attribute']}: {u['metric']} is "
            f"{u['status'].replace('_', ' ')} now, neither exceeded nor within threshold "
            f"(alerted in audit row {u['first_alert_row']}; not cleared)",
            file=err,
        )
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    from . import audit  # lazy: start-up
    from .store import model_key  # lazy: start-up

    printing_head = args.head == ""
    expected = audit.parse_head(args.head) if args.head else None
    verify = args.verify or args.head is not None
    if args.model is None and not verify:
        raise MonitorInputError(
            "name a MODEL to list its audit events, or pass --verify or --head for the whole chain"
        )
    chain = audit.entries(args.store) if verify else []
    problems = audit.verify(args.store, chain) if verify else []
    if expected is not None:
        problems += audit.verify_head(chain, *expected)
    rows = (
        audit.entries(args.store, model_key(args.model))
        if args.model is not None and not printing_head
        else []
    )
    n, digest = audit.head(chain)
    if args.json:
        print(
            json.dumps(
                {
                    "model": args.model,
                    "entries": rows,
                    "verified": (not problems) if verify else None,
                    "problems": problems,
                    "head": {"rows": n, "hash": digest}
                    if verify and not (printing_head and problems)
                    else None,
                },
                indent=2,
            )
        )
    elif printing_head:
        if not problems:
            print(f"{n}:{digest}")
    else:
        for e in rows:
            d = e["details"] if isinstance(e["details"], dict) else {}
            extra = []
            if e["version"]:
                extra.append(f"version {e['version']}")
            if d.get("status"):
                extra.append(f"status {d['status']}")
            if d.get("advisory"):
                extra.append("advisory: gate false")
            if d.get("would_exit") is not None:
                extra.append(f"overrode exit {d['would_exit']}")
            if d.get("batch") is not None:
                extra.append(f"batch {d['batch']}")
            if d.get("reason"):
                extra.append(f"reason: {d['reason']}")
            print(
                f"{e['id']:>5}  {e['at']}  {e['actor']}  {e['event']}"
                + (f"  ({'; '.join(extra)})" if extra else "")
            )
        if args.model is not None and not rows:
            print(f"(no audit entries for {args.model})")
    if verify:
        if problems:
            for p in problems:
                print(f"faircode: audit: BROKEN {p}", file=sys.stderr)
            what = "no head printed; " if printing_head else ""
            print(
                f"faircode: audit: verification FAILED ({what}{len(problems)} problem(s))",
                file=sys.stderr,
            )
            return 1
        against = ""
        if expected is not None and expected[0]:
            added = n - expected[0]
            against = f"; row {expected[0]} matches the head, {added} row(s) added since"
        print(
            f"faircode: audit: chain verified ({n} rows, every hash matches{against})",
            file=sys.stderr,
        )
    return EXIT_OK


def add_store_commands(sub: Any) -> None:
    """Register the store, registry and gate subcommands under ``faircode fairness``."""
    p = sub.add_parser("log", help="log a batch of predictions to the store")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("file", metavar="FILE", help="predictions: CSV, Parquet or JSON lines")
    p.add_argument("--encoding", metavar="NAME", help=FAIRNESS_ENCODING_HELP)
    p.add_argument("--version", required=True, help="model version that made the predictions")
    p.add_argument("--id", required=True, metavar="COL", help=_ID_HELP)
    p.add_argument("--pred", metavar="COL", help="prediction column")
    p.add_argument("--score", metavar="COL", help="score column (with --decision-threshold)")
    p.add_argument("--decision-threshold", type=float, metavar="T", help="prediction = score >= T")
    p.add_argument(
        "--attr",
        action="append",
        required=True,
        metavar="COL",
        help="attribute to slice by (repeatable)",
    )
    p.add_argument("--at", metavar="COL", help="prediction time column (default: now)")
    p.add_argument(
        "--weight",
        metavar="COL",
        help="sample (survey) weight column, as evaluate's: the model's reports are weighted "
        "(every batch of a model has weights, or none does)",
    )
    p.add_argument("--json", action="store_true", help=_BATCH_JSON_HELP)
    _store_options(p)
    p.set_defaults(func=_run(cmd_log, create=True, before=_check_batch_file))

    p = sub.add_parser("label", help="log ground-truth labels, joined by request id")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("file", metavar="FILE", help="labels: CSV, Parquet or JSON lines")
    p.add_argument("--encoding", metavar="NAME", help=FAIRNESS_ENCODING_HELP)
    p.add_argument("--id", required=True, metavar="COL", help=_ID_HELP)
    p.add_argument("--label", required=True, metavar="COL", help="label column")
    p.add_argument("--json", action="store_true", help=_BATCH_JSON_HELP)
    _store_options(p)
    p.set_defaults(func=_run(cmd_label, create=True, before=_check_batch_file))

    p = sub.add_parser("remove-batch", help="remove a bad batch of predictions or labels (audited)")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("batch", metavar="BATCH", type=int, help="the batch id (log and label print it)")
    p.add_argument("--reason", required=True, metavar="TEXT", help=_REASON_HELP)
    p.add_argument("--json", action="store_true", help="print what was removed as JSON")
    _store_options(p, registry=False)
    p.set_defaults(func=_run(cmd_remove_batch))

    p = sub.add_parser(
        "validate", help="check fairness.yaml or a model file's fairness: block strictly (for CI)"
    )
    p.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        help="registry, or a model's own YAML (default $FAIRCODE_REGISTRY, else fairness.yaml)",
    )
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("config", help="set a runtime registry override (audited)")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--attr", action="append", metavar="COL", help="slice attribute (repeatable)")
    p.add_argument("--threshold", type=float, help="largest allowed disparity")
    p.add_argument("--min-samples", type=int, help="low-n guard")
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--gate", dest="gate", action="store_true", default=None, help="the gate blocks promotion"
    )
    g.add_argument("--no-gate", dest="gate", action="store_false", help="advisory only")
    e = p.add_mutually_exclusive_group()
    e.add_argument("--enable", dest="enabled", action="store_true", default=None)
    e.add_argument(
        "--disable", dest="enabled", action="store_false", help="turn the model's fairness gate off"
    )
    p.add_argument("--task", choices=("binary", "regression"))
    p.add_argument("--rule", choices=FAIRNESS_RULES, help="how the gate decides: interval or point")
    settable = [a for a in p._actions if a.option_strings and a.dest != "help"]
    p.add_argument("--reason", metavar="TEXT", help=_REASON_HELP + "; required")
    _store_options(p)
    p.set_defaults(func=_run(cmd_config, create=True, before=_needs_a_setting(p, settable)))

    p = sub.add_parser("show", help="the registry in force, its source and any drift")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--json", action="store_true")
    _store_options(p)
    p.set_defaults(func=_run(cmd_show))

    p = sub.add_parser("apply", help="make fairness.yaml authoritative again (audited)")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--reason", metavar="TEXT", help=_REASON_HELP + "; required")
    _store_options(p)
    p.set_defaults(func=_run(cmd_apply, create=True, before=_needs_a_reason("apply")))

    p = sub.add_parser("slice", help="per-slice performance of one attribute from the store")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("attr", metavar="ATTR")
    _window_options(p)
    _output_options(p)
    _store_options(p)
    p.set_defaults(func=_run(cmd_slice))

    p = sub.add_parser("report", help="fairness report over time from the store")
    p.add_argument("model", metavar="MODEL")
    _window_options(p)
    p.add_argument("--target", type=float, help="SLO target (e.g. 0.99): error budget left")
    p.add_argument("--intersect", action="store_true", help="also every attribute combination")
    p.add_argument(
        "--bucket",
        default="day",
        metavar="day|week|month|N-rows",
        help="the trend's buckets: UTC days (default), ISO weeks, calendar months, or N "
        "predictions in time order (e.g. 500-rows)",
    )
    _output_options(p)
    _store_options(p)
    p.set_defaults(func=_run(cmd_report))

    p = sub.add_parser("gate", help=f"judge one version's predictions ({GATE_EXITS})")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--version", required=True, help="the version to promote")
    p.add_argument("--force", action="store_true", help="pass anyway (needs --reason; audited)")
    p.add_argument("--reason", metavar="TEXT")
    p.add_argument("--json", action="store_true", help="print the decision and report")
    _store_options(p)
    p.set_defaults(func=_run(cmd_gate))

    _add_slo_commands(sub)

    p = sub.add_parser(
        "watch",
        help="one JSON line per new breach (stdout, --out, --webhook); sent once until cleared",
    )
    p.add_argument("model", metavar="MODEL")
    _window_options(p)
    p.add_argument(
        "--out",
        metavar="FILE",
        help="append the alert lines to FILE, or '-': stdout (without --out or --webhook: "
        "a preview on stdout, nothing recorded)",
    )
    p.add_argument("--webhook", metavar="URL", help="POST each alert line to URL (JSON)")
    p.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long the webhook may take to answer (default 10)",
    )
    _store_options(p)
    p.set_defaults(func=_run(cmd_watch))

    p = sub.add_parser(
        "audit",
        help="the audit log of a model; --verify checks the chain, --head anchors it",
    )
    p.add_argument("model", metavar="MODEL", nargs="?", help="list this model's events")
    p.add_argument(
        "--verify",
        action="store_true",
        help="verify the whole hash chain and that the store's state has its audit rows",
    )
    p.add_argument(
        "--head",
        nargs="?",
        const="",
        metavar="ROWS:HASH|FILE",
        help="alone: verify, then print the chain's head (row count and last hash) to keep "
        "outside the store; with a head printed earlier: verify against it",
    )
    p.add_argument("--json", action="store_true")
    _store_options(p, registry=False)
    p.set_defaults(func=_run(cmd_audit))


def _add_slo_commands(sub: Any) -> None:
    """``faircode fairness slo set | show | ingest | gate`` (SPEC 15.10)."""
    slo = sub.add_parser("slo", help="service-level objectives: set, show, ingest readings, gate")
    ssub = slo.add_subparsers(dest="slo_command", metavar="COMMAND", parser_class=Parser)
    ssub.required = True
    at_help = "the time (ISO-8601, or a date: its end; default now)"

    p = ssub.add_parser("set", help="create or replace an SLO (audited)")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("name", metavar="NAME")
    p.add_argument(
        "--target",
        type=float,
        required=True,
        help="fraction in (0, 1] of measurable declared attributes within threshold",
    )
    p.add_argument("--window", default="28d", help="readings counted: 28d, 4w (default 28d)")
    p.add_argument(
        "--gate",
        action="store_true",
        help="'slo gate' exits 6 when the budget is spent (default: it only warns)",
    )
    p.add_argument("--reason", metavar="TEXT", help=_REASON_HELP)
    p.add_argument("--json", action="store_true", help="print the SLO as JSON")
    _store_options(p, registry=False)
    p.set_defaults(func=_run(cmd_slo_set, create=True, before=_check_slo_args))

    p = ssub.add_parser("show", help="the model's SLOs, their error budgets and latest readings")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--at", metavar="WHEN", help=f"judge the budgets at {at_help}")
    p.add_argument("--json", action="store_true")
    _store_options(p, registry=False)
    p.set_defaults(func=_run(cmd_slo_show))

    p = ssub.add_parser("ingest", help="record each SLO's SLI over its window in the store")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--name", metavar="NAME", help=_ONLY_SLO_HELP)
    p.add_argument("--at", metavar="WHEN", help=f"the reading's time: {at_help}")
    p.add_argument("--version", help=_VERSION_HELP)
    p.add_argument("--json", action="store_true", help="print the readings as JSON")
    _store_options(p)
    p.set_defaults(func=_run(cmd_slo_ingest))

    p = ssub.add_parser(
        "gate", help="exit 6 when a gating SLO's budget is spent, 3 unmeasured (audited)"
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--name", metavar="NAME", help=_ONLY_SLO_HELP)
    p.add_argument("--at", metavar="WHEN", help=f"judge the budgets at {at_help}")
    p.add_argument("--json", action="store_true", help="print the decision and budgets")
    _store_options(p, registry=False)
    p.set_defaults(func=_run(cmd_slo_gate))
