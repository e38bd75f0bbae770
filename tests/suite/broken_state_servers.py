"""One deliberately broken server per live check of the state profiles: conversations,
compaction, stateless reasoning, include. Each is the mock behind a :class:`Rewriter` that adds one
defect — most of them ones the issue measured on real servers (the mock before it: `conversation`
silently ignored, no `encrypted_content`, bogus `include` values accepted) — so the suite must
name it by its check ID. ``BROKEN_STATE[check_id]`` gives the server and the cases to run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from suite_support import ASGIApp, Rewriter, mock_app

Events = list[dict[str, Any] | None]


def _responses(body: Any) -> list[dict[str, Any]]:
    return [body] if isinstance(body, dict) and body.get("object") == "response" else []


def _in_events(events: Events) -> list[dict[str, Any]]:
    out = []
    for e in events:
        if e is None:
            continue
        if isinstance(e.get("response"), dict):
            out.append(e["response"])
        if isinstance(e.get("item"), dict):
            out.append({"output": [e["item"]]})
    return out


def _every_response(edit: Callable[[dict[str, Any]], None], **hooks: Any) -> ASGIApp:
    """The mock with ``edit`` applied to every Response it sends (JSON and streamed)."""

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        for response in _responses(body):
            edit(response)
        return status, body

    def on_sse(method: str, path: str, events: Events) -> Events:
        for response in _in_events(events):
            edit(response)
        return events

    return Rewriter(mock_app(), on_json=on_json, on_sse=on_sse, **hooks)


def _json_only(edit: Callable[[str, str, int, Any], tuple[int, Any]]) -> ASGIApp:
    return Rewriter(mock_app(), on_json=edit)


def _requests_only(edit: Callable[[str, str, Any], Any]) -> ASGIApp:
    return Rewriter(mock_app(), on_request=edit)


# --- conversations ---------------------------------------------------------------------------


def update_ignored() -> ASGIApp:
    """`POST /conversations/{id}` answers 200 but keeps the old metadata."""

    def edit(method: str, path: str, body: Any) -> Any:
        if method == "POST" and path.startswith("/v1/conversations/") and "/items" not in path:
            return {}
        return body

    return _requests_only(edit)


def conversation_ignored() -> ASGIApp:
    """`conversation` on create is silently ignored (what the mock once did): no
    history, no items appended — but the echo kept, so only the semantics fail."""

    def on_request(method: str, path: str, body: Any) -> Any:
        if path == "/v1/responses" and isinstance(body, dict) and "conversation" in body:
            metadata = dict(body.get("metadata") or {})
            metadata["asked_conversation"] = str(body.pop("conversation"))
            body["metadata"] = metadata
        return body

    def restore(response: dict[str, Any]) -> None:
        metadata = response.get("metadata") or {}
        cid = metadata.pop("asked_conversation", None)
        if cid is not None:
            response["conversation"] = {"id": cid}

    return _every_response(restore, on_request=on_request)


def conversation_not_echoed() -> ASGIApp:
    """The Response says `conversation: null` although one was given."""

    def edit(response: dict[str, Any]) -> None:
        if "conversation" in response:
            response["conversation"] = None

    return _every_response(edit)


def items_reversed() -> ASGIApp:
    """`GET /conversations/{id}/items` lists the items in the wrong order."""

    def edit(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if (
            path.endswith("/items")
            and isinstance(body, dict)
            and isinstance(body.get("data"), list)
        ):
            body["data"].reverse()
            if body["data"]:
                body["first_id"], body["last_id"] = body["data"][0]["id"], body["data"][-1]["id"]
        return status, body

    return _json_only(edit)


def paging_ignored() -> ASGIApp:
    """`limit` and `after` on conversation items are ignored: one page, `has_more: false`."""
    mock = mock_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].endswith("/items"):
            query = scope.get("query_string", b"").decode()
            kept = [p for p in query.split("&") if p.startswith("order=")]
            scope = dict(scope, query_string="&".join(kept).encode())
        await mock(scope, receive, send)

    return app


def conversation_delete_keeps_it() -> ASGIApp:
    """`DELETE /conversations/{id}` answers `deleted: true` but deletes nothing: the
    conversation is still there afterwards."""

    def edit(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if method == "GET" and isinstance(body, dict) and body.get("object") == "conversation":
            body = {"id": body["id"], "object": "conversation.deleted", "deleted": True}
        return status, body

    inner = _json_only(edit)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "DELETE":
            scope = dict(scope, method="GET")  # answered as a retrieve: nothing is deleted
        await inner(scope, receive, send)

    return app


def previous_response_dropped() -> ASGIApp:
    """`conversation` with `previous_response_id` is accepted: the id is silently dropped."""

    def edit(method: str, path: str, body: Any) -> Any:
        if isinstance(body, dict) and "conversation" in body:
            body.pop("previous_response_id", None)
        return body

    return _requests_only(edit)


def unknown_conversation_500() -> ASGIApp:
    """An unknown conversation id is a 500, not a 404."""

    def edit(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if status == 404:
            return 500, {"error": {"message": "boom", "type": "server_error", "param": None,
                                   "code": None}}  # fmt: skip
        return status, body

    return _json_only(edit)


# --- compaction ------------------------------------------------------------------------------


def compact_without_item() -> ASGIApp:
    """`/responses/compact` answers the history back without a compaction item."""

    def edit(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if path.endswith("/responses/compact") and isinstance(body, dict):
            body["output"] = [i for i in body.get("output") or () if i.get("type") != "compaction"]
        return status, body

    return _json_only(edit)


def compaction_input_dropped() -> ASGIApp:
    """Compaction items in `input` are accepted and dropped: the continuation lost its history."""

    def edit(method: str, path: str, body: Any) -> Any:
        if (
            path == "/v1/responses"
            and isinstance(body, dict)
            and isinstance(body.get("input"), list)
        ):
            kept = [
                i
                for i in body["input"]
                if not (isinstance(i, dict) and i.get("type") == "compaction")
            ]
            body["input"] = [i for i in kept if not (isinstance(i, dict) and i.get("role") == "user"
                             and "Remember" in str(i.get("content")))]  # fmt: skip
        return body

    return _requests_only(edit)


def compact_default_model() -> ASGIApp:
    """`/responses/compact` without `model` compacts with a default model instead of a 400."""

    def edit(method: str, path: str, body: Any) -> Any:
        if path.endswith("/responses/compact") and isinstance(body, dict):
            body.setdefault("model", "mock")
        return body

    return _requests_only(edit)


# --- stateless reasoning, include ------------------------------------------------------------


def encrypted_dropped() -> ASGIApp:
    """`include: [reasoning.encrypted_content]` honoured by no one: no blob ever."""

    def edit(response: dict[str, Any]) -> None:
        for item in response.get("output") or ():
            if isinstance(item, dict) and item.get("type") == "reasoning":
                item.pop("encrypted_content", None)

    return _every_response(edit)


def encrypted_always() -> ASGIApp:
    """Encrypted content sent although `include` did not ask for it."""

    def edit(method: str, path: str, body: Any) -> Any:
        if path == "/v1/responses" and isinstance(body, dict):
            body["include"] = ["reasoning.encrypted_content"]
        return body

    return _requests_only(edit)


def encrypted_not_round_tripping() -> ASGIApp:
    """A blob made under another key every time: the server's own blob is refused back."""

    def edit(method: str, path: str, body: Any) -> Any:
        for item in body.get("input") or () if isinstance(body, dict) else ():
            if isinstance(item, dict) and isinstance(item.get("encrypted_content"), str):
                item["encrypted_content"] = item["encrypted_content"][::-1]
        return body

    return _requests_only(edit)


