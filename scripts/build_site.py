#!/usr/bin/env python3
"""Build the website with the Python engine in it (issue 32; SPEC 14.1).

    python scripts/build_site.py [--out build/site] [--tool-venv build/pyodide-build-venv]
                                 [--no-tool]

The output folder (git-ignored; never the repository's site/) gets:

  * every file of site/ (symbolic links resolved: the JS engine, the samples);
  * pyodide/: the pinned Pyodide core and standard library from node_modules/pyodide
    (package.json pins it; `npm install`): pyodide.mjs, pyodide.asm.mjs,
    pyodide.asm.wasm, python_stdlib.zip;
  * pyodide/faircode-VERSION-py3-none-any.whl, built from this tree
    (`pip wheel --no-deps`);
  * pyodide/pyodide-lock.json: Pyodide's lock file reduced to the packages this site
    serves (none of Pyodide's 357: their files are not shipped), with faircode's wheel
    registered by pyodide-build's `pyodide lockfile add-wheels`. The tool refuses a
    wheel whose dependencies the lock cannot satisfy, so the build fails if faircode's
    base install ever names one again (pandas and numpy are the `frames` extra).

pyodide-build needs Python 3.12+: it is installed (pinned, from the package index) into
its own virtual environment, made with the first Python 3.12+ found (FAIRCODE_PYTHON312,
python3.13 / python3.12 on PATH, pyenv's versions), once; later builds reuse it and
need no network. The wheel is built with that environment's setuptools (no build
isolation, so no download either). Only `pyodide lockfile` is used: `pyodide build`,
`pyodide venv` and `pyodide xbuildenv` download a cross-build environment (Emscripten's
and Pyodide's build of CPython) from GitHub, which these machines cannot reach, and a
pure-Python wheel needs none of them.

Without Python 3.12+, or with --no-tool, the wheel is built by this Python's pip and
the lock entry is written here in the same format (fields, order, sha256), and the
script says so on stderr; tests/website/test_site_pyodide.py checks that both give the same
entry.
"""

from __future__ import annotations

import argparse
import email.parser
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYODIDE = ROOT / "node_modules" / "pyodide"
#: What the page loads of Pyodide (its core and standard library; no package).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
#: pyodide-build, pinned; pkginfo is what `pyodide lockfile add-wheels` reads wheels
#: with (pyodide-lock's `wheel` extra); setuptools builds faircode's wheel offline.
TOOL_REQUIREMENTS = ("pyodide-build==0.39.2", "pkginfo>=1.10", "setuptools>=77")
DEFAULT_OUT = ROOT / "build" / "site"
DEFAULT_TOOL_VENV = ROOT / "build" / "pyodide-build-venv"


class BuildError(Exception):
    """One line: what went wrong and what to do."""


def say(text: str) -> None:
    sys.stderr.write(f"build_site: {text}\n")
    sys.stderr.flush()


