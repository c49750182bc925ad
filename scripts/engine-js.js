#!/usr/bin/env node
/*
 * Node bridge to the browser engine (assets/profiler-engine.js).
 *
 *   node scripts/engine-js.js profile FILE|- [--opts JSON] [--overrides JSON] [--chunk-size N]
 *       Streams the file and prints the result JSON. On an input error prints
 *       "faircode: error: <message>" on stderr and exits 2 (like the CLI).
 *
 *   node scripts/engine-js.js batch
 *       JSON lines on stdin, one request each:
 *         {"id": ..., "bytes_b64": "..." | "path": "...", "name": "...", "opts": {...},
 *          "overrides": {...} | [[column, kind], ...], "chunk_size": N}
 *       (overrides as pairs keep their order; JSON objects reorder integer-like keys)
 *       one JSON line out per request: {"id": ..., "result": {...}} or
 *       {"id": ..., "error": "message"}. Used by tests/test_js_parity.py to send
 *       thousands of cases through one process.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const Engine = require(path.join(__dirname, '..', 'assets', 'profiler-engine.js'));

const DEFAULT_CHUNK = 1 << 20;

function usage() {
  process.stderr.write(
    'usage: engine-js.js profile FILE|- [--opts JSON] [--overrides JSON] [--chunk-size N]\n' +
    '       engine-js.js batch\n');
  process.exit(2);
}

function fail(message) {
  process.stderr.write(`faircode: error: ${message}\n`);
  process.exit(2);
}

/** Re-chunk a stream's buffers to exactly `size` bytes (tests exercise boundaries). */
function* rechunk(buf, size) {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function profileFile(file, opts, overrides, chunkSize) {
  const name = file === '-' ? '<stdin>' : file;
  // Options are validated before any byte is read.
  const profiler = Engine.createProfiler({ name, overrides, opts });
  const stream = file === '-' ? process.stdin
    : fs.createReadStream(file, { highWaterMark: chunkSize || DEFAULT_CHUNK });
  for await (const buf of stream) {
    if (chunkSize) for (const piece of rechunk(buf, chunkSize)) profiler.push(piece);
    else profiler.push(buf);
  }
  const summary = profiler.finish();
  return Engine.analyze(summary, overrides, opts);
}

function profileBuffer(bytes, name, opts, overrides, chunkSize) {
  const profiler = Engine.createProfiler({ name, overrides, opts });
  const size = chunkSize && chunkSize > 0 ? chunkSize : DEFAULT_CHUNK;
  for (const piece of rechunk(bytes, size)) profiler.push(piece);
  return Engine.analyze(profiler.finish(), overrides, opts);
}

async function mainProfile(args) {
  let file = null;
  let opts = {};
  let overrides = {};
  let chunkSize = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--opts') opts = JSON.parse(args[++i]);
    else if (a === '--overrides') overrides = JSON.parse(args[++i]);
    else if (a === '--chunk-size') chunkSize = parseInt(args[++i], 10);
    else if (file === null) file = a;
    else usage();
  }
  if (file === null) usage();
  let result;
  try {
    result = await profileFile(file, opts, overrides, chunkSize);
  } catch (e) {
    if (e instanceof Engine.InputError) fail(e.message);
    if (e && e.code === 'ENOENT') fail(`${file}: no such file`);
    throw e;
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

async function mainBatch() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    let req;
    let out;
    try {
      req = JSON.parse(line);
    } catch (e) {
      process.stdout.write(JSON.stringify({ id: null, error: `bad request: ${e.message}` }) + '\n');
      continue;
    }
    try {
      const bytes = req.path !== undefined ? fs.readFileSync(req.path)
        : Buffer.from(req.bytes_b64 || '', 'base64');
      const name = req.name !== undefined ? req.name : (req.path !== undefined ? req.path : '<stdin>');
      const result = profileBuffer(bytes, name, req.opts || {}, req.overrides || {}, req.chunk_size);
      out = { id: req.id, result };
    } catch (e) {
      if (e instanceof Engine.InputError) out = { id: req.id, error: e.message };
      else out = { id: req.id, error: `internal error: ${e && e.stack ? e.stack : e}`, internal: true };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
}

async function main() {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'profile') await mainProfile(rest);
  else if (cmd === 'batch') await mainBatch();
  else usage();
}

main().catch((e) => {
  process.stderr.write(`faircode: internal error: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
