"""The prediction store's Python API: per-slice metrics, disparities, the gate, reports.

These are the functions ``faircode fairness slice``, ``report`` and ``gate`` call, so
Python and the command line give the same numbers from one code path (SPEC 15.9). Each
takes the model's name and, as keywords, the store (a path, a ``postgresql://`` URL or
an open store; default ``$FAIRCODE_DB``, else ``.faircode/monitor.db``) and the slice
registry (``fairness.yaml`` or a model's own YAML file with a ``fairness:`` block;
default ``$FAIRCODE_REGISTRY``, else ``fairness.yaml``). A runtime override set with
``faircode fairness config`` wins over the file, as on the command line. Bad input
raises :class:`~faircode.monitor.MonitorInputError` with the CLI's one-line message.

Examples
--------
A store holding 810 predictions of model ``loans`` with their labels, and the model's
own YAML file declaring its slice registry (the examples of every function below use
``db`` and ``registry`` from here):

>>> import pathlib, tempfile
>>> from faircode.monitor.cli import run
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> db, registry = str(folder / "monitor.db"), str(folder / "loans.yaml")
>>> _ = pathlib.Path(registry).write_text(
...     "fairness:\\n"
...     "  slices: [region]\\n"
...     "  threshold: 0.1\\n"
...     "  min_samples: 30\\n"
...     "  gate_promotion: true\\n"
... )
>>> rows = ["id,region,approved,repaid"]
>>> for i in range(400):
...     rows.append(f"n{i},north,{int(i < 200)},{int(i < 200 or i >= 300)}")
...     rows.append(f"s{i},south,{int(i < 100)},{int(i < 100 or i >= 200)}")
>>> rows += [f"w{i},west,{i % 2},{i % 2}" for i in range(10)]
>>> _ = (folder / "day1.csv").write_text("\\n".join(rows) + "\\n")
>>> common = ["--db", db, "--registry", registry]
>>> run(["fairness", "log", "loans", str(folder / "day1.csv"), "--version", "v1",
...      "--id", "id", "--pred", "approved", "--attr", "region", *common])
0
>>> run(["fairness", "label", "loans", str(folder / "day1.csv"),
...      "--id", "id", "--label", "repaid", *common])
0
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, ClassVar, TypeVar

from ..errors import EXIT_FAIL, EXIT_INSUFFICIENT, EXIT_OK, EXIT_UNMEASURED
from ..numerics import count_text
from ..renderers import render_as
from ..results import names_text, notebook_html
from ..safetext import shown
from .args import path, switch, text
from .errors import MonitorInputError

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "FairnessReport",
    "GateResult",
    "SliceMetrics",
    "SliceResult",
    "SloGateResult",
    "fairness_disparity",
    "fairness_gate",
    "fairness_report",
    "fairness_watch",
    "slice_metrics",
    "slo_gate",
    "slo_ingest",
    "slo_set",
    "slo_show",
]

Interval = tuple[float, float | None] | None

#: What ``store`` and ``registry`` take, as their refusals say.
STORE_FORMS = "a SQLite path, a postgresql:// URL or an open store (faircode.monitor.store)"
REGISTRY_FORMS = "the path (a str or os.PathLike) of fairness.yaml or of the model's YAML file"

#: What a function run with the registry in force returns (``_with_registry``).
Judged = TypeVar("Judged")

#: The seed's names for the gated and reported disparities of a slicing (SPEC 12.6).
DISPARITY_NAMES = {
    "demographic_parity_diff": "demographic_parity_difference",
    "equalized_odds_diff": "equalized_odds_difference",
    "selection_rate_range": "selection_rate_range",
    "accuracy_range": "accuracy_range",
    "mae_range": "mae_range",
}

#: A gate's outcome from its report's status (SPEC 12.8, 12.9).
OUTCOMES = {
    "within_threshold": "pass",
    "exceeded": "fail",
    "insufficient_evidence": "insufficient_evidence",
    "unmeasured": "unmeasured",
}


#: What a refusal calls each argument (SPEC 15.9): the CLI's flag where the argument
#: has one, as the profiler's API does (SPEC 0.6), else its name.
_FLAGS = {
    "model": "model",
    "attr": "attr",
    "name": "--name",
    "version": "--version",
    "since": "--since",
    "until": "--until",
    "at": "--at",
    "reason": "--reason",
    "intersect": "--intersect",
    "force": "--force",
    "gate": "--gate",
}
#: The switches among them (True or False), and the text arguments that must be given.
_SWITCHES = ("intersect", "force", "gate")
_REQUIRED = ("model", "attr")


def _arguments(**given: Any) -> None:
    """The API's text arguments and switches checked before the store is opened: a
    text argument is a str (None: not given, except a model or an attribute), a switch
    True or False; else one line naming it (``--version: 5 is not text``). The store and
    the registry are checked where they are opened; numbers, windows and buckets by
    the checks the command line's values pass too."""
    for arg, value in given.items():
        if arg in _SWITCHES:
            switch(_FLAGS[arg], value)
        else:
            text(_FLAGS[arg], value, required=arg in _REQUIRED)


@contextmanager
def _opened(store: Any, create: bool = False) -> Iterator[Store]:
    """``store`` itself when it is an open store (the caller closes it), else the store
    at that location, closed afterwards; one that does not exist is an error, created
    only when ``create`` (a function that stores what it is given), as on the command
    line (SPEC 15.2)."""
    from .store import Store, open_store  # lazy: start-up

    if isinstance(store, Store):
        yield store
        return
    where = None if store is None else path("store", store, STORE_FORMS)
    opened = open_store(where, create=create)
    try:
        yield opened
    finally:
        opened.close()


