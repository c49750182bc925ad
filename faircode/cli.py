"""The `faircode` command line."""

from __future__ import annotations

import argparse
import errno
import os
import sys
import time

from ._version import __version__
from .cliparse import Parser, default_help
from .cliparse import silence_stdout as _silence_stdout
from .cliutil import (
    COMMANDS,
    SPARK_NEEDS_A_PATH,
    add_format_options,
    add_option_arguments,
    add_spark_master_option,
    check_exports,
    exports_of,
    format_of,
    options_from_args,
    start_spark,
    write_export,
    write_exports,
    write_html,
)
from .compare import compare
from .errors import (
    EXIT_BROKEN_PIPE,
    EXIT_FAIL,
    EXIT_FINDING,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    FaircodeError,
    InputError,
    missing_extra_of,
)
from .evidence import COMPARE_FINDING_KINDS, FINDING_KINDS
from .options import (
    AUDIT_ALPHA,
    AUDIT_DATA_SOURCES,
    AUDIT_RATIO_THRESHOLD,
    Options,
    held_out_on_spark,
    parse_held_out,
    resolve,
    spelling,
)
from .profiler import profile
from .provenance import StreamHash, provenance, sha256_bytes
from .reference import BUILTIN, load_reference
from .renderers import render_as
from .safetext import bounded, fit_stdout, md_escape, shown
from .scan import (
    DEFAULT_BEAM,
    DEFAULT_DEPTH,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SECONDS,
    MAX_DEPTH,
    MAX_PERMUTATIONS,
    scan,
)

TYPE_CHECKING = False  # typing costs start-up; only type checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable

PROGRESS_MIN_BYTES = 16 << 20
SAMPLE = "compas-scores-two-years.csv"

#: The help of the table a command reads (scan's A, each audit pack's FILE).
TABLE_HELP = "the table (CSV, Parquet, Arrow; - for stdin)"
#: The help of --positive wherever a --label takes one (scan, audit datasheet, audit art10).
POSITIVE_HELP = "the label's positive value (more than two values)"
#: The help of --audit-date of the packs that write a document (datasheet, art10).
DOCUMENT_DATE_HELP = "the document's date (default: today)"


class Progress:
    """Bytes and rate on stderr while reading, only when stderr is a terminal."""

    def __init__(self, total: int | None, enabled: bool):
        self.total, self.enabled = total, enabled
        self.done = 0
        self.rows = 0
        self.start = self.last = time.monotonic()

    def __call__(self, block: bytes) -> None:
        self.done += len(block)
        self._show()

    def add_rows(self, n: int) -> None:
        self.rows += n
        self._show()

    def _show(self) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.last < 0.2:
            return
        self.last = now
        secs = max(now - self.start, 1e-9)
        rate = f"{self.done / secs / 1e6:,.0f} MB/s, {self.rows / secs:,.0f} rows/s"
        if self.total:
            frac = min(1.0, self.done / self.total)
            bar = "#" * int(frac * 30)
            text = f"\r[{bar:<30}] {frac * 100:5.1f}%  {self.done / 1e6:,.0f} MB  {rate}"
        else:
            text = f"\r{self.done / 1e6:,.0f} MB read, {self.rows:,} rows  {rate}"
        sys.stderr.write(text.ljust(78))
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            sys.stderr.write("\r" + " " * 78 + "\r")
            sys.stderr.flush()


def _add_html_option(group: argparse._MutuallyExclusiveGroup) -> None:
    group.add_argument(
        "--html",
        metavar="PATH",
        help="also write a self-contained HTML report to PATH (the site's views; "
        "= --format html into a file)",
    )


def _add_fail_on(p: argparse.ArgumentParser, finding: str, kinds: tuple[str, ...]) -> None:
    """--fail-on KIND[,KIND] (SPEC 18): ``finding``, what the command calls a finding."""
    p.add_argument(
        "--fail-on",
        metavar="KIND[,KIND]",
        help=f"exit {EXIT_FINDING} when a confirmed {finding} of a kind is found "
        f"({_kinds_text(kinds)})",
    )


def _kinds_text(kinds: tuple[str, ...]) -> str:
    """What --fail-on takes, as its help and its error name it."""
    return f"{', '.join(kinds)}, or any"


def _add_no_provenance(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-provenance",
        action="store_true",
        help="leave the provenance block out of --json output",
    )


