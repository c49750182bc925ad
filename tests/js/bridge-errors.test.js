'use strict';
// The Node bridge's failures are one line `faircode: error: ...` and exit 2, never a
// stack; control characters in the message are shown as escapes (as faircode/safetext.py);
// a closed pipe on stdout exits 141 quietly. tests/engine/test_hostile.py runs the same cases
// against the Python CLI and compares the lines.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const BRIDGE = path.join(__dirname, '..', '..', 'scripts', 'engine-js.js');

function bridge(...args) {
  return spawnSync(process.execPath, [BRIDGE, ...args], { encoding: 'utf8' });
}

function oneError(p, needle) {
  assert.equal(p.status, 2, p.stderr);
  assert.ok(!/\n\s+at /.test(p.stderr), p.stderr);
  const lines = p.stderr.split('\n').filter((l) => l);
  assert.equal(lines.length, 1, p.stderr);
  assert.ok(lines[0].startsWith('faircode: error: '), lines[0]);
  assert.ok(!/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(lines[0]), lines[0]);
  if (needle) assert.ok(lines[0].includes(needle), `${needle} not in ${lines[0]}`);
  return lines[0];
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faircode-bridge-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a symlink loop and a broken link are named as such', () => {
  fs.symlinkSync(path.join(dir, 'b'), path.join(dir, 'a'));
  fs.symlinkSync(path.join(dir, 'a'), path.join(dir, 'b'));
  fs.symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
  oneError(bridge('profile', path.join(dir, 'a')), 'a symbolic link loop');
  oneError(bridge('profile', path.join(dir, 'dangling')), 'a broken symbolic link');
  oneError(bridge('profile', path.join(dir, 'missing.csv')), 'missing.csv: no such file');
});

test('a pattern is a file name here: the bridge reads one file, and says so (SPEC 0.8)', () => {
  fs.writeFileSync(path.join(dir, 'part-1.csv'), 'sex\nM\nF\n');
  const pattern = path.join(dir, 'part-*.csv');
  const line = oneError(bridge('profile', pattern), 'the Node bridge reads one file, not a pattern');
  assert.equal(line, `faircode: error: ${pattern}: no such file; the Node bridge reads one file, not a pattern (the Python engine reads a pattern's files as one dataset)`);
  oneError(bridge('compare', pattern, path.join(dir, 'part-1.csv')), 'not a pattern');
  // a file whose name holds the pattern characters is read as that file
  fs.writeFileSync(path.join(dir, 'odd[1].csv'), 'sex\nM\nF\n');
  const p = bridge('profile', path.join(dir, 'odd[1].csv'));
  assert.equal(p.status, 0, p.stderr);
  assert.equal(JSON.parse(p.stdout).n_rows, 2);
});

test('--reference names the reference, not the profiled file', () => {
  const file = path.join(dir, 'ok.csv');
  fs.writeFileSync(file, 'sex\nM\nF\n');
  oneError(bridge('profile', file, '--reference', dir), `--reference: ${dir}: is a directory`);
  oneError(bridge('profile', file, '--reference', path.join(dir, 'nope.csv')),
    '--reference: ');
});

test('control characters in an error line are shown as escapes', () => {
  const file = path.join(dir, 'esc.csv');
  fs.writeFileSync(file, 'a\x1b]0;pwn\x07,"b\nfaircode: gate: PASS",\u202ec\n1,2,3\n');
  const line = oneError(bridge('profile', file, '--overrides', JSON.stringify({ 'z\r': 'sex' })));
  assert.ok(line.includes("no column named 'z\\r'"), line);
  assert.ok(line.includes('a\\x1b]0;pwn\\x07, b\\nfaircode: gate: PASS, \\u202ec'), line);
});
