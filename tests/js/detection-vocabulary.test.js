'use strict';
// SPEC 1.1-1.6, 2, 6, 9: keyword suffixes and new kinds,
// value vocabularies, names vs values, unscored columns, na and recode, intervals kept
// as written, small-group flags, reference aliases, no-match, single years.
const test = require('node:test');
const assert = require('node:assert/strict');
const { E, run, dim } = require('./helpers');

const csv = (header, rows) => [header.join(',')].concat(rows.map((r) => r.join(','))).join('\n') + '\n';
const repeat = (n, row) => Array.from({ length: n }, () => row);

test('look-alikes are not demographic; compounds with listed suffixes are', () => {
  const k = E.kindFromName;
  for (const name of ['raceway', 'racecar', 'statement', 'stage', 'usage', 'agency', 'Language',
    'Agency_Text', 'agent', 'cityscape', 'nationalism', 'faithful']) {
    assert.equal(k(name), null, name);
  }
  assert.equal(k('birth_state'), 'geography');
  assert.equal(k('birthplace'), 'geography');
  assert.equal(k('country_of_birth'), 'geography');
  assert.equal(k('neighborhood'), 'geography');
  assert.equal(k('DateOfBirth'), 'age');
  assert.equal(k('birth_year'), 'age');
  assert.equal(k('birthdate'), 'age');
  assert.equal(k('yob'), 'age');
  assert.equal(k('agegroup'), 'age');
  assert.equal(k('native-country'), 'nationality');
  assert.equal(k('citizenship'), 'nationality');
  assert.equal(k('hispanic'), 'ethnicity');
  assert.equal(k('Latino_Origin'), 'ethnicity');
  assert.equal(k('religion'), 'religion');
  assert.equal(k('DisabilityStatus'), 'disability');
  assert.equal(k('maritalstatus'), 'marital');
  assert.equal(k('marital-status'), 'marital');
  assert.equal(k('statecode'), 'geography');
  assert.equal(k('genders'), 'sex');
});

test('value detection: F/M in an unnamed column is sex; S/M/L is not', () => {
  const r = run(csv(['gndr', 'size'], [...repeat(6, ['F', 'S']), ...repeat(4, ['M', 'M']), ['F', 'L']]));
  assert.deepEqual(r.dimensions.map((d) => [d.name, d.kind, d.detected_by]), [['gndr', 'sex', 'values']]);
  assert.deepEqual(dim(r, 'gndr').groups.map((g) => [g.label, g.count]), [['F', 7], ['M', 4]]);
  assert.deepEqual(r.unscored, [{ name: 'size', n_groups: 3, missing_count: 0,
    why: 'not a demographic name or vocabulary',
    groups: [{ label: 'S', count: 6 }, { label: 'M', count: 4 }, { label: 'L', count: 1 }] }]);
  // 11 rows score no dimension (SPEC 5), which closes the list after the unscored note
  assert.deepEqual(r.flags.slice(-2), [
    'not scored: 1 column that is not demographic (size); --score-categoricals scores them, --map COLUMN=KIND declares one',
    'no dimension has enough rows to score (gndr); the grade is not given']);
  // Coverage 0.9 exactly, in integers: 9 of 10 rows are vocabulary (one stray code).
  const race = run(csv(['who'], [...repeat(5, ['White']), ...repeat(3, ['Black or African American']), ['Unknown'], ['zz']]));
  assert.deepEqual(race.dimensions.map((d) => [d.name, d.kind, d.detected_by]), [['who', 'race', 'values']]);
  const short = run(csv(['who'], [...repeat(5, ['White']), ...repeat(3, ['Black']), ['zz'], ['zz']]));
  assert.deepEqual(short.dimensions, []);
  // Beside a sex column, single-letter F/M (charge degrees) are not taken for sex.
  const compas = run(csv(['sex', 'degree'], [['Male', 'F'], ['Female', 'M'], ['Male', 'F']]));
  assert.deepEqual(compas.dimensions.map((d) => d.name), ['sex']);
  assert.deepEqual(compas.unscored.map((u) => u.name), ['degree']);
});

