"""Seeded generator of realistic CSV files for the benchmarks.

    python benchmarks/generate.py OUT.csv --size 100MB [--seed 6]

Twelve columns, like a warehouse export of people: an id, a name, gender with blanks,
a skewed race column, a numeric age with blanks, 50 regions, ~30k zip codes, incomes,
free text with quoted commas, quotes and newlines, dates, and two more categoricals.
The same seed and size give the same bytes. Rows are written in chunks, so memory
stays flat whatever the size.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

HEADER = (
    "person_id,full_name,gender,race,age,region,zip,annual_income,comment,"
    "visit_date,education,employment_status"
)
FIRST = (
    "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William "
    "Barbara Richard Susan Joseph Jessica Thomas Sarah Chen Wei Aisha Mohammed Olga "
    "Sofia Lucas Mateo Yuki Priya Arjun Fatima Kwame Amara Jose Maria Nguyen Ali"
).split()
LAST = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez "
    "Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson "
    "White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright "
    "Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell "
    "O'Brien Kowalski Okafor Tanaka Müller Dubois Søren"
).split()
GENDERS = ["Male", "Female", "", "Non-binary", "Unknown"]
GENDER_P = [0.47, 0.45, 0.05, 0.02, 0.01]
RACES = ["White", "Black", "Hispanic", "Asian", "Native American", "Pacific Islander", "Other", "?"]
RACE_P = [0.61, 0.13, 0.12, 0.07, 0.012, 0.003, 0.025, 0.03]
REGIONS = [f"Region {i:02d}" for i in range(1, 51)]
EDUCATION = [
    "High school",
    "Some college",
    "Bachelor's",
    "Master's",
    "Doctorate",
    "Less than high school",
    "Associate",
]
EDU_P = [0.27, 0.2, 0.23, 0.12, 0.02, 0.08, 0.08]
EMPLOYMENT = ["Employed", "Unemployed", "Self-employed", "Retired", "Student", "NA"]
EMP_P = [0.6, 0.06, 0.1, 0.15, 0.07, 0.02]
WORDS = (
    "the visit went well patient reported mild pain follow up in two weeks no issues "
    "prescribed rest and fluids referred to specialist, see notes called back later "
    "insurance pending approved denied reviewed"
).split()
CHUNK_ROWS = 50_000


def parse_size(text: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMG]?)B?", text.strip(), re.I)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 100MB, 1GB)")
    mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()]
    return int(float(m.group(1)) * mult)


def _comments(rng: np.random.Generator, n: int) -> list[str]:
    """Free text: mostly plain words; some quoted with commas, doubled quotes, newlines."""
    words = np.array(WORDS, dtype=object)
    lengths = rng.integers(2, 9, n)
    kind = rng.random(n)
    out = []
    picks = rng.integers(0, len(WORDS), int(lengths.sum()))
    pos = 0
    for i in range(n):
        k = int(lengths[i])
        text = " ".join(words[picks[pos : pos + k]])
        pos += k
        r = kind[i]
        if r < 0.15:
            text = f'"{text}, and more"'
        elif r < 0.19:
            text = f'"{text}\nsecond line, ok"'
        elif r < 0.21:
            text = f'"said ""{text}"" twice"'
        elif r < 0.25:
            text = ""
        elif "," in text:
            text = f'"{text}"'
        out.append(text)
    return out


def generate_rows(rng: np.random.Generator, start: int, n: int, zips: np.ndarray) -> str:
    ids = np.arange(start, start + n)
    first = rng.integers(0, len(FIRST), n)
    last = rng.integers(0, len(LAST), n)
    gender = rng.choice(len(GENDERS), n, p=GENDER_P)
    race = rng.choice(len(RACES), n, p=RACE_P)
    age = np.clip(rng.normal(42, 17, n), 0, 99).astype(int)
    age_blank = rng.random(n) < 0.04
    region = np.minimum(rng.zipf(1.3, n) - 1, 49)
    zip_idx = np.minimum(rng.zipf(1.05, n) - 1, len(zips) - 1)
    zip_idx = (zip_idx * 7919 + rng.integers(0, 3, n)) % len(zips)
    income = np.round(rng.lognormal(10.8, 0.6, n), -1).astype(int)
    days = rng.integers(0, 3650, n)
    dates = (np.datetime64("2014-01-01") + days).astype(str)
    edu = rng.choice(len(EDUCATION), n, p=EDU_P)
    emp = rng.choice(len(EMPLOYMENT), n, p=EMP_P)
    comments = _comments(rng, n)
    lines = []
    for i in range(n):
        name = f"{FIRST[first[i]]} {LAST[last[i]]}"
        lines.append(
            f"{ids[i]},{name},{GENDERS[gender[i]]},{RACES[race[i]]},"
            f"{'' if age_blank[i] else age[i]},{REGIONS[region[i]]},{zips[zip_idx[i]]},"
            f"{income[i]},{comments[i]},{dates[i]},{EDUCATION[edu[i]]},"
            f"{EMPLOYMENT[emp[i]]}\n"
        )
    return "".join(lines)


def generate(path: str | Path, size: int, seed: int = 6) -> int:
    """Write about `size` bytes (whole rows, at least `size`); return the row count."""
    rng = np.random.default_rng(seed)
    zips = np.array([f"{z:05d}" for z in rng.choice(np.arange(1000, 99999), 30_000, replace=False)])
    written = 0
    rows = 0
    with open(path, "w", encoding="utf-8", newline="") as out:
        head = HEADER + "\n"
        out.write(head)
        written += len(head.encode())
        while written < size:
            text = generate_rows(rng, rows + 1, CHUNK_ROWS, zips).encode()
            if written + len(text) > size:  # cut the last chunk at a row boundary
                cut = text.find(b"\n", size - written)
                while cut >= 0 and text[: cut + 1].count(b'"') % 2:
                    cut = text.find(b"\n", cut + 1)
                text = text if cut < 0 else text[: cut + 1]
            out.write(text.decode())
            written += len(text)
            rows += text.count(b"\n") - text.count(b"\nsecond line")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="CSV file to write")
    ap.add_argument(
        "--size",
        type=parse_size,
        default=parse_size("100MB"),
        help="target size, e.g. 5MB, 100MB, 1GB (default 100MB)",
    )
    ap.add_argument("--seed", type=int, default=6)
    args = ap.parse_args(argv)
    rows = generate(args.out, args.size, args.seed)
    sys.stderr.write(f"{args.out}: {Path(args.out).stat().st_size:,} bytes, {rows:,} rows\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
