"""Option names in messages (SPEC 0.6): the Python API names the keyword its caller
wrote (``min_group_size``), the command line the flag (``--min-group-size``); the rest of
the message is the same text."""

from __future__ import annotations

import threading

import pytest

import faircode
import faircode.monitor
from faircode.cli import main
from faircode.options import OPTIONS, spelling

CSV = "sex,race,age,hired\n" + "".join(
    f"{'FM'[i % 2]},{'ABC'[i % 3]},{18 + i % 50},{i % 2}\n" for i in range(60)
)

#: Every number option the profile command takes by a flag: "abc" is no number for any.
NUMBERS = [
    o for o in OPTIONS if o.flag and "profile" in o.commands and o.kind in ("number", "integer")
]


@pytest.fixture(scope="module")
def path(tmp_path_factory) -> str:
    p = tmp_path_factory.mktemp("spell") / "s.csv"
    p.write_text(CSV)
    return str(p)


def _api(call) -> str:
    with pytest.raises(faircode.InputError) as err:
        call()
    return str(err.value)


def _cli(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    return capsys.readouterr().err.strip().removeprefix("faircode: error: ")


@pytest.mark.parametrize("o", NUMBERS, ids=[o.name for o in NUMBERS])
def test_a_number_option_names_the_keyword_on_the_api_and_the_flag_on_the_cli(path, o, capsys):
    api = _api(lambda: faircode.profile(path, opts={o.name: "abc"}))
    cli = _cli(["profile", path, f"{o.flag}=abc"], capsys)
    assert api.startswith(f"{o.name}: "), api
    assert cli.startswith(f"{o.flag}: "), cli
    assert api.removeprefix(o.name) == cli.removeprefix(o.flag)


@pytest.mark.parametrize(
    "opts,overrides,argv,keyword,flag",
    [
        ({"proxy_with": 5}, None, None, "proxy_with", None),
        ({"cross": "sex"}, None, ["--cross", "sex"], "cross", "--cross"),
        ({"label": "nope"}, None, ["--label", "nope"], "label", "--label"),
        ({"delimiter": "x"}, None, None, "delimiter", None),
        (None, {"nope": "race"}, ["--map", "nope=race"], "overrides", "--map"),
        (None, {"age": "height"}, ["--map", "age=height"], "overrides", "--map"),
    ],
)
def test_options_and_overrides_are_named_as_the_surface_spells_them(
    path, opts, overrides, argv, keyword, flag, capsys
):
    api = _api(lambda: faircode.profile(path, overrides=overrides, opts=opts))
    assert api.startswith(f"{keyword}: "), api
    if argv is not None:
        cli = _cli(["profile", path, *argv], capsys)
        assert cli.startswith(f"{flag}: "), cli
        assert api.removeprefix(keyword) == cli.removeprefix(flag)


def test_api_arguments_of_scan_the_audits_and_the_monitor_name_their_keyword(path, capsys):
    assert _api(lambda: faircode.scan(path, label="hired", max_seconds="x")).startswith(
        "max_seconds: x is not a number"
    )
    assert _api(lambda: faircode.audit_ll144(path, selected="hired", audit_date="1")) == (
        "audit_date: expected a date YYYY-MM-DD, got '1'"
    )
    with pytest.raises(faircode.monitor.MonitorInputError) as err:
        faircode.monitor.evaluate(path, pred="hired", attrs=["sex"], threshold=-1)
    assert str(err.value) == "threshold must be a finite number >= 0, got -1"
    cli = _cli(
        ["fairness", "evaluate", path, "--pred", "hired", "--attr", "sex", "--threshold", "-1"],
        capsys,
    )
    assert cli == "--threshold must be a finite number >= 0, got -1.0"


def test_a_cli_run_leaves_the_api_spelling_alone(path, capsys):
    _cli(["profile", path, "--min-share", "2"], capsys)
    assert _api(lambda: faircode.profile(path, opts={"min_share": 2})).startswith("min_share:")
    # another thread's spelling is its own (a server's request threads)
    seen = []
    with spelling("flag"):
        worker = threading.Thread(
            target=lambda: seen.append(_api(lambda: faircode.profile(path, opts={"min_share": 2})))
        )
        worker.start()
        worker.join()
        assert _api(lambda: faircode.profile(path, opts={"min_share": 2})).startswith(
            "--min-share:"
        )
    assert seen[0].startswith("min_share:")
