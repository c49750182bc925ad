'use strict';
// SPEC 0.8: the browser engine reads CSV only. A gzip-compressed file, a Parquet file or
// an Arrow IPC file or stream (which the Python engine reads) is refused with one line
// naming what it is, told by its first bytes once reading it as text fails; a CSV whose
// first column is named PAR1 is still CSV.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('zlib');
const { E, run, CHUNKS } = require('./helpers');

const OTHER = 'the browser engine reads CSV only (profile it with the Python engine: faircode profile)';
const CASES = [
  [zlib.gzipSync(Buffer.from('sex\nM\nF\n')),
    't.csv: a gzip-compressed file; the browser engine reads uncompressed CSV only (decompress it first, e.g. gunzip, or profile it with the Python engine)'],
  [Buffer.concat([Buffer.from('PAR1'), Buffer.from([0x15, 0x00, 0x15, 0x1c]), Buffer.from('PAR1')]), `t.csv: a Parquet file; ${OTHER}`],
  [Buffer.concat([Buffer.from('ARROW1'), Buffer.from([0, 0, 0xff, 0xff, 0xff, 0xff])]), `t.csv: an Arrow IPC file; ${OTHER}`],
  [Buffer.from([0xff, 0xff, 0xff, 0xff, 0x78, 0, 0, 0, 0x10, 0]), `t.csv: an Arrow IPC stream; ${OTHER}`],
];

test('binary formats are named, whatever the chunking', () => {
  for (const [bytes, want] of CASES) {
    for (const chunk of CHUNKS) assert.deepEqual(run(bytes, {}, {}, chunk), { error: want }, `chunk ${chunk}`);
  }
});

test('text that starts like a magic is read as CSV', () => {
  const r = run('PAR1,sex\n1,M\n2,F\n');
  assert.equal(r.n_rows, 2);
  assert.deepEqual(run('PAR1,b\n1,\x00\n'), { error: 't.csv: a Parquet file; ' + OTHER });
  // a bad byte after other text is the usual error
  assert.deepEqual(run('sex\nM\n\xff'.split('').map((c) => c.charCodeAt(0))),
    { error: "t.csv: byte 6: not valid UTF-8 (the byte FF, 'ÿ' in Windows-1252); re-save the file as UTF-8, or pass its encoding: --encoding cp1252 if it is Windows-1252" });
});

/** The one-line error of `bytes` pushed to createProfiler(config) in chunks of `chunk`. */
function errorOf(bytes, config, chunk) {
  const p = E.createProfiler(Object.assign({ name: 't.csv' }, config));
  try {
    for (let i = 0; i < bytes.length; i += chunk) p.push(Uint8Array.from(bytes.subarray(i, i + chunk)));
    p.finish();
  } catch (e) {
    return e.message;
  }
  return null;
}

// faircode/reader.py BINARY_FORMATS: Python tells them by the file's first 8 bytes
const PYTHON_FORMATS = [
  [[0xff, 0xfe, 0, 0, 0x41, 0, 0, 0, 0x0a, 0, 0, 0], 'a UTF-32 file (byte order mark FF FE 00 00)'],
  [[0, 0, 0xfe, 0xff, 0, 0, 0, 0x41, 0, 0, 0, 0x0a], 'a UTF-32 file (byte order mark 00 00 FE FF)'],
  [[0xff, 0xfe, 0x41, 0, 0x0a, 0], 'a UTF-16 file (byte order mark FF FE)'],
  [[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0], 'an OLE2 compound file'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0, 0, 4], 'an xz-compressed file'],
  [[0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0, 0], 'a Zstandard-compressed file'],
];

test('a format is named by the first 8 bytes whatever the chunks (a bad byte before them waits)', () => {
  for (const [bytes, want] of PYTHON_FORMATS) {
    for (const decompressed of [false, true]) {
      for (const chunk of [1, 2, 3, 5, 8, 64]) {
        const got = errorOf(Buffer.from(bytes), { decompressed }, chunk);
        assert.ok(got.startsWith(`t.csv: ${want}`), `${want}, chunks of ${chunk}: ${got}`);
      }
    }
  }
  // a record before the bad byte is still checked first (file order, SPEC 0.6)
  assert.equal(errorOf(Buffer.from('a\n1,2\n\xff', 'latin1'), {}, 1),
    't.csv: line 2: 2 fields but the header (line 1) has 1; if the table starts below line 1, pass --skip-lines 1 (--skip-lines-b 1 for the second file of compare or scan); else quote values that contain the delimiter');
  // a file shorter than 8 bytes: what there is
  assert.equal(errorOf(Buffer.from([0xff, 0xfe]), {}, 1),
    't.csv: a UTF-16 file (byte order mark FF FE); re-save it as UTF-8 or pass --encoding utf-16');
  assert.equal(errorOf(Buffer.from([0x41, 0]), {}, 1), 't.csv: byte 1: NUL byte; this looks like a binary file, not CSV');
});

test('the decompressed bytes of a gzip file name no Parquet, Arrow or gzip (Python reads them as CSV)', () => {
  // what faircode/reader.py says of these bytes inside a gzip file (SPEC 0.8)
  const nul = (k) => `t.csv: byte ${k}: NUL byte; this looks like a binary file, not CSV`;
  const utf8 = (k, b) => `t.csv: byte ${k}: ${E.notUtf8(b)}`;
  const want = [utf8(1, 0x8b), nul(5), nul(6), utf8(0, 0xff)]; // gzip, Parquet, Arrow file, Arrow stream
  CASES.forEach(([bytes], k) => {
    for (const chunk of CHUNKS) {
      assert.equal(errorOf(bytes, { decompressed: true }, chunk), want[k], `case ${k}, chunks of ${chunk}`);
    }
  });
});
