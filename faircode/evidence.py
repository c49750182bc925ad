"""Findings with their evidence, and the balance score (SPEC.md sections 5 and 18).

Every line of a profile is an entry here: a *finding* (a measured claim with its
estimate, n, 95% interval, threshold, Holm-adjusted p and verdict) or a *note*. The
family of a report is every test it made, listed or not; `Findings.close` applies
Holm's correction across it. The JS engine has the same rules in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .numerics import Z, fsum, ln, round_half_up, round_int, rows_text, wilson_bounds

#: SPEC 5: a group under this share of a dimension's rows does not enter its balance...
SCORE_FLOOR = 0.01
#: ... and one from this share on counts fully (linearly between: a group of 3% is half).
SCORE_FULL = 0.05
#: SPEC 5: a dimension whose score interval is wider than this (points) is not scored.
SCORE_CI_WIDTH = 30
#: SPEC 5: the top of the grade one letter better than the worst dimension's grade.
GRADE_CAP = {"F": 54, "D": 69, "C": 84, "B": 100, "A": 100}
#: SPEC 18: the kinds of finding, in the order a report lists them.
FINDING_KINDS = (
    "under_represented",
    "imbalance",
    "missing",
    "reference_gap",
    "intersection_gap",
    "label_gap",
    "missing_gap",
    "outcome_gap",
)
#: SPEC 18: the kinds of note of a profile.
NOTE_KINDS = (
    "more",
    "not_scored",
    "not_measurable",
    "not_counted",
    "cross",
    "contradicted",
    "coded",
    "unscored",
    "no_dimension",
    "label_missing",
    "outcome_missing",
    "reference",
    "representation",
    "proxy",
)
#: SPEC 18.1: the kinds of finding of a comparison, and of its notes.
COMPARE_FINDING_KINDS = ("share_shift", "rate_shift", "missing_shift")
COMPARE_NOTE_KINDS = (
    "score_drop",
    "drift",
    "appeared",
    "disappeared",
    "not_compared",
    "dimension_added",
    "dimension_removed",
)
#: SPEC 18: the kinds whose estimate is a difference of two shares or rates; a report
#: shows their interval in percentage points ("7.0 to 15.6 pts"), and a comparison's
#: findings already carry it in their text, so it shows only their n.
DIFFERENCE_KINDS = ("label_gap", *COMPARE_FINDING_KINDS)
#: SPEC 6: under-represented lines listed per dimension before one "more" line.
UNDER_LINES = 5

_LN2 = ln(2.0)


def grade_for(score: int | None) -> str | None:
    if score is None:
        return None
    for grade, floor in (("A", 85), ("B", 70), ("C", 55), ("D", 40)):
        if score >= floor:
            return grade
    return "F"


def pair_tests(compared: int) -> int:
    """SPEC 18: the tests a block adds to the family when it compares each of `compared`
    groups with the highest of them: every pair, since the data choose the highest."""
    return compared * (compared - 1) // 2


def _balance_parts(
    ps: list[float],
) -> tuple[float, float, list[float], list[float], float, float, list[float], float, float]:
    """SPEC 5's balance of the shares ps with the terms its interval needs:
    (balance, H / L, w, u, U, K, ln(q), H, L); balance and H / L are 0 when U = 0."""
    f = SCORE_FLOOR
    ramp = SCORE_FULL - f
    ws = [min(1.0, max(0.0, (p - f) / ramp)) for p in ps]
    us = [w * p for w, p in zip(ws, ps)]
    big_u = fsum(us)
    big_k = fsum(ws)
    if big_u == 0:
        return 0.0, 0.0, ws, us, big_u, big_k, [], 0.0, _LN2
    logs = [ln(u / big_u) if u > 0 else 0.0 for u in us]
    h = -fsum((u / big_u) * lq for u, lq in zip(us, logs) if u > 0)
    big_l = ln(big_k) if big_k > 2 else _LN2
    ratio = h / big_l
    return min(1.0, ratio), ratio, ws, us, big_u, big_k, logs, h, big_l


def balance(counts: list[int]) -> tuple[float, float]:
    """(balance, half width of its delta-method 95% interval) of SPEC 5 for group counts."""
    n = sum(counts)
    if n == 0:
        return 0.0, 0.0
    f = SCORE_FLOOR
    g = SCORE_FULL
    ps = [c / n for c in counts]
    value, ratio, ws, us, big_u, big_k, logs, h, big_l = _balance_parts(ps)
    if big_u == 0:
        return 0.0, 0.0
    if not ratio < 1:
        return value, 0.0
    slope = 1 / (g - f)
    gs = []
    for p, w, u, lq in zip(ps, ws, us, logs):
        d = slope if f < p < g else 0.0
        a = w + p * d
        hi = -(lq + h) / big_u if u > 0 else 0.0
        dl = d / big_k if big_k > 2 else 0.0
        gs.append((hi * a * big_l - h * dl) / (big_l * big_l))
    mean = fsum(p * g for p, g in zip(ps, gs))
    var = max(0.0, (fsum(p * g * g for p, g in zip(ps, gs)) - mean * mean) / n)
    return value, Z * math.sqrt(var)


def score_bounds(counts: list[int]) -> tuple[float, float, float]:
    """(balance, low, high) of SPEC 5: the delta method's interval, widened to the balance
    with each group whose Wilson interval holds an edge of the weight ramp (SCORE_FLOOR or
    SCORE_FULL) moved to either end of that interval, the other groups' shares kept."""
    value, half = balance(counts)
    lo = max(0.0, value - half)
    hi = min(1.0, value + half)
    n = sum(counts)
    ps = [c / n for c in counts]
    for i, c in enumerate(counts):
        wl, wh = wilson_bounds(c, n)
        if wl < SCORE_FLOOR < wh or wl < SCORE_FULL < wh:
            for q in (wl, wh):
                b = _balance_parts([*ps[:i], q, *ps[i + 1 :]])[0]
                lo = min(lo, b)
                hi = max(hi, b)
    return value, lo, hi


