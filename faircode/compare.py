"""Representation drift between two profile results (SPEC.md section 8)."""

from __future__ import annotations

from .analyze import FORMAT_VERSION
from .numerics import fmt, fsum, ln, pct, round_half_up
from .options import Options, resolve
from .results import CompareResult


def _shares(dim: dict) -> dict[str, float]:
    n = sum(g["count"] for g in dim["groups"])
    return {g["label"]: g["count"] / n for g in dim["groups"]}


def drift_level(psi: float, opts: Options) -> str:
    if psi < opts.psi_moderate:
        return "none"
    if psi < opts.psi_significant:
        return "moderate"
    return "significant"


def compare_dimension(da: dict, db: dict, opts: Options) -> tuple[dict, list[str]]:
    sa, sb = _shares(da), _shares(db)
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
    name = da["name"]
    flags = []
    if level != "none":
        flags.append(f"{name}: {level} representation drift (PSI {fmt(psi, 2)})")
    for _, label, a, b, status in groups:
        if status != "shifted":
            flags.append(f"{name}: '{label}' {status} ({pct(a)}% -> {pct(b)}%)")
    out = {
        "name": name,
        "kind": da["kind"],
        "dimension_score_a": da["dimension_score"],
        "dimension_score_b": db["dimension_score"],
        "dimension_score_delta": db["dimension_score"] - da["dimension_score"],
        "psi": round_half_up(psi, 4),
        "tvd": round_half_up(tvd, 4),
        "drift_level": level,
        "groups": [
            {
                "label": label,
                "share_a": round_half_up(a, 4),
                "share_b": round_half_up(b, 4),
                "share_delta": round_half_up(b - a, 4),
                "status": status,
            }
            for _, label, a, b, status in groups
        ],
    }
    return out, flags


def compare(a: dict, b: dict, opts: dict | Options | None = None) -> CompareResult:
    """Compare a baseline profile result a with a current one b (a CompareResult: a
    plain dict that displays itself in a notebook, SPEC 6.2)."""
    options = resolve(opts)
    dims_b = {d["name"]: d for d in b["dimensions"]}
    names_a = {d["name"] for d in a["dimensions"]}
    flags: list[str] = []
    sa, sb = a["overall_score"], b["overall_score"]
    score_delta = None if sa is None or sb is None else sb - sa
    if score_delta is not None and -score_delta >= options.score_drop_flag:
        flags.append(f"overall score dropped {-score_delta} points ({sa} -> {sb})")
    dims = []
    for da in a["dimensions"]:
        db = dims_b.get(da["name"])
        if db is None:
            continue
        out, dim_flags = compare_dimension(da, db, options)
        dims.append(out)
        flags.extend(dim_flags)
    added = [d["name"] for d in b["dimensions"] if d["name"] not in names_a]
    removed = [d["name"] for d in a["dimensions"] if d["name"] not in dims_b]
    flags.extend(f"{n}: dimension added" for n in added)
    flags.extend(f"{n}: dimension removed" for n in removed)
    out = {
        "format_version": FORMAT_VERSION,
        "a": {k: a[k] for k in ("n_rows", "overall_score", "grade")},
        "b": {k: b[k] for k in ("n_rows", "overall_score", "grade")},
        "score_delta": score_delta,
        "dimensions": dims,
        "added_dimensions": added,
        "removed_dimensions": removed,
        "flags": flags,
    }
    if options.proxy_hints and "proxy_hints" in a and "proxy_hints" in b:  # SPEC 16
        out["proxy_hints"] = {"a": a["proxy_hints"], "b": b["proxy_hints"]}
    return CompareResult(out)
