#!/usr/bin/env node
/*
 * Baseline: what most web pages do. Stream a CSV through PapaParse and count the values
 * of the given columns (one Map per column).
 *
 *   node benchmarks/papaparse-count.js FILE col1,col2,...
 *
 * PapaParse is a benchmark-only dependency, installed next to this file:
 *   npm install --prefix benchmarks papaparse
 */
'use strict';

const fs = require('fs');
const path = require('path');

let Papa;
try {
  Papa = require(path.join(__dirname, 'node_modules', 'papaparse'));
} catch (err) {
  process.stderr.write('papaparse is not installed: npm install --prefix benchmarks papaparse\n');
  process.exit(3);
}

const [file, colsArg] = process.argv.slice(2);
if (!file || !colsArg) {
  process.stderr.write('usage: papaparse-count.js FILE col1,col2,...\n');
  process.exit(2);
}
const cols = colsArg.split(',');
let header = null;
let idx = null;
let counts = null;
let rows = 0;

Papa.parse(fs.createReadStream(file, { highWaterMark: 1 << 20 }), {
  chunk(results) {
    for (const row of results.data) {
      if (header === null) {
        header = row;
        idx = cols.map((c) => header.indexOf(c));
        counts = cols.map(() => new Map());
        continue;
      }
      if (row.length === 1 && row[0] === '') continue; // blank line
      rows += 1;
      for (let k = 0; k < idx.length; k++) {
        const v = row[idx[k]];
        const m = counts[k];
        m.set(v, (m.get(v) || 0) + 1);
      }
    }
  },
  complete() {
    const distinct = {};
    cols.forEach((c, k) => { distinct[c] = counts ? counts[k].size : 0; });
    process.stdout.write(JSON.stringify({ rows, distinct }) + '\n');
  },
  error(err) {
    process.stderr.write(String(err) + '\n');
    process.exit(1);
  },
});
