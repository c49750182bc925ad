#!/usr/bin/env node
/*
 * Node bridge to the browser engine (assets/profiler-engine.js).
 *
 *   node scripts/engine-js.js profile FILE|- [--opts JSON] [--overrides JSON] [--chunk-size N]
 *       [--na [COL=]TOKEN]... [--recode COL:FROM=TO[,FROM=TO...]]... [--score-categoricals]
 *       Streams the file and prints the result JSON. On an input error prints
 *       "faircode: error: <message>" on stderr and exits 2 (like the CLI).
 *
 *       A file of 32 MB or more is cut into one part per core (at most 4; --parts N
 *       sets the number), parsed at once on worker threads, and the summaries merged.
 *       Where it is cut is the engine's rule (planParts, SPEC 0.8).
 *
 *   node scripts/engine-js.js profile FILE --reference REF.csv --provenance
 *       With a section 9 reference table, and with the section 10 provenance block
 *       (dataset_hash streamed while the file is read once).
 *
 *   node scripts/engine-js.js compare A B [--opts JSON] [--opts-b JSON] [--overrides JSON]
 *       [--provenance]   Section 8 comparison of two files.
 *
 *   node scripts/engine-js.js hash FILE [--chunk-size N]
 *       Streaming SHA-256 of the raw bytes, printed as sha256:<hex>.
 *
 *   node scripts/engine-js.js batch
 *       JSON lines on stdin, one request each:
 *         {"id": ..., "bytes_b64": "..." | "path": "...", "name": "...", "opts": {...},
 *          "overrides": {...} | [[column, kind], ...], "chunk_size": N}
 *       (overrides as pairs keep their order; JSON objects reorder integer-like keys)
 *       "op" selects the work: "profile" (default; "reference_b64" adds a reference
 *       table), "compare" ("a"/"b": {bytes_b64|path, name, opts}, plus "opts" and
 *       "overrides"), "reference" (parse bytes_b64 as a section 9 table), "hash"
 *       (digest of bytes_b64 fed in chunk_size pieces), "provenance" (opts,
 *       overrides, hashes), "flags" (CLI flag texts {name: text or [texts]}: the
 *       params they resolve to, through fromFlags);
 *       one JSON line out per request: {"id": ..., "result": {...}} or
 *       {"id": ..., "error": "message"}. Used by tests/parity/test_js_parity.py to send
 *       thousands of cases through one process.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');
const zlib = require('zlib');
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
const Engine = require(path.join(__dirname, '..', 'assets', 'profiler-engine.js'));

const DEFAULT_CHUNK = 1 << 20;

function usage() {
  process.stderr.write(
    'usage: engine-js.js profile FILE|- [--opts JSON] [--overrides JSON] [--chunk-size N]\n' +
    '                    [--na [COL=]TOKEN] [--recode COL:FROM=TO[,...]] [--score-categoricals]\n' +
    '                    [--reference REF.csv] [--provenance]\n' +
    '       engine-js.js compare A B [--opts JSON] [--opts-b JSON] [--overrides JSON] [--provenance]\n' +
    '       engine-js.js hash FILE [--chunk-size N]\n' +
    '       engine-js.js batch\n');
  process.exit(2);
}

/**
 * Text from a file made safe for a terminal line, as faircode/safetext.py `shown`:
 * C0 controls (TAB, LF, CR included), DEL, C1 controls, U+2028/9, and the invisible
 * characters (format characters, bidi controls among them, non-ASCII spaces, Hangul
 * fillers; the ranges of safetext.UNSAFE) become visible escapes (\x1b, \r, \u202e,
 * \u200d, \xa0, \U000e0041); everything else is kept.
 */
const UNSAFE = new RegExp('[\\x00-\\x1f\\x7f-\\xa0\\xad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2' +
  '\\u115f\\u1160\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u2064\\u2066-\\u206f' +
  '\\u3000\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb\\u{110bd}\\u{110cd}\\u{13430}-\\u{1343f}' +
  '\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}\\u{e0001}\\u{e0020}-\\u{e007f}]', 'gu');
