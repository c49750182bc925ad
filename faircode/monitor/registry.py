"""The slice registry: ``fairness.yaml`` (the declaration) and the store's override.

``fairness.yaml``::

    models:
      compas:
        slices: [race, sex]   # required, non-empty, no duplicates
        threshold: 0.1        # largest allowed disparity (default 0.1)
        min_samples: 30       # low-n guard (default 30)
        gate: true            # the gate blocks promotion (default true)
        task: binary          # binary | regression (default: inferred)
        enabled: true         # false turns the model's fairness gate off (default true)
        rule: interval        # interval | point: how the gate decides (default interval)
        groups:               # profile's --map, --na, --recode, age bands (SPEC 15.4)
          recode: {race: {Asian: Other}}
        ref_groups: {race: Caucasian}   # reference slices (SPEC 12.6): a value, maj or min

A model's own YAML file (``models/<model>.yaml``) may declare its registry instead, in a
``fairness:`` block (SPEC 15.4); the model is the file's ``name:``, else its stem::

    fairness:
      slices: [region, tier]
      threshold: 0.1
      min_samples: 30
      gate_promotion: true    # the model file's spelling of ``gate``

Validation is strict: an unknown key (``slice:`` for ``slices:``), a wrong type, an
empty or duplicated slice list is an error naming the file, the model and the key,
because a registry that silently declares nothing makes every gate pass. PyYAML is
imported only here (extra ``registry``).
"""

from __future__ import annotations

import difflib
import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..detect import check_overrides
from ..errors import InputError
from ..options import (
    FAIRNESS_MIN_SAMPLES,
    FAIRNESS_RULES,
    FAIRNESS_THRESHOLD,
    GROUP_OPTIONS,
    resolve,
    spelling,
)
from .args import is_number
from .errors import MonitorInputError
from .store import ATTR_SLOTS, model_key

DEFAULT_REGISTRY = "fairness.yaml"
FIELDS = (
    "slices",
    "threshold",
    "min_samples",
    "gate",
    "task",
    "enabled",
    "rule",
    "groups",
    "ref_groups",
)
DEFAULTS: dict[str, Any] = {
    "threshold": FAIRNESS_THRESHOLD,
    "min_samples": FAIRNESS_MIN_SAMPLES,
    "gate": True,
    "task": None,
    "enabled": True,
    "rule": FAIRNESS_RULES[0],
    "groups": None,
    "ref_groups": None,
}


#: A model file's ``fairness:`` block spells ``gate`` as the seed does (SPEC 15.4).
MODEL_FILE_KEYS = {"gate_promotion": "gate"}
#: The two forms of a registry file, told apart by their top-level key.
FORMS = {"models": "registry", "fairness": "model file"}


class RegistryError(MonitorInputError):
    """A malformed registry (one line naming file, model and key; exit 2)."""


