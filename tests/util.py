"""Shared test helpers."""

from __future__ import annotations

import gc
import io
from pathlib import Path

from datafiles import data_file  # noqa: F401  (the datasets of tests/data, for the tests)

import faircode

ROOT = Path(__file__).resolve().parents[1]
ADULT_NAMES = (
    "age,workclass,fnlwgt,education,education-num,marital-status,occupation,"
    "relationship,race,sex,capital-gain,capital-loss,hours-per-week,native-country,"
    "income"
)


def prof(data: bytes | str, overrides=None, **opts) -> dict:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return faircode.profile(io.BytesIO(data), overrides=overrides, opts=opts, name="t.csv")


def dim(result: dict, name: str) -> dict:
    return next(d for d in result["dimensions"] if d["name"] == name)


def counts(result: dict, name: str) -> dict:
    return {g["label"]: g["count"] for g in dim(result, name)["groups"]}


def multipletests(pvals, alpha: float = 0.05, method: str = "holm"):
    """statsmodels' ``multipletests``, the independent reference for Holm's correction.

    Its Holm branch ends with a full ``gc.collect()`` on every call, which in a test
    process's heap costs 0.1-0.4 s and once took 111 s of a run. Its results do not
    depend on that collection, so it is skipped here for the call; everything else is
    statsmodels' own code.
    """
    from statsmodels.stats import multitest

    collect = gc.collect
    gc.collect = lambda generation=2: 0
    try:
        return multitest.multipletests(pvals, alpha=alpha, method=method)
    finally:
        gc.collect = collect
