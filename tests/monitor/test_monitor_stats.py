"""Wilson intervals and the exceed rule of faircode.monitor."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from faircode.monitor.stats import exceeds, round12, wilson_interval
from faircode.numerics import Z as Z95


# Newcombe (1998), "Two-sided confidence intervals for the single proportion",
# Statistics in Medicine 17:857-872, Table II, method 3 (Wilson score, no correction).
@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_published_values(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(k, n)
    assert round(lo, 4) == low
    assert round(hi, 4) == high


def test_wilson_uses_the_exact_95_quantile() -> None:
    assert Z95 == 1.959963984540054
    # all successes: the upper bound is 1 and the lower bound is n / (n + z^2)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0
    assert lo == pytest.approx(10 / (10 + Z95**2), abs=1e-15)


def test_wilson_is_undefined_without_observations() -> None:
    assert wilson_interval(0, 0) is None


@given(
    st.integers(min_value=1, max_value=10_000).flatmap(
        lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
    )
)
def test_wilson_brackets_the_observed_rate(kn: tuple[int, int]) -> None:
    k, n = kn
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_exceed_rule_is_strict_and_ignores_float_noise() -> None:
    noisy = 0.1 + 0.2
    assert noisy > 0.3  # the float noise the rule has to absorb
    assert not exceeds(noisy, 0.3)
    assert not exceeds(0.3, 0.3)  # equal to the threshold is within it
    assert exceeds(0.3 + 6e-13, 0.3)
    assert not exceeds(0.3 + 4e-13, 0.3)
    assert exceeds(0.31, 0.3)
    assert not exceeds(0.29, 0.3)
    assert round12(noisy) == 0.3


@given(st.floats(min_value=0, max_value=1), st.floats(min_value=0, max_value=1))
def test_exceed_rule_agrees_with_plain_comparison_away_from_the_boundary(
    value: float, threshold: float
) -> None:
    if abs(value - threshold) > 1e-11:
        assert exceeds(value, threshold) == (value > threshold)
    assert exceeds(value, threshold) == (
        math.floor(value * 1e12 + 0.5) > math.floor(threshold * 1e12 + 0.5)
    )
