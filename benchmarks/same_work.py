"""The same work as faircode's default run, for the same-work baselines of run.py.

`faircode profile FILE --json` (default options) counts, in one read (faircode/summary.py,
faircode/columnar.py; SPEC 0.5, 0.9 and 17.2):

- per counted column, the count of each label and of its missing cells (`counts`,
  `missing`); the counted columns are those still counted at the end (an open column
  past max_categorical labels stops being counted, SPEC 0.5);
- the default pair tables: (label of a, label of b) -> rows with both present, for the
  pairs faircode keeps (`pairs`: among the first 64 counted columns, without the pairs
  a geography column makes useless, pruned as columns stop being candidates);
- missing data by group (on by default): the missing cells of every column
  (`missing_all`), and per group column D (a counted column that can still be a
  dimension) and every other column C, the rows of each label of D (None: D missing)
  whose C is missing (`missing_by`).

A label is the cell trimmed of ASCII spaces and tabs; a cell whose trimmed text is one
of SPEC 0.4's tokens (the empty text among them) is missing (labels.py). The tables are
exchanged as canonical JSON (`canonical`), compared by `differences`.

Which tables to count (the *shape*: counted columns, pairs, group columns) is read off
faircode's own summary of the file (`shape_of`); the baselines then count those tables
from the raw file, so the check compares every key and count they computed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

TRIMMED = " \t"  # what SPEC 0.4 trims (faircode/labels.py TRIMMED)


def _rows(items: Iterable) -> list:
    """[key..., n] rows sorted, None before any text."""
    return sorted(
        (list(r) for r in items),
        key=lambda r: [(x is not None, x if x is not None else "") for x in r[:-1]],
    )


def canonical(
    n_rows: int,
    counts: dict,
    missing: dict,
    pairs: dict,
    missing_all: dict,
    missing_by: dict,
) -> dict:
    """The tables as JSON-able data, one order for every producer.

    counts: column -> {label: n}; missing: counted column -> n; pairs: (a, b) ->
    {(label a, label b): n}; missing_all: column -> n; missing_by: (D, C) -> {label of D
    or None: n}. Zero counts are left out of the tables, as faircode leaves them out."""
    return {
        "n_rows": n_rows,
        "counts": {c: _rows((k, n) for k, n in t.items() if n) for c, t in sorted(counts.items())},
        "missing": dict(sorted(missing.items())),
        "pairs": [
            [a, b, _rows((x, y, n) for (x, y), n in t.items() if n)]
            for (a, b), t in sorted(pairs.items())
        ],
        "missing_all": dict(sorted(missing_all.items())),
        "missing_by": [
            [d, c, _rows((k, n) for k, n in t.items() if n)]
            for (d, c), t in sorted(missing_by.items())
            if any(t.values())
        ],
    }


def faircode_tables(path: str) -> dict:
    """faircode's default summary of path (as `faircode profile PATH --json` reads it),
    as canonical tables."""
    import faircode
    from faircode.labels import MISSING_TOKENS

    s = faircode.summarize(path).summary
    cols = s.columns
    counted = {cols[i]: c for i, c in enumerate(s.counts) if c is not None}
    return canonical(
        s.n_rows,
        counted,
        {cols[i]: s.missing[i] for i, c in enumerate(s.counts) if c is not None},
        {(cols[i], cols[j]): dict(t) for (i, j), t in s.pairs.items()},
        dict(zip(cols, s.missing_all)),
        {(cols[d], cols[c]): t for d, by in s.missing_by.items() for c, t in by.items()},
    ) | {"groups": [cols[d] for d in s.missing_by], "tokens": sorted(MISSING_TOKENS)}


def shape_of(tables: dict) -> dict:
    """What a baseline counts: the counted columns, the pair tables, the group columns
    (missing data by group) and SPEC 0.4's missing tokens, as faircode has them."""
    return {
        "counted": list(tables["counts"]),
        "pairs": [[a, b] for a, b, _ in tables["pairs"]],
        "groups": list(tables["groups"]),
        "tokens": list(tables["tokens"]),
        # labels per counted column: how the DuckDB query plans its grouping (a person
        # writing the query for this file would know them; they change no result)
        "labels": {c: len(rows) for c, rows in tables["counts"].items()},
    }


def _as_dicts(t: dict) -> dict[str, dict]:
    return {
        "n_rows": {(): t["n_rows"]},
        "counts": {(c, k): n for c, rows in t["counts"].items() for k, n in rows},
        "missing": {(c,): n for c, n in t["missing"].items()},
        "pairs": {(a, b, x, y): n for a, b, rows in t["pairs"] for x, y, n in rows},
        "pair tables": {(a, b): 1 for a, b, _ in t["pairs"]},
        "missing_all": {(c,): n for c, n in t["missing_all"].items()},
        "missing_by": {(d, c, k): n for d, c, rows in t["missing_by"] for k, n in rows},
    }