def _with_provenance(args: argparse.Namespace) -> bool:
    """Whether the result carries its provenance block: --json output without
    --no-provenance (the block's dataset hash is then computed while reading)."""
    return format_of(args) == "json" and not args.no_provenance


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser. ``command``: the subcommand the arguments name (their first
    word). Only that command's options are built (the others get their name and help
    line, which is all `faircode --help` shows): building every option of every command
    was a tenth of the start-up. ``None`` builds them all."""
    parser = Parser(
        prog="faircode", description="Audit who is, and is not, represented in a table."
    )
    parser.add_argument("--version", action="version", version=f"faircode {_version()}")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for name, (help_text, description) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=description)
        if command is None or command == name:
            BUILDERS[name](p)
    return parser


def _build_profile(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", help="CSV file, or - for standard input")
    p.add_argument(
        "more_paths",
        nargs="*",
        metavar="PATH",
        help="more files, each profiled on its own with a report each (as pre-commit passes "
        "them; one dataset in many files is a quoted glob)",
    )
    p.add_argument(
        "--sample", action="store_true", help=f"profile the bundled sample ({SAMPLE}, ProPublica)"
    )
    _add_html_option(add_format_options(p, "profile"))
    p.add_argument(
        "--fail-under",
        metavar="SCORE",
        help="exit 1 when the overall score is below SCORE (or not measured)",
    )
    _add_fail_on(p, "finding", FINDING_KINDS)
    p.add_argument(
        "--reference",
        metavar="PATH|NAME",
        help="population baseline: a column,group,share CSV or us-2019 / us-2024",
    )
    _add_no_provenance(p)
    p.add_argument(
        "--engine",
        choices=("local", "spark"),
        default="local",
        help="count locally (default) or with Spark (the spark extra)",
    )
    add_spark_master_option(p)
    add_option_arguments(p, "profile")  # SPEC 7, 16
    p.set_defaults(func=cmd_profile)


def _build_compare(c: argparse.ArgumentParser) -> None:
    c.add_argument(
        "path_a", metavar="A", help="baseline CSV (e.g. training data) or its saved profile --json"
    )
    c.add_argument("path_b", metavar="B", help="current CSV (e.g. production data) or a profile")
    _add_html_option(add_format_options(c, "compare"))
    c.add_argument(
        "--fail-on-drift",
        choices=("moderate", "significant"),
        help="exit 1 when a dimension's drift of at least this level is confirmed",
    )
    _add_fail_on(c, "shift", COMPARE_FINDING_KINDS)
    _add_skip_lines_b(c)
    c.add_argument(
        "--allow-different-options",
        action="store_true",
        help="compare a saved profile made with other options than this run (warns)",
    )
    _add_no_provenance(c)
    add_option_arguments(c, "compare")  # SPEC 7, 16
    c.set_defaults(func=cmd_compare)


def _add_skip_lines_b(p: argparse.ArgumentParser) -> None:
    """compare's and scan's --skip-lines-b (read by _skip_lines_b)."""
    p.add_argument("--skip-lines-b", metavar="N", help="--skip-lines for B only")


def _skip_lines_b(args: argparse.Namespace) -> int | None:
    """--skip-lines-b's number, or None when not given."""
    return _number_arg("--skip-lines-b", args.skip_lines_b, True, 0, None)


def _build_serve(v: argparse.ArgumentParser) -> None:
    v.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0: any free)")
    v.add_argument("--no-open", action="store_true", help="do not open a browser")
    v.add_argument(
        "--site",
        metavar="DIR",
        help="serve this folder: a site built by scripts/build_site.py, whose pyodide/ "
        "folder lets the page check its result with the Python engine (default: the "
        "package's site, without it)",
    )
    v.set_defaults(func=cmd_serve)


def _build_fairness(f: argparse.ArgumentParser) -> None:
    from .monitor.cli import add_fairness_commands  # lazy: start-up

    add_fairness_commands(f)


def _build_scan(c: argparse.ArgumentParser) -> None:
    d = Options()
    c.add_argument("path", metavar="A", help=TABLE_HELP)
    c.add_argument("path_b", metavar="B", nargs="?", help="a second table: compare A and B")
    add_format_options(c, "scan")
    c.add_argument(
        "--versus",
        metavar="COL[=VALUE]",
        help="compare the rows where COL is its positive value (or VALUE) with the others",
    )
    c.add_argument(
        "--reference",
        metavar="PATH|NAME",
        help="compare with a population baseline: a column,group,share CSV or us-2019 / us-2024",
    )
    c.add_argument("--label", metavar="COL", help="search gaps in COL's positive rate")
    c.add_argument("--positive", metavar="VALUE", help=POSITIVE_HELP)
    c.add_argument(
        "--prediction",
        metavar="COL",
        help="with --label: search gaps in the error rate (COL != label)",
    )
    c.add_argument(
        "--columns", metavar="A,B,...", help="also search these columns (numeric: five bins)"
    )
    c.add_argument(
        "--depth", metavar="N", help=default_help("most conditions in a subgroup", DEFAULT_DEPTH)
    )
    c.add_argument(
        "--min-size",
        metavar="N",
        help="fewest rows of a subgroup (default: --min-group-size for a rate, else 0)",
    )
    c.add_argument(
        "--permutations",
        metavar="N",
        help=default_help("tables drawn under the null for the p-value", DEFAULT_PERMUTATIONS),
    )
    c.add_argument("--seed", metavar="N", help=default_help("seed of the permutations", 0))
    c.add_argument(
        "--max-seconds",
        metavar="S",
        help=default_help("time bound of the search and the test", f"{DEFAULT_SECONDS:g}"),
    )
    c.add_argument(
        "--method",
        choices=("auto", "exact", "beam"),
        default="auto",
        help="exact enumeration, beam search, or auto (exact when the space is small)",
    )
    c.add_argument(
        "--beam-width",
        metavar="W",
        help=default_help("subgroups kept per level of the beam search", DEFAULT_BEAM),
    )
    c.add_argument("--alpha", metavar="A", help=default_help("level of the verdict", d.alpha))
    _add_skip_lines_b(c)
    add_option_arguments(c, "scan")
    c.set_defaults(func=cmd_scan)


