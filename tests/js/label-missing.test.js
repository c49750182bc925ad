'use strict';
// SPEC 17: label base rates and missing data by group in the JS engine: options and
// their texts, the positive value, rates and missing shares checked against a brute
// force over the rows, flags, bounds, chunk and part invariance, and compare.
const test = require('node:test');
const assert = require('node:assert/strict');
const { E, enc, run, summarize, CHUNKS } = require('./helpers');

function lines(header, rows) {
  return [header.join(','), ...rows.map((r) => r.join(','))].join('\n') + '\n';
}

function err(fn) {
  try {
    fn();
  } catch (e) {
    if (e instanceof E.InputError) return e.message;
    throw e;
  }
  return null;
}

// A deterministic generator: sex, race, age, a label y, and columns with blanks whose
// rate depends on the group (so missing shares and rates differ between groups).
function rows(n, seed) {
  let x = seed;
  const rnd = (k) => { x = (x * 1103515245 + 12345) % 2147483648; return x % k; };
  const out = [];
  for (let r = 0; r < n; r++) {
    const sex = ['M', 'F', 'F', '', 'NA'][rnd(5)];
    const race = ['A', 'B', 'C', 'D', '?'][rnd(5)];
    const age = String(rnd(90));
    const y = sex === 'M' ? ['1', '1', '0', ''][rnd(4)] : ['1', '0', '0', 'x'][rnd(4)];
    const lab = race === 'B' && rnd(2) ? '' : String(rnd(7));
    const note = rnd(3) === 0 ? 'none' : `n${rnd(40)}`; // an open column past 20 labels
    out.push([sex, race, age, y, lab, note]);
  }
  return out;
}
const HEADER = ['sex', 'race', 'age', 'y', 'lab', 'note'];
const MISSING = new Set(['', 'NA', 'N/A', 'n/a', 'NaN', 'nan', 'null', 'NULL', '?']);

function band(a) {
  const v = Number(a);
  const edges = [0, 18, 30, 45, 60, 75];
  let b = 0;
  for (let i = 0; i < edges.length; i++) if (edges[i] <= v) b = i;
  return b + 1 < edges.length ? `${edges[b]}-${edges[b + 1] - 1}` : `${edges[b]}+`;
}

/** Brute force over the rows: per dimension group, [count, n, positive]; per column
 * (after the na and recode of `opts`) missing cells per group and overall. */
function brute(data, opts) {
  const na = new Set(opts.na || []);
  const recode = new Map((opts.recode || []).map(([c, f, t]) => [c + '\u0000' + f, t]));
  const value = (col, v) => {
    if (MISSING.has(v)) return null;
    const to = recode.has(col + '\u0000' + v) ? recode.get(col + '\u0000' + v) : v;
    return MISSING.has(to) || na.has(to) ? null : to;
  };
  const dims = { sex: 0, race: 1, age: 2 };
  const out = {};
  for (const [name, k] of Object.entries(dims)) {
    const groups = new Map();
    const missing = new Map();
    for (const row of data) {
      let g = value(name, row[k]);
      if (g === null) continue;
      if (name === 'age') g = band(g);
      const e = groups.get(g) || [0, 0, 0];
      e[0]++;
      const y = value('y', row[3]);
      if (y !== null) { e[1]++; if (y === opts.positive) e[2]++; }
      groups.set(g, e);
      for (let c = 0; c < HEADER.length; c++) {
        if (c === k || value(HEADER[c], row[c]) !== null) continue;
        const key = HEADER[c] + '\u0000' + g;
        missing.set(key, (missing.get(key) || 0) + 1);
      }
    }
    out[name] = { groups, missing };
  }
  out.total = HEADER.map((col, c) => data.filter((row) => value(col, row[c]) === null).length);
  return out;
}

