"""The renderer registry: every command's output formats (SPEC 6.1).

:data:`RENDERERS` maps a command (``profile``, ``compare``, ``scan``, the audit packs,
``fairness evaluate``) to its output formats, each named ``"module:function"`` with
``function(result, **context) -> str``, imported only when used; the CLI's
``--format`` choices are its keys (:func:`faircode.cliutil.add_format_options`), so a
new format of a command is one entry here. This module imports no renderer: a result
(:mod:`faircode.results`) and the CLIs look a renderer up here without loading the
others.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .errors import InputError
from .safetext import bounded

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "BOUNDED",
    "EXPORTS",
    "EXPORT_WHAT",
    "FORMATS",
    "FORMAT_ALIASES",
    "RENDERERS",
    "formats_of",
    "render_as",
    "renderer",
]

#: Every output format, in the order `--help` lists them.
FORMATS = ("text", "json", "markdown", "csv", "html")
#: The flags that stand for a format (kept from before --format existed).
FORMAT_ALIASES = {
    "json": ("--json", "print the result as JSON"),
}
#: The export flags, `--markdown [PATH|-]` and `--csv [PATH|-]` (SPEC 6.1): write the
#: format to PATH and still print the usual report; `-` (or no PATH) prints it instead.
EXPORTS = {
    "markdown": ("--markdown", "the Markdown report (a PR comment, $GITHUB_STEP_SUMMARY)"),
    "csv": ("--csv", "the result as one flat CSV table"),
}
EXPORT_WHAT = {"markdown": "the Markdown report", "csv": "the CSV table"}

Renderer = Callable[..., str]

RENDERERS: dict[str, dict[str, str]] = {
    "profile": {
        "text": "faircode.render:profile_text",
        "json": "faircode.render:to_json",
        "markdown": "faircode.exports:render_profile_markdown",
        "csv": "faircode.exports:render_profile_csv",
        "html": "faircode.htmlreport:render_profile_html",
    },
    "compare": {
        "text": "faircode.render:compare_text",
        "json": "faircode.render:to_json",
        "markdown": "faircode.exports:render_compare_markdown",
        "csv": "faircode.exports:render_compare_csv",
        "html": "faircode.htmlreport:render_compare_html",
    },
    "scan": {
        "text": "faircode.scanreport:render_text",
        "json": "faircode.render:to_json",
        "markdown": "faircode.scanreport:render_markdown",
        "html": "faircode.scanreport:render_html",
    },
    "audit ll144": {
        "text": "faircode.audit.ll144doc:render_text",
        "json": "faircode.render:to_json",
        "markdown": "faircode.audit.ll144doc:render_markdown",
        "csv": "faircode.audit.ll144doc:render_csv",
        "html": "faircode.audit.ll144doc:render_html",
    },
    "audit datasheet": {
        "text": "faircode.audit.datasheetdoc:render_text",
        "json": "faircode.render:to_json",
        "markdown": "faircode.audit.datasheetdoc:render_markdown",
        "csv": "faircode.audit.measured:render_measures_csv",
        "html": "faircode.audit.datasheetdoc:render_html",
    },
    "audit art10": {
        "text": "faircode.audit.art10doc:render_text",
        "json": "faircode.render:to_json",
        "markdown": "faircode.audit.art10doc:render_markdown",
        "csv": "faircode.audit.measured:render_measures_csv",
        "html": "faircode.audit.art10doc:render_html",
    },
    "fairness evaluate": {
        "text": "faircode.monitor.render:render_text",
        "json": "faircode.monitor.render:render_json",
        "markdown": "faircode.monitor.render:render_markdown",
        "csv": "faircode.monitor.render:render_csv",
        "html": "faircode.monitor.render:render_html",
    },
}


def formats_of(command: str) -> tuple[str, ...]:
    """The formats ``command`` renders, in :data:`FORMATS` order."""
    return tuple(f for f in FORMATS if f in RENDERERS[command])


def renderer(command: str, form: str) -> Renderer:
    """The render function of ``command`` in format ``form``; InputError naming the
    formats for any other ``form`` (``ProfileResult.report("pdf")``)."""
    if not isinstance(form, str) or form not in RENDERERS[command]:
        raise InputError(
            f"report: {form!r} is not a format of {command} ({', '.join(formats_of(command))})"
        )
    module, _, attr = RENDERERS[command][form].partition(":")
    fn: Callable[..., str] = getattr(importlib.import_module(module), attr)
    # the context keywords (name, name_a, ...) the function takes: its keyword-only
    # parameters, read from its code (importing inspect costs the CLI's start-up)
    code = fn.__code__
    first = code.co_argcount
    takes = set(code.co_varnames[first : first + code.co_kwonlyargcount])

    def entry(result: Any, **context: Any) -> str:
        return fn(result, **{k: v for k, v in context.items() if k in takes})

    return entry


#: The commands whose outputs show labels from the data, capped in length (SPEC 0.9).
BOUNDED = ("profile", "compare")


def render_as(command: str, form: str, result: Any, **context: Any) -> str:
    """``result`` rendered by ``command``'s renderer for ``form``; a profile's or a
    comparison's labels and names longer than LABEL_SHOWN are capped first (SPEC 0.9),
    in every format (text, JSON, Markdown, CSV, HTML, and the MCP replies)."""
    if command in BOUNDED:
        result = bounded(result)
    return renderer(command, form)(result, **context)
