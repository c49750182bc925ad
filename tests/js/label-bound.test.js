'use strict';
// SPEC 0.9 LABEL_SHOWN: a label or column name longer than 200 code points is capped in
// every output (capLabel, bounded: faircode/safetext.py capped, bounded), never in
// the counts; two labels that differ only past the cut stay apart (a hash of the whole
// label in the marker). tests/engine/test_label_bound.py compares both engines on one value.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { E, run, dim } = require('./helpers');

const MB = 1 << 20;
const BIG = 'A'.repeat(MB);
const TWIN = 'A'.repeat(MB - 1) + 'B';

function cutOf(label) {
  const cps = Array.from(label);
  const digest = crypto.createHash('sha256').update(label, 'utf8').digest('hex').slice(0, 12);
  return `${cps.slice(0, 200).join('')}... (${cps.length - 200} more characters, sha256 ${digest})`;
}

test('capLabel cuts at 200 code points, with the rest counted and a hash', () => {
  assert.equal(E.LABEL_SHOWN, 200);
  assert.equal(E.capLabel('x'.repeat(200)), 'x'.repeat(200));
  assert.equal(E.capLabel(BIG), cutOf(BIG));
  assert.notEqual(E.capLabel(BIG), E.capLabel(TWIN));
  const emoji = '😀'.repeat(201); // 402 UTF-16 units, 201 code points
  assert.equal(E.capLabel(emoji), cutOf(emoji));
  assert.ok(E.capLabel(emoji).includes('(1 more characters'));
  assert.equal(E.capLabel('😀'.repeat(150)), '😀'.repeat(150)); // 300 units, 150 code points
});

test('a 1 MB label: counted whole, capped in the bounded result and its flags', () => {
  const rows = ['sex,race'];
  for (let i = 0; i < 60; i++) rows.push(`${'MF'[i % 2]},${i < 56 ? [BIG, TWIN, 'c', 'd'][i % 4] : 'rare'}`);
  // groups of 14 rows: above a floor of 10, so their intersection cells are tested (SPEC 4)
  const r = run(rows.join('\n') + '\n', { min_group_size: 10 });
  const counts = Object.fromEntries(dim(r, 'race').groups.map((g) => [g.label, g.count]));
  assert.deepEqual(counts, { [BIG]: 14, [TWIN]: 14, c: 14, d: 14, rare: 4 });
  const b = E.bounded(r);
  const text = JSON.stringify(b);
  assert.ok(text.length < 20000, String(text.length)); // was more than 2 MB
  const shown = Object.fromEntries(dim(b, 'race').groups.map((g) => [g.label, g.count]));
  assert.deepEqual(shown, { [cutOf(BIG)]: 14, [cutOf(TWIN)]: 14, c: 14, d: 14, rare: 4 });
  const flagged = r.flags.filter((f) => f.includes(BIG));
  assert.ok(flagged.length > 0);
  for (const f of flagged) {
    assert.ok(b.flags.includes(f.split(TWIN).join(cutOf(TWIN)).split(BIG).join(cutOf(BIG))), f.slice(0, 40));
  }
  assert.equal(E.bounded(run('sex\nM\nF\n')).constructor, Object);
  const plain = run('sex\nM\nF\n');
  assert.equal(E.bounded(plain), plain); // nothing long: the result itself
});
