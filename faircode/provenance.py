"""Export provenance (SPEC.md section 10): what produced a result, attached at export."""

from __future__ import annotations

import hashlib


class StreamHash:
    """SHA-256 of the raw bytes, fed block by block while the file is read once."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self.fed = False

    def __call__(self, block: bytes) -> None:
        self.fed = True
        self._h.update(block)

    def digest(self) -> str:
        return "sha256:" + self._h.hexdigest()


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def provenance(*, params: dict, overrides: dict, dataset_hashes: dict[str, str | None],
               notes: dict[str, str] | None = None, reference_hash: str | None = None,
               engine: str = "python") -> dict:
    from . import __version__

    out: dict = {"faircode_version": __version__, "engine": engine}
    for key, digest in dataset_hashes.items():
        out[key] = digest
        if digest is None:
            out[f"{key}_note"] = (notes or {}).get(key, "the raw bytes were not available")
    if reference_hash is not None:
        out["reference_hash"] = reference_hash
    out["params"] = params
    out["overrides"] = dict(overrides)
    return out
