"""faircode: who is, and is not, represented in your data.

The public API: `profile`, `summarize`, `compare`, `scan` (the worst subgroup; it imports
numpy on use), `provenance_for`, `InputError`,
`faircode.monitor.evaluate` (subgroup model performance; it imports pandas on use), and
the prediction store's `faircode.monitor.slice_metrics`, `fairness_disparity`,
`fairness_gate` and `fairness_report` (SPEC 15.9).
"""

from .compare import compare
from .errors import InputError
from .profiler import profile, summarize
from .provenance import provenance_for
from .scan import scan

__version__ = "0.1.0"
__all__ = ["InputError", "__version__", "compare", "profile", "provenance_for", "scan", "summarize"]