const NAMED = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
function shown(text) {
  return String(text).replace(UNSAFE, (ch) => {
    if (NAMED[ch]) return NAMED[ch];
    const code = ch.codePointAt(0);
    if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
    return code < 0x10000 ? `\\u${code.toString(16).padStart(4, '0')}`
      : `\\U${code.toString(16).padStart(8, '0')}`;
  });
}

function fail(message) {
  process.stderr.write(`faircode: error: ${shown(message)}\n`);
  process.exit(2);
}

/** The one-line message for a file that cannot be opened or read (as the Python
 * engine's open_input), or null when `e` is no such error. */
function fileErrorText(e, file) {
  if (!e || typeof e.code !== 'string') return null;
  if (e.code === 'ENOENT') {
    let link = false;
    try {
      link = fs.lstatSync(file).isSymbolicLink();
    } catch (_) {
      link = false;
    }
    if (link) return `${file}: a broken symbolic link (its target does not exist); point it at a file`;
    // SPEC 0.8: several files as one dataset are the Python engine's; here a pattern is a name
    return /[*?[]/.test(file)
      ? `${file}: no such file; the Node bridge reads one file, not a pattern (the Python engine reads a pattern's files as one dataset)`
      : `${file}: no such file`;
  }
  if (e.code === 'ELOOP') {
    return `${file}: a symbolic link loop (too many levels of symbolic links); point the link at a file`;
  }
  if (e.code === 'EISDIR') return `${file}: is a directory, not a file`;
  if (e.code === 'EACCES' || e.code === 'EPERM') return `${file}: permission denied`;
  if (e.code === 'ENOTDIR' || e.code === 'ENXIO' || e.code === 'EIO' || e.code === 'EINVAL') {
    return `${file}: cannot read (${e.message.split(',')[0].replace(/^[A-Z]+: /, '')})`;
  }
  return null;
}

// A reader that closes the pipe early (`| head`) ends the run quietly with 141 (128 +
// SIGPIPE), as the Python CLI; an output that cannot be written (/dev/full) is one line.
function onStdoutError(e) {
  if (e && e.code === 'EPIPE') process.exit(141);
  process.stderr.write(`faircode: error: cannot write the report to standard output (${
    shown(e && e.code ? e.code : e)}); check the disk or the redirection\n`);
  process.exit(2);
}
process.stdout.on('error', onStdoutError);

/** Re-chunk a stream's buffers to exactly `size` bytes (tests exercise boundaries). */
function* rechunk(buf, size) {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

/**
 * The bytes of a file (or stdin for '-') in chunks of up to `size` bytes. A file is read
 * into two reused buffers: consumers (the profiler, the hasher) copy what they keep, so
 * no buffer is allocated per chunk (peak RSS stays low on large files), and the next
 * chunk is read while the consumer works on the current one (no idle wait on I/O).
 */
async function* readChunks(file, size) {
  if (file === '-') {
    for await (const buf of process.stdin) yield buf;
    return;
  }
  const fh = await fs.promises.open(file, 'r');
  const bufs = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  let k = 0;
  let pending = fh.read(bufs[k], 0, size, null);
  try {
    for (;;) {
      const { bytesRead } = await pending;
      pending = null;
      if (bytesRead === 0) break;
      const current = bufs[k];
      k ^= 1;
      pending = fh.read(bufs[k], 0, size, null);
      yield current.subarray(0, bytesRead);
    }
  } finally {
    if (pending) await pending.catch(() => {});
    await fh.close();
  }
}

/** Read bytes [begin, end) of an open file in chunks, handing each to `push`. */
function readRange(fd, begin, end, push) {
  const buf = Buffer.allocUnsafe(DEFAULT_CHUNK);
  for (let pos = begin; pos < end;) {
    const n = fs.readSync(fd, buf, 0, Math.min(DEFAULT_CHUNK, end - pos), pos);
    if (n === 0) throw new Error('the file changed while it was read');
    push(buf.subarray(0, n));
    pos += n;
  }
}

/**
 * One member's deflate data through node's zlib (a raw inflater): write(piece)
 * resolves with how many bytes of the piece it used (fewer once its deflate data has
 * ended: zlib's bytesWritten counts what it consumed); take() hands over the output
 * so far; finished() waits for the rest of it once the data has ended.
 */
function rawInflater() {
  const z = zlib.createInflateRaw();
  let out = [];
  let error = null;
  let ended = false;
  let waiters = [];
  const wake = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  z.on('data', (d) => out.push(d));
  z.on('error', (e) => { error = e; wake(); });
  z.on('end', () => { ended = true; wake(); });
  return {
    async write(piece) {
      const before = z.bytesWritten;
      await new Promise((resolve) => {
        waiters.push(resolve);
        z.write(piece, () => resolve());
      });
      if (error !== null) throw error;
      return z.bytesWritten - before;
    },
    take() {
      const got = out;
      out = [];
      return got;
    },
    async finished() {
      if (!ended && error === null) await new Promise((resolve) => waiters.push(resolve));
      if (error !== null) throw error;
    },
    close() { z.destroy(); },
  };
}

/**
 * The decompressed bytes of a gzip file's chunks (SPEC 0.8), every member of it: the
 * engine's framing (createGunzip: headers, CRC-32, lengths, zero padding, Python's
 * error texts) around node's zlib for the deflate data.
 */
async function* gunzipChunks(chunks, name) {
  const g = Engine.createGunzip(name);
  let inflater = null;
  const drain = function* () {
    for (const d of inflater.take()) {
      g.output(d);
      yield d;
    }
  };
  const steps = function* () {
    for (;;) {
      const step = g.next();
      if (step === null || step.done) return;
      yield step;
    }
  };
  const pump = async function* () {
    for (const step of steps()) {
      if (step.member) {
        if (inflater) inflater.close();
        inflater = rawInflater();
        continue;
      }
      let used;
      try {
        used = await inflater.write(step.piece);
      } catch (e) {
        throw new Engine.InputError(`${name}: not a readable gzip file (${Engine.gzipReason(e.message)})`);
      }
      yield* drain();
      if (used < step.piece.length) {
        await inflater.finished();
        yield* drain();
        g.stopped(used);
      }
    }
  };
  try {
    for await (const chunk of chunks) {
      g.push(chunk);
      yield* pump();
    }
    g.end();
    yield* pump();
    g.next(); // at the end: throws when the file is cut short, else {done: true}
  } finally {
    if (inflater) inflater.close();
  }
}

/** Chunks with their first `n` bytes (fewer only at the end) looked at: resolves with
 * {head, chunks}, chunks replaying what was read. */
async function peek(chunks, n) {
  const it = chunks[Symbol.asyncIterator]();
  const seen = [];
  let have = 0;
  while (have < n) {
    const r = await it.next();
    if (r.done) break;
    seen.push(Buffer.from(r.value)); // (readChunks reuses its buffers)
    have += r.value.length;
  }
  const head = Buffer.concat(seen).subarray(0, n);
  async function* replay() {
    yield* seen;
    seen.length = 0;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  return { head, chunks: replay() };
}

/** The chunks of a file as CSV: decompressed when the file starts with 1F 8B (SPEC
 * 0.8); `tap` sees the file's own bytes first (the hash is of the stored bytes).
 * Resolves with {gzip (whether they are decompressed), chunks}. */
async function csvChunks(chunks, name, tap) {
  async function* tapped() {
    for await (const c of chunks) {
      if (tap) tap(c);
      yield c;
    }
  }
  const { head, chunks: all } = await peek(tapped(), 2);
  const gzip = Engine.isGzip(head);
  return { gzip, chunks: gzip ? gunzipChunks(all, name) : all };
}

/** Part boundaries of an open file: the engine's rule (SPEC 0.8, Engine.planParts). */
function splitPoints(fd, size, parts) {
  return Engine.planParts(size, parts, (pos, len) => {
    const win = Buffer.allocUnsafe(len);
    return win.subarray(0, fs.readSync(fd, win, 0, len, pos));
  });
}

function defaultParts(size, opts) {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism()
    : os.cpus().length;
  return Engine.defaultParts(size, cores, opts);
}

/** A worker thread: profile one part (no header: `names` and `delimiter` given) and
 * post its summary, or the error. */
function runPart() {
  const { file, begin, end, name, overrides, opts, record } = workerData;
  try {
    const fd = fs.openSync(file, 'r');
    // record: the header record a row of this part must not repeat (SPEC 0.3)
    const profiler = Engine.createProfiler({ name, overrides, opts, record });
    try {
      readRange(fd, begin, end, (chunk) => profiler.push(chunk));
    } finally {
      fs.closeSync(fd);
    }
    parentPort.postMessage({ summary: profiler.finishPacked() });
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.message ? e.message : e) });
  }
}

