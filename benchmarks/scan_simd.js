#!/usr/bin/env node
/*
 * What a WebAssembly SIMD scan would save the JS engine (issue 33: the website's counting).
 *
 *   node benchmarks/scan_simd.js FILE [--rounds N] [--delim ,]
 *
 * FILE is read into memory once; then, interleaved for N rounds (default 5), in 1 MiB
 * chunks as the engine's readers push them:
 *   js-scan      the engine's unquoted-field loop (CsvScanner.parse: eight bytes a
 *                step, a stop table) run over every byte, writing the offset of each
 *                stop byte (the delimiter, '"', LF, CR): the scan alone, no fields
 *   wasm-scan    each chunk copied into WebAssembly memory and scanned sixteen bytes a
 *                step (benchmarks/scan_simd.wat, assembled with the `wabt` package)
 *   wasm+walk    the same, then a JS loop over the offsets (what a parse driven by
 *                them would at least do)
 *   engine       the whole engine: createProfiler, push, finish (the counting the site's
 *                workers do)
 * The offsets of wasm-scan are checked equal to js-scan's in the first round (exit 1 if
 * not). Printed: each tool's median milliseconds and MB/s, and the scan's share of the
 * engine's time. Needs wabt (a devDependency of the root package.json: `npm install`).
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
  const src = fs.readFileSync(path.join(__dirname, 'scan_simd.wat'), 'utf8');
  const mod = wabt.parseWat('scan_simd.wat', src, { simd: true });
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
    const offsets = new Int32Array(CHUNK);
    const stop = new Uint8Array(256);
    stop[D] = stop[34] = stop[10] = stop[13] = 1;
    const hi = Math.max(D, 34);
    // per chunk: how many stop bytes and a sum of their offsets (checked across tools)
    const chunks = [];
    for (let pos = 0; pos < bytes.length; pos += CHUNK) chunks.push(bytes.subarray(pos, Math.min(bytes.length, pos + CHUNK)));

    function jsScan(check) {
      let total = 0;
      for (const b of chunks) {
        const n = b.length;
        let k = 0;
        let j = 0;
        for (;;) {
          let c = 0;
          for (;;) {
            if (j + 8 <= n) {
              c = b[j]; if (c <= hi && stop[c] !== 0) break;
              c = b[j + 1]; if (c <= hi && stop[c] !== 0) { j += 1; break; }
              c = b[j + 2]; if (c <= hi && stop[c] !== 0) { j += 2; break; }
              c = b[j + 3]; if (c <= hi && stop[c] !== 0) { j += 3; break; }
              c = b[j + 4]; if (c <= hi && stop[c] !== 0) { j += 4; break; }
              c = b[j + 5]; if (c <= hi && stop[c] !== 0) { j += 5; break; }
              c = b[j + 6]; if (c <= hi && stop[c] !== 0) { j += 6; break; }
              c = b[j + 7]; if (c <= hi && stop[c] !== 0) { j += 7; break; }
              j += 8;
            } else {
              while (j < n) { c = b[j]; if (c <= hi && stop[c] !== 0) break; j++; }
              break;
            }
          }
          if (j >= n) break;
          offsets[k++] = j;
          j++;
        }
        if (check) check.push(offsets.slice(0, k));
        total += k;
      }
      return total;
    }

    function wasmScan(check, walk) {
      let total = 0;
      let s = 0;
      for (const b of chunks) {
        heap.set(b, 0);
        const k = scan(0, b.length, D, CHUNK);
        if (walk) {
          let prev = 0;
          for (let i = 0; i < k; i++) { const p = found[i]; s += p - prev; prev = p + 1; }
        }
        if (check) check.push(found.slice(0, k));
        total += k;
      }
      return total + (s < 0 ? 1 : 0);
    }

    function engine() {
      const p = E.createProfiler({ name: path.basename(opt.file) });
      for (const b of chunks) p.push(b);
      return p.finish().n_rows;
    }

    const a = [];
    const b = [];
    jsScan(a);
    wasmScan(b, false);
    const same = a.length === b.length && a.every((x, i) => x.length === b[i].length && x.every((v, j) => v === b[i][j]));
    if (!same) {
      console.error('wasm-scan and js-scan found different stop bytes');
      process.exit(1);
    }
    const stops = a.reduce((n, x) => n + x.length, 0);
    const tools = [
      ['js-scan', () => jsScan(null)],
      ['wasm-scan', () => wasmScan(null, false)],
      ['wasm+walk', () => wasmScan(null, true)],
      ['engine', engine],
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
    console.log(`${path.basename(opt.file)}: ${mb.toFixed(1)} MB, ${stops.toLocaleString('en-US')} stop bytes; wasm-scan's offsets equal js-scan's; ${opt.rounds} interleaved rounds, Node ${process.version}`);
    console.log('| tool | median ms | MB/s | rounds (ms) |');
    console.log('|---|---:|---:|---|');
    for (const [name] of tools) {
      const m = median(times[name]);
      console.log(`| ${name} | ${m.toFixed(0)} | ${(mb / (m / 1000)).toFixed(0)} | ${times[name].map((x) => x.toFixed(0)).join(', ')} |`);
    }
    const eng = median(times.engine);
    const js = median(times['js-scan']);
    const walk = median(times['wasm+walk']);
    console.log(`js-scan is ${(100 * js / eng).toFixed(0)}% of the engine's time; wasm+walk in its place would save ${(100 * (js - walk) / eng).toFixed(0)}% (wasm-scan / js-scan ${(median(times['wasm-scan']) / js).toFixed(2)})`);
  });
}

main();
