"""Steering over WebSocket mode: ``response.steer`` queues user input into a running response.

The rules, from the openai SDK's types (``types/responses/response_steer_*.py``, openai-python 3.x;
docs/websocket.md "Steering" has each with its source and the choices no source makes):

- ``response.steer`` carries only ``type``, ``previous_response_id`` (a response of this connection)
  and ``input`` (a string, or a non-empty list of ``user`` messages whose content is a string or
  ``input_text`` / ``input_image`` / ``input_file`` parts); anything else is ``invalid_input``.
- A running target: ``response.steer.accepted`` (the server owns the input), on the target's lane.
  Otherwise ``response.steer.failed`` with the input returned: ``response_not_found`` (not a
  response of this connection), ``response_already_completed`` / ``response_not_active`` (it has
  ended), ``steering_not_supported`` (bound to a conversation or to automatic compaction),
  ``too_many_pending_steers``.
- When the target ends, the accepted input is committed by an automatic successor (the target's
  settings, ``previous_response_id`` = the target, the queued input in submission order), whose
  ``response.created`` is the commit point; a successor that cannot be created fails each steer
  with ``successor_creation_failed``. A target that stops for client-owned tool output instead
  gets ``response.steer.pending`` after its ``response.completed``, with the ``required_input``
  stubs, and the queued input is prepended to the client's explicit continuation (same
  ``previous_response_id``, same lane).

This module holds the pure parts (validation, the events, the items) and the shape of what a
connection tracks (:class:`Tracked`, :class:`Responses`: an ended response keeps only its lane and
status, for the last :data:`ENDED_KEPT`); the connection (:mod:`reference_impl.service.websocket`)
keeps the state.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ENDED_KEPT",
    "MAX_PENDING_STEERS",
    "QueuedSteer",
    "Responses",
    "Tracked",
    "as_items",
    "failed_event",
    "required_input",
    "steer_problem",
    "unsupported",
]

# No source states the limit behind `too_many_pending_steers`: ours (docs/websocket.md).
MAX_PENDING_STEERS = 16

_STEER_KEYS = frozenset({"type", "previous_response_id", "input"})
_MESSAGE_KEYS = frozenset({"type", "role", "content"})
_PART_TYPES = frozenset({"input_text", "input_image", "input_file"})

# Output items the client owns the result of ([SDK] ResponseSteerRequiredInput): the item type,
# the stub's type and the fields that identify it.
_CLIENT_OWNED: dict[str, tuple[str, tuple[str, ...]]] = {
    "function_call": ("function_call_output", ("call_id", "name")),
    "custom_tool_call": ("custom_tool_call_output", ("call_id",)),
    "computer_call": ("computer_call_output", ("call_id",)),
    "shell_call": ("shell_call_output", ("call_id",)),
    "apply_patch_call": ("apply_patch_call_output", ("call_id",)),
}


@dataclass(slots=True)
class QueuedSteer:
    """One accepted steering submission, waiting for its successor."""

    id: str
    input: Any  # as the client sent it (returned as is by `response.steer.failed`)
    items: list[dict[str, Any]] = field(default_factory=list)  # the same, as input items


def steer_problem(event: Mapping[str, Any]) -> str | None:
    """Why a ``response.steer`` with a string ``previous_response_id`` is ``invalid_input``."""
    extra = sorted(set(event) - _STEER_KEYS)
    if extra:
        return (
            f"Unknown parameter(s) {', '.join(map(repr, extra))}: `response.steer` accepts only "
            "`type`, `previous_response_id` and `input` (the target response sets the lane)."
        )
    value = event.get("input")
    if isinstance(value, str):
        return None if value else "`input` must not be empty."
    if not isinstance(value, list) or not value:
        return "`input` must be a string or a non-empty array of user messages."
    for n, item in enumerate(value):
        problem = _message_problem(item)
        if problem:
            return f"input[{n}]: {problem}"
    return None


def _message_problem(item: object) -> str | None:
    if not isinstance(item, dict):
        return "a message object expected."
    if item.get("role") != "user" or item.get("type", "message") != "message":
        return "steering accepts only messages with the `user` role."
    if set(item) - _MESSAGE_KEYS:
        return "a steering message may contain only `type`, `role` and `content`."
    content = item.get("content")
    if isinstance(content, str):
        return None
    if not isinstance(content, list) or not all(
        isinstance(p, dict) and p.get("type") in _PART_TYPES for p in content
    ):
        return "`content` must be a string or an array of input_text, input_image, input_file."
    return None


def as_items(value: Any) -> list[dict[str, Any]]:
    """Validated steering input (or a create's ``input``) as a list of input items."""
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    if isinstance(value, list):
        return [dict(item) for item in value]
    return []


def unsupported(body: Mapping[str, Any]) -> bool:
    """A response the SDK says cannot be steered: bound to a conversation, or compacted
    automatically (``context_management``)."""
    return body.get("conversation") is not None or bool(body.get("context_management"))


def required_input(output: Sequence[Any]) -> list[dict[str, Any]]:
    """The stubs of the client-owned results a completed response waits for."""
    stubs = []
    for item in output:
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "mcp_approval_request":
            stubs.append({"type": "mcp_approval_response", "approval_request_id": item.get("id")})
            continue
        owned = _CLIENT_OWNED.get(str(item.get("type")))
        if owned is not None and item.get("status", "completed") == "completed":
            kind, keys = owned
            stubs.append({"type": kind, **{k: item.get(k) for k in keys}})
    return stubs


def failed_event(
    target: str, value: Any, code: str, message: str, steer_id: str | None = None
) -> dict[str, Any]:
    """``response.steer.failed`` (without ``sequence_number`` / ``stream_id``, which the
    connection adds)."""
    steer: dict[str, Any] = {"input": value, "previous_response_id": target}
    if steer_id is not None:
        steer["id"] = steer_id
    return {
        "type": "response.steer.failed",
        "error": {"type": "invalid_request_error", "code": code, "message": message},
        "steer": steer,
    }


ENDED_KEPT = 1024
"""Ended responses a connection still answers steers for by their status
(``response_already_completed``, ``response_not_active``); an older one is
``response_not_found``. An ended response keeps only its lane, status and whether it could be
steered at all, not its body or output (issue #39: each kept its create body for the
connection's life, 4 MiB a create for a client that sends 4 MiB inputs)."""

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


@dataclass(slots=True)
class Tracked:
    """One response of a WebSocket connection, as steering needs it."""

    sid: str | None
    body: dict[str, Any]  # its create body, which an automatic successor inherits (until it ends)
    registry: dict[str, Tracked]  # the connection's responses by id (it enters at created)
    unsteerable: bool = False  # bound to a conversation or compacted (unsupported)
    response_id: str | None = None  # known from its response.created
    status: str | None = None  # None while it runs; its terminal status after
    output: list[Any] = field(default_factory=list)
    steers: list[QueuedSteer] = field(default_factory=list)  # accepted, not yet committed
    successor_ids: Callable[[str], str] | None = None  # drawn when the first steer is accepted

    def observe(self, event: Mapping[str, Any]) -> None:
        etype = event.get("type")
        if etype == "response.created" or etype in _TERMINAL:
            response = event.get("response")
            if not isinstance(response, Mapping):
                return
            if etype == "response.created":
                rid = response.get("id")
                if isinstance(rid, str):
                    self.response_id = rid
                    self.registry[rid] = self
            else:
                # Set before the terminal frame is sent: a steer the client sends after seeing
                # it is refused, one accepted before is committed by the successor.
                self.status = str(response.get("status"))
                self.output = list(response.get("output") or ())


class Responses:
    """A connection's responses by id: the running ones, and the last :data:`ENDED_KEPT` ended
    ones, each reduced to what a late steer's refusal needs."""

    __slots__ = ("_ended", "by_id")

    def __init__(self) -> None:
        self.by_id: dict[str, Tracked] = {}
        self._ended: deque[str] = deque()  # ended responses still in by_id, oldest first

    def get(self, response_id: str) -> Tracked | None:
        return self.by_id.get(response_id)

    def ended(self, tracked: Tracked) -> None:
        tracked.body = {}
        tracked.output = []
        if tracked.response_id is None:
            return
        self._ended.append(tracked.response_id)
        while len(self._ended) > ENDED_KEPT:
            self.by_id.pop(self._ended.popleft(), None)

    def clear(self) -> None:
        """The connection closed: what it held goes now, not when the cyclic collector next
        runs (its responses and this registry refer to each other)."""
        self.by_id.clear()
        self._ended.clear()
