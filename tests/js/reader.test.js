'use strict';
// SPEC section 0: bytes, records, header, labels and errors, at every chunk size.
const test = require('node:test');
const assert = require('node:assert/strict');
const { E, enc, run, summarize, countsOf, CHUNKS } = require('./helpers');

function forChunks(fn) {
  for (const c of CHUNKS) fn(c);
}

test('quotes: "" is a quote, delimiters and line ends inside quotes are kept', () => {
  forChunks((c) => {
    const s = summarize('a,b\r\n"x,""y""\r\nz",2\r\n"p\rq",3\n"r\ns",4\r', {}, c);
    assert.deepEqual(Object.keys(countsOf(s, 'a')), ['x,"y"\r\nz', 'p\rq', 'r\ns']);
    assert.equal(s.n_rows, 3);
  });
});

test('text after a closing quote is appended; a quote not first in its field is ordinary', () => {
  forChunks((c) => {
    const s = summarize('a,b\n"ab"c"d",1\n x"y" ,2\n"q" ,3\n"""",4\n', {}, c);
    assert.deepEqual(Object.keys(countsOf(s, 'a')), ['abc"d"', 'x"y"', 'q', '"']);
  });
});

test('line ends: CR, LF, CRLF, split across chunks; blank lines skipped everywhere', () => {
  const text = '\r\n\n\ra,b\r\r\n1,2\r\n\r\n3,4\n\n5,6\r7,8';
  forChunks((c) => {
    const s = summarize(text, {}, c);
    assert.equal(s.n_rows, 4);
    assert.deepEqual(countsOf(s, 'a'), { 1: 1, 3: 1, 5: 1, 7: 1 });
  });
});

test('a line of spaces or of delimiters is a record', () => {
  const s = summarize('a,b\n  \n,\n1,2\n');
  assert.equal(s.n_rows, 3);
  assert.equal(s.missing[0], 2);
  assert.equal(s.missing[1], 2); // short row " " -> b missing
});

test('BOM at byte 0 dropped (also when split), U+FEFF elsewhere kept', () => {
  const bytes = [0xef, 0xbb, 0xbf, ...enc.encode('sex,x\n\ufeffM,1\nF,2\n')];
  forChunks((c) => {
    const s = summarize(bytes, {}, c);
    assert.deepEqual(s.columns, ['sex', 'x']);
    assert.deepEqual(Object.keys(countsOf(s, 'sex')), ['\ufeffM', 'F']);
  });
});

test('multi-byte characters split across chunks decode whole', () => {
  const text = 'g,x\n😀,1\né,2\nעברית,3\ne\u0301,4\n\u{10FFFD},5\n';
  forChunks((c) => {
    const s = summarize(text, {}, c);
    assert.deepEqual(Object.keys(countsOf(s, 'g')), ['😀', 'é', 'עברית', 'e\u0301', '\u{10FFFD}']);
  });
});

test('invalid UTF-8: offset of the first ill-formed sequence (Python UnicodeDecodeError.start)', () => {
  const cases = [
    [[0x61, 0x80], 1], // stray continuation
    [[0x61, 0xc3], 1], // truncated at end of input
    [[0x61, 0xc0, 0x80], 1], // overlong
    [[0x61, 0xc1, 0xbf], 1],
    [[0x61, 0xe0, 0x80, 0x80], 1], // overlong 3-byte
    [[0x61, 0xed, 0xa0, 0x80], 1], // surrogate
    [[0x61, 0xf4, 0x90, 0x80, 0x80], 1], // above U+10FFFF
    [[0x61, 0xf5, 0x80], 1],
    [[0x61, 0xff], 1],
    [[0x61, 0xe2, 0x82], 1], // truncated 3-byte
    [[0x61, 0xe2, 0x28, 0xa1], 1], // bad second byte
    [[0x61, 0xf0, 0x9f, 0x98, 0x80, 0x80], 5], // valid emoji then stray
    [[0xef, 0xbb, 0xbf, 0x80], 3], // offsets count the BOM
  ];
  for (const [bytes, off] of cases) {
    assert.equal(E.firstInvalidUtf8(Uint8Array.from(bytes), bytes.length), off, JSON.stringify(bytes));
    forChunks((c) => {
      const r = run(bytes, {}, {}, c);
      assert.equal(r.error, `t.csv: byte ${off}: ${E.notUtf8(bytes[off])}`,
        `${JSON.stringify(bytes)} chunk ${c}`);
    });
  }
});

