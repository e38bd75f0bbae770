"""Misbehaving WebSocket servers, one per ``live.ws.*`` check (its example, declared in its
section module, conformance/sections/s8_*.py): the mock with its WebSocket frames rewritten on the
way in or out."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from broken_servers import Broken, steerable_mock
from suite_support import ASGIApp, mock_app

Edit = Callable[[dict[str, Any]], dict[str, Any] | None]


def _ws(
    out: Edit | None = None,
    into: Edit | None = None,
    *,
    refuse: bool = False,
    inner: ASGIApp | None = None,
) -> ASGIApp:
    inner = inner or mock_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await inner(scope, receive, send)
            return
        if refuse:
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return

        async def sending(message: dict[str, Any]) -> None:
            if out is not None and message["type"] == "websocket.send" and message.get("text"):
                edited = out(json.loads(message["text"]))
                if edited is None:
                    return
                message = {**message, "text": json.dumps(edited)}
            await send(message)

        async def receiving() -> dict[str, Any]:
            message: dict[str, Any] = await receive()
            if into is not None and message["type"] == "websocket.receive" and message.get("text"):
                try:
                    event = json.loads(message["text"])
                except ValueError:
                    return message
                if isinstance(event, dict):
                    edited = into(event)
                    message = {**message, "text": json.dumps(edited)}
            return message

        await inner(scope, receiving, sending)

    return app


def _on_terminal(edit: Callable[[dict[str, Any]], None]) -> Edit:
    def each(event: dict[str, Any]) -> dict[str, Any]:
        if event.get("type") in ("response.completed", "response.incomplete"):
            edit(event["response"])
        return event

    return each


def ws_refuses_upgrade() -> ASGIApp:
    return _ws(refuse=True)


def ws_answers_drop_metadata() -> ASGIApp:
    return _ws(_on_terminal(lambda r: r.update(metadata={})))


def ws_previous_id_dropped() -> ASGIApp:
    return _ws(_on_terminal(lambda r: r.update(previous_response_id=None)))


def ws_background_accepted() -> ASGIApp:
    return _ws(into=lambda e: {k: v for k, v in e.items() if k != "background"})


def ws_silent_after_error() -> ASGIApp:
    seen: dict[str, bool] = {}

    def out(event: dict[str, Any]) -> dict[str, Any] | None:
        if seen.get("error"):
            return None
        if event.get("type") == "error":
            seen["error"] = True
        return event

    return _ws(out)


def ws_extra_field() -> ASGIApp:
    return _ws(_on_terminal(lambda r: r.update(ws_only_field=True)))


def ws_steer_dropped() -> ASGIApp:
    """Steering input accepted, then dropped: the successor that would commit it never comes
    (its frames are cut), though `response.steer.accepted` said the server owns the input."""
    steered: set[str] = set()
    dropping: dict[str, bool] = {}

    def out(event: dict[str, Any]) -> dict[str, Any] | None:
        etype = event.get("type")
        if etype == "response.steer.accepted":
            steered.add(str((event.get("steer") or {}).get("previous_response_id")))
        elif etype == "response.created":
            previous = (event.get("response") or {}).get("previous_response_id")
            dropping["on"] = previous in steered
        return None if dropping.get("on") else event

    return _ws(out, inner=steerable_mock())


def _is_create(event: dict[str, Any]) -> bool:
    return event.get("type") == "response.create"


def ws_store_false_forgotten() -> ASGIApp:
    """No connection state: every `store: false` continuation names a response the server never
    had (what the mock answered before it kept one)."""

    def into(event: dict[str, Any]) -> dict[str, Any]:
        if _is_create(event) and event.get("store") is False and event.get("previous_response_id"):
            return {**event, "previous_response_id": "resp_forgotten"}
        return event

    return _ws(into=into)


def ws_store_false_shared() -> ASGIApp:
    """`store: false` kept for every connection: creates are stored (echoed `store: false`)."""

    def into(event: dict[str, Any]) -> dict[str, Any]:
        return {**event, "store": True} if _is_create(event) else event

    def out(event: dict[str, Any]) -> dict[str, Any]:
        if isinstance(event.get("response"), dict):
            event["response"]["store"] = False
        return event

    return _ws(out, into)


def ws_keeps_after_failure() -> ASGIApp:
    """A refused continuation does not evict its parent: the server refuses it (a bad
    `temperature`) before it sees it as a continuation."""

    def into(event: dict[str, Any]) -> dict[str, Any]:
        if _is_create(event) and isinstance(event.get("temperature"), str):
            return {k: v for k, v in event.items() if k != "previous_response_id"}
        return event

    return _ws(into=into)


def ws_generate_ignored() -> ASGIApp:
    return _ws(into=lambda e: {k: v for k, v in e.items() if k != "generate"})


WS_LIVE: dict[str, Broken] = {
    "ws_refuses_upgrade": Broken(ws_refuses_upgrade, "websocket and create_over_the_socket",
                                 "websocket", frozenset({"live.ws.upgrade"})),
    "ws_answers_drop_metadata": Broken(ws_answers_drop_metadata, "websocket and several_responses",
                                       "websocket", frozenset({"live.ws.responses"})),
    "ws_previous_id_dropped": Broken(ws_previous_id_dropped, "websocket and across_lanes",
                                     "websocket", frozenset({"live.ws.previous_across_lanes"})),
    "ws_background_accepted": Broken(ws_background_accepted, "websocket and background_is",
                                     "websocket", frozenset({"live.ws.background_rejected"})),
    "ws_silent_after_error": Broken(ws_silent_after_error, "websocket and unknown-type",
                                    "websocket", frozenset({"live.ws.after_error"})),
    "ws_extra_field": Broken(ws_extra_field, "websocket and same_response",
                             "websocket", frozenset({"live.ws.same_as_sse"})),
    "ws_store_false_forgotten": Broken(ws_store_false_forgotten, "websocket and continues_on_its",
                                       "websocket", frozenset({"live.ws.store_false_continued"})),
    "ws_store_false_shared": Broken(ws_store_false_shared, "websocket and unknown_on_a_new",
                                    "websocket", frozenset({"live.ws.connection_local"})),
    "ws_keeps_after_failure": Broken(ws_keeps_after_failure, "websocket and evicts_its_parent",
                                     "websocket", frozenset({"live.ws.evicted_after_failure"}),
                                     should=True),
    "ws_generate_ignored": Broken(ws_generate_ignored, "websocket and generate_false",
                                  "websocket", frozenset({"live.ws.generate_false"})),
    "ws_steer_dropped": Broken(ws_steer_dropped, "steering_a_running_response",
                               "websocket,websocket:steering", frozenset({"live.ws.steering"}),
                               timeout="2", near_miss=steerable_mock),
}  # fmt: skip
