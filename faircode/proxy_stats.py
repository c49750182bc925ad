"""Proxy hints' statistics (SPEC.md section 16): which pairs of dimensions, and which
other columns, are associated with a dimension.

A chi-squared test of independence, with Cramér's V, over every pair of scored
dimensions, from the summary's pair tables (no second read of the profiled file), and
over held-out columns of other files; each scored dimension against every other counted
column (features): categorical ones by chi-squared, numeric ones by a one-way ANOVA with
the correlation ratio, from exact per-group sums. Needs scipy (the `proxy` extra), imported
only when hints are computed. The block's terminal text is :mod:`faircode.proxy_render`,
and the public API :mod:`faircode.proxy`; its CLI flags come from the option table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from .errors import require
from .labels import outcome_value
from .numerics import fmt, round_half_up, scaled
from .options import Options, relabeler, spelled
from .summary import LABEL_CAP, PAIR_COLUMNS, PROXY_LABELS, pair_cells

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "adjust",
    "anova_test",
    "chi2_test",
    "hints_block",
    "p_text",
    "round_p",
    "summary_hints",
]


def _what() -> str:
    """What needs scipy, its option as the surface spells it (SPEC 0.6, 16): ``proxy
    hints (--proxy-hints)`` on the command line, ``(proxy_hints)`` on the API."""
    return f"proxy hints ({spelled('--proxy-hints')})"


#: Cochran's rule (SPEC 16): small when more than 20% of expected cells are below 5, or
#: any is below 1.
SMALL_EXPECTED = 5.0
SMALL_SHARE = 0.2
TINY_EXPECTED = 1.0
PERMUTATION_CHUNK = 1000  # random tables drawn at once (bounded memory)
#: Not-tested pairs named in flags; then one line counts the rest (SPEC 16).
NOT_TESTED_FLAGS = 10


def round_p(p: float) -> float:
    """A p-value as reported: 4 dp from 0.0001 up, else 3 significant digits (SPEC 16)."""
    if p >= 0.0001:
        return round_half_up(p, 4)
    return float(f"{p:.3g}")


def p_text(p: float) -> str:
    """A reported p-value as text: 4 decimals, or 3 significant digits below 0.0001."""
    return fmt(p, 4) if p >= 0.0001 else f"{p:.3g}"


def adjust(p_values: Sequence[float], correction: str) -> list[float]:
    """Adjusted p-values (SPEC 16): Holm's step-down, Bonferroni, or none; at most 1."""
    m = len(p_values)
    if correction == "none":
        return [float(p) for p in p_values]
    if correction == "bonferroni":
        return [min(1.0, m * p) for p in p_values]
    if correction != "holm":
        raise ValueError(f"unknown correction {correction!r}")
    order = sorted(range(m), key=lambda k: p_values[k])
    out = [0.0] * m
    running = 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[k]))
        out[k] = running
    return out


def _small_expected(expected: Any) -> bool:
    cells = expected.size
    below5 = int((expected < SMALL_EXPECTED).sum())
    return bool((expected < TINY_EXPECTED).any()) or below5 > SMALL_SHARE * cells


def chi2_test(table: Any, opts: Options) -> dict:
    """The statistics of one r x c table of counts (every row and column sum > 0, r, c
    >= 2): chi2, dof, p_value (unrounded), cramers_v, n, small_expected, method."""
    stats = require("scipy.stats", _what())  # first: scipy brings numpy
    np = require("numpy", _what())
    obs = np.asarray(table, dtype=np.int64)
    res = stats.chi2_contingency(obs, correction=False)
    chi2, p, dof, expected = float(res[0]), float(res[1]), int(res[2]), res[3]
    n = int(obs.sum())
    k = min(obs.shape) - 1
    v = math.sqrt(chi2 / (n * k)) if n and k else 0.0
    method = "chi2"
    if opts.proxy_exact:
        if obs.shape == (2, 2):
            p = float(stats.fisher_exact(obs).pvalue)
            method = "fisher"
        else:
            p = _permutation_p(obs, expected, chi2, opts, np, stats)
            method = "permutation"
    return {
        "chi2": chi2,
        "dof": dof,
        "p_value": p,
        "cramers_v": v,
        "n": n,
        "small_expected": _small_expected(expected),
        "method": method,
    }


