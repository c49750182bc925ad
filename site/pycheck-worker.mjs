/*
 * The Python engine in a worker (SPEC 14.1): Pyodide (CPython compiled to WebAssembly)
 * and faircode's wheel, loaded from this site's own pyodide/ folder (built by
 * scripts/build_site.py), then faircode.pagecheck run on the bytes the page read.
 * A module worker: Pyodide 314 ships its loader as ES modules only.
 *
 * Messages in:  {op: 'check', file: Blob, request: {name, opts, overrides,
 *                reference_name}, reference: Uint8Array | null}
 * Messages out: {progress: bytes fetched, total}, {stage: text},
 *               {json: the CLI's --json text} or {error: one line}.
 * Nothing is fetched from another origin: every request is checked here too (the
 * site's policy already says connect-src 'self').
 */
import { loadPyodide } from './pyodide/pyodide.mjs';

const BASE = new URL('./pyodide/', import.meta.url).href;
let engine = null; // the loaded Pyodide, kept for the next check

/** fetch, counting the bytes of every response as they arrive (the progress bar). */
function countingFetch(onBytes) {
  const real = self.fetch.bind(self);
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), self.location.href);
    if (url.origin !== self.location.origin) {
      throw new Error(`the Python engine fetches nothing from another host (${url.origin})`);
    }
    const resp = await real(input, init);
    if (!resp.body) return resp;
    const reader = resp.body.getReader();
    const stream = new ReadableStream({
      async pull(controller) {
        const r = await reader.read();
        if (r.done) { controller.close(); return; }
        onBytes(r.value.byteLength);
        controller.enqueue(r.value);
      },
      cancel(reason) { return reader.cancel(reason); },
    });
    // the same status and headers (Content-Type: application/wasm for streaming compile)
    return new Response(stream, { status: resp.status, statusText: resp.statusText, headers: resp.headers });
  };
}

async function load(total) {
  let fetched = 0;
  let told = 0;
  self.fetch = countingFetch((n) => {
    fetched += n;
    if (fetched - told >= (256 << 10) || fetched >= total) {
      told = fetched;
      self.postMessage({ progress: fetched, total });
    }
  });
  self.postMessage({ stage: 'Loading Python (Pyodide) from this site…' });
  const py = await loadPyodide({
    indexURL: BASE,
    packageBaseUrl: BASE, // (else Pyodide's default for packages it does not know is a CDN)
    stdout: () => {},
    stderr: () => {},
  });
  self.postMessage({ stage: 'Loading faircode (its wheel, from this site)…' });
  const failed = [];
  await py.loadPackage('faircode', { messageCallback: () => {}, errorCallback: (m) => failed.push(m) });
  if (failed.length) throw new Error(failed.join('; '));
  self.postMessage({ progress: total, total });
  return py;
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (engine === null) engine = await load(msg.total);
    self.postMessage({ stage: 'Running the Python engine on the same bytes…' });
    const bytes = new Uint8Array(await msg.file.arrayBuffer());
    const check = engine.pyimport('faircode.pagecheck');
    const answer = check.run(JSON.stringify(msg.request), bytes, msg.reference || undefined); // (undefined: None)
    check.destroy();
    self.postMessage(JSON.parse(answer));
  } catch (e) {
    self.postMessage({ error: `the Python engine could not run: ${e && e.message ? e.message : e}` });
  }
};
