'use strict';
// The field scan: where WebAssembly runs, CsvScanner.parse finds the ends of fields and
// of quoted sections from the offsets of a SIMD pass (assets/scan.wat); elsewhere, or
// with `simd: false`, from its byte loop. Both must give the same summary and the same
// error for every file and every way of cutting it into chunks (SPEC 14: designed
// parity), including chunks past the scan's 1 MiB window.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const { E, enc, dataFile } = require('./helpers');

/** analyze()'s result of bytes pushed in the given chunk sizes (cycled), or {error}. */
function profile(bytes, simd, chunks, opts) {
  try {
    const p = E.createProfiler({ name: 't.csv', opts: opts || {}, simd });
    let k = 0;
    for (let i = 0; i < bytes.length; k++) {
      const step = chunks[k % chunks.length];
      p.push(bytes.subarray(i, i + step));
      i += step;
    }
    return JSON.stringify(E.analyze(p.finish(), [], opts || {}));
  } catch (e) {
    if (e instanceof E.InputError) return `error: ${e.message}`;
    throw e;
  }
}

function same(bytes, label, opts) {
  const want = profile(bytes, false, [bytes.length || 1], opts);
  for (const chunks of [[bytes.length || 1], [1], [2, 3], [7, 1, 16, 15], [4096], [1 << 20], [3 << 20]]) {
    assert.equal(profile(bytes, true, chunks, opts), want, `${label}, chunks ${chunks}`);
    assert.equal(profile(bytes, false, chunks, opts), want, `${label} (byte loop), chunks ${chunks}`);
  }
  return want;
}

// A deterministic generator: every byte the scan stops at, in and out of quotes, next to
// each other and at the ends of lines and files.
function generated(rows, seed, { eol = '\n', delim = ',' } = {}) {
  let x = seed;
  const rnd = (n) => { x = (x * 1103515245 + 12345) % 2147483648; return x % n; };
  const cells = ['Female', 'Male', '', 'NA', ' Male ', 'x"y', 'a b', 'Región 05', '🙂',
    `"q${delim}uoted"`, '"two ""quotes"""', '"line\nbreak"', '"cr\rinside"', '"crlf\r\ninside"',
    `"${delim}${delim}"`, '""', '"\r"', '"\n"', '12', '3.5', '?'];
  const lines = [['id', 'sex', 'race', 'age', 'note', 'grade'].join(delim)];
  for (let r = 0; r < rows; r++) {
    const row = [String(r)];
    for (let c = 0; c < 5; c++) row.push(cells[rnd(cells.length)]);
    lines.push(row.join(delim));
    if (rnd(50) === 0) lines.push(''); // a blank line
  }
  return enc.encode(lines.join(eol) + (rnd(2) ? eol : ''));
}

test('the SIMD scan runs here: the comparisons below are not the byte loop against itself', () => {
  assert.notEqual(E.createProfiler({ name: 't.csv' }).scanner.simd, null);
  assert.equal(E.createProfiler({ name: 't.csv', simd: false }).scanner.simd, null);
});

test('generated files: LF, CRLF, lone CR; every delimiter', () => {
  let k = 0;
  for (const eol of ['\n', '\r\n', '\r']) {
    for (const delim of [',', ';', '\t', '|']) {
      const bytes = generated(400, 17 + k++, { eol, delim });
      same(bytes, `eol ${JSON.stringify(eol)}, delimiter ${JSON.stringify(delim)}`, { delimiter: delim });
    }
  }
});

test('a file larger than the scan window, in one push and in uneven pieces', () => {
  const bytes = generated(60000, 5, { eol: '\r\n' });
  assert.ok(bytes.length > 2 << 20, bytes.length);
  const want = profile(bytes, false, [bytes.length], {});
  assert.equal(profile(bytes, true, [bytes.length], {}), want);
  assert.equal(profile(bytes, true, [(1 << 20) + 1, 999, 5 << 20], {}), want);
});

test('errors are the same: an unterminated quote, a short header, bad UTF-8, NUL', () => {
  const cases = {
    'open quote': 'a,sex\n1,"Male\n2,Female\n',
    'more fields': 'a,sex\n1,Male,x\n',
    'bad utf-8': Uint8Array.from([...enc.encode('a,sex\n1,'), 0xff, 10]),
    nul: Uint8Array.from([...enc.encode('a,sex\n1,M'), 0, 10]),
    'quote then text': 'a,sex\n1,"Ma"le\n2,"Fe""male"x\n',
    // the line of a later error counts a quoted CRLF once, wherever a chunk ends
    'line after quoted CRLF': 'a,sex\n1,"x\r\ny\r\n"\n2,"\r"\n3,Male,extra\n',
    // and after unquoted CRLF and lone CR line ends (a CRLF is one line end, wherever
    // a chunk cuts it)
    'line after CRLF': 'a,sex\r\n1,Male\r\n2,Female\r\n\r\n3,Male,extra\r\n',
    'line after CR': 'a,sex\r1,Male\r2,Female\r\r3,Male,extra\r',
  };
  for (const [label, text] of Object.entries(cases)) {
    const bytes = typeof text === 'string' ? enc.encode(text) : text;
    same(bytes, label);
  }
});

