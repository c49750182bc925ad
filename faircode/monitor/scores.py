"""Score metrics per slice (``--score``, binary task): ROC AUC and calibration (SPEC 12.4).

Everything here is a function of one mergeable **score table**: per slice and distinct
score value, the counts of labelled positives and labelled negatives with that score.
A file gives it by sorting its labelled rows (:func:`table_from_rows`), the prediction
store by a SQL ``GROUP BY`` over its rows (:func:`table_from_cube` adds up the partial
counts), and :func:`score_metrics` computes the same numbers from either:

- **AUC**, the Mann-Whitney form over each slice's sorted distinct scores:
  ``sum_s pos(s) * (neg(< s) + neg(s) / 2) / (P * N)``: a tie of a positive and a
  negative counts one half, as scikit-learn's ``roc_auc_score``; null when the slice has
  no labelled positive or no labelled negative. Its ``ci95`` is Newcombe's (2006)
  score-type interval: the AUCs ``A`` whose distance from the estimate is at most ``z``
  standard errors evaluated at ``A`` itself (:func:`auc_variance`, Hanley and McNeil's
  closed form with Newcombe's pooled class size), as Wilson's interval is for a rate.
- **Calibration**: the scores on the probability scale of :func:`score_scale` (as they
  are when every labelled score lies in [0, 1], else min-max scaled over the labelled
  scores of the whole report), 10 equal-width bins over [0, 1] (bin ``k`` holds
  ``k/10 <= s < (k+1)/10``, the last also ``s = 1``), per bin the count, positives, mean
  score and observed positive rate; **ECE** = ``sum_b count_b / n * |observed_b -
  mean_b|``; **Brier** = mean of ``(score - label)^2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Equal-width reliability bins over [0, 1] (SPEC 12.4).
N_BINS = 10
#: Inner bin edges k/10 (the doubles nearest them); a score equal to an edge opens the
#: bin above it.
BIN_EDGES = np.arange(1, N_BINS) / N_BINS


@dataclass(frozen=True)
class ScoreTable:
    """Per (slice, distinct score), labelled positives and negatives; sorted by slice
    then score, one row per pair."""

    slice: np.ndarray  # int64
    score: np.ndarray  # float64
    pos: np.ndarray  # float64 (whole counts)
    neg: np.ndarray  # float64 (whole counts)
    # with sample weights (SPEC 12.4): the sums of the weights, and of their squares, of
    # the positives and negatives at each (slice, score); None without weights
    wpos: np.ndarray | None = None
    wneg: np.ndarray | None = None
    w2pos: np.ndarray | None = None
    w2neg: np.ndarray | None = None


def _collapse(
    slices: np.ndarray,
    scores: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    weights: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> ScoreTable:
    """Sort by (slice, score) and add up the rows of equal pairs (and their weights)."""
    if len(slices) == 0:
        empty = np.zeros(0)
        w = None if weights is None else (empty, empty, empty, empty)
        return ScoreTable(np.zeros(0, dtype=np.int64), empty, empty, empty, *(w or ()))
    order = np.lexsort((scores, slices))
    s, x = slices[order], scores[order]
    start = np.ones(len(s), dtype=bool)
    start[1:] = (s[1:] != s[:-1]) | (x[1:] != x[:-1])
    idx = np.flatnonzero(start)

    def add(a: np.ndarray) -> np.ndarray:
        return np.add.reduceat(np.asarray(a, dtype=np.float64)[order], idx)

    extra = () if weights is None else tuple(add(a) for a in weights)
    return ScoreTable(
        s[idx].astype(np.int64), x[idx].astype(np.float64), add(pos), add(neg), *extra
    )


def table_from_rows(
    codes: np.ndarray, score: np.ndarray, label: np.ndarray, weight: np.ndarray | None = None
) -> ScoreTable:
    """The score table of scored rows (``label`` NaN: not labelled, left out), with the
    sums of ``weight`` (sample weights) per class when given."""
    lab = ~np.isnan(label)
    y = label[lab]
    pos, neg = (y == 1).astype(float), (y == 0).astype(float)
    weights = None
    if weight is not None:
        w = weight[lab]
        weights = (w * pos, w * neg, w * w * pos, w * w * neg)
    return _collapse(codes[lab], score[lab], pos, neg, weights)


def table_from_cube(
    codes: np.ndarray,
    score: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    weights: tuple[np.ndarray, ...] | None = None,
) -> ScoreTable:
    """The score table from partial counts (e.g. the rows of a SQL ``GROUP BY`` by
    finer cells), ``codes`` mapping each row to its slice; ``weights`` the partial sums
    of the weights of the positives and negatives and of their squares (sample weights)."""
    extra = None
    if weights is not None:
        wpos, wneg, w2pos, w2neg = (np.asarray(w, dtype=np.float64) for w in weights)
        extra = (wpos, wneg, w2pos, w2neg)
    return _collapse(
        np.asarray(codes, dtype=np.int64),
        np.asarray(score, dtype=np.float64),
        np.asarray(pos, dtype=np.float64),
        np.asarray(neg, dtype=np.float64),
        extra,
    )


def labelled_scores(table: ScoreTable) -> np.ndarray:
    """The distinct scores of the table's labelled rows (what :func:`score_scale` reads)."""
    return table.score[(table.pos + table.neg) > 0]


