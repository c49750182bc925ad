/*
 * The page: reads a table with the engine (assets/profiler-engine.js, loaded as
 * site/profiler-engine.js) in Web Workers, keeps the summary, and renders results with
 * site/views.js. Every control re-runs analyze() on the cached summary; a change the
 * summary cannot answer (a column it did not count, a pair it did not count, another
 * delimiter) says so and offers to read the file again.
 */
(function () {
  'use strict';
  const E = window.FaircodeEngine;
  const V = window.FaircodeViews;
  const $ = (id) => document.getElementById(id);
  const SLICE = 4 << 20; // bytes per read of a Blob slice
  /** Let the page draw a frame and take input between two pieces of main-thread work. */
  const breathe = () => new Promise((r) => setTimeout(r, 0));
  const KINDS = ['sex', 'race', 'nationality', 'religion', 'disability', 'marital', 'age',
    'geography', 'categorical'];
  // the engine's defaults (SPEC 7), so a threshold left at its default is not sent
  const OPT_DEFAULTS = E.resolveOptions({});

  // ------------------------------------------------------------------------------
  // Workers: built from the engine's own source text (a Blob URL). Chromium refuses
  // new Worker() and importScripts on file:// pages; there the page reads on the main
  // thread, slice by slice, yielding between slices, and says so.

  /** The worker's program (runs after the engine's source, which sets FaircodeEngine). */
  function workerMain() {
    /* global FaircodeEngine, FileReaderSync */
    const E = FaircodeEngine;
    const SLICE = 4 << 20;
    const readSync = (blob, pos, len) => new Uint8Array(new FileReaderSync().readAsArrayBuffer(blob.slice(pos, pos + len)));
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
          self.postMessage({ bounds, layout });
          return;
        }
        if (m.op === 'hash') {
          const h = E.createSha256();
          let next = m.blob.slice(0, SLICE).arrayBuffer();
          for (let pos = 0; pos < m.blob.size; pos += SLICE) {
            const buf = new Uint8Array(await next);
            if (pos + SLICE < m.blob.size) next = m.blob.slice(pos + SLICE, pos + 2 * SLICE).arrayBuffer();
            h.update(buf);
          }
          self.postMessage({ hash: h.hex() });
          return;
        }
        // profile bytes [begin, end): the next slice is read while this one is counted
        const p = E.createProfiler({ name: m.name, overrides: m.overrides, opts: m.opts });
        let next = m.blob.slice(m.begin, Math.min(m.end, m.begin + SLICE)).arrayBuffer();
        for (let pos = m.begin; pos < m.end; pos += SLICE) {
          const buf = new Uint8Array(await next);
          const after = pos + SLICE;
          if (after < m.end) next = m.blob.slice(after, Math.min(m.end, after + SLICE)).arrayBuffer();
          p.push(buf);
          self.postMessage({ progress: Math.min(m.end, after) - m.begin, rows: p.counts ? p.counts.nRows : 0 });
        }
        self.postMessage({ summary: p.finishPacked() });
      } catch (e) {
        self.postMessage({ error: String(e && e.message ? e.message : e), input: !!(e && e.name === 'InputError') });
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
      const src = text + '\n;(' + workerMain.toString() + ')();\n';
      workerUrl = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
      const probe = new Worker(workerUrl); // a policy that refuses workers throws here
      probe.terminate();
    } catch (e) {
      workerUrl = null;
      workerWhyNot = `Web Workers are not available here (${e.message}): the file is read on this page's thread.`;
    }
  })();

  /** A task on a new worker; resolves with its last message (summary, hash or plan). */
  function runWorker(job, msg, onProgress) {
    return new Promise((resolve, reject) => {
      const w = new Worker(workerUrl);
      job.workers.push(w);
      job.rejects.push(reject);
      w.onmessage = (ev) => {
        const d = ev.data;
        if (d.progress !== undefined) { if (onProgress) onProgress(d); return; }
        w.terminate();
        if (d.error !== undefined) reject(Object.assign(new Error(d.error), { input: d.input }));
        else resolve(d);
      };
      w.onerror = (ev) => { w.terminate(); reject(new Error(ev.message || 'worker failed')); };
      w.postMessage(msg);
    });
  }

  function cancelJob(job) {
    job.cancelled = true;
    for (const w of job.workers) w.terminate();
    for (const r of job.rejects) r(Object.assign(new Error('cancelled'), { cancelled: true }));
  }

  /** Read a Blob into a summary and the SHA-256 of its bytes. */
  async function readSummary(blob, name, overrides, opts, job, onProgress) {
    await workersReady;
    if (!workerUrl) return readOnMainThread(blob, name, overrides, opts, job, onProgress);
    const cores = navigator.hardwareConcurrency || 2;
    const parts = E.defaultParts(blob.size, cores, opts);
    const hashP = runWorker(job, { op: 'hash', blob });
    hashP.catch(() => {}); // awaited below; a cancel must not be an unhandled rejection
    let summary = null;
    if (parts > 1) {
      const plan = await runWorker(job, { op: 'plan', blob, parts, name, overrides, opts });
      if (plan.layout !== null && plan.bounds.length >= 3) {
        const done = new Array(plan.bounds.length - 1).fill(0);
        const rows = done.slice();
        const partOpts = E.partOptions(opts, plan.layout);
        const tasks = [];
        for (let k = 0; k + 1 < plan.bounds.length; k++) {
          tasks.push(runWorker(job, { op: 'profile', blob, begin: plan.bounds[k], end: plan.bounds[k + 1], name,
            overrides, opts: k === 0 ? opts : partOpts }, (d) => {
            done[k] = d.progress; rows[k] = d.rows;
            onProgress(done.reduce((a, b) => a + b, 0), rows.reduce((a, b) => a + b, 0), plan.bounds.length - 1);
          }));
        }
        try {
          const results = await Promise.all(tasks);
          let t = performance.now();
          summary = E.unpackSummary(results[0].summary);
          job.timings.merge = 0;
          for (const r of results.slice(1)) {
            await breathe();
            t = performance.now();
            summary = E.mergeSummaries(summary, E.unpackSummary(r.summary));
            job.timings.merge += performance.now() - t;
          }
        } catch (e) {
          if (e.cancelled) throw e;
          summary = null; // a cut inside quotes, or a problem of the file: one part says which
        }
      }
    }
    if (summary === null) {
      const r = await runWorker(job, { op: 'profile', blob, begin: 0, end: blob.size, name, overrides, opts },
        (d) => onProgress(d.progress, d.rows, 1));
      summary = E.unpackSummary(r.summary);
    }
    const th = performance.now();
    const { hash } = await hashP;
    job.timings.hashWait = performance.now() - th;
    job.timings.read = performance.now() - job.t0;
    return { summary, hash, parts: Math.max(1, parts) };
  }

  async function readOnMainThread(blob, name, overrides, opts, job, onProgress) {
    const p = E.createProfiler({ name, overrides, opts });
    const h = E.createSha256();
    for (let pos = 0; pos < blob.size; pos += SLICE) {
      if (job.cancelled) throw Object.assign(new Error('cancelled'), { cancelled: true });
      const buf = new Uint8Array(await blob.slice(pos, pos + SLICE).arrayBuffer());
      p.push(buf);
      h.update(buf);
      onProgress(Math.min(blob.size, pos + SLICE), p.counts ? p.counts.nRows : 0, 0);
      await new Promise((r) => setTimeout(r, 0)); // let the page paint and take input
    }
    return { summary: p.finish(), hash: h.hex(), parts: 0 };
  }

  // ------------------------------------------------------------------------------
  // State and controls

  const state = {
    blob: null, name: '', summary: null, hash: null, readOverrides: [], readOpts: {},
    result: null, reference: null, referenceHash: null, job: null,
  };

  function notice(text) { $('notice').textContent = text || ''; }
  function error(text) { $('error').textContent = text || ''; }

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
    const out = [];
    for (const sel of document.querySelectorAll('#kinds select')) {
      if (sel.value !== 'auto') out.push([sel.dataset.column, sel.value]);
    }
    return out;
  }

  function naItems(text) {
    const out = [];
    for (const raw of text.split(',')) {
      const item = raw.trim();
      if (!item) continue;
      const eq = item.indexOf('=');
      if (eq < 0) { out.push(item); continue; }
      const col = item.slice(0, eq).trim();
      out.push(col === '' ? item.slice(eq + 1) : [col, item.slice(eq + 1)]);
    }
    return out;
  }

  function recodeItems(text) {
    const out = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      const colon = line.indexOf(':');
      if (colon < 0) throw new E.InputError(`--recode: expected COLUMN:FROM=TO[,FROM=TO...], got '${line}'`);
      const col = line.slice(0, colon).trim();
      for (const part of line.slice(colon + 1).split(',')) {
        const eq = part.indexOf('=');
        if (eq < 0) throw new E.InputError(`--recode: expected COLUMN:FROM=TO[,FROM=TO...], got '${line}'`);
        out.push([col, part.slice(0, eq), part.slice(eq + 1)]);
      }
    }
    return out;
  }

  /** The options the controls say (only what differs from the defaults, so the
   * provenance's params resolve as the CLI's). */
  function chosenOpts() {
    const opts = {};
    for (const input of document.querySelectorAll('[data-opt]')) {
      const key = input.dataset.opt;
      if (input.value === '') continue;
      const v = Number(input.value);
      if (v !== OPT_DEFAULTS[key]) opts[key] = v;
    }
    const bands = $('opt-age_bands').value.trim();
    if (bands && bands !== '0,18,30,45,60,75') opts.age_bands = bands.split(',').map((s) => Number(s.trim()));
    if ($('opt-score_categoricals').checked) opts.score_categoricals = true;
    const na = naItems($('opt-na').value);
    if (na.length) opts.na = na;
    const recode = recodeItems($('opt-recode').value);
    if (recode.length) opts.recode = recode;
    const a = $('cross-a').value;
    const b = $('cross-b').value;
    if (a && b) opts.cross = [a, b];
    const label = $('label-col').value;
    if (label) {
      opts.label = label;
      const positive = $('label-positive').value.trim();
      if (positive) opts.positive = positive;
    }
    if (!$('opt-missing_by_group').checked) opts.missing_by_group = false;
    const delim = $('delimiter').value;
    if (delim) opts.delimiter = delim;
    return opts;
  }

  /** Labels counted beyond max_categorical for a column no keyword matched, so that a
   * few more missing tokens or recodes (each can remove one label, SPEC 1.1) or a
   * slightly higher max_categorical are answered from the summary. Counting more
   * labels never changes a result: analyze() tests the rewritten count. */
  const HEADROOM = 10;

  /** The options the file is read (counted) with. */
  function countingOpts(opts) {
    const o = Object.assign({}, opts);
    delete o.reference;
    o.max_categorical = (opts.max_categorical === undefined ? 20 : opts.max_categorical) + HEADROOM;
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
    const s = state.summary;
    const ro = new Map(state.readOverrides);
    const no = new Map(overrides);
    if ((opts.delimiter || '') !== (state.readOpts.delimiter || '')) return 'another delimiter changes how the file is split';
    // SPEC 17.2: the label's tables are counted while reading, and missing data by group
    // with the read's missing tokens and recodes (SPEC 1.1's one exception)
    const ro17 = state.readOpts;
    if ((opts.label || '') !== (ro17.label || '')) return 'the label column\'s rates are counted while reading';
    const mbg = (o) => o.missing_by_group !== false;
    if (mbg(opts) && !mbg(ro17)) return 'missing data by group is counted while reading';
    const same = (x, y) => JSON.stringify(x || []) === JSON.stringify(y || []);
    if (mbg(opts) && (!same(opts.na, ro17.na) || !same(opts.recode, ro17.recode))) {
      return 'missing data by group is counted with the missing tokens and recodes of the read';
    }
    const maxCat = (o) => (o.max_categorical === undefined ? 20 : o.max_categorical);
    for (let i = 0; i < s.columns.length; i++) {
      const col = s.columns[i];
      if (s.counts[i] !== null || (s.capped && s.capped[i])) continue;
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
    }
    return null;
  }

  function analysisOpts(opts) {
    const o = Object.assign({}, opts);
    if (state.reference) o.reference = state.reference.table;
    return o;
  }

  /** Re-run the analysis from the cached summary (no byte is read). */
  function reanalyze() {
    if (!state.summary) return;
    error('');
    let overrides;
    let opts;
    let result;
    try {
      overrides = chosenOverrides();
      opts = chosenOpts();
      const why0 = needsReread(overrides, opts, null);
      if (why0 !== null) return askReread(why0, overrides, opts);
      result = E.analyze(state.summary, overrides, analysisOpts(opts));
    } catch (e) {
      error(e.message);
      return;
    }
    const why = needsReread(overrides, opts, result);
    if (why !== null) return askReread(why, overrides, opts);
    $('reread').hidden = true;
    show(result, overrides, opts);
    notice(`Re-analysed from the counts already read (no byte read again): score ${result.overall_score === null ? 'not measured' : result.overall_score}, grade ${result.grade || 'none'}.`);
  }

  function askReread(why, overrides, opts) {
    $('reread').hidden = false;
    $('reread').dataset.why = why;
    notice(`This change needs the file to be read again: ${why}. Press "Read the file again".`);
    $('results').dataset.stale = 'true';
  }

  function show(result, overrides, opts) {
    state.result = result;
    state.shownOverrides = overrides;
    state.shownOpts = opts;
    const mount = $('results');
    mount.dataset.stale = 'false';
    mount.dataset.renders = String(Number(mount.dataset.renders || 0) + 1);
    mount.replaceChildren(V.renderProfile(result, { name: state.name }));
    mount.setAttribute('aria-busy', 'false');
  }

  function buildControls(columns, overrides) {
    const box = $('kinds');
    box.replaceChildren();
    const ov = new Map(overrides);
    for (const col of columns) {
      const id = 'kind-' + Math.random().toString(36).slice(2);
      const sel = V.h('select', { attrs: { id }, dataset: { column: col } });
      for (const k of ['auto', ...KINDS, 'ignore']) {
        const o = V.h('option', null, k === 'auto' ? 'auto (detected)' : k);
        o.value = k;
        sel.appendChild(o);
      }
      sel.value = ov.get(col) || 'auto';
      sel.addEventListener('change', reanalyze);
      const label = V.h('label', { attrs: { for: id } }, V.data(col));
      box.appendChild(V.h('div', { className: 'kind-row' }, label, sel));
    }
    for (const id of ['cross-a', 'cross-b', 'label-col']) {
      const sel = $(id);
      const keep = sel.value;
      sel.replaceChildren();
      const none = V.h('option', null, id === 'cross-a' ? 'default (first two dimensions)' : id === 'label-col' ? 'none' : '—');
      none.value = '';
      sel.appendChild(none);
      for (const col of columns) {
        const o = V.h('option', null, V.shown(col));
        o.value = col;
        sel.appendChild(o);
      }
      if (columns.includes(keep)) sel.value = keep;
    }
    $('controls').hidden = false;
  }

  /** Read state.blob with the current settings, then analyse and show. */
  async function readAndShow() {
    if (!state.blob) return;
    if (state.job) cancelJob(state.job);
    error('');
    let overrides;
    let opts;
    try {
      overrides = $('controls').hidden ? [] : chosenOverrides();
      opts = $('controls').hidden ? chosenOptsBeforeControls() : chosenOpts();
      E.resolveOptions(analysisOpts(opts)); // a bad option is said before any byte is read
    } catch (e) {
      error(e.message);
      return;
    }
    const t0 = performance.now();
    const job = { workers: [], rejects: [], cancelled: false, timings: {}, t0 };
    state.job = job;
    startProgress(state.blob.size);
    const onProgress = progressUpdater(state.blob.size, t0);
    $('reread').hidden = true;
    notice(workerUrl === null && workerWhyNot ? workerWhyNot : `Reading ${state.name} in your browser…`);
    let read;
    try {
      read = await readSummary(state.blob, state.name, overrides, countingOpts(opts), job, onProgress);
    } catch (e) {
      state.job = null;
      $('results').setAttribute('aria-busy', 'false');
      if (e.cancelled) { notice('Cancelled: nothing was read to the end.'); $('progress-box').dataset.state = 'cancelled'; return; }
      error(e.message);
      $('progress-box').hidden = true;
      return;
    }
    state.job = null;
    $('results').dataset.reads = String(Number($('results').dataset.reads || 0) + 1);
    onProgress(state.blob.size, read.summary.n_rows, read.parts);
    $('progress-box').dataset.state = 'done';
    const secs = (performance.now() - t0) / 1000;
    Object.assign(state, { summary: read.summary, hash: read.hash, readOverrides: overrides, readOpts: countingOpts(opts) });
    $('results').dataset.readSeconds = secs.toFixed(3);
    $('results').dataset.readParts = String(read.parts);
    if ($('controls').hidden || $('kinds').childElementCount !== read.summary.columns.length ||
        Array.from(document.querySelectorAll('#kinds select')).some((s, i) => s.dataset.column !== read.summary.columns[i])) {
      buildControls(read.summary.columns, overrides);
    }
    let result;
    await breathe();
    if (state.job !== null || state.summary !== read.summary) return; // another read began
    const ta = performance.now();
    try {
      result = E.analyze(read.summary, overrides, analysisOpts(opts));
    } catch (e) {
      error(e.message);
      return;
    }
    job.timings.analyze = performance.now() - ta;
    await breathe();
    if (state.job !== null || state.summary !== read.summary) return;
    const tr = performance.now();
    show(result, overrides, opts);
    job.timings.render = performance.now() - tr;
    $('results').dataset.timings = JSON.stringify(job.timings);
    const how = read.parts > 1 ? `${read.parts} workers` : read.parts === 1 ? 'a worker' : 'this page\'s thread';
    notice(`${state.name}: ${result.n_rows.toLocaleString('en-US')} rows read in ${secs.toFixed(2)} s on ${how}; score ${result.overall_score === null ? 'not measured' : result.overall_score}, grade ${result.grade || 'none'}.` +
      (read.parts === 0 && workerWhyNot ? ' ' + workerWhyNot : ''));
  }

  /** Before the first read the only setting is the delimiter. */
  function chosenOptsBeforeControls() {
    const delim = $('delimiter').value;
    return delim ? { delimiter: delim } : {};
  }

  function openBlob(blob, name) {
    state.blob = blob;
    state.name = name;
    state.summary = null;
    $('controls').hidden = true;
    $('kinds').replaceChildren();
    $('cross-a').value = '';
    $('cross-b').value = '';
    $('label-col').value = '';
    $('label-positive').value = '';
    readAndShow();
  }

  // ------------------------------------------------------------------------------
  // Export: the CLI's `--json` shape, with the section 10 provenance (engine "js")

  function exported() {
    const r = Object.assign({}, state.result);
    r.provenance = E.provenance({ opts: state.shownOpts, overrides: state.shownOverrides,
      hashes: { dataset_hash: state.hash }, referenceHash: state.reference ? state.referenceHash : undefined });
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
    return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta http-equiv="Content-Security-Policy" content="${csp}">\n<title>${esc(title)}</title>\n<style>${css}</style>\n</head>\n<body class="report">\n<main id="report"><p>This report needs JavaScript to draw its charts.</p></main>\n<script type="application/json" id="faircode-result">${payload}</script>\n<script>${views}</script>\n</body>\n</html>\n`;
  }

  // ------------------------------------------------------------------------------
  // Compare

  const compareState = { result: null };

  async function runCompare() {
    const fa = $('file-a').files[0];
    const fb = $('file-b').files[0];
    const say = (t) => { $('compare-notice').textContent = t; };
    if (!fa || !fb) { say('Choose two files, A and B.'); return; }
    let opts;
    try {
      opts = $('controls').hidden ? chosenOptsBeforeControls() : chosenOpts();
      delete opts.cross;
    } catch (e) { say(e.message); return; }
    const job = { workers: [], rejects: [], cancelled: false, timings: {}, t0: performance.now() };
    const results = [];
    const hashes = {};
    try {
      for (const [k, f] of [['a', fa], ['b', fb]]) {
        say(`Reading ${f.name}…`);
        const r = await readSummary(f, f.name, [], opts, job, () => {});
        results.push(E.analyze(r.summary, [], opts));
        hashes[`dataset_hash_${k}`] = r.hash;
      }
      const result = E.compare(results[0], results[1], opts);
      compareState.result = result;
      compareState.exported = Object.assign({}, result, { provenance: E.provenance({ opts, overrides: [], hashes }) });
      compareState.names = [fa.name, fb.name];
      $('compare-results').replaceChildren(V.renderCompare(result, { nameA: fa.name, nameB: fb.name }));
      $('compare-copy-json').disabled = false;
      $('compare-download-json').disabled = false;
      $('compare-download-report').disabled = false;
      say(`Compared ${fa.name} with ${fb.name}: ${result.dimensions.length} shared dimensions, ${result.flags.length} flags.`);
    } catch (e) {
      say(e.message);
    }
  }

  // ------------------------------------------------------------------------------
  // Reference

  async function setReference(bytes, name) {
    try {
      const table = E.parseReference(bytes, name);
      const h = E.createSha256();
      h.update(bytes);
      state.reference = { table, name };
      state.referenceHash = h.hex();
      reanalyze();
    } catch (e) {
      error(e.message);
    }
  }

  // ------------------------------------------------------------------------------
  // Wiring

  function wire() {
    $('file').addEventListener('change', () => {
      const f = $('file').files[0];
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
    $('delimiter').addEventListener('change', () => { if (state.summary) reanalyze(); });
    $('cancel').addEventListener('click', () => { if (state.job) cancelJob(state.job); });
    $('reread').addEventListener('click', readAndShow);
    for (const id of ['cross-a', 'cross-b', 'opt-score_categoricals', 'label-col', 'label-positive', 'opt-missing_by_group']) {
      $(id).addEventListener('change', reanalyze);
    }
    for (const el of document.querySelectorAll('[data-opt], #opt-age_bands, #opt-na, #opt-recode')) {
      el.addEventListener('change', reanalyze);
    }
    $('controls').addEventListener('submit', (ev) => { ev.preventDefault(); reanalyze(); });
    $('reference').addEventListener('change', async () => {
      const v = $('reference').value;
      $('reference-file').hidden = v !== 'upload';
      if (v === '') { state.reference = null; reanalyze(); return; }
      if (v === 'upload') { if ($('reference-file').files[0]) $('reference-file').dispatchEvent(new Event('change')); return; }
      try {
        const resp = await fetch(v);
        if (!resp.ok) throw new Error('HTTP ' + resp.status);
        await setReference(new Uint8Array(await resp.arrayBuffer()), v.replace(/^.*\/reference-|\.csv$/g, ''));
      } catch (e) {
        error(`The built-in baselines need the page served over http; here: ${e.message}. Upload the table instead.`);
      }
    });
    $('reference-file').addEventListener('change', async () => {
      const f = $('reference-file').files[0];
      if (f) await setReference(new Uint8Array(await f.arrayBuffer()), f.name);
    });
    $('copy-json').addEventListener('click', () => copyText(JSON.stringify(exported(), null, 2), notice));
    $('download-json').addEventListener('click', () => download(baseName(state.name) + '.faircode.json', JSON.stringify(exported(), null, 2) + '\n', 'application/json'));
    $('download-report').addEventListener('click', async () => {
      try {
        download(baseName(state.name) + '.faircode.html', await reportHtml('profile', state.result, { name: state.name }), 'text/html');
      } catch (e) { error(e.message); }
    });
    $('run-compare').addEventListener('click', runCompare);
    $('compare-copy-json').addEventListener('click', () => copyText(JSON.stringify(compareState.exported, null, 2), (t) => { $('compare-notice').textContent = t; }));
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
  }

  // Exposed for tests and the console: the current state (read-only use).
  window.faircodePage = { state, compareState, reanalyze, readAndShow, workersReady };
  wire();
})();
