#!/usr/bin/env node
/*
 * Same-work baseline: the tables faircode's default run counts (benchmarks/same_work.py),
 * computed the way a web page would: PapaParse streaming the file, a Map per table.
 *
 *   node benchmarks/papaparse-same.js FILE SHAPE_JSON [--tables-out OUT.json]
 *
 * SHAPE_JSON ({"counted": [...], "pairs": [[a, b], ...], "groups": [...], "tokens": [...]})
 * names the counted columns, the pair tables and the group columns of missing data by
 * group. Per row: each cell's label (trimmed of spaces and tabs; a missing token is no
 * label), then the label counts of the counted columns, the pair tables (a Map of Maps),
 * every column's missing cells, and per group column and missing cell of another column
 * the count of the group's label. With --tables-out the tables are written as
 * same_work.canonical's JSON, for run.py to check against faircode's.
 *
 * PapaParse is a benchmark-only dependency: npm install --prefix benchmarks papaparse
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

const args = process.argv.slice(2);
const outAt = args.indexOf('--tables-out');
const tablesOut = outAt >= 0 ? args[outAt + 1] : null;
if (outAt >= 0) args.splice(outAt, 2);
const [file, shapeArg] = args;
if (!file || !shapeArg) {
  process.stderr.write('usage: papaparse-same.js FILE SHAPE_JSON [--tables-out OUT.json]\n');
  process.exit(2);
}
const shape = JSON.parse(shapeArg.trim().startsWith('{') ? shapeArg : fs.readFileSync(shapeArg, 'utf8'));
const TOKENS = new Set(shape.tokens);

function label(raw) {
  if (raw === undefined) return null;
  let a = 0;
  let b = raw.length;
  while (a < b && (raw.charCodeAt(a) === 32 || raw.charCodeAt(a) === 9)) a++;
  while (b > a && (raw.charCodeAt(b - 1) === 32 || raw.charCodeAt(b - 1) === 9)) b--;
  const s = a === 0 && b === raw.length ? raw : raw.slice(a, b);
  return TOKENS.has(s) ? null : s;
}

let header = null;
let width = 0;
let nRows = 0;
let counted;
let countsOf; // counted column k -> Map label -> rows
let missingOf; // counted column k -> missing cells
let pairIdx; // [[i, j], ...]
let pairMaps; // per pair: Map label a -> Map label b -> rows
let groupIdx;
let missAll; // column -> missing cells
let missBy; // per group g: per column c: Map label of g (null: missing) -> rows with c missing
const labels = [];

function start(row) {
  header = row.map((h) => h.replace(/^[ \t]+|[ \t]+$/g, ''));
  width = header.length;
  const at = (c) => {
    const k = header.indexOf(c);
    if (k < 0) throw new Error(`no column ${c}`);
    return k;
  };
  counted = shape.counted.map(at);
  countsOf = counted.map(() => new Map());
  missingOf = counted.map(() => 0);
  pairIdx = shape.pairs.map(([a, b]) => [at(a), at(b)]);
  pairMaps = pairIdx.map(() => new Map());
  groupIdx = shape.groups.map(at);
  missAll = new Array(width).fill(0);
  missBy = groupIdx.map(() => header.map(() => new Map()));
}

function add(row) {
  nRows += 1;
  for (let k = 0; k < width; k++) labels[k] = label(row[k]);
  for (let k = 0; k < counted.length; k++) {
    const x = labels[counted[k]];
    if (x === null) missingOf[k] += 1;
    else {
      const m = countsOf[k];
      m.set(x, (m.get(x) || 0) + 1);
    }
  }
  for (let p = 0; p < pairIdx.length; p++) {
    const x = labels[pairIdx[p][0]];
    const y = labels[pairIdx[p][1]];
    if (x === null || y === null) continue;
    let inner = pairMaps[p].get(x);
    if (inner === undefined) pairMaps[p].set(x, (inner = new Map()));
    inner.set(y, (inner.get(y) || 0) + 1);
  }
  for (let c = 0; c < width; c++) {
    if (labels[c] !== null) continue;
    missAll[c] += 1;
    for (let g = 0; g < groupIdx.length; g++) {
      const d = groupIdx[g];
      if (d === c) continue;
      const m = missBy[g][c];
      const x = labels[d];
      m.set(x, (m.get(x) || 0) + 1);
    }
  }
}

function rows(entries) {
  // [key..., n] rows sorted as same_work._rows sorts them: null first, then by code units
  // of the text (Python sorts str by code points; equal for the BMP texts compared here,
  // and run.py compares keys, not order).
  return entries.sort((r, s) => {
    for (let i = 0; i < r.length - 1; i++) {
      if (r[i] === s[i]) continue;
      if (r[i] === null) return -1;
      if (s[i] === null) return 1;
      return r[i] < s[i] ? -1 : 1;
    }
    return 0;
  });
}

function tables() {
  const counts = {};
  const missing = {};
  shape.counted.forEach((c, k) => {
    counts[c] = rows([...countsOf[k]].map(([x, n]) => [x, n]));
    missing[c] = missingOf[k];
  });
  const pairs = shape.pairs.map(([a, b], p) => {
    const cells = [];
    for (const [x, inner] of pairMaps[p]) for (const [y, n] of inner) cells.push([x, y, n]);
    return [a, b, rows(cells)];
  });
  const missingAll = {};
  header.forEach((c, k) => { missingAll[c] = missAll[k]; });
  const missingBy = [];
  shape.groups.forEach((d, g) => {
    header.forEach((c, k) => {
      if (missBy[g][k].size) missingBy.push([d, c, rows([...missBy[g][k]].map(([x, n]) => [x, n]))]);
    });
  });
  return {
    n_rows: nRows, counts, missing, pairs, missing_all: missingAll, missing_by: missingBy,
  };
}

Papa.parse(fs.createReadStream(file, { highWaterMark: 1 << 20 }), {
  chunk(results) {
    for (const row of results.data) {
      if (header === null) {
        start(row);
        continue;
      }
      if (row.length === 1 && row[0] === '') continue; // blank line
      add(row);
    }
  },
  complete() {
    // the tables are in the Maps; listing and sorting them is for the check only
    if (tablesOut) fs.writeFileSync(tablesOut, JSON.stringify(tables()));
    let cells = 0;
    for (const m of pairMaps) for (const inner of m.values()) cells += inner.size;
    process.stdout.write(JSON.stringify({ rows: nRows, pair_cells: cells }) + '\n');
  },
  error(err) {
    process.stderr.write(String(err) + '\n');
    process.exit(1);
  },
});
