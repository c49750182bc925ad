"""Peak RSS and seconds of both engines on the SPEC 0.9 bound cases (tests/bounds_cases.py).

    python benchmarks/bounds_rss.py [--tree DIR] [--data DIR] [CASE ...]

--tree runs another checkout's code (e.g. `git archive` of an older commit unpacked in
/tmp) with this checkout's case generators, so before/after can be compared. Python
runs with RLIMIT_AS 3 GB, node with --max-old-space-size=2048: a runaway fails instead
of taking the machine. One JSON line per case and engine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import bounds_cases as bc  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=list(bc.CASES))
    ap.add_argument("--tree", default=str(HERE.parent), help="checkout whose code runs")
    ap.add_argument("--data", default="/tmp/bounds-data", help="where the files are written")
    args = ap.parse_args()
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    tree = Path(args.tree).resolve()
    for name in args.cases:
        path = data / f"{name}.csv"
        if not path.exists():
            bc.CASES[name](path)
        runs = {
            # cwd outside the checkout and PYTHONPATH: `python -m` imports the tree's code
            "python": (
                [
                    "env",
                    f"PYTHONPATH={tree}",
                    sys.executable,
                    "-m",
                    "faircode",
                    "profile",
                    str(path),
                    "--json",
                ],
                3 << 30,
                "/",
            ),
            "js": (
                [
                    "node",
                    "--max-old-space-size=2048",
                    str(tree / "scripts" / "engine-js.js"),
                    "profile",
                    str(path),
                ],
                None,
                str(tree),
            ),
        }
        for engine, (cmd, ceiling, cwd) in runs.items():
            rc, out, err, rss, seconds = bc.measure(cmd, as_limit=ceiling, timeout=300, cwd=cwd)
            print(
                json.dumps(
                    {
                        "case": name,
                        "engine": engine,
                        "exit": rc,
                        "peak_rss_mb": round(rss),
                        "seconds": round(seconds, 1),
                        "output_kb": len(out) // 1024,
                        "error": err.decode(errors="replace").strip()[-160:],
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
