"""Results that display themselves in a notebook and stay plain dicts (SPEC 6.2).

``faircode.profile``, ``faircode.compare`` and ``faircode.monitor.evaluate`` return a
:class:`ProfileResult`, :class:`CompareResult` or :class:`EvaluateResult`: a ``dict``
subclass with no other state than the name of the data (a comparison's two names; never
a key), so ``==`` with a plain dict, ``json.dumps``, pickling and ``copy.deepcopy``
behave as for the dict.
Jupyter shows ``_repr_html_``: the command's HTML report (the ``html`` renderer of
:data:`faircode.renderers.RENDERERS`, e.g. ``faircode.htmlreport``, imported only then) in
a sandboxed ``<iframe srcdoc>`` so its styles and scripts cannot touch the notebook,
or, where the command has no HTML renderer installed or its HTML report is longer than
:data:`NOTEBOOK_HTML_MAX`, the Markdown report, escaped, in a ``<pre>`` (its first
:data:`NOTEBOOK_TEXT_MAX` characters). ``repr()`` is one line: what was measured,
labels shown by 0.6. :func:`notebook_html` is that rule for any result, also the
prediction store's (``faircode.monitor.api``), which are not dicts of one command.
"""

from __future__ import annotations

from .numerics import count_text, drift_text
from .renderers import RENDERERS, render_as
from .safetext import clip, shown

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar

#: Names a one-line repr lists before `...`.
REPR_NAMES = 6
#: The longest HTML report (characters) a notebook cell embeds. The report holds the
#: whole result, though it draws 1,000 groups at most: a 66,000-group zip code column
#: made a 12 MB cell, 50,000 evaluate slices a 35 MB one (SPEC 6.2).
NOTEBOOK_HTML_MAX = 1_000_000
#: The most characters of the Markdown report a notebook cell shows in its place.
NOTEBOOK_TEXT_MAX = 200_000
#: What the note over a report shown in place of the HTML calls its format.
FORM_NAMES = {"markdown": "Markdown", "text": "text"}


def _score(side: dict) -> str:
    """A compared side's `82 (B)`, or `not measured` (no demographic column), as the
    reports say it (it said `None (None)`)."""
    score = side.get("overall_score")
    return "not measured" if score is None else f"{score} ({side.get('grade')})"


def names_text(items: list[str]) -> str:
    """The first REPR_NAMES names, each clipped, then `...` when there are more."""
    head = ", ".join(clip(n, 24) for n in items[:REPR_NAMES])
    return head + (", ..." if len(items) > REPR_NAMES else "")


