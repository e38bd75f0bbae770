"""One deliberately broken server per known-bugs row the live suite must catch (issue 4 Build 5).

``BROKEN[kb]`` gives the app factory, the cases to run (a ``-k`` expression: the whole suite is
not needed to show one defect), the check IDs the suite must report as failing, and whether the
row is a SHOULD (then only ``--strict`` fails the run).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from suite_support import ASGIApp, Rewriter, mock_app, renumber

Events = list[dict[str, Any] | None]
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _streams_only(edit: Callable[[Events], Events], inner: ASGIApp | None) -> Rewriter:
    return Rewriter(inner or mock_app(), on_sse=lambda method, path, events: edit(events))


# --- stream-level rows ------------------------------------------------------------------------


def kb01_output_index_from_1(inner: ASGIApp | None = None) -> ASGIApp:
    """KB01 (sglang#12644): streamed `output_index` starts at 1."""

    def edit(events: Events) -> Events:
        for e in events:
            if e is not None and isinstance(e.get("output_index"), int):
                e["output_index"] += 1
        return events

    return _streams_only(edit, inner)


def kb08_completed_without_output(inner: ASGIApp | None = None) -> ASGIApp:
    """KB08 (vllm #30223): `response.completed` has `output: []` although items were streamed."""

    def edit(events: Events) -> Events:
        for e in events:
            if e is not None and e.get("type") == "response.completed":
                e["response"]["output"] = []
        return events

    return _streams_only(edit, inner)


def kb14_done_without_added(inner: ASGIApp | None = None) -> ASGIApp:
    """KB14 (litellm#37852): `.done` events for an item that was never added."""

    def edit(events: Events) -> Events:
        kept = [e for e in events if e is None or e.get("type") != "response.output_item.added"]
        return renumber(kept)

    return _streams_only(edit, inner)


def kb22_no_terminal_event(inner: ASGIApp | None = None) -> ASGIApp:
    """KB22 (ollama#14600): the stream is closed before any terminal event."""

    def edit(events: Events) -> Events:
        return [e for e in events if e is not None and e.get("type") not in _TERMINAL]

    return _streams_only(edit, inner)


# --- rows only a live run can see -------------------------------------------------------------


def _uncut(response: dict[str, Any]) -> None:
    if response.get("status") == "incomplete":
        response["status"] = "completed"
        response["incomplete_details"] = None
        for item in response.get("output") or ():
            if item.get("status") == "incomplete":
                item["status"] = "completed"


def kb10_completed_after_cutoff(inner: ASGIApp | None = None) -> ASGIApp:
    """KB10 (omlx #2817; sglang): `status: completed` after a `max_output_tokens` cut-off."""

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and body.get("object") == "response":
            _uncut(body)
        return status, body

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is None:
                continue
            if e.get("type") == "response.incomplete":
                e["type"] = "response.completed"
            if isinstance(e.get("response"), dict):
                _uncut(e["response"])
            if isinstance(e.get("item"), dict) and e["item"].get("status") == "incomplete":
                e["item"]["status"] = "completed"
        return events

    return Rewriter(inner or mock_app(), on_json=on_json, on_sse=on_sse)


def kb19_wrong_history(inner: ASGIApp | None = None) -> ASGIApp:
    """KB19 (sglang #25302; vllm#43244): `previous_response_id` replays the previous turn's
    instructions instead of its input and output (the assistant turn and its calls are lost)."""
    instructions: dict[str, Any] = {}

    def on_request(method: str, path: str, body: Any) -> Any:
        if not isinstance(body, dict) or not body.get("previous_response_id"):
            return body
        previous = body.pop("previous_response_id")
        new = body.get("input", [])
        new = [{"role": "user", "content": new}] if isinstance(new, str) else list(new)
        # A function_call_output whose call is gone becomes a plain user turn.
        new = [
            {"role": "user", "content": str(i.get("output"))}
            if isinstance(i, dict) and i.get("type") == "function_call_output" else i
            for i in new
        ]  # fmt: skip
        replay = instructions.get(previous)
        body["input"] = ([{"role": "system", "content": replay}] if replay else []) + new
        body.setdefault("metadata", {})["previous"] = previous
        return body

    def restore(response: dict[str, Any]) -> None:
        if isinstance(response.get("id"), str):
            instructions[response["id"]] = response.get("instructions")
        metadata = response.get("metadata") or {}
        if "previous" in metadata:
            response["previous_response_id"] = metadata.pop("previous")

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and body.get("object") == "response":
            restore(body)
        return status, body

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is not None and isinstance(e.get("response"), dict):
                restore(e["response"])
        return events

    return Rewriter(inner or mock_app(), on_request=on_request, on_json=on_json, on_sse=on_sse)


def kb20_cancel_not_idempotent(inner: ASGIApp | None = None) -> ASGIApp:
    """KB20 (vllm#57999): cancelling a finished background response errors."""
    cancelled: set[str] = set()

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if not (method == "POST" and path.endswith("/cancel") and status == 200):
            return status, body
        final = body.get("status")
        if final == "cancelled" and path not in cancelled:
            cancelled.add(path)  # this call cancelled a running response: that works
            return status, body
        if final in ("completed", "incomplete", "failed", "cancelled"):
            return 400, {"error": {
                "message": f"Cannot cancel a response with status {final}.",
                "type": "invalid_request_error", "param": None, "code": "invalid_request",
            }}  # fmt: skip
        return status, body

    return Rewriter(inner or mock_app(), on_json=on_json)


def kb21_code_is_http_status(inner: ASGIApp | None = None) -> ASGIApp:
    """KB21 (sglang serving_responses): error body `code` is the HTTP status number."""

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if status >= 400 and isinstance(body, dict) and isinstance(body.get("error"), dict):
            body["error"]["code"] = status
        return status, body

    return Rewriter(inner or mock_app(), on_json=on_json)


def _zero_reasoning(response: dict[str, Any]) -> None:
    details = (response.get("usage") or {}).get("output_tokens_details")
    if isinstance(details, dict):
        details["reasoning_tokens"] = 0


def kb25_reasoning_tokens_zero(inner: ASGIApp | None = None) -> ASGIApp:
    """KB25 (vllm#23363): `reasoning_tokens` hard-coded 0 while reasoning items are produced."""

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and body.get("object") == "response":
            _zero_reasoning(body)
        return status, body

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is not None and isinstance(e.get("response"), dict):
                _zero_reasoning(e["response"])
        return events

    return Rewriter(inner or mock_app(), on_json=on_json, on_sse=on_sse)


def kb26_store_false_retrievable(inner: ASGIApp | None = None) -> ASGIApp:
    """KB26 (sglang serving_responses): a `store: false` response is still retrievable."""

    def on_request(method: str, path: str, body: Any) -> Any:
        if isinstance(body, dict) and body.get("store") is False:
            body["store"] = True
            body.setdefault("metadata", {})["asked_store"] = "false"
        return body

    def restore(response: dict[str, Any]) -> None:
        metadata = response.get("metadata") or {}
        if metadata.pop("asked_store", None) == "false":
            response["store"] = False

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and body.get("object") == "response":
            restore(body)
        return status, body

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is not None and isinstance(e.get("response"), dict):
                restore(e["response"])
        return events

    return Rewriter(inner or mock_app(), on_request=on_request, on_json=on_json, on_sse=on_sse)


def several_defects() -> ASGIApp:
    """KB01 + KB10 + KB21 + KB26 at once: a server for the HTML matrix's second column."""
    return kb26_store_false_retrievable(kb21_code_is_http_status(kb10_completed_after_cutoff(
        kb01_output_index_from_1()
    )))  # fmt: skip


@dataclass(frozen=True)
class Broken:
    factory: Callable[[], ASGIApp]
    keyword: str  # the cases that show the defect (pytest -k)
    profiles: str
    expected: frozenset[str]  # check IDs reported as failing
    should: bool = False  # a SHOULD row: fails only under --strict


BROKEN: dict[str, Broken] = {
    "KB01": Broken(kb01_output_index_from_1, "create_stream", "core",
                   frozenset({"stream.output_index.contiguous"})),
    "KB08": Broken(kb08_completed_without_output, "create_stream", "core",
                   frozenset({"stream.output.equals_items"})),
    "KB14": Broken(kb14_done_without_added, "create_stream", "core",
                   frozenset({"stream.item.added_before_use"})),
    "KB22": Broken(kb22_no_terminal_event, "create_stream", "core",
                   frozenset({"stream.lifecycle.terminal_present"})),
    "KB10": Broken(kb10_completed_after_cutoff, "max_output_tokens", "core",
                   frozenset({"live.max_output_tokens.incomplete"})),
    "KB19": Broken(kb19_wrong_history, "chain", "core,stateful,tools",
                   frozenset({"live.previous_response.history"})),
    "KB20": Broken(kb20_cancel_not_idempotent, "cancel", "core,stateful",
                   frozenset({"live.background.cancel_idempotent"})),
    "KB21": Broken(kb21_code_is_http_status, "bad_input or unknown", "core,stateful",
                   frozenset({"error.code.type"})),
    "KB25": Broken(kb25_reasoning_tokens_zero, "reasoning", "core,reasoning",
                   frozenset({"live.usage.reasoning_tokens_hardcoded"}), should=True),
    "KB26": Broken(kb26_store_false_retrievable, "store_false", "core,stateful",
                   frozenset({"live.store.false_not_retrievable"})),
}  # fmt: skip


# --- the live checks' failing examples (conformance/examples/live.py names them) ----------------

# server name -> how to show it: the cases to run and the profiles to declare
LIVE: dict[str, Broken] = {b.factory.__name__: b for b in BROKEN.values()}
