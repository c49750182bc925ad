'use strict';
// LabelTable's direct index of labels of 1 to 5 ASCII digits (zip codes, ages): a look-up
// through it must return the code, and count, that the hash slots would.
const test = require('node:test');
const assert = require('node:assert/strict');
const { E, enc, CHUNKS } = require('./helpers');

// The engine exports no LabelTable: the class is taken from a profiler's counting sink.
const LabelTable = (() => {
  const p = E.createProfiler({ name: 't.csv' });
  p.push(enc.encode('a\nx\n'));
  return p.counts.tables[0].constructor;
})();

// The engine's SPILL: a slot's or the index's Int32 count moves to the table's spill
// there. Counting that far takes a billion look-ups, so the tests start counts near it.
const SPILL = 2 ** 30;

/** A LabelTable beside a plain model of it (codes in order of first appearance, exact
 * counts): every add() is checked against the model. */
class Checked {
  constructor() {
    this.t = new LabelTable();
    this.codes = new Map();
    this.counts = [];
  }

  /** Count one more `label`, its bytes amid digits ('5') so that a look-up reading
   * past either end of the label is caught. */
  add(label, pad = 3) {
    const bytes = enc.encode(label);
    const buf = new Uint8Array(bytes.length + 2 * pad).fill(0x35);
    buf.set(bytes, pad);
    const s = pad;
    const e = pad + bytes.length;
    let code = this.t.add(buf, s, e);
    const want = this.codes.get(label);
    if (want === undefined) {
      assert.equal(code, -1, `${JSON.stringify(label)} is new`);
      code = this.t.insert(buf, s, e, label);
      assert.equal(code, this.codes.size, `${JSON.stringify(label)}'s code`);
      this.codes.set(label, code);
      this.counts.push(1);
    } else {
      assert.equal(code, want, `${JSON.stringify(label)}'s code`);
      this.counts[code]++;
    }
    return code;
  }

  check() {
    assert.deepEqual(this.t.labels, Array.from(this.codes.keys()));
    assert.deepEqual(Array.from(this.t.counts()), this.counts);
    // no Int32 count reaches SPILL: it has moved to the spill before
    const rec = this.t.rec;
    for (let r = 0; r < rec.length; r += 8) assert.ok(rec[r + 5] >= 0 && rec[r + 5] < SPILL);
    for (const n of this.t.tally || []) assert.ok(n >= 0 && n < SPILL);
  }
}

