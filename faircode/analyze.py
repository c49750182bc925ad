"""Pure functions from a Summary to the profile result (SPEC.md sections 1-6)."""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterable

from . import evidence, groupstats
from .detect import (
    NOT_DEMOGRAPHIC,
    check_overrides,
    coded_labels,
    contradiction,
    ethnicity_holds_race,
    kind_from_name,
    kind_from_values,
)
from .evidence import UNDER_LINES, Findings, grade_for
from .labels import age_shape, age_value, band_index, band_labels, interval_years
from .numerics import (
    fmt,
    fsum,
    ln,
    pct,
    round_half_up,
    round_int,
    rows_text,
    score_p,
    wilson_bounds,
)
from .options import Options, relabeler, resolve
from .outcomes import outcome_blocks
from .reference import match_reference, reference_block, sum_warnings, unmatched_warnings
from .results import ProfileResult
from .summary import CELL_CAP, LABEL_CAP, MAX_GAP_FLAGS, PAIR_COLUMNS, Summary, pair_cells

#: The result's format (SPEC 5): 3 since findings with evidence and score v3.
FORMAT_VERSION = 3
#: Unscored columns named in the unscored and no-dimension flags (SPEC 6).
UNSCORED_NAMED = 5


def wilson(c: int, n: int) -> tuple[float, float]:
    """The Wilson score interval of c out of n at Z, clipped to [0, 1], 4 dp (SPEC 3)."""
    lo, hi = wilson_bounds(c, n)
    return round_half_up(lo, 4), round_half_up(hi, 4)


def age_mapper(counts: dict[str, int], opts: Options) -> tuple[str, Callable[[str], str | None]]:
    """(mode, label -> group label or None when implausible) for an age column (SPEC 2)."""
    numeric = interval = True
    for lab in counts:
        num, inter = age_shape(lab)
        numeric &= num
        interval &= inter
    if not counts:
        numeric = True
    if not numeric and not interval:
        return "categorical", lambda lab: lab
    edges = opts.age_bands
    labels = band_labels(edges)
    max_age = opts.max_age

    def plausible(lab: str) -> bool:
        v = age_value(lab, numeric)
        return not (v < 0 or v > max_age)

    if not numeric:
        # Banded only when every plausible interval lies inside one band.
        for lab in counts:
            if plausible(lab):
                _, _, first, last = interval_years(lab)
                if first > last or band_index(edges, first) != band_index(edges, last):
                    return "interval_as_written", lambda lab: lab if plausible(lab) else None

    def to_band(lab: str) -> str | None:
        v = age_value(lab, numeric)
        if v < 0 or v > max_age:
            return None
        # a banded interval goes to the band of its first year (SPEC 2): (17, 29] is 18-29
        return labels[band_index(edges, v if numeric else interval_years(lab)[2])]

    return ("numeric" if numeric else "interval"), to_band


def coded_text(name: str, codes: list[str]) -> str:
    """SPEC 1.7: the note on a dimension whose labels are codes."""
    if len(codes) == 1:
        return (
            f"{name}: label {codes[0]} looks like a code; the file does not say which group "
            f"it stands for (name it with --recode {name}:{codes[0]}=NAME)"
        )
    shown = ", ".join(codes[:5]) + (", ..." if len(codes) > 5 else "")
    fix = ",".join(f"{c}=NAME" for c in codes[:2]) + (",..." if len(codes) > 2 else "")
    return (
        f"{name}: labels {shown} look like codes; the file does not say which group each "
        f"stands for (name them with --recode {name}:{fix})"
    )