test('options: defaults, ranges and texts (faircode/options.py)', () => {
  const o = E.resolveOptions({});
  assert.equal(o.label, null);
  assert.equal(o.positive, null);
  assert.equal(o.label_gap, 0.1);
  assert.equal(o.missing_by_group, true);
  assert.equal(o.missing_gap, 0.1);
  assert.equal(err(() => E.resolveOptions({ label_gap: 2 })), '--label-gap: 2 is out of range (0..1)');
  assert.equal(err(() => E.resolveOptions({ missing_gap: -0.5 })), '--missing-gap: -0.5 is out of range (0..1)');
  assert.equal(err(() => E.resolveOptions({ missing_gap: '3' })), '--missing-gap: 3.0 is out of range (0..1)');
  assert.equal(err(() => E.resolveOptions({ missing_by_group: 'yes' })), '--missing-by-group: yes is not true or false');
  assert.equal(err(() => E.resolveOptions({ missing_by_group: 1 })), '--missing-by-group: 1 is not true or false');
  assert.equal(err(() => E.resolveOptions({ label: '  ' })), '--label: give a column name');
  assert.equal(err(() => E.resolveOptions({ label: 3 })), '--label: give a column name');
  assert.equal(err(() => E.resolveOptions({ positive: '1' })), '--positive needs --label');
  assert.equal(err(() => E.resolveOptions({ label: 'y', positive: 1 })), '--positive: 1 is not text');
  assert.equal(E.resolveOptions({ label: ' y\t', positive: ' 1 ' }).positive, '1');
  assert.equal(E.resolveOptions({ label: ' y\t' }).label, 'y');
  // provenance params: the gaps always, label and positive only with a label
  // (then SPEC 5 and 18's score_rule and alpha)
  const plain = E.provenance({ opts: {} }).params;
  assert.deepEqual(Object.keys(plain).slice(-5), ['label_gap', 'missing_by_group', 'missing_gap', 'score_rule', 'alpha']);
  assert.ok(!('label' in plain) && !('positive' in plain));
  const with_ = E.provenance({ opts: { label: 'y' } }).params;
  assert.deepEqual(Object.keys(with_).slice(-7), ['label', 'positive', 'label_gap', 'missing_by_group', 'missing_gap',
    'score_rule', 'alpha']);
  assert.equal(with_.positive, null);
  assert.ok(err(() => E.resolveOptions({ lable: 'y' })).includes('label, label_gap'));
});

test('label column errors: no such column, also given to --map, in check_overrides order', () => {
  const csv = lines(['sex', 'y'], [['M', '1'], ['F', '0']]);
  assert.equal(run(csv, { label: 'z' }).error, "--label: no column named 'z' (columns: sex, y)");
  assert.equal(run(csv, { label: 'y' }, { y: 'ignore' }).error, '--label y: the label column cannot also be given to --map');
  assert.equal(run(csv, { label: 'y' }, { sex: 'sex', y: 'race' }).error, '--label y: the label column cannot also be given to --map');
  // --map's own errors come first, then the label's, then --na's and --recode's
  assert.equal(run(csv, { label: 'z' }, { q: 'sex' }).error, "--map: no column named 'q' (columns: sex, y)");
  assert.equal(run(csv, { label: 'z', na: [['q', 'x']] }).error, "--label: no column named 'z' (columns: sex, y)");
  // analysis checks the same against the summary's header
  const s = summarize(csv, {});
  assert.equal(err(() => E.analyze(s, {}, { label: 'z' })), "--label: no column named 'z' (columns: sex, y)");
});

