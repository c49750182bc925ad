"""Where the Python engine's time goes on one file: CPU time per phase and per step.

    PYTHONPATH=. python benchmarks/where.py FILE.csv
        [--mode default|nomissing|readall|parseonly] [--steps] [--threads]

One process, as `faircode profile FILE --json --no-provenance` runs it: the imports,
`summarize` (the fast path: part threads parse with Arrow, this thread counts), the
analysis and the JSON. Times are CPU seconds (process-wide, and `time.thread_time` of
the counting thread), which other jobs on the machine move less than wall time.

Modes: `default` (missing data by group on), `nomissing` (`--no-missing-by-group`),
`readall` (counts as `nomissing` does, but Arrow reads and converts every column the
default run reads: the columns read only for their missing cells reach the counting
thread and are left there, so this is the default run with its missing data by group
counted for free), `parseonly` (Arrow reads and converts every column the default run
reads, the batches are queued and combined, nothing is counted:
`ArrowSummaryBuilder.add_arrays` only adds the rows; no analysis, no JSON). `--steps`
also times the counting thread's steps per column (each wrapped method's own thread
time, nested calls included in their caller).
`--threads` also gives each thread's CPU time (Linux: /proc/self/task, read every 20 ms
and at the end) under its Python name: `MainThread` counts, `faircode-csv-K` are the
part threads (Arrow's reader and converter), `faircode-bytes` feeds the SHA-256 of
provenance; threads Python did not start (Arrow's and the allocator's pools) are
`native`.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(stat: str) -> float:
    """utime + stime of a /proc stat line (a process's or a thread's), in seconds."""
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class ThreadClock:
    """CPU seconds per thread of this process, sampled until stop() (a thread's time is
    gone from /proc once it ends, so the last sample before its end is kept)."""

    def __init__(self) -> None:
        self.cpu: dict[int, float] = {}
        self.names: dict[int, str] = {}
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._run, daemon=True, name="where-sampler")
        self.sampler.start()

    def _sample(self) -> None:
        for t in threading.enumerate():
            if t.native_id is not None:
                self.names[t.native_id] = t.name
        for tid in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{tid}/stat") as fh:
                    stat = fh.read()
            except OSError:  # it ended meanwhile
                continue
            self.cpu[int(tid)] = cpu_seconds(stat)

    def _run(self) -> None:
        while not self.done.wait(0.02):
            self._sample()

    def stop(self) -> collections.Counter:
        self.done.set()
        self.sampler.join()
        self._sample()
        by_name: collections.Counter = collections.Counter()
        for tid, secs in self.cpu.items():
            name = self.names.get(tid, "native")
            if name != "where-sampler":
                by_name[name] += secs
        return by_name


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument(
        "--mode", choices=("default", "nomissing", "readall", "parseonly"), default="default"
    )
    ap.add_argument("--steps", action="store_true")
    ap.add_argument("--threads", action="store_true")
    args = ap.parse_args(argv)
    clock = ThreadClock() if args.threads else None
    w0, c0 = time.perf_counter(), time.process_time()
    import numpy  # noqa: F401  (imported by the fast path: counted with the imports)
    import pyarrow.csv  # noqa: F401

    import faircode
    from faircode import columnar, profiler
    from faircode.renderers import render_as

    c1 = time.process_time()
    steps: collections.Counter = collections.Counter()
    builder = columnar.ArrowSummaryBuilder
    if args.mode == "parseonly":

        def add_arrays(self, arrays, n):  # noqa: ANN001
            self.n_rows += n

        builder.add_arrays = add_arrays
    if args.mode == "readall":

        def needs_array(self, i):  # noqa: ANN001, ANN202
            # What the default run reads (ArrowSummaryBuilder.needs_array with by_group)
            counted = self.state[i] is not None or i in self.out_all
            return counted or (i < self.n_header and self.roles[i] is not None)

        builder.needs_array = needs_array
    if args.steps and args.mode != "parseonly":

        def timed(name: str, fn, per_column: bool = False):  # noqa: ANN202
            def wrapper(self, *a, **k):  # noqa: ANN001, ANN202
                t = time.thread_time()
                try:
                    return fn(self, *a, **k)
                finally:
                    key = f"{name}[{self.columns[a[0]]}]" if per_column else name
                    steps[key] += time.thread_time() - t

            return wrapper

        for name in ("_encode", "_learn", "_uncounted_mask"):
            setattr(builder, name, timed(name, getattr(builder, name), per_column=True))
        for name in ("add_arrays", "_count_tables", "_count_pairs", "_prune", "finish"):
            setattr(builder, name, timed(name, getattr(builder, name)))
    opts = {"missing_by_group": args.mode not in ("nomissing", "readall")}
    m0 = time.thread_time()
    summary, checked, options = faircode.summarize(args.file, opts=opts)
    counting = time.thread_time() - m0
    c2 = time.process_time()
    text = ""
    if args.mode != "parseonly":
        result = profiler.analyze_read(summary, checked, options)
        c3 = time.process_time()
        text = render_as("profile", "json", profiler.ProfileResult(result, name="x"), name="x")
    else:
        c3 = c2
    w4, c4 = time.perf_counter(), time.process_time()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{args.mode}: imports {c1 - c0:.2f} s CPU; summarize {c2 - c1:.2f} s CPU "
        f"(counting thread {counting:.2f}, part threads and the rest {c2 - c1 - counting:.2f}); "
        f"analysis {c3 - c2:.2f}; JSON {c4 - c3:.2f} ({len(text) / 1e6:.1f} MB); "
        f"total {c4 - c0:.2f} s CPU, {w4 - w0:.2f} s wall; peak RSS {rss:.0f} MB"
    )
    if clock is not None:
        print("CPU s by thread:")
        for name, secs in clock.stop().most_common():
            print(f"  {secs:6.2f}  {name}")
    if steps:
        by_step: collections.Counter = collections.Counter()
        for key, secs in steps.items():
            by_step[key.split("[")[0]] += secs
        print("counting thread, by step (CPU s):")
        for key, secs in by_step.most_common():
            print(f"  {secs:6.2f}  {key}")
        print("  per column:")
        for key, secs in steps.most_common():
            if "[" in key:
                print(f"  {secs:6.2f}  {key}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
