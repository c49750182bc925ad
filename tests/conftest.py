"""Shared pytest configuration.

Hypothesis profiles, selected with the HYPOTHESIS_PROFILE environment variable:
  ci   (default) derandomized, 500 examples per test: fixed and reproducible in CI;
  deep 20,000 examples, random: `HYPOTHESIS_PROFILE=deep pytest tests/test_js_parity.py`.
Tests that set max_examples themselves keep their own value.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

# the prediction-store tests' fixtures (SQLite and PostgreSQL stores, the in-process CLI)
from storeutil import cli, db, pg_server_url  # noqa: F401

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=500,
    deadline=None,
    database=None,
    suppress_health_check=_SLOW_OK,
)
settings.register_profile(
    "deep", max_examples=20_000, deadline=None, suppress_health_check=_SLOW_OK
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def js():
    """One persistent node bridge process (tests/jsbridge.py) for the whole session."""
    from jsbridge import JSEngine, NodeMissing

    try:
        engine = JSEngine()
    except NodeMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    yield engine
    engine.close()