function partResult(worker) {
  return new Promise((resolve) => {
    worker.once('message', resolve);
    worker.once('error', (e) => resolve({ error: String(e && e.message ? e.message : e) }));
    worker.once('exit', (code) => resolve({ error: `worker exited with code ${code}` }));
  });
}

/**
 * Profile a file as parts parsed at once: part 0 on this thread (it reads the header),
 * the others on worker threads once the header and delimiter are known; the summaries
 * are merged. Returns null when that cannot be done (a part failed: a cut inside a
 * quoted field, or a problem of the file, whose exact error and line number the
 * caller's one-part read then reports).
 */
async function profileInParts(file, opts, overrides, parts) {
  const fd = fs.openSync(file, 'r');
  const workers = [];
  try {
    const size = fs.fstatSync(fd).size;
    const bounds = splitPoints(fd, size, parts);
    if (bounds.length < 3) return null;
    const first = Engine.createProfiler({ name: file, overrides, opts });
    const buf = Buffer.allocUnsafe(DEFAULT_CHUNK);
    let pos = 0;
    let summaries = null;
    try {
      while (pos < bounds[1] && first.layout() === null) {
        const n = fs.readSync(fd, buf, 0, Math.min(DEFAULT_CHUNK, bounds[1] - pos), pos);
        if (n === 0) return null;
        first.push(buf.subarray(0, n));
        pos += n;
      }
      const layout = first.layout();
      if (layout === null) return null;
      const partOpts = Engine.partOptions(opts, layout);
      for (let k = 1; k + 1 < bounds.length; k++) {
        const w = new Worker(__filename, { workerData: { part: true, file, begin: bounds[k],
          end: bounds[k + 1], name: file, overrides, opts: partOpts, record: layout.record } });
        workers.push({ worker: w, result: partResult(w) });
      }
      // Let the workers start (their start-up goes through this thread's event loop).
      // (A worker that fails to start reports 'error' or 'exit' instead of 'online'.)
      await Promise.all(workers.map((w) => new Promise((ok) => {
        w.worker.once('online', ok);
        w.worker.once('error', ok);
        w.worker.once('exit', ok);
      })));
      readRange(fd, pos, bounds[1], (chunk) => first.push(chunk));
      summaries = [first.finish()];
    } catch (e) {
      if (!(e instanceof Engine.InputError)) throw e;
      summaries = null;
    }
    const results = await Promise.all(workers.map((w) => w.result));
    if (summaries === null || results.some((r) => r.error !== undefined)) return null;
    let merged = summaries[0];
    for (const r of results) merged = Engine.mergeSummaries(merged, Engine.unpackSummary(r.summary));
    return Engine.analyze(merged, overrides, opts);
  } finally {
    for (const w of workers) w.worker.terminate();
    fs.closeSync(fd);
  }
}