def dimension_score(
    counts: list[int], min_group_size: int
) -> tuple[int | None, list[int] | None, str | None]:
    """(dimension_score, score_ci, score_note) under score rule v3 (SPEC 5)."""
    n = sum(counts)
    least = max(1, min_group_size)
    if n < least:
        return None, None, f"fewer than {rows_text(least)} ({n})"
    if not any(c / n > SCORE_FLOOR for c in counts):
        return None, None, "no group holds 1% of the rows"
    value, lo, hi = score_bounds(counts)
    if 100 * (hi - lo) > SCORE_CI_WIDTH:
        return (
            None,
            None,
            f"the score's interval is wider than {SCORE_CI_WIDTH} points "
            f"({round_int(lo * 100)}-{round_int(hi * 100)})",
        )
    return round_int(value * 100), [round_int(lo * 100), round_int(hi * 100)], None


def _cap(worst: int) -> int:
    return GRADE_CAP[grade_for(worst)]  # type: ignore[index]


def overall_score(dims: list[dict], rule: str) -> tuple[int | None, list[int] | None]:
    """(overall_score, overall_ci) over the scored dimensions (SPEC 5)."""
    scored = [d for d in dims if d["dimension_score"] is not None]
    if not scored:
        return None, None
    k = len(scored)
    mean = round_int(fsum(d["dimension_score"] for d in scored) / k)
    if rule != "v3":
        return mean, None
    worst = min(d["dimension_score"] for d in scored)
    lows = [d["score_ci"][0] for d in scored]
    highs = [d["score_ci"][1] for d in scored]
    ci = [
        min(round_int(fsum(lows) / k), _cap(min(lows))),
        min(round_int(fsum(highs) / k), _cap(min(highs))),
    ]
    return min(mean, _cap(worst)), ci


