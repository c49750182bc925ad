"""The package's imports form layers: no cycle, and every lazy import says why it is lazy.

Every ``import`` and ``from ... import`` of every module under ``faircode/`` counts:
at module level, inside functions (the lazy ones), in ``try`` blocks and under
``TYPE_CHECKING`` (a type checker follows those, and a cycle there is a cycle in the
picture a reader draws); so do the renderer registry's ``"module:function"`` entries
(:data:`faircode.renderers.RENDERERS`, imported by ``importlib`` when used). A module
depends on what it names; importing ``faircode.a.b`` also runs the packages'
``__init__`` files, which is not counted as an edge (every module would otherwise sit in
a loop with ``faircode/__init__.py``), only as something already loaded (below).

An import inside a function carries a trailing comment ``# lazy: REASON`` (on its first
line), REASON one of

* ``start-up``: the module is not loaded yet when the importing module is, and loading
  it on use keeps the start-up of the CLI or of ``import faircode`` short;
* ``optional extra 'NAME'``: a package of the extra NAME of pyproject.toml, which may
  not be installed (never the standard library, numpy, pandas or faircode itself);
* ``loaded already``: every module it names is loaded whenever the importing module is
  (by its module-level imports, their own, or its packages' ``__init__``), so the
  import saves nothing and may move to the top.

The reasons are checked: ``start-up`` and ``loaded already`` against what the
module-level imports load (faircode modules, and the packages they import at module
level).
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from util import ROOT

PACKAGE = "faircode"
REGISTRY_ENTRY = re.compile(r"^(faircode(?:\.\w+)+):\w+$")
LAZY = re.compile(r"#\s*lazy:\s*(start-up|loaded already|optional extra '([\w-]+)')(?:\W|$)")
CORE = {"numpy", "pandas"}  # pyproject's dependencies: never an optional extra


@dataclass(frozen=True)
class Import:
    """One import statement of a module: what it names, where, and how."""

    module: str  # the importing module
    path: Path
    line: int
    names: tuple[str, ...]  # faircode modules, or other packages' top-level names
    in_function: bool
    type_checking: bool
    comment: str  # the first line's trailing comment ("" when none)
    registry: bool = False  # a renderer registry entry, not a statement


def modules(root: Path) -> dict[str, Path]:
    """Module name -> file, for every .py under ``root/faircode``."""
    out = {}
    for p in sorted((root / PACKAGE).rglob("*.py")):
        parts = p.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _resolve(name: str, mods: dict[str, Path]) -> str:
    """A faircode module (the longest known prefix), or another module as named."""
    if name.split(".")[0] != PACKAGE:
        return name
    while name not in mods and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _stdlib_submodule(name: str) -> bool:
    """Whether ``name`` (``importlib.resources``) is a module of the standard library."""
    if name.split(".")[0] not in sys.stdlib_module_names:
        return False
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _top(name: str) -> str:
    return name.split(".")[0]


def _comment(lines: list[str], first: int, last: int) -> str:
    """The trailing comments of a statement's first and last lines (imports hold no '#'
    in strings; a formatter may move a comment after the closing parenthesis)."""
    found = [lines[k - 1] for k in sorted({first, last})]
    return " ".join(t[t.index("#") :] for t in found if "#" in t)


def imports(root: Path) -> list[Import]:
    """Every import statement (and registry entry) of every module under ``root``."""
    mods = modules(root)
    found: list[Import] = []
    for name, path in mods.items():
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]

        def targets(node: ast.Import | ast.ImportFrom, package: str = package) -> list[str]:
            if isinstance(node, ast.Import):
                return [a.name for a in node.names]
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # `from . import x`: the submodule x when there is one, else the package
            out = []
            for a in node.names:
                sub = f"{mod}.{a.name}"
                out.append(sub if sub in mods or _stdlib_submodule(sub) else mod)
            return out

        def visit(node, in_function: bool, type_checking: bool, name=name, path=path, lines=lines):
            for child in ast.iter_child_nodes(node):
                fn = in_function or isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
                )
                tc = type_checking or (
                    isinstance(child, ast.If)
                    and isinstance(child.test, ast.Name)
                    and child.test.id == "TYPE_CHECKING"
                )
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    names = tuple(dict.fromkeys(_resolve(t, mods) for t in targets(child)))
                    comment = _comment(lines, child.lineno, child.end_lineno or child.lineno)
                    found.append(Import(name, path, child.lineno, names, fn, tc, comment))
                elif isinstance(child, ast.Constant) and isinstance(child.value, str):
                    m = REGISTRY_ENTRY.match(child.value)
                    if m:  # a registry entry: imported by importlib on use
                        target = (_resolve(m.group(1), mods),)
                        found.append(Import(name, path, child.lineno, target, True, tc, "", True))
                visit(child, fn, tc)

        visit(ast.parse(source), False, False)
    return found


def graph(root: Path) -> dict[str, dict[str, Import]]:
    """faircode module -> {faircode module it imports: the first such import}."""
    mods = modules(root)
    edges: dict[str, dict[str, Import]] = {m: {} for m in mods}
    for imp in imports(root):
        for target in imp.names:
            if target in mods and target != imp.module:
                edges[imp.module].setdefault(target, imp)
    return edges


def cycles(edges: dict[str, dict[str, Import]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as one
    closed path through it (first module repeated at the end), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(edges) + 100))
    try:
        for v in sorted(edges):
            if v not in index:
                connect(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(_loop(comp, edges) for comp in components)


def _loop(component: list[str], edges: dict[str, dict[str, Import]]) -> list[str]:
    """A closed path from the component's first module back to it (breadth first)."""
    start, inside = component[0], set(component)
    came: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges[v]):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came[path[-1]])
                    return [*reversed(path), start]
                if w in inside and w not in came:
                    came[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no loop through {component}")


def describe(loop: list[str], edges: dict[str, dict[str, Import]], root: Path) -> str:
    """`a -> b (faircode/a.py:12, in a function) -> ...`: each step's import."""
    steps = [loop[0]]
    for a, b in zip(loop, loop[1:], strict=False):
        imp = edges[a][b]
        where = "in a function" if imp.in_function else "module level"
        steps.append(f"-> {b} ({imp.path.relative_to(root)}:{imp.line}, {where})")
    return " ".join(steps)


def loaded(root: Path) -> dict[str, set[str]]:
    """faircode module -> every faircode module and other package (top-level name) that
    is loaded once it is: its module-level imports (TYPE_CHECKING aside), theirs, and
    its packages' ``__init__`` files and theirs."""
    mods = modules(root)
    direct: dict[str, set[str]] = {m: set() for m in mods}
    for imp in imports(root):
        if not imp.in_function and not imp.type_checking:
            direct[imp.module].update(imp.names)
    for m in mods:  # importing a.b.c runs a/__init__ and a/b/__init__ first
        parts = m.split(".")
        direct[m].update(".".join(parts[:k]) for k in range(1, len(parts)))
        for t in list(direct[m]):
            if t not in mods:  # the same for another package's a.b.c
                parts = t.split(".")
                direct[m].update(".".join(parts[:k]) for k in range(1, len(parts)))
    out: dict[str, set[str]] = {}
    for m in mods:
        seen: set[str] = set()
        todo = [m]
        while todo:
            for t in direct.get(todo.pop(), ()):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        out[m] = seen
    return out


def extras(root: Path) -> set[str]:
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return set(project["optional-dependencies"])


def lazy_problems(root: Path) -> list[str]:
    """One line per import inside a function without a true ``# lazy:`` reason."""
    mods = modules(root)
    known = extras(root)
    have = loaded(root)
    out = []
    for imp in imports(root):
        if not imp.in_function or imp.registry:
            continue
        where = f"{imp.path.relative_to(root)}:{imp.line}"
        m = LAZY.search(imp.comment)
        if m is None:
            out.append(f"{where}: an import inside a function without '# lazy: REASON'")
            continue
        reason, extra = m.group(1), m.group(2)
        others = [n for n in imp.names if n != imp.module]
        already = all(n in have[imp.module] for n in others)
        if extra is not None:
            if extra not in known:
                out.append(f"{where}: '{extra}' is not an extra of pyproject.toml")
            bad = [
                n
                for n in imp.names
                if n in mods or _top(n) in sys.stdlib_module_names or _top(n) in CORE
            ]
            if bad:
                out.append(f"{where}: {', '.join(bad)} is no optional extra's package")
        elif reason == "start-up" and already:
            out.append(
                f"{where}: 'start-up', but {', '.join(others)} is loaded already "
                "(by the module's own imports): say 'loaded already' or move it to the top"
            )
        elif reason == "loaded already" and not already:
            missing = [n for n in others if n not in have[imp.module]]
            out.append(f"{where}: 'loaded already', but {', '.join(missing)} is not")
    return out


# ---------------------------------------------------------------------------- the tests


def test_no_import_cycle_counting_every_import():
    edges = graph(ROOT)
    assert sum(len(e) for e in edges.values()) > 300  # the walk found the imports
    found = cycles(edges)
    assert found == [], "import cycles:\n" + "\n".join(describe(c, edges, ROOT) for c in found)


def test_every_lazy_import_says_why():
    lazy = [i for i in imports(ROOT) if i.in_function and not i.registry]
    assert len(lazy) > 100  # the walk found the imports inside functions
    problems = lazy_problems(ROOT)
    assert problems == [], "\n".join(problems)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[project.optional-dependencies]\nfast = ["pyarrow"]\n'
    )
    for rel, text in files.items():
        p = tmp_path / PACKAGE / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def test_a_cycle_through_a_function_or_a_registry_entry_is_found(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from .b import x\n",
            "b.py": "def f():\n    from . import c  # lazy: start-up\n",
            "c.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from faircode.a import y\n",
            "d.py": "from .sub import e\n",
            "sub/__init__.py": "",
            "sub/e.py": "R = {'text': 'faircode.d:render'}\n",
        },
    )
    edges = graph(root)
    found = cycles(edges)
    assert found == [
        ["faircode.a", "faircode.b", "faircode.c", "faircode.a"],
        ["faircode.d", "faircode.sub.e", "faircode.d"],
    ]
    text = describe(found[0], edges, root)
    assert "-> faircode.b (faircode/a.py:1, module level)" in text
    assert "-> faircode.c (faircode/b.py:2, in a function)" in text
    (root / PACKAGE / "c.py").write_text("y = 1\n")
    (root / PACKAGE / "sub" / "e.py").write_text("R = {'text': 'faircode.a:render'}\n")
    assert cycles(graph(root)) == []


