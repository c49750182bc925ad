"""Subgroup model performance monitoring: slice metrics, disparities and a CI gate.

``evaluate`` judges a file. ``slice_metrics``, ``fairness_disparity``, ``fairness_gate``
and ``fairness_report`` read the prediction store (:mod:`faircode.monitor.api`, SPEC
15.9), as ``faircode fairness slice | gate | report`` do; the CLI lives in
:mod:`faircode.monitor.cli`. Fairlearn is imported only when its engine runs.
"""

from __future__ import annotations

from typing import Any

from ..errors import missing_extra_of
from .errors import MonitorInputError

#: The store's Python API (faircode/monitor/api.py), imported on first use.
_API = (
    "FairnessReport",
    "GateResult",
    "SliceMetrics",
    "SliceResult",
    "SloGateResult",
    "fairness_disparity",
    "fairness_gate",
    "fairness_report",
    "fairness_watch",
    "slice_metrics",
    "slo_gate",
    "slo_ingest",
    "slo_set",
    "slo_show",
)

__all__ = ["MonitorInputError", "evaluate", *_API]


def __getattr__(name: str) -> Any:
    # evaluate pulls in pandas; import it on first use so `faircode profile` starts fast.
    if name not in _API and name != "evaluate":
        raise AttributeError(name)
    try:
        if name == "evaluate":
            from .core import evaluate  # lazy: start-up

            return evaluate
        from . import api  # lazy: start-up

        return getattr(api, name)
    except ModuleNotFoundError as exc:  # numpy or pandas: the `frames` extra
        known = missing_extra_of(exc, f"faircode.monitor.{name}")
        if known is None:
            raise
        raise ImportError(str(known), name=exc.name) from None