/** A deterministic shuffle (xorshift32), so a failure repeats. */
function shuffled(items, seed = 2463534242) {
  const out = items.slice();
  let x = seed;
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const pad = (n, len) => String(n).padStart(len, '0');

/** Each of `labels` was looked up through the direct index after it was inserted: its
 * slot keeps the count of 1 it was inserted with. */
function assertIndexed(c, labels) {
  const rec = c.t.rec;
  for (let r = 0; r < rec.length; r += 8) {
    const label = c.t.labels[rec[r] - 1];
    if (rec[r] !== 0 && labels.includes(label)) assert.equal(rec[r + 5], 1, label);
  }
}

// Digit labels of every length, leading zeros making labels of their own.
const DIGITS = [
  ...Array.from({ length: 10 }, (_, d) => String(d)),
  ...Array.from({ length: 100 }, (_, n) => pad(n, 2)),
  '000', '007', '070', '700', '999', '100', '0000', '0007', '7000', '9999', '1000',
  '00000', '00007', '07000', '70000', '99999', '10000', '12345', '01234', '00501',
];
// Near digits: 6 and more digits, other bytes among digits, the bytes just below and
// above '0'-'9', and digits that are not ASCII.
const NEAR = [
  '000000', '000007', '123456', '999999', '0123456', '1234567890',
  '', ' ', '/', ':', '1/', ':1', '/0', '9:', '12a45', 'a1234', '1234a', '1 2', ' 7', '7 ',
  '-1', '+1', '1.5', '1e3', '0x1', '7\u0000', '\u0667', '\uff17', '1\u00b2', 'seven', 'A1',
];

test('labels of 1 to 5 digits get codes and counts of their own, "7", "07" and "007" too', () => {
  const c = new Checked();
  const all = shuffled([...DIGITS, ...NEAR, ...DIGITS, ...NEAR, ...DIGITS]);
  for (const label of all) c.add(label);
  c.check();
  for (const label of ['7', '07', '007', '0007', '00007', '000007']) {
    assert.equal(c.t.labels[c.codes.get(label)], label);
  }
  assertIndexed(c, DIGITS);
});

test('a label of digits first seen before or after other labels, at any offset', () => {
  const orders = [[...DIGITS, ...NEAR], [...NEAR, ...DIGITS], shuffled([...NEAR, ...DIGITS], 7)];
  for (const order of orders) {
    const c = new Checked();
    for (const [k, label] of order.entries()) c.add(label, k % 5);
    for (const [k, label] of order.entries()) c.add(label, (k * 3) % 7);
    for (const label of shuffled(order, 99)) c.add(label, 0);
    c.check();
  }
});

test('the direct index grows with the longest label of digits, keeping the shorter ones', () => {
  // the first and last keys of each length among them
  const orders = [['7', '70', '700', '7000', '70000'], ['70000', '7000', '700', '70', '7'],
    ['0', '00', '000', '0000', '00000'], ['9', '99', '999', '9999', '99999']];
  for (const order of orders) {
    const c = new Checked();
    for (const label of order) {
      c.add(label);
      for (const seen of c.codes.keys()) c.add(seen);
    }
    c.check();
    assertIndexed(c, order);
  }
  // a table of small numbers keeps a small index
  const c = new Checked();
  for (let n = 0; n < 100; n++) c.add(String(n));
  for (let n = 0; n < 100; n++) c.add(pad(n, 2));
  assert.ok(c.t.digits.length <= 111, `index of ${c.t.digits.length} entries`);
  c.check();
});

test('thousands of zip codes among other labels: codes survive every rehash', () => {
  const c = new Checked();
  const labels = [];
  for (let k = 0; k < 6000; k++) {
    const zip = (k * 7919) % 100000;
    labels.push(pad(zip, 5), `Z${pad(zip, 5)}`);
    if (k % 3 === 0) labels.push(pad(zip, 6), String(zip));
  }
  for (const label of labels) c.add(label);
  c.check();
  for (const label of shuffled(labels, 12345)) c.add(label);
  c.check();
  assert.ok(c.t.n > 12000, `${c.t.n} labels`);
});

test('counts through the direct index stay exact past SPILL and 2^32', () => {
  const c = new Checked();
  const zip = c.add('02134');
  const word = c.add('Boston');
  const other = c.add('7');
  c.add('02134');
  c.add('Boston');
  // counts set just below SPILL (the model told), so that the next look-ups spill
  const r = c.t.rec.findIndex((v, k) => k % 8 === 0 && v === word + 1);
  const setCount = (counts, k, code, n) => {
    c.counts[code] += n - counts[k];
    counts[k] = n;
  };
  setCount(c.t.rec, r + 5, word, SPILL - 1);
  setCount(c.t.tally, zip, zip, SPILL - 1);
  c.check();
  for (let k = 0; k < 3; k++) {
    c.add('02134');
    c.add('Boston');
  }
  c.check();
  assert.equal(c.t.counts()[zip], SPILL + 3); // 1 in its slot, the rest by the index
  assert.equal(c.t.counts()[word], SPILL + 2); // all in its slot
  // past 2^32 (four more spills), then through a growth of the counts by code
  for (let k = 0; k < 4; k++) {
    setCount(c.t.tally, zip, zip, SPILL - 1);
    c.add('02134');
  }
  const before = c.counts[zip];
  for (let n = 10; n < 3000; n++) c.add(String(n));
  c.add('02134');
  c.add('7');
  c.check();
  assert.ok(before > 2 ** 32);
  assert.equal(c.t.counts()[zip], before + 1);
  assert.equal(c.t.counts()[other], 2);
});

test('profiled files count digit labels as their text, whatever the chunks', () => {
  // zip codes and ages with and without leading zeros, a code column mixing digits
  // and letters, and labels of 6 digits
  const rows = [];
  for (let k = 0; k < 400; k++) {
    const zip = [pad((k * 37) % 120, 5), String((k * 37) % 120), pad(k % 50, 6)][k % 3];
    const age = [String(k % 90), pad(k % 90, 2), pad(k % 9, 3)][k % 4 === 0 ? 1 : k % 3];
    const code = ['1', '01', '001', 'A1', '1A', '10', '100000', '\u0663'][k % 8];
    rows.push([zip, age, code]);
  }
  const text = 'zip,age,code\n' + rows.map((r) => r.join(',')).join('\n') + '\n';
  const want = [0, 1, 2].map((i) => {
    const m = new Map();
    for (const r of rows) m.set(r[i], (m.get(r[i]) || 0) + 1);
    return m;
  });
  const pairs = new Map();
  for (const r of rows) pairs.set(`${r[0]}|${r[1]}`, (pairs.get(`${r[0]}|${r[1]}`) || 0) + 1);
  const bytes = enc.encode(text);
  for (const chunk of CHUNKS) {
    const p = E.createProfiler({ name: 't.csv', opts: { max_categorical: 1000 } });
    for (let i = 0; i < bytes.length; i += chunk) p.push(bytes.subarray(i, i + chunk));
    const s = p.finish();
    for (let i = 0; i < 3; i++) {
      const where = `column ${i}, chunks of ${chunk}`;
      assert.deepEqual(Array.from(s.counts[i]), Array.from(want[i]), where);
    }
    const got = new Map(s.pairs.get('0,1').map(([a, b, n]) => [`${a}|${b}`, n]));
    assert.deepEqual(got, pairs, `zip x age, chunks of ${chunk}`);
  }
});
