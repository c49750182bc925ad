"""Running both profiler engines on one case and comparing their answers (SPEC 14):
the helpers of the parity suite's test modules (tests/parity/)."""

from __future__ import annotations

import difflib
import json

from util import ADULT_NAMES as _ADULT_TEXT

import faircode
from faircode.options import spelling

#: adult.data's column names as the JS bridge's `names` option takes them (a list)
ADULT_NAMES = _ADULT_TEXT.split(",")


def run_python(source, overrides, opts, **kwargs) -> dict:
    """The Python engine's answer, its messages naming the CLI's flags as the JS
    engine's twin does (SPEC 0.6; the API's keyword spelling is tested on its own)."""
    try:
        with spelling("flag"):
            result = faircode.profile(source, overrides=overrides, opts=opts, **kwargs)
    except faircode.InputError as exc:
        return {"error": str(exc)}
    # The comparison is on JSON values, as the engines' outputs are consumed.
    return {"result": json.loads(json.dumps(result))}


def run_js(answer: dict) -> dict:
    if answer.get("internal"):
        raise AssertionError("JS engine crashed:\n" + answer["error"])
    if "error" in answer:
        return {"error": answer["error"]}
    return {"result": answer["result"]}


def side_by_side(py: dict, js: dict, width: int = 70) -> str:
    """The two outputs as pretty JSON in two columns, differing lines marked."""
    a = json.dumps(py, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
    b = json.dumps(js, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
    out = [f"{'python':<{width}} | js", "-" * (2 * width + 3)]
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            block = a[i1:i2]
            if len(block) > 6:  # keep context short
                block = block[:2] + ["..."] + block[-2:]
            out += [f"  {x[:width]:<{width}} | {x[:width]}" for x in block]
            continue
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            x = left[k] if k < len(left) else ""
            y = right[k] if k < len(right) else ""
            out.append(f"! {x[:width]:<{width}} | {y[:width]}")
    return "\n".join(out)


def assert_same(py: dict, js: dict, context: str) -> None:
    if py != js:
        raise AssertionError(f"engines disagree\n{context}\n{side_by_side(py, js)}")