test('NUL byte: offset; the lower of NUL and invalid UTF-8 wins', () => {
  forChunks((c) => {
    assert.equal(run('a,b\n1,\u00002\n', {}, {}, c).error,
      't.csv: byte 6: NUL byte; this looks like a binary file, not CSV');
    assert.equal(run([0x61, 0x00, 0xff], {}, {}, c).error,
      't.csv: byte 1: NUL byte; this looks like a binary file, not CSV');
    assert.equal(run([0x61, 0xff, 0x00], {}, {}, c).error,
      "t.csv: byte 1: not valid UTF-8 (the byte FF, 'ÿ' in Windows-1252); re-save the file as UTF-8, or pass its encoding: --encoding cp1252 if it is Windows-1252");
  });
});

test('errors in file order: a record is checked at its line end', () => {
  forChunks((c) => {
    // long row ended by LF before the bad byte: the long row is reported
    assert.equal(run('a,b\n1,2,3\n\u0000', {}, {}, c).error,
      't.csv: line 2: 3 fields but the header (line 1) has 2; if the table starts below line 1, pass --skip-lines 1 (--skip-lines-b 1 for the second file of compare or scan); else quote values that contain the delimiter');
    // a lone CR is a line end too
    assert.equal(run('a,b\r1,2,3\r\u0000', {}, {}, c).error,
      't.csv: line 2: 3 fields but the header (line 1) has 2; if the table starts below line 1, pass --skip-lines 1 (--skip-lines-b 1 for the second file of compare or scan); else quote values that contain the delimiter');
    // the bad byte inside the long record comes first
    assert.equal(run('a,b\n1,2,3\u0000\n', {}, {}, c).error,
      't.csv: byte 9: NUL byte; this looks like a binary file, not CSV');
    // a bad byte anywhere precedes an unterminated quote (reported at end of input)
    assert.equal(run('a,b\n"1,2\n\u0000', {}, {}, c).error,
      't.csv: byte 9: NUL byte; this looks like a binary file, not CSV');
  });
});

test('long row and unterminated quote name the line where the record starts', () => {
  forChunks((c) => {
    assert.equal(run('a,b\r\n"x\r\ny",1\r\n1,"2\n\n3",4\r\n', {}, {}, c).error,
      't.csv: line 4: 3 fields but the header has 2; quote values that contain the delimiter');
    assert.equal(run('a,b\n\n1,2\n3,"4\n5\n', {}, {}, c).error,
      't.csv: line 4: a quoted field is never closed; add the closing quote');
  });
});

test('empty file, blank-only file, header only', () => {
  forChunks((c) => {
    assert.equal(run('', {}, {}, c).error, 't.csv: file is empty');
    assert.equal(run('\r\n\n\r', {}, {}, c).error, 't.csv: file is empty');
    assert.equal(run([0xef, 0xbb, 0xbf], {}, {}, c).error, 't.csv: file is empty');
    assert.equal(run('a,b\r\n\r\n', {}, {}, c).error, 't.csv: no data rows, only a header');
    assert.equal(run('x\n', { skip_lines: 1 }, {}, c).error, 't.csv: nothing but blank lines after --skip-lines 1');
    assert.equal(run('x', { skip_lines: 2 }, {}, c).error, 't.csv: --skip-lines 2 skips the whole file (1 line)');
    assert.equal(run('\n\n', { names: ['a'] }, {}, c).error, 't.csv: file is empty');
  });
});

test('skip_lines drops physical lines (quotes ignored), line numbers still count them', () => {
  forChunks((c) => {
    const s = summarize('|1x3 "Cross\r\nsex,x\n1,2\n', { skip_lines: 1 }, c);
    assert.deepEqual(s.columns, ['sex', 'x']);
    assert.equal(run('junk\r\na,b\r\n1,2,3\r\n', { skip_lines: 1 }, {}, c).error,
      't.csv: line 3: 3 fields but the header (line 2) has 2; if the table starts below line 2, pass --skip-lines 2 (--skip-lines-b 2 for the second file of compare or scan); else quote values that contain the delimiter');
  });
});