def _registry_path(registry: str | os.PathLike[str] | None) -> Any:
    """The registry file named, else ``$FAIRCODE_REGISTRY``, else ``fairness.yaml``."""
    from .registry import resolve_path  # lazy: start-up

    return resolve_path(None if registry is None else path("--registry", registry, REGISTRY_FORMS))


def _with_registry(
    run: Callable[..., Judged],
    store: Store,
    model: str,
    registry: str | os.PathLike[str] | None,
    **options: Any,
) -> Judged:
    """``run(store, model, the registry in force, registry_source=..., **options)``.

    The store report and the SLO readings judge with the registry the CLI would use (a
    store override, else the file), or fail with its message when there is none."""
    from .control import registry_state, require_registry  # lazy: start-up

    state = registry_state(store, model, _registry_path(registry))
    return run(store, model, require_registry(state), registry_source=state["source"], **options)


def _window_report(
    store: Store,
    model: str,
    registry: str | os.PathLike[str] | None,
    version: str | None,
    since: str | None,
    until: str | None,
    /,
    **options: Any,
) -> dict[str, Any]:
    """The store report of ``version`` from ``since`` to ``until``: what ``report``,
    ``slice`` and ``watch`` judge (``options``: the rest of ``store_report``'s keywords)."""
    from .timeline import store_report  # lazy: start-up

    return _with_registry(
        store_report, store, model, registry, version=version, since=since, until=until, **options
    )


def _metric(metrics: dict[str, Any], name: str) -> tuple[float | None, Interval]:
    m = metrics.get(name)
    if m is None:
        return None, None
    ci = m.get("ci95")
    return m["value"], None if ci is None else (ci[0], ci[1])


def _json(value: Any) -> str:
    """What the commands' ``--json`` prints: two-space indented, no NaN."""
    from .render import render_json  # lazy: start-up

    return render_json(value)


class _Reported:
    """A store result's reports as its command prints them (``report(form)``) and its
    notebook cell (``_repr_html_``, SPEC 6.2's rule and size cap: the ``html`` report in
    a sandboxed frame where the command has one, else the Markdown, else the text
    report, in a ``<pre>``), so a notebook shows what ``faircode fairness ...`` prints."""

    __slots__ = ()
    #: The command it is the result of, and the formats ``report`` gives.
    command: ClassVar[str] = ""
    forms: ClassVar[tuple[str, ...]] = ()

    def _made(self, form: str) -> str:
        raise NotImplementedError

    #: The method that renders it: ``render`` (``report`` is the data of some of them).
    method: ClassVar[str] = "render"

    def render(self, form: str = "text") -> str:
        """The report in ``form`` (one of ``forms``) as ``faircode fairness ...`` prints it
        (the gates' text: the lines they print on stderr)."""
        if not isinstance(form, str) or form not in self.forms:
            raise MonitorInputError(
                f"{self.method}: {form!r} is not a format of {self.command} "
                f"({', '.join(self.forms)})"
            )
        return self._made(form)

    def _repr_html_(self) -> str:
        readable = "markdown" if "markdown" in self.forms else "text"
        return notebook_html(
            self.render("html") if "html" in self.forms else None,
            lambda: self.render(readable),
            f"faircode {self.command}",
            readable,
            self.method,
        )


class FairnessReport(_Reported, dict):
    """``fairness_report``'s result: the report as a plain ``dict`` (``==`` a dict,
    ``json.dumps``, pickling behave as for the dict) that shows ``faircode fairness
    report``'s Markdown in a notebook and has ``report(form)`` (text, markdown, json),
    as the profiler's results do.

    Attributes
    ----------
    command : str
        The CLI command whose output ``report(form)`` is (``"fairness report"``).
    forms : tuple of str
        The forms ``report(form)`` takes.

    The keys are those of ``faircode fairness report --json`` (SPEC-monitor 15.5):
    ``model``, ``version``, ``window``, ``registry``, ``evaluation``, ``trend``,
    ``sli`` and the rest.
    """

    __slots__ = ()
    command = "fairness report"
    forms = ("text", "json", "markdown")
    method = "report"
    report = _Reported.render

    def _made(self, form: str) -> str:
        from .timeline import render_report_markdown, render_report_text  # lazy: start-up

        if form == "json":
            return _json(dict(self))
        return (render_report_markdown if form == "markdown" else render_report_text)(self)

    def __repr__(self) -> str:
        ev = self["evaluation"]
        groups = [f"{g['name']} {g['status']}" for g in ev["groups"]]
        sli = self["sli"]
        return shown(
            f"FairnessReport({ev['status']}; {self['model']} version {self['version']}; "
            f"n={ev['rows']['total']}; {count_text(len(groups), 'attribute')}: "
            f"{names_text(groups) or 'none'}; SLI {sli['good']}/{sli['total']})"
        )


