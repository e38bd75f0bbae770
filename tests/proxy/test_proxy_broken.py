"""The proxy in front of broken servers finds their failures (tests/suite/broken_servers.py), and
bad upstream behaviour — garbage SSE, a body over the cap, no upstream at all — is a violation for
the judge and a clean answer for the client, never a proxy traceback."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import pytest
from proxy_support import proxy

openai = pytest.importorskip("openai")
httpx2 = pytest.importorskip("httpx2")

from broken_servers import BROKEN, LIVE  # noqa: E402
from suite_support import serve  # noqa: E402

Scope = MutableMapping[str, Any]


def _shape(sse: bytes) -> list[bytes]:
    """A stream without its ids (they differ per response): its lines' names and lengths."""
    return [line.split(b":", 1)[0] for line in sse.splitlines()]


@pytest.mark.parametrize("row", ["KB01", "KB08", "KB14", "KB22", "sse_as_text_plain"])
def test_broken_stream_found_through_the_proxy(row: str, tmp_path: Path) -> None:
    broken = BROKEN[row] if row in BROKEN else LIVE[row]
    with (
        serve(broken.factory(), quiet=True) as upstream,
        proxy(upstream, report_dir=tmp_path) as run,
    ):
        body = {"model": "mock", "input": "hello", "stream": True}
        with httpx2.Client(timeout=30) as http:
            direct = http.post(upstream + "/responses", json=body).content
            proxied = http.post(run.base_url + "/responses", json=body).content
    assert _shape(proxied) == _shape(direct)  # forwarded unchanged, defect included
    assert run.code == 1, run.stdout + run.stderr
    assert broken.expected <= run.failing(), (broken.expected, run.failing())
    assert any(ln.startswith("FAIL ") for ln in run.exchange_lines())
    assert "Traceback" not in run.stderr


def test_error_body_defect_found(tmp_path: Path) -> None:
    """KB21: the error's `code` is the HTTP status number (a defect of the body, which the proxy
    sees; a defect of intent — a 500 for a bad request — needs the suite, which knows the request
    was bad on purpose)."""
    broken = next(b for b in LIVE.values() if b.factory.__name__ == "kb21_code_is_http_status")
    with (
        serve(broken.factory(), quiet=True) as upstream,
        proxy(upstream, report_dir=tmp_path) as run,
    ):
        client = openai.OpenAI(base_url=run.base_url, api_key="unused", max_retries=0)
        with pytest.raises(openai.NotFoundError):
            client.responses.retrieve("resp_missing")
    assert run.code == 1
    assert broken.expected <= run.failing(), (broken.expected, run.failing())


async def _bad_upstream(scope: Scope, receive: Callable[[], Awaitable[Any]],
                        send: Callable[[Any], Awaitable[None]]) -> None:  # fmt: skip
    if scope["type"] != "http":
        return
    path = scope["path"]
    if path.endswith("/garbage"):
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for chunk in (
            b"data: {not json\n\n",
            b"\x00\xff\xfe garbage",
            b"\n\nevent: x\ndata: 1\n\n",
        ):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    if path.endswith("/huge"):
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for _ in range(40):
            await send({"type": "http.response.body", "body": b" " * 65536, "more_body": True})
        await send({"type": "http.response.body", "body": b"{}", "more_body": False})
        return
    headers = [(b"content-type", b"text/plain")]
    await send({"type": "http.response.start", "status": 500, "headers": headers})
    await send({"type": "http.response.body", "body": b"oops", "more_body": False})


def test_bad_upstream_gives_violations_and_clean_errors(tmp_path: Path) -> None:
    with (
        serve(_bad_upstream, quiet=True) as upstream,
        proxy(upstream, "--max-body-bytes", "100000", report_dir=tmp_path) as run,
        httpx2.Client(timeout=30) as http,
    ):
        garbage = http.post(run.base_url + "/responses/garbage", json={})
        huge = http.get(run.base_url + "/responses/huge")
        plain = http.get(run.base_url + "/responses/resp_1")
    assert garbage.status_code == 200 and garbage.content.startswith(b"data: {not json")
    assert huge.status_code == 502
    assert huge.json()["error"]["code"] == "too_large"
    assert plain.status_code == 500 and plain.text == "oops"
    assert run.code == 1
    assert "Traceback" not in run.stderr + run.stdout
    failing = run.failing()
    assert "live.http.status_ok" in failing  # the body over the cap
    assert "error.shape" in failing  # a 500 that is not OpenAI's error shape


def test_no_upstream_is_a_502_not_a_traceback(tmp_path: Path) -> None:
    with (
        proxy("http://127.0.0.1:9/v1", report_dir=tmp_path) as run,
        httpx2.Client(timeout=30) as http,
    ):
        answer = http.post(run.base_url + "/responses", json={"model": "m"})
    assert answer.status_code == 502
    assert set(answer.json()["error"]) == {"message", "type", "param", "code"}
    assert run.code == 1
    assert "live.http.status_ok" in run.failing()
    assert "Traceback" not in run.stderr
