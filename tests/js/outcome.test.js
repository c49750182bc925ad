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

// scipy.stats.chi2.sf(x, df): [df, x, sf] (SPEC 21.5: the drift test of SPEC 8)
const CHI2 = [
  [1, 0.001, 0.9747728793699604],
  [1, 1, 0.31731050786291115],
  [1, 3.84, 0.05004352124870519],
  [1, 25, 5.733031437583875e-07],
  [1, 150, 1.7336432457178413e-34],
  [1, 1000, 1.7958327848007363e-219],
  [2, 0.001, 0.9995001249791693],
  [2, 1, 0.6065306597126334],
  [2, 3.84, 0.14660696213035013],
  [2, 25, 3.7266531720786718e-06],
  [2, 150, 2.678636961808087e-33],
  [2, 1000, 7.124576406741474e-218],
  [3, 0.001, 0.9999915920809419],
  [3, 1, 0.8012519569012009],
  [3, 3.84, 0.27926761711860965],
  [3, 25, 1.5440498291101365e-05],
  [3, 150, 2.6349139284880416e-32],
  [3, 1000, 1.7994208765314067e-216],
  [4, 0.001, 0.9999998750416589],
  [4, 1, 0.9097959895689501],
  [4, 3.84, 0.4280923294206225],
  [4, 25, 5.0309817823062075e-05],
  [4, 150, 2.035764090974152e-31],
  [4, 1000, 3.5694127797773694e-215],
  [9, 0.001, 1.0],
  [9, 1, 0.9994375026978325],
  [9, 3.84, 0.9216240561764936],
  [9, 25, 0.002971180485917624],
  [9, 150, 8.819629954805395e-28],
  [9, 1000, 1.7240681189224405e-209],
  [10, 0.001, 1.0],
  [10, 1, 0.9998278843700441],
  [10, 3.84, 0.9542763043207358],
  [10, 25, 0.005345505487134069],
  [10, 150, 3.727485055062505e-27],
  [10, 1000, 1.870290720915977e-208],
  [49, 0.001, 1.0],
  [49, 1, 1.0],
  [49, 3.84, 1.0],
  [49, 25, 0.998277871832321],
  [49, 150, 3.5574159128318413e-12],
  [49, 1000, 1.5815329207399417e-177],
  [50, 0.001, 1.0],
  [50, 1, 1.0],
  [50, 3.84, 1.0],
  [50, 25, 0.9988075511517683],
  [50, 150, 6.315223256933963e-12],
  [50, 1000, 7.188706215514871e-177],
  [99, 0.001, 1.0],
  [99, 1, 1.0],
  [99, 3.84, 1.0],
  [99, 25, 0.9999999999999977],
  [99, 150, 0.0007204453957169282],
  [99, 1000, 7.229607902491268e-149],
];

test('the chi-squared tail equals scipy to 1e-12 relative', () => {
  for (const [df, x, sf] of CHI2) {
    assert.ok(Math.abs(E.chi2Upper(x, df) - sf) <= 1e-12 * sf, `chi2 tail at ${df}, ${x}`);
  }
  assert.equal(E.chi2Upper(0, 3), 1);
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
