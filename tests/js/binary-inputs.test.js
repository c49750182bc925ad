'use strict';
// SPEC 0.8: the browser engine reads CSV only. A gzip-compressed file, a Parquet file or
// an Arrow IPC file or stream (which the Python engine reads) is refused with one line
// naming what it is, told by its first bytes once reading it as text fails; a CSV whose
// first column is named PAR1 is still CSV.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('zlib');
const { run, CHUNKS } = require('./helpers');

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
    { error: 't.csv: byte 6: not valid UTF-8; re-save the file as UTF-8 or pass --encoding' });
});
