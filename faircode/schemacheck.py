"""The first place a JSON value breaks one of faircode/schemas' JSON schemas, in words.

The schemas are the one home of what a result holds (SPEC 6); a saved result read back
(SPEC 8.1) is checked against them here, with the standard library only (the base
install has no `jsonschema`). Only the part of draft 2020-12 the schemas use is known:
`type`, `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
`pattern`, `minItems`, `maxItems`, `required`, `properties`, `patternProperties`,
`additionalProperties`, `items`, `oneOf`, `allOf`, `if`/`then`/`else` and a `$ref` to
`#/$defs/NAME`; a schema with any other keyword is refused when it is compiled, so a
keyword cannot be ignored silently.

Two rules are stricter than JSON Schema's: an `integer` is a JSON number written
without a fraction or exponent (faircode writes its counts so; `1e3` and `1.0` are not
counts), and a `number` is finite (JSON has no NaN or Infinity; Python's reader takes
them).

`problem(value, schema)` is None for a valid value, else `(path, text)`: the JSON path
of the first bad value (`dimensions[0].groups[3].count`, `""` for the top level) and
what is wrong with it (`is "many", not a whole number >= 1`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

#: Keywords that only describe (they constrain nothing).
NOTES = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default"})
#: Every keyword `compile_schema` knows.
KNOWN = NOTES | {
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "pattern",
    "minItems",
    "maxItems",
    "required",
    "properties",
    "patternProperties",
    "additionalProperties",
    "items",
    "oneOf",
    "allOf",
    "if",
    "then",
    "else",
}

#: A failure: the path from the failing value up to the checked one, innermost first
#: (each level appends its key on the way out), and the text.
Failure = tuple[list, str]
Check = Callable[[Any], "Failure | None"]

_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "null": "null",
    "array": "an array",
    "object": "an object",
}


def _kind(v: Any) -> str:
    """JSON's kind of a value (true is not 1)."""
    t = type(v)
    return "number" if t is int or t is float else t.__name__


def _same(a: Any, b: Any) -> bool:
    """JSON equality (`enum`, `const`): true is not 1, 1 is 1.0."""
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def value_text(v: Any) -> str:
    """A value as a message quotes it: JSON for a scalar (a long one cut), the kind of
    a container."""
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "an array"
    if type(v) is int and not -(10**30) < v < 10**30:
        return "a whole number of more than 30 digits"
    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _g(v: float) -> str:
    return str(int(v)) if isinstance(v, int) or float(v).is_integer() else repr(v)


def describe(schema: dict) -> str:
    """What a schema allows, in words (`a whole number from 0 to 100 or null`)."""
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        texts = [json.dumps(v) for v in schema["enum"]]
        return texts[0] if len(texts) == 1 else "one of " + ", ".join(texts)
    if "oneOf" in schema:
        return " or ".join(describe(s) for s in schema["oneOf"])
    types = schema.get("type")
    if types is None:
        return "something else"
    out = []
    for kind in [types] if isinstance(types, str) else types:
        text = _WORDS[kind]
        if kind in ("integer", "number"):
            text += _range(schema)
        elif kind == "string" and "pattern" in schema:
            text += f" matching {schema['pattern']}"
        elif kind == "array":
            text += _length(schema)
        out.append(text)
    return " or ".join(out)


def _range(schema: dict) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f" from {_g(low)} to {_g(high)}"
    parts = []
    if low is not None:
        parts.append(f">= {_g(low)}")
    if "exclusiveMinimum" in schema:
        parts.append(f"> {_g(schema['exclusiveMinimum'])}")
    if high is not None:
        parts.append(f"<= {_g(high)}")
    if "exclusiveMaximum" in schema:
        parts.append(f"< {_g(schema['exclusiveMaximum'])}")
    return " " + " and ".join(parts) if parts else ""


def _length(schema: dict) -> str:
    low, high = schema.get("minItems"), schema.get("maxItems")
    if low is not None and low == high:
        return f" of {low} items"
    parts = []
    if low is not None:
        parts.append(f"at least {low}")
    if high is not None:
        parts.append(f"at most {high}")
    return f" of {' and '.join(parts)} items" if parts else ""


_TYPES = {
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list,),
    "object": (dict,),
}


def _shallow(schema: dict) -> Callable[[Any], bool]:
    """The checks of a schema on the value itself (not its members): type, enum,
    const, number range, pattern, array length. One function, with no call per test:
    a 30,000-group profile holds some 250,000 values."""
    types = schema.get("type")
    allowed = None
    if types is not None:
        kinds = [types] if isinstance(types, str) else list(types)
        allowed = frozenset(t for k in kinds for t in _TYPES[k])
    # a float is a number only when finite, and never when only integers are allowed
    finite = allowed is not None and float in allowed
    choices = None
    if "const" in schema:
        choices = [schema["const"]]
    if "enum" in schema:
        choices = [
            e for e in schema["enum"] if choices is None or any(_same(e, c) for c in choices)
        ]
    low, high = schema.get("minimum"), schema.get("maximum")
    above, below = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    ranged = any(b is not None for b in (low, high, above, below))
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
    least, most = schema.get("minItems"), schema.get("maxItems")
    sized = least is not None or most is not None

    def shallow(v: Any) -> bool:
        t = type(v)
        if allowed is not None and t not in allowed:
            return False
        if t is float and not math.isfinite(v):
            if finite or ranged:
                return False
        elif ranged and (t is int or t is float):
            if low is not None and v < low or high is not None and v > high:
                return False
            if above is not None and v <= above or below is not None and v >= below:
                return False
        if choices is not None and not any(_same(v, c) for c in choices):
            return False
        if pattern is not None and t is str and pattern.search(v) is None:
            return False
        if sized and t is list:
            if least is not None and len(v) < least or most is not None and len(v) > most:
                return False
        return True

    return shallow