@dataclass(frozen=True)
class SliceResult:
    """One slice of an attribute: its size, metrics and their 95% intervals.

    Attributes
    ----------
    slice_value : str
        The slice as reports name it (``"(missing)"`` for rows without a value).
    n : int
        Predictions in the slice (the selection rate's count).
    n_labelled : int
        Predictions whose label has arrived (the label metrics' count).
    accuracy, selection_rate, tpr, fpr : float or None
        Binary task: the fraction correct, predicted positive, true and false positive
        rate; None where undefined (no labelled positives for ``tpr``) and in a
        regression task (``selection_rate`` there needs a decision threshold).
    error : float or None
        Regression task: the mean absolute error; None in a binary task.
    accuracy_ci, selection_rate_ci, tpr_ci, fpr_ci, error_ci : tuple or None
        The 95% interval ``(low, high)`` of each value (SPEC 12.7), None without one.
    below_min : bool
        True when the slice is below the ``min_samples`` guard for any metric, so it is
        left out of that metric's disparities (the Guard column of ``slice``).
    low_n : tuple of str
        The metrics it is guarded for (SPEC 12.5: each metric's own count).
    metrics : dict
        Every metric of the slice as the JSON report has it (value, count, ci95, ...).
    """

    slice_value: str
    n: int
    n_labelled: int
    accuracy: float | None
    accuracy_ci: Interval
    selection_rate: float | None
    selection_rate_ci: Interval
    tpr: float | None
    tpr_ci: Interval
    fpr: float | None
    fpr_ci: Interval
    error: float | None
    error_ci: Interval
    below_min: bool
    low_n: tuple[str, ...]
    metrics: dict[str, Any] = field(repr=False, compare=False)

    def __repr__(self) -> str:
        from .render import fmt  # lazy: start-up

        values = (
            ("accuracy", self.accuracy),
            ("selection_rate", self.selection_rate),
            ("tpr", self.tpr),
            ("fpr", self.fpr),
            ("error", self.error),
        )
        measured = "; ".join(f"{k} {fmt(v)}" for k, v in values if v is not None)
        guard = f"; below min_samples for {', '.join(self.low_n)}" if self.low_n else ""
        return shown(
            f"SliceResult({self.slice_value}: n={self.n}, {self.n_labelled} labelled; "
            f"{measured or 'nothing measured'}{guard})"
        )

    @classmethod
    def from_report(cls, s: dict[str, Any]) -> SliceResult:
        m = s["metrics"]
        acc, acc_ci = _metric(m, "accuracy")
        sel, sel_ci = _metric(m, "selection_rate")
        tpr, tpr_ci = _metric(m, "tpr")
        fpr, fpr_ci = _metric(m, "fpr")
        mae, mae_ci = _metric(m, "mae")
        return cls(
            slice_value=s["slice"],
            n=int(s["n"]),
            n_labelled=int(s["n_labelled"]),
            accuracy=acc,
            accuracy_ci=acc_ci,
            selection_rate=sel,
            selection_rate_ci=sel_ci,
            tpr=tpr,
            tpr_ci=tpr_ci,
            fpr=fpr,
            fpr_ci=fpr_ci,
            error=mae,
            error_ci=mae_ci,
            below_min=bool(s["low_n"]),
            low_n=tuple(s["low_n"]),
            metrics=m,
        )


@dataclass(frozen=True)
class SliceMetrics(_Reported):
    """An attribute's slices and disparities for one model version (``slice_metrics``).

    Attributes
    ----------
    model, version, attribute : str
        What was evaluated; ``version`` is the one given, else the latest logged.
    task : str
        ``binary`` or ``regression`` (declared in the registry, else inferred).
    threshold : float
        The registry's largest allowed disparity.
    min_samples : int
        The registry's low-n guard.
    rule : str
        How a disparity is judged against the threshold: ``interval`` or ``point``.
    slices : tuple of SliceResult
        In the report's order.
    demographic_parity_diff, equalized_odds_diff, selection_rate_range, accuracy_range, \
mae_range : float or None
        The disparities over the eligible slices (SPEC 12.6); None when unmeasured or
        not defined for the task.
    demographic_parity_diff_ci, equalized_odds_diff_ci, selection_rate_range_ci, \
accuracy_range_ci, mae_range_ci : tuple or None
        Their 95% intervals (SPEC 12.7).
    disparity_exceeded : bool
        True exactly when ``status`` is ``exceeded``: a gated disparity (demographic
        parity, equalized odds, accuracy range; MAE range for regression) exceeds the
        threshold by the registry's ``rule``.
    status : str
        ``within_threshold``, ``exceeded``, ``insufficient_evidence`` or ``unmeasured``.
    report : dict
        The whole store report, as ``faircode fairness slice MODEL ATTR --json`` prints.
    """

    model: str
    version: str
    attribute: str
    task: str
    threshold: float
    min_samples: int
    rule: str
    slices: tuple[SliceResult, ...]
    demographic_parity_diff: float | None
    demographic_parity_diff_ci: Interval
    equalized_odds_diff: float | None
    equalized_odds_diff_ci: Interval
    selection_rate_range: float | None
    selection_rate_range_ci: Interval
    accuracy_range: float | None
    accuracy_range_ci: Interval
    mae_range: float | None
    mae_range_ci: Interval
    disparity_exceeded: bool
    status: str
    report: dict[str, Any] = field(repr=False, compare=False)

    command = "fairness slice"
    forms = ("text", "json", "markdown", "html")

    def _made(self, form: str) -> str:
        if form == "json":
            return _json(self.report)
        # the slice's report is a 12.11 report: evaluate's renderers, as the CLI's
        return render_as("fairness evaluate", form, self.report["evaluation"])

    def __repr__(self) -> str:
        from .render import fmt  # lazy: start-up

        n = sum(s.n for s in self.slices)
        guarded = sum(s.below_min for s in self.slices)
        gated = ("demographic_parity_diff", "equalized_odds_diff", "accuracy_range", "mae_range")
        values = [(name, getattr(self, name)) for name in gated]
        measured = ", ".join(f"{k} {fmt(v)}" for k, v in values if v is not None)
        return shown(
            f"SliceMetrics({self.status}; {self.model} version {self.version}, "
            f"{self.attribute}: {count_text(len(self.slices), 'slice')}, n={n}, "
            f"{guarded} below min_samples {self.min_samples}; "
            f"{measured or 'no disparity measured'}; threshold {self.threshold:g} by "
            f"{self.rule})"
        )

    @classmethod
    def from_report(cls, report: dict[str, Any]) -> SliceMetrics:
        ev = report["evaluation"]
        group = ev["groups"][0]
        found = {d["metric"]: d for d in group["disparities"]}
        values: dict[str, Any] = {}
        for name, metric in DISPARITY_NAMES.items():
            d = found.get(metric)
            ci = None if d is None else d["ci95"]
            values[name] = None if d is None else d["value"]
            values[f"{name}_ci"] = None if ci is None else (ci[0], ci[1])
        return cls(
            model=report["model"],
            version=report["version"],
            attribute=group["name"],
            task=ev["task"]["type"],
            threshold=ev["settings"]["threshold"],
            min_samples=ev["settings"]["min_samples"],
            rule=ev["settings"]["rule"],
            slices=tuple(SliceResult.from_report(s) for s in group["slices"]),
            disparity_exceeded=bool(group["disparity_exceeded"]),
            status=group["status"],
            report=report,
            **values,
        )

    def disparities(self) -> dict[str, Any]:
        """What :func:`fairness_disparity` returns: the disparities as a plain dict."""
        group = self.report["evaluation"]["groups"][0]
        by_metric = {d["metric"]: d for d in group["disparities"]}
        return {
            "model": self.model,
            "version": self.version,
            "attribute": self.attribute,
            "task": self.task,
            "threshold": self.threshold,
            "min_samples": self.min_samples,
            "rule": self.rule,
            "status": self.status,
            "disparity_exceeded": self.disparity_exceeded,
            **{name: getattr(self, name) for name in DISPARITY_NAMES},
            "ci95": {
                name: None if (ci := getattr(self, f"{name}_ci")) is None else list(ci)
                for name in DISPARITY_NAMES
            },
            "eligible_slices": {
                name: by_metric[metric]["eligible_slices"]
                for name, metric in DISPARITY_NAMES.items()
                if metric in by_metric
            },
        }


