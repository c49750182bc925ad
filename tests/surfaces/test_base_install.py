"""A base install (`pip install faircode`, no extras) gives one line naming the extra for
everything that needs an optional package, never a traceback.

The virtual environment is real: a fresh venv with only faircode's core dependencies."""

from __future__ import annotations

import os
import subprocess
import sys
import venv

import pytest
from util import ROOT, data_file

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """(path of the base venv's faircode command, folder with sample files)."""
    where = tmp_path_factory.mktemp("base")
    env_dir = where / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    done = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for module in ("pyarrow", "numpy", "pandas"):
        probe = subprocess.run([str(py), "-c", f"import {module}"], capture_output=True)
        assert probe.returncode != 0, f"the base install must not bring {module}"
    table = pa.table({"sex": ["M", "F"] * 50, "pred": [1, 0] * 50, "label": [1, 1] * 50})
    pq.write_table(table, where / "x.parquet")
    with pa.OSFile(str(where / "x.arrow"), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    return env_dir / "bin" / "faircode", where


def run(cmd, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [str(cmd), *map(str, args)], capture_output=True, text=True, env=env, timeout=300
    )


@pytest.mark.parametrize(
    "args, extra",
    [
        (["profile", "{dir}/x.parquet"], "fast"),
        (["profile", "{dir}/x.arrow"], "fast"),
        (["profile", "{insurance}", "--engine", "spark"], "spark"),
        (["profile", "{insurance}", "--proxy-hints"], "proxy"),
        (["compare", "{dir}/x.parquet", "{insurance}"], "fast"),
        (
            [
                "fairness",
                "evaluate",
                "{dir}/x.parquet",
                "--pred",
                "pred",
                "--label",
                "label",
                "--attr",
                "sex",
            ],
            "frames",  # the monitor counts with numpy and pandas (then: fast, for Parquet)
        ),
        (
            [
                "fairness",
                "evaluate",
                "{compas}",
                "--score",
                "decile_score",
                "--decision-threshold",
                "5",
                "--label",
                "two_year_recid",
                "--attr",
                "race",
                "--engine",
                "fairlearn",
            ],
            "frames",
        ),
        (
            [
                "fairness",
                "evaluate",
                "{compas}",
                "--score",
                "decile_score",
                "--decision-threshold",
                "5",
                "--label",
                "two_year_recid",
                "--attr",
                "race",
            ],
            "frames",
        ),
        (["scan", "{compas}", "--label", "two_year_recid"], "frames"),
    ],
)
def test_a_missing_extra_is_one_line_and_exit_2(base, args, extra):
    cmd, where = base
    got = run(
        cmd,
        *(
            a.format(
                dir=where,
                insurance=data_file("insurance.csv"),
                compas=data_file("compas-scores-two-years.csv"),
            )
            for a in args
        ),
    )
    assert got.returncode == 2, (got.returncode, got.stderr)
    assert "Traceback" not in got.stderr
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1, got.stderr
    assert f"pip install 'faircode[{extra}]'" in lines[0]


def test_a_base_install_profiles_csv_without_pyarrow(base):
    cmd, _ = base
    got = run(cmd, "profile", data_file("diabetic_data.csv"), "--json")  # 19 MB: fast path size
    assert got.returncode == 0, got.stderr
    here = subprocess.run(
        [
            sys.executable,
            "-m",
            "faircode",
            "profile",
            data_file("diabetic_data.csv"),
            "--json",
            "--no-provenance",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    import json

    mine = json.loads(got.stdout)
    mine.pop("provenance")
    assert mine == json.loads(here.stdout)


def test_the_monitor_api_and_module_name_their_extra(base):
    """`faircode.monitor` (pandas and numpy: the `frames` extra) through its API and its
    `python -m` entry: one line naming the extra."""
    cmd, _ = base
    py = cmd.parent / "python"
    got = run(py, "-c", "from faircode.monitor import evaluate")
    assert got.returncode == 1
    assert got.stderr.strip().splitlines()[-1] == (
        "ImportError: faircode.monitor.evaluate needs numpy, which is not installed: "
        "pip install 'faircode[frames]'"
    )
    compas = data_file("compas-scores-two-years.csv")
    got = run(
        py,
        "-m",
        "faircode.monitor",
        "fairness",
        "evaluate",
        compas,
        "--score",
        "decile_score",
        "--decision-threshold",
        "5",
        "--label",
        "two_year_recid",
        "--attr",
        "race",
    )
    assert got.returncode == 2, got.stderr
    assert got.stderr.splitlines() == [
        "faircode: error: faircode fairness evaluate needs numpy, which is not installed: "
        "pip install 'faircode[frames]'"
    ]
