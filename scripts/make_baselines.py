"""Derive faircode's built-in population baselines from US Census Bureau files.

Source: US Census Bureau, Population Division, "Annual Estimates of the Resident
Population by Single Year of Age and Sex for the United States" (nc-est2019-agesex-res,
April 2010 to July 2019, and nc-est2024-agesex-res, April 2020 to July 2024).
SEX: 0 both, 1 male, 2 female; AGE: 0..99 single years, 100 = 100 and over, 999 = all.

Writes faircode/data/reference-us-2019.csv and reference-us-2024.csv in the SPEC
section 9 long format: sex (Male/Female) and age by single year 0..100 (100 = 100 and
over), July estimates, shares to 9 decimals. Single years let the profiler compute
expected shares for whatever bands or intervals a dataset has (SPEC 9).

    python scripts/make_baselines.py [CENSUS_DIR]

CENSUS_DIR holds the two files; by default they are the copies kept in tests/data
(tests/datafiles.py decompresses and checks them).
"""

from __future__ import annotations

import csv
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"2019": "nc-est2019-agesex-res.csv", "2024": "nc-est2024-agesex-res.csv"}
DECIMALS = Decimal("0.000000001")


def share(part: int, total: int) -> str:
    return str((Decimal(part) / Decimal(total)).quantize(DECIMALS, ROUND_HALF_UP))


def derive(path: Path, year: str) -> list[tuple[str, str, str]]:
    pop: dict[tuple[int, int], int] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            pop[(int(row["SEX"]), int(row["AGE"]))] = int(row[f"POPESTIMATE{year}"])
    total = pop[(0, 999)]
    assert sum(pop[(0, a)] for a in range(101)) == total, "single years must add up"
    assert pop[(1, 999)] + pop[(2, 999)] == total, "sexes must add up"
    rows = [
        ("sex", "Male", share(pop[(1, 999)], total)),
        ("sex", "Female", share(pop[(2, 999)], total)),
    ]
    rows += [("age", str(age), share(pop[(0, age)], total)) for age in range(101)]
    return rows


def kept_census_dir() -> Path:
    """The folder of the census files kept in tests/data, decompressed and checked."""
    sys.path.insert(0, str(ROOT / "tests"))
    from datafiles import data_file

    (folder,) = {data_file(f"census/{name}").parent for name in SOURCES.values()}
    return folder


def main(argv: list[str]) -> None:
    census = Path(argv[0]) if argv else kept_census_dir()
    for year, name in SOURCES.items():
        out = ROOT / "faircode" / "data" / f"reference-us-{year}.csv"
        with open(out, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["column", "group", "share"])
            w.writerows(derive(census / name, year))
        print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