@dataclass(frozen=True)
class GateResult(_Reported):
    """The promotion gate's decision for one model version (``fairness_gate``).

    True in a boolean context exactly when the gate lets the version through (the CLI
    exits 0): ``if fairness_gate("loans", version="v2"): promote()``.

    Attributes
    ----------
    model, version : str
        What was judged (``version``: the one given, else the latest logged).
    outcome : str
        What the evidence says: ``pass`` (every gated disparity within the threshold),
        ``fail`` (one exceeds it), ``insufficient_evidence`` (an interval straddles the
        threshold, or slices sit below the low-n guard), ``unmeasured`` (too few
        eligible slices or no labels yet: never a pass), or ``disabled`` (the registry
        has ``enabled: false``; nothing was judged).
    exit_code : int
        The exit code ``faircode fairness gate`` gives for it (SPEC 12.9, 15.6): 0 pass,
        1 fail, 5 insufficient evidence, 3 unmeasured; 0 whatever the outcome when the
        gate is advisory (``gate: false`` / ``gate_promotion: false``), disabled, or
        overridden with ``force``.
    event : str
        The audit event recorded: ``fairness_gate_passed``,
        ``promotion_blocked_by_fairness``, ``fairness_gate_override`` or
        ``fairness_gate_disabled``.
    advisory, forced : bool
        The gate only warned (``gate: false``); the decision was overridden (``force``).
    message : str or None
        The CLI's warning for an advisory or disabled gate.
    audit_id : int
        The audit row that records the decision.
    report : dict or None
        The store report the gate judged (None when disabled).
    reason : str or None
        Why the decision was overridden (``force``), as the audit log keeps it.
    """

    model: str
    version: str
    outcome: str
    exit_code: int
    event: str
    advisory: bool
    forced: bool
    message: str | None
    audit_id: int
    report: dict[str, Any] | None = field(repr=False, compare=False)
    reason: str | None = field(default=None, repr=False, compare=False)

    command = "fairness gate"
    forms = ("text", "json")

    @property
    def passed(self) -> bool:
        """The gate lets the version through (exit 0)."""
        return self.exit_code == EXIT_OK

    def __bool__(self) -> bool:
        return self.passed

    def _made(self, form: str) -> str:
        if form == "json":
            return _json(
                {
                    "event": self.event,
                    "exit": self.exit_code,
                    "audit_id": self.audit_id,
                    "report": self.report,
                }
            )
        return "".join(line + "\n" for line in self._lines())

    def _lines(self) -> list[str]:
        """What ``faircode fairness gate`` prints on stderr: each gated disparity that
        failed, the warning, and the decision."""
        from .gate import gate_lines, passed_caveat, unmeasured_hint  # lazy: start-up

        report = self.report
        lines = [] if report is None else gate_lines(report["evaluation"])
        if self.message:
            lines.append(f"faircode: warning: {self.message}")
        who = f"{self.model} version {self.version}"
        if self.forced:
            lines.append(
                f"faircode: warning: gate OVERRIDDEN with --force for {who} (recorded as "
                f"fairness_gate_override, reason: {self.reason})"
            )
        elif self.event == "promotion_blocked_by_fairness" and report is not None:
            what = {EXIT_FAIL: "exceeded", EXIT_INSUFFICIENT: "insufficient evidence"}.get(
                self.exit_code, "unmeasured"
            )
            fix = (
                "fix it"
                if self.exit_code != EXIT_UNMEASURED
                else unmeasured_hint(report["evaluation"], store=True)
            )
            lines.append(
                f"faircode: gate: blocked: {who}: {what} (recorded as "
                f"promotion_blocked_by_fairness); {fix}, or --force --reason TEXT"
            )
        elif self.event == "fairness_gate_passed" and not self.message:
            caveat = passed_caveat(report["evaluation"], store=True) if report else ""
            lines.append(
                f"faircode: gate: passed: {who}: every gated disparity within threshold{caveat}"
            )
        return lines

    def __repr__(self) -> str:
        n = (
            "nothing judged"
            if self.report is None
            else (f"n={self.report['evaluation']['rows']['total']}")
        )
        verdict = "passes" if self.passed else "blocked"
        return shown(
            f"GateResult({self.outcome}: {verdict}, exit {self.exit_code}; {self.model} "
            f"version {self.version}; {n}; {self.event}, audit row {self.audit_id})"
        )


