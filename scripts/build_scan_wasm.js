#!/usr/bin/env node
/*
 * Assemble assets/scan.wat (the engine's SIMD field scan) and write its bytes into
 * assets/profiler-engine.js, between the SCAN_WASM markers, so the engine stays one
 * dependency-free file. `--check` only compares them (exit 1 if the engine's bytes are
 * not the text's). Needs the wabt package (a devDependency of package.json: npm install).
 */
'use strict';
const fs = require('fs');
const path = require('path');

// --root DIR: another tree's assets/ (tests/engine/test_scan_wasm.py checks a changed copy)
const at = process.argv.indexOf('--root');
const ROOT = at > 0 ? process.argv[at + 1] : path.join(__dirname, '..');
const ENGINE = path.join(ROOT, 'assets', 'profiler-engine.js');
const BEGIN = '// SCAN_WASM begin (scripts/build_scan_wasm.js writes these lines)';
const END = '// SCAN_WASM end';

function literal(bytes) {
  const lines = [];
  for (let k = 0; k < bytes.length; k += 24) lines.push('    ' + Array.from(bytes.subarray(k, k + 24)).join(', ') + ',');
  return `  const SCAN_WASM = new Uint8Array([\n${lines.join('\n')}\n  ]);`;
}

(async () => {
  const wabt = await require('wabt')();
  const src = fs.readFileSync(path.join(ROOT, 'assets', 'scan.wat'), 'utf8');
  const mod = wabt.parseWat('scan.wat', src, { simd: true });
  const bytes = new Uint8Array(mod.toBinary({}).buffer);
  const engine = fs.readFileSync(ENGINE, 'utf8');
  const a = engine.indexOf(BEGIN);
  const b = engine.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${ENGINE}: no SCAN_WASM markers`);
  const block = `${BEGIN}\n${literal(bytes)}\n  `;
  const now = engine.slice(a, b);
  if (process.argv.includes('--check')) {
    if (now !== block) {
      console.error('assets/profiler-engine.js: SCAN_WASM is not assets/scan.wat assembled; run node scripts/build_scan_wasm.js');
      process.exit(1);
    }
    console.log(`SCAN_WASM is assets/scan.wat assembled (${bytes.length} bytes)`);
    return;
  }
  fs.writeFileSync(ENGINE, engine.slice(0, a) + block + engine.slice(b));
  console.log(`wrote SCAN_WASM (${bytes.length} bytes)`);
})();