def _build_audit(a: argparse.ArgumentParser) -> None:
    sub = a.add_subparsers(dest="audit_command", metavar="PACK", parser_class=Parser)
    sub.required = True
    _add_pack(
        sub,
        "ll144",
        "NYC Local Law 144 bias-audit summary: rates and impact ratios",
        "The NYC Local Law 144 bias-audit summary (6 RCNY 5-300 to 5-304) of a "
        "table of decisions or scores: per sex, race/ethnicity and sex x race/ethnicity "
        "category the number of individuals, the selection or scoring rate and the impact "
        "ratio; the unknown category; faircode's intervals and verdicts, marked as beyond "
        "the law's table. Measurements, not legal advice.",
        _ll144_options,
        cmd_audit_ll144,
    )
    _add_pack(
        sub,
        "datasheet",
        "Datasheets for Datasets: the composition questions, pre-filled",
        "The Composition questions of Datasheets for Datasets (Gebru et al.): "
        "those the data can answer pre-filled from the profile (every number points into "
        "the profile's JSON), the others listed as questions for the author.",
        _datasheet_options,
        cmd_audit_datasheet,
    )
    _add_pack(
        sub,
        "art10",
        "EU AI Act Article 10: data-governance evidence for one data set",
        "A data-governance evidence document for one training, validation or "
        "test set: faircode's measurements mapped to Article 10 of the AI Act (Regulation "
        "(EU) 2024/1689): 10(2)(f) biases, 10(2)(h) data gaps, 10(3) representativeness and "
        "completeness, 10(4) the declared setting, and a checklist of what a tool cannot "
        "measure. Evidence, not a statement of conformity; not legal advice.",
        _art10_options,
        cmd_audit_art10,
    )


def _add_pack(
    sub: argparse._SubParsersAction,
    name: str,
    help_text: str,
    description: str,
    add_own_options: Callable[[argparse.ArgumentParser], None],
    func: Callable[[argparse.Namespace], int],
) -> None:
    """An audit pack's parser (SPEC 20): its FILE, the formats and --html, the pack's own
    options (``add_own_options``), then the table's options of `faircode audit NAME`."""
    command = f"audit {name}"
    p = sub.add_parser(name, help=help_text, description=description)
    p.add_argument("path", metavar="FILE", help=TABLE_HELP)
    _add_html_option(add_format_options(p, command))
    add_own_options(p)
    add_option_arguments(p, command)
    p.set_defaults(func=func)


def _ll144_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--selected",
        metavar="COL[=V,...]",
        help="pass / fail column (1/0, true/false, yes/no, pass/fail), or COL=V,... naming "
        "the values that mean selected",
    )
    p.add_argument(
        "--score",
        metavar="COL",
        help="score column: scoring rate = share strictly above the median of all scores",
    )
    p.add_argument(
        "--exclude-small",
        action="store_true",
        help="leave categories under 2%% of the data out of the impact ratios (still "
        "listed); needs --exclusion-note",
    )
    p.add_argument(
        "--exclusion-note", metavar="TEXT", help="the auditor's reason for --exclude-small"
    )
    p.add_argument(
        "--audit-date", metavar="YYYY-MM-DD", help="the date of the audit (default: today)"
    )
    p.add_argument(
        "--data-source",
        choices=AUDIT_DATA_SOURCES,
        help="historical data of the tool's use, or test data",
    )
    p.add_argument("--data-note", metavar="TEXT", help="the source and explanation of the data")
    p.add_argument(
        "--date-column", metavar="COL", help="a column of ISO dates: the data's first and last"
    )
    p.add_argument("--date-range", metavar="FROM,TO", help="the dates of the data, as declared")
    p.add_argument("--distribution-date", metavar="YYYY-MM-DD", help="the tool's distribution date")
    p.add_argument(
        "--ratio-threshold",
        metavar="X",
        help=default_help("the faircode additions' four-fifths convention", AUDIT_RATIO_THRESHOLD),
    )
    p.add_argument(
        "--alpha",
        metavar="A",
        help=default_help("family-wise level of the faircode additions (Holm)", AUDIT_ALPHA),
    )


