'use strict';
// SPEC 13.1 (the evidence functions), 5 (score v3, its interval, the capped overall
// score) and 18 (findings, verdicts and the family), JS engine.
//
// tests/js/evidence-reference.json holds, for each case, an independent reference
// (scipy.stats.norm.sf, statsmodels' proportion_confint / confint_proportions_2indep
// 'newcomb' and 'log' / proportions_ztest / multipletests 'holm', math.exp) and the
// Python engine's own value; it is written by tests/js/evidence_reference.py. The JS
// engine must be within 1e-12 of the reference and bit-identical to the Python engine.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { E, run, dim } = require('./helpers');

const REF = JSON.parse(fs.readFileSync(path.join(__dirname, 'evidence-reference.json'), 'utf8'));
const Z = 1.959963984540054;
const TOL = 1e-12;

function near(got, want, tol, what) {
  assert.ok(Math.abs(got - want) <= tol, `${what}: ${got} vs ${want} (|d| = ${Math.abs(got - want)})`);
}

function nearRel(got, want, tol, what) {
  assert.ok(Math.abs(got - want) <= tol * Math.abs(want), `${what}: ${got} vs ${want}`);
}

// ---- SPEC 13.1 -----------------------------------------------------------------------

test('exp: within 1e-12 (relative) of math.exp, the Python engine\'s bits, 0 below -708', () => {
  assert.ok(REF.exp.length > 50);
  for (const [x, want, py] of REF.exp) {
    const got = E.exp(x);
    nearRel(got, want, TOL, `exp(${x})`);
    assert.equal(got, py, `exp(${x}) differs from faircode.numerics.exp`);
  }
  assert.equal(E.exp(0), 1);
  assert.equal(E.exp(-708.0000001), 0);
  assert.equal(E.exp(-1e300), 0);
  // 2^k is exact: the result at k * ln 2 is a power of two times s, s near 1
  assert.equal(E.exp(-707.9), E.exp(-707.9)); // no hidden state between calls
});

test('the engine computes exp, log and powers from basic operations only', () => {
  // SPEC 13 / 13.1: Math.exp, Math.log and Math.pow may differ in the last bit between
  // platforms; the engine never calls them (2^k is built from its exponent bits).
  const src = E.factory.toString();
  for (const banned of ['Math.exp(', 'Math.log(', 'Math.pow(', 'Math.log2(', 'Math.log1p(', 'Math.expm1(']) {
    assert.ok(!src.includes(banned), banned);
  }
  assert.ok(!/[\w)\]]\s*\*\*\s*[\w(]/.test(src), 'the ** operator');
});

test('Q(z): within 1e-12 of scipy.stats.norm.sf, the Python engine\'s bits', () => {
  assert.ok(REF.Q.length > 50);
  for (const [z, want, py] of REF.Q) {
    const got = E.normalUpper(z);
    near(got, want, TOL, `Q(${z})`);
    // in the far tail, where the p-values of large tables live, relatively too
    if (z >= 3 && want > 1e-300) nearRel(got, want, 1e-12, `Q(${z}) relative`);
    assert.equal(got, py, `Q(${z}) differs from faircode.numerics.normal_upper`);
  }
  assert.equal(E.normalUpper(0), 0.5);
  assert.equal(E.normalUpper(-Z), 1 - E.normalUpper(Z));
});

test('wilsonAt: statsmodels proportion_confint(method="wilson") at any z; at Z it is SPEC 3\'s', () => {
  for (const [c, n, z, want, py] of REF.wilson) {
    const got = E.wilsonAt(c, n, z);
    near(got[0], want[0], TOL, `wilson(${c}, ${n}, ${z}) low`);
    near(got[1], want[1], TOL, `wilson(${c}, ${n}, ${z}) high`);
    assert.deepEqual(got, py);
  }
  // at Z the profile's Wilson interval (rounded to 4 dp in the result)
  const r = run('sex\n' + 'M\n'.repeat(5819) + 'F\n'.repeat(1395));
  const male = dim(r, 'sex').groups[0];
  const [lo, hi] = E.wilsonAt(5819, 7214, Z);
  assert.deepEqual([male.ci_low, male.ci_high], [E.roundHalfUp(lo, 4), E.roundHalfUp(hi, 4)]);
});

