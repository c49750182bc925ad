"""The prediction store: SQLite by default, PostgreSQL by URL (SPEC section 15).

One :class:`Store` wraps a DB-API connection and hides the two dialects' differences
(placeholders, DDL types, bulk loading, write locks). The schema is created and
upgraded by numbered migrations recorded in ``schema_version``; opening a store applies
the missing ones in one transaction.

Where the store is: ``--db URL|PATH``, else ``$FAIRCODE_DB``, else
``.faircode/monitor.db`` under the working directory. ``postgresql://...`` (or
``postgres://``) selects PostgreSQL through psycopg 3, imported only then (extra
``postgres``); ``sqlite:///path`` or any other text without a ``scheme://`` is a SQLite
file path. Another scheme (``mysql://``) and an empty ``--db`` are refused. A command
that writes creates a missing SQLite store (and its directory); one that only reads
(:func:`open_store` with ``create=False``) says there is no store there instead.

A SQLite file that the process cannot write (the file or its directory is read-only:
read-only media, another user's store) is opened for reading only (``mode=ro``, else
``immutable=1``): reports work, and a command that writes says it cannot. A SQLite file
holding another application's tables is refused unless it is empty.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..options import spelled
from .errors import MonitorInputError

DEFAULT_DB = Path(".faircode") / "monitor.db"
#: Attribute slots per model: predictions carry at most this many slicing attributes.
ATTR_SLOTS = 8
SLOT_COLUMNS = tuple(f"a{i}" for i in range(ATTR_SLOTS))
#: Additive statistics per slice_stats row: integer counts, then float sums.
STAT_COUNTS = (
    "n",
    "n_selected",
    "n_nonbinary_pred",
    "n_labelled",
    "n_nonbinary_label",
    "n_correct",
    "n_label_pos",
    "n_tp",
    "n_fp",
    "n_pred_pos_labelled",
)
STAT_SUMS = ("sum_abs_error", "sum_sq_error", "sum_pred_labelled", "sum_label")
#: Sample-weight sums per slice_stats row (migration 3; SPEC 15.1): ``w_<count>`` for
#: every count of a weighted report, ``w2_<count>`` for each metric's count, and the
#: weighted regression sums: the keys ``counts.counts_from_rows`` gives with weights.
#: Kept for a weighted model only; an unweighted model's stay 0 and are never read.
#: Migration 3 adds exactly these columns: a new sum needs a migration of its own.
STAT_WEIGHTED = (
    "w_n",
    "w2_n",
    "w_n_selected",
    "w_n_labelled",
    "w2_n_labelled",
    "w_n_correct",
    "w_n_label_pos",
    "w2_n_label_pos",
    "w_n_label_neg",
    "w2_n_label_neg",
    "w_n_tp",
    "w_n_fp",
    "w_n_fn",
    "w_n_tn",
    "w_n_pred_pos_labelled",
    "w2_n_pred_pos_labelled",
    "w_n_pred_neg_labelled",
    "w2_n_pred_neg_labelled",
    "w_sum_abs_error",
    "w_sum_sq_error",
    "w_sum_pred_labelled",
    "w_sum_label",
)
#: The integers a store's INTEGER (SQLite) or BIGINT (PostgreSQL) holds: an id outside
#: them is no row's, and is not sent to the database (which would raise OverflowError).
INT_RANGE = range(-(2**63), 2**63)
#: How long a writer waits for another writer's lock before giving up (SQLite).
BUSY_TIMEOUT_S = 120.0


class StoreError(MonitorInputError):
    """A store problem the user can act on (one line, exit 2)."""


def _ddl(dialect: str) -> dict[str, str]:
    if dialect == "postgresql":
        return {"REAL": "DOUBLE PRECISION", "INT": "BIGINT", "ROWID": ""}
    # WITHOUT ROWID: the predictions are stored in their primary-key B-tree, one
    # B-tree write per row instead of two
    return {"REAL": "REAL", "INT": "INTEGER", "ROWID": " WITHOUT ROWID"}


_SLOT_DDL = ", ".join(f"{c} {{INT}}" for c in SLOT_COLUMNS)
#: The predictions' columns in the order migrations 1 to 3 made them.
_PREDICTION_COLUMNS = ", ".join(
    [
        "model, request_id, version, at, day, pred, score, label, labelled_at",
        *SLOT_COLUMNS,
        "batch, label_batch, weight",
    ]
)

#: (version, statements). Statements use {REAL}/{INT} for the dialect's types; a
#: statement starting with "sqlite:" or "postgresql:" runs on that dialect only.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            "CREATE TABLE models (key TEXT PRIMARY KEY, name TEXT NOT NULL)",
            "CREATE TABLE attributes (model TEXT NOT NULL, name TEXT NOT NULL, "
            "slot {INT} NOT NULL, PRIMARY KEY (model, name), UNIQUE (model, slot))",
            "CREATE TABLE attr_values (model TEXT NOT NULL, slot {INT} NOT NULL, "
            "code {INT} NOT NULL, value TEXT NOT NULL, PRIMARY KEY (model, slot, code), "
            "UNIQUE (model, slot, value))",
            "CREATE TABLE batches (id {INT} PRIMARY KEY, model TEXT NOT NULL, "
            "kind TEXT NOT NULL, digest TEXT NOT NULL, version TEXT, rows_in {INT} NOT NULL, "
            "rows_new {INT} NOT NULL, meta TEXT NOT NULL, actor TEXT NOT NULL, "
            "at {INT} NOT NULL, UNIQUE (model, kind, digest))",
            "CREATE TABLE predictions (model TEXT NOT NULL, request_id TEXT NOT NULL, "
            "version TEXT NOT NULL, at {INT} NOT NULL, day {INT} NOT NULL, "
            "pred {REAL} NOT NULL, score {REAL}, label {REAL}, labelled_at {INT}, "
            f"{_SLOT_DDL}, batch {{INT}} NOT NULL, PRIMARY KEY (model, request_id))"
            "{ROWID}",
            # per (model, version, day, attribute codes) sufficient statistics, kept in
            # step with predictions and labels in the same transaction; reports read
            # this instead of every prediction (-1 marks a missing or unused attribute)
            "CREATE TABLE slice_stats (model TEXT NOT NULL, version TEXT NOT NULL, "
            "day {INT} NOT NULL, "
            + ", ".join(f"{c} {{INT}} NOT NULL" for c in SLOT_COLUMNS)
            + ", "
            + ", ".join(f"{c} {{INT}} NOT NULL" for c in STAT_COUNTS)
            + ", "
            + ", ".join(f"{c} {{REAL}} NOT NULL" for c in STAT_SUMS)
            + ", PRIMARY KEY (model, version, day, "
            + ", ".join(SLOT_COLUMNS)
            + "))",
            "CREATE TABLE orphan_labels (model TEXT NOT NULL, request_id TEXT NOT NULL, "
            "label {REAL} NOT NULL, at {INT} NOT NULL, batch {INT} NOT NULL, "
            "PRIMARY KEY (model, request_id))",
            "CREATE TABLE registry_overrides (model TEXT PRIMARY KEY, config TEXT NOT NULL, "
            "actor TEXT NOT NULL, at TEXT NOT NULL, reason TEXT)",
            "CREATE TABLE audit (id {INT} PRIMARY KEY, at TEXT NOT NULL, actor TEXT NOT NULL, "
            "event TEXT NOT NULL, model TEXT NOT NULL, version TEXT, details TEXT NOT NULL, "
            "prev_hash TEXT NOT NULL, hash TEXT NOT NULL)",
            "CREATE INDEX audit_by_model ON audit (model, id)",
            # append-only: the database itself refuses to change or remove an audit row
            "sqlite:CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit "
            "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END",
            "sqlite:CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit "
            "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END",
            "postgresql:CREATE FUNCTION faircode_audit_append_only() RETURNS trigger "
            "LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the audit log is append-only'; "
            "END $$",
            "postgresql:CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit "
            "FOR EACH ROW EXECUTE FUNCTION faircode_audit_append_only()",
        ],
    ),
    (
        2,
        [
            # the label batch that wrote a prediction's label (NULL: no label, or a label
            # stored before this migration), so a label batch can be removed (SPEC 15.3)
            "ALTER TABLE predictions ADD COLUMN label_batch {INT}",
        ],
    ),
    (
        3,
        [
            # each prediction's sample weight (NULL: logged without --weight), and the
            # weighted sums of SPEC 15.1 per cell (0 for an unweighted model)
            "ALTER TABLE predictions ADD COLUMN weight {REAL}",
            *(
                f"ALTER TABLE slice_stats ADD COLUMN {c} {{REAL}} NOT NULL DEFAULT 0"
                for c in STAT_WEIGHTED
            ),
        ],
    ),
    (
        4,
        [
            # service-level objectives per model (SPEC 15.10): the fraction of declared
            # attributes within threshold that must hold, over a window of days
            "CREATE TABLE slos (model TEXT NOT NULL, name TEXT NOT NULL, target {REAL} NOT NULL, "
            "window_days {INT} NOT NULL, gate {INT} NOT NULL, actor TEXT NOT NULL, "
            "at TEXT NOT NULL, reason TEXT, PRIMARY KEY (model, name))",
            # each SLI taken by `slo ingest`, at its time (epoch seconds), over its window
            "CREATE TABLE slo_readings (id {INT} PRIMARY KEY, model TEXT NOT NULL, "
            "name TEXT NOT NULL, at {INT} NOT NULL, version TEXT, since_day TEXT NOT NULL, "
            "until_day TEXT NOT NULL, good {INT} NOT NULL, total {INT} NOT NULL, "
            "details TEXT NOT NULL, actor TEXT NOT NULL)",
            "CREATE INDEX slo_readings_by_slo ON slo_readings (model, name, at)",
            # the breaches `watch` has alerted on and that have not cleared (SPEC 15.11)
            "CREATE TABLE alert_state (model TEXT NOT NULL, version TEXT NOT NULL, "
            "attribute TEXT NOT NULL, metric TEXT NOT NULL, first_at TEXT NOT NULL, "
            "audit_id {INT} NOT NULL, PRIMARY KEY (model, version, attribute, metric))",
        ],
    ),
    (
        5,
        [
            # a prediction is (model, version, request id): a version scored on the same
            # requests as another (a shadow, a challenger) keeps its own predictions, and
            # a label joins each of them (SPEC 15.3); request id before version keeps a
            # label's lookup by (model, request id) a prefix of the key. SQLite cannot
            # change a primary key in place, so its table is copied.
            "sqlite:CREATE TABLE predictions_v5 (model TEXT NOT NULL, request_id TEXT NOT NULL, "
            "version TEXT NOT NULL, at {INT} NOT NULL, day {INT} NOT NULL, "
            "pred {REAL} NOT NULL, score {REAL}, label {REAL}, labelled_at {INT}, "
            f"{_SLOT_DDL}, batch {{INT}} NOT NULL, label_batch {{INT}}, weight {{REAL}}, "
            "PRIMARY KEY (model, request_id, version)){ROWID}",
            f"sqlite:INSERT INTO predictions_v5 SELECT {_PREDICTION_COLUMNS} FROM predictions",
            "sqlite:DROP TABLE predictions",
            "sqlite:ALTER TABLE predictions_v5 RENAME TO predictions",
            "postgresql:ALTER TABLE predictions DROP CONSTRAINT predictions_pkey",
            "postgresql:ALTER TABLE predictions ADD PRIMARY KEY (model, request_id, version)",
        ],
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
#: The tables every faircode store has (schema 1); a SQLite file with other tables and
#: without these belongs to another application.
STORE_TABLES = frozenset({"schema_version", "predictions", "batches", "audit"})


#: What a location may start with: PostgreSQL's URLs and SQLite's; any other text with
#: a ``scheme://`` is refused, never taken as a relative path (``./mysql:/host/db``).
SCHEMES = ("postgresql://", "postgres://", "sqlite:///")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+)://")


def resolve_location(db: str | None) -> str:
    """The store location from ``--db``, ``$FAIRCODE_DB`` or the default path."""
    if db is not None:
        if not db.strip():
            raise StoreError(
                f"{spelled('--db')} is empty; give a SQLite file path or a postgresql:// URL "
                f"(without {spelled('--db')}: $FAIRCODE_DB, else {DEFAULT_DB})"
            )
        return _known_scheme(db, spelled("--db"))
    env = os.environ.get("FAIRCODE_DB")
    if env:
        return _known_scheme(env, "FAIRCODE_DB")
    return str(DEFAULT_DB)


def _known_scheme(location: str, source: str) -> str:
    """``location`` when it is a SQLite path or a URL of a known scheme; else the error
    naming the scheme (only: the rest may hold a password)."""
    m = _SCHEME.match(location)
    if m is None or location.startswith(SCHEMES):
        return location
    scheme = m.group(1)
    what = "a SQLite URL has three slashes" if scheme == "sqlite" else "unknown scheme"
    raise StoreError(
        f"{source}: {what} ('{scheme}://'); a store is a SQLite file path, "
        "sqlite:///PATH or a postgresql:// (postgres://) URL"
    )


def _is_postgres(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


def describe(location: str) -> str:
    """``location`` without a password, for messages."""
    if _is_postgres(location) and "@" in location:
        scheme, rest = location.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}@{host}"
    return location


class Store:
    """An open prediction store. Use :func:`open_store`; close with :meth:`close`."""

    def __init__(self, location: str, create: bool = True) -> None:
        self.location = location
        self._in_tx = False
        #: opened for reading only (SQLite file or directory not writable); see _writable
        self.read_only: str | None = None
        #: the schema version of the open store (older only when read-only)
        self.version = SCHEMA_VERSION
        if _is_postgres(location):
            self.dialect = "postgresql"
            try:
                import psycopg  # lazy: optional extra 'postgres'
            except ImportError:
                raise StoreError(
                    "a postgresql:// store needs the psycopg driver; install it with: "
                    "pip install 'faircode[postgres]'"
                ) from None
            try:
                self.conn: Any = psycopg.connect(location, autocommit=True)
            except psycopg.Error as exc:
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise StoreError(
                    f"cannot connect to {describe(location)}: {first}; check {spelled('--db')} / "
                    "FAIRCODE_DB"
                ) from None
        else:
            self.dialect = "sqlite"
            path = location[len("sqlite:///") :] if location.startswith("sqlite:///") else location
            p = Path(path)
            if not create and not p.exists():
                raise StoreError(
                    f"no store at {path}: nothing was logged there; check {spelled('--db')} / "
                    "FAIRCODE_DB, or log predictions first with 'faircode fairness log'"
                )
            if p.exists() and not _writable(p):
                self.conn, self.read_only = _open_read_only(p, path)
            else:
                self.conn = self._open_sqlite(p, path)
        if self.read_only:
            self._check_readable()
        else:
            self._migrate()

    def _open_sqlite(self, p: Path, path: str) -> Any:
        conn = None
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                str(p), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            self.conn = conn
            # before anything is written (switching to WAL rewrites the file header)
            _refuse_foreign(conn, path)
            # WAL lets readers work while one process writes; the busy timeout makes
            # a second writer wait for the lock instead of failing at once.
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            # The first switch to WAL takes the database's exclusive lock without the
            # busy handler: processes opening a new store at once retry it.
            self._retry_locked("PRAGMA journal_mode = WAL")
            _tune(conn)
        except (OSError, sqlite3.Error) as exc:
            if conn is not None:
                conn.close()
            raise StoreError(
                f"cannot open the store {path}: {exc}; check {spelled('--db')} / FAIRCODE_DB"
            ) from None
        except StoreError:
            if conn is not None:
                conn.close()
            raise
        return conn

    # -- SQL helpers -------------------------------------------------------------
    def sql(self, text: str) -> str:
        return text.replace("?", "%s") if self.dialect == "postgresql" else text

    def execute(self, text: str, params: Sequence[Any] = ()) -> Any:
        cur = self.conn.cursor()
        cur.execute(self.sql(text), tuple(params))
        return cur

    def executemany(self, text: str, rows: Any) -> int:
        cur = self.conn.cursor()
        cur.executemany(self.sql(text), rows)
        return cur.rowcount

    def query(self, text: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self.execute(text, params).fetchall())

    def one(self, text: str, params: Sequence[Any] = ()) -> Any:
        row = self.execute(text, params).fetchone()
        return None if row is None else row[0]

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """One write transaction; all or nothing. SQLite takes the write lock up front."""
        if self._in_tx:
            yield self
            return
        if self.read_only:
            raise StoreError(
                f"the store {self.location} is read-only ({self.read_only}); this command "
                "writes to it: run it where the store is writable"
            )
        self._in_tx = True
        try:
            if self.dialect == "sqlite":
                self._begin_sqlite()
                try:
                    yield self
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
                self.conn.execute("COMMIT")
            else:
                with self.conn.transaction():
                    yield self
        finally:
            self._in_tx = False

    def _begin_sqlite(self) -> None:
        # busy_timeout covers most waits; BEGIN IMMEDIATE can still report "locked"
        # right away while a WAL checkpoint runs, so retry until the same deadline.
        try:
            self._retry_locked("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"the store {self.location} is busy: {exc}") from None

    def _retry_locked(self, statement: str) -> None:
        """Run a SQLite statement, again every 50 ms while it reports "locked" (a lock
        the busy handler does not wait for), for up to BUSY_TIMEOUT_S."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.conn.execute(statement)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def lock(self, name: str) -> None:
        """Serialise writers of ``name`` inside a transaction (the audit chain)."""
        if self.dialect == "postgresql":
            self.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (name,))
        # SQLite: BEGIN IMMEDIATE already holds the database's single write lock.

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # closing is best effort
            pass

    # -- schema ------------------------------------------------------------------
    def _migrate(self) -> None:
        with self.transaction():
            self.lock("faircode-schema")
            self.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER NOT NULL, applied_at TEXT NOT NULL)"
            )
            current = self.one("SELECT MAX(version) FROM schema_version") or 0
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"the store {describe(self.location)} has schema version {current}, newer "
                    f"than this faircode ({SCHEMA_VERSION}); upgrade faircode"
                )
            types = _ddl(self.dialect)
            for version, statements in MIGRATIONS:
                if version <= current:
                    continue
                for stmt in statements:
                    for prefix in ("sqlite:", "postgresql:"):
                        if stmt.startswith(prefix):
                            if prefix[:-1] != self.dialect:
                                stmt = ""
                            else:
                                stmt = stmt[len(prefix) :]
                    if stmt:
                        self.execute(stmt.format(**types) if "{" in stmt else stmt)
                self.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                    (version, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())),
                )

    def _check_readable(self) -> None:
        """A read-only store: faircode's, not newer than the code; no migration runs
        (an older schema is read as it is)."""
        tables = _tables(self.conn)
        if not tables:
            raise StoreError(
                f"the store {self.location} is empty and read-only ({self.read_only}); "
                f"nothing to read: check {spelled('--db')} / FAIRCODE_DB"
            )
        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"the store {describe(self.location)} has schema version {current}, newer "
                f"than this faircode ({SCHEMA_VERSION}); upgrade faircode"
            )
        self.version = current

    def schema_version(self) -> int:
        return int(self.one("SELECT MAX(version) FROM schema_version") or 0)


