"""Self-contained HTML reports of ``profile`` and ``compare`` (``--html PATH``,
``--format html``), drawn by the website's own renderer.

The page holds the site's ``views.js`` and ``style.css`` inline and the result JSON in a
``<script type="application/json">`` block; it loads nothing (no fonts, scripts or
requests of any kind). Its Content-Security-Policy allows exactly the inline script and
style it carries, by their SHA-256 hashes (not ``'unsafe-inline'``): a label that
somehow became markup could not run, and the policy is confined to this one file.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path
from typing import Any

#: The site's files the report inlines.
SITE_FILES = ("views.js", "style.css")


def site_dir() -> Path:
    """The website's folder: ``faircode/site`` in an installed package (the wheel ships
    ``site/`` there), else ``site/`` of the source tree this module runs from."""
    here = Path(__file__).resolve().parent
    shipped = here / "site"
    if (shipped / "index.html").is_file():
        return shipped
    return here.parent / "site"


def _site_text(name: str) -> str:
    return (site_dir() / name).read_text(encoding="utf-8")


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def inline_json(payload: Any) -> str:
    """JSON safe inside a ``<script>`` element: ``<`` is escaped (so no ``</script>``
    or ``<!--`` can end or alter the element), and U+2028/U+2029 too."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def report_html(kind: str, result: dict, context: dict) -> str:
    """The report page for a ``profile`` or ``compare`` ``result``."""
    views = _site_text("views.js")
    css = _site_text("style.css")
    csp = (
        f"default-src 'none'; script-src {_csp_hash(views)}; style-src {_csp_hash(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    if kind == "compare":
        title = f"faircode compare: {context.get('nameA', '')} vs {context.get('nameB', '')}"
    else:
        title = f"faircode profile: {context.get('name', '')}"
    payload = inline_json({"kind": kind, "result": result, "context": context})
    if "</script" in views.lower() or "</style" in css.lower():
        raise ValueError("a site file would end its own inline element")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(csp, quote=False)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{css}</style>\n</head>\n"
        '<body class="report">\n'
        '<main id="report"><p>This report is drawn by its own inline script, which this '
        "viewer did not run: open the file in a browser, or export the same result as "
        "Markdown (--markdown) for viewers that block scripts.</p></main>\n"
        f'<script type="application/json" id="faircode-result">{payload}</script>\n'
        f"<script>{views}</script>\n</body>\n</html>\n"
    )


def render_profile_html(result: dict, *, name: str = "", **_: Any) -> str:
    return report_html("profile", result, {"name": name})


def render_compare_html(result: dict, *, name_a: str = "", name_b: str = "", **_: Any) -> str:
    return report_html("compare", result, {"nameA": name_a, "nameB": name_b})
