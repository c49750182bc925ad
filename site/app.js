/*
 * The page: reads a table with the engine (assets/profiler-engine.js, loaded as
 * site/profiler-engine.js) in Web Workers and renders results with site/views.js.
 *
 * The path of a file (SPEC 0.8's parts on Web Workers):
 *   - an analysis worker, kept for as long as its result is shown, plans the parts;
 *   - one worker per part (started beside the plan, so it has loaded the engine by
 *     the time its part is known) streams its bytes into a profiler and posts the packed
 *     summary straight to the analysis worker (a MessagePort; its typed arrays are
 *     transferred, not copied), then ends;
 *   - the analysis worker merges the parts and analyses; it keeps the merged summary,
 *     so every control re-runs analyze() there, without reading the file again (a change
 *     the summary cannot answer, such as a column it did not count, says so and offers
 *     to read the file again);
 *   - the page's thread only draws the result: no parsing, merging or analysing on it;
 *   - the SHA-256 of the bytes (for the exported JSON's provenance only) runs on one
 *     more worker once a core is free of parts, and goes on after the result is
 *     shown; Copy and Download JSON say how far it is and work once it is done.
 * Without workers (a policy that refuses them) the page reads, hashes and analyses on
 * its own thread, slice by slice, and says so.
 * A gzip file (it starts 1F 8B; SPEC 0.8) is one sequential part: the analysis worker
 * reads, hashes and decompresses it (gunzipBlob, readGzip), then analyses as above.
 */
