"""The EU AI Act Article 10 pack's reports (SPEC 20.3): text, Markdown and HTML through
:mod:`faircode.audit.doc`, as :data:`faircode.renderers.RENDERERS` names them. Apart from
the module that builds the pack, so that a result finding its renderer never imports the
builder back (tests/surfaces/test_imports.py)."""

from __future__ import annotations

from typing import Any

from ..numerics import fmt
from .doc import pack_renderers
from .measured import cell_text


def blocks(r: dict) -> list[tuple]:
    s = r["summary"]
    prov = r.get("provenance") or {}
    split = f"the {s['split']} set" if s["split"] else "a data set (give --split)"
    out: list[tuple] = [
        ("title", r["title"]),
        (
            "p",
            f"{r['regulation']}: faircode's measurements of {split}, mapped to the points "
            "of Article 10 they bear on. Evidence for the provider's own assessment; not a "
            "statement of conformity, not legal advice. What a tool cannot measure is "
            "listed at the end for the provider to complete.",
        ),
        (
            "facts",
            [
                ("Data file", s["file"]),
                ("Set", s["split"] or "not stated (give --split)"),
                ("Date", s["audit_date"]),
                ("Tool", s["tool"]),
                (
                    "Dataset SHA-256",
                    prov.get("dataset_hash") or prov.get("dataset_hash_note") or "-",
                ),
                ("Reference SHA-256", prov.get("reference_hash") or "-"),
            ],
        ),
    ]
    for sec in r["sections"]:
        how = "measured" if sec["measured"] else "not measured"
        out.append(("h2", f"Article {sec['article']}: {sec['heading']} ({how})"))
        if sec["text"]:
            out.append(("p", sec["text"]))
        for part in sec["parts"]:
            out.append(("h3", part["title"]))
            if part["text"]:
                out.append(("p", part["text"]))
            for t in part["tables"]:
                out.append(
                    (
                        "table",
                        t["head"],
                        "".join("r" if f != "text" else "l" for f in t["forms"]),
                        [[_cell(c, f) for c, f in zip(row, t["forms"])] for row in t["rows"]],
                    )
                )
    ctx = r["context"]
    out.append(("h2", f"Article {ctx['article']}: the setting (declared, not measured)"))
    if ctx["declared"]:
        out.append(("p", "As declared by the provider with --context:"))
        out.append(("list", list(ctx["declared"])))
    else:
        out.append(
            (
                "mark",
                "Not declared: give --context TEXT (the geographical, "
                "contextual, behavioural or functional setting).",
            )
        )
    out.append(("h2", "For the provider to complete (a tool cannot measure these)"))
    out.append(("mark", "Marked for the provider: faircode makes no claim on these items."))
    out.append(("checklist", [f"Article {c['article']}: {c['item']}" for c in r["checklist"]]))
    return out


def _cell(c: Any, form: str) -> str:
    if form == "number":
        v = c["value"] if isinstance(c, dict) else c
        if isinstance(v, float):
            return fmt(v, 4)
    return cell_text(c, form)


render_text, render_markdown, render_html = pack_renderers(blocks)