def head_text(text: str, limit: int, form: str = "markdown", method: str = "report") -> str:
    """``text`` itself, or its whole lines within ``limit`` characters and a last line
    counting the lines left out, naming the call (``result.method(form)``) that has them
    all (a report is read from its top: verdict first)."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit) + 1
    kept = text[:cut] if cut else text[:limit] + "\n"  # a first line longer than limit
    left = text.count("\n", cut or limit) + (not text.endswith("\n"))
    noun = "line" if left == 1 else "lines"
    return f'{kept}... {left:,} more {noun} not shown: result.{method}("{form}") has all\n'


def pre_html(
    markdown: str, html_chars: int | None = None, form: str = "markdown", method: str = "report"
) -> str:
    """The Markdown report (its head: :func:`head_text`) as escaped text in a ``<pre>``:
    no HTML renderer, or an HTML report of ``html_chars`` characters, too long to embed,
    which a first line then names. ``form``: the report's format when it is another (a
    store gate's only report is its text); ``method``: the result's method that renders
    it (the store's results: ``render``)."""
    import html  # lazy: start-up; only in a notebook: not at every start of the CLI

    note = (
        ""
        if html_chars is None
        else f'<p class="faircode">The HTML report is {html_chars:,} characters, more than a '
        f"notebook cell embeds ({NOTEBOOK_HTML_MAX:,}): the {FORM_NAMES[form]} report follows; "
        f'result.{method}("html") returns the HTML.</p>'
    )
    text = html.escape(head_text(markdown, NOTEBOOK_TEXT_MAX, form, method), quote=True)
    return f'{note}<pre class="faircode">{text}</pre>'


def notebook_html(
    document: str | None,
    readable: Callable[[], str],
    title: str,
    form: str = "markdown",
    method: str = "report",
) -> str:
    """A result's notebook cell (SPEC 6.2): its HTML ``document`` in a sandboxed frame,
    or, without one or when it is longer than :data:`NOTEBOOK_HTML_MAX`, its ``form``
    report (``readable()``, made only then) in a ``<pre>``: the one rule every result
    that displays itself follows (also the prediction store's, SPEC 15.9)."""
    if document is None:
        return pre_html(readable(), form=form, method=method)
    if len(document) > NOTEBOOK_HTML_MAX:
        return pre_html(readable(), len(document), form, method)
    return iframe_html(document, title)


def iframe_html(document: str, title: str) -> str:
    """A whole HTML document shown inside a notebook: an ``<iframe srcdoc>`` (the document
    attribute-escaped) sandboxed to scripts only, so it runs with an opaque origin."""
    import html  # lazy: start-up

    return (
        f'<iframe srcdoc="{html.escape(document, quote=True)}" sandbox="allow-scripts" '
        f'title="{html.escape(title, quote=True)}" '
        'style="width:100%;height:36em;border:1px solid #ddd"></iframe>'
    )


class Result(dict):
    """A result dict that renders itself (subclasses name their command)."""

    __slots__ = ("_name",)
    command: ClassVar[str] = ""

    def __init__(self, *args: Any, name: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._name = name

    def _context(self) -> dict[str, str]:
        return {"name": getattr(self, "_name", "")}

    def report(self, form: str = "text") -> str:
        """The report in ``form`` (a format of the command: text, json, markdown, csv,
        html where installed), as the CLI prints it."""
        return render_as(self.command, form, dict(self), **self._context())

    def _html_document(self) -> str | None:
        if "html" not in RENDERERS[self.command]:
            return None
        try:
            return self.report("html")
        except ModuleNotFoundError as exc:  # a registered renderer not installed here
            if (exc.name or "").startswith("faircode"):
                return None
            raise

    def _repr_html_(self) -> str:
        return notebook_html(
            self._html_document(), lambda: self.report("markdown"), f"faircode {self.command}"
        )


class ProfileResult(Result):
    """``faircode.profile``'s result (SPEC 6)."""

    __slots__ = ()
    command = "profile"

    def __repr__(self) -> str:
        score = self.get("overall_score")
        head = "score not measured" if score is None else f"score {score}/100 grade {self['grade']}"
        dims = [d["name"] for d in self.get("dimensions", [])]
        return shown(
            f"ProfileResult({head}; {count_text(self.get('n_rows'), 'row')}, "
            f"{count_text(self.get('n_cols'), 'column')}; "
            f"{count_text(len(dims), 'dimension')}: {names_text(dims) or 'none'}; "
            f"{count_text(len(self.get('flags', [])), 'flag')})"
        )


class CompareResult(Result):
    """``faircode.compare``'s result (SPEC 8); ``names``: what A and B are called (a
    path, a profiled result's name), as `faircode compare A B` names them."""

    __slots__ = ("_names",)
    command = "compare"

    def __init__(self, *args: Any, names: tuple[str, str] = ("", ""), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._names = names

    def _context(self) -> dict[str, str]:
        names = zip(("name_a", "name_b"), getattr(self, "_names", ("", "")))
        return {key: name for key, name in names if name}  # else the renderer's own

    def __repr__(self) -> str:
        a, b = self.get("a", {}), self.get("b", {})
        drift = [
            f"{d['name']} {drift_text(d['drift_level'], d.get('drift_verdict'))}"
            for d in self.get("dimensions", [])
        ]
        return shown(
            f"CompareResult({a.get('n_rows')} -> {b.get('n_rows')} rows; score "
            f"{_score(a)} -> {_score(b)}; drift: {names_text(drift) or 'no shared dimension'}; "
            f"{count_text(len(self.get('flags', [])), 'flag')})"
        )


class EvaluateResult(Result):
    """``faircode.monitor.evaluate``'s report (SPEC 12.11)."""

    __slots__ = ()
    command = "fairness evaluate"

    def __repr__(self) -> str:
        groups = [g["name"] for g in self.get("groups", [])]
        task = (self.get("task") or {}).get("type")
        n = len(self.get("failures", []))
        return shown(
            f"EvaluateResult({self.get('status')}; {task} model; "
            f"{count_text(len(groups), 'slicing')}: {names_text(groups) or 'none'}; "
            f"{n} disparit{'y' if n == 1 else 'ies'} exceeded)"
        )