test('names vs values: a sex column of counts is unscored; 1/2 codes stay sex', () => {
  const rows = Array.from({ length: 50 }, (_, i) => [String(i % 25), i % 2 ? 'A' : 'B']);
  const r = run(csv(['sex', 'race'], rows));
  assert.deepEqual(r.dimensions.map((d) => d.name), ['race']);
  assert.equal(r.unscored.length, 1);
  assert.equal(r.unscored[0].name, 'sex');
  assert.equal(r.unscored[0].n_groups, 25);
  assert.equal(r.unscored[0].why, 'named like sex but holds 25 distinct numbers');
  assert.deepEqual(r.unscored[0].groups.slice(0, 3), [{ label: '0', count: 2 }, { label: '1', count: 2 },
    { label: '10', count: 2 }]);
  assert.ok(r.flags.includes('sex: named like sex but holds 25 distinct numbers; not scored (force it with --map sex=sex)'));
  const coded = run(csv(['sex'], [['1'], ['2'], ['1'], ['2'], ['2']]));
  assert.deepEqual(coded.dimensions.map((d) => [d.name, d.kind, d.detected_by, d.n_groups]), [['sex', 'sex', 'name', 2]]);
  // Decimals contradict any other named kind; a forced column is never contradicted.
  const dec = run(csv(['race'], [['1.5'], ['2.0'], ['3']]));
  assert.equal(dec.unscored[0].why, 'named like race but holds numbers with decimals');
  assert.equal(dec.overall_score, null);
  assert.deepEqual(dec.flags, ['race: named like race but holds numbers with decimals; not scored (force it with --map race=race)',
    'no demographic column detected; declare one with --map COLUMN=KIND']);
  const forced = run(csv(['race'], [['1.5'], ['2.0'], ['3']]), {}, { race: 'race' });
  assert.equal(dim(forced, 'race').detected_by, 'override');
});

test('recode sex:1=Male,2=Female renames labels before everything reads them', () => {
  const text = csv(['sex', 'x'], [['1', 'a'], ['2', 'b'], ['1', 'a'], ['1', 'b'], ['9', 'a']]);
  const r = run(text, { recode: [['sex', '1', 'Male'], ['sex', '2', 'Female'], ['sex', '9', '']] });
  const sex = dim(r, 'sex');
  assert.deepEqual(sex.groups.map((g) => [g.label, g.count]), [['Male', 3], ['Female', 1]]);
  assert.equal(sex.missing_count, 1);
  assert.equal(sex.missing_pct, 0.2);
  // the object form, and a recode onto an existing label adds the counts
  const merged = run(text, { recode: { sex: { 2: '1', 9: '1' } } });
  assert.deepEqual(dim(merged, 'sex').groups.map((g) => [g.label, g.count]), [['1', 5]]);
  // pair counts are rewritten too: with score_categoricals x is crossed with sex
  const crossed = run(text, { recode: [['sex', '1', 'Male'], ['sex', '2', 'Female'], ['sex', '9', 'NA']],
    score_categoricals: true });
  assert.deepEqual(crossed.intersections[0].dims, ['sex', 'x']);
  // expected: row total 1 x column total 2 / 4 rows of the pair table (SPEC 4)
  assert.deepEqual(crossed.intersections[0].cells, [{ a: 'Female', b: 'a', count: 0, share: 0, expected: 0.5 }]);
});

test('na: a token for every column, or for one column', () => {
  const text = csv(['sex', 'race'], [['M', 'A'], ['F', 'B'], ['unknown', 'unknown'], ['M', '-'], ['F', 'A']]);
  const all = run(text, { na: ['unknown'] });
  assert.deepEqual(dim(all, 'sex').groups.map((g) => g.label), ['F', 'M']);
  assert.equal(dim(all, 'sex').missing_count, 1);
  assert.deepEqual(dim(all, 'race').groups.map((g) => g.label), ['A', '-', 'B']);
  assert.equal(dim(all, 'race').missing_count, 1);
  const one = run(text, { na: [['race', '-'], ' unknown '] });
  assert.deepEqual(dim(one, 'race').groups.map((g) => [g.label, g.count]), [['A', 2], ['B', 1]]);
  assert.equal(dim(one, 'race').missing_count, 2);
  assert.equal(dim(one, 'sex').missing_count, 1);
  // input errors name --na and --recode, with the Python engine's texts
  const err = (opts) => run(text, opts).error;
  assert.equal(err({ na: [''] }), '--na: empty token');
  assert.equal(err({ na: [['race']] }), '--na: each item is a token or a [column, token] pair');
  assert.equal(err({ na: [['nope', 'x']] }), "--na: no column named 'nope' (columns: sex, race)");
  assert.equal(err({ recode: [['sex', 'M', 'm'], ['sex', ' M', 'x']] }), "--recode: 'M' of 'sex' is given twice");
  assert.equal(err({ recode: [['sex', ' ', 'x']] }), "--recode: empty FROM for 'sex'");
  const shape = '--recode: give [column, from, to] items or {column: {from: to}}, all strings';
  for (const recode of [[['sex', 'M']], { sex: { M: 1 } }, { sex: ['M', 'm'] }, 'sex:M=m']) {
    assert.equal(err({ recode }), shape);
  }
  assert.equal(err({ recode: [['nope', 'M', 'x']] }), "--recode: no column named 'nope' (columns: sex, race)");
  assert.equal(err({ score_categoricals: 1 }), '--score-categoricals: 1 is not true or false');
});

