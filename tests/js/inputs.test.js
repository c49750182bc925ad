'use strict';
// Issue 14 item 9: what a page hands the engine. Options arrive as text (form inputs) and
// must fail with Python's words; push() takes bytes and nothing else.
const test = require('node:test');
const assert = require('node:assert/strict');
const { E } = require('./helpers');

function message(opts) {
  try {
    E.resolveOptions(opts);
  } catch (e) {
    return e.message;
  }
  return null;
}

test('options given as text or booleans fail with the Python texts', () => {
  assert.equal(message({ min_share: '2' }), '--min-share: 2.0 is out of range (0..1)');
  assert.equal(message({ min_share: '1e5' }), '--min-share: 100000.0 is out of range (0..1)');
  assert.equal(message({ min_share: 2 }), '--min-share: 2 is out of range (0..1)');
  assert.equal(message({ min_group_size: true }), '--min-group-size: True is not an integer (integer >= 0)');
  assert.equal(message({ min_group_size: Infinity }), '--min-group-size: inf is out of range (integer >= 0)');
  assert.equal(message({ min_group_size: 2.5 }), '--min-group-size: 2.5 is not an integer (integer >= 0)');
  assert.equal(message({ min_share: 'x' }), '--min-share: x is not a number (0..1)');
  assert.equal(message({ min_share: NaN }), '--min-share: nan is not a number (0..1)');
  assert.equal(message({ max_age: false }), '--max-age: False is not a number (> 0)');
  assert.equal(message({ min_share: true }), '--min-share: True is not a number (0..1)');
  assert.equal(message({ min_share: '0.2' }), null);
});

test('push() takes a Uint8Array or an ArrayBuffer, anything else is a TypeError', () => {
  const p = E.createProfiler({ name: 't' });
  for (const chunk of ['sex\nM\n', null, undefined, new DataView(new ArrayBuffer(4)), [115, 101]]) {
    assert.throws(() => p.push(chunk), TypeError);
  }
  p.push(new TextEncoder().encode('sex\nM\n').buffer);
  p.push(new TextEncoder().encode('F\n'));
  assert.equal(p.finish().n_rows, 2);
});

test('proxy hints are Python only: their options are known, and refused when asked for', () => {
  assert.match(message({ min_shares: 1 }), /known: .*proxy_hints, proxy_permutations/);
  assert.equal(
    message({ proxy_hints: true }),
    '--proxy-hints: proxy hints are computed by the Python engine only (faircode profile --proxy-hints)',
  );
  assert.equal(message({ proxy_hints: false }), null);
});
