"""A saved `faircode profile --json` result as a side of `faircode compare` (SPEC 8.1).

A training set's profile committed to a repository is then the baseline of every later
run: it is compared as if its data file had been profiled again, provided it was
profiled with this run's options (its provenance says which) and has this faircode's
`format_version`.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from typing import Any

from .analyze import FORMAT_VERSION
from .errors import InputError
from .options import OPTIONS
from .schemacheck import compile_schema, problem, value_text

#: Keys a saved profile result has besides format_version and dimensions.
PROFILE_KEYS = ("n_rows", "overall_score", "grade")
#: Options a saved profile may differ in: those that cannot change a compare result
#: (they only shape reference flags and verdicts, which compare never reads), and those
#: only compare takes (SPEC 7's table: `share_gap`), which no profile can have been
#: made with.
NOT_COMPARED = frozenset(
    {"reference_flag", "alpha"}
    | {o.name for o in OPTIONS if "compare" in o.commands and "profile" not in o.commands}
)


#: How much of a file not named .json is read to tell a JSON text from a table first.
PEEK = 1 << 16
#: What faircode profile --json writes, named in every refusal.
AGAIN = "profile the data again (faircode profile DATA --json)"


def load_saved(path: str) -> tuple[Any, bytes] | None:
    """The JSON value in the regular file ``path`` and its bytes when the file is a
    would-be saved result (SPEC 8.1): its first character (after an optional BOM and
    white space) is `{` or `[`, and it is named `*.json` or its whole text is JSON.
    None for anything else (a data file, read as data). Raises InputError for a file
    named `*.json` that is not valid JSON."""
    if not os.path.isfile(path):
        return None
    named = path.lower().endswith(".json")
    with open(path, "rb") as fh:
        head = fh.read(PEEK)
        start = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
        if not start.startswith((b"{", b"[")):
            return None
        if not named and len(head) == PEEK and not _may_be_json(head):
            return None  # a table whose first cell starts with { or [: not read twice
        data = head + fh.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        why = f" (byte {err.start}): not UTF-8 text"
    else:
        try:
            return json.loads(text), data
        except json.JSONDecodeError as err:
            why = f" (line {err.lineno}, column {err.colno}): {err.msg}"
        except RecursionError:
            why = ": nested too deep"
        except ValueError as err:  # e.g. an integer of more than 4,300 digits
            why = f": {err}"
    if not named:
        return None
    raise InputError(f"{path}: not valid JSON{why}; {AGAIN}")


def _may_be_json(head: bytes) -> bool:
    """False when the first PEEK bytes of a longer file show it is no JSON text: a
    parse of them fails before their last few characters for a reason a longer text
    cannot mend (anything but an unterminated string)."""
    text = head.decode("utf-8-sig", errors="replace")
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return err.pos >= len(text) - 16 or err.msg.startswith("Unterminated string")
    except (RecursionError, ValueError):
        return True
    return True


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


#: What a Python API caller of compare() can do instead (SPEC 8.1): its texts for AGAIN,
#: the other sides compare takes, and the way past other options.
API_AGAIN = "profile the data again (faircode.profile(DATA))"
API_TAKES = "compare takes data, a saved profile or the result of faircode.profile"
API_ANYWAY = (
    "or pass its result as a dict (json.load of the file) to compare it as it is, "
    "its options unchecked"
)


def checked_profile(
    label: str, saved: Any, api: bool = False, what: str = "a saved result"
) -> dict:
    """``saved`` when it is a faircode profile result of this format_version (the schema
    and the sums: check); else InputError naming ``label`` (a path, or the argument
    ``a`` or ``b`` of compare(), ``what`` "a result"; ``api``: the texts name the
    Python API)."""
    again = API_AGAIN if api else AGAIN
    if not isinstance(saved, dict):
        raise InputError(
            f"{label}: not a faircode profile: the top level is {value_text(saved)}, "
            f"not an object; {again}"
        )
    version = saved.get("format_version", FORMAT_VERSION)
    if version != FORMAT_VERSION or type(version) is not type(FORMAT_VERSION):
        raise InputError(
            f"{label}: {what} of format_version {_text(version)}; this faircode "
            f"reads format_version {FORMAT_VERSION}: {again}"
        )
    if not any(k in saved for k in PROFILE_KEYS):
        takes = (
            API_TAKES
            if api
            else "compare takes data files or the output of faircode profile --json"
        )
        raise InputError(
            f"{label}: {what}, but not a profile (no n_rows, overall_score, grade); {takes}"
        )
    bad = check(saved)
    if bad is not None:
        where, what = bad
        raise InputError(
            f"{label}: not a faircode profile: {where or 'the top level'} {what}; {again}"
        )
    return saved


def saved_profile(
    path: str, saved: Any, params: dict, overrides: dict, allow_different: bool, api: bool = False
) -> tuple[dict, list[str]]:
    """The profile result of a saved ``path`` (its provenance removed) and the warnings
    to print; raises InputError for another format_version, a result that is not a
    profile (or not a valid one: checked_profile), or (unless ``allow_different``) one
    profiled with other options. ``api``: the refusals say what a caller of
    faircode.compare() can do (it has no --allow-different-options)."""
    checked_profile(path, saved)  # a file: made by faircode profile --json, said so
    if "provenance" not in saved:
        diffs = [f"unknown (saved {'without provenance' if api else 'with --no-provenance'})"]
    else:
        diffs = differences(saved, params, overrides)
    warnings = []
    if diffs:
        text = f"{path}: profiled with other options than this run: {'; '.join(diffs)}"
        if not allow_different:
            anyway = API_ANYWAY if api else "or pass --allow-different-options"
            raise InputError(f"{text}; profile it again with this run's options, {anyway}")
        warnings.append(f"faircode: warning: {text}; compared anyway (--allow-different-options)")
    result = {k: v for k, v in saved.items() if k != "provenance"}
    return result, warnings


@functools.cache
def _schema_check() -> Callable[[Any], Any]:
    with open(
        os.path.join(os.path.dirname(__file__), "schemas", "profile.schema.json"), "rb"
    ) as fh:
        return compile_schema(json.load(fh))


def check(saved: dict) -> tuple[str, str] | None:
    """(JSON path, what is wrong) of the first thing in a saved profile result that
    faircode's profile schema (faircode/schemas/profile.schema.json) or the sums that
    compare counts with (SPEC 8.1) refuse; None when it is a valid profile."""
    return problem(saved, _schema_check()) or _sums(saved)


def _sums(saved: dict) -> tuple[str, str] | None:
    """What compare reads of a schema-valid profile and the schema cannot say (SPEC
    8.1): the first way the counts disagree with each other, or None."""
    n_rows = saved["n_rows"]
    header = None  # a profile saved before results listed their header has none
    if "columns" in saved:
        if len(saved["columns"]) != saved["n_cols"]:
            return "columns", f"lists {len(saved['columns'])} names, not n_cols ({saved['n_cols']})"
        header = set(saved["columns"])
    dims: dict[str, dict[str, int]] = {}
    missing: dict[str, int] = {}
    for i, dim in enumerate(saved["dimensions"]):
        at = f"dimensions[{i}]"
        if dim["name"] in dims:
            return f"{at}.name", f"is {value_text(dim['name'])} again (once per dimension)"
        labels = dims[dim["name"]] = {}
        for j, g in enumerate(dim["groups"]):
            if g["label"] in labels:
                return f"{at}.groups[{j}].label", f"is {value_text(g['label'])} again"
            labels[g["label"]] = g["count"]
        missing[dim["name"]] = dim["missing_count"]
        total = sum(labels.values())
        if total + dim["missing_count"] != n_rows:
            return (
                f"{at}.groups",
                f"count {total} rows and missing_count {dim['missing_count']}, "
                f"which do not add up to n_rows ({n_rows})",
            )
    params = (saved.get("provenance") or {}).get("params") or {}
    for key, option in (("label_rates", "label"), ("missing_by_group", "missing_by_group")):
        if params.get(option) not in (None, False) and key not in saved:
            return key, f"is missing, but provenance.params.{option} asks for it"
    rates = saved.get("label_rates")
    if rates is not None:
        bad = _rates(rates, dims, missing)
        if bad:
            return bad
    for i, entry in enumerate(saved.get("missing_by_group", ())):
        bad = _missing(f"missing_by_group[{i}]", entry, i, dims, missing, n_rows)
        if bad:
            return bad
        for k, col in enumerate(entry.get("columns", ())):
            # compare reads a column absent from the header as not compared (SPEC 17.6)
            if header is not None and col["name"] not in header:
                at = f"missing_by_group[{i}].columns[{k}].name"
                return at, f"is {value_text(col['name'])}, not one of columns"
    if "missing_by_group" in saved and len(saved["missing_by_group"]) != len(dims):
        return (
            "missing_by_group",
            f"has {len(saved['missing_by_group'])} entries, not one per dimension",
        )
    return _same_columns(saved.get("missing_by_group", ()))


def _same_columns(entries: list) -> tuple[str, str] | None:
    """Every counted entry of missing_by_group lists the same columns with missing cells,
    with the same missing_count, but for its own dimension's column (SPEC 17.5)."""
    first: dict[str, tuple[int, int]] = {}  # column -> (its missing_count, first entry)
    for i, entry in enumerate(entries):
        for k, col in enumerate(entry.get("columns", ())):
            m, j = first.setdefault(col["name"], (col["missing_count"], i))
            if m != col["missing_count"]:
                return (
                    f"missing_by_group[{i}].columns[{k}].missing_count",
                    f"is {col['missing_count']}, but {m} in missing_by_group[{j}]",
                )
    for i, entry in enumerate(entries):
        if "columns" not in entry:
            continue
        names = {c["name"] for c in entry["columns"]}
        for name, (_, j) in first.items():
            if name not in names and name != entry["dimension"]:
                return (
                    f"missing_by_group[{i}].columns",
                    f"list no column {value_text(name)}, which missing_by_group[{j}] lists",
                )
    return None


