"""The one argparse subclass of every faircode command (profile, compare, fairness ...).

A usage error is one stderr line, ``faircode: error: MESSAGE (see 'PROG --help')``, and
exit code 2 (:data:`faircode.errors.EXIT_INPUT`); the message is shown() so that a
hostile argument cannot move the cursor or hide text.
"""

from __future__ import annotations

import argparse
import os
import sys

from .errors import EXIT_INPUT, InputError
from .safetext import shown

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import NoReturn


def usage_hint(prog: str) -> str:
    """The hint after a usage error: where the command's help is."""
    return f"(see '{prog} --help')"


def usage_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    sys.stderr.write(f"faircode: error: {shown(message)} {usage_hint(parser.prog)}\n")
    raise SystemExit(EXIT_INPUT)


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every long option of ``parser`` and of its subcommands' parsers."""
    out: set[str] = set()
    for action in parser._actions:
        out.update(o for o in action.option_strings if o.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                out |= _option_strings(sub)
    return out


def did_you_mean(parser: argparse.ArgumentParser, words: list[str]) -> str:
    """`; did you mean --label?` for the first unknown --option with a close known one
    (issue 27), else ""."""
    import difflib  # lazy: start-up

    known = sorted(_option_strings(parser))
    for word in words:
        if word.startswith("--"):
            close = difflib.get_close_matches(word.split("=", 1)[0], known, n=1, cutoff=0.75)
            if close:
                return f"; did you mean {close[0]}?"
    return ""


def terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` gives it ($COLUMNS, else the
    width of standard output's terminal, else 80), without importing shutil (and bz2,
    lzma, fnmatch with it), which argparse does for every option it adds."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, told the width instead of asking shutil each time."""

    def __init__(self, prog: str, indent_increment=2, max_help_position=24, width=None):
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        if message.startswith("unrecognized arguments: "):
            message += did_you_mean(self, message.split(": ", 1)[1].split())
        usage_error(self, message)

    def _print_message(self, message: str, file=None) -> None:  # type: ignore[override]
        """argparse's, but a help or version text that cannot be written to standard
        output (a full disk, /dev/full) is one error line and exit 2, not exit 0:
        argparse ignores the error. A closed pipe (`| head`) is left to the caller."""
        if not message:
            return
        file = file or sys.stderr
        try:
            file.write(message)
            if file is sys.stdout:
                file.flush()
        except BrokenPipeError:
            raise
        except (AttributeError, OSError) as exc:
            if file is not sys.stdout or not isinstance(exc, OSError):
                return
            silence_stdout()  # the interpreter's last flush cannot fail again
            raise InputError(
                f"cannot write to standard output ({exc.strerror or exc}); "
                "check the disk or the redirection"
            ) from None

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        # as argparse does, but an unknown option is reported by the subcommand that was
        # chosen, so that the hint names the help that lists its options
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            _chosen(self, ns).error(f"unrecognized arguments: {' '.join(extras)}")
        return ns


def _chosen(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost subcommand parser that ``ns`` selected (``parser`` when none)."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return parser
        choice = getattr(ns, subs[0].dest, None)
        if choice not in subs[0].choices:
            return parser
        parser = subs[0].choices[choice]


def default_help(text: str, default: object) -> str:
    """``text`` followed by the default in parentheses, e.g. ``... share (0.05)``."""
    if isinstance(default, tuple | list):
        default = ",".join(str(v) for v in default)
    return f"{text} ({default})"


def silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