test('the positive value: larger of two, the option, or an input error listing values', () => {
  const two = lines(['sex', 'y'], [['M', 'No'], ['F', 'Yes'], ['F', 'No']]);
  const r = run(two, { label: 'y' });
  assert.equal(r.label_rates.positive, 'Yes');
  assert.equal(r.label_rates.positive_from, 'larger_of_two');
  assert.equal(run(two, { label: 'y', positive: 'No' }).label_rates.positive_from, 'option');
  assert.equal(run(two, { label: 'y', positive: 'no' }).error, "--positive no: not a value of 'y' (values: 'No', 'Yes')");
  // values after 1.1: a recode joins two spellings, an na token removes one
  const spell = lines(['sex', 'y'], [['M', '>50K'], ['F', '>50K.'], ['F', '<=50K']]);
  assert.equal(run(spell, { label: 'y' }).error, "--label y: 3 values; name the positive one with --positive (values: '<=50K', '>50K', '>50K.')");
  const joined = run(spell, { label: 'y', recode: [['y', '>50K.', '>50K']] });
  assert.equal(joined.label_rates.positive, '>50K');
  assert.equal(joined.label_rates.positive_count, 2);
  assert.equal(run(two, { label: 'y', na: ['No'] }).error, "--label y: 1 value; name the positive one with --positive (values: 'Yes')");
  const many = lines(['sex', 'y'], Array.from({ length: 12 }, (_, i) => [i % 2 ? 'M' : 'F', `v${i}`]));
  assert.equal(run(many, { label: 'y' }).error,
    "--label y: 12 values; name the positive one with --positive (values: 'v0', 'v1', 'v10', 'v11', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', ...)");
  // a label past LABEL_CAP distinct values is capped: an input error at analysis
  const s = summarize(two, { label: 'y' });
  s.counts[1] = null;
  s.capped = [false, true];
  assert.equal(err(() => E.analyze(s, {}, { label: 'y' })), '--label y: more than 100000 distinct values');
});

test('the label is never a dimension, unscored, dropped or a pair column; its name gives no kind', () => {
  const csv = lines(['gender', 'sex', 'race'], [['F', 'M', 'A'], ['M', 'F', 'B'], ['M', 'F', 'A']]);
  const r = run(csv, { label: 'sex', positive: 'M' });
  assert.deepEqual(r.dimensions.map((d) => d.name), ['gender', 'race']);
  assert.deepEqual(r.intersections[0].dims, ['gender', 'race']);
  assert.deepEqual(Object.keys(r).slice(-5), ['label_rates', 'missing_by_group', 'findings', 'evidence', 'flags']);
  // `c` holds F/M beside a label named sex: the label's name gives no kind (1.2's rule)
  const coded = lines(['id', 'c', 'sex'], [['1', 'F', 'x'], ['2', 'M', 'y'], ['3', 'M', 'y']]);
  assert.deepEqual(run(coded, { label: 'sex' }).dimensions.map((d) => d.name), ['c']);
  assert.deepEqual(run(coded, {}).dimensions.map((d) => d.name), ['sex']);
  // crossing the label: it is not a profiled dimension
  const crossed = run(csv, { label: 'sex', cross: ['sex', 'race'] });
  assert.ok(crossed.flags.includes("cross: 'sex' is not a profiled dimension"));
  assert.equal(crossed.label_rates.intersection, null);
});

test('rates and missing shares equal a brute force over the rows, at every chunk size', () => {
  for (const seed of [1, 7, 42]) {
    const data = rows(1500, seed);
    const csv = lines(HEADER, data);
    for (const opts of [
      { label: 'y', positive: '1' },
      { label: 'y', positive: '1', na: ['x', '3'], recode: [['race', 'D', 'C'], ['lab', '5', 'NA']] },
      { label: 'y', positive: '0', recode: [['y', 'x', '0']], min_group_size: 300 },
    ]) {
      const want = brute(data, opts);
      let first = null;
      for (const chunk of [7, 1000, 1 << 20]) {
        const r = run(csv, opts, {}, chunk);
        assert.ok(r.label_rates, JSON.stringify(r).slice(0, 300));
        if (first === null) first = r;
        else assert.deepEqual(r, first, `chunk ${chunk}`);
      }
      const r = first;
      for (const d of r.label_rates.dimensions) {
        const { groups } = want[d.name];
        for (const g of d.groups) {
          const [count, n, pos] = groups.get(g.label);
          assert.equal(g.n, n, `${d.name} ${g.label}`);
          assert.equal(g.positive, pos);
          assert.equal(g.label_missing, count - n);
          assert.equal(g.rate, n ? E.roundHalfUp(pos / n, 4) : null);
          assert.equal(g.small_group, n < (opts.min_group_size ?? 100));
        }
      }
      for (const entry of r.missing_by_group) {
        const { groups, missing } = want[entry.dimension];
        const listed = entry.columns.map((c) => c.name);
        const expected = HEADER.filter((c, k) => c !== entry.dimension && want.total[k] > 0);
        assert.deepEqual(listed, expected);
        for (const col of entry.columns) {
          assert.equal(col.missing_count, want.total[HEADER.indexOf(col.name)]);
          for (const g of col.groups) {
            assert.equal(g.count, groups.get(g.label)[0]);
            assert.equal(g.missing, missing.get(col.name + '\u0000' + g.label) || 0, `${entry.dimension} ${col.name} ${g.label}`);
          }
        }
      }
    }
  }
});

