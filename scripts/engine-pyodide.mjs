#!/usr/bin/env node
/*
 * The Python engine (faircode/) inside Pyodide (CPython compiled to WebAssembly), run by
 * Node 18+: the third parity engine (SPEC.md section 14, tests/parity/test_pyodide_parity.py).
 *
 *   node scripts/engine-pyodide.mjs profile FILE|- [faircode profile options]
 *   node scripts/engine-pyodide.mjs compare A B [faircode compare options]
 *       faircode's own command line inside Pyodide: `profile FILE --json` prints exactly
 *       what `faircode profile FILE --json` prints under CPython (same stderr line and
 *       exit code on an error).
 *
 *   node scripts/engine-pyodide.mjs profile FILE --opts JSON [--overrides JSON] [--no-provenance]
 *   node scripts/engine-pyodide.mjs compare A B --opts JSON [--opts-b JSON] [--overrides JSON]
 *       The JS bridge's JSON options (scripts/engine-js.js) instead of the CLI's flags;
 *       the output is the CLI's --json output (provenance block unless --no-provenance).
 *
 *   node scripts/engine-pyodide.mjs batch [JOBS.json|-]
 *       A JSON list of jobs in (a file, or standard input), a JSON list of answers out,
 *       all in one Pyodide start-up (which takes seconds). Jobs and answers are described
 *       in scripts/pyodide_driver.py.
 *
 *   --wheel PATH (any command) loads faircode from a built wheel (python -m pip wheel
 *   --no-deps .) instead of copying the source tree; FAIRCODE_PYODIDE_WHEEL does the same.
 *
 * Pyodide comes from node_modules (the pinned devDependency in package.json; `npm install`).
 * Only its core and standard library are loaded: no Pyodide package (numpy, pandas,
 * pyarrow) is installed, and any network request fails (fetch is replaced), so the run
 * shows that faircode's reference path needs nothing beyond the standard library.
 * The host directories of the files named are mounted at the same paths (NODEFS), and the
 * working directory too, so file names and error messages are those of CPython's run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PKG_DIR = '/faircode-pkg';

function usage() {
  process.stderr.write(
    'usage: engine-pyodide.mjs profile FILE|- [faircode profile options | --opts JSON ...]\n' +
    '       engine-pyodide.mjs compare A B [faircode compare options | --opts JSON ...]\n' +
    '       engine-pyodide.mjs batch [JOBS.json|-]\n' +
    '       (any command) --wheel PATH: load faircode from a built wheel\n');
  process.exit(2);
}

function writeAll(fd, buf) {
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      if (e.code === 'EPIPE') process.exit(141);
      throw e;
    }
  }
  return buf.length;
}

async function startPyodide() {
  let loadPyodide;
  try {
    ({ loadPyodide } = await import('pyodide'));
  } catch (e) {
    process.stderr.write('faircode: error: the pyodide npm package is not installed; run ' +
      '`npm install` in the project root (package.json pins it)\n');
    process.exit(2);
  }
  // Nothing may be fetched: the Python engine must run on Pyodide's core and stdlib.
  globalThis.fetch = async (url) => {
    throw new Error(`engine-pyodide: no network request is allowed (${url})`);
  };
  const py = await loadPyodide({ stdout: () => {}, stderr: () => {} });
  py.setStdout({ write: (buf) => writeAll(1, buf) });
  py.setStderr({ write: (buf) => writeAll(2, buf) });
  py.setStdin({ read: (buf) => {
    try {
      return fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === 'EOF') return 0;
      throw e;
    }
  } });
  return py;
}

/** Copy the faircode package (the source tree, or a wheel unpacked by Python's zipfile)
 * into Pyodide's file system and put it first on sys.path. */
function installFaircode(py, wheel) {
  py.FS.mkdirTree(PKG_DIR);
  if (wheel) {
    py.FS.writeFile('/tmp/faircode.whl', fs.readFileSync(wheel));
    py.runPython(`import zipfile; zipfile.ZipFile('/tmp/faircode.whl').extractall(${
      JSON.stringify(PKG_DIR)})`);
  } else {
    const copy = (host, inner) => {
      py.FS.mkdirTree(inner);
      for (const entry of fs.readdirSync(host, { withFileTypes: true })) {
        if (entry.name === '__pycache__' || entry.name.endsWith('.pyc')) continue;
        const h = path.join(host, entry.name);
        const p = `${inner}/${entry.name}`;
        const stat = fs.statSync(h); // a link (site/profiler-engine.js) as the wheel has it
        if (stat.isDirectory()) copy(h, p);
        else if (stat.isFile()) py.FS.writeFile(p, fs.readFileSync(h));
      }
    };
    copy(path.join(ROOT, 'faircode'), `${PKG_DIR}/faircode`);
    // the wheel ships site/ as faircode/site (pyproject.toml): the HTML report inlines
    // its views.js and style.css (faircode/htmlreport.py site_dir)
    copy(path.join(ROOT, 'site'), `${PKG_DIR}/faircode/site`);
  }
  const driver = fs.readFileSync(path.join(ROOT, 'scripts', 'pyodide_driver.py'));
  py.FS.writeFile(`${PKG_DIR}/pyodide_driver.py`, driver);
  // Only the copied package: '' (the working directory, the host's once mounted) is
  // taken off sys.path, so a checkout's faircode/ or *.egg-info there is never seen.
  py.runPython(`import sys; sys.path[:] = [${JSON.stringify(PKG_DIR)}] + [p for p in sys.path if p]`);
}

