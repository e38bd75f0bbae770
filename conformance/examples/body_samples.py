"""What the Response body examples (the section modules of §3 and §7, conformance.sections)
build their samples with: ``B`` (a non-stream Response body), a completed
Response holding one message, and small edits of it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .build import Event, _message, response, set_in
from .registry import Sample

__all__ = ["B", "done", "drop_key", "edit", "incomplete"]


def B(build: Callable[[], Any], note: str = "", **opts: Any) -> Sample:
    return Sample("response", build, note, **opts)


def done(**fields: Any) -> Event:
    """A completed non-stream Response holding one message."""
    return response("completed", [_message("Hello")], **fields)


def edit(path: str, value: Any, **fields: Any) -> Callable[[], Event]:
    def build() -> Event:
        body = done(**fields)
        set_in(body, path, value)
        return body

    return build


def drop_key(path: str) -> Callable[[], Event]:
    def build() -> Event:
        body = done()
        *head, last = path.split(".")
        obj: Any = body
        for key in head:
            obj = obj[key]
        del obj[last]
        return body

    return build


def incomplete(**fields: Any) -> Event:
    """An incomplete non-stream Response, cut by ``max_output_tokens`` in its one message."""
    body = response("incomplete", [_message("Hel", "incomplete")], **fields)
    body["incomplete_details"] = {"reason": "max_output_tokens"}
    return body
