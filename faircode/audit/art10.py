"""The EU AI Act Article 10 pack (SPEC 20.3): `faircode audit art10`.

Regulation (EU) 2024/1689 (the AI Act), Article 10, "Data and data governance", asks
that the training, validation and testing data of a high-risk AI system be examined for
possible biases (10(2)(f)), that data gaps be identified with how to address them
(10(2)(h)), that the data be representative, free of errors and complete as far as
possible (10(3)), and that they take the intended setting into account (10(4)). This
pack maps faircode's measurements of one data set to those points, every measured
number a pointer into the profile's JSON (:mod:`faircode.audit.measured`), and lists
what a tool cannot measure (10(2)(a)-(e) and (g), 10(5)) as a checklist for the
provider, never claimed. Evidence for the provider's own assessment: not a statement
of conformity, not legal advice.
"""

from __future__ import annotations

import math
from typing import Any

from .._version import __version__
from ..errors import InputError
from ..numerics import normal_quantile, pct
from ..options import bool_arg, dict_arg, spelled, text_items
from ..profiler import analyze_read, display_name, summarize
from ..provenance import sha256_bytes
from ..reference import load_reference
from ..render import alike_text
from .common import PackResult, iso_date, pack_source, provenance_block, today
from .measured import cell_text, intersection_cell_rows, measure, table

ART10_FORMAT_VERSION = 1
REGULATION = "Regulation (EU) 2024/1689 (the AI Act), Article 10, Data and data governance"
SPLITS = ("training", "validation", "test")
#: The power of the rows-needed calculation (SPEC 20.3; the monitor's, SPEC 12.7).
POWER = 0.8
#: What a tool cannot measure: (article, the item for the provider).
CHECKLIST = (
    ("10(2)(a)", "the relevant design choices"),
    (
        "10(2)(b)",
        "the data collection processes and the origin of the data and, for personal "
        "data, the original purpose of the collection",
    ),
    (
        "10(2)(c)",
        "the data-preparation operations (annotation, labelling, cleaning, "
        "updating, enrichment, aggregation)",
    ),
    (
        "10(2)(d)",
        "the assumptions made, notably about what the data are meant to measure and represent",
    ),
    (
        "10(2)(e)",
        "the assessment of the availability, quantity and suitability of the data sets needed",
    ),
    (
        "10(2)(g)",
        "the measures taken to detect, prevent and mitigate the biases examined "
        "under 10(2)(f), including those found in this document",
    ),
    (
        "10(3)",
        "the relevance of the data to the intended purpose (this document measures "
        "representativeness and completeness, not relevance)",
    ),
    (
        "10(5)",
        "where special categories of personal data are processed to detect and "
        "correct biases: that it is strictly necessary and the conditions and "
        "safeguards of 10(5) are met",
    ),
)
#: What a part or section measuring per dimension says when there is none (SPEC 20.3).
NO_DIMENSION_WHY = "no demographic column detected (declare one with --map COLUMN=KIND)"
NO_DIMENSION = f"Not measured: {NO_DIMENSION_WHY}."
KIND_FINDINGS_F = ("under_represented", "imbalance", "label_gap", "intersection_gap")
KIND_FINDINGS_3 = ("reference_gap", "missing", "missing_gap")


class Art10Result(PackResult):
    """``faircode.audit_art10``'s result (SPEC 20.3)."""

    __slots__ = ()
    command = "audit art10"


def _part(title: str, text: str, tables: list[dict] | None = None) -> dict:
    return {"title": title, "text": text, "tables": tables or []}


def _names(labels: list[str], shown: int = 5) -> str:
    """The first few labels, then `+K more` (the JSON and the findings list them all)."""
    if not labels:
        return "-"
    more = f", +{len(labels) - shown} more" if len(labels) > shown else ""
    return ", ".join(labels[:shown]) + more


