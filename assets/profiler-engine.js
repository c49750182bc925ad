/*
 * faircode browser engine: a hand-written, dependency-free implementation of SPEC.md
 * (sections 0-10, 13, 17, 18 and 19). It must return results `==` to the Python engine for the
 * same bytes and options; tests/parity/test_js_parity.py enforces that.
 *
 * Runs unchanged as a classic <script> (global `FaircodeEngine`), in a Web Worker
 * (importScripts) and under Node 18+ (module.exports).
 *
 * Usage (streaming, counts first):
 *   const p = FaircodeEngine.createProfiler({name, overrides, opts});
 *   p.push(uint8ArrayChunk); ...            // any chunk sizes
 *   const summary = p.finish();
 *   const result = FaircodeEngine.analyze(summary, overrides, opts);
 * or FaircodeEngine.profileBytes(bytes, name, overrides, opts).
 *
 * `overrides` maps column -> kind. It may be a Map or an array of [column, kind] pairs,
 * which keep their order; a plain object works too, but JS lists its integer-like keys
 * ("2") first, which changes which bad override is reported first.
 *
 * Errors are thrown as FaircodeEngine.InputError (code 2) whose message is the exact
 * one-line text of SPEC section 0.6 / section 7. *
 * Names: a function or constant mirroring a Python one has its name (snake_case as
 * camelCase, no leading underscore; SPEC 14); tests/parity/test_twins.py lists the twins and
 * the exceptions.
 * Contents: sections in the order of the Python modules they mirror.
 *   Errors       faircode/errors.py       InputError
 *   Numerics     faircode/numerics.py     SPEC 13: fsum, ln, rounding, code-point order;
 *                                         13.1: exp, normalUpper, wilsonAt, newcombe,
 *                                         logRatioInterval, katzInterval, scoreP,
 *                                         searchP, holm
 *                                         (then Python's text of values in messages)
 *   Labels       faircode/labels.py       SPEC 0.3, 0.4, 2, 9: missing tokens, trimming,
 *                                         header names, age and share grammars
 *   Options      faircode/options.py      SPEC 7: resolveOptions
 *   Detect       faircode/detect.py       SPEC 1: column names -> kinds
 *   Reader       faircode/reader.py       SPEC 0.1-0.3: UTF-8, CsvScanner (bytes -> records)
 *   Summary      faircode/summary.py      SPEC 0.4, 0.5, 0.9, 4, 17.2: CountSink,
 *                                         createProfiler, mergeSummaries
 *   Parts        faircode/fastpath.py     SPEC 0.8: planParts, where a big file is cut
 *   Analyze      faircode/analyze.py      SPEC 1-6: summary -> result; with
 *                faircode/evidence.py     SPEC 5, 18: score v3, Findings (the family, Holm)
 *                faircode/groupstats.py   SPEC 17.3-17.5: label_rates, missing_by_group
 *                faircode/outcomes.py     SPEC 21: numeric outcome columns by group
 *   Compare      faircode/compare.py      SPEC 8, 17.6
 *   Reference    faircode/reference.py    SPEC 9: parseReference (RecordSink)
 *   Provenance   faircode/provenance.py   SPEC 10, and a streaming SHA-256
 *   API                                   profileBytes, the exports
 */
(function (root, factory) {
  'use strict';
  const api = factory();
  // The page builds its Web Workers from this source text (a Blob URL), which a file://
  // page cannot fetch; the factory itself carries it.
  api.factory = factory;
  if (typeof module === 'object' && module && module.exports) {
    module.exports = api;
  } else {
    root.FaircodeEngine = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : typeof self !== 'undefined' ? self : this,
function () {
  'use strict';

  // ---------------------------------------------------------------------------------
  // Errors: faircode/errors.py
  // ---------------------------------------------------------------------------------

  class InputError extends Error {
    constructor(message) {
      super(message);
      this.name = 'InputError';
      this.code = 2;
    }
  }

  // ---------------------------------------------------------------------------------
  // Numerics (SPEC 13): faircode/numerics.py
  // ---------------------------------------------------------------------------------

  const VERSION = '0.1.0'; // faircode/_version.py __version__

  // Literal scale factors: never computed with a power function.
  const SCALE = [1, 10, 100, 1000, 10000];

  function roundHalfUp(x, dp) {
    const f = SCALE[dp];
    return Math.floor(x * f + 0.5) / f;
  }

  /** fmt(x, dp): integer arithmetic formatting, identical to Python's numerics.fmt. */
  function fmt(x, dp) {
    const f = SCALE[dp];
    const t = Math.floor(x * f + 0.5);
    if (!Number.isFinite(t)) throw new RangeError('fmt of a non-finite number');
    let sign = t < 0 ? '-' : '';
    let intPart;
    let fracPart;
    if (Math.abs(t) <= Number.MAX_SAFE_INTEGER) {
      const a = Math.abs(t);
      const r = a % f;
      intPart = String((a - r) / f);
      fracPart = String(r);
    } else {
      // Beyond 2^53 a double is still an exact integer; BigInt keeps // and % exact.
      const a = BigInt(Math.abs(t));
      const F = BigInt(f);
      intPart = (a / F).toString();
      fracPart = (a % F).toString();
    }
    if (dp === 0) return sign + intPart;
    return sign + intPart + '.' + fracPart.padStart(dp, '0');
  }

  /**
   * Exactly rounded sum: a line-by-line port of CPython's math_fsum (Shewchuk's
   * algorithm with the final half-even correction), so results are bit-identical.
   */
  function fsum(values) {
    const p = [];
    let n = 0;
    let specialSum = 0.0;
    let infSum = 0.0;
    let x, y, t, hi, lo = 0.0, yr;
    for (let k = 0; k < values.length; k++) {
      x = values[k];
      const xsave = x;
      let i = 0;
      for (let j = 0; j < n; j++) {
        y = p[j];
        if (Math.abs(x) < Math.abs(y)) { t = x; x = y; y = t; }
        hi = x + y;
        yr = hi - x;
        lo = y - yr;
        if (lo !== 0.0) p[i++] = lo;
        x = hi;
      }
      n = i;
      if (x !== 0.0) {
        if (!Number.isFinite(x)) {
          // Non-finite: intermediate overflow, or an inf/nan among the summands.
          if (Number.isFinite(xsave)) throw new RangeError('intermediate overflow in fsum');
          if (xsave === Infinity || xsave === -Infinity) infSum += xsave;
          specialSum += xsave;
          n = 0;
        } else {
          p[n++] = x;
        }
      }
    }
    if (specialSum !== 0.0) {
      if (Number.isNaN(infSum)) throw new RangeError('-inf + inf in fsum');
      return specialSum;
    }
    hi = 0.0;
    if (n > 0) {
      hi = p[--n];
      // Sum exactly from the top; stop when the sum becomes inexact.
      while (n > 0) {
        x = hi;
        y = p[--n];
        hi = x + y;
        yr = hi - x;
        lo = y - yr;
        if (lo !== 0.0) break;
      }
      // Make half-even rounding work across multiple partials.
      if (n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0))) {
        y = lo * 2.0;
        x = hi + y;
        yr = x - hi;
        if (y === yr) hi = x;
      }
    }
    return hi;
  }

  const F64 = new Float64Array(1);
  const U32 = new Uint32Array(F64.buffer);
  // Index of the high 32-bit word of a double in U32 (platform endianness).
  const HI = (function () { F64[0] = 1.0; return U32[1] === 0x3ff00000 ? 1 : 0; })();

  /** x = m * 2^e with m in [1, 2), exact (x finite, > 0). Returns [m, e]. */
  function frexp1(x) {
    let shift = 0;
    F64[0] = x;
    let hiw = U32[HI];
    let biased = (hiw >>> 20) & 0x7ff;
    if (biased === 0) {
      // Subnormal: scale by 2^54 (exact) to normalise, then undo in the exponent.
      F64[0] = x * 18014398509481984.0;
      hiw = U32[HI];
      biased = (hiw >>> 20) & 0x7ff;
      shift = 54;
    }
    const e = biased - 1023 - shift;
    U32[HI] = (hiw & 0x800fffff) | (1023 << 20);
    return [F64[0], e];
  }

  const SQRT2 = 1.4142135623730951;
  const LN2 = 0.6931471805599453;

  /** Natural log from +, -, *, / only (SPEC section 13), bit-identical to Python's. */
  function ln(x) {
    if (!(x > 0)) throw new RangeError('ln of a non-positive number');
    let [m, e] = frexp1(x);
    if (m > SQRT2) {
      m = m / 2.0;
      e = e + 1;
    }
    const s = (m - 1.0) / (m + 1.0);
    const s2 = s * s;
    let q = 1.0 / 23.0;
    for (let j = 21; j >= 1; j -= 2) q = q * s2 + 1.0 / j;
    return e * LN2 + 2.0 * s * q;
  }

  // ---- Evidence (SPEC 13.1): exp, the normal tail, intervals at any z, Holm ---------
  // Twins of the functions at the end of faircode/numerics.py: the same operations in
  // the same order, so both engines give the same bits.

  const INV_LN2 = 1.4426950408889634;
  const LN2_HI = 0.6931471803691238;
  const LN2_LO = 1.9082149292705877e-10;
  const INV_SQRT_2PI = 0.3989422804014327;
  const EXP_FLOOR = -708.0; // below it exp() is 0 (SPEC 13.1)
  const Z_SEARCH = 40.0; // the largest z searchP looks at; 2 * Q(40) is below 1e-300
  const POW2 = new DataView(new ArrayBuffer(8));

  /** 2^k exactly, for an integer k in [-1022, 1023] (a normal double): the double whose
   * biased exponent is k + 1023 and whose mantissa is 0, like Python's ldexp(1, k). */
  function pow2(k) {
    if (k > 1023) return Infinity; // Python's ldexp raises; exp() is for x <= 709
    POW2.setUint32(0, (k + 1023) << 20);
    POW2.setUint32(4, 0);
    return POW2.getFloat64(0);
  }

  /** e^x from +, -, *, / and an exact power of two (SPEC 13.1); numerics.exp. */
  function exp(x) {
    if (x < EXP_FLOOR) return 0.0;
    const k = Math.floor(x * INV_LN2 + 0.5);
    const r = (x - k * LN2_HI) - k * LN2_LO;
    let s = 1.0;
    for (let j = 20; j >= 1; j--) s = 1.0 + s * r / j;
    return s * pow2(k);
  }

  /** Q(z) = P(N(0, 1) > z) (SPEC 13.1): a series below 3, a continued fraction above;
   * numerics.normal_upper. */
  function normalUpper(z) {
    if (z < 0) return 1.0 - normalUpper(-z);
    const phi = exp(-(z * z) / 2.0) * INV_SQRT_2PI;
    if (z < 3.0) {
      let term = z;
      let total = z;
      let i = 1;
      while (term > 1e-17 * total && i < 300) {
        term = term * (z * z) / (2 * i + 1);
        total = total + term;
        i += 1;
      }
      return 0.5 - phi * total;
    }
    let t = z;
    for (let j = 120; j >= 1; j--) t = z + j / t;
    return phi / t;
  }

  /** The Wilson interval of c out of n at quantile z, clipped to [0, 1], unrounded
   * (SPEC 3's operations with z for Z); numerics.wilson_at. */
  function wilsonAt(c, n, z) {
    const z2 = z * z;
    const p = c / n;
    const denom = 1 + z2 / n;
    const center = (p + z2 / (2 * n)) / denom;
    const margin = (z / denom) * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    return [Math.max(0.0, center - margin), Math.min(1.0, center + margin)];
  }

  /** Newcombe's hybrid score interval for c1/n1 - c2/n2 at quantile z (SPEC 13.1). */
  function newcombe(c1, n1, c2, n2, z) {
    const p1 = c1 / n1;
    const p2 = c2 / n2;
    const [l1, u1] = wilsonAt(c1, n1, z);
    const [l2, u2] = wilsonAt(c2, n2, z);
    const d = p1 - p2;
    const lo = d - Math.sqrt((p1 - l1) * (p1 - l1) + (u2 - p2) * (u2 - p2));
    const hi = d + Math.sqrt((u1 - p1) * (u1 - p1) + (p2 - l2) * (p2 - l2));
    return [lo, hi];
  }

  /** The Katz log interval for (c1/n1) / (c2/n2) at quantile z (SPEC 13.1); null when a
   * count is 0. numerics.log_ratio_interval. */
  function logRatioInterval(c1, n1, c2, n2, z) {
    if (c1 === 0 || c2 === 0) return null;
    const r = (c1 / n1) / (c2 / n2);
    const se = Math.sqrt(1 / c1 - 1 / n1 + 1 / c2 - 1 / n2);
    return [r * exp(-(z * se)), r * exp(z * se)];
  }

  /** The Katz log interval of (c1/n1) / (c2/n2) at quantile z (c2 > 0), with Haldane and
   * Anscombe's correction where a cell of the 2 x 2 table is zero: that of c + 0.5 of
   * n + 1, widened to hold the estimate (SPEC 13.1); numerics.katz_interval. */
  function katzInterval(c1, n1, c2, n2, z) {
    if (0 < c1 && c1 < n1 && c2 < n2) return logRatioInterval(c1, n1, c2, n2, z);
    const got = logRatioInterval(c1 + 0.5, n1 + 1, c2 + 0.5, n2 + 1, z);
    const ratio = (c1 * n2) / (n1 * c2);
    return [Math.min(got[0], ratio), Math.max(got[1], ratio)];
  }

  /** The two-sided-equivalent p of the score test that c/n lies beyond t (below it when
   * `below`): 2 * Q(z), 1 when the share is not beyond (SPEC 13.1). */
  function scoreP(c, n, t, below) {
    if (!(0.0 < t && t < 1.0)) return 1.0;
    const p = c / n;
    let z = (t - p) / Math.sqrt(t * (1 - t) / n);
    if (!below) z = -z;
    if (!(z > 0)) return 1.0;
    return Math.min(1.0, 2.0 * normalUpper(z));
  }

  /** 2 * Q(z*) for the largest z* at which beyond(z) still holds, by 60 halvings of
   * [0, Z_SEARCH]; 1 when it does not hold at z = 0 (SPEC 13.1). */
  function searchP(beyond) {
    if (!beyond(0.0)) return 1.0;
    let lo = 0.0;
    let hi = Z_SEARCH;
    if (beyond(hi)) return Math.min(1.0, 2.0 * normalUpper(hi));
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2.0;
      if (beyond(mid)) lo = mid;
      else hi = mid;
    }
    return Math.min(1.0, 2.0 * normalUpper(lo));
  }

  /** Holm's adjusted p-values of ps in a family of m >= ps.length tests (the others'
   * p being 1), in the order given; ties by position (SPEC 13.1). */
  function holm(ps, m) {
    const order = ps.map((_, i) => i);
    order.sort((i, j) => (ps[i] - ps[j]) || (i - j));
    const out = new Array(ps.length).fill(1.0);
    let running = 0.0;
    for (let rank = 0; rank < order.length; rank++) {
      const i = order[rank];
      const adj = Math.min(1.0, (m - rank) * ps[i]);
      running = Math.max(running, adj);
      out[i] = running;
    }
    return out;
  }

  // ---- Numeric outcomes (SPEC 21): exact sums, Student's t ---------------------------
  // Twins of the end of faircode/numerics.py. The sums are exact integers (BigInt) in
  // units of 2^-SCALE1 (values) and 2^-SCALE2 (squares); a reader adds values exactly as
  // float expansions (Shewchuk's partials, squares split by Dekker's product) and turns
  // them into those integers once.

  const OUTCOME_HUGE = 1e140;
  const OUTCOME_TINY = 1e-140;
  const SCALE1 = 520;
  const SCALE2 = 1040;
  const LN_SQRT_PI = 0.5723649429247001;
  const CF_EPS = 3e-16;
  const CF_FPMIN = 1e-300;
  const CF_MAXIT = 100000;
  const PARTS = new DataView(new ArrayBuffer(8));

  /** A finite double as [m, e] with x = m * 2^e exactly, m a BigInt. */
  function floatParts(x) {
    PARTS.setFloat64(0, x);
    const hi = PARTS.getUint32(0);
    const lo = PARTS.getUint32(4);
    const biased = (hi >>> 20) & 0x7ff;
    let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    let e;
    if (biased === 0) e = -1074;
    else { m |= 1n << 52n; e = biased - 1075; }
    if (hi >>> 31) m = -m;
    return [m, e];
  }

  /** x * 2^k as an exact BigInt (x a whole multiple of 2^-k). */
  function scaledBig(x, k) {
    if (x === 0) return 0n;
    const [m, e] = floatParts(x);
    const s = e + k;
    return s >= 0 ? m << BigInt(s) : m >> BigInt(-s);
  }

  /** Add x to the partials p (CPython fsum's inner loop): exact while nothing overflows. */
  function expAdd(p, x) {
    let i = 0;
    for (let j = 0; j < p.length; j++) {
      let y = p[j];
      if (Math.abs(x) < Math.abs(y)) { const t = x; x = y; y = t; }
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[i++] = lo;
      x = hi;
    }
    p.length = i;
    p.push(x);
  }

  /** v * v as [hi, lo] with hi + lo exact (Dekker; |v| within the outcome range). */
  function square2(v) {
    const hi = v * v;
    const c = 134217729 * v;
    const vh = c - (c - v);
    const vl = v - vh;
    const lo = ((vh * vh - hi) + 2 * (vh * vl)) + vl * vl;
    return [hi, lo];
  }

  function bitLength(x) {
    return x.toString(2).length;
  }

  /** num / den correctly rounded (half to even), BigInts with den > 0: the double
   * Python's int division gives (SPEC 21.2). */
  function bigRatio(num, den) {
    if (num === 0n) return 0;
    const neg = num < 0n;
    if (neg) num = -num;
    const shift = bitLength(num) - bitLength(den) - 55;
    let q;
    let r;
    if (shift >= 0) {
      const d2 = den << BigInt(shift);
      q = num / d2;
      r = num % d2;
    } else {
      const n2 = num << BigInt(-shift);
      q = n2 / den;
      r = n2 % den;
    }
    // num / den = (q + r / den') * 2^shift, q of 55 or 56 bits
    let drop = bitLength(q) - 53;
    if (shift + drop < -1074) drop = -1074 - shift;
    const D = BigInt(drop);
    let M = q >> D;
    const rem = q - (M << D);
    const half = 1n << (D - 1n);
    if (rem > half || (rem === half && (r !== 0n || (M & 1n) === 1n))) M += 1n;
    const E = shift + drop;
    let x = Number(M);
    if (E < -1022) x = (x * pow2(E + 600)) * pow2(-600);
    else if (E > 1023) x = (x * pow2(1023)) * pow2(E - 1023);
    else x = x * pow2(E);
    return neg ? -x : x;
  }

  function exactMean(n, s1) {
    return bigRatio(s1, BigInt(n) << BigInt(SCALE1));
  }

  function exactVar(n, s1, s2) {
    const N = BigInt(n);
    return bigRatio(N * s2 - s1 * s1, (N * (N - 1n)) << BigInt(SCALE2));
  }

  function exactDiff(na, s1a, nb, s1b) {
    const A = BigInt(na);
    const B = BigInt(nb);
    return bigRatio(s1a * B - s1b * A, (A * B) << BigInt(SCALE1));
  }

  /** ln(1 + y) from ln (SPEC 21.5); numerics.log1p. */
  function log1p(y) {
    const u = 1.0 + y;
    if (u === 1.0) return y;
    return ln(u) * y / (u - 1.0);
  }

  function stirling(x) {
    const r = 1.0 / x;
    const r2 = r * r;
    return r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 * (1.0 / 1680.0 - r2 / 1188.0))));
  }

  /** ln B(a, 1/2), a > 0 (SPEC 21.5); numerics.lnbeta_half. */
  function lnbetaHalf(a) {
    let s = 0.0;
    while (a < 20.0) {
      s = s + ln((a + 0.5) / a);
      a = a + 1.0;
    }
    const r = -(a * log1p(0.5 / a)) - 0.5 * ln(a) + 0.5 + (stirling(a) - stirling(a + 0.5));
    return s + r + LN_SQRT_PI;
  }

  function betacf(a, b, x) {
    const qab = a + b;
    const qap = a + 1.0;
    const qam = a - 1.0;
    let c = 1.0;
    let d = 1.0 - qab * x / qap;
    if (Math.abs(d) < CF_FPMIN) d = CF_FPMIN;
    d = 1.0 / d;
    let h = d;
    for (let m = 1; m <= CF_MAXIT; m++) {
      const m2 = 2.0 * m;
      let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
      d = 1.0 + aa * d;
      if (Math.abs(d) < CF_FPMIN) d = CF_FPMIN;
      c = 1.0 + aa / c;
      if (Math.abs(c) < CF_FPMIN) c = CF_FPMIN;
      d = 1.0 / d;
      h = h * (d * c);
      aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
      d = 1.0 + aa * d;
      if (Math.abs(d) < CF_FPMIN) d = CF_FPMIN;
      c = 1.0 + aa / c;
      if (Math.abs(c) < CF_FPMIN) c = CF_FPMIN;
      d = 1.0 / d;
      const de = d * c;
      h = h * de;
      if (Math.abs(de - 1.0) < CF_EPS) break;
    }
    return h;
  }

  /** P(T > t), Student's t with df degrees of freedom (SPEC 21.5); numerics.t_upper. */
  function tUpper(t, df) {
    if (t < 0) return 1.0 - tUpper(-t, df);
    if (t === 0) return 0.5;
    const q = t * t;
    if (q === Infinity) return 0.0;
    const a = df / 2.0;
    const den = df + q;
    const front = exp(a * -log1p(q / df) + 0.5 * ln(q / den) - lnbetaHalf(a));
    const x = df / den;
    if (x < (a + 1.0) / (a + 2.5)) return 0.5 * (front * betacf(a, 0.5, x) / a);
    return 0.5 * (1.0 - front * betacf(0.5, a, q / den) / 0.5);
  }

  // ln(Gamma(3/2)) = ln(sqrt(pi) / 2), the first odd-df term's divisor (SPEC 21.5).
  const LN_GAMMA_3_2 = -0.12078223763524522;

  /** P(X > x), chi-squared with a whole df >= 1 (SPEC 21.5): the closed forms, each
   * term taken from the largest by ratios; numerics.chi2_upper. */
  function chi2Upper(x, df) {
    if (!(x > 0)) return 1.0;
    const y = x / 2.0;
    const half = df % 2; // 1: the odd series, whose powers are j + 1/2
    const a = 0.5 * half;
    const count = Math.floor(df / 2); // the series' terms
    const base = half ? 2.0 * normalUpper(Math.sqrt(x)) : 0.0;
    if (count === 0) return base;
    const top = Math.min(count - 1, Math.max(0, Math.floor(y - a)));
    // ln Gamma(top + a + 1): a sum of logs from Gamma(1) = 1 or Gamma(3/2)
    const logs = [half ? LN_GAMMA_3_2 : 0.0];
    for (let i = 1; i <= top; i++) logs.push(ln(i + a));
    const lg = fsum(logs);
    const peak = top + a > 0 ? exp(-y + (top + a) * ln(y) - lg) : exp(-y);
    const terms = [peak];
    let t = peak;
    for (let j = top; j > 0; j--) { // down: term(j-1) = term(j) * (j + a) / y
      t = t * (j + a) / y;
      terms.push(t);
    }
    t = peak;
    for (let j = top + 1; j < count; j++) { // up: term(j) = term(j-1) * y / (j + a)
      t = t * y / (j + a);
      terms.push(t);
    }
    return Math.min(1.0, base + fsum(terms));
  }

  const T_CACHE = new Map();

  /** The t > 0 with P(T > t) = p, 0 < p < 1/2 (SPEC 21.5); numerics.t_quantile. */
  function tQuantile(p, df) {
    const key = p + ',' + df;
    const got = T_CACHE.get(key);
    if (got !== undefined) return got;
    let lo = 0.0;
    let hi = 1.0;
    while (tUpper(hi, df) > p) { lo = hi; hi = hi * 2.0; }
    for (let i = 0; i < 64; i++) {
      const mid = (lo + hi) / 2.0;
      if (tUpper(mid, df) > p) lo = mid;
      else hi = mid;
    }
    const out = (lo + hi) / 2.0;
    if (T_CACHE.size < 10000) T_CACHE.set(key, out);
    return out;
  }

  /** Welch-Satterthwaite degrees of freedom, or null when both variances are 0. */
  function welchDf(va, na, vb, nb) {
    const sa = va / na;
    const sb = vb / nb;
    const tot = sa + sb;
    if (tot === 0) return null;
    const r = sa / tot;
    const r1 = 1.0 - r;
    return 1.0 / (r * r / (na - 1) + r1 * r1 / (nb - 1));
  }

  /**
   * Compare two strings by Unicode code point (Python's str order). UTF-16 order
   * differs from code-point order only between a surrogate (astral character) and a
   * BMP unit in U+E000..U+FFFF, so the first differing units are remapped.
   */
  function cmpCodePoint(a, b) {
    if (a === b) return 0;
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      let x = a.charCodeAt(i);
      let y = b.charCodeAt(i);
      if (x !== y) {
        if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
        return x < y ? -1 : 1;
      }
    }
    return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
  }

  // ---------------------------------------------------------------------------------
  // Python-compatible text of values inside error messages (faircode/numerics.py,
  // options.py)
  // ---------------------------------------------------------------------------------

  /** Python repr() of a float (shortest round-trip, exponent for e < -4 or >= 16). */
  function pyFloatRepr(v) {
    if (Number.isNaN(v)) return 'nan';
    if (Object.is(v, -0)) return '-0.0';
    if (v === Infinity) return 'inf';
    if (v === -Infinity) return '-inf';
    let s = v.toExponential(); // shortest digits: "d.ddde+x"
    let [mant, power] = s.split('e');
    const e = parseInt(power, 10);
    const neg = mant[0] === '-';
    if (neg) mant = mant.slice(1);
    const digits = mant.replace('.', '');
    let out;
    if (e < -4 || e >= 16) {
      out = digits[0] + (digits.length > 1 ? '.' + digits.slice(1) : '') + 'e' +
        (e < 0 ? '-' : '+') + String(Math.abs(e)).padStart(2, '0');
    } else if (e < 0) {
      out = '0.' + '0'.repeat(-e - 1) + digits;
    } else if (digits.length <= e + 1) {
      out = digits + '0'.repeat(e + 1 - digits.length) + '.0';
    } else {
      out = digits.slice(0, e + 1) + '.' + digits.slice(e + 1);
    }
    return (neg ? '-' : '') + out;
  }

  /** str() of a JSON value as Python would print it (ints stay ints). */
  function pyStr(v) {
    if (v === null || v === undefined) return 'None';
    if (v === true) return 'True';
    if (v === false) return 'False';
    if (typeof v === 'number') {
      return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : pyFloatRepr(v);
    }
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) return '[' + v.map(pyRepr).join(', ') + ']';
    return String(v);
  }

  function pyRepr(v) {
    if (typeof v !== 'string') return pyStr(v);
    const q = v.includes("'") && !v.includes('"') ? '"' : "'";
    let out = '';
    for (const ch of v) {
      const c = ch.codePointAt(0);
      if (ch === '\\') out += '\\\\';
      else if (ch === q) out += '\\' + q;
      else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
      else out += ch;
    }
    return q + out + q;
  }

  // ---------------------------------------------------------------------------------
  // Labels (SPEC 0.3 header names, 0.4 missing tokens and trimming, 2 age grammar,
  // 9 share grammar): faircode/labels.py
  // ---------------------------------------------------------------------------------

  const MISSING_TOKENS = Object.freeze(['', 'NA', 'N/A', 'n/a', 'NaN', 'nan', 'null', 'NULL', '?']);
  const AGE_NUMERIC = /^-?[0-9]+(\.[0-9]+)?$/;
  const AGE_INTERVAL = /^[[(][0-9]+ *[-,] *[0-9]+[\])]$/;
  const SHARE_GRAMMAR = /^-?[0-9]+(\.[0-9]+)?$/;
  // SPEC 21.2: the numbers an outcome cell may spell; Number() reads them as float() does.
  const NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

  /** The value of an outcome label, or null (SPEC 21.2); labels.outcome_value. */
  function outcomeValue(label) {
    if (!NUMBER.test(label)) return null;
    const v = Number(label);
    if (v === 0) return 0;
    const a = Math.abs(v);
    if (!(OUTCOME_TINY <= a && a <= OUTCOME_HUGE)) return null;
    return v;
  }

  /** Trim ASCII spaces and tabs only. */
  function trimLabel(s) {
    let a = 0;
    let b = s.length;
    while (a < b) { const c = s.charCodeAt(a); if (c !== 32 && c !== 9) break; a++; }
    while (b > a) { const c = s.charCodeAt(b - 1); if (c !== 32 && c !== 9) break; b--; }
    return a === 0 && b === s.length ? s : s.slice(a, b);
  }

  /** trimLabel on bytes: the start of b[s, e) without leading spaces and tabs. */
  function trimStart(b, s, e) {
    while (s < e) { const x = b[s]; if (x !== 32 && x !== 9) break; s++; }
    return s;
  }

  /** trimLabel on bytes: the end of b[s, e) without trailing spaces and tabs. */
  function trimEnd(b, s, e) {
    while (e > s) { const x = b[e - 1]; if (x !== 32 && x !== 9) break; e--; }
    return e;
  }

  /**
   * The missing-token test, as a string Set and, for the reader, the same tokens'
   * UTF-8 bytes grouped by length: both are built from one list, so a token added to
   * it is missing for isMissing() and for profiling alike. `extra` (strings) adds
   * tokens at run time; the default list is SPEC 0.4's.
   */
  function missingMatcher(extra) {
    const tokens = MISSING_TOKENS.concat(extra ? Array.from(extra, String) : []);
    const set = new Set(tokens);
    const byLen = [];
    const first = new Uint8Array(256); // 1: some token starts with this byte
    let maxLen = 0;
    for (const t of set) {
      const bytes = utf8Encode(t);
      while (byLen.length <= bytes.length) byLen.push([]);
      byLen[bytes.length].push(bytes);
      if (bytes.length > maxLen) maxLen = bytes.length;
      if (bytes.length) first[bytes[0]] = 1;
    }
    return { set, byLen, first, maxLen };
  }

  function utf8Encode(s) {
    if (typeof TextEncoder !== 'undefined') return new TextEncoder().encode(s);
    const out = [];
    for (const ch of s) {
      const cp = ch.codePointAt(0);
      if (cp < 0x80) out.push(cp);
      else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
      else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
      else {
        out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63),
          0x80 | (cp & 63));
      }
    }
    return Uint8Array.from(out);
  }

  const DEFAULT_RULE = missingMatcher(null);

  function isMissing(label, matcher) {
    return (matcher || DEFAULT_RULE).set.has(label);
  }

  /** Is the trimmed label bytes[s, s + len) a missing token of `m` (len <= m.maxLen,
   * which the caller checks first: most labels are longer). */
  function isMissingBytes(m, b, s, len) {
    // Most short labels ("Male", "34") fail on their first byte: as fast as a switch.
    if (len !== 0 && m.first[b[s]] === 0) return false;
    const cands = m.byLen[len];
    if (cands === undefined) return false;
    next: for (let k = 0; k < cands.length; k++) {
      const t = cands[k];
      for (let i = 0; i < len; i++) if (b[s + i] !== t[i]) continue next;
      return true;
    }
    return false;
  }

  function cleanHeader(raw) {
    const out = [];
    const taken = new Set();
    for (let i = 0; i < raw.length; i++) {
      let name = trimLabel(raw[i]);
      if (name === '') name = 'column_' + (i + 1);
      if (taken.has(name)) {
        let k = 1;
        while (taken.has(name + '.' + k)) k++;
        name = name + '.' + k;
      }
      taken.add(name);
      out.push(name);
    }
    return out;
  }

  // Shown labels (SPEC 0.9 LABEL_SHOWN): faircode/safetext.py `capped` and `bounded`.
  // A label or column name longer than LABEL_SHOWN code points is cut in every output
  // (the JSON export, the page), never in the counts: its first LABEL_SHOWN code points,
  // then `... (N more characters, sha256 H)`, H the first 12 hex digits of the SHA-256
  // of the whole label's UTF-8, so two labels that differ only past the cut stay apart.
  const LABEL_SHOWN = 200;
  // A label capped already (read back from a saved result): capped again it stays itself.
  const CAPPED = /^[^]{200}\.\.\. \([0-9]+ more characters, sha256 [0-9a-f]{12}\)$/u;

  /** The UTF-16 index after the code point at i. */
  function nextCodePoint(s, i) {
    const c = s.charCodeAt(i);
    return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? i + 2 : i + 1;
  }

  function capLabel(s) {
    if (s.length <= LABEL_SHOWN || CAPPED.test(s)) return s; // (units >= code points)
    let i = 0;
    for (let k = 0; k < LABEL_SHOWN && i < s.length; k++) i = nextCodePoint(s, i);
    if (i >= s.length) return s;
    let more = 0;
    for (let j = i; j < s.length; j = nextCodePoint(s, j)) more++;
    const h = createSha256();
    h.update(utf8Encode(s));
    return `${s.slice(0, i)}... (${more} more characters, sha256 ${h.hex().slice(7, 19)})`;
  }

  function codePoints(s) {
    if (s.length <= LABEL_SHOWN) return s.length;
    let n = 0;
    for (let j = 0; j < s.length; j = nextCodePoint(s, j)) n++;
    return n;
  }

  /**
   * A result (profile, compare, or any JSON value) with every label and name longer than
   * LABEL_SHOWN code points capped (capLabel): each such string outside SENTENCES, a
   * key or a value, is capped where it stands, and a sentence (a flag) is left whole but
   * for the capped form of each of those strings in it (longest first, then in code
   * point order).
   * `provenance` is kept as is. A result with no such string (labels capped already
   * are not) is returned itself, so bounding twice is bounding once.
   */
  // Keys whose strings are sentences quoting labels (a flag, a finding's text): kept
  // whole, with the labels in them capped.
  const SENTENCES = ['flags', 'text'];

  function bounded(result) {
    const atoms = new Set();
    const scan = (v, inFlags) => {
      if (typeof v === 'string') {
        if (!inFlags && v.length > LABEL_SHOWN && codePoints(v) > LABEL_SHOWN && !CAPPED.test(v)) atoms.add(v);
      } else if (Array.isArray(v)) {
        for (const x of v) scan(x, inFlags);
      } else if (v !== null && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k.length > LABEL_SHOWN && codePoints(k) > LABEL_SHOWN && !CAPPED.test(k)) atoms.add(k);
          if (k !== 'provenance') scan(x, inFlags || SENTENCES.includes(k));
        }
      }
    };
    scan(result, false);
    if (atoms.size === 0) return result;
    const cut = new Map(Array.from(atoms, (a) => [a, capLabel(a)]));
    const size = new Map(Array.from(atoms, (a) => [a, codePoints(a)]));
    const order = Array.from(atoms).sort((a, b) => size.get(b) - size.get(a) || cmpCodePoint(a, b));
    const fix = (v) => {
      if (typeof v === 'string') {
        if (cut.has(v)) return cut.get(v);
        if (v.length <= LABEL_SHOWN) return v;
        for (const a of order) if (a.length <= v.length && v.includes(a)) v = v.split(a).join(cut.get(a));
        return v;
      }
      if (Array.isArray(v)) return v.map(fix);
      if (v !== null && typeof v === 'object') {
        const out = {};
        for (const [k, x] of Object.entries(v)) out[cut.has(k) ? cut.get(k) : k] = k === 'provenance' ? x : fix(x);
        return out;
      }
      return v;
    };
    return fix(result);
  }

  // ---------------------------------------------------------------------------------
  // Options (SPEC 7): faircode/options.py. OPTIONS is the one home of every option
  // here, a record per option equal to the Python engine's (tests/parity/test_option_table.py):
  // DEFAULTS, the known names, the checks of resolveOptions, the provenance params and
  // the website's controls are made from it.
  // ---------------------------------------------------------------------------------

  const DEFAULT_AGE_BANDS = [0, 18, 30, 45, 60, 75];
  // SPEC 5: the score rules, the default first; SPEC 16: the proxy hints' corrections.
  const SCORE_RULES = ['v3', 'v2', 'seed'];
  // SPEC 8: the drift rules, the default first.
  const DRIFT_RULES = ['test', 'psi'];
  const PROXY_CORRECTIONS = ['holm', 'bonferroni', 'none'];
  const OPTION_FIELDS = {
    low: null, high: null, low_open: false, high_open: false, valid: '', choices: [],
    flag: null, metavar: null, help: '', commands: [], python_only: false, needs: null,
    params: 'always', control: null, site_label: null, site_step: null,
  };
  /** One record of OPTIONS: faircode/options.py's Option, with its field names. */
  function option(name, kind, dflt, fields) {
    return Object.freeze(Object.assign({ name, kind, default: dflt }, OPTION_FIELDS, fields));
  }
  // The commands and MCP tools an option belongs to (SPEC 7, 11, 12.3, 19, 20).
  const MAIN = ['profile', 'compare', 'profile_dataset', 'compare_datasets'];
  // compare has no outcome comparison (SPEC 8, 21): the outcome options are profile's only
  const PROFILE = ['profile', 'profile_dataset'];
  const AUDITS = ['audit ll144', 'audit datasheet', 'audit art10'];
  const READING = [...MAIN, 'scan', ...AUDITS, 'proxy_hints'];
  const GROUPS = [...MAIN, 'scan', ...AUDITS, 'fairness evaluate'];
  const SHARE = { low: 0, high: 1, valid: '0..1' };
  const PROXY = ['profile', 'compare'];
  /** SPEC 7: every option, in the order they are validated and reported in provenance. */
  const OPTIONS = Object.freeze([
    option('min_share', 'number', 0.05, { ...SHARE, flag: '--min-share', metavar: 'X',
      help: 'under-represented below this share', commands: [...MAIN, 'proxy_hints'],
      control: 'opt-min_share', site_label: 'minimum share', site_step: 0.01 }),
    option('min_group_size', 'integer', 100, { low: 0, valid: 'integer >= 0',
      flag: '--min-group-size', metavar: 'N', help: 'small_group below this count',
      commands: [...MAIN, 'proxy_hints', 'scan', 'audit art10'],
      control: 'opt-min_group_size', site_label: 'minimum group size', site_step: 1 }),
    option('intersection_floor', 'number', 0.01, { ...SHARE, flag: '--intersection-floor',
      metavar: 'X', help: 'near-empty intersection cell below this share of rows',
      commands: MAIN, control: 'opt-intersection_floor', site_label: 'intersection floor',
      site_step: 0.005 }),
    option('imbalance_flag', 'number', 3.0, { low: 1, valid: '>= 1', flag: '--imbalance-flag',
      metavar: 'X', help: 'flag imbalance ratios from this', commands: MAIN,
      control: 'opt-imbalance_flag', site_label: 'imbalance flag', site_step: 0.5 }),
    option('missing_flag', 'number', 0.05, { ...SHARE, flag: '--missing-flag', metavar: 'X',
      help: 'flag missing shares from this', commands: MAIN, control: 'opt-missing_flag',
      site_label: 'missing flag', site_step: 0.01 }),
    option('max_age', 'number', 120, { low: 0, low_open: true, valid: '> 0', flag: '--max-age',
      metavar: 'N', help: 'ages above this are implausible', commands: GROUPS,
      control: 'opt-max_age', site_label: 'maximum age', site_step: 1 }),
    option('max_categorical', 'integer', 20, { low: 2, valid: 'integer >= 2',
      flag: '--max-categorical', metavar: 'N',
      help: 'most distinct values of a generic categorical', commands: [...MAIN, 'scan'],
      control: 'opt-max_categorical', site_label: 'maximum categorical labels', site_step: 1 }),
    option('max_dimension_groups', 'integer', 50, { low: 2, valid: 'integer >= 2',
      flag: '--max-groups', metavar: 'N', help: 'drop non-geography dimensions with more groups',
      commands: [...MAIN, 'scan', 'audit ll144'], control: 'opt-max_dimension_groups',
      site_label: 'maximum groups', site_step: 1 }),
    option('age_bands', 'age_bands', DEFAULT_AGE_BANDS, {
      valid: 'increasing integers starting at 0', flag: '--age-bands', metavar: 'E,E,...',
      help: 'age band edges', commands: GROUPS, control: 'opt-age_bands' }),
    option('cross', 'pair', null, { valid: 'two different column names', flag: '--cross',
      metavar: 'A,B', help: 'the two columns to intersect',
      commands: ['profile', 'profile_dataset', 'audit art10'], control: 'cross-a' }),
    option('names', 'names', null, { valid: 'at least one column name', flag: '--names',
      metavar: 'A,B,...', help: 'column names for a file with no header', commands: READING }),
    option('skip_lines', 'integer', 0, { low: 0, valid: 'integer >= 0', flag: '--skip-lines',
      metavar: 'N', help: 'skip this many lines before the table', commands: READING }),
    option('delimiter', 'delimiter', null, { valid: 'one of , ; tab | :',
      choices: [',', ';', 'tab', '|', ':'], flag: '--delimiter', metavar: 'D',
      help: 'one of , ; tab | : (default: sniffed)', commands: READING, control: 'delimiter' }),
    option('encoding', 'encoding', 'utf-8', { valid: 'a text encoding', flag: '--encoding',
      metavar: 'NAME', help: 'text encoding', commands: READING }),
    option('reference_flag', 'number', 0.05, { ...SHARE, flag: '--reference-flag', metavar: 'X',
      help: 'flag groups this far below the reference share',
      commands: ['profile', 'profile_dataset'], control: 'opt-reference_flag',
      site_label: 'reference flag', site_step: 0.01 }),
    option('psi_epsilon', 'number', 0.0001, { ...SHARE, help: 'the smallest share PSI takes' }),
    option('psi_moderate', 'number', 0.10, { ...SHARE, help: 'PSI from which drift is moderate' }),
    option('psi_significant', 'number', 0.25, { ...SHARE,
      help: 'PSI from which drift is significant' }),
    option('score_drop_flag', 'number', 5, { low: 0, high: 100, valid: '0..100',
      help: 'flag a score drop of this many points' }),
    option('share_gap', 'number', 0.05, { ...SHARE, flag: '--share-gap', metavar: 'X',
      help: 'a group\'s share moving more than this is a finding',
      commands: ['compare', 'compare_datasets'], params: 'share_gap' }),
    option('drift_rule', 'choice', 'test', { valid: 'test, psi', choices: DRIFT_RULES,
      flag: '--drift-rule',
      help: 'test: a drift level is confirmed by a chi-squared test; psi: the PSI band alone',
      commands: ['compare', 'compare_datasets'], params: 'drift_rule' }),
    option('score_categoricals', 'boolean', false, { valid: 'true or false',
      flag: '--score-categoricals',
      help: 'also score columns with few labels that are not demographic (version 1\'s score)',
      commands: [...MAIN, 'scan'], control: 'opt-score_categoricals' }),
    option('one_column', 'boolean', false, { valid: 'true or false', flag: '--one-column',
      help: 'the table has one column, though its name holds a delimiter',
      commands: [...MAIN, 'scan', ...AUDITS], params: 'one_column' }),
    option('na', 'na', [], { valid: 'tokens and [column, token] pairs', flag: '--na',
      metavar: '[COL=]TOKEN',
      help: 'treat TOKEN as missing (in every column, or in COL); repeatable',
      commands: [...GROUPS, 'proxy_hints'], control: 'opt-na' }),
    option('recode', 'recode', [], { valid: '[column, from, to] triples', flag: '--recode',
      metavar: 'COL:FROM=TO[,...]',
      help: 'rename labels of COL before counting (TO may be empty: missing); repeatable',
      commands: [...GROUPS, 'proxy_hints'], control: 'opt-recode' }),
    option('reference', 'reference', null, { valid: 'a parsed section 9 table',
      help: 'the population baseline, parsed (the CLI\'s --reference reads one)',
      params: 'never', control: 'reference' }),
    // Proxy hints (SPEC 16) are computed by the Python engine only: their options are
    // known here (so an unknown option's message lists what Python lists) and refused.
    option('proxy_hints', 'boolean', false, { valid: 'true or false', flag: '--proxy-hints',
      help: 'test every pair of dimensions for association (the proxy extra: scipy)',
      commands: PROXY, python_only: true, params: 'proxy_hints' }),
    option('proxy_alpha', 'number', 0.05, { low: 0, high: 1, low_open: true,
      valid: '0..1, above 0', flag: '--proxy-alpha', metavar: 'X', help: 'significance level',
      commands: PROXY, python_only: true, needs: 'proxy_hints', params: 'proxy_hints' }),
    option('proxy_correction', 'choice', 'holm', { valid: 'holm, bonferroni, none',
      choices: PROXY_CORRECTIONS, flag: '--proxy-correction',
      help: 'multiple-testing correction', commands: PROXY, python_only: true,
      needs: 'proxy_hints', params: 'proxy_hints' }),
    option('proxy_exact', 'boolean', false, { valid: 'true or false', flag: '--proxy-exact',
      help: 'Fisher\'s exact test for 2x2 tables, a seeded permutation test otherwise',
      commands: PROXY, python_only: true, needs: 'proxy_hints', params: 'proxy_hints' }),
    option('proxy_permutations', 'integer', 9999, { low: 1, high: 10000000,
      valid: 'integer 1..10000000', flag: '--proxy-permutations', metavar: 'N',
      help: 'permutations of --proxy-exact', commands: PROXY, python_only: true,
      needs: 'proxy_hints', params: 'proxy_hints' }),
    option('proxy_seed', 'integer', 0, { low: 0, high: 4294967295,
      valid: 'integer 0..4294967295', flag: '--proxy-seed', metavar: 'N',
      help: 'seed of --proxy-exact', commands: PROXY, python_only: true,
      needs: 'proxy_hints', params: 'proxy_hints' }),
    option('proxy_with', 'held_out', [], { valid: '[path, column, key or null] items',
      flag: '--proxy-hints-with', metavar: 'PATH=COLUMN[:KEY]',
      help: 'also test COLUMN of another CSV, by row order or joined on KEY; repeatable',
      commands: ['profile'], python_only: true, needs: 'proxy_hints', params: 'proxy_hints' }),
    option('label', 'column', null, { valid: 'a column name', flag: '--label', metavar: 'COL',
      help: 'the outcome column: positive-label rate per group (never a dimension)',
      commands: MAIN, params: 'label', control: 'label-col' }),
    option('positive', 'value', null, { valid: 'text', flag: '--positive', metavar: 'VALUE',
      help: 'the label\'s positive value (needed when it has more than two values)',
      commands: MAIN, needs: 'label', params: 'label', control: 'label-positive' }),
    option('label_gap', 'number', 0.1, { ...SHARE, flag: '--label-gap', metavar: 'X',
      help: 'flag a group\'s rate this far below the highest', commands: MAIN,
      control: 'opt-label_gap', site_label: 'label gap', site_step: 0.01 }),
    option('missing_by_group', 'boolean', true, { valid: 'true or false',
      flag: '--no-missing-by-group',
      help: 'missing data by group (on unless --no-missing-by-group)', commands: MAIN,
      control: 'opt-missing_by_group' }),
    option('missing_gap', 'number', 0.1, { ...SHARE, flag: '--missing-gap', metavar: 'X',
      help: 'flag a column missing this much more often in a group than overall',
      commands: MAIN, control: 'opt-missing_gap', site_label: 'missing gap', site_step: 0.01 }),
    option('outcome', 'outcome', [], { valid: 'column names', flag: '--outcome', metavar: 'COL',
      help: 'a numeric outcome column: mean, t interval and sd per group, Welch interval of ' +
        'the largest difference (never a dimension); repeatable',
      commands: PROFILE, params: 'outcome', control: 'outcome-col' }),
    // at most OUTCOME_HUGE: times a standard deviation of at most 1.42e140 (SPEC 21.2's
    // values) the threshold stays finite; a larger gap made it Infinity (JSON null)
    option('outcome_gap', 'number', 0.2, { low: 0, high: OUTCOME_HUGE,
      valid: `0..${OUTCOME_HUGE}`, flag: '--outcome-gap', metavar: 'X',
      help: 'flag a difference of means above this many standard deviations of the column',
      commands: PROFILE, params: 'outcome', control: 'opt-outcome_gap',
      site_label: 'outcome gap (in sds)', site_step: 0.05 }),
    option('score_rule', 'choice', 'v3', { valid: 'v3, v2, seed', choices: SCORE_RULES,
      flag: '--score-rule',
      help: 'v3: bounded by the worst dimension, with intervals; v2 or seed: the earlier numbers',
      commands: MAIN }),
    option('alpha', 'number', 0.05, { low: 0, high: 1, low_open: true, high_open: true,
      valid: '0..1, both excluded', flag: '--alpha', metavar: 'A',
      help: 'family-wise error level of the findings\' verdicts (Holm)', commands: MAIN,
      control: 'opt-alpha', site_label: 'verdicts\' error level (alpha)', site_step: 0.01 }),
  ]);
  const OPTION_BY_NAME = new Map(OPTIONS.map((o) => [o.name, o]));
  // The defaults of the options this engine computes (a resolved option set's start).
  const DEFAULTS = Object.fromEntries(OPTIONS.filter((o) => !o.python_only).map((o) => [o.name, o.default]));
  const KNOWN_OPTIONS = OPTIONS.map((o) => o.name).sort();
  const DELIMITERS = { ',': ',', ';': ';', tab: '\t', '\t': '\t', '|': '|', ':': ':' };
  const UTF8_NAMES = new Set(['utf-8', 'utf8', 'u8', 'utf', 'cp65001', 'utf_8', 'utf-8_']);

  /** The flag a message names: the record's (--max-groups), or the name's. */
  function optFlag(name) {
    const o = OPTION_BY_NAME.get(name);
    return o && o.flag && !o.flag.startsWith('--no-') ? o.flag : '--' + name.replace(/_/g, '-');
  }

  function rangeError(name, value, valid) {
    return new InputError(`${optFlag(name)}: ${pyStr(value)} is out of range (${valid})`);
  }

  // What a refused number is (options.py NOT_A_NUMBER, NOT_AN_INTEGER, OUT_OF_RANGE).
  const NOT_A_NUMBER = 'not a number';
  const NOT_AN_INTEGER = 'not an integer';
  const OUT_OF_RANGE = 'out of range';

  // SPEC 7 (options.py): the text of a number (trimmed of ASCII space and tab) and of an
  // integer, the same in both engines (not Number()'s 0x12, 0b1, '' or Unicode spaces);
  // the largest integer an integer option or an age band's edge may be.
  const NUMBER_TEXT = /^(?:[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan))$/i;
  const INTEGER_TEXT = /^[+-]?[0-9]+$/;
  const MAX_INTEGER = Number.MAX_SAFE_INTEGER; // 2^53 - 1

  function numberError(name, value, why, valid) {
    return new InputError(`${optFlag(name)}: ${pyStr(value)} is ${why} (${valid})`);
  }

  function checkNumber(name, value, lo, hi, valid, integer, loOpen) {
    // `shown` is the value as Python's message writes it: a text given for a float
    // option is converted first (float("2") is 2.0), and a boolean, never a number,
    // reads True/False (issue 14: form inputs give text).
    const lacking = integer ? NOT_AN_INTEGER : NOT_A_NUMBER;
    let shown = value;
    if (typeof value === 'string') {
      const t = trimLabel(value);
      if (!(integer ? INTEGER_TEXT : NUMBER_TEXT).test(t)) throw numberError(name, value, lacking, valid);
      if (integer) {
        const big = BigInt(t); // exact, for the message of one past MAX_INTEGER
        if (big > BigInt(MAX_INTEGER) || big < -BigInt(MAX_INTEGER)) throw numberError(name, big.toString(), OUT_OF_RANGE, valid);
        value = Number(big);
        shown = value;
      } else {
        const word = t.replace(/^[+-]/, '').toLowerCase();
        value = word === 'nan' ? NaN : word[0] === 'i' ? (t[0] === '-' ? -Infinity : Infinity) : Number(t);
        shown = pyFloatRepr(value);
      }
    } else if (typeof value !== 'number') {
      throw numberError(name, typeof value === 'boolean' ? (value ? 'True' : 'False') : value, lacking, valid);
    }
    if (Number.isNaN(value)) throw numberError(name, shown, lacking, valid);
    // an infinity is no size (options.py _number_or_why)
    if (!Number.isFinite(value)) throw numberError(name, shown, OUT_OF_RANGE, valid);
    if (integer && value !== Math.trunc(value)) throw numberError(name, shown, NOT_AN_INTEGER, valid);
    if (integer && Math.abs(value) > MAX_INTEGER) throw numberError(name, shown, OUT_OF_RANGE, valid);
    if (lo !== null && (value < lo || (loOpen && value === lo))) throw rangeError(name, shown, valid);
    if (hi !== null && value > hi) throw rangeError(name, shown, valid);
    return value;
  }

  /** SPEC 1.1 `na`: a token, or a list of tokens (every column) and [column, token]
   * pairs; resolved to [[column or null, token], ...], tokens trimmed. The texts are
   * faircode/options.py's. */
  function resolveNa(na) {
    const items = typeof na === 'string' ? [na] : na;
    if (!Array.isArray(items)) throw new InputError('--na: give a list of tokens and [column, token] pairs');
    const out = [];
    for (const item of items) {
      let col = null;
      let tok;
      if (typeof item === 'string') {
        tok = item;
      } else if (Array.isArray(item) && item.length === 2 && typeof item[0] === 'string') {
        col = item[0];
        tok = item[1];
      }
      if (typeof tok !== 'string') throw new InputError('--na: each item is a token or a [column, token] pair');
      tok = trimLabel(tok);
      if (tok === '') throw new InputError('--na: empty token');
      out.push([col, tok]);
    }
    return out;
  }

  /** SPEC 1.1 `recode`: [[column, from, to], ...] or {column: {from: to}} (columns, then
   * froms, by code point: JS objects put integer-like keys first, so their own order is
   * not the writer's); from and to trimmed; resolved to [[column, from, to], ...]. */
  function resolveRecode(recode) {
    const shape = '--recode: give [column, from, to] items or {column: {from: to}}, all strings';
    let items;
    if (Array.isArray(recode)) {
      items = recode;
    } else if (recode !== null && typeof recode === 'object' && !(recode instanceof Map)) {
      items = [];
      for (const [col, m] of Object.entries(recode)) {
        if (m === null || typeof m !== 'object' || Array.isArray(m)) throw new InputError(shape);
        for (const [from, to] of Object.entries(m)) items.push([col, from, to]);
      }
      items.sort((x, y) => cmpCodePoint(x[0], y[0]) || cmpCodePoint(x[1], y[1]));
    } else {
      throw new InputError(shape);
    }
    const out = [];
    const seen = new Set();
    for (const item of items) {
      if (!Array.isArray(item) || item.length !== 3 || !item.every((x) => typeof x === 'string')) {
        throw new InputError(shape);
      }
      const col = item[0];
      const from = trimLabel(item[1]);
      const to = trimLabel(item[2]);
      if (from === '') throw new InputError(`--recode: empty FROM for '${col}'`);
      const key = col + '\u0000' + from;
      if (seen.has(key)) throw new InputError(`--recode: '${from}' of '${col}' is given twice`);
      seen.add(key);
      out.push([col, from, to]);
    }
    return out;
  }

  // The kinds whose CLI flag is repeatable: each use adds items (options.py REPEATED).
  const REPEATED = ['na', 'recode', 'outcome', 'held_out'];

  /** `--na TOKEN`, `--na COL=TOKEN`, `--na =TOKEN` (SPEC 1.1; options.py na_item). */
  function naItem(item) {
    const eq = item.indexOf('=');
    if (eq < 0) return item;
    const col = trimLabel(item.slice(0, eq));
    const token = item.slice(eq + 1);
    return col === '' ? token : [col, token];
  }

  /** SPEC 1.1: an entry of `--recode` with two `=`: FROM and TO hold no `=` there. */
  const RECODE_AMBIGUOUS = (part) =>
    `--recode: '${part}' holds '=' more than once, so where FROM ends is unclear; a label ` +
    'with \'=\' is recoded only by a [column, from, to] item of recode (the API or MCP)';

  /** `--recode COL:FROM=TO[,FROM=TO...]` -> [column, from, to] triples (SPEC 1.1;
   * options.py recode_items). */
  function recodeItems(item) {
    const colon = item.indexOf(':');
    const col = trimLabel(colon < 0 ? item : item.slice(0, colon));
    const out = [];
    let ok = colon >= 0;
    if (ok) {
      for (const part of item.slice(colon + 1).split(',')) {
        const eq = part.indexOf('=');
        if (eq < 0) { ok = false; break; }
        // which '=' ends FROM cannot be told: never guess a label
        if (part.indexOf('=', eq + 1) >= 0) throw new InputError(RECODE_AMBIGUOUS(part));
        out.push([col, part.slice(0, eq), part.slice(eq + 1)]);
      }
    }
    if (ok && col !== '' && out.length) return out;
    throw new InputError(`--recode: expected COLUMN:FROM=TO[,FROM=TO...], got '${item}'`);
  }

  /**
   * The options of CLI flag texts, {name: the flag's text, or the list of a repeatable
   * flag's texts}, as resolveOptions takes them (SPEC 7; options.py from_flags): each
   * --na by naItem, each --recode by recodeItems, an empty item of --age-bands or an
   * empty --names refused, every other text kept for resolveOptions to read (a number
   * by NUMBER_TEXT). In table order; a name that is no option is kept, for
   * resolveOptions to refuse. The website's controls give their texts here.
   */
  function fromFlags(flags) {
    const out = {};
    for (const key of Object.keys(flags)) if (!OPTION_BY_NAME.has(key)) out[key] = flags[key];
    for (const o of OPTIONS) {
      let value = flags[o.name];
      if (value === undefined || value === null) continue;
      if (REPEATED.includes(o.kind) && typeof value === 'string') value = [value]; // one use of the flag
      if (o.kind === 'na') {
        value = value.map(naItem);
      } else if (o.kind === 'recode') {
        value = value.flatMap(recodeItems);
      } else if (REPEATED.includes(o.kind)) {
        value = Array.from(value);
      } else if (o.kind === 'age_bands' && typeof value === 'string' &&
          value.split(',').some((b) => trimLabel(b) === '')) {
        throw new InputError(`--age-bands: ${value} is out of range (increasing integers starting at 0, separated by single commas)`);
      } else if (o.kind === 'names' && typeof value === 'string' && trimLabel(value) === '') {
        throw new InputError('--names: give at least one column name');
      }
      out[o.name] = value;
    }
    return out;
  }

  /** SPEC 1.1: na and recode must name columns of the header (checked with overrides). */
  function validateRewrites(opts, columns) {
    const cols = new Set(columns);
    const shown = () => columns.slice(0, 5).join(', ') + (columns.length > 5 ? '...' : '');
    for (const [col] of opts.na || []) {
      if (col !== null && !cols.has(col)) throw new InputError(`--na: no column named '${col}' (columns: ${shown()})`);
    }
    for (const [col] of opts.recode || []) {
      if (!cols.has(col)) throw new InputError(`--recode: no column named '${col}' (columns: ${shown()})`);
    }
  }

  /** SPEC 4: --cross must name columns of the header, as --map must (detect.py
   * check_overrides, last). */
  function validateCross(opts, columns) {
    for (const col of opts.cross || []) {
      if (!columns.includes(col)) {
        const shown = columns.slice(0, 5).join(', ') + (columns.length > 5 ? '...' : '');
        throw new InputError(`--cross: no column named '${col}' (columns: ${shown})`);
      }
    }
  }

  /**
   * SPEC 1.1: the label rewrite of column `col`, or null when no na token or recode
   * applies to it. rewrite(label) is the new label, or null when it becomes missing;
   * slack is the number of labels the rewrite can remove (the reader's `s`).
   */
  function rewriteOf(opts, col) {
    const na = new Set();
    let slack = 0;
    for (const [c, tok] of opts.na || []) {
      if (c === null || c === col) { na.add(tok); slack++; }
    }
    const map = new Map();
    for (const [c, from, to] of opts.recode || []) {
      if (c === col) { map.set(from, to); slack++; }
    }
    if (slack === 0) return null;
    const rewrite = (label) => {
      const to = map.has(label) ? map.get(label) : label;
      return DEFAULT_RULE.set.has(to) || na.has(to) ? null : to;
    };
    return { rewrite, slack };
  }

  /** SPEC 17.2: the labels SPEC 1.1 makes missing in column `col` (rewrite `rw`), as
   * a byte matcher for cells of a column no longer counted: the na tokens and the
   * recoded labels whose new label is missing. */
  function lostMatcher(opts, col, rw) {
    const cands = [];
    for (const [c, tok] of opts.na || []) if (c === null || c === col) cands.push(tok);
    for (const [c, from] of opts.recode || []) if (c === col) cands.push(from);
    const labels = cands.filter((x) => !DEFAULT_RULE.set.has(x) && rw.rewrite(x) === null);
    if (labels.length === 0) return null;
    // Only these labels (never empty): the 0.4 tokens are tested before.
    const byLen = [];
    const first = new Uint8Array(256);
    let maxLen = 0;
    for (const t of new Set(labels)) {
      const bytes = utf8Encode(t);
      while (byLen.length <= bytes.length) byLen.push([]);
      byLen[bytes.length].push(bytes);
      if (bytes.length > maxLen) maxLen = bytes.length;
      first[bytes[0]] = 1;
    }
    return { set: new Set(labels), byLen, first, maxLen };
  }

  /** SPEC 1.1 applied to one column's counts: [counts, added missing]. */
  function rewriteCounts(rw, counts) {
    if (rw === null || counts === null) return [counts, 0];
    const out = new Map();
    let missing = 0;
    for (const [label, c] of counts) {
      const to = rw.rewrite(label);
      if (to === null) missing += c;
      else out.set(to, (out.get(to) || 0) + c);
    }
    return [out, missing];
  }

  /** SPEC 21.1: each outcome names a column of the header, not one of --map's. */
  function validateOutcome(opts, overrides, columns) {
    for (const name of opts.outcome) {
      if (!columns.includes(name)) {
        const shown = columns.slice(0, 5).join(', ') + (columns.length > 5 ? '...' : '');
        throw new InputError(`--outcome: no column named '${name}' (columns: ${shown})`);
      }
      if (overrides.has(name)) {
        throw new InputError(`--outcome ${name}: an outcome column cannot also be given to --map`);
      }
    }
  }

  /** SPEC 17.1: the label must name a column of the header, and not one of --map's
   * (checked with the overrides, after na and recode). Returns its index, or -1. */
  function validateLabel(opts, overrides, columns) {
    if (opts.label === null) return -1;
    const i = columns.indexOf(opts.label);
    if (i < 0) {
      const shown = columns.slice(0, 5).join(', ') + (columns.length > 5 ? '...' : '');
      throw new InputError(`--label: no column named '${opts.label}' (columns: ${shown})`);
    }
    if (overrides.has(opts.label)) {
      throw new InputError(`--label ${opts.label}: the label column cannot also be given to --map`);
    }
    return i;
  }

  /** The checks of each kind of option (faircode/options.py CHECKS, with its texts):
   * (record, value, the options so far) -> the resolved value. */
  const CHECKS = {
    number: (o, v) => {
      const got = checkNumber(o.name, v, o.low, o.high, o.valid, o.kind === 'integer', o.low_open);
      if (o.high_open && got === o.high) throw rangeError(o.name, v, o.valid); // as given
      return got;
    },
    boolean: (o, v) => {
      if (typeof v !== 'boolean') throw new InputError(`${optFlag(o.name)}: ${pyStr(v)} is not true or false`);
      return v;
    },
    choice: (o, v) => {
      if (!o.choices.includes(v)) {
        throw new InputError(`${optFlag(o.name)}: ${pyRepr(v)} is not one of ${o.choices.join(', ')}`);
      }
      return v;
    },
    age_bands: (o, v) => {
      let bands = v;
      if (typeof bands === 'string') bands = bands.split(',').filter((b) => trimLabel(b) !== '');
      if (!Array.isArray(bands)) throw rangeError(o.name, bands, o.valid);
      const edges = []; // BigInts: exact, for the message of an edge past MAX_INTEGER
      for (const b of bands) {
        const s = trimLabel(pyStr(b)); // ASCII space/tab, as the Python engine
        if (!INTEGER_TEXT.test(s)) throw rangeError(o.name, bands.map(pyStr).join(','), o.valid);
        edges.push(BigInt(s));
      }
      let ok = edges.length > 0 && edges[0] === 0n;
      for (let i = 1; ok && i < edges.length; i++) if (edges[i - 1] >= edges[i]) ok = false;
      if (ok && edges[edges.length - 1] > BigInt(MAX_INTEGER)) ok = false;
      if (!ok) throw rangeError(o.name, edges.map(String).join(','), o.valid);
      return edges.map(Number);
    },
    pair: (o, v) => {
      if (typeof v !== 'string' && !Array.isArray(v)) {
        throw new InputError(`--cross: expected two different column names A,B, got ${pyStr(v)}`);
      }
      let cross = typeof v === 'string' ? v.split(',') : v;
      cross = Array.from(cross, (c) => trimLabel(pyStr(c))); // trimmed like header names
      if (cross.length !== 2 || !cross.every((c) => c !== '') || cross[0] === cross[1]) {
        throw new InputError(`--cross: expected two different column names A,B, got ${cross.join(',')}`);
      }
      return cross;
    },
    names: (o, v) => {
      const names = Array.from(typeof v === 'string' ? v.split(',') : v, pyStr);
      if (names.length === 0) throw new InputError('--names: give at least one column name');
      return names;
    },
    delimiter: (o, d) => {
      if (typeof d !== 'string' || !Object.prototype.hasOwnProperty.call(DELIMITERS, d)) {
        throw new InputError(`--delimiter: ${pyRepr(d)} is not one of , ; tab | :`);
      }
      return DELIMITERS[d];
    },
    encoding: (o, v) => {
      const enc = String(v);
      if (!UTF8_NAMES.has(enc.trim().toLowerCase().replace(/[ _]/g, '-').replace(/-+$/, '')) &&
          !UTF8_NAMES.has(enc.trim().toLowerCase())) {
        throw new InputError(`--encoding: the browser engine reads UTF-8 only, not '${enc}'`);
      }
      return 'utf-8';
    },
    na: (o, v) => resolveNa(v),
    recode: (o, v) => resolveRecode(v),
    reference: (o, v) => {
      // A parsed section 9 table (parseReference), as in the Python engine: not re-checked.
      if (!Array.isArray(v)) throw new InputError('reference: give the parsed table (see parseReference)');
      return v;
    },
    column: (o, v) => { // SPEC 17.1 label
      const label = typeof v === 'string' ? trimLabel(v) : '';
      if (label === '') throw new InputError(`${optFlag(o.name)}: give a column name`);
      return label;
    },
    value: (o, v) => { // SPEC 17.1 positive
      if (typeof v !== 'string') throw new InputError(`${optFlag(o.name)}: ${pyStr(v)} is not text`);
      return trimLabel(v);
    },
    outcome: (o, v, out) => { // SPEC 21.1
      const items = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(items)) throw new InputError('--outcome: give a column name or a list of them');
      const names = [];
      for (const item of items) {
        if (typeof item !== 'string') throw new InputError(`--outcome: ${pyStr(item)} is not text`);
        const name = trimLabel(item);
        if (name === '') throw new InputError('--outcome: give a column name');
        if (names.includes(name)) throw new InputError(`--outcome: '${name}' is given twice`);
        if (name === out.label) throw new InputError(`--outcome ${name}: the label column cannot also be an outcome`);
        names.push(name);
      }
      return names;
    },
  };
  CHECKS.integer = CHECKS.number;

  /** An option counts as given for `needs` unless it is null, empty or false. */
  const givenValue = (v) => v !== undefined && v !== null && v !== false &&
    !(Array.isArray(v) && v.length === 0);

  /** SPEC 7: validate a user's options and fill defaults (faircode/options.py resolve):
   * every option checked by its record of OPTIONS, in table order. */
  function resolveOptions(opts) {
    if (opts && opts.__resolved) return opts;
    opts = opts || {};
    const given = (k) => opts[k] !== undefined && opts[k] !== null;
    for (const key of Object.keys(opts)) {
      const o = OPTION_BY_NAME.get(key);
      if (o && o.python_only && given(key) && opts[key] !== false) {
        throw new InputError(`${optFlag(key)}: proxy hints are computed by the Python engine only (faircode profile --proxy-hints)`);
      }
      if (!o) throw new InputError(`unknown option '${key}' (known: ${KNOWN_OPTIONS.join(', ')})`);
    }
    const out = {};
    for (const [k, v] of Object.entries(DEFAULTS)) out[k] = Array.isArray(v) ? v.slice() : v;
    for (const o of OPTIONS) {
      if (o.python_only || !given(o.name)) continue;
      out[o.name] = CHECKS[o.kind](o, opts[o.name], out);
      if (o.needs && givenValue(opts[o.name]) && !givenValue(out[o.needs])) {
        throw new InputError(`${optFlag(o.name)} needs ${optFlag(o.needs)}`);
      }
    }
    Object.defineProperty(out, '__resolved', { value: true });
    return out;
  }

  // ---------------------------------------------------------------------------------
  // Detect (SPEC 1): faircode/detect.py. The one home of the keyword table, the
  // suffix list, the value vocabularies and the sex aliases of section 9.
  // ---------------------------------------------------------------------------------

  const FORMAT_VERSION = 3; // SPEC section 5 (issue 24): findings with evidence, score v3

  // SPEC 1: a keyword matches a token equal to it or to it followed by one of these.
  const SUFFIXES = Object.freeze(['s', 'es', 'code', 'cd', 'id', 'name', 'group',
    'grp', 'type', 'cat', 'category', 'desc', 'text', 'txt', 'date', 'day', 'year', 'yr',
    'fips', 'abbr', 'status', 'identity']);
  // The first kind, in this order, with a keyword matching any token gives the kind.
  const KEYWORDS = [
    ['sex', ['sex', 'gender']],
    ['race', ['race']],
    ['ethnicity', ['ethnic', 'ethnicity', 'ethnicities', 'hispanic', 'latino', 'latina',
      'latinx']],
    ['nationality', ['nationality', 'nationalities', 'citizenship', 'citizen', 'immigration',
      'immigrant', 'nativity', 'native']],
    ['religion', ['religion', 'religious', 'faith']],
    ['disability', ['disability', 'disabilities', 'disabled', 'handicap', 'handicapped',
      'impairment']],
    ['marital', ['marital', 'married', 'marriage']],
    ['geography', ['region', 'state', 'zip', 'zipcode', 'postal', 'country', 'county', 'city',
      'location', 'province', 'neighborhood', 'neighbourhood', 'district', 'borough',
      'birthplace']],
    ['age', ['age', 'dob', 'yob', 'birth']],
  ];
  const KINDS = ['sex', 'race', 'ethnicity', 'nationality', 'religion', 'disability', 'marital', 'age',
    'geography', 'categorical'];
  const OVERRIDE_VALUES = KINDS.concat(['ignore']);

  // SPEC 1.2: value vocabularies (folded forms).
  const SEX_VOCABULARY = new Set(['male', 'female', 'm', 'f', 'man', 'woman', 'men', 'women', 'boy',
    'girl', 'nonbinary', 'intersex', 'transgender', 'trans', 'transman', 'transwoman',
    'genderqueer', 'genderfluid', 'agender']);
  const RACE_VOCABULARY = new Set(['white', 'black', 'asian', 'hispanic', 'latino', 'latina', 'latinx',
    'caucasian', 'africanamerican', 'blackorafricanamerican', 'amerindianeskimo',
    'asianpacislander', 'asianpacificislander', 'pacificislander', 'nativehawaiian',
    'nativehawaiianorotherpacificislander', 'nativeamerican', 'americanindian', 'alaskanative',
    'americanindianoralaskanative', 'hispanicorlatino', 'nothispanicorlatino', 'nothispanic',
    'nonhispanic', 'middleeastern', 'arab', 'multiracial', 'mixed', 'mixedrace',
    'twoormoreraces', 'biracial', 'indigenous', 'aboriginal', 'eastasian', 'southasian']);
  // SPEC 1.2: the race labels that say only whether someone is Hispanic or Latino.
  const ETHNICITY_VOCABULARY = new Set(['hispanic', 'latino', 'latina', 'latinx', 'hispanicorlatino',
    'nothispanicorlatino', 'nothispanic', 'nonhispanic']);
  const NEUTRAL_VOCABULARY = new Set(['other', 'unknown', 'unknowninvalid', 'invalid', 'notstated',
    'notspecified', 'notreported', 'notknown', 'prefernottosay', 'prefernottoanswer',
    'declined', 'undisclosed', 'none', 'missing', 'unk', 'u', 'x', 'o']);
  const VOCABULARIES = [['sex', SEX_VOCABULARY], ['race', RACE_VOCABULARY]];
  // SPEC 9: sex labels whose folded form is here are one label when matching a reference.
  const SEX_ALIASES = new Map([
    ['m', 'male'], ['male', 'male'], ['man', 'male'], ['men', 'male'], ['boy', 'male'],
    ['f', 'female'], ['female', 'female'], ['woman', 'female'], ['women', 'female'],
    ['girl', 'female'],
  ]);
  // Contradicted named columns are not checked for these kinds (SPEC 1.3).
  const UNCONTRADICTED_KINDS = new Set(['age', 'geography']);

  /** Tokens of a column name: ASCII words split at camelCase humps, acronym ends and
   * letter/digit changes (the exact regular expressions are in SPEC section 1). */
  function tokenize(name) {
    const tokens = [];
    const words = String(name).match(/[A-Za-z0-9]+/g) || [];
    for (const w of words) {
      const pieces = w.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) || [];
      for (const p of pieces) tokens.push(p.toLowerCase());
    }
    return tokens;
  }

  /** Does token `tok` match keyword `kw`: equal, or kw + one of SUFFIXES. */
  function keywordMatches(kw, tok) {
    if (tok === kw) return true;
    if (tok.length <= kw.length || !tok.startsWith(kw)) return false;
    return SUFFIXES.includes(tok.slice(kw.length));
  }

  function kindFromName(name) {
    const tokens = tokenize(name);
    for (const [kind, kws] of KEYWORDS) {
      for (const kw of kws) {
        for (const tok of tokens) {
          if (keywordMatches(kw, tok)) return kind;
        }
      }
    }
    return null;
  }

  /** SPEC 1.2 folded form: ASCII lower case, every character but a-z and 0-9 removed. */
  function fold(label) {
    return asciiLower(label).replace(/[^a-z0-9]/g, '');
  }

  /** Rows whose folded label is in `core` or NEUTRAL_VOCABULARY, non-missing rows, and the number
   * of distinct labels folding to a `core` label. counts: label -> count (after 1.1). */
  function vocabularyCoverage(counts, core) {
    let covered = 0;
    let n = 0;
    const cores = new Set();
    for (const [label, c] of counts) {
      n += c;
      const f = fold(label);
      if (core.has(f)) {
        covered += c;
        cores.add(label);
      } else if (NEUTRAL_VOCABULARY.has(f)) {
        covered += c;
      }
    }
    return { covered, n, cores: cores.size };
  }

  /** VALUE_COVERAGE = 0.9, compared exactly in integers. */
  function coverageMet(covered, n) {
    return covered * 10 >= n * 9;
  }

  /** SPEC 1.2: 'sex', 'race' or null for an unnamed column's counts (after 1.1).
   * namedKinds: the kinds the header's names and overrides give; a match whose core
   * labels are all single letters (F/M) is not taken for one of them. */
  function kindFromValues(counts, namedKinds) {
    for (const [kind, core] of VOCABULARIES) {
      const v = vocabularyCoverage(counts, core);
      if (!(v.cores >= 2 && coverageMet(v.covered, v.n))) continue;
      if (namedKinds && namedKinds.has(kind)) {
        let letters = true;
        for (const label of counts.keys()) {
          const f = fold(label);
          if (core.has(f) && f.length !== 1) { letters = false; break; }
        }
        if (letters) continue;
      }
      if (kind === 'race') {
        let onlyEthnicity = true;
        for (const label of counts.keys()) {
          const f = fold(label);
          if (core.has(f) && !ETHNICITY_VOCABULARY.has(f)) { onlyEthnicity = false; break; }
        }
        if (onlyEthnicity) return 'ethnicity';
      }
      return kind;
    }
    return null;
  }

  /** SPEC 1.2: a column named like an ethnicity whose labels are races (the race
   * vocabulary covers 0.9 of its rows, with two distinct race labels beyond Hispanic or
   * not), as COMPAS's Ethnic_Code_Text. */
  function ethnicityHoldsRace(counts) {
    const v = vocabularyCoverage(counts, RACE_VOCABULARY);
    let beyond = 0;
    for (const label of counts.keys()) {
      const f = fold(label);
      if (RACE_VOCABULARY.has(f) && !ETHNICITY_VOCABULARY.has(f)) beyond += 1;
    }
    return coverageMet(v.covered, v.n) && beyond >= 2;
  }

  // SPEC 1.7: the kinds whose labels name groups people recognise, and their words (a
  // Y/N ethnicity column answers "Hispanic or Latino?").
  const CODED_KINDS = new Map([['sex', SEX_VOCABULARY], ['race', RACE_VOCABULARY],
    ['ethnicity', new Set([...ETHNICITY_VOCABULARY, 'y', 'n'])]]);

  /** SPEC 1.7: the labels of a sex, race or ethnicity dimension when every label that is
   * not a neutral word is a code (digits, or a single letter that is not a word of the
   * kind); else []. */
  function codedLabels(kind, labels) {
    const core = CODED_KINDS.get(kind);
    if (core === undefined) return [];
    const named = labels.filter((lab) => !NEUTRAL_VOCABULARY.has(fold(lab)));
    for (const lab of named) {
      const f = fold(lab);
      if (!(/^[0-9]+$/.test(lab) || (lab.length === 1 && f.length === 1 && !core.has(f)))) return [];
    }
    return named;
  }

  /** SPEC 1.7: the note on a dimension whose labels are codes. */
  function codedText(name, codes) {
    if (codes.length === 1) {
      return `${name}: label ${codes[0]} looks like a code; the file does not say which group ` +
        `it stands for (name it with --recode ${name}:${codes[0]}=NAME)`;
    }
    const shown = codes.slice(0, 5).join(', ') + (codes.length > 5 ? ', ...' : '');
    const fix = codes.slice(0, 2).map((c) => `${c}=NAME`).join(',') + (codes.length > 2 ? ',...' : '');
    return `${name}: labels ${shown} look like codes; the file does not say which group each ` +
      `stands for (name them with --recode ${name}:${fix})`;
  }

  /** The kinds the columns' names and overrides give (kindFromValues' namedKinds). */
  function namedKindsOf(columns, overrides, opts) {
    const out = new Set();
    for (const c of columns) {
      // the label's and the outcomes' names give no kind (SPEC 17.4, 19.2)
      if (c === opts.label || opts.outcome.includes(c)) continue;
      const ov = overrides.get(c);
      const k = ov !== undefined && ov !== null ? ov : kindFromName(c);
      if (k) out.add(k);
    }
    return out;
  }

  /** SPEC 1.3: the why text when a column named like `kind` holds labels that say
   * otherwise, else null. counts: label -> count (after 1.1). */
  function contradiction(kind, counts, maxCategorical) {
    if (UNCONTRADICTED_KINDS.has(kind)) return null;
    const k = counts.size;
    let allNumeric = true;
    let decimal = false;
    for (const label of counts.keys()) {
      if (!AGE_NUMERIC.test(label)) { allNumeric = false; break; }
      if (label.includes('.')) decimal = true;
    }
    if (kind === 'sex') {
      if (k <= 3) return null;
      const v = vocabularyCoverage(counts, SEX_VOCABULARY);
      if (coverageMet(v.covered, v.n)) return null;
      return allNumeric ? `${k} distinct numbers` : `${k} distinct labels that are not sex or gender words`;
    }
    if (!allNumeric) return null;
    if (decimal) return 'numbers with decimals';
    if (k > maxCategorical) return `${k} distinct numbers`;
    return null;
  }

  // ---------------------------------------------------------------------------------
  // Reader (SPEC 0.1-0.3): faircode/reader.py. Bytes -> header and records.
  //
  // The reader works on bytes: a chunk is validated once (firstBadByte), then parsed as
  // bytes, and only the bytes of a label seen for the first time are decoded to a JS
  // string. Decoding whole chunks to strings was the engine's main cost in time and
  // memory.
  // ---------------------------------------------------------------------------------

  /** Offset of the first ill-formed sequence in bytes[0, end), as Python's strict
   * decoder reports UnicodeDecodeError.start (a truncated sequence at `end` counts). */
  function firstInvalidUtf8(bytes, end) {
    let i = 0;
    while (i < end) {
      const b = bytes[i];
      if (b < 0x80) { i++; continue; }
      const len = utf8SequenceLength(bytes, i, end);
      if (len < 0) return i;
      i += len;
    }
    return -1;
  }

  /** Length of the well-formed UTF-8 sequence starting with the non-ASCII byte at i
   * (within bytes[0, end)), or -1 when it is ill-formed or cut off by `end`. */
  function utf8SequenceLength(bytes, i, end) {
    const b = bytes[i];
    let need;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b === 0xe0) { need = 2; lo = 0xa0; }
    else if (b >= 0xe1 && b <= 0xec) need = 2;
    else if (b === 0xed) { need = 2; hi = 0x9f; }
    else if (b >= 0xee && b <= 0xef) need = 2;
    else if (b === 0xf0) { need = 3; lo = 0x90; }
    else if (b >= 0xf1 && b <= 0xf3) need = 3;
    else if (b === 0xf4) { need = 3; hi = 0x8f; }
    else return -1;
    if (i + 1 >= end) return -1;
    const b1 = bytes[i + 1];
    if (b1 < lo || b1 > hi) return -1;
    for (let k = 2; k <= need; k++) {
      if (i + k >= end) return -1;
      const bk = bytes[i + k];
      if (bk < 0x80 || bk > 0xbf) return -1;
    }
    return need + 1;
  }

  // Set by firstBadByte: whether the problem byte it found is a NUL.
  let badIsNul = false;

  /**
   * Offset of the first problem byte in bytes[0, end): a NUL byte or the first byte of
   * an ill-formed UTF-8 sequence, whichever comes first (SPEC 0.1); -1 when there is
   * none. Runs of non-NUL ASCII are skipped 32 bytes at a time through an aligned
   * 32-bit view (a word is plain ASCII when no byte has its top bit set and none is 0).
   */
  function firstBadByte(bytes, end) {
    const off = bytes.byteOffset;
    const w0 = ((off + 3) & ~3) - off; // index in bytes of the first aligned word
    const nw = Math.max(0, Math.floor((off + end) / 4) - (off + w0) / 4);
    const words = nw > 0 ? new Uint32Array(bytes.buffer, off + w0, nw) : null;
    let i = 0;
    while (i < end) {
      const b = bytes[i];
      if (b !== 0 && b < 0x80) {
        i++;
        if (words !== null && i >= w0 && ((i - w0) & 3) === 0) {
          let k = (i - w0) >> 2;
          // eight words a step while eight remain: the loop's own tests cost as much.
          // In words without a top bit set, adding 0x7f to each byte sets its top bit
          // unless the byte is 0 (no carry between bytes): one add per word finds NULs.
          while (k + 7 < nw) {
            const v0 = words[k];
            const v1 = words[k + 1];
            const v2 = words[k + 2];
            const v3 = words[k + 3];
            const v4 = words[k + 4];
            const v5 = words[k + 5];
            const v6 = words[k + 6];
            const v7 = words[k + 7];
            const nul = ~((v0 + 0x7f7f7f7f) & (v1 + 0x7f7f7f7f) & (v2 + 0x7f7f7f7f) &
              (v3 + 0x7f7f7f7f) & (v4 + 0x7f7f7f7f) & (v5 + 0x7f7f7f7f) &
              (v6 + 0x7f7f7f7f) & (v7 + 0x7f7f7f7f));
            if (((v0 | v1 | v2 | v3 | v4 | v5 | v6 | v7 | nul) & 0x80808080) !== 0) break;
            k += 8;
          }
          while (k < nw) {
            const w = words[k];
            if (((w | ((w - 0x01010101) & ~w)) & 0x80808080) !== 0) break;
            k++;
          }
          i = w0 + (k << 2);
        }
        continue;
      }
      if (b === 0) { badIsNul = true; return i; }
      const len = utf8SequenceLength(bytes, i, end);
      if (len < 0) { badIsNul = false; return i; }
      i += len;
    }
    return -1;
  }

  /** Length of bytes that ends on a character boundary: a trailing, possibly valid,
   * incomplete multi-byte sequence is held back for the next chunk. */
  function completeLength(bytes) {
    const n = bytes.length;
    for (let k = 1; k <= 3 && k <= n; k++) {
      const b = bytes[n - k];
      if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking back
      let len = 1;
      if (b >= 0xc2 && b <= 0xdf) len = 2;
      else if (b >= 0xe0 && b <= 0xef) len = 3;
      else if (b >= 0xf0 && b <= 0xf4) len = 4;
      return len > k ? n - k : n;
    }
    return n;
  }

  const hasTextDecoder = typeof TextDecoder !== 'undefined';
  // ignoreBOM: keep U+FEFF so only a BOM at byte 0 of the file is dropped. The bytes
  // handed to it are already validated.
  const DECODER = hasTextDecoder ? new TextDecoder('utf-8', { ignoreBOM: true }) : null;

  /** Decode bytes[start, end), known to be well-formed UTF-8. The result is a fresh
   * string: it pins no chunk. */
  function decodeValid(bytes, start, end) {
    if (end <= start) return '';
    let ascii = end - start <= 24;
    for (let i = start; ascii && i < end; i++) if (bytes[i] >= 0x80) ascii = false;
    if (ascii) {
      // Short ASCII labels (the common case): cheaper than a decoder call.
      let s = '';
      for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]);
      return s;
    }
    if (DECODER) return DECODER.decode(bytes.subarray(start, end));
    // Fallback for hosts without TextDecoder.
    let out = '';
    let i = start;
    const parts = [];
    while (i < end) {
      const b = bytes[i];
      let cp;
      if (b < 0x80) { cp = b; i += 1; }
      else if (b < 0xe0) { cp = ((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f); i += 2; }
      else if (b < 0xf0) {
        cp = ((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f); i += 3;
      } else {
        cp = ((b & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) |
          (bytes[i + 3] & 0x3f);
        i += 4;
      }
      parts.push(String.fromCodePoint(cp));
      if (parts.length >= 8192) { out += parts.join(''); parts.length = 0; }
    }
    return out + parts.join('');
  }

  const NO_QUICK = new Int32Array(0);

  const PIECE = 1 << 16; // bytes push() checks and parses at a time
  // (a piece and a carried character fit in one window of the SIMD check: SCAN_WINDOW)

  // Parser states.
  const REC_START = 0; // no character of the current record read yet
  const FIELD_START = 1; // right after a delimiter
  const UNQUOTED = 2; // inside an unquoted field (or after a closing quote)
  const QUOTED = 3; // inside a quoted field
  const QUOTE_IN_QUOTED = 4; // a '"' seen inside a quoted field: '""' or the close


  const SNIFF_ORDER = [',', ';', '\t', '|'];

  /** SPEC 0.2: the characters that would split a one-column header, in this order
   * (faircode/reader.py SPLIT_CANDIDATES). */
  const SPLIT_CANDIDATES = [',', ';', '\t', '|', ':'];
  const SPACE_SPLIT_WORDS = 5; // reader.py SPACE_SPLIT_WORDS

  /** Why a one-column header looks read with the wrong delimiter, or null
   * (reader.py one_column_split). */
  /** SPEC 0.6: the message for input with no line to read, saying when skip_lines took
   * it all (reader.py empty_text). */
  function emptyText(name, skipLines, skipped) {
    if (!skipped) return `${name}: file is empty`;
    if (skipped < skipLines) {
      const lines = skipped === 1 ? '1 line' : `${skipped} lines`;
      return `${name}: --skip-lines ${skipLines} skips the whole file (${lines})`;
    }
    return `${name}: nothing but blank lines after --skip-lines ${skipLines}`;
  }

  /** Why a header record read as CSV is the start of a JSON file (a JSON-lines file's
   * first object, a JSON array), or null (reader.py json_header). */
  function jsonHeader(header) {
    if (header[0].startsWith('{"') && header[header.length - 1].endsWith('}')) {
      return 'a JSON-lines file (its first line is a JSON object), not CSV; convert it to CSV';
    }
    if (header[0] === '[' || header[0].startsWith('[{') || header[0].startsWith('[[')) {
      return "a JSON array (its first line starts with '['), not CSV; convert it to CSV";
    }
    return null;
  }

  const HTML_START = /^<(!doctype[ \t\r\n]+html|html)([ \t\r\n>]|$)/i;
  const XML_START = /^<\?xml([ \t\r\n?]|$)/i;

  /** Why a header record read as CSV is the start of an HTML page or an XML document,
   * or null (reader.py markup_header). */
  function markupHeader(header) {
    if (HTML_START.test(header[0])) {
      return "an HTML page (its first line starts with '<!doctype html' or '<html'), not CSV; download or export the table itself as CSV";
    }
    if (XML_START.test(header[0])) {
      return "an XML document (its first line starts with '<?xml'), not CSV; export the table as CSV";
    }
    return null;
  }

  /** Why a header record read with `delimiter` is Excel's delimiter line (`sep=;`), or
   * null (reader.py sep_line; the engine always advises --skip-lines). */
  function sepLine(header, delimiter, line) {
    let d;
    if (header.length === 2 && header[0] === 'sep=' && header[1] === 'column_2') d = delimiter;
    else if (header.length === 1 && header[0].startsWith('sep=') && Array.from(header[0]).length === 5) {
      d = Array.from(header[0])[4];
    } else if (header.length === 1 && header[0] === 'sep=') d = '\t'; // a TAB, which trimming took
    else return null;
    return `line ${line} is Excel's delimiter line ('sep=${d === '\t' ? 'tab' : d}'), not a header; pass --skip-lines ${line} (--skip-lines-b ${line} for the second file of compare or scan)`;
  }

  function oneColumnSplit(header, delimiter) {
    if (header.length !== 1) return null;
    let best = 0;
    let bestChar = null;
    for (const c of SPLIT_CANDIDATES) {
      if (c === delimiter) continue;
      const k = header[0].split(c).length - 1;
      if (k > best) { best = k; bestChar = c; }
    }
    if (bestChar === null) {
      const words = header[0].split(' ').filter((w) => w !== '').length;
      if (words < SPACE_SPLIT_WORDS) return null;
      return `the header is one column, but spaces would split it into ${words}; faircode reads , ; tab | or : between fields: convert the file (or pass --one-column if the table has one column)`;
    }
    const d = bestChar === '\t' ? 'tab' : bestChar;
    return `the header is one column, but '${d}' would split it into ${best + 1}; pass --delimiter '${d}' (or --one-column if the table has one column)`;
  }

  function namesFirstRecord(fields, names, delimiter, line) {
    if (fields >= names) return null;
    const d = delimiter === '\t' ? 'tab' : delimiter;
    const got = fields === 1 ? '1 field' : `${fields} fields`;
    return `line ${line}: ${got} where --names gives ${names} (delimiter '${d}', sniffed from this line); pass --skip-lines ${line} (--skip-lines-b ${line} for the second file of compare or scan) if the table starts below it, or give the delimiter with --delimiter`;
  }

  /** Why a data record equal to the header record, field by field, is refused (SPEC
   * 0.3: files joined with `cat` repeat their header line inside the data). */
  function repeatedHeader(line) {
    return `line ${line} repeats the header (files joined with cat?); remove the repeated header lines, or profile the separate files as one dataset with a quoted pattern: faircode profile 'part-*.csv'`;
  }

  /** Whether b[s, e) are the bytes of `ref`. */
  function sameBytes(b, s, e, ref) {
    if (e - s !== ref.length) return false;
    for (let k = 0; k < ref.length; k++) if (b[s + k] !== ref[k]) return false;
    return true;
  }

  /** Whether b[s, e) are the bytes of `ref` (the header record's first field), after
   * one U+FEFF (EF BB BF) or not: a header line repeated by `cat` after an Excel export
   * starts with a BOM (SPEC 0.3). */
  function sameFirst(b, s, e, ref) {
    if (e - s >= ref.length + 3 && b[s] === 0xef && b[s + 1] === 0xbb && b[s + 2] === 0xbf) {
      s += 3;
      if (b[s] === 34) return unquotedBytes(b, s, e, ref); // \ufeff"sex" repeats sex
    }
    return sameBytes(b, s, e, ref);
  }

  /** SPEC 0.3: whether b[s, e), which starts with `"`, read as a quoted field by 0.2's
   * rule (`""` is `"`, the next lone `"` closes, bytes after it are appended), is `ref`;
   * false when no quote closes it. A repeated header line after a BOM starts with
   * U+FEFF, so its quoted first name was read as written. */
  function unquotedBytes(b, s, e, ref) {
    let j = 0; // bytes of ref matched
    let k = s + 1;
    while (k < e) {
      const c = b[k];
      if (c === 34) {
        if (k + 1 < e && b[k + 1] === 34) k++;
        else {
          k++; // closed: the rest is appended as written
          return e - k === ref.length - j && sameBytes(b, k, e, ref.subarray(j));
        }
      }
      if (j === ref.length || ref[j] !== c) return false;
      j++;
      k++;
    }
    return false;
  }

  /**
   * Why a record of `fields` fields, more than the `width` names, is refused (SPEC 0.3,
   * 0.6). `headerLine`: the header's line when the record is the first one below it (the
   * header may then be a title above the table), else null. `trailing`: the delimiter
   * when every field past the width is empty (rows may end with a delimiter the header
   * line does not), else null.
   */
  function longRow(fields, width, line, names, headerLine, trailing) {
    if (names) {
      // the names, not a header, may be what is short
      return `line ${line}: ${fields} fields but --names gives ${width} names; give one name per field, or quote values that contain the delimiter`;
    }
    const head = `line ${line}: ${fields} fields but the header`;
    if (trailing !== null) {
      const d = trailing === '\t' ? 'tab' : trailing;
      const after = fields - width === 1 ? 'the field after them is' : `the ${fields - width} fields after them are`;
      return `${head} has ${width}; ${after} empty: if the rows end with '${d}' and the header line does not, end it with '${d}' too; else quote values that contain the delimiter`;
    }
    if (headerLine === null) return `${head} has ${width}; quote values that contain the delimiter`;
    return `${head} (line ${headerLine}) has ${width}; if the table starts below line ${headerLine}, pass --skip-lines ${headerLine} (--skip-lines-b ${headerLine} for the second file of compare or scan); else quote values that contain the delimiter`;
  }

  /** SPEC 0.2: each of SNIFF_ORDER counted in a physical line, outside quotes (each `"`
   * toggles), as [',', ';', TAB, '|'] counts. */
  function delimiterCounts(line) {
    const counts = [0, 0, 0, 0];
    let inQuotes = false;
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (c === 34) inQuotes = !inQuotes;
      else if (!inQuotes) {
        if (c === 44) counts[0]++;
        else if (c === 59) counts[1]++;
        else if (c === 9) counts[2]++;
        else if (c === 124) counts[3]++;
      }
    }
    return counts;
  }

  /** SPEC 0.2: whether two or more delimiters share the highest count (not 0) in the
   * line sniffed from: the next non-blank line then decides (sniffDelimiter). */
  function sniffTied(line) {
    const counts = delimiterCounts(line);
    const top = Math.max(...counts);
    return top > 0 && counts.filter((c) => c === top).length > 1;
  }

  /** SPEC 0.2: the delimiter of a table whose header (or, with names, first record)
   * starts with the physical line `line`. A tie there is broken by `nextLine` (the next
   * non-blank physical line, null when there is none): a tied delimiter held there as
   * often as in `line` first, then the one held most often there, then SNIFF_ORDER. */
  function sniffDelimiter(line, nextLine = null) {
    const counts = delimiterCounts(line);
    const top = Math.max(...counts);
    if (!top) return ',';
    const tied = [0, 1, 2, 3].filter((k) => counts[k] === top);
    if (tied.length === 1 || nextLine === null) return SNIFF_ORDER[tied[0]];
    const after = delimiterCounts(nextLine);
    let best = tied[0];
    for (const k of tied.slice(1)) {
      const better = (after[k] === top) !== (after[best] === top)
        ? after[k] === top
        : after[k] > after[best];
      if (better) best = k;
    }
    return SNIFF_ORDER[best];
  }

  /** SPEC 0.2: the line that breaks a tie in the first non-blank line, pre[k, j): the
   * next non-blank line's text; null when there is no tie or no such line (`atEnd`: the
   * input has ended); undefined when that line has not all arrived yet. */
  function sniffNext(pre, k, j, len, atEnd) {
    if (!sniffTied(decodeValid(pre, k, j))) return null;
    let a = j;
    while (a < len && (pre[a] === 10 || pre[a] === 13)) a++;
    let e = a;
    while (e < len && pre[e] !== 10 && pre[e] !== 13) e++;
    if (e === len && !atEnd) return undefined;
    return a < e ? decodeValid(pre, a, e) : null;
  }

  /** Windows-1252's characters for the bytes 80-9F ('' where it has none: 81, 8D, 8F,
   * 90, 9D); from A0 on it is Latin-1, the byte's own code point. */
  const CP1252_HIGH = '\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u017d' +
    '\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u017e\u0178';
  const CP1252_UNDEFINED = [0x81, 0x8d, 0x8f, 0x90, 0x9d];

  /** SPEC 0.6: what is said of a file whose first ill-formed UTF-8 sequence starts with
   * `byte` (0x80-0xFF): the character Windows-1252 reads there, the encoding to pass
   * (Latin-1 for the five bytes Windows-1252 leaves undefined). */
  function notUtf8(byte) {
    let what = 'a control character in Latin-1';
    let option = 'latin-1';
    let encoding = 'Latin-1';
    if (!CP1252_UNDEFINED.includes(byte)) {
      const char = byte >= 0xa0 ? String.fromCharCode(byte)
        : CP1252_HIGH[byte - 0x80 - CP1252_UNDEFINED.filter((u) => u < byte).length];
      what = `'${char}' in Windows-1252`;
      option = 'cp1252';
      encoding = 'Windows-1252';
    }
    const hex = byte.toString(16).toUpperCase().padStart(2, '0');
    return `not valid UTF-8 (the byte ${hex}, ${what}); re-save the file as UTF-8, or pass its encoding: --encoding ${option} if it is ${encoding}`;
  }

  const DOS_EOF = 0x1a; // Ctrl-Z: DOS's end-of-file mark

  /** SPEC 0.2: how many bytes at the end of b[start, end) are a line holding only a
   * Ctrl-Z (0x1A, then CR, LF, CRLF or nothing) that starts a line (`before`: the byte
   * handed on before b[start], -1 for none); 0 when they are not. */
  function dosEofLength(b, start, end, before) {
    let k = end;
    if (k > start && b[k - 1] === 10) k--;
    if (k > start && b[k - 1] === 13) k--;
    if (k === start || b[k - 1] !== DOS_EOF) return 0;
    k--;
    const prev = k > start ? b[k - 1] : before;
    return prev === -1 || prev === 10 || prev === 13 ? end - k : 0;
  }

  const NO_BYTES = new Uint8Array(0);

  /** A growable byte buffer. */
  function appendBytes(buf, len, b, s, e) {
    const need = len + (e - s);
    if (need > buf.length) {
      const grown = new Uint8Array(Math.max(buf.length * 2, need));
      grown.set(buf.subarray(0, len));
      buf = grown;
    }
    if (e - s < 64) for (let k = s; k < e; k++) buf[len++] = b[k];
    else buf.set(b.subarray(s, e), len);
    return buf;
  }

  /**
   * The CSV scanner (SPEC 0.1, 0.2, 0.3): bytes -> header and records. It validates
   * UTF-8, drops skip_lines, sniffs the delimiter and runs the state machine; what a
   * record means is the sink's: CountSink counts cells (profiling), RecordSink keeps
   * records as text (references). A sink has:
   *   keepsAll             decode every field as text and hand it to record()
   *   setHeader(names)     -> Uint8Array, 1 where a column's cells go to cell() (the
   *                        sink may clear an entry later: that column is then skipped;
   *                        or set it to 2: then only cells of up to sink.quickLen[c]
   *                        bytes, or padded, go to cell(), as only those can be missing)
   *   checkHeader()        once the header is known (may throw an InputError)
   *   cell(c, b, s, e)     the untrimmed bytes of a wanted field of column c
   *   record(nf, fields, line)  a data record of nf <= width fields has ended
   *   end()                the input has ended
   */
  /**
   * What a binary input is, told by its first bytes once reading it as text failed (a
   * NUL or invalid UTF-8): the rest of the one-line message naming it, or null. The
   * formats of faircode/reader.py BINARY_FORMATS, in its order (SPEC 0.6): neither
   * engine reads these.
   */
  function binaryFormat(head) {
    const starts = (...magic) => headStarts(head, magic);
    if (starts(0xff, 0xfe, 0x00, 0x00)) return 'a UTF-32 file (byte order mark FF FE 00 00); re-save it as UTF-8 or pass --encoding utf-32';
    if (starts(0x00, 0x00, 0xfe, 0xff)) return 'a UTF-32 file (byte order mark 00 00 FE FF); re-save it as UTF-8 or pass --encoding utf-32';
    if (starts(0xff, 0xfe)) return 'a UTF-16 file (byte order mark FF FE); re-save it as UTF-8 or pass --encoding utf-16';
    if (starts(0xfe, 0xff)) return 'a UTF-16 file (byte order mark FE FF); re-save it as UTF-8 or pass --encoding utf-16';
    if (starts(0x50, 0x4b, 0x03, 0x04)) {
      return 'a ZIP archive (an Excel .xlsx or OpenDocument .ods workbook is one), not CSV; export the sheet as CSV';
    }
    if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'a PDF document, not CSV; export the table as CSV';
    if (starts(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) {
      return 'an OLE2 compound file (an Excel .xls workbook is one), not CSV; export the sheet as CSV';
    }
    const compressed = 'faircode reads CSV as it is or gzip-compressed: decompress it first';
    if (starts(0x42, 0x5a, 0x68)) return `a bzip2-compressed file; ${compressed} (bunzip2)`;
    if (starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) return `an xz-compressed file; ${compressed} (unxz)`;
    if (starts(0x28, 0xb5, 0x2f, 0xfd)) return `a Zstandard-compressed file; ${compressed} (unzstd)`;
    if (starts(...Array.from('SQLite format 3', (c) => c.charCodeAt(0)), 0)) {
      return 'an SQLite database, not CSV; export the table as CSV';
    }
    const notTable = 'not a table; give the data as a CSV file';
    if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return `a PNG image, ${notTable}`;
    if (starts(0xff, 0xd8, 0xff)) return `a JPEG image, ${notTable}`;
    if (starts(0x47, 0x49, 0x46, 0x38)) return `a GIF image, ${notTable}`;
    return utf16WithoutBom(head);
  }

  /** A UTF-16 file without a byte order mark, told by its first bytes (at least 4, in
   * pairs): ASCII text with every other byte 00, or null (reader.py utf16_without_bom). */
  function utf16WithoutBom(head) {
    const n = head.length - (head.length % 2);
    if (n < 4) return null;
    for (const [order, text] of [['little', 0], ['big', 1]]) {
      let ok = true;
      for (let i = 0; i < n && ok; i += 2) {
        const t = head[i + text];
        ok = head[i + 1 - text] === 0 && t > 0 && t < 0x80;
      }
      if (ok) {
        return `a UTF-16 file without a byte order mark (${order}-endian: every other byte of its start is 00); re-save it as UTF-8 or pass --encoding utf-16-${order[0]}e`;
      }
    }
    return null;
  }

  /** Whether the bytes `head` start with the bytes `magic`. */
  function headStarts(head, magic) {
    return magic.length <= head.length && magic.every((b, i) => head[i] === b);
  }

  /**
   * What a file the Python engine reads but this engine's profiler does not is, told by
   * its first bytes once reading it as text failed: gzip bytes pushed undecompressed,
   * Parquet, Arrow (SPEC 0.8); the rest of the one-line message, or null. Only for a
   * file's own bytes: in the decompressed bytes of a gzip file both engines read CSV,
   * and Python names none of these there (binaryFormat alone).
   */
  function unreadFormat(head) {
    const starts = (...magic) => headStarts(head, magic);
    if (starts(0x1f, 0x8b)) {
      return 'a gzip-compressed file; the browser engine reads uncompressed CSV only (decompress it first, e.g. gunzip, or profile it with the Python engine)';
    }
    const other = 'the browser engine reads CSV only (profile it with the Python engine: faircode profile)';
    if (starts(0x50, 0x41, 0x52, 0x31)) return `a Parquet file; ${other}`;
    if (starts(0x41, 0x52, 0x52, 0x4f, 0x57, 0x31)) return `an Arrow IPC file; ${other}`;
    if (starts(0xff, 0xff, 0xff, 0xff)) return `an Arrow IPC stream; ${other}`;
    return null;
  }

  // The field scan in WebAssembly SIMD (assets/scan.wat): sixteen bytes a step, the
  // offsets of the delimiter, '"', CR and LF of up to SCAN_WINDOW bytes at a time. The
  // scalar scan in parse() gives the same fields; it runs where WebAssembly cannot
  // (a policy that refuses it, no WebAssembly) or when a profiler is made with
  // `simd: false` (tests compare the two). benchmarks/README.md: 9% less counting time
  // under Node, the website's result 11% sooner.
  const SCAN_WINDOW = 1 << 20; // bytes per scan; the offsets follow them in its memory
  // SCAN_WASM begin (scripts/build_scan_wasm.js writes these lines)
  const SCAN_WASM = new Uint8Array([
    0, 97, 115, 109, 1, 0, 0, 0, 1, 13, 2, 96, 3, 127, 127, 127, 1, 127, 96, 1, 127, 1, 127, 3,
    3, 2, 0, 1, 5, 3, 1, 0, 80, 7, 22, 3, 3, 109, 101, 109, 2, 0, 4, 115, 99, 97, 110, 0,
    0, 5, 99, 104, 101, 99, 107, 0, 1, 10, 136, 5, 2, 229, 1, 5, 3, 127, 1, 123, 1, 127, 1, 123,
    1, 127, 65, 128, 128, 192, 0, 33, 7, 32, 1, 253, 15, 33, 8, 32, 0, 65, 112, 113, 33, 4, 2, 64,
    3, 64, 32, 3, 32, 4, 79, 13, 1, 32, 3, 253, 0, 4, 0, 33, 6, 32, 6, 32, 8, 253, 35, 32,
    6, 65, 10, 253, 15, 253, 35, 253, 80, 32, 6, 65, 34, 253, 15, 253, 35, 32, 6, 65, 13, 253, 15, 253,
    35, 253, 80, 253, 80, 253, 100, 33, 5, 2, 64, 3, 64, 32, 5, 69, 13, 1, 32, 7, 32, 2, 32, 3,
    32, 5, 104, 106, 106, 54, 2, 0, 32, 7, 65, 4, 106, 33, 7, 32, 5, 32, 5, 65, 1, 107, 113, 33,
    5, 12, 0, 11, 11, 32, 3, 65, 16, 106, 33, 3, 12, 0, 11, 11, 2, 64, 3, 64, 32, 3, 32, 0,
    79, 13, 1, 32, 3, 45, 0, 0, 33, 9, 32, 9, 32, 1, 70, 32, 9, 65, 10, 70, 114, 32, 9, 65,
    34, 70, 32, 9, 65, 13, 70, 114, 114, 4, 64, 32, 7, 32, 2, 32, 3, 106, 54, 2, 0, 32, 7, 65,
    4, 106, 33, 7, 11, 32, 3, 65, 1, 106, 33, 3, 12, 0, 11, 11, 32, 7, 65, 128, 128, 192, 0, 107,
    65, 2, 118, 11, 158, 3, 3, 2, 127, 1, 123, 6, 127, 2, 64, 3, 64, 32, 1, 32, 0, 79, 13, 1,
    32, 1, 65, 16, 106, 32, 0, 77, 4, 64, 32, 1, 253, 0, 4, 0, 33, 3, 32, 3, 32, 3, 253, 12,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 253, 35, 253, 80, 253, 100, 33, 2,
    32, 2, 69, 4, 64, 32, 1, 65, 16, 106, 33, 1, 12, 2, 11, 32, 1, 32, 2, 104, 106, 33, 1, 11,
    32, 1, 45, 0, 0, 33, 4, 32, 4, 69, 4, 64, 32, 1, 65, 1, 116, 65, 1, 106, 15, 11, 32, 4,
    65, 128, 1, 73, 4, 64, 32, 1, 65, 1, 106, 33, 1, 12, 1, 11, 65, 128, 1, 33, 6, 65, 191, 1,
    33, 7, 2, 64, 32, 4, 65, 194, 1, 79, 32, 4, 65, 223, 1, 77, 113, 4, 64, 65, 1, 33, 5, 12,
    1, 11, 32, 4, 65, 224, 1, 70, 4, 64, 65, 2, 33, 5, 65, 160, 1, 33, 6, 12, 1, 11, 32, 4,
    65, 237, 1, 70, 4, 64, 65, 2, 33, 5, 65, 159, 1, 33, 7, 12, 1, 11, 32, 4, 65, 225, 1, 79,
    32, 4, 65, 239, 1, 77, 113, 4, 64, 65, 2, 33, 5, 12, 1, 11, 32, 4, 65, 240, 1, 70, 4, 64,
    65, 3, 33, 5, 65, 144, 1, 33, 6, 12, 1, 11, 32, 4, 65, 244, 1, 70, 4, 64, 65, 3, 33, 5,
    65, 143, 1, 33, 7, 12, 1, 11, 32, 4, 65, 241, 1, 79, 32, 4, 65, 243, 1, 77, 113, 4, 64, 65,
    3, 33, 5, 12, 1, 11, 32, 1, 65, 1, 116, 15, 11, 32, 1, 32, 5, 106, 32, 0, 79, 4, 64, 32,
    1, 65, 1, 116, 15, 11, 32, 1, 45, 0, 1, 33, 9, 32, 9, 32, 6, 73, 32, 9, 32, 7, 75, 114,
    4, 64, 32, 1, 65, 1, 116, 15, 11, 65, 2, 33, 8, 2, 64, 3, 64, 32, 8, 32, 5, 75, 13, 1,
    32, 1, 32, 8, 106, 45, 0, 0, 33, 9, 32, 9, 65, 128, 1, 73, 32, 9, 65, 191, 1, 75, 114, 4,
    64, 32, 1, 65, 1, 116, 15, 11, 32, 8, 65, 1, 106, 33, 8, 12, 0, 11, 11, 32, 1, 32, 5, 65,
    1, 106, 106, 33, 1, 12, 0, 11, 11, 65, 127, 11,
  ]);
  // SCAN_WASM end
  let fieldScan; // the one instance (parse() uses it within one call): null if unavailable

  function simdFieldScan() {
    if (fieldScan === undefined) {
      try {
        const { exports } = new WebAssembly.Instance(new WebAssembly.Module(SCAN_WASM), {});
        fieldScan = {
          scan: exports.scan,
          check: exports.check,
          heap: new Uint8Array(exports.mem.buffer, 0, SCAN_WINDOW),
          offs: new Int32Array(exports.mem.buffer, SCAN_WINDOW, SCAN_WINDOW),
          // the bytes whose [0, heldTo) the heap holds (copied by simdFirstBadByte and
          // left for parse's first scan), or null
          held: null,
          heldTo: 0,
          scannedTo: 0, // the end of scanWindow's last window
        };
      } catch (e) {
        fieldScan = null;
      }
    }
    return fieldScan;
  }

  /** firstBadByte(bytes, end) through the SIMD module's check (assets/scan.wat). The
   * bytes stay in its memory, marked held, so parse's scan of them need not copy them
   * again. push() checks PIECE bytes (and a carried character) at a time: always one
   * window. */
  function simdFirstBadByte(sc, bytes, end) {
    sc.held = null;
    sc.heap.set(bytes.subarray(0, end));
    const r = sc.check(end);
    if (r >= 0) {
      badIsNul = (r & 1) === 1;
      return r >> 1;
    }
    sc.held = bytes;
    sc.heldTo = end;
    return -1;
  }

  /** The SIMD scan of the next window of b from `from` for the delimiter d: b[from, to),
   * to = min(n, from + SCAN_WINDOW), left in sc.scannedTo; returns how many offsets it
   * wrote to sc.offs. push's UTF-8 check may have left these very bytes in the heap:
   * then none are copied. (The copy is not skipped by a branch in parse(): rarely
   * taken, it cost parse() its optimised code the first time.) */
  function scanWindow(sc, b, from, n, d) {
    const to = n - from > SCAN_WINDOW ? from + SCAN_WINDOW : n;
    sc.scannedTo = to;
    const held = sc.held === b && from === 0 && sc.heldTo === to;
    sc.heap.set(b.subarray(from, held ? from : to));
    sc.held = null;
    return sc.scan(to - from, d, from);
  }

  class CsvScanner {
    constructor(name, opts, sink, simd = true, decompressed = false) {
      this.name = name;
      // the bytes are a gzip file's, decompressed: a format is named as Python's CSV
      // reader names it (binaryFormat only; SPEC 0.8)
      this.decompressed = decompressed;
      this.simd = simd ? simdFieldScan() : null;
      this.opts = opts;
      this.sink = sink;
      this.finished = false;

      // Byte layer.
      this.carry = null; // held-back bytes of an incomplete character
      this.offset = 0; // file offset of the next byte to validate
      this.atStart = true; // no byte handed on yet (a BOM may still be dropped)
      this.eofHeld = NO_BYTES; // a possible DOS end-of-file line, held back (dosEofLength)
      this.lastFed = -1; // the last byte handed on (-1: none, or only a BOM)
      // the first bytes of the input: which format it is (the longest magic, SQLite's)
      this.head = new Uint8Array(16);
      this.headLen = 0;
      this.deferred = null; // a bad byte among the first 16, reported once they are known

      // Pre-phase: skipped lines, then buffer the first non-blank physical line for
      // delimiter sniffing.
      this.toSkip = opts.skip_lines;
      this.skipPendingCR = false;
      this.pre = new Uint8Array(0); // buffered bytes not yet handed to the parser
      this.preLen = 0;
      this.preScan = 0; // pre[0, preScan) holds no line end of the first non-blank line
      this.preLineStart = -1; // where the first non-blank line starts in pre, once seen
      this.prePhase = true;
      this.skipped = 0; // physical lines dropped by skip_lines
      this.skipPartial = false; // bytes of a line being dropped, its end not yet read

      // Parser.
      this.delim = opts.delimiter ? opts.delimiter.charCodeAt(0) : -1;
      this.stop = null; // byte -> 1 if it ends an unquoted field (set with the delimiter)
      this.stopMax = 0; // the highest byte stop marks
      this.state = REC_START;
      this.line = 1;
      this.recLine = 1;
      this.pendingCR = false; // a record-ending CR was the last byte: swallow one LF
      this.qPendingCR = false; // a CR inside quotes ended the last chunk
      // The current field's bytes when they are not one slice of the current chunk
      // (quoted, or split across chunks): acc[0, accLen).
      this.acc = new Uint8Array(256);
      this.accLen = 0;
      this.inAcc = false;
      this.keep = 1; // the current field's bytes are needed (keepCol's 1 or 2; 0: skipped)
      this.nf = 0; // fields of the current record so far
      this.extraFull = false; // a field past the header's width has a character
      this.fields = []; // decoded fields (header record, or every record when keepAll)
      this.keepAll = true; // decode every field (header not read yet, or sink.keepsAll)
      this.keepCol = new Uint8Array(0); // the sink's: 1 where cells go to sink.cell()
      this.quick = NO_QUICK; // the sink's quickLen (for its columns of keepCol 2)

      // Table.
      this.header = null;
      this.headerLine = null; // the header record's line (none with names)
      this.width = 0;
      this.nRows = 0;
      this.headerChecked = false;
      // SPEC 0.3: the header record's raw fields (strings, and bytes) a data record must
      // not repeat; h0 the first one's byte length, -1: no check (names, one field).
      this.record = null;
      this.hraw = null;
      this.h0 = -1;
      this.same = false; // the current record's fields so far equal the header record's
      this.cmp = false; // the current field is compared with the header record's
      if (opts.names) this.setHeader(cleanHeader(opts.names));
    }

    /** The header record a data record must not repeat (SPEC 0.3): the header's raw
     * fields, or for a later part of a file (read with names) its first part's. */
    setRecord(fields) {
      if (!fields || fields.length < 2) return; // one field equal to its name is a value
      this.record = fields.slice();
      this.hraw = fields.map(utf8Encode);
      this.h0 = this.hraw[0].length;
    }

    setHeader(names) {
      this.header = names;
      this.width = names.length;
      this.keepAll = this.sink.keepsAll;
      this.keepCol = this.sink.setHeader(names);
      this.quick = this.sink.quickLen || NO_QUICK;
    }

    /** The sink checks the header once it is known: after the header record, or with
     * `names` after the first non-blank physical line (as the Python engine). */
    checkHeader() {
      if (this.headerChecked) return;
      this.headerChecked = true;
      try {
        this.sink.checkHeader();
      } catch (e) {
        this.finished = true;
        throw e;
      }
    }

    // ----- byte layer -----------------------------------------------------------------

    push(chunk) {
      if (this.finished) throw new Error('push() after finish()');
      // Bytes only: a string (a TextDecoderStream's chunk), a DataView or null would
      // otherwise become zero bytes and a silently wrong result (issue 14).
      if (chunk instanceof ArrayBuffer) chunk = new Uint8Array(chunk);
      else if (!(chunk instanceof Uint8Array)) {
        const what = chunk === null ? 'null' : Array.isArray(chunk) ? 'an array' : typeof chunk === 'object' ? (chunk.constructor && chunk.constructor.name) || 'an object' : `a ${typeof chunk}`;
        throw new TypeError(`push() takes bytes (a Uint8Array or an ArrayBuffer), not ${what}`);
      }
      // A big chunk is checked and parsed a piece at a time, as if pushed so: each piece
      // is still in the CPU's cache when it is parsed.
      // Pieces end before a character's lead byte, so none is carried over.
      const n = chunk.length;
      let p = 0;
      while (n - p > PIECE) {
        let q = p + PIECE;
        for (let k = 0; k < 3 && (chunk[q] & 0xc0) === 0x80; k++) q--;
        this.pushBytes(chunk.subarray(p, q));
        p = q;
      }
      if (p < n) this.pushBytes(p === 0 ? chunk : chunk.subarray(p, n));
    }

    pushBytes(chunk) {
      if (this.headLen < this.head.length) {
        const take = Math.min(this.head.length - this.headLen, chunk.length);
        this.head.set(chunk.subarray(0, take), this.headLen);
        this.headLen += take;
      }
      if (this.deferred) { // an error at the first bytes, waiting for the magic's end
        if (this.headLen >= this.head.length) this.throwDeferred();
        return;
      }
      let bytes;
      if (this.carry) {
        bytes = new Uint8Array(this.carry.length + chunk.length);
        bytes.set(this.carry, 0);
        bytes.set(chunk, this.carry.length);
        this.carry = null;
      } else {
        // A plain Uint8Array view (not a Node Buffer) keeps the parser's element
        // accesses monomorphic.
        bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
      }
      const base = this.offset;
      const cut = completeLength(bytes);
      const bad = this.simd !== null ? simdFirstBadByte(this.simd, bytes, cut) : firstBadByte(bytes, cut);
      // Bytes before a bad byte are read first: earlier records are checked first (0.6).
      try {
        this.feed(bytes, bad >= 0 ? bad : cut);
      } finally {
        // the held window is for this piece's parse only: no longer pinned (it is a view
        // of the caller's buffer), also when the piece ends the input with an error
        if (this.simd !== null) this.simd.held = null;
      }
      if (bad >= 0) {
        const kind = badIsNul ? 'nul' : 'utf8';
        if (this.headLen < this.head.length) {
          // what the file is, is told by its first 16 bytes (as Python's reader has
          // them, whatever the chunks): the error waits for them (or the end)
          this.deferred = { offset: base + bad, kind, byte: bytes[bad] };
          return;
        }
        this.finished = true;
        throw this.byteError(base + bad, kind, bytes[bad]);
      }
      this.offset = base + cut;
      if (cut < bytes.length) this.carry = bytes.slice(cut);
    }

    throwDeferred() {
      this.finished = true;
      throw this.byteError(this.deferred.offset, this.deferred.kind, this.deferred.byte);
    }

    byteError(offset, kind, byte) {
      const head = this.head.subarray(0, this.headLen);
      const format = (this.decompressed ? null : unreadFormat(head)) || binaryFormat(head);
      if (format !== null) return new InputError(`${this.name}: ${format}`);
      if (kind === 'nul') {
        return new InputError(`${this.name}: byte ${offset}: NUL byte; this looks like a binary file, not CSV`);
      }
      return new InputError(`${this.name}: byte ${offset}: ${notUtf8(byte)}`);
    }

    /** Hand on validated bytes[0, end). */
    feed(bytes, end) {
      let start = 0;
      if (end === 0) return;
      if (this.atStart) {
        this.atStart = false;
        // A BOM is a whole character, so it is complete here if it is present at all.
        if (end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
        if (start === end) return;
      }
      if (this.eofHeld.length) { // more bytes came: the held line was no last line
        const joined = new Uint8Array(this.eofHeld.length + end - start);
        joined.set(this.eofHeld, 0);
        joined.set(bytes.subarray(start, end), this.eofHeld.length);
        this.eofHeld = NO_BYTES;
        bytes = joined;
        start = 0;
        end = joined.length;
      }
      // SPEC 0.2: a last line holding only a Ctrl-Z is held back until more bytes come
      const held = dosEofLength(bytes, start, end, this.lastFed);
      if (held) {
        this.eofHeld = bytes.slice(end - held, end);
        end -= held;
        if (start === end) return;
      }
      this.lastFed = bytes[end - 1];
      if (this.prePhase) this.preFeed(bytes, start, end);
      else this.parse(bytes, start, end);
    }

    // ----- pre-phase: skip_lines, then find the first non-blank physical line -----

    preFeed(b, i, n) {
      if (this.skipPendingCR) {
        this.skipPendingCR = false;
        if (b[i] === 10) i++;
      }
      // Drop skip_lines physical lines (CRLF, LF or lone CR each end one).
      while (this.toSkip > 0 && i < n) {
        let j = i;
        while (j < n) { const c = b[j]; if (c === 10 || c === 13) break; j++; }
        if (j === n) { // the rest of this line comes in a later chunk
          if (j > i) this.skipPartial = true;
          return;
        }
        this.skipPartial = false;
        this.toSkip--;
        this.skipped++;
        if (b[j] === 13) {
          if (j + 1 < n) { if (b[j + 1] === 10) j++; }
          else this.skipPendingCR = true;
        }
        i = j + 1;
      }
      if (this.toSkip > 0) return;
      if (this.skipPendingCR) return; // (i === n) the LF decision waits for more bytes
      this.pre = appendBytes(this.pre, this.preLen, b, i, n);
      this.preLen += n - i;
      if (this.delim >= 0 && !this.opts.names) { this.endPrePhase(); return; }
      // Sniffing needs the first physical line that is not blank. preScan remembers how
      // far previous chunks were searched, so a long first line is scanned once.
      const pre = this.pre;
      const len = this.preLen;
      let k = this.preLineStart;
      if (k < 0) {
        k = this.preScan;
        while (k < len) {
          const c = pre[k];
          if (c !== 10 && c !== 13) break; // blank lines (CRLF = CR + LF here)
          k++;
        }
        if (k === len) { this.preScan = k; return; }
        this.preLineStart = k;
        this.preScan = k;
      }
      let j = this.preScan;
      while (j < len) { const d = pre[j]; if (d === 10 || d === 13) break; j++; }
      if (j === len) { this.preScan = j; return; } // first line incomplete: wait
      if (this.delim < 0) {
        const next = sniffNext(pre, k, j, len, false);
        if (next === undefined) return; // a tie: the next line decides, and is incomplete
        this.delim = sniffDelimiter(decodeValid(pre, k, j), next).charCodeAt(0);
      }
      if (this.opts.names) this.checkHeader();
      this.endPrePhase();
    }

    endPrePhase() {
      this.prePhase = false;
      // Bytes that end an unquoted field: the delimiter, CR and LF.
      this.stop = new Uint8Array(256);
      this.stop[this.delim] = 1;
      this.stop[13] = 1;
      this.stop[10] = 1;
      this.stopMax = Math.max(this.delim, 13); // the highest of them (parse's scan)
      this.line = 1 + this.skipped;
      const pre = this.pre;
      const len = this.preLen;
      this.pre = NO_BYTES;
      this.preLen = 0;
      if (len) this.parse(pre, 0, len);
    }

    // ----- the CSV state machine (SPEC 0.2) ------------------------------------------

    /** Append b[s, e) to the current field's buffer. */
    append(b, s, e) {
      if (e > s) {
        this.acc = appendBytes(this.acc, this.accLen, b, s, e);
        this.accLen += e - s;
      }
    }

    /** Parse bytes b[i, n) (n > i). Delimiters, quotes, CR and LF are ASCII, so the
     * state machine runs on bytes exactly as on characters. */
    parse(b, i, n) {
      const D = this.delim;
      const stop = this.stop;
      const hi = this.stopMax; // bytes above it never end an unquoted field
      let st = this.state;
      let line = this.line;
      // The SIMD scan's offsets of b[.., wEnd): offs[oi, on) not yet passed (both scans
      // below only move forward, so each window is scanned once).
      const sc = this.simd;
      const offs = sc !== null ? sc.offs : NO_QUICK;
      let wEnd = i;
      let oi = 0;
      let on = 0;
      if (this.pendingCR) {
        this.pendingCR = false;
        if (b[i] === 10) i++;
      }
      let seg = i; // start of the not yet consumed part of the current field in b
      if (this.qPendingCR) {
        // A CR inside quotes ended the previous chunk: a following LF is the same line
        // end (not counted again), and is kept in the field.
        this.qPendingCR = false;
        if (st === QUOTED && b[i] === 10) {
          if (this.keep) this.append(b, i, i + 1);
          i++;
          seg = i;
        }
      }
      while (i < n) {
        if (st === REC_START) {
          const c = b[i];
          if (c === 13) {
            line++;
            i++;
            if (i < n) { if (b[i] === 10) i++; } else this.pendingCR = true;
            continue;
          }
          if (c === 10) { line++; i++; continue; }
          this.recLine = line;
          this.nf = 0;
          this.extraFull = false;
          this.same = false;
          st = FIELD_START;
        }
        if (st === FIELD_START && sc !== null && b[i] !== 34 && !this.keepAll && !this.same) {
          // Unquoted fields one after another, ended by the SIMD scan's offsets, with
          // their state in locals (no per-field keep, accLen, inAcc): most fields of
          // most files. Left to the general path below: a field that starts with a
          // quote, and one that runs past n (the path below appends it).
          const keepCol = this.keepCol;
          const quick = this.quick;
          const width = this.width;
          const sink = this.sink;
          const h0 = this.h0; // a first field this long may repeat the header's (SPEC 0.3)
          const h3 = h0 < 0 ? -1 : h0 + 3; // or this long, after a BOM
          let nf = this.nf;
          let past = false;
          let same = false;
          for (;;) {
            let p = -1; // the field's end: its first delimiter, CR or LF
            for (;;) {
              if (oi === on) {
                if (wEnd >= n) break;
                on = scanWindow(sc, b, wEnd > i ? wEnd : i, n, D);
                wEnd = sc.scannedTo;
                oi = 0;
                continue;
              }
              const q = offs[oi];
              oi++;
              if (q < i || b[q] === 34) continue; // passed, or a quote inside the field: data
              p = q;
              break;
            }
            if (p < 0) { past = true; break; }
            if (nf === 0 && h0 >= 0 && (p - i === h0 || (p - i >= h3 && (p - i === h3 || b[i + 3] === 34))) && sameFirst(b, i, p, this.hraw[0])) same = this.same = true;
            const k = nf < width ? keepCol[nf] : 0;
            if (k === 1 || (k === 2 && !longUnpadded(b, i, p, quick[nf]))) sink.cell(nf, b, i, p);
            else if (nf >= width && p > i) this.extraFull = true; // a long row's extra field
            nf++;
            const c = b[p];
            i = p + 1;
            if (c === D) {
              if (i < n && b[i] !== 34 && !same) continue;
              break; // a quoted field next, the end of b, or a record to compare: from FIELD_START at i
            }
            this.nf = nf;
            this.line = line;
            this.endRecord();
            line++;
            if (c === 13) {
              if (i < n) { if (b[i] === 10) i++; } else this.pendingCR = true;
            }
            st = REC_START;
            break;
          }
          this.nf = nf;
          if (!past) continue;
        }
        if (st === FIELD_START) {
          // Fields of ignored, dead or surplus columns are scanned, never copied.
          this.startField();
          this.accLen = 0;
          if (b[i] === 34) { st = QUOTED; i++; seg = i; this.inAcc = true; continue; }
          st = UNQUOTED;
          seg = i;
          this.inAcc = false;
        }
        // j: where the field ends (c = b[j]) or n. With the SIMD scan, from its offsets:
        // in an unquoted field the first delimiter, CR or LF from i on; in a quoted one
        // the first quote, the line ends on the way counted (a CRLF once). Without it,
        // by the byte loops of the two states below.
        let j = i;
        let c = 0;
        if (sc !== null && (st === UNQUOTED || st === QUOTED)) {
          const quoted = st === QUOTED;
          for (;;) {
            if (oi === on) {
              if (wEnd >= n) { j = n; break; }
              on = scanWindow(sc, b, wEnd > j ? wEnd : j, n, D);
              wEnd = sc.scannedTo;
              oi = 0;
              continue;
            }
            const p = offs[oi];
            if (p < j) { oi++; continue; }
            c = b[p];
            oi++;
            if (!quoted) {
              if (c === 34) continue; // a quote inside an unquoted field is data
              j = p;
              break;
            }
            if (c === 34) { j = p; break; }
            j = p + 1;
            if (c === 13) {
              line++;
              if (j < n) { if (b[j] === 10) j++; } else this.qPendingCR = true;
            } else if (c === 10) line++;
          }
        }
        if (st === UNQUOTED) {
          // Without the SIMD scan: the first stop byte from i on (c = b[j]), or n. Bytes
          // above hi are never one (most text and digits). Eight bytes a step while there
          // are eight: the loop's own tests cost as much as the bytes'.
          if (sc === null) for (;;) {
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
              while (j < n) {
                c = b[j];
                if (c <= hi && stop[c] !== 0) break;
                j++;
              }
              break;
            }
          }
          if (j === n) {
            // The field continues in the next chunk.
            if (this.keep) this.append(b, seg, n);
            this.inAcc = true;
            i = n;
            break;
          }
          if (this.inAcc) {
            if (this.keep) this.append(b, seg, j);
            this.field(this.acc, 0, this.accLen);
          } else if (this.keep) {
            // A column read only for its missing cells (keep 2): a cell longer than any
            // missing label, not padded, is not missing; no call for it.
            if (this.keep === 2 && longUnpadded(b, seg, j, this.quick[this.nf])) this.nf++;
            else this.field(b, seg, j);
          } else {
            this.nf++;
          }
          if (c === D) { st = FIELD_START; i = j + 1; continue; }
          this.line = line;
          this.endRecord();
          line++;
          i = j + 1;
          if (c === 13) {
            if (i < n) { if (b[i] === 10) i++; } else this.pendingCR = true;
          }
          st = REC_START;
          continue;
        }
        if (st === QUOTED) {
          if (sc === null) while (j < n) {
            const c = b[j];
            if (c === 34) break;
            if (c === 13) {
              line++;
              if (j + 1 < n) { if (b[j + 1] === 10) j++; } else this.qPendingCR = true;
            } else if (c === 10) line++;
            j++;
          }
          if (this.keep === 2 && this.accLen === 0 && longUnpadded(b, seg, j, this.quick[this.nf])) {
            // A column read only for its missing cells (keep 2): the value starts with
            // b[seg, j), longer than any missing label and not padded, and whatever
            // follows only lengthens it: not missing, so its bytes are not kept.
            this.keep = 0;
          } else if (this.keep) this.append(b, seg, j);
          if (j === n) { i = n; break; }
          i = j + 1;
          st = QUOTE_IN_QUOTED;
          continue;
        }
        // QUOTE_IN_QUOTED
        if (b[i] === 34) {
          // '""': one literal quote; the field stays quoted.
          if (this.keep) this.append(b, i, i + 1);
          i++;
          seg = i;
          st = QUOTED;
          continue;
        }
        // The field closed: what follows up to the delimiter or line end is appended.
        st = UNQUOTED;
        seg = i;
      }
      this.state = st;
      this.line = line;
    }

    /** Whether the bytes of field number nf of a record are needed: 0 no, 1 yes, 2 only
     * when the cell can be missing (keepCol). */
    wants(nf) {
      if (this.keepAll) return 1;
      return nf < this.width ? this.keepCol[nf] : 1; // a long row's extra field: is it empty?
    }

    /** A field starts: whether its bytes are kept (keep) and compared with the header
     * record's (cmp: the record's first field, or every field of a record that so far
     * repeats the header, SPEC 0.3). A compared field's bytes are kept whole: 3 when
     * only for the comparison, 1 for a column read for its missing cells (2: the sink
     * takes any cell). */
    startField() {
      const keep = this.wants(this.nf);
      this.cmp = this.h0 >= 0 && (this.nf === 0 || this.same);
      this.keep = this.cmp && keep !== 1 ? (keep === 0 ? 3 : 1) : keep;
    }

    /** One complete field, bytes b[s, e) before trimming. this.keep says whether it is
     * wanted (else b[s, e) may be incomplete). */
    field(b, s, e) {
      const c = this.nf++;
      if (this.cmp) this.same = c < this.hraw.length && (c === 0 ? sameFirst : sameBytes)(b, s, e, this.hraw[c]);
      if (!this.keep || this.keep === 3) return; // ignored or dead column
      if (this.keepAll) this.fields[c] = decodeValid(b, s, e);
      else if (c < this.width) this.sink.cell(c, b, s, e);
      else if (e > s) this.extraFull = true; // a long row's extra field (longRow)
    }

    endRecord() {
      const nf = this.nf;
      if (this.header === null) {
        this.headerLine = this.recLine;
        this.setRecord(this.fields.slice(0, nf));
        this.setHeader(cleanHeader(this.fields.slice(0, nf)));
        this.fields = [];
        const jsonText = jsonHeader(this.header) ?? markupHeader(this.header) ?? sepLine(this.header, String.fromCharCode(this.delim), this.headerLine);
        if (jsonText !== null) {
          this.finished = true;
          throw new InputError(`${this.name}: ${jsonText}`);
        }
        const split = this.opts.one_column ? null : oneColumnSplit(this.header, String.fromCharCode(this.delim));
        if (split !== null) {
          this.finished = true;
          throw new InputError(`${this.name}: ${split}`);
        }
        this.checkHeader();
        return;
      }
      if (this.nRows === 0 && this.opts.names && !this.opts.delimiter) {
        // SPEC 0.2: with names, the first record is the only sign the sniffed delimiter is right
        const wrong = namesFirstRecord(nf, this.width, String.fromCharCode(this.delim), this.recLine);
        if (wrong !== null) {
          this.finished = true;
          throw new InputError(`${this.name}: ${wrong}`);
        }
      }
      if (nf > this.width) {
        this.finished = true;
        const firstBelow = this.nRows === 0 ? this.headerLine : null;
        const extraEmpty = this.keepAll ? this.fields.slice(this.width, nf).every((f) => f === '') : !this.extraFull;
        const delim = String.fromCharCode(this.delim);
        throw new InputError(`${this.name}: ${longRow(nf, this.width, this.recLine, Boolean(this.opts.names), firstBelow, extraEmpty ? delim : null)}`);
      }
      if (this.same && nf === this.hraw.length) {
        this.finished = true;
        throw new InputError(`${this.name}: ${repeatedHeader(this.recLine)}`);
      }
      this.nRows++;
      this.sink.record(nf, this.fields, this.recLine);
    }

    // ----- end of input ---------------------------------------------------------------

    finish() {
      if (this.finished) throw new Error('finish() called twice or after an error');
      if (this.deferred) this.throwDeferred();
      if (this.carry) {
        // A multi-byte sequence cut off by the end of input.
        this.finished = true;
        throw this.byteError(this.offset, 'utf8', this.carry[0]);
      }
      this.finished = true;
      if (this.prePhase) {
        // The first non-blank line had no line end, or there is none.
        const pre = this.pre;
        const len = this.preLen;
        let k = 0;
        while (k < len && (pre[k] === 10 || pre[k] === 13)) k++;
        if (k === len) {
          // A last line with no line end, dropped by skip_lines, counts as a line.
          const skipped = this.skipped + (this.skipPartial ? 1 : 0);
          throw new InputError(emptyText(this.name, this.opts.skip_lines, skipped));
        }
        if (this.delim < 0) {
          let j = k;
          while (j < len && pre[j] !== 10 && pre[j] !== 13) j++;
          this.delim = sniffDelimiter(decodeValid(pre, k, j), sniffNext(pre, k, j, len, true)).charCodeAt(0);
        }
        if (this.opts.names) this.checkHeader();
        this.endPrePhase();
      }
      switch (this.state) {
        case QUOTED:
          throw new InputError(`${this.name}: line ${this.recLine}: a quoted field is never closed; add the closing quote`);
        case FIELD_START:
          this.startField();
          this.field(NO_BYTES, 0, 0);
          this.endRecord();
          break;
        case UNQUOTED:
        case QUOTE_IN_QUOTED:
          // The input ended inside a field, whose bytes are in the buffer.
          this.field(this.acc, 0, this.accLen);
          this.endRecord();
          break;
        default:
          break;
      }
      if (this.header === null) throw new InputError(`${this.name}: file is empty`);
      if (this.nRows === 0) {
        if (this.opts.names) throw new InputError(`${this.name}: file is empty`);
        throw new InputError(`${this.name}: no data rows, only a header`);
      }
      this.sink.end();
    }

    /** The header and delimiter once the header record is read, else null: what a
     * profiler of a later part of the same file needs (as `names` and `delimiter`, and
     * `record`, the header record a data record must not repeat, SPEC 0.3). */
    layout() {
      if (this.header === null || this.prePhase || this.delim < 0) return null;
      return { columns: this.header.slice(), delimiter: String.fromCharCode(this.delim), record: this.record };
    }
  }

  // ---------------------------------------------------------------------------------
  // Summary (SPEC 0.4, 0.5, 0.9, 4): faircode/summary.py. Cells -> label and pair
  // counts, the summary analyze() reads; merging summaries of parts.
  // ---------------------------------------------------------------------------------

  // Per-column label tables: label bytes -> integer code, with a count per code.

  /**
   * An open-addressing hash table from a label's UTF-8 bytes to its code (codes are
   * 0, 1, 2, ... in order of first appearance, which is also the order of the summary's
   * Map), counting each label. Nothing is allocated per look-up. A slot holds the
   * code, a key of the label and its count side by side, so a look-up touches one
   * cache line of the slots: a label of up to 15 bytes is its own key (bytes and
   * length), compared without the arena; a longer one's key is its first 12 bytes and
   * length, and a match is checked on its bytes in the arena. Big columns (zip codes)
   * miss the CPU caches, so the number of lines touched is what a look-up costs. So a
   * label of 1 to 5 ASCII digits (zip codes, ages) is looked up first in a direct index
   * by its digits (at most 444 KB, a fifth of a zip column's slots), which gives its
   * code, and is counted by code beside: its slot is not touched again.
   */
  class LabelTable {
    constructor() {
      this.n = 0; // number of labels
      // slot k is rec[8k, 8k + 8): code + 1 (0 = empty), key0-3, count (below SPILL;
      // spill[code] holds the rest, so counts stay exact up to 2^53), hash, unused (a
      // slot of 32 bytes is never across two cache lines); at most half of the slots
      // are used
      this.rec = new Int32Array(128);
      this.mask = 15;
      this.offs = new Int32Array(9); // code k's bytes are arena[offs[k], offs[k + 1])
      this.arena = new Uint8Array(64);
      this.spill = new Float64Array(8); // code -> count beyond its slot's
      this.labels = []; // code -> decoded label
      // the slot of the label last passed to add() (-1: it is new), where insert()
      // puts it
      this.free = -1;
      // made at the first label of 1-5 digits: digitKey -> code + 1 (0: not seen), as
      // long as the longest such label needs (a table of small numbers stays small);
      // and code -> count of the look-ups through it (below SPILL, as a slot's)
      this.digits = null;
      this.tally = null;
    }

    /** Count one more bytes[s, e) and return its code; -1 (nothing counted) when the
     * label is new. The key: up to 15 bytes, key0-3 the bytes 0-14 (missing bytes 0)
     * and the length in key3's top byte; longer, key0-2 the first 12 bytes and key3
     * the length with its top bit set (never a short label's key3). */
    add(b, s, e) {
      const len = e - s;
      const digits = this.digits;
      if (len <= 5 && digits !== null) {
        const key = digitKey(b, s, e);
        if (key > 0 && key < digits.length) {
          const code = digits[key] - 1;
          if (code >= 0) {
            if (++this.tally[code] === SPILL) {
              this.spill[code] += SPILL;
              this.tally[code] = 0;
            }
            return code;
          }
        }
        // not in the index: new (insert() puts every such label in it)
      }
      let k0 = 0;
      let k1 = 0;
      let k2 = 0;
      let k3 = len << 24;
      let h = 0;
      if (len <= 15) {
        const whole = len & 12; // bytes in whole words
        if (whole >= 4) k0 = b[s] | (b[s + 1] << 8) | (b[s + 2] << 16) | (b[s + 3] << 24);
        if (whole >= 8) k1 = b[s + 4] | (b[s + 5] << 8) | (b[s + 6] << 16) | (b[s + 7] << 24);
        if (whole >= 12) k2 = b[s + 8] | (b[s + 9] << 8) | (b[s + 10] << 16) | (b[s + 11] << 24);
        let tail = 0;
        for (let k = whole; k < len; k++) tail |= b[s + k] << ((k - whole) << 3);
        if (whole === 0) k0 = tail;
        else if (whole === 4) k1 = tail;
        else if (whole === 8) k2 = tail;
        else k3 |= tail;
        h = Math.imul(k0 ^ Math.imul(k1, -2048144789), -1640531535) ^ // 0x85ebca6b, 0x9e3779b1
          Math.imul(k2 ^ Math.imul(k3, -1028477387), 668265263); // 0xc2b2ae35, 0x27d4eb2f
        h ^= h >>> 15;
        h = Math.imul(h, -2048144789);
        h ^= h >>> 13;
      } else {
        k0 = b[s] | (b[s + 1] << 8) | (b[s + 2] << 16) | (b[s + 3] << 24);
        k1 = b[s + 4] | (b[s + 5] << 8) | (b[s + 6] << 16) | (b[s + 7] << 24);
        k2 = b[s + 8] | (b[s + 9] << 8) | (b[s + 10] << 16) | (b[s + 11] << 24);
        k3 = len | -2147483648;
        h = hashBytes(b, s, e);
      }
      const rec = this.rec;
      const mask = this.mask;
      let slot = h & mask;
      for (;;) {
        const r = slot << 3;
        const v = rec[r];
        if (v === 0) break;
        if (rec[r + 1] === k0 && rec[r + 2] === k1 && rec[r + 3] === k2 && rec[r + 4] === k3) {
          const code = v - 1;
          let hit = k3 >= 0; // a short label is its key
          if (!hit) {
            const o = this.offs[code];
            const arena = this.arena;
            let k = 12;
            while (k < len && arena[o + k] === b[s + k]) k++;
            hit = k === len;
          }
          if (hit) {
            if (++rec[r + 5] === SPILL) {
              this.spill[code] += SPILL;
              rec[r + 5] = 0;
            }
            return code;
          }
        }
        slot = (slot + 1) & mask;
      }
      // new: insert() takes the key from the free slot found
      this.free = slot;
      const r = slot << 3;
      rec[r + 1] = k0;
      rec[r + 2] = k1;
      rec[r + 3] = k2;
      rec[r + 4] = k3;
      rec[r + 6] = h;
      return -1;
    }

    /** Add the new label bytes[s, e) (decoded text `label`) with count 1, right after
     * add() returned -1 for it. */
    insert(b, s, e, label) {
      const code = this.n;
      const len = e - s;
      if (code + 1 >= this.spill.length) {
        const cap = this.spill.length * 2;
        this.offs = grownInt32(this.offs, cap + 1);
        const spill = new Float64Array(cap);
        spill.set(this.spill);
        this.spill = spill;
        if (this.tally !== null) this.tally = grownInt32(this.tally, cap);
      }
      const key = digitKey(b, s, e);
      if (key > 0) {
        let digits = this.digits;
        if (digits === null || key >= digits.length) {
          // the keys of up to n digits are below 11, 111, ..., 111111 (n = 1 ... 5)
          let size = 11;
          while (size <= key) size = size * 10 + 1;
          digits = digits === null ? new Int32Array(size) : grownInt32(digits, size);
          this.digits = digits;
          if (this.tally === null) this.tally = new Int32Array(this.spill.length);
        }
        digits[key] = code + 1;
      }
      const o = this.offs[code];
      if (o + len > this.arena.length) {
        const arena = new Uint8Array(Math.max(this.arena.length * 2, o + len));
        arena.set(this.arena.subarray(0, o));
        this.arena = arena;
      }
      for (let k = 0; k < len; k++) this.arena[o + k] = b[s + k];
      this.offs[code + 1] = o + len;
      this.labels.push(label);
      this.n = code + 1;
      const r = this.free << 3;
      this.free = -1;
      this.rec[r] = code + 1;
      this.rec[r + 5] = 1;
      if (this.n * 2 > this.mask + 1) this.rehash();
      return code;
    }

    rehash() {
      const old = this.rec;
      const rec = new Int32Array(old.length * 2);
      const mask = (rec.length >> 3) - 1;
      for (let q = 0; q < old.length; q += 8) {
        if (old[q] === 0) continue;
        let slot = old[q + 6] & mask;
        while (rec[slot << 3] !== 0) slot = (slot + 1) & mask;
        rec.set(old.subarray(q, q + 8), slot << 3);
      }
      this.rec = rec;
      this.mask = mask;
    }

    /** code -> count. */
    counts() {
      const out = this.spill.slice(0, this.n);
      const rec = this.rec;
      for (let r = 0; r < rec.length; r += 8) if (rec[r] !== 0) out[rec[r] - 1] += rec[r + 5];
      const tally = this.tally;
      if (tally !== null) for (let k = 0; k < this.n; k++) out[k] += tally[k];
      return out;
    }
  }

  /** Whether bytes b[s, e) are longer than len and neither start nor end with a space
   * or tab: such a cell is not missing when len is its column's longest missing label
   * (trimming, SPEC 0.4, cannot shorten it to one). */
  function longUnpadded(b, s, e, len) {
    return e - s > len && b[s] !== 32 && b[s] !== 9 && b[e - 1] !== 32 && b[e - 1] !== 9;
  }

  // A slot's (or tally's) count is moved to the table's spill before it would overflow
  // an Int32.
  const SPILL = 1 << 30;

  /** The key of bytes[s, e) in a LabelTable's direct index when they are 1 to 5 ASCII
   * digits, else 0: each digit d read as d + 1 in base 10 (bijective numeration), so
   * "7", "07" and "007" have keys of their own, and all keys are 1 ... 111110. */
  function digitKey(b, s, e) {
    if (e - s > 5) return 0;
    let key = 0;
    for (let k = s; k < e; k++) {
      const d = b[k] - 48;
      if (d >>> 0 > 9) return 0;
      key = key * 10 + d + 1;
    }
    return key;
  }

  function grownInt32(a, cap) {
    const out = new Int32Array(cap);
    out.set(a);
    return out;
  }

  /** A 32-bit hash of bytes[s, e): four bytes per multiply (a byte-at-a-time hash is a
   * chain of multiplies as long as the label), then a final mix so the low bits that
   * pick a slot depend on every byte. */
  function hashBytes(b, s, e) {
    let h = e - s;
    let k = s;
    for (; k + 4 <= e; k += 4) {
      const w = b[k] | (b[k + 1] << 8) | (b[k + 2] << 16) | (b[k + 3] << 24);
      h = Math.imul(h ^ w, -1640531535) ^ (h >>> 15); // 0x9e3779b1
    }
    for (; k < e; k++) h = Math.imul(h ^ b[k], 16777619);
    h ^= h >>> 16;
    h = Math.imul(h, -2048144789); // 0x85ebca6b
    return h ^ (h >>> 13);
  }

  // Pair counting tables (SPEC section 4): dense while small, sparse beyond.
  //
  // Counting pairs is mostly cache misses (zip x age alone has millions of cells), so
  // a dense cell holds only the low byte of its count (Uint8Array); each wrap past 255
  // adds one to the cell's carry count. Counts stay exact (a cell is low + 256 * carry)
  // and the tables are a quarter of Uint32 ones. Carries live in a Float64Array for
  // small tables (whose cells wrap often) and in a Map for large ones (rarely).

  // Bounds of SPEC 0.9 (the same numbers in faircode/summary.py and analyze.py).
  const LABEL_CAP = 100000; // distinct labels a column is counted for; past it: capped
  const PAIR_COLUMNS = 64; // without cross, pairs among the first 64 counted columns
  const CELL_CAP = 1000; // gaps listed in an intersection's cells; the rest are counted
  const GROUP_FLAG_CAP = 100; // label-rate and missing-data gap lines per dimension
  const MAX_GAP_FLAGS = 10; // flag lines of one kind for the intersection

  const DENSE_LIMIT = 1 << 22; // cells: 4 MB per pair at most, sparse beyond
  const SMALL_CELLS = 1 << 16; // tables up to this many cells keep carries in an array
  const BATCH_BITS = 10;
  const BATCH = 1 << BATCH_BITS; // rows whose pairs are counted together

  /** Sparse (a, b) -> count: open addressing over typed arrays (no per-cell objects). */
  class SparseCells {
    constructor(cap) {
      this.ka = new Int32Array(cap).fill(-1); // -1 = empty slot
      this.kb = new Int32Array(cap);
      this.c = new Float64Array(cap);
      this.mask = cap - 1;
      this.size = 0;
    }

    add(a, b, n) {
      let h = Math.imul(a, -1640531535) ^ Math.imul(b, -2048144789);
      h ^= h >>> 15;
      let slot = h & this.mask;
      const ka = this.ka;
      for (;;) {
        const x = ka[slot];
        if (x === -1) break;
        if (x === a && this.kb[slot] === b) { this.c[slot] += n; return; }
        slot = (slot + 1) & this.mask;
      }
      ka[slot] = a;
      this.kb[slot] = b;
      this.c[slot] = n;
      if (++this.size * 2 > this.mask + 1) this.grow();
    }

    grow() {
      const next = new SparseCells((this.mask + 1) * 2);
      this.forEach((a, b, c) => next.add(a, b, c));
      this.ka = next.ka;
      this.kb = next.kb;
      this.c = next.c;
      this.mask = next.mask;
      this.size = next.size;
    }

    forEach(fn) {
      for (let s = 0; s <= this.mask; s++) if (this.ka[s] !== -1) fn(this.ka[s], this.kb[s], this.c[s]);
    }
  }

  class PairTable {
    constructor() {
      this.ca = 8; // dense capacity for codes of the first column
      this.cb = 8; // ... and of the second
      this.dense = new Uint8Array(64); // low bytes, row-major: cell (a, b) at a * cb + b
      this.carries = null; // cell index -> wraps past 255: Float64Array or Map, once any
      this.sparse = null;
    }

    /** Count rows r < n with codes[ia + r] = a and codes[ib + r] = b (skipping -1). */
    addRows(codes, ia, ib, n) {
      let ca = this.ca; // 0 once sparse: every row then takes the slow path
      let cb = this.cb;
      let d = this.dense;
      for (let r = 0; r < n; r++) {
        const a = codes[ia + r];
        const b = codes[ib + r];
        if ((a | b) < 0) continue; // a missing cell on either side
        if (a < ca && b < cb) {
          const k = a * cb + b;
          const v = d[k];
          if (v === 255) {
            d[k] = 0;
            this.carry(k);
          } else {
            d[k] = v + 1;
          }
        } else {
          this.addSlow(a, b);
          ca = this.ca;
          cb = this.cb;
          d = this.dense;
        }
      }
    }

    /** Count one cell (a, b), both codes >= 0. */
    add1(a, b) {
      if (a < this.ca && b < this.cb) {
        const k = a * this.cb + b;
        const v = this.dense[k];
        if (v === 255) {
          this.dense[k] = 0;
          this.carry(k);
        } else {
          this.dense[k] = v + 1;
        }
      } else {
        this.addSlow(a, b);
      }
    }

    /** SPEC 17.2 label_cells: count rows r < n with codes a, b and label code l (at
     * ia, ib, il; skipping -1) in one (a, b) table per label code, kept beside the
     * pair's own table (so pruning keeps or drops both). */
    addLabelRows(codes, ia, ib, il, n) {
      let byL = this.byL;
      if (byL === undefined) byL = this.byL = [];
      for (let r = 0; r < n; r++) {
        const a = codes[ia + r];
        const b = codes[ib + r];
        const l = codes[il + r];
        if ((a | b | l) < 0) continue;
        let t = byL[l];
        if (t === undefined) t = byL[l] = new PairTable();
        t.add1(a, b);
      }
    }

    /** Dense cell k wrapped past 255. */
    carry(k) {
      let c = this.carries;
      if (c === null) {
        const cells = this.ca * this.cb;
        c = this.carries = cells <= SMALL_CELLS ? new Float64Array(cells) : new Map();
      }
      if (c instanceof Map) c.set(k, (c.get(k) || 0) + 1);
      else c[k]++;
    }

    /** Wraps of dense cell k. */
    carriesOf(k) {
      const c = this.carries;
      if (c === null) return 0;
      return c instanceof Map ? (c.get(k) || 0) : c[k];
    }

    addSlow(a, b) {
      if (this.sparse === null) {
        this.grow(a, b);
        if (this.sparse === null) {
          this.addRows(Int32Array.of(a, b), 0, 1, 1);
          return;
        }
      }
      this.sparse.add(a, b, 1);
    }

    grow(a, b) {
      let ca = this.ca;
      let cb = this.cb;
      while (a >= ca) ca *= 2;
      while (b >= cb) cb *= 2;
      if (ca * cb > DENSE_LIMIT) {
        let nonzero = 0;
        for (let k = 0; k < this.dense.length; k++) if (this.dense[k] !== 0 || this.carriesOf(k) !== 0) nonzero++;
        let cap = 1024;
        while (cap < nonzero * 2 + 2) cap *= 2;
        const sp = new SparseCells(cap);
        this.forEach((x, y, c) => sp.add(x, y, c));
        this.sparse = sp;
        this.dense = null;
        this.carries = null;
        this.ca = 0;
        this.cb = 0;
        return;
      }
      const d = new Uint8Array(ca * cb);
      for (let x = 0; x < this.ca; x++) {
        d.set(this.dense.subarray(x * this.cb, (x + 1) * this.cb), x * cb);
      }
      if (this.carries !== null) {
        // Re-key the carries to the new layout.
        const old = this.carries;
        const moved = ca * cb <= SMALL_CELLS ? new Float64Array(ca * cb) : new Map();
        const put = (k, w) => {
          const x = Math.floor(k / this.cb);
          const k2 = x * cb + (k - x * this.cb);
          if (moved instanceof Map) moved.set(k2, w);
          else moved[k2] = w;
        };
        if (old instanceof Map) for (const [k, w] of old) put(k, w);
        else for (let k = 0; k < old.length; k++) if (old[k] !== 0) put(k, old[k]);
        this.carries = moved;
      }
      this.dense = d;
      this.ca = ca;
      this.cb = cb;
    }

    forEach(fn) {
      if (this.sparse !== null) {
        this.sparse.forEach(fn);
        return;
      }
      const d = this.dense;
      const cb = this.cb;
      const carries = this.carries;
      // Carries kept in a Map (few cells wrapped) are walked in key order beside the
      // cells: a Map look-up per cell cost 45 ms on a 64 x 32768 table (region x zip of
      // 200 MB), most of a part's finishPacked on the website.
      const wrapped = carries instanceof Map ? Array.from(carries.keys()).sort((p, q) => p - q) : null;
      let w = 0;
      for (let x = 0; x < this.ca; x++) {
        for (let y = 0; y < cb; y++) {
          const k = x * cb + y;
          let c = d[k];
          if (wrapped !== null) {
            if (w < wrapped.length && wrapped[w] === k) c += 256 * carries.get(wrapped[w++]);
          } else if (carries !== null) c += 256 * carries[k];
          if (c !== 0) fn(x, y, c);
        }
      }
    }
  }

  /**
   * summary.pairs: 'i,j' -> [[labelA, labelB, count], ...]. Each list is built on first
   * access: the analysis reads one pair, and a table such as zip x age can hold millions
   * of cells that would otherwise all become small arrays at once. Iterating builds
   * them all, so `new Map(summary.pairs)` is a plain Map (e.g. to postMessage a summary,
   * which cannot clone the builder functions held until then).
   */
  class LazyPairs extends Map {
    get(key) {
      let v = super.get(key);
      if (typeof v === 'function') {
        v = v();
        super.set(key, v);
      }
      return v;
    }

    * entries() {
      for (const key of this.keys()) yield [key, this.get(key)];
    }

    * values() {
      for (const key of this.keys()) yield this.get(key);
    }

    [Symbol.iterator]() {
      return this.entries();
    }

    forEach(fn, thisArg) {
      for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
    }
  }

  // The counting sink. Column roles while reading:
  const ROLE_IGNORED = 0; // overridden to ignore: not counted
  const ROLE_FORCED = 1; // overridden to a kind: always a dimension
  const ROLE_NAMED = 2; // kind from its name: a dimension unless it explodes
  const ROLE_OPEN = 3; // no keyword: a dimension only with 2..max_categorical labels
  const ROLE_DEAD = 4; // proven not a dimension: no longer counted
  const ROLE_OUTCOME = 5; // an outcome column (SPEC 21.2): read for its sums, not counted

  /** An outcome accumulator: rows, and the values and squares as exact partials. */
  function newAcc() {
    return { n: 0, s1: [], s2: [] };
  }

  function addValue(acc, v, hi, lo) {
    acc.n++;
    expAdd(acc.s1, v);
    expAdd(acc.s2, hi);
    if (lo !== 0) expAdd(acc.s2, lo);
  }

  /** An accumulator's [n, s1, s2] with the sums as exact BigInts (SPEC 21.2). */
  function accStats(acc) {
    let s1 = 0n;
    for (const x of acc.s1) s1 += scaledBig(x, SCALE1);
    let s2 = 0n;
    for (const x of acc.s2) s2 += scaledBig(x, SCALE2);
    return [acc.n, s1, s2];
  }

  /** Roles whose cells are counted. */
  function counted(role) {
    return role === ROLE_FORCED || role === ROLE_NAMED || role === ROLE_OPEN;
  }

  /** The counting sink (SPEC 0.4, 0.5, 0.9, 4): label tables per column and pair
   * tables, batch by batch; summary() is what analyze() reads. */
  class CountSink {
    constructor(name, opts, overrides, missing) {
      this.name = name;
      this.opts = opts;
      this.overrides = overrides;
      this.miss = missing; // missingMatcher()
      this.missMax = missing.maxLen;
      this.keepsAll = false;
      this.header = null;
      this.width = 0;
      this.nRows = 0;
      this.needPrune = false;
    }

    checkHeader() {
      checkOverrides(this.overrides, this.header, this.opts);
    }

    setHeader(names) {
      const opts = this.opts;
      const n = names.length;
      this.header = names;
      this.width = n;
      this.keepCol = new Uint8Array(n); // 1: the column's cells are counted, 2: read only
      // for missing_all, with this.quickLen[c] the longest label that can be missing
      this.quickLen = new Int32Array(n);
      this.roles = new Int8Array(n);
      this.kinds = new Array(n).fill(null);
      this.tables = new Array(n).fill(null); // LabelTable per counted column
      this.missing = new Float64Array(n);
      this.notNumeric = new Uint8Array(n);
      this.notInterval = new Uint8Array(n);
      this.capped = new Uint8Array(n); // 1: more than LABEL_CAP labels, no longer counted
      // SPEC 1.1: the label rewrite per column (null: none), and the limits of 0.5
      // moved by the number of labels it can remove.
      this.rewrites = new Array(n).fill(null);
      this.openCap = new Float64Array(n);
      this.groupCap = new Float64Array(n);
      // SPEC 17.2: the label column (-1: none), counted like a forced column and never
      // a pair or group column; missing data after 1.1 per column when kept.
      const L = opts.label === null ? -1 : names.indexOf(opts.label);
      this.labelCol = L;
      this.keepMiss = opts.missing_by_group === true;
      this.missAll = new Float64Array(n); // cells missing after 1.1
      this.lost = new Array(n).fill(null); // code -> 1 when 1.1 makes the label missing
      this.lostMatch = new Array(n).fill(null); // those labels' bytes (for dead columns)
      this.events = new Int32Array(BATCH); // (c << BATCH_BITS) | row of missing cells
      this.nEvents = 0;
      for (let i = 0; i < n; i++) {
        const col = names[i];
        const rw = rewriteOf(opts, col);
        const slack = rw === null ? 0 : rw.slack;
        this.rewrites[i] = rw;
        this.openCap[i] = opts.max_categorical + slack;
        this.groupCap[i] = opts.max_dimension_groups + slack;
        if (rw !== null && this.keepMiss) {
          this.lost[i] = [];
          this.lostMatch[i] = lostMatcher(opts, col, rw);
        }
        const ov = this.overrides.get(col);
        if (opts.outcome.includes(col)) {
          this.roles[i] = ROLE_OUTCOME;
        } else if (i === L) {
          this.roles[i] = ROLE_FORCED;
        } else if (ov === 'ignore') {
          this.roles[i] = ROLE_IGNORED;
        } else if (ov !== undefined && ov !== null) {
          this.roles[i] = ROLE_FORCED;
          this.kinds[i] = ov;
        } else {
          const kind = kindFromName(col);
          this.kinds[i] = kind;
          this.roles[i] = kind ? ROLE_NAMED : ROLE_OPEN;
        }
        if (this.roles[i] === ROLE_OUTCOME) {
          this.keepCol[i] = 1;
        } else if (this.roles[i] !== ROLE_IGNORED) {
          this.tables[i] = new LabelTable();
          this.keepCol[i] = 1;
        }
      }
      // Columns whose pairs are counted: the crossed pair when `cross` is given, else
      // the first PAIR_COLUMNS counted columns (SPEC 0.9).
      let cand;
      if (opts.cross) {
        const idx = [];
        for (const c of opts.cross) {
          const k = names.indexOf(c);
          if (k >= 0 && !idx.includes(k)) idx.push(k);
        }
        idx.sort((a, b) => a - b);
        cand = idx.length === 2
          ? idx.filter((i) => this.roles[i] !== ROLE_IGNORED && this.roles[i] !== ROLE_OUTCOME && i !== L)
          : [];
      }
      // SPEC 17.2: the group columns, the first PAIR_COLUMNS counted columns (not the
      // label), whatever `cross` is; without cross also the pair columns (0.9).
      const first = [];
      for (let i = 0; i < n && first.length < PAIR_COLUMNS; i++) {
        if (this.roles[i] !== ROLE_IGNORED && this.roles[i] !== ROLE_OUTCOME && i !== L) first.push(i);
      }
      if (!opts.cross) cand = first.slice();
      if (cand.length < 2) cand = [];
      this.isAlive = new Uint8Array(n);
      for (const i of cand) this.isAlive[i] = 1;
      this.rebuildPairs(cand, null);
      const tracked = L >= 0 || this.keepMiss || opts.outcome.length > 0;
      this.groups = tracked ? first : [];
      this.isGroup = new Uint8Array(n);
      for (const i of this.groups) this.isGroup[i] = 1;
      // Per group column D: (label of D, label of L) table; and the rows whose column C
      // is missing after 1.1, by D's label: `counts[C * cap + code + 1]` (slot 0 of C's
      // row: D missing as read), one flat array so that a batch's missing cells are
      // counted without a branch per cell (see countMissing).
      this.labelPairs = new Map();
      this.missBy = new Map();
      for (const d of this.groups) {
        if (L >= 0) this.labelPairs.set(d, new PairTable());
        if (this.keepMiss) this.missBy.set(d, { cap: 0, counts: new Float64Array(0) });
      }
      this.nLabels = new Int32Array(n); // codes given out per column (kept if it dies)
      // SPEC 17.2: per group column, label code -> rows whose D is missing as read.
      this.labelAbsent = new Map();
      // Codes of the last rows, column-major: row r of column c at (c << BATCH_BITS) | r
      // (-1: missing). Pairs are counted a batch at a time, one pair table after the
      // other, which keeps each table's loop tight and its cache misses overlapping.
      this.codes = new Int32Array(n << BATCH_BITS);
      this.batchN = 0; // rows in the batch
      // SPEC 21.2: per outcome column, this batch's values (NaN: none) and their squares
      // split exactly, its accumulators overall, by group column code and by pair cell.
      this.outK = new Int32Array(n).fill(-1);
      this.outs = [];
      for (let i = 0; i < n; i++) {
        if (this.roles[i] !== ROLE_OUTCOME) continue;
        this.outK[i] = this.outs.length;
        const by = new Map();
        for (const d of this.groups) by.set(d, []);
        this.outs.push({ col: i, vals: new Float64Array(BATCH), hi: new Float64Array(BATCH),
          lo: new Float64Array(BATCH), all: newAcc(), missing: 0, nonNumeric: 0, by,
          cells: new Map() });
      }
      return this.keepCol;
    }

    /** (Re)build the list of live pairs, keeping existing tables. Without `cross`, a
     * pair (i, j) is skipped when a column k < j other than i is certain to be a
     * dimension (a forced column or a geography name): then (i, j) can never be the
     * first two dimensions (SPEC section 4). */
    rebuildPairs(alive, old) {
      this.alive = alive;
      const pa = [];
      const pb = [];
      const tables = [];
      const sure = (c) => this.roles[c] === ROLE_FORCED ||
        (this.roles[c] === ROLE_NAMED && this.kinds[c] === 'geography');
      const sureBefore = [];
      let nSure = 0;
      for (const c of alive) {
        sureBefore.push(nSure);
        if (sure(c)) nSure++;
      }
      for (let x = 0; x < alive.length; x++) {
        for (let y = x + 1; y < alive.length; y++) {
          const i = alive[x];
          const j = alive[y];
          if (!this.opts.cross && sureBefore[y] - (sure(i) ? 1 : 0) >= 1) continue;
          // Pruning only removes pairs: a pair skipped for a sure column that was then
          // capped stays uncounted (SPEC 0.9).
          const table = old ? old.get(i * 1048576 + j) : new PairTable();
          if (table === undefined) continue;
          pa.push(i);
          pb.push(j);
          tables.push(table);
        }
      }
      this.pairA = Int32Array.from(pa);
      this.pairB = Int32Array.from(pb);
      this.pairTables = tables;
    }

    /** Stop pair-counting columns proven unable to become dimensions. */
    prune() {
      const dead = [];
      const lose = [];
      for (const i of this.alive) if (this.cannotBeDimension(i)) dead.push(i);
      for (const i of this.groups) if (this.cannotBeDimension(i)) lose.push(i);
      if (lose.length) {
        // SPEC 17.2: a group column proven not a dimension loses its tables.
        for (const i of lose) {
          this.isGroup[i] = 0;
          this.labelPairs.delete(i);
          this.missBy.delete(i);
          for (const o of this.outs) o.by.delete(i);
        }
        this.groups = this.groups.filter((i) => this.isGroup[i] === 1);
      }
      if (!dead.length) return;
      const old = new Map();
      for (let p = 0; p < this.pairTables.length; p++) {
        old.set(this.pairA[p] * 1048576 + this.pairB[p], this.pairTables[p]);
      }
      for (const i of dead) this.isAlive[i] = 0;
      this.rebuildPairs(this.alive.filter((i) => !dead.includes(i)), old);
    }

    /** Column i is proven unable to become a dimension (SPEC 0.5, 4). */
    cannotBeDimension(i) {
      const role = this.roles[i];
      if (role === ROLE_DEAD) return true;
      if (role === ROLE_NAMED && this.kinds[i] !== 'geography' && this.tables[i].n > this.groupCap[i]) {
        return this.kinds[i] === 'age' ? (this.notNumeric[i] && this.notInterval[i]) === 1 : true;
      }
      return false;
    }

    /** A wanted cell of column c, bytes b[s, e) before trimming: count its label. */
    cell(c, b, s, e) {
      // Most cells neither start nor end with a space or tab: no trim loops for them.
      if (e > s && (b[s] <= 32 || b[e - 1] <= 32)) {
        s = trimStart(b, s, e);
        e = trimEnd(b, s, e);
      }
      if (this.roles[c] === ROLE_OUTCOME) {
        this.outcomeCell(c, b, s, e);
        return;
      }
      const t = this.tables[c];
      if (t !== null) {
        // A label in the table is never a missing token (those are never put in it), so
        // only a label seen for the first time is looked up among them.
        const code = t.add(b, s, e);
        if (code >= 0) {
          this.codes[(c << BATCH_BITS) | this.batchN] = code;
          const lost = this.lost[c];
          if (lost !== null && lost[code] === 1) this.missEvent(c);
          return;
        }
      }
      if (e - s <= this.missMax && isMissingBytes(this.miss, b, s, e - s)) {
        this.missing[c]++;
        this.codes[(c << BATCH_BITS) | this.batchN] = -1;
        if (this.keepMiss) this.missEvent(c);
        return;
      }
      if (t === null) {
        // No longer counted, still read for missing_all (SPEC 17.2): missing after 1.1?
        const m = this.lostMatch[c];
        if (m !== null && e - s <= m.maxLen && isMissingBytes(m, b, s, e - s)) this.missEvent(c);
        return;
      }
      this.newLabel(c, t, b, s, e);
    }

    /** An outcome cell (SPEC 21.2): missing after 1.1, not a number, or a value. */
    outcomeCell(c, b, s, e) {
      const o = this.outs[this.outK[c]];
      const r = this.batchN;
      let label = null;
      if (!(e - s <= this.missMax && isMissingBytes(this.miss, b, s, e - s))) {
        label = decodeValid(b, s, e);
        const rw = this.rewrites[c];
        if (rw !== null) label = rw.rewrite(label);
      }
      if (label === null) {
        o.missing++;
        o.vals[r] = NaN;
        if (this.keepMiss) this.missEvent(c);
        return;
      }
      const v = outcomeValue(label);
      if (v === null) {
        o.nonNumeric++;
        o.vals[r] = NaN;
        return;
      }
      const [hi, lo] = square2(v);
      o.vals[r] = v;
      o.hi[r] = hi;
      o.lo[r] = lo;
      addValue(o.all, v, hi, lo);
    }

    /** SPEC 21.2: rows r < n of the batch added to each outcome's group and cell sums. */
    countOutcomes(n) {
      const codes = this.codes;
      const np = this.pairA.length;
      for (const o of this.outs) {
        const { vals, hi, lo } = o;
        for (const [d, accs] of o.by) {
          const base = d << BATCH_BITS;
          for (let r = 0; r < n; r++) {
            const v = vals[r];
            if (v !== v) continue;
            const code = codes[base | r];
            if (code < 0) continue;
            let a = accs[code];
            if (a === undefined) a = accs[code] = newAcc();
            addValue(a, v, hi[r], lo[r]);
          }
        }
        for (let p = 0; p < np; p++) {
          const key = this.pairA[p] * 1048576 + this.pairB[p];
          let cells = o.cells.get(key);
          if (cells === undefined) o.cells.set(key, (cells = new Map()));
          const ia = this.pairA[p] << BATCH_BITS;
          const ib = this.pairB[p] << BATCH_BITS;
          for (let r = 0; r < n; r++) {
            const v = vals[r];
            if (v !== v) continue;
            const x = codes[ia | r];
            const y = codes[ib | r];
            if ((x | y) < 0) continue;
            const k = x * 131072 + y;
            let a = cells.get(k);
            if (a === undefined) cells.set(k, (a = newAcc()));
            addValue(a, v, hi[r], lo[r]);
          }
        }
      }
    }

    /** SPEC 21.2 tables for summary(): column -> sums, by group label and pair cell. */
    outcomeTables(labels) {
      const out = new Map();
      for (const o of this.outs) {
        const [n, s1, s2] = accStats(o.all);
        const by = new Map();
        for (const [d, accs] of o.by) {
          const ld = labels[d];
          const m = new Map();
          accs.forEach((a, code) => m.set(ld[code], accStats(a)));
          by.set(d, m);
        }
        const cells = new Map();
        for (let p = 0; p < this.pairTables.length; p++) {
          const i = this.pairA[p];
          const j = this.pairB[p];
          const la = labels[i];
          const lb = labels[j];
          const entries = [];
          const got = o.cells.get(i * 1048576 + j);
          if (got !== undefined) {
            for (const [k, a] of got) entries.push([la[Math.floor(k / 131072)], lb[k % 131072], ...accStats(a)]);
          }
          cells.set(i + ',' + j, entries);
        }
        out.set(o.col, { n, s1, s2, missing: o.missing, non_numeric: o.nonNumeric, by, cells });
      }
      return out;
    }

    /** Column c's cell of the current row is missing after SPEC 1.1 (17.2). */
    missEvent(c) {
      this.missAll[c]++;
      if (this.nEvents === this.events.length) this.events = grownInt32(this.events, this.nEvents * 2);
      this.events[this.nEvents++] = (c << BATCH_BITS) | this.batchN;
    }

    /** The first cell with this label in column c. */
    newLabel(c, t, b, s, e) {
      const role = this.roles[c];
      const label = decodeValid(b, s, e);
      const code = t.insert(b, s, e, label);
      this.nLabels[c] = code + 1;
      const rw = this.rewrites[c];
      const seen = rw === null ? label : rw.rewrite(label);
      const lost = this.lost[c];
      if (lost !== null) {
        lost.push(seen === null ? 1 : 0);
        if (seen === null) this.missEvent(c);
      }
      if (this.kinds[c] === 'age') {
        // The age mode is decided on the labels after SPEC 1.1's rewrite.
        if (seen !== null) {
          if (!AGE_NUMERIC.test(seen)) this.notNumeric[c] = 1;
          if (!AGE_INTERVAL.test(seen)) this.notInterval[c] = 1;
        }
      }
      const open = role === ROLE_OPEN && code + 1 > this.openCap[c] &&
        this.opts.max_categorical <= LABEL_CAP;
      if (open || code + 1 > LABEL_CAP) {
        // More than max_categorical labels and no keyword: never a dimension (SPEC 0.5);
        // or more than LABEL_CAP labels: capped (SPEC 0.9). Whichever limit is lower
        // is met first, as in the Python engine's per-batch test.
        if (!open) this.capped[c] = 1;
        this.roles[c] = ROLE_DEAD;
        if (!this.keepMiss) this.keepCol[c] = 0;
        else { // still read for missing_all: only its cells that can be missing
          const m = this.lostMatch[c];
          this.quickLen[c] = m === null ? this.missMax : Math.max(this.missMax, m.maxLen);
          this.keepCol[c] = 2;
        }
        this.tables[c] = null;
        this.lost[c] = null;
        this.needPrune = true;
        if (c === this.labelCol) {
          // SPEC 17.2: a capped label is an input error at analysis; its tables go.
          this.labelCol = -1;
          this.labelPairs = new Map();
          this.labelDead = true;
        }
        return;
      }
      if ((this.isAlive[c] || this.isGroup[c]) && this.cannotBeDimension(c)) this.needPrune = true;
      this.codes[(c << BATCH_BITS) | this.batchN] = code;
    }

    record(nf) {
      const width = this.width;
      this.nRows++;
      const row = this.batchN;
      // Short row: the missing trailing cells are missing values.
      for (let c = nf; c < width; c++) {
        if (counted(this.roles[c])) {
          this.missing[c]++;
          this.codes[(c << BATCH_BITS) | row] = -1;
        } else if (this.roles[c] === ROLE_OUTCOME) {
          const o = this.outs[this.outK[c]];
          o.missing++;
          o.vals[row] = NaN;
        }
        if (this.keepMiss && this.roles[c] !== ROLE_IGNORED) this.missEvent(c);
      }
      if (this.needPrune) {
        // The rows before this one are counted with the pairs they were read with;
        // this row already without the columns that just dropped out.
        this.needPrune = false;
        this.countPairs(row);
        // This row becomes row 0 of the next batch.
        for (let c = 0; c < width; c++) this.codes[c << BATCH_BITS] = this.codes[(c << BATCH_BITS) | row];
        for (const o of this.outs) {
          o.vals[0] = o.vals[row];
          o.hi[0] = o.hi[row];
          o.lo[0] = o.lo[row];
        }
        this.prune();
        this.batchN = 0;
      }
      if (++this.batchN === BATCH) this.countPairs(BATCH);
    }

    /** Count the pairs of the first n rows of the batch, and empty it. */
    countPairs(n) {
      this.batchN = 0;
      if (n === 0) return;
      const np = this.pairA.length;
      const tables = this.pairTables;
      const codes = this.codes;
      for (let p = 0; p < np; p++) {
        tables[p].addRows(codes, this.pairA[p] << BATCH_BITS, this.pairB[p] << BATCH_BITS, n);
      }
      const L = this.labelCol;
      if (L >= 0) {
        // SPEC 17.2: label_pairs and label_cells.
        const il = L << BATCH_BITS;
        for (const [d, t] of this.labelPairs) {
          t.addRows(codes, d << BATCH_BITS, il, n);
          // the label codes of rows whose D is missing as read: D's missing group
          const id = d << BATCH_BITS;
          let na = this.labelAbsent.get(d);
          for (let r = 0; r < n; r++) {
            const l = codes[il + r];
            if (codes[id + r] >= 0 || l < 0) continue;
            if (na === undefined) this.labelAbsent.set(d, (na = new Map()));
            na.set(l, (na.get(l) || 0) + 1);
          }
        }
        for (let p = 0; p < np; p++) {
          tables[p].addLabelRows(codes, this.pairA[p] << BATCH_BITS, this.pairB[p] << BATCH_BITS, il, n);
        }
      }
      if (this.keepMiss) this.countMissing(n);
      if (this.outs.length) this.countOutcomes(n);
    }

    /** SPEC 17.2 missing_by: the missing cells of rows r < n against the label of every
     * group column of their row; a later row's (the current one, when a prune cuts
     * the batch) becomes row r - n of the next batch. Events come in row order, so
     * those of rows r >= n are the last ones. A cell of D itself is counted in D's own
     * row of its table, which nothing reads. */
    countMissing(n) {
      const ev = this.events;
      const ne = this.nEvents;
      let m = ne;
      while (m > 0 && (ev[m - 1] & (BATCH - 1)) >= n) m--;
      const codes = this.codes;
      const W = this.width;
      for (const d of this.groups) {
        const t = this.missBy.get(d);
        const need = this.nLabels[d] + 1;
        if (need > t.cap) {
          let cap = Math.max(16, t.cap);
          while (cap < need) cap *= 2;
          const grown = new Float64Array(W * cap);
          for (let c = 0; c < W; c++) grown.set(t.counts.subarray(c * t.cap, (c + 1) * t.cap), c * cap);
          t.cap = cap;
          t.counts = grown;
        }
        const cap = t.cap;
        const counts = t.counts;
        const base = d << BATCH_BITS;
        for (let k = 0; k < m; k++) {
          const e = ev[k];
          counts[(e >> BATCH_BITS) * cap + codes[base | (e & (BATCH - 1))] + 1]++;
        }
      }
      for (let k = m; k < ne; k++) ev[k - m] = ev[k] - n;
      this.nEvents = ne - m;
    }

    end() {
      this.countPairs(this.batchN);
    }

    /** SPEC 17.2 tables for summary(): label_pairs, label_cells (lazy, as pairs),
     * missing_all and missing_by. */
    labelTables(labels) {
      const L = this.labelCol;
      const labelPairs = new Map();
      const labelCells = new LazyPairs();
      if (L >= 0) {
        const ll = labels[L];
        for (const [d, t] of this.labelPairs) {
          const ld = labels[d];
          const entries = [];
          t.forEach((a, l, c) => entries.push([ld[a], ll[l], c]));
          const na = this.labelAbsent.get(d);
          if (na !== undefined) {
            for (const l of Array.from(na.keys()).sort((x, y) => x - y)) entries.push([null, ll[l], na.get(l)]);
          }
          labelPairs.set(d, entries);
        }
        for (let p = 0; p < this.pairTables.length; p++) {
          const la = labels[this.pairA[p]];
          const lb = labels[this.pairB[p]];
          const byL = this.pairTables[p].byL || [];
          labelCells.set(this.pairA[p] + ',' + this.pairB[p], () => {
            const entries = [];
            byL.forEach((t, l) => t.forEach((a, b, c) => entries.push([la[a], lb[b], ll[l], c])));
            return entries;
          });
        }
      }
      // missing_by: D -> C -> {byCode, absent}: byCode[k] the rows whose D has the k-th
      // label of counts[D] (its code) and whose C is missing after 1.1 (zeros for the
      // labels without such rows; it may be shorter or longer than counts[D]), absent
      // those whose D is missing as read (SPEC 17.2's None entry). Arrays, not a Map per
      // D and C: zip codes x columns would be hundreds of thousands of entries to
      // build, post, merge and read again.
      const missingBy = new Map();
      if (this.keepMiss) {
        for (const [d, t] of this.missBy) {
          const out = new Map();
          const k = this.nLabels[d];
          // (cap 0: no batch was counted, so no row)
          for (let c = 0; t.cap > 0 && c < this.width; c++) {
            if (c === d) continue; // D's own row: its cells against itself, never read
            const row = t.counts.subarray(c * t.cap, c * t.cap + k + 1);
            if (row.every((x) => x === 0)) continue;
            out.set(c, { byCode: row.slice(1), absent: row[0] });
          }
          missingBy.set(d, out);
        }
      }
      return {
        label_pairs: labelPairs,
        label_cells: labelCells,
        missing_all: this.keepMiss ? Array.from(this.missAll) : [],
        missing_by: missingBy,
      };
    }

    /** Each pair table as typed arrays of label codes and counts (finishPacked). */
    packedPairs() {
      const packed = [];
      for (let p = 0; p < this.pairTables.length; p++) {
        let cap = 1024;
        let a = new Int32Array(cap);
        let b = new Int32Array(cap);
        let c = new Float64Array(cap);
        let n = 0;
        this.pairTables[p].forEach((x, y, count) => {
          if (n === cap) {
            cap *= 2;
            const a2 = new Int32Array(cap); a2.set(a); a = a2;
            const b2 = new Int32Array(cap); b2.set(b); b = b2;
            const c2 = new Float64Array(cap); c2.set(c); c = c2;
          }
          a[n] = x; b[n] = y; c[n] = count; n++;
        });
        packed.push([this.pairA[p] + ',' + this.pairB[p], a.slice(0, n), b.slice(0, n),
          c.slice(0, n)]);
      }
      return packed;
    }

    summary() {
      const n = this.width;
      const counts = new Array(n).fill(null);
      const labels = new Array(n).fill(null);
      for (let i = 0; i < n; i++) {
        const t = this.tables[i];
        if (t === null) continue;
        const m = new Map();
        const tc = t.counts();
        for (let k = 0; k < t.n; k++) m.set(t.labels[k], tc[k]);
        counts[i] = m;
        labels[i] = t.labels;
      }
      const pairs = new LazyPairs();
      for (let p = 0; p < this.pairTables.length; p++) {
        const la = labels[this.pairA[p]];
        const lb = labels[this.pairB[p]];
        const table = this.pairTables[p];
        pairs.set(this.pairA[p] + ',' + this.pairB[p], () => {
          const entries = [];
          table.forEach((a, b, c) => entries.push([la[a], lb[b], c]));
          return entries;
        });
      }
      return {
        name: this.name,
        columns: this.header.slice(),
        n_rows: this.nRows,
        counts,
        missing: Array.from(this.missing, (m, i) => (counts[i] === null ? 0 : m)),
        pairs,
        capped: Array.from(this.capped, (x) => x === 1),
        ...this.labelTables(labels),
        outcomes: this.outcomeTables(labels),
      };
    }
  }

  /** What createProfiler() returns: a CsvScanner feeding a CountSink.
   * config: {name, overrides, opts, missingTokens, simd, decompressed, record}; missingTokens
   * (strings) are missing values besides SPEC 0.4's (an extension point; no CLI option
   * yet); simd: false keeps the field scan out of WebAssembly; decompressed: true when
   * the bytes pushed are a gzip file's, decompressed (SPEC 0.8: a failure then names
   * only the formats Python's CSV reader names, never Parquet, Arrow or gzip); record:
   * for a later part of a file, its first part's layout().record (SPEC 0.3, 0.8). */
  class Profiler {
    constructor(config) {
      config = config || {};
      const name = config.name === undefined ? '<stdin>' : String(config.name);
      const opts = resolveOptions(config.opts);
      const overrides = overrideMap(config.overrides);
      const missing = config.missingTokens ? missingMatcher(config.missingTokens) : DEFAULT_RULE;
      this.counts = new CountSink(name, opts, overrides, missing);
      this.scanner = new CsvScanner(name, opts, this.counts, config.simd !== false, !!config.decompressed);
      // a later part of a file (read with names): its header record (layout().record)
      if (config.record) this.scanner.setRecord(config.record);
    }

    push(chunk) {
      this.scanner.push(chunk);
    }

    finish() {
      this.scanner.finish();
      return this.counts.summary();
    }

    /** finish(), with each pair table as typed arrays of label codes (indexes into the
     * keys of summary.counts[i]) and counts: cheap to post to another thread, where
     * unpackSummary() restores the usual form. */
    finishPacked() {
      const summary = this.finish();
      summary.pairs = this.counts.packedPairs();
      summary.label_cells = new Map(summary.label_cells); // built: a plain Map posts
      return summary;
    }

    layout() {
      return this.scanner.layout();
    }
  }

  /**
   * Merge summaries of disjoint row sets of one table (SPEC 0.5: counts add). A column
   * one side stopped counting is not counted in the merge (missing 0); a pair table is
   * kept only when both sides kept it. Lets parts of a file be profiled at once (Web
   * Workers, worker threads) and merged: the result of analyze() is the same.
   */
  function mergeSummaries(a, b) {
    if (a.columns.length !== b.columns.length || a.columns.some((c, i) => c !== b.columns[i])) {
      throw new Error('cannot merge summaries of tables with different columns');
    }
    const n = a.columns.length;
    const counts = new Array(n).fill(null);
    const missing = new Array(n).fill(0);
    const capped = new Array(n).fill(false);
    for (let i = 0; i < n; i++) {
      capped[i] = !!(a.capped && a.capped[i]) || !!(b.capped && b.capped[i]);
      if (a.counts[i] === null || b.counts[i] === null) continue;
      const m = new Map(a.counts[i]);
      for (const [label, c] of b.counts[i]) m.set(label, (m.get(label) || 0) + c);
      if (m.size > LABEL_CAP) { // the union passed the cap: as one read would (SPEC 0.9)
        capped[i] = true;
        continue;
      }
      counts[i] = m;
      missing[i] = a.missing[i] + b.missing[i];
    }
    // Pairs merge when read (analysis reads one): zip x region can hold a million cells.
    const pairs = new LazyPairs();
    for (const key of a.pairs.keys()) {
      if (!b.pairs.has(key)) continue;
      const [pi, pj] = key.split(',').map(Number);
      if (counts[pi] === null || counts[pj] === null) continue;
      pairs.set(key, () => {
        const cells = new Map(); // labelA -> Map(labelB -> count)
        for (const side of [a.pairs.get(key), b.pairs.get(key)]) {
          for (const [la, lb, c] of side) {
            let row = cells.get(la);
            if (row === undefined) cells.set(la, (row = new Map()));
            row.set(lb, (row.get(lb) || 0) + c);
          }
        }
        const entries = [];
        for (const [la, row] of cells) for (const [lb, c] of row) entries.push([la, lb, c]);
        return entries;
      });
    }
    // SPEC 17.2: tables of a group column absent on either side (pruned), or not
    // counted in the union, are dropped, as pairs are; missing_all always adds.
    const labelPairs = new Map();
    const aLP = a.label_pairs || new Map();
    const bLP = b.label_pairs || new Map();
    for (const [d, ea] of aLP) {
      if (!bLP.has(d) || counts[d] === null) continue;
      labelPairs.set(d, addedEntries([ea, bLP.get(d)], 2));
    }
    const labelCells = new LazyPairs();
    const aLC = a.label_cells || new Map();
    const bLC = b.label_cells || new Map();
    for (const key of aLC.keys()) {
      if (!bLC.has(key) || !pairs.has(key)) continue;
      labelCells.set(key, () => addedEntries([aLC.get(key), bLC.get(key)], 3));
    }
    const ma = a.missing_all || [];
    const mb = b.missing_all || [];
    const missingAll = ma.length && mb.length ? ma.map((x, i) => x + mb[i]) : [];
    const missingBy = new Map();
    const aMB = a.missing_by || new Map();
    const bMB = b.missing_by || new Map();
    for (const [d, byA] of aMB) {
      if (!bMB.has(d) || counts[d] === null) continue;
      const byB = bMB.get(d);
      // The merged counts[d] holds a's labels, then b's new ones in b's order: a's codes
      // stay, b's k-th label goes to where[k].
      const at = new Map();
      let k = 0;
      for (const label of a.counts[d].keys()) at.set(label, k++);
      const where = new Int32Array(b.counts[d].size);
      let j = 0;
      for (const label of b.counts[d].keys()) {
        let x = at.get(label);
        if (x === undefined) at.set(label, (x = k++));
        where[j++] = x;
      }
      const cols = Array.from(new Set([...byA.keys(), ...byB.keys()])).sort((x, y) => x - y);
      const out = new Map();
      for (const c of cols) {
        const ta = byA.get(c);
        const tb = byB.get(c);
        const byCode = new Float64Array(k);
        let absent = 0;
        if (ta !== undefined) {
          const xa = ta.byCode;
          for (let i = 0; i < xa.length; i++) if (xa[i] !== 0) byCode[i] += xa[i];
          absent += ta.absent;
        }
        if (tb !== undefined) {
          const xb = tb.byCode;
          for (let i = 0; i < xb.length; i++) if (xb[i] !== 0) byCode[where[i]] += xb[i];
          absent += tb.absent;
        }
        out.set(c, { byCode, absent });
      }
      missingBy.set(d, out);
    }
    // SPEC 21.2: outcome sums add; a group column or pair dropped on either side goes.
    const outcomes = new Map();
    const aO = a.outcomes || new Map();
    const bO = b.outcomes || new Map();
    for (const [o, x] of aO) {
      const y = bO.get(o);
      if (y === undefined) continue;
      const by = new Map();
      for (const [d, m] of x.by) {
        if (!y.by.has(d) || counts[d] === null) continue;
        const sum = new Map(m);
        for (const [label, st] of y.by.get(d)) sum.set(label, statsAdded(sum.get(label), st));
        by.set(d, sum);
      }
      const cells = new Map();
      for (const [key, ea] of x.cells) {
        if (!y.cells.has(key) || !pairs.has(key)) continue;
        const sum = new Map();
        for (const side of [ea, y.cells.get(key)]) {
          for (const [la, lb, ...st] of side) {
            const k = la + '\u0000' + lb;
            const got = sum.get(k);
            sum.set(k, got === undefined ? [la, lb, ...st] : [la, lb, ...statsAdded(got.slice(2), st)]);
          }
        }
        cells.set(key, Array.from(sum.values()));
      }
      outcomes.set(o, { n: x.n + y.n, s1: x.s1 + y.s1, s2: x.s2 + y.s2, missing: x.missing + y.missing,
        non_numeric: x.non_numeric + y.non_numeric, by, cells });
    }
    return { name: a.name, columns: a.columns.slice(), n_rows: a.n_rows + b.n_rows, counts,
      missing, pairs, capped, label_pairs: labelPairs, label_cells: labelCells,
      missing_all: missingAll, missing_by: missingBy, outcomes };
  }

  function statsAdded(a, b) {
    return a === undefined ? b : [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
  }

  /** Count tables [[key..., count], ...] (keys the first `width` items) added up. */
  function addedEntries(sides, width) {
    const sums = new Map();
    const keys = new Map();
    for (const side of sides) {
      for (const e of side) {
        const key = e.slice(0, width).join('\u0000');
        if (sums.has(key)) sums.set(key, sums.get(key) + e[width]);
        else { sums.set(key, e[width]); keys.set(key, e.slice(0, width)); }
      }
    }
    const out = [];
    for (const [key, c] of sums) out.push([...keys.get(key), c]);
    return out;
  }

  /** A summary from Profiler.finishPacked() (posted from another thread) with its pairs
   * turned back into the lazy 'i,j' -> [[labelA, labelB, count], ...] form. */
  function unpackSummary(packed) {
    const pairs = new LazyPairs();
    for (const [key, a, b, c] of packed.pairs) {
      const [i, j] = key.split(',').map(Number);
      pairs.set(key, () => {
        const la = Array.from(packed.counts[i].keys());
        const lb = Array.from(packed.counts[j].keys());
        const entries = new Array(a.length);
        for (let k = 0; k < a.length; k++) entries[k] = [la[a[k]], lb[b[k]], c[k]];
        return entries;
      });
    }
    return Object.assign({}, packed, { pairs });
  }

  function createProfiler(config) {
    return new Profiler(config);
  }

  // ---------------------------------------------------------------------------------
  // Parts (SPEC 0.8): where a big file is cut to be read as parts at once. The rule
  // lives here so the Node bridge and a page (Web Workers) cut files alike.
  // ---------------------------------------------------------------------------------

  const PARALLEL_MIN_BYTES = 32 << 20; // smaller files are read in one part
  const MAX_PARTS = 4;
  const SPLIT_WINDOW = 1 << 18; // bytes looked at for a part boundary

  /** How many parts a file of `size` bytes is read as on `cores` cores (skip_lines
   * counts physical lines from the top, so it needs one read). `minBytes` (default
   * PARALLEL_MIN_BYTES) is the smallest file cut into parts: tests/website lower it to
   * prove the page's reads in parts on a few MB. */
  function defaultParts(size, cores, opts, minBytes = PARALLEL_MIN_BYTES) {
    if (size < minBytes || (opts && opts.skip_lines)) return 1;
    return Math.max(1, Math.min(cores, MAX_PARTS));
  }

  /**
   * Part boundaries [0, b1, ..., size], each just after a LF, near equal sizes (as the
   * Python fast path cuts): a LF is preferred whose line before and line after hold an
   * even number of double quotes. A cut that still falls inside a quoted field makes
   * the part before it end inside quotes: that part fails and the file is read again
   * in one part. readAt(pos, len) returns the file's bytes [pos, pos + len) (fewer at
   * its end) as a Uint8Array.
   */
  function planParts(size, parts, readAt) {
    const bounds = [0];
    for (let k = 1; k < parts; k++) {
      const target = Math.floor((size * k) / parts);
      if (target <= bounds[bounds.length - 1]) continue;
      const win = readAt(target, Math.min(SPLIT_WINDOW, size - target));
      const got = win.length;
      const lfs = [];
      for (let i = 0; i < got && lfs.length < 64; i++) if (win[i] === 10) lfs.push(i);
      const quotes = (from, to) => {
        let q = 0;
        for (let i = from; i < to; i++) if (win[i] === 34) q++;
        return q;
      };
      const even = [];
      for (let x = 0; x + 2 < lfs.length; x++) {
        if (quotes(lfs[x] + 1, lfs[x + 1]) % 2 === 0 && quotes(lfs[x + 1] + 1, lfs[x + 2]) % 2 === 0) {
          even.push(lfs[x + 1]);
        }
      }
      const chosen = even.concat(lfs.slice(0, 1)).find((b) => cutAllowed(readAt, target + b + 1));
      if (chosen === undefined) continue;
      const point = target + chosen + 1;
      if (point > bounds[bounds.length - 1] && point < size) bounds.push(point);
    }
    bounds.push(size);
    return bounds;
  }

  /** SPEC 0.8: a cut at `point` keeps a part's reader from reading a line as the start
   * or end of a file: none right before a line that starts with a BOM (dropped at byte
   * 0: data there), none right after a line holding only a Ctrl-Z (the end of a file
   * drops that line: data there). */
  function cutAllowed(readAt, point) {
    const after = readAt(point, 3);
    if (after.length === 3 && after[0] === 0xef && after[1] === 0xbb && after[2] === 0xbf) return false;
    const from = Math.max(0, point - 4);
    const before = readAt(from, point - from);
    return dosEofLength(before, 0, before.length, from === 0 ? -1 : 0) === 0;
  }

  /** Options of a part after the first: the first part's header and delimiter
   * (Profiler.layout()) as `names` and `delimiter`. */
  function partOptions(opts, layout) {
    return Object.assign({}, opts, { names: layout.columns, delimiter: layout.delimiter });
  }

  // ---------------------------------------------------------------------------------
  // Analyze (SPEC 1-6): faircode/analyze.py. Summary -> result.
  // ---------------------------------------------------------------------------------

  /** Overrides as an insertion-ordered Map (from a Map, [col, kind] pairs or an object). */
  function overrideMap(overrides) {
    if (overrides instanceof Map) return new Map(overrides);
    if (Array.isArray(overrides)) return new Map(overrides.map(([c, k]) => [String(c), k]));
    return new Map(Object.entries(overrides || {}));
  }

  function validateOverrides(overrides, columns) {
    const cols = new Set(columns);
    for (const [col, kind] of overrides) {
      if (!cols.has(col)) {
        const shown = columns.slice(0, 5).join(', ') + (columns.length > 5 ? '...' : '');
        throw new InputError(`--map: no column named '${col}' (columns: ${shown})`);
      }
      if (!OVERRIDE_VALUES.includes(kind)) {
        throw new InputError(`--map: unknown kind '${pyStr(kind)}' for '${col}' (use ${KINDS.join(', ')} or ignore)`);
      }
    }
  }

  /** The overrides (a Map) and the columns the resolved options name, checked against
   * the header (faircode/detect.py check_overrides, in its order): --map, --label,
   * --outcome, --na and --recode, --cross. Returns the overrides. */
  function checkOverrides(overrides, columns, opts) {
    validateOverrides(overrides, columns);
    validateLabel(opts, overrides, columns);
    validateOutcome(opts, overrides, columns);
    validateRewrites(opts, columns);
    validateCross(opts, columns);
    return overrides;
  }

  const Z = 1.959963984540054;

  /** SPEC 3's Wilson: wilsonAt at Z (one home for its operations). */
  function wilsonBounds(c, n) {
    return wilsonAt(c, n, Z);
  }

  function bandLabels(edges) {
    const out = [];
    for (let i = 0; i < edges.length; i++) {
      out.push(i + 1 < edges.length ? `${edges[i]}-${edges[i + 1] - 1}` : `${edges[i]}+`);
    }
    return out;
  }

  /** Value of an interval label: its first run of digits, as a double (like Python's
   * float(int(digits)): both round correctly). */
  function intervalValue(label) {
    return Number(/[0-9]+/.exec(label)[0]);
  }

  /** An interval label's bounds and the whole years it holds (SPEC 2): a, b, and the
   * first and last year ([a-b) holds a..b-1, (a, b] holds a+1..b). */
  function intervalYears(label) {
    const m = /^([[(])([0-9]+) *[-,] *([0-9]+)([\])])$/.exec(label);
    const a = Number(m[2]);
    const b = Number(m[3]);
    return { a, b, first: m[1] === '(' ? a + 1 : a, last: m[4] === ')' ? b - 1 : b };
  }

  function bandIndex(edges, v) {
    for (let i = edges.length - 1; i >= 0; i--) if (edges[i] <= v) return i;
    return -1; // below the first edge (0): an interval holding no year, [0-0)
  }

  function sortedGroups(entries) {
    // [label, count]: count descending, then label by code point.
    entries.sort((x, y) => (y[1] - x[1]) || cmpCodePoint(x[0], y[0]));
    return entries;
  }

  /**
   * Resolve one column into a dimension: its groups (label -> count), a label -> group
   * mapping for intersections, and age details. counts are after SPEC 1.1.
   */
  function buildDimension(name, kind, counts, missing, opts) {
    const dim = {
      name, kind, ageMode: null, groups: null, labelToGroup: null,
      missing, implausible: 0, skewness: null, years: null, youngest: null,
    };
    if (kind !== 'age') {
      dim.groups = sortedGroups(Array.from(counts.entries()));
      return dim;
    }
    const entries = Array.from(counts.entries());
    let allNum = true;
    let allInt = true;
    for (const [label] of entries) {
      if (allNum && !AGE_NUMERIC.test(label)) allNum = false;
      if (allInt && !AGE_INTERVAL.test(label)) allInt = false;
    }
    let mode = entries.length === 0 || allNum ? 'numeric' : allInt ? 'interval' : 'categorical';
    if (mode === 'categorical') {
      dim.ageMode = mode;
      dim.groups = sortedGroups(entries);
      return dim;
    }
    const edges = opts.age_bands;
    const names = bandLabels(edges);
    const labelToGroup = new Map();
    const plausible = [];
    let implausible = 0;
    for (const [label, c] of entries) {
      const v = mode === 'numeric' ? Number(label) : intervalValue(label);
      if (v < 0 || v > opts.max_age) {
        implausible += c;
        labelToGroup.set(label, null);
        continue;
      }
      plausible.push([label, c, v]);
    }
    if (mode === 'interval') {
      // Banded only when every plausible interval lies within one band (SPEC 2).
      for (const p of plausible) {
        const y = intervalYears(p[0]);
        p.push(y);
        if (y.first > y.last || bandIndex(edges, y.first) !== bandIndex(edges, y.last)) {
          mode = 'interval_as_written';
        }
      }
    }
    dim.ageMode = mode;
    dim.implausible = implausible;
    dim.labelToGroup = labelToGroup;
    if (mode === 'interval_as_written') {
      const groups = [];
      const years = new Map();
      for (const [label, c, , y] of plausible) {
        labelToGroup.set(label, label);
        groups.push([label, c, y]);
        years.set(label, [y.first, y.last]);
      }
      groups.sort((x, z) => (x[2].a - z[2].a) || (x[2].b - z[2].b) || cmpCodePoint(x[0], z[0]));
      dim.groups = groups.map(([label, c]) => [label, c]);
      dim.years = years;
      return dim;
    }
    const bandCounts = new Array(edges.length).fill(0);
    // the youngest year the labels hold (a number's whole years, an interval's first
    // year): where a single-year reference's span starts (SPEC 9)
    let youngest = Infinity;
    for (const [, , v, y] of plausible) {
      const year = y === undefined ? Math.floor(v) : y.first;
      if (year < youngest) youngest = year;
    }
    dim.youngest = youngest;
    for (const [label, c, v, y] of plausible) {
      // A banded interval goes to the band of its first year (SPEC 2): "(17, 29]" holds
      // 18..29, so its band is 18-29, whatever its lower bound says.
      const b = bandIndex(edges, y === undefined ? v : y.first);
      bandCounts[b] += c;
      labelToGroup.set(label, names[b]);
    }
    const groups = [];
    for (let b = 0; b < edges.length; b++) if (bandCounts[b] > 0) groups.push([names[b], bandCounts[b]]);
    dim.groups = sortedGroups(groups);
    if (mode === 'numeric') dim.skewness = skewness(plausible.map(([, c, v]) => [v, c]));
    return dim;
  }

  function skewness(terms) {
    let N = 0;
    for (const [, c] of terms) N += c;
    if (N < 3) return null;
    const mean = fsum(terms.map(([v, c]) => v * c)) / N;
    const d2 = [];
    const d3 = [];
    for (const [v, c] of terms) {
      const d = v - mean;
      d2.push(c * (d * d));
      d3.push(c * (d * d * d));
    }
    const m2 = fsum(d2) / N;
    const m3 = fsum(d3) / N;
    if (m2 === 0) return null;
    return roundHalfUp(m3 / (m2 * Math.sqrt(m2)), 4);
  }

  function dimensionMetrics(dim, nRows, opts) {
    const groups = dim.groups;
    const k = groups.length;
    let n = 0;
    for (const [, c] of groups) n += c;
    const missingCount = dim.missing + dim.implausible;
    const out = {
      name: dim.name,
      kind: dim.kind,
      detected_by: dim.detectedBy,
      age_mode: dim.ageMode,
      n_groups: k,
      dimension_score: 0,
      score_ci: null,
      score_note: null,
      entropy_ratio: 0,
      imbalance_ratio: null,
      imbalance_ratio_all: null,
      min_share: null,
      max_share: null,
      missing_count: missingCount,
      missing_pct: roundHalfUp(missingCount / nRows, 4),
      implausible_count: dim.implausible,
      skewness: dim.skewness,
      groups: [],
      under_represented: [],
    };
    const under = [];
    let entropyRatio = 0;
    if (k > 0) {
      const terms = [];
      // Everything per group but the label is a function of its count: 30,000 zip codes
      // share a few hundred counts, so each count's numbers are computed once.
      const perCount = new Map();
      for (const [label, c] of groups) {
        let known = perCount.get(c);
        if (known === undefined) {
          const share = c / n;
          const [lo, hi] = wilsonBounds(c, n);
          known = { share, rounded: roundHalfUp(share, 4), lo: roundHalfUp(lo, 4),
            hi: roundHalfUp(hi, 4), term: share * ln(share), pct: null };
          perCount.set(c, known);
        }
        out.groups.push({
          label, count: c, share: known.rounded, ci_low: known.lo, ci_high: known.hi,
          small_group: c < opts.min_group_size,
        });
        if (known.share < opts.min_share) under.push([label, known.share, c]);
        terms.push(known.term);
      }
      // The largest and smallest groups are those of the count order (SPEC 3), which
      // an interval_as_written age does not list its groups in.
      const byCount = dim.ageMode === 'interval_as_written' ? sortedGroups(groups.slice()) : groups;
      dim.byCount = byCount;
      const maxCount = byCount[0][1];
      const minCount = byCount[k - 1][1];
      out.min_share = roundHalfUp(minCount / n, 4);
      out.max_share = roundHalfUp(maxCount / n, 4);
      const ratio = maxCount / minCount;
      // SPEC 3: the imbalance the flag judges: largest vs smallest group of min_group_size
      const sized = byCount.filter((g) => g[1] >= opts.min_group_size);
      if (sized.length > 1) out.imbalance_ratio = roundHalfUp(sized[0][1] / sized[sized.length - 1][1], 2);
      out.imbalance_ratio_all = roundHalfUp(ratio, 2);
      if (k > 1) {
        const H = -fsum(terms);
        entropyRatio = Math.min(1, Math.max(0, H / ln(k)));
      }
      dim.ratio = ratio;
    }
    out.entropy_ratio = roundHalfUp(entropyRatio, 4);
    if (opts.score_rule === 'v3') {
      [out.dimension_score, out.score_ci, out.score_note] = dimensionScore(groups.map((g) => g[1]),
        opts.min_group_size);
    } else {
      out.dimension_score = roundHalfUp(entropyRatio * 100, 0); // SPEC 5: v2 and seed
    }
    out.under_represented = under.map(([label]) => label);
    dim.under = under;
    dim.n = n;
    dim.missingPctRaw = missingCount / nRows;
    dim.out = out;
    return out;
  }

  /** P(x) (SPEC 13; numerics.py pct): a fraction as a percentage with two decimals, the
   * digits of its 4-dp rounding, so a displayed figure is JSON's number, rounded once. */
  function pct(x) {
    const t = Math.floor(x * 10000 + 0.5);
    if (!Number.isFinite(t)) throw new RangeError('P of a non-finite number');
    const a = Math.abs(t);
    const r = a % 100;
    return (t < 0 ? '-' : '') + String((a - r) / 100) + '.' + String(r).padStart(2, '0');
  }

  /** pct, or `<0.01` (`-<0.01` for a negative sign) for a value known not to be 0 whose
   * P(x) reads 0.00, and `>99.99` for a share known to be below 1 (belowOne) whose P(x)
   * reads 100.00 (SPEC 8); numerics.py pct_not_zero. */
  function pctNotZero(x, sign, belowOne = false) {
    const text = pct(x);
    if (sign && text === '0.00') return sign < 0 ? '-<0.01' : '<0.01';
    if (belowOne && text === '100.00') return '>99.99';
    return text;
  }

  /** `1 row`, `2 rows` (SPEC 6; numerics.py rows_text). */
  function rowsText(n) {
    return n === 1 ? `${n} row` : `${n} rows`;
  }

  function gradeFor(score) {
    if (score === null) return null;
    if (score >= 85) return 'A';
    if (score >= 70) return 'B';
    if (score >= 55) return 'C';
    if (score >= 40) return 'D';
    return 'F';
  }

  // ---- Score v3 and findings (SPEC 5 and 18): faircode/evidence.py -----------------

  const SCORE_FLOOR = 0.01; // SPEC 5: a group under this share does not enter the balance...
  const SCORE_FULL = 0.05; // ... and one from this share on counts fully (linear between)
  const SCORE_CI_WIDTH = 30; // SPEC 5: a wider score interval (points) is not scored
  // SPEC 5: the top of the grade one letter better than the worst dimension's grade.
  const GRADE_CAP = { F: 54, D: 69, C: 84, B: 100, A: 100 };
  const UNDER_LINES = 5; // SPEC 6: under-represented lines per dimension, then "more"

  const LN2_OF_2 = ln(2.0); // SPEC 5: the least normaliser of the balance

  /** SPEC 18: the tests a block adds to the family when it compares each of `compared`
   * groups with the highest of them: every pair, since the data choose the highest. */
  function pairTests(compared) {
    return (compared * (compared - 1)) / 2;
  }

  /** SPEC 5's balance of the shares ps with the terms its interval needs:
   * [balance, H / L, w, u, U, K, ln(q), H, L]; balance and H / L are 0 when U = 0
   * (evidence._balance_parts). */
  function balanceParts(ps) {
    const f = SCORE_FLOOR;
    const ramp = SCORE_FULL - f;
    const ws = ps.map((p) => Math.min(1.0, Math.max(0.0, (p - f) / ramp)));
    const us = ws.map((w, i) => w * ps[i]);
    const U = fsum(us);
    const K = fsum(ws);
    if (U === 0) return [0.0, 0.0, ws, us, U, K, [], 0.0, LN2_OF_2];
    const logs = us.map((u) => (u > 0 ? ln(u / U) : 0.0));
    const terms = [];
    for (let i = 0; i < us.length; i++) if (us[i] > 0) terms.push((us[i] / U) * logs[i]);
    const H = -fsum(terms);
    const L = K > 2 ? ln(K) : LN2_OF_2;
    const ratio = H / L;
    return [Math.min(1.0, ratio), ratio, ws, us, U, K, logs, H, L];
  }

  /** [balance, half width of its delta-method 95% interval] of SPEC 5 for group counts:
   * the weights ramp from 1% to 5% of the rows; the multinomial delta method. */
  function balance(counts) {
    let n = 0;
    for (const c of counts) n += c;
    if (n === 0) return [0.0, 0.0];
    const f = SCORE_FLOOR;
    const g = SCORE_FULL;
    const ps = counts.map((c) => c / n);
    const [value, ratio, ws, us, U, K, logs, H, L] = balanceParts(ps);
    if (U === 0) return [0.0, 0.0];
    if (!(ratio < 1)) return [value, 0.0];
    const slope = 1 / (g - f);
    const pg = [];
    const pgg = [];
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i];
      const d = f < p && p < g ? slope : 0.0;
      const a = ws[i] + p * d;
      const h = us[i] > 0 ? -(logs[i] + H) / U : 0.0;
      const dl = K > 2 ? d / K : 0.0;
      const gi = (h * a * L - H * dl) / (L * L);
      pg.push(p * gi);
      pgg.push(p * gi * gi);
    }
    const mean = fsum(pg);
    const v = Math.max(0.0, (fsum(pgg) - mean * mean) / n);
    return [value, Z * Math.sqrt(v)];
  }

  /** [balance, low, high] of SPEC 5: the delta method's interval, widened to the balance
   * with each group whose Wilson interval holds an edge of the weight ramp (SCORE_FLOOR or
   * SCORE_FULL) moved to either end of that interval, the other groups' shares kept. */
  function scoreBounds(counts) {
    const [value, half] = balance(counts);
    let lo = Math.max(0.0, value - half);
    let hi = Math.min(1.0, value + half);
    let n = 0;
    for (const c of counts) n += c;
    const ps = counts.map((c) => c / n);
    for (let i = 0; i < counts.length; i++) {
      const [wl, wh] = wilsonBounds(counts[i], n);
      if ((wl < SCORE_FLOOR && SCORE_FLOOR < wh) || (wl < SCORE_FULL && SCORE_FULL < wh)) {
        for (const q of [wl, wh]) {
          const b = balanceParts([...ps.slice(0, i), q, ...ps.slice(i + 1)])[0];
          lo = Math.min(lo, b);
          hi = Math.max(hi, b);
        }
      }
    }
    return [value, lo, hi];
  }

  function roundInt(x) {
    return Math.floor(x + 0.5);
  }

  /** [dimension_score, score_ci, score_note] under score rule v3 (SPEC 5). */
  function dimensionScore(counts, minGroupSize) {
    let n = 0;
    for (const c of counts) n += c;
    const least = Math.max(1, minGroupSize);
    if (n < least) return [null, null, `fewer than ${rowsText(least)} (${n})`];
    if (!counts.some((c) => c / n > SCORE_FLOOR)) return [null, null, 'no group holds 1% of the rows'];
    const [value, lo, hi] = scoreBounds(counts);
    if (100 * (hi - lo) > SCORE_CI_WIDTH) {
      return [null, null, `the score's interval is wider than ${SCORE_CI_WIDTH} points ` +
        `(${roundInt(lo * 100)}-${roundInt(hi * 100)})`];
    }
    return [roundInt(value * 100), [roundInt(lo * 100), roundInt(hi * 100)], null];
  }

  function gradeCap(worst) {
    return GRADE_CAP[gradeFor(worst)];
  }

  /** [overall_score, overall_ci] over the scored dimensions (SPEC 5). */
  function overallScore(dims, rule) {
    const scored = dims.filter((d) => d.dimension_score !== null);
    if (scored.length === 0) return [null, null];
    const k = scored.length;
    const mean = roundInt(fsum(scored.map((d) => d.dimension_score)) / k);
    if (rule !== 'v3') return [mean, null];
    const least = (xs) => xs.reduce((a, b) => (b < a ? b : a));
    const worst = least(scored.map((d) => d.dimension_score));
    const lows = scored.map((d) => d.score_ci[0]);
    const highs = scored.map((d) => d.score_ci[1]);
    const ci = [
      Math.min(roundInt(fsum(lows) / k), gradeCap(least(lows))),
      Math.min(roundInt(fsum(highs) / k), gradeCap(least(highs))),
    ];
    return [Math.min(mean, gradeCap(worst)), ci];
  }

  function r4(x) {
    return x === null || x === undefined ? null : roundHalfUp(x, 4);
  }

  function findingEntry(kind, severity, dims, groups, text) {
    return {
      kind, severity, dimensions: dims ? dims.slice() : [], groups: groups ? groups.slice() : [],
      value: null, n: null, ci_low: null, ci_high: null, threshold: null, p: null, verdict: null,
      text,
    };
  }

  /** The entries of one report, in order, and its family of tests (SPEC 18). */
  class Findings {
    constructor() {
      this.entries = [];
      this.tests = 0;
      this.ps = []; // [raw p, how many findings share it, the listed entry or null]
      this.sinks = []; // [block, entry]: the block takes the entry's verdict
      this.late = []; // [block, index in ps]: the block takes an unlisted finding's verdict
      this.then = []; // [done, index in ps]: called with the verdict and adjusted p
    }

    note(kind, text, dims, groups) {
      const e = findingEntry(kind, 'note', dims, groups, text);
      this.entries.push(e);
      return e;
    }

    finding(kind, text, f) {
      const e = findingEntry(kind, 'finding', f.dims, f.groups, text);
      e.value = r4(f.value);
      e.n = f.n;
      e.ci_low = r4(f.interval[0]);
      e.ci_high = r4(f.interval[1]);
      e.threshold = f.threshold;
      e.p = f.p;
      this.entries.push(e);
      this.ps.push([f.p, 1, e]);
      return e;
    }

    /** Findings past a listing cap: in the family and the counts, not in the list;
     * `sink.verdict` takes their verdict when a sink is given. */
    unlisted(p, count, sink) {
      if (count === undefined) count = 1;
      if (count) {
        this.ps.push([p, count, null]);
        if (sink !== null && sink !== undefined) this.late.push([sink, this.ps.length - 1]);
      }
    }

    /** A test beyond its threshold whose report is written at close() (a comparison's
     * drift level, SPEC 18.1): in the family and the counts, not a listed finding;
     * done(verdict, adjusted p rounded to 4 dp) is called then. */
    pending(p, done) {
      this.ps.push([p, 1, null]);
      this.then.push([done, this.ps.length - 1]);
    }

    verdictTo(block, entry) {
      if (entry !== null && entry !== undefined) this.sinks.push([block, entry]);
    }

    /** [findings, evidence]: Holm's adjusted p and the verdict of every finding. */
    close(alpha) {
      let listed = 0;
      for (const [, c] of this.ps) listed += c;
      const m = Math.max(this.tests, listed);
      const ps = this.ps;
      const order = ps.map((_, i) => i);
      order.sort((i, j) => (ps[i][0] - ps[j][0]) || (i - j));
      let rank = 0;
      let running = 0.0;
      let confirmed = 0;
      let possible = 0;
      const verdicts = new Array(ps.length);
      const adjusted = new Array(ps.length);
      for (const i of order) {
        const [p, count, entry] = ps[i];
        running = Math.max(running, Math.min(1.0, (m - rank) * p));
        rank += count;
        const verdict = running < alpha ? 'confirmed' : 'possible';
        verdicts[i] = verdict;
        adjusted[i] = running;
        if (verdict === 'confirmed') confirmed += count;
        else possible += count;
        if (entry !== null) {
          entry.p = roundHalfUp(running, 4);
          entry.verdict = verdict;
        }
      }
      for (const [block, entry] of this.sinks) block.verdict = entry.verdict;
      for (const [block, i] of this.late) block.verdict = verdicts[i];
      for (const [done, i] of this.then) done(verdicts[i], roundHalfUp(adjusted[i], 4));
      const evidence = { alpha, correction: 'holm', tests: m, confirmed, possible };
      return [this.entries, evidence];
    }
  }

  /** A dimension's under-represented, imbalance and missing findings (SPEC 6, 18). */
  function dimensionFindings(fs, dim, nRows, opts) {
    const out = dim.out;
    const name = dim.name;
    const n = dim.n;
    const minSize = opts.min_group_size;
    const under = dim.under; // [label, share, count] in group order
    if (n >= Math.max(1, minSize)) {
      fs.tests += out.n_groups;
      const pOf = new Map();
      let listed = 0;
      for (const [label, share, c] of under) {
        let p = pOf.get(c);
        if (p === undefined) { p = scoreP(c, n, opts.min_share, true); pOf.set(c, p); }
        if (listed === UNDER_LINES) { fs.unlisted(p); continue; }
        listed++;
        const rows = c < minSize ? `, ${rowsText(c)}` : '';
        fs.finding('under_represented', `${name}: '${label}' is under-represented (${pct(share)}%${rows})`, {
          dims: [name], groups: [label], value: share, n, interval: wilsonBounds(c, n),
          threshold: opts.min_share, p,
        });
      }
      if (under.length > listed) {
        const k = under.length - listed;
        fs.note('more', `${name}: ${k} more under-represented groups (the JSON lists all)`, [name]);
      }
    } else if (under.length > 0) {
      fs.note('representation', `${name}: ${under.length} group${under.length === 1 ? '' : 's'} under ${pct(opts.min_share)}% in ${rowsText(n)}; ` +
        'too few rows to judge representation', [name]);
    }
    const groups = dim.byCount || [];
    let sized = 0;
    let last = -1;
    for (let g = 0; g < groups.length; g++) {
      if (groups[g][1] >= minSize) { sized++; last = g; }
    }
    if (sized >= 2) {
      const [bigLabel, bigCount] = groups[0];
      const [smallLabel, smallCount] = groups[last];
      const ratio = bigCount / smallCount;
      fs.tests += 1;
      if (ratio >= opts.imbalance_flag) {
        const both = bigCount + smallCount;
        const [lo, hi] = wilsonBounds(bigCount, both);
        const r = opts.imbalance_flag;
        fs.finding('imbalance', `${name}: imbalance ratio ${fmt(ratio, 1)} ('${bigLabel}' vs '${smallLabel}')`, {
          dims: [name], groups: [bigLabel, smallLabel], value: ratio, n: both,
          interval: [lo / (1 - lo), hi < 1 ? hi / (1 - hi) : null], threshold: r,
          p: scoreP(bigCount, both, r / (1 + r), false),
        });
      }
    }
    if (nRows >= 1) {
      fs.tests += 1;
      const miss = dim.missingPctRaw;
      if (miss >= opts.missing_flag) {
        const extra = dim.implausible > 0 ? ` (${dim.implausible} implausible ages treated as missing)` : '';
        const m = out.missing_count;
        fs.finding('missing', `${name}: ${pct(miss)}% missing${extra}`, {
          dims: [name], groups: [], value: miss, n: nRows, interval: wilsonBounds(m, nRows),
          threshold: opts.missing_flag, p: scoreP(m, nRows, opts.missing_flag, false),
        });
      }
    }
  }

  /** Labels for a flag: the first 3, quoted, then ', ...' when there are more. */
  function firstLabels(labels, n) {
    const shownLabels = labels.slice(0, n).map((l) => `'${l}'`).join(', ');
    return labels.length > n ? shownLabels + ', ...' : shownLabels;
  }

  function analyze(summary, overrides, opts) {
    opts = resolveOptions(opts);
    overrides = overrideMap(overrides);
    const columns = summary.columns;
    checkOverrides(overrides, columns, opts);
    const labelIndex = opts.label === null ? -1 : columns.indexOf(opts.label);
    const nRows = summary.n_rows;

    // SPEC 1.1: counts, missing and pairs with na and recode applied.
    const rewrites = columns.map((col) => rewriteOf(opts, col));
    const countsOf = new Array(columns.length).fill(undefined);
    const missingOf = new Array(columns.length).fill(0);
    const rewritten = (i) => {
      if (countsOf[i] === undefined) {
        const [c, m] = rewriteCounts(rewrites[i], summary.counts[i]);
        countsOf[i] = c;
        missingOf[i] = summary.missing[i] + m;
      }
      return countsOf[i];
    };

    // Detection, in column order (SPEC 1.4).
    const dims = [];
    const dropped = [];
    const unscored = [];
    const contradicted = [];
    let namedKinds = null; // built when the first open column needs it
    for (let i = 0; i < columns.length; i++) {
      const col = columns[i];
      const ov = overrides.get(col);
      // the label and the outcome columns: never dimensions (17.2, 19.2)
      if (ov === 'ignore' || i === labelIndex || opts.outcome.includes(col)) continue;
      const raw = summary.counts[i];
      // More than LABEL_CAP labels: capped (SPEC 0.9). An engine stops counting such a
      // column (counts null); one that counted it all has more labels.
      const capped = raw === null ? !!(summary.capped && summary.capped[i])
        : raw.size > LABEL_CAP;
      const counts = rewritten(i);
      let kind;
      let detectedBy;
      if (ov !== undefined && ov !== null) {
        kind = ov;
        detectedBy = 'override';
      } else {
        kind = kindFromName(col);
        detectedBy = 'name';
        // SPEC 1.2: many exports call race "ethnicity"
        if (kind === 'ethnicity' && counts !== null && !capped && ethnicityHoldsRace(counts)) kind = 'race';
        if (!kind) {
          if (capped && opts.max_categorical > LABEL_CAP) {
            dropped.push({ name: col, kind: 'categorical', n_groups: null, more_than: LABEL_CAP });
            continue;
          }
          if (counts === null || capped) continue;
          if (counts.size < 2 || counts.size > opts.max_categorical) continue;
          if (namedKinds === null) namedKinds = namedKindsOf(columns, overrides, opts);
          kind = kindFromValues(counts, namedKinds);
          detectedBy = 'values';
          if (!kind) {
            if (!(opts.score_categoricals || opts.score_rule === 'seed')) { // SPEC 5: seed
              unscored.push(unscoredEntry(col, counts, missingOf[i], 'not a demographic name or vocabulary'));
              continue;
            }
            kind = 'categorical';
            detectedBy = 'label_count';
          }
        }
      }
      if (capped || counts === null) {
        dropped.push({ name: col, kind, n_groups: null, more_than: LABEL_CAP });
        continue;
      }
      const dim = buildDimension(col, kind, counts, missingOf[i], opts);
      dim.index = i;
      dim.detectedBy = detectedBy;
      if (detectedBy !== 'override' && kind !== 'geography' && dim.groups.length > opts.max_dimension_groups) {
        dropped.push({ name: col, kind, n_groups: dim.groups.length });
        continue;
      }
      if (detectedBy === 'name') {
        const why = contradiction(kind, counts, opts.max_categorical);
        if (why !== null) {
          unscored.push(unscoredEntry(col, counts, missingOf[i], `named like ${kind} but holds ${why}`));
          contradicted.push(`${col}: named like ${kind} but holds ${why}; not scored (force it with --map ${col}=${kind})`);
          unscored[unscored.length - 1].contradicted = true;
          continue;
        }
      }
      dims.push(dim);
    }

    const fs = new Findings();
    const dimensions = [];
    const refEntries = opts.reference ? matchReference(opts.reference, dims) : new Map();
    for (const dim of dims) {
      const outDim = dimensionMetrics(dim, nRows, opts);
      dimensions.push(outDim);
      dimensionFindings(fs, dim, nRows, opts);
      if (refEntries.has(dim.name)) {
        const r = referenceBlock(outDim, refEntries.get(dim.name), opts.reference_flag, dim, opts);
        outDim.reference = r.block;
        for (const [text, about] of r.flags) {
          if (about === null) {
            fs.note('reference', text, [dim.name]);
            continue;
          }
          const [label, c, rows, expected] = about;
          const t = expected - opts.reference_flag;
          fs.finding('reference_gap', text, {
            dims: [dim.name], groups: [label], value: c / rows, n: rows,
            interval: wilsonBounds(c, rows), threshold: t, p: scoreP(c, rows, t, true),
          });
        }
        // every tested group is a test, flagged or not
        fs.tests += r.tests;
      }
      if (outDim.dimension_score === null && outDim.score_note !== null) {
        fs.note('not_scored', `${dim.name}: too few rows to score (${outDim.score_note}); shares are shown`, [dim.name]);
      }
    }

    // Intersections.
    const intersections = [];
    let crossFlag = null;
    let pair = null;
    let notCountedPair = null;
    if (opts.cross) {
      const byName = new Map(dims.map((d) => [d.name, d]));
      const bad = opts.cross.find((c) => !byName.has(c));
      if (bad !== undefined) crossFlag = `cross: '${bad}' is not a profiled dimension`;
      else pair = [byName.get(opts.cross[0]), byName.get(opts.cross[1])];
    } else if (dims.length >= 2) {
      pair = [dims[0], dims[1]];
      const skip = new Set(opts.outcome.map((c) => columns.indexOf(c)));
      skip.add(labelIndex);
      const why = notCounted(columns, overrides, pair[0].index, pair[1].index, skip);
      if (why !== null) {
        notCountedPair = [pair[0].name, pair[1].name];
        fs.note('not_counted', `${pair[0].name} x ${pair[1].name}: intersection not counted (${why}); pass --cross ${pair[0].name},${pair[1].name}`,
          notCountedPair);
        pair = null;
      }
    }
    let crossed = null; // [A, B, cells] of the intersection, for label rates (17.4)
    if (pair) {
      const [A, B] = pair;
      const cells = pairCells(summary, A, B, rewrites);
      crossed = [A, B, cells];
      intersections.push(intersection(A, B, cells, nRows, opts, fs));
    }
    // SPEC 17: label base rates and missing data by group.
    let rates = null;
    let byGroup = null;
    let outcomes = null;
    const ctx = { summary, opts, columns, overrides, rewrites, nRows, labelIndex };
    if (labelIndex >= 0 || opts.missing_by_group || opts.outcome.length) {
      // A dimension past the group columns (0.9, 17.2) has no tables: one note each.
      const plainTables = labelIndex >= 0 || opts.missing_by_group;
      let tables;
      if (labelIndex >= 0) tables = summary.label_pairs || new Map();
      else if (opts.missing_by_group) tables = summary.missing_by || new Map();
      else {
        const first = summary.outcomes ? summary.outcomes.values().next().value : undefined;
        tables = first === undefined ? new Map() : first.by;
      }
      const what = plainTables ? 'label rates and missing data' : 'outcome means';
      for (const dim of dims) {
        if (!tables.has(dim.index)) {
          fs.note('not_counted', `${dim.name}: ${what} by group not counted ('${dim.name}' is not among the first ${PAIR_COLUMNS} counted columns)`,
            [dim.name]);
        }
      }
    }
    if (labelIndex >= 0 || opts.missing_by_group) {
      if (labelIndex >= 0) {
        // SPEC 17.2/17.3: a capped label, or no positive value, is an input error.
        ctx.label = labelValues(ctx, rewritten(labelIndex));
        rates = labelRates(ctx, dims, crossed, rewritten(labelIndex), fs);
      }
      if (opts.outcome.length) outcomes = outcomeBlocks(ctx, dims, crossed, fs); // SPEC 21
      if (opts.missing_by_group) byGroup = missingByGroup(ctx, dims, fs);
    } else if (opts.outcome.length) {
      outcomes = outcomeBlocks(ctx, dims, crossed, fs);
    }
    if (opts.reference) {
      for (const text of unmatchedWarnings(opts.reference, refEntries)) fs.note('reference', text);
      for (const text of sumWarnings(opts.reference)) fs.note('reference', text);
    }
    for (const text of contradicted) fs.note('contradicted', text);
    for (const dim of dims) {
      const codes = codedLabels(dim.kind, dim.groups.map((g) => g[0]));
      if (codes.length > 0) fs.note('coded', codedText(dim.name, codes), [dim.name]);
    }
    const plain = unscored.filter((u) => !u.contradicted).map((u) => u.name);
    const names = namesText(plain);
    if (dims.length > 0 && plain.length > 0) {
      const what = plain.length === 1 ? 'column that is' : 'columns that are';
      fs.note('unscored', `not scored: ${plain.length} ${what} not demographic (${names}); --score-categoricals scores them, --map COLUMN=KIND declares one`);
    }
    if (crossFlag) fs.note('cross', crossFlag);

    const [overall, overallCi] = overallScore(dimensions, opts.score_rule);
    if (dims.length === 0) {
      if (plain.length > 0) {
        fs.note('no_dimension', `no demographic column detected (not scored: ${names}); declare one with --map COLUMN=KIND`);
      } else {
        fs.note('no_dimension', 'no demographic column detected; declare one with --map COLUMN=KIND');
      }
    } else if (overall === null) {
      fs.note('no_dimension', `no dimension has enough rows to score (${namesText(dims.map((d) => d.name))}); the grade is not given`);
    }
    const [findings, evidence] = fs.close(opts.alpha);
    const result = {
      format_version: FORMAT_VERSION,
      n_rows: nRows,
      n_cols: columns.length,
      columns: columns.slice(),
      overall_score: overall,
      overall_ci: overallCi,
      grade: gradeFor(overall),
      dimensions,
      intersections,
      unscored: unscored.map((u) => ({ name: u.name, n_groups: u.n_groups,
        missing_count: u.missing_count, why: u.why, groups: u.groups })),
      dropped,
    };
    if (rates !== null) result.label_rates = rates;
    if (byGroup !== null) result.missing_by_group = byGroup;
    if (outcomes !== null) result.outcomes = outcomes;
    result.findings = findings;
    result.evidence = evidence;
    result.flags = findings.map((f) => f.text);
    if (notCountedPair !== null) result.intersection_not_counted = notCountedPair;
    return result;
  }

  /** The first 5 names, ', '-joined, then ', ...' when there are more (SPEC 6). */
  function namesText(list) {
    return list.slice(0, 5).join(', ') + (list.length > 5 ? ', ...' : '');
  }

  /** The intersection entry of a crossed pair and its intersection_gap findings (SPEC 4,
   * 6, 18). `cells`: "ga\0gb" -> count of the pair table (after 1.1 and bands). */
  function intersection(A, B, cells, nRows, opts, fs) {
    const nCells = A.groups.length * B.groups.length;
    // margins of the pair table, for each cell's count under independence (SPEC 6)
    const rowsA = new Map();
    const rowsB = new Map();
    let counted = 0;
    for (const [key, c] of cells) {
      const cut = key.indexOf('\u0000');
      const a = key.slice(0, cut);
      const b = key.slice(cut + 1);
      rowsA.set(a, (rowsA.get(a) || 0) + c);
      rowsB.set(b, (rowsB.get(b) || 0) + c);
      counted += c;
    }
    const least = opts.min_group_size;
    // SPEC 4: both margins of min_group_size rows and at least one row expected
    const tested = (a, b) => {
      const ra = rowsA.get(a) || 0;
      const rb = rowsB.get(b) || 0;
      return ra >= least && rb >= least && ra * rb >= counted && counted > 0;
    };
    // Every cell not in `cells` is absent; a counted cell is a gap when below the
    // floor. So the number of gaps is known without visiting all nCells (zip x city
    // has 10^8), and listing stops at CELL_CAP gaps (SPEC 0.9); so is the number of
    // tested gaps.
    const floor = opts.intersection_floor * nRows;
    let filled = 0;
    for (const c of cells.values()) if (!(c < floor)) filled++;
    const total = nCells - filled;
    const nTested = testedCells(rowsA, rowsB, counted, least);
    fs.tests += nTested;
    // the tested gaps by count: tested cells of the pair table below the floor, and the
    // tested cells it does not hold (absent)
    const byCount = new Map();
    let held = 0;
    for (const [key, c] of cells) {
      const cut = key.indexOf('\u0000');
      if (!tested(key.slice(0, cut), key.slice(cut + 1))) continue;
      held++;
      if (c === 0 || c < floor) byCount.set(c, (byCount.get(c) || 0) + 1);
    }
    if (nTested > held) byCount.set(0, (byCount.get(0) || 0) + nTested - held);
    let testedGaps = 0;
    for (const k of byCount.values()) testedGaps += k;
    const AB = `${A.name} x ${B.name}`;
    const pOf = new Map();
    const pFor = (c) => {
      let p = pOf.get(c);
      if (p === undefined) { p = scoreP(c, nRows, opts.intersection_floor, true); pOf.set(c, p); }
      return p;
    };
    const gaps = [];
    let listed = 0;
    if (total > 0) {
      outer: for (const [ga] of A.groups) {
        for (const [gb] of B.groups) {
          const count = cells.get(ga + '\u0000' + gb) || 0;
          if (count === 0 || count < floor) {
            const ra = rowsA.get(ga) || 0;
            const rb = rowsB.get(gb) || 0;
            gaps.push({ a: ga, b: gb, count, share: roundHalfUp(count / nRows, 4),
              expected: counted ? roundHalfUp(ra * rb / counted, 2) : 0.0 });
            if (listed < MAX_GAP_FLAGS && tested(ga, gb)) {
              listed++;
              byCount.set(count, byCount.get(count) - 1);
              const text = count === 0 ? `${AB}: '${ga}' x '${gb}' is absent (0 rows)`
                : `${AB}: '${ga}' x '${gb}' is near-empty (${rowsText(count)}, ${pct(count / nRows)}%)`;
              fs.finding('intersection_gap', text, {
                dims: [A.name, B.name], groups: [ga, gb], value: count / nRows, n: nRows,
                interval: wilsonBounds(count, nRows), threshold: opts.intersection_floor, p: pFor(count),
              });
            }
            if (gaps.length === CELL_CAP) break outer;
          }
        }
      }
    }
    if (testedGaps > listed) {
      // the unlisted tested gaps' p-values, by count
      for (const c of Array.from(byCount.keys()).sort((x, y) => x - y)) fs.unlisted(pFor(c), byCount.get(c));
      fs.note('more', `${AB}: ${testedGaps - listed} more sparse cells (the JSON lists all)`, [A.name, B.name]);
    }
    if (nCells > nTested) {
      // a margin of 1 row is implied by 1 row expected: the floor is named only above it
      const small = least > 1 ? `a group of fewer than ${rowsText(least)} with both known, or ` : '';
      fs.note('representation', `${AB}: ${nCells - nTested} of ${nCells} cells not tested: `
        + `${small}under 1 row expected`, [A.name, B.name]);
    }
    const entry = { dims: [A.name, B.name], n_cells: nCells, cells: gaps };
    if (total > gaps.length) entry.cells_not_listed = total - gaps.length;
    if (nCells > nTested) entry.cells_not_tested = nCells - nTested;
    return entry;
  }

  /** How many cells of the pair table with margins rowsA x rowsB are tested (SPEC 4):
   * both margins of `least` rows and ra * rb >= counted, without visiting every cell. */
  function testedCells(rowsA, rowsB, counted, least) {
    const sizes = [];
    for (const rb of rowsB.values()) if (rb >= least) sizes.push(rb);
    sizes.sort((x, y) => x - y);
    let n = 0;
    for (const ra of rowsA.values()) {
      if (!(ra >= least && ra > 0)) continue;
      // rb * ra >= counted exactly when rb >= ceil(counted / ra); the first such size by
      // bisection, comparing the integer products (exact below 2^53)
      let lo = 0;
      let hi = sizes.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (sizes[mid] >= least && sizes[mid] * ra >= counted) hi = mid; else lo = mid + 1;
      }
      n += sizes.length - lo;
    }
    return n;
  }

  /** Why the default pair (columns ia, ib) had no pair table while reading, or null
   * (SPEC 0.9): a pure function of the header and overrides, as the reading rule is. */
  function notCounted(columns, overrides, ia, ib, skip) {
    const i = Math.min(ia, ib);
    const j = Math.max(ia, ib);
    const counted = countedColumns(columns, overrides, skip);
    const pos = counted.indexOf(j);
    if (pos >= PAIR_COLUMNS) return `'${columns[j]}' is not among the first ${PAIR_COLUMNS} counted columns`;
    for (let x = 0; x < pos; x++) {
      const k = counted[x];
      const ov = overrides.get(columns[k]);
      if (k !== i && ((ov !== undefined && ov !== null) || kindFromName(columns[k]) === 'geography')) {
        return `'${columns[k]}' before it was capped`;
      }
    }
    return null;
  }

  // SPEC 17: label base rates and missing data by group, from the summary's 17.2 tables.

  const RATIO_NOTE = 'min_ratio is the lowest group rate over the highest; the four-fifths (0.8) rule of US employment guidance is a convention, not a legal threshold';

  /** Values for a message (SPEC 17.3): the first 10 in code-point order, quoted. */
  function valuesText(values) {
    const shownValues = values.slice(0, 10).map((v) => `'${v}'`).join(', ');
    return values.length > 10 ? shownValues + ', ...' : shownValues;
  }

  /** SPEC 17.3: the positive value of the label (counts after 1.1) and the rule. */
  const NO_LABEL_VALUE = 'every cell is missing (after --na and --recode); nothing to give rates of';

  /** SPEC 17.3 of ctx.summary's label column, `counts` its counts after 1.1: {positive,
   * from}; an input error when the label cannot give rates (capped, no value, no
   * positive value). */
  function labelValues(ctx, counts) {
    const { opts, summary, labelIndex } = ctx;
    const raw = summary.counts[labelIndex];
    if (raw === null || (summary.capped && summary.capped[labelIndex]) || raw.size > LABEL_CAP) {
      throw new InputError(`--label ${opts.label}: more than ${LABEL_CAP} distinct values`);
    }
    const values = Array.from(counts.keys()).sort(cmpCodePoint);
    if (values.length === 0) throw new InputError(`--label ${opts.label}: ${NO_LABEL_VALUE}`);
    if (opts.positive !== null) {
      if (!counts.has(opts.positive)) {
        throw new InputError(`--positive ${opts.positive}: not a value of '${opts.label}' (values: ${valuesText(values)})`);
      }
      return { positive: opts.positive, from: 'option' };
    }
    if (values.length !== 2) {
      throw new InputError(`--label ${opts.label}: ${values.length} value${values.length === 1 ? '' : 's'}; name the positive one with --positive (values: ${valuesText(values)})`);
    }
    return { positive: values[1], from: 'larger_of_two' };
  }

  /**
   * The errors a summary can tell of settings it was not read with (SPEC 7: the page
   * asks before it reads the file again, so that a bad setting is said at once, as by
   * the CLI): the options (resolveOptions), the columns they name (checkOverrides) and,
   * where the summary holds a column's counts whole, the label's values (SPEC 17.3) and
   * an outcome of text with not one number (SPEC 21.1).
   * Throws the InputError a read with these settings would give first; returns nothing
   * when the summary cannot tell of one.
   */
  function checkSettings(summary, overrides, opts) {
    opts = resolveOptions(opts);
    const columns = summary.columns;
    checkOverrides(overrideMap(overrides), columns, opts);
    const whole = (k) => k >= 0 && summary.counts[k] !== null && !(summary.capped && summary.capped[k]);
    const counted = (k) => rewriteCounts(rewriteOf(opts, columns[k]), summary.counts[k])[0];
    const i = opts.label === null ? -1 : columns.indexOf(opts.label);
    if (whole(i)) labelValues({ opts, summary, labelIndex: i }, counted(i));
    // An outcome whose kept labels, rewritten, hold text and not one number (SPEC 21.1):
    // the read would refuse it after reading the file again.
    for (const name of opts.outcome) {
      const o = columns.indexOf(name);
      if (!whole(o)) continue;
      let values = 0;
      let text = 0;
      for (const [label, c] of counted(o)) {
        if (outcomeValue(label) === null) text += c;
        else values += c;
      }
      if (values === 0 && text > 0) throw new InputError(noNumber(name, text));
    }
  }

  /** The group of a dimension a label as read belongs to (SPEC 1.1, bands,
   * plausibility), or null. */
  function groupOfRaw(dim, rw, label) {
    if (rw !== null) {
      label = rw.rewrite(label);
      if (label === null) return null;
    }
    if (dim.labelToGroup) {
      const g = dim.labelToGroup.get(label);
      return g === undefined ? null : g;
    }
    return label;
  }

  /** A rate entry of `count` rows, n of them with a label (SPEC 17.4): n, positive, rate
   * and its interval (4 dp), label_missing and small_group. */
  function rateEntry(n, pos, count, minSize) {
    let rate = null;
    let lo = null;
    let hi = null;
    if (n !== 0) {
      [lo, hi] = wilsonBounds(pos, n).map((bound) => roundHalfUp(bound, 4));
      rate = roundHalfUp(pos / n, 4);
    }
    return { n, positive: pos, rate, ci_low: lo, ci_high: hi, label_missing: count - n,
      small_group: n < minSize };
  }

  /** SPEC 17.4: the highest and lowest of rated items ({n, pos}, in order) among the
   * compared ones (n >= max(1, min_group_size)): [hi, lo] indexes, or null when fewer
   * than two are compared (no fallback to smaller groups). The lowest is never the
   * highest: when every rate ties, it is the second compared item. */
  function extremes(items, minGroup) {
    const least = Math.max(1, minGroup);
    let hi = -1;
    let lo = -1;
    let second = -1;
    let k = 0;
    for (let x = 0; x < items.length; x++) {
      const it = items[x];
      if (!(it.n >= least)) continue;
      k++;
      if (k === 2) second = x;
      const r = it.pos / it.n;
      if (hi < 0 || r > items[hi].pos / items[hi].n) hi = x;
      if (lo < 0 || r < items[lo].pos / items[lo].n) lo = x;
    }
    if (lo === hi) lo = second; // every compared rate ties: two groups, not one against itself
    return k >= 2 ? [hi, lo] : null;
  }

  /** search_p of Newcombe's lower bound of rate(high) - rate(it) above gap (SPEC 18). */
  function gapP(high, it, gap) {
    return searchP((z) => newcombe(high.pos, high.n, it.pos, it.n, z)[0] > gap);
  }

  /** SPEC 17.4: the compared items, in order, other than the lowest, whose rate Newcombe's
   * 95% interval does not place above the lowest's (at most CELL_CAP): the groups the
   * data do not tell apart from the worst-off one. */
  function alike(items, low, least) {
    const out = [];
    for (const it of items) {
      if (it.n >= least && it !== low && newcombe(it.pos, it.n, low.pos, low.n, Z)[0] <= 0) {
        out.push(it);
        if (out.length === CELL_CAP) break;
      }
    }
    return out;
  }

  /** highest, lowest, max_difference, min_ratio and gap of a [hi, lo] pair (SPEC 17.4).
   * The gap's verdict is the lowest group's finding's, after the family's correction,
   * when the difference is above label_gap (set by the Findings at close);
   * lowest_alike: the groups not told apart from the lowest. */
  function summaryFields(items, hl, asKey, gap, least) {
    if (hl === null) {
      return { highest: null, lowest: null, max_difference: null, min_ratio: null, gap: null };
    }
    const high = items[hl[0]];
    const low = items[hl[1]];
    const rh = high.pos / high.n;
    const rl = low.pos / low.n;
    const [lo, hi] = newcombe(high.pos, high.n, low.pos, low.n, Z);
    // a group with none or all positive: Haldane-Anscombe, not Katz's [1, 1] or nothing
    const ratio = high.pos === 0 ? null : katzInterval(low.pos, low.n, high.pos, high.n, Z);
    const verdict = rh - rl > gap ? null : hi > gap ? 'possible' : 'within';
    return {
      highest: asKey(high),
      lowest: asKey(low),
      max_difference: roundHalfUp(rh - rl, 4),
      min_ratio: rh > 0 ? roundHalfUp(rl / rh, 4) : null,
      gap: {
        difference: roundHalfUp(rh - rl, 4),
        ci_low: roundHalfUp(lo, 4),
        ci_high: roundHalfUp(hi, 4),
        ratio_ci_low: ratio === null ? null : roundHalfUp(ratio[0], 4),
        ratio_ci_high: ratio === null ? null : roundHalfUp(ratio[1], 4),
        verdict,
        lowest_alike: alike(items, low, least).map(asKey),
      },
    };
  }

  /** The label_gap findings of SPEC 17.4 and 18 of rated items (in order): every pair of
   * compared ones counts in the family (pairTests); the compared ones whose rate is below
   * the highest's by more than label_gap are findings, the first `cap` listed. `dims`: the dimension or
   * the crossed pair; `groups(it)`: an item's labels; `block`: the gap block. */
  function gapFindings(fs, dims, head, items, hl, block, groups, opts, cap) {
    const where = dims.join(' x ');
    if (hl === null) {
      fs.note('not_measurable', `${where}: label-rate gap not measurable: fewer than two groups of ${rowsText(Math.max(1, opts.min_group_size))}`, dims);
      return;
    }
    const high = items[hl[0]];
    const low = items[hl[1]];
    const rh = high.pos / high.n;
    const highText = groups(high).map((g) => `'${g}'`).join(' x ');
    const least = Math.max(1, opts.min_group_size);
    const gap = opts.label_gap;
    let listed = 0;
    let more = 0;
    fs.tests += pairTests(items.filter((it) => it.n >= least).length);
    for (const it of items) {
      if (it.n < least || it === high) continue;
      const r = it.pos / it.n;
      if (!(rh - r > gap)) continue;
      const p = gapP(high, it, gap);
      if (listed === cap) {
        more++;
        fs.unlisted(p, 1, it === low ? block : null);
        continue;
      }
      listed++;
      const text = groups(it).map((g) => `'${g}'`).join(' x ');
      // SPEC 17.4 (8's rule): a rate of some rows but not all never reads 0 or 100
      const rates = [pctNotZero(r, it.pos > 0 ? 1 : 0, it.pos < it.n), pctNotZero(rh, high.pos > 0 ? 1 : 0, high.pos < high.n)];
      const entry = fs.finding('label_gap', `${where}: ${head}${rates[0]}% for ${text} vs ${rates[1]}% for ${highText}`, {
        dims, groups: groups(it).concat(groups(high)), value: rh - r, n: it.n,
        interval: newcombe(high.pos, high.n, it.pos, it.n, Z), threshold: gap, p,
      });
      if (it === low && block !== null) fs.verdictTo(block, entry);
    }
    if (more) fs.note('more', `${where}: ${more} more label-rate gaps (the JSON lists all)`, dims);
  }

  /** The cell "ga\0gb" of the labels (x, y) of an entry of a pair table of A and B,
   * which holds the lower column's label first; null when either label has no group
   * (missing after 1.1, an implausible age). */
  function cellMapper(A, B, rewrites) {
    const swap = A.index > B.index;
    const rwA = rewrites[A.index];
    const rwB = rewrites[B.index];
    return (x, y) => {
      const ga = groupOfRaw(A, rwA, swap ? y : x);
      const gb = groupOfRaw(B, rwB, swap ? x : y);
      return ga === null || gb === null ? null : ga + '\u0000' + gb;
    };
  }

  /** The intersection's cells with at least one row, in A's group order then B's: never
   * all of A x B, which can be 10^8 (SPEC 17.4, 21.3). `cells`: pairCells' "ga\0gb" ->
   * rows; each cell is {a, b, key, count, ia, ib} (ia, ib: the groups' places). */
  function crossedCells(A, B, cells) {
    const idxA = new Map(A.groups.map(([g], x) => [g, x]));
    const idxB = new Map(B.groups.map(([g], x) => [g, x]));
    const out = [];
    for (const [key, count] of cells) {
      if (!(count >= 1)) continue;
      const cut = key.indexOf('\u0000');
      const a = key.slice(0, cut);
      const b = key.slice(cut + 1);
      out.push({ a, b, key, count, ia: idxA.get(a), ib: idxB.get(b) });
    }
    out.sort((x, y) => (x.ia - y.ia) || (x.ib - y.ib));
    return out;
  }

  /** SPEC 17.4: the label_rates block; its findings and notes go to `fs`. */
  function labelRates(ctx, dims, crossed, labelCounts, fs) {
    const { summary, opts, rewrites, nRows, labelIndex } = ctx;
    const { positive, from } = ctx.label;
    const rwL = rewrites[labelIndex];
    const L = opts.label;
    let n = 0;
    for (const c of labelCounts.values()) n += c;
    const pos = labelCounts.get(positive) || 0;
    const top = rateEntry(n, pos, nRows, opts.min_group_size);
    const block = {
      label: L, positive, positive_from: from,
      n, positive_count: pos, rate: top.rate, ci_low: top.ci_low, ci_high: top.ci_high,
      label_missing: top.label_missing,
      ratio_note: RATIO_NOTE,
      dimensions: [],
      intersection: null,
    };
    const labelOf = (ll) => (rwL === null ? ll : rwL.rewrite(ll));
    const tables = summary.label_pairs || new Map();
    const head = `${L}=${positive} rate `;
    for (const dim of dims) {
      if (!tables.has(dim.index)) {
        block.dimensions.push({ name: dim.name, not_counted: true });
        continue;
      }
      const rw = rewrites[dim.index];
      const acc = new Map();
      for (const [ld, ll, c] of tables.get(dim.index)) {
        // null: the missing group (D missing as read, after 1.1, or an implausible age)
        const g = ld === null ? null : groupOfRaw(dim, rw, ld);
        const l = labelOf(ll);
        if (l === null) continue;
        let a = acc.get(g);
        if (a === undefined) acc.set(g, (a = { n: 0, pos: 0 }));
        a.n += c;
        if (l === positive) a.pos += c;
      }
      const items = dim.out.groups.map((g) => {
        const a = acc.get(g.label) || { n: 0, pos: 0 };
        return { label: g.label, count: g.count, n: a.n, pos: a.pos };
      });
      const hl = extremes(items, opts.min_group_size);
      const entry = {
        name: dim.name,
        ...summaryFields(items, hl, (it) => it.label, opts.label_gap, Math.max(1, opts.min_group_size)),
        groups: items.slice(0, CELL_CAP).map((it) => ({ label: it.label,
          ...rateEntry(it.n, it.pos, it.count, opts.min_group_size) })),
      };
      // a 30,000-zip dimension lists its first 1,000 groups (SPEC 17.4)
      if (items.length > CELL_CAP) entry.groups_not_listed = items.length - CELL_CAP;
      const absent = dim.out.missing_count;
      if (absent) { // the rows without a group: shown, never compared (SPEC 17.4)
        const a = acc.get(null) || { n: 0, pos: 0 };
        entry.missing_group = { count: absent, ...rateEntry(a.n, a.pos, absent, opts.min_group_size) };
      }
      block.dimensions.push(entry);
      gapFindings(fs, [dim.name], head, items, hl, entry.gap, (it) => [it.label], opts, GROUP_FLAG_CAP);
    }
    if (crossed !== null) {
      const [A, B, cells] = crossed;
      const acc = labelCellsOf(summary, A, B, rewrites, labelOf, positive);
      const items = crossedCells(A, B, cells).map((cell) => {
        const got = acc.get(cell.key) || { n: 0, pos: 0 };
        return { ...cell, n: got.n, pos: got.pos };
      });
      const hl = extremes(items, opts.min_group_size);
      const listed = items.slice(0, CELL_CAP);
      const entry = {
        dims: [A.name, B.name],
        ...summaryFields(items, hl, (it) => [it.a, it.b], opts.label_gap, Math.max(1, opts.min_group_size)),
        cells: listed.map((it) => ({ a: it.a, b: it.b,
          ...rateEntry(it.n, it.pos, it.count, opts.min_group_size) })),
      };
      if (items.length > listed.length) entry.cells_not_listed = items.length - listed.length;
      block.intersection = entry;
      gapFindings(fs, [A.name, B.name], head, items, hl, entry.gap, (it) => [it.a, it.b], opts, MAX_GAP_FLAGS);
    }
    if (block.label_missing > 0) {
      fs.note('label_missing', `${L}: ${rowsText(block.label_missing)} with a missing label ${block.label_missing === 1 ? 'is' : 'are'} left out of the rates`);
    }
    return block;
  }

  // SPEC 21: numeric outcome columns by group (faircode/outcomes.py), from the exact sums.

  const TAIL = 0.025; // the two-sided 95% level of every interval of SPEC 21

  /** Decimals the renderers show means with (SPEC 21.4); outcomes.decimals. */
  function decimals(sd) {
    if (sd === null || sd === 0) return 2;
    if (sd >= 100) return 0;
    if (sd >= 10) return 1;
    if (sd >= 1) return 2;
    if (sd >= 0.1) return 3;
    return 4;
  }

  /** n, mean, its t interval and sd of one group's [n, s1, s2] (SPEC 21.3), unrounded. */
  function moments(st) {
    const [n, s1, s2] = st;
    if (n === 0) return { n: 0, mean: null, ci_low: null, ci_high: null, sd: null };
    const mean = exactMean(n, s1);
    if (n < 2) return { n, mean, ci_low: null, ci_high: null, sd: null };
    const sd = Math.sqrt(exactVar(n, s1, s2));
    const half = tQuantile(TAIL, n - 1) * (sd / Math.sqrt(n));
    return { n, mean, ci_low: mean - half, ci_high: mean + half, sd };
  }

  /** [d, lo, hi, df, se] of mean_a - mean_b with Welch's 95% interval (SPEC 21.3). */
  function welch(a, b) {
    const d = exactDiff(a[0], a[1], b[0], b[1]);
    const va = exactVar(a[0], a[1], a[2]);
    const vb = exactVar(b[0], b[1], b[2]);
    const se = Math.sqrt(va / a[0] + vb / b[0]);
    const df = welchDf(va, a[0], vb, b[0]);
    if (df === null) return [d, d, d, null, 0.0];
    const half = tQuantile(TAIL, df) * se;
    return [d, d - half, d + half, df, se];
  }

  function welchP(d, se, df, threshold) {
    if (!(d > threshold)) return 1.0;
    if (df === null) return 0.0;
    return Math.min(1.0, 2.0 * tUpper((d - threshold) / se, df));
  }

  /** [highest, lowest] items ({st, mean}) by mean among those with n >= least; null
   * with fewer than two. The lowest is never the highest: when every mean ties, it is
   * the second compared item. */
  function outcomeExtremes(items, least) {
    let high = null;
    let low = null;
    let second = null;
    let k = 0;
    for (const it of items) {
      if (it.st[0] < least) continue;
      k++;
      if (k === 2) second = it;
      const m = exactMean(it.st[0], it.st[1]);
      it.mean = m;
      if (high === null || m > high.mean) high = it;
      if (low === null || m < low.mean) low = it;
    }
    if (low === high) low = second; // every compared mean ties: two groups, not one against itself
    return k >= 2 ? [high, low] : null;
  }

  /** SPEC 21.3: the compared items, in order, other than the lowest, whose mean Welch's
   * 95% interval does not place above the lowest's (at most CELL_CAP). */
  function meanAlike(items, low, least) {
    const out = [];
    for (const it of items) {
      if (it.st[0] >= least && it !== low && welch(it.st, low.st)[1] <= 0) {
        out.push(it);
        if (out.length === CELL_CAP) break;
      }
    }
    return out;
  }

  function gapFields(items, ext, asKey, threshold, least) {
    if (ext === null) return { highest: null, lowest: null, max_difference: null, gap: null };
    const [high, low] = ext;
    const [d, lo, hi, df] = welch(high.st, low.st);
    const verdict = d > threshold ? null : hi > threshold ? 'possible' : 'within';
    return {
      highest: asKey(high),
      lowest: asKey(low),
      max_difference: d,
      gap: { difference: d, ci_low: lo, ci_high: hi, df, verdict, lowest_alike: meanAlike(items, low, least).map(asKey) },
    };
  }

  function groupEntry(st, count, least) {
    return { ...moments(st), missing: count - st[0], small_group: st[0] < least };
  }

  function outcomeGapFindings(fs, dims, name, items, ext, block, groups, threshold, dp, least, cap) {
    const where = dims.join(' x ');
    if (ext === null) {
      fs.note('not_measurable', `${where}: mean ${name} gap not measurable: fewer than two groups of ${rowsText(least)} with a value`, dims);
      return;
    }
    const [high, low] = ext;
    const highText = groups(high).map((g) => `'${g}'`).join(' x ');
    let listed = 0;
    let more = 0;
    fs.tests += pairTests(items.filter((it) => it.st[0] >= least).length);
    for (const it of items) {
      if (it.st[0] < least || it === high) continue;
      const [d, lo, hi, df, se] = welch(high.st, it.st);
      if (!(d > threshold)) continue;
      const p = welchP(d, se, df, threshold);
      if (listed === cap) {
        more++;
        fs.unlisted(p, 1, it === low ? block : null);
        continue;
      }
      listed++;
      const text = groups(it).map((g) => `'${g}'`).join(' x ');
      const entry = fs.finding('outcome_gap', `${where}: mean ${name} ${fmt(exactMean(it.st[0], it.st[1]), dp)} for ${text} vs ${fmt(high.mean, dp)} for ${highText}`, {
        dims, groups: groups(it).concat(groups(high)), value: d, n: it.st[0],
        interval: [lo, hi], threshold, p,
      });
      if (it === low && block !== null) fs.verdictTo(block, entry);
    }
    if (more) fs.note('more', `${where}: ${more} more mean gaps (the JSON lists all)`, dims);
  }

  function statsOf(map, key) {
    const got = map.get(key);
    return got === undefined ? [0, 0n, 0n] : got;
  }

  /** SPEC 21.1: an outcome column with labels and not one value (outcomes.py _no_number). */
  function noNumber(name, nonNumeric) {
    const rows = nonNumeric === 1 ? '1 row holds' : `${nonNumeric} rows hold`;
    // a number out of 21.2's range is no value either: the message says so (1e200)
    return `--outcome ${name}: no cell is a number (${rows} text, or a number of size above ${OUTCOME_HUGE} or below ${OUTCOME_TINY}); give a column of numbers, or --na for the texts that mean missing`;
  }

  /** SPEC 21.3: the `outcomes` block, one entry per outcome column; findings to `fs`. */
  function outcomeBlocks(ctx, dims, crossed, fs) {
    const { summary, opts, rewrites } = ctx;
    const out = [];
    for (const name of opts.outcome) {
      const o = summary.columns.indexOf(name);
      const tables = summary.outcomes ? summary.outcomes.get(o) : undefined;
      if (tables === undefined) {
        throw new InputError(`--outcome ${name}: this summary was read without it; read the table again`);
      }
      if (!tables.n && tables.non_numeric) throw new InputError(noNumber(name, tables.non_numeric));
      const top = moments([tables.n, tables.s1, tables.s2]);
      const threshold = opts.outcome_gap * (top.sd || 0.0);
      const dp = decimals(top.sd);
      const least = Math.max(2, opts.min_group_size);
      const block = {
        column: name, n: top.n, missing: tables.missing, non_numeric: tables.non_numeric,
        mean: top.mean, ci_low: top.ci_low, ci_high: top.ci_high, sd: top.sd, interval: 't',
        threshold, decimals: dp, dimensions: [], intersection: null,
      };
      for (const dim of dims) {
        const table = tables.by.get(dim.index);
        if (table === undefined) {
          block.dimensions.push({ name: dim.name, not_counted: true });
          continue;
        }
        const rw = rewrites[dim.index];
        const acc = new Map();
        for (const [ld, st] of table) {
          const g = groupOfRaw(dim, rw, ld);
          if (g === null) continue;
          acc.set(g, statsAdded(acc.get(g), st));
        }
        const items = dim.out.groups.map((g) => ({ label: g.label, count: g.count, st: statsOf(acc, g.label) }));
        const ext = outcomeExtremes(items, least);
        const entry = {
          name: dim.name,
          ...gapFields(items, ext, (it) => it.label, threshold, least),
          groups: items.slice(0, CELL_CAP).map((it) => ({ label: it.label, ...groupEntry(it.st, it.count, least) })),
        };
        if (items.length > CELL_CAP) entry.groups_not_listed = items.length - CELL_CAP;
        block.dimensions.push(entry);
        outcomeGapFindings(fs, [dim.name], name, items, ext, entry.gap, (it) => [it.label], threshold, dp, least, GROUP_FLAG_CAP);
      }
      if (crossed !== null) {
        const [A, B, cells] = crossed;
        const entries = tables.cells.get(Math.min(A.index, B.index) + ',' + Math.max(A.index, B.index)) || [];
        const cellOf = cellMapper(A, B, rewrites);
        const acc = new Map();
        for (const [x, y, ...st] of entries) {
          const cell = cellOf(x, y);
          if (cell !== null) acc.set(cell, statsAdded(acc.get(cell), st));
        }
        const items = crossedCells(A, B, cells).map((cell) => ({ ...cell, st: statsOf(acc, cell.key) }));
        const ext = outcomeExtremes(items, least);
        const listed = items.slice(0, CELL_CAP);
        const entry = {
          dims: [A.name, B.name],
          ...gapFields(items, ext, (it) => [it.a, it.b], threshold, least),
          cells: listed.map((it) => ({ a: it.a, b: it.b, ...groupEntry(it.st, it.count, least) })),
        };
        if (items.length > listed.length) entry.cells_not_listed = items.length - listed.length;
        block.intersection = entry;
        outcomeGapFindings(fs, [A.name, B.name], name, items, ext, entry.gap, (it) => [it.a, it.b], threshold, dp, least, MAX_GAP_FLAGS);
      }
      for (const [count, what] of [[tables.missing, 'a missing'], [tables.non_numeric, 'a non-numeric']]) {
        if (count) {
          fs.note('outcome_missing', `${name}: ${rowsText(count)} with ${what} value ${count === 1 ? 'is' : 'are'} left out of the means`);
        }
      }
      out.push(block);
    }
    return out;
  }

  /** label_cells of two dimensions mapped to their groups: "ga\0gb" -> {n, pos}. */
  function labelCellsOf(summary, A, B, rewrites, labelOf, positive) {
    const tables = summary.label_cells || new Map();
    const entries = tables.get(Math.min(A.index, B.index) + ',' + Math.max(A.index, B.index)) || [];
    const cellOf = cellMapper(A, B, rewrites);
    const out = new Map();
    for (const [x, y, ll, c] of entries) {
      const cell = cellOf(x, y);
      if (cell === null) continue;
      const l = labelOf(ll);
      if (l === null) continue;
      let a = out.get(cell);
      if (a === undefined) out.set(cell, (a = { n: 0, pos: 0 }));
      a.n += c;
      if (l === positive) a.pos += c;
    }
    return out;
  }

  /** SPEC 17.5: the missing_by_group block; its findings go to `fs`. */
  /** The row of the rows whose dimension `dim` is missing (SPEC 17.4, 17.5):
   * `(missing sex)`. */
  function missingGroupLabel(dim) { return `(missing ${dim})`; }

  function missingByGroup(ctx, dims, fs) {
    const { summary, opts, columns, overrides, nRows, rewrites } = ctx;
    const all = summary.missing_all || [];
    const by = summary.missing_by || new Map();
    const least = Math.max(1, opts.min_group_size);
    const out = [];
    for (const dim of dims) {
      if (!by.has(dim.index)) {
        out.push({ dimension: dim.name, not_counted: true });
        continue;
      }
      const rw = rewrites[dim.index];
      const tables = by.get(dim.index);
      // the floor of lowest, highest and the flags, so a report can say why a column's
      // lowest and highest are null (SPEC 17.5)
      const entry = { dimension: dim.name, min_group_size: least, columns: [] };
      let sized = 0;
      for (const g of dim.out.groups) if (g.count >= least) sized++;
      let listed = 0;
      let more = 0;
      // Each label as read -> its group's index in dim.out.groups (-1: the missing group,
      // -2: no group shown), found once per dimension, not once per column; each
      // column's missing cells are then added up per group in an array.
      const groups = dim.out.groups;
      const nGroups = groups.length;
      const index = new Map();
      for (let i = 0; i < nGroups; i++) index.set(groups[i].label, i);
      const raw = summary.counts[dim.index];
      const toGroup = new Int32Array(raw === null ? 0 : raw.size);
      let code = 0;
      if (raw !== null) {
        for (const ld of raw.keys()) {
          const g = groupOfRaw(dim, rw, ld);
          let gi = -1;
          if (g !== null) {
            gi = index.get(g);
            if (gi === undefined) gi = -2;
          }
          toGroup[code++] = gi;
        }
      }
      const sums = new Float64Array(nGroups);
      for (let c = 0; c < columns.length; c++) {
        if (c === dim.index || overrides.get(columns[c]) === 'ignore') continue;
        const total = all[c] || 0;
        if (!(total > 0)) continue;
        const overall = total / nRows;
        sums.fill(0);
        let inNull = 0; // the missing group's
        const table = tables.get(c);
        if (table !== undefined) {
          inNull = table.absent;
          const byCode = table.byCode;
          const n = Math.min(byCode.length, toGroup.length);
          for (let k = 0; k < n; k++) {
            const x = byCode[k];
            if (x === 0) continue;
            const gi = toGroup[k];
            if (gi >= 0) sums[gi] += x;
            else if (gi === -1) inNull += x;
          }
        }
        fs.tests += sized;
        const t = overall + opts.missing_gap;
        const flagged = [];
        const listedGroups = [];
        for (let i = 0; i < nGroups; i++) {
          const g = groups[i];
          const mg = sums[i];
          const share = mg / g.count;
          const shown = i < CELL_CAP;
          const flag = g.count >= least && share - overall > opts.missing_gap;
          if (!shown && !flag) continue;
          const [lo, hi] = wilsonBounds(mg, g.count);
          if (shown) {
            listedGroups.push({ label: g.label, count: g.count, missing: mg, missing_pct: roundHalfUp(share, 4),
              ci_low: roundHalfUp(lo, 4), ci_high: roundHalfUp(hi, 4) });
          }
          if (flag) {
            flagged.push(g.label);
            const p = scoreP(mg, g.count, t, false);
            if (listed === GROUP_FLAG_CAP) {
              more++;
              fs.unlisted(p);
            } else {
              listed++;
              // SPEC 17.5 (8's rule): flagged, share > overall >= 0
              const shares = [pctNotZero(share, 1, mg < g.count), pctNotZero(overall, overall > 0 ? 1 : 0, overall < 1)];
              fs.finding('missing_gap', `${dim.name}: '${columns[c]}' is missing for ${shares[0]}% of '${g.label}' vs ${shares[1]}% overall`, {
                dims: [dim.name], groups: [g.label, columns[c]], value: share, n: g.count,
                interval: [lo, hi], threshold: t, p,
              });
            }
          }
        }
        const absent = dim.out.missing_count;
        // SPEC 17.5: by share among the listed groups of the flag rule's size, the
        // missing group last (a group wins a tie)
        const items = listedGroups.map((g) => ({ label: g.label, n: g.count, pos: g.missing }));
        if (absent) items.push({ label: missingGroupLabel(dim.name), n: absent, pos: inNull });
        const ext = extremes(items, opts.min_group_size);
        const col = { name: columns[c], missing_count: total,
          missing_pct: roundHalfUp(overall, 4), flagged,
          lowest: ext === null ? null : items[ext[1]].label,
          highest: ext === null ? null : items[ext[0]].label, groups: listedGroups };
        if (nGroups > CELL_CAP) col.groups_not_listed = nGroups - CELL_CAP;
        if (absent) { // the rows without a group: shown, never flagged (SPEC 17.5)
          const mg = inNull;
          const [lo, hi] = wilsonBounds(mg, absent);
          col.missing_group = { count: absent, missing: mg, missing_pct: roundHalfUp(mg / absent, 4),
            ci_low: roundHalfUp(lo, 4), ci_high: roundHalfUp(hi, 4) };
        }
        entry.columns.push(col);
      }
      out.push(entry);
      if (more) fs.note('more', `${dim.name}: ${more} more missing-data gaps (the JSON lists all)`, [dim.name]);
    }
    return out;
  }

  /** The counted columns of SPEC 0.9 in column order: not ignore, not the label (17.2). */
  function countedColumns(columns, overrides, skip) {
    const counted = [];
    for (let k = 0; k < columns.length; k++) {
      if (overrides.get(columns[k]) !== 'ignore' && !skip.has(k)) counted.push(k);
    }
    return counted;
  }

  /** An unscored entry (SPEC 1.4); groups in section 3 order. */
  function unscoredEntry(name, counts, missing, why) {
    const groups = sortedGroups(Array.from(counts.entries())).map(([label, count]) => ({ label, count }));
    return { name, n_groups: counts.size, missing_count: missing, why, groups };
  }

  /** Pair counts of two dimensions mapped to their groups: "ga\0gb" -> count; labels
   * rewritten by SPEC 1.1 first (a pair is dropped when either side becomes missing). */
  function pairCells(summary, A, B, rewrites) {
    let i = A.index;
    let j = B.index;
    const swap = i > j;
    if (swap) { const t = i; i = j; j = t; }
    const entries = summary.pairs.get(i + ',' + j) || [];
    const out = new Map();
    const mapA = A.labelToGroup;
    const mapB = B.labelToGroup;
    const rwA = rewrites ? rewrites[A.index] : null;
    const rwB = rewrites ? rewrites[B.index] : null;
    for (const e of entries) {
      let la = swap ? e[1] : e[0];
      let lb = swap ? e[0] : e[1];
      if (rwA !== null) { la = rwA.rewrite(la); if (la === null) continue; }
      if (rwB !== null) { lb = rwB.rewrite(lb); if (lb === null) continue; }
      const ga = mapA ? mapA.get(la) : la;
      const gb = mapB ? mapB.get(lb) : lb;
      if (ga === null || gb === null) continue; // implausible ages
      const key = ga + '\u0000' + gb;
      out.set(key, (out.get(key) || 0) + e[2]);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------
  // Compare (SPEC 8): faircode/compare.py. Post-processing of two profile results.
  // ---------------------------------------------------------------------------------

  function sharesOf(dim) {
    let n = 0;
    for (const g of dim.groups) n += g.count;
    const out = new Map();
    for (const g of dim.groups) out.set(g.label, g.count / n);
    return out;
  }

  function driftLevel(psi, opts) {
    if (psi < opts.psi_moderate) return 'none';
    if (psi < opts.psi_significant) return 'moderate';
    return 'significant';
  }

  /** [Pearson's chi-squared, df] of the 2 x k table of a dimension's counts on its two
   * sides (SPEC 8), over the groups with rows on either side; compare.py homogeneity. */
  function homogeneity(countsA, countsB) {
    let na = 0;
    for (const c of countsA.values()) na += c;
    let nb = 0;
    for (const c of countsB.values()) nb += c;
    const terms = [];
    for (const label of new Set([...countsA.keys(), ...countsB.keys()])) { // fsum: any order
      const ca = countsA.has(label) ? countsA.get(label) : 0;
      const cb = countsB.has(label) ? countsB.get(label) : 0;
      if (ca + cb) {
        const d = cb / nb - ca / na;
        terms.push(d * d / (ca + cb));
      }
    }
    return [na * nb * fsum(terms), terms.length - 1];
  }

  /** A tested drift level's note (SPEC 8); compare.py _drift_line. */
  function driftLine(name, level, psi, p, verdict, na, nb) {
    const rows = `Holm-adjusted p ${fmt(p, 4)}, ${na} -> ${nb} rows`;
    if (verdict === 'confirmed') return `${name}: ${level} representation drift (PSI ${fmt(psi, 2)}, ${rows})`;
    return `${name}: PSI ${fmt(psi, 2)} (${level} band) is within what sampling alone gives (${rows})`;
  }

  /** SPEC 8, 18.1: the test of a dimension's drift level [name, level, psi], in the family
   * when both sides have `least` rows; a level beyond its band is a note whose text,
   * drift_p and drift_verdict are written when the family closes; compare.py _drift_test. */
  function driftTest(fs, out, drift, countsA, countsB, tested, least) {
    const [name, level, psi] = drift;
    const na = out.n_a;
    const nb = out.n_b;
    const [stat, df] = homogeneity(countsA, countsB);
    if (tested && df >= 1) fs.tests += 1;
    if (level === 'none') return;
    if (!(tested && df >= 1)) {
      const why = !tested ? `a test needs ${rowsText(least)} on each side` : 'one group';
      out.drift_verdict = 'possible';
      fs.note('drift', `${name}: PSI ${fmt(psi, 2)} (${level} band), not tested (${na} -> ${nb} rows; ${why})`,
        [name]);
      return;
    }
    const entry = fs.note('drift', '', [name]);
    fs.pending(chi2Upper(stat, df), (verdict, p) => {
      out.drift_p = p;
      out.drift_verdict = verdict;
      entry.text = driftLine(name, level, psi, p, verdict, na, nb);
    });
  }

  /** Newcombe's 95% interval of cb/nb - ca/na, the two sides independent (SPEC 8);
   * compare.py _shift. */
  function shiftInterval(ca, na, cb, nb) {
    return newcombe(cb, nb, ca, na, Z);
  }

  /** The p that a shift is larger than gap in its direction (SPEC 17.6's order);
   * compare.py _shift_p. */
  function shiftP(ca, na, cb, nb, gap) {
    if (cb / nb >= ca / na) return searchP((z) => newcombe(cb, nb, ca, na, z)[0] > gap);
    return searchP((z) => newcombe(cb, nb, ca, na, z)[1] < -gap);
  }

  /** `A% -> B%` of a share or rate on each side (unrounded): one above 0 never reads
   * 0.00%, one below 1 never 100.00% (SPEC 8); compare.py _shares_text. */
  function sharesText(a, b) {
    return `${pctNotZero(a, a > 0 ? 1 : 0, a < 1)}% -> ${pctNotZero(b, b > 0 ? 1 : 0, b < 1)}%`;
  }

  function change(lo, hi) {
    return `change ${pct(lo)} to ${pct(hi)} pts`;
  }

  /** The flagged shifts as findings, by p, then by their rows' order (SPEC 17.6, 18.1);
   * compare.py _by_evidence. */
  function byEvidence(fs, flagged) {
    const sorted = flagged.slice();
    sorted.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1]));
    for (const [p, , text, f] of sorted) fs.finding(f.kind, text, { ...f, p });
  }

  /** A shift beyond its gap, as byEvidence takes it (SPEC 17.6, 18.1): its p, row order,
   * text and evidence (n: the rows of both sides); counts [c_a, n_a, c_b, n_b];
   * compare.py _flagged. */
  function flaggedShift(i, kind, what, dim, groups, a, b, counts, interval, gap) {
    const [ca, na, cb, nb] = counts;
    const [lo, hi] = interval;
    const text = `${what} moved ${sharesText(a, b)} (${na} -> ${nb} rows, ${change(lo, hi)})`;
    const evidence = { kind, dims: [dim], groups, value: b - a, n: na + nb, interval, threshold: gap };
    return [shiftP(ca, na, cb, nb, gap), i, text, evidence];
  }

  function compareDimension(da, db, opts, fs) {
    const sa = sharesOf(da);
    const sb = sharesOf(db);
    const countsA = new Map(da.groups.map((g) => [g.label, g.count]));
    const countsB = new Map(db.groups.map((g) => [g.label, g.count]));
    let na = 0;
    for (const c of countsA.values()) na += c;
    let nb = 0;
    for (const c of countsB.values()) nb += c;
    const name = da.name;
    const out = {
      name,
      kind: da.kind,
      dimension_score_a: da.dimension_score,
      dimension_score_b: db.dimension_score,
      // a dimension not scored (SPEC 5) has no score to subtract
      dimension_score_delta: da.dimension_score === null || db.dimension_score === null ? null
        : db.dimension_score - da.dimension_score,
      psi: null,
      tvd: null,
      drift_level: null,
      drift_p: null,
      drift_verdict: null,
      n_a: na,
      n_b: nb,
      groups: [],
    };
    if (!na || !nb) { // SPEC 8: no share (count / n) on a side without a value
      const side = !na ? 'A' : 'B';
      fs.note('not_compared', `${name}: no row of ${side} has a value: its representation is not compared`,
        [name]);
      return out;
    }
    const labels = new Set([...sa.keys(), ...sb.keys()]);
    const eps = opts.psi_epsilon;
    const terms = [];
    const rows = [];
    for (const label of labels) {
      const a = sa.has(label) ? sa.get(label) : 0.0;
      const b = sb.has(label) ? sb.get(label) : 0.0;
      const fa = Math.max(a, eps);
      const fb = Math.max(b, eps);
      terms.push((fb - fa) * ln(fb / fa));
      const status = a === 0 && b > 0 ? 'appeared' : b === 0 && a > 0 ? 'disappeared' : 'shifted';
      rows.push({ label, a, b, status, key: Math.abs(roundHalfUp(b - a, 4)) });
    }
    const psi = fsum(terms);
    const tvd = 0.5 * fsum(rows.map((r) => Math.abs(r.b - r.a)));
    rows.sort((x, y) => (x.key !== y.key ? y.key - x.key : cmpCodePoint(x.label, y.label)));
    const level = driftLevel(psi, opts);
    const least = Math.max(1, opts.min_group_size);
    const tested = na >= least && nb >= least; // SPEC 18.1: each group's share, a test
    if (opts.drift_rule === 'psi') { // SPEC 8: the PSI band alone, no test
      if (level !== 'none') fs.note('drift', `${name}: ${level} representation drift (PSI ${fmt(psi, 2)})`, [name]);
    } else {
      driftTest(fs, out, [name, level, psi], countsA, countsB, tested, least);
    }
    for (const r of rows) {
      // SPEC 18.1: an appeared or disappeared group beyond the gap is a share_shift whose
      // text says so; the note would repeat it, so only one within the gap keeps it
      if (r.status !== 'shifted' && !(tested && Math.abs(r.b - r.a) > opts.share_gap)) {
        const shares = sharesText(r.a, r.b);
        fs.note(r.status, `${name}: '${r.label}' ${r.status} (${shares})`, [name], [r.label]);
      }
    }
    if (tested) {
      const flagged = [];
      rows.forEach((r, i) => {
        fs.tests += 1;
        if (Math.abs(r.b - r.a) > opts.share_gap) { // a share of 0 has its interval too (SPEC 8)
          const counts = [countsA.has(r.label) ? countsA.get(r.label) : 0, na,
            countsB.has(r.label) ? countsB.get(r.label) : 0, nb];
          const moved = r.status === 'shifted' ? 'share' : `${r.status}, share`;
          flagged.push(flaggedShift(i, 'share_shift', `${name}: '${r.label}' ${moved}`, name, [r.label],
            r.a, r.b, counts, shiftInterval(...counts), opts.share_gap));
        }
      });
      byEvidence(fs, flagged);
    }
    out.psi = roundHalfUp(psi, 4);
    out.tvd = roundHalfUp(tvd, 4);
    out.drift_level = level;
    out.groups = rows.map((r) => {
      const [lo, hi] = shiftInterval(countsA.has(r.label) ? countsA.get(r.label) : 0, na,
        countsB.has(r.label) ? countsB.get(r.label) : 0, nb);
      return {
        label: r.label,
        share_a: roundHalfUp(r.a, 4),
        share_b: roundHalfUp(r.b, 4),
        share_delta: roundHalfUp(r.b - r.a, 4),
        ci_low: roundHalfUp(lo, 4),
        ci_high: roundHalfUp(hi, 4),
        status: r.status,
      };
    });
    return out;
  }

  /** compare(a, b, opts): representation drift from baseline result a to current b. */
  function compare(a, b, opts) {
    const o = resolveOptions(opts);
    const dimsB = new Map(b.dimensions.map((d) => [d.name, d]));
    const namesA = new Set(a.dimensions.map((d) => d.name));
    const fs = new Findings();
    const sa = a.overall_score;
    const sb = b.overall_score;
    const scoreDelta = sa === null || sb === null ? null : sb - sa;
    if (scoreDelta !== null && -scoreDelta >= o.score_drop_flag) {
      fs.note('score_drop', `overall score dropped ${-scoreDelta} points (${sa} -> ${sb})`);
    }
    const dims = [];
    for (const da of a.dimensions) {
      const db = dimsB.get(da.name);
      if (db === undefined) continue;
      dims.push(compareDimension(da, db, o, fs));
    }
    // SPEC 17.6: label-rate and missing-share shifts, when both sides have them.
    let rates = null;
    let byGroup = null;
    if (a.label_rates !== undefined && b.label_rates !== undefined) rates = compareLabelRates(a, b, o, fs);
    if (a.missing_by_group !== undefined && b.missing_by_group !== undefined) {
      byGroup = compareMissing(a, b, o, fs);
    }
    const added = b.dimensions.filter((d) => !namesA.has(d.name)).map((d) => d.name);
    const removed = a.dimensions.filter((d) => !dimsB.has(d.name)).map((d) => d.name);
    for (const n of added) fs.note('dimension_added', `${n}: dimension added`, [n]);
    for (const n of removed) fs.note('dimension_removed', `${n}: dimension removed`, [n]);
    const [findings, evidence] = fs.close(o.alpha);
    const side = (r) => ({ n_rows: r.n_rows, overall_score: r.overall_score, grade: r.grade });
    const out = {
      format_version: FORMAT_VERSION,
      a: side(a),
      b: side(b),
      score_delta: scoreDelta,
      dimensions: dims,
      added_dimensions: added,
      removed_dimensions: removed,
    };
    if (rates !== null) out.label_rates = rates;
    if (byGroup !== null) out.missing_by_group = byGroup;
    out.findings = findings;
    out.evidence = evidence;
    out.flags = findings.map((f) => f.text);
    return out;
  }

  /** [label, a, b] rows ordered like share groups: |rounded delta| descending, then a
   * row that moved before one that did not (SPEC 17.6), then label (SPEC 8, 17.6). */
  function byDelta(rows) {
    const keyed = rows.map((r) => [Math.abs(roundHalfUp(r[2] - r[1], 4)), r[2] === r[1] ? 1 : 0, r]);
    keyed.sort((x, y) => (x[0] !== y[0] ? y[0] - x[0] : x[1] !== y[1] ? x[1] - y[1] : cmpCodePoint(x[2][0], y[2][0])));
    return keyed.map((k) => k[2]);
  }

  /** The groups of a label-rate or missing-share comparison (SPEC 17.6). counts: each
   * group on both sides as [c_a, n_a, c_b, n_b], in a's order; the rows come ordered like
   * share groups, with fields' seven keys (a's share, b's, the delta, n_a, n_b, c_a, c_b)
   * and the interval. A group in sized is a test; a sized shift beyond gap is a finding
   * `{what} for '{label}' moved ...` on [label] (and the column, for missing data), the
   * findings of these rows ordered by evidence; compare.py _group_shifts. */
  function groupShifts(fs, counts, sized, kind, gap, dim, what, column, fields) {
    const [shareA, shareB, delta, nA, nB, cA, cB] = fields;
    const rows = byDelta(Array.from(counts, ([label, [ca, na, cb, nb]]) => [label, ca / na, cb / nb]));
    const flagged = [];
    const groups = [];
    rows.forEach(([label, x, y], i) => {
      const [ca, na, cb, nb] = counts.get(label);
      const [lo, hi] = shiftInterval(ca, na, cb, nb);
      if (sized.has(label)) fs.tests += 1;
      if (Math.abs(y - x) > gap && sized.has(label)) {
        const flaggedGroups = column === null ? [label] : [label, column];
        flagged.push(flaggedShift(i, kind, `${what} for '${label}'`, dim, flaggedGroups, x, y,
          counts.get(label), [lo, hi], gap));
      }
      groups.push({
        label,
        [shareA]: roundHalfUp(x, 4),
        [shareB]: roundHalfUp(y, 4),
        [delta]: roundHalfUp(y - x, 4),
        [nA]: na,
        [nB]: nb,
        [cA]: ca,
        [cB]: cb,
        ci_low: roundHalfUp(lo, 4),
        ci_high: roundHalfUp(hi, 4),
      });
    });
    byEvidence(fs, flagged);
    return groups;
  }

  /** SPEC 17.6: rate shifts per shared dimension and group with a rate on both sides
   * (faircode/compare.py compare_label_rates); findings added to `fs`. */
  function compareLabelRates(a, b, opts, fs) {
    const ra = a.label_rates;
    const rb = b.label_rates;
    if (ra.label !== rb.label || ra.positive !== rb.positive) {
      fs.note('not_compared', `label rates not compared (${ra.label}=${ra.positive} vs ${rb.label}=${rb.positive})`);
      return null;
    }
    const head = `${ra.label}=${ra.positive}`;
    const dimsB = new Map(rb.dimensions.map((d) => [d.name, d]));
    const dims = [];
    for (const da of ra.dimensions) {
      const db = dimsB.get(da.name);
      if (db === undefined || da.groups === undefined || db.groups === undefined) continue;
      const ratesB = new Map();
      for (const g of db.groups) if (g.n) ratesB.set(g.label, g);
      const sides = new Map();
      const sized = new Set();
      for (const g of da.groups) {
        const h = ratesB.get(g.label);
        if (g.n && h !== undefined) sides.set(g.label, [g.positive, g.n, h.positive, h.n]);
        if (g.n >= opts.min_group_size && (h === undefined ? g : h).n >= opts.min_group_size) sized.add(g.label);
      }
      const groups = groupShifts(fs, sides, sized, 'rate_shift', opts.label_gap, da.name, `${da.name}: ${head} rate`,
        null, ['rate_a', 'rate_b', 'rate_delta', 'n_a', 'n_b', 'positive_a', 'positive_b']);
      dims.push({ name: da.name, groups });
    }
    return { label: ra.label, positive: ra.positive, dimensions: dims };
  }

  /** SPEC 17.6: missing-share shifts per shared dimension, column and group
   * (faircode/compare.py compare_missing); findings added to `fs`. */
  function compareMissing(a, b, opts, fs) {
    const groupsOf = (r) => new Map(r.dimensions.map((d) => [d.name, new Map(d.groups.map((g) => [g.label, g.count]))]));
    const gA = groupsOf(a);
    const gB = groupsOf(b);
    // a saved profile made before results listed their header has none: its columns are
    // then taken as the ones it lists (the old rule), and a note says so
    const headerOf = [a, b].map((r) => (r.columns === undefined ? null : new Set(r.columns)));
    const entriesB = new Map(b.missing_by_group.map((e) => [e.dimension, e]));
    const absent = new Map(); // column -> the side whose header lacks it, in order
    const out = [];
    for (const ea of a.missing_by_group) {
      const name = ea.dimension;
      const eb = entriesB.get(name);
      if (eb === undefined || ea.columns === undefined || eb.columns === undefined) continue;
      const colsA = new Map(ea.columns.map((c) => [c.name, c]));
      const colsB = new Map(eb.columns.map((c) => [c.name, c]));
      const order = ea.columns.map((c) => c.name);
      for (const c of eb.columns) if (!colsA.has(c.name)) order.push(c.name);
      const ga = gA.get(name);
      const gb = gB.get(name);
      const shared = Array.from(ga.keys()).filter((g) => gb.has(g));
      // a shift is flagged only between groups of min_group_size rows on both sides
      const sized = new Set(shared.filter((g) => Math.min(ga.get(g), gb.get(g)) >= opts.min_group_size));
      const columns = [];
      for (const col of order) {
        const lacking = ['a', 'b'].filter((side, k) => headerOf[k] !== null && !headerOf[k].has(col));
        if (lacking.length) { // no count of it on that side, so nothing to compare
          if (!absent.has(col)) absent.set(col, lacking[0]);
          continue;
        }
        const sides = [];
        for (const cols of [colsA, colsB]) {
          const entry = cols.get(col);
          // a side whose header has the column but does not list it had no missing
          // cell in it; groups past a listing cap (groups_not_listed) are unknown
          // and left out
          const listed = entry === undefined ? null : new Map(entry.groups.map((g) => [g.label, g.missing]));
          const total = entry === undefined ? 0 : entry.missing_count;
          sides.push([total, listed]);
        }
        const missingOf = new Map();
        for (const label of shared) {
          const got = [];
          for (const k of [0, 1]) {
            const listed = sides[k][1];
            if (listed !== null && !listed.has(label)) break;
            got.push(listed === null ? 0 : listed.get(label));
          }
          if (got.length === 2) missingOf.set(label, [got[0], ga.get(label), got[1], gb.get(label)]);
        }
        const groups = groupShifts(fs, missingOf, sized, 'missing_shift', opts.missing_gap, name,
          `${name}: '${col}' missing`, col, ['missing_pct_a', 'missing_pct_b', 'missing_delta', 'count_a', 'count_b', 'missing_a', 'missing_b']);
        columns.push({
          name: col,
          missing_pct_a: roundHalfUp(sides[0][0] / a.n_rows, 4),
          missing_pct_b: roundHalfUp(sides[1][0] / b.n_rows, 4),
          missing_delta: roundHalfUp(sides[1][0] / b.n_rows - sides[0][0] / a.n_rows, 4),
          missing_count_a: sides[0][0],
          missing_count_b: sides[1][0],
          groups,
        });
      }
      out.push({ dimension: name, columns });
    }
    for (const [col, side] of absent) {
      fs.note('not_compared', `'${col}' is not a column of ${side.toUpperCase()}: its missing data is not compared`);
    }
    ['a', 'b'].forEach((side, k) => {
      if (headerOf[k] === null && out.length) {
        fs.note('not_compared', `${side.toUpperCase()} is a saved profile without its header (columns): a column it does not list is read as having no missing cell; profile the data again to tell a column it lacks`);
      }
    });
    return out;
  }

  // ---------------------------------------------------------------------------------
  // Reference (SPEC 9): faircode/reference.py
  // ---------------------------------------------------------------------------------

  const HEADER_ALIASES = {
    column: 'column', dimension: 'column',
    group: 'group', value: 'group', label: 'group',
    share: 'share', expected: 'share', percent: 'share',
  };
  const SUM_TOLERANCE = 0.02;

  /** Lower-case ASCII letters only (the languages disagree on Unicode case tables). */
  function asciiLower(s) {
    return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
  }

  function sumWarnings(table) {
    const out = [];
    for (const entry of table) {
      const total = fsum(entry.shares.map((s) => s[1]));
      if (Math.abs(total - 1) > SUM_TOLERANCE) {
        out.push(`reference: shares of '${entry.column}' sum to ${fmt(total, 3)}, not 1`);
      }
    }
    return out;
  }

  /** The notes of SPEC 9 for reference columns that no dimension took, in file order. */
  function unmatchedWarnings(table, matched) {
    const taken = new Set(matched.values());
    return table
      .filter((entry) => !taken.has(entry))
      .map(
        (entry) =>
          `reference: '${entry.column}' matches no profiled dimension (by name, or by a ` +
          'kind only one dimension has); nothing compared for it',
      );
  }

  function matchReference(table, dims) {
    const out = new Map();
    const names = new Set(dims.map((d) => d.name));
    for (const entry of table) {
      const col = entry.column;
      if (names.has(col)) {
        if (!out.has(col)) out.set(col, entry);
        continue;
      }
      const ofKind = dims.filter((d) => d.kind === col).map((d) => d.name);
      if (ofKind.length === 1 && !out.has(ofKind[0])) out.set(ofKind[0], entry);
    }
    return out;
  }

  /** A label's key when matching a reference (SPEC 9): ASCII case ignored, and for a
   * sex dimension the aliases of SEX_ALIASES are one label. */
  function keyOf(label, kind) {
    if (kind === 'sex') {
      const alias = SEX_ALIASES.get(fold(label));
      if (alias !== undefined) return alias;
    }
    return asciiLower(label);
  }

  const YEAR = /^[0-9]+$/; // a single year of age in a reference table (SPEC 9)

  /** Rows {label, e, a} -> the block, its flags and its tests (SPEC 9). `part`: a label
   * table matched in part, whose groups with no row are shown but not tested, after
   * the note `notes` holds. */
  function referenceRows(dim, rows, flagAt, extra, part, notes) {
    for (const r of rows) r.key = Math.abs(roundHalfUp(r.a - r.e, 4));
    rows.sort((x, y) => (x.key !== y.key ? y.key - x.key : cmpCodePoint(x.label, y.label)));
    const deviation = 0.5 * fsum(rows.map((r) => Math.abs(r.a - r.e)));
    // [text, [label, count, n, expected]] of each reference_gap finding (SPEC 18)
    const flags = notes.slice();
    let tests = 0;
    for (const r of rows) {
      if (part && r.c === 0) continue;
      tests += 1;
      if (r.e - r.a >= flagAt) {
        flags.push([`${dim.name}: '${r.label}' is under-represented vs reference ` +
          `(${pctNotZero(r.a, r.c > 0 ? 1 : 0, r.c < r.n)}% vs ${pct(r.e)}%)`, [r.label, r.c, r.n, r.e]]);
      }
    }
    const block = {
      deviation: roundHalfUp(deviation, 4),
      groups: rows.map((r) => ({
        label: r.label,
        expected: roundHalfUp(r.e, 4),
        actual: roundHalfUp(r.a, 4),
        delta: roundHalfUp(r.a - r.e, 4),
        count: r.c,
      })),
    };
    return { block: Object.assign(block, extra || {}), flags, tests };
  }

  function noMatch(dim, entry) {
    const mine = firstLabels(dim.groups.map((g) => g.label), 3);
    const theirs = firstLabels(entry.shares.map(([g]) => g), 3);
    return {
      block: { deviation: null, groups: [] },
      flags: [[`${dim.name}: no label matches the reference (${mine} vs ${theirs}); no deviation reported (--recode can rename labels)`, null]],
      tests: 0,
    };
  }

  /** What a single-year table needs of an age dimension with groups (SPEC 9): its
   * groups as [label, first year, last year or null for an open band], in the order
   * years are assigned, and whether they are bands (else its own intervals). */
  function ageYears(dim, built, opts) {
    if (dim.groups.length === 0) return null;
    if (built.ageMode === 'interval_as_written') {
      return { groups: dim.groups.map((g) => [g.label].concat(built.years.get(g.label))), banded: false };
    }
    const edges = opts.age_bands;
    const labels = bandLabels(edges);
    const present = new Set(dim.groups.map((g) => g.label));
    const bands = labels.map((lab, k) => [lab, edges[k], k + 1 < edges.length ? edges[k + 1] - 1 : null]);
    let lo = Infinity;
    let hi = -Infinity;
    let open = false;
    for (const [lab, first, last] of bands) {
      if (!present.has(lab)) continue;
      if (first < lo) lo = first;
      if (last === null) open = true;
      else if (last > hi) hi = last;
    }
    const inside = bands.filter((b) => b[1] >= lo && (open || b[1] <= hi));
    // the years below the youngest age are nobody's in the data: a band 0-17 holding
    // only 17-year-olds must not expect the population's children (SPEC 9)
    inside[0] = [inside[0][0], built.youngest, inside[0][2]];
    return { groups: inside, banded: true };
  }

  /** Expected shares of the dimension's groups from a single-year table and the span
   * [first, last] (SPEC 9), or null when no year of the table falls in it. */
  function byYear(entry, years) {
    const table = entry.shares.map(([g, sh]) => [Number(g), sh]);
    table.sort((x, y) => (x[0] - y[0]) || (x[1] - y[1]));
    const { groups, banded } = years;
    const lastYear = table[table.length - 1][0];
    let first = Infinity;
    let last = -Infinity;
    for (const [, lo, hi] of groups) {
      if (lo < first) first = lo;
      const h = hi === null ? lastYear : hi;
      if (h > last) last = h;
    }
    const parts = new Map();
    const inSpan = [];
    for (const [year, share] of table) {
      let label = null;
      if (banded) {
        if (!(first <= year && year <= last)) continue;
        for (const [lab, lo] of groups) if (lo <= year) label = lab;
      } else {
        for (const [lab, lo, hi] of groups) {
          if (lo <= year && year <= hi) { label = lab; break; }
        }
      }
      if (label === null) continue;
      if (!parts.has(label)) parts.set(label, []);
      parts.get(label).push(share);
      inSpan.push(share);
    }
    const total = fsum(inSpan);
    if (total === 0) return null;
    const shares = new Map();
    for (const [lab, list] of parts) shares.set(lab, fsum(list) / total);
    return { shares, span: [first, last] };
  }

  /** The `reference` block of a dimension and its flags (SPEC 9). `built`: the
   * dimension from buildDimension (its age mode and intervals). */
  function referenceBlock(dim, entry, flagAt, built, opts) {
    let n = 0;
    for (const g of dim.groups) n += g.count;
    const kind = dim.kind;
    const years = built && built.kind === 'age' && built.ageMode !== 'categorical'
      ? ageYears(dim, built, opts) : null;
    const single = years !== null && entry.shares.every(([g]) => YEAR.test(g));
    let span = null;
    const expected = new Map();
    if (single) {
      const found = byYear(entry, years);
      if (found !== null) {
        span = found.span;
        for (const [lab, sh] of found.shares) expected.set(lab, [lab, sh]);
      }
    } else {
      for (const [g, sh] of entry.shares) {
        const key = keyOf(g, kind);
        if (!expected.has(key)) expected.set(key, [g, sh]);
      }
    }
    const counts = new Map();
    for (const g of dim.groups) {
      const key = single ? g.label : keyOf(g.label, kind);
      const prev = counts.get(key);
      counts.set(key, prev ? [prev[0], prev[1] + g.count] : [g.label, g.count]);
    }
    let matched = false;
    for (const key of counts.keys()) if (expected.has(key)) matched = true;
    if (!matched) return noMatch(dim, entry);
    // a label table matched in part: its groups with no row may be spelt otherwise in
    // the data, so they are shown but not tested (a single-year table's keys are the
    // dimension's own groups: an empty band is a finding)
    const onlyData = [];
    for (const [key, [label]] of counts) if (!expected.has(key)) onlyData.push(label);
    const part = span === null && onlyData.length > 0;
    const notes = [];
    if (part) {
      const onlyRef = [];
      for (const [key, [label]] of expected) if (!counts.has(key)) onlyRef.push(label);
      notes.push([`${dim.name}: labels match the reference in part: ` +
        `${firstLabels(onlyData, 3)} in the data only, ${firstLabels(onlyRef, 3) || 'none'} in ` +
        'the reference only; a reference group with no rows is not tested ' +
        '(--recode can rename labels)', null]);
    }
    const keys = new Set([...counts.keys(), ...expected.keys()]);
    const rows = [];
    for (const key of keys) {
      const label = expected.has(key) ? expected.get(key)[0] : counts.get(key)[0];
      const e = expected.has(key) ? expected.get(key)[1] : 0.0;
      const c = counts.has(key) ? counts.get(key)[1] : 0;
      const a = counts.has(key) ? c / n : 0.0;
      rows.push({ label, e, a, c, n });
    }
    return referenceRows(dim, rows, flagAt, span === null ? null : { ages: span }, part, notes);
  }

  /** The sink of a reference table: every record as text, with its line number. */
  class RecordSink {
    constructor() {
      this.keepsAll = true;
      this.width = 0;
      this.records = [];
    }

    setHeader(names) {
      this.width = names.length;
      return new Uint8Array(names.length);
    }

    checkHeader() {}

    cell() {}

    record(nf, fields, line) {
      const rec = fields.slice(0, nf);
      while (rec.length < this.width) rec.push('');
      this.records.push([rec, line]);
    }

    end() {}
  }

  /** Long-format reference bytes -> [{column, shares: [[label, share], ...]}] (section 9). */
  function parseReference(bytes, name) {
    if (!(bytes instanceof Uint8Array)) bytes = new Uint8Array(bytes);
    const c = new RecordSink();
    const shownName = name === undefined ? '<stdin>' : String(name);
    const scanner = new CsvScanner(shownName, resolveOptions(undefined), c);
    scanner.push(bytes);
    scanner.finish();
    const roles = new Map();
    scanner.header.forEach((h, i) => {
      const role = Object.prototype.hasOwnProperty.call(HEADER_ALIASES, asciiLower(h))
        ? HEADER_ALIASES[asciiLower(h)] : undefined;
      if (role === undefined) {
        throw new InputError(`${name}: unknown reference header '${h}' (expected column, group and share)`);
      }
      if (roles.has(role)) throw new InputError(`${name}: two headers mean '${role}'`);
      roles.set(role, i);
    });
    if (roles.size !== 3) {
      throw new InputError(`${name}: a reference needs column, group and share headers`);
    }
    const rows = [];
    for (const [rec, line] of c.records) {
      const col = trimLabel(rec[roles.get('column')]);
      const group = trimLabel(rec[roles.get('group')]);
      const raw = trimLabel(rec[roles.get('share')]);
      if (col === '' || group === '') {
        throw new InputError(`${name}: line ${line}: column and group must not be empty`);
      }
      if (!SHARE_GRAMMAR.test(raw) || raw[0] === '-') {
        throw new InputError(`${name}: line ${line}: share '${raw}' is not a non-negative number`);
      }
      rows.push([col, group, Number(raw), line]);
    }
    const percent = rows.some((r) => r[2] > 1.5);
    const table = [];
    const byCol = new Map();
    for (const [col, group, share, line] of rows) {
      let entry = byCol.get(col);
      if (entry === undefined) {
        entry = { column: col, shares: [] };
        byCol.set(col, entry);
        table.push(entry);
      }
      const key = asciiLower(group);
      if (entry.shares.some(([g]) => asciiLower(g) === key)) {
        throw new InputError(`${name}: line ${line}: group '${group}' of '${col}' appears twice`);
      }
      entry.shares.push([group, percent ? share / 100 : share]);
    }
    return table;
  }

  // ---------------------------------------------------------------------------------
  // Provenance (SPEC 10): faircode/provenance.py, attached by the caller at the
  // export boundary
  // ---------------------------------------------------------------------------------

  /** The resolved section 7 options, keyed and valued as the Python engine reports them:
   * each record's `params` rule (faircode/options.py Options.params). */
  function resolvedParams(opts) {
    const o = resolveOptions(opts);
    const same = (x, y) => JSON.stringify(x) === JSON.stringify(y);
    const out = {};
    for (const r of OPTIONS) {
      if (r.python_only || r.params === 'never') continue;
      if (r.params !== 'always' && same(o[r.params], OPTION_BY_NAME.get(r.params).default)) continue;
      const v = o[r.name];
      out[r.name] = Array.isArray(v) ? v.map((x) => (Array.isArray(x) ? x.slice() : x)) : v === undefined ? null : v;
    }
    // SPEC 1.1 lists as the Python engine reports them: a token, or [column, token].
    out.na = o.na.map(([c, t]) => (c === null ? t : [c, t]));
    return out;
  }

  /** provenance({opts, overrides, hashes: {dataset_hash: 'sha256:..'|null}, notes, referenceHash}) */
  function provenance(args) {
    const out = { faircode_version: VERSION, engine: 'js' };
    const hashes = args.hashes || {};
    for (const key of Object.keys(hashes)) {
      out[key] = hashes[key];
      if (hashes[key] === null) {
        out[key + '_note'] = (args.notes && args.notes[key]) || 'the raw bytes were not available';
      }
    }
    if (args.referenceHash) out.reference_hash = args.referenceHash;
    out.params = resolvedParams(args.opts);
    out.overrides = Object.fromEntries(overrideMap(args.overrides));
    return out;
  }

  // ---------------------------------------------------------------------------------
  // gzip (SPEC 0.8): the framing of a gzip file, as Python's gzip module reads it
  // (every member, zero padding between and after members, the same error texts). The
  // deflate data of each member is inflated by the caller (DecompressionStream
  // ('deflate-raw') in the page, node's zlib in the bridge), which is asynchronous;
  // this part stays synchronous: it says which bytes to inflate, and checks each
  // member's header, CRC-32 and length itself.
  //
  // An inflater does not say where its deflate data ended. Chromium's throws "Junk
  // found after end of compressed data" when a write holds bytes past the end, and
  // drops the output of that write: so the bytes are handed over in pieces cut 8 bytes
  // (a trailer) before every place where a member can end in a well-formed file (where
  // 1F 8B starts, anywhere in zeros that run to 1F 8B or the end, and at the end): a
  // member then always ends at the start of a piece, which the inflater
  // refuses whole (stopped(0)). node's zlib counts what it used (stopped(used)).
  // ---------------------------------------------------------------------------------

  const GZIP_PIECE = 1 << 16; // bytes handed to the inflater at most per piece
  const GZIP_TRUNCATED = 'Compressed file ended before the end-of-stream marker was reached';

  /** Whether bytes start with the gzip magic 1F 8B. */
  function isGzip(head) {
    return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  }

  let crcTable = null;
  /** CRC-32 (ISO 3309, as zlib.crc32) of bytes, continued from crc; slicing by 4. */
  function crc32(bytes, crc) {
    if (crcTable === null) {
      crcTable = new Int32Array(1024);
      for (let n = 0; n < 256; n++) {
        let c = n;
        for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
        crcTable[n] = c;
      }
      for (let n = 0; n < 256; n++) {
        for (let t = 1; t < 4; t++) {
          const prev = crcTable[(t - 1) * 256 + n];
          crcTable[t * 256 + n] = crcTable[prev & 0xff] ^ (prev >>> 8);
        }
      }
    }
    const T = crcTable;
    let c = ~crc;
    let i = 0;
    const n = bytes.length;
    const n4 = n - (n & 3);
    for (; i < n4; i += 4) {
      c ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
      c = T[768 + (c & 0xff)] ^ T[512 + ((c >>> 8) & 0xff)] ^ T[256 + ((c >>> 16) & 0xff)] ^ T[c >>> 24];
    }
    for (; i < n; i++) c = T[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
    return ~c >>> 0;
  }

  /** Python's repr() of a bytes object (what gzip's "Not a gzipped file (%r)" shows). */
  function pyBytesRepr(bytes) {
    const hasSingle = bytes.includes(0x27);
    const quote = hasSingle && !bytes.includes(0x22) ? '"' : "'";
    let out = 'b' + quote;
    for (const b of bytes) {
      if (b === 0x5c) out += '\\\\';
      else if (b === 0x09) out += '\\t';
      else if (b === 0x0a) out += '\\n';
      else if (b === 0x0d) out += '\\r';
      else if (b === quote.charCodeAt(0)) out += '\\' + quote;
      else if (b < 0x20 || b >= 0x7f) out += '\\x' + b.toString(16).padStart(2, '0');
      else out += String.fromCharCode(b);
    }
    return out + quote;
  }

  /**
   * Python's reason for an inflater's error message (Chromium's DecompressionStream,
   * after "Failed to execute 'write' on 'WritableStreamDefaultWriter': ": "The
   * compressed data was not valid: invalid block type.", "Compressed input was
   * truncated."; node's zlib: "invalid block type", "unexpected end of file"): zlib's
   * data errors read "Error -3 while decompressing data: {zlib's text}" there.
   */
  function gzipReason(message) {
    let m = String(message).replace(/^Failed to execute '[^']*' on '[^']*': /, '');
    const pre = 'The compressed data was not valid: ';
    if (m.startsWith(pre)) m = m.slice(pre.length);
    if (/truncated|unexpected end of file/i.test(m)) return GZIP_TRUNCATED;
    m = m.replace(/\.$/, '');
    return `Error -3 while decompressing data: ${m}`;
  }

  /**
   * The framing of a gzip file named `name`. push(bytes) the file's bytes in order and
   * end() after the last; then call next() until it returns null (more bytes needed) or
   * {done: true}. It returns {member: true} when a member's deflate data begins (start a
   * new inflater) and {piece, afterCut} for bytes to inflate (afterCut: the piece starts
   * where the deflate data ends in a well-formed file, if it ends here at all: an
   * inflater that refuses such a piece whole has ended); tell it output(bytes) for what the
   * inflater gives (in order, before the next next()), and stopped(used) when the
   * inflater ended its deflate data having used `used` bytes of the last piece (0 when it
   * refused the piece whole). A broken file throws an InputError,
   * `{name}: not a readable gzip file ({reason})`, with Python's reason.
   */
  function createGunzip(name) {
    let buf = new Uint8Array(0);
    let len = 0;
    let pos = 0; // next byte not yet framed or handed on
    let ended = false;
    let state = 'header'; // header | deflate | trailer | zeros | done
    let crc = 0;
    let size = 0;
    let pieceStart = -1; // the piece handed over last (deflate state)
    let startsAtCut = false; // the next piece starts 8 bytes before a place a member may end
    let members = 0;
    let consumed = 0; // bytes dropped from buf's front (for tests: offsets)
    const fail = (reason) => {
      state = 'done';
      return new InputError(`${name}: not a readable gzip file (${reason})`);
    };
    const compact = () => {
      if (pos > 0 && pos >= len / 2) {
        buf.copyWithin(0, pos, len);
        len -= pos;
        consumed += pos;
        if (pieceStart >= 0) pieceStart -= pos;
        pos = 0;
      }
    };
    /** Where the bytes stop that may end a member only once more is known: a trailing
     * run of zeros and a final 1F (at the end of input, none). */
    const settled = () => {
      if (ended) return len;
      let t = len;
      if (t > pos && buf[t - 1] === 0x1f) t--;
      while (t > pos && buf[t - 1] === 0) t--;
      return t;
    };
    /** Where a member may end at or after `from` (the first such place; `limit` if none
     * before it): where 1F 8B starts, anywhere in zeros that run to 1F 8B or to the end
     * of input (padding, or a trailer whose length ends in zero bytes), the end. */
    const nextEnd = (from, limit) => {
      for (let q = from; q < limit; q++) {
        const b = buf[q];
        if (b === 0x1f) {
          if (q + 1 < len && buf[q + 1] === 0x8b) return q;
        } else if (b === 0) {
          // any place in zeros that run to 1F 8B or the end: a trailer may end in zeros
          let r = q;
          while (r < len && buf[r] === 0) r++;
          if ((r === len && ended) || (r + 1 < len && buf[r] === 0x1f && buf[r + 1] === 0x8b)) return q;
          q = r - 1;
        }
      }
      return limit;
    };
    const header = () => {
      // gzip._read_gzip_header: magic, then method, flags, mtime, xfl, os; the
      // optional fields; nothing else is checked (reserved flags, the header CRC)
      const avail = len - pos;
      if (avail === 0 && ended) {
        state = 'done';
        return { done: true };
      }
      if (avail < 2) {
        if (!ended) return null;
        throw fail(`Not a gzipped file (${pyBytesRepr(buf.subarray(pos, len))})`);
      }
      if (buf[pos] !== 0x1f || buf[pos + 1] !== 0x8b) {
        throw fail(`Not a gzipped file (${pyBytesRepr(buf.subarray(pos, pos + 2))})`);
      }
      const need = (k) => {
        if (k <= len) return true;
        if (ended) throw fail(GZIP_TRUNCATED);
        return false;
      };
      if (!need(pos + 10)) return null;
      if (buf[pos + 2] !== 8) throw fail('Unknown compression method');
      const flags = buf[pos + 3];
      let k = pos + 10;
      if (flags & 4) {
        if (!need(k + 2)) return null;
        k += 2 + (buf[k] | (buf[k + 1] << 8));
        if (!need(k)) return null;
      }
      for (const bit of [8, 16]) {
        if (!(flags & bit)) continue;
        while (k < len && buf[k] !== 0) k++;
        if (k >= len) {
          if (!ended) return null;
          throw fail(GZIP_TRUNCATED); // (Python stops at the end, then finds no data)
        }
        k++;
      }
      if (flags & 2) {
        k += 2;
        if (!need(k)) return null;
      }
      pos = k;
      state = 'deflate';
      startsAtCut = false;
      crc = 0;
      size = 0;
      members++;
      return { member: true };
    };
    const api = {
      push(bytes) {
        if (ended) throw new Error('createGunzip: push() after end()');
        compact();
        if (len + bytes.length > buf.length) {
          const grown = new Uint8Array(Math.max(buf.length * 2, len + bytes.length, 1 << 16));
          grown.set(buf.subarray(0, len));
          buf = grown;
        }
        buf.set(bytes, len);
        len += bytes.length;
      },
      end() {
        ended = true;
      },
      output(bytes) {
        crc = crc32(bytes, crc);
        size += bytes.length;
      },
      stopped(used) {
        if (state !== 'deflate' || pieceStart < 0) throw new Error('createGunzip: stopped() with no piece');
        pos = pieceStart + used;
        pieceStart = -1;
        state = 'trailer';
      },
      next() {
        for (;;) {
          if (state === 'done') return { done: true };
          if (state === 'header') return header();
          if (state === 'deflate') {
            pieceStart = -1;
            // the piece runs to 8 bytes (a trailer) before the next place where the
            // member may end; past the last such place, to the end of input
            const horizon = settled();
            const q = nextEnd(pos + 9, Math.min(horizon, pos + 9 + GZIP_PIECE));
            let end = q - 8 > pos ? q - 8 : ended ? len : pos;
            end = Math.min(end, pos + GZIP_PIECE);
            if (end > pos) {
              const afterCut = startsAtCut;
              startsAtCut = end === q - 8; // the next piece starts where the member may end
              pieceStart = pos;
              pos = end;
              return { piece: buf.subarray(pieceStart, end), afterCut };
            }
            if (!ended) return null;
            // every byte went to the inflater and its deflate data has not ended
            throw fail(GZIP_TRUNCATED);
          }
          if (state === 'trailer') {
            if (len - pos < 8) {
              if (!ended) return null;
              throw fail(GZIP_TRUNCATED);
            }
            const at = (i) => buf[pos + i] | (buf[pos + i + 1] << 8) | (buf[pos + i + 2] << 16) | (buf[pos + i + 3] << 24);
            const storedCrc = at(0) >>> 0;
            const storedSize = at(4) >>> 0;
            if (storedCrc !== crc) {
              throw fail(`CRC check failed 0x${storedCrc.toString(16)} != 0x${crc.toString(16)}`);
            }
            if (storedSize !== size % 4294967296) throw fail('Incorrect length of data produced');
            pos += 8;
            state = 'zeros';
          }
          if (state === 'zeros') {
            while (pos < len && buf[pos] === 0) pos++;
            if (pos === len && !ended) return null;
            state = 'header';
          }
        }
      },
      /** Members begun so far, and bytes of input framed (for tests). */
      get members() { return members; },
      get offset() { return consumed + pos; },
    };
    return api;
  }

  // ---------------------------------------------------------------------------------
  // Streaming SHA-256 (FIPS 180-4). crypto.subtle.digest is one-shot, so a 1 GB file
  // would have to sit in memory; this hashes chunk by chunk as the profiler reads.
  // Plain JS (no WebAssembly: the site's CSP forbids it), shaped for the JIT
  // (benchmarks/sha256.js measures it at about 3x a textbook loop in V8): a chunk's whole
  // blocks are hashed in one call; the 64 rounds are unrolled so that the message
  // schedule lives in 16 local int32s and the round constants are literals; rounds
  // rename a..h instead of shifting them; every value stays an int32 (`| 0`), words are
  // read big-endian by DataView.getInt32, and Ch, Maj and the rotations use the forms
  // with the fewest operations.
  // ---------------------------------------------------------------------------------

  function createSha256() {
    // Read and written once per block: kept in locals across blocks, the eight values
    // were spilled around the rounds, which measured slower.
    const H = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    const block = new Uint8Array(64); // a block split between update() calls
    const blockView = new DataView(block.buffer);
    let used = 0; // bytes waiting in block
    let total = 0; // bytes hashed so far (a double: exact up to 2^53)

    // Compresses the blocks of view[off, end); end - off is a multiple of 64.
    // Round i: T1 = h + Sigma1(e) + Ch(e, f, g) + K[i] + W[i]; d += T1; h = T1 +
    // Sigma0(a) + Maj(a, b, c); then the names move one place (the next round's a is
    // this round's h), which the unrolled code does by writing each round with the names
    // it would have. The forms used (ror = rotate right; each nested form equals the
    // standard XOR of three rotations and needs fewer register copies of its input):
    //   Sigma1(e) = ror(ror(ror(e, 14) ^ e, 5) ^ e, 6)
    //   Sigma0(a) = ror(ror(ror(a, 9) ^ a, 11) ^ a, 2)
    //   sigma0(x) = ror(ror(x, 11) ^ x, 7) ^ (x >>> 3)
    //   sigma1(x) = ror(ror(x, 2) ^ x, 17) ^ (x >>> 10)
    //   Ch(e, f, g) = g ^ (e & (f ^ g))
    //   Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)), where b ^ c is the previous round's a ^ b
    //   (carried in y).
    function compress(view, off, end) {
      for (; off < end; off += 64) {
        const h0 = H[0], h1 = H[1], h2 = H[2], h3 = H[3], h4 = H[4], h5 = H[5], h6 = H[6];
        const h7 = H[7];
        let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
        let w0 = view.getInt32(off), w1 = view.getInt32(off + 4), w2 = view.getInt32(off + 8);
        let w3 = view.getInt32(off + 12), w4 = view.getInt32(off + 16);
        let w5 = view.getInt32(off + 20), w6 = view.getInt32(off + 24);
        let w7 = view.getInt32(off + 28), w8 = view.getInt32(off + 32);
        let w9 = view.getInt32(off + 36), w10 = view.getInt32(off + 40);
        let w11 = view.getInt32(off + 44), w12 = view.getInt32(off + 48);
        let w13 = view.getInt32(off + 52), w14 = view.getInt32(off + 56);
        let w15 = view.getInt32(off + 60);
        let t = 0, u = 0, v = 0, x = 0, y = b ^ c;
        // rounds 0-15: W[i] is the block's word i
        u = ((e >>> 14) | (e << 18)) ^ e; u = ((u >>> 5) | (u << 27)) ^ e; x = a ^ b;
        t = (h + ((u >>> 6) | (u << 26)) + (g ^ (e & (f ^ g))) + 0x428a2f98 + w0) | 0;
        d = (d + t) | 0; u = ((a >>> 9) | (a << 23)) ^ a; u = ((u >>> 11) | (u << 21)) ^ a;
        h = (t + ((u >>> 2) | (u << 30)) + (b ^ (x & y))) | 0; y = x;
        u = ((d >>> 14) | (d << 18)) ^ d; u = ((u >>> 5) | (u << 27)) ^ d; x = h ^ a;
        t = (g + ((u >>> 6) | (u << 26)) + (f ^ (d & (e ^ f))) + 0x71374491 + w1) | 0;
        c = (c + t) | 0; u = ((h >>> 9) | (h << 23)) ^ h; u = ((u >>> 11) | (u << 21)) ^ h;
        g = (t + ((u >>> 2) | (u << 30)) + (a ^ (x & y))) | 0; y = x;
        u = ((c >>> 14) | (c << 18)) ^ c; u = ((u >>> 5) | (u << 27)) ^ c; x = g ^ h;
        t = (f + ((u >>> 6) | (u << 26)) + (e ^ (c & (d ^ e))) + 0xb5c0fbcf + w2) | 0;
        b = (b + t) | 0; u = ((g >>> 9) | (g << 23)) ^ g; u = ((u >>> 11) | (u << 21)) ^ g;
        f = (t + ((u >>> 2) | (u << 30)) + (h ^ (x & y))) | 0; y = x;
        u = ((b >>> 14) | (b << 18)) ^ b; u = ((u >>> 5) | (u << 27)) ^ b; x = f ^ g;
        t = (e + ((u >>> 6) | (u << 26)) + (d ^ (b & (c ^ d))) + 0xe9b5dba5 + w3) | 0;
        a = (a + t) | 0; u = ((f >>> 9) | (f << 23)) ^ f; u = ((u >>> 11) | (u << 21)) ^ f;
        e = (t + ((u >>> 2) | (u << 30)) + (g ^ (x & y))) | 0; y = x;
        u = ((a >>> 14) | (a << 18)) ^ a; u = ((u >>> 5) | (u << 27)) ^ a; x = e ^ f;
        t = (d + ((u >>> 6) | (u << 26)) + (c ^ (a & (b ^ c))) + 0x3956c25b + w4) | 0;
        h = (h + t) | 0; u = ((e >>> 9) | (e << 23)) ^ e; u = ((u >>> 11) | (u << 21)) ^ e;
        d = (t + ((u >>> 2) | (u << 30)) + (f ^ (x & y))) | 0; y = x;
        u = ((h >>> 14) | (h << 18)) ^ h; u = ((u >>> 5) | (u << 27)) ^ h; x = d ^ e;
        t = (c + ((u >>> 6) | (u << 26)) + (b ^ (h & (a ^ b))) + 0x59f111f1 + w5) | 0;
        g = (g + t) | 0; u = ((d >>> 9) | (d << 23)) ^ d; u = ((u >>> 11) | (u << 21)) ^ d;
        c = (t + ((u >>> 2) | (u << 30)) + (e ^ (x & y))) | 0; y = x;
        u = ((g >>> 14) | (g << 18)) ^ g; u = ((u >>> 5) | (u << 27)) ^ g; x = c ^ d;
        t = (b + ((u >>> 6) | (u << 26)) + (a ^ (g & (h ^ a))) + 0x923f82a4 + w6) | 0;
        f = (f + t) | 0; u = ((c >>> 9) | (c << 23)) ^ c; u = ((u >>> 11) | (u << 21)) ^ c;
        b = (t + ((u >>> 2) | (u << 30)) + (d ^ (x & y))) | 0; y = x;
        u = ((f >>> 14) | (f << 18)) ^ f; u = ((u >>> 5) | (u << 27)) ^ f; x = b ^ c;
        t = (a + ((u >>> 6) | (u << 26)) + (h ^ (f & (g ^ h))) + 0xab1c5ed5 + w7) | 0;
        e = (e + t) | 0; u = ((b >>> 9) | (b << 23)) ^ b; u = ((u >>> 11) | (u << 21)) ^ b;
        a = (t + ((u >>> 2) | (u << 30)) + (c ^ (x & y))) | 0; y = x;
        u = ((e >>> 14) | (e << 18)) ^ e; u = ((u >>> 5) | (u << 27)) ^ e; x = a ^ b;
        t = (h + ((u >>> 6) | (u << 26)) + (g ^ (e & (f ^ g))) + 0xd807aa98 + w8) | 0;
        d = (d + t) | 0; u = ((a >>> 9) | (a << 23)) ^ a; u = ((u >>> 11) | (u << 21)) ^ a;
        h = (t + ((u >>> 2) | (u << 30)) + (b ^ (x & y))) | 0; y = x;
        u = ((d >>> 14) | (d << 18)) ^ d; u = ((u >>> 5) | (u << 27)) ^ d; x = h ^ a;
        t = (g + ((u >>> 6) | (u << 26)) + (f ^ (d & (e ^ f))) + 0x12835b01 + w9) | 0;
        c = (c + t) | 0; u = ((h >>> 9) | (h << 23)) ^ h; u = ((u >>> 11) | (u << 21)) ^ h;
        g = (t + ((u >>> 2) | (u << 30)) + (a ^ (x & y))) | 0; y = x;
        u = ((c >>> 14) | (c << 18)) ^ c; u = ((u >>> 5) | (u << 27)) ^ c; x = g ^ h;
        t = (f + ((u >>> 6) | (u << 26)) + (e ^ (c & (d ^ e))) + 0x243185be + w10) | 0;
        b = (b + t) | 0; u = ((g >>> 9) | (g << 23)) ^ g; u = ((u >>> 11) | (u << 21)) ^ g;
        f = (t + ((u >>> 2) | (u << 30)) + (h ^ (x & y))) | 0; y = x;
        u = ((b >>> 14) | (b << 18)) ^ b; u = ((u >>> 5) | (u << 27)) ^ b; x = f ^ g;
        t = (e + ((u >>> 6) | (u << 26)) + (d ^ (b & (c ^ d))) + 0x550c7dc3 + w11) | 0;
        a = (a + t) | 0; u = ((f >>> 9) | (f << 23)) ^ f; u = ((u >>> 11) | (u << 21)) ^ f;
        e = (t + ((u >>> 2) | (u << 30)) + (g ^ (x & y))) | 0; y = x;
        u = ((a >>> 14) | (a << 18)) ^ a; u = ((u >>> 5) | (u << 27)) ^ a; x = e ^ f;
        t = (d + ((u >>> 6) | (u << 26)) + (c ^ (a & (b ^ c))) + 0x72be5d74 + w12) | 0;
        h = (h + t) | 0; u = ((e >>> 9) | (e << 23)) ^ e; u = ((u >>> 11) | (u << 21)) ^ e;
        d = (t + ((u >>> 2) | (u << 30)) + (f ^ (x & y))) | 0; y = x;
        u = ((h >>> 14) | (h << 18)) ^ h; u = ((u >>> 5) | (u << 27)) ^ h; x = d ^ e;
        t = (c + ((u >>> 6) | (u << 26)) + (b ^ (h & (a ^ b))) + 0x80deb1fe + w13) | 0;
        g = (g + t) | 0; u = ((d >>> 9) | (d << 23)) ^ d; u = ((u >>> 11) | (u << 21)) ^ d;
        c = (t + ((u >>> 2) | (u << 30)) + (e ^ (x & y))) | 0; y = x;
        u = ((g >>> 14) | (g << 18)) ^ g; u = ((u >>> 5) | (u << 27)) ^ g; x = c ^ d;
        t = (b + ((u >>> 6) | (u << 26)) + (a ^ (g & (h ^ a))) + 0x9bdc06a7 + w14) | 0;
        f = (f + t) | 0; u = ((c >>> 9) | (c << 23)) ^ c; u = ((u >>> 11) | (u << 21)) ^ c;
        b = (t + ((u >>> 2) | (u << 30)) + (d ^ (x & y))) | 0; y = x;
        u = ((f >>> 14) | (f << 18)) ^ f; u = ((u >>> 5) | (u << 27)) ^ f; x = b ^ c;
        t = (a + ((u >>> 6) | (u << 26)) + (h ^ (f & (g ^ h))) + 0xc19bf174 + w15) | 0;
        e = (e + t) | 0; u = ((b >>> 9) | (b << 23)) ^ b; u = ((u >>> 11) | (u << 21)) ^ b;
        a = (t + ((u >>> 2) | (u << 30)) + (c ^ (x & y))) | 0; y = x;
        // rounds 16-63: each first replaces W[i-16] by W[i] = W[i-16] + sigma0(W[i-15]) +
        // W[i-7] + sigma1(W[i-2])
        u = ((w1 >>> 11) | (w1 << 21)) ^ w1; u = ((u >>> 7) | (u << 25)) ^ (w1 >>> 3);
        v = ((w14 >>> 2) | (w14 << 30)) ^ w14; v = ((v >>> 17) | (v << 15)) ^ (w14 >>> 10);
        w0 = (w0 + u + w9 + v) | 0;
        u = ((e >>> 14) | (e << 18)) ^ e; u = ((u >>> 5) | (u << 27)) ^ e; x = a ^ b;
        t = (h + ((u >>> 6) | (u << 26)) + (g ^ (e & (f ^ g))) + 0xe49b69c1 + w0) | 0;
        d = (d + t) | 0; u = ((a >>> 9) | (a << 23)) ^ a; u = ((u >>> 11) | (u << 21)) ^ a;
        h = (t + ((u >>> 2) | (u << 30)) + (b ^ (x & y))) | 0; y = x;
        u = ((w2 >>> 11) | (w2 << 21)) ^ w2; u = ((u >>> 7) | (u << 25)) ^ (w2 >>> 3);
        v = ((w15 >>> 2) | (w15 << 30)) ^ w15; v = ((v >>> 17) | (v << 15)) ^ (w15 >>> 10);
        w1 = (w1 + u + w10 + v) | 0;
        u = ((d >>> 14) | (d << 18)) ^ d; u = ((u >>> 5) | (u << 27)) ^ d; x = h ^ a;
        t = (g + ((u >>> 6) | (u << 26)) + (f ^ (d & (e ^ f))) + 0xefbe4786 + w1) | 0;
        c = (c + t) | 0; u = ((h >>> 9) | (h << 23)) ^ h; u = ((u >>> 11) | (u << 21)) ^ h;
        g = (t + ((u >>> 2) | (u << 30)) + (a ^ (x & y))) | 0; y = x;
        u = ((w3 >>> 11) | (w3 << 21)) ^ w3; u = ((u >>> 7) | (u << 25)) ^ (w3 >>> 3);
        v = ((w0 >>> 2) | (w0 << 30)) ^ w0; v = ((v >>> 17) | (v << 15)) ^ (w0 >>> 10);
        w2 = (w2 + u + w11 + v) | 0;
        u = ((c >>> 14) | (c << 18)) ^ c; u = ((u >>> 5) | (u << 27)) ^ c; x = g ^ h;
        t = (f + ((u >>> 6) | (u << 26)) + (e ^ (c & (d ^ e))) + 0x0fc19dc6 + w2) | 0;
        b = (b + t) | 0; u = ((g >>> 9) | (g << 23)) ^ g; u = ((u >>> 11) | (u << 21)) ^ g;
        f = (t + ((u >>> 2) | (u << 30)) + (h ^ (x & y))) | 0; y = x;
        u = ((w4 >>> 11) | (w4 << 21)) ^ w4; u = ((u >>> 7) | (u << 25)) ^ (w4 >>> 3);
        v = ((w1 >>> 2) | (w1 << 30)) ^ w1; v = ((v >>> 17) | (v << 15)) ^ (w1 >>> 10);
        w3 = (w3 + u + w12 + v) | 0;
        u = ((b >>> 14) | (b << 18)) ^ b; u = ((u >>> 5) | (u << 27)) ^ b; x = f ^ g;
        t = (e + ((u >>> 6) | (u << 26)) + (d ^ (b & (c ^ d))) + 0x240ca1cc + w3) | 0;
        a = (a + t) | 0; u = ((f >>> 9) | (f << 23)) ^ f; u = ((u >>> 11) | (u << 21)) ^ f;
        e = (t + ((u >>> 2) | (u << 30)) + (g ^ (x & y))) | 0; y = x;
        u = ((w5 >>> 11) | (w5 << 21)) ^ w5; u = ((u >>> 7) | (u << 25)) ^ (w5 >>> 3);
        v = ((w2 >>> 2) | (w2 << 30)) ^ w2; v = ((v >>> 17) | (v << 15)) ^ (w2 >>> 10);
        w4 = (w4 + u + w13 + v) | 0;
        u = ((a >>> 14) | (a << 18)) ^ a; u = ((u >>> 5) | (u << 27)) ^ a; x = e ^ f;
        t = (d + ((u >>> 6) | (u << 26)) + (c ^ (a & (b ^ c))) + 0x2de92c6f + w4) | 0;
        h = (h + t) | 0; u = ((e >>> 9) | (e << 23)) ^ e; u = ((u >>> 11) | (u << 21)) ^ e;
        d = (t + ((u >>> 2) | (u << 30)) + (f ^ (x & y))) | 0; y = x;
        u = ((w6 >>> 11) | (w6 << 21)) ^ w6; u = ((u >>> 7) | (u << 25)) ^ (w6 >>> 3);
        v = ((w3 >>> 2) | (w3 << 30)) ^ w3; v = ((v >>> 17) | (v << 15)) ^ (w3 >>> 10);
        w5 = (w5 + u + w14 + v) | 0;
        u = ((h >>> 14) | (h << 18)) ^ h; u = ((u >>> 5) | (u << 27)) ^ h; x = d ^ e;
        t = (c + ((u >>> 6) | (u << 26)) + (b ^ (h & (a ^ b))) + 0x4a7484aa + w5) | 0;
        g = (g + t) | 0; u = ((d >>> 9) | (d << 23)) ^ d; u = ((u >>> 11) | (u << 21)) ^ d;
        c = (t + ((u >>> 2) | (u << 30)) + (e ^ (x & y))) | 0; y = x;
        u = ((w7 >>> 11) | (w7 << 21)) ^ w7; u = ((u >>> 7) | (u << 25)) ^ (w7 >>> 3);
        v = ((w4 >>> 2) | (w4 << 30)) ^ w4; v = ((v >>> 17) | (v << 15)) ^ (w4 >>> 10);
        w6 = (w6 + u + w15 + v) | 0;
        u = ((g >>> 14) | (g << 18)) ^ g; u = ((u >>> 5) | (u << 27)) ^ g; x = c ^ d;
        t = (b + ((u >>> 6) | (u << 26)) + (a ^ (g & (h ^ a))) + 0x5cb0a9dc + w6) | 0;
        f = (f + t) | 0; u = ((c >>> 9) | (c << 23)) ^ c; u = ((u >>> 11) | (u << 21)) ^ c;
        b = (t + ((u >>> 2) | (u << 30)) + (d ^ (x & y))) | 0; y = x;
        u = ((w8 >>> 11) | (w8 << 21)) ^ w8; u = ((u >>> 7) | (u << 25)) ^ (w8 >>> 3);
        v = ((w5 >>> 2) | (w5 << 30)) ^ w5; v = ((v >>> 17) | (v << 15)) ^ (w5 >>> 10);
        w7 = (w7 + u + w0 + v) | 0;
        u = ((f >>> 14) | (f << 18)) ^ f; u = ((u >>> 5) | (u << 27)) ^ f; x = b ^ c;
        t = (a + ((u >>> 6) | (u << 26)) + (h ^ (f & (g ^ h))) + 0x76f988da + w7) | 0;
        e = (e + t) | 0; u = ((b >>> 9) | (b << 23)) ^ b; u = ((u >>> 11) | (u << 21)) ^ b;
        a = (t + ((u >>> 2) | (u << 30)) + (c ^ (x & y))) | 0; y = x;
        u = ((w9 >>> 11) | (w9 << 21)) ^ w9; u = ((u >>> 7) | (u << 25)) ^ (w9 >>> 3);
        v = ((w6 >>> 2) | (w6 << 30)) ^ w6; v = ((v >>> 17) | (v << 15)) ^ (w6 >>> 10);
        w8 = (w8 + u + w1 + v) | 0;
        u = ((e >>> 14) | (e << 18)) ^ e; u = ((u >>> 5) | (u << 27)) ^ e; x = a ^ b;
        t = (h + ((u >>> 6) | (u << 26)) + (g ^ (e & (f ^ g))) + 0x983e5152 + w8) | 0;
        d = (d + t) | 0; u = ((a >>> 9) | (a << 23)) ^ a; u = ((u >>> 11) | (u << 21)) ^ a;
        h = (t + ((u >>> 2) | (u << 30)) + (b ^ (x & y))) | 0; y = x;
        u = ((w10 >>> 11) | (w10 << 21)) ^ w10; u = ((u >>> 7) | (u << 25)) ^ (w10 >>> 3);
        v = ((w7 >>> 2) | (w7 << 30)) ^ w7; v = ((v >>> 17) | (v << 15)) ^ (w7 >>> 10);
        w9 = (w9 + u + w2 + v) | 0;
        u = ((d >>> 14) | (d << 18)) ^ d; u = ((u >>> 5) | (u << 27)) ^ d; x = h ^ a;
        t = (g + ((u >>> 6) | (u << 26)) + (f ^ (d & (e ^ f))) + 0xa831c66d + w9) | 0;
        c = (c + t) | 0; u = ((h >>> 9) | (h << 23)) ^ h; u = ((u >>> 11) | (u << 21)) ^ h;
        g = (t + ((u >>> 2) | (u << 30)) + (a ^ (x & y))) | 0; y = x;
        u = ((w11 >>> 11) | (w11 << 21)) ^ w11; u = ((u >>> 7) | (u << 25)) ^ (w11 >>> 3);
        v = ((w8 >>> 2) | (w8 << 30)) ^ w8; v = ((v >>> 17) | (v << 15)) ^ (w8 >>> 10);
        w10 = (w10 + u + w3 + v) | 0;
        u = ((c >>> 14) | (c << 18)) ^ c; u = ((u >>> 5) | (u << 27)) ^ c; x = g ^ h;
        t = (f + ((u >>> 6) | (u << 26)) + (e ^ (c & (d ^ e))) + 0xb00327c8 + w10) | 0;
        b = (b + t) | 0; u = ((g >>> 9) | (g << 23)) ^ g; u = ((u >>> 11) | (u << 21)) ^ g;
        f = (t + ((u >>> 2) | (u << 30)) + (h ^ (x & y))) | 0; y = x;
        u = ((w12 >>> 11) | (w12 << 21)) ^ w12; u = ((u >>> 7) | (u << 25)) ^ (w12 >>> 3);
        v = ((w9 >>> 2) | (w9 << 30)) ^ w9; v = ((v >>> 17) | (v << 15)) ^ (w9 >>> 10);
        w11 = (w11 + u + w4 + v) | 0;
        u = ((b >>> 14) | (b << 18)) ^ b; u = ((u >>> 5) | (u << 27)) ^ b; x = f ^ g;
        t = (e + ((u >>> 6) | (u << 26)) + (d ^ (b & (c ^ d))) + 0xbf597fc7 + w11) | 0;
        a = (a + t) | 0; u = ((f >>> 9) | (f << 23)) ^ f; u = ((u >>> 11) | (u << 21)) ^ f;
        e = (t + ((u >>> 2) | (u << 30)) + (g ^ (x & y))) | 0; y = x;
        u = ((w13 >>> 11) | (w13 << 21)) ^ w13; u = ((u >>> 7) | (u << 25)) ^ (w13 >>> 3);
        v = ((w10 >>> 2) | (w10 << 30)) ^ w10; v = ((v >>> 17) | (v << 15)) ^ (w10 >>> 10);
        w12 = (w12 + u + w5 + v) | 0;
        u = ((a >>> 14) | (a << 18)) ^ a; u = ((u >>> 5) | (u << 27)) ^ a; x = e ^ f;
        t = (d + ((u >>> 6) | (u << 26)) + (c ^ (a & (b ^ c))) + 0xc6e00bf3 + w12) | 0;
        h = (h + t) | 0; u = ((e >>> 9) | (e << 23)) ^ e; u = ((u >>> 11) | (u << 21)) ^ e;
        d = (t + ((u >>> 2) | (u << 30)) + (f ^ (x & y))) | 0; y = x;
        u = ((w14 >>> 11) | (w14 << 21)) ^ w14; u = ((u >>> 7) | (u << 25)) ^ (w14 >>> 3);
        v = ((w11 >>> 2) | (w11 << 30)) ^ w11; v = ((v >>> 17) | (v << 15)) ^ (w11 >>> 10);
        w13 = (w13 + u + w6 + v) | 0;
        u = ((h >>> 14) | (h << 18)) ^ h; u = ((u >>> 5) | (u << 27)) ^ h; x = d ^ e;
        t = (c + ((u >>> 6) | (u << 26)) + (b ^ (h & (a ^ b))) + 0xd5a79147 + w13) | 0;
        g = (g + t) | 0; u = ((d >>> 9) | (d << 23)) ^ d; u = ((u >>> 11) | (u << 21)) ^ d;
        c = (t + ((u >>> 2) | (u << 30)) + (e ^ (x & y))) | 0; y = x;
        u = ((w15 >>> 11) | (w15 << 21)) ^ w15; u = ((u >>> 7) | (u << 25)) ^ (w15 >>> 3);
        v = ((w12 >>> 2) | (w12 << 30)) ^ w12; v = ((v >>> 17) | (v << 15)) ^ (w12 >>> 10);
        w14 = (w14 + u + w7 + v) | 0;
        u = ((g >>> 14) | (g << 18)) ^ g; u = ((u >>> 5) | (u << 27)) ^ g; x = c ^ d;
        t = (b + ((u >>> 6) | (u << 26)) + (a ^ (g & (h ^ a))) + 0x06ca6351 + w14) | 0;
        f = (f + t) | 0; u = ((c >>> 9) | (c << 23)) ^ c; u = ((u >>> 11) | (u << 21)) ^ c;
        b = (t + ((u >>> 2) | (u << 30)) + (d ^ (x & y))) | 0; y = x;
        u = ((w0 >>> 11) | (w0 << 21)) ^ w0; u = ((u >>> 7) | (u << 25)) ^ (w0 >>> 3);
        v = ((w13 >>> 2) | (w13 << 30)) ^ w13; v = ((v >>> 17) | (v << 15)) ^ (w13 >>> 10);
        w15 = (w15 + u + w8 + v) | 0;
        u = ((f >>> 14) | (f << 18)) ^ f; u = ((u >>> 5) | (u << 27)) ^ f; x = b ^ c;
        t = (a + ((u >>> 6) | (u << 26)) + (h ^ (f & (g ^ h))) + 0x14292967 + w15) | 0;
        e = (e + t) | 0; u = ((b >>> 9) | (b << 23)) ^ b; u = ((u >>> 11) | (u << 21)) ^ b;
        a = (t + ((u >>> 2) | (u << 30)) + (c ^ (x & y))) | 0; y = x;
        u = ((w1 >>> 11) | (w1 << 21)) ^ w1; u = ((u >>> 7) | (u << 25)) ^ (w1 >>> 3);
        v = ((w14 >>> 2) | (w14 << 30)) ^ w14; v = ((v >>> 17) | (v << 15)) ^ (w14 >>> 10);
        w0 = (w0 + u + w9 + v) | 0;
        u = ((e >>> 14) | (e << 18)) ^ e; u = ((u >>> 5) | (u << 27)) ^ e; x = a ^ b;
        t = (h + ((u >>> 6) | (u << 26)) + (g ^ (e & (f ^ g))) + 0x27b70a85 + w0) | 0;
        d = (d + t) | 0; u = ((a >>> 9) | (a << 23)) ^ a; u = ((u >>> 11) | (u << 21)) ^ a;
        h = (t + ((u >>> 2) | (u << 30)) + (b ^ (x & y))) | 0; y = x;
        u = ((w2 >>> 11) | (w2 << 21)) ^ w2; u = ((u >>> 7) | (u << 25)) ^ (w2 >>> 3);
        v = ((w15 >>> 2) | (w15 << 30)) ^ w15; v = ((v >>> 17) | (v << 15)) ^ (w15 >>> 10);
        w1 = (w1 + u + w10 + v) | 0;
        u = ((d >>> 14) | (d << 18)) ^ d; u = ((u >>> 5) | (u << 27)) ^ d; x = h ^ a;
        t = (g + ((u >>> 6) | (u << 26)) + (f ^ (d & (e ^ f))) + 0x2e1b2138 + w1) | 0;
        c = (c + t) | 0; u = ((h >>> 9) | (h << 23)) ^ h; u = ((u >>> 11) | (u << 21)) ^ h;
        g = (t + ((u >>> 2) | (u << 30)) + (a ^ (x & y))) | 0; y = x;
        u = ((w3 >>> 11) | (w3 << 21)) ^ w3; u = ((u >>> 7) | (u << 25)) ^ (w3 >>> 3);
        v = ((w0 >>> 2) | (w0 << 30)) ^ w0; v = ((v >>> 17) | (v << 15)) ^ (w0 >>> 10);
        w2 = (w2 + u + w11 + v) | 0;
        u = ((c >>> 14) | (c << 18)) ^ c; u = ((u >>> 5) | (u << 27)) ^ c; x = g ^ h;
        t = (f + ((u >>> 6) | (u << 26)) + (e ^ (c & (d ^ e))) + 0x4d2c6dfc + w2) | 0;
        b = (b + t) | 0; u = ((g >>> 9) | (g << 23)) ^ g; u = ((u >>> 11) | (u << 21)) ^ g;
        f = (t + ((u >>> 2) | (u << 30)) + (h ^ (x & y))) | 0; y = x;
        u = ((w4 >>> 11) | (w4 << 21)) ^ w4; u = ((u >>> 7) | (u << 25)) ^ (w4 >>> 3);
        v = ((w1 >>> 2) | (w1 << 30)) ^ w1; v = ((v >>> 17) | (v << 15)) ^ (w1 >>> 10);
        w3 = (w3 + u + w12 + v) | 0;
        u = ((b >>> 14) | (b << 18)) ^ b; u = ((u >>> 5) | (u << 27)) ^ b; x = f ^ g;
        t = (e + ((u >>> 6) | (u << 26)) + (d ^ (b & (c ^ d))) + 0x53380d13 + w3) | 0;
        a = (a + t) | 0; u = ((f >>> 9) | (f << 23)) ^ f; u = ((u >>> 11) | (u << 21)) ^ f;
        e = (t + ((u >>> 2) | (u << 30)) + (g ^ (x & y))) | 0; y = x;
        u = ((w5 >>> 11) | (w5 << 21)) ^ w5; u = ((u >>> 7) | (u << 25)) ^ (w5 >>> 3);
        v = ((w2 >>> 2) | (w2 << 30)) ^ w2; v = ((v >>> 17) | (v << 15)) ^ (w2 >>> 10);
        w4 = (w4 + u + w13 + v) | 0;
        u = ((a >>> 14) | (a << 18)) ^ a; u = ((u >>> 5) | (u << 27)) ^ a; x = e ^ f;
        t = (d + ((u >>> 6) | (u << 26)) + (c ^ (a & (b ^ c))) + 0x650a7354 + w4) | 0;
        h = (h + t) | 0; u = ((e >>> 9) | (e << 23)) ^ e; u = ((u >>> 11) | (u << 21)) ^ e;
        d = (t + ((u >>> 2) | (u << 30)) + (f ^ (x & y))) | 0; y = x;
        u = ((w6 >>> 11) | (w6 << 21)) ^ w6; u = ((u >>> 7) | (u << 25)) ^ (w6 >>> 3);
        v = ((w3 >>> 2) | (w3 << 30)) ^ w3; v = ((v >>> 17) | (v << 15)) ^ (w3 >>> 10);
        w5 = (w5 + u + w14 + v) | 0;
        u = ((h >>> 14) | (h << 18)) ^ h; u = ((u >>> 5) | (u << 27)) ^ h; x = d ^ e;
        t = (c + ((u >>> 6) | (u << 26)) + (b ^ (h & (a ^ b))) + 0x766a0abb + w5) | 0;
        g = (g + t) | 0; u = ((d >>> 9) | (d << 23)) ^ d; u = ((u >>> 11) | (u << 21)) ^ d;
        c = (t + ((u >>> 2) | (u << 30)) + (e ^ (x & y))) | 0; y = x;
        u = ((w7 >>> 11) | (w7 << 21)) ^ w7; u = ((u >>> 7) | (u << 25)) ^ (w7 >>> 3);
        v = ((w4 >>> 2) | (w4 << 30)) ^ w4; v = ((v >>> 17) | (v << 15)) ^ (w4 >>> 10);
        w6 = (w6 + u + w15 + v) | 0;
        u = ((g >>> 14) | (g << 18)) ^ g; u = ((u >>> 5) | (u << 27)) ^ g; x = c ^ d;
        t = (b + ((u >>> 6) | (u << 26)) + (a ^ (g & (h ^ a))) + 0x81c2c92e + w6) | 0;
        f = (f + t) | 0; u = ((c >>> 9) | (c << 23)) ^ c; u = ((u >>> 11) | (u << 21)) ^ c;
        b = (t + ((u >>> 2) | (u << 30)) + (d ^ (x & y))) | 0; y = x;
        u = ((w8 >>> 11) | (w8 << 21)) ^ w8; u = ((u >>> 7) | (u << 25)) ^ (w8 >>> 3);
        v = ((w5 >>> 2) | (w5 << 30)) ^ w5; v = ((v >>> 17) | (v << 15)) ^ (w5 >>> 10);
        w7 = (w7 + u + w0 + v) | 0;
        u = ((f >>> 14) | (f << 18)) ^ f; u = ((u >>> 5) | (u << 27)) ^ f; x = b ^ c;
        t = (a + ((u >>> 6) | (u << 26)) + (h ^ (f & (g ^ h))) + 0x92722c85 + w7) | 0;
        e = (e + t) | 0; u = ((b >>> 9) | (b << 23)) ^ b; u = ((u >>> 11) | (u << 21)) ^ b;
        a = (t + ((u >>> 2) | (u << 30)) + (c ^ (x & y))) | 0; y = x;
        u = ((w9 >>> 11) | (w9 << 21)) ^ w9; u = ((u >>> 7) | (u << 25)) ^ (w9 >>> 3);
        v = ((w6 >>> 2) | (w6 << 30)) ^ w6; v = ((v >>> 17) | (v << 15)) ^ (w6 >>> 10);
        w8 = (w8 + u + w1 + v) | 0;
        u = ((e >>> 14) | (e << 18)) ^ e; u = ((u >>> 5) | (u << 27)) ^ e; x = a ^ b;
        t = (h + ((u >>> 6) | (u << 26)) + (g ^ (e & (f ^ g))) + 0xa2bfe8a1 + w8) | 0;
        d = (d + t) | 0; u = ((a >>> 9) | (a << 23)) ^ a; u = ((u >>> 11) | (u << 21)) ^ a;
        h = (t + ((u >>> 2) | (u << 30)) + (b ^ (x & y))) | 0; y = x;
        u = ((w10 >>> 11) | (w10 << 21)) ^ w10; u = ((u >>> 7) | (u << 25)) ^ (w10 >>> 3);
        v = ((w7 >>> 2) | (w7 << 30)) ^ w7; v = ((v >>> 17) | (v << 15)) ^ (w7 >>> 10);
        w9 = (w9 + u + w2 + v) | 0;
        u = ((d >>> 14) | (d << 18)) ^ d; u = ((u >>> 5) | (u << 27)) ^ d; x = h ^ a;
        t = (g + ((u >>> 6) | (u << 26)) + (f ^ (d & (e ^ f))) + 0xa81a664b + w9) | 0;
        c = (c + t) | 0; u = ((h >>> 9) | (h << 23)) ^ h; u = ((u >>> 11) | (u << 21)) ^ h;
        g = (t + ((u >>> 2) | (u << 30)) + (a ^ (x & y))) | 0; y = x;
        u = ((w11 >>> 11) | (w11 << 21)) ^ w11; u = ((u >>> 7) | (u << 25)) ^ (w11 >>> 3);
        v = ((w8 >>> 2) | (w8 << 30)) ^ w8; v = ((v >>> 17) | (v << 15)) ^ (w8 >>> 10);
        w10 = (w10 + u + w3 + v) | 0;
        u = ((c >>> 14) | (c << 18)) ^ c; u = ((u >>> 5) | (u << 27)) ^ c; x = g ^ h;
        t = (f + ((u >>> 6) | (u << 26)) + (e ^ (c & (d ^ e))) + 0xc24b8b70 + w10) | 0;
        b = (b + t) | 0; u = ((g >>> 9) | (g << 23)) ^ g; u = ((u >>> 11) | (u << 21)) ^ g;
        f = (t + ((u >>> 2) | (u << 30)) + (h ^ (x & y))) | 0; y = x;
        u = ((w12 >>> 11) | (w12 << 21)) ^ w12; u = ((u >>> 7) | (u << 25)) ^ (w12 >>> 3);
        v = ((w9 >>> 2) | (w9 << 30)) ^ w9; v = ((v >>> 17) | (v << 15)) ^ (w9 >>> 10);
        w11 = (w11 + u + w4 + v) | 0;
        u = ((b >>> 14) | (b << 18)) ^ b; u = ((u >>> 5) | (u << 27)) ^ b; x = f ^ g;
        t = (e + ((u >>> 6) | (u << 26)) + (d ^ (b & (c ^ d))) + 0xc76c51a3 + w11) | 0;
        a = (a + t) | 0; u = ((f >>> 9) | (f << 23)) ^ f; u = ((u >>> 11) | (u << 21)) ^ f;
        e = (t + ((u >>> 2) | (u << 30)) + (g ^ (x & y))) | 0; y = x;
        u = ((w13 >>> 11) | (w13 << 21)) ^ w13; u = ((u >>> 7) | (u << 25)) ^ (w13 >>> 3);
        v = ((w10 >>> 2) | (w10 << 30)) ^ w10; v = ((v >>> 17) | (v << 15)) ^ (w10 >>> 10);
        w12 = (w12 + u + w5 + v) | 0;
        u = ((a >>> 14) | (a << 18)) ^ a; u = ((u >>> 5) | (u << 27)) ^ a; x = e ^ f;
        t = (d + ((u >>> 6) | (u << 26)) + (c ^ (a & (b ^ c))) + 0xd192e819 + w12) | 0;
        h = (h + t) | 0; u = ((e >>> 9) | (e << 23)) ^ e; u = ((u >>> 11) | (u << 21)) ^ e;
        d = (t + ((u >>> 2) | (u << 30)) + (f ^ (x & y))) | 0; y = x;
        u = ((w14 >>> 11) | (w14 << 21)) ^ w14; u = ((u >>> 7) | (u << 25)) ^ (w14 >>> 3);
        v = ((w11 >>> 2) | (w11 << 30)) ^ w11; v = ((v >>> 17) | (v << 15)) ^ (w11 >>> 10);
        w13 = (w13 + u + w6 + v) | 0;
        u = ((h >>> 14) | (h << 18)) ^ h; u = ((u >>> 5) | (u << 27)) ^ h; x = d ^ e;
        t = (c + ((u >>> 6) | (u << 26)) + (b ^ (h & (a ^ b))) + 0xd6990624 + w13) | 0;
        g = (g + t) | 0; u = ((d >>> 9) | (d << 23)) ^ d; u = ((u >>> 11) | (u << 21)) ^ d;
        c = (t + ((u >>> 2) | (u << 30)) + (e ^ (x & y))) | 0; y = x;
        u = ((w15 >>> 11) | (w15 << 21)) ^ w15; u = ((u >>> 7) | (u << 25)) ^ (w15 >>> 3);
        v = ((w12 >>> 2) | (w12 << 30)) ^ w12; v = ((v >>> 17) | (v << 15)) ^ (w12 >>> 10);
        w14 = (w14 + u + w7 + v) | 0;
        u = ((g >>> 14) | (g << 18)) ^ g; u = ((u >>> 5) | (u << 27)) ^ g; x = c ^ d;
        t = (b + ((u >>> 6) | (u << 26)) + (a ^ (g & (h ^ a))) + 0xf40e3585 + w14) | 0;
        f = (f + t) | 0; u = ((c >>> 9) | (c << 23)) ^ c; u = ((u >>> 11) | (u << 21)) ^ c;
        b = (t + ((u >>> 2) | (u << 30)) + (d ^ (x & y))) | 0; y = x;
        u = ((w0 >>> 11) | (w0 << 21)) ^ w0; u = ((u >>> 7) | (u << 25)) ^ (w0 >>> 3);
        v = ((w13 >>> 2) | (w13 << 30)) ^ w13; v = ((v >>> 17) | (v << 15)) ^ (w13 >>> 10);
        w15 = (w15 + u + w8 + v) | 0;
        u = ((f >>> 14) | (f << 18)) ^ f; u = ((u >>> 5) | (u << 27)) ^ f; x = b ^ c;
        t = (a + ((u >>> 6) | (u << 26)) + (h ^ (f & (g ^ h))) + 0x106aa070 + w15) | 0;
        e = (e + t) | 0; u = ((b >>> 9) | (b << 23)) ^ b; u = ((u >>> 11) | (u << 21)) ^ b;
        a = (t + ((u >>> 2) | (u << 30)) + (c ^ (x & y))) | 0; y = x;
        u = ((w1 >>> 11) | (w1 << 21)) ^ w1; u = ((u >>> 7) | (u << 25)) ^ (w1 >>> 3);
        v = ((w14 >>> 2) | (w14 << 30)) ^ w14; v = ((v >>> 17) | (v << 15)) ^ (w14 >>> 10);
        w0 = (w0 + u + w9 + v) | 0;
        u = ((e >>> 14) | (e << 18)) ^ e; u = ((u >>> 5) | (u << 27)) ^ e; x = a ^ b;
        t = (h + ((u >>> 6) | (u << 26)) + (g ^ (e & (f ^ g))) + 0x19a4c116 + w0) | 0;
        d = (d + t) | 0; u = ((a >>> 9) | (a << 23)) ^ a; u = ((u >>> 11) | (u << 21)) ^ a;
        h = (t + ((u >>> 2) | (u << 30)) + (b ^ (x & y))) | 0; y = x;
        u = ((w2 >>> 11) | (w2 << 21)) ^ w2; u = ((u >>> 7) | (u << 25)) ^ (w2 >>> 3);
        v = ((w15 >>> 2) | (w15 << 30)) ^ w15; v = ((v >>> 17) | (v << 15)) ^ (w15 >>> 10);
        w1 = (w1 + u + w10 + v) | 0;
        u = ((d >>> 14) | (d << 18)) ^ d; u = ((u >>> 5) | (u << 27)) ^ d; x = h ^ a;
        t = (g + ((u >>> 6) | (u << 26)) + (f ^ (d & (e ^ f))) + 0x1e376c08 + w1) | 0;
        c = (c + t) | 0; u = ((h >>> 9) | (h << 23)) ^ h; u = ((u >>> 11) | (u << 21)) ^ h;
        g = (t + ((u >>> 2) | (u << 30)) + (a ^ (x & y))) | 0; y = x;
        u = ((w3 >>> 11) | (w3 << 21)) ^ w3; u = ((u >>> 7) | (u << 25)) ^ (w3 >>> 3);
        v = ((w0 >>> 2) | (w0 << 30)) ^ w0; v = ((v >>> 17) | (v << 15)) ^ (w0 >>> 10);
        w2 = (w2 + u + w11 + v) | 0;
        u = ((c >>> 14) | (c << 18)) ^ c; u = ((u >>> 5) | (u << 27)) ^ c; x = g ^ h;
        t = (f + ((u >>> 6) | (u << 26)) + (e ^ (c & (d ^ e))) + 0x2748774c + w2) | 0;
        b = (b + t) | 0; u = ((g >>> 9) | (g << 23)) ^ g; u = ((u >>> 11) | (u << 21)) ^ g;
        f = (t + ((u >>> 2) | (u << 30)) + (h ^ (x & y))) | 0; y = x;
        u = ((w4 >>> 11) | (w4 << 21)) ^ w4; u = ((u >>> 7) | (u << 25)) ^ (w4 >>> 3);
        v = ((w1 >>> 2) | (w1 << 30)) ^ w1; v = ((v >>> 17) | (v << 15)) ^ (w1 >>> 10);
        w3 = (w3 + u + w12 + v) | 0;
        u = ((b >>> 14) | (b << 18)) ^ b; u = ((u >>> 5) | (u << 27)) ^ b; x = f ^ g;
        t = (e + ((u >>> 6) | (u << 26)) + (d ^ (b & (c ^ d))) + 0x34b0bcb5 + w3) | 0;
        a = (a + t) | 0; u = ((f >>> 9) | (f << 23)) ^ f; u = ((u >>> 11) | (u << 21)) ^ f;
        e = (t + ((u >>> 2) | (u << 30)) + (g ^ (x & y))) | 0; y = x;
        u = ((w5 >>> 11) | (w5 << 21)) ^ w5; u = ((u >>> 7) | (u << 25)) ^ (w5 >>> 3);
        v = ((w2 >>> 2) | (w2 << 30)) ^ w2; v = ((v >>> 17) | (v << 15)) ^ (w2 >>> 10);
        w4 = (w4 + u + w13 + v) | 0;
        u = ((a >>> 14) | (a << 18)) ^ a; u = ((u >>> 5) | (u << 27)) ^ a; x = e ^ f;
        t = (d + ((u >>> 6) | (u << 26)) + (c ^ (a & (b ^ c))) + 0x391c0cb3 + w4) | 0;
        h = (h + t) | 0; u = ((e >>> 9) | (e << 23)) ^ e; u = ((u >>> 11) | (u << 21)) ^ e;
        d = (t + ((u >>> 2) | (u << 30)) + (f ^ (x & y))) | 0; y = x;
        u = ((w6 >>> 11) | (w6 << 21)) ^ w6; u = ((u >>> 7) | (u << 25)) ^ (w6 >>> 3);
        v = ((w3 >>> 2) | (w3 << 30)) ^ w3; v = ((v >>> 17) | (v << 15)) ^ (w3 >>> 10);
        w5 = (w5 + u + w14 + v) | 0;
        u = ((h >>> 14) | (h << 18)) ^ h; u = ((u >>> 5) | (u << 27)) ^ h; x = d ^ e;
        t = (c + ((u >>> 6) | (u << 26)) + (b ^ (h & (a ^ b))) + 0x4ed8aa4a + w5) | 0;
        g = (g + t) | 0; u = ((d >>> 9) | (d << 23)) ^ d; u = ((u >>> 11) | (u << 21)) ^ d;
        c = (t + ((u >>> 2) | (u << 30)) + (e ^ (x & y))) | 0; y = x;
        u = ((w7 >>> 11) | (w7 << 21)) ^ w7; u = ((u >>> 7) | (u << 25)) ^ (w7 >>> 3);
        v = ((w4 >>> 2) | (w4 << 30)) ^ w4; v = ((v >>> 17) | (v << 15)) ^ (w4 >>> 10);
        w6 = (w6 + u + w15 + v) | 0;
        u = ((g >>> 14) | (g << 18)) ^ g; u = ((u >>> 5) | (u << 27)) ^ g; x = c ^ d;
        t = (b + ((u >>> 6) | (u << 26)) + (a ^ (g & (h ^ a))) + 0x5b9cca4f + w6) | 0;
        f = (f + t) | 0; u = ((c >>> 9) | (c << 23)) ^ c; u = ((u >>> 11) | (u << 21)) ^ c;
        b = (t + ((u >>> 2) | (u << 30)) + (d ^ (x & y))) | 0; y = x;
        u = ((w8 >>> 11) | (w8 << 21)) ^ w8; u = ((u >>> 7) | (u << 25)) ^ (w8 >>> 3);
        v = ((w5 >>> 2) | (w5 << 30)) ^ w5; v = ((v >>> 17) | (v << 15)) ^ (w5 >>> 10);
        w7 = (w7 + u + w0 + v) | 0;
        u = ((f >>> 14) | (f << 18)) ^ f; u = ((u >>> 5) | (u << 27)) ^ f; x = b ^ c;
        t = (a + ((u >>> 6) | (u << 26)) + (h ^ (f & (g ^ h))) + 0x682e6ff3 + w7) | 0;
        e = (e + t) | 0; u = ((b >>> 9) | (b << 23)) ^ b; u = ((u >>> 11) | (u << 21)) ^ b;
        a = (t + ((u >>> 2) | (u << 30)) + (c ^ (x & y))) | 0; y = x;
        u = ((w9 >>> 11) | (w9 << 21)) ^ w9; u = ((u >>> 7) | (u << 25)) ^ (w9 >>> 3);
        v = ((w6 >>> 2) | (w6 << 30)) ^ w6; v = ((v >>> 17) | (v << 15)) ^ (w6 >>> 10);
        w8 = (w8 + u + w1 + v) | 0;
        u = ((e >>> 14) | (e << 18)) ^ e; u = ((u >>> 5) | (u << 27)) ^ e; x = a ^ b;
        t = (h + ((u >>> 6) | (u << 26)) + (g ^ (e & (f ^ g))) + 0x748f82ee + w8) | 0;
        d = (d + t) | 0; u = ((a >>> 9) | (a << 23)) ^ a; u = ((u >>> 11) | (u << 21)) ^ a;
        h = (t + ((u >>> 2) | (u << 30)) + (b ^ (x & y))) | 0; y = x;
        u = ((w10 >>> 11) | (w10 << 21)) ^ w10; u = ((u >>> 7) | (u << 25)) ^ (w10 >>> 3);
        v = ((w7 >>> 2) | (w7 << 30)) ^ w7; v = ((v >>> 17) | (v << 15)) ^ (w7 >>> 10);
        w9 = (w9 + u + w2 + v) | 0;
        u = ((d >>> 14) | (d << 18)) ^ d; u = ((u >>> 5) | (u << 27)) ^ d; x = h ^ a;
        t = (g + ((u >>> 6) | (u << 26)) + (f ^ (d & (e ^ f))) + 0x78a5636f + w9) | 0;
        c = (c + t) | 0; u = ((h >>> 9) | (h << 23)) ^ h; u = ((u >>> 11) | (u << 21)) ^ h;
        g = (t + ((u >>> 2) | (u << 30)) + (a ^ (x & y))) | 0; y = x;
        u = ((w11 >>> 11) | (w11 << 21)) ^ w11; u = ((u >>> 7) | (u << 25)) ^ (w11 >>> 3);
        v = ((w8 >>> 2) | (w8 << 30)) ^ w8; v = ((v >>> 17) | (v << 15)) ^ (w8 >>> 10);
        w10 = (w10 + u + w3 + v) | 0;
        u = ((c >>> 14) | (c << 18)) ^ c; u = ((u >>> 5) | (u << 27)) ^ c; x = g ^ h;
        t = (f + ((u >>> 6) | (u << 26)) + (e ^ (c & (d ^ e))) + 0x84c87814 + w10) | 0;
        b = (b + t) | 0; u = ((g >>> 9) | (g << 23)) ^ g; u = ((u >>> 11) | (u << 21)) ^ g;
        f = (t + ((u >>> 2) | (u << 30)) + (h ^ (x & y))) | 0; y = x;
        u = ((w12 >>> 11) | (w12 << 21)) ^ w12; u = ((u >>> 7) | (u << 25)) ^ (w12 >>> 3);
        v = ((w9 >>> 2) | (w9 << 30)) ^ w9; v = ((v >>> 17) | (v << 15)) ^ (w9 >>> 10);
        w11 = (w11 + u + w4 + v) | 0;
        u = ((b >>> 14) | (b << 18)) ^ b; u = ((u >>> 5) | (u << 27)) ^ b; x = f ^ g;
        t = (e + ((u >>> 6) | (u << 26)) + (d ^ (b & (c ^ d))) + 0x8cc70208 + w11) | 0;
        a = (a + t) | 0; u = ((f >>> 9) | (f << 23)) ^ f; u = ((u >>> 11) | (u << 21)) ^ f;
        e = (t + ((u >>> 2) | (u << 30)) + (g ^ (x & y))) | 0; y = x;
        u = ((w13 >>> 11) | (w13 << 21)) ^ w13; u = ((u >>> 7) | (u << 25)) ^ (w13 >>> 3);
        v = ((w10 >>> 2) | (w10 << 30)) ^ w10; v = ((v >>> 17) | (v << 15)) ^ (w10 >>> 10);
        w12 = (w12 + u + w5 + v) | 0;
        u = ((a >>> 14) | (a << 18)) ^ a; u = ((u >>> 5) | (u << 27)) ^ a; x = e ^ f;
        t = (d + ((u >>> 6) | (u << 26)) + (c ^ (a & (b ^ c))) + 0x90befffa + w12) | 0;
        h = (h + t) | 0; u = ((e >>> 9) | (e << 23)) ^ e; u = ((u >>> 11) | (u << 21)) ^ e;
        d = (t + ((u >>> 2) | (u << 30)) + (f ^ (x & y))) | 0; y = x;
        u = ((w14 >>> 11) | (w14 << 21)) ^ w14; u = ((u >>> 7) | (u << 25)) ^ (w14 >>> 3);
        v = ((w11 >>> 2) | (w11 << 30)) ^ w11; v = ((v >>> 17) | (v << 15)) ^ (w11 >>> 10);
        w13 = (w13 + u + w6 + v) | 0;
        u = ((h >>> 14) | (h << 18)) ^ h; u = ((u >>> 5) | (u << 27)) ^ h; x = d ^ e;
        t = (c + ((u >>> 6) | (u << 26)) + (b ^ (h & (a ^ b))) + 0xa4506ceb + w13) | 0;
        g = (g + t) | 0; u = ((d >>> 9) | (d << 23)) ^ d; u = ((u >>> 11) | (u << 21)) ^ d;
        c = (t + ((u >>> 2) | (u << 30)) + (e ^ (x & y))) | 0; y = x;
        u = ((w15 >>> 11) | (w15 << 21)) ^ w15; u = ((u >>> 7) | (u << 25)) ^ (w15 >>> 3);
        v = ((w12 >>> 2) | (w12 << 30)) ^ w12; v = ((v >>> 17) | (v << 15)) ^ (w12 >>> 10);
        w14 = (w14 + u + w7 + v) | 0;
        u = ((g >>> 14) | (g << 18)) ^ g; u = ((u >>> 5) | (u << 27)) ^ g; x = c ^ d;
        t = (b + ((u >>> 6) | (u << 26)) + (a ^ (g & (h ^ a))) + 0xbef9a3f7 + w14) | 0;
        f = (f + t) | 0; u = ((c >>> 9) | (c << 23)) ^ c; u = ((u >>> 11) | (u << 21)) ^ c;
        b = (t + ((u >>> 2) | (u << 30)) + (d ^ (x & y))) | 0; y = x;
        u = ((w0 >>> 11) | (w0 << 21)) ^ w0; u = ((u >>> 7) | (u << 25)) ^ (w0 >>> 3);
        v = ((w13 >>> 2) | (w13 << 30)) ^ w13; v = ((v >>> 17) | (v << 15)) ^ (w13 >>> 10);
        w15 = (w15 + u + w8 + v) | 0;
        u = ((f >>> 14) | (f << 18)) ^ f; u = ((u >>> 5) | (u << 27)) ^ f; x = b ^ c;
        t = (a + ((u >>> 6) | (u << 26)) + (h ^ (f & (g ^ h))) + 0xc67178f2 + w15) | 0;
        e = (e + t) | 0; u = ((b >>> 9) | (b << 23)) ^ b; u = ((u >>> 11) | (u << 21)) ^ b;
        a = (t + ((u >>> 2) | (u << 30)) + (c ^ (x & y))) | 0; y = x;
        H[0] = (h0 + a) | 0; H[1] = (h1 + b) | 0; H[2] = (h2 + c) | 0; H[3] = (h3 + d) | 0;
        H[4] = (h4 + e) | 0; H[5] = (h5 + f) | 0; H[6] = (h6 + g) | 0; H[7] = (h7 + h) | 0;
      }
    }

    function update(bytes) {
      const n = bytes.length;
      let i = 0;
      total += n;
      if (used > 0) {
        const take = Math.min(64 - used, n);
        block.set(bytes.subarray(0, take), used);
        used += take;
        i = take;
        if (used < 64) return;
        compress(blockView, 0, 64);
        used = 0;
      }
      const end = n - ((n - i) % 64); // `% 64`, not `& ~63`: chunks may pass 2^31 bytes
      if (end > i) compress(new DataView(bytes.buffer, bytes.byteOffset, n), i, end);
      if (end < n) {
        block.set(bytes.subarray(end), 0);
        used = n - end;
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
      for (let i = 0; i < 8; i++) out += (H[i] >>> 0).toString(16).padStart(8, '0');
      return 'sha256:' + out;
    }

    return { update, hex };
  }

  // ---------------------------------------------------------------------------------
  // API: convenience and the exports
  // ---------------------------------------------------------------------------------

  function profileBytes(bytes, name, overrides, opts, chunkSize) {
    const p = createProfiler({ name, overrides, opts });
    if (!(bytes instanceof Uint8Array)) bytes = new Uint8Array(bytes);
    const step = chunkSize && chunkSize > 0 ? chunkSize : 1 << 20;
    for (let i = 0; i < bytes.length; i += step) p.push(bytes.subarray(i, i + step));
    const summary = p.finish();
    return analyze(summary, overrides, opts);
  }

  return {
    version: VERSION,
    InputError,
    createProfiler,
    mergeSummaries,
    unpackSummary,
    analyze,
    profileBytes,
    compare,
    parseReference,
    provenance,
    createSha256,
    resolveOptions,
    fromFlags,
    checkSettings,
    OPTIONS,
    isGzip,
    createGunzip,
    gzipReason,
    defaultParts,
    planParts,
    partOptions,
    // Exposed for tests and for the page's own use.
    fsum,
    ln,
    roundHalfUp,
    fmt,
    pct,
    pctNotZero,
    // SPEC 13.1 and the score of SPEC 5 (faircode/numerics.py, faircode/evidence.py)
    exp,
    normalUpper,
    wilsonAt,
    newcombe,
    logRatioInterval,
    katzInterval,
    scoreP,
    searchP,
    holm,
    // SPEC 21.5 (faircode/numerics.py)
    tUpper,
    tQuantile,
    chi2Upper,
    lnbetaHalf,
    welchDf,
    bigRatio,
    outcomeValue,
    balance,
    dimensionScore,
    overallScore,
    cmpCodePoint,
    tokenize,
    kindFromName,
    trimLabel,
    isMissing,
    missingMatcher,
    MISSING_TOKENS,
    cleanHeader,
    LABEL_SHOWN,
    capLabel,
    bounded,
    sniffDelimiter,
    sniffTied,
    notUtf8,
    SNIFF_ORDER,
    firstInvalidUtf8,
    pyFloatRepr,
  };
});