def _entry_of(at: str, name: str, i: int, dims: dict) -> tuple[str, str] | None:
    """An entry of label_rates or missing_by_group is the i-th dimension's."""
    names = list(dims)
    if i >= len(names) or name != names[i]:
        want = value_text(names[i]) if i < len(names) else "no dimension (there are fewer)"
        return at, f"is {value_text(name)}, not the name of dimensions[{i}] ({want})"
    return None


def _groups_of(at: str, entry: dict, counts: dict[str, int]) -> tuple[str, str] | None:
    """The listed groups are the dimension's, in its order, the rest groups_not_listed."""
    listed = [g["label"] for g in entry["groups"]]
    order = list(counts)
    if listed != order[: len(listed)] or len(listed) + entry.get("groups_not_listed", 0) != len(
        order
    ):
        return (
            f"{at}.groups",
            f"list {len(listed)} groups and groups_not_listed "
            f"{entry.get('groups_not_listed', 0)}, not the dimension's {len(order)} in its order",
        )
    return None


def _rates(rates: dict, dims: dict, missing: dict) -> tuple[str, str] | None:
    """label_rates (SPEC 17.4): an entry per dimension; each group's n + label_missing is
    its count and positive <= n; the groups' n and positive add up to the top level's
    (at most, with groups not listed)."""
    if len(rates["dimensions"]) != len(dims):
        return "label_rates.dimensions", "has not one entry per dimension"
    for i, entry in enumerate(rates["dimensions"]):
        at = f"label_rates.dimensions[{i}]"
        bad = _entry_of(f"{at}.name", entry["name"], i, dims)
        if bad:
            return bad
        if "groups" not in entry:
            continue  # not counted (past the first 64 counted columns)
        counts = dims[entry["name"]]
        bad = _groups_of(at, entry, counts)
        if bad:
            return bad
        bad = _missing_group(at, entry, missing[entry["name"]])
        if bad:
            return bad
        rows = _group_rows(at, entry, counts, missing[entry["name"]])
        for where, g, count in rows:
            if g.get("count", count) != count:
                return f"{where}.count", f"is {g['count']}, not the dimension's {count}"
            if g["n"] + g["label_missing"] != count or g["positive"] > g["n"]:
                return (
                    where,
                    f"has n {g['n']}, positive {g['positive']} and label_missing "
                    f"{g['label_missing']}, not positive <= n and n + label_missing = {count}",
                )
        n, positive = sum(r[1]["n"] for r in rows), sum(r[1]["positive"] for r in rows)
        whole = "groups_not_listed" not in entry
        if (
            n > rates["n"]
            or positive > rates["positive_count"]
            or (whole and (n, positive) != (rates["n"], rates["positive_count"]))
        ):
            return (
                f"{at}.groups",
                f"add up to n {n} and positive {positive}, not label_rates.n "
                f"{rates['n']} and positive_count {rates['positive_count']}",
            )
    return None


