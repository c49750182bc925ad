"""What both CLIs (``faircode`` in :mod:`faircode.cli` and the monitor's ``fairness``
commands in :mod:`faircode.monitor.cli`) share: the list of subcommands, the CLI flags
of the option table (faircode.options.OPTIONS: SPEC 7, and the options that decide a
column's groups, SPEC 1.1, 1.6, 2, 12.3), the start of --engine spark (a quiet session),
and the output-format flags of the renderer registry with the exports and the --html report
they write (SPEC 6.1). Neither CLI imports the other's parts."""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from .cliparse import default_help
from .detect import OVERRIDE_VALUES
from .errors import FaircodeError, InputError, missing_extra
from .options import REPEATED, Option, from_flags, options_of
from .renderers import EXPORT_WHAT, EXPORTS, FORMAT_ALIASES, formats_of, render_as
from .safetext import shown

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any


#: The subcommands: name -> (the line `faircode --help` lists, the command's description).
COMMANDS = {
    "profile": (
        "profile a CSV's demographic representation",
        "Profile the demographic representation of a CSV file.",
    ),
    "compare": (
        "representation drift between two CSV files",
        "Compare the representation of baseline A and current B.",
    ),
    "scan": (
        "the worst subgroup: search attribute combinations for the largest gap",
        "Search conjunctions of attribute values for the subgroup that differs most: "
        "between two files (A B), between the rows where a column is positive and the "
        "others (--versus), against a population reference (--reference), or in a "
        "label's rate (--label). Advisory: never part of the grade or a gate.",
    ),
    "audit": (
        "audit packs regulators and reviewers ask for (ll144, datasheet, art10)",
        "Documents built from faircode's measurements: ll144, the NYC Local Law 144 "
        "bias-audit summary (selection or scoring rates and impact ratios by sex, "
        "race/ethnicity and their intersections); datasheet, the composition questions of "
        "Datasheets for Datasets, pre-filled from the profile; art10, data-governance evidence "
        "for Article 10 of the EU AI Act.",
    ),
    "fairness": (
        "subgroup model performance and fairness disparities",
        "Subgroup model performance, fairness disparities and a CI gate.",
    ),
    "serve": (
        "serve the website (profile files in your browser) on 127.0.0.1",
        "Serve the faircode website from this machine (127.0.0.1 only). "
        "Files are read by the page in the browser; nothing is uploaded.",
    ),
}


#: Help lines a command words its own way (otherwise the table's, faircode.options).
_HELP_IN = {
    ("scan", "min_group_size"): "the default --min-size of a rate",
    ("scan", "score_categoricals"): "also search columns with few labels that are not demographic",
    ("audit art10", "min_group_size"): "the size floor of a group",
}


def option_help(option: Option, command: str | None = None) -> str:
    """An option's help line: its record's help (or ``command``'s wording), followed by
    its default unless that is none, empty or a switch's."""
    text = _HELP_IN.get((command, option.name), option.help)
    if option.kind == "boolean" or option.default in (None, ()):
        return text
    return default_help(text, option.default)


def add_option_arguments(p: argparse.ArgumentParser, command: str) -> None:
    """`--map` and the CLI flag of every SPEC 7 option ``command`` takes, made from its
    record in ``faircode.options.OPTIONS`` (the one home of the flag, metavar, help and
    default). Read back with `options_from_args`."""
    p.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="COL=KIND",
        help=f"force a column's kind: {', '.join(OVERRIDE_VALUES)} (a kind other than age "
        "keeps an age column's values as written)",
    )
    for o in options_of(command):
        if o.flag is None:
            continue
        kwargs: dict = {"dest": o.name, "help": option_help(o, command)}
        if o.kind == "boolean":  # a switch: --x turns on, --no-x turns off the default
            kwargs.update(action="store_false" if o.default else "store_true", default=None)
        elif o.kind == "choice":
            kwargs["choices"] = o.choices
        else:
            kwargs["metavar"] = o.metavar
            if o.kind in REPEATED:
                kwargs["action"] = "append"
        p.add_argument(o.flag, **kwargs)


def options_from_args(args: argparse.Namespace, command: str) -> tuple[dict[str, str], dict]:
    """(overrides, options) of `add_option_arguments`'s arguments: the flags' texts read
    by ``faircode.options.from_flags``, for `faircode.options.resolve` (and
    `faircode.detect.check_overrides`) to validate once."""
    flags = {}
    for o in options_of(command):
        value = getattr(args, o.name, None) if o.flag else None
        if value is not None:
            flags[o.name] = value
    opts = from_flags(flags)
    return overrides_from_args(args), opts


def add_group_options(p: argparse.ArgumentParser) -> None:
    """The options that decide a column's groups (SPEC 1.1, 1.6, 2): `--map` and the
    table's options of `fairness evaluate` (SPEC 12.3), so a column gives the same groups
    as in `profile`. Read back with `group_options_from_args`."""
    add_option_arguments(p, "fairness evaluate")


def group_options_from_args(args: argparse.Namespace) -> tuple[dict[str, str], dict]:
    """(overrides, options) of `add_group_options`'s arguments."""
    return options_from_args(args, "fairness evaluate")


