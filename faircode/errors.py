"""The one exception type for bad input: its text is the whole user-facing message."""


class InputError(Exception):
    """Bad input or options. str(err) is one line naming the problem and the fix."""
