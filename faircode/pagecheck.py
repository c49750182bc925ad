"""The website's "Check with the Python engine" (SPEC 14.1): the page's read, redone by
the Python engine on the same bytes with the same settings.

The page runs this module inside Pyodide, in a worker (site/pycheck-worker.mjs); it is
plain Python, so CPython runs it too (tests/website/test_site_pyodide.py checks both). Its
output is what ``faircode profile FILE --json`` prints for that file and those settings,
so the page can compare it with its own exported JSON.
"""

from __future__ import annotations

import io
import json
from typing import Any

from .errors import FaircodeError
from .options import resolve, spelling
from .profiler import profile
from .provenance import provenance, sha256_bytes
from .reference import parse_reference
from .renderers import render_as

__all__ = ["profile_json", "run"]


def profile_json(
    data: bytes,
    name: str,
    opts: dict[str, Any] | None = None,
    overrides: list[list[str]] | dict[str, str] | None = None,
    reference: bytes | None = None,
    reference_name: str = "reference",
) -> str:
    """``faircode profile NAME --json`` of ``data`` (the page's options and overrides).

    Parameters
    ----------
    data : bytes
        The file's bytes (CSV, or gzip-compressed CSV).
    name : str
        The file's name, as the page shows it (error messages name it).
    opts : dict, optional
        The page's options (SPEC 7 keys, as the JS engine takes them).
    overrides : list of [column, kind] or dict, optional
        The page's column kinds (pairs keep their order).
    reference : bytes, optional
        A SPEC 9 reference table's bytes (the built-in one's or an uploaded one's).
    reference_name : str
        The reference's name, for its error messages.

    Returns
    -------
    str
        The JSON text, provenance block included (engine "python"), as the CLI prints it.

    Raises
    ------
    faircode.InputError
        Bad input: its one line is the CLI's (without the ``faircode: error:`` prefix).
    """
    opts = dict(opts or {})
    if isinstance(overrides, list):
        overrides = {col: kind for col, kind in overrides}
    overrides = dict(overrides or {})
    reference_hash = None
    if reference is not None:
        opts["reference"] = parse_reference(reference, reference_name)
        reference_hash = sha256_bytes(reference)
    with spelling("flag"):  # the page's engine names the flags, as the CLI does
        result = profile(io.BytesIO(data), overrides=overrides, opts=opts, name=name)
    result["provenance"] = provenance(
        params=resolve(opts).params(),
        overrides=overrides,
        dataset_hashes={"dataset_hash": sha256_bytes(data)},
        reference_hash=reference_hash,
    )
    return render_as("profile", "json", result, name=name)


def _bytes(data: Any) -> bytes:
    """bytes of a bytes-like object, or of a JavaScript Uint8Array under Pyodide (a
    JsProxy, whose to_bytes() copies it)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    return data.to_bytes()


def run(request_json: str, data: bytes, reference: bytes | None = None) -> str:
    """The worker's call: ``request_json`` holds name, opts, overrides and
    reference_name; the answer is JSON, ``{"json": TEXT}`` or ``{"error": LINE}``."""
    req = json.loads(request_json)
    try:
        text = profile_json(
            _bytes(data),
            req["name"],
            req.get("opts"),
            req.get("overrides"),
            None if reference is None else _bytes(reference),
            req.get("reference_name") or "reference",
        )
    except FaircodeError as err:
        return json.dumps({"error": str(err)})
    return json.dumps({"json": text})
