'use strict';
// A pair table's cells as finishPacked() posts them (a part's summary on the website and
// under Node's worker threads): every non-zero cell once, with its whole count, also in a
// table past SMALL_CELLS cells, whose counts past 255 are carried in a Map, and for a cell
// whose low byte is 0 (a count of 256 or 512).
const test = require('node:test');
const assert = require('node:assert/strict');
const { E, enc } = require('./helpers');

test('a wide table packs every cell with its count, wrapped ones included', () => {
  const want = new Map(); // 'race|zip' -> rows
  const lines = ['race,zip'];
  const races = ['White', 'Black', 'Asian', 'Hispanic', 'Other', 'Native', 'Pacific', 'Mixed', 'Arab'];
  const add = (race, zip, n) => {
    for (let r = 0; r < n; r++) lines.push(`${race},${zip}`);
    want.set(`${race}|${zip}`, (want.get(`${race}|${zip}`) || 0) + n);
  };
  for (let z = 0; z < 5000; z++) add(races[z % 9], String(10000 + z), 1);
  add('White', '10000', 255); // 256 in all: low byte 0
  add('Black', '10001', 511); // 512
  add('Asian', '14999', 300); // 301
  add('Other', '12345', 1000);
  const p = E.createProfiler({ name: 't.csv' });
  p.push(enc.encode(lines.join('\n') + '\n'));
  const summary = p.finishPacked();
  const i = summary.columns.indexOf('race');
  const j = summary.columns.indexOf('zip');
  const table = p.counts.pairTables.find((t, k) => p.counts.pairA[k] === i && p.counts.pairB[k] === j);
  assert.ok(table && table.carries instanceof Map, 'the test needs a table whose carries are a Map');
  const [, a, b, c] = summary.pairs.find(([key]) => key === `${i},${j}`);
  const la = Array.from(summary.counts[i].keys());
  const lb = Array.from(summary.counts[j].keys());
  const got = new Map();
  for (let k = 0; k < a.length; k++) {
    const key = `${la[a[k]]}|${lb[b[k]]}`;
    assert.ok(!got.has(key), `${key} packed twice`);
    got.set(key, c[k]);
  }
  assert.deepEqual(got, want);
});