test('delimiter sniffing: first physical line of the header, quotes toggle, tie order', () => {
  assert.equal(E.sniffDelimiter('a;b;c,d'), ';');
  assert.equal(E.sniffDelimiter('a,b;c'), ',');
  assert.equal(E.sniffDelimiter('a\tb|c'), '\t');
  assert.equal(E.sniffDelimiter('"a,b,c";d'), ';');
  assert.equal(E.sniffDelimiter('abc'), ',');
  assert.equal(E.sniffDelimiter('a|b'), '|');
  forChunks((c) => {
    const s = summarize('\n\n"x;y,z";b\nq;r\n', {}, c);
    assert.deepEqual(s.columns, ['x;y,z', 'b']);
    // names given: sniffed from the first data record
    const t = summarize('1|2\n3|4\n', { names: ['a', 'b'] }, c);
    assert.deepEqual(t.columns, ['a', 'b']);
    assert.equal(t.n_rows, 2);
  });
});

test('delimiter sniffing: a tie in the header line is broken by the next non-blank line', () => {
  assert.equal(E.sniffDelimiter('sex,x\trace,y\tage', 'M\tw\t30'), '\t');
  assert.equal(E.sniffDelimiter('sex,note\tx', 'M,a\t\tb'), ',');
  assert.equal(E.sniffDelimiter('a,b;c', '1;2;3'), ';');
  assert.equal(E.sniffDelimiter('a,b;c', '1 2'), ',');
  assert.equal(E.sniffDelimiter('a,b;c'), ',');
  assert.equal(E.sniffDelimiter('a,b;c;d', '1,2,3'), ';');
  assert.ok(E.sniffTied('a,b\tc') && !E.sniffTied('a,b,c\td') && !E.sniffTied('abc'));
  for (const eol of ['\n', '\r\n', '\r']) {
    forChunks((c) => {
      const s = summarize(`sex,x\trace,y\tage${eol}${eol}M\tw\t30${eol}F\tb\t40`, {}, c);
      assert.deepEqual(s.columns, ['sex,x', 'race,y', 'age']);
      assert.equal(s.n_rows, 2);
      const t = summarize(`M,x\tw${eol}F\tb${eol}`, { names: ['sex', 'race'] }, c);
      assert.deepEqual(countsOf(t, 'sex'), { 'M,x': 1, F: 1 });
    });
  }
});

test('a last line holding only a Ctrl-Z (DOS end of file) is no line; elsewhere it is data', () => {
  for (const end of ['\x1a', '\x1a\n', '\x1a\r\n', '\x1a\r']) {
    for (const eol of ['\n', '\r\n', '\r']) {
      forChunks((c) => {
        const s = summarize(`sex,race${eol}M,w${eol}F,b${eol}${end}`, {}, c);
        assert.equal(s.n_rows, 2, JSON.stringify([end, eol, c]));
        assert.deepEqual(countsOf(s, 'sex'), { M: 1, F: 1 });
      });
    }
  }
  forChunks((c) => {
    assert.equal(summarize('\ufeffsex\nM\n\x1a\n', {}, c).n_rows, 1);
    assert.deepEqual(countsOf(summarize('sex,race\nM,w\n\x1a\nF,b\n', {}, c), 'sex'), { M: 1, '\x1a': 1, F: 1 });
    assert.deepEqual(countsOf(summarize('sex,race\nM,w\nF,b\x1a\n', {}, c), 'race'), { w: 1, 'b\x1a': 1 });
    // a blank line after it: not the last line
    for (const t of ['sex,race\nM,w\n\x1a\n\n', 'sex,race\nM,w\n\x1a\r\r']) {
      assert.deepEqual(countsOf(summarize(t, {}, c), 'sex'), { M: 1, '\x1a': 1 });
    }
    assert.equal(run('sex,race\n\x1a\r\n', {}, {}, c).error, 't.csv: no data rows, only a header');
  });
});

test('header: trimmed, empty -> column_N, duplicates renamed with the first free suffix', () => {
  assert.deepEqual(E.cleanHeader([' a ', '', 'a', 'a', 'a.1', '\t', 'column_2']),
    ['a', 'column_2', 'a.1', 'a.2', 'a.1.1', 'column_6', 'column_2.1']);
});

test('short rows read missing trailing cells', () => {
  const s = summarize('a,b,c\n1\n1,2\n');
  assert.equal(s.missing[1], 1);
  assert.equal(s.missing[2], 2);
});