/** Mount the host directories holding `paths` (and the working directory) at the same
 * paths, outermost first; relative paths then resolve as on the host. */
function mountHostDirs(py, paths) {
  const dirs = new Set([process.cwd()]);
  for (const p of paths) {
    if (typeof p !== 'string' || p === '-') continue;
    const abs = path.resolve(p);
    let st = null;
    try {
      st = fs.statSync(abs);
    } catch (e) {
      continue; // Python reports the missing file itself
    }
    dirs.add(st.isDirectory() ? abs : path.dirname(abs));
  }
  const within = (d, root) => d === root || d.startsWith(root.endsWith('/') ? root : root + '/');
  const roots = [...dirs].filter((d) => d !== '/' && !/^\/(dev|proc|sys)(\/|$)/.test(d))
    .sort((a, b) => a.length - b.length);
  const mounted = [];
  for (const d of roots) {
    if (mounted.some((m) => within(d, m))) continue;
    py.FS.mkdirTree(d);
    py.mountNodeFS(d, d);
    mounted.push(d);
  }
  py.runPython(`import os; os.chdir(${JSON.stringify(process.cwd())})`);
}

/** Take the bridge's own options out of argv: --wheel, and the JSON ones. */
function splitArgs(args) {
  const out = { rest: [], wheel: process.env.FAIRCODE_PYODIDE_WHEEL || null, json: {} };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--wheel') out.wheel = args[++i];
    else if (a === '--opts') out.json.opts = JSON.parse(args[++i]);
    else if (a === '--opts-b') out.json.opts_b = JSON.parse(args[++i]);
    else if (a === '--overrides') out.json.overrides = JSON.parse(args[++i]);
    else out.rest.push(a);
  }
  if (out.wheel === undefined) usage();
  return out;
}

function readJobs(source) {
  const text = !source || source === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(source, 'utf8');
  const jobs = JSON.parse(text);
  if (!Array.isArray(jobs)) throw new Error('batch: the input must be a JSON list of jobs');
  return jobs;
}

function jobPaths(jobs) {
  const out = [];
  const visit = (j) => {
    if (!j || typeof j !== 'object') return;
    if (typeof j.path === 'string') out.push(j.path);
    if (Array.isArray(j.argv)) out.push(...j.argv);
    visit(j.a);
    visit(j.b);
  };
  jobs.forEach(visit);
  return out;
}

async function main() {
  const [cmd, ...args] = process.argv.slice(2);
  if (!['profile', 'compare', 'batch'].includes(cmd)) usage();
  const a = splitArgs(args);
  if (cmd === 'batch') {
    if (a.rest.length > 1 || Object.keys(a.json).length) usage();
    const jobs = readJobs(a.rest[0]);
    const py = await startPyodide();
    installFaircode(py, a.wheel);
    mountHostDirs(py, jobPaths(jobs));
    const driver = py.pyimport('pyodide_driver');
    const out = driver.run_jobs(JSON.stringify(jobs));
    writeAll(1, Buffer.from(out + '\n'));
    return 0;
  }
  const py = await startPyodide();
  installFaircode(py, a.wheel);
  mountHostDirs(py, a.rest);
  const driver = py.pyimport('pyodide_driver');
  if (Object.keys(a.json).length) {
    const nFiles = cmd === 'profile' ? 1 : 2;
    const files = a.rest.filter((x) => x !== '--no-provenance' && x !== '--json');
    if (files.length !== nFiles) usage();
    return driver.run_api(JSON.stringify(Object.assign({ files,
      no_provenance: a.rest.includes('--no-provenance') }, a.json)));
  }
  return driver.run_cli(py.toPy([cmd, ...a.rest]));
}

main().then((code) => process.exit(code), (e) => {
  process.stderr.write(`faircode: internal error: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
