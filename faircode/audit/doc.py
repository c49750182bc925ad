"""One document, three renderings: the audit packs' text, Markdown and HTML (SPEC 20).

A pack builds its document once as a list of blocks and each format draws the same
blocks, so the three say the same numbers in the same order:

- ``("title", text)`` and ``("h2", text)``, ``("h3", text)``: headings;
- ``("p", text)``: a paragraph; ``("mark", text)``: a paragraph set apart (a statement
  the reader must notice: beyond the law's table, to be filled by the author);
- ``("facts", [(name, value), ...])``: a two-column list of facts;
- ``("table", head, align, rows)``: ``align`` one letter per column, ``l`` or ``r``;
- ``("list", [text, ...])``: bullets; ``("checklist", [text, ...])``: boxes to tick;
- ``("pre", [line, ...])``: lines to copy as they are (a command, a YAML snippet);
- ``("break",)``: a page break in print (nothing in text and Markdown).

Every text from the data is made inert by the renderer (``shown`` for text,
``md_escape`` for Markdown, ``html.escape`` for HTML); blocks hold plain strings.

The HTML page loads nothing: its one ``<style>`` is allowed by its SHA-256 in the
page's Content-Security-Policy (``default-src 'none'``), it has no script, no font,
no image; it prints on A4 or US letter with the tables kept whole where they fit.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Callable, Sequence
from typing import Any

from ..safetext import md_escape, shown

Block = tuple

#: The page's style (its SHA-256 is in the page's policy).
CSS = """
:root { color-scheme: light; }
body { font: 10pt/1.35 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  color: #111; background: #fff; max-width: 60em; margin: 1.5em auto; padding: 0 1em; }
h1 { font-size: 1.45em; margin: 0 0 .4em; }
h2 { font-size: 1.15em; margin: 1.1em 0 .35em; border-bottom: 1px solid #bbb; }
h3 { font-size: 1em; margin: .9em 0 .3em; }
p { margin: .35em 0; }
p.mark { border-left: 4px solid #8a5a00; background: #fff7e6; padding: .3em .6em; }
table { border-collapse: collapse; margin: .3em 0 .6em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #bbb; padding: .15em .5em; vertical-align: top; }
th { background: #eee; text-align: left; }
td.r, th.r { text-align: right; }
td.r { white-space: nowrap; }
table.facts th { background: none; font-weight: 600; width: 14em; }
ul { margin: .3em 0 .6em 1.2em; padding: 0; }
ul.check { list-style: none; margin-left: 0; }
ul.check li::before { content: "\\2610\\00a0"; }
.break { break-before: page; }
@page { size: auto; margin: 12mm; }
@media print {
  body { margin: 0; max-width: none; font-size: 8pt; line-height: 1.2; }
  h1 { font-size: 1.3em; } h2 { margin-top: .7em; } p { margin: .2em 0; }
  th, td { padding: .05em .4em; }
  table, p.mark { break-inside: avoid; margin: .2em 0 .4em; }
  h2, h3 { break-after: avoid; }
}
""".strip()


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


# ---- text -----------------------------------------------------------------------------


def _text_table(head: Sequence[str], align: str, rows: Sequence[Sequence[Any]]) -> list[str]:
    cells = [[shown(c) for c in head]] + [[shown(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]

    def line(r: list[str]) -> str:
        parts = [c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(r, widths, align)]
        return ("  " + "  ".join(parts)).rstrip()

    out = [line(cells[0]), "  " + "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return out


def render_text(blocks: list[Block]) -> str:
    """The document as plain text for a terminal."""
    out: list[str] = []
    for b in blocks:
        kind = b[0]
        if kind == "break":
            continue
        if out and kind != "table":
            out.append("")
        elif out and kind == "table" and out[-1] != "":
            out.append("")
        if kind == "title":
            out += [shown(b[1]), "=" * min(78, len(shown(b[1])))]
        elif kind == "h2":
            out += [shown(b[1]), "-" * min(78, len(shown(b[1])))]
        elif kind == "h3":
            out.append(shown(b[1]) + ":")
        elif kind == "p":
            out.append(shown(b[1]))
        elif kind == "mark":
            out.append("! " + shown(b[1]))
        elif kind == "facts":
            width = max(len(shown(k)) for k, _ in b[1])
            out += [f"  {shown(k).ljust(width)}  {shown(v)}" for k, v in b[1]]
        elif kind == "table":
            out += _text_table(b[1], b[2], b[3])
        elif kind == "list":
            out += [f"  - {shown(t)}" for t in b[1]]
        elif kind == "checklist":
            out += [f"  [ ] {shown(t)}" for t in b[1]]
        elif kind == "pre":
            out += [f"    {shown(t)}" for t in b[1]]
        else:  # pragma: no cover - a pack's own mistake
            raise ValueError(f"unknown block {kind!r}")
    return "\n".join(out) + "\n"


# ---- Markdown -------------------------------------------------------------------------


def _md_row(cells: Sequence[Any]) -> str:
    return "| " + " | ".join(md_escape(c) for c in cells) + " |"


def render_markdown(blocks: list[Block]) -> str:
    """The document as GitHub-flavoured Markdown (every data text escaped)."""
    out: list[str] = []
    for b in blocks:
        kind = b[0]
        if kind == "break":
            continue
        if out:
            out.append("")
        if kind == "title":
            out.append("# " + md_escape(b[1]))
        elif kind == "h2":
            out.append("## " + md_escape(b[1]))
        elif kind == "h3":
            out.append("### " + md_escape(b[1]))
        elif kind == "p":
            out.append(md_escape(b[1]))
        elif kind == "mark":
            out.append("> **" + md_escape(b[1]) + "**")
        elif kind == "facts":
            out += ["| | |", "|---|---|"]
            out += [f"| **{md_escape(k)}** | {md_escape(v)} |" for k, v in b[1]]
        elif kind == "table":
            head, align, rows = b[1], b[2], b[3]
            out.append(_md_row(head))
            out.append("|" + "|".join("---:" if a == "r" else "---" for a in align) + "|")
            out += [_md_row(r) for r in rows]
        elif kind == "list":
            out += [f"- {md_escape(t)}" for t in b[1]]
        elif kind == "checklist":
            out += [f"- [ ] {md_escape(t)}" for t in b[1]]
        elif kind == "pre":  # an indented code block: Markdown shows it as it is
            out += [f"    {shown(t)}" for t in b[1]]
        else:  # pragma: no cover
            raise ValueError(f"unknown block {kind!r}")
    return "\n".join(out) + "\n"


# ---- HTML -----------------------------------------------------------------------------


def _e(text: Any) -> str:
    return html.escape(shown(text), quote=True)


def render_html(blocks: list[Block], title: str) -> str:
    """The document as one self-contained, printable HTML page that loads nothing."""
    csp = f"default-src 'none'; style-src {_csp_hash(CSS)}; base-uri 'none'; form-action 'none'"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(csp, quote=True)}">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{_e(title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
    ]
    pending_break = False
    for b in blocks:
        kind = b[0]
        cls = ' class="break"' if pending_break else ""
        pending_break = False
        if kind == "break":
            pending_break = True
        elif kind == "title":
            out.append(f"<h1{cls}>{_e(b[1])}</h1>")
        elif kind == "h2":
            out.append(f"<h2{cls}>{_e(b[1])}</h2>")
        elif kind == "h3":
            out.append(f"<h3{cls}>{_e(b[1])}</h3>")
        elif kind == "p":
            out.append(f"<p{cls}>{_e(b[1])}</p>")
        elif kind == "mark":
            out.append(f'<p class="mark">{_e(b[1])}</p>')
        elif kind == "facts":
            rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in b[1])
            out.append(f'<table class="facts">{rows}</table>')
        elif kind == "table":
            head, align, rows = b[1], b[2], b[3]
            ths = "".join(
                f'<th class="{a}">{_e(h)}</th>' if a == "r" else f"<th>{_e(h)}</th>"
                for h, a in zip(head, align)
            )
            body = []
            for r in rows:
                tds = "".join(
                    f'<td class="{a}">{_e(c)}</td>' if a == "r" else f"<td>{_e(c)}</td>"
                    for c, a in zip(r, align)
                )
                body.append(f"<tr>{tds}</tr>")
            out.append(
                f"<table><thead><tr>{ths}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            )
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{_e(t)}</li>" for t in b[1]) + "</ul>")
        elif kind == "checklist":
            out.append('<ul class="check">' + "".join(f"<li>{_e(t)}</li>" for t in b[1]) + "</ul>")
        elif kind == "pre":
            out.append("<pre>" + "\n".join(_e(t) for t in b[1]) + "</pre>")
        else:  # pragma: no cover
            raise ValueError(f"unknown block {kind!r}")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def pack_renderers(blocks_of: Callable[[dict], list[Block]]) -> tuple[Callable[..., str], ...]:
    """The text, Markdown and HTML renderers (the registry's ``result -> str``) of a pack
    whose document is ``blocks_of(result)``; the page is titled by its title and file."""

    def text(result: dict, **_: Any) -> str:
        return render_text(blocks_of(result))

    def markdown(result: dict, **_: Any) -> str:
        return render_markdown(blocks_of(result))

    def page(result: dict, **_: Any) -> str:
        return render_html(blocks_of(result), f"{result['title']}: {result['summary']['file']}")

    return text, markdown, page