def _permutation_p(
    obs: Any, expected: Any, chi2: float, opts: Options, np: Any, stats: Any
) -> float:
    """(1 + tables at least as extreme) / (1 + permutations): tables drawn with the
    observed margins (a permutation of one column against the other), seeded per pair."""
    rng = np.random.default_rng(opts.proxy_seed)
    dist = stats.random_table(obs.sum(axis=1), obs.sum(axis=0), seed=rng)
    left = opts.proxy_permutations
    hits = 0
    tol = 1e-9 * max(1.0, chi2)  # ties up to float noise count as at least as extreme
    while left:
        k = min(left, PERMUTATION_CHUNK)
        tables = dist.rvs(size=k, random_state=rng).astype(np.float64)
        stat = (((tables - expected) ** 2) / expected).sum(axis=(1, 2))
        hits += int((stat >= chi2 - tol).sum())
        left -= k
    return (1 + hits) / (1 + opts.proxy_permutations)


def anova_test(groups: Sequence[tuple[int, int, int]]) -> dict:
    """One-way ANOVA of k >= 2 groups given as exact sums (n, s1, s2) (SPEC 16, the
    scaled sums of SPEC 21.2), N > k, not all values equal: eta_squared = SS_between /
    SS_total, F = (SS_between / (k - 1)) / (SS_within / (N - k)), each the exact rational
    rounded once; p = scipy.stats.f.sf(F, k - 1, N - k). F is None (p 0) when every group
    is constant."""
    stats = require("scipy.stats", _what())
    k = len(groups)
    big_n = sum(g[0] for g in groups)
    s1 = sum(g[1] for g in groups)
    s2 = sum(g[2] for g in groups)
    grand = Fraction(s1 * s1, big_n)
    between = sum((Fraction(g[1] * g[1], g[0]) for g in groups), Fraction(0)) - grand
    total = s2 - grand
    within = total - between
    df1, df2 = k - 1, big_n - k
    if within == 0:
        f, p = None, 0.0
    else:
        f = float(between * df2 / (within * df1))
        p = float(stats.f.sf(f, df1, df2))
    return {
        "eta_squared": float(between / total),
        "statistic": f,
        "dof": df1,
        "dof_within": df2,
        "p_value": p,
        "n": big_n,
        "method": "anova",
    }


def _crosstab(
    cells: Mapping[tuple[str, str], int], groups_a: list[str], groups_b: list[str]
) -> tuple[list[list[int]], int, int]:
    """The counts of `cells` as rows of a's groups by b's groups (group order), only
    groups with at least one row where the other side is present."""
    rows = {g: 0 for g in groups_a}
    cols = {g: 0 for g in groups_b}
    for (x, y), c in cells.items():
        if x in rows and y in cols:
            rows[x] += c
            cols[y] += c
    ra = [g for g in groups_a if rows[g]]
    cb = [g for g in groups_b if cols[g]]
    table = [[cells.get((x, y), 0) for y in cb] for x in ra]
    return table, len(ra), len(cb)


FEWER = "fewer than two groups on one side among rows where both are present"