test('parts merged give the one-read result (mergeSummaries adds the SPEC 17 tables)', () => {
  const data = rows(3000, 5);
  const opts = { label: 'y', na: ['x'], recode: [['lab', '2', 'NA']] };
  const one = run(lines(HEADER, data), opts);
  for (const cut of [1, 700, 1500, 2999]) {
    const a = summarize(lines(HEADER, data.slice(0, cut)), opts);
    const b = summarize(lines(HEADER, data.slice(cut)), opts);
    const merged = E.mergeSummaries(a, b);
    assert.deepEqual(E.analyze(merged, {}, opts), one, `cut ${cut}`);
    // as posted from a worker (finishPacked, structured clone, unpackSummary)
    const p = E.createProfiler({ name: 't.csv', opts: E.partOptions(opts, { columns: HEADER, delimiter: ',' }) });
    p.push(enc.encode(data.slice(cut).map((r) => r.join(',')).join('\n') + '\n'));
    const packed = structuredClone(p.finishPacked());
    assert.deepEqual(E.analyze(E.mergeSummaries(a, E.unpackSummary(packed)), {}, opts), one);
  }
  // a group column pruned on one side has no tables in the union; missing_all adds
  const a = summarize(lines(['race', 'y', 'lab'], [['A', '1', ''], ['B', '0', '1']]), { label: 'y' });
  const b = summarize(lines(['race', 'y', 'lab'], Array.from({ length: 60 }, (_, i) => [`r${i}`, '1', ''])), { label: 'y' });
  const m = E.mergeSummaries(a, b);
  assert.ok(!b.label_pairs.has(0) && !m.label_pairs.has(0) && !m.missing_by.has(0));
  assert.deepEqual(m.missing_all, [0, 0, 61]);
});

test('missing data is taken after 1.1 for every read column, counted or not', () => {
  const header = ['sex', 'free', 'skip', 'y'];
  const data = [];
  for (let i = 0; i < 200; i++) {
    const sex = i % 4 === 0 ? 'F' : 'M';
    // F rows miss `free` (an open column past 20 labels) half the time, M rows never
    const free = sex === 'F' && i % 8 === 0 ? '-' : `t${i}`;
    data.push([sex, free, i % 2 ? '' : 'k', i % 10 ? '1' : '']);
  }
  data.push(['M']); // a short row: its trailing cells are missing
  const r = run(lines(header, data), { na: [['free', '-']], label: 'y', positive: '1', min_group_size: 10 }, { skip: 'ignore' });
  const sex = r.missing_by_group[0];
  assert.deepEqual(sex.columns.map((c) => c.name), ['free', 'y']); // ignore never; the label listed
  const free = sex.columns[0];
  assert.equal(free.missing_count, 26);
  assert.deepEqual(free.groups.map((g) => [g.label, g.count, g.missing]), [['M', 151, 1], ['F', 50, 25]]);
  assert.deepEqual(free.flagged, ['F']);
  assert.ok(r.flags.includes("sex: 'free' is missing for 50.00% of 'F' vs 12.94% overall"));
  assert.ok(r.flags.includes('y: 21 rows with a missing label are left out of the rates'));
  // off: no block, no tables
  const off = run(lines(header, data), { missing_by_group: false }, { skip: 'ignore' });
  assert.ok(!('missing_by_group' in off));
  const s = summarize(lines(header, data), { missing_by_group: false });
  assert.deepEqual(s.missing_all, []);
  assert.equal(s.missing_by.size, 0);
});

