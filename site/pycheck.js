/*
 * "Check with the Python engine" (SPEC 14.1): after a profile, the Python engine
 * (faircode's own Python code, on Pyodide, in a worker: site/pycheck-worker.mjs)
 * reads the same bytes with the same settings, and the page compares its exported JSON
 * with Python's (provenance.engine aside): "identical", or the first difference, its
 * JSON path and both values.
 *
 * Nothing of Pyodide is fetched until the button is pressed; then about 14 MB
 * uncompressed (8 MB gzipped) come from this site's own pyodide/ folder, which
 * scripts/build_site.py builds (the site's sources, site/, have none: served from
 * there, the button says how to build it). On file:// it says why it is unavailable.
 * Uses what app.js exposes as window.faircodePage (state, exported, exportReady).
 */
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const page = window.faircodePage;
  const MANIFEST = 'pyodide/site-build.json';
  const BUILD_HINT = 'build the site with `python scripts/build_site.py` and serve its output ' +
    '(`faircode serve --site build/site`)';

  let worker = null; // kept between checks: Pyodide loads once per page
  let running = null; // {reject} of the check under way

  /** The first place where a and b differ, as {path, a, b}, or null when equal (JSON
   * values: objects compared key by key, a's keys first, then keys only b has). */
  function firstDifference(a, b, path) {
    if (a === b) return null;
    const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
    if (kind(a) !== kind(b) || (kind(a) !== 'object' && kind(a) !== 'array')) {
      return { path, a, b };
    }
    if (kind(a) === 'array') {
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        const d = firstDifference(a[i], b[i], `${path}[${i}]`);
        if (d) return d;
      }
      if (a.length !== b.length) {
        const i = Math.min(a.length, b.length);
        return { path: `${path}[${i}]`, a: i < a.length ? a[i] : undefined, b: i < b.length ? b[i] : undefined };
      }
      return null;
    }
    const key = (k) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
    for (const k of Object.keys(a)) {
      if (!Object.prototype.hasOwnProperty.call(b, k)) return { path: key(k), a: a[k], b: undefined };
      const d = firstDifference(a[k], b[k], key(k));
      if (d) return d;
    }
    for (const k of Object.keys(b)) {
      if (!Object.prototype.hasOwnProperty.call(a, k)) return { path: key(k), a: undefined, b: b[k] };
    }
    return null;
  }

  /** A value as the result line shows it: JSON, cut at 200 characters. */
  function shown(v) {
    if (v === undefined) return '(absent)';
    const t = JSON.stringify(v);
    return t.length > 200 ? t.slice(0, 200) + '…' : t;
  }

  function withoutEngine(r) {
    const c = JSON.parse(JSON.stringify(r));
    if (c.provenance) delete c.provenance.engine;
    return c;
  }

  function box() { return $('py-check-box'); }

  function say(text, verdict) {
    const out = $('py-check-result');
    out.textContent = text;
    if (verdict) out.dataset.verdict = verdict;
    else delete out.dataset.verdict;
  }

  function progress(done, total) {
    const bar = $('py-check-progress');
    bar.max = total || 1;
    bar.value = Math.min(done, total || 1);
    $('py-check-progress-text').textContent = `${(done / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`;
  }

  function busy(on) {
    $('py-check').disabled = on || !page.exportReady();
    $('py-check-cancel').hidden = !on;
    $('py-check-progress').hidden = !on;
    $('py-check-progress-text').hidden = !on;
    box().setAttribute('aria-busy', on ? 'true' : 'false');
  }

  function cancel() {
    if (worker) { worker.terminate(); worker = null; } // the next check loads again
    if (running) running.reject(Object.assign(new Error('cancelled'), { cancelled: true }));
  }

  /** Ask the worker (started when first needed) to run the check; resolves its answer. */
  function ask(msg) {
    if (worker === null) {
      worker = new Worker('pycheck-worker.mjs', { type: 'module' });
    }
    const w = worker;
    return new Promise((resolve, reject) => {
      running = { reject };
      w.onmessage = (ev) => {
        const m = ev.data;
        if (m.progress !== undefined) progress(m.progress, m.total);
        else if (m.stage !== undefined) say(m.stage);
        else resolve(m);
      };
      w.onerror = (ev) => {
        ev.preventDefault();
        reject(new Error(ev.message || 'the worker could not start'));
      };
      w.postMessage(msg);
    });
  }

  async function check() {
    if (location.protocol === 'file:') {
      say('The Python engine check is unavailable on a file:// page: the browser loads ' +
        'no module worker or WebAssembly from files. Serve the site instead: ' + BUILD_HINT + '.', 'unavailable');
      return;
    }
    if (!page.exportReady()) return;
    const st = page.state;
    const mine = withoutEngine(page.exported()); // what the page exports, now
    const request = { name: st.name, opts: st.shownOpts, overrides: st.shownOverrides,
      reference_name: st.reference ? st.reference.name : null };
    const reference = st.reference ? st.reference.bytes : null;
    const file = st.readBlob;
    busy(true);
    say('Looking for the Python engine on this site…');
    try {
      let manifest;
      try {
        const resp = await fetch(MANIFEST, { cache: 'no-store' });
        if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
        manifest = await resp.json();
      } catch (e) {
        say(`This copy of the site has no Python engine (${MANIFEST}: ${e.message}): ${BUILD_HINT}.`, 'unavailable');
        return;
      }
      progress(0, manifest.fetched_bytes);
      const answer = await ask({ op: 'check', file, request, reference, total: manifest.fetched_bytes });
      if (answer.error !== undefined) {
        say(`Python: ${answer.error}`, 'error');
        return;
      }
      if (st.readBlob !== file) { say('Another file was read meanwhile: press the button again.'); return; }
      const theirs = withoutEngine(JSON.parse(answer.json));
      const d = firstDifference(mine, theirs, '$');
      if (d === null) {
        say(`Identical: the Python engine (CPython ${manifest.python} on Pyodide ${manifest.pyodide}, ` +
          `faircode ${theirs.provenance.faircode_version}) gives this page's JSON exactly (provenance.engine aside).`, 'identical');
      } else {
        say(`Different at ${d.path}: this page ${shown(d.a)}, Python ${shown(d.b)}.`, 'different');
        $('py-check-result').dataset.path = d.path;
      }
    } catch (e) {
      if (e.cancelled) say('Cancelled: the Python engine was stopped.', 'cancelled');
      else say(`The Python engine could not run: ${e.message}`, 'error');
    } finally {
      running = null;
      busy(false);
    }
  }

  function build() {
    const tools = $('result-tools');
    if (!tools || !page) return;
    const button = document.createElement('button');
    button.type = 'button';
    button.id = 'py-check';
    // (on a phone "Python ✓", so that it fits beside Download report and Settings:
    // style.css hides the long words; its name stays the long one)
    button.innerHTML = '<span class="py-check-long">Check with the </span>Python' +
      '<span class="py-check-long"> engine</span><span class="py-check-short"> \u2713</span>';
    button.setAttribute('aria-label', 'Check with the Python engine');
    button.title = 'Loads Python (Pyodide, about 8 MB gzipped) from this site and runs ' +
      'faircode\'s Python engine on the same bytes: the JSON must be identical.';
    tools.insertBefore(button, $('to-settings'));
    const area = document.createElement('div');
    area.id = 'py-check-box';
    area.className = 'py-check';
    area.innerHTML = '<progress id="py-check-progress" max="1" value="0" aria-label="loading the Python engine" hidden></progress> ' +
      '<span id="py-check-progress-text" hidden></span> ' +
      '<button type="button" id="py-check-cancel" hidden>Cancel</button> ' +
      '<span id="py-check-result" role="status" aria-live="polite"></span>';
    tools.insertAdjacentElement('afterend', area);
    button.addEventListener('click', check);
    $('py-check-cancel').addEventListener('click', cancel);
    // enabled once the shown result can be exported (its SHA-256 known); a new result
    // clears the last check's verdict
    const results = $('results');
    let renders = results.dataset.renders;
    const update = () => {
      if (results.dataset.renders !== renders) {
        renders = results.dataset.renders;
        if (!running) say('');
      }
      if (!running) $('py-check').disabled = !page.exportReady();
    };
    new MutationObserver(update).observe(results, { attributes: true, attributeFilter: ['data-renders', 'data-hash'] });
    update();
  }

  build();
})();
