'use strict';
// SPEC 0.4: the missing tokens. isMissing() and the reader's byte matcher are built from
// one list, so a token added to it is missing for both.
const test = require('node:test');
const assert = require('node:assert/strict');
const { E, enc, specMissingTokens } = require('./helpers');

/** Missing count and groups of column `sex` of a file whose cells are `cells`. */
function profiled(cells, config) {
  const p = E.createProfiler(Object.assign({ name: 't.csv' }, config));
  const text = 'sex,race\n' + cells.map((c) => `${c},A\n`).join('');
  for (const chunk of [enc.encode(text)]) p.push(chunk);
  const s = p.finish();
  return { missing: s.missing[0], groups: Array.from(s.counts[0].keys()) };
}

test('every default token is missing as text and as bytes; near misses are labels', () => {
  assert.deepEqual(Array.from(E.MISSING_TOKENS), specMissingTokens());
  for (const t of E.MISSING_TOKENS) {
    assert.equal(E.isMissing(t), true, t);
    assert.deepEqual(profiled([t, ` ${t}\t`, 'M']), { missing: 2, groups: ['M'] }, t);
  }
  for (const t of ['na', 'Na', 'NAN', 'Null', '??', 'N/a', 'none', '-', 'NULLS']) {
    assert.equal(E.isMissing(t), false, t);
    assert.deepEqual(profiled([t, 'M']), { missing: 0, groups: [t, 'M'] }, t);
  }
});

test('a token added to the list is honoured by isMissing() and by profiling bytes', () => {
  for (const extra of ['unknown', '—', 'na', '-', 'Not stated (refused)']) {
    const m = E.missingMatcher([extra]);
    assert.equal(E.isMissing(extra, m), true, extra);
    assert.equal(E.isMissing(extra), false, extra); // the default list is unchanged
    assert.equal(E.isMissing('NA', m), true, extra); // and still included
    assert.deepEqual(profiled([extra, `  ${extra}`, 'NA', 'M'], { missingTokens: [extra] }),
      { missing: 3, groups: ['M'] }, extra);
    assert.deepEqual(profiled([extra, 'M']), { missing: 0, groups: [extra, 'M'] }, extra);
  }
});

test('extra tokens are honoured across chunk boundaries and in parts read with names', () => {
  const text = enc.encode('sex,race\n' + 'unknown,A\nM,B\n'.repeat(50));
  for (const step of [1, 2, 3, 7, 64]) {
    const p = E.createProfiler({ name: 't', missingTokens: ['unknown'] });
    for (let i = 0; i < text.length; i += step) p.push(text.subarray(i, i + step));
    const s = p.finish();
    assert.equal(s.missing[0], 50, `step ${step}`);
    assert.deepEqual(Array.from(s.counts[0].keys()), ['M']);
  }
});
