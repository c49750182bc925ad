"""What the audit packs share (SPEC 20): their result class, the input's hash and the
provenance block, dates, and finding the sex and race/ethnicity columns the profile
detected."""

from __future__ import annotations

import io
import os
import re
from typing import Any

from ..errors import InputError
from ..options import advised, spelled
from ..provenance import StreamHash, provenance
from ..reader import open_input
from ..results import Result
from ..safetext import shown
from ..scan import _reread


class PackResult(Result):
    """An audit pack's result: a plain dict (SPEC 20) that renders itself."""

    __slots__ = ()
    command = ""

    def __repr__(self) -> str:
        return shown(f"{type(self).__name__}({self.get('kind')}: {self.get('title', '')})")


def pack_source(source: Any, name: str) -> tuple[Any, str | None, str | None]:
    """(the source as the pack reads it, its digest, the note when it has none).

    The source is resolved as scan resolves it (``faircode.scan._reread``, the one home):
    standard input or a file object is read into memory once (a pack reads its table
    more than once); a glob pattern naming no file is its files in sorted order, a list
    of paths its paths, one dataset, as the profile reads it (SPEC 0.8). A path that
    cannot be read is the profile's one line (``nope.csv: no such file``), not the
    system's."""
    source = _reread(source)
    return (source, *source_hash(source, name))


def source_hash(source: Any, name: str | None = None) -> tuple[str | None, str | None]:
    """(``sha256:<hex>`` of the source's raw bytes, or None; the note saying why None).

    A path is read once more for its digest (SPEC 10), opened as the profile opens it
    (``name`` in its messages); the files of a list are hashed one after the other, in
    order, as ``faircode profile`` hashes a pattern's files; an in-memory buffer is
    hashed as it is; a DataFrame has no raw bytes."""
    h = StreamHash()
    if isinstance(source, (str, os.PathLike, list, tuple)):
        paths = [os.fspath(p) for p in source] if isinstance(source, (list, tuple)) else None
        for path in paths or [os.fspath(source)]:
            fh, _ = open_input(path, path if paths else name or path)
            with fh:
                while block := fh.read(1 << 20):
                    h(block)
        return h.digest(), None
    if isinstance(source, io.BytesIO):
        h(source.getvalue())
        return h.digest(), None
    return None, f"an in-memory {type(source).__name__} has no raw bytes to hash"


def provenance_block(
    digest: str | None, note: str | None, params: dict, overrides: dict, audit: dict
) -> dict:
    """SPEC 10's block, with the pack's own options under ``audit``."""
    out = provenance(
        params=params,
        overrides=overrides,
        dataset_hashes={"dataset_hash": digest},
        notes={"dataset_hash": note} if note else None,
    )
    out["audit"] = audit
    return out


def today() -> str:
    """Today's date, ISO 8601: the default audit date (the only clock a pack reads)."""
    import datetime  # lazy: start-up

    return datetime.date.today().isoformat()


def iso_date(text: Any, flag: str) -> str:
    """``text`` checked as an ISO 8601 calendar date ``YYYY-MM-DD`` (returned as is)."""
    import datetime  # lazy: start-up

    if not isinstance(text, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        raise InputError(f"{spelled(flag)}: expected a date YYYY-MM-DD, got '{text}'")
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"{spelled(flag)}: '{text}' is not a calendar date") from None
    return text


def date_prefix(label: str) -> str | None:
    """The ``YYYY-MM-DD`` a cell starts with (a date, or a date and a time), or None."""
    import datetime  # lazy: start-up

    head = label[:10]
    if len(label) > 10 and label[10] not in " T":
        return None
    try:
        datetime.date.fromisoformat(head)
    except ValueError:
        return None
    if len(head) != 10 or head[4] != "-" or head[7] != "-":
        return None
    return head


def columns_of_kinds(result: dict) -> dict[str, list[str]]:
    """The profile's dimensions by kind: {kind: [column, ...]} in the profile's order."""
    out: dict[str, list[str]] = {}
    for d in result["dimensions"]:
        out.setdefault(d["kind"], []).append(d["name"])
    return out


def sex_and_race(result: dict, name: str, need: tuple[str, ...] = ("sex", "race")):
    """(sex column, race/ethnicity column, notes) among the profile's dimensions.

    The race/ethnicity column is the dimension of kind race, else of kind ethnicity.
    Two columns of one kind are ambiguous: one line names them and the --map that keeps
    one. A missing kind is one line naming --map."""
    kinds = columns_of_kinds(result)
    notes: list[str] = []
    sex = kinds.get("sex", [])
    race = kinds.get("race", [])
    eth = kinds.get("ethnicity", [])
    if "sex" in need and not sex:
        raise InputError(
            f"no sex column found in {name}; declare it with {advised('--map', 'COLUMN=sex')}"
        )
    if "race" in need and not race and not eth:
        raise InputError(
            f"no race/ethnicity column found in {name}; declare it with "
            f"{advised('--map', 'COLUMN=race')}"
        )
    if len(sex) > 1:
        raise InputError(
            f"two sex columns found in {name} ({', '.join(sex)}); keep one with "
            f"{advised('--map', f'{sex[1]}=ignore')}"
        )
    chosen = race or eth
    if len(chosen) > 1:
        kind = "race" if race else "ethnicity"
        raise InputError(
            f"two {kind} columns found in {name} ({', '.join(chosen)}); keep one with "
            f"{advised('--map', f'{chosen[1]}=ignore')}, or combine them into one column"
        )
    if race and eth:
        notes.append(
            f"the ethnicity column '{eth[0]}' is not combined with the race column "
            f"'{race[0]}': the categories are the race column's (combine the two into "
            "one race/ethnicity column to report Hispanic or Latino as a category)"
        )
    return (sex[0] if sex else None), (chosen[0] if chosen else None), notes