def _datasheet_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label", metavar="COL", help="the label column (its rate per group)")
    p.add_argument("--positive", metavar="VALUE", help=POSITIVE_HELP)
    p.add_argument("--audit-date", metavar="YYYY-MM-DD", help=DOCUMENT_DATE_HELP)


def _art10_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--split", choices=("training", "validation", "test"), help="which set it is")
    p.add_argument("--label", metavar="COL", help="the outcome column: base rates by group")
    p.add_argument("--positive", metavar="VALUE", help=POSITIVE_HELP)
    p.add_argument(
        "--reference",
        metavar="PATH|NAME",
        help="population baseline for 10(3): a column,group,share CSV or us-2019 / us-2024",
    )
    p.add_argument("--proxy-hints", action="store_true", help="run the proxy hints (needs scipy)")
    p.add_argument(
        "--context",
        metavar="TEXT",
        action="append",
        default=[],
        help="the setting the system is meant for (10(4)); repeatable",
    )
    p.add_argument("--audit-date", metavar="YYYY-MM-DD", help=DOCUMENT_DATE_HELP)


def cmd_audit_ll144(args: argparse.Namespace) -> int:
    """`faircode audit ll144` (SPEC 20.1): a report, so exit 0 (2 for bad input)."""
    from .audit.ll144 import audit_ll144  # lazy: start-up

    return _run_pack(args, "audit ll144", audit_ll144, _ll144_arguments)


def _ll144_arguments(args: argparse.Namespace) -> dict:
    date_range = None
    if args.date_range is not None:
        date_range = tuple(x.strip(" \t") for x in args.date_range.split(","))
        if len(date_range) != 2:
            raise InputError(f"--date-range: expected FROM,TO, got '{args.date_range}'")
    # their text goes to audit_ll144, whose one check and message are the API's too
    numbers = {
        key: getattr(args, key)
        for key in ("ratio_threshold", "alpha")
        if getattr(args, key) is not None
    }
    return {
        "selected": args.selected,
        "score": args.score,
        "exclude_small": args.exclude_small,
        "exclusion_note": args.exclusion_note,
        "audit_date": args.audit_date,
        "data_source": args.data_source,
        "data_note": args.data_note,
        "date_column": args.date_column,
        "date_range": date_range,
        "distribution_date": args.distribution_date,
        **numbers,
    }


def cmd_audit_datasheet(args: argparse.Namespace) -> int:
    """`faircode audit datasheet` (SPEC 20.2)."""
    from .audit.datasheet import audit_datasheet  # lazy: start-up

    return _run_pack(args, "audit datasheet", audit_datasheet, _datasheet_arguments)


def _datasheet_arguments(args: argparse.Namespace) -> dict:
    return {"label": args.label, "positive": args.positive, "audit_date": args.audit_date}


def cmd_audit_art10(args: argparse.Namespace) -> int:
    """`faircode audit art10` (SPEC 20.3)."""
    from .atomic import input_paths  # lazy: start-up
    from .audit.art10 import audit_art10  # lazy: start-up

    inputs: list = [args.path]
    if args.reference and args.reference not in BUILTIN:  # named as profile names it
        inputs += input_paths("--reference", args.reference)
    return _run_pack(args, "audit art10", audit_art10, _art10_arguments, inputs)


def _art10_arguments(args: argparse.Namespace) -> dict:
    return {
        "split": args.split,
        "label": args.label,
        "positive": args.positive,
        "reference": args.reference,
        "proxy_hints": args.proxy_hints,
        "context": args.context,
        "audit_date": args.audit_date,
    }


def _run_pack(
    args: argparse.Namespace,
    command: str,
    audit: Callable[..., dict],
    pack_arguments: Callable[[argparse.Namespace], dict],
    inputs: list | None = None,
) -> int:
    """An audit pack's run (SPEC 20): the table's options, the outputs checked against
    ``inputs`` (default: the FILE) before anything is read, then the pack's own arguments
    (``pack_arguments``, which may refuse one), the report on stdout, its --html page and
    its exports."""
    overrides, opts = options_from_args(args, command)
    check_exports(args, [args.path] if inputs is None else inputs)
    result = audit(
        args.path,
        **pack_arguments(args),
        overrides=overrides,
        opts=opts,
        name=_input_name(args.path),
    )
    sys.stdout.write(render_as(command, format_of(args), result))
    if args.html:
        write_html(args, command, result)
    write_exports(args, command, result)
    return EXIT_OK


def _input_name(path: str) -> str:
    """How a report names its input: the path, or <stdin> for -."""
    return "<stdin>" if path == "-" else path


