"""The datasheet pack (SPEC 20.2): `faircode audit datasheet`.

Gebru et al.'s *Datasheets for Datasets* (arXiv:1803.09010) asks a dataset's creators
a list of questions; those of its *Composition* section that the data can answer are
answered here from the profile, every number a measure pointing into the profile's
JSON (:mod:`faircode.audit.measured`); the others are listed as questions for the
author, marked as such and never answered for them.
"""

from __future__ import annotations

from typing import Any

from .._version import __version__
from ..errors import InputError
from ..numerics import pct
from ..options import dict_arg
from ..profiler import analyze_read, display_name, summarize
from ..render import FOUND_BY
from .common import PackResult, iso_date, pack_source, provenance_block, today
from .measured import cell_text, intersection_cell_rows, measure, table

DATASHEET_FORMAT_VERSION = 1
SOURCE = (
    "Gebru, Morgenstern, Vecchione, Wortman Vaughan, Wallach, Daume III and Crawford, "
    "Datasheets for Datasets (arXiv:1803.09010), the Composition questions"
)
#: Who answers: the data alone, the data and then the author, or the author alone.
ANSWERED_BY = ("data", "data_and_author", "author")
#: How each kind of dimension is sensitive, as the datasheet's sensitive-data question
#: lists it.
SENSITIVE_KINDS = {
    "sex": "sex or gender",
    "race": "racial or ethnic origin",
    "ethnicity": "racial or ethnic origin",
    "nationality": "national origin or citizenship",
    "religion": "religious beliefs",
    "disability": "disability (health)",
    "marital": "marital status",
    "age": "age",
    "geography": "location",
}
#: Columns named in the identification answer before `+K more` (question 4 lists all).
IDENTIFICATION_SHOWN = 12

# The Composition questions, in the paper's order: (id, question, answered by).
QUESTIONS = (
    (
        "instances",
        "What do the instances that comprise the dataset represent (for "
        "example, documents, photos, people, countries)?",
        "author",
    ),
    ("count", "How many instances are there in total (of each type, if appropriate)?", "data"),
    (
        "sample",
        "Does the dataset contain all possible instances or is it a sample (not "
        "necessarily random) of instances from a larger set? If it is a sample, what is the "
        "larger set, and is the sample representative of it?",
        "author",
    ),
    ("contents", "What data does each instance consist of?", "data_and_author"),
    ("label", "Is there a label or target associated with each instance?", "author"),
    (
        "missing",
        "Is any information missing from individual instances? If so, describe "
        "it and explain why it is missing.",
        "data_and_author",
    ),
    (
        "relationships",
        "Are relationships between individual instances made explicit (for "
        "example, users' movie ratings, social network links)?",
        "author",
    ),
    (
        "splits",
        "Are there recommended data splits (for example, training, development or "
        "validation, testing)?",
        "author",
    ),
    (
        "errors",
        "Are there any errors, sources of noise, or redundancies in the dataset?",
        "data_and_author",
    ),
    (
        "external",
        "Is the dataset self-contained, or does it link to or otherwise rely on "
        "external resources (for example, websites, other datasets)?",
        "author",
    ),
    (
        "confidential",
        "Does the dataset contain data that might be considered confidential "
        "(for example, data protected by legal privilege or by doctor-patient "
        "confidentiality, data that includes the content of non-public communications)?",
        "author",
    ),
    (
        "offensive",
        "Does the dataset contain data that, if viewed directly, might be "
        "offensive, insulting, threatening, or might otherwise cause anxiety?",
        "author",
    ),
    (
        "subpopulations",
        "Does the dataset identify any subpopulations (for example, by age, "
        "gender)? If so, how are they identified, and what are their distributions within "
        "the dataset?",
        "data",
    ),
    (
        "identification",
        "Is it possible to identify individuals, either directly or "
        "indirectly (in combination with other data), from the dataset?",
        "author",
    ),
    (
        "sensitive",
        "Does the dataset contain data that might be considered sensitive in "
        "any way (for example, data that reveals racial or ethnic origins, sexual "
        "orientations, religious beliefs, political opinions or union memberships, or "
        "locations; financial or health data; biometric or genetic data; forms of "
        "government identification; criminal history)?",
        "data_and_author",
    ),
)


