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
