"""Proxy hints (SPEC.md section 16): the public API.

`proxy_hints(source)` is the block `faircode profile --proxy-hints` adds. The block is
computed by :mod:`faircode.proxy_stats` (the tests, scipy), shown by
:mod:`faircode.proxy_render` (the terminal's tables); their public names are importable
from here too (the flags come from the option table, faircode.options.OPTIONS).
Nothing inside faircode imports this module but the MCP tools (it sits above the
profiler: it calls `profile`).
"""

from __future__ import annotations

from .options import Options, resolve
from .profiler import profile
from .proxy_render import compare_lines, heading, report_lines
from .proxy_stats import adjust, anova_test, chi2_test, hints_block, p_text, round_p

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "adjust",
    "anova_test",
    "chi2_test",
    "compare_lines",
    "heading",
    "hints_block",
    "p_text",
    "proxy_hints",
    "report_lines",
    "round_p",
]


def proxy_hints(
    source: Any,
    overrides: dict[str, str] | None = None,
    opts: dict | Options | None = None,
    **kwargs: Any,
) -> dict:
    """The SPEC 16 block of a source (what `faircode profile --proxy-hints` adds):
    profile(source) with proxy_hints on; `kwargs` as for profile (engine, name, ...)."""
    options = resolve(opts)._replace(proxy_hints=True) if isinstance(opts, Options) else None
    if options is None:
        options = resolve({**(opts or {}), "proxy_hints": True})
    return profile(source, overrides=overrides, opts=options, **kwargs)["proxy_hints"]
