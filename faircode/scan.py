"""The worst subgroup: a search over conjunctions of attribute values (SPEC.md section 19).

`faircode scan` asks one of three questions of a table and answers with the subgroup
(a conjunction of up to `depth` conditions `attribute = value`) where the answer is
worst, its effect, a 95% interval and a p-value calibrated for the search:

- *representation*: two distributions, the rows of two files (`scan A B`) or the rows
  where a column takes its positive value against the other rows (`--versus COL`); the
  discrepancy is the Maximum Subgroup Discrepancy (Nemecek et al., KDD 2025), the
  largest difference over subgroups of the subgroup's share in each;
- *reference*: the table against a population baseline (`--reference`): the largest
  difference between a subgroup's share of the rows and its expected share;
- *rate*: a label's positive rate (`--label`), or a model's error rate (`--label` with
  `--prediction`), in a subgroup against the rest of the table.

Reading is counts-first: one pass profiles the table (its dimensions and groups are
the profile's), a second counts the distinct tuples of the searched attributes (with
the side or the positives of each); the search and its permutation test work on those
counts only. The scan is advisory: never part of the grade or a gate.
"""

from __future__ import annotations

import io
import itertools
import math
import os
import sys
import time
from collections import Counter

from .analyze import _age_years, group_rule
from .errors import InputError
from .formats import (
    Gunzipped,
    _batches_of_file,
    _frame_cells,
    _frame_label,
    is_arrow_table,
    is_pandas_frame,
    is_polars_frame,
    sniff_format,
)
from .groupstats import _values_text
from .labels import AGE_NUMERIC, clean_header, label_of
from .numerics import Z, newcombe, pct, round_half_up, wilson_bounds
from .options import (
    advised,
    check_option,
    dict_arg,
    number_arg,
    relabeler,
    spelled,
    text_arg,
    text_items,
)
from .profiler import _expand_paths, analyze_read, display_name, summarize
from .reader import open_input, read_records
from .reference import expected_shares, load_reference, match_reference
from .results import Result
from .safetext import shown

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

#: The result's format (SPEC 19).
SCAN_FORMAT_VERSION = 1
QUESTIONS = ("representation", "reference", "rate")
DEFAULT_DEPTH = 3
MAX_DEPTH = 6
DEFAULT_PERMUTATIONS = 999
MAX_PERMUTATIONS = 100_000
DEFAULT_SECONDS = 60.0
DEFAULT_BEAM = 20
#: Exact enumeration when (attribute sets) x (distinct tuples) is at most this.
EXACT_LIMIT = 2_000_000
#: Null tables drawn and evaluated at once: CHUNK, fewer when tuples x CHUNK counts would
#: pass CHUNK_CELLS (bounded memory).
CHUNK = 64
CHUNK_CELLS = 1 << 22
#: Cells of one attribute set kept as candidates when many tie at the top.
MAX_TIED = 10_000
#: Subgroups listed after the worst one.
RUNNERS_UP = 4
#: Bins of a chosen numeric column with more labels than max_categorical.
NUMERIC_BINS = 5
#: Distinct reference cells at most (the product of the matched attributes' groups).
MAX_REFERENCE_CELLS = 1_000_000


