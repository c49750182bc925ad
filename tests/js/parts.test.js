'use strict';
// SPEC 0.8 / 0.5: a file profiled as parts at once (worker threads) and merged gives the
// result of one read; a cut inside a quoted field, or a problem of the file, falls back
// to one read (same result, same error text).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { E, dataFile } = require('./helpers');

const BRIDGE = path.join(__dirname, '..', '..', 'scripts', 'engine-js.js');

function bridge(file, parts, extra = []) {
  const p = spawnSync(process.execPath, [BRIDGE, 'profile', file, '--parts', String(parts), ...extra],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  return p.status === 0 ? JSON.parse(p.stdout) : { status: p.status, stderr: p.stderr };
}

// Every temporary directory is removed when the file's tests end.
const tempDirs = [];
test.after(() => { for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true }); });

function tempFile(text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faircode-parts-'));
  tempDirs.push(dir);
  const file = path.join(dir, 't.csv');
  fs.writeFileSync(file, text);
  return file;
}

// A deterministic generator (no dependency): rows with quoted commas, doubled quotes,
// quoted newlines, blanks, missing tokens, an open column that grows past 20 labels
// late in the file, and CRLF line ends when asked.
function generated(rows, seed, eol) {
  let x = seed;
  const rnd = (n) => { x = (x * 1103515245 + 12345) % 2147483648; return x % n; };
  const lines = ['id,sex,race,age,state,note,grade'];
  for (let r = 0; r < rows; r++) {
    const note = ['plain', '"a, b"', '"say ""hi"""', '"two\nlines"', '', '"x\r\ny"'][rnd(6)];
    const grade = r > rows * 0.8 ? `g${rnd(40)}` : `g${rnd(5)}`;
    lines.push([r, ['M', 'F', '', 'NA', ' F '][rnd(5)], ['A', 'B', 'C', '?'][rnd(4)],
      String(rnd(100)), `S${rnd(60)}`, note, grade].join(','));
  }
  return lines.join(eol) + eol;
}

test('parts give the one-read result on generated files, LF and CRLF', () => {
  for (const [seed, eol] of [[1, '\n'], [2, '\r\n'], [3, '\n']]) {
    const file = tempFile(generated(3000, seed, eol));
    const one = bridge(file, 1);
    assert.ok(one.dimensions, JSON.stringify(one));
    for (const parts of [2, 3, 4]) assert.deepEqual(bridge(file, parts), one, `parts=${parts}`);
  }
});

test('parts with options: cross, caps, overrides, names', () => {
  const file = tempFile(generated(3000, 13, '\n'));
  const cases = [
    ['--opts', JSON.stringify({ cross: ['state', 'sex'], max_categorical: 4 })],
    ['--opts', JSON.stringify({ delimiter: ',' }), '--overrides', JSON.stringify({ race: 'ignore', grade: 'categorical' })],
  ];
  for (const extra of cases) {
    const one = bridge(file, 1, extra);
    assert.ok(one.dimensions, JSON.stringify(one));
    assert.deepEqual(bridge(file, 3, extra), one, extra.join(' '));
  }
  const names = ['age', 'workclass', 'fnlwgt', 'education', 'education-num', 'marital-status',
    'occupation', 'relationship', 'race', 'sex', 'capital-gain', 'capital-loss',
    'hours-per-week', 'native-country', 'income'];
  const adult = dataFile('adult.data');
  const headerless = ['--opts', JSON.stringify({ names })];
  const one = bridge(adult, 1, headerless);
  assert.equal(one.n_rows, 32561);
  assert.deepEqual(bridge(adult, 3, headerless), one);
});

test('parts give the one-read result on the real datasets', () => {
  for (const name of ['compas-scores-raw.csv', 'compas-scores-two-years.csv', 'credit.csv', 'diabetic_data.csv']) {
    const file = dataFile(name);
    const one = bridge(file, 1);
    assert.deepEqual(bridge(file, 3), one, name);
  }
});

test('a cut inside a quoted field is read again in one part', () => {
  const body = Array.from({ length: 4000 }, (_, k) => `line ${k}`).join('\n');
  const rows = Array.from({ length: 10 }, (_, k) => `${k % 3 ? 'F' : 'M'},A,"${k === 5 ? body : 'note'}"`);
  const file = tempFile('sex,race,note\n' + rows.join('\n') + '\n');
  const one = bridge(file, 1);
  assert.equal(one.n_rows, 10);
  assert.deepEqual(bridge(file, 2), one);
});