def score_scale(scores: np.ndarray) -> dict[str, Any]:
    """How scores become probabilities for calibration (the report's ``calibration``).

    ``scores`` are the labelled scores (repeats allowed). ``identity`` when every one
    lies in [0, 1]; else ``min-max``, ``(s - min) / (max - min)`` over the labelled
    scores of the whole report (every slice on one scale); ``none`` when there is no
    labelled score or they are all one value outside [0, 1] (Brier, ECE and the bins
    are then null).
    """
    if len(scores) == 0:
        return {"bins": N_BINS, "scale": "none", "min": None, "max": None}
    lo, hi = float(np.min(scores)), float(np.max(scores))
    if lo >= 0.0 and hi <= 1.0:
        scale = "identity"
    elif hi > lo:
        scale = "min-max"
    else:
        scale = "none"
    return {"bins": N_BINS, "scale": scale, "min": lo, "max": hi}


def scaled(score: np.ndarray, scale: dict[str, Any]) -> np.ndarray | None:
    """Scores on the probability scale of ``scale`` (None: no such scale)."""
    if scale["scale"] == "identity":
        return score
    if scale["scale"] == "min-max":
        return (score - scale["min"]) / (scale["max"] - scale["min"])
    return None


def bin_of(p: np.ndarray) -> np.ndarray:
    """The reliability bin (0..9) of each probability."""
    return np.searchsorted(BIN_EDGES, p, side="right")


