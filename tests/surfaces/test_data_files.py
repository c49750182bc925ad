"""The suite stands alone (issue 29 item 6).

Every dataset a test, benchmark or script reads is kept in tests/data (tests/datafiles.py
has the table; tests/data/README.md says where each comes from), each decompresses to the
bytes its publisher released, nothing under tests/, benchmarks/ or scripts/ reaches for a
folder beside the checkout, and a copy of the checkout with nothing beside it runs tests
on the real datasets.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import datafiles
import pytest
from datafiles import SHA256, SOURCE, data_file
from util import ROOT

# What reaching outside the checkout looks like: the old sibling folder of datasets
# (as a path, or as path parts in Python or JS), the folder above the checkout, and
# tests/js climbing three levels.
OUTSIDE = [
    re.compile(r"shared\W{1,6}data"),
    re.compile(r"\.\./shared\b"),
    re.compile(r"\bROOT\.parent\b"),
    re.compile(r"\.parents\[\d+\]\.parent\b"),
    re.compile(r"__dirname(\s*,\s*['\"]\.\.['\"]){3}"),
]
CHECKED = ("tests/", "benchmarks/", "scripts/", ".ci/")


def checkout_files() -> list[str]:
    """The checkout's files as a clone would have them: tracked, and new ones not ignored
    (so the dataset cache is left out), links to files included; links to folders (such
    as a node_modules linked from another checkout) are not files of the checkout."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        if os.environ.get("CI"):
            pytest.fail(f"git ls-files failed in {ROOT}: {exc}", pytrace=False)
        pytest.skip(f"not a git checkout: {exc}")
    names = {n for n in out.decode("utf-8").split("\0") if n}
    return sorted(n for n in names if (ROOT / n).is_file())


def test_nothing_reads_outside_the_checkout():
    found = []
    for name in checkout_files():
        if not name.startswith(CHECKED) or name.endswith(".xz"):
            continue
        text = (ROOT / name).read_bytes().decode("utf-8", "replace")
        for n, line in enumerate(text.splitlines(), 1):
            found += [f"{name}:{n}: {line.strip()}" for p in OUTSIDE if p.search(line)]
    assert not found, "reads outside the checkout (use tests/datafiles.py):\n" + "\n".join(found)


def test_every_dataset_is_kept_and_matches_its_sha256():
    kept = {p.relative_to(SOURCE).as_posix() for p in SOURCE.rglob("*") if p.is_file()}
    kept = {k for k in kept if not k.startswith(".cache/")}
    # a file whose licence asks for its text beside it keeps it (msd: Apache-2.0)
    licences = {"msd/LICENSE-humancompatible-detect"}
    assert kept == {"README.md"} | licences | {f"{name}.xz" for name in SHA256}
    readme = (SOURCE / "README.md").read_text(encoding="utf-8")
    for name, want in SHA256.items():
        path = data_file(name)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == want, name
        row = next((r for r in readme.splitlines() if r.startswith(f"| `{name}` |")), "")
        assert want in row, f"tests/data/README.md: no row for {name} with its SHA-256"


def test_a_file_is_written_whole_or_not_at_all(tmp_path):
    path = tmp_path / "insurance.csv"
    datafiles._decompress("insurance.csv", path, SHA256["insurance.csv"])
    assert path.read_bytes() == data_file("insurance.csv").read_bytes()
    assert path.stat().st_mode & 0o222 == 0  # read-only, as published data should be
    with pytest.raises(ValueError, match="does not hold the published bytes"):
        datafiles._decompress("credit.csv", tmp_path / "credit.csv", SHA256["insurance.csv"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["insurance.csv"]  # no half file


def test_a_copy_of_the_checkout_with_nothing_beside_it_runs_the_real_data_tests(tmp_path):
    """What a fresh clone without a sibling folder of datasets does: the copy holds the
    checkout's files only (no dataset cache), and its tests decompress what they read."""
    copy = tmp_path / "checkout"
    for name in checkout_files():
        dest = copy / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest, follow_symlinks=False)
    assert [p.name for p in tmp_path.iterdir()] == ["checkout"]
    assert not (copy / "tests" / "data" / ".cache").exists()
    env = {**os.environ, "PYTHONPATH": str(copy)}
    where = subprocess.run(
        [sys.executable, "-c", "import faircode; print(faircode.__file__)"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(copy), where.stdout
    tests = [
        "tests/engine/test_real_data.py",
        "tests/surfaces/test_data_files.py::test_every_dataset_is_kept_and_matches_its_sha256",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *tests]
        + ["--basetemp", str(tmp_path / "pytest")],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = proc.stdout.strip().splitlines()[-1]  # e.g. "9 passed in 4.21s": none skipped
    assert re.fullmatch(r"\d+ passed in .*", summary), proc.stdout
    cache = copy / "tests" / "data" / ".cache"
    assert {p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()} == set(SHA256)
