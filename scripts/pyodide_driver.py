"""The Python side of scripts/engine-pyodide.mjs: runs inside Pyodide, standard library only.

The bridge copies the faircode package into Pyodide's file system, mounts the host
directories of the files it is given at the same paths, and then calls these functions:

  run_cli(argv)        faircode's own command line (`faircode.cli.main`), so
                       `profile FILE --json` prints exactly what CPython prints.
  run_api(argv_json)   profile/compare with JSON options and overrides (the JS bridge's
                       `--opts`/`--overrides`), printed as `faircode profile --json` does.
  run_jobs(jobs_json)  a JSON list of jobs in, a JSON list of answers out: one Pyodide
                       start-up serves many files (tests/parity/test_pyodide_parity.py).

A job is {"op": "profile", "path" | "bytes_b64", "name", "opts", "overrides" (an object
or [column, kind] pairs), "block_size"}, {"op": "compare", "a": {...}, "b": {...},
"opts", "overrides"}, {"op": "cli", "argv": [...]} or {"op": "runtime"}. Its answer is
{"result": ...} or {"error": message} (an InputError; "internal": true with a traceback
on any other exception); {"code", "stdout", "stderr"} for "cli"; for "runtime", where
the jobs ran (`runtime()`).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import sys
import traceback


def run_cli(argv: list[str]) -> int:
    from faircode.cli import main

    try:
        return main(list(argv))
    except SystemExit as exc:  # argparse's --help and --version
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)


def _overrides(value) -> dict:
    if isinstance(value, list):  # [column, kind] pairs keep integer-like names in order
        return {k: v for k, v in value}
    return dict(value or {})


def _source(job: dict):
    if "path" in job:
        return job["path"], job.get("name", job["path"])
    return io.BytesIO(base64.b64decode(job.get("bytes_b64", ""))), job.get("name", "<stdin>")


def _profile(job: dict, opts=None, overrides=None) -> dict:
    import faircode

    source, name = _source(job)
    kwargs = {"name": name}
    if job.get("block_size"):
        kwargs["block_size"] = int(job["block_size"])
    return faircode.profile(
        source,
        overrides=_overrides(job.get("overrides") if overrides is None else overrides),
        opts=job.get("opts") or opts or {},
        **kwargs,
    )


def _job(job: dict) -> dict:
    import faircode

    op = job.get("op", "profile")
    if op == "runtime":
        return {"result": runtime()}
    if op == "cli":
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run_cli(job["argv"])
        return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
    from faircode.options import spelling  # lazy: faircode is copied in at run time

    try:
        with spelling("flag"):  # answers as the CLI's and the JS bridge's (SPEC 0.6)
            result = _compare_or_profile(op, job)
    except faircode.InputError as exc:
        return {"error": str(exc)}
    except Exception:
        return {"error": traceback.format_exc(), "internal": True}
    return {"result": result}


def _compare_or_profile(op: str, job: dict) -> dict:
    import faircode

    if op == "profile":
        return _profile(job)
    if op == "compare":
        opts, overrides = job.get("opts") or {}, job.get("overrides")
        a = _profile(job["a"], opts, overrides or [])
        b = _profile(job["b"], opts, overrides or [])
        return faircode.compare(a, b, opts=opts)
    raise ValueError(f"unknown op {op!r}")


def runtime() -> dict:
    """Where the jobs ran: the platform, the faircode loaded (and whether from a wheel:
    only a wheel has the dist-info that importlib.metadata reads), and the modules
    imported that are neither the standard library's nor faircode's, the bridge's or
    Pyodide's own."""
    import importlib.metadata

    import faircode

    try:
        distribution = importlib.metadata.version("faircode")
    except importlib.metadata.PackageNotFoundError:
        distribution = None
    own = {"faircode", "pyodide_driver", "pyodide", "_pyodide", "_pyodide_core", "js"}
    own |= {"pyodide_js", "__main__"}
    top = {name.partition(".")[0] for name in list(sys.modules)}
    return {
        "platform": sys.platform,
        "python": sys.version,
        "faircode": faircode.__version__,
        "faircode_file": faircode.__file__,
        "distribution": distribution,
        "third_party_modules": sorted(top - set(sys.stdlib_module_names) - own),
    }


def run_jobs(jobs_json: str) -> str:
    return json.dumps([_job(job) for job in json.loads(jobs_json)])


def run_api(request_json: str) -> int:
    """`profile FILE` / `compare A B` with the JS bridge's JSON options, printed as the CLI's
    `--json` (provenance block included unless "no_provenance")."""
    from faircode.cli import _error
    from faircode.compare import compare
    from faircode.errors import FaircodeError
    from faircode.options import resolve
    from faircode.profiler import profile
    from faircode.provenance import StreamHash, provenance
    from faircode.renderers import render_as

    req = json.loads(request_json)
    opts, overrides = req.get("opts") or {}, _overrides(req.get("overrides"))
    with_provenance = not req.get("no_provenance")
    try:
        hashes, results = {}, []
        files = req["files"]
        for i, path in enumerate(files):
            key = "dataset_hash" if len(files) == 1 else f"dataset_hash_{'ab'[i]}"
            hasher = StreamHash()
            o = (req.get("opts_b") or opts) if i == 1 else opts
            results.append(profile(path, overrides=overrides, opts=o, name=path, on_bytes=hasher))
            hashes[key] = hasher.digest()
        if len(files) == 1:
            result, command, context = results[0], "profile", {"name": files[0]}
        else:
            result = compare(results[0], results[1], opts=opts)
            command, context = "compare", {"name_a": files[0], "name_b": files[1]}
        if with_provenance:
            result["provenance"] = provenance(
                params=resolve(opts).params(), overrides=overrides, dataset_hashes=hashes
            )
        sys.stdout.write(render_as(command, "json", result, **context))
        sys.stdout.flush()
    except FaircodeError as err:
        _error(str(err))
        return err.exit_code
    except OSError as err:
        where = f"{err.filename}: " if err.filename is not None else ""
        _error(f"{where}{err.strerror or err}")
        return 2
    return 0