test('labels: only ASCII space and tab trimmed; missing tokens exact', () => {
  assert.equal(E.trimLabel(' \t x \t'), 'x');
  assert.equal(E.trimLabel('\u00a0x\u3000'), '\u00a0x\u3000');
  for (const m of ['', 'NA', 'N/A', 'n/a', 'NaN', 'nan', 'null', 'NULL', '?']) assert.ok(E.isMissing(m), m);
  for (const m of ['na', 'None', 'NA ', 'N/a', '??', '-', 'Null', 'NAN']) assert.ok(!E.isMissing(m), m);
  const s = summarize('a\n NA \n?\nNone\n02134\n1.50\n1.5\n');
  assert.equal(s.missing[0], 2);
  assert.deepEqual(Object.keys(countsOf(s, 'a')), ['None', '02134', '1.50', '1.5']);
});

test('option and override errors: exact messages', () => {
  assert.equal(run('a\n1\n', { min_share: 1.5 }).error, '--min-share: 1.5 is out of range (0..1)');
  assert.equal(run('a\n1\n', { max_categorical: 1 }).error,
    '--max-categorical: 1 is out of range (integer >= 2)');
  assert.equal(run('a\n1\n', { max_age: 0 }).error, '--max-age: 0 is out of range (> 0)');
  assert.equal(run('a\n1\n', { age_bands: [0, 5, 5] }).error,
    '--age-bands: 0,5,5 is out of range (increasing integers starting at 0)');
  assert.equal(run('a\n1\n', {}, { b: 'sex' }).error, "--map: no column named 'b' (columns: a)");
  assert.equal(run('a,b,c,d,e,f\n1,2,3,4,5,6\n', {}, { z: 'sex' }).error,
    "--map: no column named 'z' (columns: a, b, c, d, e...)");
  assert.equal(run('a\n1\n', {}, { a: 'gender' }).error,
    "--map: unknown kind 'gender' for 'a' (use sex, race, ethnicity, nationality, religion, disability, marital, age, geography, categorical or ignore)");
});

// Pair tables: counts past 255 (the dense cells' carries), dense growth after carries,
// the switch to sparse tables, and batch boundaries, against a naive count. zip, city
// and region are geography (certain dimensions), so only pairs that can still be the
// first two dimensions are kept (SPEC section 4); two column orders keep, in turn,
// zip x city (ends sparse) and zip x region (dense, carries in a Map).
for (const header of ['sex,race,zip,city,x,region', 'sex,race,zip,region,x,city']) {
  test(`pair counts are exact: carries, growth, sparse tables, batches (${header})`, () => {
    const cols = header.split(',');
    const n = 7300;
    const lines = [];
    for (let i = 0; i < n; i++) {
      // The first 1400 rows use few labels, so cells wrap before the tables grow; the
      // last 300 repeat one combination, so cells of large tables wrap too.
      const v = {
        sex: i % 2 ? 'F' : 'M',
        race: `r${i % 3}`,
        zip: String(i < 1400 || i >= 7000 ? i % 2 : i % 2600),
        city: String(i < 1400 ? (i >> 1) % 2 : i >= 7000 ? 0 : (i * 7) % 2300),
        x: i % 5 === 0 ? 'NA' : 'v' + (i % 3), // missing cells are skipped
        region: i < 1400 || i >= 7000 ? 'q0' : 'q' + (i % 40),
      };
      lines.push(cols.map((c) => v[c]));
    }
    const text = [header, ...lines.map((r) => r.join(','))].join('\n') + '\n';
    const s = summarize(text, {}, 4093);
    const sure = (c) => ['zip', 'city', 'region'].includes(cols[c]);
    const expect = new Map();
    for (let i = 0; i < cols.length; i++) {
      for (let j = i + 1; j < cols.length; j++) {
        let blocked = false;
        for (let k = 0; k < j; k++) if (k !== i && sure(k)) blocked = true;
        if (blocked) continue;
        const m = new Map();
        for (const r of lines) {
          if (r[i] === 'NA' || r[j] === 'NA') continue;
          const key = r[i] + '|' + r[j];
          m.set(key, (m.get(key) || 0) + 1);
        }
        expect.set(i + ',' + j, m);
      }
    }
    assert.deepEqual([...s.pairs.keys()].sort(), [...expect.keys()].sort());
    assert.ok(expect.has('2,3'), 'the big geography pair is kept');
    for (const [key, entries] of s.pairs) {
      const got = new Map(entries.map(([a, b, c]) => [a + '|' + b, c]));
      assert.deepEqual(got, expect.get(key), key);
    }
    assert.equal(s.pairs.get('0,1').find((e) => e[0] === 'M' && e[1] === 'r0')[2], 1217);
  });
}

