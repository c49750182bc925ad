"""Shared test helpers."""

from __future__ import annotations

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
    return faircode.profile(io.BytesIO(data), overrides, opts, name="t.csv")


def dim(result: dict, name: str) -> dict:
    return next(d for d in result["dimensions"] if d["name"] == name)


def counts(result: dict, name: str) -> dict:
    return {g["label"]: g["count"] for g in dim(result, name)["groups"]}
