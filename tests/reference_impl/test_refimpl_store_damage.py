"""A damaged SQLite store (reference_impl/stores/sqlite_health.py): found at start, with one line
and exit 2 from both servers; damage that appears while serving is a 503 in OpenAI's shape with one
log line, not a 500 and a ``DatabaseError`` traceback per request. Before: a file damaged in the
middle started silently and every create was a 500; a damaged header exited 1 with a traceback
(responses-reference)."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
from refimpl_support import ScriptedEngine

from reference_impl.server import ServerThread
from reference_impl.service.app import create_app
from reference_impl.stores.sqlite import SQLiteStore
from reference_impl.stores.sqlite_health import StoreDamaged

PAGE = 4096


def _filled(path: Path, count: int = 400) -> None:
    store = SQLiteStore(path)
    blob = "x" * 3000

    async def fill() -> None:
        for n in range(count):
            await store.put({"id": f"resp_{n:06d}", "object": "response", "output": [], "t": blob})
        await store.close()

    asyncio.run(fill())


def _damage_pages(path: Path, first: int, count: int) -> None:
    with path.open("r+b") as f:
        f.seek(first * PAGE)
        f.write(os.urandom(count * PAGE))


def test_a_file_damaged_in_the_middle_is_refused_at_start(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    _filled(path)
    pages = path.stat().st_size // PAGE
    _damage_pages(path, pages // 2, 4)
    with pytest.raises(StoreDamaged, match="damaged") as caught:
        SQLiteStore(path)
    assert "\n" not in str(caught.value)


def test_a_damaged_header_is_refused_at_start(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    _filled(path, 10)
    with path.open("r+b") as f:
        f.write(b"not sqlite at all" * 8)
    with pytest.raises(StoreDamaged, match="damaged"):
        SQLiteStore(path)


@pytest.mark.parametrize("cli", ["responses-reference", "responses-mock"])
def test_both_servers_exit_2_with_one_line_on_a_damaged_store(
    tmp_path: Path, cli: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "store.db"
    _filled(path, 10)
    with path.open("r+b") as f:
        f.write(b"not sqlite at all" * 8)
    args = ["--store", f"sqlite:{path}", "--port", "0"]
    if cli == "responses-mock":
        from mock_server.cli import main
    else:
        from reference_impl.sglang.cli import main

        args += ["--sglang-url", "http://127.0.0.1:9"]
    try:
        code = main(args)
    except SystemExit as exit_info:
        code = exit_info.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "damaged" in err and "Traceback" not in err


def test_damage_appearing_later_is_a_503_with_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "store.db"
    _filled(path)
    store = SQLiteStore(path)
    # Damage it under the running server: every page after the first few (the schema stays).
    pages = path.stat().st_size // PAGE
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    _damage_pages(path, 4, pages - 4)
    caplog.set_level(logging.INFO)
    with ServerThread(create_app(ScriptedEngine(), store=store)) as server:
        statuses: list[Any] = []
        with httpx.Client(base_url=server.base_url + "/v1", timeout=30) as client:
            for n in range(5):
                got = client.get(f"/responses/resp_{n * 50:06d}")
                statuses.append(got.status_code)
                if got.status_code == 503:
                    error = got.json()["error"]
                    assert error["type"] == "server_error"
                    assert error["code"] == "store_unavailable"
            created = client.post("/responses", json={"model": "m", "input": "hi"})
            statuses.append(created.status_code)
            # streamed: stored before the 200, so a 503 rather than a stream cut with no event
            body = {"model": "m", "input": "hi", "stream": True}
            with client.stream("POST", "/responses", json=body) as streamed:
                streamed.read()
                statuses.append(streamed.status_code)
    assert statuses[-2:] == [503, 503] and 500 not in statuses, statuses
    damaged = [r for r in caplog.records if "is damaged" in r.getMessage()]
    assert len(damaged) == 1
    assert not any(r.exc_info for r in caplog.records if r.name.startswith("reference_impl"))