def test_a_lazy_import_without_a_true_reason_is_refused(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "from .a import x\n",
            "a.py": "import hashlib\nx = 1\n",
            "b.py": (
                "def f():\n"
                "    import csv\n"  # no reason
                "    from .a import x  # lazy: start-up\n"  # a is loaded by faircode/__init__
                "    import json  # lazy: loaded already\n"  # b loads no json
                "    import pyarrow  # lazy: optional extra 'arrow'\n"  # no such extra
                "    import numpy  # lazy: optional extra 'fast'\n"  # a core dependency
                "    import pyarrow.csv  # lazy: optional extra 'fast'\n"  # fine
                "    import zipfile  # lazy: start-up; only for .zip\n"  # fine
                "    from .a import x as z  # lazy: loaded already\n"  # fine
                "    import hashlib  # lazy: loaded already\n"  # fine: a imports it
            ),
        },
    )
    assert lazy_problems(root) == [
        "faircode/b.py:2: an import inside a function without '# lazy: REASON'",
        "faircode/b.py:3: 'start-up', but faircode.a is loaded already (by the module's own "
        "imports): say 'loaded already' or move it to the top",
        "faircode/b.py:4: 'loaded already', but json is not",
        "faircode/b.py:5: 'arrow' is not an extra of pyproject.toml",
        "faircode/b.py:6: numpy is no optional extra's package",
    ]