def group_rule(
    name: str, labels, overrides: dict[str, str] | None, opts: Options
) -> Callable[[str], str | None] | None:
    """SPEC 12.3: the profiler's groups for column `name` as a function of a label as
    read -> its group (None: missing after 1.1, or an implausible age), given the
    column's distinct labels as read. The rules are `analyze`'s: `na` and `recode`
    (1.1), then the age bands of section 2 when the column is an age (by `overrides`,
    else by its name), their mode decided over every label. None when no rule changes
    a label (the labels are the groups)."""
    relabel = relabeler(name, opts)
    kind = (overrides or {}).get(name) or kind_from_name(name)
    mapper: Callable[[str], str | None] = _identity
    if kind == "age":
        counts = dict.fromkeys(labels if relabel is None else map(relabel, labels), 1)
        counts.pop(None, None)
        mode, age = age_mapper(counts, opts)
        if mode != "categorical":
            mapper = age
    if relabel is None and mapper is _identity:
        return None
    return _composed(relabel, mapper)


def _interval_order(groups: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """interval_as_written groups by lower bound, upper bound, then label (SPEC 2)."""
    return sorted(groups, key=lambda g: interval_years(g[0])[:2] + (g[0],))


def skewness(counts: dict[str, int], keep: Callable[[str], str | None]) -> float | None:
    vals = [(float(lab), c) for lab, c in counts.items() if keep(lab) is not None]
    n = sum(c for _, c in vals)
    if n < 3:
        return None
    mean = fsum(v * c for v, c in vals) / n
    m2 = fsum(c * ((v - mean) * (v - mean)) for v, c in vals) / n
    m3 = fsum(c * ((v - mean) * (v - mean) * (v - mean)) for v, c in vals) / n
    if m2 == 0:
        return None
    return round_half_up(m3 / (m2 * math.sqrt(m2)), 4)


def _sorted_groups(counts: dict[str, int]) -> list[tuple[str, int]]:
    # Python orders str by code point, as SPEC section 3 requires.
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def dimension_metrics(
    name: str,
    kind: str,
    detected_by: str,
    group_counts: dict[str, int],
    missing: int,
    implausible: int,
    n_rows: int,
    opts: Options,
    age_mode: str | None,
    skew: float | None,
) -> dict:
    by_count = _sorted_groups(group_counts)
    groups = _interval_order(by_count) if age_mode == "interval_as_written" else by_count
    k = len(groups)
    n = sum(c for _, c in groups)
    out_groups = []
    under = []
    # Everything per group but the label is a function of its count: 30,000 zip codes
    # share a few hundred counts, so each count's numbers are computed once.
    per_count: dict[int, tuple[float, float, float, bool, bool]] = {}
    for label, c in groups:
        known = per_count.get(c)
        if known is None:
            lo, hi = wilson(c, n)
            share = c / n
            known = per_count[c] = (
                round_half_up(share, 4),
                lo,
                hi,
                c < opts.min_group_size,
                share < opts.min_share,
            )
        out_groups.append(
            {
                "label": label,
                "count": c,
                "share": known[0],
                "ci_low": known[1],
                "ci_high": known[2],
                "small_group": known[3],
            }
        )
        if known[4]:
            under.append(label)
    if k >= 2:
        terms = {c: (c / n) * ln(c / n) for c in per_count}
        h = -fsum(terms[c] for _, c in groups)
        entropy = min(1.0, max(0.0, h / ln(k)))
    else:
        entropy = 0.0
    if opts.score_rule == "v3":
        score, score_ci, score_note = evidence.dimension_score(
            [c for _, c in groups], opts.min_group_size
        )
    else:  # SPEC 5: version 2's and the seed's score
        score, score_ci, score_note = round_int(entropy * 100), None, None
    missing_count = missing + implausible
    # SPEC 3: the imbalance the flag judges: largest vs smallest group of min_group_size
    sized = [c for _, c in by_count if c >= opts.min_group_size]
    return {
        "name": name,
        "kind": kind,
        "detected_by": detected_by,
        "age_mode": age_mode,
        "n_groups": k,
        "dimension_score": score,
        "score_ci": score_ci,
        "score_note": score_note,
        "entropy_ratio": round_half_up(entropy, 4),
        "imbalance_ratio": round_half_up(sized[0] / sized[-1], 2) if len(sized) > 1 else None,
        "imbalance_ratio_all": round_half_up(by_count[0][1] / by_count[-1][1], 2) if k else None,
        "min_share": round_half_up(by_count[-1][1] / n, 4) if k else None,
        "max_share": round_half_up(by_count[0][1] / n, 4) if k else None,
        "missing_count": missing_count,
        "missing_pct": round_half_up(missing_count / n_rows, 4) if n_rows else 0.0,
        "implausible_count": implausible,
        "skewness": skew,
        "groups": out_groups,
        "under_represented": under,
    }


def _rewrite(
    counts: dict[str, int], relabel: Callable[[str], str | None] | None
) -> tuple[dict[str, int], int]:
    """(counts after SPEC 1.1, cells that became missing)."""
    if relabel is None:
        return counts, 0
    out: dict[str, int] = {}
    gone = 0
    for label, c in counts.items():
        new = relabel(label)
        if new is None:
            gone += c
        else:
            out[new] = out.get(new, 0) + c
    return out, gone


def _unscored(name: str, counts: dict[str, int], missing: int, why: str) -> dict:
    return {
        "name": name,
        "n_groups": len(counts),
        "missing_count": missing,
        "why": why,
        "groups": [{"label": lab, "count": c} for lab, c in _sorted_groups(counts)],
    }


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:UNSCORED_NAMED])
    return shown + (", ..." if len(names) > UNSCORED_NAMED else "")