test('flags: texts, order, the compared rule and the caps', () => {
  const data = [];
  const add = (sex, race, y, k) => { for (let i = 0; i < k; i++) data.push([sex, race, y]); };
  add('M', 'A', '1', 120); add('M', 'A', '0', 80);
  add('F', 'A', '1', 30); add('F', 'A', '0', 170);
  add('F', 'B', '1', 3); // 3 rows at rate 1.0: listed, never the highest
  add('M', 'B', '0', 2);
  add('M', 'A', '', 4);
  const r = run(lines(['sex', 'race', 'y'], data), { label: 'y' });
  const sex = r.label_rates.dimensions[0];
  assert.deepEqual([sex.highest, sex.lowest, sex.max_difference, sex.min_ratio], ['M', 'F', 0.4315, 0.2736]);
  // the gap block: Newcombe's interval of the difference, the log interval of the ratio
  // (the numerics are checked against statsmodels in evidence.test.js) and its verdict
  assert.deepEqual(sex.gap, { difference: 0.4315, ci_low: 0.3421, ci_high: 0.5105, ratio_ci_low: 0.1963,
    ratio_ci_high: 0.3815, verdict: 'confirmed', lowest_alike: [] });
  const race = r.label_rates.dimensions[1];
  // only A has 100 rows: nothing is compared, with no fallback to B's 5 rows (SPEC 17.4)
  assert.deepEqual([race.highest, race.lowest, race.max_difference, race.min_ratio, race.gap],
    [null, null, null, null, null]);
  assert.equal(race.groups.find((g) => g.label === 'B').rate, 0.6); // still listed
  assert.ok(r.flags.includes('race: label-rate gap not measurable: fewer than two groups of 100 rows'));
  assert.ok(!r.flags.some((f) => f.startsWith('race: y=1 rate')));
  const inter = r.label_rates.intersection;
  assert.deepEqual(inter.dims, ['sex', 'race']);
  assert.deepEqual([inter.highest, inter.lowest], [['M', 'A'], ['F', 'A']]);
  assert.deepEqual(inter.cells.map((c) => [c.a, c.b, c.n]), [['M', 'A', 200], ['M', 'B', 2], ['F', 'A', 200], ['F', 'B', 3]]);
  assert.equal(inter.gap.verdict, 'confirmed');
  // a cell's finding names the cell, then the highest cell (SPEC 18)
  const cell = r.findings.find((f) => f.kind === 'label_gap' && f.dimensions.length === 2);
  assert.deepEqual([cell.groups, cell.value, cell.n, cell.threshold], [['F', 'A', 'M', 'A'], 0.45, 200, 0.1]);
  // the family: 2 + 2 groups, 1 imbalance, 2 missing, 2 cells (B's 5 rows are under
  // min_group_size: its 2 cells are no test, SPEC 4), 2 label gaps, 3 missing gaps
  assert.deepEqual(r.evidence, { alpha: 0.05, correction: 'holm', tests: 14, confirmed: 3, possible: 0 });
  // the cap: at most GROUP_FLAG_CAP lines per dimension, then one more line
  const wide = [];
  for (let g = 0; g < 130; g++) for (let i = 0; i < 4; i++) wide.push([`g${g}`, g === 0 || i === 0 ? '1' : '0']);
  const w = run(lines(['region', 'y'], wide), { label: 'y', min_group_size: 1 }, { region: 'geography' });
  const gaps = w.flags.filter((f) => f.startsWith('region: y=1 rate'));
  assert.equal(gaps.length, 100);
  assert.ok(w.flags.includes('region: 29 more label-rate gaps (the JSON lists all)'));
  // every compared group but the highest is a test, listed or not; the 29 past the cap
  // count among the verdicts (SPEC 18)
  const region = w.label_rates.dimensions[0];
  assert.deepEqual([region.highest, region.lowest], ['g0', 'g1']);
  assert.equal(w.findings.filter((f) => f.kind === 'label_gap').length, 100);
  assert.equal(w.findings.find((f) => f.kind === 'more').groups.length, 0);
  const labelTests = 129;
  assert.ok(w.evidence.tests >= labelTests);
  // (and the 125 under-represented groups past UNDER_LINES: 130 groups of 0.8% each)
  assert.equal(w.evidence.confirmed + w.evidence.possible,
    w.findings.filter((f) => f.severity === 'finding').length + 29 + 125);
  // 4 rows against 4: the interval straddles label_gap, so the gap is possible
  assert.equal(region.gap.verdict, 'possible');
  // the same lowest group past the cap still gives the gap its verdict
  const late = [];
  for (let g = 0; g < 130; g++) for (let i = 0; i < 4; i++) late.push([`g${String(g).padStart(3, '0')}`, g === 0 || (g < 129 && i === 0) ? '1' : '0']);
  const l = run(lines(['region', 'y'], late), { label: 'y', min_group_size: 1 }, { region: 'geography' });
  const lr = l.label_rates.dimensions[0];
  assert.deepEqual([lr.highest, lr.lowest], ['g000', 'g129']);
  assert.ok(!l.flags.some((f) => f.includes("'g129'")));
  assert.ok(['confirmed', 'possible'].includes(lr.gap.verdict));
});