def _group_rows(at: str, entry: dict, counts: dict[str, int], missing: int) -> list[tuple]:
    """(JSON path, group entry, the dimension's count of it) of an entry's listed groups
    and its missing group, whose count is the dimension's missing_count."""
    rows = [(f"{at}.groups[{j}]", g, counts[g["label"]]) for j, g in enumerate(entry["groups"])]
    if "missing_group" in entry:
        rows.append((f"{at}.missing_group", entry["missing_group"], missing))
    return rows


def _missing_group(at: str, entry: dict, missing: int) -> tuple[str, str] | None:
    """An entry has a missing_group exactly when its dimension has missing rows."""
    if ("missing_group" in entry) != (missing > 0):
        has = "has" if "missing_group" in entry else "has no"
        return f"{at}.missing_group", f"{has} entry, but the dimension's missing_count is {missing}"
    return None


def _missing(
    at: str, entry: dict, i: int, dims: dict, missing: dict, n_rows: int
) -> tuple[str, str] | None:
    """A missing_by_group entry (SPEC 17.5): the i-th dimension's; each column once, its
    missing_count <= n_rows, its groups the dimension's with their counts, missing <=
    count, adding up to missing_count (at most, with groups not listed)."""
    bad = _entry_of(f"{at}.dimension", entry["dimension"], i, dims)
    if bad or "columns" not in entry:
        return bad
    counts = dims[entry["dimension"]]
    seen = set()
    for k, col in enumerate(entry["columns"]):
        where = f"{at}.columns[{k}]"
        if col["name"] in seen:
            return f"{where}.name", f"is {value_text(col['name'])} again"
        seen.add(col["name"])
        if col["missing_count"] > n_rows:
            return (
                f"{where}.missing_count",
                f"is {col['missing_count']}, more than n_rows ({n_rows})",
            )
        bad = _groups_of(where, col, counts) or _missing_group(
            where, col, missing[entry["dimension"]]
        )
        if bad:
            return bad
        rows = _group_rows(where, col, counts, missing[entry["dimension"]])
        for place, g, count in rows:
            if g["count"] != count:
                return f"{place}.count", f"is {g['count']}, not the dimension's {count}"
            if g["missing"] > count:
                return f"{place}.missing", f"is {g['missing']}, more than its count ({count})"
        total = sum(r[1]["missing"] for r in rows)
        if total > col["missing_count"] or (
            "groups_not_listed" not in col and total != col["missing_count"]
        ):
            return (
                f"{where}.groups",
                f"add up to {total} missing, not the column's missing_count {col['missing_count']}",
            )
    return None
