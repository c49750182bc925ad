"""``faircode fairness evaluate``: argparse wiring, output and the gate's exit codes.

Exit codes (with ``--gate``): 0 within threshold, 1 a disparity exceeded, 5 the evidence
is insufficient (an interval straddles the threshold, or slices sit below the low-n
guard), 3 unmeasured
(``--allow-unmeasured`` turns 3 into 0 with a warning), 2 usage or input error. Without
``--gate`` the command exits 0 after a successful evaluation and 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..cliparse import Parser, default_help, silence_stdout, usage_error
from ..cliutil import (
    COMMANDS,
    SPARK_NEEDS_A_PATH,
    add_format_options,
    add_group_options,
    add_spark_master_option,
    check_exports,
    format_of,
    group_options_from_args,
    input_error,
    start_spark,
    write_exports,
    write_html,
)
from ..errors import (
    EXIT_BROKEN_PIPE,
    EXIT_FAIL,
    EXIT_INPUT,
    EXIT_INSUFFICIENT,
    EXIT_OK,
    EXIT_UNMEASURED,
    FaircodeError,
    InputError,
    missing_extra_of,
)
from ..options import (
    FAIRNESS_ALPHA,
    FAIRNESS_ENCODING_HELP,
    FAIRNESS_ENGINE_HELP,
    FAIRNESS_ENGINES,
    FAIRNESS_MIN_SAMPLES,
    FAIRNESS_RULES,
    FAIRNESS_THRESHOLD,
    spelling,
)
from ..renderers import render_as
from ..safetext import fit_stdout
from .errors import MonitorInputError
from .gate import WHEN_GATED, gate_lines, passed_caveat, unmeasured_hint


def _add_evaluate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="predictions: CSV, Parquet or JSON lines")
    p.add_argument("--encoding", metavar="NAME", help=FAIRNESS_ENCODING_HELP)
    p.add_argument("--pred", metavar="COL", help="prediction column (0/1 or numeric)")
    p.add_argument(
        "--label", metavar="COL", help="label column; rows with a missing label await a label"
    )
    p.add_argument(
        "--score", metavar="COL", help="score column; prediction = score >= --decision-threshold"
    )
    p.add_argument(
        "--decision-threshold",
        metavar="T",
        type=float,
        help="decision threshold for --score (or a regression --pred): value >= T",
    )
    p.add_argument(
        "--attr",
        metavar="COL",
        action="append",
        required=True,
        help="attribute to slice by (repeatable)",
    )
    p.add_argument(
        "--task",
        choices=("binary", "regression"),
        help="model type (default: inferred once from the whole file)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=FAIRNESS_THRESHOLD,
        help=f"largest allowed disparity (default {FAIRNESS_THRESHOLD})",
    )
    p.add_argument(
        "--min-samples",
        type=int,
        default=FAIRNESS_MIN_SAMPLES,
        help=default_help(
            "a slice counts for a metric only with this many rows for it", FAIRNESS_MIN_SAMPLES
        ),
    )
    p.add_argument(
        "--intersect", action="store_true", help="also slice by every combination of the attributes"
    )
    p.add_argument(
        "--weight",
        metavar="COL",
        help="sample (survey) weight column: every rate and disparity is weighted; "
        "intervals and the low-n guard use the effective sample size (sum w)^2 / sum w^2",
    )
    p.add_argument(
        "--ref-group",
        metavar="ATTR=VALUE",
        action="append",
        help="compare each slice of ATTR with the reference slice VALUE (difference and "
        "ratio with 95%% intervals); VALUE maj: the slice with the most rows, min: per "
        "metric the lowest eligible value (repeatable, one per attribute)",
    )
    add_group_options(p)  # profile's groups: --map, --na, --recode, --max-age, --age-bands
    out = add_format_options(p, "fairness evaluate")
    out.add_argument(
        "--html",
        metavar="PATH",
        help="write an HTML report to PATH (the terminal report still prints)",
    )
    p.add_argument(
        "--gate",
        action="store_true",
        help=WHEN_GATED,
    )
    p.add_argument(
        "--rule",
        choices=FAIRNESS_RULES,
        default=FAIRNESS_RULES[0],
        help="how the gate decides: by the disparity's interval after Holm's correction "
        "(default), or by its value alone (point, the seed's rule)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=FAIRNESS_ALPHA,
        help=default_help("family-wise error of the intervals and the gate", FAIRNESS_ALPHA),
    )
    p.add_argument(
        "--allow-unmeasured",
        action="store_true",
        help="with --gate, exit 0 (with a warning) instead of 3 when unmeasured",
    )
    p.add_argument(
        "--engine",
        choices=FAIRNESS_ENGINES,
        default="auto",
        help=f"{FAIRNESS_ENGINE_HELP}; spark: the per-slice counts as Spark aggregations "
        "(the spark extra)",
    )
    add_spark_master_option(p)


def add_fairness_parser(subparsers: Any, full: bool = True) -> argparse.ArgumentParser:
    """Add ``fairness`` (with its ``evaluate`` subcommand) to an argparse subparsers object.

    Each leaf parser gets ``func(args) -> int`` as a default; call it to run the command.
    ``full=False`` adds the command's name and help only (what ``faircode --help`` lists).
    Its texts are `faircode.cliutil.COMMANDS`'s, where `faircode` lists every command.
    """
    help_text, description = COMMANDS["fairness"]
    fairness = subparsers.add_parser("fairness", help=help_text, description=description)
    if full:
        add_fairness_commands(fairness)
    return fairness


def add_fairness_commands(fairness: argparse.ArgumentParser) -> None:
    """The subcommands of ``fairness`` (evaluate and the store's) into its parser."""
    if not isinstance(fairness, Parser):  # a caller's own parser class: route its errors
        fairness.error = lambda message: usage_error(fairness, message)  # type: ignore[method-assign]
    sub = fairness.add_subparsers(dest="fairness_command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    evaluate_parser = sub.add_parser(
        "evaluate",
        help="per-slice metrics and disparities of a model's predictions",
        description=(
            "Evaluate predictions per slice of each --attr: accuracy, selection rate, "
            "TPR, FPR, precision (binary) or MAE, RMSE (regression), with Wilson 95% "
            "intervals, and the disparities between eligible slices."
        ),
    )
    _add_evaluate_arguments(evaluate_parser)
    evaluate_parser.set_defaults(func=evaluate_command)
    from .commands import add_store_commands  # lazy: start-up

    add_store_commands(sub)


def _gate(report: dict[str, Any], allow_unmeasured: bool) -> int:
    err = sys.stderr
    for line in gate_lines(report):
        print(line, file=err)
    if report["failures"]:
        n = len(report["failures"])
        print(
            f"faircode: gate: failed: {n} disparit{'y' if n == 1 else 'ies'} exceed "
            f"threshold {report['settings']['threshold']:g}",
            file=err,
        )
        return EXIT_FAIL
    if report.get("insufficient"):
        n = len(report["insufficient"])
        low = sum("guard" in (f["rows_needed"] or {}) for f in report["insufficient"])
        why = f"not settled by its interval at threshold {report['settings']['threshold']:g}"
        if low:
            why = "below the low-n guard" if low == n else f"{why} or below the low-n guard"
        print(
            f"faircode: gate: insufficient evidence: {n} disparit{'y' if n == 1 else 'ies'} "
            f"{why}; add labelled rows (above), or pass --rule point to judge the values "
            "alone",
            file=err,
        )
        return EXIT_INSUFFICIENT
    if report["unmeasured"]:
        if allow_unmeasured:
            print(
                "faircode: warning: gate passed with unmeasured disparities "
                "(--allow-unmeasured); there was not enough evidence to check them",
                file=err,
            )
            return EXIT_OK
        print(
            "faircode: gate: unmeasured: too few eligible slices to decide; "
            f"{unmeasured_hint(report, store=False)}; or pass --allow-unmeasured",
            file=err,
        )
        return EXIT_UNMEASURED
    print(
        f"faircode: gate: passed: every disparity within threshold "
        f"{report['settings']['threshold']:g}{passed_caveat(report, store=False)}",
        file=err,
    )
    return EXIT_OK


def _spark_run(args: argparse.Namespace) -> Any:
    """``evaluate_spark`` with a session started quietly (the JVM's log to a file, as
    ``profile --engine spark``); checks that need no Spark come first."""
    if args.file == "-":
        raise MonitorInputError(SPARK_NEEDS_A_PATH)
    _, session = start_spark(args.spark_master)
    # pandas is in (evaluate_command imported .core): with PySpark, this cannot fail
    from .spark_engine import evaluate_spark  # lazy: start-up

    def run(*a: Any, engine: str, **kw: Any) -> Any:
        return evaluate_spark(*a, **kw, spark=session)

    return run


def evaluate_command(args: argparse.Namespace) -> int:
    """Run ``fairness evaluate`` for parsed ``args``; returns the exit code."""
    from .core import evaluate  # lazy: start-up
    from .reference import parse_cli  # lazy: start-up

    try:
        check_exports(args, [args.file])  # --html and the exports (SPEC 6.1)
        overrides, opts = group_options_from_args(args)
        ref_groups = parse_cli(args.ref_group)
        run = evaluate
        kw = {} if args.encoding is None else {"encoding": args.encoding}
        if args.engine == "spark":
            if args.encoding is not None:
                raise MonitorInputError(
                    "--encoding applies to the pandas and fairlearn engines; --engine spark "
                    "reads UTF-8: re-save the file as UTF-8"
                )
            run = _spark_run(args)
        elif args.spark_master is not None:
            raise MonitorInputError("--spark-master applies to --engine spark only")
        report = run(
            args.file,
            pred=args.pred,
            attrs=args.attr,
            label=args.label,
            score=args.score,
            decision_threshold=args.decision_threshold,
            task=args.task,
            threshold=args.threshold,
            min_samples=args.min_samples,
            intersect=args.intersect,
            engine=args.engine,
            rule=args.rule,
            alpha=args.alpha,
            overrides=overrides,
            opts=opts,
            ref_groups=ref_groups,
            weight=args.weight,
            **kw,
        )
    except (MonitorInputError, InputError) as exc:
        return input_error(exc)
    sys.stdout.write(render_as("fairness evaluate", format_of(args), report))
    try:
        write_exports(args, "fairness evaluate", report)
        if args.html:
            write_html(args, "fairness evaluate", report)
    except InputError as exc:
        return input_error(exc)
    sys.stdout.flush()
    if not args.gate:
        return EXIT_OK
    return _gate(report, args.allow_unmeasured)


def build_parser(prog: str = "faircode") -> argparse.ArgumentParser:
    parser = Parser(prog=prog, description="faircode fairness monitoring")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    add_fairness_parser(sub)
    return parser


def run(argv: list[str]) -> int:
    """Run ``faircode`` with ``argv`` (e.g. ``["fairness", "evaluate", ...]``); exit code."""
    with spelling("flag"):  # messages name the flags the user typed (SPEC 0.6)
        return _run(argv)


def _run(argv: list[str]) -> int:
    fit_stdout()  # any encoding: escapes, never UnicodeEncodeError
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_INPUT
    except BrokenPipeError:  # --help | head
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except FaircodeError as exc:  # --help into a full disk
        return input_error(exc)
    try:
        code = int(args.func(args))
        sys.stdout.flush()
        return code
    except ModuleNotFoundError as exc:  # numpy or pandas: the `frames` extra
        known = missing_extra_of(exc, f"faircode {args.command} {args.fairness_command}")
        if known is None:
            raise
        return input_error(known)
    except BrokenPipeError:  # `| head`: end quietly, as `faircode` does (docs/profiling.md)
        silence_stdout()
        return EXIT_BROKEN_PIPE
