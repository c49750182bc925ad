"""Representation drift between two profile results (SPEC.md section 8)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from .analyze import FORMAT_VERSION
from .calling import keyword_args
from .errors import InputError
from .evidence import Findings
from .numerics import (
    Z,
    chi2_upper,
    fmt,
    fsum,
    ln,
    newcombe,
    pct,
    pct_not_zero,
    round_half_up,
    rows_text,
    search_p,
)
from .options import Options, dict_arg, resolve
from .profiler import display_name, profile
from .results import CompareResult, Result

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any


def _shares(dim: dict) -> dict[str, float]:
    n = sum(g["count"] for g in dim["groups"])
    return {g["label"]: g["count"] / n for g in dim["groups"]}


def drift_level(psi: float, opts: Options) -> str:
    if psi < opts.psi_moderate:
        return "none"
    if psi < opts.psi_significant:
        return "moderate"
    return "significant"


def homogeneity(counts_a: dict[str, int], counts_b: dict[str, int]) -> tuple[float, int]:
    """(Pearson's chi-squared, df) of the 2 x k table of a dimension's counts on its two
    sides (SPEC 8): `n_a * n_b * fsum((sb - sa)^2 / (c_a + c_b))` over the k groups with
    rows on either side, df = k - 1."""
    na, nb = sum(counts_a.values()), sum(counts_b.values())
    terms = []
    for label in set(counts_a) | set(counts_b):  # fsum: the order cannot matter
        ca, cb = counts_a.get(label, 0), counts_b.get(label, 0)
        if ca + cb:
            d = cb / nb - ca / na
            terms.append(d * d / (ca + cb))
    return float(na) * nb * fsum(terms), len(terms) - 1


def _drift_line(name: str, level: str, psi: float, p: float, verdict: str, na: int, nb: int):
    """A tested drift level's note (SPEC 8): the level when confirmed, else that the PSI
    is within what sampling alone gives; with the adjusted p, named so (a possible level's
    is often 1), and both sides' rows."""
    rows = f"Holm-adjusted p {fmt(p, 4)}, {na} -> {nb} rows"
    if verdict == "confirmed":
        return f"{name}: {level} representation drift (PSI {fmt(psi, 2)}, {rows})"
    return f"{name}: PSI {fmt(psi, 2)} ({level} band) is within what sampling alone gives ({rows})"


def _shift(ca: int, na: int, cb: int, nb: int) -> tuple[float, float]:
    """Newcombe's 95% interval of cb/nb - ca/na, the two sides independent (SPEC 8)."""
    return newcombe(cb, nb, ca, na, Z)


def _shift_p(ca: int, na: int, cb: int, nb: int, gap: float) -> float:
    """The p that a shift is larger than gap in its direction (SPEC 17.6's order)."""
    if cb / nb >= ca / na:
        return search_p(lambda z: newcombe(cb, nb, ca, na, z)[0] > gap)
    return search_p(lambda z: newcombe(cb, nb, ca, na, z)[1] < -gap)


def _shares_text(a: float, b: float) -> str:
    """`A% -> B%` of a share or rate on each side (unrounded): one above 0 never reads
    0.00%, one below 1 never 100.00% (SPEC 8, numerics.pct_not_zero)."""
    return f"{pct_not_zero(a, int(a > 0), a < 1)}% -> {pct_not_zero(b, int(b > 0), b < 1)}%"


def _change(lo: float, hi: float) -> str:
    return f"change {pct(lo)} to {pct(hi)} pts"


def _flagged(
    i: int,
    kind: str,
    what: str,
    dim: str,
    groups: list[str],
    a: float,
    b: float,
    counts: tuple[int, int, int, int],
    interval: tuple[float, float],
    gap: float,
) -> tuple[float, int, str, dict]:
    """A shift beyond its gap, as `_by_evidence` takes it (SPEC 17.6, 18.1): its p, row
    order, text `{what} moved A% -> B% (n_a -> n_b rows, change lo to hi pts)` and its
    evidence (n: the rows of both sides). counts: (c_a, n_a, c_b, n_b)."""
    ca, na, cb, nb = counts
    lo, hi = interval
    text = f"{what} moved {_shares_text(a, b)} ({na} -> {nb} rows, {_change(lo, hi)})"
    evidence = {
        "kind": kind,
        "dims": [dim],
        "groups": groups,
        "value": b - a,
        "n": na + nb,
        "interval": interval,
        "threshold": gap,
    }
    return _shift_p(ca, na, cb, nb, gap), i, text, evidence


def _by_evidence(fs: Findings, flagged: list[tuple[float, int, str, dict]]) -> None:
    """The flagged shifts as findings, by p, then by their rows' order (SPEC 17.6, 18.1)."""
    for p, _, text, f in sorted(flagged, key=lambda f: (f[0], f[1])):
        fs.finding(f.pop("kind"), text, p=p, **f)


def compare_dimension(da: dict, db: dict, opts: Options, fs: Findings) -> dict:
    sa, sb = _shares(da), _shares(db)
    counts_a = {g["label"]: g["count"] for g in da["groups"]}
    counts_b = {g["label"]: g["count"] for g in db["groups"]}
    na, nb = sum(counts_a.values()), sum(counts_b.values())
    name = da["name"]
    out = {
        "name": name,
        "kind": da["kind"],
        "dimension_score_a": da["dimension_score"],
        "dimension_score_b": db["dimension_score"],
        "dimension_score_delta": (
            None
            if da["dimension_score"] is None or db["dimension_score"] is None
            else db["dimension_score"] - da["dimension_score"]
        ),
        "psi": None,
        "tvd": None,
        "drift_level": None,
        "drift_p": None,
        "drift_verdict": None,
        "n_a": na,
        "n_b": nb,
        "groups": [],
    }
    if not na or not nb:  # SPEC 8: no share (count / n) on a side without a value
        side = "A" if not na else "B"
        what = f"{name}: no row of {side} has a value: its representation is not compared"
        fs.note("not_compared", what, [name])
        return out
    labels = set(sa) | set(sb)
    eps = opts.psi_epsilon
    terms = []
    groups = []
    for label in labels:
        a, b = sa.get(label, 0.0), sb.get(label, 0.0)
        fa, fb = max(a, eps), max(b, eps)
        terms.append((fb - fa) * ln(fb / fa))
        status = "appeared" if a == 0 < b else "disappeared" if b == 0 < a else "shifted"
        groups.append((abs(b - a), label, a, b, status))
    psi = fsum(terms)
    tvd = 0.5 * fsum(abs(b - a) for _, _, a, b, _ in groups)
    # order by the delta as reported (4 dp), so float noise cannot reorder visible ties
    groups.sort(key=lambda g: (-abs(round_half_up(g[3] - g[2], 4)), g[1]))
    level = drift_level(psi, opts)
    least = max(1, opts.min_group_size)
    tested = na >= least and nb >= least  # SPEC 18.1: each group's share, a test
    if opts.drift_rule == "psi":  # SPEC 8: the PSI band alone, no test
        if level != "none":
            fs.note("drift", f"{name}: {level} representation drift (PSI {fmt(psi, 2)})", [name])
    else:
        _drift_test(fs, out, (name, level, psi), counts_a, counts_b, tested, least)
    for _, label, a, b, status in groups:
        # SPEC 18.1: an appeared or disappeared group beyond the gap is a share_shift whose
        # text says so; the note would repeat it, so only one within the gap keeps it
        if status != "shifted" and not (tested and abs(b - a) > opts.share_gap):
            shares = _shares_text(a, b)
            fs.note(status, f"{name}: '{label}' {status} ({shares})", [name], [label])
    if tested:
        flagged = []
        for i, (_, label, a, b, status) in enumerate(groups):
            fs.tests += 1
            if abs(b - a) > opts.share_gap:  # a share of 0 has its interval too (SPEC 8)
                counts = (counts_a.get(label, 0), na, counts_b.get(label, 0), nb)
                moved = "share" if status == "shifted" else f"{status}, share"
                flagged.append(
                    _flagged(
                        i,
                        "share_shift",
                        f"{name}: '{label}' {moved}",
                        name,
                        [label],
                        a,
                        b,
                        counts,
                        _shift(*counts),
                        opts.share_gap,
                    )
                )
        _by_evidence(fs, flagged)
    out["psi"] = round_half_up(psi, 4)
    out["tvd"] = round_half_up(tvd, 4)
    out["drift_level"] = level
    for _, label, a, b, status in groups:
        lo, hi = _shift(counts_a.get(label, 0), na, counts_b.get(label, 0), nb)
        lo, hi = round_half_up(lo, 4), round_half_up(hi, 4)
        out["groups"].append(
            {
                "label": label,
                "share_a": round_half_up(a, 4),
                "share_b": round_half_up(b, 4),
                "share_delta": round_half_up(b - a, 4),
                "ci_low": lo,
                "ci_high": hi,
                "status": status,
            }
        )
    return out


def _drift_test(
    fs: Findings,
    out: dict,
    drift: tuple[str, str, float],
    counts_a: dict[str, int],
    counts_b: dict[str, int],
    tested: bool,
    least: int,
) -> None:
    """SPEC 8, 18.1: the test of a dimension's drift level (name, level, psi), in the
    family when both sides have `least` rows; a level beyond its band is a note whose
    text, `drift_p` and `drift_verdict` are written when the family closes."""
    name, level, psi = drift
    na, nb = out["n_a"], out["n_b"]
    stat, df = homogeneity(counts_a, counts_b)
    fs.tests += tested and df >= 1
    if level == "none":
        return
    if not (tested and df >= 1):
        why = f"a test needs {rows_text(least)} on each side" if not tested else "one group"
        out["drift_verdict"] = "possible"
        fs.note(
            "drift",
            f"{name}: PSI {fmt(psi, 2)} ({level} band), not tested ({na} -> {nb} rows; {why})",
            [name],
        )
        return
    entry = fs.note("drift", "", [name])

    def done(verdict: str, p: float) -> None:
        out["drift_p"], out["drift_verdict"] = p, verdict
        entry["text"] = _drift_line(name, level, psi, p, verdict, na, nb)

    fs.pending(chi2_upper(stat, df), done)


@keyword_args("faircode.compare", "opts")
def compare(
    a: Any, b: Any, *, opts: dict | Options | None = None, overrides: dict | None = None
) -> CompareResult:
    """Representation drift from a baseline ``a`` to a current ``b`` (SPEC 8).

    Shared dimensions are compared by their groups' shares (PSI, TVD, each share's shift
    with Newcombe's 95% interval); with ``label`` or missing data by group on both sides,
    their shifts too (SPEC 17.6). Shifts beyond their gap are findings with verdicts
    (SPEC 18.1). A side given as a result is used as it is (no row is re-read); any
    other side is profiled here first.

    Parameters
    ----------
    a, b : dict, str, path-like, list of paths or DataFrame
        The baseline and the current side: a profile result (a ``ProfileResult`` or the
        plain dict of a saved one), a path to a saved ``faircode profile --json`` result
        (refused when it was made with other options, SPEC 8.1), or anything
        :func:`faircode.profile` reads (a path, a glob, a DataFrame, ...), profiled here
        with ``opts`` and ``overrides`` as ``faircode compare A B`` profiles both files.
    opts : dict or Options, optional
        The options of SPEC 7: how a side is profiled, and the comparison's own
        thresholds (``share_gap``, ``label_gap``, ``missing_gap``, ``psi_moderate``,
        ``psi_significant``, ``psi_epsilon``, ``score_drop_flag``, ``alpha``).
    overrides : dict of str to str, optional
        ``--map`` kinds (column -> kind, SPEC 1.6) of a side profiled here.

    Returns
    -------
    CompareResult
        A dict (SPEC 8; ``faircode/schemas/compare.schema.json``) that displays itself
        in a notebook, naming its sides (SPEC 6.2): ``a`` and ``b`` (``n_rows``,
        ``overall_score``, ``grade``), ``score_delta``, ``dimensions`` (each with
        ``psi``, ``tvd``, ``drift_level`` and its ``groups``' shares, deltas and
        intervals), ``added_dimensions``, ``removed_dimensions``, ``label_rates`` and
        ``missing_by_group`` (when both sides have them), ``findings`` (each with its
        ``verdict``), ``evidence`` and ``flags``.

    Raises
    ------
    InputError
        Bad input, in one line: an ``outcome`` option when a side is to be profiled
        (``compare() takes no outcome ...``), a saved profile of another format version
        or made with other options, an option out of its range, or any of
        :func:`faircode.profile`'s errors for a side profiled here.

    Examples
    --------
    The bundled sample split by screening year, 2013 against 2014:

    >>> from importlib import resources
    >>> import pandas as pd, faircode
    >>> sample = str(resources.files("faircode") / "data" / "compas-scores-two-years.csv")
    >>> df = pd.read_csv(sample)
    >>> year = df["compas_screening_date"].str[:4]
    >>> d = faircode.compare(df[year == "2013"], df[year == "2014"])
    >>> d["a"]["n_rows"], d["b"]["n_rows"], d["score_delta"]
    (5111, 2103, 1)
    >>> [(x["name"], x["drift_level"]) for x in d["dimensions"]]
    [('sex', 'none'), ('age', 'none'), ('age_cat', 'none'), ('race', 'none')]
    >>> first = d["findings"][0]
    >>> first["kind"], first["verdict"]
    ('share_shift', 'possible')
    >>> first["text"]
    "age: '18-29' share moved 40.97% -> 46.70% (5111 -> 2103 rows, change 3.21 to 8.25 pts)"
    """
    options = resolve(opts)
    # SPEC 8: compare has no outcome comparison, so an outcome to read a side with is
    # refused, never ignored (two results given are compared as they are)
    if options.outcome and not (isinstance(a, Mapping) and isinstance(b, Mapping)):
        raise InputError(
            "compare() takes no outcome (outcome means are compared by nothing); "
            "profile() each file with outcome to see them"
        )
    names = (_side_name(a, "A"), _side_name(b, "B"))
    a = _side("a", a, names[0], options, overrides)
    b = _side("b", b, names[1], options, overrides)
    dims_b = {d["name"]: d for d in b["dimensions"]}
    names_a = {d["name"] for d in a["dimensions"]}
    fs = Findings()
    sa, sb = a["overall_score"], b["overall_score"]
    score_delta = None if sa is None or sb is None else sb - sa
    if score_delta is not None and -score_delta >= options.score_drop_flag:
        fs.note("score_drop", f"overall score dropped {-score_delta} points ({sa} -> {sb})")
    dims = []
    for da in a["dimensions"]:
        db = dims_b.get(da["name"])
        if db is None:
            continue
        dims.append(compare_dimension(da, db, options, fs))
    rates = by_group = None
    if "label_rates" in a and "label_rates" in b:  # SPEC 17.6
        rates = compare_label_rates(a, b, options, fs)
    if "missing_by_group" in a and "missing_by_group" in b:
        by_group = compare_missing(a, b, options, fs)
    added = [d["name"] for d in b["dimensions"] if d["name"] not in names_a]
    removed = [d["name"] for d in a["dimensions"] if d["name"] not in dims_b]
    for n in added:
        fs.note("dimension_added", f"{n}: dimension added", [n])
    for n in removed:
        fs.note("dimension_removed", f"{n}: dimension removed", [n])
    findings, evidence = fs.close(options.alpha)
    out = {
        "format_version": FORMAT_VERSION,
        "a": {k: a[k] for k in ("n_rows", "overall_score", "grade")},
        "b": {k: b[k] for k in ("n_rows", "overall_score", "grade")},
        "score_delta": score_delta,
        "dimensions": dims,
        "added_dimensions": added,
        "removed_dimensions": removed,
    }
    if rates is not None:
        out["label_rates"] = rates
    if by_group is not None:
        out["missing_by_group"] = by_group
    out["findings"] = findings
    out["evidence"] = evidence
    out["flags"] = [f["text"] for f in findings]
    if options.proxy_hints and "proxy_hints" in a and "proxy_hints" in b:  # SPEC 16
        out["proxy_hints"] = {"a": a["proxy_hints"], "b": b["proxy_hints"]}
    return CompareResult(out, names=names)


def _side_name(side: Any, which: str) -> str:
    """What a report calls side ``which`` (A or B; SPEC 6.2, 8): a profiled result's name
    (none for a plain dict), else the name profile() gives it (the path as given), a frame
    `<dataframe A>` (two frames named alike told neither apart)."""
    if isinstance(side, Mapping):
        return getattr(side, "_name", "") if isinstance(side, Result) else ""
    return display_name(os.fspath(side) if isinstance(side, os.PathLike) else side, which)


def _side(arg: str, side: Any, name: str, options: Options, overrides: dict | None) -> Mapping:
    """A profile result as it is (checked as a saved one is, the argument ``arg`` named),
    anything else profiled as ``name`` (its errors name the side; SPEC 8, 8.1)."""
    if isinstance(side, Mapping):
        from .saved import checked_profile  # lazy: start-up

        return checked_profile(arg, dict(side), api=True, what="a result")
    if isinstance(side, str | os.PathLike):
        from .saved import load_saved, saved_profile  # lazy: start-up

        path = os.fspath(side)
        saved = load_saved(path) if isinstance(path, str) else None
        if saved is not None:
            params, given = options.params(), dict_arg("overrides", overrides)
            return saved_profile(path, saved[0], params, given, False, api=True)[0]
        side = path
    # a path or list names itself as profile() names it; a frame or stream gets its side
    named = not isinstance(side, str | list | tuple)
    return profile(side, overrides=overrides, opts=options, name=name if named else None)


def _by_delta(rows: list[tuple]) -> list[tuple]:
    """(label, a, b) rows ordered like share groups: |rounded delta| desc, then a row that
    moved before one that did not (SPEC 17.6), then label."""
    return sorted(rows, key=lambda r: (-abs(round_half_up(r[2] - r[1], 4)), r[2] == r[1], r[0]))


def _group_shifts(
    fs: Findings,
    counts: dict[str, tuple[int, int, int, int]],
    sized: set[str],
    kind: str,
    gap: float,
    dim: str,
    what: str,
    column: str | None,
    fields: tuple[str, str, str, str, str, str, str],
) -> list[dict]:
    """The groups of a label-rate or missing-share comparison (SPEC 17.6). counts: each
    group on both sides as (c_a, n_a, c_b, n_b), in a's order; the rows come ordered like
    share groups, with fields' seven keys (a's share, b's, the delta, n_a, n_b, c_a, c_b)
    and the interval. A group in sized is a test; a sized shift beyond gap is a finding `{what} for
    '{label}' moved ...` on [label] (and the column, for missing data), the findings of
    these rows ordered by evidence."""
    share_a, share_b, delta, n_a, n_b, c_a, c_b = fields
    rows = _by_delta([(label, ca / na, cb / nb) for label, (ca, na, cb, nb) in counts.items()])
    flagged = []
    groups = []
    for i, (label, x, y) in enumerate(rows):
        ca, na, cb, nb = counts[label]
        lo, hi = _shift(ca, na, cb, nb)
        fs.tests += label in sized
        if abs(y - x) > gap and label in sized:
            flagged_groups = [label] if column is None else [label, column]
            text = f"{what} for '{label}'"
            flagged.append(
                _flagged(i, kind, text, dim, flagged_groups, x, y, counts[label], (lo, hi), gap)
            )
        groups.append(
            {
                "label": label,
                share_a: round_half_up(x, 4),
                share_b: round_half_up(y, 4),
                delta: round_half_up(y - x, 4),
                n_a: na,
                n_b: nb,
                c_a: ca,
                c_b: cb,
                "ci_low": round_half_up(lo, 4),
                "ci_high": round_half_up(hi, 4),
            }
        )
    _by_evidence(fs, flagged)
    return groups


def compare_label_rates(a: dict, b: dict, opts: Options, fs: Findings) -> dict | None:
    """SPEC 17.6: rate shifts per shared dimension and group with a rate on both sides."""
    ra, rb = a["label_rates"], b["label_rates"]
    if (ra["label"], ra["positive"]) != (rb["label"], rb["positive"]):
        fs.note(
            "not_compared",
            f"label rates not compared ({ra['label']}={ra['positive']} vs "
            f"{rb['label']}={rb['positive']})",
        )
        return None
    head = f"{ra['label']}={ra['positive']}"
    dims_b = {d["name"]: d for d in rb["dimensions"]}
    dims = []
    for da in ra["dimensions"]:
        db = dims_b.get(da["name"])
        if db is None or "groups" not in da or "groups" not in db:
            continue
        rates_b = {g["label"]: g for g in db["groups"] if g["n"]}
        sides = {}
        for g in da["groups"]:
            h = rates_b.get(g["label"])
            if g["n"] and h is not None:
                sides[g["label"]] = (g["positive"], g["n"], h["positive"], h["n"])
        sized = {
            g["label"]
            for g in da["groups"]
            if g["n"] >= opts.min_group_size
            and rates_b.get(g["label"], g)["n"] >= opts.min_group_size
        }
        groups = _group_shifts(
            fs,
            sides,
            sized,
            "rate_shift",
            opts.label_gap,
            da["name"],
            f"{da['name']}: {head} rate",
            None,
            ("rate_a", "rate_b", "rate_delta", "n_a", "n_b", "positive_a", "positive_b"),
        )
        dims.append({"name": da["name"], "groups": groups})
    return {"label": ra["label"], "positive": ra["positive"], "dimensions": dims}


def compare_missing(a: dict, b: dict, opts: Options, fs: Findings) -> list[dict]:
    """SPEC 17.6: missing-share shifts per shared dimension, column and group."""
    groups_of = {
        side: {d["name"]: {g["label"]: g["count"] for g in d["groups"]} for d in r["dimensions"]}
        for side, r in (("a", a), ("b", b))
    }
    rows_of = {"a": a["n_rows"], "b": b["n_rows"]}
    # a saved profile made before results listed their header has none: its columns are
    # then taken as the ones it lists (the old rule), and a note says so
    header_of = {
        side: set(r["columns"]) if "columns" in r else None for side, r in (("a", a), ("b", b))
    }
    entries_b = {e["dimension"]: e for e in b["missing_by_group"]}
    absent: dict[str, str] = {}  # column -> the side whose header lacks it, in order
    out = []
    for ea in a["missing_by_group"]:
        name = ea["dimension"]
        eb = entries_b.get(name)
        if eb is None or "columns" not in ea or "columns" not in eb:
            continue
        cols_a = {c["name"]: c for c in ea["columns"]}
        cols_b = {c["name"]: c for c in eb["columns"]}
        order = [c["name"] for c in ea["columns"]]
        order += [c["name"] for c in eb["columns"] if c["name"] not in cols_a]
        shared = [g for g in groups_of["a"][name] if g in groups_of["b"][name]]
        # a shift is flagged only between groups of min_group_size rows on both sides
        sized = {
            g
            for g in shared
            if min(groups_of["a"][name][g], groups_of["b"][name][g]) >= opts.min_group_size
        }
        columns = []
        for col in order:
            lacking = [
                s for s in ("a", "b") if header_of[s] is not None and col not in header_of[s]
            ]
            if lacking:  # no count of it on that side, so nothing to compare
                absent.setdefault(col, lacking[0])
                continue
            sides = {}
            for side, cols in (("a", cols_a), ("b", cols_b)):
                entry = cols.get(col)
                # a side whose header has the column but does not list it had no missing
                # cell in it; groups past a listing cap (groups_not_listed) are unknown
                # and left out
                listed = (
                    None if entry is None else {g["label"]: g["missing"] for g in entry["groups"]}
                )
                total = 0 if entry is None else entry["missing_count"]
                sides[side] = (total, listed)
            missing_of = {}
            for label in shared:
                got = []
                for side in ("a", "b"):
                    listed = sides[side][1]
                    if listed is not None and label not in listed:
                        break
                    m = 0 if listed is None else listed[label]
                    got.append(m)
                else:
                    ca, cb = groups_of["a"][name][label], groups_of["b"][name][label]
                    missing_of[label] = (got[0], ca, got[1], cb)
            groups = _group_shifts(
                fs,
                missing_of,
                sized,
                "missing_shift",
                opts.missing_gap,
                name,
                f"{name}: '{col}' missing",
                col,
                (
                    "missing_pct_a",
                    "missing_pct_b",
                    "missing_delta",
                    "count_a",
                    "count_b",
                    "missing_a",
                    "missing_b",
                ),
            )
            columns.append(
                {
                    "name": col,
                    "missing_pct_a": round_half_up(sides["a"][0] / rows_of["a"], 4),
                    "missing_pct_b": round_half_up(sides["b"][0] / rows_of["b"], 4),
                    "missing_delta": round_half_up(
                        sides["b"][0] / rows_of["b"] - sides["a"][0] / rows_of["a"], 4
                    ),
                    "missing_count_a": sides["a"][0],
                    "missing_count_b": sides["b"][0],
                    "groups": groups,
                }
            )
        out.append({"dimension": name, "columns": columns})
    for col, side in absent.items():
        what = f"'{col}' is not a column of {side.upper()}: its missing data is not compared"
        fs.note("not_compared", what)
    for side in ("a", "b"):
        if header_of[side] is None and out:
            fs.note(
                "not_compared",
                f"{side.upper()} is a saved profile without its header (columns): a column it "
                "does not list is read as having no missing cell; profile the data again to "
                "tell a column it lacks",
            )
    return out
