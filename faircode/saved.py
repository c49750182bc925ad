"""A saved `faircode profile --json` result as a side of `faircode compare` (SPEC 8.1).

A training set's profile committed to a repository is then the baseline of every later
run: it is compared as if its data file had been profiled again, provided it was
profiled with this run's options (its provenance says which) and has this faircode's
`format_version`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .analyze import FORMAT_VERSION
from .errors import InputError

#: Keys a saved profile result has besides format_version and dimensions.
PROFILE_KEYS = ("n_rows", "overall_score", "grade")
#: Options that cannot change a compare result (they only shape reference flags and
#: verdicts, which compare never reads), so a saved profile may differ in them.
NOT_COMPARED = frozenset({"reference_flag", "alpha"})


def load_saved(path: str) -> tuple[dict, bytes] | None:
    """The JSON object in the regular file ``path`` and its bytes when its top level has
    ``format_version`` and ``dimensions`` (a saved result); None for anything else (a
    data file, read as before)."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
        if not head.startswith(b"{"):
            return None
        fh.seek(0)
        data = fh.read()
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(obj, dict) or "format_version" not in obj or "dimensions" not in obj:
        return None
    return obj, data


def _norm(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def differences(saved: dict, params: dict, overrides: dict) -> list[str]:
    """The options of the saved result's provenance that differ from this run's, as
    `name SAVED (this run: VALUE)` items (the `--map` table as `overrides`)."""
    prov = saved.get("provenance") or {}
    mine, theirs = _norm(params), prov.get("params") or {}
    out = [
        f"{k} {_text(theirs.get(k))} (this run: {_text(mine.get(k))})"
        for k in list(mine) + [k for k in theirs if k not in mine]
        if k not in NOT_COMPARED and theirs.get(k) != mine.get(k)
    ]
    if (prov.get("overrides") or {}) != _norm(overrides):
        out.append(f"overrides {_text(prov.get('overrides') or {})} (this run: {_text(overrides)})")
    return out


def saved_profile(
    path: str, saved: dict, params: dict, overrides: dict, allow_different: bool
) -> tuple[dict, list[str]]:
    """The profile result of a saved ``path`` (its provenance removed) and the warnings
    to print; raises InputError for another format_version, a result that is not a
    profile, or (unless ``allow_different``) one profiled with other options."""
    version = saved["format_version"]
    if version != FORMAT_VERSION:
        raise InputError(
            f"{path}: a saved result of format_version {_text(version)}; this faircode "
            f"reads format_version {FORMAT_VERSION}: profile the data again "
            "(faircode profile DATA --json)"
        )
    if not all(k in saved for k in PROFILE_KEYS) or not isinstance(saved["dimensions"], list):
        raise InputError(
            f"{path}: a saved result, but not a profile (no n_rows, overall_score, grade); "
            "compare takes data files or the output of faircode profile --json"
        )
    if "provenance" not in saved:
        diffs = ["unknown (saved with --no-provenance)"]
    else:
        diffs = differences(saved, params, overrides)
    warnings = []
    if diffs:
        text = f"{path}: profiled with other options than this run: {'; '.join(diffs)}"
        if not allow_different:
            raise InputError(
                f"{text}; profile it again with this run's options, "
                "or pass --allow-different-options"
            )
        warnings.append(f"faircode: warning: {text}; compared anyway (--allow-different-options)")
    result = {k: v for k, v in saved.items() if k != "provenance"}
    return result, warnings