test('an open column past max_categorical that na brings back within it is counted (slack)', () => {
  // 21 labels: v0..v19 and 'junk'; with na junk the column has 20 labels, a categorical.
  const rows = Array.from({ length: 42 }, (_, i) => [i % 21 === 20 ? 'junk' : `v${i % 21}`]);
  const text = csv(['x'], rows);
  assert.deepEqual(run(text, { score_categoricals: true }).dimensions, []);
  const r = run(text, { score_categoricals: true, na: ['junk'] }, {}, 1);
  assert.equal(dim(r, 'x').n_groups, 20);
  assert.equal(dim(r, 'x').missing_count, 2);
});

test('intervals: banded when each fits a band, else kept as written (diabetic decades)', () => {
  const decades = ['[0-10)', '[10-20)', '[20-30)', '[30-40)', '[40-50)', '[50-60)', '[60-70)', '[70-80)', '[80-90)', '[90-100)'];
  const rows = [];
  decades.forEach((d, i) => { for (let k = 0; k <= i; k++) rows.push([d]); });
  const r = run(csv(['age'], rows));
  const a = dim(r, 'age');
  assert.equal(a.age_mode, 'interval_as_written');
  assert.deepEqual(a.groups.map((g) => [g.label, g.count]), decades.map((d, i) => [d, i + 1]));
  assert.equal(a.max_share, 0.1818);
  assert.equal(a.min_share, 0.0182);
  assert.equal(a.imbalance_ratio, null); // no two groups of 100 rows (SPEC 3)
  assert.equal(a.imbalance_ratio_all, 10);
  // With decade bands every interval fits one band: banded, under the band labels.
  const banded = dim(run(csv(['age'], rows), { age_bands: [0, 10, 20, 30, 40, 50, 60, 70, 80, 90] }), 'age');
  assert.equal(banded.age_mode, 'interval');
  assert.deepEqual(banded.groups.slice(0, 2).map((g) => [g.label, g.count]), [['90+', 10], ['80-89', 9]]);
});

test('small groups: the under-represented line says their count; no imbalance rests on one', () => {
  const rows = [...repeat(300, ['Female']), ...repeat(200, ['Male']), ...repeat(3, ['Unknown/Invalid'])];
  const r = run(csv(['gender'], rows));
  assert.deepEqual(r.flags, [
    "gender: 'Unknown/Invalid' is under-represented (0.60%, 3 rows)",
  ]);
  // Without two groups of min_group_size rows there is no imbalance finding (SPEC 6,
  // version 3: no fallback to the smallest group).
  const small = run(csv(['gender'], [...repeat(300, ['Female']), ...repeat(3, ['Male'])]));
  assert.deepEqual(small.flags, [
    "gender: 'Male' is under-represented (0.99%, 3 rows)",
  ]);
  assert.equal(dim(small, 'gender').imbalance_ratio, null); // the flag's: none (SPEC 3)
  assert.equal(dim(small, 'gender').imbalance_ratio_all, 100); // max / min of all
  // --min-group-size 0 gives version 1's flags.
  const v1 = run(csv(['gender'], rows), { min_group_size: 0 });
  assert.deepEqual(v1.flags, [
    "gender: 'Unknown/Invalid' is under-represented (0.60%)",
    "gender: imbalance ratio 100.0 ('Female' vs 'Unknown/Invalid')",
  ]);
});

function withReference(text, refCsv, opts) {
  const table = E.parseReference(Buffer.from(refCsv), 'ref.csv');
  return E.profileBytes(Buffer.from(text), 't.csv', {}, Object.assign({ reference: table }, opts || {}));
}