BUILDERS = {
    "profile": _build_profile,
    "compare": _build_compare,
    "scan": _build_scan,
    "audit": _build_audit,
    "fairness": _build_fairness,
    "serve": _build_serve,
}


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve  # lazy: start-up

    return serve(port=args.port, open_browser=not args.no_open, site=args.site)


def _version() -> str:
    return __version__


def _open_source(args: argparse.Namespace):
    if args.sample:
        if args.path:
            raise InputError("give either PATH or --sample, not both")
        # only here: it imports tempfile, shutil, bz2
        from importlib import resources  # lazy: start-up

        ref = resources.files("faircode") / "data" / SAMPLE
        return str(ref), SAMPLE, os.path.getsize(str(ref))
    if not args.path:
        raise InputError("profile needs a PATH (or - for standard input, or --sample)")
    if args.path == "-":  # as a path when possible: told apart like files (Parquet, CSV)
        if os.path.exists("/dev/stdin"):
            return "/dev/stdin", _input_name(args.path), None
        return sys.stdin.buffer, _input_name(args.path), None
    size = os.path.getsize(args.path) if os.path.isfile(args.path) else None
    return args.path, args.path, size


def _fail_under(args: argparse.Namespace) -> float | None:
    if args.fail_under is None:
        return None
    try:
        value = float(args.fail_under)
    except ValueError:
        raise InputError(
            f"--fail-under: '{args.fail_under}' is not a number; give a score from 0 to 100"
        ) from None
    if not 0 <= value <= 100:
        raise InputError(f"--fail-under: {args.fail_under} is out of range (0..100)")
    return value


def _profile_hashed(
    args: argparse.Namespace, source, size: int | None, overrides: dict, opts: dict, **context
) -> tuple[dict, str]:
    """profile() of ``source`` (``size`` bytes, None when unknown) with a progress bar on
    a terminal, hashing its bytes when the output carries provenance: (result, the hash)."""
    hashing = _with_provenance(args)
    hasher = StreamHash()
    progress = Progress(size, sys.stderr.isatty() and (size is None or size >= PROGRESS_MIN_BYTES))

    def on_bytes(block: bytes) -> None:
        if hashing:
            hasher(block)
        progress(block)

    # neither a hash nor a progress bar needs the bytes: the fast path does not even hand
    # them over
    wanted = on_bytes if hashing or progress.enabled else None
    try:
        result = profile(
            source,
            overrides=overrides,
            opts=opts,
            on_bytes=wanted,
            on_rows=progress.add_rows,
            **context,
        )
    finally:
        progress.close()
    return result, hasher.digest()


def cmd_profile(args: argparse.Namespace, markdown_parts: list[str] | None = None) -> int:
    """`faircode profile`; ``markdown_parts``: where `profile A B ... --markdown PATH`
    collects each file's Markdown report (SPEC 6.1)."""
    if getattr(args, "more_paths", None):
        return _profile_each(args)
    threshold = _fail_under(args)
    fail_on = _fail_on(args)
    overrides, opts = options_from_args(args, "profile")
    if args.html or exports_of(args):  # before anything is read (SPEC 6.1)
        check_exports(args, _profile_inputs(args))
    reference_hash = None
    if args.reference:
        opts["reference"], ref_bytes, _ = load_reference(args.reference)
        reference_hash = sha256_bytes(ref_bytes)
    source, name, size = _open_source(args)
    notes = {}
    if args.engine == "spark":
        result = _profile_spark(args, source, overrides, opts)
        digest = None
        notes["dataset_hash"] = "counted by Spark, which does not expose the raw bytes"
    else:
        result, digest = _profile_hashed(args, source, size, overrides, opts, name=name)
    if _with_provenance(args):
        result["provenance"] = provenance(
            params=resolve(opts).params(),
            overrides=overrides,
            dataset_hashes={"dataset_hash": digest},
            notes=notes,
            reference_hash=reference_hash,
        )
        result["provenance"]["engine"] = "spark" if args.engine == "spark" else "python"
    sys.stdout.write(render_as("profile", format_of(args), result, name=name))
    if args.html:
        write_html(args, "profile", result, name=name)
    write_exports(args, "profile", result, name=name)
    if markdown_parts is not None:
        markdown_parts.append(render_as("profile", "markdown", result, name=name))
    if threshold is not None:
        score = result["overall_score"]
        if score is None or score < threshold:
            shown = "not measured" if score is None else str(score)
            value_text = f"{threshold:g}"  # the option's text may hold a line break
            sys.stderr.write(f"faircode: score {shown} is below --fail-under {value_text}\n")
            return EXIT_FAIL
    return _confirmed_exit(result, fail_on)