def fairness_report(
    model: str,
    *,
    store: Store | str | os.PathLike[str] | None = None,
    registry: str | os.PathLike[str] | None = None,
    version: str | None = None,
    since: str | None = None,
    until: str | None = None,
    target: float | None = None,
    intersect: bool = False,
    bucket: str = "day",
) -> dict[str, Any]:
    """The fairness report of one model version over a window, from the store.

    What ``faircode fairness report MODEL --json`` prints (SPEC 15.5): every declared
    slice attribute's slices and disparities, the trend per bucket and the SLI.

    Parameters
    ----------
    model : str
        The model's name (matched case-insensitively).
    store : str, path-like or Store, optional
        A SQLite path, a ``postgresql://`` URL, or an open store; default
        ``$FAIRCODE_DB``, else ``.faircode/monitor.db``.
    registry : str or path-like, optional
        ``fairness.yaml`` or the model's own YAML file (``fairness:`` block); default
        ``$FAIRCODE_REGISTRY``, else ``fairness.yaml``. A store override wins.
    version : str, optional
        The version to evaluate; default the version whose first batch was logged last.
    since, until : str, optional
        The window's first and last day (``YYYY-MM-DD`` or an ISO-8601 time), inclusive.
    target : float, optional
        SLO target in (0, 1]: adds the error budget to ``sli``.
    intersect : bool, default False
        Also evaluate every combination of the declared attributes.
    bucket : str, default "day"
        The trend's buckets: ``"day"`` (UTC days), ``"week"`` (ISO weeks, Monday
        start, UTC), ``"month"`` (calendar months, UTC) or ``"N-rows"`` (``"500-rows"``:
        N consecutive predictions in time order, ties by request id). Each bucket gives
        each gated disparity's value, 95% interval and status (decided as a report of
        the bucket's rows alone, under the registry's rule), row counts, and a note
        where it is not measured (``"below the guard: n=12 < 30"``).

    Returns
    -------
    dict
        ``kind "faircode.fairness.report"``: ``model``, ``version``, ``window``,
        ``bucket``, ``registry``, ``orphan_labels``, ``evaluation`` (the report of SPEC
        12.11), ``trend`` and ``sli``.

    Raises
    ------
    MonitorInputError
        No registry for the model, an unknown model or version, an attribute declared
        but never logged, a malformed registry file, ...

    Examples
    --------
    >>> from faircode.monitor import fairness_report
    >>> report = fairness_report("loans", store=db, registry=registry)
    >>> report["version"], report["registry"]["source"], report["evaluation"]["status"]
    ('v1', 'yaml', 'exceeded')
    >>> report["sli"]["good"], report["sli"]["total"]
    (0, 1)
    >>> trend = fairness_report("loans", store=db, registry=registry, bucket="300-rows")["trend"]
    >>> [(b["bucket"], b["n"]) for b in trend]
    [('1-300', 300), ('301-600', 300), ('601-810', 210)]
    >>> [b["groups"][0]["notes"].get("demographic_parity_difference") for b in trend]
    ['1 eligible slice(s) for selection_rate, need 2', None, 'below the guard: west n=10 < 30']
    """
    _arguments(model=model, version=version, since=since, until=until, intersect=intersect)
    with _opened(store) as opened:
        return FairnessReport(
            _window_report(
                opened,
                model,
                registry,
                version,
                since,
                until,
                target=target,
                intersect=intersect,
                bucket=bucket,
            )
        )