class ScanResult(Result):
    """``faircode.scan``'s result (SPEC 19); ``name_b``: the second file of a scan of two,
    which the reports' title names beside the first."""

    __slots__ = ("_name_b",)
    command = "scan"

    def __init__(self, *args: Any, name_b: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._name_b = name_b

    def _context(self) -> dict[str, str]:
        return {**super()._context(), "name_b": getattr(self, "_name_b", "")}

    def __repr__(self) -> str:
        sub = self.get("subgroup")
        if sub is None:
            return shown(f"ScanResult({self.get('question')}: no subgroup to report)")
        return shown(
            f"ScanResult({self.get('question')}: {sub['text']}; effect "
            f"{pct(sub['effect'])} pts, p {sub['p']})"
        )


# ---- the counts -------------------------------------------------------------------


class Table:
    """The aggregate a scan searches: distinct tuples of attribute codes with their counts.

    `codes[t, a]` is tuple t's value code of attribute a (-1: missing); `weight[t]` its
    rows (representation, rate: both sides' rows; reference: its expected share of the
    rows); `count[t]` the rows of side B (representation), its positives (rate), or its
    rows (reference). A representation subgroup's shares are among the rows that have
    all its attributes (`sides`), and its null tables permute the side within each
    pattern of missing attributes (`strata`), so those denominators stay fixed."""

    def __init__(self, attrs, values, codes, weight, count, question, totals) -> None:
        import numpy as np  # lazy: start-up

        self.attrs: list[str] = list(attrs)
        self.values: list[list[str]] = [list(v) for v in values]
        self.codes = np.asarray(codes, dtype=np.int64).reshape(len(weight), len(self.attrs))
        self.weight = np.asarray(weight, dtype=np.float64)
        self.count = np.asarray(count, dtype=np.int64)
        self.question = question
        #: representation: (rows A, rows B); rate: (rows, positives); reference: (rows,)
        self.totals = tuple(int(t) for t in totals)
        self._sides: dict[tuple, tuple[int, int]] = {}
        self._strata: list | None = None

    def sides(self, subset: tuple) -> tuple[int, int]:
        """(rows of A, rows of B) that have every attribute of `subset` (representation):
        the denominators of its subgroups' shares (SPEC 19)."""
        got = self._sides.get(subset)
        if got is None:
            ok = (self.codes[:, list(subset)] >= 0).all(axis=1)
            n, nb = int(round(self.weight[ok].sum())), int(self.count[ok].sum())
            got = self._sides[subset] = (n - nb, nb)
        return got

    def strata(self) -> list:
        """The tuples of each pattern of missing attributes, in the patterns' order: the
        permutation of the side keeps each pattern's rows of B (SPEC 19)."""
        import numpy as np  # lazy: start-up

        if self._strata is None:
            patterns, which = np.unique(self.codes < 0, axis=0, return_inverse=True)
            which = which.ravel()
            self._strata = [np.flatnonzero(which == i) for i in range(len(patterns))]
        return self._strata


def _check_totals(table: Table) -> None:
    q, t = table.question, table.totals
    if q == "representation" and min(t) == 0:
        side = "A" if t[0] == 0 else "B"
        raise InputError(f"scan: side {side} has no rows with the searched attributes")
    if q == "rate" and t[0] == 0:
        raise InputError("scan: no row has a label value")
    if q == "reference" and t[0] == 0:
        raise InputError("scan: no row has every attribute the reference matched")


def _scores(table: Table, sy, sn, min_size: int, subset: tuple = ()):
    """|effect| (representation, reference) or |z| (rate) of cells: sy (cells, K) the
    cells' counts in K tables, sn (cells,) their weights, all on the attributes `subset`.
    Ineligible cells score 0."""
    import numpy as np  # lazy: start-up

    q = table.question
    if q == "representation":
        na, nb = table.sides(subset)
        if not na or not nb:  # a side without these attributes: no share to compare
            return np.zeros(sy.shape)
        out = np.abs(sy / nb - (sn[:, None] - sy) / na)
        if min_size > 0:
            out[sn < min_size] = 0.0
        return out
    if q == "reference":
        (n,) = table.totals
        out = np.abs(sy / n - sn[:, None])
        if min_size > 0:
            out[sy < min_size] = 0.0
        return out
    n, pos = table.totals
    rate = pos / n
    rest = n - sn
    ok = (sn >= max(1, min_size)) & (rest >= max(1, min_size))
    if not ok.any() or rate in (0.0, 1.0):
        return np.zeros(sy.shape)
    se = np.sqrt(rate * (1 - rate) * (1 / np.where(ok, sn, 1.0) + 1 / np.where(ok, rest, 1.0)))
    safe_n = np.where(ok, sn, 1.0)[:, None]
    safe_rest = np.where(ok, rest, 1.0)[:, None]
    gap = sy / safe_n - (pos - sy) / safe_rest
    out = np.abs(gap / se[:, None])
    out[~ok] = 0.0
    return out


def _null_tables(table: Table, rng, k: int):
    """k tables drawn under the null as (tuples, k) counts (SPEC 19): a permutation of
    the side or the label over the rows (multivariate hypergeometric counts given each
    tuple's rows), or, against a reference, a multinomial sample of the rows."""
    import numpy as np  # lazy: start-up

    if table.question == "reference":
        p = table.weight / table.weight.sum()
        return rng.multinomial(table.totals[0], p, size=k).T
    rows = table.weight.astype(np.int64)
    strata = table.strata() if table.question == "representation" else []
    if len(strata) <= 1:
        return rng.multivariate_hypergeometric(rows, table.totals[1], size=k).T
    out = np.empty((len(rows), k), dtype=np.int64)
    for idx in strata:
        drawn = int(table.count[idx].sum())
        out[idx] = rng.multivariate_hypergeometric(rows[idx], drawn, size=k).T
    return out


# ---- the search -----------------------------------------------------------------


class _Sets:
    """The exact search's attribute sets, each with its cells precomputed once: the
    tuples (sorted by cell) that have every attribute of the set, the cells' starts
    in that order, their weights and their value codes."""

    def __init__(self, table: Table, depth: int) -> None:
        import numpy as np  # lazy: start-up

        self.items = []
        codes = table.codes
        sizes = [len(v) for v in table.values]
        for k in range(1, depth + 1):
            for subset in itertools.combinations(range(len(table.attrs)), k):
                cols = codes[:, subset]
                rows = np.flatnonzero((cols >= 0).all(axis=1))
                if not len(rows):
                    continue
                key = np.zeros(len(rows), dtype=np.int64)
                for j, a in enumerate(subset):
                    key = key * sizes[a] + cols[rows, j]
                order = np.argsort(key, kind="stable")
                idx = rows[order]
                skey = key[order]
                starts = np.concatenate(([0], np.flatnonzero(np.diff(skey)) + 1))
                sn = np.add.reduceat(table.weight[idx], starts)
                self.items.append((subset, idx, starts, sn, codes[idx[starts]][:, subset]))

    def cells(self) -> int:
        return sum(len(item[2]) for item in self.items)


def _exact_max(table: Table, sets: _Sets, y, min_size: int):
    """The largest score of every column of y (tuples, K) over all cells of all sets."""
    import numpy as np  # lazy: start-up

    best = np.zeros(y.shape[1])
    yf = y.astype(np.float64)
    for subset, idx, starts, sn, _ in sets.items:
        sy = np.add.reduceat(yf[idx], starts, axis=0)
        np.maximum(best, _scores(table, sy, sn, min_size, subset).max(axis=0), out=best)
    return best


def _order_key(score: float, subset, values, rows: float) -> tuple:
    """Ranking of subgroups: score (to 12 significant digits, so float noise cannot
    reorder ties), then fewer conditions, more rows, attributes and values in order."""
    return (-float(f"{score:.12g}"), len(subset), -rows, tuple(subset), tuple(values))


def _exact_observed(table: Table, sets: _Sets, min_size: int, keep: int) -> list[tuple]:
    """The `keep` best cells of the observed table: (order key, subset, values, sy, sn)."""
    import numpy as np  # lazy: start-up

    y = table.count.astype(np.float64)[:, None]
    found: list[tuple] = []
    for subset, idx, starts, sn, cell_codes in sets.items:
        sy = np.add.reduceat(y[idx], starts, axis=0)[:, 0]
        score = _scores(table, sy[:, None], sn, min_size, subset)[:, 0]
        if len(score) > keep:  # the keep best, and every cell tied with the last of them
            least = np.partition(score, -keep)[-keep]
            top = np.flatnonzero(score >= least * (1 - 1e-12))[:MAX_TIED]
        else:
            top = np.arange(len(score))
        for c in top:
            if score[c] <= 0:
                continue
            vals = tuple(int(v) for v in cell_codes[c])
            key = _order_key(float(score[c]), subset, vals, float(sn[c]))
            found.append((key, subset, vals, float(sy[c]), float(sn[c]), float(score[c])))
    found.sort(key=lambda f: f[0])
    return found[:keep]


def _beam(table: Table, y, depth: int, width: int, min_size: int, deadline: float | None):
    """A beam search of one table y (tuples,): level 1 is every attribute's values; each
    next level extends each of the `width` best subgroups by one condition on an
    attribute it lacks; the `width` best (by score) go on. Returns (best found, sorted:
    (order key, subset, values, sy, sn, score)), subgroups evaluated, completed)."""
    import numpy as np  # lazy: start-up

    codes = table.codes
    weight = table.weight
    yf = y.astype(np.float64)
    n_attrs = len(table.attrs)
    everything = np.arange(len(weight))
    beam: list[tuple] = [((), (), everything)]
    found: dict[tuple, tuple] = {}
    evaluated = 0
    for _level in range(depth):
        children: dict[tuple, tuple] = {}
        for subset, vals, rows in beam:
            for a in range(n_attrs):
                if a in subset:
                    continue
                col = codes[rows, a]
                ok = col >= 0
                if not ok.any():
                    continue
                r, c = rows[ok], col[ok]
                sn = np.bincount(c, weights=weight[r], minlength=len(table.values[a]))
                sy = np.bincount(c, weights=yf[r], minlength=len(table.values[a]))
                present = np.flatnonzero((sn > 0) | (sy > 0))
                on = tuple(sorted((*subset, a)))
                scores = _scores(table, sy[present, None], sn[present], min_size, on)[:, 0]
                evaluated += len(present)
                for j, v in enumerate(present):
                    pairs = sorted(zip(subset + (a,), vals + (int(v),)))
                    sub = tuple(p[0] for p in pairs)
                    vv = tuple(p[1] for p in pairs)
                    if (sub, vv) in children or (sub, vv) in found:
                        continue
                    key = _order_key(float(scores[j]), sub, vv, float(sn[v]))
                    children[(sub, vv)] = (key, sub, vv, float(sy[v]), float(sn[v]), scores[j])
            if deadline is not None and time.monotonic() > deadline:
                found.update(children)
                return sorted(found.values(), key=lambda f: f[0]), evaluated, False
        found.update(children)
        ranked = sorted(children.values(), key=lambda f: f[0])[:width]
        beam = []
        for _key, sub, vv, _sy, _sn, _s in ranked:
            mask = np.ones(len(weight), dtype=bool)
            for a, v in zip(sub, vv):
                mask &= codes[:, a] == v
            rows = np.flatnonzero(mask)
            if len(rows):
                beam.append((sub, vv, rows))
        if not beam:
            break
    return sorted(found.values(), key=lambda f: f[0]), evaluated, True


def _space(table: Table, depth: int) -> tuple[int, int]:
    """(attribute sets, subgroups) of the search: sets of 1..depth attributes and the
    conjunctions of one value each over them (present or not)."""
    sizes = [len(v) for v in table.values]
    n_sets = subgroups = 0
    # elementary symmetric sums of the sizes, up to depth
    e = [1] + [0] * depth
    for s in sizes:
        for k in range(depth, 0, -1):
            e[k] += e[k - 1] * s
    for k in range(1, min(depth, len(sizes)) + 1):
        n_sets += math.comb(len(sizes), k)
        subgroups += e[k]
    return n_sets, subgroups


def search(
    table: Table,
    *,
    depth: int = DEFAULT_DEPTH,
    min_size: int = 0,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    max_seconds: float | None = DEFAULT_SECONDS,
    beam_width: int = DEFAULT_BEAM,
    method: str = "auto",
) -> dict:
    """The search and its permutation test on a Table (SPEC 19): {"method", "found"
    (ranked best subgroups of the observed table), "evaluated", "complete", "sets",
    "space", "p", "permutations_done", "seconds"}."""
    import numpy as np  # lazy: start-up

    _check_totals(table)
    start = time.monotonic()
    deadline = None if max_seconds is None else start + max_seconds
    n_sets, space = _space(table, depth)
    m = len(table.weight)
    if method == "auto":
        method = "exact" if n_sets * m <= EXACT_LIMIT else "beam"
    keep = RUNNERS_UP + 1
    if method == "exact":
        sets = _Sets(table, depth)
        found = _exact_observed(table, sets, min_size, keep)
        evaluated, complete = sets.cells(), True
    else:
        sets = None
        ranked, evaluated, complete = _beam(
            table, table.count, depth, beam_width, min_size, deadline
        )
        found = [f for f in ranked if f[5] > 0][:keep]
    observed = found[0][5] if found else 0.0
    rng = np.random.default_rng(seed)
    done = hits = 0
    chunk = max(1, min(CHUNK, CHUNK_CELLS // max(1, m)))
    while found and done < permutations and complete:
        if deadline is not None and time.monotonic() > deadline:
            break
        k = min(chunk, permutations - done)
        y = _null_tables(table, rng, k)
        if sets is not None:
            maxima = _exact_max(table, sets, y, min_size)
        else:
            maxima = []
            for j in range(k):
                ranked_j, _, _ = _beam(table, y[:, j], depth, beam_width, min_size, None)
                maxima.append(ranked_j[0][5] if ranked_j else 0.0)
                if deadline is not None and time.monotonic() > deadline:
                    k = j + 1
                    break
            maxima = np.asarray(maxima)
        hits += int((maxima >= observed * (1 - 1e-9) - 1e-12).sum())
        done += k
    p = (1 + hits) / (1 + done) if found and done else None
    return {
        "method": method,
        "found": found,
        "evaluated": int(evaluated),
        "complete": complete,
        "sets": n_sets,
        "space": space,
        "p": p,
        "permutations_done": done,
        "seconds": time.monotonic() - start,
    }


# ---- reading --------------------------------------------------------------------


def _is_frame(source: Any) -> bool:
    return is_pandas_frame(source) or is_arrow_table(source) or is_polars_frame(source)


def _as_pandas(source: Any):
    if is_pandas_frame(source):
        return source
    if hasattr(source, "to_pandas"):
        return source.to_pandas()
    raise InputError(f"scan: cannot read a {type(source).__name__}")


def _reread(source: Any) -> Any:
    """A source that can be read twice: a file object or standard input is read into
    memory once (scan and the audit packs read a table twice: the profile, then the
    tuples or the hash); a glob pattern naming no file, or a list of paths, is its files
    in sorted order (a list: as given), one dataset, as the profile reads it (SPEC 0.8):
    the one place a second read resolves a pattern, so it reads the profile's files."""
    if isinstance(source, (list, tuple)) or (
        isinstance(source, str) and source not in ("-", "/dev/stdin")
    ):
        paths = _expand_paths(source)
        if paths is not None and (len(paths) > 1 or paths[0] != source):
            return paths
    if isinstance(source, (str, os.PathLike)) or _is_frame(source):
        if isinstance(source, str) and source in ("-", "/dev/stdin"):
            return io.BytesIO(sys.stdin.buffer.read())
        return source
    if hasattr(source, "read"):
        return io.BytesIO(source.read())
    raise InputError(
        f"scan: cannot read a {type(source).__name__}: give a path, a binary file object "
        "or a DataFrame"
    )


def _column_cells(source: Any, columns: list[str], options, name: str):
    """(n rows, iterator of tuples of the columns' labels (None: missing)) of a second
    read of the source, by the profile's reading rules (SPEC 0); a list of paths (one
    dataset, `_reread`) is the sum of its files' counts."""
    if isinstance(source, list):
        total: Counter = Counter()
        for path in source:
            total.update(_column_cells(path, columns, options, path))
        return total
    if _is_frame(source):
        df = _as_pandas(source)
        header = clean_header(str(c) for c in df.columns)
        cols = []
        for col in columns:
            cells = _frame_cells(df.iloc[:, header.index(col)])
            cols.append([_frame_label(v) for v in cells])
        return Counter(zip(*cols))
    if isinstance(source, io.BytesIO):
        source.seek(0)
        fh, regular = source, True
    else:
        fh, regular = open_input(os.fspath(source), name)
    with fh:
        fmt_name, stream = sniff_format(fh, name, regular)
        if fmt_name in ("parquet", "arrow", "arrows"):
            schema, batches = _batches_of_file(stream, fmt_name, name)
            import pyarrow as pa  # lazy: optional extra 'fast'

            table = pa.Table.from_batches(list(batches), schema=schema)
            return _column_cells(table.to_pandas(), columns, options, name)
        if fmt_name == "gzip":
            stream = Gunzipped(stream, name, None)
        header, batches = read_records(
            stream,
            name,
            encoding=options.encoding,
            delimiter=options.delimiter,
            names=options.names,
            skip_lines=options.skip_lines,
            one_column=options.one_column,
        )
        at = [header.index(c) for c in columns]
        raw: Counter = Counter()
        if len(at) == 1:
            i = at[0]
            for batch in batches:
                raw.update((rec[i],) for rec in batch)
        else:
            from operator import itemgetter  # lazy: start-up

            get = itemgetter(*at)
            for batch in batches:
                raw.update(map(get, batch))
    caches: list[dict] = [{} for _ in at]
    out: Counter = Counter()
    for cells, c in raw.items():
        labels = []
        for cache, cell in zip(caches, cells):
            lab = cache.get(cell, cache)
            if lab is cache:
                lab = cache[cell] = label_of(cell)
            labels.append(lab)
        out[tuple(labels)] += c
    return out


def _profiled(source: Any, overrides: dict, opts: dict, name: str):
    """(summary, profile result, checked overrides, options) of one read."""
    summary, checked, options = summarize(source, overrides=overrides, opts=opts, name=name)
    return summary, analyze_read(summary, checked, options), checked, options


def _forced(source, overrides, opts, name, outcome, chosen):
    """_profiled, with the compared and chosen columns forced (counted whatever their
    values); one of them missing from the header is named by its own option."""
    try:
        return _profiled(source, overrides, opts, name)
    except InputError as exc:
        for col in [*outcome, *chosen]:
            head = f"--map: no column named '{col}'"
            if str(exc).startswith(head):
                flag = "--columns" if col in chosen else "scan"
                raise InputError(
                    f"{flag}: '{col}' is not a column of {name}{str(exc)[len(head) :]}"
                ) from None
        raise


def _numeric_bins(weights: dict[str, int]) -> Callable[[str], str | None] | None:
    """NUMERIC_BINS bins of near-equal rows of a numeric column (SPEC 19), labelled by
    the lowest and highest value in each as written; None when a label is not a number."""
    values = []
    for lab, c in weights.items():
        if not AGE_NUMERIC.fullmatch(lab):
            return None
        values.append((float(lab), lab, c))
    values.sort()
    total = sum(c for _, _, c in values)
    bins: list[list[tuple[float, str]]] = [[]]
    seen = 0
    for v, lab, c in values:
        if bins[-1] and seen >= total * len(bins) / NUMERIC_BINS:
            bins.append([])
        bins[-1].append((v, lab))
        seen += c
    uppers = [b[-1][0] for b in bins]
    names = [b[0][1] if len(b) == 1 else f"{b[0][1]}-{b[-1][1]}" for b in bins]

    def to_bin(lab: str) -> str | None:
        v = float(lab)
        for upper, label in zip(uppers, names):
            if v <= upper:
                return label
        return names[-1]

    return to_bin


def _rules(
    names: list[str], labels_of: dict, dims: dict, overrides: dict, options, chosen: list[str]
) -> tuple[dict, dict]:
    """(column -> label as read -> its group or None, column -> how it is binned): a
    dimension's groups are the profile's (SPEC 12.3's `group_rule`: 1.1, then age bands);
    a chosen numeric column with more than max_categorical values is cut into bins."""
    rules: dict = {}
    binned: dict[str, str | None] = {}
    for col in names:
        labels = labels_of[col]
        dim = dims[col]
        rule = group_rule(col, labels, {**overrides, col: dim["kind"]}, options)
        how = "age_bands" if dim.get("age_mode") in ("numeric", "interval") else None
        if col in chosen and dim["n_groups"] > options.max_categorical:
            relabel = relabeler(col, options)
            weights: dict[str, int] = {}
            for lab, c in labels.items():
                new = lab if relabel is None else relabel(lab)
                if new is not None:
                    weights[new] = weights.get(new, 0) + c
            to_bin = _numeric_bins(weights)
            if to_bin is not None:
                rule, how = _composed(relabel, to_bin), "quantiles"
        rules[col] = rule or _same
        binned[col] = how
    return rules, binned


def _same(label: str) -> str:
    return label


def _composed(relabel, fn):
    if relabel is None:
        return fn

    def both(label: str) -> str | None:
        new = relabel(label)
        return None if new is None else fn(new)

    return both


def _label_rule(col: str, options) -> Callable[[str | None], str | None]:
    relabel = relabeler(col, options)

    def rule(lab: str | None) -> str | None:
        if lab is None:
            return None
        return lab if relabel is None else relabel(lab)

    return rule


def _counts_of(summary, col: str) -> dict[str, int]:
    i = summary.columns.index(col)
    counts = summary.counts[i]
    if counts is None:
        raise InputError(f"scan: '{col}' has too many distinct values to search")
    return counts


def _encode(rows: Counter, rules: list, n_attrs: int):
    """(values per attribute sorted, {codes tuple + rest: rows}) of raw label tuples
    whose first n_attrs entries are attribute labels mapped by `rules`."""
    mapped: Counter = Counter()
    caches: list[dict] = [{} for _ in range(n_attrs)]
    for tup, c in rows.items():
        groups = []
        for a in range(n_attrs):
            lab = tup[a]
            cache = caches[a]
            g = cache.get(lab, cache)
            if g is cache:
                g = cache[lab] = None if lab is None else rules[a](lab)
            groups.append(g)
        mapped[(*groups, *tup[n_attrs:])] += c
    values = [sorted({k[a] for k in mapped} - {None}) for a in range(n_attrs)]
    index = [{v: i for i, v in enumerate(vals)} for vals in values]
    out: Counter = Counter()
    for key, c in mapped.items():
        codes = tuple(-1 if key[a] is None else index[a][key[a]] for a in range(n_attrs))
        out[(*codes, *key[n_attrs:])] += c
    return values, out


def _positive(values: dict[str, int], col: str, given: str | None, flag: str) -> str:
    """SPEC 17.3's positive value of a column with these values (after 1.1)."""
    ordered = sorted(values)
    if given is not None:
        if given not in values:
            raise InputError(
                f"{flag} {given}: not a value of '{col}' (values: {_values_text(ordered)})"
            )
        return given
    if len(ordered) != 2:
        raise InputError(
            f"{flag} {col}: {len(ordered)} value{'' if len(ordered) == 1 else 's'}; "
            "name the positive one "
            f"({'--versus COL=VALUE' if flag == '--versus' else '--positive'}) "
            f"(values: {_values_text(ordered)})"
        )
    return ordered[1]


def _label_values(summary, col: str, options) -> dict[str, int]:
    rule = _label_rule(col, options)
    out: dict[str, int] = {}
    for lab, c in _counts_of(summary, col).items():
        new = rule(lab)
        if new is not None:
            out[new] = out.get(new, 0) + c
    return out


def _check_prediction(enc: Counter, n_attrs: int, label: tuple, prediction: tuple) -> None:
    """A prediction that shares no value with the label (after 1.1) makes every row an
    error: refused with both columns' values (SPEC 19). label and prediction are (column,
    its label rule); enc's keys hold their labels as read after n_attrs codes."""
    (label, rule), (prediction, pred_rule) = label, prediction
    truth = {rule(k[n_attrs]) for k in enc} - {None}
    guess = {pred_rule(k[n_attrs + 1]) for k in enc} - {None}
    if truth and guess and not truth & guess:
        truth, guess = sorted(truth), sorted(guess)
        raise InputError(
            f"{spelled('--prediction')} {prediction}: no value in common with "
            f"{spelled('--label')} {label} "
            f"({prediction}: {_values_text(guess)}; {label}: {_values_text(truth)}), so every "
            f"row would be an error; give a prediction in the label's values, or rename "
            f"them with {advised('--recode', f'{prediction}:FROM=TO')}"
        )


# ---- the public function ------------------------------------------------------------


def scan(
    source: Any,
    other: Any = None,
    *,
    versus: str | None = None,
    reference: str | list | None = None,
    label: str | None = None,
    positive: str | None = None,
    prediction: str | None = None,
    columns: Sequence[str] | None = None,
    depth: int = DEFAULT_DEPTH,
    min_size: int | None = None,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    max_seconds: float | None = DEFAULT_SECONDS,
    beam_width: int = DEFAULT_BEAM,
    method: str = "auto",
    alpha: float = 0.05,
    overrides: dict[str, str] | None = None,
    opts: dict | None = None,
    name: str | None = None,
    name_b: str | None = None,
    skip_lines_b: int | None = None,
) -> ScanResult:
    """Find the subgroup where a table differs most (SPEC 19): advisory, never a grade.

    Exactly one question is asked: ``other`` (a second table: representation, A against
    B), ``versus`` (``"COL"`` or ``"COL=VALUE"``: the rows where COL is its positive
    value, or VALUE, against the other rows), ``reference`` (a built-in name such as
    ``"us-2019"``, a path to a column,group,share CSV, or a parsed table) or ``label``
    (the positive rate of COL in a subgroup against the rest; with ``prediction``, the
    error rate, prediction != label).

    Parameters
    ----------
    source, other : path, file object or DataFrame
        The table (and the second one), read as ``faircode.profile`` reads them.
    versus, reference, label : str, optional
        The question (see above); ``reference`` is a built-in name, a path (str or
        os.PathLike) or a parsed table, nothing else. ``positive`` (a str: ``"1"``, not
        ``1``) names the label's positive value when it has more than two values (SPEC
        17.3).
    prediction : str, optional
        With ``label``: scan the model's error rate instead of the label's rate.
    columns : list of str or str, optional
        Columns searched besides the profile's dimensions; a numeric one with more than
        ``max_categorical`` values is cut into five bins of near-equal rows. A string is
        read as ``--columns`` reads it: ``"age,region"`` (SPEC 0.6).
    depth : int
        Most conditions in a subgroup (default 3). This and the other numbers below take
        numpy numbers or their text too, checked as a number option is (SPEC 0.6).
    min_size : int, optional
        Fewest rows of a subgroup (and, for a rate, of the rest); default the profile's
        ``min_group_size`` (100) for a rate, else 0.
    permutations, seed : int
        Tables drawn under the null for the p-value (default 999), from
        ``numpy.random.default_rng(seed)``.
    max_seconds : float or None
        Time bound of the search and the test (default 60); the result says what was
        done within it.
    beam_width : int
        Subgroups kept per level when the space is too large to enumerate.
    method : {"auto", "exact", "beam"}
        ``auto`` enumerates exactly when (attribute sets) x (distinct tuples) is at most
        2,000,000, else runs the beam search.
    alpha : float
        The level of the verdict: ``confirmed`` when p < alpha, else ``possible``.
    overrides, opts : dict, optional
        ``--map`` kinds and the profile's options (``na``, ``recode``, ``age_bands``,
        reading options ...), as for ``faircode.profile``.
    skip_lines_b : int, optional
        With ``other``: the lines skipped before its table, instead of ``opts``'
        ``skip_lines`` (``--skip-lines-b``: ``adult.test`` starts with a junk line).

    Returns
    -------
    ScanResult
        A dict (SPEC 19; ``faircode/schemas/scan.schema.json``).

    Examples
    --------
    >>> import pandas as pd, faircode
    >>> df = pd.DataFrame({"sex": ["F", "M"] * 200, "race": ["A", "A", "B", "B"] * 100,
    ...                    "hired": [1, 0, 0, 0] * 100})
    >>> r = faircode.scan(df, label="hired", permutations=99, min_size=10)
    >>> r["subgroup"]["text"]
    "sex = 'F' and race = 'A'"
    >>> round(r["subgroup"]["effect"], 2)
    1.0
    """
    chosen = [versus is not None, reference is not None, label is not None, other is not None]
    if sum(chosen) != 1:
        raise InputError(
            "scan: ask one question: a second file B, --versus COL[=VALUE], "
            "--reference NAME|FILE or --label COL"
        )
    if prediction is not None and label is None:
        raise InputError(
            f"scan: {spelled('--prediction')} needs {spelled('--label')} (the error rate is "
            "prediction != label)"
        )
    if positive is not None and label is None:
        raise InputError(
            f"scan: {spelled('--positive')} goes with {spelled('--label')} "
            f"({spelled('--versus')} takes COL=VALUE)"
        )
    depth = number_arg("--depth", depth, 1, MAX_DEPTH, f"1..{MAX_DEPTH}", integer=True)
    permutations = number_arg(
        "--permutations", permutations, 0, MAX_PERMUTATIONS, f"0..{MAX_PERMUTATIONS}", integer=True
    )
    seed = number_arg("--seed", seed, 0, 2**32 - 1, "0..2^32-1", integer=True)
    if max_seconds is not None and max_seconds != math.inf:  # inf: no bound, as the CLI's
        max_seconds = number_arg("--max-seconds", max_seconds, 0, None, "> 0", lo_open=True)
    beam_width = number_arg("--beam-width", beam_width, 1, None, "integer >= 1", integer=True)
    if method not in ("auto", "exact", "beam"):
        raise InputError(f"scan: unknown method '{method}' (auto, exact or beam)")
    alpha = number_arg("--alpha", alpha, 0, 1, "0..1", lo_open=True, hi_open=True)
    if min_size is not None:
        min_size = number_arg("--min-size", min_size, 0, None, "integer >= 0", integer=True)
    if skip_lines_b is not None:
        if other is None:
            raise InputError("scan: --skip-lines-b goes with a second file B")
        skip_lines_b = number_arg(
            "--skip-lines-b", skip_lines_b, 0, None, "integer >= 0", integer=True
        )
    for flag, text in (("--versus", versus), ("--prediction", prediction)):
        if text is not None:
            text_arg(flag, text)
    if label is not None:
        label = check_option("label", label)
    if positive is not None:
        positive = check_option("positive", positive)
    overrides = dict_arg("overrides", overrides)
    opts = dict_arg("opts", opts)
    opts["missing_by_group"] = False  # not used here
    for key in ("label", "positive", "reference", "cross"):
        opts.pop(key, None)
    opts_b = opts if skip_lines_b is None else {**opts, "skip_lines": skip_lines_b}
    chosen = [] if columns is None else text_items("--columns", columns, commas=True)
    if not all(chosen):
        raise InputError(f"{spelled('--columns')}: expected A,B,..., got '{','.join(chosen)}'")
    versus_col = versus_value = None
    if versus is not None:
        col, sep, value = versus.partition("=")
        versus_col, versus_value = col.strip(" \t"), (value if sep else None)
        if not versus_col:
            raise InputError(f"--versus: expected COL or COL=VALUE, got '{versus}'")
        outcome = [versus_col]
    elif label is not None:
        outcome = [label] + ([prediction] if prediction is not None else [])
        if prediction == label:
            raise InputError("--prediction: give a column other than the label")
    else:
        outcome = []
    for col in chosen:
        if col in outcome:
            raise InputError(f"--columns: '{col}' is the compared column, not an attribute")
    # the compared columns and the chosen ones are counted (forced), never searched as
    # dimensions unless chosen
    for col in [*outcome, *chosen]:
        overrides.setdefault(col, "categorical")
    name = name or display_name(source, "" if other is None else "A")  # SPEC 0.6
    source = _reread(source)
    ref_name = None
    if reference is not None:
        if isinstance(reference, list):
            opts["reference"], ref_name = reference, "the reference"
        else:
            opts["reference"], _, ref_name = load_reference(reference)
    summary, result, checked, options = _forced(source, overrides, opts, name, outcome, chosen)
    for col in [*outcome, *chosen]:
        if col not in summary.columns:
            flag = "--columns" if col in chosen else "scan"
            raise InputError(f"{flag}: '{col}' is not a column of {name}")
    dims = {d["name"]: d for d in result["dimensions"] if d["name"] not in outcome}
    for col in chosen:
        if col not in dims:
            raise InputError(f"--columns: '{col}' is not searched (--map {col}={checked[col]})")
    notes: list[str] = []
    if other is not None:
        name_b = name_b or display_name(other, "B")
        other = _reread(other)
        summary_b, result_b, _, options_b = _forced(
            other, overrides, opts_b, name_b, outcome, chosen
        )
        dims_b = {d["name"]: d for d in result_b["dimensions"]}
        attrs = [n for n in dims if n in dims_b]
        one_side = [n for n in [*dims, *dims_b] if n not in attrs]
        if one_side:
            notes.append(f"a dimension of one side only, not searched: {', '.join(one_side)}")
        labels_of = {}
        for n in attrs:
            both = Counter(_counts_of(summary, n))
            both.update(_counts_of(summary_b, n))
            labels_of[n] = dict(both)
    else:
        attrs = list(dims)
        labels_of = {n: _counts_of(summary, n) for n in attrs}
    if not attrs:
        raise InputError(
            f"scan: {name} has no dimension to search; declare one with "
            f"{advised('--map', 'COLUMN=KIND')} or name columns with {spelled('--columns')}"
        )
    search_opts = {
        "depth": depth,
        "permutations": permutations,
        "seed": seed,
        "max_seconds": max_seconds,
        "beam_width": beam_width,
        "method": method,
    }
    if reference is not None:
        return _reference_scan(
            source, summary, result, dims, attrs, labels_of, checked, options, name, ref_name,
            min_size, alpha, notes, chosen, search_opts,
        )  # fmt: skip
    rules, binned = _rules(attrs, labels_of, dims, checked, options, chosen)
    rule_list = [rules[a] for a in attrs]
    n_attrs = len(attrs)
    pos = None
    if other is not None:
        rows_a = _column_cells(source, attrs, options, name)
        rows_b = _column_cells(other, attrs, options_b, name_b)
        raw = Counter({(*k, 0): c for k, c in rows_a.items()})
        raw.update({(*k, 1): c for k, c in rows_b.items()})
        values, enc = _encode(raw, rule_list, n_attrs)
        question = "representation"
        compared: dict = {"a": {"name": name, "rows": 0}, "b": {"name": name_b, "rows": 0}}
        side_of = {k: k[-1] for k in enc}
    else:
        raw = _column_cells(source, attrs + outcome, options, name)
        values, enc = _encode(raw, rule_list, n_attrs)
        rule = _label_rule(outcome[0], options)
        side_of = {}
        if versus_col is not None:
            pos = _positive(
                _label_values(summary, versus_col, options), versus_col, versus_value, "--versus"
            )
            question = "representation"
            compared = {
                "a": {"name": f"{versus_col} != {_quote(pos)}", "rows": 0},
                "b": {"name": f"{versus_col} = {_quote(pos)}", "rows": 0},
            }
            for k in enc:
                v = rule(k[n_attrs])
                side_of[k] = None if v is None else int(v == pos)
        elif prediction is None:
            pos = _positive(_label_values(summary, label, options), label, positive, "--positive")
            question = "rate"
            for k in enc:
                v = rule(k[n_attrs])
                side_of[k] = None if v is None else int(v == pos)
        else:
            question = "rate"
            pred_rule = _label_rule(prediction, options)
            _check_prediction(enc, n_attrs, (label, rule), (prediction, pred_rule))
            for k in enc:
                v, w = rule(k[n_attrs]), pred_rule(k[n_attrs + 1])
                side_of[k] = None if v is None or w is None else int(w != v)
    dropped = sum(c for k, c in enc.items() if side_of[k] is None)
    agg: dict[tuple, list[int]] = {}
    for k, c in enc.items():
        s = side_of[k]
        if s is not None:
            cell = agg.setdefault(k[:n_attrs], [0, 0])
            cell[0] += c
            cell[1] += c * s
    keys = sorted(agg)
    weight = [agg[k][0] for k in keys]
    count = [agg[k][1] for k in keys]
    n_all, n_b = sum(weight), sum(count)
    if question == "representation":
        totals = (n_all - n_b, n_b)
        compared["a"]["rows"], compared["b"]["rows"] = totals
    else:
        totals = (n_all, n_b)
        compared = {
            "label": label,
            "positive": pos,
            "prediction": prediction,
            "rows": n_all,
            "positives": n_b,
            "rate": round_half_up(n_b / n_all, 4) if n_all else None,
        }
    if dropped:
        what = versus_col or label
        if prediction is not None:
            what = f"{label} or {prediction}"
        notes.append(f"{dropped} rows with {what} missing are not compared")
    table = Table(attrs, values, keys, weight, count, question, totals)
    if question == "representation":
        notes.extend(_missing_notes(table, compared))
    if min_size is None:
        min_size = options.min_group_size if question == "rate" else 0
    found = search(table, min_size=min_size, **search_opts)
    out = _result(table, found, compared, chosen, binned, min_size, alpha, notes, name, search_opts)
    if other is not None:  # the reports' title names both files (SPEC 19)
        out._name_b = name_b
    return out


def _missing_notes(table: Table, compared: dict) -> list[str]:
    """One note per searched attribute without a value in some rows (representation):
    its rows missing on each side, which its subgroups' shares leave out (SPEC 19)."""
    out = []
    (na, nb), a, b = table.totals, compared["a"]["name"], compared["b"]["name"]
    for i, attr in enumerate(table.attrs):
        ha, hb = table.sides((i,))  # the rows that have it
        ma, mb = na - ha, nb - hb
        if ma or mb:
            out.append(
                f"{attr} has no value in {ma:,} of {na:,} rows of {a} and {mb:,} of {nb:,} of "
                f"{b}: a subgroup on it is compared among the rows that have it"
            )
    return out


def _reference_scan(
    source, summary, result, dims, attrs, labels_of, checked, options, name, ref_name,
    min_size, alpha, notes, chosen, search_opts,
) -> ScanResult:  # fmt: skip
    """SPEC 19's reference question: the matched dimensions' joint shares against the
    product of the reference's shares of each (normalised to sum to 1)."""
    entries = match_reference(options.reference, list(dims.values()))
    matched = []
    expected: dict[str, dict] = {}
    key_fns = {}
    for n in attrs:
        if n not in entries:
            continue
        dim = dims[n]
        years = None
        if dim.get("age_mode") in ("numeric", "interval", "interval_as_written"):
            rule = _label_rule(n, options)
            labels = {rule(lab) for lab in _counts_of(summary, n)} - {None}
            years = _age_years(dim, dim["age_mode"], options, labels)
        key_of, shares, _span = expected_shares(dim, entries[n], years)
        if not set(map(key_of, (g["label"] for g in dim["groups"]))) & set(shares):
            notes.append(f"{n}: no label matches the reference; not searched")
            continue
        total = sum(s for _, s in shares.values())
        if total <= 0:
            notes.append(f"{n}: the reference's shares sum to 0; not searched")
            continue
        matched.append(n)
        expected[n] = {k: (lab, s / total) for k, (lab, s) in shares.items()}
        key_fns[n] = key_of
    skipped = [n for n in attrs if n not in matched]
    if skipped:
        notes.append(f"not in the reference, not searched: {', '.join(skipped)}")
    if not matched:
        raise InputError(f"{spelled('--reference')}: no dimension of {name} matches {ref_name}")
    rules, binned = _rules(matched, labels_of, dims, checked, options, chosen)
    raw = _column_cells(source, matched, options, name)
    values, enc = _encode(raw, [rules[a] for a in matched], len(matched))
    # an attribute's values: its reference keys (their spelling), then data-only groups
    keyed_values = []
    remap = []
    for a, n in enumerate(matched):
        key_of = key_fns[n]
        labels = [lab for lab, _ in expected[n].values()]
        keys = list(expected[n])
        at = {k: i for i, k in enumerate(keys)}
        codes = []
        for v in values[a]:
            k = key_of(v)
            if k not in at:
                at[k] = len(keys)
                keys.append(k)
                labels.append(v)
            codes.append(at[k])
        keyed_values.append(labels)
        remap.append(codes)
    counts: Counter = Counter()
    incomplete = 0
    for k, c in enc.items():
        if any(x < 0 for x in k):
            incomplete += c
            continue
        counts[tuple(remap[a][x] for a, x in enumerate(k))] += c
    if incomplete:
        notes.append(f"{incomplete} rows missing a searched attribute are not compared")
    n_cells = math.prod(len(v) for v in keyed_values)
    if n_cells > MAX_REFERENCE_CELLS:
        raise InputError(
            f"{spelled('--reference')}: {n_cells:,} cells of {', '.join(matched)} (at most "
            f"{MAX_REFERENCE_CELLS:,}); map fewer groups"
        )
    shares_by = []
    for a, n in enumerate(matched):
        keys = list(expected[n])
        shares_by.append(
            [expected[n][k][1] for k in keys] + [0.0] * (len(keyed_values[a]) - len(keys))
        )
    keys_all = list(itertools.product(*[range(len(v)) for v in keyed_values]))
    weight = [math.prod(shares_by[a][x] for a, x in enumerate(k)) for k in keys_all]
    count = [counts.get(k, 0) for k in keys_all]
    n_rows = sum(count)
    table = Table(matched, keyed_values, keys_all, weight, count, "reference", (n_rows,))
    if min_size is None:
        min_size = 0
    found = search(table, min_size=min_size, **search_opts)
    compared = {"a": {"name": ref_name, "rows": None}, "b": {"name": name, "rows": n_rows}}
    if len(matched) > 1:
        notes.append(
            "a subgroup's expected share is the product of the reference's shares of its "
            "attributes (the reference gives each attribute alone)"
        )
    return _result(
        table, found, compared, chosen, binned, min_size, alpha, notes, name, search_opts
    )


# ---- the result -----------------------------------------------------------------


def _quote(text: str) -> str:
    return "'" + text.replace("'", "\\'") + "'"


def rule_text(attrs: list[str], values: list[str]) -> str:
    """`race = 'Black' and sex = 'Female'` (SPEC 19)."""
    return " and ".join(f"{a} = {_quote(v)}" for a, v in zip(attrs, values))


def _subgroup(table: Table, f: tuple) -> dict:
    """A found subgroup as the result lists it (its p and verdict added by the caller)."""
    _key, subset, vals, sy, sn, score = f
    attrs = [table.attrs[a] for a in subset]
    values = [table.values[a][v] for a, v in zip(subset, vals)]
    out: dict = {
        "rule": [{"attribute": a, "value": v} for a, v in zip(attrs, values)],
        "text": rule_text(attrs, values),
        "length": len(subset),
    }
    q = table.question
    sy_i = int(round(sy))
    if q == "representation":
        na, nb = table.sides(subset)
        ca, cb = int(round(sn)) - sy_i, sy_i
        effect = cb / nb - ca / na
        lo, hi = newcombe(cb, nb, ca, na, Z)
        out.update(
            rows=ca + cb,
            rows_a=ca,
            rows_b=cb,
            n_a=na,
            n_b=nb,
            share_a=round_half_up(ca / na, 4),
            share_b=round_half_up(cb / nb, 4),
        )
    elif q == "reference":
        (n,) = table.totals
        effect = sy_i / n - sn
        lo, hi = wilson_bounds(sy_i, n)
        lo, hi = lo - sn, hi - sn
        out.update(rows=sy_i, share=round_half_up(sy_i / n, 4), expected=round_half_up(sn, 4))
    else:
        n, pos = table.totals
        rows = int(round(sn))
        rest, rest_pos = n - rows, pos - sy_i
        effect = sy_i / rows - rest_pos / rest
        lo, hi = newcombe(sy_i, rows, rest_pos, rest, Z)
        out.update(
            rows=rows,
            positives=sy_i,
            rate=round_half_up(sy_i / rows, 4),
            rate_rest=round_half_up(rest_pos / rest, 4),
        )
    out.update(
        effect=round_half_up(effect, 4),
        discrepancy=round_half_up(abs(effect), 4),
        score=round_half_up(score, 4),
        ci_low=round_half_up(lo, 4),
        ci_high=round_half_up(hi, 4),
    )
    return out


STATISTICS = {
    "representation": "max_subgroup_discrepancy",
    "reference": "max_subgroup_discrepancy",
    "rate": "rate_gap_z",
}


def _declare(table: Table, sub: dict, name: str) -> dict:
    """How to watch a found subgroup (SPEC 19): the profile's --cross and the monitor's
    registry entry. The command's arguments are shell-quoted: a pattern stays the one
    dataset it names, a name with a space one argument."""
    import json  # lazy: start-up
    import shlex  # lazy: start-up

    attrs = [c["attribute"] for c in sub["rule"]]
    cross = ",".join(attrs[:2]) if len(attrs) >= 2 else None
    command = f"faircode profile {shlex.quote(name)}" + (
        f" --cross {shlex.quote(cross)}" if cross else ""
    )
    slices = "[" + ", ".join(json.dumps(a, ensure_ascii=False) for a in attrs) + "]"
    registry = f"models:\n  MODEL:\n    slices: {slices}\n"
    return {"cross": cross, "profile": command, "registry": registry}


def _nothing_note(table: Table, min_size: int, compared: dict) -> str:
    """Why no subgroup is reported, with its numbers (SPEC 19): the size floor, an
    overall rate of 0 or 1, or no difference at all."""
    import numpy as np  # lazy: start-up

    q = table.question
    size = table.count if q == "reference" else table.weight
    largest = 0
    for a in range(len(table.attrs)):  # a subgroup is no larger than its one-condition parts
        ok = table.codes[:, a] >= 0
        if ok.any():
            by_value = np.bincount(table.codes[ok, a], weights=size[ok])
            largest = max(largest, int(round(by_value.max())))
    floor = max(1, min_size) if q == "rate" else min_size
    tail = "; nothing to test, no p-value"
    if q == "rate" and table.totals[0] < 2 * floor:
        return (
            f"no subgroup: a rate gap needs --min-size {min_size:,} rows in the subgroup and "
            f"in the rest, and the table has {table.totals[0]:,}{tail}"
        )
    if largest < floor:
        return f"no subgroup has --min-size {min_size:,} rows (the largest has {largest:,}){tail}"
    if q == "rate" and table.totals[1] in (0, table.totals[0]):
        rate = pct(table.totals[1] / table.totals[0])
        return f"the overall rate is {rate}%: no subgroup's rate differs from the rest's{tail}"
    if q == "representation":
        a, b = compared["a"]["name"], compared["b"]["name"]
        if not any(min(table.sides((i,))) for i in range(len(table.attrs))):
            return f"no searched attribute has a value in both {a} and {b}{tail}"
        return f"no subgroup's share differs between {a} and {b} (every discrepancy is 0){tail}"
    return f"no subgroup of at least --min-size {min_size:,} rows differs{tail}"


def _result(
    table, found, compared, chosen, binned, min_size, alpha, notes, name, search_opts
) -> ScanResult:
    attributes = [
        {
            "name": a,
            "source": "column" if a in chosen else "dimension",
            "binned": binned.get(a),
            "values": list(table.values[i]),
        }
        for i, a in enumerate(table.attrs)
    ]
    permutations = search_opts["permutations"]
    max_seconds = search_opts["max_seconds"]
    best = found["found"]
    subgroup = None
    runners = []
    if best:
        subgroup = _subgroup(table, best[0])
        p = found["p"]
        subgroup["p"] = None if p is None else round_half_up(p, 4)
        subgroup["verdict"] = None if p is None else ("confirmed" if p < alpha else "possible")
        runners = [_subgroup(table, f) for f in best[1:]]
    done = found["permutations_done"]
    if best and done < permutations:  # only the time bound stops a test that has a T
        notes.append(
            f"{done} of {permutations} permutations within --max-seconds {max_seconds:g}"
            + ("" if done else "; no p-value")
        )
    if not found["complete"]:
        notes.append(
            f"the search stopped at --max-seconds {max_seconds:g}; the subgroup is the best found"
        )
    if subgroup is None:
        notes.append(_nothing_note(table, min_size, compared))
    out = {
        "kind": "faircode.scan",
        "format_version": SCAN_FORMAT_VERSION,
        "question": table.question,
        "statistic": STATISTICS[table.question],
        "compared": compared,
        "attributes": attributes,
        "search": {
            "method": found["method"],
            "depth": search_opts["depth"],
            "min_size": min_size,
            "beam_width": search_opts["beam_width"] if found["method"] == "beam" else None,
            "attribute_sets": found["sets"],
            "space": found["space"],
            "evaluated": found["evaluated"],
            "complete": found["complete"],
            "seconds": round_half_up(found["seconds"], 2),
        },
        "test": {
            "method": "bootstrap" if table.question == "reference" else "permutation",
            "permutations": permutations,
            "done": done,
            "seed": search_opts["seed"],
            "alpha": alpha,
        },
        "subgroup": subgroup,
        "runners_up": runners,
        "declare": None if subgroup is None else _declare(table, subgroup, name),
        "advisory": True,
        "notes": notes,
    }
    return ScanResult(out, name=name)
