"""Subgroup model performance monitoring: slice metrics, disparities and a CI gate.

``evaluate`` is the public entry point; the CLI lives in :mod:`faircode.monitor.cli`.
Fairlearn is imported only when its engine runs.
"""

from __future__ import annotations

from typing import Any

from .errors import MonitorInputError

__all__ = ["MonitorInputError", "evaluate"]


def __getattr__(name: str) -> Any:
    # evaluate pulls in pandas; import it on first use so `faircode profile` starts fast.
    if name == "evaluate":
        from .core import evaluate

        return evaluate
    raise AttributeError(name)
