#!/usr/bin/env node
/*
 * The JS engine's field scan: WebAssembly SIMD against its byte loop (issue 33).
 *
 *   node benchmarks/scan_simd.js FILE [--rounds N] [--delim ,]
 *
 * FILE is read into memory once; then, interleaved for N rounds (default 5), in 1 MiB
 * chunks as the engine's readers push them:
 *   engine-loop  the whole engine (createProfiler, push, finish) with `simd: false`: its
 *                byte loop finds the ends of fields
 *   engine-simd  the same with the SIMD scan (assets/scan.wat), as Node and the site run it
 *   wasm-scan    the scan alone: each chunk copied into WebAssembly memory and scanned
 *                sixteen bytes a step for the delimiter, '"', LF and CR
 *                (assets/scan.wat, the engine's module, assembled with the `wabt` package)
 *   wasm+walk    the same, then a JS loop over the offsets
 * Checked first (exit 1 if not): both engines give the same result, and wasm-scan finds
 * as many stop bytes as a count of those four bytes. Printed: each tool's median
 * milliseconds and MB/s, and engine-simd / engine-loop. Needs wabt (a devDependency of
 * the root package.json: `npm install`).
 */
'use strict';
const fs = require('fs');
const path = require('path');

const CHUNK = 1 << 20;

function args(argv) {
  const out = { file: null, rounds: 5, delim: ',' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rounds') out.rounds = Number(argv[++i]);
    else if (argv[i] === '--delim') out.delim = argv[++i];
    else out.file = argv[i];
  }
  if (!out.file || !(out.rounds >= 1) || out.delim.length !== 1) {
    console.error('usage: node benchmarks/scan_simd.js FILE [--rounds N] [--delim ,]');
    process.exit(2);
  }
  return out;
}

async function wasmScanner() {
  let wabt;
  try {
    wabt = await require('wabt')();
  } catch (e) {
    console.error('scan_simd.js needs the wabt package: npm install (in the repository root)');
    process.exit(2);
  }
  // the engine's own module, from its text (the engine embeds it and does not export it)
  const src = fs.readFileSync(path.join(__dirname, '..', 'assets', 'scan.wat'), 'utf8');
  const mod = wabt.parseWat('scan.wat', src, { simd: true });
  const { instance } = await WebAssembly.instantiate(mod.toBinary({}).buffer);
  return instance.exports;
}

function main() {
  const opt = args(process.argv.slice(2));
  const data = fs.readFileSync(opt.file);
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.length);
  const D = opt.delim.charCodeAt(0);
  const E = require(path.join(__dirname, '..', 'assets', 'profiler-engine.js'));
  return wasmScanner().then(({ scan, mem }) => {
    const heap = new Uint8Array(mem.buffer);
    const found = new Int32Array(mem.buffer, CHUNK, CHUNK); // offsets written by scan
    const stop = new Uint8Array(256);
    stop[D] = stop[34] = stop[10] = stop[13] = 1;
    const chunks = [];
    for (let pos = 0; pos < bytes.length; pos += CHUNK) chunks.push(bytes.subarray(pos, Math.min(bytes.length, pos + CHUNK)));

    function wasmScan(check, walk) {
      let total = 0;
      let s = 0;
      for (const b of chunks) {
        heap.set(b, 0);
        const k = scan(b.length, D, 0); // offsets from memory[CHUNK] on (scan.wat)
        if (walk) {
          let prev = 0;
          for (let i = 0; i < k; i++) { const p = found[i]; s += p - prev; prev = p + 1; }
        }
        if (check) check.push(found.slice(0, k));
        total += k;
      }
      return total + (s < 0 ? 1 : 0);
    }

    function engine(simd) {
      const p = E.createProfiler({ name: path.basename(opt.file), simd });
      for (const b of chunks) p.push(b);
      return p.finish();
    }

    let stops = 0; // the four bytes counted one by one
    for (let k = 0; k < bytes.length; k++) stops += stop[bytes[k]];
    const lists = [];
    wasmScan(lists, false);
    const scanned = lists.reduce((n, x) => n + x.length, 0);
    const same = JSON.stringify(E.analyze(engine(true), [], {})) === JSON.stringify(E.analyze(engine(false), [], {}));
    if (scanned !== stops || !same) {
      console.error(scanned !== stops ? `wasm-scan found ${scanned} stop bytes, not ${stops}` : 'engine-simd and engine-loop differ');
      process.exit(1);
    }
    const tools = [
      ['engine-loop', () => engine(false)],
      ['engine-simd', () => engine(true)],
      ['wasm-scan', () => wasmScan(null, false)],
      ['wasm+walk', () => wasmScan(null, true)],
    ];
    const times = Object.fromEntries(tools.map(([name]) => [name, []]));
    for (let r = 0; r < opt.rounds; r++) {
      for (const [name, fn] of tools) {
        const t = performance.now();
        fn();
        times[name].push(performance.now() - t);
      }
    }
    const median = (v) => { const s = v.slice().sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
    const mb = bytes.length / 1e6;
    console.log(`${path.basename(opt.file)}: ${mb.toFixed(1)} MB, ${stops.toLocaleString('en-US')} stop bytes, found by wasm-scan; engine-simd's result is engine-loop's; ${opt.rounds} interleaved rounds, Node ${process.version}`);
    console.log('| tool | median ms | MB/s | rounds (ms) |');
    console.log('|---|---:|---:|---|');
    for (const [name] of tools) {
      const m = median(times[name]);
      console.log(`| ${name} | ${m.toFixed(0)} | ${(mb / (m / 1000)).toFixed(0)} | ${times[name].map((x) => x.toFixed(0)).join(', ')} |`);
    }
    const loop = median(times['engine-loop']);
    console.log(`engine-simd / engine-loop: ${(median(times['engine-simd']) / loop).toFixed(3)}; wasm-scan is ${(100 * median(times['wasm-scan']) / loop).toFixed(0)}% of engine-loop's time`);
  });
}

main();
