#!/usr/bin/env node
'use strict';
// The JS engine's streaming SHA-256 (createSha256 in assets/profiler-engine.js) against
// node:crypto (OpenSSL, SHA-NI where the CPU has it) and against the engine's previous
// implementation, frozen below. One fixed pseudo-random buffer, fed in 4 MiB chunks as
// the website's hash worker and scripts/engine-js.js feed it; the three are interleaved
// round by round so that the shared machine's load hits them alike, and the medians and
// their ratios are what to read. MB = 10^6 bytes.
//
// A second part hashes smaller inputs in fresh node processes (old and new interleaved),
// where the time includes the JIT's warm-up: the unrolled function is large, so its first
// optimised compile takes a while, and for small inputs that is most of the time.
//
//   node benchmarks/sha256.js [--mib 256] [--rounds 5] [--fresh-rounds 3] [--json]
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const os = require('node:os');
const path = require('node:path');

const Engine = require(path.join(__dirname, '..', 'assets', 'profiler-engine.js'));

// ---------------------------------------------------------------------------------
// The old version (assets/profiler-engine.js before the unrolled rewrite), kept here
// unchanged as the baseline: one compress() call per block, a 64-word Uint32Array
// schedule, the state in a Uint32Array, a loop over the 64 rounds.
// ---------------------------------------------------------------------------------

const OLD_K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
  0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
  0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
  0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
  0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
  0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
  0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