def differences(expected: dict, got: dict, limit: int = 3) -> list[str]:
    """Where got's tables differ from expected's (faircode's): missing keys, extra keys,
    other counts; at most `limit` lines per table. Empty when equal."""
    out = []
    a, b = _as_dicts(expected), _as_dicts(got)
    for name in a:
        ea, eb = a[name], b[name]
        lines = []
        for key in sorted(ea.keys() | eb.keys(), key=repr):
            if key not in eb:
                lines.append(f"{name} {list(key)}: missing (faircode: {ea[key]})")
            elif key not in ea:
                lines.append(f"{name} {list(key)}: {eb[key]} (faircode has no such key)")
            elif ea[key] != eb[key]:
                lines.append(f"{name} {list(key)}: {eb[key]} (faircode: {ea[key]})")
        if len(lines) > limit:
            lines = lines[:limit] + [f"{name}: {len(lines) - limit} more differences"]
        out += lines
    return out


def size_of(tables: dict) -> str:
    """A short description of the tables (for the report)."""
    return (
        f"{len(tables['counts'])} columns' counts, {len(tables['pairs'])} pair tables "
        f"({sum(len(r) for _, _, r in tables['pairs']):,} cells), "
        f"{len(tables['missing_by'])} missing-by-group tables, {len(tables['missing_all'])} "
        "columns' missing cells"
    )