def hints_block(
    pairs: Sequence[tuple[str, str, Callable[[], Mapping[tuple[str, str], int] | str]]],
    groups: Mapping[str, list[str]],
    opts: Options,
    held_out: list[dict] | None = None,
    features: Sequence[tuple[str, str, Callable[[], tuple | str]]] = (),
) -> tuple[dict, list[str]]:
    """`result["proxy_hints"]` and its flags. pairs: (a, b, cells) where cells() gives
    the (group of a, group of b) -> count table, or a string saying why it was not
    counted; groups: every tested name's groups in order. features: (dimension, column,
    test) where test() gives ("chi2", table), ("anova", [(n, s1, s2) per group]) or why
    not (SPEC 16); one correction runs over the pairs' and the features' tests."""
    tested: list[tuple[str, str, dict]] = []
    not_tested: list[dict] = []
    for a, b, get in pairs:
        cells = get()
        if isinstance(cells, str):
            not_tested.append({"a": a, "b": b, "why": cells})
            continue
        table, r, c = _crosstab(cells, groups[a], groups[b])
        if r < 2 or c < 2:
            not_tested.append({"a": a, "b": b, "why": FEWER})
            continue
        tested.append((a, b, chi2_test(table, opts)))
    f_tested: list[tuple[str, str, dict]] = []
    f_not_tested: list[dict] = []
    for a, b, get in features:
        got = get()
        if isinstance(got, str):
            f_not_tested.append({"a": a, "b": b, "why": got})
            continue
        kind, data = got
        st = chi2_test(data, opts) if kind == "chi2" else anova_test(data)
        f_tested.append((a, b, st))
    everything = [t[2]["p_value"] for t in tested] + [t[2]["p_value"] for t in f_tested]
    adjusted = adjust(everything, opts.proxy_correction)
    rows = []
    for (a, b, st), p_adj in zip(tested, adjusted):
        rows.append((p_adj, st["p_value"], -st["cramers_v"], a, b, st))
    rows.sort(key=lambda r: r[:5])
    hints = []
    flags = []
    for p_adj, _p, _v, a, b, st in rows:
        significant = p_adj <= opts.proxy_alpha
        hint = {
            "a": a,
            "b": b,
            "chi2": round_half_up(st["chi2"], 4),
            "dof": st["dof"],
            "p_value": round_p(st["p_value"]),
            "p_adjusted": round_p(p_adj),
            "cramers_v": round_half_up(st["cramers_v"], 4),
            "n": st["n"],
            "significant": significant,
            "small_expected": st["small_expected"],
            "method": st["method"],
        }
        hints.append(hint)
        if significant:
            flags.append(
                f"proxy: '{a}' and '{b}' are associated (Cramér's V "
                f"{fmt(hint['cramers_v'], 4)}, p {p_text(hint['p_adjusted'])} "
                f"after {opts.proxy_correction})"
            )
        if st["small_expected"] and st["method"] == "chi2":
            flags.append(
                f"proxy: '{a}' x '{b}': small expected counts (Cochran: over 20% below 5 or "
                "any below 1); the chi-squared p-value is approximate (--proxy-exact)"
            )
    for nt in not_tested[:NOT_TESTED_FLAGS]:
        flags.append(f"proxy: '{nt['a']}' x '{nt['b']}' not tested ({nt['why']})")
    if len(not_tested) > NOT_TESTED_FLAGS:
        more = len(not_tested) - NOT_TESTED_FLAGS
        flags.append(f"proxy: {more} more pairs not tested (the JSON lists all)")
    feature_rows, feature_flags = _feature_rows(f_tested, adjusted[len(tested) :], opts)
    flags.extend(feature_flags)
    if f_not_tested:
        m = len(f_not_tested)
        flags.append(
            f"proxy: {m} dimension x column {'pair' if m == 1 else 'pairs'} not tested "
            "(features_not_tested in the JSON says why)"
        )
    block: dict = {
        "alpha": opts.proxy_alpha,
        "correction": opts.proxy_correction,
        "exact": opts.proxy_exact,
    }
    if opts.proxy_exact:
        block["permutations"] = opts.proxy_permutations
        block["seed"] = opts.proxy_seed
    if held_out:
        block["held_out"] = held_out
    block["hints"] = hints
    block["not_tested"] = not_tested
    block["features"] = feature_rows
    block["features_not_tested"] = f_not_tested
    return block, flags


def strength(st: Mapping) -> float:
    """A feature's strength on one scale (SPEC 16): Cramér's V, or for a numeric column
    the correlation ratio eta = sqrt(eta_squared) (both |r| for two groups)."""
    if "eta_squared" in st:
        return math.sqrt(st["eta_squared"])
    return st["cramers_v"]