function oldCreateSha256() {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const block = new Uint8Array(64);
  let used = 0; // bytes waiting in block
  let total = 0; // bytes hashed so far (a double: exact up to 2^53)

  function compress(buf, off) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      w[i] = (buf[j] << 24) | (buf[j + 1] << 16) | (buf[j + 2] << 8) | buf[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h[0]; let b = h[1]; let c = h[2]; let d = h[3];
    let e = h[4]; let f = h[5]; let g = h[6]; let k = h[7];
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (k + S1 + ch + OLD_K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0;
      d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    h[4] += e; h[5] += f; h[6] += g; h[7] += k;
  }

  function update(bytes) {
    let i = 0;
    total += bytes.length;
    if (used > 0) {
      const take = Math.min(64 - used, bytes.length);
      block.set(bytes.subarray(0, take), used);
      used += take;
      i = take;
      if (used < 64) return;
      compress(block, 0);
      used = 0;
    }
    for (; i + 64 <= bytes.length; i += 64) compress(bytes, i);
    if (i < bytes.length) {
      block.set(bytes.subarray(i), 0);
      used = bytes.length - i;
    }
  }

  function hex() {
    const bits = total * 8;
    const pad = new Uint8Array(((used < 56 ? 56 : 120) - used) + 8);
    pad[0] = 0x80;
    const hi = Math.floor(bits / 4294967296);
    const lo = bits >>> 0;
    const n = pad.length;
    pad[n - 8] = hi >>> 24; pad[n - 7] = (hi >>> 16) & 255; pad[n - 6] = (hi >>> 8) & 255;
    pad[n - 5] = hi & 255; pad[n - 4] = lo >>> 24; pad[n - 3] = (lo >>> 16) & 255;
    pad[n - 2] = (lo >>> 8) & 255; pad[n - 1] = lo & 255;
    const saved = total;
    update(pad);
    total = saved;
    let out = '';
    for (let i = 0; i < 8; i++) out += (h[i] >>> 0).toString(16).padStart(8, '0');
    return 'sha256:' + out;
  }

  return { update, hex };
}

// ---------------------------------------------------------------------------------

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const MIB = arg('--mib', 256);
const ROUNDS = arg('--rounds', 5);
const CHUNK = 4 << 20;
const FRESH_ROUNDS = arg('--fresh-rounds', 3);
const FRESH_MIB = [1, 4, 16, 64];
const JSON_OUT = process.argv.includes('--json');

/** Fixed pseudo-random bytes (xorshift32 from a constant seed): every run hashes the same. */
function fixedBytes(n) {
  const out = new Uint8Array(n);
  const words = new Int32Array(out.buffer, 0, n >> 2);
  let s = 0x2545f491;
  for (let i = 0; i < words.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    words[i] = s;
  }
  return out;
}

const tools = {
  engine: (buf) => {
    const h = Engine.createSha256();
    for (let i = 0; i < buf.length; i += CHUNK) h.update(buf.subarray(i, i + CHUNK));
    return h.hex();
  },
  old: (buf) => {
    const h = oldCreateSha256();
    for (let i = 0; i < buf.length; i += CHUNK) h.update(buf.subarray(i, i + CHUNK));
    return h.hex();
  },
  crypto: (buf) => {
    const h = crypto.createHash('sha256');
    for (let i = 0; i < buf.length; i += CHUNK) h.update(buf.subarray(i, i + CHUNK));
    return 'sha256:' + h.digest('hex');
  },
};

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** In a child process: hash `bytes` fixed bytes with one tool, print milliseconds. */
function child(tool, bytes) {
  const buf = fixedBytes(bytes);
  const t0 = process.hrtime.bigint();
  const digest = tools[tool](buf);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(JSON.stringify({ ms, digest }));
}

/** Median milliseconds to hash each size in a fresh process (JIT warm-up included). */
function fresh() {
  const out = {};
  for (const mib of FRESH_MIB) {
    const ms = { engine: [], old: [] };
    let want = null;
    for (let r = 0; r < FRESH_ROUNDS; r++) {
      for (const tool of r % 2 ? ['old', 'engine'] : ['engine', 'old']) {
        const run = spawnSync(process.execPath, [__filename, '--child', tool, String(mib * 1048576)],
          { encoding: 'utf8' });
        if (run.status !== 0) throw new Error(`child ${tool} ${mib} MiB failed: ${run.stderr}`);
        const got = JSON.parse(run.stdout);
        want ??= got.digest;
        if (got.digest !== want) throw new Error(`${tool} gave ${got.digest} for ${mib} MiB`);
        ms[tool].push(got.ms);
      }
    }
    out[`${mib} MiB`] = { engine_ms: median(ms.engine), old_ms: median(ms.old), runs_ms: ms };
  }
  return out;
}

function main() {
  const c = process.argv.indexOf('--child');
  if (c >= 0) return child(process.argv[c + 1], Number(process.argv[c + 2]));
  const buf = fixedBytes(MIB * 1048576);
  const mb = buf.length / 1e6;
  const load = os.loadavg();
  const wall = { engine: [], old: [], crypto: [] };
  const cpu = { engine: [], old: [], crypto: [] };
  let want = null;
  for (let r = 0; r < ROUNDS; r++) {
    // alternate the order, so that neither tool always runs right after the other
    const order = r % 2 ? ['crypto', 'old', 'engine'] : ['engine', 'old', 'crypto'];
    for (const name of order) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const got = tools[name](buf);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const c = process.cpuUsage(c0);
      want ??= got;
      if (got !== want) throw new Error(`${name} gave ${got}, expected ${want}`);
      wall[name].push(mb / seconds);
      cpu[name].push(mb / ((c.user + c.system) / 1e6));
    }
  }
  const med = (t) => ({ wall: median(wall[t]), cpu: median(cpu[t]) });
  const report = {
    bytes: buf.length,
    chunk: CHUNK,
    rounds: ROUNDS,
    digest: want,
    node: process.version,
    cpu: `${os.cpus().length} x ${os.cpus()[0].model}`,
    load_before: load,
    load_after: os.loadavg(),
    mb_per_s: { engine: med('engine'), old: med('old'), crypto: med('crypto') },
    runs_mb_per_s: { wall, cpu },
  };
  const e = report.mb_per_s.engine;
  const o = report.mb_per_s.old;
  const k = report.mb_per_s.crypto;
  // The ratio of medians, and the median of each round's own ratio (the round's runs are
  // seconds apart, so a change in the machine's load falls mostly on both).
  const perRound = (m, a, b) => median(m[a].map((x, i) => x / m[b][i]));
  report.ratios = {
    engine_over_crypto: { wall: e.wall / k.wall, cpu: e.cpu / k.cpu },
    engine_over_old: { wall: e.wall / o.wall, cpu: e.cpu / o.cpu },
    engine_over_old_per_round: {
      wall: perRound(wall, 'engine', 'old'), cpu: perRound(cpu, 'engine', 'old'),
    },
    engine_over_crypto_per_round: {
      wall: perRound(wall, 'engine', 'crypto'), cpu: perRound(cpu, 'engine', 'crypto'),
    },
  };
  report.fresh = FRESH_ROUNDS > 0 ? fresh() : {};
  report.load_end = os.loadavg();
  if (JSON_OUT) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  const f = (x) => x.toFixed(0).padStart(6);
  const load3 = (l) => l.map((x) => x.toFixed(2)).join(', ');
  console.log(`SHA-256 of ${MIB} MiB in ${CHUNK >> 20} MiB chunks, ${ROUNDS} interleaved rounds;`
    + ` ${report.node}, ${report.cpu}`);
  console.log(`load average before ${load3(report.load_before)}, after ${load3(report.load_after)}`);
  console.log('median MB/s        wall    cpu   (runs, wall)');
  for (const [label, t] of [['engine (new)', 'engine'], ['engine (old)', 'old'], ['node:crypto', 'crypto']]) {
    const runs = wall[t].map((x) => x.toFixed(0)).join(' ');
    console.log(`${label.padEnd(16)}${f(med(t).wall)} ${f(med(t).cpu)}   (${runs})`);
  }
  const r = report.ratios;
  const pair = (x) => `${x.wall.toFixed(2).padStart(6)} ${x.cpu.toFixed(2).padStart(6)}`;
  console.log(`new / old        ${pair(r.engine_over_old)}   (median of per-round ratios ${pair(r.engine_over_old_per_round)})`);
  console.log(`new / crypto     ${pair(r.engine_over_crypto)}   (median of per-round ratios ${pair(r.engine_over_crypto_per_round)})`);
  if (!FRESH_ROUNDS) return;
  console.log(`\nin a fresh process (median of ${FRESH_ROUNDS}, JIT warm-up included), ms:`);
  console.log('size        new     old   old/new');
  for (const [size, f] of Object.entries(report.fresh)) {
    console.log(`${size.padEnd(8)}${f.engine_ms.toFixed(0).padStart(7)} ${f.old_ms.toFixed(0).padStart(7)}`
      + `   ${(f.old_ms / f.engine_ms).toFixed(2)}`);
  }
  console.log(`load average at the end ${load3(report.load_end)}`);
}

main();