class DatasheetResult(PackResult):
    """``faircode.audit_datasheet``'s result (SPEC 20.2)."""

    __slots__ = ()
    command = "audit datasheet"


def _set_aside(d: dict) -> str:
    """Why the profile set a column aside (an entry of its ``dropped``)."""
    if d.get("why"):
        return d["why"]
    if d.get("n_groups") is None and d.get("more_than"):
        return f"more than {d['more_than']:,} distinct labels"
    return f"{d['n_groups']:,} distinct labels: looks like an identifier or a date"


def _wide_value(profile: dict, k: int) -> dict | None:
    """The measure of how many labels set column ``k`` of ``dropped`` aside (None for a
    column set aside for another reason)."""
    d = profile["dropped"][k]
    if d.get("n_groups"):
        return measure(profile, "dropped", k, "n_groups")
    if d.get("more_than") and not d.get("why"):
        return measure(profile, "dropped", k, "more_than")
    return None


def _answers(
    profile: dict,
    columns: list[str],
    min_share: float,
    overrides: dict[str, str],
    min_group_size: int,
) -> dict[str, dict]:
    """The pre-filled answers: {id: {"answer", "tables", "to_fill"}}."""
    out: dict[str, dict] = {}
    dims = profile["dimensions"]
    n_rows = measure(profile, "n_rows")
    n_cols = measure(profile, "n_cols")
    kinds = sorted({d["kind"] for d in dims})
    out["instances"] = {
        "answer": (
            f"faircode found demographic columns ({', '.join(kinds)}), so the instances "
            "may be people; the author says what they are."
            if dims
            else None
        ),
        "measures": [],
        "tables": [],
    }
    out["count"] = {
        "answer": f"{n_rows['value']:,} instances (rows) of {n_cols['value']:,} columns each.",
        "measures": [n_rows, n_cols],
        "tables": [],
    }
    # what each column is, as faircode read it
    role: dict[str, str] = {c: "other column (not profiled)" for c in columns}
    if profile.get("label_rates"):
        role[profile["label_rates"]["label"]] = "the label (--label)"
    for d in dims:
        role[d["name"]] = f"demographic dimension: {d['kind']}, {FOUND_BY[d['detected_by']]}"
    for u in profile.get("unscored", []):
        role[u["name"]] = f"categorical, {u['n_groups']} labels (not demographic)"
    for d in profile.get("dropped", []):
        role[d["name"]] = f"set aside ({_set_aside(d)})"
    out["contents"] = {
        "answer": f"{n_cols['value']:,} columns; how faircode read each is listed. What "
        "each column means and how it was collected is the author's to say.",
        "measures": [n_cols],
        "tables": [
            table(
                ["Column", "As faircode read it"], ["text", "text"], [[c, role[c]] for c in columns]
            )
        ],
    }
    label = profile.get("label_rates")
    if label:
        rows = []
        small = []  # SPEC 3's small groups: their rates rest on few rows
        for i, d in enumerate(label["dimensions"]):
            if d.get("not_counted"):
                continue
            for j, g in enumerate(d["groups"]):
                at = ("label_rates", "dimensions", i, "groups", j)
                rows.append(
                    [d["name"], g["label"]]
                    + [measure(profile, *at, k) for k in ("n", "rate", "ci_low", "ci_high")]
                    + ["yes" if g["small_group"] else "no"]  # a mark, not a number
                )
                if g["small_group"]:
                    small.append(f"{d['name']} '{g['label']}'")
        n = measure(profile, "label_rates", "n")
        rate, lo, hi = (measure(profile, "label_rates", k) for k in ("rate", "ci_low", "ci_high"))
        missing = measure(profile, "label_rates", "label_missing")
        out["label"] = {
            "answer": f"Yes: '{label['label']}' (positive value '{label['positive']}'), "
            f"positive in {cell_text(rate, 'share')} (95% interval "
            f"{cell_text(lo, 'share')}-{cell_text(hi, 'share')}) of {n['value']:,} rows with "
            f"a label; {missing['value']:,} rows have none. "
            + (
                "Its rate per group is listed, with its Wilson 95% interval"
                + (
                    f"; {len(small)} group{'' if len(small) == 1 else 's'} of fewer than "
                    f"{min_group_size:,} rows (the profile's size floor, SPEC 3), whose "
                    f"rates are too noisy to judge: {', '.join(small)}."
                    if small
                    else "."
                )
                if rows
                else "No rate per group: "
                + ("no demographic column detected." if not dims else "no dimension was counted.")
            ),
            "measures": [n, rate, lo, hi, missing],
            "tables": [
                table(
                    [
                        "Dimension",
                        "Group",
                        "Rows with a label",
                        "Positive rate",
                        "95% CI low",
                        "95% CI high",
                        "Small group",
                    ],
                    ["text", "text", "count", "share", "share", "share", "text"],
                    rows,
                )
            ]
            if rows
            else [],
        }
    else:
        out["label"] = {"answer": None, "measures": [], "tables": []}
    # missing information
    rows = []
    for i, d in enumerate(dims):
        rows.append(
            [
                d["name"],
                measure(profile, "dimensions", i, "missing_count"),
                measure(profile, "dimensions", i, "missing_pct"),
            ]
        )
    seen = {d["name"] for d in dims}
    mbg = profile.get("missing_by_group") or []
    if mbg and mbg[0].get("columns") is not None:
        for j, c in enumerate(mbg[0]["columns"]):
            if c["name"] not in seen:
                at = ("missing_by_group", 0, "columns", j)
                rows.append(
                    [
                        c["name"],
                        measure(profile, *at, "missing_count"),
                        measure(profile, *at, "missing_pct"),
                    ]
                )
    flagged = [
        (e["dimension"], c["name"], g)
        for e in mbg
        if e.get("columns")
        for c in e["columns"]
        for g in c["flagged"]
    ]
    with_missing = [r for r in rows if r[1]["value"]]
    if not rows:
        answer = (
            "Not counted: faircode counts missing cells in the demographic columns and the "
            "columns beside them, and detected no demographic column (declare one with --map "
            "COL=KIND). "
        )
    elif with_missing:
        answer = (
            f"{len(with_missing)} of the columns listed have missing cells (the profile's "
            "missing tokens and --na). "
        )
    else:
        answer = "No missing cell in the dimensions and the columns counted. "
    if flagged:
        answer += (
            f"{len(flagged)} column and group pairs are missing notably more often in one "
            "group than overall (missing data by group, SPEC 17.5). "
        )
    out["missing"] = {
        "answer": answer.strip(),
        "measures": [],
        "tables": [
            table(["Column", "Missing cells", "Share of rows"], ["text", "count", "share"], rows)
        ]
        if rows
        else [],
    }
    # errors and noise faircode can see
    noise = []
    for i, d in enumerate(dims):
        if d["implausible_count"]:
            noise.append(
                [
                    d["name"],
                    "implausible ages, treated as missing",
                    measure(profile, "dimensions", i, "implausible_count"),
                ]
            )
    for f in profile.get("findings", []):
        if f["kind"] in ("coded", "contradicted"):
            noise.append([", ".join(f["dimensions"]) or "-", f["text"], None])
    # what faircode looked for, so that "saw no X" is never said of no column
    looked = (
        (["implausible age"] if any(d["kind"] == "age" for d in dims) else [])
        + (["coded label"] if dims else [])
        + ["contradicted column"]
    )
    out["errors"] = {
        "answer": (
            "faircode saw the following; duplicates, label noise and errors of collection "
            "are the author's to describe."
            if noise
            else f"faircode saw no {', '.join(looked[:-1])}"
            + (" or " if len(looked) > 1 else "")
            + f"{looked[-1]}"
            + ("" if dims else " (it detected no demographic column: no label or age to check)")
            + "; duplicates, label noise and errors of collection are the author's to describe."
        ),
        "measures": [],
        "tables": [table(["Column", "What", "Rows"], ["text", "text", "count"], noise)]
        if noise
        else [],
    }
    # subpopulations and their distributions
    rows = []
    for i, d in enumerate(dims):
        for j, g in enumerate(d["groups"]):
            rows.append(
                [
                    d["name"],
                    d["kind"],
                    g["label"],
                    measure(profile, "dimensions", i, "groups", j, "count"),
                    measure(profile, "dimensions", i, "groups", j, "share"),
                    measure(profile, "dimensions", i, "groups", j, "ci_low"),
                    measure(profile, "dimensions", i, "groups", j, "ci_high"),
                ]
            )
    under = [
        f"{d['name']}: {', '.join(repr(x) for x in d['under_represented'])}"
        for d in dims
        if d["under_represented"]
    ]
    cells = intersection_cell_rows(profile)
    tables = []
    if rows:
        tables.append(
            table(
                ["Dimension", "Kind", "Group", "Rows", "Share", "95% CI low", "95% CI high"],
                ["text", "text", "text", "count", "share", "share", "share"],
                rows,
            )
        )
    if cells:
        tables.append(
            table(
                ["Intersection", "Cell (absent or near-empty)", "Rows", "Share"],
                ["text", "text", "count", "share"],
                cells,
            )
        )
    out["subpopulations"] = {
        "answer": (
            f"Yes: {len(dims)} demographic dimension{'' if len(dims) == 1 else 's'} ("
            + "; ".join(f"{d['name']}: {d['kind']}, {FOUND_BY[d['detected_by']]}" for d in dims)
            + "); their groups' shares (Wilson 95% intervals) are listed"
            + (
                f"; under-represented (below {pct(min_share)}%): " + "; ".join(under)
                if under
                else ""
            )
            + "."
            if dims
            else "faircode detected no demographic column (declare one with --map COL=KIND)."
        ),
        "measures": [],
        "tables": tables,
    }
    # identifiers: faircode has no rule for them; say what it reports and what it did not
    # look at, so that one listed column never reads as the only identifier
    dropped = profile.get("dropped", [])
    wide = [(k, d) for k, d in enumerate(dropped) if _wide_value(profile, k) is not None]
    wide_names = {d["name"] for _, d in wide}
    others = [c for c in columns if c not in wide_names]
    shown = IDENTIFICATION_SHOWN
    listed = ", ".join(others[:shown]) + (
        f", +{len(others) - shown} more (question 4 lists every column)"
        if len(others) > shown
        else ""
    )
    out["identification"] = {
        "answer": "faircode does not detect identifiers. "
        + (
            "It reports only the columns it set aside for having too many distinct values "
            "to profile (possible identifiers or dates): "
            + ", ".join(
                f"{d['name']} ({cell_text(_wide_value(profile, k), 'count')}"
                f"{'+' if d.get('n_groups') is None else ''} values)"
                for k, d in wide
            )
            + ". "
            if wide
            else "It set aside no column for having too many distinct values. "
        )
        + (
            f"It did not examine the {len(others):,} {'other ' if wide else ''}columns "
            f"for identifiers: {listed}. "
            if others
            else ""
        )
        + "Whether individuals can be identified, directly (a name, an ID number) or in "
        "combination with other data (a date of birth with sex and location), is the "
        "author's to check, column by column.",
        "measures": [_wide_value(profile, k) for k, _ in wide],
        "tables": [],
    }
    # every column detected as of a sensitive kind: the dimensions and those set aside
    at = {c: i for i, c in enumerate(columns)}
    found = sorted(
        [
            (
                at[d["name"]],
                [
                    d["name"],
                    SENSITIVE_KINDS[d["kind"]],
                    FOUND_BY[d["detected_by"]],
                    measure(profile, "dimensions", i, "n_groups"),
                ],
            )
            for i, d in enumerate(dims)
            if d["kind"] in SENSITIVE_KINDS
        ]
        + [
            (
                at[d["name"]],
                [
                    d["name"],
                    SENSITIVE_KINDS[d["kind"]],
                    f"{FOUND_BY['override' if d['name'] in overrides else 'name']}; "
                    f"set aside ({_set_aside(d)})",
                    measure(profile, "dropped", k, "n_groups") if d.get("n_groups") else None,
                ],
            )
            for k, d in enumerate(dropped)
            if d.get("kind") in SENSITIVE_KINDS
        ],
        key=lambda r: r[0],
    )
    found = [r for _, r in found]
    ignored = [c for c in columns if overrides.get(c) == "ignore"]
    unexamined = (
        f" Columns declared --map COL=ignore were not examined: {', '.join(ignored)}."
        if ignored
        else ""
    )
    out["sensitive"] = {
        "answer": (
            f"Yes: {len(found)} columns reveal {', '.join(sorted({r[1] for r in found}))}. "
            "faircode finds these by column names and values (SPEC 1); financial, health, "
            "biometric, criminal-history data and identifiers it cannot recognise are the "
            "author's to list."
            if found
            else "faircode found no column of a sensitive kind by its names and values "
            "(SPEC 1); the author lists any it cannot recognise."
        )
        + unexamined,
        "measures": [],
        "tables": [
            table(
                ["Column", "Reveals", "Found", "Groups"], ["text", "text", "text", "count"], found
            )
        ]
        if found
        else [],
    }
    return out


