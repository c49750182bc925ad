'use strict';
// SPEC 0.9 bounds in the JS engine: pairs among the first 64 counted columns, at most
// 100,000 labels per column (merges included), at most 1,000 listed gap cells, at most
// 100 under-represented flag lines per dimension; and the bridge stays under 300 MB peak
// RSS on the files that used to exhaust the heap (8,000 columns; zip x city).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { E, run, summarize } = require('./helpers');

const BRIDGE = path.join(__dirname, '..', '..', 'scripts', 'engine-js.js');
const LABEL_CAP = 100000;

function lines(header, rows) {
  return [header.join(','), ...rows.map((r) => r.join(','))].join('\n') + '\n';
}

function labelsCsv(n, offset = 0, col = 'race') {
  const out = [`${col},sex`];
  for (let i = 0; i < n; i++) out.push(`v${offset + i},${'MF'[i % 2]}`);
  return out.join('\n') + '\n';
}

function profiler(text, opts) {
  const p = E.createProfiler({ name: 't.csv', opts: opts || {} });
  p.push(new TextEncoder().encode(text));
  return p;
}

test('a default pair past the first 64 counted columns is said not counted', () => {
  const rows = [['M', 'A'], ['F', 'B'], ['M', 'B']];
  const csv = (lead) => lines([...Array.from({ length: lead }, (_, i) => `k${i}`), 'sex', 'race'],
    rows.map((r) => [...Array(lead).fill('x'), ...r]));
  const inside = run(csv(62));
  assert.deepEqual(inside.intersections[0].dims, ['sex', 'race']);
  const out = run(csv(63));
  assert.deepEqual(out.intersections, []);
  assert.deepEqual(out.intersection_not_counted, ['sex', 'race']);
  assert.ok(out.flags.includes("sex x race: intersection not counted ('race' is not among the first 64 counted columns); pass --cross sex,race"));
  // SPEC 17.4: race is past the group columns too, and says so; then (SPEC 5) the note
  // that 3 rows score no dimension closes the list (after SPEC 1.7's coded-label note)
  assert.deepEqual(out.flags.slice(-3), [
    "race: label rates and missing data by group not counted ('race' is not among the first 64 counted columns)",
    'race: labels B, A look like codes; the file does not say which group each stands for (name them with --recode race:B=NAME,A=NAME)',
    'no dimension has enough rows to score (sex, race); the grade is not given',
  ]);
  assert.deepEqual(out.findings.find((f) => f.text.startsWith('race: label rates')).dimensions, ['race']);
  const crossed = run(csv(63), { cross: 'sex,race' });
  assert.deepEqual(crossed.intersections[0].cells, inside.intersections[0].cells);
  const ignored = run(csv(63), {}, { k5: 'ignore' });
  assert.deepEqual(ignored.intersections[0].cells, inside.intersections[0].cells);
});

test('only the first 64 counted columns get pair tables', () => {
  const n = 300;
  const header = Array.from({ length: n }, (_, i) => `c${i}`);
  const p = profiler(lines(header, [header.map(() => 'a'), header.map(() => 'b')]));
  p.finish();
  assert.equal(p.counts.pairTables.length, 64 * 63 / 2);
});

test('label cap: 100,000 labels are counted, 100,001 cap the column', () => {
  const at = run(labelsCsv(LABEL_CAP));
  assert.deepEqual(at.dropped, [{ name: 'race', kind: 'race', n_groups: LABEL_CAP }]);
  const past = run(labelsCsv(LABEL_CAP + 1));
  assert.deepEqual(past.dropped, [{ name: 'race', kind: 'race', n_groups: null, more_than: LABEL_CAP }]);
  const s = summarize(labelsCsv(LABEL_CAP + 1));
  assert.equal(s.counts[0], null);
  assert.deepEqual(s.capped, [true, false]);
  assert.equal(s.missing[0], 0);
});

test('merge: the union of two uncapped parts can be capped; a capped side stays capped', () => {
  const a = profiler(labelsCsv(60000)).finish();
  const b = profiler(labelsCsv(60000, 60000)).finish();
  assert.notEqual(a.counts[0], null);
  const m = E.mergeSummaries(a, b);
  assert.equal(m.counts[0], null);
  assert.equal(m.capped[0], true);
  assert.equal(m.pairs.has('0,1'), false);
  const r = E.analyze(m, {}, {});
  assert.deepEqual(r.dropped, [{ name: 'race', kind: 'race', n_groups: null, more_than: LABEL_CAP }]);
  const again = E.mergeSummaries(m, profiler(labelsCsv(10)).finish());
  assert.equal(again.counts[0], null);
  // Packed (as posted by a worker) and unpacked, the cap survives.
  const packed = E.unpackSummary(profiler(labelsCsv(LABEL_CAP + 1)).finishPacked());
  assert.equal(E.mergeSummaries(a, packed).capped[0], true);
});

