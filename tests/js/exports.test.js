'use strict';
// The engine's export surface: a name added or removed is a decision, made here.
const test = require('node:test');
const assert = require('node:assert/strict');
const { E } = require('./helpers');

const EXPORTS = [
  // API (SPEC sections 0-10)
  'version', 'InputError', 'createProfiler', 'mergeSummaries', 'unpackSummary', 'analyze',
  'profileBytes', 'compare', 'parseReference', 'provenance', 'createSha256', 'resolveOptions',
  // SPEC 7's option table (faircode.options.OPTIONS): the page makes its controls from it
  'OPTIONS',
  // SPEC 7: the page reads its controls' texts as the CLI reads its flags (fromFlags), and
  // says what the summary it keeps can tell of a change before it reads again
  'fromFlags', 'checkSettings',
  // parts (SPEC 0.8)
  'defaultParts', 'planParts', 'partOptions',
  // gzip framing (SPEC 0.8): the page and the bridge inflate, the engine frames
  'isGzip', 'createGunzip', 'gzipReason',
  // labels in outputs (SPEC 0.9 LABEL_SHOWN): the page bounds what it draws and exports
  'LABEL_SHOWN', 'capLabel', 'bounded',
  // for tests and the page's own use
  'fsum', 'ln', 'roundHalfUp', 'fmt', 'pct', 'pctNotZero', 'cmpCodePoint', 'tokenize', 'kindFromName',
  'trimLabel', 'isMissing', 'missingMatcher', 'MISSING_TOKENS', 'cleanHeader',
  'sniffDelimiter', 'sniffTied', 'notUtf8', 'firstInvalidUtf8', 'pyFloatRepr',
  // the page's Delimiter menu names what the sniffer tries (SPEC 0.1)
  'SNIFF_ORDER',
  // the evidence functions of SPEC 13.1 and the score of SPEC 5 (tests/js/evidence.test.js)
  'exp', 'normalUpper', 'wilsonAt', 'newcombe', 'logRatioInterval', 'katzInterval', 'scoreP',
  'searchP', 'holm',
  'balance', 'dimensionScore', 'overallScore',
  // the numeric-outcome functions of SPEC 21.5 (tests/js/outcome.test.js)
  'tUpper', 'tQuantile', 'chi2Upper', 'lnbetaHalf', 'welchDf', 'bigRatio', 'outcomeValue',
  // the page builds its workers from this function's source (file:// pages too)
  'factory',
];

test('the engine exports exactly these names', () => {
  assert.deepEqual(Object.keys(E).sort(), EXPORTS.slice().sort());
});

test('a profiler has push, finish, finishPacked and layout', () => {
  const p = E.createProfiler({ name: 't' });
  for (const m of ['push', 'finish', 'finishPacked', 'layout']) assert.equal(typeof p[m], 'function', m);
});