def _r4(x: float | None) -> float | None:
    return None if x is None else round_half_up(x, 4)


class Findings:
    """The entries of one report, in order, and its family of tests (SPEC 18)."""

    def __init__(self) -> None:
        self.entries: list[dict] = []
        self.tests = 0
        # (raw p, how many findings share it, sink for the verdict of a listed one)
        self._ps: list[tuple[float, int, dict | None]] = []
        self._sinks: list[tuple[dict, int]] = []  # (block, index in _ps) for verdicts
        self._then: list[tuple[Callable[[str, float], None], int]] = []  # (done, index)

    def note(
        self, kind: str, text: str, dims: list[str] | None = None, groups: list | None = None
    ) -> dict:
        entry = _entry(kind, "note", dims, groups, text)
        self.entries.append(entry)
        return entry

    def finding(
        self,
        kind: str,
        text: str,
        *,
        dims: list[str],
        groups: list,
        value: float,
        n: int,
        interval: tuple[float | None, float | None],
        threshold: float,
        p: float,
        sink: dict | None = None,
    ) -> dict:
        """A listed finding; `sink["verdict"]` takes its verdict at close() when given."""
        entry = _entry(kind, "finding", dims, groups, text)
        entry.update(
            value=_r4(value),
            n=n,
            ci_low=_r4(interval[0]),
            ci_high=_r4(interval[1]),
            threshold=threshold,
            p=p,
        )
        self.entries.append(entry)
        self._ps.append((p, 1, entry))
        if sink is not None:
            self._sinks.append((sink, len(self._ps) - 1))
        return entry

    def unlisted(self, p: float, count: int = 1, sink: dict | None = None) -> None:
        """Findings past a listing cap: in the family and the counts, not in the list;
        `sink["verdict"]` takes their verdict when given."""
        if count:
            self._ps.append((p, count, None))
            if sink is not None:
                self._sinks.append((sink, len(self._ps) - 1))

    def pending(self, p: float, done: Callable[[str, float], None]) -> None:
        """A test beyond its threshold whose report is written at close() (a comparison's
        drift level, SPEC 18.1): in the family and the counts, not a listed finding;
        `done(verdict, adjusted p rounded to 4 dp)` is called then."""
        self._ps.append((p, 1, None))
        self._then.append((done, len(self._ps) - 1))

    def close(self, alpha: float) -> tuple[list[dict], dict]:
        """(findings, evidence): Holm's adjusted p and the verdict of every finding."""
        m = max(self.tests, sum(c for _, c, _ in self._ps))
        order = sorted(range(len(self._ps)), key=lambda i: (self._ps[i][0], i))
        rank = 0
        running = 0.0
        confirmed = possible = 0
        verdicts: dict[int, str] = {}
        adjusted: dict[int, float] = {}
        for i in order:
            p, count, entry = self._ps[i]
            running = max(running, min(1.0, (m - rank) * p))
            rank += count
            verdict = "confirmed" if running < alpha else "possible"
            verdicts[i] = verdict
            adjusted[i] = running
            if verdict == "confirmed":
                confirmed += count
            else:
                possible += count
            if entry is not None:
                entry["p"] = round_half_up(running, 4)
                entry["verdict"] = verdict
        for block, i in self._sinks:
            block["verdict"] = verdicts[i]
        for done, i in self._then:
            done(verdicts[i], round_half_up(adjusted[i], 4))
        evidence = {
            "alpha": alpha,
            "correction": "holm",
            "tests": m,
            "confirmed": confirmed,
            "possible": possible,
        }
        return self.entries, evidence


def _entry(kind: str, severity: str, dims, groups, text: str) -> dict:
    return {
        "kind": kind,
        "severity": severity,
        "dimensions": list(dims or []),
        "groups": list(groups or []),
        "value": None,
        "n": None,
        "ci_low": None,
        "ci_high": None,
        "threshold": None,
        "p": None,
        "verdict": None,
        "text": text,
    }
