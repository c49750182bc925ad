"""The tools of the MCP server (SPEC.md section 11), without the MCP wiring.

Each tool takes the arguments of one `tools/call` (a JSON object) and returns the
JSON text and the object the CLI's ``--json`` prints for the same request. Nothing
here imports ``mcp``: :mod:`faircode.mcp_server` connects these functions to the
protocol. Every path a tool reads goes through :meth:`Root.confine` first.
"""

from __future__ import annotations

import glob
import json
import os
import stat
import sys
import traceback
from collections.abc import Callable
from typing import Any, NamedTuple

from .detect import OVERRIDE_VALUES
from .errors import FaircodeError, InputError
from .options import FAIRNESS_MIN_SAMPLES, FAIRNESS_THRESHOLD, Options
from .profiler import GLOB_CHARS

#: Paths that name the server's own standard input, which carries the protocol.
STDIN_NAMES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


class Root:
    """The one folder every tool reads from (``--root``; default the working directory).

    A path is taken relative to the root, or absolute inside it; it is resolved with
    every symbolic link followed (``os.path.realpath``) and refused when the result is
    outside the root, with a message saying which rule it broke.
    """

    def __init__(self, path: str) -> None:
        real = os.path.realpath(path)
        if not os.path.isdir(real):
            raise InputError(f"--root: {path}: not a directory; give an existing folder")
        self.path = real
        self._spelled = os.path.abspath(path)  # the root as given, before links are followed

    def _inside(self, path: str, *, spelled: bool = False) -> bool:
        roots = (self.path, self._spelled) if spelled else (self.path,)
        return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)

    def _shown(self, real: str) -> str:
        """A confined path as the tools open it: relative to the root when the server
        runs in it (the messages and reports then name the file as a CLI run there
        would), else absolute."""
        if os.path.realpath(os.getcwd()) == self.path:
            return os.path.relpath(real, self.path)
        return real

    def confine(self, given: Any, argument: str) -> str:
        """The path to open for ``given`` (an argument's value), or an InputError."""
        if not isinstance(given, str) or not given.strip():
            raise InputError(f"{argument}: give a file path (a non-empty string)")
        if "\0" in given:
            raise InputError(f"{argument}: a path cannot hold a NUL character")
        if given in STDIN_NAMES or os.path.normpath(given) in STDIN_NAMES:
            raise InputError(
                f"{argument}: {given}: the MCP server does not read standard input (it "
                "carries the protocol); give a file inside the root"
            )
        joined = os.path.join(self.path, given)  # an absolute `given` replaces the root
        if not self._inside(os.path.normpath(joined), spelled=True):
            if os.path.isabs(given):
                raise InputError(
                    f"{argument}: {given} is outside the server's root {self.path}; "
                    "give a path inside it (start the server with --root DIR to change it)"
                )
            raise InputError(
                f"{argument}: {given}: '..' leads outside the server's root {self.path}; "
                "give a path inside it"
            )
        real = os.path.realpath(joined)
        if not self._inside(real):
            raise InputError(
                f"{argument}: {given}: a symbolic link leads outside the server's root "
                f"{self.path}; copy the file into the root instead"
            )
        try:
            mode = os.stat(real).st_mode
        except OSError:
            return self._shown(real)  # missing: the reader names it ("no such file")
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise InputError(
                f"{argument}: {given}: not a regular file (a pipe, socket or device); "
                "the MCP server reads files only"
            )
        return self._shown(real)

    def source(self, given: Any, argument: str) -> str | list[str]:
        """confine() for a table to profile, which may be a glob pattern (SPEC 0): the
        pattern is expanded here and every match confined, so no match can lead out."""
        path = self.confine(given, argument)
        if os.path.exists(path) or not GLOB_CHARS & set(given):
            return path
        pattern = os.path.join(self.path, given)
        found = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
        if not found:
            raise InputError(f"{given}: no file matches this pattern")
        return [self.confine(p, argument) for p in found]


# ---------------------------------------------------------------------------------------
# Input schemas


