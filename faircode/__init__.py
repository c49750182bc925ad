"""faircode: who is, and is not, represented in your data.

The public API: `profile`, `summarize`, `compare`, `scan` (the worst subgroup; it imports
numpy on use), `audit_ll144`, `audit_datasheet`, `audit_art10` (audit packs), `provenance_for`,
`InputError`, `faircode.monitor.evaluate` (subgroup model performance; it imports pandas
on use), and the prediction store's `faircode.monitor.slice_metrics`,
`fairness_disparity`, `fairness_gate` and `fairness_report` (SPEC 15.9).
"""

from ._version import __version__
from .compare import compare
from .errors import InputError
from .profiler import profile, summarize
from .provenance import provenance_for
from .scan import scan

__all__ = [
    "InputError",
    "__version__",
    "audit_art10",
    "audit_datasheet",
    "audit_ll144",
    "compare",
    "profile",
    "provenance_for",
    "scan",
    "summarize",
]


def __getattr__(name: str):
    """`faircode.audit_ll144`, `audit_datasheet` and `audit_art10`, imported on first use (PEP
    562): importing faircode stays as cheap as before (SPEC 20; tests/surfaces/test_api.py)."""
    if name == "audit_ll144":
        from .audit.ll144 import audit_ll144  # lazy: start-up

        return audit_ll144
    if name == "audit_art10":
        from .audit.art10 import audit_art10  # lazy: start-up

        return audit_art10
    if name == "audit_datasheet":
        from .audit.datasheet import audit_datasheet  # lazy: start-up

        return audit_datasheet
    raise AttributeError(f"module 'faircode' has no attribute {name!r}")