def analyze(
    summary: Summary, overrides: dict[str, str] | None = None, opts: dict | Options | None = None
) -> dict:
    """The SPEC section 6 result of a summary. `overrides`: column -> kind or "ignore"
    (checked against the summary's columns, as a read checks them); `opts`: a dict of
    options (validated, defaults filled, like the JS engine's `analyze`) or an Options.
    Returns the `ProfileResult` `faircode.profile` does, named as the summary (SPEC 6.2):
    a merged summary's profile displays itself and has `.report()`, and is still `==`
    the plain dict of another engine."""
    opts = resolve(opts)
    overrides = check_overrides(overrides, summary.columns, opts)
    n_rows = summary.n_rows
    dims: list[dict] = []
    dropped: list[dict] = []
    unscored: list[dict] = []
    contradicted: list[tuple[str, str, str]] = []  # (column, kind, why text)
    mappers: dict[int, Callable[[str], str | None]] = {}
    index_of: dict[str, int] = {}
    # age dimensions a single-year reference can map: their mode and labels after 1.1
    age_modes: dict[str, tuple[str, dict[str, int]]] = {}
    raw_flags: list[tuple[float, int]] = []  # unrounded missing share, n, for flag tests
    named_kinds: frozenset | None = None  # kinds the header's names give (SPEC 1.2)
    for i, name in enumerate(summary.columns):
        ov = overrides.get(name)
        # the label and the outcome columns are never dimensions (SPEC 17, 19)
        if ov == "ignore" or name == opts.label or name in opts.outcome:
            continue
        raw = summary.counts[i]
        # A column with more than LABEL_CAP labels is capped (SPEC 0.9): an engine stops
        # counting it (counts None), one that counted it all (Spark) has more labels.
        capped = summary.is_capped(i) if raw is None else len(raw) > LABEL_CAP
        relabel = relabeler(name, opts)
        counts, gone = (None, 0) if raw is None or capped else _rewrite(raw, relabel)
        missing = summary.missing[i] + gone
        named = kind_from_name(name) if ov is None else None
        if named == "ethnicity" and counts is not None and ethnicity_holds_race(counts):
            named = "race"  # SPEC 1.2: many exports call race "ethnicity"
        kind = ov or named
        detected_by = "override" if ov else "name"
        if kind is None:
            if capped and opts.max_categorical > LABEL_CAP:
                dropped.append(
                    {"name": name, "kind": "categorical", "n_groups": None, "more_than": LABEL_CAP}
                )
                continue
            if counts is None or not 2 <= len(counts) <= opts.max_categorical:
                continue
            if named_kinds is None:
                named_kinds = frozenset(
                    overrides.get(c) or kind_from_name(c)
                    for c in summary.columns
                    if c != opts.label and c not in opts.outcome
                ) - {None}
            kind = kind_from_values(counts, named_kinds)
            detected_by = "values"
            if kind is None:
                if not (opts.score_categoricals or opts.score_rule == "seed"):
                    unscored.append(_unscored(name, counts, missing, NOT_DEMOGRAPHIC))
                    continue
                kind, detected_by = "categorical", "label_count"
        elif counts is None:
            dropped.append({"name": name, "kind": kind, "n_groups": None, "more_than": LABEL_CAP})
            continue
        age_mode = None
        skew = None
        implausible = 0
        mapper: Callable[[str], str | None] = _identity
        if kind == "age":
            age_mode, mapper = age_mapper(counts, opts)
            if age_mode == "numeric":
                skew = skewness(counts, mapper)
        if mapper is _identity or age_mode == "categorical":
            mapper = _identity
            group_counts = dict(counts)
        else:
            group_counts = {}
            for lab, c in counts.items():
                g = mapper(lab)
                if g is None:
                    implausible += c
                else:
                    group_counts[g] = group_counts.get(g, 0) + c
        n_groups = len(group_counts)
        if n_groups > opts.max_dimension_groups and kind != "geography" and ov is None:
            dropped.append({"name": name, "kind": kind, "n_groups": n_groups})
            continue
        if named is not None:
            why = contradiction(kind, counts, opts.max_categorical)
            if why is not None:
                contradicted.append((name, kind, why))
                unscored.append(
                    _unscored(name, counts, missing, f"named like {kind} but holds {why}")
                )
                continue
        dim = dimension_metrics(
            name,
            kind,
            detected_by,
            group_counts,
            missing,
            implausible,
            n_rows,
            opts,
            age_mode,
            skew,
        )
        n = sum(group_counts.values())
        raw_flags.append(((missing + implausible) / n_rows if n_rows else 0.0, n))
        dims.append(dim)
        mappers[i] = _composed(relabel, mapper)
        index_of[name] = i
        if age_mode in ("numeric", "interval", "interval_as_written"):
            age_modes[name] = (age_mode, counts)

    fs = Findings()
    ref_entries = match_reference(opts.reference, dims) if opts.reference else {}
    for dim, (miss, n) in zip(dims, raw_flags):
        name = dim["name"]
        _dimension_findings(fs, dim, n, miss, n_rows, opts)
        if name in ref_entries:
            years = None
            if name in age_modes:
                mode, labels = age_modes[name]
                years = _age_years(dim, mode, opts, labels)
            dim["reference"], ref_flags, ref_tests = reference_block(
                dim, ref_entries[name], opts.reference_flag, years
            )
            for text, about in ref_flags:
                if about is None:
                    fs.note("reference", text, [name])
                    continue
                label, c, rows, expected = about
                t = expected - opts.reference_flag
                fs.tests += 1
                fs.finding(
                    "reference_gap",
                    text,
                    dims=[name],
                    groups=[label],
                    value=c / rows,
                    n=rows,
                    interval=wilson_bounds(c, rows),
                    threshold=t,
                    p=score_p(c, rows, t, True),
                )
            # every tested group is a test, flagged or not (a flagged one counted above)
            fs.tests += ref_tests - sum(1 for _, ab in ref_flags if ab)
        if dim["dimension_score"] is None and dim["score_note"] is not None:
            fs.note(
                "not_scored",
                f"{name}: too few rows to score ({dim['score_note']}); shares are shown",
                [name],
            )

    intersections: list[dict] = []
    tail: list[tuple[str, str]] = []  # (kind, text) of the notes that close the list
    pair = None
    if opts.cross is not None:
        bad = [c for c in opts.cross if c not in index_of]
        if bad:
            tail.append(("cross", f"cross: '{bad[0]}' is not a profiled dimension"))
        else:
            pair = opts.cross
    elif len(dims) >= 2:
        pair = (dims[0]["name"], dims[1]["name"])
    not_counted = None
    if pair is not None and opts.cross is None:
        why = _not_counted(
            summary.columns,
            overrides,
            index_of[pair[0]],
            index_of[pair[1]],
            {opts.label, *opts.outcome},
        )
        if why is not None:
            not_counted = list(pair)
            fs.note(
                "not_counted",
                f"{pair[0]} x {pair[1]}: intersection not counted ({why}); "
                f"pass --cross {pair[0]},{pair[1]}",
                list(pair),
            )
            pair = None
    if pair is not None:
        intersections.append(_intersection(summary, dims, pair, index_of, mappers, opts, fs))
    rates = by_group = outcome_list = None
    if opts.label is not None or opts.missing_by_group or opts.outcome:  # SPEC 17, 19
        for text, dim_name in groupstats.not_counted_flags(dims, index_of, summary, opts):
            fs.note("not_counted", text, [dim_name])
    if opts.label is not None:
        cells = pair_cells(summary, pair, index_of, mappers) if pair is not None else None
        rates = groupstats.label_rates(
            summary, dims, index_of, mappers, intersections[0] if pair else None, cells, opts, fs
        )
    if opts.outcome:  # SPEC 21
        cells = pair_cells(summary, pair, index_of, mappers) if pair is not None else None
        outcome_list = outcome_blocks(
            summary, dims, index_of, mappers, intersections[0] if pair else None, cells, opts, fs
        )
    if opts.missing_by_group:
        by_group = groupstats.missing_by_group(
            summary, dims, index_of, mappers, overrides, opts, fs
        )
    if opts.reference:
        for text in unmatched_warnings(opts.reference, ref_entries):
            fs.note("reference", text)
        for text in sum_warnings(opts.reference):
            fs.note("reference", text)
    for col, kind, why in contradicted:
        fs.note(
            "contradicted",
            f"{col}: named like {kind} but holds {why}; not scored "
            f"(force it with --map {col}={kind})",
        )
    for dim in dims:
        codes = coded_labels(dim["kind"], [g["label"] for g in dim["groups"]])
        if codes:
            fs.note("coded", coded_text(dim["name"], codes), [dim["name"]])
    plain = [u["name"] for u in unscored if u["why"] == NOT_DEMOGRAPHIC]
    if plain and dims:
        fs.note(
            "unscored",
            f"not scored: {len(plain)} "
            f"{'column that is' if len(plain) == 1 else 'columns that are'} not demographic "
            f"({_names(plain)}); "
            "--score-categoricals scores them, --map COLUMN=KIND declares one",
        )
    for kind, text in tail:
        fs.note(kind, text)

    score, score_ci = evidence.overall_score(dims, opts.score_rule)
    if not dims:
        if plain:
            fs.note(
                "no_dimension",
                f"no demographic column detected (not scored: {_names(plain)}); "
                "declare one with --map COLUMN=KIND",
            )
        else:
            fs.note(
                "no_dimension", "no demographic column detected; declare one with --map COLUMN=KIND"
            )
    elif score is None:
        fs.note(
            "no_dimension",
            f"no dimension has enough rows to score ({_names([d['name'] for d in dims])}); "
            "the grade is not given",
        )
    result = {
        "format_version": FORMAT_VERSION,
        "n_rows": n_rows,
        "n_cols": len(summary.columns),
        "columns": list(summary.columns),
        "overall_score": score,
        "overall_ci": score_ci,
        "grade": grade_for(score),
        "dimensions": dims,
        "intersections": intersections,
        "unscored": unscored,
        "dropped": dropped,
    }
    if rates is not None:
        result["label_rates"] = rates
    if by_group is not None:
        result["missing_by_group"] = by_group
    if outcome_list is not None:
        result["outcomes"] = outcome_list
    hints = None
    if opts.proxy_hints:  # SPEC 16; scipy is imported only here
        from .proxy_stats import summary_hints  # lazy: start-up

        hints, proxy_flags = summary_hints(summary, overrides, dims, index_of, mappers, opts)
        for text in proxy_flags:
            fs.note("proxy", text)
    result["findings"], evidence_block = fs.close(opts.alpha)
    result["evidence"] = evidence_block
    result["flags"] = [f["text"] for f in result["findings"]]
    if not_counted is not None:
        result["intersection_not_counted"] = not_counted
    if hints is not None:
        result["proxy_hints"] = hints
    return ProfileResult(result, name=summary.name)


