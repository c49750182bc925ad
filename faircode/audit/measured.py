"""Measured numbers that point at the profile they come from (SPEC 20).

A pack that restates the profile (the datasheet, Article 10) never recomputes a number:
each one is a *measure* ``{"value": v, "from": "/json/pointer"}`` whose pointer (RFC
6901) locates it in the profile's JSON, the ``faircode profile --json`` of the same file
with the options recorded in the pack's provenance. A test walks every measure of a
pack and resolves its pointer; a reader can do the same.
"""

from __future__ import annotations

from typing import Any

from ..numerics import fmt, pct
from ..proxy_stats import p_text


def pointer(*parts: str | int) -> str:
    """The RFC 6901 JSON pointer of a path of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def resolve(doc: Any, ptr: str) -> Any:
    """The value at JSON pointer ``ptr`` in ``doc`` (KeyError / IndexError if none)."""
    if ptr == "":
        return doc
    out = doc
    for raw in ptr.split("/")[1:]:
        key = raw.replace("~1", "/").replace("~0", "~")
        out = out[int(key)] if isinstance(out, list) else out[key]
    return out


def measure(profile: dict, *parts: str | int) -> dict:
    """``{"value", "from"}`` of the profile's value at ``parts``."""
    ptr = pointer(*parts)
    return {"value": resolve(profile, ptr), "from": ptr}


def measures_in(obj: Any) -> list[dict]:
    """Every measure inside a pack's result, in document order."""
    out: list[dict] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if set(x) == {"value", "from"}:
                out.append(x)
                return
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(obj)
    return out


def cell_text(cell: Any, form: str) -> str:
    """A table cell as a report shows it: ``form`` is ``text``, ``count`` (1,234),
    ``share`` (12.34%: a 4-dp share shown whole, never rounded twice), ``points`` (a
    difference of two shares in percentage points, -12.34 pts, as the profile's reports
    say it), ``p`` (a p-value of SPEC 16: 0.0123, or 3 significant digits below 0.0001,
    1.7e-05, as the profile shows it), ``ratio`` (1.23) or ``number``."""
    v = cell["value"] if isinstance(cell, dict) and "value" in cell else cell
    if v is None:
        return "-"
    if form == "count":
        return f"{v:,}"
    if form == "share":
        return pct(v) + "%"
    if form == "points":
        return pct(v) + " pts"
    if form == "p":
        return p_text(v)
    if form == "ratio":
        return fmt(v, 2)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return " x ".join(str(x) for x in v)
    return str(v)


def table(head: list[str], forms: list[str], rows: list[list[Any]]) -> dict:
    """A pack's table: its column heads, each column's form (:func:`cell_text`), rows."""
    return {"head": head, "forms": forms, "rows": rows}


def intersection_cell_rows(profile: dict) -> list[list[Any]]:
    """The profile's absent or near-empty intersection cells (SPEC 4) as rows of
    (intersection, cell, rows, share), measured; after an intersection's listed cells, a
    row saying how many more the profile counts without listing them
    (`cells_not_listed`), so a table never looks complete when it is not."""
    rows: list[list[Any]] = []
    for i, inter in enumerate(profile.get("intersections", [])):
        name = f"{inter['dims'][0]} x {inter['dims'][1]}"
        for j, c in enumerate(inter["cells"]):
            rows.append(
                [
                    name,
                    f"{c['a']} x {c['b']}",
                    measure(profile, "intersections", i, "cells", j, "count"),
                    measure(profile, "intersections", i, "cells", j, "share"),
                ]
            )
        more = inter.get("cells_not_listed")
        if more:  # the profile lists the first CELL_CAP of them (SPEC 4)
            rows.append([name, f"{more:,} more cells, not listed in the profile", None, None])
    return rows


#: The columns of `audit art10 --csv` and `audit datasheet --csv` (SPEC 20): each
#: measured number, where it sits in the pack's JSON and where it comes from in the
#: profile's.
MEASURES_CSV_COLUMNS = ("where", "value", "from")


def measure_rows(result: dict) -> list[dict]:
    """Every measure of a pack with the JSON pointer of its place in the pack, in
    document order (the order :func:`measures_in` walks)."""
    out: list[dict] = []

    def walk(x: Any, path: tuple) -> None:
        if isinstance(x, dict):
            if set(x) == {"value", "from"}:
                out.append({"where": pointer(*path), "value": x["value"], "from": x["from"]})
                return
            for k, v in x.items():
                walk(v, (*path, k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, (*path, i))

    walk(result, ())
    return out


def render_measures_csv(result: dict, **_: Any) -> str:
    """A pack's measured numbers as CSV (one row each; SPEC 20): a number is written
    as JSON writes it, so the file and the pack's JSON agree to the last digit."""
    import json  # lazy: start-up

    from ..exports import csv_table  # lazy: start-up

    rows = [
        {**r, "value": r["value"] if isinstance(r["value"], str) else json.dumps(r["value"])}
        for r in measure_rows(result)
    ]
    return csv_table(MEASURES_CSV_COLUMNS, rows)
