"""The real datasets that tests, benchmarks and scripts read (tests/data/README.md).

Each file is kept in tests/data/ compressed, as `NAME.xz`. `data_file(NAME)` gives the
path of the file itself, byte for byte as its publisher released it: decompressed once
into tests/data/.cache/ (git-ignored) and checked against its SHA-256 in `SHA256`, the
one table of the files and their digests. A finished file appears in the cache under
its name in one step (written to a temporary name, then `os.replace`), so pytest
processes started at once never read half a file.

The standard library only, so scripts, benchmarks and the JS tests can use it without
faircode or a virtualenv:

    python tests/datafiles.py [NAME ...]   # every file (or the NAMEs): one path a line
"""

from __future__ import annotations

import functools
import hashlib
import lzma
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data"
CACHE = SOURCE / ".cache"

# name (relative to tests/data, without .xz) -> SHA-256 of the uncompressed bytes
SHA256 = {
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.names": "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "census/nc-est2019-agesex-res.csv": (
        "e2f05b8e207bce21a94a89cadaf79f8de8fe822e3be76e76c7e83f3c3341a823"
    ),
    "census/nc-est2024-agesex-res.csv": (
        "60f57afa69ebd767e65c5422c4afb4a5c0c8fbc16a97f43cffb4917e583cdf68"
    ),
    "compas-scores-raw.csv": "827209b9a22ed7e1a97da899d85c56d4b05af8c9f9dda8e20ce1b931c015d193",
    "compas-scores-two-years.csv": (
        "c451db85908b2f7fef1d83203bedf6b71ecda0d5af468d82ae62178f91d0cc7d"
    ),
    "credit.csv": "5c9906df163beb8c7d9c497146d3bdf210c4816401f32b488d6c10fcbff0d048",
    "diabetic_data.csv": "0689e7ec031237dc63031b938805c48377748761a3b26acab621567afa24df97",
    "german.data": "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871",
    "insurance.csv": "505c1cbc2e63d0363bac59501563df2530aadf4cdb9cfee226f4ef32f5468281",
    "msd/01_data.csv": "81788d1e63a9b4b48420e128030087a89e38f3a2ba55e2f65fd45edc2952eec4",
    "seaborn/titanic.csv": "81787d320d7f7b03df935e91de8bd19e11d45c5bbcab86ef4d4a76dc91b7d4f2",
}

_BLOCK = 1 << 20


def sha256_of(path: Path) -> str | None:
    """The SHA-256 of a file's bytes, or None when there is no such file."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while block := fh.read(_BLOCK):
                h.update(block)
    except FileNotFoundError:
        return None
    return h.hexdigest()


def compressed(name: str) -> Path:
    """Where the repository keeps NAME: tests/data/NAME.xz."""
    return SOURCE / f"{name}.xz"


@functools.cache
def data_file(name: str) -> Path:
    """The path of dataset NAME (e.g. "adult.data", "census/nc-est2019-agesex-res.csv"),
    uncompressed and verified; decompressed on the first call of any process that needs
    it, checked against SHA256 once per process after that."""
    if name not in SHA256:
        raise KeyError(f"{name!r} is not one of the files in tests/data: {', '.join(SHA256)}")
    want = SHA256[name]
    path = CACHE / name
    if sha256_of(path) != want:  # missing, or not the published bytes: write it again
        _decompress(name, path, want)
    return path


def _decompress(name: str, path: Path, want: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        h = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, lzma.open(compressed(name)) as src:
            while block := src.read(_BLOCK):
                h.update(block)
                out.write(block)
        if h.hexdigest() != want:
            raise ValueError(
                f"tests/data/{name}.xz does not hold the published bytes: "
                f"SHA-256 {h.hexdigest()}, want {want}"
            )
        os.chmod(tmp, 0o444)  # read-only, as published data should be
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def data_files() -> list[Path]:
    """Every dataset, in SHA256's (sorted) order."""
    return [data_file(name) for name in SHA256]


def data_name(path: Path) -> str:
    """A dataset's name from its path (its place under the cache), for test ids."""
    return path.resolve().relative_to(CACHE.resolve()).as_posix()


def main(argv: list[str]) -> int:
    for name in argv or list(SHA256):
        print(data_file(name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
