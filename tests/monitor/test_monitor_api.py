"""The store's Python API (SPEC 15.9), a model's own YAML file as its registry (SPEC
15.4), and what `config` and ingest refuse (issue 28).

Tests taking ``db`` run on a SQLite file and on a fresh PostgreSQL database (see
tests/storeutil.py for where the server comes from).
"""

from __future__ import annotations

import doctest
import importlib
import json
import math
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import storeutil

import faircode.monitor
from faircode.errors import EXIT_FAIL, EXIT_INSUFFICIENT, EXIT_OK, EXIT_UNMEASURED
from faircode.monitor import (
    GateResult,
    MonitorInputError,
    SliceMetrics,
    fairness_disparity,
    fairness_gate,
    fairness_report,
    slice_metrics,
)
from faircode.monitor.cli import run
from faircode.monitor.store import open_store

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


def _expected(compas: pd.DataFrame, attr: str, guard: int = 30) -> dict[str, Any]:
    """Per-slice metrics, guards and disparities of ``attr`` computed with pandas."""
    df = compas.assign(pred=(compas["decile_score"] >= 5).astype(int))
    df["label"] = df["two_year_recid"].astype(float)
    df.loc[df.index[-UNLABELLED:], "label"] = float("nan")
    lab = df[df["label"].notna()]
    pos, neg = lab[lab["label"] == 1], lab[lab["label"] == 0]
    counts = pd.DataFrame(
        {
            "n": df.groupby(attr).size(),
            "n_labelled": lab.groupby(attr).size(),
            "pos": pos.groupby(attr).size(),
            "neg": neg.groupby(attr).size(),
            "pred_pos": lab[lab["pred"] == 1].groupby(attr).size(),
            "pred_neg": lab[lab["pred"] == 0].groupby(attr).size(),
        }
    ).fillna(0)
    slices = pd.DataFrame(
        {
            "selection_rate": df.groupby(attr)["pred"].mean(),
            "accuracy": (lab["pred"] == lab["label"]).groupby(lab[attr]).mean(),
            "tpr": pos.groupby(attr)["pred"].mean(),
            "fpr": neg.groupby(attr)["pred"].mean(),
        }
    )
    slices["below_min"] = (counts < guard).any(axis=1)
    slices = slices.join(counts)

    def spread(metric: str, count: str) -> float:
        values = slices.loc[slices[count] >= guard, metric]
        return float(values.max() - values.min())

    eo = max(spread("tpr", "pos"), spread("fpr", "neg"))
    return {
        "slices": slices,
        "demographic_parity_diff": spread("selection_rate", "n"),
        "selection_rate_range": spread("selection_rate", "n"),
        "equalized_odds_diff": eo,
        "accuracy_range": spread("accuracy", "n_labelled"),
    }


def _close(a: float | None, b: float) -> bool:
    return a is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


