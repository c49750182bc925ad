"""The monitor's input error, importable without pandas (the CLI parser needs it)."""

from ..errors import FaircodeError


class MonitorInputError(FaircodeError, ValueError):
    """Bad input or usage; the CLI prints it as one line and exits 2 (``exit_code``)."""