test('newcombe: statsmodels confint_proportions_2indep(method="newcomb") to 1e-12', () => {
  assert.ok(REF.newcombe.length > 100);
  for (const [c1, n1, c2, n2, z, want, py] of REF.newcombe) {
    const got = E.newcombe(c1, n1, c2, n2, z);
    near(got[0], want[0], TOL, `newcombe(${c1}/${n1} - ${c2}/${n2}, ${z}) low`);
    near(got[1], want[1], TOL, `newcombe(${c1}/${n1} - ${c2}/${n2}, ${z}) high`);
    assert.deepEqual(got, py);
  }
});

test('logRatioInterval: statsmodels confint_proportions_2indep(method="log", compare="ratio") to 1e-12', () => {
  assert.ok(REF.log_ratio.length > 100);
  for (const [c1, n1, c2, n2, z, want, py] of REF.log_ratio) {
    const got = E.logRatioInterval(c1, n1, c2, n2, z);
    nearRel(got[0], want[0], TOL, `log ratio (${c1}/${n1}) / (${c2}/${n2}) at ${z} low`);
    nearRel(got[1], want[1], TOL, `log ratio (${c1}/${n1}) / (${c2}/${n2}) at ${z} high`);
    assert.deepEqual(got, py);
  }
  for (const [c1, n1, c2, n2] of REF.log_ratio_null) assert.equal(E.logRatioInterval(c1, n1, c2, n2, Z), null);
});

test('katzInterval: Katz, or at a zero cell statsmodels\' log interval of c + 0.5 of n + 1 widened to hold the ratio, to 1e-12', () => {
  assert.ok(REF.katz.length > 100);
  let zero = 0;
  for (const [c1, n1, c2, n2, z, want, py] of REF.katz) {
    const got = E.katzInterval(c1, n1, c2, n2, z);
    const what = `katz (${c1}/${n1}) / (${c2}/${n2}) at ${z}`;
    if (want[0] === 0) assert.equal(got[0], 0, `${what} low`);
    else nearRel(got[0], want[0], TOL, `${what} low`);
    nearRel(got[1], want[1], TOL, `${what} high`);
    assert.deepEqual(got, py);
    if (!(0 < c1 && c1 < n1 && c2 < n2)) zero += 1;
  }
  assert.ok(zero >= 27, 'the zero-cell tables are in the reference');
  // two groups all positive: no longer Katz's [1, 1]
  const [lo, hi] = E.katzInterval(20, 20, 20, 20, Z);
  assert.ok(lo < 1 && hi > 1);
});

test('scoreP: the score test\'s two-sided p (statsmodels proportions_ztest, prop_var=t), 1 unless beyond', () => {
  let beyond = 0;
  for (const [c, n, t, below, want, py] of REF.score_p) {
    const got = E.scoreP(c, n, t, below);
    if (want === null) assert.equal(got, 1, `scoreP(${c}, ${n}, ${t}, ${below})`);
    else { near(got, want, TOL, `scoreP(${c}, ${n}, ${t}, ${below})`); beyond++; }
    assert.equal(got, py);
  }
  assert.ok(beyond > 20);
  // Wilson's interval inverts this test: p < 0.05 exactly when the 95% bound is beyond t
  for (let n = 20; n <= 400; n += 19) {
    for (let c = 0; c <= n; c++) {
      for (const t of [0.05, 0.1, 0.5, 0.9]) {
        const [lo, hi] = E.wilsonAt(c, n, Z);
        const pBelow = E.scoreP(c, n, t, true);
        const pAbove = E.scoreP(c, n, t, false);
        // away from the boundary itself (where the two differ only by rounding)
        if (Math.abs(hi - t) > 1e-9) assert.equal(pBelow < 0.05, hi < t, `below: ${c}/${n} vs ${t}`);
        if (Math.abs(lo - t) > 1e-9) assert.equal(pAbove < 0.05, lo > t, `above: ${c}/${n} vs ${t}`);
      }
    }
  }
});

