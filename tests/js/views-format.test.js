'use strict';
// SPEC 13's P(x) and fmt: the HTML report holds views.js and no engine, so the views keep
// a twin of the engine's formatters; they must give the same text for every value, ties
// included (toFixed would not: (1.005).toFixed(2) is '1.00').
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');

const E = require(path.join(__dirname, '..', '..', 'assets', 'profiler-engine.js'));
require(path.join(__dirname, '..', '..', 'site', 'views.js'));
const V = globalThis.FaircodeViews;

function values() {
  const out = [0, 1, -1, 0.5, 0.00147, 0.0015, -0.11345, 0.11345, 0.30245, 0.99995, 1e-9, -1e-9];
  // every 4-dp tie and its neighbours, as counts over small denominators make them
  for (let n = 1; n <= 400; n++) for (let c = -n; c <= n; c++) out.push(c / n);
  let seed = 12345;
  for (let i = 0; i < 20000; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out.push((seed / 2147483648) * 2 - 1);
  }
  return out;
}

test('views pct equals the engine pct, and both equal the 4-dp rounding the JSON keeps', () => {
  for (const x of values()) {
    assert.equal(V.pct(x), `${E.pct(x)}%`, String(x));
    // the digits are JSON's number: P(x) of x and of roundHalfUp(x, 4) agree
    assert.equal(E.pct(E.roundHalfUp(x, 4)), E.pct(x), String(x));
  }
  assert.equal(E.pct(0.00147), '0.15');
  assert.equal(E.pct(-0.11345), '-11.34');
  assert.equal(V.pct(null), 'n/a');
});

test('views fmt equals the engine fmt at every precision', () => {
  for (const x of values()) for (const dp of [0, 1, 2, 3, 4]) assert.equal(V.fmt(x * 37, dp), E.fmt(x * 37, dp));
});

test('views pts: signed two decimals with the direction, zero unsigned', () => {
  assert.equal(V.pts(0.1135), '+11.35 pts ↑');
  assert.equal(V.pts(-0.1135), '-11.35 pts ↓');
  assert.equal(V.pts(0), '0.00 pts');
  assert.equal(V.pts(-0.00004), '0.00 pts');
});

test('views num: the text of toLocaleString(en-US), from one formatter made once', () => {
  const xs = [0, -0, 1, 999, 1000, -1234567, 1234.5678, 0.1 + 0.2, 1e21, 2 ** 53 + 2, NaN, Infinity, '42', 7n];
  for (let i = 0; i < 2000; i++) xs.push(Math.round(Math.sin(i) * 10 ** (i % 12)));
  for (const x of xs) assert.equal(V.num(x), Number(x).toLocaleString('en-US'), String(x));
  assert.equal(V.num(null), 'n/a');
  assert.equal(V.num(undefined), 'n/a');
  // toLocaleString makes a formatter per call (25 us in Chromium: 2 s of drawing a
  // result of 20,000 columns, four numbers each); the views format with one
  const own = Number.prototype.toLocaleString;
  let calls = 0;
  Number.prototype.toLocaleString = function (...a) { calls++; return own.apply(this, a); }; // eslint-disable-line no-extend-native
  try {
    for (let i = 0; i < 1000; i++) V.num(i * 1000);
  } finally {
    Number.prototype.toLocaleString = own; // eslint-disable-line no-extend-native
  }
  assert.equal(calls, 0);
});

test('views pctNotZero equals the engine pctNotZero; a compared group with rows never reads 0.00%', () => {
  for (const x of values()) for (const sign of [-1, 0, 1]) assert.equal(V.pctNotZero(x, sign), E.pctNotZero(x, sign), String(x));
  assert.equal(E.pctNotZero(0.00003, 1), '<0.01');
  assert.equal(E.pctNotZero(0, 0), '0.00');
  // SPEC 8: one row of 30,000 disappeared (JSON keeps 4 dp: every number 0)
  const gone = { share_a: 0, share_b: 0, share_delta: 0, status: 'disappeared' };
  assert.deepEqual(V.compareGroupCells(gone, [gone]), ['<0.01%', '0.00%', '-<0.01 pts ↓']);
  const came = { share_a: 0, share_b: 0, share_delta: 0, status: 'appeared' };
  assert.deepEqual(V.compareGroupCells(came, [came]), ['0.00%', '<0.01%', '+<0.01 pts ↑']);
  const moved = { share_a: 0.25, share_b: 0.5, share_delta: 0.25, status: 'shifted' };
  assert.deepEqual(V.compareGroupCells(moved, [moved]), ['25.00%', '50.00%', '+25.00 pts ↑']);
});

