"""One deliberately broken server per known-bugs row the live suite must catch.

``BROKEN[kb]`` gives the app factory, the cases to run (a ``-k`` expression: the whole suite is
not needed to show one defect), the check IDs the suite must report as failing, and whether the
row is a SHOULD (then only ``--strict`` fails the run).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from broken_state_servers import BROKEN_STATE
from suite_support import ASGIApp, Rewriter, mock_app, renumber

from mock_server.engine import Latency

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
    timeout: str = "10"  # the suite's --timeout against it
    instructions: bool = False  # the cases need a model that follows instructions (recall)
    near_miss: Callable[[], ASGIApp] = mock_app  # the server that obeys the rule (the live example)


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

# One server per live check, each breaking that one rule (the known-bugs servers above serve
# their rows' checks).


def _responses(edit: Callable[[dict[str, Any]], None], *, stream: bool = True,
               body: bool = True, where: Callable[[str, str], bool] = lambda m, p: True,
               inner: ASGIApp | None = None) -> Rewriter:  # fmt: skip
    """The mock, with ``edit`` applied to every Response object it sends (bodies and streams)."""

    def on_json(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        is_response = isinstance(value, dict) and value.get("object") == "response"
        if body and where(method, path) and is_response and "deleted" not in value:
            edit(value)
        return status, value

    def on_sse(method: str, path: str, events: Events) -> Events:
        if stream and where(method, path):
            for e in events:
                if e is not None and isinstance(e.get("response"), dict):
                    edit(e["response"])
        return events

    return Rewriter(inner or mock_app(), on_json=on_json, on_sse=on_sse)


def _json(edit: Callable[[str, str, int, Any], tuple[int, Any]]) -> Rewriter:
    return Rewriter(mock_app(), on_json=edit)


def echo_drops_metadata() -> ASGIApp:
    """Responses echo `metadata: {}` whatever the request set."""
    return _responses(lambda r: r.update(metadata={}))


def previous_id_not_echoed() -> ASGIApp:
    """Chained responses carry `previous_response_id: null`."""
    return _responses(lambda r: r.update(previous_response_id=None))


def delete_not_deleted() -> ASGIApp:
    """DELETE answers `deleted: false`."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if method == "DELETE" and isinstance(value, dict) and "deleted" in value:
            value["deleted"] = False
        return status, value

    return _json(edit)


def input_items_not_a_list() -> ASGIApp:
    """input_items answers `object: "items"` and no `has_more`."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if path.endswith("/input_items") and isinstance(value, dict) and status == 200:
            value["object"] = "items"
            value.pop("has_more", None)
        return status, value

    return _json(edit)


def input_items_ignore_limit() -> ASGIApp:
    """input_items ignores `limit`: every item, `has_more: false`."""

    inner = mock_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("path", "").endswith("/input_items"):
            query = scope.get("query_string", b"").decode()
            kept = "&".join(q for q in query.split("&") if q and not q.startswith("limit="))
            scope = {**scope, "query_string": kept.encode()}
        await inner(scope, receive, send)

    return Rewriter(app)


def unknown_id_400() -> ASGIApp:
    """An unknown response id gets 400 instead of 404."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        return (400 if status == 404 else status), value

    return _json(edit)


def bad_input_500() -> ASGIApp:
    """Bad input gets 500 (the error body stays OpenAI's shape)."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        return (500 if status == 400 else status), value

    return _json(edit)


def param_not_named() -> ASGIApp:
    """A 400 names no field (`param: null`)."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if status == 400 and isinstance(value, dict) and isinstance(value.get("error"), dict):
            value["error"]["param"] = None
        return status, value

    return _json(edit)


def _rewrite_choice(old: str, new: str) -> ASGIApp:
    def on_request(method: str, path: str, value: Any) -> Any:
        if isinstance(value, dict) and value.get("tool_choice") == old:
            value["tool_choice"] = new
        return value

    return Rewriter(mock_app(), on_request=on_request)