# --- DuckDB ----------------------------------------------------------------------------


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _s(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


FINE_CELLS = 1 << 19  # the most label combinations (an upper bound) of one fine set


def plan(shape: dict) -> list[dict]:
    """The fine sets of the DuckDB query: groups of label columns counted together (with
    the missing-cell mask), each table read off one of them. Greedy: each pair table, then
    each remaining single column, joins the first fine set whose label combinations
    (product of labels + 1, an upper bound) stay within FINE_CELLS, else starts one.
    For the generated files: (gender, race, age, region), (region, zip), (education,
    employment_status), where a GROUPING SETS per table counted 15 sets of the file's
    rows (1.4x the CPU time on 1 GB)."""
    labels = shape.get("labels", {})

    def size(cols: set[str]) -> int:
        out = 1
        for c in cols:
            out *= labels.get(c, FINE_CELLS) + 1
        return out

    fine: list[dict] = []

    def place(cols: set[str], table: tuple) -> None:
        for f in fine:
            if cols <= f["cols"] or size(f["cols"] | cols) <= FINE_CELLS:
                f["cols"] |= cols
                f["tables"].append(table)
                return
        fine.append({"cols": set(cols), "tables": [table]})

    for a, b in shape["pairs"]:
        place({a, b}, ("pair", a, b))
    for d in dict.fromkeys(shape["counted"] + shape["groups"]):
        place({d}, ("single", d))
    fine[0]["tables"].append(("mask",))
    return fine


def duckdb_query(header: list[str], shape: dict) -> tuple[str, list[list[tuple]]]:
    """One statement, one scan of the file; returns it and, per branch of its UNION ALL,
    the table of each GROUPING value.

    The reader makes the missing tokens NULL (as faircode's fast path has Arrow do); a
    cell starting or ending with a space or a tab is trimmed and looked up (the only cells
    trimming changes). Each row gets a bit mask of its missing cells (bit k: column k).
    A materialized CTE counts the rows once per fine set (`plan`): GROUPING SETS of
    (its label columns, mask). Then per fine set a GROUPING SETS over those counts gives
    its tables: (mask) the row count and missing cells, (D, mask) a column's label counts
    and its rows' missing cells by group, (a, b) a pair table."""
    if len(header) > 62:
        raise ValueError("the DuckDB same-work query handles up to 62 columns")
    tokens = ", ".join(_s(t) for t in shape["tokens"])
    keyed = list(dict.fromkeys(shape["counted"] + shape["groups"]))  # label columns
    sel, bits = [], []
    for k, c in enumerate(header):
        col = _q(c)
        padded = " OR ".join(
            f"{f}({col}, {_s(ch)})" for f in ("starts_with", "ends_with") for ch in TRIMMED
        )
        trimmed = f"trim({col}, {_s(TRIMMED)})"
        if c in keyed:
            fixed = f"CASE WHEN {trimmed} IN ({tokens}) THEN NULL ELSE {trimmed} END"
            sel.append(f"CASE WHEN {padded} THEN {fixed} ELSE {col} END AS l{k}")
            bits.append(f"((l{k} IS NULL)::BIGINT << {k})")
        else:
            sel.append(
                f"CASE WHEN {col} IS NULL THEN true WHEN {padded} THEN {trimmed} IN ({tokens}) "
                f"ELSE false END AS m{k}"
            )
            bits.append(f"(m{k}::BIGINT << {k})")
    name = {c: f"l{header.index(c)}" for c in keyed}
    source = (
        "read_csv(?, all_varchar=true, header=true, delim=',', quote='\"', escape='\"', "
        f"nullstr=[{tokens}])"
    )
    fine = plan(shape)
    every = [name[c] for c in keyed]
    fine_sets = ", ".join(
        "(" + ", ".join([name[c] for c in keyed if c in f["cols"]] + ["mask"]) + ")" for f in fine
    )
    w = len(keyed) + 1  # GROUPING's arguments: the label columns, then mask
    bit = {c: 1 << (w - 1 - k) for k, c in enumerate(keyed)}  # 1: rolled up
    full = (1 << w) - 1
    branches, layouts = [], []
    for f in fine:
        cols = [c for c in keyed if c in f["cols"]]
        fg = full & ~1
        for c in cols:
            fg &= ~bit[c]
        v = len(cols) + 1
        vbit = {c: 1 << (v - 1 - k) for k, c in enumerate(cols)}
        vfull = (1 << v) - 1
        sets, layout = [], {}
        for t in f["tables"]:
            if t[0] == "mask":
                sets.append("(mask)")
                layout[vfull & ~1] = t
            elif t[0] == "single":
                sets.append(f"({name[t[1]]}, mask)")
                layout[vfull & ~1 & ~vbit[t[1]]] = t
            else:
                sets.append(f"({name[t[1]]}, {name[t[2]]})")
                layout[vfull & ~vbit[t[1]] & ~vbit[t[2]]] = t
        out_cols = [name[c] if c in f["cols"] else "NULL::VARCHAR" for c in keyed]
        branches.append(
            f"SELECT {len(branches)} AS part, GROUPING({', '.join(name[c] for c in cols)}, mask), "
            f"{', '.join(out_cols)}, mask, sum(n)::BIGINT FROM fine WHERE fg = {fg} "
            f"GROUP BY GROUPING SETS ({', '.join(sets)})"
        )
        layouts.append(layout)
    query = (
        f"WITH fine AS MATERIALIZED (SELECT GROUPING({', '.join(every)}, mask) AS fg, "
        f"{', '.join(every)}, mask, count(*) AS n "
        f"FROM (SELECT *, {' + '.join(bits)} AS mask FROM (SELECT {', '.join(sel)} FROM {source})) "
        f"GROUP BY GROUPING SETS ({fine_sets})) " + " UNION ALL ".join(branches)
    )
    return query, layouts


def baseline_duckdb_same(path: str, shape: dict) -> tuple:
    """The same tables as faircode's default run, by DuckDB in one process: one statement
    (duckdb_query), its grouped rows turned into the tables (dicts, as `canonical` takes
    them; sorting them for the check is not part of the timed work)."""
    import csv

    import duckdb

    with open(path, newline="", encoding="utf-8-sig") as fh:
        header = next(csv.reader(fh))
    keyed = list(dict.fromkeys(shape["counted"] + shape["groups"]))
    query, layouts = duckdb_query(header, shape)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    rows = con.execute(query, [path]).fetchall()
    pos = {c: k for k, c in enumerate(keyed)}
    counted, groups = set(shape["counted"]), set(shape["groups"])
    n_rows = 0
    counts: dict = {c: {} for c in shape["counted"]}
    missing = dict.fromkeys(shape["counted"], 0)
    pairs: dict = {tuple(p): {} for p in shape["pairs"]}
    missing_all = dict.fromkeys(header, 0)
    missing_by: dict = {}
    gone: dict[int, list[str]] = {}  # mask -> its missing columns

    def columns_of(mask: int) -> list[str]:
        got = gone.get(mask)
        if got is None:
            got = gone[mask] = [c for k, c in enumerate(header) if mask >> k & 1]
        return got

    w = len(keyed)
    for r in rows:
        table = layouts[r[0]][r[1]]
        labels, mask, n = r[2 : 2 + w], r[2 + w], r[3 + w]
        if table[0] == "mask":
            n_rows += n
            for c in columns_of(mask):
                missing_all[c] += n
        elif table[0] == "single":
            d = table[1]
            x = labels[pos[d]]
            if d in counted:
                if x is None:
                    missing[d] += n
                else:
                    t = counts[d]
                    t[x] = t.get(x, 0) + n
            if d in groups:
                for c in columns_of(mask):
                    if c != d:
                        t = missing_by.setdefault((d, c), {})
                        t[x] = t.get(x, 0) + n
        else:
            a, b = table[1], table[2]
            x, y = labels[pos[a]], labels[pos[b]]
            if x is not None and y is not None:
                pairs[(a, b)][(x, y)] = n
    return n_rows, counts, missing, pairs, missing_all, missing_by


def load(text_or_path: str) -> dict:
    """A shape given inline as JSON or as a JSON file's path."""
    text = text_or_path.strip()
    if not text.startswith("{"):
        with open(text_or_path, encoding="utf-8") as fh:
            text = fh.read()
    return json.loads(text)
