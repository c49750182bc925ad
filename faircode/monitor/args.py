"""The monitor's Python API arguments (SPEC 12.1, 15.9): the profiler's rules of
:mod:`faircode.options` (SPEC 0.6), each refusal one line as a
:class:`~faircode.monitor.MonitorInputError`, never a traceback from inside.

Importable without pandas: the store's API checks its arguments before it loads
anything."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import InputError
from ..options import (
    COLUMN_HINT,
    SPELLING,
    _a,
    bool_arg,
    dict_arg,
    spelled,
    text_arg,
    text_items,
)
from .errors import MonitorInputError

Checked = TypeVar("Checked")


def add_attr(col: str, to: str = "to") -> str:
    """The advice to add (or drop) attribute ``col`` (SPEC 0.6 "Option names in
    messages"): ``--attr x`` on the command line, ``'x' to attrs`` (``to``: ``'x' from
    attrs``) on the Python API and MCP."""
    if SPELLING.get() == "flag":
        return f"--attr {col}"
    return f"{col!r} {to} {spelled('--attr')}"


def attr_once() -> str:
    """The advice for an attribute given twice (SPEC 0.6 "Option names in messages"):
    ``pass each --attr once`` on the command line (the repeatable flag), ``list each
    once in attrs`` on the Python API and MCP (one list)."""
    if SPELLING.get() == "flag":
        return "pass each --attr once"
    return f"list each once in {spelled('--attr')}"


def overrides_named() -> str:
    """How the list of ``evaluate``'s group options names the overrides: ``overrides
    for --map`` on the command line, ``overrides`` on the Python API and MCP (SPEC 0.6)."""
    if SPELLING.get() == "flag":
        return "overrides for --map"
    return spelled("--map")


def monitor_arg(check: Callable[..., Checked], *args: Any, **kwargs: Any) -> Checked:
    """``check(*args, **kwargs)``, one of the argument checks of :mod:`faircode.options`
    (``text_arg``, ``bool_arg``, ``dict_arg``, ``text_items``), its InputError raised as
    the MonitorInputError of the same line."""
    try:
        return check(*args, **kwargs)
    except InputError as exc:
        raise MonitorInputError(str(exc)) from None


def text(flag: str, value: Any, *, required: bool = False) -> str | None:
    """A text argument (a model, version or time): a str; None when not given, unless
    ``required``."""
    return None if value is None and not required else monitor_arg(text_arg, flag, value)


def switch(flag: str, value: Any) -> bool:
    """A switch (``intersect``, ``force``, ``gate``): True or False, never the text "no"."""
    return monitor_arg(bool_arg, flag, value)


def dict_of(name: str, value: Any) -> dict[str, Any]:
    """A dict argument (``opts``, ``overrides``), copied; None is {}."""
    return monitor_arg(dict_arg, name, value)


def column(flag: str, value: Any) -> str | None:
    """A column argument (``pred``, ``label``, ``score``, ``weight``): a column's name as
    a str, None when not given."""
    return None if value is None else _column_arg(text_arg, flag, value)


def columns(flag: str, value: Any) -> list[str]:
    """A list of columns (``attrs``): a list or tuple of str, or one str (one column, as
    the repeatable ``--attr`` once)."""
    return _column_arg(text_items, flag, value, commas=False)


def _column_arg(check: Callable[..., Checked], *args: Any, **kwargs: Any) -> Checked:
    """:func:`monitor_arg` for column names: a refusal says how a frame's column is named."""
    try:
        return check(*args, **kwargs)
    except InputError as exc:
        raise MonitorInputError(f"{exc}{COLUMN_HINT}") from None


def path(flag: str, value: Any, what: str) -> str:
    """A path argument: a str or an os.PathLike naming a str path, as that str; else
    ``{flag}: give {what}, not a {type}`` (bytes are no path here: a message could not
    name it as given)."""
    if isinstance(value, str | os.PathLike):
        got = os.fspath(value)
        if isinstance(got, str):
            return got
    raise MonitorInputError(f"{spelled(flag)}: give {what}, not {kind(value)}")


def kind(value: Any) -> str:
    """``an int``, ``a polars DataFrame``: what a refused value is, its package named
    unless it is built in (a message asking for a pandas DataFrame refuses another)."""
    if value is None:
        return "None"
    package = type(value).__module__.partition(".")[0]
    return _a(value) if package == "builtins" else f"a {package} {type(value).__name__}"


def text_stream_or_path(flag: str, value: Any) -> Any:
    """An output argument: None, a path, or a stream that takes str (a binary stream
    would fail at its first write, after a webhook was called)."""
    what = "a path or a text stream (open(path, 'a'), io.StringIO())"
    if value is None or not hasattr(value, "write"):
        return None if value is None else path(flag, value, what)
    if isinstance(value, io.RawIOBase | io.BufferedIOBase):
        raise MonitorInputError(f"{spelled(flag)}: the stream takes bytes; give {what}")
    return value


def plain_number(value: Any) -> Any:
    """A numpy integer or float as the Python number it holds (a report is JSON: an
    int64 30 is 30), anything else as it is (then judged by is_number)."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        item = value.item()
        if isinstance(item, int | float) and not isinstance(item, bool):
            return item
    return value


def is_number(value: Any) -> bool:
    """A number as the monitor's settings take one: an int or a float (a numpy float64
    is one), never a bool (True is not 1 here) nor text (the CLI parses its text)."""
    return isinstance(value, int | float) and not isinstance(value, bool)