async function profileFile(file, opts, overrides, chunkSize, hasher, parts) {
  const name = file === '-' ? '<stdin>' : file;
  // Several parts at once need a seekable file, the default chunks (tests exercise
  // chunk boundaries with --chunk-size), no skipped lines, and no hash (which needs
  // the bytes in order).
  if (file !== '-' && !chunkSize && !hasher && !(opts && opts.skip_lines)) {
    Engine.resolveOptions(opts); // bad options are reported before any byte is read
    let stat = null;
    try {
      stat = fs.statSync(file);
    } catch (e) {
      // the one-part read reports a missing file
    }
    const n = parts || (stat ? defaultParts(stat.size, opts) : 1);
    if (n > 1 && stat && stat.isFile() && !startsGzip(file)) {
      const result = await profileInParts(file, opts, overrides, n);
      if (result !== null) return result;
    }
  }
  Engine.resolveOptions(opts); // options are validated before any byte is read
  const tap = hasher ? (buf) => hasher.update(buf) : null;
  const { gzip, chunks } = await csvChunks(readChunks(file, chunkSize || DEFAULT_CHUNK), name, tap);
  const profiler = Engine.createProfiler({ name, overrides, opts, decompressed: gzip });
  for await (const buf of chunks) {
    if (chunkSize) for (const piece of rechunk(buf, chunkSize)) profiler.push(piece);
    else profiler.push(buf);
  }
  const summary = profiler.finish();
  return Engine.analyze(summary, overrides, opts);
}