def audit_datasheet(
    source: Any,
    *,
    label: str | None = None,
    positive: str | None = None,
    audit_date: str | None = None,
    overrides: dict[str, str] | None = None,
    opts: dict | None = None,
    name: str | None = None,
) -> DatasheetResult:
    """The Composition section of a datasheet, pre-filled from the profile (SPEC 20.2).

    Parameters
    ----------
    source : path, glob pattern, list of paths, file object or DataFrame
        The table, read as ``faircode.profile`` reads it.
    label, positive : str, optional
        The label column (and its positive value) answering "is there a label?"
        (SPEC 17).
    audit_date : str, optional
        ``YYYY-MM-DD``, the document's date; default today.
    overrides, opts : dict, optional
        ``--map`` kinds and the profile's options, as for ``faircode.profile``.

    Returns
    -------
    DatasheetResult
        A dict (``faircode/schemas/audit-datasheet.schema.json``): ``answers`` in the
        paper's order, each ``answered_by`` data, data_and_author or author; every number
        a measure ``{"value", "from"}`` whose ``from`` points into the profile's JSON.

    Examples
    --------
    >>> import pandas as pd, faircode
    >>> df = pd.DataFrame({"sex": ["F", "M", "M"] * 40, "score": range(120)})
    >>> d = faircode.audit_datasheet(df, audit_date="2025-01-31")
    >>> [a["id"] for a in d["answers"] if a["answered_by"] == "data"]
    ['count', 'subpopulations']
    >>> d["answers"][1]["answer"]
    '120 instances (rows) of 2 columns each.'
    """
    audit_date = iso_date(audit_date, "--audit-date") if audit_date is not None else today()
    opts = dict_arg("opts", opts)
    for key in ("reference", "proxy_hints", "cross"):
        if opts.get(key):
            raise InputError(f"audit datasheet: --{key.replace('_', '-')} is not an option here")
    if label is not None:
        opts["label"] = label
    if positive is not None:
        opts["positive"] = positive
    overrides = dict_arg("overrides", overrides)
    name = name or display_name(source)
    source, digest, note = pack_source(source, name)
    summary, checked, options = summarize(source, overrides=overrides, opts=opts, name=name)
    profile = analyze_read(summary, checked, options)
    prefilled = _answers(
        profile, list(summary.columns), options.min_share, overrides, options.min_group_size
    )
    answers = []
    for qid, question, who in QUESTIONS:
        got = prefilled.get(qid, {"answer": None, "measures": [], "tables": []})
        if qid == "label" and got["answer"] is not None:
            who = "data"
        answered_by = who if got["answer"] is not None or who == "author" else "author"
        answers.append(
            {
                "id": qid,
                "question": question,
                "answered_by": answered_by,
                "answer": got["answer"],
                "measures": got["measures"],
                "tables": got["tables"],
                "to_fill": None if answered_by == "data" else _to_fill(qid, answered_by),
            }
        )
    result = {
        "kind": "faircode.audit.datasheet",
        "format_version": DATASHEET_FORMAT_VERSION,
        "title": "Datasheet: composition",
        "source": SOURCE,
        "summary": {"file": name, "audit_date": audit_date, "tool": f"faircode {__version__}"},
        "answers": answers,
        "for_the_author": [a["id"] for a in answers if a["answered_by"] != "data"],
        "provenance": provenance_block(
            digest,
            note,
            options.params(),
            overrides,
            {"audit_date": audit_date, "label": label, "positive": positive},
        ),
    }
    return DatasheetResult(result, name=name)


def _to_fill(qid: str, who: str) -> str:
    if who == "author":
        return "to be answered by the dataset's author: the data cannot say"
    return "to be completed by the dataset's author: faircode pre-filled what the data shows"


# the reports: faircode/audit/datasheetdoc.py (the renderer registry names them there)
from .datasheetdoc import blocks, render_html, render_markdown, render_text  # noqa: E402, F401
