'use strict';
// SPEC sections 1-6: tokenizer, keywords, categorical rule, age, metrics, flags.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const { E, run, dim, dataFile } = require('./helpers');

test('tokenizer: words, camelCase humps, acronym ends, letter/digit changes', () => {
  assert.deepEqual(E.tokenize('DateOfBirth'), ['date', 'of', 'birth']);
  assert.deepEqual(E.tokenize('Sex_Code_Text'), ['sex', 'code', 'text']);
  assert.deepEqual(E.tokenize('ageGroup'), ['age', 'group']);
  assert.deepEqual(E.tokenize('DOBDate'), ['dob', 'date']);
  assert.deepEqual(E.tokenize('age2'), ['age', '2']);
  assert.deepEqual(E.tokenize('2age'), ['2', 'age']);
  assert.deepEqual(E.tokenize('Âge'), ['ge']);
  assert.deepEqual(E.tokenize('ageé_x'), ['age', 'x']);
  assert.deepEqual(E.tokenize('HTTPServer10X'), ['http', 'server', '10', 'x']);
  assert.deepEqual(E.tokenize(''), []);
});

test('keywords: equal, or followed by a listed suffix; list order decides', () => {
  const k = E.kindFromName;
  assert.equal(k('sex'), 'sex');
  assert.equal(k('Gender_Identity'), 'sex');
  assert.equal(k('agency'), null);
  assert.equal(k('Agency_Text'), null);
  assert.equal(k('Language'), null);
  assert.equal(k('stage'), null);
  assert.equal(k('statecode'), 'geography');
  assert.equal(k('age_cat'), 'age');
  assert.equal(k('DateOfBirth'), 'age');
  // the name says ethnicity; its labels decide race (SPEC 1.2: ethnicityHoldsRace)
  assert.equal(k('Ethnic_Code_Text'), 'ethnicity');
  assert.equal(k('race_sex'), 'sex');
  assert.equal(k('native-country'), 'nationality');
  assert.equal(k('zipper'), null);
  assert.equal(k('cityscape'), null); // v1 prefix match; 'scape' is no suffix (SPEC 1)
  assert.equal(k('AGE2'), 'age');
});

test('generic categoricals: 2..max_categorical distinct labels, unscored by default', () => {
  const rows = (k) => 'x\n' + Array.from({ length: 60 }, (_, i) => `v${i % k}`).join('\n') + '\n';
  const on = { score_categoricals: true };
  assert.equal(run(rows(1), on).dimensions.length, 0);
  assert.equal(run(rows(2), on).dimensions.length, 1);
  assert.equal(run(rows(20), on).dimensions.length, 1);
  assert.equal(run(rows(21), on).dimensions.length, 0);
  assert.equal(run(rows(21), { max_categorical: 21, score_categoricals: true }).dimensions.length, 1);
  assert.equal(dim(run(rows(2), on), 'x').detected_by, 'label_count');
  // Without the option the same columns are unscored (SPEC 1.4, 1.5).
  assert.equal(run(rows(1)).unscored.length, 0);
  assert.deepEqual(run(rows(2)).unscored.map((u) => [u.name, u.n_groups]), [['x', 2]]);
  assert.equal(run(rows(20)).unscored.length, 1);
  assert.equal(run(rows(21)).unscored.length, 0);
  assert.equal(run(rows(2)).dimensions.length, 0);
});

test('group explosion: >max_dimension_groups dropped unless geography or forced', () => {
  const rows = 'sex,state,x\n' + Array.from({ length: 60 }, (_, i) => `s${i},g${i},1`).join('\n') + '\n';
  const r = run(rows);
  assert.deepEqual(r.dropped, [{ name: 'sex', kind: 'sex', n_groups: 60 }]);
  assert.deepEqual(r.dimensions.map((d) => d.name), ['state']);
  const f = run(rows, {}, { sex: 'sex', x: 'categorical' });
  assert.deepEqual(f.dimensions.map((d) => d.name), ['sex', 'state', 'x']);
  assert.equal(dim(f, 'x').n_groups, 1);
});