# -- the seed's programmatic use ------------------------------------------------------------
def test_the_seeds_programmatic_use_on_compas_matches_pandas(
    cli,
    db: str,
    tmp_path: Path,
    compas: pd.DataFrame,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The seed's "Programmatic use" section, as written (the store and the registry
    from the environment), on a store holding COMPAS; every number checked against
    pandas."""
    model_file = _log_compas(cli, tmp_path, compas)
    monkeypatch.setenv("FAIRCODE_REGISTRY", str(model_file))  # FAIRCODE_DB: the cli fixture

    # -- the seed, verbatim but for the model and the attribute --
    res = slice_metrics("compas", "race")
    for s in res.slices:
        print(s.slice_value, s.n, s.accuracy, s.below_min)
    print(res.demographic_parity_diff, res.disparity_exceeded)

    disparities = fairness_disparity("compas", "race")  # dict, for cards/reports
    promoted = False
    if fairness_gate("compas"):  # used by the C3 gate
        promoted = True
    # -- end of the seed --

    printed = capsys.readouterr().out.splitlines()

    want = _expected(compas, "race")
    table = want["slices"]
    assert isinstance(res, SliceMetrics)
    assert (res.model, res.version, res.attribute, res.task) == ("compas", "v1", "race", "binary")
    assert (res.threshold, res.min_samples, res.rule) == (0.1, 30, "interval")
    assert sorted(s.slice_value for s in res.slices) == sorted(table.index)
    for s in res.slices:
        row = table.loc[s.slice_value]
        assert s.n == row["n"] and s.n_labelled == row["n_labelled"], s.slice_value
        for metric in ("accuracy", "selection_rate", "tpr", "fpr"):
            value, ci = getattr(s, metric), getattr(s, f"{metric}_ci")
            assert _close(value, row[metric]), (s.slice_value, metric, value, row[metric])
            assert ci[0] <= value <= ci[1], (s.slice_value, metric)
        assert s.below_min == bool(row["below_min"]), s.slice_value
        assert s.error is None and s.error_ci is None
    # Native American (18 rows) is below the guard for every metric; Asian (32 rows)
    # only for the metrics counted over its few labelled positives or negatives
    by_value = {s.slice_value: s for s in res.slices}
    assert by_value["Native American"].below_min and "selection_rate" in (
        by_value["Native American"].low_n
    )
    assert by_value["Asian"].below_min and "selection_rate" not in by_value["Asian"].low_n
    assert not by_value["African-American"].below_min
    assert printed[: len(res.slices)] == [
        f"{s.slice_value} {s.n} {s.accuracy} {s.below_min}" for s in res.slices
    ]

    for name in (
        "demographic_parity_diff",
        "equalized_odds_diff",
        "selection_rate_range",
        "accuracy_range",
    ):
        value, ci = getattr(res, name), getattr(res, f"{name}_ci")
        assert _close(value, want[name]), (name, value, want[name])
        assert ci[0] <= value <= ci[1], name
        assert disparities[name] == value and disparities["ci95"][name] == list(ci)
    assert res.mae_range is None and disparities["mae_range"] is None
    # the demographic parity difference exceeds 0.1 with its whole interval
    assert want["demographic_parity_diff"] > 0.1 and res.demographic_parity_diff_ci[0] > 0.1
    assert res.disparity_exceeded is True and res.status == "exceeded"
    assert printed[-1] == f"{res.demographic_parity_diff} True"
    assert disparities["disparity_exceeded"] is True and disparities["status"] == "exceeded"
    assert disparities["eligible_slices"]["demographic_parity_diff"] == 5
    assert json.loads(json.dumps(disparities)) == disparities
    assert promoted is False


def test_the_gate_decides_as_the_cli_and_both_record_it(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    model_file = _log_compas(cli, tmp_path, compas)
    gate = fairness_gate("compas", store=db, registry=model_file, version="v1")
    assert isinstance(gate, GateResult) and not gate
    assert (gate.outcome, gate.exit_code, gate.event) == (
        "fail",
        EXIT_FAIL,
        "promotion_blocked_by_fairness",
    )
    assert (gate.model, gate.version, gate.advisory, gate.forced) == ("compas", "v1", False, False)
    code, out, err = cli(
        "gate", "compas", "--version", "v1", "--registry", str(model_file), "--json"
    )
    decision = json.loads(out)
    assert code == gate.exit_code == decision["exit"]
    assert decision["event"] == gate.event and decision["audit_id"] == gate.audit_id + 1
    assert decision["report"]["evaluation"] == gate.report["evaluation"]
    # an open store is used as it is, and left open
    store = open_store(db)
    try:
        forced = fairness_gate(
            "compas", store=store, registry=model_file, force=True, reason="board approval"
        )
        assert store.one("SELECT COUNT(*) FROM audit") == 3
    finally:
        store.close()
    assert forced and forced.outcome == "fail" and forced.exit_code == EXIT_OK
    assert forced.forced and forced.event == "fairness_gate_override"
    with pytest.raises(MonitorInputError, match="--force needs --reason"):
        fairness_gate("compas", store=db, registry=model_file, force=True)


def test_the_cli_prints_what_the_api_returns(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    """One code path: `slice --json` and `report --json` are the API's results."""
    model_file = _log_compas(cli, tmp_path, compas)
    reg = ["--registry", str(model_file)]
    code, out, _ = cli("slice", "compas", "sex", *reg, "--json", "--since", "2013-02-01")
    assert code == 0
    res = slice_metrics("compas", "sex", store=db, registry=model_file, since="2013-02-01")
    assert json.loads(out) == res.report
    code, out, _ = cli("report", "compas", *reg, "--json", "--target", "0.9", "--intersect")
    assert code == 0
    assert json.loads(out) == fairness_report(
        "compas", store=db, registry=model_file, target=0.9, intersect=True
    )
    with pytest.raises(MonitorInputError, match=r"attribute\(s\) age were never logged") as e:
        slice_metrics("compas", "age", store=db, registry=model_file)
    assert str(e.value).endswith("log them with --attr or fix ATTR: name a logged one")
    with pytest.raises(MonitorInputError, match="no predictions for version 'v9'"):
        fairness_report("compas", store=db, registry=model_file, version="v9")