@dataclass(frozen=True)
class Registry:
    """The fairness settings of one model."""

    model: str
    slices: tuple[str, ...]
    threshold: float = FAIRNESS_THRESHOLD
    min_samples: int = FAIRNESS_MIN_SAMPLES
    gate: bool = True
    task: str | None = None
    enabled: bool = True
    rule: str = "interval"
    # SPEC 15.4: profile's group options ({map, na, recode, age_bands, max_age}), as
    # given; None: the defaults (an age slice is banded)
    groups: dict[str, Any] | None = None
    # SPEC 15.4: {slice: reference value | maj | min} (12.6); None: no reference
    ref_groups: dict[str, str] | None = None

    def fields(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("model")
        d["slices"] = list(self.slices)
        for key in ("groups", "ref_groups"):  # a registry without them keeps its shape
            if d[key] is None:
                d.pop(key)
        return d

    def grouping(self) -> Any:
        """The slices' group rules (SPEC 12.3), from `groups` or the defaults."""
        from .slices import Grouping  # lazy: start-up

        g = dict(self.groups or {})
        return Grouping(g.pop("map", None), g)

    def to_json(self) -> str:
        return json.dumps(self.fields(), sort_keys=True)


def resolve_path(path: str | None) -> Path:
    return Path(path or os.environ.get("FAIRCODE_REGISTRY") or DEFAULT_REGISTRY)


def _yaml() -> Any:
    try:
        import yaml  # lazy: optional extra 'registry'
    except ImportError:
        raise RegistryError(
            "reading fairness.yaml needs PyYAML; install it with: pip install 'faircode[registry]'"
        ) from None
    return yaml


def _loader(yaml: Any) -> Any:
    class StrictLoader(yaml.SafeLoader):
        """SafeLoader that rejects a key given twice in one mapping."""

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                raise RegistryError(
                    f"line {key_node.start_mark.line + 1}: key {key!r} is given twice "
                    f"(first on line {seen[key]})"
                )
            seen[key] = key_node.start_mark.line + 1
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return StrictLoader


def _did_you_mean(key: Any, allowed: tuple[str, ...], aliases: dict[str, str]) -> str:
    """`` (did you mean 'slices'?)`` for a key close to an allowed one, else ``""``."""
    if not isinstance(key, str):
        return ""
    if key in aliases:
        return f" (did you mean {aliases[key]!r}?)"
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_keys(
    where: str, raw: dict[str, Any], model: str, allowed: tuple[str, ...], hints: dict[str, str]
) -> None:
    """Refuse a key not in ``allowed`` (as the file spells them), suggesting the one meant:
    ``hints`` maps known mistakes to their fix, else the closest allowed key."""
    for key in raw:
        if key not in allowed:
            raise RegistryError(
                f"{where}: model {model!r}: unknown key {key!r}"
                f"{_did_you_mean(key, allowed, hints)}; allowed keys: {', '.join(allowed)}"
            )


#: Mistakes with their fix that difflib would not find (``slice`` it would).
HINTS = {"slice": "slices", "attrs": "slices", "attributes": "slices"}


def _as_number(value: Any, whole: bool) -> str:
    """For text that YAML did not read as the number it spells (``5e-2``: YAML 1.1's
    floats need a dot and a signed exponent; a quoted ``'0.1'``): how to write that number
    so it is one, when it would be valid (>= 0, whole for ``whole``); else ""."""
    if not isinstance(value, str):
        return ""
    try:
        x = float(value)
    except ValueError:
        return ""
    if not math.isfinite(x) or x < 0 or (whole and x != int(x)):
        return ""
    if whole:
        spelled = str(int(x))
    else:
        mantissa, e, exponent = repr(x).partition("e")  # repr signs the exponent: 1e-05
        spelled = (mantissa if "." in mantissa else mantissa + ".0") + e + exponent
    return f" (text, not a number: write it as {spelled})"


def check_fields(where: str, raw: dict[str, Any], model: str, partial: bool = False) -> dict:
    """Validate one model's settings; ``where`` prefixes every message."""
    out: dict[str, Any] = {}
    check_keys(where, raw, model, FIELDS, {**HINTS, "gate_promotion": "gate"})
    if "slices" not in raw and not partial:
        raise RegistryError(f"{where}: model {model!r}: key 'slices' is required")
    if "slices" in raw:
        s = raw["slices"]
        if not isinstance(s, list) or not all(isinstance(x, str) and x.strip() for x in s):
            raise RegistryError(
                f"{where}: model {model!r}: key 'slices' must be a list of column names, got {s!r}"
            )
        if not s:
            raise RegistryError(
                f"{where}: model {model!r}: key 'slices' is empty; a gate over no "
                "attributes would pass every model"
            )
        dupes = sorted({x for x in s if s.count(x) > 1})
        if dupes:
            raise RegistryError(
                f"{where}: model {model!r}: key 'slices' lists {', '.join(dupes)} twice"
            )
        if len(s) > ATTR_SLOTS:
            raise RegistryError(
                f"{where}: model {model!r}: key 'slices' has {len(s)} attributes; at most "
                f"{ATTR_SLOTS} are supported"
            )
        out["slices"] = tuple(s)
    if "threshold" in raw:
        t = raw["threshold"]
        if not is_number(t) or not math.isfinite(t) or t < 0:
            raise RegistryError(
                f"{where}: model {model!r}: key 'threshold' must be a number >= 0, got {t!r}"
                f"{_as_number(t, whole=False)}"
            )
        out["threshold"] = float(t)
    if "min_samples" in raw:
        m = raw["min_samples"]
        if not is_number(m) or not isinstance(m, int) or m < 0:
            raise RegistryError(
                f"{where}: model {model!r}: key 'min_samples' must be a whole number >= 0, "
                f"got {m!r}{_as_number(m, whole=True)}"
            )
        out["min_samples"] = m
    for key in ("gate", "enabled"):
        if key in raw:
            if not isinstance(raw[key], bool):
                raise RegistryError(
                    f"{where}: model {model!r}: key {key!r} must be true or false, got {raw[key]!r}"
                )
            out[key] = raw[key]
    if "task" in raw:
        if raw["task"] not in (None, "binary", "regression"):
            raise RegistryError(
                f"{where}: model {model!r}: key 'task' must be binary or regression, "
                f"got {raw['task']!r}"
            )
        out["task"] = raw["task"]
    if "rule" in raw:
        if raw["rule"] not in FAIRNESS_RULES:
            raise RegistryError(
                f"{where}: model {model!r}: key 'rule' must be {' or '.join(FAIRNESS_RULES)}, "
                f"got {raw['rule']!r}"
            )
        out["rule"] = raw["rule"]
    if raw.get("groups") is not None:
        out["groups"] = _check_groups(where, model, raw["groups"], out.get("slices"))
    if raw.get("ref_groups") is not None:
        out["ref_groups"] = _check_ref_groups(where, model, raw["ref_groups"], out.get("slices"))
    return out


def _check_ref_groups(
    where: str, model: str, refs: Any, slices: tuple[str, ...] | None
) -> dict[str, str]:
    """`ref_groups`: {slice: value} as `--ref-group` takes them (SPEC 12.6); whether the
    value is a slice is known only when a report slices the stored rows."""
    head = f"{where}: model {model!r}: key 'ref_groups'"
    if not isinstance(refs, dict) or not refs:
        raise RegistryError(
            f"{head} must map slice names to a reference value (or maj, min), got {refs!r}"
        )
    out: dict[str, str] = {}
    for attr, value in refs.items():
        if slices is not None and attr not in slices:
            raise RegistryError(f"{head}: {attr!r} is not one of the slices ({', '.join(slices)})")
        if isinstance(value, list | dict) or (isinstance(value, str) and not value.strip()):
            raise RegistryError(
                f"{head}: the reference of {attr!r} must be one value (or maj, min), got {value!r}"
            )
        # YAML reads `age: 30` as a number and `flag: true` as a boolean: the slice's
        # label is its text (SPEC 12.3), `null` the missing slice
        if value is None:
            out[str(attr)] = "(missing)"
        else:
            out[str(attr)] = value.strip() if isinstance(value, str) else str(value)
    return out


def _check_groups(where: str, model: str, groups: Any, slices: tuple[str, ...] | None) -> dict:
    """`groups`: profile's `map` and options that decide groups, validated by the
    profiler's own checks (`options.resolve`, `detect.check_overrides`)."""
    head = f"{where}: model {model!r}: key 'groups'"
    allowed = ("map", *GROUP_OPTIONS)
    if not isinstance(groups, dict):
        raise RegistryError(f"{head} must be a mapping of {', '.join(allowed)}, got {groups!r}")
    for key in groups:
        if key not in allowed:
            raise RegistryError(f"{head}: unknown key {key!r}; allowed keys: {', '.join(allowed)}")
    overrides = groups.get("map") or {}
    if not isinstance(overrides, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in overrides.items()
    ):
        raise RegistryError(f"{head}: 'map' must map slice names to kinds, got {overrides!r}")
    try:
        with spelling("registry"):  # named as the file's keys, on every surface
            opts = resolve({k: v for k, v in groups.items() if k != "map"})
            if slices is not None:
                check_overrides(overrides, list(slices), opts)
    except InputError as exc:
        raise RegistryError(f"{head}: {exc}") from None
    if "ignore" in overrides.values():
        raise RegistryError(f"{head}: 'map' cannot ignore a slice; remove it from 'slices'")
    return dict(groups)


class Declarations(dict[str, Registry]):
    """The models a registry file declares (keyed case-insensitively), and its ``form``:
    ``registry`` (a ``models:`` mapping, ``fairness.yaml``) or ``model file`` (a model's
    own YAML with a ``fairness:`` block)."""

    form: str = "registry"


def load_yaml(path: Path) -> Declarations:
    """Every model declared in ``path`` (keyed case-insensitively); strict validation.

    ``path`` is ``fairness.yaml`` (top-level ``models:``) or a model's own YAML file
    (top-level ``fairness:``, SPEC 15.4)."""
    yaml = _yaml()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RegistryError(f"{path}: no such file; create it or pass --registry FILE") from None
    except OSError as exc:
        raise RegistryError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RegistryError(
            f"{path}: byte {exc.start} (line {line}): not valid UTF-8; save the file as UTF-8"
        ) from None
    try:
        doc = yaml.load(text, Loader=_loader(yaml))  # noqa: S506 - a SafeLoader subclass
    except RegistryError as exc:
        raise RegistryError(f"{path}: {exc}") from None
    except RecursionError:  # PyYAML composes nested nodes recursively
        raise RegistryError(
            f"{path}: nested too deeply (lists or mappings hundreds of levels inside one "
            "another); a registry needs a few levels: check the file's brackets"
        ) from None
    except yaml.YAMLError as exc:
        first = (str(exc).strip().splitlines() or ["invalid YAML"])[0]
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark is not None else ""
        raise RegistryError(f"{path}: not valid YAML{at}: {first}") from None
    either = "a 'models:' mapping (or, in a model's own file, a 'fairness:' block)"
    if doc is None:
        raise RegistryError(f"{path}: the file is empty; it needs {either}")
    if not isinstance(doc, dict):
        raise RegistryError(f"{path}: the top level must be {either}")
    if "models" in doc and "fairness" in doc:
        raise RegistryError(
            f"{path}: has both 'models:' (a registry) and 'fairness:' (a model file's "
            "block); a file is one or the other"
        )
    if "fairness" in doc:
        return _model_file(path, doc)
    unknown = [k for k in doc if k != "models"]
    if unknown:
        close = next((k for k in unknown if _did_you_mean(k, tuple(FORMS), {})), unknown[0])
        raise RegistryError(
            f"{path}: unknown top-level key {close!r}{_did_you_mean(close, tuple(FORMS), {})}; "
            "a registry's only key is 'models' (a model's own file declares its registry "
            "in a 'fairness:' block)"
        )
    models = doc.get("models")
    if not isinstance(models, dict) or not models:
        raise RegistryError(f"{path}: key 'models' must map model names to their settings")
    out = Declarations()
    for name, raw in models.items():
        if not isinstance(name, str) or not name.strip():
            raise RegistryError(f"{path}: model name {name!r} must be a non-empty text")
        if not isinstance(raw, dict):
            raise RegistryError(
                f"{path}: model {name!r}: settings must be a mapping (slices:, threshold:, ...)"
            )
        key = model_key(name)
        if key in out:
            raise RegistryError(
                f"{path}: model {name!r} is declared twice (names match case-insensitively: "
                f"{out[key].model!r})"
            )
        fields = {**DEFAULTS, **check_fields(str(path), raw, name)}
        out[key] = Registry(model=name, **fields)
    return out


def _model_file(path: Path, doc: dict[Any, Any]) -> Declarations:
    """A model's own YAML file: its ``fairness:`` block, with the keys of ``fairness.yaml``
    (``gate`` spelled ``gate_promotion``, as the seed's model files spell it). The model
    is the file's ``name:`` when it has one, else the file's stem. The file's other
    top-level keys are the model's other settings, not the registry's."""
    name = doc.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise RegistryError(f"{path}: key 'name' must be the model's name (text), got {name!r}")
    block = doc["fairness"]
    if not isinstance(block, dict):
        raise RegistryError(
            f"{path}: model {name!r}: key 'fairness' must be a mapping (slices:, threshold:, "
            f"min_samples:, gate_promotion:), got {block!r}"
        )
    rename = {v: k for k, v in MODEL_FILE_KEYS.items()}
    allowed = tuple(rename.get(f, f) for f in FIELDS)
    check_keys(str(path), block, name, allowed, {**HINTS, **rename})
    raw = {MODEL_FILE_KEYS.get(k, k): v for k, v in block.items()}
    try:
        fields = {**DEFAULTS, **check_fields(str(path), raw, name)}
    except RegistryError as exc:  # name the key as the file spells it
        text = str(exc)
        for file_key, field in MODEL_FILE_KEYS.items():
            text = text.replace(f"key {field!r} ", f"key {file_key!r} ")
        raise RegistryError(text) from None
    out = Declarations({model_key(name): Registry(model=name, **fields)})
    out.form = FORMS["fairness"]
    return out


def from_json(model: str, text: str) -> Registry:
    raw = json.loads(text)
    fields = {**DEFAULTS, **check_fields("store override", raw, model)}
    return Registry(model=model, **fields)


def diff(a: Registry, b: Registry) -> list[tuple[str, Any, Any]]:
    """(field, a value, b value) for every field where ``a`` and ``b`` disagree."""
    fa, fb = a.fields(), b.fields()
    return [(k, fa.get(k), fb.get(k)) for k in FIELDS if fa.get(k) != fb.get(k)]