test('views pctNotZero below one equals the engine; a share of all rows but one never reads 100.00%', () => {
  for (const x of values()) for (const below of [false, true]) assert.equal(V.pctNotZero(x, 1, below), E.pctNotZero(x, 1, below), String(x));
  assert.equal(E.pctNotZero(0.99997, 1, true), '>99.99');
  assert.equal(E.pctNotZero(1, 1, false), '100.00');
  // SPEC 8: 29,999 of 30,000 rows in A beside x's one row (JSON's 4 dp: share_a 1)
  const w = { share_a: 1, share_b: 0.5, share_delta: -0.5, status: 'shifted' };
  const groups = [w, { share_a: 0, share_b: 0.5, share_delta: 0.5, status: 'appeared' },
    { share_a: 0, share_b: 0, share_delta: 0, status: 'disappeared' }];
  assert.deepEqual(V.compareGroupCells(w, groups), ['>99.99%', '50.00%', '-50.00 pts ↓']);
  // every row of A: 100.00% is exact
  assert.deepEqual(V.compareGroupCells(w, groups.slice(0, 2)), ['100.00%', '50.00%', '-50.00 pts ↓']);
});

test('views shareText: a share of some rows but not all never reads 0.00% or 100.00% (the reference table)', () => {
  for (const x of values()) for (const [c, n] of [[0, 5], [1, 5], [5, 5]]) {
    assert.equal(V.shareText(x, c, n), `${E.pctNotZero(x, c > 0 ? 1 : 0, c < n)}%`, String(x));
  }
  // SPEC 9: one row of 30,000 and the 29,999 beside it (JSON's 4 dp: 0 and 1)
  assert.equal(V.shareText(0, 1, 30000), '<0.01%');
  assert.equal(V.shareText(1, 29999, 30000), '>99.99%');
  assert.equal(V.shareText(0, 0, 30000), '0.00%');
  assert.equal(V.shareText(1, 30000, 30000), '100.00%');
});

test('views missingShare: a group missing some cells but not all never reads 0.00% or 100.00%', () => {
  // SPEC 17.5: one of 30,000 and 29,999 of 30,000 (JSON's 4 dp: 0 and 1)
  assert.equal(V.missingShare({ missing_pct: 0, missing: 1, count: 30000 }), '<0.01%');
  assert.equal(V.missingShare({ missing_pct: 1, missing: 29999, count: 30000 }), '>99.99%');
  assert.equal(V.missingShare({ missing_pct: 0, missing: 0, count: 30000 }), '0.00%');
  assert.equal(V.missingShare({ missing_pct: 1, missing: 30000, count: 30000 }), '100.00%');
});

test('views shiftCells: a compared rate or missing share of some rows never reads 0.00% or 100.00% (SPEC 17.6)', () => {
  // one positive of 30,000 that went, 29,999 of 30,000 that became all (JSON's 4 dp)
  assert.deepEqual(V.shiftCells(0, 0, 0, [1, 30000, 0, 30000]), ['<0.01%', '0.00%', '-<0.01 pts ↓']);
  assert.deepEqual(V.shiftCells(1, 1, 0, [29999, 30000, 30000, 30000]), ['>99.99%', '100.00%', '+<0.01 pts ↑']);
  // both sides some but not all: each side says so, a change within 0.005 pts reads 0.00
  assert.deepEqual(V.shiftCells(0, 0, 0, [1, 30000, 2, 30000]), ['<0.01%', '<0.01%', '0.00 pts']);
  // none on both sides, or all: exact
  assert.deepEqual(V.shiftCells(0, 0, 0, [0, 30000, 0, 10]), ['0.00%', '0.00%', '0.00 pts']);
  assert.deepEqual(V.shiftCells(1, 1, 0, [5, 5, 7, 7]), ['100.00%', '100.00%', '0.00 pts']);
  assert.deepEqual(V.shiftCells(0.25, 0.5, 0.25, [1, 4, 1, 2]), ['25.00%', '50.00%', '+25.00 pts ↑']);
});

test('views shiftCells without counts (a result saved before compare wrote them) shows the plain numbers', () => {
  assert.deepEqual(V.shiftCells(0, 0, 0, [undefined, 30000, undefined, 30000]), ['0.00%', '0.00%', '0.00 pts']);
  assert.deepEqual(V.shiftCells(0.25, 0.5, 0.25, [undefined, 4, undefined, 2]), ['25.00%', '50.00%', '+25.00 pts ↑']);
});