test('reference: F/M match Female/Male; no match is a null deviation and a flag', () => {
  const text = csv(['sex'], [...repeat(51, ['F']), ...repeat(49, ['M'])]);
  const r = withReference(text, 'column,group,share\nsex,Male,0.49\nsex,Female,0.51\n');
  assert.deepEqual(dim(r, 'sex').reference, { deviation: 0, groups: [
    { label: 'Female', expected: 0.51, actual: 0.51, count: 51, delta: 0 },
    { label: 'Male', expected: 0.49, actual: 0.49, count: 49, delta: 0 }] });
  const none = withReference(csv(['race'], [['A'], ['B'], ['C'], ['D']]),
    'column,group,share\nrace,White,0.6\nrace,Black,0.3\nrace,Asian,0.05\nrace,Other,0.05\n');
  assert.deepEqual(dim(none, 'race').reference, { deviation: null, groups: [] });
  // the reference note follows the dimension's lines, then its not-scored note (4 rows)
  assert.deepEqual(none.flags, [
    "race: no label matches the reference ('A', 'B', 'C', ... vs 'White', 'Black', 'Asian', ...); no deviation reported (--recode can rename labels)",
    'race: too few rows to score (fewer than 100 rows (4)); shares are shown',
    'race: labels A, B, C, D look like codes; the file does not say which group each stands for (name them with --recode race:A=NAME,B=NAME,...)',
    'no dimension has enough rows to score (race); the grade is not given']);
  assert.deepEqual(none.findings.map((f) => [f.kind, f.severity, f.dimensions]), [
    ['reference', 'note', ['race']], ['not_scored', 'note', ['race']], ['coded', 'note', ['race']],
    ['no_dimension', 'note', []]]);
});

test('reference: a single-year table against banded ages covers the span from the youngest age', () => {
  let ref = 'column,group,share\n';
  for (let y = 0; y <= 100; y++) ref += `age,${y},0.01\n`;
  const text = csv(['age'], [['20'], ['25'], ['40'], ['33'], ['70']]);
  const r = withReference(text, ref);
  const block = dim(r, 'age').reference;
  // years 20..74, 0.01 each: 18-29 holds 10 of the 55 (its 18 and 19 are nobody's here)
  assert.deepEqual(block.ages, [20, 74]);
  assert.deepEqual(block.groups.map((g) => [g.label, g.expected, g.actual]), [
    ['45-59', 0.2727, 0], ['18-29', 0.1818, 0.4], ['30-44', 0.2727, 0.4], ['60-74', 0.2727, 0.2]]);
  assert.equal(block.deviation, 0.3455);
});

test('bridge: --na, --recode and --score-categoricals as the Python CLI passes them', (t) => {
  const { spawnSync } = require('child_process');
  const fs = require('fs');
  const os = require('os');
  const path = require('path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faircode-v2-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'd.csv');
  fs.writeFileSync(file, csv(['sex', 'x'], [['1', 'a'], ['2', 'b'], ['1', 'a'], ['9', '?'], ['1', 'zz']]));
  const bridge = path.join(__dirname, '..', '..', 'scripts', 'engine-js.js');
  const go = (...args) => spawnSync(process.execPath, [bridge, 'profile', file, ...args], { encoding: 'utf8' });
  const p = go('--recode', 'sex:1=Male,2=Female', '--na', 'sex=9', '--na', 'zz', '--score-categoricals');
  assert.equal(p.status, 0, p.stderr);
  const r = JSON.parse(p.stdout);
  assert.deepEqual(dim(r, 'sex').groups.map((g) => [g.label, g.count]), [['Male', 3], ['Female', 1]]);
  assert.equal(dim(r, 'sex').missing_count, 1);
  assert.deepEqual(dim(r, 'x').groups.map((g) => [g.label, g.count]), [['a', 2], ['b', 1]]);
  assert.equal(dim(r, 'x').detected_by, 'label_count');
  assert.equal(dim(r, 'x').missing_count, 2);
  const bad = go('--recode', 'sex=1');
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, "faircode: error: --recode: expected COLUMN:FROM=TO[,FROM=TO...], got 'sex=1'\n");
  const noCol = go('--na', 'nope=1');
  assert.equal(noCol.stderr, "faircode: error: --na: no column named 'nope' (columns: sex, x)\n");
});
