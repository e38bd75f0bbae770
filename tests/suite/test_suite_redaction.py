"""API keys never appear in any report, even when the target echoes them back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from suite_support import ASGIApp, Receive, Rewriter, Scope, Send, mock_app, run_suite, serve

SECRET = "sk-conformance-test-DO-NOT-LEAK-0123456789"


class EchoKey:
    """Puts the caller's bearer token into every error message and every answer's text, as
    careless servers do ("Incorrect API key provided: sk-…")."""

    def __init__(self) -> None:
        self.key = ""
        self.inner = Rewriter(mock_app(api_key=SECRET), on_json=self._json, on_sse=self._sse)

    def _json(self, method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            body["error"]["message"] += f" (key {self.key})"
        for item in (body.get("output") or []) if isinstance(body, dict) else []:
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    part["text"] += f" {self.key}"
        return status, body

    def _sse(self, method: str, path: str, events: list[Any]) -> list[Any]:
        for event in events:
            if event is not None and event.get("type") == "response.output_text.delta":
                event["delta"] += f" {self.key}"
        return events

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                self.key = value.decode().partition(" ")[2]
        await self.inner(scope, receive, send)


def test_api_key_is_never_written(tmp_path: Path) -> None:
    app: ASGIApp = EchoKey()
    with serve(app) as url:
        run = run_suite(
            "--base-url", url, "--model", "mock", "--api-key-env", "CONFORMANCE_TEST_KEY",
            "--profile", "core,stateful", "-k", "create or bad_input or unknown",
            report_dir=tmp_path, env={"CONFORMANCE_TEST_KEY": SECRET},
        )  # fmt: skip
    written = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert set(written) == {"index.json", "junit.xml", "report.html"}
    # The key reached the server (the cases ran authorized) and came back in its answers …
    assert "[REDACTED]" in written["index.json"]
    assert run.index["targets"][next(iter(run.index["targets"]))]["summary"]["pass"] > 20
    # … and appears nowhere the suite writes.
    for name, text in {**written, "stdout": run.stdout, "stderr": run.stderr}.items():
        assert SECRET not in text, name