def _feature_rows(
    tested: list[tuple[str, str, dict]], adjusted: Sequence[float], opts: Options
) -> tuple[list[dict], list[str]]:
    """The `features` rows, strongest first (SPEC 16), and the flags of the significant
    ones (the first NOT_TESTED_FLAGS, then one line for the rest)."""
    order = sorted(
        zip(tested, adjusted),
        key=lambda t: (-strength(t[0][2]), t[1], t[0][2]["p_value"], t[0][0], t[0][1]),
    )
    rows = []
    flags = []
    more = 0
    corr = opts.proxy_correction
    for (a, b, st), p_adj in order:
        significant = p_adj <= opts.proxy_alpha
        row: dict = {"a": a, "b": b, "method": st["method"]}
        if st["method"] == "anova":
            row["eta_squared"] = round_half_up(st["eta_squared"], 4)
            f = st["statistic"]
            row["statistic"] = None if f is None else round_half_up(f, 4)
            row["dof"] = st["dof"]
            row["dof_within"] = st["dof_within"]
            effect = f"eta squared {fmt(row['eta_squared'], 4)}"
        else:
            row["cramers_v"] = round_half_up(st["cramers_v"], 4)
            row["statistic"] = round_half_up(st["chi2"], 4)
            row["dof"] = st["dof"]
            effect = f"Cramér's V {fmt(row['cramers_v'], 4)}"
        row["p_value"] = round_p(st["p_value"])
        row["p_adjusted"] = round_p(p_adj)
        row["n"] = st["n"]
        row["significant"] = significant
        if st["method"] != "anova":
            row["small_expected"] = st["small_expected"]
        rows.append(row)
        if significant:
            if len(flags) < NOT_TESTED_FLAGS:
                flags.append(
                    f"proxy: '{b}' is associated with '{a}' ({effect}, "
                    f"p {p_text(row['p_adjusted'])} after {corr})"
                )
            else:
                more += 1
    if more:
        flags.append(f"proxy: {more} more columns associated with a dimension (the JSON lists all)")
    return rows, flags


def not_counted_why(columns: list[str], overrides: Mapping[str, str], ia: int, ib: int) -> str:
    """Why a pair of dimensions has no pair table (SPEC 16): past PAIR_COLUMNS."""
    counted = [k for k, c in enumerate(columns) if overrides.get(c) != "ignore"]
    for k in (min(ia, ib), max(ia, ib)):
        if counted.index(k) >= PAIR_COLUMNS:
            return f"'{columns[k]}' is not among the first {PAIR_COLUMNS} counted columns"
    return "not counted while reading"


def summary_hints(
    summary: Any,
    overrides: Mapping[str, str],
    dims: list[dict],
    index_of: dict[str, int],
    mappers: dict,
    opts: Options,
) -> tuple[dict, list[str]]:
    """SPEC 16 over a profile's dimensions (and the summary's held-out columns)."""
    names = [d["name"] for d in dims]
    groups = {d["name"]: [g["label"] for g in d["groups"]] for d in dims}
    pairs: list = []
    for k, a in enumerate(names):
        for b in names[k + 1 :]:

            def get(a: str = a, b: str = b) -> Mapping[tuple[str, str], int] | str:
                cells = pair_cells(summary, (a, b), index_of, mappers)
                if cells is None:
                    return not_counted_why(summary.columns, overrides, index_of[a], index_of[b])
                return cells

            pairs.append((a, b, get))
    held = summary.held
    info = None
    if held is not None:
        info = held["info"]
        base = len(summary.columns)
        hnames = held["names"]
        for k, h in enumerate(hnames):
            counts = held["counts"][k]
            groups[h] = sorted(counts or {}, key=lambda lab, c=counts: (-c[lab], lab))
        for k, h in enumerate(hnames):
            for a in names:
                ia = index_of[a]

                def get_h(ia: int = ia, k: int = k) -> Mapping[tuple[str, str], int] | str:
                    raw = held["pairs"].get((ia, base + k))
                    if raw is None:
                        return _held_why(summary, overrides, ia, held, k)
                    cells: dict[tuple[str, str], int] = {}
                    for (x, y), c in raw.items():
                        g = mappers[ia](x)
                        if g is not None:
                            cells[(g, y)] = cells.get((g, y), 0) + c
                    return cells

                pairs.append((a, h, get_h))
            for m in range(k + 1, len(hnames)):

                def get_hh(k: int = k, m: int = m) -> Mapping[tuple[str, str], int] | str:
                    raw = held["pairs"].get((base + k, base + m))
                    if raw is None:
                        return "a held-out column was capped"
                    return dict(raw)

                pairs.append((h, hnames[m], get_hh))
    features = feature_tests(summary, overrides, dims, index_of, mappers, opts)
    return hints_block(pairs, groups, opts, info, features)