test('errors in a later part are reported as by one read (line numbers and all)', () => {
  const text = generated(2000, 7, '\n');
  const lines = text.split('\n');
  lines[1700] += ',surplus';
  const file = tempFile(lines.join('\n'));
  const one = bridge(file, 1);
  assert.equal(one.status, 2);
  assert.match(one.stderr, /line \d+: 8 fields but the header has 7/);
  assert.deepEqual(bridge(file, 3), one);
  const open = tempFile('sex,race\nM,A\nF,"B\n' + 'M,A\n'.repeat(3000));
  assert.deepEqual(bridge(open, 3), bridge(open, 1));
});

test('mergeSummaries + unpackSummary: halves analyse like the whole', () => {
  const text = generated(2000, 11, '\n');
  const cut = text.indexOf('\n', text.length >> 1) + 1;
  const whole = E.createProfiler({ name: 't' });
  whole.push(Buffer.from(text));
  const first = E.createProfiler({ name: 't' });
  first.push(Buffer.from(text.slice(0, cut)));
  const { columns, delimiter } = first.layout();
  const second = E.createProfiler({ name: 't', opts: { names: columns, delimiter } });
  second.push(Buffer.from(text.slice(cut)));
  const packed = second.finishPacked();
  const cloned = structuredClone(packed); // what crossing to a worker thread does
  const merged = E.mergeSummaries(first.finish(), E.unpackSummary(cloned));
  assert.deepEqual(E.analyze(merged, {}, {}), E.analyze(whole.finish(), {}, {}));
  assert.throws(() => E.mergeSummaries(merged, { columns: ['other'] }), /different columns/);
});

test('a small file is read in one part by default', () => {
  const out = execFileSync(process.execPath, [BRIDGE, 'profile', tempFile(generated(50, 5, '\n'))],
    { encoding: 'utf8' });
  assert.equal(JSON.parse(out).n_rows, 50);
});

test('planParts (the engine rule the bridge calls): cuts after a LF, quote-balanced lines', () => {
  const bytes = Buffer.from(generated(3000, 7, '\n'));
  const readAt = (pos, len) => bytes.subarray(pos, pos + len);
  for (const parts of [1, 2, 3, 4]) {
    const bounds = E.planParts(bytes.length, parts, readAt);
    assert.equal(bounds[0], 0);
    assert.equal(bounds[bounds.length - 1], bytes.length);
    assert.equal(bounds.length, parts + 1, `parts=${parts}`);
    for (let k = 1; k + 1 < bounds.length; k++) {
      assert.ok(bounds[k] > bounds[k - 1]);
      assert.equal(bytes[bounds[k] - 1], 10);
    }
  }
  // The first LF after the target ends a line with one quote: the cut skips past it.
  const text = 'a,b\n' + 'x,y\n'.repeat(10) + 'x,"open\n' + 'q"\n' + 'x,y\n'.repeat(10);
  const b = Buffer.from(text);
  const target = Math.floor(b.length / 2);
  const at = E.planParts(b.length, 2, (pos, len) => b.subarray(pos, pos + len))[1];
  const before = b.subarray(b.lastIndexOf(10, at - 2) + 1, at - 1).toString();
  assert.ok(at > target && !before.includes('"'), before);
  assert.equal(E.defaultParts(1 << 20, 8), 1);
  assert.equal(E.defaultParts(64 << 20, 8), 4);
  assert.equal(E.defaultParts(64 << 20, 2), 2);
  assert.equal(E.defaultParts(64 << 20, 8, { skip_lines: 1 }), 1);
  // a lower threshold (tests/website: parts on a few MB) changes only where parts begin
  assert.equal(E.defaultParts(2 << 20, 2, {}, 1 << 20), 2);
  assert.equal(E.defaultParts(1 << 19, 2, {}, 1 << 20), 1);
  assert.equal(E.defaultParts(2 << 20, 2, { skip_lines: 1 }, 1 << 20), 1);
  assert.deepEqual(E.partOptions({ cross: ['a', 'b'] }, { columns: ['a', 'b'], delimiter: ';' }),
    { cross: ['a', 'b'], names: ['a', 'b'], delimiter: ';' });
});

