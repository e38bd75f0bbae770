"""A canary key planted in every form a server may echo it in never reaches a report:
split across two deltas, base64 (``Bearer`` + key, and ``user:key``), URL-encoded and JSON-escaped
in error bodies, raw in a non-JSON error body. Before the shared redactor only the exact key was
replaced, so the split and the encoded forms reached index.json, junit.xml and report.html.

The reports are searched independently of the redactor: the key itself, the key after URL-decoding,
after JSON-unescaping, in every base64 run decoded at each alignment, and in the deltas of every
recorded event joined in order."""

from __future__ import annotations

import base64
import binascii
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, unquote_plus

from suite_support import ASGIApp, Receive, Rewriter, Scope, Send, mock_app, run_suite, serve

from cassettes.redaction import Redactor

KEY = "sk-canary-0123456789abcdefXYZ"
_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_U_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


class Canary:
    """Echoes the caller's bearer token in every form, into answers and errors alike."""

    def __init__(self) -> None:
        self.key = ""
        self.inner = Rewriter(mock_app(api_key=KEY), on_json=self._json, on_sse=self._sse)

    def _json(self, method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        key = self.key
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            body["error"]["message"] += (
                f" url={quote('Bearer ' + key)} b64={base64.b64encode(('u:' + key).encode()).decode()}"
                f" esc={_escaped(key)}"
            )
        for item in (body.get("output") or []) if isinstance(body, dict) else []:
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    part["text"] += " " + base64.b64encode(f"Bearer {key}".encode()).decode()
        return status, body

    def _sse(self, method: str, path: str, events: list[Any]) -> list[Any]:
        out: list[Any] = []
        for event in events:
            if event is not None and event.get("type") == "response.output_text.delta":
                # The key split across two deltas: "Bearer sk-c" + "anary-…".
                first = dict(event, delta=event["delta"] + " Bearer " + self.key[:4])
                second = dict(event, delta=self.key[4:])
                out += [first, second]
            else:
                out.append(event)
        return out

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                self.key = value.decode().partition(" ")[2]
        await self.inner(scope, receive, send)


def _leaks(text: str) -> list[str]:
    """The forms in which KEY can be read back from ``text``."""
    found = []
    if KEY in text:
        found.append("as is")
    if KEY in unquote(text) or KEY in unquote_plus(text):
        found.append("url-encoded")
    if KEY in _U_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text):
        found.append("json-escaped")
    for run in _B64_RUN.findall(text):
        for skip in range(4):
            chunk = run[skip:].rstrip("=")
            chunk = chunk[: len(chunk) - len(chunk) % 4] if len(chunk) % 4 == 1 else chunk
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                try:
                    raw = decode(chunk + "=" * (-len(chunk) % 4))
                except (binascii.Error, ValueError):
                    continue
                if KEY.encode() in raw:
                    found.append("base64")
    return found


def _deltas(value: Any, out: list[str]) -> list[str]:
    """Every ``delta`` in ``value``, in order, in events kept as JSON text too."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            value = json.loads(value)
        except ValueError:
            return out
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "delta" and isinstance(v, str):
                out.append(v)
            else:
                _deltas(v, out)
    elif isinstance(value, list):
        for v in value:
            _deltas(v, out)
    return out


def test_the_canary_appears_in_no_form_in_any_report(tmp_path: Path) -> None:
    app: ASGIApp = Canary()
    with serve(app) as url:
        run = run_suite(
            "--base-url", url, "--model", "mock", "--api-key-env", "CONFORMANCE_CANARY_KEY",
            "--profile", "core", "-k", "create or bad_input or unknown",
            report_dir=tmp_path, env={"CONFORMANCE_CANARY_KEY": KEY},
        )  # fmt: skip
    written = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert set(written) == {"index.json", "junit.xml", "report.html"}
    index = json.loads(written["index.json"])
    # The canary came back: split deltas broke checks, so their events are in the evidence …
    assert "[REDACTED]" in written["index.json"]
    assert run.code == 1
    # … and in no form anywhere the suite writes.
    for name, text in {**written, "stdout": run.stdout, "stderr": run.stderr}.items():
        assert _leaks(text) == [], name
    deltas = _deltas(index, [])
    assert any("Bearer [REDACTED]" in d for d in deltas), deltas[:10]
    assert KEY not in "".join(deltas) and KEY[4:] not in "".join(deltas)


def test_the_redactor_catches_each_form_alone() -> None:
    redactor = Redactor([KEY])
    for text in [
        f"Incorrect API key provided: {KEY}.",
        base64.b64encode(f"Bearer {KEY}".encode()).decode(),
        base64.b64encode(f"user:{KEY}".encode()).decode(),
        base64.urlsafe_b64encode(f"xy{KEY}".encode()).decode(),
        quote(f"Bearer {KEY}", safe=""),
        quote(f"Bearer {KEY}", safe="").lower(),
        json.dumps({"k": KEY}, ensure_ascii=True),
        _escaped(KEY),
        _escaped(KEY).upper().replace("\\U", "\\u"),
    ]:
        assert _leaks(redactor.text(text)) == [], text
    events = [{"delta": "Bearer sk-c"}, {"delta": KEY[4:] + " and more"}, {"delta": "tail"}]
    clean = redactor.value({"events": events, "text": "Bearer " + KEY})
    assert KEY not in "".join(_deltas(clean, []))
    assert clean["events"][2]["delta"] == "tail"
    assert (
        clean["events"][0]["delta"].startswith("Bearer ") and clean["text"] == "Bearer [REDACTED]"
    )