def _small(tmp_path: Path, labelled: bool = True) -> Path:
    """Two regions of 400 predictions: selection rates 0.5 and 0.25, accuracies 0.75
    and 0.5 (the module example of faircode/monitor/api.py)."""
    rows = ["id,region,approved,repaid"]
    for i in range(400):
        rows.append(f"n{i},north,{int(i < 200)},{int(i < 200 or i >= 300)}")
        rows.append(f"s{i},south,{int(i < 100)},{int(i < 100 or i >= 200)}")
    path = tmp_path / ("small.csv" if labelled else "small-unlabelled.csv")
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(
    ("block", "outcome", "code", "passes", "event"),
    [
        ("threshold: 0.1", "fail", EXIT_FAIL, False, "promotion_blocked_by_fairness"),
        ("threshold: 0.5\n  rule: point", "pass", EXIT_OK, True, "fairness_gate_passed"),
        ("threshold: 0.24", "insufficient_evidence", EXIT_INSUFFICIENT, False, None),
        ("threshold: 0.1\n  min_samples: 500", "insufficient_evidence", 5, False, None),
        ("threshold: 0.1\n  min_samples: 500\n  rule: point", "unmeasured", 3, False, None),
        ("threshold: 0.1\n  gate_promotion: false", "fail", EXIT_OK, True, "fairness_gate_passed"),
        ("threshold: 0.1\n  enabled: false", "disabled", EXIT_OK, True, "fairness_gate_disabled"),
    ],
)
def test_gate_outcomes_and_exit_codes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    block: str,
    outcome: str,
    code: int,
    passes: bool,
    event: str | None,
) -> None:
    monkeypatch.setenv("FAIRCODE_ACTOR", "test-operator")
    db = str(tmp_path / "m.db")
    model_file = tmp_path / "loans.yaml"
    model_file.write_text(f"fairness:\n  slices: [region]\n  {block}\n")
    data = _small(tmp_path)
    common = ["--db", db, "--registry", str(model_file)]
    log = ["--version", "v1", "--id", "id", "--pred", "approved", "--attr", "region"]
    assert run(["fairness", "log", "loans", str(data), *log, *common]) == 0
    label = ["--id", "id", "--label", "repaid"]
    assert run(["fairness", "label", "loans", str(data), *label, *common]) == 0
    gate = fairness_gate("loans", store=db, registry=model_file)
    assert (gate.outcome, gate.exit_code, bool(gate), gate.passed) == (
        outcome,
        code,
        passes,
        passes,
    )
    assert gate.event == (event or "promotion_blocked_by_fairness")
    assert gate.advisory == ("gate_promotion: false" in block)
    assert (gate.report is None) == (outcome == "disabled")
    assert run(["fairness", "gate", "loans", "--version", "v1", *common]) == code


def _logged_without_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, list[str]]:
    """A store with model loans' predictions and no label yet; (the store, its flags)."""
    monkeypatch.setenv("FAIRCODE_ACTOR", "test-operator")
    db = str(tmp_path / "m.db")
    # within the threshold on the selection rate; nothing else measurable without labels
    (tmp_path / "loans.yaml").write_text(
        "fairness:\n  slices: [region]\n  threshold: 0.5\n  rule: point\n"
    )
    log = ["--version", "v1", "--id", "id", "--pred", "approved", "--attr", "region"]
    reg = ["--db", db, "--registry", str(tmp_path / "loans.yaml")]
    assert run(["fairness", "log", "loans", str(_small(tmp_path)), *log, *reg]) == 0
    return db, reg