def _fail_on(args: argparse.Namespace, known: tuple[str, ...] = FINDING_KINDS) -> frozenset[str]:
    """SPEC 18: the kinds --fail-on names (`any`: all of them)."""
    given = getattr(args, "fail_on", None)
    if given is None:
        return frozenset()
    if not given.strip(" \t"):  # a CI line's empty $KINDS must not turn the gate off
        raise InputError(
            f"--fail-on: the value is empty; give the kinds to fail on ({_kinds_text(known)})"
        )
    kinds = [k.strip(" \t") for k in given.split(",")]
    if "any" in kinds:
        return frozenset(known)
    bad = [k for k in kinds if k not in known]
    if bad:
        raise InputError(f"--fail-on: '{bad[0]}' is not a kind of finding ({_kinds_text(known)})")
    return frozenset(kinds)


def _confirmed_exit(result: dict, fail_on: frozenset[str]) -> int:
    """EXIT_FINDING when a confirmed finding of a kind in fail_on is in result (SPEC 18)."""
    hits = [f for f in result["findings"] if f["verdict"] == "confirmed" and f["kind"] in fail_on]
    if not hits:
        return EXIT_OK
    sys.stderr.write(
        f"faircode: {len(hits)} confirmed finding{'s' if len(hits) != 1 else ''} "
        f"of --fail-on {','.join(sorted(fail_on))} (first: {hits[0]['text']})\n"
    )
    return EXIT_FINDING