def tool_choice_none_ignored() -> ASGIApp:
    """`tool_choice: none` is served as `required`: a call comes back."""
    return _rewrite_choice("none", "required")


def tool_choice_required_ignored() -> ASGIApp:
    """`tool_choice: required` is served as `none`: a message comes back."""
    return _rewrite_choice("required", "none")


def _calls(edit: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def each(response: dict[str, Any]) -> None:
        for item in response.get("output") or ():
            if isinstance(item, dict) and item.get("type") == "function_call":
                edit(item)

    return each


def arguments_not_json() -> ASGIApp:
    """Function call arguments that are not JSON (non-stream answers)."""
    return _responses(_calls(lambda c: c.update(arguments="{city: Paris")), stream=False)


def parallel_calls_share_call_id() -> ASGIApp:
    """Parallel calls all carry one `call_id` (non-stream answers)."""
    return _responses(_calls(lambda c: c.update(call_id="call_same")), stream=False)


def cancel_foreground_200() -> ASGIApp:
    """Cancelling a foreground response answers 200 with the response."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        return status, value

    inner = mock_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("path", "").endswith("/cancel"):
            scope = {**scope, "method": "GET", "path": scope["path"][: -len("/cancel")]}
        await inner(scope, receive, send)

    return Rewriter(app, on_json=edit)


def usage_differs_when_streamed() -> ASGIApp:
    """A streamed response reports one input token more than the same request not streamed."""

    def edit(response: dict[str, Any]) -> None:
        usage = response.get("usage")
        if isinstance(usage, dict):
            usage["input_tokens"] += 1
            usage["total_tokens"] += 1

    return _responses(edit, body=False)


def retrieved_usage_differs() -> ASGIApp:
    """GET /responses/{id} reports one output token more than the stream ended with."""

    def edit(response: dict[str, Any]) -> None:
        usage = response.get("usage")
        if isinstance(usage, dict):
            usage["output_tokens"] += 1
            usage["total_tokens"] += 1

    return _responses(edit, stream=False, where=lambda m, p: m == "GET")


def retrieved_output_differs() -> ASGIApp:
    """GET /responses/{id} returns another model name than the create call did."""
    return _responses(lambda r: r.update(model="other-model"), stream=False,
                      where=lambda m, p: m == "GET")  # fmt: skip


def nonstream_has_more_fields() -> ASGIApp:
    """Non-stream answers carry an extra field that streamed ones lack."""
    return _responses(lambda r: r.update(x_vendor_trace="t"), stream=False)


def structured_not_json() -> ASGIApp:
    """`text.format: json_schema` answered with text that is not JSON (non-stream answers)."""

    def edit(response: dict[str, Any]) -> None:
        fmt = (response.get("text") or {}).get("format") or {}
        if fmt.get("type") != "json_schema":
            return
        for item in response.get("output") or ():
            for part in item.get("content") or () if isinstance(item, dict) else ():
                if isinstance(part, dict) and part.get("type") == "output_text":
                    part["text"] = "Sure! " + part["text"]

    return _responses(edit, stream=False)


def reasoning_items_dropped() -> ASGIApp:
    """Reasoning requests are answered without reasoning items (non-stream answers)."""

    def edit(response: dict[str, Any]) -> None:
        output = response.get("output")
        if isinstance(output, list):
            response["output"] = [i for i in output if i.get("type") != "reasoning"]

    return _responses(edit, stream=False)


def sse_as_text_plain() -> ASGIApp:
    """Streams served as `Content-Type: text/plain`."""
    inner = mock_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        async def relabel(message: Any) -> None:
            if message.get("type") == "http.response.start":
                headers = [
                    (k, b"text/plain; charset=utf-8" if k.lower() == b"content-type"
                     and v.startswith(b"text/event-stream") else v)
                    for k, v in message.get("headers", [])
                ]  # fmt: skip
                message = {**message, "headers": headers}
            await send(message)

        await inner(scope, receive, relabel)

    return app


class _Remember:
    """What the last create request held, for a JSON hook that answers by it."""

    def __init__(self) -> None:
        self.body: Any = None

    def on_request(self, method: str, path: str, value: Any) -> Any:
        self.body = value
        return value


def _items_of(body: Any) -> list[Any]:
    value = body.get("input") if isinstance(body, dict) else None
    return value if isinstance(value, list) else []


def _refuse_when(test: Callable[[Any], bool]) -> ASGIApp:
    """A 400 in OpenAI's error shape for every create request ``test`` picks."""
    seen = _Remember()

    def on_json(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if method == "POST" and path.endswith("/responses") and test(seen.body):
            return 400, {"error": {"message": "Unsupported input.", "type":
                         "invalid_request_error", "param": "input", "code": None}}  # fmt: skip
        return status, value

    return Rewriter(mock_app(), on_request=seen.on_request, on_json=on_json)


def _blank_when(test: Callable[[Any], bool]) -> ASGIApp:
    """Create requests ``test`` picks are answered with a message whose text is empty."""
    seen = _Remember()

    def on_json(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if method == "POST" and path.endswith("/responses") and test(seen.body):
            for item in value.get("output") or () if isinstance(value, dict) else ():
                for part in item.get("content") or () if isinstance(item, dict) else ():
                    if isinstance(part, dict) and part.get("type") == "output_text":
                        part["text"] = ""
        return status, value

    return Rewriter(mock_app(), on_request=seen.on_request, on_json=on_json)


def call_output_with_previous_ignored() -> ASGIApp:
    """A `function_call_output` sent with `previous_response_id` is answered with no text."""
    return _blank_when(lambda b: bool(b.get("previous_response_id")) and any(
        isinstance(i, dict) and i.get("type") == "function_call_output" for i in _items_of(b)
    ))  # fmt: skip


def call_output_round_trip_ignored() -> ASGIApp:
    """A request carrying a `function_call` and its output (no previous id) is answered with no
    text."""
    return _blank_when(lambda b: not b.get("previous_response_id") and any(
        isinstance(i, dict) and i.get("type") == "function_call" for i in _items_of(b)
    ))  # fmt: skip


def developer_role_refused() -> ASGIApp:
    """A message with the `developer` role gets 400."""
    return _refuse_when(lambda b: any(
        isinstance(i, dict) and i.get("role") == "developer" for i in _items_of(b)
    ))  # fmt: skip


def unknown_previous_500() -> ASGIApp:
    """An unknown `previous_response_id` gets 500."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if method == "POST" and path.endswith("/responses") and status in (400, 404):
            return 500, {"error": {"message": "Internal error.", "type": "server_error",
                                   "param": None, "code": "server_error"}}  # fmt: skip
        return status, value

    return _json(edit)


def input_tokens_wrong_object() -> ASGIApp:
    """POST /responses/input_tokens answers `object: "count"`."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if path.endswith("/input_tokens") and isinstance(value, dict):
            value["object"] = "count"
        return status, value

    return _json(edit)


def input_tokens_off_by_one() -> ASGIApp:
    """POST /responses/input_tokens counts one token more than the responses report."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if path.endswith("/input_tokens") and isinstance(value, dict):
            value["input_tokens"] = int(value.get("input_tokens", 0)) + 1
        return status, value

    return _json(edit)


def create_answers_201() -> ASGIApp:
    """Non-stream create requests are answered 201."""

    def edit(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if method == "POST" and path.endswith("/responses") and status == 200:
            return 201, value
        return status, value

    return _json(edit)


def answer_is_a_refusal() -> ASGIApp:
    """Plain requests are answered with a refusal part instead of `output_text`."""

    def edit(response: dict[str, Any]) -> None:
        for item in response.get("output") or ():
            content = item.get("content") if isinstance(item, dict) else None
            for i, part in enumerate(content or ()):
                if isinstance(part, dict) and part.get("type") == "output_text":
                    content[i] = {"type": "refusal", "refusal": part.get("text", "")}

    return _responses(edit, stream=False)


def slow_creates() -> ASGIApp:
    """Create requests are answered after 3 s."""
    inner = mock_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method") == "POST":
            await asyncio.sleep(3)
        await inner(scope, receive, send)

    return app


def background_returned_completed() -> ASGIApp:
    """A `background: true` create is answered as if already `completed`."""
    seen = _Remember()

    def on_json(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        body = seen.body if isinstance(seen.body, dict) else {}
        running = isinstance(value, dict) and value.get("status") in ("queued", "in_progress")
        if method == "POST" and path.endswith("/responses") and body.get("background") and running:
            value["status"] = "completed"
        return status, value

    return Rewriter(mock_app(), on_request=seen.on_request, on_json=on_json)


def resume_skips_an_event() -> ASGIApp:
    """A resumed stream (`starting_after`) leaves out the first event it should replay."""

    def on_sse(method: str, path: str, events: Events) -> Events:
        if method == "GET" and len(events) > 2:
            return events[1:]
        return events

    return Rewriter(mock_app(), on_sse=on_sse)


def named_choice_ignored() -> ASGIApp:
    """A named `tool_choice` is served as `required`, with the named tool declared last."""

    def on_request(method: str, path: str, value: Any) -> Any:
        choice = value.get("tool_choice") if isinstance(value, dict) else None
        if isinstance(choice, dict) and choice.get("type") == "function":
            value["tool_choice"] = "required"
            tools = value.get("tools") or []
            value["tools"] = sorted(tools, key=lambda t: t.get("name") == choice.get("name"))
        return value

    return Rewriter(mock_app(), on_request=on_request)


def _rewrite_request(edit: Callable[[dict[str, Any]], None]) -> ASGIApp:
    def on_request(method: str, path: str, value: Any) -> Any:
        if isinstance(value, dict):
            edit(value)
        return value

    return Rewriter(mock_app(), on_request=on_request)


def calls_an_undeclared_tool() -> ASGIApp:
    """Function calls name a tool the request did not declare (`get_forecast`)."""

    def rename(item: Any) -> None:
        if isinstance(item, dict) and item.get("type") == "function_call":
            item["name"] = "get_forecast"

    def on_json(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        if isinstance(value, dict) and value.get("object") == "response":
            for item in value.get("output") or ():
                rename(item)
        return status, value

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is None:
                continue
            rename(e.get("item"))
            for item in (e.get("response") or {}).get("output") or ():
                rename(item)
        return events

    return Rewriter(mock_app(), on_json=on_json, on_sse=on_sse)


def _choice_to(kind: str, new: Any) -> Callable[[dict[str, Any]], None]:
    def edit(body: dict[str, Any]) -> None:
        choice = body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") == kind:
            body["tool_choice"] = new

    return edit


def allowed_tools_ignored() -> ASGIApp:
    """`tool_choice: allowed_tools` is served as `required` over every declared tool."""
    return _rewrite_request(_choice_to("allowed_tools", "required"))


def custom_choice_ignored() -> ASGIApp:
    """`tool_choice: {type: custom}` is served as `none`: a message comes back."""
    return _rewrite_request(_choice_to("custom", "none"))


def custom_input_off_grammar() -> ASGIApp:
    """A custom tool call's input gets a trailing `!` its grammar does not accept."""

    def edit(response: dict[str, Any]) -> None:
        for item in response.get("output") or ():
            if isinstance(item, dict) and item.get("type") == "custom_tool_call":
                item["input"] = str(item.get("input")) + "!"

    return _responses(edit)


def grammar_not_compiled() -> ASGIApp:
    """A custom tool's grammar is never read: its `format` is dropped before the mock sees it, so
    a grammar LLGuidance cannot compile (a lookahead regex) is answered 200 with free text."""

    def edit(body: dict[str, Any]) -> None:
        for tool in body.get("tools") or ():
            if isinstance(tool, dict) and tool.get("type") == "custom":
                tool.pop("format", None)

    return _rewrite_request(edit)


def hosted_calls_fail(kind: str) -> Callable[[], ASGIApp]:
    """Every `kind` item of a response ends `status: failed`."""

    def factory() -> ASGIApp:
        def edit(response: dict[str, Any]) -> None:
            for item in response.get("output") or ():
                if isinstance(item, dict) and item.get("type") == kind:
                    item["status"] = "failed"

        return _responses(edit)

    factory.__name__ = f"{kind}_fails"
    return factory


def custom_output_rejected() -> ASGIApp:
    """A request carrying `custom_tool_call_output` is answered with another call, not text."""

    def edit(body: dict[str, Any]) -> None:
        items = body.get("input")
        if isinstance(items, list) and any(
            isinstance(i, dict) and i.get("type") == "custom_tool_call_output" for i in items
        ):
            body["input"] = [i for i in items if i.get("type") in (None, "message")]
            body["tool_choice"] = "required"

    return _rewrite_request(edit)


def mcp_approval_id_dropped() -> ASGIApp:
    """An approved MCP call comes back with `approval_request_id: null`."""

    def edit(response: dict[str, Any]) -> None:
        for item in response.get("output") or ():
            if isinstance(item, dict) and item.get("type") == "mcp_call":
                item["approval_request_id"] = None

    return _responses(edit)


def max_tool_calls_ignored() -> ASGIApp:
    """`max_tool_calls` is dropped from the request: every search the prompt asks for is made."""
    return _rewrite_request(lambda body: body.pop("max_tool_calls", None))


def tool_search_skipped() -> ASGIApp:
    """Deferred tools are served as ordinary ones: the `tool_search` tool and every
    `defer_loading` are dropped, so the deferred tool is called without being searched for."""

    def edit(body: dict[str, Any]) -> None:
        tools = [t for t in body.get("tools") or () if t.get("type") != "tool_search"]
        for tool in tools:
            tool.pop("defer_loading", None)
        if "tools" in body:
            body["tools"] = tools

    return _rewrite_request(edit)


def client_tool_search_run_by_server() -> ASGIApp:
    """A client-executed `tool_search` is run by the server (its `execution` dropped)."""

    def edit(body: dict[str, Any]) -> None:
        for tool in body.get("tools") or ():
            if tool.get("type") == "tool_search":
                tool.pop("execution", None)

    return _rewrite_request(edit)


def client_call_output_ignored() -> ASGIApp:
    """The output of a client-run built-in call (shell, apply_patch, computer) is ignored: the
    turn that carries it is served as the first one again, so the call is made anew."""
    outputs = ("shell_call_output", "apply_patch_call_output", "computer_call_output")

    def edit(body: dict[str, Any]) -> None:
        items = body.get("input")
        if not isinstance(items, list) or not any(
            isinstance(i, dict) and i.get("type") in outputs for i in items
        ):
            return
        body["input"] = [i for i in items if isinstance(i, dict) and i.get("role") == "user"][:1]
        tools = [t for t in body.get("tools") or () if isinstance(t, dict)]
        if tools:
            body["tool_choice"] = {"type": tools[0]["type"]}

    return _rewrite_request(edit)


def running_mock() -> ASGIApp:
    """The mock with a millisecond between deltas, as the embedded target runs it
    (conformance/suite/embedded.py): a background response still runs when the suite cancels it
    (at no delay it has finished before the cancel arrives, and the case skips)."""
    return mock_app(latency=Latency(inter_token=0.001))


def steerable_mock() -> ASGIApp:
    """The mock with 10 ms between deltas: its 40–80-token answers last about half a second, so
    the steering case's steer reaches a running response even on a loaded machine."""
    return mock_app(latency=Latency(inter_token=0.01))


def cancel_ends_failed() -> ASGIApp:
    """Cancelling a running background response aborts it as `failed` (with an error), not
    `cancelled`: the cancel answer and every later retrieve say so."""

    def edit(response: dict[str, Any]) -> None:
        if response.get("status") == "cancelled":
            response["status"] = "failed"
            response["error"] = {"code": "server_error", "message": "The response was aborted."}

    return _responses(edit, stream=False, inner=running_mock())


def cancel_answers_an_ack() -> ASGIApp:
    """`POST /responses/{id}/cancel` answers 200 with an acknowledgement
    `{id, object: "response.cancellation", cancelled: true}` instead of the Response: the suite
    cannot read the status it needs from it (the case stops with an error)."""

    def on_json(method: str, path: str, status: int, value: Any) -> tuple[int, Any]:
        cancel = method == "POST" and path.endswith("/cancel") and status == 200
        if cancel and isinstance(value, dict) and value.get("object") == "response":
            value = {"id": value.get("id"), "object": "response.cancellation", "cancelled": True}
        return status, value

    return Rewriter(running_mock(), on_json=on_json)


def previous_response_ignored() -> ASGIApp:
    """`previous_response_id` is silently ignored (each turn sees only its own input), yet
    echoed on the answer: the model cannot repeat what an earlier turn told it."""

    def on_request(method: str, path: str, value: Any) -> Any:
        if isinstance(value, dict) and value.get("previous_response_id"):
            value.setdefault("metadata", {})["ignored_previous"] = value.pop("previous_response_id")
        return value

    def restore(response: dict[str, Any]) -> None:
        metadata = response.get("metadata") or {}
        if "ignored_previous" in metadata:
            response["previous_response_id"] = metadata.pop("ignored_previous")

    return _responses(restore, inner=Rewriter(mock_app(), on_request=on_request))


def image_input_refused() -> ASGIApp:
    """An `input_image` part is refused with a 400 (a text-only server: what Open Responses'
    `image-input` test catches); every other request is served."""

    inner = mock_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await inner(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if b'"input_image"' not in body:
            sent = False

            async def replay() -> Any:
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await inner(scope, replay, send)
            return
        error = {"message": "Image input is not supported by this model.",
                 "type": "invalid_request_error", "param": "input", "code": None}  # fmt: skip
        payload = json.dumps({"error": error}).encode()
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json")]})  # fmt: skip
        await send({"type": "http.response.body", "body": payload})

    return app


_CHECKS: dict[str, Broken] = {
    "cancel_ends_failed": Broken(cancel_ends_failed, "cancel_running", "core,stateful",
                                 frozenset({"live.background.cancel"}), near_miss=running_mock),
    "cancel_answers_an_ack": Broken(cancel_answers_an_ack, "cancel_running", "core,stateful",
                                    frozenset({"live.case.completed"}), near_miss=running_mock),
    "previous_response_ignored": Broken(previous_response_ignored, "chain_recall",
                                        "core,stateful", frozenset({"live.previous_response.recall"}),
                                        instructions=True),
    "calls_an_undeclared_tool": Broken(calls_an_undeclared_tool, "tool_choice_auto", "core,tools",
                                       frozenset({"live.tools.auto"})),
    "sse_as_text_plain": Broken(sse_as_text_plain, "create_stream and string", "core",
                                frozenset({"live.stream.content_type"})),
    "call_output_with_previous_ignored": Broken(call_output_with_previous_ignored,
                                                "chain_tool_round_trip", "core,stateful,tools",
                                                frozenset({"live.previous_response.tool_round_trip"})),
    "call_output_round_trip_ignored": Broken(call_output_round_trip_ignored,
                                             "function_call_output_round_trip", "core,tools",
                                             frozenset({"live.tools.output_round_trip"})),
    "developer_role_refused": Broken(developer_role_refused, "test_create and not stream", "core",
                                     frozenset({"live.create.input_forms"})),
    "unknown_previous_500": Broken(unknown_previous_500, "previous_response_unknown",
                                   "core,stateful", frozenset({"live.previous_response.unknown"})),
    "input_tokens_wrong_object": Broken(input_tokens_wrong_object, "chain_history_by_usage",
                                        "core,stateful", frozenset({"live.input_tokens.count"})),
    "input_tokens_off_by_one": Broken(input_tokens_off_by_one, "chain_history_by_usage",
                                      "core,stateful",
                                      frozenset({"live.input_tokens.matches_usage"}), should=True),
    "create_answers_201": Broken(create_answers_201, "retrieve_equals_created", "core,stateful",
                                 frozenset({"live.http.status_ok"})),
    "answer_is_a_refusal": Broken(answer_is_a_refusal, "test_create and string and not stream",
                                  "core", frozenset({"live.create.answer"})),
    "slow_creates": Broken(slow_creates, "test_create and string and not stream", "core",
                           frozenset({"live.transport.deadline"}), timeout="1"),
    "background_returned_completed": Broken(background_returned_completed, "background_poll",
                                            "core,stateful",
                                            frozenset({"live.background.lifecycle"})),
    "resume_skips_an_event": Broken(resume_skips_an_event, "resume", "core,stateful",
                                    frozenset({"live.background.resume"})),
    "named_choice_ignored": Broken(named_choice_ignored, "tool_choice_named", "core,tools",
                                   frozenset({"live.tools.named"})),
    "echo_drops_metadata": Broken(echo_drops_metadata, "test_create and not stream", "core",
                                  frozenset({"live.response.echo"})),
    "previous_id_not_echoed": Broken(previous_id_not_echoed, "chain_history_by_usage",
                                     "core,stateful",
                                     frozenset({"live.previous_response.echo"})),
    "delete_not_deleted": Broken(delete_not_deleted, "delete", "core,stateful",
                                 frozenset({"live.store.delete"})),
    "input_items_not_a_list": Broken(input_items_not_a_list, "input_items", "core,stateful",
                                     frozenset({"live.input_items.list"})),
    "input_items_ignore_limit": Broken(input_items_ignore_limit, "input_items", "core,stateful",
                                       frozenset({"live.input_items.paging"})),
    "unknown_id_400": Broken(unknown_id_400, "unknown_response_id", "core,stateful",
                             frozenset({"live.errors.not_found_404"})),
    "bad_input_500": Broken(bad_input_500, "bad_input", "core",
                            frozenset({"live.errors.bad_input_4xx"})),
    "param_not_named": Broken(param_not_named, "bad_input", "core",
                              frozenset({"live.errors.param_named"}), should=True),
    "tool_choice_none_ignored": Broken(tool_choice_none_ignored, "tool_choice_none", "core,tools",
                                       frozenset({"live.tools.none"})),
    "tool_choice_required_ignored": Broken(tool_choice_required_ignored,
                                           "tool_choice_required", "core,tools",
                                           frozenset({"live.tools.required"})),
    "arguments_not_json": Broken(arguments_not_json, "tool_choice_required and nonstream",
                                 "core,tools", frozenset({"live.tools.arguments_valid"})),
    "parallel_calls_share_call_id": Broken(parallel_calls_share_call_id, "parallel_calls",
                                           "core,tools", frozenset({"live.tools.parallel"})),
    "cancel_foreground_200": Broken(cancel_foreground_200, "cancel_foreground", "core,stateful",
                                    frozenset({"live.background.cancel_foreground_4xx"}),
                                    should=True),
    "usage_differs_when_streamed": Broken(usage_differs_when_streamed, "stream_equals_nonstream",
                                          "core",
                                          frozenset({"live.usage.stream_equals_nonstream"})),
    "retrieved_usage_differs": Broken(retrieved_usage_differs, "retrieve_equals_streamed",
                                      "core,stateful",
                                      frozenset({"live.usage.retrieve_equals_stream"})),
    "retrieved_output_differs": Broken(retrieved_output_differs, "retrieve_equals_created",
                                       "core,stateful", frozenset({"live.store.retrieve_equals"})),
    "nonstream_has_more_fields": Broken(nonstream_has_more_fields, "stream_equals_nonstream",
                                        "core", frozenset({"live.stream.equals_nonstream"})),
    "structured_not_json": Broken(structured_not_json, "json_schema and nonstream",
                                  "core,structured", frozenset({"live.structured.json_schema"})),
    "reasoning_items_dropped": Broken(reasoning_items_dropped, "reasoning", "core,reasoning",
                                      frozenset({"live.reasoning.items"})),
    "image_input_refused": Broken(image_input_refused, "image_input_data_url",
                                  "core,openresponses",
                                  frozenset({"live.openresponses.image_input"})),
    "allowed_tools_ignored": Broken(allowed_tools_ignored, "allowed_tools", "core,tools",
                                    frozenset({"live.tools.allowed_tools"})),
    "custom_choice_ignored": Broken(custom_choice_ignored, "custom_tool_freeform",
                                    "core,custom-tools", frozenset({"live.custom_tools.call"})),
    "custom_input_off_grammar": Broken(custom_input_off_grammar, "custom_tool_grammar",
                                       "core,custom-tools",
                                       frozenset({"live.custom_tools.grammar"})),
    "grammar_not_compiled": Broken(grammar_not_compiled, "custom_tool_grammar_refused",
                                   "core,custom-tools",
                                   frozenset({"live.custom_tools.grammar_refused"}), should=True),
    "custom_output_rejected": Broken(custom_output_rejected, "custom_tool_output_round_trip",
                                     "core,custom-tools",
                                     frozenset({"live.custom_tools.output_round_trip"})),
    "mcp_approval_id_dropped": Broken(mcp_approval_id_dropped, "mcp_approval_round_trip",
                                      "core,hosted:mcp", frozenset({"live.hosted.mcp_approval"})),
    "max_tool_calls_ignored": Broken(max_tool_calls_ignored, "max_tool_calls",
                                     "core,hosted:web_search",
                                     frozenset({"live.hosted.max_tool_calls"})),
    **{
        f"{kind}_output_ignored": Broken(client_call_output_ignored, f"{case}_call_round_trip",
                                         f"core,hosted:{profile}", frozenset({f"live.hosted.{profile}"}))
        for case, kind, profile in (("shell", "shell", "shell"),
                                    ("apply_patch", "apply_patch", "apply_patch"),
                                    ("computer", "computer", "computer_use_preview"))
    },
    "tool_search_skipped": Broken(tool_search_skipped, "tool_search_loads", "core,hosted:tool_search",
                                  frozenset({"live.hosted.tool_search"})),
    "client_tool_search_run_by_server": Broken(client_tool_search_run_by_server,
                                               "client_tool_search", "core,hosted:tool_search",
                                               frozenset({"live.hosted.tool_search_client"})),
    **{
        f"{kind}_fails": Broken(hosted_calls_fail(kind), f"{case}_forced", f"core,hosted:{case}",
                                frozenset({f"live.hosted.{case}"}))
        for case, kind in (("web_search", "web_search_call"), ("file_search", "file_search_call"),
                           ("code_interpreter", "code_interpreter_call"),
                           ("image_generation", "image_generation_call"), ("mcp", "mcp_call"))
    },
}  # fmt: skip

# the state profiles' checks (tests/suite/broken_state_servers.py); their cases recall
# code words across turns, so they run with a model that follows instructions (the mock does).
_STATE = {
    b.factory.__name__: Broken(b.factory, b.keyword, b.profiles, frozenset({check}), b.should,
                               instructions=True)
    for check, b in BROKEN_STATE.items()
}  # fmt: skip

# server name -> how to show it: the cases to run and the profiles to declare
LIVE: dict[str, Broken] = {b.factory.__name__: b for b in BROKEN.values()} | _CHECKS | _STATE

# WebSocket mode's servers (a module of their own: they rewrite frames, not HTTP bodies)
from broken_ws_servers import WS_LIVE  # noqa: E402

LIVE |= WS_LIVE

# The client profiles' gateways (one per defect class of a real client's requests)
from broken_client_servers import ACCUMULATOR_LIVE, CLIENT_LIVE  # noqa: E402

LIVE |= CLIENT_LIVE | ACCUMULATOR_LIVE