test('age: numeric bands, implausible values, skewness; interval and categorical modes', () => {
  const r = run('age\n5\n17.5\n18\n29\n30\n75\n120\n121\n-1\nNA\n');
  const a = dim(r, 'age');
  assert.equal(a.age_mode, 'numeric');
  assert.deepEqual(a.groups.map((g) => [g.label, g.count]),
    [['0-17', 2], ['18-29', 2], ['75+', 2], ['30-44', 1]]);
  assert.equal(a.implausible_count, 2);
  assert.equal(a.missing_count, 3);
  assert.equal(typeof a.skewness, 'number');
  // Every interval inside one band: banded (SPEC 2), by its lower bound.
  const iv = dim(run('age\n[60-75)\n"[30, 45)"\n[0-10)\n[60-75)\n'), 'age');
  assert.equal(iv.age_mode, 'interval');
  assert.deepEqual(iv.groups.map((g) => [g.label, g.count]), [['60-74', 2], ['0-17', 1], ['30-44', 1]]);
  assert.equal(iv.skewness, null);
  // [70-80) spans 60-74 and 75+: the intervals are the groups, in interval order.
  const aw = dim(run('age\n[70-80)\n"(40, 50]"\n[0-10)\n[70-80)\n'), 'age');
  assert.equal(aw.age_mode, 'interval_as_written');
  assert.deepEqual(aw.groups.map((g) => [g.label, g.count]), [['[0-10)', 1], ['(40, 50]', 1], ['[70-80)', 2]]);
  assert.equal(aw.max_share, 0.5);
  const cat = dim(run('age\n25 - 45\nLess than 25\n25 - 45\n'), 'age');
  assert.equal(cat.age_mode, 'categorical');
  assert.deepEqual(cat.groups.map((g) => g.label), ['25 - 45', 'Less than 25']);
});

test('flags: exact texts and order', () => {
  const rows = ['sex,age'];
  for (let i = 0; i < 90; i++) rows.push(`M,${20 + (i % 10)}`);
  for (let i = 0; i < 4; i++) rows.push('F,NA');
  rows.push('X,200');
  const text = rows.join('\n') + '\n';
  // 95 rows, under min_group_size (100): no under-represented or imbalance finding rests
  // on them, no dimension is scored, and the notes say so (SPEC 5, 6, 18)
  const r = run(text);
  assert.deepEqual(r.flags, [
    'sex: 2 groups under 5.00% in 95 rows; too few rows to judge representation',
    'sex: too few rows to score (fewer than 100 rows (95)); shares are shown',
    'age: 5.26% missing (1 implausible ages treated as missing)',
    'age: too few rows to score (fewer than 100 rows (90)); shares are shown',
    'sex x age: 3 of 3 cells not tested: a group of fewer than 100 rows with both known, or under 1 row expected',
    'no dimension has enough rows to score (sex, age); the grade is not given',
  ]);
  assert.deepEqual(r.findings.map((f) => f.kind), ['representation', 'not_scored', 'missing', 'not_scored',
    'representation', 'no_dimension']);
  assert.deepEqual([r.overall_score, r.overall_ci, r.grade], [null, null, null]);
  // the family: a missing check per dimension; no cell of sex x age rests on 100 rows
  assert.deepEqual(r.evidence, { alpha: 0.05, correction: 'holm', tests: 2, confirmed: 0, possible: 1 });
  // With min_group_size 4 the lines come back, each a finding with its evidence
  const small = run(text, { min_group_size: 4 });
  assert.deepEqual(small.flags, [
    "sex: 'F' is under-represented (4.21%)",
    "sex: 'X' is under-represented (1.05%, 1 row)",
    "sex: imbalance ratio 22.5 ('M' vs 'F')",
    "sex: too few rows to score (the score's interval is wider than 30 points (0-59)); shares are shown",
    'age: 5.26% missing (1 implausible ages treated as missing)',
    // F's 4 rows have no age, X's age is implausible: neither has a row in the pair table
    'sex x age: 2 of 3 cells not tested: a group of fewer than 4 rows with both known, or under 1 row expected',
    // SPEC 17.5: every F row lacks its age (4 of 4 rows, a group of min_group_size)
    "sex: 'age' is missing for 100.00% of 'F' vs 4.21% overall",
  ]);
  assert.deepEqual(small.findings[2], { kind: 'imbalance', severity: 'finding', dimensions: ['sex'],
    groups: ['M', 'F'], value: 22.5, n: 94, ci_low: 8.5825, ci_high: 58.986, threshold: 3, p: 0,
    verdict: 'confirmed', text: "sex: imbalance ratio 22.5 ('M' vs 'F')" });
  // age is one group of 90 rows: scored 0, and the grade is the worst scored dimension's
  assert.deepEqual([dim(small, 'age').dimension_score, dim(small, 'age').score_ci], [0, [0, 0]]);
  assert.deepEqual([small.overall_score, small.overall_ci, small.grade], [0, [0, 0], 'F']);
});

