"""The one exception type for bad input: its text is the whole user-facing message."""

from __future__ import annotations

import importlib
from types import ModuleType

# The pip extra that brings each optional package (pyproject.toml's optional-dependencies).
EXTRA_OF = {
    "pyarrow": "fast",
    "polars": "polars",
    "pyspark": "spark",
    "fairlearn": "fairness",
    "scipy": "proxy",
}


class InputError(Exception):
    """Bad input or options. str(err) is one line naming the problem and the fix."""


def missing_extra(what: str, package: str) -> InputError:
    """The one-line error for an optional package that is not installed."""
    return InputError(f"{what} needs {package}, which is not installed: "
                      f"pip install 'faircode[{EXTRA_OF[package]}]'")


def require(module: str, what: str) -> ModuleType:
    """Import an optional module (e.g. 'pyarrow.parquet'), or raise missing_extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise missing_extra(what, module.split(".")[0]) from None
