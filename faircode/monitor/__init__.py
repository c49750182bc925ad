"""Subgroup model performance monitoring: slice metrics, disparities and a CI gate.

``evaluate`` is the public entry point; the CLI lives in :mod:`faircode.monitor.cli`.
Fairlearn is imported only when its engine runs.
"""

from __future__ import annotations

from .core import evaluate
from .io import MonitorInputError

__all__ = ["MonitorInputError", "evaluate"]
