'use strict';
// Shared helpers for the node --test unit tests of assets/profiler-engine.js.
const path = require('path');

const E = require(path.join(__dirname, '..', '..', 'assets', 'profiler-engine.js'));

const enc = new TextEncoder();

/** Profile text or bytes with a given chunk size; returns the result or {error}. */
function run(input, opts, overrides, chunk) {
  const bytes = typeof input === 'string' ? enc.encode(input) : Uint8Array.from(input);
  try {
    return E.profileBytes(bytes, 't.csv', overrides || {}, opts || {}, chunk);
  } catch (e) {
    if (e instanceof E.InputError) return { error: e.message };
    throw e;
  }
}

/** Summary (counts per column) of a file, pushed in chunks of `chunk` bytes. */
function summarize(input, opts, chunk) {
  const bytes = typeof input === 'string' ? enc.encode(input) : Uint8Array.from(input);
  const p = E.createProfiler({ name: 't.csv', opts: opts || {} });
  const step = chunk || bytes.length || 1;
  for (let i = 0; i < bytes.length; i += step) p.push(bytes.subarray(i, i + step));
  return p.finish();
}

function countsOf(summary, col) {
  const i = summary.columns.indexOf(col);
  return Object.fromEntries(summary.counts[i]);
}

function dim(result, name) {
  return result.dimensions.find((d) => d.name === name);
}

const CHUNKS = [1, 2, 3, 4, 5, 7, 64, 1 << 20];

/** SPEC 0.4's missing tokens, read from SPEC.md: the spec is the list both engines
 * are checked against, so adding a token is one edit per engine plus the spec. */
function specMissingTokens() {
  const spec = require('fs').readFileSync(path.join(__dirname, '..', '..', 'SPEC.md'), 'utf8');
  const line = spec.split('\n').find((l) => l.trim().startsWith('`""` (empty)'));
  return Array.from(line.matchAll(/`([^`]*)`/g), (m) => (m[1] === '""' ? '' : m[1]));
}

const dataPaths = new Map();

/** The path of a dataset kept in tests/data (e.g. 'adult.data'), uncompressed and checked
 * against its SHA-256: tests/datafiles.py does both, once for every test process (it needs
 * Python 3's standard library only: `python3`, or the interpreter named by $PYTHON). */
function dataFile(name) {
  if (!dataPaths.has(name)) {
    const python = process.env.PYTHON || (process.platform === 'win32' ? 'python' : 'python3');
    const script = path.join(__dirname, '..', 'datafiles.py');
    const out = require('child_process').execFileSync(python, [script, name], { encoding: 'utf8' });
    dataPaths.set(name, out.trim());
  }
  return dataPaths.get(name);
}

module.exports = { E, enc, run, summarize, countsOf, dim, CHUNKS, specMissingTokens, dataFile };
