"""Export provenance (SPEC.md section 10): what produced a result, attached at export."""

from __future__ import annotations

import os

from ._version import __version__
from .calling import keyword_args
from .errors import InputError
from .options import dict_arg, resolve
from .reader import open_input

#: Inputs up to this many bytes are hashed by CPython's own SHA-256 module; larger ones
#: by OpenSSL's (hashlib), five times faster, whose loading costs ~5 ms of start-up: a
#: small file's whole profile took less (issue 12). The digests are the same.
SMALL_INPUT = 1 << 20


def _small_sha256():
    try:
        from _sha2 import sha256  # lazy: start-up; CPython 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # lazy: start-up; CPython 3.11
        except ImportError:  # another Python: hashlib's
            from hashlib import sha256  # lazy: start-up
    return sha256()


class StreamHash:
    """SHA-256 of the raw bytes, fed block by block while the file is read once. The
    first SMALL_INPUT bytes wait in a buffer: an input that ends there is hashed without
    loading OpenSSL."""

    def __init__(self) -> None:
        self._h = None  # OpenSSL's hasher, once the input is past SMALL_INPUT
        self._head = bytearray()
        self.fed = False

    def __call__(self, block: bytes) -> None:
        self.fed = True
        if self._h is None:
            if len(self._head) + len(block) <= SMALL_INPUT:
                self._head += block
                return
            import hashlib  # lazy: start-up

            self._h = hashlib.sha256(self._head)
            self._head = bytearray()
        self._h.update(block)

    def digest(self) -> str:
        h = self._h
        if h is None:
            h = _small_sha256()
            h.update(self._head)
        return "sha256:" + h.hexdigest()


def sha256_bytes(data: bytes) -> str:
    h = StreamHash()
    h(data)
    return h.digest()


def provenance(
    *,
    params: dict,
    overrides: dict,
    dataset_hashes: dict[str, str | None],
    notes: dict[str, str] | None = None,
    reference_hash: str | None = None,
    engine: str = "python",
) -> dict:
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


@keyword_args("faircode.provenance_for", "overrides", "opts")
def provenance_for(
    source, *, overrides: dict | None = None, opts=None, reference_hash: str | None = None
) -> dict:
    """The provenance block of a Python API result: what produced it (SPEC 10).

    The CLI's ``--json`` attaches this block, hashing the bytes as it streams them; a
    Python result gets the same block from here, never inside :func:`faircode.profile`
    or :func:`faircode.compare` (results stay comparable with ``==``).

    Parameters
    ----------
    source : str, bytes, path-like, DataFrame or other
        What was profiled. A path (a str, bytes or os.PathLike) is hashed by reading its
        bytes (a second read: pass the CLI's streamed digest where one read matters).
        Anything else (a DataFrame, a table, a file object) has no raw bytes to hash:
        its digest is None, with a note saying why.
    overrides : dict of str to str, optional
        The ``--map`` kinds the result was made with (column -> kind, SPEC 1.6),
        recorded as given.
    opts : dict or Options, optional
        The options the result was made with; recorded resolved, every SPEC 7 option
        with its default filled in.
    reference_hash : str, optional
        The digest of the reference baseline used (SPEC 9), recorded as given.

    Returns
    -------
    dict
        ``faircode_version``, ``engine`` (``"python"``), ``dataset_hash``
        (``"sha256:<hex>"`` of the raw bytes, or None), ``dataset_hash_note`` (only
        when the digest is None), ``reference_hash`` (only when given), ``params`` (the
        resolved options) and ``overrides``.

    Raises
    ------
    InputError
        Bad input, in one line: a path that cannot be read (``data.csv: no such
        file``), an unknown option or one out of its range, ``overrides`` that is not a
        dict (``overrides: give a dict of column names and kinds, as --map, not a
        list``).

    Examples
    --------
    >>> from importlib import resources
    >>> import faircode
    >>> sample = str(resources.files("faircode") / "data" / "compas-scores-two-years.csv")
    >>> result = faircode.profile(sample, overrides={"race": "race"}, opts={"min_share": 0.1})
    >>> result["provenance"] = faircode.provenance_for(
    ...     sample, overrides={"race": "race"}, opts={"min_share": 0.1}
    ... )
    >>> block = result["provenance"]
    >>> sorted(block)
    ['dataset_hash', 'engine', 'faircode_version', 'overrides', 'params']
    >>> block["dataset_hash"][:23], block["params"]["min_share"], block["overrides"]
    ('sha256:c451db85908b2f7f', 0.1, {'race': 'race'})
    >>> import pandas as pd
    >>> faircode.provenance_for(pd.DataFrame({"sex": ["F", "M"]}))["dataset_hash_note"]
    'an in-memory DataFrame has no raw bytes to hash'
    """
    params = resolve(opts).params()
    overrides = dict_arg("overrides", overrides)
    if isinstance(source, (str, bytes, os.PathLike)):  # bytes: a path, as open() takes it
        h = StreamHash()
        label = os.fsdecode(source)
        fh, _ = open_input(source, label)
        try:
            with fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h(block)
        except OSError as exc:
            raise InputError(f"{label}: cannot read ({exc.strerror or exc})") from None
        return provenance(
            params=params,
            overrides=overrides,
            dataset_hashes={"dataset_hash": h.digest()},
            reference_hash=reference_hash,
        )
    kind = type(source).__name__
    return provenance(
        params=params,
        overrides=overrides,
        dataset_hashes={"dataset_hash": None},
        notes={"dataset_hash": f"an in-memory {kind} has no raw bytes to hash"},
        reference_hash=reference_hash,
    )
