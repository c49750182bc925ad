"""What both CLIs (``faircode`` and the monitor's ``fairness`` commands) share: the
output-format flags of the renderer registry (SPEC 6.1)."""

from __future__ import annotations

import argparse
import sys

from .renderers import EXPORT_WHAT, EXPORTS, FORMAT_ALIASES, formats_of, render_as

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any


def format_of(args: argparse.Namespace) -> str:
    """The output format the parsed ``args`` ask for (``text`` by default)."""
    return getattr(args, "format", None) or "text"


def exports_of(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The (format, PATH) pairs of the export flags given with a path (not ``-``)."""
    return [(form, path) for form in EXPORTS if (path := getattr(args, form, None))]


class _ClaimStdout(argparse.Action):
    """--format F, --json, and --markdown/--csv given `-`: each claims standard output
    (``args.format``); a second claim by another flag is a usage error, whatever the
    order (an export flag given a PATH claims nothing and stores the PATH)."""

    def __init__(self, option_strings: list[str], dest: str, form: str | None = None, **kw):
        self.form = form
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        form = self.form if self.form is not None else values
        if self.form is not None and self.nargs == "?":  # an export flag: PATH or -
            if values != "-":
                setattr(namespace, self.dest, values)
                return
            setattr(namespace, self.dest, None)
        claimed = getattr(namespace, "_format_flag", None)
        if claimed is not None and claimed != option_string:
            parser.error(f"argument {option_string}: not allowed with argument {claimed}")
        namespace._format_flag = option_string
        namespace.format = form


def add_format_options(
    parser: argparse.ArgumentParser, command: str
) -> argparse._MutuallyExclusiveGroup:
    """``--format F`` (the formats of ``command``) and its alias ``--json``, mutually
    exclusive, into ``args.format`` (None when none is given: see :func:`format_of`); and
    the export flags ``--markdown [PATH|-]`` / ``--csv [PATH|-]`` where the command has
    the format (into ``args.markdown`` / ``args.csv``: the PATH, or None; ``-`` or no
    PATH is ``--format`` of it). Returns the group, for a command's own exclusive flags."""
    formats = formats_of(command)
    group = parser.add_mutually_exclusive_group()
    # default None, not "text": argparse tells a given option from the default by identity,
    # so `--json --format text` would not count as two formats
    group.add_argument(
        "--format",
        choices=formats,
        default=None,
        dest="format",
        action=_ClaimStdout,
        help=f"output format: {', '.join(formats)} (default text)",
    )
    for form, (flag, text) in FORMAT_ALIASES.items():
        if form in formats:
            group.add_argument(
                flag, nargs=0, form=form, action=_ClaimStdout, help=f"{text} (= --format {form})"
            )
    for form, (flag, text) in EXPORTS.items():
        if form in formats:
            parser.add_argument(
                flag,
                nargs="?",
                const="-",
                default=None,
                form=form,
                dest=form,
                action=_ClaimStdout,
                metavar="PATH|-",
                help=f"also write {text} to PATH (the usual report still prints); "
                f"- or no PATH: print it instead (= --format {form})",
            )
    return group


def check_exports(args: argparse.Namespace, inputs: list) -> None:
    """Refuse an output (``--html``, ``--markdown PATH``, ``--csv PATH``) that is one of
    the command's input files, or the path of another output, before anything is read
    (SPEC 6.1). ``inputs``: paths (the command's positional inputs) or ``(how the command
    names it, path)`` pairs."""
    from .atomic import check_outputs, input_paths

    named: list[tuple[str, str]] = []
    for src in inputs:
        named += [src] if isinstance(src, tuple) else input_paths("the input", src)
    outputs = [("--html", getattr(args, "html", None))]
    outputs += [(EXPORTS[form][0], path) for form, path in exports_of(args)]
    check_outputs(outputs, named)


def write_exports(args: argparse.Namespace, command: str, result: Any, **context: Any) -> None:
    """Write each ``--markdown PATH`` / ``--csv PATH`` export of ``result`` (UTF-8),
    saying so on stderr, atomically (:mod:`faircode.atomic`); a path that cannot be
    written is an input error (exit 2)."""
    from .atomic import write_output
    from .safetext import shown

    for form, path in exports_of(args):
        write_output(path, render_as(command, form, result, **context), EXPORT_WHAT[form])
        sys.stderr.write(f"faircode: wrote {EXPORT_WHAT[form]} to {shown(path)}\n")
