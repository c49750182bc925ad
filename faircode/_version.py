"""faircode's version: its own module, so that any module can name it without importing
the package's public API (faircode/__init__.py imports the profiler, which would make a
loop of every module that reports the version: provenance, the audit packs)."""

__version__ = "0.1.0"