test('gaps: at most 1,000 listed, the rest counted', () => {
  const rows = [];
  for (let i = 0; i < 40; i++) rows.push([`z${i}`, `c${i}`]);
  const r = run(lines(['zip', 'city'], rows));
  const inter = r.intersections[0];
  assert.equal(inter.n_cells, 1600);
  assert.equal(inter.cells.length, 1000);
  // 40 diagonal cells hold one row each (at or above the 1% floor): 1,560 gaps.
  assert.equal(inter.cells_not_listed, 1560 - 1000);
  // every group holds 1 row, under min_group_size: no cell is a test (SPEC 4)
  assert.equal(inter.cells_not_tested, 1600);
  assert.ok(r.flags.includes('zip x city: 1600 of 1600 cells not tested: a group of fewer than 100 rows with both known, or under 1 row expected'));
  assert.ok(!r.flags.some((f) => f.includes('more sparse cells')));
  // Within the cap nothing changes: no extra key.
  const small = run(lines(['zip', 'city'], rows.slice(0, 30)));
  assert.equal(small.intersections[0].cells.length, 870);
  assert.equal('cells_not_listed' in small.intersections[0], false);
});

test('flags: at most 5 under-represented lines per dimension, then one note; all in the family', () => {
  const rows = [];
  for (let i = 0; i < 150; i++) rows.push([`s${String(i).padStart(3, '0')}`]);
  const r = run(lines(['state'], rows));
  // SPEC 6 / 0.9: UNDER_LINES (5) lines, a group below min_group_size (100) named with
  // its count, then the "more" note; 150 rows of 1 row each hold no 1% group (SPEC 5)
  assert.deepEqual(r.flags, [
    "state: 's000' is under-represented (0.67%, 1 row)",
    "state: 's001' is under-represented (0.67%, 1 row)",
    "state: 's002' is under-represented (0.67%, 1 row)",
    "state: 's003' is under-represented (0.67%, 1 row)",
    "state: 's004' is under-represented (0.67%, 1 row)",
    'state: 145 more under-represented groups (the JSON lists all)',
    'state: too few rows to score (no group holds 1% of the rows); shares are shown',
    'no dimension has enough rows to score (state); the grade is not given',
  ]);
  assert.deepEqual(r.findings.map((f) => f.kind), ['under_represented', 'under_represented',
    'under_represented', 'under_represented', 'under_represented', 'more', 'not_scored', 'no_dimension']);
  assert.equal(r.dimensions[0].under_represented.length, 150);
  // SPEC 18: every group is a test (150) and the missing check one more; the 145 groups
  // past the listing cap count among the verdicts
  assert.equal(r.evidence.tests, 151);
  assert.equal(r.evidence.confirmed + r.evidence.possible, 150);
});

function peakRss(file, extra) {
  // GNU time reports the child's maximum resident set size in KB.
  const p = spawnSync('/usr/bin/time', ['-v', process.execPath, '--max-old-space-size=256', BRIDGE,
    'profile', file].concat(extra || []), { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(p.status, 0, p.stderr.slice(-2000));
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(p.stderr)[1]);
  return { mb: kb / 1024, result: JSON.parse(p.stdout) };
}

test('the bridge stays under 300 MB on 8,000 columns and on zip x city', { skip: !fs.existsSync('/usr/bin/time') && 'no /usr/bin/time' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faircode-bounds-'));
  const wide = path.join(dir, 'w8000.csv');
  const header = Array.from({ length: 8000 }, (_, i) => `c${i}`);
  let x = 1;
  const rnd = () => { x = (x * 1103515245 + 12345) % 2147483648; return (x >> 16) % 2; };
  fs.writeFileSync(wide, lines(header, [0, 1, 2].map(() => header.map(() => 'ab'[rnd()]))));
  // a/b columns are generic categoricals: scored (and crossed) only with the option.
  const w = peakRss(wide, ['--score-categoricals']);
  assert.ok(w.mb < 300, `w8000: ${w.mb} MB`);
  assert.equal(w.result.intersections.length, 1);
  const zc = path.join(dir, 'zip_city.csv');
  const rows = [];
  for (let i = 0; i < 10000; i++) rows.push([String(i).padStart(5, '0'), `city${(i * 7919) % 10000}`, 'MF'[i % 2]]);
  fs.writeFileSync(zc, lines(['zip', 'city', 'sex'], rows));
  const z = peakRss(zc);
  assert.ok(z.mb < 300, `zip_city: ${z.mb} MB`);
  assert.equal(z.result.intersections[0].cells.length, 1000);
  assert.equal(z.result.intersections[0].cells_not_listed, 10000 * 10000 - 1000);
  fs.rmSync(dir, { recursive: true });
});

test('parts (worker threads) respect the cap like one read', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faircode-bounds-'));
  const bridge = (file, parts) => {
    const p = spawnSync(process.execPath, [BRIDGE, 'profile', file, '--parts', String(parts)],
      { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(p.status, 0, p.stderr);
    return JSON.parse(p.stdout);
  };
  for (const [n, capped] of [[LABEL_CAP - 10, false], [LABEL_CAP + 20000, true]]) {
    const file = path.join(dir, `l${n}.csv`);
    fs.writeFileSync(file, labelsCsv(n));
    const one = bridge(file, 1);
    const two = bridge(file, 2);
    const four = bridge(file, 4);
    assert.deepEqual(two, one);
    assert.deepEqual(four, one);
    assert.deepEqual(one.dropped, [capped
      ? { name: 'race', kind: 'race', n_groups: null, more_than: LABEL_CAP }
      : { name: 'race', kind: 'race', n_groups: n }]);
  }
  fs.rmSync(dir, { recursive: true });
});