// Every class of UTF-8 sequence (SPEC 0.1: the first problem byte, as Python's strict
// decoder finds it), well-formed and not: the SIMD check (assets/scan.wat) and the byte
// loop (firstBadByte) must name the same byte, wherever it falls against the check's
// sixteen-byte steps and push()'s pieces, and accept the same files.
const UTF8_GOOD = [[0x61], [0x7f], [0xc2, 0x80], [0xdf, 0xbf], [0xe0, 0xa0, 0x80], [0xe1, 0x80, 0x80],
  [0xec, 0xbf, 0xbf], [0xed, 0x9f, 0xbf], [0xee, 0x80, 0x80], [0xef, 0xbf, 0xbf],
  [0xf0, 0x90, 0x80, 0x80], [0xf1, 0x80, 0x80, 0x80], [0xf3, 0xbf, 0xbf, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf]];
const UTF8_BAD = [[0x00], [0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xc2, 0x41], [0xc2, 0xc0],
  [0xe0, 0x9f, 0x80], [0xe0, 0xa0, 0x41], [0xed, 0xa0, 0x80], [0xef, 0xbf, 0xc0], [0xf0, 0x8f, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80], [0xf1, 0x80, 0x41, 0x80], [0xf1, 0x80, 0x80, 0xc0], [0xf5, 0x80, 0x80, 0x80],
  [0xff], [0xe1, 0x80], [0xf1, 0x80, 0x80]];

function utf8File(seed, size, bad) {
  let x = seed;
  const rnd = (n) => { x = (x * 1103515245 + 12345) % 2147483648; return x % n; };
  const out = [...enc.encode('id,name\n')];
  let badAt = bad ? rnd(size) : -1;
  while (out.length < size) {
    out.push(...enc.encode(`${out.length},`));
    const len = rnd(40);
    for (let k = 0; k < len; k++) {
      const r = rnd(10);
      if (badAt >= 0 && out.length >= badAt) { out.push(...UTF8_BAD[rnd(UTF8_BAD.length)]); badAt = -1; }
      else if (r < 7) out.push(0x61 + rnd(26));
      else out.push(...UTF8_GOOD[rnd(UTF8_GOOD.length)]);
    }
    out.push(10);
  }
  return Uint8Array.from(out);
}

test('UTF-8 and NUL: the SIMD check and the byte loop name the same first problem byte', () => {
  let errors = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const bytes = utf8File(seed, 200 + seed * 37, seed % 4 !== 0);
    const want = profile(bytes, false, [bytes.length], {});
    if (want.startsWith('error')) errors++;
    for (const chunks of [[bytes.length], [1], [16], [15, 17], [33, 5, 64]]) {
      assert.equal(profile(bytes, true, chunks, {}), want, `seed ${seed}, chunks ${chunks}`);
    }
  }
  assert.ok(errors >= 30, `only ${errors} files with a problem byte`);
  // a problem byte on either side of the edge of push()'s 64 KiB pieces, and a
  // sequence across it
  const big = utf8File(7, 3 << 16, false);
  assert.ok(!profile(big, true, [big.length], {}).startsWith('error'));
  for (const at of [(1 << 16) - 17, (1 << 16) - 2, (1 << 16) - 1, 1 << 16, (2 << 16) + 1]) {
    for (const seq of [[0xe2, 0x82, 0xac], [0xe2, 0x28, 0xa1], [0x00], [0xf0, 0x9f, 0x99, 0x82], [0xc3]]) {
      const b = big.slice();
      b.set(seq, at);
      const want = profile(b, false, [b.length], {});
      for (const chunks of [[b.length], [1 << 16], [(1 << 16) + 1], [65535], [1000]]) {
        assert.equal(profile(b, true, chunks, {}), want, `${seq} at ${at}, chunks ${chunks}`);
      }
    }
  }
});

test('the datasets in tests/data', () => {
  for (const name of ['compas-scores-two-years.csv', 'adult.data', 'diabetic_data.csv', 'credit.csv']) {
    const bytes = new Uint8Array(fs.readFileSync(dataFile(name)));
    const want = profile(bytes, false, [1 << 20], {});
    assert.ok(!want.startsWith('error'), want);
    for (const chunks of [[1 << 20], [65536], [3 << 20], [100003]]) {
      assert.equal(profile(bytes, true, chunks, {}), want, `${name}, chunks ${chunks}`);
    }
  }
});

test('a long row: whether its extra fields are empty is told alike by both scans (SPEC 0.6)', () => {
  const empty = 'the field after them is empty';
  for (const [text, hasEmpty] of [
    ['sex,race\nM,A,\n', true], ['sex,race\nM,A,""\n', true], ['sex,race\nM,A,x\n', false],
    ['sex,race\nM,A," "\n', false], ['sex,race\nM,A\nF,B,\r\n', true], ['sex,race\nM,A,"x"\n', false],
    ['sex,race\nM,A\nF,B,' + 'x'.repeat(5000) + '\n', false],
  ]) {
    const got = same(enc.encode(text), JSON.stringify(text));
    assert.equal(got.includes(empty), hasEmpty, `${JSON.stringify(text)}: ${got}`);
  }
});