test('a chunk over 64 KB is read as the same bytes in small chunks (push works a piece at a time)', () => {
  // Labels of 1- to 4-byte characters, so that the pieces' 64 KB boundaries fall
  // inside characters; one push of the whole, and chunks of 1,000 and 7 bytes.
  const labels = ['a', 'é', 'ü', '日本', '😀', 'עברית', 'x\u00a0y', 'e\u0301', '\u{10FFFD}'];
  const rows = ['g,h'];
  for (let i = 0; i < 30000; i++) rows.push(`${labels[i % 9]},${labels[(i * 7 + 3) % 9]}${i % 5}`);
  const bytes = enc.encode(rows.join('\n') + '\n');
  assert.ok(bytes.length > 4 * 65536, bytes.length);
  const whole = summarize(bytes, {}, bytes.length);
  for (const c of [1000, 7]) assert.deepEqual(summarize(bytes, {}, c), whole, `chunk ${c}`);
  assert.deepEqual(run(bytes, {}, {}, bytes.length), run(bytes, {}, {}, 4099));
  // A bad byte anywhere, at a piece's end or start too, is reported at its offset.
  const ascii = enc.encode('g,h\n' + 'abc,defg\n'.repeat(20000));
  for (const at of [65535, 65536, 65537, 65540, 131071, 131072, 150001]) {
    for (const [bad, what] of [[0x00, 'NUL byte; this looks like a binary file, not CSV'],
      [0xff, E.notUtf8(0xff)],
      [0x80, E.notUtf8(0x80)]]) {
      const b = ascii.slice();
      b[at] = bad;
      for (const c of [b.length, 4096]) {
        assert.equal(run(b, {}, {}, c).error, `t.csv: byte ${at}: ${what}`, `byte ${at} = ${bad}, chunk ${c}`);
      }
    }
  }
  // A 4-byte character across the first piece's end: no error, the same labels.
  const pad = 'p'.repeat(65536 - 4 - 2);
  const straddle = enc.encode(`g\n${pad}\n😀\nb\n`);
  assert.deepEqual(summarize(straddle, {}, straddle.length), summarize(straddle, {}, 3));
});

test('a NUL or a high byte at any place of a long ASCII run is found (eight words a step)', () => {
  const base = enc.encode('g,h\n' + 'abcdefghijklmno,p\n'.repeat(40));
  for (let at = 4; at < 4 + 8 * 4 * 3; at++) {
    for (const [bad, what] of [[0x00, 'NUL byte; this looks like a binary file, not CSV'],
      [0xc0, E.notUtf8(0xc0)]]) {
      const b = base.slice();
      b[at] = bad;
      // a view at an odd offset too: the aligned words then start elsewhere
      const shifted = new Uint8Array(b.length + 3);
      shifted.set(b, 3);
      for (const v of [b, shifted.subarray(3)]) {
        const p = E.createProfiler({ name: 't.csv', opts: {} });
        assert.throws(() => { p.push(v); p.finish(); }, { message: `t.csv: byte ${at}: ${what}` }, `byte ${at} = ${bad}`);
      }
    }
  }
});

test('a record repeating the header is refused at its first line, in both field scans (SPEC 0.3)', () => {
  // files joined with cat: the header again, quoted the second time, after a blank line;
  // columns the sink skips (id, a wide note) and ones it reads for missing cells only
  const note = Array.from({ length: 60 }, (_, k) => `n${k}`);
  const rows = note.map((x, k) => `${k},${k % 2 ? 'F' : 'M'},${x}`).join('\n');
  const text = `id,sex,note\n${rows}\n\n"id",sex,"note"\r\n1,M,x\nid,sex,note\n`;
  const line = 63; // the header, 60 rows, a blank line
  for (const simd of [true, false]) {
    forChunks((c) => {
      const p = E.createProfiler({ name: 't.csv', simd });
      const b = enc.encode(text);
      assert.throws(() => {
        for (let i = 0; i < b.length; i += c) p.push(b.subarray(i, i + c));
        p.finish();
      }, { message: `t.csv: line ${line} repeats the header (files joined with cat?); remove the repeated header lines, or profile the separate files as one dataset with a quoted pattern: faircode profile 'part-*.csv'` }, `simd=${simd} chunk=${c}`);
    });
  }
});

