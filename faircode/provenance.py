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


def provenance(
    *,
    params: dict,
    overrides: dict,
    dataset_hashes: dict[str, str | None],
    notes: dict[str, str] | None = None,
    reference_hash: str | None = None,
    engine: str = "python",
) -> dict:
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


def provenance_for(
    source, overrides: dict | None = None, opts=None, *, reference_hash: str | None = None
) -> dict:
    """The provenance block for a Python API result (the CLI streams the hash instead).

    A path is hashed by reading its bytes (a second read: pass the CLI's streamed digest
    where one file read matters); an in-memory table has no raw bytes, so its digest is
    null with a note saying why.
    """
    import os

    from .options import resolve

    params = resolve(opts).params()
    if isinstance(source, (str, os.PathLike)):
        h = StreamHash()
        with open(source, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h(block)
        return provenance(
            params=params,
            overrides=overrides or {},
            dataset_hashes={"dataset_hash": h.digest()},
            reference_hash=reference_hash,
        )
    kind = type(source).__name__
    return provenance(
        params=params,
        overrides=overrides or {},
        dataset_hashes={"dataset_hash": None},
        notes={"dataset_hash": f"an in-memory {kind} has no raw bytes to hash"},
        reference_hash=reference_hash,
    )
