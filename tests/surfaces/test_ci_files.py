"""The GitHub Action (action.yml) and the pre-commit hook (.pre-commit-hooks.yaml) run
commands the CLI has; the action's run step is run here as GitHub would (no network)."""

from __future__ import annotations

import argparse
import ast
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from util import ROOT

from faircode.cli import build_parser, cmd_profile


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def run_script() -> str:
    """The Python program of the action's `Run faircode` step."""
    (step,) = [s for s in action()["runs"]["steps"] if s.get("name") == "Run faircode"]
    m = re.search(r"<<'PY'\n(.*?)\nPY\n", step["run"], re.S)
    assert m, step["run"]
    return m.group(1)


def markdown_commands() -> list[list[str]]:
    tree = ast.parse(run_script())
    (node,) = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "MARKDOWN_COMMANDS"
    ]
    return ast.literal_eval(node.value)


def test_action_inputs_and_steps():
    a = action()
    assert set(a["inputs"]) == {"args", "python-version", "faircode-version", "extras", "summary"}
    assert a["inputs"]["args"]["required"] is True
    assert a["runs"]["using"] == "composite"
    steps = a["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    assert all(s.get("shell") == "bash" for s in steps[1:])
    install = steps[1]["run"]
    assert "python -m pip install" in install and "faircode${extras}${FAIRCODE_VERSION}" in install
    # inputs reach the scripts as environment variables, never pasted into the script
    for s in steps[1:]:
        assert "${{" not in s["run"]


def installs(tmp_path: Path, version: str | None) -> str:
    """What the action's install step asks pip for, its `faircode-version` input given as
    `version` (None: the input's default, as GitHub passes it), run with a `python` that
    only prints its arguments."""
    (step,) = [s for s in action()["runs"]["steps"] if s.get("name") == "Install faircode"]
    stub = tmp_path / "bin" / "python"
    stub.parent.mkdir(exist_ok=True)
    stub.write_text('#!/bin/sh\necho "$@"\n')
    stub.chmod(0o755)
    default = action()["inputs"]["faircode-version"]["default"]
    env = {
        "PATH": f"{stub.parent}{os.pathsep}{os.environ['PATH']}",
        "FAIRCODE_VERSION": default if version is None else version,
        "FAIRCODE_EXTRAS": "fast",
        "ACTION_PATH": "/actions/faircode",
    }
    p = subprocess.run(["bash", "-c", step["run"]], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()[-1]


def test_the_action_installs_its_own_faircode_unless_told_otherwise(tmp_path):
    """`uses: OWNER/faircode@v3` runs v3's faircode: by default (and with a blank input)
    the action installs its own checkout, never whatever faircode PyPI has newest."""
    assert installs(tmp_path, None) == "/actions/faircode[fast]"
    assert installs(tmp_path, "") == "/actions/faircode[fast]"
    assert installs(tmp_path, "action") == "/actions/faircode[fast]"
    assert installs(tmp_path, "==0.1.0") == "faircode[fast]==0.1.0"


def markdown_path_commands(parser: argparse.ArgumentParser, path: list[str]) -> list[list[str]]:
    """Every (sub)command of the CLI whose `--markdown` takes a PATH, in parser order."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += markdown_path_commands(sub, [*path, name])
        elif "--markdown" in action.option_strings and action.nargs == "?":
            found.append(path)
    return found


def test_action_markdown_commands_are_every_command_with_a_markdown_path(tmp_path):
    """The action summarises every command that writes its Markdown report to a PATH
    (scan and the audit packs were left out), and no other (`fairness report
    --markdown` is a flag that prints)."""
    commands = markdown_commands()
    assert sorted(commands) == sorted(markdown_path_commands(build_parser(), []))
    assert ["fairness", "report"] not in commands and ["audit", "ll144"] in commands
    summary = str(tmp_path / "summary.md")
    args = build_parser().parse_args(["profile", "d.csv", "--markdown", summary])
    assert args.func is cmd_profile and args.markdown == summary
    sample = ROOT / "faircode" / "data" / "compas-scores-two-years.csv"
    code, summary = run_action(tmp_path, f"audit datasheet {sample} --audit-date 2025-06-30")
    assert code == 0 and summary.startswith("# Datasheet")


def run_action(
    tmp_path: Path, args: str, summary: bool | str = True, refused: str = ""
) -> tuple[int, str]:
    """The step's exit code and summary; `refused`: the one line it must end with
    instead of running faircode."""
    target = tmp_path / "step_summary.md"
    target.write_text("")
    env = {
        **os.environ,
        "FAIRCODE_ARGS": args,
        "FAIRCODE_SUMMARY": summary if isinstance(summary, str) else str(summary).lower(),
        "GITHUB_STEP_SUMMARY": str(target),
        "PYTHONPATH": str(ROOT),
    }
    p = subprocess.run(
        [sys.executable, "-c", run_script()],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if refused:
        assert (p.returncode, p.stdout, p.stderr) == (1, "", refused + "\n")
    else:
        assert p.stdout.startswith("+ faircode "), p.stdout + p.stderr
    return p.returncode, target.read_text(encoding="utf-8")


def test_action_run_step_writes_the_summary_and_keeps_the_exit_code(tmp_path):
    code, summary = run_action(tmp_path, "profile --sample --fail-under 99")
    # COMPAS under score v3: 82 [80, 83] B (SPEC 5)
    assert code == 1 and summary.startswith("### faircode profile: score 82/100 [80-83], grade B\n")
    code, summary = run_action(tmp_path, "profile --sample --fail-under 50")
    assert code == 0 and "| Dimension | Group |" in summary
    code, summary = run_action(tmp_path, "profile --sample", summary=False)
    assert code == 0 and summary == ""
    code, summary = run_action(tmp_path, "--version")  # no --markdown where not supported
    assert code == 0 and summary == ""
    code, _ = run_action(tmp_path, "profile --sample --bogus")
    assert code == 2
    code, summary = run_action(tmp_path, "profile --sample", summary=" False ")
    assert code == 0 and summary == ""
    # after "--" every word is a path: the summary's flag goes before it, not read as a file
    (tmp_path / "-d.csv").write_text("sex\n" + "M\nF\n" * 200)
    code, summary = run_action(tmp_path, "profile -- -d.csv")
    assert code == 0 and summary.startswith("### faircode profile: ")


def test_action_bad_inputs_are_one_line(tmp_path):
    """Unbalanced quotes in `args`, and a `summary` that is not true or false (`yes`
    switched the summary off), end the step with one line, not a traceback."""
    line = "faircode action: args: No closing quotation; check the quotes in args"
    run_action(tmp_path, 'profile "my data.csv', refused=line)
    line = "faircode action: summary: 'yes' is not true or false"
    run_action(tmp_path, "profile --sample", summary="yes", refused=line)


def test_pre_commit_hook_runs_faircode_profile(tmp_path, capsys):
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "faircode-profile" and hook["language"] == "python"
    assert hook["pass_filenames"] is True and hook["entry"] == "faircode profile"
    files = re.compile(hook["files"])
    assert [bool(files.search(n)) for n in ("a.csv", "b.tsv", "c.parquet", "d.json")] == [
        True,
        True,
        True,
        False,
    ]
    entry = shlex.split(hook["entry"])
    assert entry[0] == "faircode"  # the console script of pyproject.toml
    assert re.search(
        r'^faircode = "faircode\.cli:console_main"', (ROOT / "pyproject.toml").read_text(), re.M
    )
    # pre-commit passes every staged file at once: each is profiled on its own
    from faircode.cli import main

    a = tmp_path / "a.csv"
    a.write_text("sex\n" + "M\nF\n" * 200)
    b = tmp_path / "b.tsv"
    b.write_text("race\tsex\n" + "x\tM\n" * 390 + "y\tF\n" * 10)
    code = main([*entry[1:], "--fail-under", "70", str(a), str(b)])
    out = capsys.readouterr().out
    assert code == 1 and out.count("faircode profile: ") == 2
    assert main([*entry[1:], str(a), str(a)]) == 0
    with pytest.raises(SystemExit):
        build_parser().parse_args([*entry[1:], "--bogus"])


def test_several_paths_go_on_after_a_file_that_cannot_be_profiled(tmp_path, capsys):
    """SPEC 6.1: `profile A B ...` profiles each file on its own: a file that cannot be
    profiled gets its one error line, naming it, and the others their reports; the exit
    code is the worst, 2 over 1 (--fail-under) over 4 (--fail-on)."""
    from faircode.cli import main

    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    good = tmp_path / "good.csv"
    good.write_text("sex\n" + "M\nF\n" * 200)
    skewed = tmp_path / "skewed.csv"
    skewed.write_text("sex\n" + "M\n" * 390 + "F\n" * 10)
    code = main(["profile", str(empty), str(good), str(skewed)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out.count("faircode profile: ") == 2
    assert err.splitlines() == [f"faircode: error: {empty}: file is empty"]
    # an error that does not name its file is given the file's name
    assert main(["profile", "--label", "nope", str(good), str(good)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"faircode: error: {good}: --label: no column named 'nope' (columns: sex)"] * 2
    # a flag's error is one line, before any file is read
    assert main(["profile", "--fail-under", "abc", str(good), str(empty)]) == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1 and "--fail-under: 'abc'" in err
    # --fail-under's 1 is worse than --fail-on's 4, as within one file's run
    imbalanced = tmp_path / "imbalanced.csv"  # score 26, a confirmed imbalance
    imbalanced.write_text("sex\n" + "M\n" * 2000 + "F\n" * 100)
    gates = ["--fail-on", "imbalance", "--fail-under", "20"]
    assert main(["profile", *gates, str(imbalanced)]) == 4
    assert main(["profile", *gates, str(skewed)]) == 1  # score 8, nothing confirmed
    assert main(["profile", *gates, str(imbalanced), str(skewed)]) == 1
    assert main(["profile", *gates, str(skewed), str(imbalanced), str(empty)]) == 2


def test_the_action_summarises_several_files(tmp_path):
    """SPEC 6.1: the action adds `--markdown $GITHUB_STEP_SUMMARY` to every `profile`;
    with several files the summary holds each file's report (it was exit 2, `give one
    PATH`), and a file that cannot be profiled its error line in its place."""
    (tmp_path / "a.csv").write_text("sex\n" + "M\nF\n" * 200)
    (tmp_path / "b.csv").write_text("sex\n" + "M\n" * 390 + "F\n" * 10)
    code, summary = run_action(tmp_path, "profile a.csv b.csv --fail-under 70")
    assert code == 1  # b scores below 70: the gate, not a usage error
    assert summary.count("### faircode profile: ") == 2
    assert summary.index("- file: a.csv") < summary.index("- file: b.csv")
    (tmp_path / "empty.csv").write_bytes(b"")
    code, summary = run_action(tmp_path, "profile a.csv empty.csv b.csv")
    assert code == 2 and summary.count("### faircode profile: ") == 2
    assert "faircode: error: empty.csv: file is empty\n" in summary
    assert summary.index("- file: a.csv") < summary.index("empty.csv") < summary.index("b.csv")


def test_several_files_markdown_path_is_refused_when_it_is_an_input(tmp_path, capsys):
    from faircode.cli import main

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for p in (a, b):
        p.write_text("sex\n" + "M\nF\n" * 200)
    before = b.read_bytes()
    assert main(["profile", str(a), str(b), "--markdown", str(b)]) == 2
    out, err = capsys.readouterr()
    assert not out and err.startswith(f"faircode: error: --markdown {b}: is an input file")
    assert b.read_bytes() == before
    assert main(["profile", str(a), str(b), "--csv", str(tmp_path / "t.csv")]) == 2
    assert "for --json, --csv or --html give one PATH" in capsys.readouterr().err


def test_the_ci_page_names_every_exit_code_of_the_fairness_gate():
    """docs/ci.md's workflow: the comment above the `--gate` step names every exit code
    that gate fails the build with (5, insufficient evidence, was missing)."""
    from faircode.errors import EXIT_FAIL, EXIT_INSUFFICIENT, EXIT_UNMEASURED

    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    # each step: its comment lines, then `- uses:` and its `with:` block
    steps = re.findall(r"((?:^      #.*\n)+)      - uses: .*\n((?:^        .*\n)+)", page, re.M)
    (comment,) = [c for c, body in steps if "--gate" in body]
    codes = {int(c) for c in re.findall(r"(?<![\d.])(\d)(?![\d.])", comment)}  # not 0.1
    assert codes == {EXIT_FAIL, EXIT_INSUFFICIENT, EXIT_UNMEASURED}, comment


def test_the_ci_pages_fairness_step_installs_what_the_monitor_needs():
    """docs/ci.md's `fairness evaluate` step installs the extra the command names when it
    is missing (`frames`: pandas; it said `fairness`, Fairlearn, which only --engine
    fairlearn needs and which brought pandas along by chance)."""
    from faircode.errors import EXTRA_OF

    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    workflow = yaml.safe_load(re.search(r"```yaml\n(# \.github/workflows/.*?)```", page, re.S)[1])
    (step,) = [s for s in workflow["jobs"]["faircode"]["steps"] if "--gate" in str(s.get("with"))]
    extras = step["with"]["extras"].split(",")
    assert EXTRA_OF["pandas"] in extras and "--engine fairlearn" not in step["with"]["args"]
