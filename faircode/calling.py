"""The public API's calling convention: data positional, everything else by keyword.

A public function takes its data argument(s) positionally and every other parameter by
keyword (SPEC 0.6, "Python API arguments"). Parameters that used to be positional are
still taken positionally for now, through :func:`keyword_args`, with one
``FutureWarning`` per call naming the keywords to write instead.
*Why: a call such as ``evaluate(df, "pred", ["race"], "label", "score", 0.5)`` cannot be
read without the signature, and inserting a parameter would silently shift its meaning.*
"""

from __future__ import annotations

import functools
import warnings

TYPE_CHECKING = False  # typing costs start-up; only type checkers read it

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

#: The start of every warning :func:`keyword_args` emits; pyproject's pytest
#: ``filterwarnings`` turns it into an error, so no caller in the project uses the old form.
POSITIONAL_WARNING = "Positional arguments to "


def keyword_args(api: str, *legacy: str) -> Callable[[F], F]:
    """Let ``legacy`` (keyword-only parameters, in their old positional order) still be
    given positionally after the function's own positional parameters, with a warning.

    The decorated function keeps its keyword-only signature (``inspect.signature`` and
    ``help()`` show it); a positional value past the positional parameters is passed as
    the keyword ``legacy`` names in that place, and the call warns once, naming those
    keywords: ``Positional arguments to faircode.profile() after source are
    deprecated and will stop working in a future release; write profile(source,
    overrides=..., opts=...)``.
    """

    def decorate(func: F) -> F:
        code = func.__code__
        positional = code.co_varnames[: code.co_argcount]
        name = func.__name__

        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            extra = args[len(positional) :]
            if extra:
                if len(extra) > len(legacy):
                    # Python's own words for it, as the undecorated function would say
                    raise TypeError(
                        f"{name}() takes at most {len(positional) + len(legacy)} positional "
                        f"arguments but {len(args)} were given"
                    )
                keywords = legacy[: len(extra)]
                for key in keywords:
                    if key in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument '{key}'")
                written = ", ".join([*positional, *(f"{k}=..." for k in keywords)])
                warnings.warn(
                    f"{POSITIONAL_WARNING}{api}() after {', '.join(positional)} are "
                    f"deprecated and will stop working in a future release; write "
                    f"{name}({written})",
                    FutureWarning,
                    stacklevel=2,
                )
                kwargs.update(zip(keywords, extra))
                args = args[: len(positional)]
            return func(*args, **kwargs)

        return call  # type: ignore[return-value]

    return decorate