test('a record equal to the header in some fields only is data; names and one-field headers check nothing', () => {
  for (const simd of [true, false]) {
    forChunks((c) => {
      const count = (text, opts) => {
        const p = E.createProfiler({ name: 't.csv', opts, simd });
        const b = enc.encode(text);
        for (let i = 0; i < b.length; i += c) p.push(b.subarray(i, i + c));
        return p.finish().n_rows;
      };
      assert.equal(count('sex,smoker,diabetic\nM,smoker,\nsex,,diabetic\nsex,smoker,diabetic \nsex,smoker\n'), 4);
      assert.equal(count('sex\nM\nsex\n'), 2);
      assert.equal(count('M,A\nM,A\n', { names: ['sex', 'race'] }), 2);
    });
  }
});

test('a repeated header line that starts with a BOM is refused, in both field scans (SPEC 0.3)', () => {
  // cat after an Excel export: U+FEFF before the repeated header line, whether the
  // file's first line has a BOM or not; a first column the sink skips (id) or reads (sex)
  const rows = (cols) => Array.from({ length: 60 }, (_, k) => cols(k)).join('\n');
  const idFirst = rows((k) => `${k},${k % 2 ? 'F' : 'M'},n${k}`);
  const sexFirst = rows((k) => `${k % 2 ? 'F' : 'M'},${k},n${k}`);
  const texts = [
    `id,sex,note\n${idFirst}\n\ufeffid,sex,note\n1,M,x\n`,
    `\ufeffid,sex,note\n${idFirst}\n\ufeffid,sex,note\r\n1,M,x\n`,
    `sex,id,note\n${sexFirst}\n\ufeffsex,id,note\n`,
    `\ufeffsex,id,note\n${sexFirst}\n\n\ufeffsex,id,note`,
    // the repeated line's first name quoted: read as written after the BOM, unquoted here
    `sex,id,note\n${sexFirst}\n\ufeff"sex",id,note\n`,
    `"s""ex",id,note\n${sexFirst}\n\ufeff"s""ex",id,note\n`,
    `id,sex,note\n${idFirst}\n\ufeff"i"d,sex,note\n1,M,x\n`,
  ];
  for (const simd of [true, false]) {
    forChunks((c) => {
      for (const text of texts) {
        const p = E.createProfiler({ name: 't.csv', simd });
        const b = enc.encode(text);
        const line = text.split('\n').findIndex((l, k) => k > 0 && l.startsWith('\ufeff')) + 1;
        assert.throws(() => {
          for (let i = 0; i < b.length; i += c) p.push(b.subarray(i, i + c));
          p.finish();
        }, { message: new RegExp(`^t\\.csv: line ${line} repeats the header \\(files joined with cat\\?\\)`) },
        `simd=${simd} chunk=${c} ${JSON.stringify(text.slice(0, 20))}`);
      }
    });
  }
});

test('after a BOM, a first field that is no quoted header name is data (SPEC 0.3)', () => {
  for (const simd of [true, false]) {
    forChunks((c) => {
      for (const rep of ['\ufeff"sex"x,id', '\ufeff"sex,id', '\ufeff"se""x",id', '\ufeff"sex ",id']) {
        const p = E.createProfiler({ name: 't.csv', simd });
        const b = enc.encode(`sex,id\nM,1\n${rep}\nF,2\n`);
        for (let i = 0; i < b.length; i += c) p.push(b.subarray(i, i + c));
        assert.equal(p.finish().n_rows, 3, rep);
      }
    });
  }
});

test('only one leading BOM of the first field is passed over (SPEC 0.3)', () => {
  for (const simd of [true, false]) {
    forChunks((c) => {
      const p = E.createProfiler({ name: 't.csv', simd });
      const b = enc.encode('sex,race\nM,A\n\ufeff\ufeffsex,race\nsex,\ufeffrace\n\ufeffsex,race \n\ufeffsex\n');
      for (let i = 0; i < b.length; i += c) p.push(b.subarray(i, i + c));
      assert.equal(p.finish().n_rows, 5, `simd=${simd} chunk=${c}`);
    });
  }
});