test('searchP over Newcombe\'s lower bound: the p whose interval meets label_gap (statsmodels + brentq)', () => {
  let measured = 0;
  for (const [c1, n1, c2, n2, gap, want, py] of REF.search_p) {
    const got = E.searchP((z) => E.newcombe(c1, n1, c2, n2, z)[0] > gap);
    if (want === null) assert.equal(got, 1);
    else { near(got, want, TOL, `searchP(${c1}/${n1} - ${c2}/${n2} > ${gap})`); measured++; }
    assert.equal(got, py);
    // p < 0.05 exactly when the 95% interval lies above the gap (off the boundary)
    const lo = E.newcombe(c1, n1, c2, n2, Z)[0];
    if (Math.abs(lo - gap) > 1e-9) assert.equal(got < 0.05, lo > gap);
  }
  assert.ok(measured > 15);
  assert.equal(E.searchP(() => false), 1);
  assert.equal(E.searchP(() => true), 2 * E.normalUpper(40));
});

test('holm: statsmodels multipletests(method="holm") with the family padded by p = 1', () => {
  for (const [ps, m, want, py] of REF.holm) {
    const got = E.holm(ps, m);
    assert.equal(got.length, ps.length);
    got.forEach((x, i) => near(x, want[i], TOL, `holm(${JSON.stringify(ps)}, ${m})[${i}]`));
    assert.deepEqual(got, py);
  }
  // in the order given; ties share the adjusted p of the first of them
  assert.deepEqual(E.holm([0.04, 0.01, 0.04], 3), [0.08, 0.03, 0.08]);
  assert.deepEqual(E.holm([0.01], 100), [1]);
});

// ---- SPEC 5: the score ---------------------------------------------------------------

test('balance and dimensionScore: the Python engine\'s bits (faircode.evidence)', () => {
  assert.ok(REF.score.length > 60);
  for (const [counts, size, bal, score] of REF.score) {
    assert.deepEqual(E.balance(counts), bal, `balance(${JSON.stringify(counts)})`);
    assert.deepEqual(E.dimensionScore(counts, size), score, `dimensionScore(${JSON.stringify(counts)}, ${size})`);
  }
});

test('score v3: the SPEC 5 rules and notes', () => {
  // COMPAS sex and race (SPEC 5): 71 and 78; race leaves its 32 and 18 rows out
  assert.deepEqual(E.dimensionScore([5819, 1395], 100), [71, [69, 73], null]);
  assert.equal(E.dimensionScore([3696, 2454, 637, 377, 32, 18], 100)[0], 78);
  // a balanced pair is 100, a point interval; one group is 0
  assert.deepEqual(E.dimensionScore([500, 500], 100), [100, [100, 100], null]);
  assert.deepEqual(E.dimensionScore([1000], 100), [0, [0, 0], null]);
  // too few rows to score, in the order of SPEC 5, with max(1, min_group_size)
  assert.deepEqual(E.dimensionScore([40, 30], 100), [null, null, 'fewer than 100 rows (70)']);
  assert.deepEqual(E.dimensionScore([], 0), [null, null, 'fewer than 1 row (0)']);
  assert.deepEqual(E.dimensionScore(Array(300).fill(1), 100), [null, null, 'no group holds 1% of the rows']);
  assert.equal(E.dimensionScore(Array(300).fill(1), 100)[2], 'no group holds 1% of the rows');
  assert.deepEqual(E.dimensionScore([20, 5], 0), [null, null, "the score's interval is wider than 30 points (41-100)"]);
  assert.deepEqual(E.dimensionScore([40, 30, 5], 0), [80, [70, 91], null]);
  // the interval contains the score, and only a scored dimension has one
  for (const [counts, size] of REF.score.map((r) => [r[0], r[1]])) {
    const [s, ci, note] = E.dimensionScore(counts, size);
    if (s === null) { assert.equal(ci, null); assert.equal(typeof note, 'string'); continue; }
    assert.ok(ci[0] <= s && s <= ci[1] && ci[1] - ci[0] <= 30, JSON.stringify(counts));
    assert.equal(note, null);
  }
});

