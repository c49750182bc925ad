'use strict';
// SPEC 21.5: Student's t and the correctly rounded ratios of exact sums (numerics twins).
const test = require('node:test');
const assert = require('node:assert/strict');
const { E, run, summarize } = require('./helpers');

// scipy.stats.t.isf(0.025, df) and t.sf(2.0, df)
const SCIPY = [
  [1, 12.706204736174705, 0.14758361765043326],
  [2.5, 3.5746548420036834, 0.07869574787898295],
  [29, 2.045229642132704, 0.027471818591483586],
  [1694.55, 1.9613649097141874, 0.02282980806925081],
  [1e5, 1.95998770753461, 0.022751481728753256],
];

test('the t quantile and tail equal scipy to 1e-12', () => {
  for (const [df, q, sf] of SCIPY) {
    assert.ok(Math.abs(E.tQuantile(0.025, df) - q) < 1e-12, `quantile at ${df}`);
    assert.ok(Math.abs(E.tUpper(2.0, df) - sf) < 1e-13, `tail at ${df}`);
    assert.ok(Math.abs(E.tUpper(-2.0, df) - (1 - sf)) < 1e-13, `lower tail at ${df}`);
  }
  assert.equal(E.tUpper(0, 7), 0.5);
});

test('Welch df is null when both variances are 0', () => {
  assert.equal(E.welchDf(0, 5, 0, 7), null);
  const sa = 2 / 10;
  const sb = 3 / 20;
  const want = (sa + sb) ** 2 / (sa * sa / 9 + sb * sb / 19);
  assert.ok(Math.abs(E.welchDf(2, 10, 3, 20) - want) < 1e-12 * want);
});

test('bigRatio rounds half to even, subnormals included (Python int division)', () => {
  assert.equal(E.bigRatio(1n, 3n), 1 / 3);
  assert.equal(E.bigRatio(-2n, 3n), -2 / 3);
  assert.equal(E.bigRatio(2n ** 53n + 1n, 1n), 2 ** 53);
  assert.equal(E.bigRatio(2n ** 53n + 3n, 1n), 2 ** 53 + 4);
  assert.equal(E.bigRatio(1n, 1n << 1074n), 5e-324);
  assert.equal(E.bigRatio(3n, 1n << 1075n), 1e-323);
  assert.equal(E.bigRatio(1n, 1n << 1075n), 0);
});

test('outcome values: the grammar and the range (SPEC 21.2)', () => {
  assert.equal(E.outcomeValue('+3'), 3);
  assert.equal(E.outcomeValue('.5'), 0.5);
  assert.equal(E.outcomeValue('1.'), 1);
  assert.equal(E.outcomeValue('-0'), 0);
  assert.equal(E.outcomeValue('1e140'), 1e140);
  assert.equal(E.outcomeValue('1e141'), null);
  assert.equal(E.outcomeValue('1e-141'), null);
  assert.equal(E.outcomeValue('1,5'), null);
  assert.equal(E.outcomeValue('Infinity'), null);
  assert.equal(E.outcomeValue('0x10'), null);
});

test('checkSettings refuses a text outcome from the kept counts, as the read would', () => {
  const text = 'sex,race,score,code\n' + Array.from({ length: 40 }, (_, i) =>
    `${'MF'[i % 2]},${['White', 'Black', 'NA', 'x'][i % 4]},${i % 7},${i % 3 ? 'a' : '5'}`).join('\n') + '\n';
  const kept = summarize(text);
  const refused = (opts) => {
    try {
      E.checkSettings(kept, [], opts);
      return null;
    } catch (e) {
      return e.message;
    }
  };
  for (const opts of [
    { outcome: ['race'] },
    { outcome: ['race'], na: ['x'] },
    { outcome: ['code'], recode: [['code', '5', 'five']] },
  ]) {
    const want = run(text, opts).error;
    assert.match(want, /^--outcome (race|code): no cell is a number \([0-9]+ rows hold text, or a number of size above 1e\+140 or below 1e-140\)/);
    assert.equal(refused(opts), want, JSON.stringify(opts));
  }
  // a number among the labels, or every text made missing: the read decides, and takes it
  for (const opts of [{ outcome: ['score'] }, { outcome: ['code'] }, { outcome: ['race'], na: ['White', 'Black', 'x'] }]) {
    assert.equal(refused(opts), null, JSON.stringify(opts));
    assert.equal(run(text, opts).error, undefined, JSON.stringify(opts));
  }
});