def _writable(p: Path) -> bool:
    """Whether this process may write the SQLite file ``p`` and create its journal
    files (``-wal``, ``-shm``) next to it."""
    parent = p.parent if str(p.parent) else Path(".")
    return os.access(p, os.W_OK) and os.access(parent, os.W_OK)


def _tune(conn: Any) -> None:
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA threads = 2")  # the sorter of a large GROUP BY


def _tables(conn: Any) -> set[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    return {str(r[0]) for r in rows}


def _refuse_foreign(conn: Any, path: str) -> None:
    """A SQLite file is faircode's store, or empty; anything else is refused untouched."""
    tables = _tables(conn)
    if tables and not STORE_TABLES <= tables:
        listed = sorted(tables)
        shown = ", ".join(listed[:5]) + (f" and {len(listed) - 5} more" if len(listed) > 5 else "")
        raise StoreError(
            f"{path} is a SQLite database of another application (tables: {shown}), not a "
            f"faircode store; nothing was changed: pass {spelled('--db')} a new or empty file"
        )


def _open_read_only(p: Path, path: str) -> tuple[Any, str]:
    """Open a SQLite store the process cannot write: ``mode=ro`` (reads a write-ahead
    log, needs its ``-shm`` file or the right to create it), else ``immutable=1`` (no
    locks, no journal: for read-only media, refused when a ``-wal`` file holds changes
    it would not see)."""
    uri = "file:" + urllib.parse.quote(str(p.resolve()))
    last: Exception | None = None
    for query, why in (
        ("mode=ro", "opened read-only: the file or its directory is not writable"),
        ("immutable=1", "opened immutable: the file or its directory is not writable"),
    ):
        conn = None
        try:
            conn = sqlite3.connect(
                f"{uri}?{query}",
                uri=True,
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            # the first read: a WAL store fails here without its -shm file
            _refuse_foreign(conn, path)
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            last = exc
            continue
        except StoreError:
            if conn is not None:
                conn.close()
            raise
        wal = p.with_name(p.name + "-wal")
        if query == "immutable=1" and wal.exists() and wal.stat().st_size > 0:
            conn.close()
            raise StoreError(
                f"cannot read the store {path}: it is read-only and its write-ahead log "
                f"{wal.name} holds changes that can only be read with write access to "
                "the directory (or with its -shm file present)"
            )
        for stmt in ("PRAGMA cache_size = -65536", "PRAGMA temp_store = MEMORY"):
            conn.execute(stmt)
        return conn, why
    raise StoreError(
        f"cannot open the read-only store {path}: {last}; check {spelled('--db')} / FAIRCODE_DB"
    )


def open_store(db: str | None = None, create: bool = True) -> Store:
    """The store at ``db`` (else ``$FAIRCODE_DB``, else the default path). ``create``
    False: a SQLite store that does not exist is an error, and nothing is created (the
    commands that only read)."""
    return Store(resolve_location(db), create=create)


def model_key(name: str) -> str:
    """Model names match case-insensitively: ``JPCP`` and ``jpcp`` are one model."""
    return name.strip().casefold()