test('label-rate flags: exact lines in order', () => {
  const data = [];
  const add = (sex, race, y, k) => { for (let i = 0; i < k; i++) data.push([sex, race, y]); };
  add('M', 'A', '1', 120); add('M', 'A', '0', 80);
  add('F', 'A', '1', 30); add('F', 'A', '0', 170);
  add('M', 'B', '0', 2);
  add('M', 'A', '', 4);
  const r = run(lines(['sex', 'race', 'y'], data), { label: 'y', missing_by_group: false });
  const at = r.flags.indexOf("sex: y=1 rate 15.00% for 'F' vs 59.41% for 'M'");
  assert.ok(at > 0, JSON.stringify(r.flags));
  // no line rests on B's 2 rows (SPEC 17.4, version 3): race has one group of 100 rows
  assert.deepEqual(r.flags.slice(at), [
    "sex: y=1 rate 15.00% for 'F' vs 59.41% for 'M'",
    'race: label-rate gap not measurable: fewer than two groups of 100 rows',
    "sex x race: y=1 rate 15.00% for 'F' x 'A' vs 60.00% for 'M' x 'A'",
    'y: 4 rows with a missing label are left out of the rates',
    'race: labels A, B look like codes; the file does not say which group each stands for (name them with --recode race:A=NAME,B=NAME)',
  ]);
  assert.deepEqual(r.findings.slice(at).map((f) => [f.kind, f.severity]), [['label_gap', 'finding'],
    ['not_measurable', 'note'], ['label_gap', 'finding'], ['label_missing', 'note'], ['coded', 'note']]);
  // with min_group_size 0 every group with a row is compared, as version 2 did
  const all = run(lines(['sex', 'race', 'y'], data), { label: 'y', missing_by_group: false, min_group_size: 0 });
  assert.ok(all.flags.includes("race: y=1 rate 0.00% for 'B' vs 37.50% for 'A'"));
});

test('a dimension past the first 64 counted columns is not counted', () => {
  const lead = Array.from({ length: 64 }, (_, i) => `k${i}`);
  const data = [['M', ...Array(64).fill('x'), 'A', '1'], ['F', ...Array(64).fill(''), 'B', '0']];
  const r = run(lines(['sex', ...lead, 'race', 'y'], data), { label: 'y' });
  assert.deepEqual(r.label_rates.dimensions[1], { name: 'race', not_counted: true });
  assert.deepEqual(r.missing_by_group[1], { dimension: 'race', not_counted: true });
  const flag = "race: label rates and missing data by group not counted ('race' is not among the first 64 counted columns)";
  assert.equal(r.flags.filter((f) => f === flag).length, 1);
  // the label does not take a place among the 64; ignored columns free places
  const inside = run(lines(['sex', ...lead, 'race', 'y'], data), { label: 'y' }, { k0: 'ignore', k1: 'ignore' });
  assert.ok(inside.label_rates.dimensions[1].groups);
  const noLabel = run(lines(['sex', ...lead, 'race', 'y'], data), {});
  assert.ok(noLabel.flags.includes(flag));
});

