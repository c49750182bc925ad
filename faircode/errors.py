"""The exception types for bad input and the exit codes of every faircode command.

:class:`FaircodeError` is the one base: its text is the whole user-facing message (one
line naming the problem and the fix) and its ``exit_code`` is what the CLI exits with.
:class:`InputError` (profiler, CLI) and ``MonitorInputError`` (the monitor, also a
``ValueError``) derive from it, so a caller can catch both with one ``except``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Exit codes, shared by `faircode profile|compare` and `faircode fairness ...` (SPEC 12.9).
EXIT_OK = 0
EXIT_FAIL = 1  # --fail-under not met, --fail-on-drift hit, a disparity exceeded
EXIT_INPUT = 2  # usage or input error (also: the report cannot be written)
EXIT_UNMEASURED = 3  # fairness gate: not enough eligible slices to decide
EXIT_FINDING = 4  # profile --fail-on: a confirmed finding of a named kind (SPEC 18)
EXIT_INSUFFICIENT = 5  # fairness gate: an interval straddles the threshold, or slices are low-n
EXIT_BUDGET = 6  # fairness slo gate: a gating SLO's error budget is spent
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for `cmd | head`

# The pip extra that brings each optional package (pyproject.toml's optional-dependencies).
EXTRA_OF = {
    "pyarrow": "fast",
    "polars": "polars",
    "pyspark": "spark",
    "fairlearn": "fairness",
    "scipy": "proxy",
    "mcp": "mcp",
    # the base install is the standard library only (README: "What a base install
    # needs"); the monitor, scan's search and the fast path count with numpy and pandas
    "numpy": "frames",
    "pandas": "frames",
}


class FaircodeError(Exception):
    """Bad input or usage. str(err) is one line; the CLI prints it and exits ``exit_code``."""

    exit_code: int = EXIT_INPUT


class InputError(FaircodeError):
    """Bad input or options. str(err) is one line naming the problem and the fix."""


class NoSuchFile(InputError):
    """A path names no file (the reader's `{label}: no such file`), so that a caller can
    say what it would have accepted instead (e.g. the built-in reference baselines)."""


class DelimiterRefused(InputError):
    """The first record, read with `names`, refuses the sniffed delimiter (SPEC 0.2): a
    fact of that record alone, so a reader of the file's first bytes (faircode.spark)
    need not read further to be sure."""


def missing_extra(what: str, package: str) -> InputError:
    """The one-line error for an optional package that is not installed."""
    return InputError(
        f"{what} needs {package}, which is not installed: "
        f"pip install 'faircode[{EXTRA_OF[package]}]'"
    )


def missing_extra_of(exc: ImportError, what: str) -> InputError | None:
    """The one-line error for an ImportError of an optional package (its extra named),
    or None when the missing module is not one of EXTRA_OF's (a real bug: re-raise)."""
    top = (getattr(exc, "name", None) or "").partition(".")[0]
    if top not in EXTRA_OF:
        return None
    return missing_extra(what, top)


def require(module: str, what: str) -> ModuleType:
    """Import an optional module (e.g. 'pyarrow.parquet'), or raise missing_extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise missing_extra(what, module.split(".")[0]) from None