def test_a_model_without_labels_is_unmeasured_never_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, reg = _logged_without_labels(tmp_path, monkeypatch)
    gate = fairness_gate("loans", store=db, registry=tmp_path / "loans.yaml")
    assert not gate and (gate.outcome, gate.exit_code) == ("unmeasured", EXIT_UNMEASURED)
    res = slice_metrics("loans", "region", store=db, registry=tmp_path / "loans.yaml")
    assert [s.accuracy for s in res.slices] == [None, None]
    assert [s.selection_rate for s in res.slices] == [0.5, 0.25]
    assert res.accuracy_range is None and res.status == "unmeasured"


def test_the_store_gate_says_labels_have_not_arrived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Predictions logged, no labels yet: the blocked line names the missing labels and
    'fairness label', never a lower guard (SPEC 12.8)."""
    db, reg = _logged_without_labels(tmp_path, monkeypatch)
    capsys.readouterr()
    assert run(["fairness", "gate", "loans", "--version", "v1", *reg]) == EXIT_UNMEASURED
    blocked = capsys.readouterr().err.splitlines()[-1]
    assert "labels have not arrived (no labelled rows in 2 slices)" in blocked
    assert "'faircode fairness label'" in blocked and "min_samples" not in blocked


def test_the_api_docstring_examples_run() -> None:
    """faircode/monitor/api.py's examples, in order: the module's builds the store that
    the functions' examples read (a temporary SQLite file)."""
    from faircode.monitor import api

    tests = sorted(
        doctest.DocTestFinder().find(api), key=lambda t: (t.name != api.__name__, t.name)
    )
    assert {t.name.rsplit(".", 1)[-1] for t in tests if t.examples} == {
        "api",
        "fairness_disparity",
        "fairness_gate",
        "fairness_report",
        "fairness_watch",
        "slice_metrics",
        "slo_gate",
        "slo_ingest",
        "slo_set",
        "slo_show",
    }
    shared: dict[str, Any] = {}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    try:
        for test in tests:
            test.globs = shared
            runner.run(test, clear_globs=False)
    finally:
        if "folder" in shared:
            shutil.rmtree(shared["folder"])
    failed, tried = runner.summarize(verbose=False)
    assert failed == 0 and tried > 20


def test_the_api_is_exported_and_documented() -> None:
    names = {
        "GateResult",
        "SliceMetrics",
        "SliceResult",
        "SloGateResult",
        "fairness_disparity",
        "fairness_gate",
        "fairness_report",
        "fairness_watch",
        "slice_metrics",
        "slo_gate",
        "slo_ingest",
        "slo_set",
        "slo_show",
    }
    assert names <= set(faircode.monitor.__all__)
    # the package lists the API's names for its lazy __getattr__, api.py for import *
    api = importlib.import_module("faircode.monitor.api")
    assert sorted(api.__all__) == sorted(faircode.monitor._API)
    for name in names:
        obj = getattr(faircode.monitor, name)
        assert obj.__doc__ and obj.__module__ == "faircode.monitor.api", name
    for func in (
        slice_metrics,
        fairness_disparity,
        fairness_gate,
        fairness_report,
        *(getattr(faircode.monitor, n) for n in names if n.startswith(("slo_", "fairness_w"))),
    ):
        doc = func.__doc__ or ""
        for part in ("Parameters\n", "Returns\n", "Examples\n", ">>> "):
            assert part in doc, (func.__name__, part)