def _dimension_findings(
    fs: Findings, dim: dict, n: int, miss: float, n_rows: int, opts: Options
) -> None:
    """A dimension's under-represented, imbalance and missing findings (SPEC 6, 18)."""
    name = dim["name"]
    min_size = opts.min_group_size
    under = set(dim["under_represented"])  # a set: geography can have 30k groups
    if n >= max(1, min_size):
        fs.tests += dim["n_groups"]
        p_of: dict[int, float] = {}
        listed = 0
        for g in dim["groups"]:
            if g["label"] not in under:
                continue
            c = g["count"]
            if c not in p_of:
                p_of[c] = score_p(c, n, opts.min_share, True)
            if listed == UNDER_LINES:
                fs.unlisted(p_of[c])
                continue
            listed += 1
            share = pct(c / n) + ("%" if c >= min_size else f"%, {rows_text(c)}")
            fs.finding(
                "under_represented",
                f"{name}: '{g['label']}' is under-represented ({share})",
                dims=[name],
                groups=[g["label"]],
                value=c / n,
                n=n,
                interval=wilson_bounds(c, n),
                threshold=opts.min_share,
                p=p_of[c],
            )
        if len(under) > listed:
            fs.note(
                "more",
                f"{name}: {len(under) - listed} more under-represented groups (the JSON lists all)",
                [name],
            )
    elif under:
        fs.note(
            "representation",
            f"{name}: {len(under)} group{'' if len(under) == 1 else 's'} under "
            f"{pct(opts.min_share)}% in {rows_text(n)}; "
            "too few rows to judge representation",
            [name],
        )
    sized = [g for g in dim["groups"] if g["count"] >= min_size]
    if len(sized) >= 2:
        big = min(sized, key=lambda g: (-g["count"], g["label"]))
        small = max(sized, key=lambda g: (-g["count"], g["label"]))
        ratio = big["count"] / small["count"]
        fs.tests += 1
        if ratio >= opts.imbalance_flag:
            both = big["count"] + small["count"]
            lo, hi = wilson_bounds(big["count"], both)
            r = opts.imbalance_flag
            fs.finding(
                "imbalance",
                f"{name}: imbalance ratio {fmt(ratio, 1)} ('{big['label']}' vs '{small['label']}')",
                dims=[name],
                groups=[big["label"], small["label"]],
                value=ratio,
                n=both,
                interval=(lo / (1 - lo), hi / (1 - hi) if hi < 1 else None),
                threshold=r,
                p=score_p(big["count"], both, r / (1 + r), False),
            )
    if n_rows >= 1:
        fs.tests += 1
        if miss >= opts.missing_flag:
            text = f"{name}: {pct(miss)}% missing"
            if dim["implausible_count"]:
                text += f" ({dim['implausible_count']} implausible ages treated as missing)"
            m = dim["missing_count"]
            fs.finding(
                "missing",
                text,
                dims=[name],
                groups=[],
                value=miss,
                n=n_rows,
                interval=wilson_bounds(m, n_rows),
                threshold=opts.missing_flag,
                p=score_p(m, n_rows, opts.missing_flag, False),
            )