def feature_tests(
    summary: Any,
    overrides: Mapping[str, str],
    dims: list[dict],
    index_of: dict[str, int],
    mappers: dict,
    opts: Options,
) -> list[tuple[str, str, Callable[[], tuple | str]]]:
    """(dimension, column, test) for each scored dimension and every other counted
    column, dimensions in order, then columns in order (SPEC 16)."""
    names = {d["name"] for d in dims}
    cols = summary.columns
    counted = [
        i
        for i, c in enumerate(cols)
        if overrides.get(c) != "ignore" and c != opts.label and c not in opts.outcome
    ]
    first = set(counted[:PAIR_COLUMNS])
    out = []
    for d in dims:
        a = d["name"]
        ia = index_of[a]
        for ib in counted:
            if cols[ib] in names:
                continue

            def get(a: str = a, ia: int = ia, ib: int = ib) -> tuple | str:
                return _feature(summary, a, ia, ib, first, mappers[ia], opts)

            out.append((a, cols[ib], get))
    return out


def _feature(
    summary: Any, a: str, ia: int, ib: int, first: set[int], mapper: Callable, opts: Options
) -> tuple | str:
    """("chi2", table) or ("anova", per-group sums) of dimension a (column ia) against
    column ib, or why it is not tested (SPEC 16)."""
    b = summary.columns[ib]
    for i, name in ((ia, a), (ib, b)):
        if i not in first:
            return f"'{name}' is not among the first {PAIR_COLUMNS} counted columns"
    if ib in summary.unread:
        return f"'{b}' holds nested values ({summary.unread[ib]}), which are not counted"
    counts = summary.counts[ib]
    if counts is None or len(counts) > PROXY_LABELS:
        return f"'{b}' has more than {PROXY_LABELS} labels"
    raw = summary.pairs.get((min(ia, ib), max(ia, ib)))
    if raw is None:
        return "not counted while reading"
    relabel = relabeler(b, opts)
    label = {lab: lab if relabel is None else relabel(lab) for lab in counts}
    present = {v for v in label.values() if v is not None}
    if not present:
        return f"'{b}' has no value"
    values = {lab: outcome_value(lab) for lab in present}
    numeric = all(v is not None for v in values.values())
    if not numeric and len(present) > opts.max_categorical:
        return f"'{b}' has more than {opts.max_categorical} labels, not all numbers"
    cells: dict[tuple[str, str], int] = {}
    for (x, y), c in raw.items():
        la, lb = (x, y) if ia < ib else (y, x)
        g, v = mapper(la), label.get(lb, lb if relabel is None else relabel(lb))
        if g is not None and v is not None:
            cells[(g, v)] = cells.get((g, v), 0) + c
    if numeric:
        sums: dict[str, list[int]] = {}
        for (g, v), c in cells.items():
            s1, s2 = scaled(values[v])
            got = sums.setdefault(g, [0, 0, 0])
            got[0] += c
            got[1] += c * s1
            got[2] += c * s2
        groups = [tuple(st) for _, st in sorted(sums.items())]
        if len(groups) < 2:
            return FEWER
        if sum(st[0] for st in groups) <= len(groups):
            return "no group has two rows with a value"
        if len({v for _, v in cells}) < 2:
            return f"'{b}' takes one value among rows where both are present"
        return "anova", groups
    rows = sorted({g for g, _ in cells})
    columns = sorted({v for _, v in cells})
    if len(rows) < 2 or len(columns) < 2:
        return FEWER
    return "chi2", [[cells.get((g, v), 0) for v in columns] for g in rows]


def _held_why(summary: Any, overrides: Mapping[str, str], ia: int, held: dict, k: int) -> str:
    if held["capped"][k]:
        return f"'{held['names'][k]}' has more than {LABEL_CAP} labels"
    return not_counted_why(summary.columns, overrides, ia, ia)