test('no dimension: null score and the flag', () => {
  const r = run('id\n' + Array.from({ length: 25 }, (_, i) => i).join('\n') + '\n');
  assert.equal(r.overall_score, null);
  assert.equal(r.grade, null);
  assert.deepEqual(r.flags, ['no demographic column detected; declare one with --map COLUMN=KIND']);
});

test('cross: named pair, and a flag when a name is not a dimension', () => {
  const text = 'sex,race,x\nM,A,1\nF,B,2\nM,B,1\n';
  const r = run(text, { cross: ['race', 'sex'] });
  assert.deepEqual(r.intersections[0].dims, ['race', 'sex']);
  assert.equal(r.intersections[0].n_cells, 4);
  // SPEC 4: a name not in the header is an input error, as --map's
  assert.deepEqual(run(text, { cross: ['sex', 'nope'] }),
    { error: "--cross: no column named 'nope' (columns: sex, race, x)" });
  const bad = run(text, { cross: ['sex', 'x'] });
  assert.deepEqual(bad.intersections, []);
  // the cross note closes the list, before the note that 3 rows score nothing
  assert.deepEqual(bad.flags.slice(-2), ["cross: 'x' is not a profiled dimension",
    'no dimension has enough rows to score (sex, race); the grade is not given']);
  assert.deepEqual(bad.findings[bad.findings.length - 2].kind, 'cross');
});

test('COMPAS two-year: published counts', () => {
  const bytes = fs.readFileSync(dataFile('compas-scores-two-years.csv'));
  for (const chunk of [4096, 1 << 20]) {
    const r = E.profileBytes(bytes, 'compas', {}, {}, chunk);
    assert.equal(r.n_rows, 7214);
    const sex = Object.fromEntries(dim(r, 'sex').groups.map((g) => [g.label, g.count]));
    assert.deepEqual(sex, { Male: 5819, Female: 1395 });
    const race = Object.fromEntries(dim(r, 'race').groups.map((g) => [g.label, g.count]));
    assert.equal(race['African-American'], 3696);
    assert.equal(race.Caucasian, 2454);
    assert.deepEqual(r.dropped, [{ name: 'dob', kind: 'age', n_groups: 5452 }]);
    // Version 2 scores people's attributes only (SPEC 1.4).
    assert.deepEqual(r.dimensions.map((d) => [d.name, d.detected_by]),
      [['sex', 'name'], ['age', 'name'], ['age_cat', 'name'], ['race', 'name']]);
    // Score v3 (SPEC 5): sex 71 [69, 73], race 78; overall 82 [80, 83] B
    assert.deepEqual(r.dimensions.map((d) => [d.dimension_score, d.score_ci]),
      [[71, [69, 73]], [88, [87, 88]], [89, [88, 90]], [78, [77, 79]]]);
    assert.deepEqual([r.overall_score, r.overall_ci, r.grade], [82, [80, 83], 'B']);
    // SPEC 6's example: the imbalance finding, the family and a cell's expected count
    assert.deepEqual(r.findings[0], { kind: 'imbalance', severity: 'finding', dimensions: ['sex'],
      groups: ['Male', 'Female'], value: 4.1713, n: 7214, ci_low: 3.9346, ci_high: 4.4223,
      threshold: 3, p: 0, verdict: 'confirmed', text: "sex: imbalance ratio 4.2 ('Male' vs 'Female')" });
    assert.deepEqual(r.evidence, { alpha: 0.05, correction: 'holm', tests: 318, confirmed: 11, possible: 20 });
    assert.deepEqual(r.intersections[0].cells[0], { a: 'Male', b: '75+', count: 14, share: 0.0019, expected: 12.1 });
    // 75+ (15 rows) is under min_group_size: its two cells are no test (SPEC 4)
    assert.equal(r.intersections[0].cells_not_tested, 2);
    assert.deepEqual(r.flags, r.findings.map((f) => f.text));
    const v2 = E.profileBytes(bytes, 'compas', {}, { score_rule: 'v2' }, chunk);
    assert.equal(v2.overall_score, 74);
    assert.deepEqual(v2.dimensions.map((d) => [d.dimension_score, d.score_ci, d.score_note]),
      [[71, null, null], [73, null, null], [89, null, null], [62, null, null]]);
    assert.equal(v2.overall_ci, null);
    const u = r.unscored.find((x) => x.name === 'decile_score.1');
    assert.equal(u.why, 'not a demographic name or vocabulary');
    assert.equal(u.n_groups, 10);
    // c_charge_degree holds F/M beside a sex column: not taken for sex (SPEC 1.2).
    assert.ok(r.unscored.some((x) => x.name === 'c_charge_degree'));
  }
});