def _composed(
    relabel: Callable[[str], str | None] | None, mapper: Callable[[str], str | None]
) -> Callable[[str], str | None]:
    if relabel is None:
        return mapper

    def both(label: str) -> str | None:
        new = relabel(label)
        return None if new is None else mapper(new)

    return both


def _age_years(dim: dict, mode: str, opts: Options, ages: Iterable[str]) -> tuple | None:
    """What a single-year reference needs of an age dimension (SPEC 9): ((label, first
    year, last year or None for an open band), ...) in the order years are assigned,
    and whether they are bands (else the dimension's own intervals); None without
    groups. `ages`: the column's labels after SPEC 1.1; the first band starts at the
    youngest year they hold (a number's whole years, an interval's first year)."""
    present = {g["label"] for g in dim["groups"]}
    if not present:
        return None
    if mode == "interval_as_written":
        return tuple((g["label"],) + interval_years(g["label"])[2:] for g in dim["groups"]), False
    edges = opts.age_bands
    labels = band_labels(edges)
    bands = []
    for k, lab in enumerate(labels):
        last = edges[k + 1] - 1 if k + 1 < len(edges) else None
        bands.append((lab, edges[k], last))
    firsts = [b[1] for b in bands if b[0] in present]
    lasts = [b[2] for b in bands if b[0] in present]
    lo = min(firsts)
    hi = None if any(x is None for x in lasts) else max(lasts)
    inside = [b for b in bands if b[1] >= lo and (hi is None or b[1] <= hi)]
    numeric = mode == "numeric"
    youngest = min(
        math.floor(v) if numeric else interval_years(lab)[2]
        for lab in ages
        if 0 <= (v := age_value(lab, numeric)) <= opts.max_age
    )
    # the years below the youngest age are nobody's in the data: a band 0-17 holding
    # only 17-year-olds must not expect the population's children (SPEC 9)
    inside[0] = (inside[0][0], youngest, inside[0][2])
    return tuple(inside), True