test('no cut before a line that starts with a BOM, nor after a line of only a Ctrl-Z (SPEC 0.8)', () => {
  // every other row starts with a BOM (data: a cell's text), or is followed by a line of
  // a lone Ctrl-Z: a part's reader would drop the BOM at its byte 0, or the Ctrl-Z line
  // at its end, which one read keeps
  const rows = generated(3000, 21, '\n').split('\n');
  const withBom = rows.map((r, i) => (i % 2 ? `\ufeff${r}` : r)).join('\n');
  const withSub = rows.map((r, i) => (i && i % 2 ? `${r}\n\x1a` : r)).join('\n');
  for (const text of [withBom, withSub]) {
    const bytes = Buffer.from(text);
    const bounds = E.planParts(bytes.length, 4, (pos, len) => bytes.subarray(pos, pos + len));
    assert.equal(bounds.length, 5);
    for (const cut of bounds.slice(1, -1)) {
      assert.notDeepEqual([...bytes.subarray(cut, cut + 3)], [0xef, 0xbb, 0xbf]);
      assert.notEqual(bytes[cut - 2], 0x1a);
    }
    const file = tempFile(text);
    const one = bridge(file, 1);
    assert.ok(one.dimensions, JSON.stringify(one));
    for (const parts of [2, 3, 4]) assert.deepEqual(bridge(file, parts), one, `parts=${parts}`);
  }
});

test('a repeated header in a later part is the first one, as by one read (SPEC 0.3)', () => {
  // files joined with cat; headers again in the second and the last third of the rows:
  // the first is named whatever the parts (a later part gets the header record)
  const text = generated(3000, 17, '\n');
  const lines = text.split('\n');
  lines.splice(2500, 0, lines[0]);
  lines.splice(1800, 0, lines[0].split(',').map((f) => `"${f}"`).join(','));
  const file = tempFile(lines.join('\n'));
  const one = bridge(file, 1);
  assert.equal(one.status, 2);
  assert.match(one.stderr, /: line 1801 repeats the header \(files joined with cat\?\)/);
  for (const parts of [2, 3, 4]) assert.deepEqual(bridge(file, parts), one, `parts=${parts}`);
  // a later part (read with names) checks rows only against the record it is given
  const first = E.createProfiler({ name: 't' });
  first.push(Buffer.from('sex,race\nM,A\n'));
  const layout = first.layout();
  const part = 'F,B\nsex,race\nM,A\n';
  const blind = E.createProfiler({ name: 't', opts: E.partOptions({}, layout) });
  blind.push(Buffer.from(part));
  assert.equal(blind.finish().n_rows, 3);
  const later = E.createProfiler({ name: 't', opts: E.partOptions({}, layout), record: layout.record });
  assert.throws(() => { later.push(Buffer.from(part)); later.finish(); },
    { message: /^t: line 2 repeats the header/ });
});

test('a repeated header line after a BOM in a later part is named, as by one read (SPEC 0.3)', () => {
  // cat after Excel exports: U+FEFF before the repeated header line, the file's first
  // line with a BOM or without one; a later part gets the header record
  for (const bomFirst of [false, true]) {
    const lines = generated(3000, 17, '\n').split('\n');
    lines.splice(1800, 0, `\ufeff${lines[0]}`);
    const file = tempFile((bomFirst ? '\ufeff' : '') + lines.join('\n'));
    const one = bridge(file, 1);
    assert.equal(one.status, 2);
    assert.match(one.stderr, /: line 1801 repeats the header \(files joined with cat\?\)/);
    for (const parts of [2, 3, 4]) assert.deepEqual(bridge(file, parts), one, `parts=${parts}`);
  }
  // a later part read with names: the row after a BOM, inside the part or at its start
  const first = E.createProfiler({ name: 't' });
  first.push(Buffer.from('\ufeffsex,race\nM,A\n'));
  const layout = first.layout();
  for (const part of ['F,B\n\ufeffsex,race\nM,A\n', '\ufeffsex,race\nM,A\n']) {
    const later = E.createProfiler({ name: 't', opts: E.partOptions({}, layout), record: layout.record });
    assert.throws(() => { later.push(Buffer.from(part)); later.finish(); },
      { message: /^t: line \d repeats the header/ }, JSON.stringify(part));
  }
});
