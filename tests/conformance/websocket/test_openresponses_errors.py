"""Under ``--profile openresponses`` a WebSocket refusal is judged by [OR]'s own
``WebSocketErrorEvent`` (docs/spec.md §8.4, issue #32), not [OAPI]'s ``ResponseWsError``: [OR]
requires ``status`` and a string ``error.code`` and ``error.message``, and leaves ``error.type``
and ``error.param`` optional."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.websocket import SessionValidator

SHAPE = "ws.error.shape"
REQUEST = {"type": "response.create", "model": "gpt-5", "input": "Hi"}
OAPI_FULL = {"type": "invalid_request_error", "code": "bad", "message": "No.", "param": None}


def _shape_paths(refusal: dict[str, Any], profiles: tuple[str, ...]) -> list[str]:
    session = SessionValidator(profiles=profiles)
    session.client(dict(REQUEST))
    session.server(refusal)
    session.close()
    return sorted(v.path or "" for v in session.violations if v.check.id == SHAPE)


CORE = ("core", "websocket")
OR = ("core", "websocket", "openresponses")


@pytest.mark.parametrize(
    ("refusal", "core", "openresponses"),
    [
        # [OR]'s minimal refusal: no `type`, no `param` — [OAPI]'s ErrorPayload requires both.
        (
            {"type": "error", "status": 400, "error": {"code": "bad", "message": "No."}},
            ["error.param", "error.type"],
            [],
        ),
        # [OAPI]'s minimal refusal: no `status`, `code: null` — [OR] requires both.
        (
            {"type": "error", "error": dict(OAPI_FULL, code=None)},
            [],
            ["error.code", "status"],
        ),
        # Both schemas satisfied.
        ({"type": "error", "status": 400, "error": dict(OAPI_FULL)}, [], []),
        # Wrong types fail either way.
        (
            {"type": "error", "status": "400", "error": dict(OAPI_FULL, param=3)},
            ["error.param", "status"],
            ["error.param", "status"],
        ),
    ],
)
def test_refusal_shape_by_profile(
    refusal: dict[str, Any], core: list[str], openresponses: list[str]
) -> None:
    assert _shape_paths(refusal, CORE) == core
    assert _shape_paths(refusal, OR) == openresponses
