"""Logprobs are optional (docs/spec.md §7.8 decision): a target that refuses streamed logprobs
with a 400 in OpenAI's error shape, as SGLang 0.5.23 does, leaves the logprobs checks not
exercised and fails nothing; the mock, which sends them, has them exercised and passing."""

from __future__ import annotations

import json
from pathlib import Path

from suite_support import ASGIApp, Receive, Scope, Send, mock_app, run_suite, serve

LOGPROBS = ("response.logprobs.nonpositive", "response.logprobs.top_count",
            "stream.logprobs.deltas_equal_done")  # fmt: skip


class RefusesStreamedLogprobs:
    """The mock, but a streamed create asking for logprobs gets SGLang's 400 (its message; SGLang's
    own ``code: 400`` is an integer, which ``error.code.type`` flags on its own)."""

    def __init__(self) -> None:
        self.inner = mock_app()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.inner(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        body = json.loads(raw or b"{}")
        if body.get("stream") and body.get("top_logprobs"):
            error = {
                "error": {
                    "message": "logprobs are not supported in streaming mode",
                    "type": "invalid_request_error",
                    "param": "logprobs",
                    "code": None,
                }
            }
            payload = json.dumps(error).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 400,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": payload})
            return
        sent = False

        async def replay() -> dict[str, object]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}

        await self.inner(scope, replay, send)  # fmt: skip


def test_a_refusal_leaves_the_logprobs_checks_not_exercised(tmp_path: Path) -> None:
    app: ASGIApp = RefusesStreamedLogprobs()
    args = ("--model", "mock", "--profile", "core", "-k", "logprobs", "--no-instructions")
    with serve(app) as url:
        refused = run_suite("--base-url", url, *args, report_dir=tmp_path / "refused")
    with serve(mock_app()) as url:
        sent = run_suite("--base-url", url, *args, report_dir=tmp_path / "mock")
    assert refused.code == 0, refused.stdout[-3000:]
    outcomes = refused.outcomes()
    assert {c: outcomes[c] for c in LOGPROBS} == dict.fromkeys(LOGPROBS, "not_exercised")
    assert outcomes["live.http.status_ok"] != "fail"
    assert {c: sent.outcomes()[c] for c in LOGPROBS} == dict.fromkeys(LOGPROBS, "pass")