def overrides_from_args(args: argparse.Namespace) -> dict[str, str]:
    """`--map COL=KIND` (repeatable) -> {column: kind}; one column given two kinds is an
    error (SPEC 1.6)."""
    out: dict[str, str] = {}
    for item in args.map:
        col, sep, kind = item.partition("=")
        if not sep or not col.strip(" \t"):
            raise InputError(f"--map: expected COLUMN=KIND, got '{item}'")
        col, kind = col.strip(" \t"), kind.strip(" \t")
        if col in out and out[col] != kind:
            raise InputError(
                f"--map: '{col}' is given twice ({col}={out[col]}, {col}={kind}); "
                "give one kind per column"
            )
        out[col] = kind
    return out


#: --engine spark's refusal of standard input (profile, fairness evaluate).
SPARK_NEEDS_A_PATH = "--engine spark reads a path (CSV or Parquet), not standard input"


def add_spark_master_option(p: argparse.ArgumentParser) -> None:
    """--spark-master URL, of the commands with --engine spark."""
    p.add_argument(
        "--spark-master", metavar="URL", help="Spark master for --engine spark (default local[2])"
    )


def start_spark(master: str | None) -> tuple[Any, Any]:
    """(:mod:`faircode.spark`, a session on ``master``) for --engine spark, the session
    started quietly (spark_session_quietly); without PySpark, the spark extra's error."""
    try:
        from . import spark  # lazy: start-up
    except ImportError:
        raise missing_extra("--engine spark", "pyspark") from None
    # PySpark 4.x warns on every run with pandas 3 (docs/spark.md: which pandas PySpark supports);
    # the CLI's stderr is for faircode's own messages.
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    return spark, spark_session_quietly(spark, master)


def spark_session_quietly(spark, master: str | None):
    """Start Spark with the JVM's stderr (start-up banner, log4j notices, warnings) sent to
    a log file, which a failure names; faircode's own errors stay on stderr."""
    import tempfile  # lazy: start-up

    log_path = os.path.join(tempfile.gettempdir(), f"faircode-spark-{os.getuid()}.log")
    sys.stderr.flush()
    saved = os.dup(2)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.dup2(log, 2)  # the JVM launched now inherits this as its stderr
        return spark.get_session(master)
    except Exception as exc:
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InputError(
            f"--engine spark: Spark did not start ({text}); it needs a Java 17+ "
            f"runtime (java on PATH or JAVA_HOME); Spark's log: {log_path}"
        ) from None
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(log)


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


#: What --html writes, as a failed write's line names it.
HTML_WHAT = "the HTML report"


def check_exports(args: argparse.Namespace, inputs: list) -> None:
    """Refuse an output (``--html``, ``--markdown PATH``, ``--csv PATH``) that is one of
    the command's input files, the path of another output, or a path that cannot be
    written, before anything is read (SPEC 6.1). ``inputs``: paths (the command's
    positional inputs) or ``(how the command names it, path)`` pairs."""
    from .atomic import check_outputs, check_writable, input_paths  # lazy: start-up

    if getattr(args, "html", None) == "-":  # --markdown - prints; --html takes a path only
        raise InputError("--html -: --html writes a file; print the HTML report with --format html")
    named: list[tuple[str, str]] = []
    for src in inputs:
        named += [src] if isinstance(src, tuple) else input_paths("the input", src)
    # (flag, PATH, what a failed write of it names)
    outputs = [("--html", getattr(args, "html", None), HTML_WHAT)]
    outputs += [(EXPORTS[form][0], path, EXPORT_WHAT[form]) for form, path in exports_of(args)]
    check_outputs([(flag, path) for flag, path, _ in outputs], named)
    for _, path, what in outputs:  # refused before the report is printed
        if path:
            check_writable(path, what)


def input_error(exc: FaircodeError) -> int:
    """The error's one stderr line, its control characters shown as escapes; its exit
    code (2)."""
    print(f"faircode: error: {shown(exc)}", file=sys.stderr)
    return exc.exit_code


def write_html(args: argparse.Namespace, command: str, result: Any, **context: Any) -> None:
    """``--html PATH``: the HTML report of ``result`` into PATH, atomically, saying so on
    stderr (SPEC 6.1; an input file was refused by check_exports before reading)."""
    from .atomic import write_output  # lazy: start-up

    write_output(args.html, render_as(command, "html", result, **context), HTML_WHAT)
    sys.stderr.write(f"faircode: wrote the HTML report to {shown(args.html)}\n")


def write_exports(args: argparse.Namespace, command: str, result: Any, **context: Any) -> None:
    """Write each ``--markdown PATH`` / ``--csv PATH`` export of ``result`` (UTF-8),
    saying so on stderr, atomically (:mod:`faircode.atomic`); a path that cannot be
    written is an input error (exit 2)."""
    for form, path in exports_of(args):
        write_export(form, path, render_as(command, form, result, **context))


def write_export(form: str, path: str, text: str) -> None:
    """``text``, an export in ``form``, into ``path`` atomically, saying so on stderr."""
    from .atomic import write_output  # lazy: start-up

    write_output(path, text, EXPORT_WHAT[form])
    sys.stderr.write(f"faircode: wrote {EXPORT_WHAT[form]} to {shown(path)}\n")