def _findings_table(profile: dict, kinds: tuple[str, ...]) -> dict | None:
    rows = []
    for i, f in enumerate(profile.get("findings", [])):
        if f["severity"] != "finding" or f["kind"] not in kinds:
            continue
        rows.append(
            [f["kind"], f["text"]]
            + [
                measure(profile, "findings", i, k)
                for k in ("value", "ci_low", "ci_high", "p", "verdict")
            ]
        )
    if not rows:
        return None
    return table(
        ["Kind", "Finding", "Estimate", "95% CI low", "95% CI high", "Holm p", "Verdict"],
        ["text", "text", "number", "number", "number", "number", "text"],
        rows,
    )


def rows_needed(
    count: int, floor: int, rate: float | None, gap: float, k: int, alpha: float
) -> int:
    """The rows a group of ``count`` rows still needs (SPEC 20.3): to reach the size floor
    and, with a label, the rows at which a gap of ``gap`` between the group's positive
    rate and the overall ``rate`` is detected with 80% power by a two-sided test at
    alpha / K over the dimension's ``k`` groups (SPEC 12.7's formula,
    ``(z_{alpha/2K} + z_{power})^2 * 2 p (1 - p) / gap^2``)."""
    need = floor
    if rate is not None and 0 < rate < 1 and gap > 0:
        za = normal_quantile(alpha / (2.0 * max(1, k)))
        zb = normal_quantile(1.0 - POWER)
        need = max(need, math.ceil((za + zb) * (za + zb) * 2 * rate * (1 - rate) / (gap * gap)))
    return max(0, need - count)


def _note(profile: dict, kind: str, dim: str) -> str:
    """The text of the profile's notes of ``kind`` about dimension ``dim`` ("-" if none)."""
    texts = [
        f["text"]
        for f in profile.get("findings", [])
        if f["severity"] == "note" and f["kind"] == kind and f["dimensions"] == [dim]
    ]
    return "; ".join(texts) or "-"


def _representativeness(profile: dict, options: Any) -> dict:
    """10(3)'s part against a population reference (SPEC 20.3): every profiled dimension,
    compared or with why not (no reference block: no entry of the reference matched it;
    an empty one: the profile's note that no label matched), and the profile's reference
    notes that name no dimension (a reference column matching none, shares not summing
    to 1), so nothing the reference left out reads as representative."""
    dims = profile["dimensions"]
    rows = []
    devs = []
    not_compared = []
    for i, d in enumerate(dims):
        ref = d.get("reference")
        if ref is None:
            not_compared.append([d["name"], "the reference has no entry for it"])
            continue
        if not ref["groups"]:
            not_compared.append([d["name"], _note(profile, "reference", d["name"])])
            continue
        devs.append([d["name"], measure(profile, "dimensions", i, "reference", "deviation")])
        for j, g in enumerate(ref["groups"]):
            at = ("dimensions", i, "reference", "groups", j)
            rows.append(
                [
                    d["name"],
                    g["label"],
                    measure(profile, *at, "expected"),
                    measure(profile, *at, "actual"),
                    measure(profile, *at, "delta"),
                ]
            )
    notes = [
        [f["text"]]
        for f in profile.get("findings", [])
        if f["severity"] == "note" and f["kind"] == "reference" and not f["dimensions"]
    ]
    tables = []
    if devs:
        tables.append(
            table(["Dimension", "Deviation from the reference"], ["text", "points"], devs)
        )
    if not_compared:
        tables.append(table(["Dimension not compared", "Why"], ["text", "text"], not_compared))
    if notes:
        tables.append(table(["The profile's notes on the reference (SPEC 9)"], ["text"], notes))
    if rows:
        tables.append(
            table(
                ["Dimension", "Group", "Expected", "Actual", "Change (points)"],
                ["text", "text", "share", "share", "points"],
                rows,
            )
        )
    found = _findings_table(profile, ("reference_gap",))
    if found:
        tables.append(found)
    if devs:
        text = (
            "Each matched dimension's shares against the reference's (SPEC 9); deviation "
            "is half the sum of the absolute changes. A group more than "
            f"{pct(options.reference_flag)} points below its expected share is a "
            "reference_gap finding. A dimension the reference does not cover is listed as "
            "not compared: nothing is said of its representativeness."
        )
    else:
        text = (
            "Not measured: the reference compares no profiled dimension"
            + (" (each is listed with why)" if dims else " (no demographic column detected)")
            + "; nothing is said of the data's representativeness (SPEC 9)."
        )
    return _part("Representativeness against a population reference", text, tables)