test('overall score: the mean capped at one letter above the worst dimension; the interval likewise', () => {
  const d = (s, ci) => ({ dimension_score: s, score_ci: ci });
  // SPEC 5: F -> 54, D -> 69, C -> 84, B or A -> 100
  assert.deepEqual(E.overallScore([d(20, [18, 22])].concat(Array(4).fill(d(100, [99, 100]))), 'v3'), [54, [54, 54]]);
  assert.deepEqual(E.overallScore([d(45, [40, 50]), d(99, [98, 100])], 'v3'), [69, [69, 69]]);
  assert.deepEqual(E.overallScore([d(60, [55, 65]), d(99, [98, 100])], 'v3'), [80, [77, 83]]);
  assert.deepEqual(E.overallScore([d(75, [70, 80]), d(99, [98, 100])], 'v3'), [87, [84, 90]]);
  // not scored dimensions do not enter; none scored is null
  assert.deepEqual(E.overallScore([d(null, null), d(90, [88, 92])], 'v3'), [90, [88, 92]]);
  assert.deepEqual(E.overallScore([d(null, null)], 'v3'), [null, null]);
  assert.deepEqual(E.overallScore([], 'v3'), [null, null]);
  // v2 and seed: the plain mean, no interval
  assert.deepEqual(E.overallScore([d(20, null), d(100, null)], 'v2'), [60, null]);
});

// ---- Properties (SPEC 5 and issue 24) -------------------------------------------------

function prng(seed) {
  let s = seed;
  return () => { s = (s * 16807) % 2147483647; return (s - 1) / 2147483646; };
}

/** Random group counts of a dimension with at least 200 rows: big groups, stray rows
 * and groups around the 1%..5% ramp. */
function randomCounts(rnd) {
  const k = 1 + Math.floor(rnd() * (rnd() < 0.3 ? 40 : 12));
  const n0 = 200 + Math.floor(rnd() * (rnd() < 0.6 ? 600 : 20000));
  const mode = rnd();
  const weights = [];
  for (let i = 0; i < k; i++) {
    if (mode < 0.3) weights.push(rnd());
    else if (mode < 0.6) weights.push(0.005 + rnd() * 0.05);
    else weights.push(rnd() < 0.5 ? rnd() : rnd() * 0.03);
  }
  const total = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.max(1, Math.round((w / total) * n0)));
  let n = counts.reduce((a, b) => a + b, 0);
  if (n < 200) { counts.push(200 - n); n = 200; }
  return counts;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const rawScore = (counts) => E.balance(counts)[0] * 100;

test('property: a new one-row label or removing a group under 1% of >= 200 rows moves a score by at most 2', () => {
  const rnd = prng(2024);
  let removals = 0;
  let bothScored = 0;
  for (let t = 0; t < 20000; t++) {
    const counts = randomCounts(rnd);
    const n = sum(counts);
    assert.ok(n >= 200);
    const before = E.dimensionScore(counts, 100);
    const changed = [counts.concat([1])];
    counts.forEach((c, i) => { if (c / n < 0.01) changed.push(counts.filter((_, j) => j !== i)); });
    removals += changed.length - 1;
    for (const after of changed) {
      const what = `${JSON.stringify(counts)} -> ${JSON.stringify(after)}`;
      // the score itself, unrounded, whether or not its interval lets it be shown
      assert.ok(Math.abs(rawScore(after) - rawScore(counts)) <= 2, what);
      // and the dimension_score a result shows, when both sides are scored
      const now = E.dimensionScore(after, 100);
      if (before[0] !== null && now[0] !== null) {
        bothScored++;
        assert.ok(Math.abs(now[0] - before[0]) <= 2, what);
      }
    }
  }
  assert.ok(removals > 5000 && bothScored > 10000, `${removals} removals, ${bothScored} scored pairs`);
});