/** Whether a file starts with the gzip magic (a gzip file is one sequential part). */
function startsGzip(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return Engine.isGzip(head.subarray(0, fs.readSync(fd, head, 0, 2, 0)));
  } finally {
    fs.closeSync(fd);
  }
}

async function hashFile(file, chunkSize) {
  const hasher = Engine.createSha256();
  const stream = fs.createReadStream(file, { highWaterMark: chunkSize || DEFAULT_CHUNK });
  for await (const buf of stream) hasher.update(buf);
  return hasher.hex();
}

function referenceFromFile(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    const text = fileErrorText(e, file);
    if (text === null) throw e;
    throw new Engine.InputError(`--reference: ${text}`);
  }
  const hasher = Engine.createSha256();
  hasher.update(bytes);
  return { table: Engine.parseReference(bytes, file), hash: hasher.hex() };
}

async function profileBuffer(bytes, name, opts, overrides, chunkSize) {
  const gzip = Engine.isGzip(bytes);
  const profiler = Engine.createProfiler({ name, overrides, opts, decompressed: gzip });
  const size = chunkSize && chunkSize > 0 ? chunkSize : DEFAULT_CHUNK;
  if (gzip) {
    // (chunk_size cuts the compressed bytes; the decompressed ones come as zlib gives them)
    for await (const piece of gunzipChunks(rechunk(bytes, size), name)) profiler.push(piece);
  } else {
    for (const piece of rechunk(bytes, size)) profiler.push(piece);
  }
  return Engine.analyze(profiler.finish(), overrides, opts);
}

/** The JSON object given to `flag`; a text that is not one is an input error. */
function jsonArg(flag, text) {
  let value;
  try {
    value = JSON.parse(text === undefined ? '' : text);
  } catch (e) {
    fail(`${flag}: not JSON (${e.message}); give an object such as '{"min_share": 0.05}'`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail(`${flag}: expected a JSON object, got ${JSON.stringify(value)}`);
  }
  return value;
}

function parseArgs(args, nFiles) {
  const out = { files: [], opts: {}, optsB: null, overrides: {}, chunkSize: 0,
    reference: null, provenance: false };
  const na = [];
  const recode = [];
  let scoreCategoricals = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--na') na.push(args[++i]);
    else if (a === '--recode') recode.push(args[++i]);
    else if (a === '--score-categoricals') scoreCategoricals = true;
    else if (a === '--opts') out.opts = jsonArg(a, args[++i]);
    else if (a === '--opts-b') out.optsB = jsonArg(a, args[++i]);
    else if (a === '--overrides') out.overrides = jsonArg(a, args[++i]);
    else if (a === '--chunk-size') out.chunkSize = parseInt(args[++i], 10);
    else if (a === '--reference') out.reference = args[++i];
    else if (a === '--provenance') out.provenance = true;
    else if (a === '--parts') out.parts = parseInt(args[++i], 10);
    else if (out.files.length < nFiles) out.files.push(a);
    else usage();
  }
  if (out.files.length !== nFiles) usage();
  // The CLI's options, as faircode/cli.py passes them (after any --opts JSON): the
  // flags' texts read by the engine's fromFlags (faircode/options.py from_flags).
  const texts = {};
  if (na.length) texts.na = na;
  if (recode.length) texts.recode = recode;
  let extra;
  try {
    extra = Engine.fromFlags(texts);
  } catch (e) {
    if (e instanceof Engine.InputError) fail(e.message);
    throw e;
  }
  if (scoreCategoricals) extra.score_categoricals = true;
  out.opts = Object.assign({}, out.opts, extra);
  if (out.optsB !== null) out.optsB = Object.assign({}, out.optsB, extra);
  return out;
}

