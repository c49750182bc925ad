'use strict';
// SPEC 0.8: the engine's gzip framing (createGunzip). An inflater that, as Chromium's
// DecompressionStream('deflate-raw'), refuses bytes past the end of its deflate data:
// in a well-formed file every member's deflate data must end where a piece starts, so
// that the refused piece is refused whole and no output is lost. Checked against
// node's zlib on multi-member files with zero padding, cut into chunks of many sizes.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('zlib');
const { E } = require('./helpers');

/** Decompress `file` pushed in chunks of `chunk` bytes, with an inflater that knows
 * (from zlib) where each member's deflate data ends and fails the test when a piece
 * runs across that end. */
function gunzipStrict(file, chunk) {
  const g = E.createGunzip('t.csv.gz');
  const out = [];
  let end = -1; // absolute offset where the current member's deflate data ends
  let at = -1; // absolute offset of the next piece
  let member = null;
  const pump = () => {
    for (;;) {
      const step = g.next();
      if (step === null || step.done) return;
      if (step.member) {
        at = g.offset;
        const r = zlib.inflateRawSync(file.subarray(at), { info: true });
        end = at + r.engine.bytesWritten;
        member = r.buffer;
        continue;
      }
      const from = at;
      const to = at + step.piece.length;
      assert.deepEqual(Buffer.from(step.piece), file.subarray(from, to));
      if (from === end) {
        assert.equal(step.afterCut, true, `refused piece at ${from} is not after a cut`);
        g.stopped(0);
        continue;
      }
      assert.ok(to <= end, `a piece [${from}, ${to}) runs across the deflate end ${end}`);
      at = to;
      if (to === end) {
        g.output(member);
        out.push(member);
      }
    }
  };
  for (let i = 0; i < file.length; i += chunk) {
    g.push(file.subarray(i, i + chunk));
    pump();
  }
  g.end();
  pump();
  assert.deepEqual(g.next(), { done: true });
  return Buffer.concat(out);
}

const text = Buffer.from(Array.from({ length: 3000 }, (_, i) => `${i},${'abc'[i % 3]},${(i * 7919) % 101}\n`).join(''));

test('multi-member files with zero padding: no piece crosses a member end', () => {
  const a = zlib.gzipSync(text.subarray(0, 1000), { level: 1 });
  const b = zlib.gzipSync(text.subarray(1000, 1001));
  const c = zlib.gzipSync(Buffer.alloc(0));
  const d = zlib.gzipSync(text.subarray(1001), { level: 9 });
  const files = [
    [zlib.gzipSync(text), text],
    [Buffer.concat([a, b, c, d]), text],
    [Buffer.concat([a, Buffer.alloc(7), b, Buffer.alloc(1), c, d, Buffer.alloc(300)]), text],
    [Buffer.concat([c, c]), Buffer.alloc(0)],
  ];
  for (const [file, want] of files) {
    for (const chunk of [1, 2, 3, 7, 8, 9, 64, 1000, 1 << 20]) {
      assert.deepEqual(gunzipStrict(file, chunk), want, `chunk ${chunk}`);
    }
  }
});

test('isGzip tells the magic 1F 8B', () => {
  assert.equal(E.isGzip(Uint8Array.from([0x1f, 0x8b, 8])), true);
  assert.equal(E.isGzip(Uint8Array.from([0x1f])), false);
  assert.equal(E.isGzip(Buffer.from('sex,age\n')), false);
});

test("gzipReason: zlib's data errors read as in Python's zlib module", () => {
  // Python: zlib.error "Error -3 while decompressing data: invalid block type"
  const py = 'Error -3 while decompressing data: invalid block type';
  assert.equal(E.gzipReason('The compressed data was not valid: invalid block type.'), py);
  assert.equal(E.gzipReason("Failed to execute 'write' on 'WritableStreamDefaultWriter': The compressed data was not valid: invalid block type."), py);
  assert.equal(E.gzipReason('invalid block type'), py);
  assert.equal(E.gzipReason('Compressed input was truncated.'),
    'Compressed file ended before the end-of-stream marker was reached');
});
