'use strict';
// The hand-worked cases of tests/cases/ (format: tests/cases/README.md), JS engine.
// tests/engine/test_cases.py runs the same files through the Python engine.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const { run } = require('./helpers');

const dir = path.join(__dirname, '..', 'cases');
const SEGMENT = /^([^[#]*)(?:\[(#?)(.*)\])?(#?)$/;

function resolvePath(result, p) {
  let value = result;
  for (const seg of p.split('.')) {
    const [, key, byIndex, pick, length] = SEGMENT.exec(seg);
    if (key) value = value[key];
    if (pick !== undefined && byIndex) value = value[Number(pick)];
    else if (pick !== undefined) {
      value = value.find((v) => v.name === pick || v.label === pick);
      if (value === undefined) throw new Error(`${p}: no element '${pick}'`);
    }
    if (length) value = value.length;
  }
  return value;
}

for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  for (const c of JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))) {
    test(`${file.replace(/\.json$/, '')}: ${c.name}`, () => {
      const bytes = 'csv_hex' in c ? Buffer.from(c.csv_hex, 'hex') : Buffer.from(c.csv, 'utf8');
      const got = run(bytes, c.opts, c.overrides);
      if ('error' in c) {
        assert.deepStrictEqual(got, { error: c.error });
        return;
      }
      assert.ok(!got.error, got.error);
      for (const [p, want] of Object.entries(c.expect)) {
        assert.deepStrictEqual(resolvePath(got, p), want, p);
      }
    });
  }
}