def _sections(profile: dict, options: Any, has_reference: bool, proxy: bool) -> list[dict]:
    dims = profile["dimensions"]
    out: list[dict] = []
    # ---- 10(2)(f) ----------------------------------------------------------------------
    parts = []
    rows = [
        [
            d["name"],
            d["kind"],
            measure(profile, "dimensions", i, "n_groups"),
            measure(profile, "dimensions", i, "dimension_score"),
            measure(profile, "dimensions", i, "imbalance_ratio"),
            _names(d["under_represented"]),
        ]
        for i, d in enumerate(dims)
    ]
    tables = (
        [
            table(
                [
                    "Dimension",
                    "Kind",
                    "Groups",
                    "Balance score",
                    "Imbalance ratio",
                    "Under-represented",
                ],
                ["text", "text", "count", "number", "ratio", "text"],
                rows,
            )
        ]
        if rows
        else []
    )
    found = _findings_table(profile, ("under_represented", "imbalance"))
    if found:
        tables.append(found)
    parts.append(
        _part(
            "Representation",
            f"{len(dims)} demographic dimension{'' if len(dims) == 1 else 's'} in "
            f"{profile['n_rows']:,} rows (SPEC 1, 3, 5); "
            f"a group under {pct(options.min_share)}% of its dimension is "
            "under-represented; each finding carries its 95% interval and Holm-adjusted "
            "verdict (SPEC 18)."
            if dims
            else NO_DIMENSION,
            tables,
        )
    )
    lr = profile.get("label_rates")
    if lr:
        rows = []
        skipped = []
        for i, d in enumerate(lr["dimensions"]):
            if d.get("not_counted"):
                skipped.append([d["name"], _note(profile, "not_counted", d["name"])])
                continue
            at = ("label_rates", "dimensions", i)
            rows.append(
                [
                    d["name"],
                    d["highest"] or "-",
                    # the groups the data do not tell apart from it (SPEC 17.4)
                    (d["lowest"] or "-") + alike_text(d, str),
                    measure(profile, *at, "max_difference"),
                    measure(profile, *at, "min_ratio"),
                    measure(profile, *at, "gap", "verdict") if d.get("gap") else "-",
                ]
            )
        tables = [
            table(
                [
                    "Dimension",
                    "Highest rate",
                    "Lowest rate",
                    "Difference",
                    "Lowest / highest",
                    "Verdict",
                ],
                ["text", "text", "text", "points", "ratio", "text"],
                rows,
            )
        ]
        if not rows:
            tables = []
        if skipped:
            tables.append(table(["Dimension not counted", "Why"], ["text", "text"], skipped))
        found = _findings_table(profile, ("label_gap",))
        if found:
            tables.append(found)
        parts.append(
            _part(
                "Label base rates by group",
                f"'{lr['label']}' = '{lr['positive']}': "
                f"{cell_text(measure(profile, 'label_rates', 'rate'), 'share')} "
                f"of {lr['n']:,} rows with a label (SPEC 17.4)"
                + (
                    f"; a gap is judged against {pct(options.label_gap)} points."
                    if rows
                    else ". Not measured by group: "
                    + (f"{NO_DIMENSION_WHY}." if not dims else "no dimension was counted.")
                ),
                tables,
            )
        )
    else:
        parts.append(
            _part(
                "Label base rates by group", "Not measured: give --label COL (the outcome column)."
            )
        )
    cells = intersection_cell_rows(profile)
    tables = (
        [
            table(
                ["Intersection", "Cell", "Rows", "Share"], ["text", "text", "count", "share"], cells
            )
        ]
        if cells
        else []
    )
    found = _findings_table(profile, ("intersection_gap",))
    if found:
        tables.append(found)
    inters = profile.get("intersections", [])
    parts.append(
        _part(
            "Intersections",
            (
                f"{', '.join(' x '.join(x['dims']) for x in inters)}: the absent or near-empty "
                f"cells (under {pct(options.intersection_floor)}% of the rows, SPEC 4)."
                if inters
                else "No intersection was counted (--cross A,B names one)."
            ),
            tables,
        )
    )
    ph = profile.get("proxy_hints")
    if ph is not None and proxy:
        rows = [
            [
                h["a"],
                h["b"],
                measure(profile, "proxy_hints", "hints", i, "cramers_v"),
                measure(profile, "proxy_hints", "hints", i, "n"),
                measure(profile, "proxy_hints", "hints", i, "p_adjusted"),
                measure(profile, "proxy_hints", "hints", i, "significant"),
            ]
            for i, h in enumerate(ph.get("hints", []))
        ]
        parts.append(
            _part(
                "Proxy hints",
                "Associations between columns (Cramer's V, chi-squared test, "
                f"{ph['correction']} correction; SPEC 16): a column strongly associated with "
                "a protected attribute can stand in for it in a model.",
                [
                    table(
                        ["Column", "Column", "Cramer's V", "Rows", "Adjusted p", "Significant"],
                        ["text", "text", "ratio", "count", "p", "text"],
                        rows,
                    )
                ]
                if rows
                else [],
            )
        )
    else:
        parts.append(_part("Proxy hints", "Not run: give --proxy-hints (needs scipy)."))
    ev = profile.get("evidence") or {}
    out.append(
        {
            "article": "10(2)(f)",
            "heading": "Examination in view of possible biases",
            "measured": bool(dims),
            "text": f"The profile's family: {ev.get('tests', 0):,} tests, {ev.get('confirmed', 0)} "
            f"confirmed and {ev.get('possible', 0)} possible findings (Holm, family-wise alpha "
            f"{pct(ev.get('alpha', 0.05))}%, SPEC 18).",
            "measures": [
                measure(profile, "evidence", k) for k in ("tests", "confirmed", "possible")
            ]
            if ev
            else [],
            "parts": parts,
        }
    )
    # ---- 10(2)(h) ----------------------------------------------------------------------
    floor = options.min_group_size
    rate = lr["rate"] if lr else None
    rows = []
    for i, d in enumerate(dims):
        k = len(d["groups"])
        for j, g in enumerate(d["groups"]):
            if g["small_group"]:
                need = rows_needed(g["count"], floor, rate, options.label_gap, k, options.alpha)
                rows.append(
                    [
                        d["name"],
                        g["label"],
                        measure(profile, "dimensions", i, "groups", j, "count"),
                        {"value": need, "derived": "rows_needed"},
                    ]
                )
    how = (
        f"Rows needed: to reach the size floor of {floor:,} rows"
        + (
            f" and, with the label, to detect a {pct(options.label_gap)}-point gap "
            f"in its positive rate with {int(POWER * 100)}% power (alpha / K over the "
            "dimension's K groups)"
            if rate is not None
            else ""
        )
        + ". To address a gap: collect at least that many more rows of the group; where "
        "that cannot be done, merge it with a related group (--recode) and record the "
        "choice, or record why the group is outside the intended purpose."
    )
    not_scored = [[d["name"], d["score_note"] or "-"] for d in dims if d["dimension_score"] is None]
    tables = []
    if rows:
        tables.append(
            table(
                ["Dimension", "Group", "Rows", "Rows needed"],
                ["text", "text", "count", "count"],
                rows,
            )
        )
    if not_scored:
        tables.append(table(["Dimension not scored", "Why"], ["text", "text"], not_scored))
    if not dims:
        text = NO_DIMENSION
    else:
        text = (
            (
                f"{len(rows)} groups have fewer than {floor:,} rows (the size floor, "
                "--min-group-size): their shares and rates are too noisy to judge. "
                if rows
                else f"Every group has at least {floor:,} rows. "
            )
            + how
            + (
                " The absent or near-empty intersection cells are listed under 10(2)(f)."
                if cells
                else ""
            )
        )
    out.append(
        {
            "article": "10(2)(h)",
            "heading": "Data gaps and how to address them",
            "measured": bool(dims),
            "text": text,
            "measures": [],
            "parts": [_part("Groups below the size floor", "", tables)] if tables else [],
        }
    )
    # ---- 10(3) -------------------------------------------------------------------------
    parts = []
    if has_reference:
        parts.append(_representativeness(profile, options))
    else:
        parts.append(
            _part(
                "Representativeness against a population reference",
                "Not measured: give --reference us-2019, us-2024 or a "
                "column,group,share CSV (SPEC 9).",
            )
        )
    rows = [
        [
            d["name"],
            measure(profile, "dimensions", i, "missing_count"),
            measure(profile, "dimensions", i, "missing_pct"),
            measure(profile, "dimensions", i, "implausible_count"),
        ]
        for i, d in enumerate(dims)
    ]
    tables = (
        [
            table(
                ["Dimension", "Missing", "Share missing", "Implausible"],
                ["text", "count", "share", "count"],
                rows,
            )
        ]
        if rows
        else []
    )
    mrows = []
    skipped = []
    for i, e in enumerate(profile.get("missing_by_group") or []):
        if e.get("not_counted"):
            skipped.append([e["dimension"], _note(profile, "not_counted", e["dimension"])])
        for j, c in enumerate(e.get("columns") or []):
            if c["flagged"]:
                mrows.append(
                    [
                        e["dimension"],
                        c["name"],
                        measure(profile, "missing_by_group", i, "columns", j, "missing_pct"),
                        ", ".join(c["flagged"]),
                    ]
                )
    if mrows:
        tables.append(
            table(
                ["Dimension", "Column", "Missing overall", "Groups missing it more"],
                ["text", "text", "share", "text"],
                mrows,
            )
        )
    if skipped:
        tables.append(table(["Dimension not counted", "Why"], ["text", "text"], skipped))
    found = _findings_table(profile, ("missing", "missing_gap"))
    if found:
        tables.append(found)
    parts.append(
        _part(
            "Completeness and errors",
            "Missing cells of each dimension (implausible ages count as missing, SPEC 2), and "
            "the columns missing notably more often in one group than overall (missing data "
            f"by group, more than {pct(options.missing_gap)} points, SPEC 17.5)."
            if dims
            else NO_DIMENSION,
            tables,
        )
    )
    out.append(
        {
            "article": "10(3)",
            "heading": "Representative, free of errors and complete",
            "measured": bool(dims),
            "text": "",
            "measures": [],
            "parts": parts,
        }
    )
    return out