async function guarded(file, work) {
  try {
    return await work();
  } catch (e) {
    if (e instanceof Engine.InputError) fail(e.message);
    const text = fileErrorText(e, e && e.path ? e.path : file);
    if (text !== null) fail(text);
    throw e;
  }
}

async function mainProfile(args) {
  const a = parseArgs(args, 1);
  const file = a.files[0];
  const result = await guarded(file, async () => {
    const opts = Object.assign({}, a.opts);
    let referenceHash = null;
    if (a.reference) {
      const ref = referenceFromFile(a.reference);
      opts.reference = ref.table;
      referenceHash = ref.hash;
    }
    const hasher = a.provenance ? Engine.createSha256() : null;
    const r = await profileFile(file, opts, a.overrides, a.chunkSize, hasher, a.parts);
    if (a.provenance) {
      r.provenance = Engine.provenance({ opts, overrides: a.overrides, referenceHash,
        hashes: { dataset_hash: hasher.hex() } });
    }
    return r;
  });
  process.stdout.write(JSON.stringify(result) + '\n');
}

async function mainCompare(args) {
  const a = parseArgs(args, 2);
  const result = await guarded(a.files[0], async () => {
    const results = [];
    const hashes = {};
    for (const [k, file, opts] of [['a', a.files[0], a.opts], ['b', a.files[1], a.optsB || a.opts]]) {
      const hasher = Engine.createSha256();
      results.push(await profileFile(file, opts, a.overrides, a.chunkSize, hasher));
      hashes[`dataset_hash_${k}`] = hasher.hex();
    }
    const r = Engine.compare(results[0], results[1], a.opts);
    if (a.provenance) r.provenance = Engine.provenance({ opts: a.opts, overrides: a.overrides, hashes });
    return r;
  });
  process.stdout.write(JSON.stringify(result) + '\n');
}

async function mainHash(args) {
  const a = parseArgs(args, 1);
  const digest = await guarded(a.files[0], () => hashFile(a.files[0], a.chunkSize));
  process.stdout.write(digest + '\n');
}

function requestBytes(req) {
  return req.path !== undefined ? fs.readFileSync(req.path) : Buffer.from(req.bytes_b64 || '', 'base64');
}

function requestName(req) {
  return req.name !== undefined ? req.name : (req.path !== undefined ? req.path : '<stdin>');
}

async function runRequest(req) {
  const op = req.op || 'profile';
  if (op === 'profile') {
    const opts = Object.assign({}, req.opts || {});
    if (req.reference_b64 !== undefined) {
      opts.reference = Engine.parseReference(Buffer.from(req.reference_b64, 'base64'),
        req.reference_name || 'reference');
    }
    return await profileBuffer(requestBytes(req), requestName(req), opts, req.overrides || {}, req.chunk_size);
  }
  if (op === 'compare') {
    const side = (s) => profileBuffer(requestBytes(s), requestName(s), s.opts || req.opts || {},
      req.overrides || {}, req.chunk_size);
    return Engine.compare(await side(req.a), await side(req.b), req.opts || {});
  }
  if (op === 'reference') return Engine.parseReference(requestBytes(req), requestName(req));
  if (op === 'hash') {
    const hasher = Engine.createSha256();
    const bytes = requestBytes(req);
    for (const piece of rechunk(bytes, req.chunk_size > 0 ? req.chunk_size : DEFAULT_CHUNK)) {
      hasher.update(piece);
    }
    return hasher.hex();
  }
  if (op === 'flags') {
    // CLI flag texts ({name: text or [texts]}) read as the page reads its controls:
    // fromFlags, then the provenance params of the options they resolve to
    return Engine.provenance({ opts: Engine.fromFlags(req.flags || {}) }).params;
  }
  if (op === 'provenance') {
    return Engine.provenance({ opts: req.opts || {}, overrides: req.overrides || {},
      hashes: req.hashes || {} });
  }
  throw new Error(`unknown op '${op}'`);
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
      out = { id: req.id, result: await runRequest(req) };
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
  else if (cmd === 'compare') await mainCompare(rest);
  else if (cmd === 'hash') await mainHash(rest);
  else if (cmd === 'batch') await mainBatch();
  else usage();
}

if (!isMainThread && workerData && workerData.part) runPart();
else main().catch((e) => {
  process.stderr.write(`faircode: internal error: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