def tampered_accepted() -> ASGIApp:
    """An altered blob is accepted: the server never authenticates what comes back."""

    def edit(method: str, path: str, body: Any) -> Any:
        for item in body.get("input") or () if isinstance(body, dict) else ():
            if isinstance(item, dict) and item.get("type") == "reasoning":
                item.pop("encrypted_content", None)
        return body

    return _requests_only(edit)


def shell_items_refused() -> ASGIApp:
    """A server that knows no `shell_call` items: 400 on an agent's history."""

    def edit(method: str, path: str, body: Any) -> Any:
        for item in body.get("input") or () if isinstance(body, dict) else ():
            if isinstance(item, dict) and item.get("type") == "shell_call":
                item["type"] = "shell_invocation"
        return body

    return _requests_only(edit)


def include_unchecked() -> ASGIApp:
    """`include` values are not checked: a bogus one is ignored."""

    def edit(method: str, path: str, body: Any) -> Any:
        if isinstance(body, dict):
            body.pop("include", None)
        return body

    return _requests_only(edit)


@dataclass(frozen=True)
class BrokenState:
    factory: Callable[[], ASGIApp]
    keyword: str  # the cases that show the defect (pytest -k)
    profiles: str
    should: bool = False  # a SHOULD check: fails only under --strict


BROKEN_STATE: dict[str, BrokenState] = {
    "live.conversation.crud": BrokenState(update_ignored, "conversation_crud", "conversations"),
    "live.conversation.echo": BrokenState(conversation_not_echoed, "history_recall", "conversations"),
    "live.conversation.history": BrokenState(conversation_ignored, "history_recall", "conversations"),
    "live.conversation.items_appended": BrokenState(
        items_reversed, "items_appended", "conversations"),
    "live.conversation.items_paging": BrokenState(paging_ignored, "items_paging", "conversations"),
    "live.conversation.delete": BrokenState(conversation_delete_keeps_it, "conversation_delete", "conversations"),
    "live.conversation.with_previous_response": BrokenState(
        previous_response_dropped, "with_previous", "conversations"),
    "live.conversation.unknown": BrokenState(
        unknown_conversation_500, "conversation_unknown", "conversations"),
    "live.compaction.compact": BrokenState(compact_without_item, "test_compact", "compaction"),
    "live.compaction.continue": BrokenState(
        compaction_input_dropped, "compacted_window", "compaction"),
    "live.compaction.model_required": BrokenState(
        compact_default_model, "compact_without_model", "compaction"),
    "live.stateless.encrypted_present": BrokenState(
        encrypted_dropped, "when_asked", "stateless-reasoning"),
    "live.stateless.encrypted_absent": BrokenState(
        encrypted_always, "unless_asked", "stateless-reasoning", should=True),
    "live.stateless.encrypted_accepted": BrokenState(
        encrypted_not_round_tripping, "sent_back", "stateless-reasoning"),
    "live.stateless.encrypted_tampered": BrokenState(
        tampered_accepted, "tampered", "stateless-reasoning"),
    "live.stateless.history_items": BrokenState(
        shell_items_refused, "item_type", "stateless-reasoning"),
    "live.include.unknown": BrokenState(
        include_unchecked, "unknown_include", "stateless-reasoning", should=True),
}  # fmt: skip
