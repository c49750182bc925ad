"""Parity of the third engine: the Python engine inside Pyodide (SPEC.md section 14).

`scripts/engine-pyodide.mjs` runs faircode's reference path in Pyodide (CPython compiled
to WebAssembly, standard library only: no numpy, pandas or pyarrow, no network). One
Pyodide start-up takes seconds, so every job of this module goes to one
`engine-pyodide.mjs batch` process: every dataset in tests/data (with the options
test_js_parity.py gives them, through faircode's own CLI `--json`, provenance included),
a fixed derandomized sample of the parity suite's generated files, and a sample of its
generated compare pairs. CPython, Pyodide and the JS engine must give `==` results.

Provenance: Pyodide runs the Python engine, so its `--json` output equals CPython's byte
for byte (engine "python", the same digests and params); the JS engine's block is
compared as tests/parity/test_js_parity_compare.py compares it (the same dataset_hash and
params, engine "js" against "python").

Node 18+ is needed (skipped without it, with the reason); the pyodide npm package
(package.json, installed by scripts/check) is needed: without it every test here FAILS
when CI is set and the module is skipped otherwise, with the install hint.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from datafiles import data_file, data_files, data_name
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = ROOT / "scripts" / "engine-pyodide.mjs"
PYODIDE = ROOT / "node_modules" / "pyodide" / "package.json"
N_GENERATED = 30
N_COMPARE = 10

try:
    from jsbridge import NodeMissing, node_command

    NODE = node_command()
except NodeMissing as exc:
    pytest.skip(f"Pyodide parity needs Node.js 18+: {exc}", allow_module_level=True)

NO_PYODIDE = (
    "the pyodide npm package is not installed (node_modules/pyodide): run `npm install` "
    "in the project root (package.json pins it; scripts/check installs it when missing)"
)
if not PYODIDE.is_file() and not os.environ.get("CI"):
    pytest.skip(NO_PYODIDE, allow_module_level=True)

from parityutil import ADULT_NAMES, assert_same, run_js, run_python  # noqa: E402
from strategies import compare_opts, csv_cases, derive  # noqa: E402

import faircode  # noqa: E402
from faircode.cli import main as cli_main  # noqa: E402
from faircode.safetext import bounded, shown  # noqa: E402


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def pairs(overrides: dict) -> list:
    return [[k, v] for k, v in overrides.items()]


def collect(strategy, n: int, fixed_seed: int) -> list:
    """A fixed sample of `strategy`: a fixed seed, generation only (the hypothesis version
    is pinned in the test extra, so the sample stays the same from run to run). Each
    sample has its own seed, so two samples do not repeat each other's draws."""
    out: list = []

    @seed(fixed_seed)
    @settings(
        max_examples=n,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def draw(value):
        out.append(value)

    draw()
    return out[:n]


@st.composite
def compare_pairs(draw):
    case = draw(csv_cases())
    return case, derive(draw, case.data), draw(compare_opts)


def file_opts(path: Path) -> tuple[dict, list[str]]:
    """The options test_js_parity.test_real_dataset gives a file, and the same as CLI flags."""
    opts: dict = {}
    flags: list[str] = []
    if path.name in ("adult.data", "adult.test"):
        opts["names"] = ADULT_NAMES
        flags += ["--names", ",".join(ADULT_NAMES)]
    if path.name == "adult.test":
        opts["skip_lines"] = 1
        flags += ["--skip-lines", "1"]
    return opts, flags


def cpython_cli(argv: list[str]) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def run_pyodide(jobs: list[dict], *extra: str) -> list[dict]:
    proc = subprocess.run(
        NODE + [str(BRIDGE), "batch", "-", *extra],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=1200,
    )
    assert proc.returncode == 0, f"engine-pyodide.mjs batch failed:\n{proc.stderr}"
    answers = json.loads(proc.stdout)
    assert len(answers) == len(jobs)
    return answers


def pyodide_answer(answer: dict) -> dict:
    if answer.get("internal"):
        raise AssertionError("Pyodide engine crashed:\n" + answer["error"])
    return answer


class Batch:
    """Every job of the module, sent to one Pyodide process on first use."""

    def __init__(self) -> None:
        self.files = data_files()
        self.cases = collect(csv_cases(), N_GENERATED, 1418)
        self.pairs = collect(compare_pairs(), N_COMPARE, 1808)
        jobs: list[dict] = []
        for path in self.files:
            jobs.append({"op": "cli", "argv": self.cli_argv(path)})
        for case in self.cases:
            jobs.append(
                {
                    "bytes_b64": b64(case.data),
                    "name": "t.csv",
                    "overrides": pairs(case.overrides),
                    "opts": case.opts,
                    "block_size": case.block_size,
                }
            )
        for case, b_bytes, copts in self.pairs:
            jobs.append(self.compare_job(case, b_bytes, copts))
        jobs += [{"op": "cli", "argv": argv} for argv in self.REPORTS]
        jobs.append({"op": "runtime"})  # last: the modules that every job imported
        answers = run_pyodide(jobs)
        self.runtime = answers.pop()
        self.report_answers = answers[len(answers) - len(self.REPORTS) :]
        del answers[len(answers) - len(self.REPORTS) :]
        k = 0
        self.file_answers = dict(zip(self.files, answers[k : k + len(self.files)]))
        k += len(self.files)
        self.case_answers = answers[k : k + len(self.cases)]
        k += len(self.cases)
        self.pair_answers = answers[k:]

    #: the CLI's other report formats (the HTML report inlines the site's views and style)
    REPORTS = [["profile", "--sample", *fmt] for fmt in (["--format", "html"], ["--markdown", "-"])]

    @staticmethod
    def cli_argv(path: Path) -> list[str]:
        return ["profile", str(path), "--json", *file_opts(path)[1]]

    @staticmethod
    def compare_job(case, b_bytes: bytes, copts: dict) -> dict:
        return {
            "op": "compare",
            "opts": dict(case.opts, **copts),
            "overrides": pairs(case.overrides),
            "a": {"bytes_b64": b64(case.data), "name": "a.csv", "opts": case.opts},
            "b": {"bytes_b64": b64(b_bytes), "name": "b.csv", "opts": case.opts},
        }


@pytest.fixture(scope="module")
def pyodide() -> None:
    """In CI (CI=1, as scripts/check sets) a missing Pyodide fails every test here."""
    if not PYODIDE.is_file():
        pytest.fail(NO_PYODIDE, pytrace=False)


@pytest.fixture(scope="module")
def batch(pyodide) -> Batch:
    return Batch()


def test_the_jobs_ran_in_pyodide_on_the_standard_library_only(batch):
    info = pyodide_answer(batch.runtime)["result"]
    assert info["platform"] == "emscripten", info
    # Third-party modules loaded after every job: none (faircode and the bridge aside).
    assert info["third_party_modules"] == [], info
    assert info["faircode"] == faircode.__version__
    assert info["faircode_file"].startswith("/faircode-pkg/faircode/"), info
    assert info["distribution"] is None  # the source tree, copied: no dist-info


@pytest.mark.parametrize("path", data_files(), ids=data_name)
def test_real_dataset_three_engines(batch, js, path: Path):
    opts, _ = file_opts(path)
    got = pyodide_answer(batch.file_answers[path])
    # faircode's CLI under Pyodide prints exactly what it prints under CPython.
    want = cpython_cli(Batch.cli_argv(path))
    assert got == want, f"{path}: CLI output differs between CPython and Pyodide"
    py = run_python(str(path), None, opts)
    assert_same(py, run_js(js.profile_path(path, str(path), None, opts)), f"file {path}")
    js_cli = subprocess.run(
        NODE
        + [str(ROOT / "scripts" / "engine-js.js"), "profile", str(path), "--provenance"]
        + ["--opts", json.dumps(opts)],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    if "error" in py:  # not a table (README.md, adult.names): one line, exit 2, everywhere
        line = f"faircode: error: {shown(py['error'])}\n"
        assert (got["code"], got["stdout"], got["stderr"]) == (2, "", line)
        assert (js_cli.returncode, js_cli.stdout, js_cli.stderr) == (2, "", line)
        return
    assert got["code"] == 0 and got["stderr"] == "", got["stderr"]
    out = json.loads(got["stdout"])
    prov = out.pop("provenance")
    # the CLI caps long labels in what it prints (SPEC 0.9 LABEL_SHOWN); the API keeps them
    assert_same(
        {"result": bounded(py["result"])},
        {"result": out},
        f"file {path} opts={opts} (CPython API | Pyodide CLI)",
    )
    # The JS engine's provenance for the same run: only the engine name differs.
    assert js_cli.returncode == 0, js_cli.stderr
    js_out = json.loads(js_cli.stdout)
    pj = js_out.pop("provenance")
    assert bounded(js_out) == out  # the bridge prints the raw result; the CLI caps labels
    assert pj["dataset_hash"] == prov["dataset_hash"] is not None
    assert pj["params"] == prov["params"]
    assert pj["engine"] == "js" and prov["engine"] == "python"


@pytest.mark.parametrize("i", range(len(Batch.REPORTS)))
def test_report_formats_are_cpythons_in_pyodide(batch, i: int):
    """SPEC 14: the CLI under Pyodide prints what it prints under CPython in every format;
    the HTML report needs the site's files, which the wheel ships as faircode/site (the
    bridge's copy of the source tree had none: "views.js: No such file or directory")."""
    argv = Batch.REPORTS[i]
    got = pyodide_answer(batch.report_answers[i])
    want = cpython_cli(argv)
    assert want["code"] == 0 and want["stdout"], want["stderr"]
    assert got == want, f"{argv}: CLI output differs between CPython and Pyodide"


@pytest.mark.parametrize("i", range(N_GENERATED))
def test_generated_sample_three_engines(batch, js, i: int):
    case = batch.cases[i]
    py = run_python(
        io.BytesIO(case.data), case.overrides, case.opts, name="t.csv", block_size=case.block_size
    )
    got = pyodide_answer(batch.case_answers[i])
    assert_same(py, got, "CPython | Pyodide\n" + case.describe())
    js_got = run_js(
        js.profile_bytes(case.data, "t.csv", case.overrides, case.opts, case.chunk_size)
    )
    assert_same(py, js_got, "CPython | JS\n" + case.describe())


def test_the_generated_sample_reaches_results_and_errors(batch):
    kinds = {"result" if "result" in a else "error" for a in batch.case_answers}
    assert kinds == {"result", "error"}, kinds
    assert any(a.get("result", {}).get("dimensions") for a in batch.pair_answers)


@pytest.mark.parametrize("i", range(N_COMPARE))
def test_generated_compare_three_engines(batch, js, i: int):
    case, b_bytes, copts = batch.pairs[i]
    a = run_python(io.BytesIO(case.data), case.overrides, case.opts, name="a.csv")
    b = run_python(io.BytesIO(b_bytes), case.overrides, case.opts, name="b.csv")
    context = f"A: {case.data!r}\nB: {b_bytes!r}\nopts={case.opts} {copts}"
    if "result" in a and "result" in b:
        result = faircode.compare(a["result"], b["result"], opts=dict(case.opts, **copts))
        py = {"result": json.loads(json.dumps(result))}
    else:
        py = a if "error" in a else b
    assert_same(py, pyodide_answer(batch.pair_answers[i]), "CPython | Pyodide\n" + context)
    job = Batch.compare_job(case, b_bytes, copts)
    assert_same(py, run_js(js.request(dict(job, chunk_size=case.chunk_size))), context)


def test_adult_compare_cli_three_engines(pyodide, js):
    """`compare A B --json` (section 8, provenance included) through the CLI in Pyodide."""
    names = ",".join(ADULT_NAMES)
    a, b = str(data_file("adult.data")), str(data_file("adult.test"))
    # income is an outcome: scored on request, so its drift is compared (SPEC 1.5)
    argv = ["compare", a, b, "--json", "--names", names, "--skip-lines-b", "1"]
    argv.append("--score-categoricals")
    proc = subprocess.run(
        NODE + [str(BRIDGE), *argv], capture_output=True, text=True, encoding="utf-8", cwd=ROOT
    )
    want = cpython_cli(argv)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, want["stdout"], want["stderr"])
    out = json.loads(proc.stdout)
    prov = out.pop("provenance")
    opts = {"names": ADULT_NAMES, "score_categoricals": True}
    got = js.request(
        {
            "op": "compare",
            "opts": opts,
            "a": {"path": a},
            "b": {"path": b, "opts": dict(opts, skip_lines=1)},
        }
    )
    assert run_js(got) == {"result": out}
    assert any(d["drift_level"] != "none" for d in out["dimensions"])
    assert prov["engine"] == "python" and prov["dataset_hash_a"] != prov["dataset_hash_b"]


def test_a_built_wheel_loads_in_pyodide(pyodide, tmp_path):
    """faircode builds as a pure-Python wheel that Pyodide loads (`--wheel`): the same
    answers as the source tree's, and an error that is one line, as the CLI's."""
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "faircode", src / "faircode", ignore=shutil.ignore_patterns("__pycache__")
    )
    # the site ships as faircode.site from the top-level site/ (pyproject package-dir);
    # its links (the engine, the sample) are copied as files
    shutil.copytree(ROOT / "site", src / "site")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(src)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("faircode-*-py3-none-any.whl")
    jobs = [
        # the bundled sample and baseline: the wheel's package data
        {"op": "cli", "argv": ["profile", "--sample", "--json", "--reference", "us-2019"]},
        {"op": "cli", "argv": ["profile", str(tmp_path / "nope.csv")]},
        {"op": "runtime"},
    ]
    profiled, missing, runtime = run_pyodide(jobs, "--wheel", str(wheel))
    assert runtime["result"]["distribution"] == faircode.__version__  # from the wheel
    assert profiled == cpython_cli(jobs[0]["argv"])
    assert missing == cpython_cli(jobs[1]["argv"])
    assert missing["code"] == 2 and missing["stderr"].startswith("faircode: error: ")