test('compare: rate and missing shifts, and labels that differ', () => {
  const side = (k) => {
    const data = [];
    for (let i = 0; i < 400; i++) {
      const sex = i % 2 ? 'M' : 'F';
      const y = sex === 'F' ? (i % 10 < k ? '1' : '0') : (i % 10 < 5 ? '1' : '0');
      data.push([sex, y, sex === 'F' && i % 10 < k ? '' : 'v']);
    }
    return run(lines(['sex', 'y', 'lab'], data), { label: 'y' });
  };
  const a = side(2);
  const b = side(6);
  const c = E.compare(a, b, {});
  assert.deepEqual(Object.keys(c).slice(-5), ['label_rates', 'missing_by_group', 'findings', 'evidence', 'flags']);
  // the interval is statsmodels' confint_proportions_2indep(120, 200, 40, 200, method="newcomb")
  assert.deepEqual(c.label_rates.dimensions[0].groups[0], { label: 'F', rate_a: 0.2, rate_b: 0.6, rate_delta: 0.4,
    n_a: 200, n_b: 200, positive_a: 40, positive_b: 120, ci_low: 0.3079, ci_high: 0.482 });
  assert.deepEqual(c.flags, [
    "sex: y=1 rate for 'F' moved 20.00% -> 60.00% (200 -> 200 rows, change 30.79 to 48.20 pts)",
    "sex: 'lab' missing for 'F' moved 20.00% -> 60.00% (200 -> 200 rows, change 30.79 to 48.20 pts)",
  ]);
  // SPEC 18.1: each shift a finding; both confirmed in a family of seven tests
  // (M's rate and missing share, both groups' shares, within their gaps, and the
  // dimension's drift test, its level none, count too)
  assert.deepEqual(c.findings.map((f) => [f.kind, f.groups, f.n, f.value, f.threshold, f.verdict]), [
    ['rate_shift', ['F'], 400, 0.4, 0.1, 'confirmed'],
    ['missing_shift', ['F', 'lab'], 400, 0.4, 0.1, 'confirmed'],
  ]);
  assert.deepEqual(c.evidence, { alpha: 0.05, correction: 'holm', tests: 7, confirmed: 2, possible: 0 });
  const lab = c.missing_by_group[0].columns[0];
  // SPEC 17.6: the counts the reports' rows read the shares with
  assert.deepEqual([lab.name, lab.missing_pct_a, lab.missing_pct_b, lab.missing_count_a, lab.missing_count_b],
    ['lab', 0.1, 0.3, 40, 120]);
  assert.deepEqual(lab.groups[0], { label: 'F', missing_pct_a: 0.2, missing_pct_b: 0.6, missing_delta: 0.4,
    count_a: 200, count_b: 200, missing_a: 40, missing_b: 120, ci_low: 0.3079, ci_high: 0.482 });
  assert.deepEqual(Object.keys(c.dimensions[0]).slice(-3), ['n_a', 'n_b', 'groups']);
  assert.deepEqual([c.dimensions[0].n_a, c.dimensions[0].n_b], [400, 400]);
  assert.deepEqual(Object.keys(c.dimensions[0].groups[0]),
    ['label', 'share_a', 'share_b', 'share_delta', 'ci_low', 'ci_high', 'status']);
  const other = run(lines(['sex', 'y'], [['M', '1'], ['F', '0']]), { label: 'y', positive: '0' });
  const d = E.compare(a, other, {});
  assert.ok(!('label_rates' in d));
  assert.ok(d.flags.includes('label rates not compared (y=1 vs y=0)'));
});