# -- what config and ingest refuse (issue 28 item 6) ----------------------------------------
def test_config_attr_refuses_an_attribute_never_logged(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    model_file = _log_compas(cli, tmp_path, compas)
    reg = ["--registry", str(model_file)]
    code, _, err = cli("config", "compas", "--attr", "race", "--attr", "age", *reg, "--reason", "x")
    assert code == 2
    _one_error(
        err,
        "--attr age: never logged for model 'compas' (its logged attributes: race, sex)",
        "nothing was changed",
    )
    store = open_store(db)
    try:
        assert store.one("SELECT COUNT(*) FROM registry_overrides") == 0
        assert store.one("SELECT COUNT(*) FROM audit") == 0
    finally:
        store.close()
    assert cli("config", "compas", "--attr", "sex", *reg, "--reason", "sex only")[0] == 0
    assert slice_metrics("compas", "sex", store=db, registry=model_file).attribute == "sex"
    # a model with nothing logged yet may be configured ahead of its first batch
    assert cli("config", "loans", "--attr", "region", *reg, "--reason", "ahead")[0] == 0


def test_config_with_nothing_to_set_is_refused_and_records_nothing(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    """SPEC 15.4: an override of nothing would freeze the model's YAML as it is (its later
    edits ignored until apply); refused, naming the options config takes."""
    reg = ["--registry", str(_log_compas(cli, tmp_path, compas))]

    def counts() -> tuple[int, int]:
        store = open_store(db)
        try:
            return tuple(
                store.one(f"SELECT COUNT(*) FROM {t}") for t in ("registry_overrides", "audit")
            )
        finally:
            store.close()

    before = counts()
    for extra in ([], ["--reason", "why not"]):
        code, _, err = cli("config", "compas", *reg, *extra)
        assert code == 2
        _one_error(err, "nothing to set", "--threshold", "--min-samples", "--no-gate", "--rule")
        assert "--reason" not in err and "--db" not in err
        assert counts() == before
    assert cli("config", "compas", "--no-gate", *reg, "--reason", "advisory")[0] == 0
    assert counts() == (1, before[1] + 1)


def test_config_and_apply_need_a_reason_and_the_audit_keeps_who_and_why(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    """SPEC 15.4: an override changes what reports and the gate decide, as --force does;
    without a reason (or a blank one) config and apply are refused before the store is
    opened, and with one the audit row names who and why."""
    if not db.startswith("postgresql"):  # a refused command creates no store
        for argv in (["config", "m", "--threshold", "0.2"], ["apply", "m"]):
            assert cli(*argv)[0] == 2
        assert not Path(db).exists()
    reg = ["--registry", str(_log_compas(cli, tmp_path, compas))]

    def rows() -> list[tuple[Any, ...]]:
        store = open_store(db)
        try:
            return store.query("SELECT actor, event, details FROM audit ORDER BY id")
        finally:
            store.close()

    before = rows()
    for argv in (["config", "compas", "--threshold", "0.2"], ["apply", "compas"]):
        command = argv[0]
        for extra, word in (([], "is required"), (["--reason", " \t"], "is empty")):
            code, _, err = cli(*argv, *reg, *extra)
            assert code == 2
            _one_error(err, f"fairness {command}: --reason {word}: ", "who did it and why")
            assert rows() == before
    assert cli("config", "compas", "--threshold", "0.2", *reg, "--reason", "incident 42")[0] == 0
    assert cli("apply", "compas", *reg, "--reason", "incident closed")[0] == 0
    # the hints that suggest a config say --reason too
    (tmp_path / "other.yaml").write_text("models:\n  other:\n    slices: [race]\n")
    code, _, err = cli("report", "compas", "--registry", str(tmp_path / "other.yaml"))
    assert code == 2
    _one_error(err, "set one with: faircode fairness config MODEL --attr COL --reason TEXT")
    written = [(who, event, json.loads(details)["reason"]) for who, event, details in rows()]
    assert written[len(before) :] == [
        ("test-operator", "fairness_config_set", "incident 42"),
        ("test-operator", "fairness_registry_applied", "incident closed"),
    ]


@pytest.mark.parametrize("value", ["2", "yes", "0.5", "-1"])
def test_a_label_outside_a_binary_tasks_values_is_refused_at_ingest(
    cli, db: str, tmp_path: Path, value: str
) -> None:
    """A label `2` or `yes` for a binary model is refused naming line and request id,
    and nothing is written; so no report breaks on it later. Checked for a task the
    model file declares, for one inferred from the version's predictions, and for a
    label that arrives before its prediction (an orphan) of a declared binary model."""
    (tmp_path / "m.yaml").write_text("fairness:\n  slices: [g]\n  task: binary\n")
    (tmp_path / "open.yaml").write_text("fairness:\n  slices: [g]\n")
    preds = pd.DataFrame({"id": ["a", "b", "c", "d"], "g": ["x", "y"] * 2, "p": [0, 1, 1, 0]})
    preds.to_csv(tmp_path / "p.csv", index=False)
    labels = pd.DataFrame({"id": ["a", "b", "c", "z"], "y": ["1", "0", value, "1"]})
    labels.to_csv(tmp_path / "l.csv", index=False)
    orphans = labels.assign(id=["q", "r", "s", "t"])
    orphans.to_csv(tmp_path / "o.csv", index=False)
    log = ["--version", "v1", "--id", "id", "--pred", "p", "--attr", "g"]
    assert cli("log", "m", "p.csv", *log, "--registry", "m.yaml")[0] == 0
    if value == "yes":
        what = "label 'yes' in column 'y' is not a number"
    else:
        what = f"label {float(value):g} in column 'y' is not 0 or 1"
    for registry, file, why in (
        ("m.yaml", "l.csv", "model m is binary (task: binary in the registry)"),
        ("open.yaml", "l.csv", "model m version v1 is binary (inferred"),
        ("m.yaml", "o.csv", "model m is binary (task: binary in the registry)"),
    ):
        code, _, err = cli("label", "m", file, "--id", "id", "--label", "y", "--registry", registry)
        assert code == 2, (registry, file)
        rid = "c" if file == "l.csv" else "s"
        _one_error(err, f"{file}: line 4 (request id '{rid}'): {what}", "not written")
        if value != "yes":
            assert why in err
    store = open_store(db)
    try:
        assert store.one("SELECT COUNT(label) FROM predictions") == 0
        assert store.one("SELECT COUNT(*) FROM orphan_labels") == 0
        assert store.one("SELECT COUNT(*) FROM batches") == 1
    finally:
        store.close()
    code, out, err = cli("report", "m", "--registry", "m.yaml", "--json")
    assert code == 0, err
    assert json.loads(out)["evaluation"]["rows"]["labelled"] == 0


# -- the store's results in a notebook (SPEC 15.9, 6.2) --------------------------------------
def _loans_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The module example's store: north and south of 400, west of 10 (below the guard)."""
    monkeypatch.setenv("FAIRCODE_ACTOR", "test-operator")
    db, model_file = str(tmp_path / "m.db"), tmp_path / "loans.yaml"
    model_file.write_text("fairness:\n  slices: [region]\n  threshold: 0.1\n")
    data = _small(tmp_path)
    data.write_text(data.read_text() + "".join(f"w{i},west,{i % 2},{i % 2}\n" for i in range(10)))
    common = ["--db", db, "--registry", str(model_file)]
    log = ["--version", "v1", "--id", "id", "--pred", "approved", "--attr", "region"]
    assert run(["fairness", "log", "loans", str(data), *log, *common]) == 0
    label = ["--id", "id", "--label", "repaid"]
    assert run(["fairness", "label", "loans", str(data), *label, *common]) == 0
    return common


def _printed(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    capsys.readouterr()
    run(["fairness", *argv])
    got = capsys.readouterr()
    return got.out, got.err


def _cell_text(cell: str) -> str:
    import html

    assert cell.startswith('<pre class="faircode">') and cell.endswith("</pre>"), cell[:80]
    return html.unescape(cell[len('<pre class="faircode">') : -len("</pre>")])


def test_the_store_results_show_in_a_notebook_what_the_cli_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SPEC 15.9: SliceMetrics, GateResult, SloGateResult and fairness_report's result
    show in a notebook the report `faircode fairness slice | gate | slo gate | report`
    prints, and their repr is one line with the verdict and n (they showed a 1,700-
    character dataclass repr, or an 11,000-character dict)."""
    import html

    from faircode.monitor import FairnessReport, SloGateResult, slo_gate, slo_ingest, slo_set

    common = _loans_store(tmp_path, monkeypatch)
    db, registry = common[1], common[3]
    res = slice_metrics("loans", "region", store=db, registry=registry)
    assert repr(res) == (
        "SliceMetrics(exceeded; loans version v1, region: 3 slices, n=810, 1 below "
        "min_samples 30; demographic_parity_diff 0.250, equalized_odds_diff 0.333, "
        "accuracy_range 0.250; threshold 0.1 by interval)"
    )
    assert repr(res.slices[2]) == (
        "SliceResult(west: n=10, 10 labelled; accuracy 1.000; selection_rate 0.500; "
        "tpr 1.000; fpr 0.000; below min_samples for " + ", ".join(res.slices[2].low_n) + ")"
    )
    out, _ = _printed(capsys, "slice", "loans", "region", *common)
    assert res.render() == out and res.render("text") == out
    out, _ = _printed(capsys, "slice", "loans", "region", *common, "--markdown")
    assert res.render("markdown") == out
    out, _ = _printed(capsys, "slice", "loans", "region", *common, "--json")
    assert res.render("json") == out and json.loads(out) == res.report
    # the slice's report is a 12.11 report: its HTML, in a sandboxed frame, as evaluate's
    cell = res._repr_html_()
    assert cell.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in cell
    assert html.escape(res.render("html"), quote=True) in cell
    with pytest.raises(MonitorInputError, match=r"^render: 'pdf' is not a format of fairness "):
        res.render("pdf")

    report = fairness_report("loans", store=db, registry=registry)
    assert isinstance(report, FairnessReport) and isinstance(report, dict)
    out, _ = _printed(capsys, "report", "loans", *common, "--json")
    assert report == json.loads(out) and report.report("json") == out
    assert json.loads(json.dumps(report)) == report
    assert repr(report) == (
        "FairnessReport(exceeded; loans version v1; n=810; 1 attribute: region exceeded; SLI 0/1)"
    )
    out, _ = _printed(capsys, "report", "loans", *common, "--markdown")
    assert report.report("markdown") == out and _cell_text(report._repr_html_()) == out
    out, _ = _printed(capsys, "report", "loans", *common)
    assert report.report() == out

    gate = fairness_gate("loans", store=db, registry=registry)
    assert repr(gate) == (
        f"GateResult(fail: blocked, exit 1; loans version v1; n=810; "
        f"promotion_blocked_by_fairness, audit row {gate.audit_id})"
    )
    out, err = _printed(capsys, "gate", "loans", "--version", "v1", *common)
    assert gate.render() == err and _cell_text(gate._repr_html_()) == err
    assert err.splitlines()[-1].startswith("faircode: gate: blocked: loans version v1")
    forced = fairness_gate("loans", store=db, registry=registry, force=True, reason="board")
    assert forced.render().splitlines()[-1].endswith("reason: board)")

    slo_set("loans", "fair", target=0.5, gate=True, store=db)
    slo_ingest("loans", store=db, registry=registry)
    decision = slo_gate("loans", store=db)
    assert isinstance(decision, SloGateResult)
    assert repr(decision) == (
        f"SloGateResult(blocked, exit 6; loans at {decision.at}; 1 SLO: fair exhausted; "
        f"fairness_slo_budget_exhausted, audit row {decision.audit_id})"
    )
    _, err = _printed(capsys, "slo", "gate", "loans", "--db", db)
    lines = _cell_text(decision._repr_html_()).splitlines()
    assert lines == decision.render().splitlines() and len(lines) == 2
    assert lines[0] == err.splitlines()[0]  # the audit row of the last line is the CLI's own
    assert lines[1].startswith("faircode: slo gate: blocked: an error budget is spent")


def test_a_store_result_too_large_for_a_notebook_shows_its_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC 15.9, 6.2: the store's results keep the notebook's size cap: past
    NOTEBOOK_HTML_MAX the cell is the Markdown report's head, naming the call that
    returns all of it (`render`: `report` is the data of SliceMetrics)."""
    import faircode.results

    common = _loans_store(tmp_path, monkeypatch)
    res = slice_metrics("loans", "region", store=common[1], registry=common[3])
    monkeypatch.setattr(faircode.results, "NOTEBOOK_HTML_MAX", 1_000)
    monkeypatch.setattr(faircode.results, "NOTEBOOK_TEXT_MAX", 500)
    cell = res._repr_html_()
    document = res.render("html")
    note, pre = cell.split('<pre class="faircode">')
    assert note == (
        f'<p class="faircode">The HTML report is {len(document):,} characters, more than a '
        "notebook cell embeds (1,000): the Markdown report follows; "
        'result.render("html") returns the HTML.</p>'
    )
    text = _cell_text('<pre class="faircode">' + pre)
    kept, last = text[:-1].rsplit("\n", 1)
    markdown = res.render("markdown")
    assert markdown.startswith(kept + "\n") and len(kept) <= 500
    left = markdown.count("\n") - kept.count("\n") - 1
    assert last == f'... {left:,} more lines not shown: result.render("markdown") has all'
    report = fairness_report("loans", store=common[1], registry=common[3])
    assert _cell_text(report._repr_html_()).endswith('result.report("markdown") has all\n')
