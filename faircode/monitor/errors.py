"""The monitor's input error, importable without pandas (the CLI parser needs it)."""


class MonitorInputError(ValueError):
    """Bad input or usage; the CLI prints it as one line and exits 2."""
