"""fairness.yaml: strict validation, ``faircode fairness validate``, case-insensitive names."""

from __future__ import annotations

from pathlib import Path

import pytest

from faircode.monitor.cli import run
from faircode.monitor.registry import RegistryError, load_yaml
from faircode.monitor.store import open_store

GOOD = """\
models:
  JPCP:
    slices: [region, tier]
    threshold: 0.1
    min_samples: 30
    gate: true
    task: binary
    enabled: true
  other:
    slices: [race]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "fairness.yaml"
    path.write_text(text)
    return path


def test_a_good_registry_with_defaults(tmp_path: Path) -> None:
    models = load_yaml(write(tmp_path, GOOD))
    assert set(models) == {"jpcp", "other"}
    assert models["jpcp"].slices == ("region", "tier") and models["jpcp"].task == "binary"
    other = models["other"]
    assert (other.threshold, other.min_samples, other.gate, other.enabled, other.task) == (
        0.1,
        30,
        True,
        True,
        None,
    )


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        (
            "models:\n  JPCP:\n    slice: [region]\n",
            ["model 'JPCP'", "unknown key 'slice'", "did you mean 'slices'"],
        ),
        ("models:\n  JPCP:\n    slices: []\n", ["model 'JPCP'", "'slices' is empty"]),
        ("models:\n  JPCP:\n    slices: [a, b, a]\n", ["'slices' lists a twice"]),
        ("models:\n  JPCP:\n    slices: region\n", ["'slices' must be a list"]),
        (
            "models:\n  JPCP:\n    slices: [a]\n    threshold: high\n",
            ["key 'threshold' must be a number"],
        ),
        ("models:\n  JPCP:\n    slices: [a]\n    threshold: -1\n", ["'threshold'"]),
        ("models:\n  JPCP:\n    slices: [a]\n    min_samples: 2.5\n", ["'min_samples'"]),
        ("models:\n  JPCP:\n    slices: [a]\n    min_samples: true\n", ["'min_samples'"]),
        (
            "models:\n  JPCP:\n    slices: [a]\n    gate: 'yes please'\n",
            ["key 'gate' must be true or false"],
        ),
        ("models:\n  JPCP:\n    slices: [a]\n    enabled: 0\n", ["key 'enabled'"]),
        ("models:\n  JPCP:\n    slices: [a]\n    task: multiclass\n", ["key 'task'"]),
        ("models:\n  JPCP:\n    threshold: 0.1\n", ["key 'slices' is required"]),
        (
            "models:\n  JPCP:\n    slices: [a]\n  jpcp:\n    slices: [b]\n",
            ["declared twice", "case-insensitively"],
        ),
        (
            "models:\n  JPCP:\n    slices: [a]\n    slices: [b]\n",
            ["line 4", "'slices' is given twice (first on line 3)"],
        ),
        ("model:\n  JPCP:\n    slices: [a]\n", ["unknown top-level key 'model'"]),
        ("", ["the file is empty"]),
        ("models: [\n", ["not valid YAML"]),
    ],
)
def test_malformed_registries_are_errors_naming_file_model_and_key(
    tmp_path: Path, text: str, needles: list[str]
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(RegistryError) as info:
        load_yaml(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message
    for needle in needles:
        assert needle in message


@pytest.mark.parametrize(
    ("key", "written", "fix"),
    [
        ("threshold", "5e-2", "0.05"),  # YAML 1.1's floats need a dot (and a signed exponent)
        ("threshold", "1e-5", "1.0e-05"),
        ("threshold", "'0.1'", "0.1"),
        ("min_samples", "3e1", "30"),
        ("threshold", "-5e-2", None),  # the number would be refused too: no spelling given
        ("min_samples", "2.5e0", None),
    ],
)
def test_a_number_yaml_reads_as_text_is_refused_saying_how_to_write_it(
    tmp_path: Path, key: str, written: str, fix: str | None
) -> None:
    """SPEC 15.4: `threshold: 5e-2` is the text '5e-2' to PyYAML; the error says how to
    write the number (it said only `must be a number >= 0, got '5e-2'`), and that reads."""
    text = f"models:\n  JPCP:\n    slices: [a]\n    {key}: {written}\n"
    with pytest.raises(RegistryError) as info:
        load_yaml(write(tmp_path, text))
    message = str(info.value)
    if fix is None:
        assert message.endswith("'") and "write it as" not in message
        return
    assert message.endswith(
        f", got {written.strip(chr(39))!r} (text, not a number: write it as {fix})"
    )
    fixed = load_yaml(write(tmp_path, text.replace(written, fix)))["jpcp"]
    assert getattr(fixed, key) == float(written.strip(chr(39)))


def test_validate_command_for_ci(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, GOOD)
    assert run(["fairness", "validate"]) == 0
    assert "valid; 2 model(s): JPCP, other" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("models:\n  JPCP:\n    slice: [region]\n")
    assert run(["fairness", "validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("faircode: error: ")
    assert run(["fairness", "validate", str(tmp_path / "missing.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err
    # A name from the command line is shown, never written raw to the terminal.
    assert run(["fairness", "validate", str(tmp_path / "no\x1b[31mred.yaml")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "no\\x1b[31mred.yaml" in err


def test_show_reads_names_case_insensitively_and_reports_no_registry(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAIRCODE_DB", str(tmp_path / "m.db"))
    write(tmp_path, GOOD)
    # a command that only reads never creates the store (SPEC 15.2)
    assert run(["fairness", "show", "jpcp"]) == 2
    assert "no store at " + str(tmp_path / "m.db") in capsys.readouterr().err
    assert not (tmp_path / "m.db").exists()
    open_store(str(tmp_path / "m.db")).close()  # an empty store: the YAML is in force
    assert run(["fairness", "show", "jpcp"]) == 0
    out = capsys.readouterr().out
    assert "model JPCP: registry in force from yaml" in out and "slices: [region, tier]" in out
    assert run(["fairness", "gate", "nobody", "--version", "1"]) == 2
    assert "no fairness registry for model 'nobody'" in capsys.readouterr().err


def test_missing_pyyaml_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(RegistryError, match=r"pip install 'faircode\[registry\]'"):
        load_yaml(write(tmp_path, GOOD))


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (
            b"models:\n  COMPAS:\n    slices: [race]\n    ref_groups: {race: Caucasi\xe9n}\n",
            "byte 67 (line 4): not valid UTF-8; save the file as UTF-8",
        ),
        (b"\xff\xfe garbage", "byte 0 (line 1): not valid UTF-8; save the file as UTF-8"),
        (b"a: " + b"[" * 10_000 + b"]" * 10_000 + b"\n", "nested too deeply"),
    ],
)
def test_a_registry_not_utf8_or_nested_too_deeply_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, data: bytes, needle: str
) -> None:
    """Bytes that are not UTF-8 name their offset and line; brackets nested thousands deep
    (PyYAML's recursion) are one line too, from `validate` and from `--registry`."""
    path = tmp_path / "fairness.yaml"
    path.write_bytes(data)
    with pytest.raises(RegistryError) as info:
        load_yaml(path)
    assert str(info.value).startswith(f"{path}: ") and needle in str(info.value)
    assert run(["fairness", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("faircode: error: ") and err.count("\n") == 1 and needle in err
    db = str(tmp_path / "m.db")
    open_store(db).close()
    assert run(["fairness", "show", "COMPAS", "--registry", str(path), "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err
