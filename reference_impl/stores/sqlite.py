"""SQLiteStore: a :class:`~reference_impl.stores.base.ResponseStore` in one SQLite file (stdlib sqlite3),
with :class:`~reference_impl.stores.base.ItemLookup` (output items by id).

Durable across process restart (WAL journal). Each call runs in a worker thread
(``anyio.to_thread``) behind one lock, so the event loop never waits on the disk; writes are single
small statements, each write one ``BEGIN IMMEDIATE`` transaction, so several processes may share
the file (``responses-mock --workers N``). A background response that was running when its process
stopped stays as it was stored (``queued``/``in_progress``); cancelling it then marks it
``cancelled``, and ``cancelled`` is final (a later write of another status is dropped).

Retention (:class:`~reference_impl.stores.base.StoreLimits`): after every write, expired responses and
conversations are deleted, then the least recently *written* beyond ``max_responses`` /
``max_conversations``, then the oldest (responses and conversations alike) while the database's
used pages exceed ``max_bytes``. Freed pages go back to the file system at once
(``auto_vacuum = INCREMENTAL``, an older file is converted by one ``VACUUM`` when opened), so the
file stays within the cap; the WAL beside it is checkpointed every 1,000 pages and truncated to
``_WAL_LIMIT`` bytes. Counts are kept by triggers in ``meta`` (never ``COUNT(*)`` per write).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
import orjson

from .base import StoreLimits, find_output_item, output_item_ids
from .sqlite_health import DamageReport, StoreDamaged, check_at_start, is_damage

__all__ = ["SQLiteStore"]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    id TEXT PRIMARY KEY,
    response BLOB NOT NULL,
    input_items BLOB NOT NULL,
    stored_at REAL NOT NULL,
    cancel INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    response_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event BLOB NOT NULL,
    PRIMARY KEY (response_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS items (
    item_id TEXT PRIMARY KEY,
    response_id TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_by_response ON items (response_id);
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    conversation BLOB NOT NULL,
    stored_at REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS conversation_items (
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    item BLOB NOT NULL,
    PRIMARY KEY (conversation_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attempts (
    fingerprint BLOB PRIMARY KEY,
    count INTEGER NOT NULL,
    seen_at REAL NOT NULL
);
"""

# After the tables (and the stored_at column of an older file's conversations) exist.
_RETENTION = """
CREATE INDEX IF NOT EXISTS responses_by_age ON responses (stored_at);
CREATE INDEX IF NOT EXISTS conversations_by_age ON conversations (stored_at);
CREATE INDEX IF NOT EXISTS attempts_by_age ON attempts (seen_at);
INSERT OR IGNORE INTO meta VALUES ('responses', (SELECT COUNT(*) FROM responses));
INSERT OR IGNORE INTO meta VALUES ('conversations', (SELECT COUNT(*) FROM conversations));
INSERT OR IGNORE INTO meta VALUES ('attempts', (SELECT COUNT(*) FROM attempts));
INSERT OR IGNORE INTO meta VALUES ('replicas', 0);
CREATE TRIGGER IF NOT EXISTS responses_added AFTER INSERT ON responses BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'responses';
END;
CREATE TRIGGER IF NOT EXISTS responses_removed AFTER DELETE ON responses BEGIN
    UPDATE meta SET value = value - 1 WHERE key = 'responses';
    DELETE FROM events WHERE response_id = old.id;
    DELETE FROM items WHERE response_id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS conversations_added AFTER INSERT ON conversations BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'conversations';
END;
CREATE TRIGGER IF NOT EXISTS conversations_removed AFTER DELETE ON conversations BEGIN
    UPDATE meta SET value = value - 1 WHERE key = 'conversations';
    DELETE FROM conversation_items WHERE conversation_id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS attempts_added AFTER INSERT ON attempts BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'attempts';
END;
CREATE TRIGGER IF NOT EXISTS attempts_removed AFTER DELETE ON attempts BEGIN
    UPDATE meta SET value = value - 1 WHERE key = 'attempts';
END;
"""

_WAL_LIMIT = 8 * 2**20
"""Bytes the WAL file is truncated to after a checkpoint (``PRAGMA journal_size_limit``)."""

ATTEMPT_CAPACITY = 100_000
"""Fault-attempt fingerprints kept (the oldest seen forgotten first), as the in-process counter."""