def slice_metrics(
    model: str,
    attr: str,
    *,
    store: Store | str | os.PathLike[str] | None = None,
    registry: str | os.PathLike[str] | None = None,
    version: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> SliceMetrics:
    """Per-slice performance of one attribute, and its disparities, from the store.

    The numbers of ``faircode fairness slice MODEL ATTR`` (SPEC 15.5): any logged
    attribute, sliced by the registry's group rules, judged with its threshold,
    ``min_samples`` and rule.

    Parameters
    ----------
    model : str
        The model's name (matched case-insensitively).
    attr : str
        A logged attribute (declared in the registry's ``slices`` or not).
    store, registry, version, since, until
        As for :func:`fairness_report`.

    Returns
    -------
    SliceMetrics
        ``slices`` (each with ``slice_value``, ``n``, ``accuracy``, ``below_min``, ...
        and 95% intervals), ``demographic_parity_diff``, ``equalized_odds_diff``,
        ``selection_rate_range``, ``accuracy_range`` (each with ``_ci``),
        ``disparity_exceeded`` and ``status``; ``report`` is the whole report.

    Raises
    ------
    MonitorInputError
        As for :func:`fairness_report`; also an attribute never logged for the model.

    Examples
    --------
    >>> from faircode.monitor import slice_metrics
    >>> res = slice_metrics("loans", "region", store=db, registry=registry)
    >>> for s in res.slices:
    ...     print(s.slice_value, s.n, s.accuracy, s.below_min)
    north 400 0.75 False
    south 400 0.5 False
    west 10 1.0 True
    >>> res.demographic_parity_diff, res.disparity_exceeded
    (0.25, True)
    >>> low, high = res.demographic_parity_diff_ci
    >>> 0.1 < low < 0.25 < high
    True
    """
    _arguments(model=model, attr=attr, version=version, since=since, until=until)
    with _opened(store) as opened:
        report = _window_report(opened, model, registry, version, since, until, attrs=[attr])
    return SliceMetrics.from_report(report)


def fairness_disparity(
    model: str,
    attr: str,
    *,
    store: Store | str | os.PathLike[str] | None = None,
    registry: str | os.PathLike[str] | None = None,
    version: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> dict[str, Any]:
    """An attribute's disparities as a plain dict, for model cards and reports.

    :func:`slice_metrics` without the slices: JSON-ready.

    Parameters
    ----------
    model, attr, store, registry, version, since, until
        As for :func:`slice_metrics`.

    Returns
    -------
    dict
        ``model``, ``version``, ``attribute``, ``task``, ``threshold``,
        ``min_samples``, ``rule``, ``status``, ``disparity_exceeded``, the values
        ``demographic_parity_diff``, ``equalized_odds_diff``, ``selection_rate_range``,
        ``accuracy_range``, ``mae_range`` (None when unmeasured or not defined for the
        task), ``ci95`` (their 95% intervals as ``[low, high]``) and
        ``eligible_slices`` (per disparity, the slices it was taken over).

    Examples
    --------
    >>> import json
    >>> from faircode.monitor import fairness_disparity
    >>> d = fairness_disparity("loans", "region", store=db, registry=registry)
    >>> d["demographic_parity_diff"], d["accuracy_range"], d["disparity_exceeded"]
    (0.25, 0.25, True)
    >>> d["eligible_slices"]["demographic_parity_diff"]
    2
    >>> _ = json.dumps(d)
    """
    return slice_metrics(
        model, attr, store=store, registry=registry, version=version, since=since, until=until
    ).disparities()


def fairness_gate(
    model: str,
    *,
    store: Store | str | os.PathLike[str] | None = None,
    registry: str | os.PathLike[str] | None = None,
    version: str | None = None,
    force: bool = False,
    reason: str | None = None,
) -> GateResult:
    """Judge one model version's predictions for promotion, and record the decision.

    What ``faircode fairness gate MODEL --version V`` does (SPEC 15.6): only that
    version's predictions, with the registry in force and its ``rule``; the decision is
    written to the store's audit log (so the store must be writable).

    Parameters
    ----------
    model : str
        The model's name (matched case-insensitively).
    store, registry
        As for :func:`fairness_report`.
    version : str, optional
        The version to promote; default the version whose first batch was logged last.
    force : bool, default False
        Let the version through whatever the outcome (needs ``reason``); recorded as
        ``fairness_gate_override``.
    reason : str, optional
        Why (kept in the audit log).

    Returns
    -------
    GateResult
        True when the gate lets the version through; ``outcome`` and ``exit_code`` say
        what it found and what the CLI would exit.

    Raises
    ------
    MonitorInputError
        As for :func:`fairness_report`; also ``force`` without ``reason``, and a
        read-only store.

    Examples
    --------
    >>> from faircode.monitor import fairness_gate
    >>> gate = fairness_gate("loans", store=db, registry=registry)
    >>> bool(gate), gate.outcome, gate.exit_code, gate.event
    (False, 'fail', 1, 'promotion_blocked_by_fairness')
    >>> forced = fairness_gate("loans", store=db, registry=registry, force=True,
    ...                        reason="approved by the review board")
    >>> bool(forced), forced.outcome, forced.event
    (True, 'fail', 'fairness_gate_override')
    """
    from .control import run_gate  # lazy: start-up

    _arguments(model=model, version=version, force=force, reason=reason)
    with _opened(store) as opened:
        res = run_gate(opened, model, _registry_path(registry), version, force=force, reason=reason)
    report = res["report"]
    return GateResult(
        model=res["state"]["model"],
        version=res["version"],
        outcome="disabled" if report is None else OUTCOMES[report["evaluation"]["status"]],
        exit_code=int(res["code"]),
        event=res["event"],
        # the warning of a judged gate that did not block: gate: false
        advisory=report is not None and res["message"] is not None,
        forced=res["event"] == "fairness_gate_override",
        message=res["message"],
        audit_id=int(res["audit"]["id"]),
        report=report,
        reason=reason,
    )


# -- SLOs and alerts (SPEC 15.10, 15.11) ----------------------------------------------
@dataclass(frozen=True)
class SloGateResult(_Reported):
    """The SLO gate's decision for a model (``slo_gate``).

    True in a boolean context exactly when ``faircode fairness slo gate`` exits 0.

    Attributes
    ----------
    model : str
        The model (its case-folded key).
    at : str
        The time the budgets were judged at (UTC, ISO-8601).
    exit_code : int
        6 a gating SLO's budget is spent, 3 a gating SLO is unmeasured (no readings in
        its window, or none measurable), else 0 (SPEC 12.9).
    event : str
        The audit event recorded: ``fairness_slo_gate_passed``,
        ``fairness_slo_budget_exhausted`` or ``fairness_slo_gate_unmeasured``.
    audit_id : int
        The audit row that records the decision.
    slos : tuple of dict
        Each SLO judged, with its ``budget`` (``outcome`` ``ok``, ``exhausted`` or
        ``unmeasured``, ``good``, ``total``, ``bad``, ``allowed_bad``, ...).
    """

    model: str
    at: str
    exit_code: int
    event: str
    audit_id: int
    slos: tuple[dict[str, Any], ...] = field(repr=False, compare=False)

    command = "fairness slo gate"
    forms = ("text", "json")
    #: The decision as ``slo gate`` says it, by the audit event recorded.
    VERDICTS: ClassVar[dict[str, str]] = {
        "fairness_slo_budget_exhausted": "blocked: an error budget is spent",
        "fairness_slo_gate_unmeasured": "blocked: nothing measurable in an SLO's window; "
        "take readings with 'faircode fairness slo ingest'",
        "fairness_slo_gate_passed": "passed",
    }

    @property
    def passed(self) -> bool:
        """The gate lets the model through (exit 0)."""
        return self.exit_code == EXIT_OK

    def __bool__(self) -> bool:
        return self.passed

    def _made(self, form: str) -> str:
        from .slo import budget_line  # lazy: start-up

        if form == "json":
            return _json(
                {
                    "event": self.event,
                    "exit": self.exit_code,
                    "audit_id": self.audit_id,
                    "at": self.at,
                    "slos": list(self.slos),
                }
            )
        lines = []
        for s in self.slos:
            outcome = s["budget"]["outcome"]
            tag = {"exhausted": "SPENT", "unmeasured": "UNMEASURED"}.get(outcome, "OK")
            if not s["gate"] and outcome != "ok":
                tag = f"WARNING (advisory) {tag}"
            lines.append(f"faircode: slo gate: {tag} {budget_line(s)}\n")
        lines.append(
            f"faircode: slo gate: {self.VERDICTS[self.event]} (recorded as {self.event}, "
            f"audit row {self.audit_id})\n"
        )
        return "".join(lines)

    def __repr__(self) -> str:
        outcomes = [f"{s['name']} {s['budget']['outcome']}" for s in self.slos]
        verdict = "passes" if self.passed else "blocked"
        return shown(
            f"SloGateResult({verdict}, exit {self.exit_code}; {self.model} at {self.at}; "
            f"{count_text(len(outcomes), 'SLO')}: {names_text(outcomes) or 'none'}; "
            f"{self.event}, audit row {self.audit_id})"
        )


def slo_set(
    model: str,
    name: str,
    *,
    target: float,
    window: str | int = "28d",
    gate: bool = False,
    reason: str | None = None,
    store: Store | str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Create or replace an SLO of a model, recorded in the audit log.

    What ``faircode fairness slo set MODEL NAME --target X`` does (SPEC 15.10).

    Parameters
    ----------
    model : str
        The model's name (matched case-insensitively).
    name : str
        The SLO's name (letters, digits, ``_``, ``.``, ``-``).
    target : float
        In (0, 1]: the fraction of measurable declared attributes within threshold,
        summed over the window's readings, that must hold.
    window : str or int, default "28d"
        Whole days (``28d``), weeks (``4w``) or a number of days.
    gate : bool, default False
        ``slo_gate`` blocks (exit 6) when the budget is spent; else it only warns.
    reason : str, optional
        Why (kept in the audit log).
    store
        As for :func:`fairness_report`.

    Returns
    -------
    dict
        ``model``, ``name``, ``target``, ``window_days``, ``gate``, ``reason`` and
        ``audit_id`` (the ``fairness_slo_set`` row).

    Examples
    --------
    >>> from faircode.monitor import slo_set
    >>> slo = slo_set("loans", "fair-regions", target=0.5, window="28d", gate=True, store=db)
    >>> slo["target"], slo["window_days"], slo["gate"]
    (0.5, 28, True)
    """
    from .slo import check_slo, set_slo  # lazy: start-up

    _arguments(model=model, name=name, gate=gate, reason=reason)
    check_slo(name, target, window)  # before a store is made for nothing
    with _opened(store, create=True) as opened:
        return set_slo(opened, model, name, target=target, window=window, gate=gate, reason=reason)


def slo_show(
    model: str,
    *,
    at: str | None = None,
    store: Store | str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """A model's SLOs, each with its error budget and latest reading.

    What ``faircode fairness slo show MODEL --json`` prints (SPEC 15.10).

    Parameters
    ----------
    model : str
        The model's name.
    at : str, optional
        Judge the budgets as of this time (ISO-8601, or a date: its end); default now.
    store
        As for :func:`fairness_report`.

    Returns
    -------
    dict
        ``kind "faircode.fairness.slo"``, ``model``, ``at`` and ``slos``: each SLO's
        fields, ``window`` (the readings counted), ``budget`` and ``latest``.

    Examples
    --------
    >>> from faircode.monitor import slo_set, slo_show
    >>> _ = slo_set("loans", "fair-regions", target=0.5, window="4w", gate=True, store=db)
    >>> [(s["name"], s["target"], s["window_days"], s["gate"])
    ...  for s in slo_show("loans", store=db)["slos"]]
    [('fair-regions', 0.5, 28, True)]
    >>> slo_show("loans", at="2000-01-01", store=db)["slos"][0]["budget"]["reason"]
    'no readings in the window'
    """
    from .slo import status  # lazy: start-up

    _arguments(model=model, at=at)
    with _opened(store) as opened:
        return status(opened, model, at)


def slo_ingest(
    model: str,
    *,
    name: str | None = None,
    at: str | None = None,
    version: str | None = None,
    store: Store | str | os.PathLike[str] | None = None,
    registry: str | os.PathLike[str] | None = None,
) -> list[dict[str, Any]]:
    """Take and store a reading of every SLO of the model (or the one named).

    What ``faircode fairness slo ingest MODEL`` does (SPEC 15.10): the SLI of 15.5 over
    the predictions of the SLO's window ending on the reading's day.

    Parameters
    ----------
    model : str
        The model's name.
    name : str, optional
        Only this SLO.
    at : str, optional
        The reading's time (ISO-8601, or a date: its end, or now for today's date);
        default now. A time after now is refused.
    version : str, optional
        The version measured; default the latest logged.
    store, registry
        As for :func:`fairness_report`.

    Returns
    -------
    list of dict
        One reading per SLO: ``slo``, ``id``, ``at``, ``version``, ``since``, ``until``,
        ``good``, ``total``, ``ratio``, ``within_threshold``, ``exceeded``,
        ``unmeasurable``, ``status`` (``measured`` or ``no measurable attributes``:
        an SLI of 0/0, never a pass), ``day`` (``at`` when it is a date, else None) and
        ``replaces`` (the ids of the SLO's readings it replaced: those at the same time
        and, for a date, those taken for that date).

    Examples
    --------
    >>> import datetime
    >>> from faircode.monitor import slo_ingest, slo_set
    >>> _ = slo_set("loans", "fair-regions", target=0.5, gate=True, store=db)
    >>> today = datetime.datetime.now(datetime.UTC).date().isoformat()
    >>> [reading] = slo_ingest("loans", at=today, store=db, registry=registry)
    >>> reading["good"], reading["total"], reading["exceeded"]
    (0, 1, ['region'])
    """
    from .slo import ingest, reading_at  # lazy: start-up

    _arguments(model=model, name=name, at=at, version=version)
    reading_at(at)  # a bad --at before anything else
    with _opened(store) as opened:
        return _with_registry(ingest, opened, model, registry, name=name, at=at, version=version)


def slo_gate(
    model: str,
    *,
    name: str | None = None,
    at: str | None = None,
    store: Store | str | os.PathLike[str] | None = None,
) -> SloGateResult:
    """Judge the model's SLO budgets from the stored readings, and record the decision.

    What ``faircode fairness slo gate MODEL`` does (SPEC 15.10): exit 6 when a gating
    SLO's budget is spent, 3 when a gating SLO has nothing measurable in its window.

    Parameters
    ----------
    model : str
        The model's name.
    name : str, optional
        Only this SLO.
    at : str, optional
        Judge as of this time; default now.
    store
        As for :func:`fairness_report`.

    Returns
    -------
    SloGateResult
        True when the gate lets the model through.

    Examples
    --------
    >>> from faircode.monitor import slo_gate, slo_ingest, slo_set
    >>> _ = slo_set("loans", "fair-regions", target=0.5, gate=True, store=db)
    >>> _ = slo_ingest("loans", store=db, registry=registry)  # one 0/1 reading: 1 bad > 0.5
    >>> decision = slo_gate("loans", store=db)
    >>> bool(decision), decision.exit_code, decision.event
    (False, 6, 'fairness_slo_budget_exhausted')
    """
    from .slo import gate  # lazy: start-up

    _arguments(model=model, name=name, at=at)
    with _opened(store) as opened:
        res = gate(opened, model, name=name, at=at)
    return SloGateResult(
        model=res["model"],
        at=res["at"],
        exit_code=int(res["exit"]),
        event=res["event"],
        audit_id=int(res["audit_id"]),
        slos=tuple(res["slos"]),
    )


def fairness_watch(
    model: str,
    *,
    store: Store | str | os.PathLike[str] | None = None,
    registry: str | os.PathLike[str] | None = None,
    version: str | None = None,
    since: str | None = None,
    until: str | None = None,
    out: str | os.PathLike[str] | IO[str] | None = None,
    webhook: str | None = None,
    timeout: float = 10.0,
) -> dict[str, Any]:
    """Alert once per breach: what ``faircode fairness watch MODEL`` does (SPEC 15.11).

    Each gated disparity of a declared attribute that exceeds the threshold and has not
    been alerted on since it last cleared becomes one JSON line, written to ``out`` and
    POSTed to ``webhook``, then recorded (``fairness_alert_sent``); a breach measured
    within the threshold again clears (``fairness_alert_cleared``).

    Parameters
    ----------
    model : str
        The model's name.
    store, registry, version, since, until
        As for :func:`fairness_report`.
    out : str, path-like or text stream, optional
        Where the alert lines go: a file (appended to) or a stream. With neither ``out``
        nor ``webhook`` the watch is a preview: nothing is delivered, recorded or
        cleared, and the new breaches are returned as ``unsent``.
    webhook : str, optional
        An ``http://`` or ``https://`` URL each alert line is POSTed to.
    timeout : float, default 10.0
        Seconds the webhook may take to answer.

    Returns
    -------
    dict
        ``model``, ``version``, ``preview`` (True without ``out`` and ``webhook``),
        ``sent`` (the alerts, each with its ``audit_id``), ``unsent`` (a preview's new
        breaches, not recorded),
        ``still_open`` (breaches alerted on before: not sent again), ``undecided``
        (breaches alerted on before whose disparity is neither exceeded nor within
        now: kept open, each with its ``status``), ``empty_window`` (None, or the window
        when it holds no predictions: nothing judged), ``cleared`` and ``retired`` (the
        open breaches of versions this one superseded, cleared: each with its
        ``version``).

    Raises
    ------
    MonitorInputError
        As for :func:`fairness_report`; also a webhook that fails (the alert is then
        not recorded, so the next watch sends it again).

    Examples
    --------
    >>> import io
    >>> from faircode.monitor import fairness_watch
    >>> lines = io.StringIO()
    >>> first = fairness_watch("loans", store=db, registry=registry, out=lines)
    >>> [a["metric"] for a in first["sent"]]  # every gated disparity of region exceeds
    ['demographic_parity_difference', 'equalized_odds_difference', 'accuracy_range']
    >>> again = fairness_watch("loans", store=db, registry=registry, out=lines)
    >>> len(again["sent"]), len(again["still_open"]), len(lines.getvalue().splitlines())
    (0, 3, 3)
    """
    from .alerts import check_watch, watch  # lazy: start-up

    _arguments(model=model, version=version, since=since, until=until)
    check_watch(out, webhook, timeout)  # before anything is judged
    from .timeline import EmptyWindow  # lazy: start-up

    with _opened(store) as opened:
        try:
            report = _window_report(opened, model, registry, version, since, until, trend=False)
        except EmptyWindow as empty:
            # a window without traffic is nothing to judge, not an error: no breach is sent
            # or cleared, and the open ones are named as not evaluated (SPEC 15.11)
            report = {
                "model": empty.model,
                "version": empty.version,
                "window": empty.window,
                "empty_window": empty.where,
                "evaluation": {"groups": [], "settings": {}, "columns": {}},
            }
        return watch(opened, model, report, out=out, webhook=webhook, timeout=timeout)
