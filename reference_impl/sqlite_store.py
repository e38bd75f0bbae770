"""SQLiteStore: a :class:`~reference_impl.store.ResponseStore` in one SQLite file (stdlib sqlite3),
with :class:`~reference_impl.store.ItemLookup` (output items by id).

Durable across process restart (WAL journal). Each call runs in a worker thread
(``anyio.to_thread``) behind one lock, so the event loop never waits on the disk; writes are single
small statements. A background response that was running when its process stopped stays as it was
stored (``queued``/``in_progress``); cancelling it then marks it ``cancelled``.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
import orjson

from .store import find_output_item, output_item_ids

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
    conversation BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS conversation_items (
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    item BLOB NOT NULL,
    PRIMARY KEY (conversation_id, seq)
) WITHOUT ROWID;
"""


class SQLiteStore:
    """Responses in the SQLite file ``path`` (``":memory:"`` for a throwaway database), each kept
    ``ttl_seconds`` after its last write (default: no expiry)."""

    def __init__(
        self,
        path: str | Path,
        *,
        ttl_seconds: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = str(path)
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    async def _run(self, fn: Callable[[], T]) -> T:
        def locked() -> T:
            with self._lock:
                return fn()

        return await anyio.to_thread.run_sync(locked)

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
        cur = self._db.execute("DELETE FROM responses WHERE id = ?", (response_id,))
        self._db.execute("DELETE FROM events WHERE response_id = ?", (response_id,))
        self._db.execute("DELETE FROM items WHERE response_id = ?", (response_id,))
        return cur.rowcount > 0

    async def put(
        self, response: Mapping[str, Any], input_items: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        response_id = str(response["id"])
        data = orjson.dumps(response)
        items = None if input_items is None else orjson.dumps(list(input_items))
        item_rows = [(item_id, response_id) for item_id in output_item_ids(response)]
        now = self._clock()

        def write() -> None:
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

        await self._run(write)

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

        await self._run(write)

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

    # --- conversations ----------------------------------------------------------------------
    async def put_conversation(self, conversation: Mapping[str, Any]) -> None:
        row = (str(conversation["id"]), orjson.dumps(conversation))
        await self._run(
            lambda: self._db.execute(
                "INSERT INTO conversations (id, conversation) VALUES (?, ?) ON CONFLICT(id) "
                "DO UPDATE SET conversation = excluded.conversation",
                row,
            )
        )

    async def get_conversation(self, conversation_id: str) -> dict[str, Any] | None:
        row = await self._run(
            lambda: self._db.execute(
                "SELECT conversation FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        )
        return None if row is None else _loads(row[0], dict)

    async def delete_conversation(self, conversation_id: str) -> bool:
        def delete() -> bool:
            cur = self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            self._db.execute(
                "DELETE FROM conversation_items WHERE conversation_id = ?", (conversation_id,)
            )
            return cur.rowcount > 0

        return await self._run(delete)

    async def add_conversation_items(
        self, conversation_id: str, items: Sequence[Mapping[str, Any]]
    ) -> None:
        data = [(str(item["id"]), orjson.dumps(item)) for item in items]

        def write() -> None:
            (last,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), -1) FROM conversation_items WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            self._db.executemany(
                "INSERT INTO conversation_items (conversation_id, seq, item_id, item) "
                "VALUES (?, ?, ?, ?)",
                [(conversation_id, last + 1 + i, d[0], d[1]) for i, d in enumerate(data)],
            )

        await self._run(write)

    async def conversation_items(self, conversation_id: str) -> list[dict[str, Any]]:
        rows = await self._run(
            lambda: self._db.execute(
                "SELECT item FROM conversation_items WHERE conversation_id = ? ORDER BY seq",
                (conversation_id,),
            ).fetchall()
        )
        return [_loads(row[0], dict) for row in rows]

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
            return True

        return await self._run(delete)


def _loads(data: bytes, kind: type[T]) -> T:
    value = orjson.loads(data)
    assert isinstance(value, kind)
    return value