def _not_counted(
    columns: list[str], overrides: dict[str, str], ia: int, ib: int, skip: set
) -> str | None:
    """Why the default pair (columns ia, ib) had no pair table while reading, or None
    (SPEC 0.9): a pure function of the header and overrides, as the reading rule is."""
    i, j = min(ia, ib), max(ia, ib)
    counted = [k for k, c in enumerate(columns) if overrides.get(c) != "ignore" and c not in skip]
    pos = counted.index(j)
    if pos >= PAIR_COLUMNS:
        return f"'{columns[j]}' is not among the first {PAIR_COLUMNS} counted columns"
    for k in counted[:pos]:
        ov = overrides.get(columns[k])
        if k != i and (ov is not None or kind_from_name(columns[k]) == "geography"):
            return f"'{columns[k]}' before it was capped"
    return None


def _identity(label: str) -> str:
    return label


def _intersection(
    summary: Summary,
    dims: list[dict],
    pair: tuple[str, str],
    index_of: dict[str, int],
    mappers: dict,
    opts: Options,
    fs: Findings,
) -> dict:
    a_name, b_name = pair
    cells = pair_cells(summary, pair, index_of, mappers)
    if cells is None:
        raise RuntimeError(f"internal error: no pair counts for {a_name} x {b_name}")
    dim_a = next(d for d in dims if d["name"] == a_name)
    dim_b = next(d for d in dims if d["name"] == b_name)
    n_rows = summary.n_rows
    n_cells = len(dim_a["groups"]) * len(dim_b["groups"])
    # margins of the pair table, for each cell's count under independence (SPEC 6)
    rows_a: dict[str, int] = {}
    rows_b: dict[str, int] = {}
    for (x, y), c in cells.items():
        rows_a[x] = rows_a.get(x, 0) + c
        rows_b[y] = rows_b.get(y, 0) + c
    counted = sum(rows_a.values())
    least = opts.min_group_size

    def tested(a: str, b: str) -> bool:
        # SPEC 4: both margins of min_group_size rows and at least one row expected
        ra, rb = rows_a.get(a, 0), rows_b.get(b, 0)
        return ra >= least and rb >= least and ra * rb >= counted > 0

    # Every cell not in `cells` is absent; a counted cell is a gap when below the floor.
    # So the number of gaps is known without visiting all n_cells (zip x city has 10^8),
    # and listing stops at CELL_CAP gaps (SPEC 0.9); so is the number of tested gaps.
    floor = opts.intersection_floor * n_rows
    present = [c for c in cells.values() if not c < floor]
    total = n_cells - len(present)
    n_tested = _tested_cells(rows_a, rows_b, counted, least)
    fs.tests += n_tested
    # the tested gaps by count: tested cells of the pair table below the floor, and the
    # tested cells it does not hold (absent)
    by_count: dict[int, int] = {}
    held = 0
    for (x, y), c in cells.items():
        if tested(x, y):
            held += 1
            if c == 0 or c < floor:
                by_count[c] = by_count.get(c, 0) + 1
    if n_tested > held:
        by_count[0] = by_count.get(0, 0) + n_tested - held
    tested_gaps = sum(by_count.values())
    where = f"{a_name} x {b_name}"
    gaps: list[dict] = []
    listed = 0
    p_of: dict[int, float] = {}

    def p_for(c: int) -> float:
        if c not in p_of:
            p_of[c] = score_p(c, n_rows, opts.intersection_floor, True)
        return p_of[c]

    if total:
        for ga in dim_a["groups"]:
            for gb in dim_b["groups"]:
                c = cells.get((ga["label"], gb["label"]), 0)
                if c == 0 or c < floor:
                    ra = rows_a.get(ga["label"], 0)
                    rb = rows_b.get(gb["label"], 0)
                    gap = {
                        "a": ga["label"],
                        "b": gb["label"],
                        "count": c,
                        "share": round_half_up(c / n_rows, 4),
                        "expected": round_half_up(ra * rb / counted, 2) if counted else 0.0,
                    }
                    gaps.append(gap)
                    if listed < MAX_GAP_FLAGS and tested(ga["label"], gb["label"]):
                        listed += 1
                        by_count[c] -= 1
                        if c == 0:
                            text = f"{where}: '{ga['label']}' x '{gb['label']}' is absent (0 rows)"
                        else:
                            text = (
                                f"{where}: '{ga['label']}' x '{gb['label']}' is near-empty "
                                f"({rows_text(c)}, {pct(c / n_rows)}%)"
                            )
                        fs.finding(
                            "intersection_gap",
                            text,
                            dims=[a_name, b_name],
                            groups=[ga["label"], gb["label"]],
                            value=c / n_rows,
                            n=n_rows,
                            interval=wilson_bounds(c, n_rows),
                            threshold=opts.intersection_floor,
                            p=p_for(c),
                        )
                    if len(gaps) == CELL_CAP:
                        break
            if len(gaps) == CELL_CAP:
                break
    if tested_gaps > listed:
        # the unlisted tested gaps' p-values, by count
        for c in sorted(by_count):
            fs.unlisted(p_for(c), by_count[c])
        fs.note(
            "more",
            f"{where}: {tested_gaps - listed} more sparse cells (the JSON lists all)",
            [a_name, b_name],
        )
    if n_cells > n_tested:
        # a margin of 1 row is implied by 1 row expected: the floor is named only above it
        small = (
            f"a group of fewer than {rows_text(least)} with both known, or " if least > 1 else ""
        )
        fs.note(
            "representation",
            f"{where}: {n_cells - n_tested} of {n_cells} cells not tested: "
            f"{small}under 1 row expected",
            [a_name, b_name],
        )
    entry: dict = {"dims": [a_name, b_name], "n_cells": n_cells, "cells": gaps}
    if total > len(gaps):
        entry["cells_not_listed"] = total - len(gaps)
    if n_cells > n_tested:
        entry["cells_not_tested"] = n_cells - n_tested
    return entry


def _tested_cells(rows_a: dict[str, int], rows_b: dict[str, int], counted: int, least: int) -> int:
    """How many cells of the pair table with margins rows_a x rows_b are tested (SPEC 4):
    both margins of `least` rows and `ra * rb >= counted`, without visiting every cell."""
    sizes = sorted(rb for rb in rows_b.values() if rb >= least)
    n = 0
    for ra in rows_a.values():
        if ra >= least and ra > 0:
            # rb * ra >= counted exactly when rb >= ceil(counted / ra), in integers
            n += len(sizes) - bisect_left(sizes, max(least, -(-counted // ra)))
    return n