def audit_art10(
    source: Any,
    *,
    split: str | None = None,
    label: str | None = None,
    positive: str | None = None,
    reference: str | None = None,
    proxy_hints: bool = False,
    context: tuple[str, ...] | list[str] = (),
    audit_date: str | None = None,
    overrides: dict[str, str] | None = None,
    opts: dict | None = None,
    name: str | None = None,
) -> Art10Result:
    """A data-governance evidence document mapping faircode's measurements of one
    training, validation or test set to Article 10 of the AI Act (SPEC 20.3).

    Parameters
    ----------
    source : path, glob pattern, list of paths, file object or DataFrame
        The data set, read as ``faircode.profile`` reads it.
    split : {"training", "validation", "test"}, optional
        Which set it is.
    label, positive : str, optional
        The outcome column (label base rates by group, SPEC 17).
    reference : str or os.PathLike, optional
        A population baseline: ``"us-2019"``, ``"us-2024"`` or the path of a
        column,group,share CSV (SPEC 9), for 10(3)'s representativeness.
    proxy_hints : bool
        Run the proxy hints of SPEC 16 (needs scipy).
    context : list of str or str
        The setting the system is meant for (10(4)), as the provider declares it; a
        string is one item, as one ``--context TEXT`` (SPEC 0.6).
    audit_date : str, optional
        ``YYYY-MM-DD``; default today.
    overrides, opts : dict, optional
        ``--map`` kinds and the profile's options, as for ``faircode.profile``.

    Returns
    -------
    Art10Result
        A dict (``faircode/schemas/audit-art10.schema.json``): ``sections`` of measured
        points (every number a measure pointing into the profile's JSON), ``context`` and
        the ``checklist`` of what the provider completes.

    Examples
    --------
    >>> import pandas as pd, faircode
    >>> df = pd.DataFrame({"sex": ["F", "M", "M"] * 40, "hired": [1, 0, 1] * 40})
    >>> doc = faircode.audit_art10(df, label="hired", split="training",
    ...                            audit_date="2025-01-31")
    >>> [s["article"] for s in doc["sections"]]
    ['10(2)(f)', '10(2)(h)', '10(3)']
    >>> [c["article"] for c in doc["checklist"]][:2]
    ['10(2)(a)', '10(2)(b)']
    """
    audit_date = iso_date(audit_date, "--audit-date") if audit_date is not None else today()
    if split is not None and split not in SPLITS:
        raise InputError(f"{spelled('--split')}: '{split}' is not one of {', '.join(SPLITS)}")
    proxy_hints = bool_arg("--proxy-hints", proxy_hints)
    context = [] if context is None else text_items("--context", context, commas=False)
    if any(not c.strip(" \t") for c in context):
        raise InputError(f"{spelled('--context')}: give the setting as text")
    opts = dict_arg("opts", opts)
    if label is not None:
        opts["label"] = label
    if positive is not None:
        opts["positive"] = positive
    if proxy_hints:
        opts["proxy_hints"] = True
    reference_hash = None
    if reference is not None:
        opts["reference"], ref_bytes, _ = load_reference(reference)
        reference_hash = sha256_bytes(ref_bytes)
    overrides = dict_arg("overrides", overrides)
    name = name or display_name(source)
    source, digest, note = pack_source(source, name)
    summary, checked, options = summarize(source, overrides=overrides, opts=opts, name=name)
    profile = analyze_read(summary, checked, options)
    sections = _sections(profile, options, reference is not None, proxy_hints)
    prov = provenance_block(
        digest,
        note,
        options.params(),
        overrides,
        {
            "audit_date": audit_date,
            "split": split,
            "label": label,
            "positive": positive,
            "reference": reference,
            "proxy_hints": proxy_hints,
            "context": context,
        },
    )
    if reference_hash is not None:
        prov["reference_hash"] = reference_hash
    result = {
        "kind": "faircode.audit.art10",
        "format_version": ART10_FORMAT_VERSION,
        "title": "Data governance evidence: AI Act Article 10",
        "regulation": REGULATION,
        "summary": {
            "file": name,
            "split": split,
            "audit_date": audit_date,
            "tool": f"faircode {__version__}",
        },
        "sections": sections,
        "context": {"article": "10(4)", "declared": context},
        "checklist": [
            {"article": a, "item": item, "status": "to be completed by the provider"}
            for a, item in CHECKLIST
        ],
        "provenance": prov,
    }
    return Art10Result(result, name=name)


# the reports: faircode/audit/art10doc.py (the renderer registry names them there)
from .art10doc import blocks, render_html, render_markdown, render_text  # noqa: E402, F401