test('property: the same through a whole profile (rows of a CSV, a stray label added)', () => {
  const rnd = prng(77);
  for (let t = 0; t < 150; t++) {
    const counts = randomCounts(rnd).slice(0, 30);
    if (sum(counts) > 6000 || sum(counts) < 200) continue;
    const rows = [];
    counts.forEach((c, i) => { for (let k = 0; k < c; k++) rows.push(`g${i}`); });
    const text = 'region\n' + rows.join('\n') + '\n';
    const a = dim(run(text), 'region');
    const b = dim(run(text + 'stray\n'), 'region');
    assert.equal(a.n_groups + 1, b.n_groups);
    if (a.dimension_score !== null && b.dimension_score !== null) {
      assert.ok(Math.abs(a.dimension_score - b.dimension_score) <= 2, JSON.stringify(counts));
    }
  }
});

test('removing three stray ages of 303 moves the age score by at most 2 points per group removed', () => {
  // the heart-disease pattern of issue 24: 300 patients aged 34..74 and three outliers
  // (29, 76, 77) whose bands 18-29 and 75+ hold one and two rows
  const rnd = prng(303);
  const ages = Array.from({ length: 300 }, () => 34 + Math.floor(rnd() * 41));
  const full = dim(run('age\n' + ages.concat([29, 76, 77]).join('\n') + '\n'), 'age');
  const trimmed = dim(run('age\n' + ages.join('\n') + '\n'), 'age');
  assert.equal(full.n_groups - trimmed.n_groups, 2);
  assert.notEqual(full.dimension_score, null);
  assert.ok(Math.abs(full.dimension_score - trimmed.dimension_score) <= 2 * 2);
  // version 2 moved by far more: each 1-row group adds to k in H / ln(k)
  const v2 = (text) => dim(run(text, { score_rule: 'v2' }), 'age').dimension_score;
  const moved = Math.abs(v2('age\n' + ages.concat([29, 76, 77]).join('\n') + '\n') - v2('age\n' + ages.join('\n') + '\n'));
  assert.ok(moved > 10, `v2 moved ${moved}`);
});

const GRADES = 'FDCBA';

test('property: the overall grade is never more than one letter above the worst scored dimension', () => {
  const rnd = prng(11);
  for (let t = 0; t < 20000; t++) {
    const dims = [];
    const k = 1 + Math.floor(rnd() * 6);
    for (let i = 0; i < k; i++) {
      const counts = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => 1 + Math.floor(rnd() * 3000));
      const [s, ci] = E.dimensionScore(counts, 100);
      dims.push({ dimension_score: s, score_ci: ci });
    }
    const [overall, ci] = E.overallScore(dims, 'v3');
    const scored = dims.filter((d) => d.dimension_score !== null).map((d) => d.dimension_score);
    if (scored.length === 0) { assert.deepEqual([overall, ci], [null, null]); continue; }
    const worst = GRADES.indexOf(gradeOf(Math.min(...scored)));
    assert.ok(GRADES.indexOf(gradeOf(overall)) <= worst + 1, JSON.stringify(dims));
    // the interval's ends obey the same cap, each against its own worst end
    const worstLow = GRADES.indexOf(gradeOf(Math.min(...dims.filter((d) => d.score_ci).map((d) => d.score_ci[0]))));
    assert.ok(GRADES.indexOf(gradeOf(ci[0])) <= worstLow + 1);
    assert.ok(ci[0] <= ci[1]);
  }
});