(function () {
  'use strict';
  const E = window.FaircodeEngine;
  const V = window.FaircodeViews;
  const $ = (id) => document.getElementById(id);
  const SLICE = 4 << 20; // bytes per read of a Blob slice on the page's thread (no workers)
  /** Let the page draw a frame and take input between two pieces of main-thread work
   * (a timeout alone may run before the next frame; a hidden page draws none, so at
   * most 100 ms are waited for one). */
  const breathe = () => new Promise((resolve) => {
    let done = false;
    const go = () => { if (!done) { done = true; setTimeout(resolve, 0); } };
    requestAnimationFrame(go);
    setTimeout(go, 100);
  });
  const KINDS = ['sex', 'race', 'ethnicity', 'nationality', 'religion', 'disability', 'marital', 'age',
    'geography', 'categorical'];
  // the engine's defaults (SPEC 7): what an option not given is
  const OPT_DEFAULTS = E.resolveOptions({});
  // the Delimiter menu's words; a choice without one shows as itself
  const DELIMITER_WORDS = { ',': 'comma', ';': 'semicolon', tab: 'tab', '|': 'pipe', ':': 'colon' };
  const CORES = navigator.hardwareConcurrency || 2;
  /** Comparing two files, a file's hash worker starts once at most this many of its
   * parts are still being counted: a core is free of them (benchmarks/README.md: on two
   * cores, started with the parts it made the 1 GB file's result a third to two thirds
   * later). A profile's hash starts once its result is shown: started as the first part
   * ended, it shared the cores with the last part, the analysis and the drawing (1 GB,
   * two cores: from the last part counted to the result shown 0.51 s instead of 0.78 s,
   * the hash done about 0.3 s later, the longest frame gap 50-83 ms instead of 50-133;
   * benchmarks/README.md). */
  const HASH_AT_PARTS_LEFT = CORES - 1;

  // ------------------------------------------------------------------------------
  // Workers: built from the engine's own source text (a Blob URL). Chromium refuses
  // new Worker() and importScripts on file:// pages; there the page reads on the main
  // thread, slice by slice, yielding between slices, and says so.

  /** What the page's thread needs of a summary to know whether it answers a change
   * (needsReread): its columns, which were counted or capped, which pairs it holds. */
  function summaryShape(s) {
    return { columns: s.columns.slice(), n_rows: s.n_rows, counted: s.counts.map((c) => c !== null),
      capped: s.columns.map((c, i) => !!(s.capped && s.capped[i])), pairs: Array.from(s.pairs.keys()) };
  }

  /**
   * A gzip file (SPEC 0.8): its compressed bytes, read in order from `blob`, go to
   * onCompressed (the hash, the progress) and through the engine's framing
   * (createGunzip: every member, its header, CRC-32 and length, zero padding, Python's
   * error texts); each member's deflate data is inflated by the browser's
   * DecompressionStream('deflate-raw'), and the decompressed bytes go to onOutput in
   * order. gzip cannot be cut into parts: one sequential read. `pause` (if given) is
   * awaited between reads (the page's thread lets a frame be drawn). Runs in a worker
   * and on the page's thread (its source is part of the workers' script).
   */
  async function gunzipBlob(E, blob, name, onCompressed, onOutput, pause) {
    const READ = 1 << 20;
    const broken = (reason) => new E.InputError(`${name}: not a readable gzip file (${reason})`);
    const g = E.createGunzip(name);
    let ds = null; // the current member's inflater: {writer, reading, out}
    const start = () => {
      const stream = new DecompressionStream('deflate-raw');
      const m = { writer: stream.writable.getWriter(), out: [], reading: null };
      const reader = stream.readable.getReader();
      m.reading = (async () => {
        try {
          for (;;) {
            const r = await reader.read();
            if (r.done) return;
            m.out.push(r.value);
          }
        } catch (e) { /* the writer's side says why */ }
      })();
      m.writer.closed.catch(() => {});
      return m;
    };
    const drain = () => {
      for (const d of ds.out) { g.output(d); onOutput(d); }
      ds.out = [];
    };
    const pump = async () => {
      for (;;) {
        const step = g.next();
        if (step === null || step.done) return;
        if (step.member) { ds = start(); continue; }
        let refused = null;
        try {
          await ds.writer.write(step.piece);
        } catch (e) {
          refused = e;
        }
        // only the inflater's own refusal is caught: an error of onOutput (the file's
        // contents: not UTF-8, a NUL byte, a row too long...) goes straight out
        if (refused === null) { drain(); continue; }
        const msg = String(refused && refused.message ? refused.message : refused);
        // the refusal errored the stream, so its reading has ended: every output
        // before the refused piece has been read (awaited on an open stream, it would
        // never settle)
        await ds.reading;
        drain();
        // the member's deflate data ended: where a well-formed file would end it
        // (before this piece, refused whole), or inside it (bytes after the end that
        // no gzip writer leaves there; the output of that piece is lost)
        if (!/Junk found after end/.test(msg)) throw broken(E.gzipReason(msg));
        if (!step.afterCut) throw broken('Junk found after end of compressed data');
        g.stopped(0);
      }
    };
    try {
      for (let pos = 0; pos < blob.size; pos += READ) {
        const bytes = new Uint8Array(await blob.slice(pos, pos + READ).arrayBuffer());
        onCompressed(bytes);
        g.push(bytes);
        await pump();
        if (pause) await pause();
      }
      g.end();
      await pump();
      g.next(); // at the end: throws when the file is cut short
    } catch (e) {
      if (ds !== null) ds.writer.abort(e).catch(() => {}); // an inflater left open ends
      throw e;
    }
  }

  /** Whether a Blob starts with the gzip magic 1F 8B. */
  async function blobIsGzip(blob) {
    return E.isGzip(new Uint8Array(await blob.slice(0, 2).arrayBuffer()));
  }

  /** The worker's program (runs after the engine's source, which sets FaircodeEngine). */
  function workerMain() {
    /* global FaircodeEngine, FileReaderSync, summaryShape, gunzipBlob */
    const E = FaircodeEngine;
    const VIEW = 1 << 20; // bytes asked for per read of the file
    const PROGRESS_EVERY = 8 << 20; // bytes between two progress messages
    const readSync = (blob, pos, len) => new Uint8Array(new FileReaderSync().readAsArrayBuffer(blob.slice(pos, pos + len)));

    /** The Blob streams being read, held from here until read to the end. Chromium
     * collects a Blob's stream, and with it a pending read, when only that read's
     * promise (an await) refers to it: a garbage collection while a read waits for the
     * file's bytes left the read unsettled for good (a part never counted, a page stuck
     * on "Reading ..."; the more garbage the counting makes, the likelier). */
    const reading = new Set();

    /** Hand fn(bytes) every chunk of blob[begin, end), in order. The stream's BYOB
     * reader fills one buffer again and again: no new ArrayBuffer per read, so memory
     * stays flat (the engine copies what it keeps of a chunk, as under Node). Without
     * one, 4 MiB slices, the next one read while this one is used. */
    async function eachChunk(blob, begin, end, fn) {
      const part = blob.slice(begin, end);
      let reader = null;
      let stream = null;
      try {
        stream = part.stream();
        reader = stream.getReader({ mode: 'byob' });
      } catch (e) { reader = null; }
      if (reader !== null) {
        const held = { part, stream, reader };
        reading.add(held);
        try {
          let buf = new ArrayBuffer(VIEW);
          for (;;) {
            const r = await reader.read(new Uint8Array(buf));
            if (r.done) return;
            fn(r.value);
            buf = r.value.buffer;
          }
        } finally {
          reading.delete(held);
        }
      }
      const STEP = 4 << 20;
      let next = part.slice(0, STEP).arrayBuffer();
      for (let pos = 0; pos < part.size; pos += STEP) {
        const bytes = new Uint8Array(await next);
        if (pos + STEP < part.size) next = part.slice(pos + STEP, pos + 2 * STEP).arrayBuffer();
        fn(bytes);
      }
    }

    /** Post progress every PROGRESS_EVERY bytes (and at the end). */
    function progressPoster(extra) {
      let done = 0;
      let told = 0;
      return (n, last) => {
        done += n;
        if (done - told >= PROGRESS_EVERY || last) {
          told = done;
          self.postMessage(Object.assign({ progress: done }, extra ? extra() : null));
        }
      };
    }

    let kept = null; // the analysis worker's merged summary

    const CHUNK = 2000; // items per piece of JSON text (packResult)

    /** A result as JSON text for the page: JSON.parse there takes a third of the time
     * that structured cloning the object does. Every array longer than CHUNK items (a
     * 1 GB file's 30,000 zip codes: their groups, under-represented labels and missing
     * data by group make up nine tenths of its 3.2 MB) goes as separate pieces of CHUNK
     * items, [path, text], parsed a few per frame (unpackResult); its place in the text
     * holds [] (an object keeps its keys and their order). */
    function packResult(result) {
      const chunks = [];
      const walk = (v, path) => {
        if (v === null || typeof v !== 'object') return v;
        if (Array.isArray(v) && v.length > CHUNK) {
          for (let k = 0; k < v.length; k += CHUNK) chunks.push([path, JSON.stringify(v.slice(k, k + CHUNK))]);
          return [];
        }
        let out = v;
        for (const key of Object.keys(v)) {
          const w = walk(v[key], path.concat(Array.isArray(v) ? Number(key) : key));
          if (w !== v[key]) {
            if (out === v) out = Array.isArray(v) ? v.slice() : Object.assign({}, v);
            out[key] = w;
          }
        }
        return out;
      };
      const skeleton = walk(result, []);
      return { json: JSON.stringify(skeleton), chunks };
    }

    /** analyze() on the kept summary, posted with how long it took. */
    function analyzed(id, overrides, opts, extra) {
      const t = performance.now();
      let out;
      try {
        const result = E.analyze(kept, overrides, opts);
        const ta = performance.now() - t;
        out = { id, packed: packResult(result) };
        extra = Object.assign({ analyze: ta, pack: performance.now() - t - ta }, extra);
      } catch (e) {
        out = { id, error: String(e && e.message ? e.message : e) };
        extra = Object.assign({ analyze: performance.now() - t }, extra);
      }
      out.timings = extra;
      return out;
    }

    self.onmessage = async (ev) => {
      const m = ev.data;
      try {
        if (m.op === 'plan') {
          // SPEC 0.8: the engine's rule, with synchronous reads (a worker may block).
          const bounds = E.planParts(m.blob.size, m.parts, (pos, len) => readSync(m.blob, pos, len));
          let layout = null;
          if (bounds.length >= 3) {
            const p = E.createProfiler({ name: m.name, overrides: m.overrides, opts: m.opts });
            for (let pos = 0; pos < bounds[1] && p.layout() === null; pos += 1 << 16) {
              p.push(readSync(m.blob, pos, Math.min(1 << 16, bounds[1] - pos)));
            }
            layout = p.layout();
          }
          self.postMessage({ id: m.id, bounds, layout });
          return;
        }
        if (m.op === 'hash') {
          const h = E.createSha256();
          const tell = progressPoster();
          await eachChunk(m.blob, 0, m.blob.size, (bytes) => { h.update(bytes); tell(bytes.length, false); });
          self.postMessage({ hash: h.hex() });
          return;
        }
        if (m.op === 'profile') {
          // bytes [begin, end) of a part after the first: the packed summary goes to the
          // analysis worker (m.port, typed arrays transferred), the page hears it is done
          // m.record: the header record a row of this part must not repeat (SPEC 0.3)
          const p = E.createProfiler({ name: m.name, overrides: m.overrides, opts: m.opts, record: m.record });
          const tell = progressPoster(() => ({ rows: p.counts ? p.counts.nRows : 0 }));
          await eachChunk(m.blob, m.begin, m.end, (bytes) => { p.push(bytes); tell(bytes.length, false); });
          tell(0, true);
          const t = performance.now();
          const summary = p.finishPacked();
          const finish = performance.now() - t;
          const buffers = [];
          for (const [, a, b, c] of summary.pairs) buffers.push(a.buffer, b.buffer, c.buffer);
          m.port.postMessage({ summary, finish }, buffers);
          m.port.close();
          self.postMessage({ done: true, rows: summary.n_rows });
          return;
        }
        if (m.op === 'read') {
          // the analysis worker counts the first part itself, [begin, end), then merges
          // the other parts' summaries (from m.ports, in order) and analyses
          const others = m.ports.map((port) => new Promise((resolve, reject) => {
            port.onmessage = (e) => { port.close(); resolve(e.data); };
            // a summary that cannot be received (no memory to rebuild it) ends the read
            port.onmessageerror = () => { port.close(); reject(new Error('a part\'s summary could not be received')); };
          }));
          for (const o of others) o.catch(() => {}); // (awaited once the first part is counted)
          const p = E.createProfiler({ name: m.name, overrides: m.overrides, opts: m.opts });
          const tell = progressPoster(() => ({ id: m.id, rows: p.counts ? p.counts.nRows : 0 }));
          await eachChunk(m.blob, m.begin, m.end, (bytes) => { p.push(bytes); tell(bytes.length, false); });
          let t = performance.now();
          let summary = p.finish();
          const finish = performance.now() - t;
          self.postMessage({ id: m.id, progress: m.end - m.begin, rows: summary.n_rows, counted: true });
          t = performance.now();
          const got = await Promise.all(others);
          const wait = performance.now() - t;
          t = performance.now();
          for (const g of got) summary = E.mergeSummaries(summary, E.unpackSummary(g.summary));
          const merge = performance.now() - t;
          got.length = 0; // the packed parts live on only inside the merged pairs
          kept = summary;
          // simd: 1 when the engine's field scan ran in WebAssembly (the page's policy
          // allows it: 'wasm-unsafe-eval'), 0 when its byte loop did
          const simd = p.scanner.simd !== null ? 1 : 0;
          const out = analyzed(m.id, m.analysis.overrides, m.analysis.opts, { finish, wait, merge, simd });
          out.shape = summaryShape(kept);
          self.postMessage(out);
          return;
        }
        if (m.op === 'gunzip') {
          // a gzip file (SPEC 0.8): one sequential read, decompressed here, hashed on
          // the way (the compressed bytes, as stored); the analysis worker keeps it
          const p = E.createProfiler({ name: m.name, overrides: m.overrides, opts: m.opts, decompressed: true });
          const h = E.createSha256();
          const tell = progressPoster(() => ({ id: m.id, rows: p.counts ? p.counts.nRows : 0 }));
          await gunzipBlob(E, m.blob, m.name, (bytes) => { h.update(bytes); tell(bytes.length, false); }, (out) => p.push(out));
          kept = p.finish();
          const out = analyzed(m.id, m.analysis.overrides, m.analysis.opts);
          out.shape = summaryShape(kept);
          out.hash = h.hex();
          self.postMessage(out);
          return;
        }
        if (m.op === 'analyze') {
          self.postMessage(analyzed(m.id, m.overrides, m.opts));
          return;
        }
        if (m.op === 'check') {
          // settings the kept summary cannot answer: what it can tell of them (SPEC 7)
          E.checkSettings(kept, m.overrides, m.opts);
          self.postMessage({ id: m.id, checked: true });
          return;
        }
      } catch (e) {
        self.postMessage({ id: m.id, error: String(e && e.message ? e.message : e), input: !!(e && e.name === 'InputError') });
      }
    };
  }

  let workerUrl = null; // Blob URL of engine + workerMain, or null: main thread
  let workerWhyNot = '';
  /** The engine's source for a worker: from the loaded engine itself when it exposes
   * its factory (FaircodeEngine.factory; then no request is made and file:// pages get
   * workers too), else fetched from the page's own folder (not possible on file://). */
  async function engineSource() {
    if (typeof E.factory === 'function') return 'self.FaircodeEngine = (' + E.factory.toString() + ')();\n';
    if (location.protocol === 'file:') return null;
    const resp = await fetch('profiler-engine.js');
    if (!resp.ok) throw new Error('HTTP ' + resp.status);
    return await resp.text();
  }

  const workersReady = (async () => {
    try {
      const text = await engineSource();
      if (text === null) {
        workerWhyNot = 'Opened from a file:// address, where the browser allows no worker scripts from files: the file is read on this page\'s thread, in slices (serve the folder, e.g. `faircode serve`, for the faster worker path).';
        return;
      }
      const src = text + '\n;' + summaryShape.toString() + '\n;' + gunzipBlob.toString() + '\n;(' + workerMain.toString() + ')();\n';
      workerUrl = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
      const probe = new Worker(workerUrl); // a policy that refuses workers throws here
      probe.terminate();
    } catch (e) {
      workerUrl = null;
      workerWhyNot = `Web Workers are not available here (${e.message}): the file is read on this page's thread.`;
    }
  })();

  const cancelled = () => Object.assign(new Error('cancelled'), { cancelled: true });

  /** A task on a new worker, ended with its last message (done, hash); resolves with
   * that message. */
  function runWorker(job, msg, onProgress, transfer) {
    return new Promise((resolve, reject) => {
      let w = job.ready && job.ready.pop(); // (readFile listed it in job.workers)
      if (!w) {
        w = new Worker(workerUrl);
        job.workers.push(w);
      }
      job.rejects.push(reject);
      w.onmessage = (ev) => {
        const d = ev.data;
        if (d.progress !== undefined) { if (onProgress) onProgress(d); return; }
        w.terminate();
        if (d.error !== undefined) reject(Object.assign(new Error(d.error), { input: d.input }));
        else resolve(d);
      };
      w.onerror = (ev) => { w.terminate(); reject(new Error(ev.message || 'worker failed')); };
      w.onmessageerror = () => { w.terminate(); reject(new Error('a worker\'s message could not be received')); };
      w.postMessage(msg, transfer || []);
    });
  }

  /** The analysis worker: plans the parts, counts the first, keeps the merged summary
   * of one read. ask(msg, transfer, onProgress) posts a request and resolves with its
   * answer; end() ends the worker. */
  function startAnalyst() {
    const w = new Worker(workerUrl);
    const pending = new Map();
    let next = 1;
    const fail = (err) => { for (const p of pending.values()) p.reject(err); pending.clear(); };
    w.onmessage = (ev) => {
      const d = ev.data;
      const p = pending.get(d.id);
      if (p === undefined) return;
      if (d.progress !== undefined) { if (p.onProgress) p.onProgress(d); return; }
      pending.delete(d.id);
      if (d.packed === undefined) { p.resolve(d); return; }
      unpackResult(d.packed).then((u) => {
        Object.assign(d, u);
        delete d.packed;
        p.resolve(d);
      }, p.reject);
    };
    w.onerror = (ev) => fail(new Error(ev.message || 'the analysis worker failed'));
    w.onmessageerror = () => fail(new Error('a message of the analysis worker could not be received'));
    return {
      inWorker: true,
      ask(msg, transfer, onProgress) {
        return new Promise((resolve, reject) => {
          const id = next++;
          pending.set(id, { resolve, reject, onProgress });
          w.postMessage(Object.assign({ id }, msg), transfer || []);
        });
      },
      end() { w.terminate(); fail(cancelled()); },
    };
  }

  /** Milliseconds of JSON.parse per frame while a result comes in (unpackResult). */
  const PARSE_PER_FRAME_MS = 25;

  /** The result from the worker's packResult: the text, then the pieces of its long
   * arrays appended in order, a frame drawn whenever PARSE_PER_FRAME_MS were spent
   * parsing, so that no frame waits for all of it. Resolves with {result, chars (the
   * texts' length), parseMs (the page thread's time)}. */
  async function unpackResult(packed) {
    let since = performance.now();
    const result = JSON.parse(packed.json);
    let parseMs = performance.now() - since;
    let chars = packed.json.length;
    for (const [path, text] of packed.chunks) {
      if (performance.now() - since > PARSE_PER_FRAME_MS) {
        await breathe();
        since = performance.now();
      }
      const t = performance.now();
      let into = result;
      for (const key of path) into = into[key];
      for (const item of JSON.parse(text)) into.push(item);
      parseMs += performance.now() - t;
      chars += text.length;
    }
    return { result, chars, parseMs };
  }

  /** The same requests answered on this page's thread (no workers): a summary read here. */
  function mainThreadAnalyst(summary) {
    return {
      inWorker: false,
      async ask(msg) {
        const t = performance.now();
        try {
          if (msg.op === 'check') {
            E.checkSettings(summary, msg.overrides, msg.opts);
            return { id: 0, checked: true };
          }
          return { id: 0, result: E.analyze(summary, msg.overrides, msg.opts), timings: { analyze: performance.now() - t } };
        } catch (e) {
          return { id: 0, error: e.message, timings: { analyze: performance.now() - t } };
        }
      },
      end() {},
    };
  }

  function cancelJob(job) {
    job.cancelled = true;
    for (const w of job.workers) w.terminate();
    if (job.analyst) job.analyst.end();
    for (const r of job.rejects) r(cancelled());
    if (job.onCancel) job.onCancel();
  }

  // ------------------------------------------------------------------------------
  // The SHA-256 of a file's bytes: only the exported JSON's provenance needs it, so it
  // runs beside (or after) the profile and never holds up the result.

  /** The hash of `blob`: one worker per blob, its progress kept for the export buttons.
   * Returns {blob, promise, hash, done, progress, error}. */
  function hashJob(blob) {
    const hj = { blob, hash: null, done: false, progress: 0, error: null, worker: null, listeners: [] };
    const tell = () => { for (const f of hj.listeners) f(hj); };
    const t0 = performance.now();
    const w = new Worker(workerUrl);
    hj.worker = w;
    hj.promise = new Promise((resolve) => {
      const finish = (hash, err) => {
        if (hj.worker === null) return;
        w.terminate();
        hj.worker = null;
        hj.hash = hash;
        hj.error = err;
        hj.done = err !== 'cancelled'; // a failed hash exports null, with a note
        hj.ms = performance.now() - t0;
        tell();
        resolve(hj);
      };
      w.onmessage = (ev) => {
        const d = ev.data;
        if (d.progress !== undefined) { hj.progress = d.progress; tell(); return; }
        finish(d.error !== undefined ? null : d.hash, d.error !== undefined ? d.error : null);
      };
      w.onerror = (ev) => finish(null, ev.message || 'the hashing worker failed');
      w.onmessageerror = () => finish(null, 'the hashing worker\'s message could not be received');
      hj.cancel = () => finish(null, 'cancelled');
    });
    w.postMessage({ op: 'hash', blob });
    return hj;
  }

  /** A hash already known (the page's own thread hashed while reading). */
  function doneHash(blob, hash) {
    return { blob, hash, done: true, progress: blob.size, error: null, worker: null, listeners: [],
      promise: null, cancel() {}, ms: 0 };
  }

  /**
   * Read a Blob: the analysis worker plans the parts and counts the first, one more
   * worker counts each other part, the analysis worker merges and analyses.
   * `analysis` is {overrides, opts} of the first analysis. Resolves with {analyst,
   * shape, answer: {result | error, timings}, parts}; job.onCounted(left) is called as
   * each part is counted, with the number of parts still being counted (the hash
   * starts once a core is free of them).
   */
  async function readFile(blob, name, overrides, opts, analysis, job, onProgress) {
    await workersReady;
    if (await blobIsGzip(blob)) return readGzip(blob, name, overrides, opts, analysis, job, onProgress);
    if (!workerUrl) return readOnMainThread(blob, name, overrides, opts, analysis, job, onProgress);
    const parts = E.defaultParts(blob.size, CORES, opts);
    job.analyst = startAnalyst();
    // The part workers start now and load the engine while the analysis worker plans:
    // started after the plan, the second part of the 1 GB file ended 100-150 ms after
    // the first (benchmarks/README.md).
    job.ready = Array.from({ length: parts - 1 }, () => new Worker(workerUrl));
    job.workers.push(...job.ready);
    try {
      return await readParts(blob, parts, name, overrides, opts, analysis, job, onProgress);
    } finally {
      for (const w of job.ready.splice(0)) w.terminate(); // fewer parts than planned, or a failure
    }
  }

  /** readFile for a CSV file once its workers are started: plan the parts, count them
   * (again as one part if a cut fell inside quotes), resolve as readFile. */
  async function readParts(blob, parts, name, overrides, opts, analysis, job, onProgress) {
    let bounds = [0, blob.size];
    let layout = null;
    if (parts > 1) {
      const t = performance.now();
      const plan = await job.analyst.ask({ op: 'plan', blob, parts, name, overrides, opts });
      job.timings.plan = performance.now() - t;
      if (plan.error !== undefined) throw Object.assign(new Error(plan.error), { input: plan.input });
      if (plan.layout !== null && plan.bounds.length >= 3) { bounds = plan.bounds; layout = plan.layout; }
    }
    let answer;
    try {
      answer = await countParts(blob, bounds, layout, name, overrides, opts, analysis, job, onProgress);
    } catch (e) {
      if (e.cancelled || bounds.length < 3) throw e;
      // a cut inside quotes, or a problem of the file: one part says which
      for (const w of job.workers) w.terminate();
      job.workers = [];
      job.ready = [];
      job.analyst.end();
      job.analyst = startAnalyst();
      bounds = [0, blob.size];
      answer = await countParts(blob, bounds, null, name, overrides, opts, analysis, job, onProgress);
    }
    return { analyst: job.analyst, shape: answer.shape, answer, parts: bounds.length - 1 };
  }

  /** Count the parts [bounds[k], bounds[k + 1]): the first on the analysis worker, each
   * other on a worker of its own that posts its summary to the analysis worker. Resolves
   * with the analysis worker's answer (the merged summary's shape and first result). */
  async function countParts(blob, bounds, layout, name, overrides, opts, analysis, job, onProgress) {
    const n = bounds.length - 1;
    const done = new Array(n).fill(0);
    const rows = done.slice();
    let counting = n;
    const counted = () => {
      counting--;
      if (counting === n - 1) job.timings.firstPart = performance.now() - job.t0;
      if (counting === 0) job.timings.parts = performance.now() - job.t0;
      if (job.onCounted) job.onCounted(counting);
    };
    const report = (k) => (d) => {
      done[k] = d.progress; rows[k] = d.rows;
      onProgress(done.reduce((a, b) => a + b, 0), rows.reduce((a, b) => a + b, 0), n);
      if (d.counted) counted();
    };
    const channels = Array.from({ length: n - 1 }, () => new MessageChannel());
    const ports = channels.map((c) => c.port2);
    const first = job.analyst.ask({ op: 'read', blob, begin: 0, end: bounds[1], name, overrides, opts, ports, analysis },
      ports, report(0)).then((a) => {
      if (a.shape === undefined) throw Object.assign(new Error(a.error), { input: a.input });
      return a;
    });
    const partOpts = layout === null ? opts : E.partOptions(opts, layout);
    const others = channels.map((c, i) => runWorker(job, { op: 'profile', blob, begin: bounds[i + 1], end: bounds[i + 2],
      name, overrides, opts: partOpts, record: layout === null ? null : layout.record, port: c.port1 }, report(i + 1), [c.port1]).then((d) => { counted(); return d; }));
    const [answer] = await Promise.all([first, ...others]);
    job.timings.answered = performance.now() - job.t0;
    return answer;
  }

  /**
   * Read a gzip file (SPEC 0.8): one sequential part, on the analysis worker (which
   * hashes the compressed bytes as it reads them and keeps the summary), or without
   * workers on this page's thread with progress. Progress counts compressed bytes.
   * Resolves as readFile; job.hash is the file's SHA-256.
   */
  async function readGzip(blob, name, overrides, opts, analysis, job, onProgress) {
    if (!workerUrl) {
      const p = E.createProfiler({ name, overrides, opts, decompressed: true });
      const h = E.createSha256();
      let done = 0;
      await gunzipBlob(E, blob, name, (bytes) => { h.update(bytes); done += bytes.length; }, (out) => p.push(out), async () => {
        if (job.cancelled) throw cancelled();
        onProgress(done, p.counts ? p.counts.nRows : 0, 0);
        await new Promise((r) => setTimeout(r, 0)); // let the page paint and take input
      });
      const summary = p.finish();
      job.hash = h.hex();
      job.timings.parts = performance.now() - job.t0;
      await breathe();
      const analyst = mainThreadAnalyst(summary);
      const answer = await analyst.ask({ op: 'analyze', overrides: analysis.overrides, opts: analysis.opts });
      return { analyst, shape: summaryShape(summary), answer, parts: 0 };
    }
    job.analyst = startAnalyst();
    const answer = await job.analyst.ask({ op: 'gunzip', blob, name, overrides, opts, analysis }, [],
      (d) => onProgress(d.progress, d.rows, 1));
    if (answer.shape === undefined) throw Object.assign(new Error(answer.error), { input: answer.input });
    job.hash = answer.hash;
    job.timings.parts = performance.now() - job.t0;
    return { analyst: job.analyst, shape: answer.shape, answer, parts: 1 };
  }

  async function readOnMainThread(blob, name, overrides, opts, analysis, job, onProgress) {
    const p = E.createProfiler({ name, overrides, opts });
    const h = E.createSha256();
    for (let pos = 0; pos < blob.size; pos += SLICE) {
      if (job.cancelled) throw cancelled();
      const buf = new Uint8Array(await blob.slice(pos, pos + SLICE).arrayBuffer());
      p.push(buf);
      h.update(buf);
      onProgress(Math.min(blob.size, pos + SLICE), p.counts ? p.counts.nRows : 0, 0);
      await new Promise((r) => setTimeout(r, 0)); // let the page paint and take input
    }
    const summary = p.finish();
    job.hash = h.hex();
    job.timings.parts = performance.now() - job.t0;
    if (job.onCounted) job.onCounted(0);
    await breathe();
    const analyst = mainThreadAnalyst(summary);
    const answer = await analyst.ask({ op: 'analyze', overrides: analysis.overrides, opts: analysis.opts });
    return { analyst, shape: summaryShape(summary), answer, parts: 0 };
  }

  // ------------------------------------------------------------------------------
  // State and controls

  const state = {
    blob: null, name: '', readOverrides: [], readOpts: {},
    controlsFor: null, // the columns the settings are for (buildControls)
    // the read whose result is shown: its analysis worker (holding the merged summary),
    // the summary's shape (what needsReread asks), its Blob and its job
    analyst: null, shape: null, readBlob: null, lastJob: null,
    hashes: new Map(), // Blob -> its hash job (hashJob)
    result: null, reference: null, referenceHash: null, job: null, asked: 0,
    viewBlob: null, // the Blob whose result #results shows
  };

  /** The settings panel's status line repeats what the last notice or error said: the
   * live regions (#notice, #error) sit above the result, out of sight of a change made
   * in the panel. It is not a live region itself (nothing is announced twice). */
  function mirror(text, isError) {
    const el = $('settings-status');
    el.textContent = text;
    el.classList.toggle('error', isError);
  }
  function notice(text) { $('notice').textContent = text || ''; mirror(text || '', false); }
  function error(text) {
    $('error').textContent = text || '';
    $('error-hint').textContent = text ? pageHint(text) : '';
    if (text) mirror(text, true);
    else if ($('settings-status').classList.contains('error')) mirror('', false);
  }

  /** "Read the file again": beside the notice that asks for it, and in the settings. */
  function showReread(why) {
    for (const id of ['reread', 'reread-here']) $(id).hidden = why === null;
    if (why !== null) $('reread').dataset.why = why;
  }

  /** What to do on this page where an engine's line (the CLI's text, SPEC 0.6, kept as
   * it is) names a CLI flag: the page has no box for these, or another way to them. */
  const PAGE_HINTS = {
    '--encoding': 'On this page: open the file in the encoding the line names, save it as UTF-8 (in Excel: Save As, CSV UTF-8) and choose it again.',
    '--delimiter': 'On this page: choose that delimiter in the Delimiter menu, then the file again.',
    '--one-column': 'On this page: save the table with a delimiter between its fields and choose it again (a table of one column is read only by the command line, faircode profile --one-column).',
  };
  /** The hint of the flag the line names first ('' when it names none of them). */
  function pageHint(text) {
    let at = -1;
    let hint = '';
    for (const [flag, h] of Object.entries(PAGE_HINTS)) {
      const m = new RegExp(flag + '(?![\\w-])').exec(text);
      if (m && (at < 0 || m.index < at)) { at = m.index; hint = h; }
    }
    return hint;
  }

  /** A read or a change that failed: its one line, and nothing that says otherwise (the
   * notice of a read under way, a call to read the file again). */
  function fail(text) {
    showReread(null);
    notice('');
    error(text);
  }

  /** Take the shown result off the page (it is another file's: a failed read of a new
   * file must not leave it to be read, or exported, as that file's). */
  function clearView() {
    const mount = $('results');
    mount.replaceChildren();
    mount.dataset.stale = 'false';
    state.result = null;
    state.viewBlob = null;
    $('panel-profile').classList.remove('has-result');
    updateExports();
  }

  /** Whether the settings (and the export buttons) of a read are shown. */
  const controlsShown = () => !$('settings').hidden;
  function showControls(shown) {
    $('settings').hidden = !shown;
    $('result-tools').hidden = !shown;
    // a read's result: the file chooser gets compact, the result comes first
    if (shown) $('panel-profile').classList.add('has-result');
  }

  /** The progress bar and Cancel show only while a file is read. */
  function endProgress(how) {
    $('progress-box').dataset.state = how;
    $('progress-box').hidden = true;
  }

  function fmtBytes(n) { return (n / 1e6).toFixed(n < 1e7 ? 2 : 0) + ' MB'; }

  function startProgress(total) {
    $('progress-box').hidden = false;
    $('progress').max = total || 1;
    $('progress').value = 0;
    $('progress').dataset.done = '0';
    $('progress-text').textContent = '';
    $('results').setAttribute('aria-busy', 'true');
  }

  function progressUpdater(total, t0) {
    let last = 0;
    return (bytes, rows, parts) => {
      const now = performance.now();
      if (now - last < 50 && bytes < total) return;
      last = now;
      const secs = Math.max(0.001, (now - t0) / 1000);
      $('progress').value = bytes;
      $('progress').dataset.done = String(bytes);
      $('progress-text').textContent = `${fmtBytes(bytes)} of ${fmtBytes(total)} · ${rows.toLocaleString('en-US')} rows · ${(bytes / 1e6 / secs).toFixed(1)} MB/s` +
        (parts > 1 ? ` · ${parts} workers` : parts === 1 ? ' · 1 worker' : ' · main thread');
    };
  }

  /** The overrides chosen in the kind dropdowns, in column order, as [column, kind]. */
  function chosenOverrides() {
    const made = state.controlsFor;
    if (made !== null && !made.made) {
      const ov = new Map(made.overrides);
      return made.columns.filter((col) => ov.has(col)).map((col) => [col, ov.get(col)]);
    }
    const out = [];
    for (const sel of document.querySelectorAll('#kinds select')) {
      if (sel.value !== 'auto') out.push([sel.dataset.column, sel.value]);
    }
    return out;
  }

  /** The non-blank lines of a text box. */
  function lines(text) {
    return text.split('\n').filter((line) => E.trimLabel(line) !== '');
  }

  /** The settings as `faircode profile`'s flags would give them (SPEC 7): each text as
   * typed, {option: text, or a repeatable flag's texts}; a control left empty is not
   * given. The missing tokens and the recodes are one --na or --recode text per
   * non-blank line (a token may hold a comma, as the CLI's --na may). */
  function chosenFlags() {
    const flags = {};
    for (const input of document.querySelectorAll('[data-opt]')) {
      if (input.value !== '') flags[input.dataset.opt] = input.value;
    }
    const bands = $('opt-age_bands').value;
    if (bands !== '') flags.age_bands = bands;
    const na = lines($('opt-na').value);
    if (na.length) flags.na = na;
    const recode = lines($('opt-recode').value);
    if (recode.length) flags.recode = recode;
    const label = $('label-col').value;
    if (label) flags.label = label;
    const positive = $('label-positive').value;
    if (positive !== '') flags.positive = positive;
    const outcome = $('outcome-col').value; // SPEC 21.1 (the CLI's --outcome; one here)
    if (outcome) flags.outcome = [outcome];
    const delim = $('delimiter').value;
    if (delim) flags.delimiter = delim;
    return flags;
  }

  /** The options the controls say: their texts read as the CLI reads its flags' (the
   * engine's fromFlags and resolveOptions: the same grammar, the same one-line error),
   * each number as it resolves to. Throws the engine's InputError. */
  function chosenOpts() {
    const opts = E.fromFlags(chosenFlags());
    const a = $('cross-a').value;
    const b = $('cross-b').value;
    if (a && b) opts.cross = [a, b];
    if ($('opt-score_categoricals').checked) opts.score_categoricals = true;
    if (!$('opt-missing_by_group').checked) opts.missing_by_group = false;
    const resolved = E.resolveOptions(analysisOpts(opts));
    for (const o of E.OPTIONS) {
      if ((o.kind === 'number' || o.kind === 'integer') && opts[o.name] !== undefined) opts[o.name] = resolved[o.name];
    }
    return opts;
  }

  /** Labels counted beyond max_categorical for a column no keyword matched, so that a
   * few more missing tokens or recodes (each can remove one label, SPEC 1.1) or a
   * slightly higher max_categorical are answered from the summary. Counting more
   * labels never changes a result: analyze() tests the rewritten count. */
  const HEADROOM = 10;

  /** An option's value in `opts`, its default (SPEC 7) when not given. */
  function optValue(opts, name) {
    return opts[name] === undefined ? OPT_DEFAULTS[name] : opts[name];
  }

  /** The options the file is read (counted) with. */
  function countingOpts(opts) {
    const o = Object.assign({}, opts);
    delete o.reference;
    o.max_categorical = optValue(opts, 'max_categorical') + HEADROOM;
    return o;
  }

  /** Labels an engine may count for a column without a keyword before it stops (SPEC
   * 0.5 and 1.1: max_categorical plus one per na token and recode entry of it). */
  function slack(opts, col) {
    let s = 0;
    for (const t of opts.na || []) if (!Array.isArray(t) || t[0] === col) s++;
    for (const r of opts.recode || []) if (r[0] === col) s++;
    return s;
  }

  /** Why the cached summary cannot answer these settings, or null when it can. */
  function needsReread(overrides, opts, result) {
    const s = state.shape;
    const ro = new Map(state.readOverrides);
    const no = new Map(overrides);
    if ((opts.delimiter || '') !== (state.readOpts.delimiter || '')) return 'another delimiter changes how the file is split';
    // SPEC 17.2: the label's tables are counted while reading, and missing data by group
    // with the read's missing tokens and recodes (SPEC 1.1's one exception)
    const ro17 = state.readOpts;
    if ((opts.label || '') !== (ro17.label || '')) return 'the label column\'s rates are counted while reading';
    // SPEC 21.2: an outcome's sums are counted while reading, like the label's tables
    if (JSON.stringify(opts.outcome || []) !== JSON.stringify(ro17.outcome || [])) return 'the outcome column\'s sums are counted while reading';
    const mbg = (o) => o.missing_by_group !== false;
    if (mbg(opts) && !mbg(ro17)) return 'missing data by group is counted while reading';
    const same = (x, y) => JSON.stringify(x || []) === JSON.stringify(y || []);
    if (mbg(opts) && (!same(opts.na, ro17.na) || !same(opts.recode, ro17.recode))) {
      return 'missing data by group is counted with the missing tokens and recodes of the read';
    }
    // SPEC 21.2: an outcome's cells are missing after the read's tokens and recodes too
    const outs = opts.outcome || [];
    const rewritesOf = (o) => JSON.stringify([(o.na || []).filter((t) => !Array.isArray(t) || outs.includes(t[0])),
      (o.recode || []).filter((r) => outs.includes(r[0]))]);
    if (outs.length && rewritesOf(opts) !== rewritesOf(ro17)) {
      return 'the outcome column\'s sums are counted with the missing tokens and recodes of the read';
    }
    const maxCat = (o) => optValue(o, 'max_categorical');
    for (let i = 0; i < s.columns.length; i++) {
      const col = s.columns[i];
      if (s.counted[i] || s.capped[i]) continue;
      const kind = no.get(col);
      if (kind === 'ignore') continue;
      if (ro.get(col) === 'ignore') return `'${col}' was ignored while reading, so its labels were not counted`;
      if (kind !== undefined) return `'${col}' had more labels than were counted while reading (its labels were not kept)`;
      if (maxCat(opts) + slack(opts, col) > maxCat(state.readOpts) + slack(state.readOpts, col)) {
        return `'${col}' stopped being counted past ${maxCat(state.readOpts)} labels while reading`;
      }
    }
    if (result) {
      for (const it of result.intersections) {
        const i = s.columns.indexOf(it.dims[0]);
        const j = s.columns.indexOf(it.dims[1]);
        const key = Math.min(i, j) + ',' + Math.max(i, j);
        if (!s.pairs.has(key)) return `the pair ${it.dims[0]} x ${it.dims[1]} was not counted while reading`;
      }
      // SPEC 17.2: a column the read proved no dimension (more groups than its
      // --max-groups, or the kind it then had) lost its tables by group; a dimension
      // now, it is "not counted" only until a read with these settings counts them
      const maxGroups = (o) => optValue(o, 'max_dimension_groups');
      for (const col of untabled(result)) {
        if (maxGroups(opts) + slack(opts, col) > maxGroups(state.readOpts) + slack(state.readOpts, col) ||
            ro.get(col) !== no.get(col)) {
          return `'${col}' was no dimension under the read's settings, so its label rates, missing data and outcome means by group were not counted`;
        }
      }
    }
    return null;
  }

  /** The dimensions a result says have no label, missing-data or outcome tables. */
  function untabled(result) {
    const names = new Set();
    for (const d of result.label_rates ? result.label_rates.dimensions : []) if (d.not_counted) names.add(d.name);
    for (const d of result.missing_by_group || []) if (d.not_counted) names.add(d.dimension);
    for (const o of result.outcomes || []) for (const d of o.dimensions) if (d.not_counted) names.add(d.name);
    return names;
  }

  function analysisOpts(opts) {
    const o = Object.assign({}, opts);
    if (state.reference) o.reference = state.reference.table;
    return o;
  }

  /** Re-run the analysis from the cached summary, on the analysis worker that keeps it
   * (no byte is read). Only the answer to the latest change is shown. A change the
   * summary cannot answer asks for another read, once the summary has said the errors
   * it can tell of it (checkSettings): a bad setting is said at once, as the CLI says it. */
  async function reanalyze() {
    if (!state.shape) return;
    error('');
    const analyst = state.analyst;
    const asked = ++state.asked; // an answer to an earlier change is not shown now
    const current = () => asked === state.asked && analyst === state.analyst; // not a later change, nor another read
    let overrides;
    let opts;
    let why0;
    try {
      overrides = chosenOverrides();
      opts = chosenOpts();
      why0 = needsReread(overrides, opts, null);
    } catch (e) {
      fail(e.message);
      return;
    }
    if (why0 !== null) {
      // under another delimiter the columns are others: the read says what is wrong
      let checked = { checked: true };
      if ((opts.delimiter || '') === (state.readOpts.delimiter || '')) {
        try {
          checked = await analyst.ask({ op: 'check', overrides, opts: analysisOpts(opts) });
        } catch (e) {
          if (!e.cancelled && current()) fail(e.message);
          return;
        }
      }
      if (!current()) return;
      if (checked.error !== undefined) { fail(checked.error); return; }
      askReread(why0, overrides, opts);
      return;
    }
    const busy = setTimeout(() => { if (current()) $('results').setAttribute('aria-busy', 'true'); }, 100);
    let answer;
    try {
      answer = await analyst.ask({ op: 'analyze', overrides, opts: analysisOpts(opts) });
    } catch (e) {
      if (!e.cancelled && current()) fail(e.message);
      return;
    } finally {
      clearTimeout(busy);
    }
    if (!current()) return;
    $('results').setAttribute('aria-busy', 'false');
    $('results').dataset.analyses = String(Number($('results').dataset.analyses || 0) + 1);
    $('results').dataset.analysedIn = analyst.inWorker ? 'worker' : 'page';
    if (answer.error !== undefined) { fail(answer.error); return; }
    const result = answer.result;
    const why = needsReread(overrides, opts, result);
    if (why !== null) return askReread(why, overrides, opts);
    showReread(null);
    if (!await show(result, overrides, opts, answer.chars)) return;
    notice(`Re-analysed from the counts already read (no byte read again): score ${result.overall_score === null ? 'not measured' : result.overall_score}, grade ${result.grade || 'none'}.`);
  }

  function askReread(why, overrides, opts) {
    showReread(why);
    notice(`This change needs the file to be read again: ${why}. Press "Read the file again".`);
    $('results').dataset.stale = 'true';
  }

  /** A result whose JSON text is longer is drawn over several frames (show). */
  const DRAW_IN_FRAMES = 256 << 10;
  /** Elements put in place per frame while a large result is drawn. */
  const NODES_PER_FRAME = 500;
  let drawing = 0;

  /**
   * Draw a result (views.js). A large one (`chars`, its JSON's length, over
   * DRAW_IN_FRAMES) would hold one frame for the whole of its building and layout: for
   * the 1 GB benchmark 110-190 ms to build and 150-300 ms to lay out, for its 100 MB
   * slice 300 ms of layout in the missing-data table alone (8,900 flagged groups).
   * It is built in two halves, the sections up to "not scored" (the score, findings,
   * dimensions, intersection), then label rates, outcomes, missing data by group and
   * proxy hints, and put in
   * place at most NODES_PER_FRAME elements
   * per frame (attachInFrames). The page ends with the same nodes in the same order as
   * one renderProfile() of the whole result (tests/website/test_site.py compares them).
   * Resolves false when a later show() took over.
   */
  async function show(result, overrides, opts, chars) {
    const token = ++drawing;
    result = E.bounded(result); // long labels capped for the page and the exports (SPEC 0.9)
    state.result = result;
    state.viewBlob = state.readBlob;
    state.shownOverrides = overrides;
    state.shownOpts = opts;
    const mount = $('results');
    mount.dataset.stale = 'false';
    // the browser engine computes no proxy hints (SPEC 16): the view says where they come from
    const ctx = { name: state.name, proxyWhere: true };
    if (!(chars > DRAW_IN_FRAMES)) {
      mount.replaceChildren(V.renderProfile(result, ctx));
    } else {
      mount.setAttribute('aria-busy', 'true');
      const view = V.renderProfile(Object.assign({}, result, { label_rates: null, outcomes: null, missing_by_group: null }),
        { name: state.name });
      const first = Array.from(view.children);
      view.replaceChildren();
      await breathe();
      if (token !== drawing) return false;
      mount.replaceChildren(view);
      if (!await attachInFrames(view, first, token, { left: NODES_PER_FRAME })) return false;
      await breathe();
      if (token !== drawing) return false;
      const rest = V.renderProfile(Object.assign({}, result, { dimensions: [], intersections: [], unscored: [], findings: [], flags: [] }), ctx);
      const second = Array.from(rest.children).filter((sec) => sec.matches('.label-rates, .outcome, .missing-by-group, .proxy-hints'));
      await breathe();
      if (token !== drawing) return false;
      if (!await attachInFrames(view, second, token, { left: NODES_PER_FRAME })) return false;
    }
    mount.dataset.renders = String(Number(mount.dataset.renders || 0) + 1);
    mount.setAttribute('aria-busy', 'false');
    updateExports();
    return true;
  }

  /** Append `nodes` to `parent` in order, a frame after every NODES_PER_FRAME elements: a
   * subtree larger than what is left of the frame's budget goes in as an empty shell,
   * then its children the same way. Resolves false when a later show() took over. */
  async function attachInFrames(parent, nodes, token, budget) {
    for (const node of nodes) {
      const n = node.nodeType === 1 ? node.getElementsByTagName('*').length + 1 : 0;
      if (n <= budget.left || n <= 1) {
        parent.appendChild(node);
        budget.left -= n;
      } else {
        const kids = Array.from(node.childNodes);
        node.replaceChildren();
        parent.appendChild(node);
        budget.left -= 1;
        if (!await attachInFrames(node, kids, token, budget)) return false;
      }
      if (budget.left <= 0) {
        await breathe();
        if (token !== drawing) return false;
        budget.left = NODES_PER_FRAME;
      }
    }
    return true;
  }

  const COLUMN_LISTS = ['cross-a', 'cross-b', 'label-col', 'outcome-col'];
  // the settings typed (each read as its CLI flag's text, chosenFlags) and ticked
  const TEXT_SETTINGS = '[data-opt], #opt-age_bands, #opt-na, #opt-recode';
  const CHECKED_SETTINGS = ['opt-score_categoricals', 'opt-missing_by_group'];

  /** A column list's first entry, the choice of none. */
  function noneOption(id) {
    const none = V.h('option', null, id === 'cross-a' ? 'default (first two dimensions)' : id === 'cross-b' ? '—' : 'none');
    none.value = '';
    return none;
  }

  function columnOption(col) {
    const o = V.h('option', null, V.shown(col));
    o.value = col;
    return o;
  }

  /** The settings are for a read's columns: each column's kind (`overrides` chosen) and
   * the column lists, each keeping its choice if the new columns have it. Their
   * dropdowns are made when the panel is first opened (makeControls): 20,000 columns
   * held the page's thread for 3 s making 420,000 options a closed panel does not
   * show. Until then the lists hold only their choice, and chosenOverrides answers from
   * `overrides`. */
  function buildControls(columns, overrides) {
    state.controlsFor = { columns, overrides, made: false };
    $('kinds').replaceChildren();
    for (const id of COLUMN_LISTS) {
      const sel = $(id);
      const keep = columns.includes(sel.value) ? sel.value : '';
      sel.replaceChildren(noneOption(id), ...(keep ? [columnOption(keep)] : []));
      sel.value = keep;
    }
    showControls(true);
    if ($('settings').open) makeControls();
  }

  /** The dropdowns buildControls left to be made, now (the panel is open). */
  function makeControls() {
    const made = state.controlsFor;
    if (made === null || made.made) return;
    made.made = true;
    const { columns } = made;
    const ov = new Map(made.overrides);
    // one select of kinds, cloned per column; the rows go in at once
    const kinds = V.h('select');
    for (const k of ['auto', ...KINDS, 'ignore']) {
      const o = V.h('option', null, k === 'auto' ? 'auto (detected)' : k);
      o.value = k;
      kinds.appendChild(o);
    }
    const rows = document.createDocumentFragment();
    for (const col of columns) {
      const id = 'kind-' + Math.random().toString(36).slice(2);
      const sel = kinds.cloneNode(true);
      sel.id = id;
      sel.dataset.column = col;
      sel.value = ov.get(col) || 'auto';
      const label = V.h('label', { attrs: { for: id } }, V.data(col));
      rows.appendChild(V.h('div', { className: 'kind-row' }, label, sel));
    }
    $('kinds').replaceChildren(rows);
    const names = document.createDocumentFragment();
    for (const col of columns) names.appendChild(columnOption(col));
    for (const id of COLUMN_LISTS) {
      const sel = $(id);
      const keep = sel.value;
      sel.replaceChildren(noneOption(id), names.cloneNode(true));
      sel.value = keep;
    }
  }

  /** Read state.blob with the current settings, then analyse and show; the hash goes
   * on after the result is shown (the export buttons wait for it). */
  async function readAndShow() {
    if (!state.blob) return;
    if (state.job) cancelJob(state.job);
    error('');
    let overrides;
    let opts;
    try {
      overrides = controlsShown() ? chosenOverrides() : [];
      opts = controlsShown() ? chosenOpts() : chosenOptsBeforeControls();
      E.resolveOptions(analysisOpts(opts)); // a bad option is said before any byte is read
    } catch (e) {
      fail(e.message);
      return;
    }
    const blob = state.blob;
    const t0 = performance.now();
    const job = { workers: [], rejects: [], cancelled: false, timings: {}, t0, analyst: null };
    state.job = job;
    watchLongTasks(job);
    startProgress(blob.size);
    const onProgress = progressUpdater(blob.size, t0);
    showReread(null);
    notice(workerUrl === null && workerWhyNot ? workerWhyNot : `Reading ${state.name} in your browser…`);
    const hashNow = () => { if (workerUrl !== null && !state.hashes.has(blob)) state.hashes.set(blob, hashJob(blob)); };
    job.onCancel = () => {
      // a hash nobody will export: the file whose read was cancelled is not the one shown
      const hj = state.hashes.get(blob);
      if (hj && blob !== state.readBlob) { hj.cancel(); state.hashes.delete(blob); }
    };
    let read;
    try {
      read = await readFile(blob, state.name, overrides, countingOpts(opts), { overrides, opts: analysisOpts(opts) }, job, onProgress);
    } catch (e) {
      if (state.job !== job) return; // cancelled by another read, whose page it now is
      state.job = null;
      $('results').setAttribute('aria-busy', 'false');
      if (e.cancelled) {
        // as a failed read (SPEC 7): another file's result goes (openBlob took its tools
        // and analysis); the focus, on Cancel as it is hidden, goes to the file chooser
        const hadFocus = $('progress-box').contains(document.activeElement);
        endProgress('cancelled');
        if (state.viewBlob !== blob) clearView();
        notice('Cancelled: nothing was read to the end.');
        if (hadFocus) $('file').focus();
        return;
      }
      job.onCancel();
      if (state.viewBlob !== blob) clearView();
      fail(e.message);
      endProgress('failed');
      return;
    }
    state.job = null;
    if (job.hash !== undefined) state.hashes.set(blob, doneHash(blob, job.hash)); // read on this thread
    if (state.analyst && state.analyst !== read.analyst) state.analyst.end();
    const shape = Object.assign({}, read.shape, { pairs: new Set(read.shape.pairs) });
    Object.assign(state, { analyst: read.analyst, shape, readBlob: blob, lastJob: job,
      readOverrides: overrides, readOpts: countingOpts(opts) });
    state.asked++; // an answer to a change asked of the previous summary is not shown
    for (const [b, hj] of state.hashes) if (b !== blob) { hj.cancel(); state.hashes.delete(b); }
    const mount = $('results');
    mount.dataset.reads = String(Number(mount.dataset.reads || 0) + 1);
    onProgress(blob.size, read.shape.n_rows, read.parts);
    endProgress('done');
    const secs = (performance.now() - t0) / 1000;
    mount.dataset.readSeconds = secs.toFixed(3);
    mount.dataset.readParts = String(read.parts);
    mount.dataset.analysedIn = read.analyst.inWorker ? 'worker' : 'page';
    Object.assign(job.timings, prefixed('worker_', read.answer.timings));
    if (read.answer.parseMs !== undefined) job.timings.parse = read.answer.parseMs;
    const columns = read.shape.columns;
    const made = state.controlsFor;
    if (!controlsShown() || made === null || made.columns.length !== columns.length ||
        made.columns.some((col, i) => col !== columns[i])) {
      buildControls(columns, overrides);
    }
    if (read.answer.error !== undefined) {
      if (state.viewBlob !== blob) clearView();
      state.result = null; // (a view still shown is of another read: not exported)
      updateExports();
      fail(read.answer.error);
      mount.setAttribute('aria-busy', 'false');
      return;
    }
    const result = read.answer.result;
    await breathe();
    if (state.job !== null || state.analyst !== read.analyst) return; // another read began
    const tr = performance.now();
    if (!await show(result, overrides, opts, read.answer.chars)) return;
    job.timings.render = performance.now() - tr;
    job.timings.resultShown = performance.now() - t0;
    recordTimings(job);
    const how = read.parts > 1 ? `${read.parts} workers` : read.parts === 1 ? 'a worker' : 'this page\'s thread';
    notice(`${state.name}: ${result.n_rows.toLocaleString('en-US')} rows read in ${secs.toFixed(2)} s on ${how}; score ${result.overall_score === null ? 'not measured' : result.overall_score}, grade ${result.grade || 'none'}.` +
      (read.parts === 0 && workerWhyNot ? ' ' + workerWhyNot : ''));
    hashNow(); // (once the result is shown: see HASH_AT_PARTS_LEFT)
    const hj = state.hashes.get(blob);
    if (hj && !hj.done) hj.listeners.push(updateExports);
    if (hj && hj.promise) await hj.promise;
    if (state.lastJob !== job) return;
    job.timings.hashDone = performance.now() - t0;
    job.watchUntil = performance.now();
    if (hj && hj.ms) job.timings.hash = hj.ms;
    recordTimings(job);
    updateExports();
  }

  function prefixed(prefix, obj) {
    const out = {};
    for (const k of Object.keys(obj || {})) out[prefix + k] = obj[k];
    return out;
  }

  /** The read's timings (ms from choosing the file, or durations) on #results, as JSON
   * in data-timings: parts (every part counted), resultShown, hashDone (the export
   * ready), longestTask (the page thread's longest task meanwhile, if over 50 ms), and
   * the pieces between (plan, worker_merge, worker_analyze, parse, render, hash...). */
  function recordTimings(job) {
    const mount = $('results');
    const t = {};
    for (const [k, v] of Object.entries(job.timings)) t[k] = Math.round(v * 10) / 10;
    mount.dataset.timings = JSON.stringify(t);
  }

  // The longest task on this page's thread from choosing a file until its result is
  // drawn and hashed (a task over 50 ms is a "long task"; frames wait for it).
  let longTaskJob = null;
  try {
    new PerformanceObserver((list) => {
      const job = longTaskJob;
      if (job === null) return;
      for (const e of list.getEntries()) {
        if (e.startTime + e.duration < job.t0 || e.startTime > job.watchUntil) continue;
        if (e.duration > job.timings.longestTask) job.timings.longestTask = e.duration;
      }
      if (state.lastJob === job) recordTimings(job);
    }).observe({ type: 'longtask' });
  } catch (e) { /* no long task timing in this browser */ }
  function watchLongTasks(job) {
    longTaskJob = job;
    job.watchUntil = Infinity;
    job.timings.longestTask = 0;
  }

  /** Copy and Download JSON hold the file's SHA-256: until it is computed they say how
   * far it is, and are disabled. */
  /** Whether the shown result can be exported: its file's hash is known. */
  function exportReady() {
    const hj = state.readBlob ? state.hashes.get(state.readBlob) : undefined;
    return hj !== undefined && hj.done && state.result !== null;
  }

  function updateExports() {
    const hj = state.readBlob ? state.hashes.get(state.readBlob) : undefined;
    const ready = exportReady();
    $('results').dataset.hash = ready ? 'done' : 'pending';
    $('download-report').disabled = state.result === null; // (no result: nothing to report)
    for (const id of ['copy-json', 'download-json']) {
      const b = $(id);
      if (!b.dataset.text) b.dataset.text = b.textContent;
      b.disabled = !ready;
      if (ready) {
        b.textContent = b.dataset.text;
        b.removeAttribute('title');
        continue;
      }
      const pct = hj && state.readBlob.size ? Math.floor((100 * hj.progress) / state.readBlob.size) : 0;
      b.textContent = `${b.dataset.text} (hashing the file: ${pct}%)`;
      b.title = 'The JSON\'s provenance holds the SHA-256 of the file\'s bytes, still being computed.';
    }
  }

  /** Before the first read the only setting is the delimiter. */
  function chosenOptsBeforeControls() {
    const delim = $('delimiter').value;
    return delim ? { delimiter: delim } : {};
  }

  function openBlob(blob, name) {
    state.blob = blob;
    state.name = name;
    // another file: the shown result's controls and analysis go (its view stays until
    // the new one is drawn, and so does its export)
    if (state.analyst && state.readBlob !== blob) { state.analyst.end(); state.analyst = null; state.shape = null; }
    showControls(false);
    state.controlsFor = null;
    $('kinds').replaceChildren();
    // Its first read is given no setting but the delimiter (chosenOptsBeforeControls):
    // the panel shows that, not the file before's texts, which the next change in the
    // panel would have applied without a word.
    for (const el of document.querySelectorAll(TEXT_SETTINGS)) el.value = el.defaultValue;
    for (const id of CHECKED_SETTINGS) $(id).checked = $(id).defaultChecked;
    for (const id of COLUMN_LISTS) $(id).value = '';
    $('label-positive').value = '';
    readAndShow();
  }

  // ------------------------------------------------------------------------------
  // Export: the CLI's `--json` shape, with the section 10 provenance (engine "js")

  function exported() {
    const r = Object.assign({}, state.result);
    const hj = state.hashes.get(state.readBlob);
    const hashes = { dataset_hash: hj && hj.done ? hj.hash : null };
    const notes = hj && hj.error ? { dataset_hash: `the bytes could not be hashed: ${hj.error}` } : undefined;
    r.provenance = E.provenance({ opts: state.shownOpts, overrides: state.shownOverrides, hashes, notes,
      referenceHash: state.reference ? state.referenceHash : undefined });
    return r;
  }

  function download(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = V.h('a', { attrs: { href: url, download: name } });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  function baseName(name) { return name.replace(/\.[^.]*$/, '') || 'result'; }

  async function copyText(text, where) {
    try {
      await navigator.clipboard.writeText(text);
      where('Copied the JSON to the clipboard.');
    } catch (e) {
      where(`The clipboard is not available here (${e.message}); use Download JSON.`);
    }
  }

  // The self-contained report, as `faircode profile FILE --html OUT` writes it
  // (faircode/htmlreport.py builds the same page from the same files).
  /** The report page: the head faircode/htmlreport.py's report_html builds for --html
   * (a test holds the two equal but for the title). */
  async function reportHtml(kind, result, context) {
    if (location.protocol === 'file:') throw new Error('the report needs the page served (faircode serve): a file:// page cannot read its own scripts');
    const [views, css] = await Promise.all(['views.js', 'style.css'].map((f) => fetch(f).then((r) => r.text())));
    const b64 = async (text) => {
      const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
      return btoa(String.fromCharCode(...new Uint8Array(d)));
    };
    const payload = JSON.stringify({ kind, result, context }).replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
    const csp = `default-src 'none'; script-src 'sha256-${await b64(views)}'; style-src 'sha256-${await b64(css)}'; img-src data:; base-uri 'none'; form-action 'none'`;
    const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    const title = kind === 'compare' ? 'faircode compare' : `faircode profile: ${context.name || ''}`;
    return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta http-equiv="Content-Security-Policy" content="${csp}">\n<meta name="referrer" content="no-referrer">\n<title>${esc(title)}</title>\n<style>${css}</style>\n</head>\n<body class="report">\n<main id="report"><p>This report is drawn by its own inline script, which this viewer did not run: open the file in a browser, or export the same result as Markdown (--markdown) for viewers that block scripts.</p></main>\n<script type="application/json" id="faircode-result">${payload}</script>\n<script>${views}</script>\n</body>\n</html>\n`;
  }

  // ------------------------------------------------------------------------------
  // Compare

  // asked: the latest comparison asked for (only its answer is shown); jobs, hashJobs:
  // its reads and hashes, ended when a later one is asked for
  const compareState = { result: null, exported: null, names: null, asked: 0, jobs: [], hashJobs: [] };

  const compareSay = (t) => { $('compare-notice').textContent = t; };
  function compareExports(disabled) {
    for (const id of ['compare-copy-json', 'compare-download-json']) $(id).disabled = disabled;
  }

  /** Take the shown comparison off the page (a failed comparison of other files must not
   * leave it to be read, or exported, as theirs: SPEC 7). */
  function clearCompare() {
    $('compare-results').replaceChildren();
    Object.assign(compareState, { result: null, exported: null, names: null });
    compareExports(true);
    $('compare-download-report').disabled = true;
  }

  /** The Profile tab's settings a comparison is given (SPEC 7): compare's options only
   * (not the crossing, nor the outcome), each as its control's name on the page with the
   * text typed or chosen (`Label: two_year_recid`, a checkbox `on` or `off`), said on the
   * Compare tab: a page user has controls, not the CLI's flags. */
  function compareSettings() {
    const opts = controlsShown() ? chosenOpts() : chosenOptsBeforeControls();
    for (const o of E.OPTIONS) if (o.flag && !o.commands.includes('compare')) delete opts[o.name];
    const flags = controlsShown() ? chosenFlags() : opts;
    const given = [];
    // an option as it resolves (the age bands' text is their list): its default is not given
    const resolved = (o) => {
      try { return E.resolveOptions({ [o.name]: opts[o.name] })[o.name]; } catch (e) { return opts[o.name]; }
    };
    for (const o of E.OPTIONS) {
      if (opts[o.name] === undefined || JSON.stringify(resolved(o)) === JSON.stringify(o.default)) continue;
      const name = controlName(o);
      if (o.kind === 'boolean') { given.push(`${name}: ${opts[o.name] ? 'on' : 'off'}`); continue; }
      const texts = [].concat(flags[o.name] !== undefined ? flags[o.name] : opts[o.name]);
      for (const t of texts) given.push(`${name}: ${t}`);
    }
    return { opts, given };
  }

  /** The name the page gives option `o`'s control: its label's text, without the control's
   * own text or a bracketed hint (`Missing tokens (one per line; ...)` is `Missing tokens`);
   * the option's name for one with no control on the page. */
  function controlName(o) {
    const el = o.control === null ? null : $(o.control);
    const label = el === null ? null : el.closest('label') || document.querySelector(`label[for="${o.control}"]`);
    if (label === null) return o.name;
    let text = '';
    for (const node of label.childNodes) if (node.nodeType === Node.TEXT_NODE) text += node.textContent;
    return text.replace(/\s*\(.*$/s, '').trim() || o.name;
  }

  async function runCompare() {
    const fa = $('file-a').files[0];
    const fb = $('file-b').files[0];
    const asked = ++compareState.asked; // an answer to an earlier Compare is not shown now
    const current = () => asked === compareState.asked;
    for (const job of compareState.jobs) { cancelJob(job); if (job.hj) job.hj.cancel(); }
    for (const h of compareState.hashJobs) h.cancel();
    compareState.jobs = [];
    compareState.hashJobs = [];
    const say = (t) => { if (current()) compareSay(t); };
    const failed = (t) => { if (current()) { clearCompare(); compareSay(t); } };
    if (!fa || !fb) { failed('Choose two files, A and B.'); return; }
    let opts;
    let given;
    try {
      ({ opts, given } = compareSettings());
    } catch (e) { failed(e.message); return; }
    $('compare-settings').textContent = given.length
      ? `Settings from the Profile tab applied to both files: ${given.join(', ')}.`
      : 'No settings given: the defaults (the Profile tab\'s settings apply here too).';
    const results = [];
    const hashJobs = compareState.hashJobs;
    const jobs = compareState.jobs;
    try {
      for (const [i, f] of [fa, fb].entries()) {
        say(`Reading ${f.name}…`);
        const job = { workers: [], rejects: [], cancelled: false, timings: {}, t0: performance.now(), analyst: null };
        jobs.push(job);
        job.onCounted = (left) => { if (left <= HASH_AT_PARTS_LEFT && workerUrl !== null && !job.hj) job.hj = hashJob(f); };
        // as the CLI's (SPEC 10): a read error names the file; an option error found
        // against its header (--label, --map, ...) names the file and its side
        const side = (msg) => new Error(msg.startsWith(f.name + ': ') ? msg : `${f.name} (${'AB'[i]}): ${msg}`);
        let r;
        try {
          r = await readFile(f, f.name, [], opts, { overrides: [], opts }, job, () => {});
        } catch (e) {
          if (e.cancelled) throw e;
          throw side(e.message);
        }
        r.analyst.end(); // a comparison is not re-analysed
        if (r.answer.error !== undefined) throw side(r.answer.error);
        results.push(r.answer.result);
        hashJobs.push(job.hash !== undefined ? doneHash(f, job.hash) : job.hj || hashJob(f));
        if (!current()) throw Object.assign(new Error('a later comparison'), { cancelled: true });
      }
      const result = E.bounded(E.compare(results[0], results[1], opts)); // SPEC 0.9
      if (!current()) return;
      compareState.result = result;
      compareState.exported = null;
      compareState.names = [fa.name, fb.name];
      $('compare-results').replaceChildren(V.renderCompare(result, { nameA: fa.name, nameB: fb.name }));
      $('compare-download-report').disabled = false;
      const told = `Compared ${fa.name} with ${fb.name}: ${result.dimensions.length} shared dimensions, ${result.flags.length} flags.`;
      compareExports(true);
      if (hashJobs.some((h) => !h.done)) say(told + ' Copy and Download JSON wait for the files\' SHA-256 (their provenance).');
      const done = await Promise.all(hashJobs.map((h) => h.promise || h));
      if (!current() || compareState.result !== result) return;
      const hashes = {};
      done.forEach((h, i) => { hashes[`dataset_hash_${'ab'[i]}`] = h.hash; });
      compareState.exported = Object.assign({}, result, { provenance: E.provenance({ opts, overrides: [], hashes }) });
      compareExports(false);
      say(told);
    } catch (e) {
      for (const job of jobs) {
        if (job.analyst) job.analyst.end();
        for (const w of job.workers) w.terminate();
        if (job.hj) job.hj.cancel();
      }
      for (const h of hashJobs) h.cancel();
      if (!e.cancelled) failed(e.message);
    }
  }

  // ------------------------------------------------------------------------------
  // Reference

  /** Apply a population reference table (SPEC 7: what is applied is what the Baseline
   * dropdown says). A table that cannot be read leaves none applied: the result is
   * analysed again without one, and the error says so. */
  async function setReference(bytes, name) {
    let table;
    try {
      table = E.parseReference(bytes, name);
    } catch (e) {
      await dropReference(`${e.message}. No population reference is applied; choose another table.`);
      return;
    }
    const h = E.createSha256();
    h.update(bytes);
    state.reference = { table, name, bytes }; // bytes: for the Python engine check
    state.referenceHash = h.hex();
    reanalyze();
  }

  /** No population reference applied: the shown result is analysed again without one;
   * `why`, when given, is said as the one error line (the re-analysis notice goes). */
  async function dropReference(why) {
    const had = state.reference !== null;
    state.reference = null;
    state.referenceHash = null;
    if (had) await reanalyze();
    if (why) fail(why);
  }

  // ------------------------------------------------------------------------------
  // Wiring

  /** The option controls made from the engine's table (SPEC 7, E.OPTIONS): a text input
   * for each number option with a site_label (its label, default and help), in the
   * table's order, where #opt-numbers stands; the age bands' default text. A text box,
   * not a number input: the engine reads what was typed as the CLI reads the flag (a
   * number input's value is empty for text it cannot parse, such as 5e or 1e400).
   * ArrowUp and ArrowDown step a valid value by the record's site_step within its bounds. */
  function buildOptionControls() {
    const spot = $('opt-numbers');
    for (const o of E.OPTIONS) {
      if (o.site_label === null || (o.kind !== 'number' && o.kind !== 'integer')) continue;
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = 'text';
      input.inputMode = 'decimal';
      input.autocomplete = 'off';
      input.spellcheck = false;
      input.id = o.control;
      input.dataset.opt = o.name;
      input.dataset.step = String(o.site_step);
      input.value = String(o.default);
      input.placeholder = String(o.default);
      input.title = o.help;
      input.addEventListener('keydown', (ev) => stepOption(ev, o, input));
      label.append(o.site_label + ' ', input);
      spot.before(label);
    }
    spot.remove();
    // the box's default (what a new file's panel goes back to, openBlob)
    $('opt-age_bands').defaultValue = OPT_DEFAULTS.age_bands.join(',');
  }

  /** ArrowUp / ArrowDown in a number option's box: its value (as the engine reads it; the
   * default when empty) plus or minus site_step, when that is valid; a text the engine
   * refuses is left as typed. */
  function stepOption(ev, o, input) {
    if (ev.key !== 'ArrowUp' && ev.key !== 'ArrowDown') return;
    ev.preventDefault();
    const valid = (text) => {
      try { return E.resolveOptions({ [o.name]: text })[o.name]; } catch (e) { return null; }
    };
    const now = valid(input.value === '' ? String(o.default) : input.value);
    if (now === null) return;
    const next = String(Number((now + (ev.key === 'ArrowUp' ? o.site_step : -o.site_step)).toPrecision(12)));
    if (valid(next) === null) return;
    input.value = next;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }

  /** The Delimiter menu from the engine's table (E.OPTIONS' delimiter choices, the
   * candidates E.SNIFF_ORDER sniffs): every delimiter the command line takes, so a file
   * the sniffer gets wrong can be read here too. */
  function buildDelimiterMenu() {
    const menu = $('delimiter');
    const shown = (d) => (d === '\t' ? 'tab' : d);
    menu.options[0].textContent = `sniffed (${E.SNIFF_ORDER.map(shown).join(' ')})`;
    const choices = E.OPTIONS.find((o) => o.name === 'delimiter').choices;
    for (const d of choices) {
      const item = document.createElement('option');
      item.value = d;
      const word = DELIMITER_WORDS[d];
      item.textContent = word === undefined ? d : d === 'tab' ? word : `${word} ${d}`;
      menu.append(item);
    }
  }

  function wire() {
    buildOptionControls();
    buildDelimiterMenu();
    $('file').addEventListener('change', () => {
      const input = $('file');
      const f = input.files[0];
      // taken, the choice is emptied: a file chosen again (re-exported, or after its read
      // was cancelled) fires no change while it is still the input's selection
      input.value = '';
      if (f) openBlob(f, f.name);
    });
    const drop = $('drop');
    drop.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (ev) => {
      ev.preventDefault();
      drop.classList.remove('over');
      const f = ev.dataTransfer.files[0];
      if (f) openBlob(f, f.name);
    });
    for (const b of document.querySelectorAll('button.sample')) {
      b.addEventListener('click', async () => {
        error('');
        try {
          const resp = await fetch(b.dataset.url);
          if (!resp.ok) throw new Error('HTTP ' + resp.status);
          openBlob(await resp.blob(), b.dataset.name);
        } catch (e) {
          error(`The samples need the page served over http (faircode serve); here: ${e.message}. Choose a file instead.`);
        }
      });
    }
    $('delimiter').addEventListener('change', () => { if (state.shape) reanalyze(); });
    $('cancel').addEventListener('click', () => { if (state.job) cancelJob(state.job); });
    $('reread').addEventListener('click', readAndShow);
    $('reread-here').addEventListener('click', readAndShow);
    // "Settings" in the result's tools opens the panel it jumps to
    $('to-settings').addEventListener('click', () => { makeControls(); $('settings').open = true; });
    // made on the summary's click (a click or Enter), before the panel opens and a Tab
    // could pass them; the toggle event, a task later, catches any other opening
    $('settings').querySelector('summary').addEventListener('click', makeControls);
    $('settings').addEventListener('toggle', () => { if ($('settings').open) makeControls(); });
    for (const id of [...COLUMN_LISTS, ...CHECKED_SETTINGS, 'label-positive']) {
      $(id).addEventListener('change', reanalyze);
    }
    for (const el of document.querySelectorAll(TEXT_SETTINGS)) {
      el.addEventListener('change', reanalyze);
    }
    $('kinds').addEventListener('change', reanalyze); // each column's kind (buildControls)
    $('controls').addEventListener('submit', (ev) => { ev.preventDefault(); reanalyze(); });
    $('reference').addEventListener('change', async () => {
      const v = $('reference').value;
      $('reference-file').hidden = v !== 'upload';
      // what is applied is what the dropdown says: "a table of my own" with no table
      // chosen yet, or a baseline that cannot be fetched, applies none
      if (v === '') { dropReference(); return; }
      if (v === 'upload') {
        if ($('reference-file').files[0]) $('reference-file').dispatchEvent(new Event('change'));
        else dropReference();
        return;
      }
      let bytes;
      try {
        const resp = await fetch(v);
        if (!resp.ok) throw new Error('HTTP ' + resp.status);
        bytes = new Uint8Array(await resp.arrayBuffer());
      } catch (e) {
        if ($('reference').value === v) dropReference(`The built-in baselines need the page served over http; here: ${e.message}. Upload the table instead.`);
        return;
      }
      if ($('reference').value !== v) return; // another choice since: that one applies
      await setReference(bytes, v.replace(/^.*\/reference-|\.csv$/g, ''));
    });
    $('reference-file').addEventListener('change', async () => {
      const f = $('reference-file').files[0];
      if (!f) return;
      const bytes = new Uint8Array(await f.arrayBuffer());
      if ($('reference').value === 'upload') await setReference(bytes, f.name);
    });
    $('copy-json').addEventListener('click', () => { if (exportReady()) copyText(JSON.stringify(exported(), null, 2), notice); });
    $('download-json').addEventListener('click', () => { if (exportReady()) download(baseName(state.name) + '.faircode.json', JSON.stringify(exported(), null, 2) + '\n', 'application/json'); });
    $('download-report').addEventListener('click', async () => {
      try {
        download(baseName(state.name) + '.faircode.html', await reportHtml('profile', state.result, { name: state.name }), 'text/html');
      } catch (e) { error(e.message); }
    });
    $('run-compare').addEventListener('click', runCompare);
    $('compare-copy-json').addEventListener('click', () => copyText(JSON.stringify(compareState.exported, null, 2), compareSay));
    $('compare-download-report').addEventListener('click', async () => {
      try {
        download('compare.faircode.html', await reportHtml('compare', compareState.result,
          { nameA: compareState.names[0], nameB: compareState.names[1] }), 'text/html');
      } catch (e) { $('compare-notice').textContent = e.message; }
    });
    $('compare-download-json').addEventListener('click', () => download('compare.faircode.json', JSON.stringify(compareState.exported, null, 2) + '\n', 'application/json'));
    for (const [tab, panel] of [['tab-profile', 'panel-profile'], ['tab-compare', 'panel-compare']]) {
      $(tab).addEventListener('click', () => {
        for (const [t, p] of [['tab-profile', 'panel-profile'], ['tab-compare', 'panel-compare']]) {
          $(t).setAttribute('aria-pressed', t === tab ? 'true' : 'false');
          $(p).hidden = p !== panel;
        }
      });
    }
    workersReady.then(() => { document.body.dataset.workers = workerUrl ? 'yes' : 'no'; });
    // ICU's number formatting loads on its first use (50 ms of this thread, which was
    // the longest task while a file was read): load it while the page is idle
    (window.requestIdleCallback || setTimeout)(() => (0).toLocaleString('en-US'));
  }

  // Exposed for tests and the console: the current state (read-only use).
  // (site/pycheck.js, the Python engine check, uses exported and exportReady)
  window.faircodePage = { state, compareState, reanalyze, readAndShow, workersReady, exported, exportReady, PAGE_HINTS };
  wire();
})();