def inlined(schema: Any, root: Any = None, seen: tuple = ()) -> Any:
    """``schema`` with each local `$ref` (`#/$defs/NAME`) replaced by what it names
    (with the keywords beside it, as allOf) and `$defs` dropped: the audit schemas
    name their shared parts so. A recursive `$ref` is a ValueError."""
    root = schema if root is None else root
    if isinstance(schema, list):
        return [inlined(s, root, seen) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("$defs", "$ref"):
            continue
        if key in ("enum", "const", "required"):
            out[key] = value
        elif key in ("properties", "patternProperties"):
            out[key] = {k: inlined(v, root, seen) for k, v in value.items()}
        else:
            out[key] = inlined(value, root, seen)
    ref = schema.get("$ref")
    if ref is None:
        return out
    if not ref.startswith("#/$defs/") or ref in seen:
        raise ValueError(f"JSON schema $ref not supported: {ref}")
    target = inlined(root["$defs"][ref.removeprefix("#/$defs/")], root, (*seen, ref))
    rest = {k: v for k, v in out.items() if k not in NOTES}
    return {"allOf": [target, rest]} if rest else target


def compile_schema(schema: dict | bool) -> Check:
    """A function of a value: None when it is valid under ``schema`` (its `$ref`s
    inlined first), else its first Failure. Raises ValueError for a keyword this module
    does not know."""
    return _compile(inlined(schema))


def _compile(schema: dict | bool) -> Check:
    if schema is True:
        return lambda v: None
    if schema is False:
        return lambda v: ([], "is not expected here")
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f"JSON schema keywords not supported: {sorted(unknown)}")
    shallow = _shallow(schema)
    wanted = describe(schema)
    members: list[Check] = []
    if "required" in schema or "properties" in schema or "additionalProperties" in schema:
        members.append(_object(schema))
    if "items" in schema:
        members.append(_items(_compile(schema["items"])))
    if "oneOf" in schema:
        members.append(_one_of([s for s in schema["oneOf"]]))
    for sub in schema.get("allOf", ()):
        members.append(_compile(sub))
    if "if" in schema:
        members.append(_if(schema))

    def check(v: Any) -> Failure | None:
        if not shallow(v):
            return [], f"is {value_text(v)}, not {wanted}"
        for member in members:
            failure = member(v)
            if failure is not None:
                return failure
        return None

    check.shallow = shallow  # type: ignore[attr-defined]
    return check


def _object(schema: dict) -> Check:
    required = list(schema.get("required", ()))
    props = {k: _compile(s) for k, s in schema.get("properties", {}).items()}
    patterns = [
        (re.compile(p), _compile(s)) for p, s in schema.get("patternProperties", {}).items()
    ]
    extra = schema.get("additionalProperties", True)
    other = None if extra is True else _compile(extra)

    def check(v: Any) -> Failure | None:
        if type(v) is not dict:
            return None
        for key in required:
            if key not in v:
                return [key], "is missing"
        for key, x in v.items():
            sub = props.get(key)
            matched = False
            if sub is not None:
                failure = sub(x)
                if failure is not None:
                    failure[0].append(key)
                    return failure
                matched = True
            for pattern, psub in patterns:
                if pattern.search(key):
                    matched = True
                    failure = psub(x)
                    if failure is not None:
                        failure[0].append(key)
                        return failure
            if not matched and other is not None:
                if extra is False:
                    return [key], "is not a key a faircode result has here"
                failure = other(x)
                if failure is not None:
                    failure[0].append(key)
                    return failure
        return None

    return check


def _items(sub: Check) -> Check:
    def check(v: Any) -> Failure | None:
        if type(v) is not list:
            return None
        for i, x in enumerate(v):
            failure = sub(x)
            if failure is not None:
                failure[0].append(i)
                return failure
        return None

    return check


def _one_of(schemas: list[dict]) -> Check:
    subs = [_compile(s) for s in schemas]
    wanted = " or ".join(describe(s) for s in schemas)

    def check(v: Any) -> Failure | None:
        failures = [sub(v) for sub in subs]
        passed = failures.count(None)
        if passed == 1:
            return None
        if passed > 1:
            return [], "fits more than one form a faircode result has here"
        # the failure of a form whose type the value has, the deepest first: it says
        # what is wrong inside the value, not that the value is something else
        near = [
            f
            for sub, f in zip(subs, failures, strict=True)
            if sub.shallow(v)  # type: ignore[attr-defined]
        ]
        if near:
            return max(near, key=lambda f: len(f[0]))
        return [], f"is {value_text(v)}, not {wanted}"

    return check


def _if(schema: dict) -> Check:
    test = _compile(schema["if"])
    then = _compile(schema.get("then", True))
    otherwise = _compile(schema.get("else", True))
    return lambda v: then(v) if test(v) is None else otherwise(v)


def path_text(path: list) -> str:
    """`dimensions[0].groups[3].count` of a Failure's path (innermost first); a key
    that is not a plain name is quoted (`overrides["my col"]`)."""
    out = ""
    for step in reversed(path):
        if isinstance(step, int):
            out += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", step):
            out += f".{step}" if out else step
        else:
            out += f"[{value_text(step)}]"
    return out


def problem(value: Any, check: Check) -> tuple[str, str] | None:
    """(JSON path, what is wrong) of the first bad value, or None when valid."""
    failure = check(value)
    if failure is None:
        return None
    return path_text(failure[0]), failure[1]