class SQLiteStore:
    """Responses and conversations in the SQLite file ``path`` (``":memory:"`` for a throwaway
    database), each response kept ``ttl_seconds`` after its last write (default: no expiry),
    within ``limits`` (default: :class:`~reference_impl.stores.base.StoreLimits`)."""

    def __init__(
        self,
        path: str | Path,
        *,
        ttl_seconds: float | None = None,
        clock: Callable[[], float] = time.time,
        limits: StoreLimits | None = None,
    ) -> None:
        self.path = str(path)
        self.ttl_seconds = ttl_seconds
        self.limits = limits or StoreLimits()
        self._clock = clock
        self._lock = threading.Lock()
        # timeout: another process (a --workers sibling) holding the write lock is waited for.
        self._db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30.0
        )
        self.evicted = 0  # responses and conversations this process dropped for a cap
        self._damage = DamageReport(self.path)
        try:
            if self.path != ":memory:":
                check_at_start(self._db, self.path)
            self._open()
        except sqlite3.DatabaseError as error:  # a damaged header fails the first pragma
            self._db.close()
            if not is_damage(error):
                raise
            raise StoreDamaged(f"sqlite:{self.path}: the file is damaged ({error})") from None

    def _open(self) -> None:
        db = self._db
        if db.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            if db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                # An older file: convert it once (VACUUM outside WAL), so frees shrink the file.
                db.execute("PRAGMA journal_mode=DELETE")
                db.execute("VACUUM")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA journal_size_limit={_WAL_LIMIT}")
        db.executescript(f"BEGIN IMMEDIATE;{_SCHEMA}COMMIT;")
        columns = {row[1] for row in db.execute("PRAGMA table_info(conversations)")}
        if "stored_at" not in columns:  # a file from before retention
            with contextlib.suppress(sqlite3.OperationalError):  # a sibling added it first
                db.execute("ALTER TABLE conversations ADD COLUMN stored_at REAL NOT NULL DEFAULT 0")
        db.executescript(f"BEGIN IMMEDIATE;{_RETENTION}COMMIT;")
        self._page_size = int(db.execute("PRAGMA page_size").fetchone()[0])

    async def _run(self, fn: Callable[[], T]) -> T:
        def locked() -> T:
            with self._lock:
                return fn()

        try:
            return await anyio.to_thread.run_sync(locked)
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            raise self._damage.unavailable(error) from None

    def _write(self, fn: Callable[[], T], keep: tuple[str, str] | None = None) -> T:
        """``fn`` and the caps in one write transaction (the caller holds ``self._lock``);
        ``keep``: the ``(table, id)`` just written, never evicted by its own write."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            result = fn()
            self._enforce(keep)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        return result

    def _meta(self, key: str) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return 0 if row is None else int(row[0])

    def used_bytes(self) -> int:
        """Bytes of the database's used pages (what ``max_bytes`` caps; the file, once vacuumed)."""
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        free = self._db.execute("PRAGMA freelist_count").fetchone()[0]
        return int(pages - free) * self._page_size

    def counts(self) -> dict[str, int]:
        """Rows kept: responses, conversations, conversation items, events, attempts."""
        with self._lock:
            db = self._db
            return {
                "responses": self._meta("responses"),
                "conversations": self._meta("conversations"),
                "conversation_items": db.execute(
                    "SELECT count(*) FROM conversation_items"
                ).fetchone()[0],
                "events": db.execute("SELECT count(*) FROM events").fetchone()[0],
                "attempts": self._meta("attempts"),
            }

    def _oldest(self, table: str, count: int, keep: tuple[str, str] | None) -> int:
        skip = keep[1] if keep is not None and keep[0] == table else ""
        cur = self._db.execute(
            f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE id != ? "
            "ORDER BY stored_at LIMIT ?)",
            (skip, count),
        )
        return max(cur.rowcount, 0)

    def _enforce(self, keep: tuple[str, str] | None) -> None:
        limits, db, now = self.limits, self._db, self._clock()
        if self.ttl_seconds is not None:
            db.execute("DELETE FROM responses WHERE stored_at < ?", (now - self.ttl_seconds,))
        if limits.conversation_ttl_seconds is not None:
            cutoff = now - limits.conversation_ttl_seconds
            db.execute("DELETE FROM conversations WHERE stored_at < ?", (cutoff,))
        for table, cap in (
            ("responses", limits.max_responses),
            ("conversations", limits.max_conversations),
        ):
            over = self._meta(table) - cap
            if over > 0:
                self.evicted += self._oldest(table, over, keep)
        if self.used_bytes() <= limits.max_bytes:
            return
        while self.used_bytes() > limits.max_bytes:
            # The oldest of either kind first, a batch at a time (freed pages go back at once).
            ages = {
                table: db.execute(f"SELECT min(stored_at) FROM {table}").fetchone()[0]
                for table in ("responses", "conversations")
            }
            live = {t: a for t, a in ages.items() if a is not None}
            if not live:
                break
            table = min(live, key=lambda t: live[t])
            batch = max(1, self._meta(table) // 64)
            dropped = self._oldest(table, batch, keep)
            if not dropped:
                other = "conversations" if table == "responses" else "responses"
                dropped = self._oldest(other, max(1, self._meta(other) // 64), keep)
                if not dropped:
                    break  # only the entry just written is left: kept, alone over the cap
            self.evicted += dropped
            db.execute("PRAGMA incremental_vacuum")
        db.execute("PRAGMA incremental_vacuum")

    def _expired(self, stored_at: float) -> bool:
        return self.ttl_seconds is not None and self._clock() - stored_at > self.ttl_seconds

    def _row(self, response_id: str) -> tuple[bytes, bytes, int] | None:
        row = self._db.execute(
            "SELECT response, input_items, stored_at, cancel FROM responses WHERE id = ?",
            (response_id,),
        ).fetchone()
        if row is None:
            return None
        if self._expired(row[2]):
            self._delete(response_id)
            return None
        return row[0], row[1], row[3]

    def _delete(self, response_id: str) -> bool:
        # The responses_removed trigger deletes its events and items too.
        cur = self._db.execute("DELETE FROM responses WHERE id = ?", (response_id,))
        return cur.rowcount > 0

    async def put(
        self, response: Mapping[str, Any], input_items: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        response_id = str(response["id"])
        data = orjson.dumps(response)
        items = None if input_items is None else orjson.dumps(list(input_items))
        item_rows = [(item_id, response_id) for item_id in output_item_ids(response)]
        cancelled = response.get("status") == "cancelled"
        now = self._clock()

        def write() -> None:
            if not cancelled:
                # ``cancelled`` is final: another process's cancel is not undone by this
                # process's late ``completed`` (responses-mock --workers; Redis does the same).
                found = self._db.execute(
                    "SELECT json_extract(response, '$.status') FROM responses WHERE id = ?",
                    (response_id,),
                ).fetchone()
                if found is not None and found[0] == "cancelled":
                    return
            self._db.executemany(
                "INSERT OR REPLACE INTO items (item_id, response_id) VALUES (?, ?)", item_rows
            )
            if items is None:
                cur = self._db.execute(
                    "UPDATE responses SET response = ?, stored_at = ? WHERE id = ?",
                    (data, now, response_id),
                )
                if cur.rowcount:
                    return
            self._db.execute(
                "INSERT INTO responses (id, response, input_items, stored_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET response = excluded.response, "
                "input_items = excluded.input_items, stored_at = excluded.stored_at",
                (response_id, data, items or b"[]", now),
            )

        await self._run(lambda: self._write(write, ("responses", response_id)))

    async def get(self, response_id: str) -> dict[str, Any] | None:
        row = await self._run(lambda: self._row(response_id))
        return None if row is None else _loads(row[0], dict)

    async def input_items(self, response_id: str) -> list[dict[str, Any]] | None:
        row = await self._run(lambda: self._row(response_id))
        return None if row is None else _loads(row[1], list)

    async def item(self, item_id: str) -> dict[str, Any] | None:
        def read() -> bytes | None:
            found = self._db.execute(
                "SELECT response_id FROM items WHERE item_id = ?", (item_id,)
            ).fetchone()
            row = None if found is None else self._row(found[0])
            return None if row is None else row[0]

        data = await self._run(read)
        return None if data is None else find_output_item(_loads(data, dict), item_id)

    async def delete(self, response_id: str) -> bool:
        return await self._run(lambda: self._delete(response_id))

    async def append_events(self, response_id: str, events: Sequence[Mapping[str, Any]]) -> None:
        rows = [(response_id, int(e["sequence_number"]), orjson.dumps(e)) for e in events]

        def write() -> None:
            self._db.executemany(
                "INSERT OR REPLACE INTO events (response_id, seq, event) VALUES (?, ?, ?)", rows
            )

        await self._run(lambda: self._write(write, ("responses", response_id)))

    async def events_after(self, response_id: str, after: int) -> list[dict[str, Any]]:
        def read() -> list[Any]:
            return self._db.execute(
                "SELECT event FROM events WHERE response_id = ? AND seq > ? ORDER BY seq",
                (response_id, after),
            ).fetchall()

        return [_loads(row[0], dict) for row in await self._run(read)]

    async def request_cancel(self, response_id: str) -> None:
        await self._run(
            lambda: self._db.execute("UPDATE responses SET cancel = 1 WHERE id = ?", (response_id,))
        )

    async def cancel_requested(self, response_id: str) -> bool:
        row = await self._run(lambda: self._row(response_id))
        return row is not None and bool(row[2])

    async def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- several processes on one file (responses-mock --workers) ----------------------------
    def claim_replica(self) -> int:
        """The number of processes that opened this store before, plus one (1 for the first):
        ``responses-mock`` makes it the replica id of a process given none, so processes sharing
        the file, and a restart on it, never hand out the same id."""
        with self._lock:
            row = self._db.execute(
                "UPDATE meta SET value = value + 1 WHERE key = 'replicas' RETURNING value"
            ).fetchone()
        return int(row[0])

    def next_attempt(self, fingerprint: bytes, capacity: int = ATTEMPT_CAPACITY) -> int:
        """The n-th sight of request ``fingerprint`` across every process on this file (fault
        plans: ``429@1``); at most ``capacity`` fingerprints, the least recently seen forgotten."""
        now = self._clock()

        def count() -> int:
            (value,) = self._db.execute(
                "INSERT INTO attempts (fingerprint, count, seen_at) VALUES (?, 1, ?) "
                "ON CONFLICT(fingerprint) DO UPDATE SET count = count + 1, seen_at = excluded.seen_at "
                "RETURNING count",
                (fingerprint, now),
            ).fetchone()
            over = self._meta("attempts") - capacity
            if over > 0:
                self._db.execute(
                    "DELETE FROM attempts WHERE fingerprint IN (SELECT fingerprint FROM attempts "
                    "ORDER BY seen_at LIMIT ?)",
                    (over,),
                )
            return int(value)

        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                value = count()
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return value

    def reset_attempts(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM attempts")

    async def wait_cancel(self, response_id: str, poll: float = 0.05) -> None:
        """Return once a cancel of ``response_id`` is requested by any process on this file
        (polled), so the process running it stops it (the runner's watcher, as with Redis)."""
        while not await self.cancel_requested(response_id):
            await anyio.sleep(poll)

    # --- conversations ----------------------------------------------------------------------
    async def put_conversation(self, conversation: Mapping[str, Any]) -> None:
        conversation_id = str(conversation["id"])
        row = (conversation_id, orjson.dumps(conversation), self._clock())
        await self._run(
            lambda: self._write(
                lambda: self._db.execute(
                    "INSERT INTO conversations (id, conversation, stored_at) VALUES (?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET conversation = excluded.conversation, "
                    "stored_at = excluded.stored_at",
                    row,
                ),
                ("conversations", conversation_id),
            )
        )

    def _conversation_row(self, conversation_id: str) -> bytes | None:
        row = self._db.execute(
            "SELECT conversation, stored_at FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        if row is None:
            return None
        ttl = self.limits.conversation_ttl_seconds
        if ttl is not None and self._clock() - row[1] > ttl:
            self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            return None
        return row[0]  # type: ignore[no-any-return]

    async def get_conversation(self, conversation_id: str) -> dict[str, Any] | None:
        data = await self._run(lambda: self._conversation_row(conversation_id))
        return None if data is None else _loads(data, dict)

    async def delete_conversation(self, conversation_id: str) -> bool:
        def delete() -> bool:
            # The conversations_removed trigger deletes its items.
            cur = self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            return cur.rowcount > 0

        return await self._run(delete)

    def _touch(self, conversation_id: str) -> None:
        self._db.execute(
            "UPDATE conversations SET stored_at = ? WHERE id = ?", (self._clock(), conversation_id)
        )

    async def add_conversation_items(
        self, conversation_id: str, items: Sequence[Mapping[str, Any]]
    ) -> None:
        data = [(str(item["id"]), orjson.dumps(item)) for item in items]

        def write() -> None:
            if self._conversation_row(conversation_id) is None:
                return
            (last,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), -1) FROM conversation_items WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            self._db.executemany(
                "INSERT INTO conversation_items (conversation_id, seq, item_id, item) "
                "VALUES (?, ?, ?, ?)",
                [(conversation_id, last + 1 + i, d[0], d[1]) for i, d in enumerate(data)],
            )
            self._touch(conversation_id)

        await self._run(lambda: self._write(write, ("conversations", conversation_id)))

    async def conversation_items(self, conversation_id: str) -> list[dict[str, Any]]:
        def read() -> list[Any]:
            if self._conversation_row(conversation_id) is None:
                return []
            return self._db.execute(
                "SELECT item FROM conversation_items WHERE conversation_id = ? ORDER BY seq",
                (conversation_id,),
            ).fetchall()

        return [_loads(row[0], dict) for row in await self._run(read)]

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool:
        def delete() -> bool:
            found = self._db.execute(
                "SELECT seq FROM conversation_items WHERE conversation_id = ? AND item_id = ? "
                "ORDER BY seq LIMIT 1",
                (conversation_id, item_id),
            ).fetchone()
            if found is None:
                return False
            self._db.execute(
                "DELETE FROM conversation_items WHERE conversation_id = ? AND seq = ?",
                (conversation_id, found[0]),
            )
            self._touch(conversation_id)
            return True

        return await self._run(lambda: self._write(delete))


def _loads(data: bytes, kind: type[T]) -> T:
    value = orjson.loads(data)
    assert isinstance(value, kind)
    return value