test('property: the same for whole profiles with several dimensions', () => {
  const rnd = prng(5);
  const kinds = ['sex', 'race', 'region', 'religion'];
  for (let t = 0; t < 60; t++) {
    const n = 200 + Math.floor(rnd() * 1500);
    const shapes = kinds.map(() => Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => rnd() ** 3 + 0.001));
    const rows = [];
    for (let r = 0; r < n; r++) {
      rows.push(shapes.map((w, c) => {
        let x = rnd() * sum(w);
        let g = 0;
        while (x > w[g] && g < w.length - 1) { x -= w[g]; g++; }
        return `${kinds[c][0]}${g}`;
      }).join(','));
    }
    const r = run(kinds.join(',') + '\n' + rows.join('\n') + '\n');
    const scored = r.dimensions.filter((d) => d.dimension_score !== null).map((d) => d.dimension_score);
    if (scored.length === 0) { assert.equal(r.grade, null); continue; }
    assert.ok(GRADES.indexOf(r.grade) <= GRADES.indexOf(gradeOf(Math.min(...scored))) + 1, JSON.stringify(r.dimensions.map((d) => d.dimension_score)));
    assert.ok(r.overall_ci[0] <= r.overall_score && r.overall_score <= r.overall_ci[1] + 0);
  }
});

function gradeOf(score) {
  if (score >= 85) return 'A';
  if (score >= 70) return 'B';
  if (score >= 55) return 'C';
  if (score >= 40) return 'D';
  return 'F';
}

// ---- SPEC 18: findings, verdicts and the family --------------------------------------

const KEYS = ['kind', 'severity', 'dimensions', 'groups', 'value', 'n', 'ci_low', 'ci_high', 'threshold',
  'p', 'verdict', 'text'];

test('findings: every line is an entry, in key order; flags are their texts', () => {
  const rows = [];
  for (let i = 0; i < 600; i++) rows.push(`${i % 5 ? 'M' : 'F'},${i % 50 ? 'A' : 'B'},${i % 3 ? '1' : '0'}`);
  rows.push('X,,1');
  const r = run('sex,race,y\n' + rows.join('\n') + '\n', { label: 'y' });
  assert.deepEqual(r.flags, r.findings.map((f) => f.text));
  assert.ok(r.findings.length > 3);
  for (const f of r.findings) {
    assert.deepEqual(Object.keys(f), KEYS);
    assert.ok(['finding', 'note'].includes(f.severity));
    if (f.severity === 'note') {
      for (const k of KEYS.slice(4, 11)) assert.equal(f[k], null, `${f.kind}.${k}`);
    } else {
      assert.ok(['confirmed', 'possible'].includes(f.verdict));
      assert.ok(f.ci_low <= f.value && f.value <= f.ci_high || f.kind === 'label_gap', JSON.stringify(f));
      assert.ok(f.p >= 0 && f.p <= 1);
      assert.equal(f.p < 0.05, f.verdict === 'confirmed'); // alpha 0.05, p rounded to 4 dp
    }
  }
  const { evidence } = r;
  assert.deepEqual(Object.keys(evidence), ['alpha', 'correction', 'tests', 'confirmed', 'possible']);
  assert.equal(evidence.correction, 'holm');
  assert.equal(evidence.confirmed + evidence.possible, r.findings.filter((f) => f.severity === 'finding').length);
  assert.ok(evidence.tests >= evidence.confirmed + evidence.possible);
  assert.deepEqual(Object.keys(r).slice(0, 7), ['format_version', 'n_rows', 'n_cols', 'columns', 'overall_score', 'overall_ci', 'grade']);
  assert.equal(r.format_version, 3);
});