def _opt(kind: str | list[str], text: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": text, **extra}


_D = Options()
_PATH = _opt("string", "a file inside the server's root (relative to it, or absolute)")
#: The SPEC section 7 options `faircode profile` and `faircode compare` both take.
COMMON_OPTIONS: dict[str, dict[str, Any]] = {
    "overrides": _opt(
        "object",
        "force a column's kind, {column: kind}; kinds: " + ", ".join(OVERRIDE_VALUES),
        additionalProperties={"type": "string"},
    ),
    "min_share": _opt("number", f"under-represented below this share ({_D.min_share})"),
    "min_group_size": _opt("integer", f"small_group below this count ({_D.min_group_size})"),
    "intersection_floor": _opt(
        "number", f"near-empty intersection cell below this share ({_D.intersection_floor})"
    ),
    "imbalance_flag": _opt("number", f"flag imbalance ratios from this ({_D.imbalance_flag})"),
    "missing_flag": _opt("number", f"flag missing shares from this ({_D.missing_flag})"),
    "max_age": _opt("number", f"ages above this are implausible ({_D.max_age})"),
    "max_categorical": _opt(
        "integer", f"most distinct values of a generic categorical ({_D.max_categorical})"
    ),
    "max_dimension_groups": _opt(
        "integer", f"drop non-geography dimensions with more groups ({_D.max_dimension_groups})"
    ),
    "age_bands": _opt(
        ["array", "string"],
        "age band edges, e.g. [0, 18, 30, 45, 60, 75] or '0,18,30,45,60,75'",
        items={"type": "integer"},
    ),
    "score_categoricals": _opt(
        "boolean", "also score columns with few labels that are not demographic (false)"
    ),
    "na": _opt(
        ["array", "string"],
        "missing-value tokens: 'TOKEN' (every column) or [column, token] pairs",
        items={"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    ),
    "recode": _opt(
        ["array", "object"],
        "rename labels before counting: [[column, from, to], ...] or {column: {from: to}}",
    ),
    "names": _opt(
        ["array", "string"], "column names for a file with no header", items={"type": "string"}
    ),
    "skip_lines": _opt("integer", "skip this many lines before the table (0)"),
    "delimiter": _opt("string", "one of , ; tab | (default: sniffed)", enum=[",", ";", "tab", "|"]),
    "encoding": _opt("string", f"text encoding ({_D.encoding})"),
    "label": _opt(
        "string", "outcome column: positive-label rate per group (SPEC 17; never a dimension)"
    ),
    "positive": _opt("string", "the label's positive value (needed with more than two values)"),
    "label_gap": _opt("number", f"flag a group's rate this far below the highest ({_D.label_gap})"),
    "missing_by_group": _opt(
        "boolean",
        f"report each column's missing share per group ({str(_D.missing_by_group).lower()})",
    ),
    "missing_gap": _opt(
        "number", f"flag a column missing this much more often in a group ({_D.missing_gap})"
    ),
    "provenance": _opt("boolean", "attach the SPEC section 10 provenance block (true)"),
}
PROFILE_ONLY: dict[str, dict[str, Any]] = {
    "cross": _opt(
        ["array", "string"],
        "the two columns to intersect: [A, B] or 'A,B'",
        items={"type": "string"},
    ),
    "reference": _opt(
        "string", "population baseline: us-2019, us-2024, or a column,group,share CSV in the root"
    ),
    "reference_flag": _opt(
        "number", f"flag groups this far below the reference share ({_D.reference_flag})"
    ),
}
PROXY_OPTIONS = ("overrides", "min_share", "min_group_size", "names", "skip_lines")
PROXY_OPTIONS += ("delimiter", "encoding", "na", "recode")
EVALUATE_OPTIONS: dict[str, dict[str, Any]] = {
    "path": _opt("string", "predictions inside the root: CSV, Parquet or JSON lines"),
    "attrs": _opt(
        ["array", "string"], "attributes to slice by (one or more)", items={"type": "string"}
    ),
    "pred": _opt("string", "prediction column (0/1 or numeric)"),
    "label": _opt("string", "label column; rows with a missing label await a label"),
    "score": _opt("string", "score column; prediction = score >= decision_threshold"),
    "decision_threshold": _opt("number", "decision threshold for score (or a regression pred)"),
    "task": _opt(
        "string", "model type (default: inferred from the file)", enum=["binary", "regression"]
    ),
    "threshold": _opt("number", f"largest allowed disparity ({FAIRNESS_THRESHOLD})"),
    "min_samples": _opt(
        "integer", f"a slice counts for a metric only with this many rows ({FAIRNESS_MIN_SAMPLES})"
    ),
    "intersect": _opt("boolean", "also slice by every combination of the attributes (false)"),
    "engine": _opt(
        "string",
        "metric engine (auto: fairlearn when installed)",
        enum=["auto", "pandas", "fairlearn"],
    ),
}


def _schema(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


SCHEMAS: dict[str, dict[str, Any]] = {
    "profile_dataset": _schema({"path": _PATH, **COMMON_OPTIONS, **PROFILE_ONLY}, ["path"]),
    "compare_datasets": _schema(
        {
            "path_a": _opt("string", "baseline file inside the root (e.g. training data)"),
            "path_b": _opt("string", "current file inside the root (e.g. production data)"),
            **COMMON_OPTIONS,
            "skip_lines_b": _opt("integer", "skip_lines for path_b only"),
        },
        ["path_a", "path_b"],
    ),
    "proxy_hints": _schema(
        {"path": _PATH, **{k: COMMON_OPTIONS[k] for k in PROXY_OPTIONS}}, ["path"]
    ),
    "evaluate_model": _schema(EVALUATE_OPTIONS, ["path", "attrs"]),
}
DESCRIPTIONS = {
    "profile_dataset": (
        "Profile who is, and is not, represented in a table: demographic dimensions, shares "
        "with 95% intervals, a 0-100 score and grade, flags (SPEC sections 6 and 10; the "
        "result of `faircode profile --json`)."
    ),
    "compare_datasets": (
        "Representation drift between a baseline and a current table: PSI, TVD and group "
        "shares per dimension (SPEC section 8; the result of `faircode compare --json`)."
    ),
    "proxy_hints": (
        "Pairs of columns that may stand in for each other (chi-squared test, Cramer's V): "
        "{'hints': [...]}. Only columns present in the file are tested."
    ),
    "evaluate_model": (
        "Per-slice model performance and fairness disparities of a predictions file "
        "(SPEC section 12.11; the result of `faircode fairness evaluate --json`)."
    ),
}


# ---------------------------------------------------------------------------------------
# Argument checks

_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def checked_arguments(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments with nulls dropped, after checking names, requirements and types
    against the tool's input schema (one-line InputError naming the argument)."""
    schema = SCHEMAS[tool]
    props = schema["properties"]
    args = {k: v for k, v in arguments.items() if v is not None}
    unknown = sorted(set(args) - set(props))
    if unknown:
        raise InputError(
            f"{tool}: unknown argument '{unknown[0]}' (known: {', '.join(sorted(props))})"
        )
    for name in schema["required"]:
        if name not in args:
            raise InputError(f"{tool}: the argument '{name}' is required")
    for name, value in args.items():
        kinds = props[name]["type"]
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_TYPES[k](value) for k in kinds):
            raise InputError(
                f"{tool}: '{name}' must be {' or '.join(kinds)}, got {json.dumps(value)}"
            )
    return args


_NUMERIC = {k for k, v in COMMON_OPTIONS.items() if v["type"] in ("number", "integer")}
_NUMERIC |= {"reference_flag"}


def _opts(args: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """The `opts` of profile() for the options in ``names``. A number is handed over as
    its text, as the CLI hands over an option's text, so the resolved values (and the
    provenance params) are those of the same CLI run: 100 -> 100.0 for --max-age."""
    opts: dict[str, Any] = {}
    for name in names:
        if name in args and name not in ("overrides", "provenance", "reference"):
            value = args[name]
            opts[name] = repr(value) if name in _NUMERIC else value
    return opts


def _overrides(args: dict[str, Any]) -> dict[str, str]:
    table = args.get("overrides", {})
    for col, kind in table.items():
        if not isinstance(kind, str):
            raise InputError(
                f"overrides: the kind of '{col}' must be a string ({', '.join(OVERRIDE_VALUES)})"
            )
    return {col.strip(" \t"): kind.strip(" \t") for col, kind in table.items()}


# ---------------------------------------------------------------------------------------
# The tools


def profile_dataset(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    from .options import resolve
    from .profiler import profile
    from .provenance import StreamHash, provenance, sha256_bytes

    opts = _opts(args, list(COMMON_OPTIONS) + list(PROFILE_ONLY))
    overrides = _overrides(args)
    reference_hash = None
    if "reference" in args:
        from .reference import BUILTIN, load_reference

        spec = args["reference"]
        if spec not in BUILTIN:
            spec = root.confine(spec, "reference")
        opts["reference"], ref_bytes, _ = load_reference(spec)
        reference_hash = sha256_bytes(ref_bytes)
    source = root.source(args["path"], "path")
    want = args.get("provenance", True)
    hasher = StreamHash()
    result = profile(source, overrides, opts, name=args["path"], on_bytes=hasher if want else None)
    if want:
        result["provenance"] = provenance(
            params=resolve(opts).params(),
            overrides=overrides,
            dataset_hashes={"dataset_hash": hasher.digest()},
            reference_hash=reference_hash,
        )
    return _profile_json(result)


def compare_datasets(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    from .compare import compare
    from .options import resolve
    from .profiler import profile
    from .provenance import StreamHash, provenance

    opts = _opts(args, list(COMMON_OPTIONS))
    opts_b = dict(opts)
    if "skip_lines_b" in args:
        opts_b["skip_lines"] = repr(args["skip_lines_b"])
    overrides = _overrides(args)
    want = args.get("provenance", True)
    results, hashes = [], {}
    for key, o in (("a", opts), ("b", opts_b)):
        source = root.source(args[f"path_{key}"], f"path_{key}")
        hasher = StreamHash()
        results.append(
            profile(
                source, overrides, o, name=args[f"path_{key}"], on_bytes=hasher if want else None
            )
        )
        hashes[f"dataset_hash_{key}"] = hasher.digest()
    result = compare(results[0], results[1], opts)
    if want:
        result["provenance"] = provenance(
            params=resolve(opts).params(), overrides=overrides, dataset_hashes=hashes
        )
    return _profile_json(result)


def proxy_hints(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """SPEC 16's block ({"alpha", "correction", "exact", "hints": [...], "not_tested"}),
    an object, never a bare list."""
    from .proxy import proxy_hints as hints_of

    source = root.source(args["path"], "path")
    block = hints_of(source, _overrides(args), _opts(args, list(PROXY_OPTIONS)))
    return _profile_json(block)


def evaluate_model(root: Root, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    from .monitor import MonitorInputError, evaluate
    from .monitor.render import render_json

    attrs = args["attrs"]
    if isinstance(attrs, list) and not all(isinstance(a, str) for a in attrs):
        raise MonitorInputError("evaluate_model: 'attrs' must be column names (strings)")

    def number(name: str) -> float | None:  # the CLI's type=float
        return float(args[name]) if name in args else None

    threshold = number("threshold")
    report = evaluate(
        root.confine(args["path"], "path"),
        pred=args.get("pred"),
        attrs=attrs,
        label=args.get("label"),
        score=args.get("score"),
        decision_threshold=number("decision_threshold"),
        task=args.get("task"),
        threshold=FAIRNESS_THRESHOLD if threshold is None else threshold,
        min_samples=args.get("min_samples", FAIRNESS_MIN_SAMPLES),
        intersect=args.get("intersect", False),
        engine=args.get("engine", "auto"),
    )
    text = render_json(report)
    return text, json.loads(text)


def _profile_json(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    from .render import render_as

    text = render_as("profile", "json", result)
    return text, json.loads(text)


TOOLS: dict[str, Callable[[Root, dict[str, Any]], tuple[str, dict[str, Any]]]] = {
    "profile_dataset": profile_dataset,
    "compare_datasets": compare_datasets,
    "proxy_hints": proxy_hints,
    "evaluate_model": evaluate_model,
}


class Outcome(NamedTuple):
    """What one tool call gives the client: JSON text and object, or an error line."""

    text: str
    data: dict[str, Any] | None
    is_error: bool


def run_tool(
    root: Root,
    name: str,
    arguments: dict[str, Any] | None,
    tools: dict[str, Callable[[Root, dict[str, Any]], tuple[str, dict[str, Any]]]] = TOOLS,
) -> Outcome:
    """One tool call, never raising: an anticipated failure (FaircodeError, an OSError
    naming a file) is its one-line message; anything else is reported as an internal
    error with its type and first line, and its traceback goes to stderr."""
    try:
        if name not in tools:
            raise InputError(f"unknown tool '{name}' (known: {', '.join(tools)})")
        args = checked_arguments(name, arguments or {}) if name in SCHEMAS else arguments or {}
        text, data = tools[name](root, args)
        return Outcome(text, data, False)
    except FaircodeError as err:
        return Outcome(str(err), None, True)
    except OSError as err:
        if err.filename is None:
            return _internal(name, err)
        return Outcome(f"{err.filename}: {err.strerror or err}", None, True)
    except Exception as err:  # the server must outlive a bug in one call
        return _internal(name, err)


def _internal(name: str, err: BaseException) -> Outcome:
    traceback.print_exception(err, file=sys.stderr)
    first = (str(err).strip().splitlines() or [""])[0]
    return Outcome(
        f"{name}: internal error ({type(err).__name__}: {first}); this is a bug in faircode, "
        "please report it",
        None,
        True,
    )
