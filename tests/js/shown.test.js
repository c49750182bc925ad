'use strict';
// SPEC 0.6 "Display": controls, bidi and invisible characters are shown as visible
// escapes, identically in the views (site/views.js, the page and the HTML report) and
// the Node bridge's error line (scripts/engine-js.js); tests/engine/test_hostile.py checks both
// against faircode/safetext.py on every code point.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

require(path.join(__dirname, '..', '..', 'site', 'views.js'));
const { shown } = globalThis.FaircodeViews;
const BRIDGE = path.join(__dirname, '..', '..', 'scripts', 'engine-js.js');

const CASES = [
  ['Ma\u200dle', 'Ma\\u200dle'], // zero-width joiner
  ['Male\u200b', 'Male\\u200b'], // zero-width space
  ['\ufeffMale', '\\ufeffMale'], // a BOM inside a label
  ['Male\u00a0', 'Male\\xa0'], // NBSP
  ['M\u200cal\u2060e', 'M\\u200cal\\u2060e'],
  ['so\u00adft\u3000\u2009\u202f', 'so\\xadft\\u3000\\u2009\\u202f'],
  ['\u3164', '\\u3164'], // a Hangul filler
  ['x\u{e0041}', 'x\\U000e0041'], // a tag character
  ['\x1b[31m\r\n\t\u202e', '\\x1b[31m\\r\\n\\t\\u202e'],
  ['plain é 中 😀 \\x', 'plain é 中 😀 \\x'],
];

test('invisible characters are shown as escapes, once', () => {
  for (const [raw, want] of CASES) {
    assert.equal(shown(raw), want, raw);
    assert.equal(shown(shown(raw)), want);
  }
});

test('four labels that all read "Male" are told apart in the bridge error line', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faircode-shown-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'zw.csv');
  fs.writeFileSync(file, 'Ma\u200dle,Male\u200b,\ufeffMale,Male\u00a0\n1,2,3,4\n');
  const p = spawnSync(process.execPath, [BRIDGE, 'profile', file, '--overrides', JSON.stringify({ nope: 'sex' })],
    { encoding: 'utf8' });
  assert.equal(p.status, 2, p.stderr);
  const line = p.stderr.trim();
  assert.ok(line.includes('(columns: Ma\\u200dle, Male\\u200b, \\ufeffMale, Male\\xa0)'), line);
  assert.ok(!/[\u200b-\u200d\ufeff\u00a0]/.test(line), line);
});
