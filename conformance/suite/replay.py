"""A client's captured flow replayed against a target (the client profiles, docs/spec.md §9).

Each exchange of a flow (:mod:`conformance.clients.captured_flows`) is sent as the client sent it — the body,
streamed or not, over HTTP or over WebSocket, the agent script that steered the mock it was
captured from (``x-mock-script``: a scripted server follows it, any other ignores it) — with
the target's model substituted and every name an earlier answer bound (``<resp_1>``,
``<call_2>``, ``<encrypted_3>``) replaced by what the target returned there (the script's long
replies are cut: they only made the client compact when it was captured). An assistant message
replayed with the id of a message the target returned gets the ``phase`` the target gave it, as
the clients that replay output items whole do (codex-rs ``ResponseItem::Message``, the Agents
SDK's ``to_input_item``); so does an assistant message without an id that the Agents SDK's
conversation session adds to a conversation (the last answer's message).

Every answer goes through the judge (the probe). A refusal is located (:func:`locate`, then
:func:`removals`: the request resent without one part at a time) and fails the client's check
for that part, with the server's answer as evidence. A chain on a streamed parent is sent the
moment the parent's stream ended, then twice more on each streamed link.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

from ..clients.captured_flows import Flow
from ..sections import s9_clients as S
from ..sections import s9_vercel_ai as V
from ..sections.accumulators import STREAM_ACCUMULATORS
from ..sections.case_support import poll_until_terminal
from .http import HttpExchange
from .probe import CaseAborted, Probe

__all__ = ["FlowReplay"]

_NAME = re.compile(r"<([a-z]+)_(\d+)>")
# Names a request needs the target's own value for; a stand-in for any other (a call id the
# model did not mint, an item id of a stateless replay) keeps the request self-consistent.
_MUST_BIND = frozenset({"resp", "conv", "encrypted"})
_ID_PATTERN = re.compile(
    r"\b(resp|msg|fc|fco|rs|call|conv|cmp|cmpt|ws|ctc|ci|fs|item|rsp|req|sess|ig|tsc|tso|cu)"
    r"_(?:(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{8,}|[A-Za-z]{16,})\b"
)
_BLOB = re.compile(r'"encrypted_content"\s*:\s*"([^"]+)"')
_MAX_REMOVALS = 24
# Headers of the capture the replay does not send: credentials (redacted in the capture; the
# target's key is the suite's), the framing the suite's client sets.
_NOT_SENT = frozenset(
    {
        "authorization", "api-key", "x-api-key", "cookie", "openai-organization",
        "openai-project", "content-type", "accept", "accept-encoding", "content-length", "host",
    }
)  # fmt: skip
_TERMINAL = frozenset(
    {"response.completed", "response.incomplete", "response.failed", "error", "response.error"}
)
CHAIN_LINKS = 2  # more streamed links after a chain on a streamed parent


def _returned(text: str) -> list[tuple[str, str]]:
    """(kind, value) of each id and encrypted blob in an answer, in order."""
    found = [(m.start(), m.group(1), m.group(0)) for m in _ID_PATTERN.finditer(text)]
    found += [(m.start(1), "encrypted", m.group(1)) for m in _BLOB.finditer(text)]
    return [(kind, value) for _, kind, value in sorted(found)]


class FlowReplay:
    """One flow of one client against the probe's target: :meth:`run` sends its exchanges."""

    def __init__(self, probe: Probe, flow: Flow) -> None:
        self.probe = probe
        self.flow = flow
        self.bound: dict[str, str] = {}  # name → what the target returned there
        self.stand_ins: dict[str, str] = {}  # name → a value of the replay's own
        self.streamed: set[str] = set()  # ids of responses the target streamed
        self.items: dict[str, dict[str, Any]] = {}  # output items the target returned, by id
        self.last_messages: list[dict[str, Any]] = []  # the last answer's assistant messages
        self.who = S.NAMES[flow.client][0]

    # ------------------------------------------------------------------ names

    def fill(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if isinstance(value, str):
            return _NAME.sub(self._value, value)
        return value

    def _value(self, match: re.Match[str]) -> str:
        name = match.group(0)
        if name in self.bound:
            return self.bound[name]
        kind, n = match.group(1), int(match.group(2))
        if kind in _MUST_BIND:
            return name
        if kind == "uuid":
            return self.stand_ins.setdefault(name, f"00000000-0000-4000-8000-{n:012d}")
        return self.stand_ins.setdefault(name, f"{kind}_replay{n:08d}")

    def unbound(self, value: Any) -> list[str]:
        """Names in ``value`` only the target's answers can fill, still unfilled."""
        text = json.dumps(value)
        return sorted(
            {
                m.group(0)
                for m in _NAME.finditer(text)
                if m.group(1) in _MUST_BIND and m.group(0) not in self.bound
            }
        )

    def bind(self, names: list[str], text: str) -> None:
        """Bind each unbound name to the value of its kind at the same place in ``text``."""
        actual: dict[str, list[str]] = {}
        for kind, value in _returned(text):
            if value not in actual.setdefault(kind, []) and value not in self.bound.values():
                actual[kind].append(value)
        for name in names:
            kind = name[1:].rsplit("_", 1)[0]
            if name not in self.bound and actual.get(kind):
                self.bound[name] = actual[kind].pop(0)

    def _keep_items(self, response: Mapping[str, Any] | None) -> None:
        output = [i for i in (response or {}).get("output") or () if isinstance(i, dict)]
        for item in output:
            if isinstance(item.get("id"), str):
                self.items[item["id"]] = item
        if output:
            self.last_messages = [i for i in output if _assistant_message(i)]

    def _with_phase(self, body: dict[str, Any]) -> None:
        for item in body.get("input") or ():
            if _assistant_message(item) and "phase" not in item:
                returned = self.items.get(str(item.get("id")))
                if returned is not None and returned.get("phase") is not None:
                    item["phase"] = returned["phase"]
        # The Agents SDK's OpenAIConversationsSession adds the turn's output to the conversation
        # whole but for its id (agents/memory/openai_conversations_session.py add_items, items
        # from to_input_item): an assistant message with no id there is the last answer's.
        fresh = [i for i in body.get("items") or () if _assistant_message(i) and "id" not in i]
        for item, returned in zip(fresh, self.last_messages, strict=False):
            if "phase" not in item and returned.get("phase") is not None:
                item["phase"] = returned["phase"]

    # ------------------------------------------------------------------ the flow

    def run(self) -> None:
        for n, exchange in enumerate(self.flow.exchanges):
            if exchange.get("websocket"):
                self.websocket(exchange)
            else:
                self.http(n, exchange)

    def _request(self, exchange: Mapping[str, Any]) -> tuple[str, dict[str, str], Any]:
        missing = self.unbound(exchange["target"])
        if missing:
            self.probe.skip(
                f"the target's earlier answers returned no {', '.join(missing)}, which "
                f"{self.who}'s next request names"
            )
        target = self.fill(exchange["target"])
        path = target.removeprefix("/v1")
        params: dict[str, str] = {}
        if "?" in path:
            path, query = path.split("?", 1)
            for pair in query.split("&"):
                key, _, value = pair.partition("=")
                params[key] = value
        body = copy.deepcopy(exchange.get("body"))
        if isinstance(body, dict):
            self._only_received(body)
            missing = self.unbound(body)
            if missing:
                self.probe.skip(
                    f"the target's earlier answers returned no {', '.join(missing)}, which "
                    f"{self.who}'s next request threads"
                )
            body = self.fill(body)
            if "model" in body:
                body["model"] = self.probe.model
            self._with_phase(body)
        return path, params, body

    def _only_received(self, body: dict[str, Any]) -> None:
        """Leave out a replayed reasoning or compaction item, or an ``item_reference``, the
        target never returned (its names unbound): a client replays the items it received. An
        item id no answer bound is left out (ids are optional on input items; a stand-in would
        name an item the target never had); an item whose id the target returned is sent as the
        client would, its blob or not."""
        items = body.get("input")
        if not isinstance(items, list):
            return
        kept = []
        for item in items:
            names = _NAME.findall(json.dumps(item)) if isinstance(item, dict) else []
            replayed = isinstance(item, dict) and item.get("type") in ("reasoning", "compaction")
            if (
                replayed
                and names
                and all(f"<{kind}_{n}>" not in self.bound for kind, n in names if kind != "uuid")
            ):
                continue
            ident = item.get("id") if isinstance(item, dict) else None
            if isinstance(ident, str) and _NAME.fullmatch(ident) and ident not in self.bound:
                if item.get("type") == "item_reference":
                    continue  # a reference to an item the target never returned
                item.pop("id")  # an id only the capture's server minted: ids are optional
            if replayed and isinstance(item.get("encrypted_content"), str):
                blob = item["encrypted_content"]
                if _NAME.fullmatch(blob) and blob not in self.bound:
                    item.pop("encrypted_content")  # the target returned the item, not its blob
            kept.append(item)
        body["input"] = kept

    def headers(self, exchange: Mapping[str, Any]) -> dict[str, str]:
        """The client's own headers (filled, its credentials and the framing left to the
        suite's client) and the agent script that steered the mock it was captured from."""
        sent = {
            k: str(self.fill(v))
            for k, v in (exchange.get("headers") or {}).items()
            if k.lower() not in _NOT_SENT
        }
        script = {k: _short(v) for k, v in (exchange.get("mock_headers") or {}).items()}
        return {**sent, **script}

    def _send(
        self, method: str, path: str, params: Mapping[str, str], body: Any,
        headers: Mapping[str, str],
    ) -> HttpExchange:  # fmt: skip
        if isinstance(body, dict) and body.get("stream") is True:
            return self.probe.stream(
                method, path, json_body=body, params=params or None, headers=headers
            )
        return self.probe.send(method, path, json_body=body, params=params or None, headers=headers)

    def http(self, n: int, exchange: Mapping[str, Any]) -> None:
        method = exchange["method"]
        headers = self.headers(exchange)
        path, params, body = self._request(exchange)
        if method == "GET" and path.count("/") == 2 and path.startswith("/responses/"):
            ex = self._retrieve(path)
        else:
            ex = self._send(method, path, params, body, headers)
        parent = body.get("previous_response_id") if isinstance(body, dict) else None
        self.accepted(ex, body, parent=parent, headers=headers)
        self.bind(exchange.get("returned_ids") or [], self._answer_text(ex))
        response = self._response(ex)
        self._keep_items(response)
        if ex.stream and response is not None and isinstance(response.get("id"), str):
            self.streamed.add(response["id"])
        if self.flow.client == "vercel-ai" and ex.ok:
            self.vercel_parses(ex, response)
        if self.flow.client in S.STREAM_COMPLETED and ex.stream and ex.ok:
            self.stream_completed(ex)
        if ex.stream and ex.ok:
            self.accumulates(ex)
        if isinstance(body, dict) and _compaction_turn(body) and self.flow.client == "codex":
            self.compaction(ex, response)
        if parent in self.streamed and ex.stream and self.flow.client in S.CHAIN_AFTER_STREAM:
            self.chain_links(body, response, headers)

    def _retrieve(self, path: str) -> HttpExchange:
        """A retrieve after a background create: polled until terminal, as the SDKs' users do."""
        ex = self.probe.send("GET", path)
        if ex.ok and ex.json.get("status") in ("queued", "in_progress"):
            poll_until_terminal(self.probe, path.rsplit("/", 1)[-1])
            ex = self.probe.send("GET", path)
        return ex

    @staticmethod
    def _answer_text(ex: HttpExchange) -> str:
        if ex.stream and ex.status == 200:
            return "\n".join(json.dumps(e) for e in ex.events if isinstance(e, dict))
        return json.dumps(ex.body) if ex.body is not None else ex.text

    @staticmethod
    def _response(ex: HttpExchange) -> dict[str, Any] | None:
        if ex.stream and ex.status == 200:
            return ex.terminal
        body = ex.body
        return body if isinstance(body, dict) and body.get("object") == "response" else None

    # ------------------------------------------------------------------ verdicts

    def accepted(
        self, ex: HttpExchange, body: Any, *, parent: Any, headers: Mapping[str, str]
    ) -> None:
        """The request must be served (2xx); a refusal fails the check of the part it is
        located at, the chain check when it refused a chain on a streamed parent."""
        if ex.error is not None and ex.status is None:
            raise CaseAborted(ex.error)  # the probe recorded it (deadline, transport)
        ok = ex.status is not None and 200 <= ex.status < 300
        if ok:
            self._exercised(body, parent)
            return
        chain = S.CHAIN_AFTER_STREAM.get(self.flow.client)
        if chain is not None and parent is not None and parent in self.streamed:
            self.probe.require(
                chain, False, ex,
                expected=f"HTTP 2xx: {self.who} chains on the response it just streamed",
                actual=f"HTTP {ex.status}: {_head(ex)}",
            )  # fmt: skip
        location = S.locate(body, ex.body, ex.text or "") if ex.status in range(400, 500) else None
        how = "named by the error"
        if location is None and ex.status in range(400, 500) and isinstance(body, dict):
            location = self._bisect(ex, body, headers)
            how = "the request without it is accepted"
        check = S.check_for(self.flow.client, location)
        expected = (
            f"HTTP 2xx: {self.who} sends `{location}` ({how})"
            if location
            else f"HTTP 2xx for the request {self.who} sends"
        )
        self.probe.require(
            check, False, ex, expected=expected, actual=f"HTTP {ex.status}: {_head(ex)}",
            message=f"{self.flow.id}: {ex.method} {ex.path}",
        )  # fmt: skip

    def _exercised(self, body: Any, parent: Any) -> None:
        checks = S.ACCEPTANCE[self.flow.client]
        self.probe.check(checks["requests"], True)
        if not isinstance(body, dict):
            return
        if any(k not in ("model", "input", "stream", "items", "tools") for k in body):
            self.probe.check(checks["parameters"], True)
        if body.get("input") or body.get("items"):
            self.probe.check(checks["input_items"], True)
        if body.get("tools"):
            self.probe.check(checks["tools"], True)
        chain = S.CHAIN_AFTER_STREAM.get(self.flow.client)
        if chain is not None and parent is not None and parent in self.streamed:
            self.probe.check(chain, True)

    def _bisect(
        self, ex: HttpExchange, body: dict[str, Any], headers: Mapping[str, str]
    ) -> str | None:
        """The first part of ``body`` whose removal the target accepts (diagnostic requests,
        not judged: they are not the client's)."""
        if body.get("previous_response_id") is not None:
            return None  # a resend would chain the same parent again: not a diagnosis
        client = self.probe.client
        path = ex.path.split("?", 1)[0]

        def accepted(variant: dict[str, Any]) -> bool:
            trial = client.call(ex.method, path, json_body=variant, **_headers(headers))
            return trial.status is not None and 200 <= trial.status < 300

        if accepted(body):
            return None  # the same request accepted now: the refusal is not the request's
        for n, (part, variant) in enumerate(S.removals(body)):
            if n >= _MAX_REMOVALS:
                break
            if accepted(variant):
                return part
        return None

    def compaction(self, ex: HttpExchange, response: Mapping[str, Any] | None) -> None:
        events = [e for e in ex.events if isinstance(e, dict)] if ex.stream else []
        count = S.compaction_items(events, response)
        # Codex stops there (a fatal error): the rest of the flow is not the client's.
        self.probe.require(
            S.CODEX_COMPACTION_ONE_ITEM, count == 1, ex,
            expected="exactly one `compaction` output item on the compaction turn",
            actual=f"{count} compaction item(s); output types "
            f"{[i.get('type') for i in (response or {}).get('output') or [] if isinstance(i, dict)]}",
        )  # fmt: skip

    def vercel_parses(self, ex: HttpExchange, response: Mapping[str, Any] | None) -> None:
        """What the Vercel provider's schemas require of what it reads."""
        if ex.stream:
            for index, event in enumerate(ex.events):
                problem = V.vercel_chunk_problem(event) if isinstance(event, dict) else None
                if problem is not None:
                    # The event is dropped (the call, the usage lost): what the client sends
                    # next is not what it sent at capture, so the flow ends there.
                    self.probe.require(
                        V.VERCEL_STREAM_PARSES, False, ex,
                        expected="an event the provider's chunk schema matches",
                        actual=f"event {index} {event.get('type')!r}: {problem}",
                    )  # fmt: skip
            self.probe.check(V.VERCEL_STREAM_PARSES, True)
        elif response is not None:
            problems = V.vercel_response_problems(response)
            # generateText throws (AI_TypeValidationError): the flow ends there.
            self.probe.require(
                V.VERCEL_RESPONSE_PARSES, not problems, ex,
                expected="a Response the provider's schema parses", actual="; ".join(problems[:3]),
            )  # fmt: skip

    def stream_completed(self, ex: HttpExchange) -> None:
        """The Agents SDK's streamed turn, openai-python's ``responses.stream`` and Codex's turn
        need `response.completed` (else they raise); the Vercel AI SDK runs a streamed tool call
        only then."""
        kinds = [e.get("type") for e in ex.events if isinstance(e, dict)]
        ends = [k for k in kinds if k in _TERMINAL]
        if self.flow.client == "vercel-ai" and not any(
            isinstance(e, dict)
            and e.get("type") == "response.output_item.done"
            and isinstance(e.get("item"), dict)
            and e["item"].get("type") == "function_call"
            for e in ex.events
        ):
            return  # without a tool call, `length` is only the finish reason it shows
        self.probe.require(
            S.STREAM_COMPLETED[self.flow.client], ends[-1:] == ["response.completed"], ex,
            expected="the stream ends in response.completed",
            actual=f"its terminal events: {ends or 'none'}",
        )  # fmt: skip

    def accumulates(self, ex: HttpExchange) -> None:
        """The client's stream accumulators place every event (else the client raises: the
        flow ends there); :mod:`conformance.sections.accumulators` holds them."""
        for accumulator in STREAM_ACCUMULATORS.get(self.flow.client, ()):
            problem = accumulator.problem(ex.events)
            self.probe.require(
                accumulator.check, problem is None, ex,
                expected=accumulator.expected,
                actual=f"event {problem[0]} {ex.events[problem[0]].get('type')!r}: {problem[1]}"
                if problem else "",
            )  # fmt: skip

    def chain_links(
        self, body: dict[str, Any], response: Mapping[str, Any] | None,
        headers: Mapping[str, str],
    ) -> None:  # fmt: skip
        """The same turn chained on each streamed answer, at once, ``CHAIN_LINKS`` times."""
        for _ in range(CHAIN_LINKS):
            rid = (response or {}).get("id")
            if not isinstance(rid, str):
                return
            link = {**body, "previous_response_id": rid}
            ex = self.probe.stream("POST", "/responses", json_body=link, headers=headers)
            self.accepted(ex, link, parent=rid, headers=headers)
            response = self._response(ex)
            if response is not None and isinstance(response.get("id"), str):
                self.streamed.add(response["id"])

    # ------------------------------------------------------------------ WebSocket

    def websocket(self, exchange: Mapping[str, Any]) -> None:
        from .ws import WsClosed, judged_session

        requests = S.ACCEPTANCE[self.flow.client]["requests"]
        with judged_session(self.probe, self.headers(exchange), upgrade_is=requests) as session:
            for frame in exchange.get("client_frames") or ():
                if not isinstance(frame, dict):
                    continue
                missing = self.unbound(frame)
                if missing:
                    self.probe.skip(
                        f"the target's earlier answers returned no {', '.join(missing)}, which "
                        f"{self.who}'s next frame threads"
                    )
                sent = self.fill(frame)
                if "model" in sent:
                    sent["model"] = self.probe.model
                self._with_phase(sent)
                try:
                    session.send(sent)
                    events = session.until(1)
                except WsClosed as exc:
                    self.probe.require(
                        S.ACCEPTANCE[self.flow.client]["requests"], False,
                        expected=f"a response to the frame {self.who} sends", actual=str(exc),
                        message=f"{self.flow.id}: WebSocket response.create",
                    )  # fmt: skip
                    return
                refusal = next(
                    (e for e in events if e.get("type") == "error" and "sequence_number" not in e),
                    None,
                )
                parent = sent.get("previous_response_id")
                chain = S.CHAIN_AFTER_STREAM.get(self.flow.client)
                if refusal is not None and chain is not None and parent in self.streamed:
                    self.probe.require(
                        chain, False,
                        expected=f"a response: {self.who} chains on the response it just streamed",
                        actual=json.dumps(refusal)[:300],
                        message=f"{self.flow.id}: WebSocket response.create",
                    )  # fmt: skip
                if refusal is not None:
                    location = S.locate(sent, refusal, json.dumps(refusal))
                    self.probe.require(
                        S.check_for(self.flow.client, location), False,
                        expected=(
                            f"a response: {self.who} sends `{location}` (named by the error)"
                            if location else f"a response to the frame {self.who} sends"
                        ),
                        actual=json.dumps(refusal)[:300],
                        message=f"{self.flow.id}: WebSocket response.create",
                    )  # fmt: skip
                self._exercised(sent, parent)
                text = "\n".join(json.dumps(e) for e in events)
                self.bind(exchange.get("returned_ids") or [], text)
                for e in events:
                    if isinstance(e.get("response"), dict):
                        self._keep_items(e["response"])
                        if isinstance(e["response"].get("id"), str):
                            self.streamed.add(e["response"]["id"])  # every WebSocket answer is


def _short(script: str, limit: int = 200) -> str:
    """An agent script with its long replies cut to ``limit`` characters: they made the client
    compact when it was captured; the replay sends the client's requests as they were, and a
    scripted server streaming thousands of tokens would only slow the run."""
    try:
        value = json.loads(script)
    except ValueError:
        return script

    def cut(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: (v[:limit] if k == "say" and isinstance(v, str) else cut(v))
                    for k, v in node.items()}  # fmt: skip
        if isinstance(node, list):
            return [cut(v) for v in node]
        return node

    return json.dumps(cut(value))


def _assistant_message(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("type", "message") == "message"
        and item.get("role") == "assistant"
    )


def _compaction_turn(body: Mapping[str, Any]) -> bool:
    items = body.get("input")
    return isinstance(items, list) and any(
        isinstance(i, dict) and i.get("type") == "compaction_trigger" for i in items
    )


def _headers(headers: Mapping[str, str]) -> dict[str, Any]:
    return {"headers": headers} if headers else {}


def _head(ex: HttpExchange, limit: int = 300) -> str:
    text = ex.text if ex.body is None else json.dumps(ex.body, ensure_ascii=False)
    return (text or "(empty)")[:limit]