def _profile_inputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every input file of `profile` as (how it is named, path): the data (or the
    bundled sample), a --reference file and each --proxy-hints-with file."""
    from .atomic import input_paths  # lazy: start-up

    path = args.path
    if args.sample and not path:
        from importlib import resources  # lazy: start-up

        path = str(resources.files("faircode") / "data" / SAMPLE)
    inputs = input_paths("the input", path)
    if args.reference:
        if args.reference not in BUILTIN:
            inputs += input_paths("--reference", args.reference)
    for item in getattr(args, "proxy_with", None) or []:
        inputs += input_paths("--proxy-hints-with", parse_held_out(item)[0])
    return inputs


#: SPEC 6.1: `profile A B ...` exits with the worst of its files' codes, in this order
#: (worst last): a file that could not be profiled (2) over --fail-under (1) over
#: --fail-on (4), as one file's run decides them.
EXIT_SEVERITY = (EXIT_OK, EXIT_FINDING, EXIT_FAIL, EXIT_INPUT)


def _profile_each(args: argparse.Namespace) -> int:
    """`faircode profile A B ...`: each file profiled on its own, reports one after the
    other, a file that cannot be profiled its one error line; the exit code is the worst
    (EXIT_SEVERITY). `--markdown PATH` gets the Markdown reports one after the other (the
    GitHub Action's job summary), a file not profiled its error line."""
    if format_of(args) not in ("text", "markdown") or args.csv or args.html:
        raise InputError(
            "several PATHs print one text or Markdown report each; for --json, --csv or "
            "--html give one PATH (one dataset in many files: a quoted glob)"
        )
    # The flags hold for every file: a bad one is one line, once, before any file is read.
    _fail_under(args)
    _fail_on(args)
    options_from_args(args, "profile")
    paths = [args.path, *args.more_paths]
    summary = args.markdown
    if summary:  # refused before any file is read when it is one of them (SPEC 6.1)
        check_exports(
            args,
            [
                i
                for p in paths
                for i in _profile_inputs(argparse.Namespace(**{**vars(args), "path": p}))
            ],
        )
    parts: list[str] = []
    codes = []
    for i, path in enumerate(paths):
        if i:
            sys.stdout.write("\n")
        one = argparse.Namespace(**{**vars(args), "path": path, "more_paths": [], "markdown": None})
        try:
            codes.append(cmd_profile(one, parts if summary else None))
        except FaircodeError as err:  # this file's line; the others still get their report
            sys.stdout.flush()  # its report's place in the run, before the line
            name = _input_name(path)
            text = str(err)
            line = text if text.startswith(f"{name}: ") else f"{name}: {text}"
            _error(line)
            parts.append(f"faircode: error: {md_escape(line)}\n")
            codes.append(err.exit_code)
    if summary:  # before the exit code is decided, as for one file
        write_export("markdown", summary, "\n".join(parts))
    return max(codes, key=EXIT_SEVERITY.index)


def _profile_spark(args: argparse.Namespace, source, overrides: dict, opts: dict) -> dict:
    if not isinstance(source, str):
        raise InputError(SPARK_NEEDS_A_PATH)
    if opts.get("proxy_hints") and opts.get("proxy_with"):  # SPEC 16, before Spark starts
        raise InputError(held_out_on_spark())
    spark, session = start_spark(args.spark_master)
    return spark.profile_path(source, overrides, opts, spark=session)


def cmd_compare(args: argparse.Namespace) -> int:
    from .saved import load_saved, saved_profile  # lazy: start-up

    overrides, opts = options_from_args(args, "compare")
    fail_on = _fail_on(args, COMPARE_FINDING_KINDS)
    opts_b = dict(opts)
    skip_b = _skip_lines_b(args)
    if skip_b is not None:
        opts_b["skip_lines"] = skip_b
    # The options hold for both files: a bad one is one line, once, before either is read
    # (the A or B prefix below is for a check against one side's header).
    resolve(opts_b)
    check_exports(args, [args.path_a, args.path_b])
    results, hashes, notes = [], {}, {}
    for key, path, o in (("a", args.path_a, opts), ("b", args.path_b, opts_b)):
        if path == "-":
            raise InputError("compare reads two files; standard input is not supported")
        saved = load_saved(path)
        if saved is not None:  # a saved `profile --json` result (SPEC 8.1)
            side, warnings = saved_profile(
                path, saved[0], resolve(o).params(), overrides, args.allow_different_options
            )
            sys.stderr.writelines(shown(w) + "\n" for w in warnings)
            results.append(side)
            prov = saved[0].get("provenance") or {}
            hashes[f"dataset_hash_{key}"] = prov.get("dataset_hash")
            notes[f"dataset_hash_{key}"] = f"the saved profile {path} has no dataset_hash"
            hashes[f"saved_profile_hash_{key}"] = sha256_bytes(saved[1])
            continue
        size = os.path.getsize(path) if os.path.isfile(path) else None
        try:
            side, hashes[f"dataset_hash_{key}"] = _profile_hashed(args, path, size, overrides, o)
        except InputError as exc:
            if not str(exc).startswith("--"):
                raise
            # an option checked against one side's header: say which side
            raise InputError(f"{path} ({key.upper()}): {exc}") from None
        results.append(side)
    if any(k.startswith("saved_profile_hash_") for k in hashes):
        # a saved side holds its long labels capped (SPEC 0.9): so must the other
        results = [bounded(r) for r in results]
    result = compare(results[0], results[1], opts=opts)
    if _with_provenance(args):
        result["provenance"] = provenance(
            params=resolve(opts).params(), overrides=overrides, dataset_hashes=hashes, notes=notes
        )
    names = {"name_a": args.path_a, "name_b": args.path_b}
    sys.stdout.write(render_as("compare", format_of(args), result, **names))
    if args.html:
        write_html(args, "compare", result, **names)
    write_exports(args, "compare", result, **names)
    if args.fail_on_drift:
        rule = resolve(opts).drift_rule
        hit = drift_hits(result, args.fail_on_drift, rule)
        if hit:
            what = "" if rule == "psi" else "confirmed "
            sys.stderr.write(
                f"faircode: {what}{args.fail_on_drift} drift or worse in {shown(', '.join(hit))}\n"
            )
            return EXIT_FAIL
    return _confirmed_exit(result, fail_on)


def drift_hits(result: dict, level: str, rule: str) -> list[str]:
    """SPEC 8: the dimensions `--fail-on-drift LEVEL` fails on: a drift level of LEVEL or
    above, confirmed by its test (the PSI band alone under `--drift-rule psi`)."""
    levels = ("moderate", "significant") if level == "moderate" else ("significant",)
    return [
        d["name"]
        for d in result["dimensions"]
        if d["drift_level"] in levels and (rule == "psi" or d["drift_verdict"] == "confirmed")
    ]


def _number_arg(flag: str, text: str | None, integer: bool, low: float, high: float | None):
    """A --flag's number, or None when not given; one line naming the range otherwise."""
    if text is None:
        return None

    def bound(x: float) -> str:  # an integer bound in full (2**32 - 1, not 4.29497e+09)
        return str(int(x)) if integer else f"{x:g}"

    high_text = "" if high is None else bound(high)
    valid = f"{'integer' if integer else 'number'} {bound(low)}..{high_text}"
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        raise InputError(f"{flag}: '{text}' is not a number ({valid})") from None
    if value < low or (high is not None and value > high) or value != value:
        raise InputError(f"{flag}: {text} is out of range ({valid})")
    return value


def _number_args(
    args: argparse.Namespace, limits: tuple[tuple[str, bool, float, float | None], ...]
) -> dict[str, int | float]:
    """The number options given, by their argparse names (``--min-size``: min_size), each
    checked by _number_arg against its (flag, integer, low, high)."""
    numbers: dict[str, int | float] = {}
    for flag, integer, low, high in limits:
        key = flag[2:].replace("-", "_")
        value = _number_arg(flag, getattr(args, key), integer, low, high)
        if value is not None:
            numbers[key] = value
    return numbers


def cmd_scan(args: argparse.Namespace) -> int:
    """`faircode scan` (SPEC 19): advisory, so its exit code is 0 whatever it finds."""
    overrides, opts = options_from_args(args, "scan")
    paths = [p for p in (args.path, args.path_b) if p is not None]
    check_exports(args, paths)
    numbers = _number_args(
        args,
        (
            ("--depth", True, 1, MAX_DEPTH),
            ("--min-size", True, 0, None),
            ("--permutations", True, 0, MAX_PERMUTATIONS),
            ("--seed", True, 0, 2**32 - 1),
            ("--max-seconds", False, 1e-9, None),
            ("--beam-width", True, 1, None),
            ("--alpha", False, 1e-9, 1 - 1e-9),
        ),
    )
    columns = None
    if args.columns is not None:
        columns = [c.strip(" \t") for c in args.columns.split(",")]
        if not all(columns):
            raise InputError(f"--columns: expected A,B,..., got '{args.columns}'")
    result = scan(
        args.path,
        args.path_b,
        versus=args.versus,
        reference=args.reference,
        label=args.label,
        positive=args.positive,
        prediction=args.prediction,
        columns=columns,
        method=args.method,
        overrides=overrides,
        opts=opts,
        name=_input_name(args.path),
        name_b=args.path_b,
        skip_lines_b=_skip_lines_b(args),
        **numbers,
    )
    sys.stdout.write(render_as("scan", format_of(args), result, **result._context()))
    write_exports(args, "scan", result, **result._context())
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Run the CLI. Bad input is one stderr line and exit 2, never a traceback; a reader
    that closes the pipe early (`| head`) ends the run quietly with 141; an output that
    cannot be written (`/dev/full`, a closed stdout) is one line and exit 2."""
    words = sys.argv[1:] if argv is None else argv
    with spelling("flag"):  # messages name the flags the user typed (SPEC 0.6)
        return _main(words, argv)


def _main(words: list[str], argv: list[str] | None) -> int:
    try:
        fit_stdout()  # any encoding: escapes and ASCII bars, never UnicodeEncodeError
        parser = build_parser(words[0] if words else "")
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return EXIT_INPUT
        if sys.stdout is None:  # started with stdout closed (`>&-`)
            raise InputError("cannot write the report: standard output is closed")
        code = args.func(args)
        sys.stdout.flush()
        return code
    except FaircodeError as err:
        _error(str(err))
        return err.exit_code
    except KeyboardInterrupt:
        _error("interrupted", prefix="faircode: ")
        return EXIT_INTERRUPTED
    except ModuleNotFoundError as err:
        # a package of an extra that this path needs (numpy and pandas: `frames`)
        known = missing_extra_of(err, _command_words(words))
        if known is None:
            raise
        _error(str(known))
        return known.exit_code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as err:
        if err.filename is None and err.errno in _OUTPUT_ERRNOS:
            _silence_stdout()
            _error(
                f"cannot write the report to standard output ({err.strerror or err}); "
                "check the disk or the redirection"
            )
            return EXIT_INPUT
        where = f"{err.filename}: " if err.filename is not None else ""
        _error(f"{where}{err.strerror or err}")
        return EXIT_INPUT


def _command_words(words: list[str]) -> str:
    """'faircode fairness evaluate', 'faircode scan': the command a message names."""
    out = ["faircode"]
    for w in list(words)[:2]:
        if w.startswith("-") or (len(out) > 1 and out[1] not in ("fairness", "audit")):
            break
        out.append(w)
    return " ".join(out)


def quiet_blas(environ: dict | None = None) -> None:
    """OpenBLAS's worker threads off (OPENBLAS_NUM_THREADS=1) unless the user set it:
    numpy's OpenBLAS starts a thread per core when it is imported, which spins for ~70
    ms of CPU before sleeping, on the cores the file's reading needs (200 against 130 ms
    of CPU for `import numpy`; 8% of an 8 MB file's run). faircode never calls BLAS.
    For the `faircode` program only: a library import leaves its host's settings be."""
    env = os.environ if environ is None else environ
    env.setdefault("OPENBLAS_NUM_THREADS", "1")


def console_main() -> int:
    """The `faircode` program: main() after gc.freeze(), so that the collector no longer
    walks the objects start-up made (the modules'), which never become garbage: 5% of a
    small file's whole run. Not in main(): a process that calls main() many times (a
    test suite) would keep its garbage of the time forever. OpenBLAS is told to start
    no worker threads first (quiet_blas), before anything imports numpy."""
    import gc  # lazy: start-up

    quiet_blas()
    gc.freeze()
    return main()


def _error(message: str, prefix: str = "faircode: error: ") -> None:
    try:
        sys.stderr.write(f"{prefix}{shown(message)}\n")
        sys.stderr.flush()
    except (OSError, AttributeError, ValueError):
        pass


# errors of writing the report (a full disk or /dev/full, a file too large, a bad fd)
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EBADF})


if __name__ == "__main__":
    raise SystemExit(console_main())
