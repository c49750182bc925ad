"""faircode: who is, and is not, represented in your data."""

from .errors import InputError
from .profiler import profile, summarize

__version__ = "0.1.0"
__all__ = ["InputError", "__version__", "profile", "summarize"]