def auc_variance(auc: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray) -> np.ndarray:
    """The variance of an AUC estimate from ``n_pos`` positives and ``n_neg`` negatives
    when the true AUC is ``auc`` (SPEC 12.4): Hanley and McNeil's (1982) closed form
    ``A (1 - A) (1 + (P - 1)(1 - A) / (2 - A) + (N - 1) A / (1 + A)) / (P N)`` with
    Newcombe's (2006) ``P - 1`` and ``N - 1`` both ``(P + N) / 2 - 1`` (Hanley-McNeil's
    own weights cover 78% to 88% with many more positives than negatives)."""
    a = np.asarray(auc, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (n_pos + n_neg) / 2.0 - 1.0
        bracket = 1.0 + pooled * ((1.0 - a) / (2.0 - a) + a / (1.0 + a))
        return np.maximum(a * (1.0 - a) * bracket / (n_pos * n_neg), 0.0)


#: Bisection steps of :func:`auc_bounds`: 2^-60 of [0, 1], below a double's resolution.
AUC_BISECTIONS = 60


def auc_bounds(
    auc: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray, z: float
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's score-type interval of each AUC at quantile ``z`` (SPEC 12.4): the A in
    [0, 1] with ``(auc - A)^2 <= z^2 * auc_variance(A, P, N)``, each end found by
    bisection (NaN where the AUC is undefined). Unlike ``auc +- z * se(auc)`` it has a
    width at an AUC of 0 or 1 (5 and 5 rows perfectly separated: [0.643, 1])."""
    a = np.asarray(auc, dtype=np.float64)
    p = np.broadcast_to(np.asarray(n_pos, dtype=np.float64), a.shape)
    n = np.broadcast_to(np.asarray(n_neg, dtype=np.float64), a.shape)
    ok = np.isfinite(a) & (p > 0) & (n > 0)
    a = np.where(ok, a, 0.5)
    z2 = z * z

    def outside(t: np.ndarray) -> np.ndarray:
        return (a - t) ** 2 > z2 * auc_variance(t, p, n)

    # the low end lies in [0, a] (0 is outside unless a is), the high end in [a, 1]
    lo_out, lo_in = np.zeros_like(a), a.copy()
    hi_in, hi_out = a.copy(), np.ones_like(a)
    for _ in range(AUC_BISECTIONS):
        mid = (lo_out + lo_in) / 2.0
        out = outside(mid)
        lo_out, lo_in = np.where(out, mid, lo_out), np.where(out, lo_in, mid)
        mid = (hi_in + hi_out) / 2.0
        out = outside(mid)
        hi_in, hi_out = np.where(out, hi_in, mid), np.where(out, mid, hi_out)
    # an end at 0 or 1 that is inside stays there (bisection only approaches it)
    low = np.where(outside(np.zeros_like(a)), lo_in, 0.0)
    high = np.where(outside(np.ones_like(a)), hi_in, 1.0)
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def auc_interval(auc: float, n_pos: float, n_neg: float, z: float) -> list[float] | None:
    """:func:`auc_bounds` of one AUC; None when undefined."""
    if auc is None or math.isnan(auc) or n_pos <= 0 or n_neg <= 0:
        return None
    lo, hi = auc_bounds(np.array([auc]), np.array([n_pos]), np.array([n_neg]), z)
    return [float(lo[0]), float(hi[0])]


def _below(x: np.ndarray, sl: np.ndarray, g: int) -> np.ndarray:
    """Per table row, the sum of ``x`` over the rows before it in the same slice."""
    if not len(sl):
        return np.zeros(0)
    cum = np.concatenate(([0.0], np.cumsum(x)[:-1]))  # exclusive: zeros add nothing
    first = np.minimum(np.searchsorted(sl, np.arange(g), side="left"), len(sl) - 1)
    return cum - cum[first][sl]


def score_metrics(table: ScoreTable, n_slices: int, scale: dict[str, Any]) -> dict[str, Any]:
    """Per slice: ``auc``, ``brier``, ``ece`` (NaN where undefined), the AUC's classes
    ``n_auc_pos``, ``n_auc_neg`` and count ``n_auc`` (the smaller class: the low-n guard),
    ``n_scored_labelled`` (Brier's and ECE's count) and ``calibration`` (a list per
    slice of its non-empty bins)."""
    g = n_slices
    sl, cpos, cneg = table.slice, table.pos, table.neg
    n_pos = np.bincount(sl, weights=cpos, minlength=g)
    n_neg = np.bincount(sl, weights=cneg, minlength=g)
    # the values are weighted when the table has sample weights (SPEC 12.4): every count
    # below is then a sum of weights; the reported counts stay whole
    weighted = table.wpos is not None and table.wneg is not None
    pos = table.wpos if table.wpos is not None else cpos
    neg = table.wneg if table.wneg is not None else cneg
    v_pos = np.bincount(sl, weights=pos, minlength=g)
    v_neg = np.bincount(sl, weights=neg, minlength=g)
    # negatives with a lower score in the same slice: a cumulative sum restarted per slice
    cum = np.cumsum(neg) - neg
    below = cum
    if len(sl):
        first = np.minimum(np.searchsorted(sl, np.arange(g), side="left"), len(sl) - 1)
        below = cum - cum[first][sl]
    u = np.bincount(sl, weights=pos * (below + 0.5 * neg), minlength=g)
    pairs = v_pos * v_neg
    if weighted:
        # sums of weights are rounded: divide by the concordant plus the discordant
        # weight (P * N in exact arithmetic), so a slice with no discordant pair has an
        # AUC of exactly 1 (and its interval the one of a perfect slice), as scikit-learn's
        below = _below(neg, sl, g)
        u = np.bincount(sl, weights=pos * (below + 0.5 * neg), minlength=g)
        # discordant: each negative with the positives below it (ties: the other half)
        disc = np.bincount(sl, weights=neg * (_below(pos, sl, g) + 0.5 * pos), minlength=g)
        pairs = u + disc
    with np.errstate(divide="ignore", invalid="ignore"):
        auc = np.where((v_pos > 0) & (v_neg > 0), u / pairs, np.nan)
    n_count = n_pos + n_neg
    n = v_pos + v_neg
    out: dict[str, Any] = {
        "auc": auc,
        "n_auc_pos": n_pos,
        "n_auc_neg": n_neg,
        "n_auc": np.minimum(n_pos, n_neg),
        "n_scored_labelled": n_count,
        "brier": np.full(g, np.nan),
        "ece": np.full(g, np.nan),
        "calibration": [None] * g,
    }
    if weighted:
        assert table.w2pos is not None and table.w2neg is not None
        w2_pos = np.bincount(sl, weights=table.w2pos, minlength=g)
        w2_neg = np.bincount(sl, weights=table.w2neg, minlength=g)
        with np.errstate(divide="ignore", invalid="ignore"):
            eff_pos = np.where(w2_pos > 0, v_pos * v_pos / w2_pos, 0.0)
            eff_neg = np.where(w2_neg > 0, v_neg * v_neg / w2_neg, 0.0)
            w2 = w2_pos + w2_neg
            eff = np.where(w2 > 0, n * n / w2, 0.0)
        out.update(
            w_eff_auc_pos=eff_pos,
            w_eff_auc_neg=eff_neg,
            w_eff_auc=np.minimum(eff_pos, eff_neg),
            w_eff_scored=eff,
        )
    p = scaled(table.score, scale)
    if p is None:
        return out
    sq = pos * (p - 1.0) * (p - 1.0) + neg * p * p
    b = bin_of(p)
    cell = sl * N_BINS + b
    size = g * N_BINS
    rows = np.bincount(cell, weights=cpos + cneg, minlength=size).reshape(g, N_BINS)
    row_hits = np.bincount(cell, weights=cpos, minlength=size).reshape(g, N_BINS)
    count = np.bincount(cell, weights=pos + neg, minlength=size).reshape(g, N_BINS)
    hits = np.bincount(cell, weights=pos, minlength=size).reshape(g, N_BINS)
    total = np.bincount(cell, weights=(pos + neg) * p, minlength=size).reshape(g, N_BINS)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["brier"] = np.where(n > 0, np.bincount(sl, weights=sq, minlength=g) / n, np.nan)
        mean = total / count
        observed = hits / count
        gap = np.where(count > 0, count / n[:, None] * np.abs(observed - mean), 0.0)
    out["ece"] = np.where(n > 0, gap.sum(axis=1), np.nan)
    # a bin's rows are listed when it has any; with weights, a bin whose rows all weigh 0
    # has no mean score or observed rate (its weight is 0), and is left out
    count, hits = rows, row_hits
    if weighted:
        count = np.where(np.isnan(mean), 0.0, rows)
    out["calibration"] = [
        None
        if n[i] == 0 or n_count[i] == 0
        else [
            {
                "bin": k,
                "low": k / N_BINS,
                "high": (k + 1) / N_BINS,
                "count": int(count[i, k]),
                "positives": int(hits[i, k]),
                "mean_score": float(mean[i, k]),
                "observed_rate": float(observed[i, k]),
            }
            for k in range(N_BINS)
            if count[i, k] > 0
        ]
        for i in range(g)
    ]
    return out
