"""The public API's calling convention (SPEC 0.6 "Python API arguments"): the data
argument(s) by position, everything else by keyword; the parameters once positional are
still taken so, with one FutureWarning naming the keywords to write."""

from __future__ import annotations

import inspect
import warnings

import pandas as pd
import pytest

import faircode
import faircode.monitor

CSV = "sex,race,age,hired,pred\n" + "".join(
    f"{'FM'[i % 2]},{'ABC'[i % 3]},{18 + i % 50},{int(i % 4 == 0)},{int(i % 5 == 0)}\n"
    for i in range(300)
)

#: The parameters a public function takes by position: its data, as SPEC 0.6 lists them.
DATA = {
    "compare": ("a", "b"),
    "scan": ("source", "other"),
    "evaluate": ("data",),
    "fairness_disparity": ("model", "attr"),
    "slice_metrics": ("model", "attr"),
    "slo_set": ("model", "name"),
}


def _public():
    for module in (faircode, faircode.monitor):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj


@pytest.mark.parametrize("name,fn", list(_public()), ids=[n for n, _ in _public()])
def test_only_the_data_is_positional(name, fn):
    short = name.rsplit(".", 1)[1]
    positional = [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    assert tuple(positional) == DATA.get(short, ("model",) if "monitor" in name else ("source",))


@pytest.fixture(scope="module")
def path(tmp_path_factory) -> str:
    p = tmp_path_factory.mktemp("kw") / "k.csv"
    p.write_text(CSV)
    return str(p)


OVERRIDES = {"age": "ignore"}
OPTS = {"min_share": 0.2}


def _old(call):
    """The result of an old positional call and the one warning it gave."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        result = call()
    assert [w.category for w in got] == [FutureWarning], [str(w.message) for w in got]
    return result, str(got[0].message)


def test_profile_positional_warns_and_means_the_same(path):
    result, message = _old(lambda: faircode.profile(path, OVERRIDES, OPTS))
    assert result == faircode.profile(path, overrides=OVERRIDES, opts=OPTS)
    assert message == (
        "Positional arguments to faircode.profile() after source are deprecated and will "
        "stop working in a future release; write profile(source, overrides=..., opts=...)"
    )
    _, message = _old(lambda: faircode.summarize(path, OVERRIDES))
    assert message.endswith("write summarize(source, overrides=...)")


def test_compare_and_provenance_positional_warn(path):
    result, message = _old(lambda: faircode.compare(path, path, OPTS))
    assert result == faircode.compare(path, path, opts=OPTS)
    assert "faircode.compare() after a, b" in message
    assert message.endswith("write compare(a, b, opts=...)")
    result, message = _old(lambda: faircode.provenance_for(path, OVERRIDES, OPTS))
    assert result == faircode.provenance_for(path, overrides=OVERRIDES, opts=OPTS)


def test_evaluate_positional_keeps_the_old_order(path):
    frame = pd.read_csv(path)
    old, message = _old(
        lambda: faircode.monitor.evaluate(frame, "pred", ["race"], "hired", None, None, None, 0.2)
    )
    new = faircode.monitor.evaluate(
        frame, pred="pred", attrs=["race"], label="hired", threshold=0.2
    )
    assert old == new
    assert message.endswith(
        "write evaluate(data, pred=..., attrs=..., label=..., score=..., "
        "decision_threshold=..., task=..., threshold=...)"
    )


def test_the_warning_is_an_error_in_the_projects_own_tests(path):
    """pyproject's filterwarnings: a positional call anywhere in the suite fails it."""
    with pytest.raises(FutureWarning, match="Positional arguments to faircode.profile"):
        faircode.profile(path, None)


def test_too_many_or_twice_given_is_pythons_type_error(path):
    with pytest.raises(TypeError, match=r"compare\(\) takes at most 3 positional"):
        faircode.compare(path, path, OPTS, OVERRIDES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(TypeError, match="multiple values for argument 'opts'"):
            faircode.profile(path, None, OPTS, opts=OPTS)
