'use strict';
// The engine must run unchanged as a classic page script, inside a Web Worker
// (importScripts) and under Node. Node has no browser here, so the first two are
// emulated: a bare vm context with only `self` (no module, require or process), and a
// worker thread whose global scope gets `self` and `importScripts` like a Worker's.

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { Worker } = require('worker_threads');

const ENGINE = path.join(__dirname, '..', '..', 'assets', 'profiler-engine.js');
const SOURCE = fs.readFileSync(ENGINE, 'utf8');
const Engine = require(ENGINE);
const CSV = 'sex;race;age\r\n👩;A;34\r\nM;"B\nC";71\r\nF;A;[70-80)\r\nM;A;\r\n';

function viaRequire() {
  return Engine.profileBytes(new TextEncoder().encode(CSV), 't.csv', {}, {});
}

test('classic script: defines a global FaircodeEngine in a bare context', () => {
  const sandbox = { Uint8Array, Map, Set, Math, JSON, Number, String, Array, Object, Error,
    RangeError, TypeError, Float64Array, Int32Array, Uint32Array, Int8Array, Uint16Array,
    Int16Array, ArrayBuffer, DataView, BigInt, Symbol };
  sandbox.self = sandbox;
  const ctx = vm.createContext(sandbox);
  vm.runInContext(SOURCE, ctx, { filename: 'profiler-engine.js' });
  assert.equal(typeof ctx.FaircodeEngine, 'object');
  assert.equal(ctx.module, undefined);
  const bytes = new ctx.Uint8Array(Buffer.from(CSV));
  const result = ctx.FaircodeEngine.profileBytes(bytes, 't.csv', {}, {});
  assert.deepEqual(JSON.parse(JSON.stringify(result)), JSON.parse(JSON.stringify(viaRequire())));
});

test('Web Worker style: importScripts in a worker thread, streaming pushes', async () => {
  const code = `
    const { parentPort, workerData } = require('worker_threads');
    const fs = require('fs');
    const vm = require('vm');
    globalThis.self = globalThis;
    // A Worker has no CommonJS globals; node's eval worker defines them on globalThis.
    for (const name of ['module', 'exports', 'require']) delete globalThis[name];
    globalThis.importScripts = (p) => vm.runInThisContext(fs.readFileSync(p, 'utf8'));
    // From here on the code is what a page's worker would run.
    importScripts(workerData.engine);
    const p = self.FaircodeEngine.createProfiler({ name: 't.csv' });
    const bytes = new TextEncoder().encode(workerData.csv);
    for (let i = 0; i < bytes.length; i += 3) p.push(bytes.subarray(i, i + 3));
    parentPort.postMessage(self.FaircodeEngine.analyze(p.finish(), {}, {}));
  `;
  const result = await new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { engine: ENGINE, csv: CSV } });
    w.once('message', resolve);
    w.once('error', reject);
  });
  assert.deepEqual(result, JSON.parse(JSON.stringify(viaRequire())));
  assert.deepEqual(result.dimensions[0].groups.map((g) => g.label), ['M', 'F', '👩']);
});