test('a column read only for its missing cells counts quoted cells as their unquoted values', () => {
  // 'note' stops being counted past max_categorical labels and is then read only for
  // missing_all; a quoted cell's value must be missing exactly when the same value
  // unquoted is (long and unpadded, padded, with doubled quotes or text after the
  // closing quote), in any chunks.
  const cells = [
    ['"NA"', 'NA'], ['" NA "', ' NA '], ['"  NA  "', '  NA  '], ['"NA    "', 'NA    '],
    ['"    NA"', '    NA'], ['"abcdefgh"', 'abcdefgh'], ['"ab""cdefgh"', 'ab"cdefgh'],
    ['"abcdefg"h', 'abcdefgh'], ['"abcdefgh"  ', 'abcdefgh  '], ['""', ''], ['"  "', '  '],
    ['"N"A', 'NA'], ['"     "NA', '     NA'], ['"NA\t\t\t\t"', 'NA\t\t\t\t'],
  ];
  const head = Array.from({ length: 40 }, (_, i) => [['M', 'F'][i % 2], `n${i}`]);
  const file = (k) => lines(['sex', 'note'],
    head.concat(cells.map(([q, u], i) => [['F', 'M'][i % 2], k === 0 ? q : u])));
  const opts = { missing_by_group: true };
  for (const chunk of CHUNKS) {
    const quoted = summarize(file(0), opts, chunk);
    const plain = summarize(file(1), opts, chunk);
    assert.equal(quoted.missing_all[1], 10, `chunk ${chunk}`);
    assert.deepEqual(quoted, plain, `chunk ${chunk}`);
  }
});

test('SPEC 17.5: one missing cell of 30,001, in M: the engine and the website name F lowest and M highest', () => {
  require('../../site/views.js');
  const V = globalThis.FaircodeViews;
  const r = run('sex,income\n' + 'M,1\n'.repeat(14999) + 'M,\n' + 'F,2\n'.repeat(15000) + ',2\n');
  const income = r.missing_by_group[0].columns[0];
  // by share among groups of min_group_size rows: the 4-dp intervals tied at 0.0000 and named F both
  assert.deepEqual([income.lowest, income.highest], ['F', 'M']);
  assert.deepEqual(V.missingExtremes(income, 'sex').map((g) => g.label), ['F', 'M']);
  // a small group with a larger share (3 rows, 2 missing) is never the highest
  const small = run('sex,income\n' + 'M,1\n'.repeat(299) + 'M,\n' + 'F,2\n'.repeat(300) + 'X,\nX,\nX,1\n', { min_group_size: 100 });
  const col = small.missing_by_group[0].columns[0];
  assert.deepEqual([col.lowest, col.highest], ['F', 'M']);
  assert.deepEqual(V.missingExtremes(col, 'sex').map((g) => g.label), ['F', 'M']);
});

test('compare: a group whose missing share moved comes before one that did not (SPEC 17.6)', () => {
  // one missing cell of 30,000 in M that went: both deltas round to 0; M first, not F
  const side = (missing) => {
    const data = [];
    for (let k = 0; k < 30000; k++) data.push(['M', k < missing ? '' : '5'], ['F', '5']);
    return run(lines(['sex', 'income'], data), {});
  };
  const c = E.compare(side(1), side(0), {});
  const groups = c.missing_by_group[0].columns[0].groups;
  assert.deepEqual(groups.map((g) => [g.label, g.missing_delta, g.missing_a, g.missing_b]), [['M', 0, 1, 0], ['F', 0, 0, 0]]);
});

test('missing data by group: the entries carry their size floor, and the page names it beside a -', () => {
  // SPEC 17.5: 60 rows, no group of 100+: every lowest and highest is null, shown as -
  const rows = [];
  for (let i = 0; i < 60; i++) rows.push([i % 2 ? 'M' : 'F', i % 4 ? '1' : '']);
  const csv = lines(['sex', 'x'], rows);
  for (const floor of [100, 1000]) {
    const r = run(csv, { min_group_size: floor });
    const [entry] = r.missing_by_group;
    assert.equal(entry.min_group_size, floor);
    assert.equal(entry.columns[0].highest, null);
    require('../../site/views.js');
    const rule = globalThis.FaircodeViews.missingExtremesRule(r.missing_by_group);
    assert.ok(rule.includes(`at least ${floor.toLocaleString('en-US')} rows (--min-group-size), - where fewer than two`), rule);
  }
  // a profile saved before the key: the option's name alone
  const old = globalThis.FaircodeViews.missingExtremesRule([{ dimension: 'sex', columns: [] }]);
  assert.ok(old.includes('at least --min-group-size rows,'), old);
});
