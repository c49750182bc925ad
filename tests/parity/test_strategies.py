"""tests/strategies.py, the parity suite's hypothesis strategies, is a plain helper:
importing it loads the standard library and hypothesis only (no faircode, pandas, numpy
or pyarrow) and starts no process. What the strategies need from the engines (the
header cleaning, both engines' missing tokens) comes on the first draw that needs it.

Each check runs in a fresh interpreter (this process has loaded everything already),
which reports the processes it started (audit events) and the modules it loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from util import ROOT

#: Runs argv[1] and prints, as JSON, the processes it started and the top-level modules
#: it loaded beyond those loaded before it (hypothesis.strategies first, when argv[2]
#: says so, so that what hypothesis itself loads is told apart).
PROBE = r"""
import json, sys
SPAWNS = {"subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork", "os.forkpty",
          "os.spawn", "os.system", "pty.spawn"}
spawned = []
sys.addaudithook(lambda event, args: event in SPAWNS and spawned.append(event))
if sys.argv[2] == "after-hypothesis":
    import hypothesis.strategies
before = set(sys.modules)
exec(sys.argv[1])
loaded = sorted({m.split(".")[0] for m in set(sys.modules) - before})
present = sorted({m.split(".")[0] for m in sys.modules})
print(json.dumps({"spawned": spawned, "loaded": loaded, "present": present}))
"""
HEAVY = {"faircode", "pandas", "numpy", "pyarrow", "scipy", "polars"}


def probe(code: str, after_hypothesis: bool = True) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT)])
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, code, "after-hypothesis" if after_hypothesis else "-"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_importing_the_strategies_loads_the_standard_library_only_and_starts_nothing():
    got = probe("import strategies")
    assert got["spawned"] == []
    assert not HEAVY & set(got["present"]), HEAVY & set(got["present"])
    beyond = [m for m in got["loaded"] if m not in sys.stdlib_module_names]
    assert beyond == ["strategies"], beyond


def test_hypothesis_alone_loads_nothing_heavy():
    """The baseline the first test stands on: importing hypothesis's strategies (what
    the probe does first) loads none of the heavy modules either."""
    got = probe("import hypothesis.strategies", after_hypothesis=False)
    assert got["spawned"] == []
    assert not HEAVY & set(got["present"])


def test_the_probe_sees_a_process_and_a_heavy_import():
    """The checks above can fail: a module that runs node and imports faircode at import
    time (as the strategies once did inside tests/parity/test_js_parity.py) is seen."""
    got = probe("import subprocess, faircode.labels; subprocess.run(['node', '--version'])")
    assert "subprocess.Popen" in got["spawned"]
    assert "faircode" in got["loaded"]


def test_the_engines_are_asked_on_the_first_draw():
    """missing_like() asks node for the JS engine's tokens (once) and faircode for the
    Python engine's; both engines' tokens are then drawn."""
    got = probe(
        "import strategies\n"
        "from faircode.labels import MISSING_TOKENS\n"
        "tokens = strategies.missing_like()\n"
        "assert set(MISSING_TOKENS) <= set(tokens), tokens\n"
        "assert strategies.missing_like() is tokens\n"
        "assert strategies.clean_header(['a', 'a', '']) == "
        "__import__('faircode.labels').labels.clean_header(['a', 'a', ''])\n"
    )
    assert got["spawned"].count("subprocess.Popen") == 1, got["spawned"]  # node, once
    assert "faircode" in got["loaded"]