def python312() -> str | None:
    """A Python 3.12+ interpreter, or None."""
    candidates = [os.environ.get("FAIRCODE_PYTHON312", "")]
    candidates += [shutil.which(n) or "" for n in ("python3.13", "python3.12")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += sorted(glob.glob(str(pyenv / "3.1[2-9]*" / "bin" / "python")), reverse=True)
    for c in candidates:
        if not c or not Path(c).is_file():
            continue
        probe = subprocess.run(
            [c, "-c", "import sys, venv; print(sys.version_info >= (3, 12))"],
            capture_output=True,
            text=True,
        )
        if probe.stdout.strip() == "True":
            return c
    return None


def tool_venv(where: Path) -> Path | None:
    """The python of pyodide-build's virtual environment (made once), or None with the
    reason said."""
    py = where / "bin" / "python"
    stamp = where / ".requirements"
    want = "\n".join(TOOL_REQUIREMENTS)
    if py.is_file() and stamp.is_file() and stamp.read_text() == want:
        return py
    base = python312()
    if base is None:
        say("no Python 3.12+ found for pyodide-build (set FAIRCODE_PYTHON312)")
        return None
    say(f"making pyodide-build's environment in {where} with {base}")
    shutil.rmtree(where, ignore_errors=True)
    made = subprocess.run([base, "-m", "venv", str(where)], capture_output=True, text=True)
    if made.returncode != 0:
        say(f"could not make a virtual environment: {made.stderr.strip()[-300:]}")
        return None
    pip = [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    done = subprocess.run([*pip, *TOOL_REQUIREMENTS], capture_output=True, text=True)
    if done.returncode != 0:
        say(f"could not install pyodide-build: {done.stderr.strip()[-300:]}")
        return None
    stamp.write_text(want)
    return py


def build_wheel(python: str, dest: Path, isolated: bool) -> Path:
    """faircode's wheel (`pip wheel --no-deps`) into ``dest``, built from a copy of the
    package's sources (as tests/parity/test_pyodide_parity.py does): setuptools builds in the
    source folder's build/lib and would ship what an earlier build left there, and
    site/'s links (the JS engine, the samples) become files."""
    work = dest / ".wheel"
    shutil.rmtree(work, ignore_errors=True)
    src = work / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "faircode", src / "faircode", ignore=skip)
    shutil.copytree(ROOT / "site", src / "site", ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, src / name)
    cmd = [python, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps"]
    if not isolated:
        cmd.append("--no-build-isolation")
    done = subprocess.run(
        [*cmd, "-w", str(work / "dist"), str(src)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise BuildError(f"pip wheel failed: {done.stderr.strip()[-500:]}")
    (wheel,) = (work / "dist").glob("faircode-*.whl")
    target = dest / wheel.name
    shutil.move(str(wheel), target)
    shutil.rmtree(work)
    return target


def wheel_requirements(wheel: Path) -> list[str]:
    """The Requires-Dist of the wheel without an extra marker (its base install)."""
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        msg = email.parser.Parser().parsestr(z.read(meta).decode("utf-8"))
    reqs = msg.get_all("Requires-Dist") or []
    return [r for r in reqs if "extra ==" not in r.replace('"', "'").split(";")[-1]]


def lock_entry(wheel: Path) -> dict:
    """The lock entry `pyodide lockfile add-wheels` writes for a pure-Python wheel with no
    dependency (pyodide-lock 0.2: the same keys, in the same order)."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        msg = email.parser.Parser().parsestr(z.read(meta).decode("utf-8"))
        tops = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        if tops:
            imports = z.read(tops[0]).decode("utf-8").split()
        else:
            imports = sorted(
                {n.split("/")[0] for n in names if "/" in n} - {Path(meta).parent.name}
            )
    reqs = wheel_requirements(wheel)
    if reqs:
        raise BuildError(
            f"{wheel.name} depends on {', '.join(reqs)}, which this site does not serve; "
            "the base install must be the standard library only"
        )
    return {
        "depends": [],
        "file_name": wheel.name,
        "imports": imports,
        "install_dir": "site",
        "name": re.sub(r"[-_.]+", "-", msg["Name"]).lower(),
        "package_type": "package",
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "tool": {},
        "unvendored_tests": False,
        "version": msg["Version"],
    }


def served_lock(source: Path, dest: Path) -> dict:
    """Pyodide's lock file with only the packages whose files are in ``dest``."""
    lock = json.loads(source.read_text(encoding="utf-8"))
    lock["packages"] = {
        k: v for k, v in lock["packages"].items() if (dest / v["file_name"]).is_file()
    }
    return lock


def build(out: Path, tool_dir: Path | None) -> dict:
    """Build the site into ``out``; returns what was built (for the caller and tests)."""
    out = out.resolve()
    if out == ROOT or ROOT / "site" in (out, *out.parents) or out in ROOT.parents:
        raise BuildError(f"--out {out}: give a folder of its own (not the repository or site/)")
    if not (PYODIDE / "package.json").is_file():
        raise BuildError(
            "node_modules/pyodide is missing: run `npm install` in the project root "
            "(package.json pins Pyodide)"
        )
    version = json.loads((PYODIDE / "package.json").read_text())["version"]
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(
        ROOT / "site", out, symlinks=False, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    pyo = out / "pyodide"
    pyo.mkdir()
    for name in PYODIDE_FILES:
        shutil.copyfile(PYODIDE / name, pyo / name)
    python = tool_venv(tool_dir) if tool_dir is not None else None
    wheel = build_wheel(str(python or sys.executable), pyo, isolated=python is None)
    base = pyo / "pyodide-lock.base.json"
    base.write_text(json.dumps(served_lock(PYODIDE / "pyodide-lock.json", pyo)))
    lock_path = pyo / "pyodide-lock.json"
    if python is not None:
        pyodide_cmd = python.parent / "pyodide"
        done = subprocess.run(
            [
                str(pyodide_cmd), "lockfile", "add-wheels", "--input", str(base),
                "--output", str(lock_path), "--base-path", str(pyo), str(wheel),
            ],
            capture_output=True,
            text=True,
        )  # fmt: skip
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise BuildError(f"pyodide lockfile add-wheels refused {wheel.name}: {last}")
        how = "pyodide lockfile add-wheels"
    else:
        lock = json.loads(base.read_text())
        entry = lock_entry(wheel)
        lock["packages"][entry["name"]] = entry
        lock.setdefault("tool", {})
        lock_path.write_text(json.dumps(lock))
        how = "scripts/build_site.py (pyodide-build unavailable)"
        say("the lock entry was written by this script, in the tool's format")
    base.unlink()
    lock = json.loads(lock_path.read_text())
    entry = lock["packages"].get("faircode")
    if entry is None:
        raise BuildError("the lock file does not list faircode")
    for dep in entry["depends"]:
        if dep not in lock["packages"]:
            raise BuildError(f"faircode depends on {dep}, which the site does not serve")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if entry["sha256"] != digest or entry["file_name"] != wheel.name:
        raise BuildError("the lock entry does not name the wheel built")
    sizes = {p.name: p.stat().st_size for p in sorted(pyo.iterdir())}
    # what the page's worker fetches (pyodide.mjs and pyodide.asm.mjs are imported as
    # modules, not fetched): its progress bar's total
    fetched = ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", wheel.name]
    manifest = {
        "pyodide": version,
        "python": lock["info"]["python"],
        "wheel": wheel.name,
        "lock": how,
        "fetched_bytes": sum(sizes[n] for n in fetched),
        "bytes": sizes,
    }
    (pyo / "site-build.json").write_text(json.dumps(manifest, indent=2) + "\n")
    info = {
        "pyodide": version,
        "wheel": wheel.name,
        "lock": how,
        "bytes": sizes,
        "fetched_bytes": manifest["fetched_bytes"],
    }
    say(
        f"built {out}: Pyodide {version}, {wheel.name}, lock entry by {how}; serve it with "
        f"`faircode serve --site {os.path.relpath(out)}`"
    )
    return info


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (build/site)")
    p.add_argument(
        "--tool-venv",
        type=Path,
        default=DEFAULT_TOOL_VENV,
        help="pyodide-build's virtual environment (made when missing)",
    )
    p.add_argument(
        "--no-tool", action="store_true", help="write the lock entry without pyodide-build"
    )
    p.add_argument("--json", action="store_true", help="print what was built as JSON")
    args = p.parse_args(argv)
    try:
        info = build(args.out, None if args.no_tool else args.tool_venv)
    except BuildError as err:
        say(f"error: {err}")
        return 2
    if args.json:
        print(json.dumps(info, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
