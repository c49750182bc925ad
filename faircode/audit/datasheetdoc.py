"""The datasheet pack's reports (SPEC 20.2): text, Markdown and HTML through
:mod:`faircode.audit.doc`, as :data:`faircode.renderers.RENDERERS` names them. Apart from
the module that builds the pack, so that a result finding its renderer never imports the
builder back (tests/surfaces/test_imports.py)."""

from __future__ import annotations

from .doc import pack_renderers
from .measured import cell_text

WHO = {
    "data": "Answered from the data.",
    "data_and_author": "Pre-filled from the data; the author completes it.",
    "author": "For the author: the data cannot answer it.",
}


def blocks(r: dict) -> list[tuple]:
    s = r["summary"]
    prov = r.get("provenance") or {}
    out: list[tuple] = [
        ("title", f"{r['title']}: {s['file']}"),
        (
            "p",
            f"Answers to the questions of {r['source']}, pre-filled by {s['tool']} on "
            f"{s['audit_date']} from the data's profile. A question the data cannot answer "
            "is marked for the author and left blank.",
        ),
        (
            "facts",
            [
                ("Data file", s["file"]),
                ("Date", s["audit_date"]),
                ("Tool", s["tool"]),
                (
                    "Dataset SHA-256",
                    prov.get("dataset_hash") or prov.get("dataset_hash_note") or "-",
                ),
            ],
        ),
    ]
    for i, a in enumerate(r["answers"], 1):
        out.append(("h2", f"{i}. {a['question']}"))
        out.append(("p", WHO[a["answered_by"]]))
        if a["answer"]:
            out.append(("p", a["answer"]))
        for t in a["tables"]:
            out.append(
                (
                    "table",
                    t["head"],
                    "".join("r" if f != "text" else "l" for f in t["forms"]),
                    [[cell_text(c, f) for c, f in zip(row, t["forms"])] for row in t["rows"]],
                )
            )
        if a["to_fill"]:
            out.append(("mark", f"Author: {a['to_fill']}."))
    return out


render_text, render_markdown, render_html = pack_renderers(blocks)
