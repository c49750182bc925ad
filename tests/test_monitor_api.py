"""A model's own YAML file as its registry (SPEC 15.4, issue 28).

Tests taking ``db`` run on a SQLite file and on a fresh PostgreSQL database (see
tests/storeutil.py for where the server comes from).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import storeutil

from faircode.errors import EXIT_FAIL, EXIT_OK
from faircode.monitor import (
    MonitorInputError,
)
from faircode.monitor.cli import run

#: The seed's model YAML (its `fairness:` block, keys and comments as given), for COMPAS.
MODEL_YAML = """\
# usecases/<pack>/models/<model>.yaml
fairness:
  slices: [race, sex]        # categorical/binned attributes; protected ones where applicable
  threshold: 0.1             # maximum allowed disparity
  min_samples: 30            # noise guard - smaller slices are excluded from disparity
  gate_promotion: true       # block promotion when disparity exceeds the threshold
"""
#: The seed's block verbatim (model JPCP, attributes region and tier).
SEED_YAML = MODEL_YAML.replace("[race, sex]", "[region, tier]")
LOG = ["--id", "id", "--score", "decile_score", "--decision-threshold", "5"]
ATTRS = ["--attr", "race", "--attr", "sex", "--at", "compas_screening_date"]
UNLABELLED = 200  # the last rows' labels have not arrived: scored for selection only


@pytest.fixture(scope="session")
def pg_server_url():
    yield from storeutil.pg_server()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "store" / "monitor.db")
    return storeutil.fresh_pg_database(request.getfixturevalue("pg_server_url"))


@pytest.fixture
def cli(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """Run ``faircode fairness ...`` in-process in tmp_path against ``db``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAIRCODE_DB", db)
    monkeypatch.setenv("FAIRCODE_ACTOR", "test-operator")
    monkeypatch.delenv("FAIRCODE_REGISTRY", raising=False)

    def call(*argv: str) -> tuple[int, str, str]:
        code = run(["fairness", *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return call


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    df = pd.read_csv(storeutil.require_compas())
    return df[["id", "race", "sex", "decile_score", "two_year_recid", "compas_screening_date"]]


def _one_error(err: str, *parts: str) -> None:
    """``err`` is exactly one ``faircode: error:`` line holding every part."""
    assert err.count("\n") == 1 and err.startswith("faircode: error: "), err
    for part in parts:
        assert part in err, (part, err)


def _log_compas(cli, tmp_path: Path, compas: pd.DataFrame) -> Path:
    """COMPAS predictions (decile score >= 5) in the store, labels for all but the last
    UNLABELLED rows; the model's own YAML file models/compas.yaml. Its path."""
    compas.drop(columns="two_year_recid").to_csv(tmp_path / "preds.csv", index=False)
    compas[["id", "two_year_recid"]].iloc[:-UNLABELLED].to_csv(tmp_path / "labels.csv", index=False)
    (tmp_path / "models").mkdir()
    model_file = tmp_path / "models" / "compas.yaml"
    model_file.write_text(MODEL_YAML)
    reg = ["--registry", str(model_file)]
    code, _, err = cli("log", "compas", "preds.csv", "--version", "v1", *LOG, *ATTRS, *reg)
    assert code == 0, err
    code, _, err = cli("label", "compas", "labels.csv", "--id", "id", "--label", "two_year_recid")
    assert code == 0, err
    return model_file


# -- a model's own YAML file as its registry (SPEC 15.4) ------------------------------------
def test_the_seeds_model_yaml_drives_show_gate_and_report(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    model_file = _log_compas(cli, tmp_path, compas)
    reg = ["--registry", "models/compas.yaml"]
    code, out, err = cli("show", "compas", *reg)
    assert code == 0, err
    assert out.startswith(
        "model compas: registry in force from yaml (models/compas.yaml, its fairness: block)\n"
        "  slices: [race, sex]\n  threshold: 0.1\n  min_samples: 30\n  gate: true\n"
    )
    shown = json.loads(cli("show", "compas", *reg, "--json")[1])
    assert (shown["source"], shown["yaml_path"], shown["yaml_form"]) == (
        "yaml",
        "models/compas.yaml",
        "model file",
    )
    code, out, _ = cli("report", "compas", *reg, "--json")
    report = json.loads(out)
    assert code == 0 and report["registry"]["source"] == "yaml"
    assert report["registry"]["slices"] == ["race", "sex"] and report["registry"]["gate"] is True
    assert [g["name"] for g in report["evaluation"]["groups"]] == ["race", "sex"]
    code, _, err = cli("gate", "compas", "--version", "v1", *reg)
    assert code == EXIT_FAIL and "gate: blocked: compas version v1" in err
    # FAIRCODE_REGISTRY names it as well as --registry does
    code, out, _ = cli("validate", str(model_file))
    assert code == 0

    # gate_promotion: false makes the gate advisory, as gate: false in fairness.yaml
    model_file.write_text(MODEL_YAML.replace("gate_promotion: true", "gate_promotion: false"))
    code, _, err = cli("gate", "compas", "--version", "v1", *reg)
    assert code == EXIT_OK and "gate is advisory for compas (gate: false)" in err

    # a runtime override wins, and show names the file it drifts from
    model_file.write_text(MODEL_YAML)
    assert cli("config", "compas", "--threshold", "0.5", *reg, "--reason", "r")[0] == 0
    code, out, _ = cli("show", "compas", *reg)
    assert "registry in force from store" in out
    assert "DRIFT: the store override differs from models/compas.yaml in 1 field(s)" in out
    assert cli("apply", "compas", *reg, "--reason", "back")[0] == 0
    assert "from yaml (models/compas.yaml" in cli("show", "compas", *reg)[1]

    # a typo in the model file: show, report and gate stop with one line naming the key
    for right, typo, meant in (
        ("slices:", "slice:", "slices"),
        ("gate_promotion:", "gate_promtion:", "gate_promotion"),
        ("gate_promotion:", "gate:", "gate_promotion"),
        ("threshold:", "treshold:", "threshold"),
    ):
        model_file.write_text(MODEL_YAML.replace(right, typo))
        for argv in (
            ("show", "compas", *reg),
            ("report", "compas", *reg),
            ("gate", "compas", "--version", "v1", *reg),
            ("slice", "compas", "race", *reg),
            ("validate", "models/compas.yaml"),
        ):
            code, out, err = cli(*argv)
            assert code == 2 and out == "", (typo, argv)
            _one_error(
                err,
                "models/compas.yaml: model 'compas': ",
                f"unknown key {typo[:-1]!r} (did you mean {meant!r}?)",
            )
    model_file.write_text(MODEL_YAML.replace("gate_promotion: true", "gate_promotion: 'yes'"))
    code, _, err = cli("show", "compas", *reg)
    assert code == 2
    _one_error(err, "key 'gate_promotion' must be true or false, got 'yes'")


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        (SEED_YAML.replace("slices:", "slice:"), ["model 'JPCP'", "did you mean 'slices'"]),
        ("fairness:\n  slices: []\n", ["model 'JPCP'", "'slices' is empty"]),
        ("fairness:\n  threshold: 0.1\n", ["key 'slices' is required"]),
        ("fairness:\n  slices: [a]\n  min_samples: 2.5\n", ["key 'min_samples'"]),
        ("fairness:\n  slices: [a]\n  gate_promotion: 1\n", ["key 'gate_promotion' must be"]),
        ("fairness: [region]\n", ["key 'fairness' must be a mapping"]),
        ("fairness:\n", ["key 'fairness' must be a mapping"]),
        ("fairnes:\n  slices: [a]\n", ["unknown top-level key 'fairnes'", "'fairness'?"]),
        (
            "models:\n  a:\n    slices: [a]\nfairness:\n  slices: [a]\n",
            ["has both 'models:'", "'fairness:'"],
        ),
        ("name: 7\nfairness:\n  slices: [a]\n", ["key 'name' must be the model's name"]),
        (
            "fairness:\n  slices: [a]\n  slices: [b]\n",
            ["line 3", "'slices' is given twice (first on line 2)"],
        ),
    ],
)
def test_yaml_fairness_block_is_valid(tmp_path: Path, text: str, needles: list[str]) -> None:
    """The seed's CI check (test_yaml_fairness_block_is_valid): a model file's block is
    validated as strictly as fairness.yaml; each error is one line naming file and key."""
    from faircode.monitor.registry import RegistryError, load_yaml

    path = tmp_path / "JPCP.yaml"
    path.write_text(SEED_YAML)
    seed = load_yaml(path)
    assert seed.form == "model file" and list(seed) == ["jpcp"]
    reg = seed["jpcp"]
    assert (reg.model, reg.slices, reg.threshold, reg.min_samples, reg.gate) == (
        "JPCP",
        ("region", "tier"),
        0.1,
        30,
        True,
    )
    path.write_text(text)
    with pytest.raises(RegistryError) as info:
        load_yaml(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message
    for needle in needles:
        assert needle in message, (needle, message)


def test_a_model_file_names_its_model_and_keeps_its_other_keys(tmp_path: Path) -> None:
    from faircode.monitor.registry import load_yaml

    path = tmp_path / "credit.yaml"
    path.write_text(
        "name: Credit-Risk\nalgorithm: xgboost\nowner: {team: risk}\n"
        "fairness:\n  slices: [region]\n  gate_promotion: false\n  task: binary\n"
        "  rule: point\n  ref_groups: {region: north}\n"
    )
    declared = load_yaml(path)
    reg = declared["credit-risk"]
    assert (reg.model, reg.gate, reg.task, reg.rule, reg.ref_groups) == (
        "Credit-Risk",
        False,
        "binary",
        "point",
        {"region": "north"},
    )
    assert run(["fairness", "validate", str(path)]) == 0
    # fairness.yaml spells the key gate; its model-file spelling there is a typo
    other = tmp_path / "fairness.yaml"
    other.write_text("models:\n  m:\n    slices: [a]\n    gate_promotion: true\n")
    with pytest.raises(MonitorInputError, match=r"unknown key 'gate_promotion' \(did you mean"):
        load_yaml(other)