test('verdicts: Holm over the whole family; alpha decides confirmed', () => {
  // one group at 4% of 1,000 rows: its interval straddles 5% alone
  const text = 'sex\n' + 'M\n'.repeat(500) + 'F\n'.repeat(460) + 'X\n'.repeat(40);
  const r = run(text);
  const under = r.findings.find((f) => f.kind === 'under_represented');
  const p = E.scoreP(40, 1000, 0.05, true);
  // 3 groups, the imbalance of M and F and the missing check: m = 5, and the one finding
  // is ranked first
  assert.equal(r.evidence.tests, 5);
  assert.deepEqual(r.findings.map((f) => f.kind), ['under_represented']);
  assert.equal(under.p, E.roundHalfUp(Math.min(1, 5 * p), 4));
  assert.equal(under.verdict, 'possible'); // 5 * 0.1468: the interval straddles 5%
  assert.deepEqual([under.value, under.n, under.threshold], [0.04, 1000, 0.05]);
  const [lo, hi] = E.wilsonAt(40, 1000, Z);
  assert.deepEqual([under.ci_low, under.ci_high], [E.roundHalfUp(lo, 4), E.roundHalfUp(hi, 4)]);
  // a looser alpha can confirm what 0.05 does not; the options are checked like Python's
  const loose = run(text, { alpha: 0.9 });
  assert.equal(loose.evidence.alpha, 0.9);
  assert.equal(loose.findings.find((f) => f.kind === 'under_represented').verdict, 'confirmed');
  assert.equal(run(text, { alpha: 1 }).error, '--alpha: 1 is out of range (0..1, both excluded)');
  assert.equal(run(text, { alpha: 0 }).error, '--alpha: 0 is out of range (0..1, both excluded)');
  assert.equal(run(text, { score_rule: 'v4' }).error, "--score-rule: 'v4' is not one of v3, v2, seed");
});

test('score rules: v2 and seed keep the earlier numbers; the findings are the same', () => {
  const rows = [];
  for (let i = 0; i < 400; i++) rows.push(`${i % 4 ? 'M' : 'F'},${['a', 'b', 'c'][i % 3]}`);
  rows.push('F,d');
  const text = 'sex,size\n' + rows.join('\n') + '\n';
  const v3 = run(text);
  const v2 = run(text, { score_rule: 'v2' });
  const seed = run(text, { score_rule: 'seed' });
  const cat = run(text, { score_rule: 'v2', score_categoricals: true });
  assert.deepEqual(v2.dimensions.map((d) => [d.name, d.score_ci, d.score_note]), [['sex', null, null]]);
  assert.equal(v2.overall_ci, null);
  assert.equal(dim(v2, 'sex').dimension_score, E.roundHalfUp(dim(v2, 'sex').entropy_ratio * 100, 0));
  // seed is v2 with score_categoricals switched on (the size column scored)
  assert.deepEqual(seed.dimensions.map((d) => [d.name, d.detected_by]), [['sex', 'name'], ['size', 'label_count']]);
  assert.deepEqual(seed.dimensions, cat.dimensions);
  assert.equal(seed.overall_score, cat.overall_score);
  // the findings (severity finding) do not depend on the rule
  const findings = (r) => r.findings.filter((f) => f.severity === 'finding');
  assert.deepEqual(findings(v2), findings(v3));
  // provenance records the rule and alpha
  const params = E.provenance({ opts: { score_rule: 'seed', alpha: 0.01 } }).params;
  assert.deepEqual([params.score_rule, params.alpha], ['seed', 0.01]);
});

