'use strict';
// The engine's streaming SHA-256 (createSha256) against FIPS 180-4's own digests and
// against node:crypto, fed in every kind of chunking: the compression is unrolled by
// hand, so one wrong constant, rotation or lost carry must show up here.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { E } = require('./helpers');

const ref = (bytes) => 'sha256:' + crypto.createHash('sha256').update(bytes).digest('hex');

/** The engine's digest of `bytes`, pushed as the given chunk lengths (then the rest). */
function hashChunks(bytes, lengths) {
  const h = E.createSha256();
  let i = 0;
  for (const n of lengths) {
    h.update(bytes.subarray(i, Math.min(i + n, bytes.length)));
    i = Math.min(i + n, bytes.length);
  }
  if (i < bytes.length) h.update(bytes.subarray(i));
  return h.hex();
}

/** A seeded xorshift32, so that a failure replays. */
function rng(seed) {
  let s = seed | 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

function randomBytes(next, n) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = next() & 255;
  return out;
}

/** Random chunk lengths covering `n` bytes: zero-length chunks, single bytes, block-ish
 * sizes around 64 and long runs, so a split lands at every offset within a block. */
function randomLengths(next, n) {
  const lengths = [];
  for (let left = n; left > 0;) {
    const r = next() % 8;
    const len = r === 0 ? 0 : r === 1 ? 1 : r <= 4 ? next() % 130 : next() % (4 * 64 * 64);
    lengths.push(len);
    left -= len;
  }
  return lengths;
}

const enc = new TextEncoder();

test('sha256: the FIPS 180-4 / NIST example digests', () => {
  const cases = [
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [ // 448 bits: the padding needs a second block
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
    [ // 896 bits
      'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn'
        + 'hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
    ],
    ['a'.repeat(1000000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
  ];
  for (const [text, digest] of cases) {
    const bytes = enc.encode(text);
    assert.equal(hashChunks(bytes, []), 'sha256:' + digest, `${text.length} bytes in one chunk`);
    assert.equal(ref(bytes), 'sha256:' + digest); // the reference agrees with FIPS
    // the short messages in tiny chunks too; the long one in chunks that split blocks
    for (const step of text.length > 1000 ? [63, 4096] : [1, 3, 63, 64, 65]) {
      const lengths = new Array(Math.ceil(text.length / step)).fill(step);
      assert.equal(hashChunks(bytes, lengths), 'sha256:' + digest, `chunks of ${step}`);
    }
  }
  // and one million 'a' as one million one-byte updates
  const a = enc.encode('a');
  const h = E.createSha256();
  for (let i = 0; i < 1000000; i++) h.update(a);
  assert.equal(h.hex(), 'sha256:' + cases[4][1]);
});

test('sha256: every length 0..200 of random bytes, whole and in random chunks', () => {
  const next = rng(0x5eed);
  for (let n = 0; n <= 200; n++) {
    const bytes = randomBytes(next, n);
    const want = ref(bytes);
    assert.equal(hashChunks(bytes, []), want, `length ${n}, one chunk`);
    for (let k = 0; k < 4; k++) {
      const lengths = randomLengths(next, n);
      assert.equal(hashChunks(bytes, lengths), want, `length ${n}, chunks ${lengths}`);
    }
  }
});

test('sha256: a split at every offset 0..64 of a block, in two and three chunks', () => {
  const bytes = randomBytes(rng(7), 64 * 5 + 17);
  const want = ref(bytes);
  for (let i = 0; i <= 64; i++) {
    assert.equal(hashChunks(bytes, [i]), want, `split at ${i}`);
    assert.equal(hashChunks(bytes, [64 + i]), want, `split at 64 + ${i}`);
    for (let j = 0; j <= 64; j++) {
      assert.equal(hashChunks(bytes, [i, 0, j]), want, `chunks ${i}, 0, ${j}`);
      assert.equal(hashChunks(bytes, [i, 64 + j, 0, 1]), want, `chunks ${i}, ${64 + j}, 0, 1`);
    }
  }
});

test('sha256: bytes >= 0x80 (sign bits set in every word)', () => {
  const next = rng(99);
  for (const n of [1, 4, 55, 56, 63, 64, 65, 119, 120, 128, 1000]) {
    const ff = new Uint8Array(n).fill(0xff);
    assert.equal(hashChunks(ff, []), ref(ff), `${n} x 0xff`);
    const high = randomBytes(next, n).map((b) => b | 0x80);
    assert.equal(hashChunks(high, []), ref(high), `${n} bytes >= 0x80`);
    assert.equal(hashChunks(high, randomLengths(next, n)), ref(high), `${n} bytes >= 0x80, chunked`);
    const x80 = new Uint8Array(n).fill(0x80);
    assert.equal(hashChunks(x80, [1, 2, 3]), ref(x80), `${n} x 0x80`);
  }
});

test('sha256: a few MB of random bytes in random chunk sizes', () => {
  const next = rng(2024);
  for (const n of [(1 << 20) + 13, 3 * (1 << 20) - 1, 4 << 20]) {
    const bytes = randomBytes(next, n);
    const want = ref(bytes);
    assert.equal(hashChunks(bytes, []), want, `${n} bytes, one chunk`);
    assert.equal(hashChunks(bytes, randomLengths(next, n)), want, `${n} bytes, random chunks`);
    assert.equal(hashChunks(bytes, [1 << 16, 1, 1 << 20, 63]), want, `${n} bytes, mixed chunks`);
  }
});

test('sha256: views at any byte offset of a larger buffer (Node Buffers, unaligned)', () => {
  // Node's small Buffers share one pool, and a worker's chunks may be subarrays: the
  // engine must read the view's bytes, not its ArrayBuffer's from 0.
  const next = rng(31);
  const big = randomBytes(next, 4096 + 64);
  for (let start = 0; start < 70; start += 1) {
    const view = big.subarray(start, start + 1000 + start);
    assert.equal(hashChunks(view, []), ref(view), `view at ${start}`);
    assert.equal(hashChunks(view, [start, 129]), ref(view), `view at ${start}, chunked`);
  }
  const pooled = Buffer.from('abc'); // a slice of Node's shared pool
  const h = E.createSha256();
  h.update(pooled);
  assert.equal(h.hex(), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('sha256: a total past 2^32 bits (512 MiB) sets the high word of the length', () => {
  const chunk = new Uint8Array(4 << 20).map((_, i) => (i * 2654435761) >>> 24);
  const n = 2 ** 29 + 3; // 2^32 bits and 24 more
  const h = E.createSha256();
  const want = crypto.createHash('sha256');
  for (let left = n; left > 0; left -= chunk.length) {
    const piece = chunk.subarray(0, Math.min(chunk.length, left));
    h.update(piece);
    want.update(piece);
  }
  assert.equal(h.hex(), 'sha256:' + want.digest('hex'));
});

test('sha256: two hashers do not share state', () => {
  const a = E.createSha256();
  const b = E.createSha256();
  a.update(enc.encode('abc'));
  b.update(enc.encode('a'.repeat(200)));
  a.update(new Uint8Array(0));
  assert.equal(a.hex(), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(b.hex(), ref(enc.encode('a'.repeat(200))));
});
