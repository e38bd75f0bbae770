"""OpenAI-shaped API errors.

Every error body is ``{"error": {"message", "type", "param", "code"}}`` with ``code`` a string or
null — never the HTTP status number (SPEC §4 Errors; known bug KB21).
"""

from __future__ import annotations

from typing import Any

__all__ = ["APIError", "invalid_request", "not_found"]


class APIError(Exception):
    """An error the app answers with ``status`` and :meth:`body`."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def invalid_request(message: str, param: str | None = None, code: str | None = None) -> APIError:
    """A 400 ``invalid_request_error`` whose ``param`` names the offending field (SPEC §4)."""
    return APIError(400, message, param=param, code=code)


SERVER_ERROR_MESSAGE = "The server had an error while processing your request."
"""OpenAI's text for a 500 (SPEC §4 Errors); nothing of the failure itself reaches the client."""


def internal_error() -> APIError:
    """A 500 ``server_error`` in OpenAI's words, for a failure the server did not expect."""
    return APIError(500, SERVER_ERROR_MESSAGE, type="server_error", code="server_error")


def not_found(response_id: str) -> APIError:
    # The exact text OpenAI sends (SPEC §4 Errors).
    return APIError(404, f"Response with id '{response_id}' not found.", param=None, code=None)