test('the intersection: each gap cell has its count under independence; unlisted gaps stay in the family', () => {
  const rows = [];
  for (let i = 0; i < 1000; i++) rows.push(`${i % 10 ? 'M' : 'F'},${i % 100 === 0 ? 'B' : 'A'}`);
  const r = run('sex,race\n' + rows.join('\n') + '\n', { min_group_size: 5 });
  const cell = r.intersections[0].cells.find((c) => c.a === 'M' && c.b === 'B');
  // row total M 900 x column total B 10 / 1000 rows of the pair table = 9 expected; 0 seen
  assert.deepEqual(cell, { a: 'M', b: 'B', count: 0, share: 0, expected: 9 });
  const f = r.findings.find((x) => x.kind === 'intersection_gap');
  assert.deepEqual([f.dimensions, f.groups, f.value, f.n, f.threshold], [['sex', 'race'], ['M', 'B'], 0, 1000, 0.01]);
  // 14 x 8 = 112 cells, almost all absent: 10 listed, the rest counted in the verdicts
  const wide = [];
  for (let i = 0; i < 1120; i++) wide.push(`s${i % 14},r${Math.floor(i / 14) % 8 === i % 8 ? i % 8 : 0}`);
  const w = run('state,race\n' + wide.join('\n') + '\n', { min_group_size: 1 });
  const inter = w.intersections[0];
  // r2 and r5 hold 10 rows: their 28 cells expect 80 x 10 / 1120 = 0.71 rows, absent,
  // and are no test (SPEC 4); every other gap is
  assert.equal(inter.cells_not_tested, 28);
  const gapsTotal = inter.cells.length + (inter.cells_not_listed || 0) - 28;
  assert.equal(w.findings.filter((x) => x.kind === 'intersection_gap').length, 10);
  const more = w.findings.find((x) => x.kind === 'more' && x.dimensions.length === 2);
  assert.equal(more.text, `state x race: ${gapsTotal - 10} more sparse cells (the JSON lists all)`);
  assert.deepEqual([more.severity, more.n, more.p], ['note', null, null]);
  assert.ok(w.evidence.tests >= inter.n_cells - 28);
  const beyondCaps = w.findings.filter((x) => x.severity === 'finding').length;
  assert.ok(w.evidence.confirmed + w.evidence.possible >= beyondCaps + gapsTotal - 10);
});

test('no finding rests on a group under min_group_size: a 60-row table (issue 24)', () => {
  const rnd = prng(60);
  const rows = [];
  for (let i = 0; i < 60; i++) rows.push(`${i < 53 ? 'M' : 'F'},N${1 + Math.floor(rnd() * 38)},${rnd() < 0.5 ? 1 : 0}`);
  const r = run('sex,neighbourhood,outcome\n' + rows.join('\n') + '\n', { label: 'outcome' });
  assert.deepEqual([r.overall_score, r.overall_ci, r.grade], [null, null, null]);
  assert.ok(r.dimensions.every((d) => d.dimension_score === null && d.score_ci === null && d.score_note));
  assert.equal(r.findings[r.findings.length - 1].kind, 'no_dimension');
  assert.equal(r.findings[r.findings.length - 1].text,
    'no dimension has enough rows to score (sex, neighbourhood); the grade is not given');
  const sizes = new Map();
  for (const d of r.dimensions) for (const g of d.groups) sizes.set(`${d.name}\u0000${g.label}`, g.count);
  for (const f of r.findings) {
    if (f.severity !== 'finding' || f.kind === 'intersection_gap') continue;
    for (const d of f.dimensions) {
      for (const label of f.groups) {
        const size = sizes.get(`${d}\u0000${label}`);
        if (size !== undefined) assert.ok(size >= 100, JSON.stringify(f));
      }
    }
  }
  assert.ok(!r.findings.some((f) => ['under_represented', 'label_gap', 'imbalance', 'missing_gap'].includes(f.kind)));
  assert.ok(r.findings.some((f) => f.kind === 'not_measurable'));
  assert.ok(r.findings.some((f) => f.kind === 'representation'));
});

test('scoreP at a subnormal threshold is the limit (SPEC 13.1; as faircode.numerics.score_p)', () => {
  assert.equal(E.scoreP(26, 26, 5e-324, false), 0);
  assert.equal(E.scoreP(0, 26, 5e-324, false), 1);
  assert.equal(E.scoreP(0, 3, 5e-324, true), 0);
  assert.equal(E.scoreP(3, 3, 5e-324, true), 1);
});
