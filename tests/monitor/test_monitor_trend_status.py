"""The trend's statuses (SPEC 15.5): each bucket of ``fairness report`` is decided as a
report of its own, by the evaluation's code (``assemble.decide``) under the registry's
rule, so a value over the threshold whose interval straddles it is ``insufficient``
under ``rule: interval`` and ``exceeded`` under ``rule: point``, and a bucket holding
the whole window decides as the evaluation does.

Tests taking ``cli`` run on SQLite and on PostgreSQL (tests/storeutil.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from faircode.monitor.render import TREND_MARKS
from faircode.monitor.stats import exceeds
from faircode.monitor.timeline import trend_rows

THRESHOLD = 0.1
GUARD = 30
DAYS = ("2024-03-04", "2024-03-05")
Cli = Callable[..., tuple[int, str, str]]


def _rows() -> pd.DataFrame:
    """200 predictions a day, on two days. ``grp``: A selects 50%, B 30%, a gap of 0.2
    over a threshold of 0.1 that 100 (or 200) rows a slice cannot tell from it; ``team``:
    P mostly selected, Q mostly not, a gap no interval doubts; ``site``: Y holds 10 rows
    a day, below the guard of 30. Labels equal predictions."""
    out = []
    for day in DAYS:
        for i in range(200):
            pred = int(i % 2 == 0) if i < 100 else int((i - 100) % 10 < 3)
            out.append(
                {
                    "id": f"{day}-{i}",
                    "at": day,
                    "pred": pred,
                    "label": pred,
                    "grp": "A" if i < 100 else "B",
                    "team": "P" if (pred == 1) != (i % 7 == 0) else "Q",
                    "site": "Y" if i % 20 == 0 else "X",
                }
            )
    return pd.DataFrame(out)


def _logged(cli: Cli, tmp_path: Path, rule: str) -> None:
    """The rows logged and labelled, under a registry whose rule is ``rule``."""
    (tmp_path / "fairness.yaml").write_text(
        "models:\n  m:\n    slices: [grp, team, site]\n"
        f"    threshold: {THRESHOLD}\n    min_samples: {GUARD}\n    rule: {rule}\n"
    )
    rows = _rows()
    rows.drop(columns="label").to_csv(tmp_path / "p.csv", index=False)
    rows[["id", "label"]].to_csv(tmp_path / "l.csv", index=False)
    attrs = ["--attr", "grp", "--attr", "team", "--attr", "site"]
    code, _, err = cli("log", "m", "p.csv", "--version", "v1", "--id", "id", "--pred", "pred",
                       "--at", "at", *attrs)  # fmt: skip
    assert code == 0, err
    code, _, err = cli("label", "m", "l.csv", "--id", "id", "--label", "label")
    assert code == 0, err


def _report(cli: Cli, *args: str) -> dict[str, Any]:
    code, out, err = cli("report", "m", "--json", *args)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    ("rule", "status", "group_status"),
    [("interval", "insufficient", "insufficient_evidence"), ("point", "exceeded", "exceeded")],
)
def test_a_bucket_over_the_threshold_with_an_interval_across_it_follows_the_rule(
    cli: Cli, tmp_path: Path, rule: str, status: str, group_status: str
) -> None:
    """grp's demographic parity exceeds the threshold each day while its interval
    straddles it: ``insufficient`` (mark ``?``) under ``interval``, ``exceeded`` (``!``)
    under ``point``, in the JSON, the table and the terminal."""
    _logged(cli, tmp_path, rule)
    report = _report(cli, "--bucket", "day")
    assert report["registry"]["rule"] == rule
    assert [b["day"] for b in report["trend"]] == list(DAYS)
    head, rows = trend_rows(report)
    column = head.index("grp:DP")
    code, text, _ = cli("report", "m", "--bucket", "day")
    assert code == 0
    for bucket, row in zip(report["trend"], rows, strict=True):
        grp = next(g for g in bucket["groups"] if g["name"] == "grp")
        metric = "demographic_parity_difference"
        value, (lo, hi) = grp["disparities"][metric], grp["ci95"][metric]
        # the case in point: the value over the threshold, the interval across it
        assert exceeds(value, THRESHOLD) and lo <= THRESHOLD < hi, (value, lo, hi)
        assert grp["status"] == group_status
        assert row[column].endswith(TREND_MARKS[status])
        assert grp["statuses"][metric] == status
        line = next(t for t in text.splitlines() if t.startswith(bucket["day"]))
        assert row[column] in line


@pytest.mark.parametrize("rule", ["interval", "point"])
@pytest.mark.parametrize("bucket", ["month", "100000-rows"])
def test_a_bucket_of_the_whole_window_decides_as_the_evaluation(
    cli: Cli, tmp_path: Path, rule: str, bucket: str
) -> None:
    """One bucket holding every row of the window: each attribute's status and each
    gated disparity's status equal the evaluation's (the same decision, the same Holm
    family: the declared attributes' gated disparities)."""
    _logged(cli, tmp_path, rule)
    report = _report(cli, "--bucket", bucket)
    (only,) = report["trend"]
    assert only["n"] == report["evaluation"]["rows"]["total"]
    evaluation = {g["name"]: g for g in report["evaluation"]["groups"]}
    seen = set()
    for group in only["groups"]:
        full = evaluation[group["name"]]
        assert group["status"] == full["status"], group["name"]
        gated = {d["metric"]: d for d in full["disparities"] if d["gated"]}
        assert group["statuses"] == {m: d["status"] for m, d in gated.items()}, group["name"]
        assert group["disparities"] == {m: d["value"] for m, d in gated.items()}
        seen |= set(group["statuses"].values())
    # not vacuous: the rule decides, and the guard's slices (site Y) are judged by it
    want = {"exceeded", "ok", "insufficient"} if rule == "interval" else {"exceeded", "ok"}
    assert want <= seen, seen
    site = next(g for g in only["groups"] if g["name"] == "site")
    dp = site["statuses"]["demographic_parity_difference"]
    assert dp == ("insufficient" if rule == "interval" else "unmeasured")
