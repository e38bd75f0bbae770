"""``responses-conformance check DIR``: judge every exchange of a cassette (docs/cassettes.md).

A cassette (a folder of exchange files, one exchange file, or a vcrpy YAML cassette; read by the
neutral :mod:`cassettes`) is judged exchange by exchange, with the same checks as ``check FILE``:

- a streamed response body (``text/event-stream``) through the stream validator; a resumed stream
  (``GET /v1/responses/{id}?stream=true&starting_after=N``) as one (``--resume-after N``, taken
  from the request itself);
- a JSON body by its kind (a Response, an error body, a compaction result, a conversation, an item
  list), as ``check`` detects it; a deletion confirmation by ``live.store.delete``'s shape;
- the answer to a create (``POST /v1/responses``) against the request the cassette holds too: a
  ``custom_tool_call``'s input against the grammar its request declared
  (``response.custom_tool_call.grammar``);
- a WebSocket connection's frames as a recorded session;
- and across exchanges, the retrieve context the cassette holds: a terminal Response retrieved
  (``GET /v1/responses/{id}``) after the stream or create that produced it must carry every field
  of it with the same value (``live.store.retrieve_equals``; fields only the retrieve has, such as
  OpenAI's ``billing``, are allowed) and carry the usage the stream ended with
  (``live.usage.retrieve_equals_stream``).

Each exchange gives one :class:`~conformance.offline.recorded.FileVerdict` named after its source (the
exchange file, or ``cassette.yaml#N``). An exchange no check applies to (outside the Responses
surface, an empty body, a recording truncated by its recorder) is *skipped*, with the reason, never
passed. A cassette that cannot be read is unreadable (exit 2), like a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cassettes import CassetteError, Exchange, cassette_files, read_cassette

from ..bodies.objects import deep_equal_except_opaque
from ..catalog import live as L
from ..catalog.registry import Violation
from ..sse.framing import MAX_JSON_DEPTH, json_too_deep, parse_json
from ..websocket import judge_session
from .recorded import FileVerdict, UnreadableFile, check_bytes

__all__ = ["CassetteVerdict", "check_cassette", "is_cassette_path"]

_TERMINAL = frozenset({"completed", "incomplete", "failed", "cancelled"})
_SURFACE = re.compile(r"^(?:/v1)?/(responses|conversations)(?:/|$)")
_RESPONSE = re.compile(r"^(?:/v1)?/responses/([^/]+)$")
_CREATE = re.compile(r"^(?:/v1)?/responses/?$")


@dataclass(slots=True)
class CassetteVerdict:
    verdicts: list[FileVerdict] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    unreadable: list[dict[str, str]] = field(default_factory=list)


def is_cassette_path(path: str | Path) -> bool:
    """A folder, a vcrpy YAML file, or an exchange file (first line of format
    ``responses-cassette/1``): what ``check`` judges as a cassette."""
    p = Path(path)
    if p.is_dir() or p.suffix in (".yaml", ".yml"):
        return True
    if p.suffix != ".jsonl" or not p.is_file():
        return False
    try:
        with p.open("rb") as handle:
            head = handle.readline(4096)
    except OSError:
        return False
    return b'"format":"responses-cassette/' in head.replace(b" ", b"")


def check_cassette(path: str | Path, *, profiles: Iterable[str] = ("core",)) -> CassetteVerdict:
    result = CassetteVerdict()
    deep = _too_deep_line(Path(path))
    if deep is not None:  # the judge's own input: unreadable (exit 2), not judged
        result.unreadable.append({"path": str(path), "error": deep})
        return result
    try:
        exchanges = read_cassette(path)
    except CassetteError as error:
        result.unreadable.append({"path": str(path), "error": str(error)})
        return result
    if not exchanges:
        result.unreadable.append({"path": str(path), "error": "no exchanges in the cassette"})
        return result
    profiles = tuple(profiles)
    produced: dict[str, dict[str, Any]] = {}  # response id -> the terminal Response seen
    for exchange in exchanges:
        name = exchange.source or exchange.label
        reason = _skip_reason(exchange)
        if reason:
            result.skipped.append({"path": name, "exchange": exchange.label, "reason": reason})
            continue
        try:
            verdict = _judge(exchange, name, profiles)
        except UnreadableFile as error:
            result.unreadable.append({"path": name, "error": f"{exchange.label}: {error}"})
            continue
        verdict.violations.extend(_retrieve_context(exchange, produced))
        result.verdicts.append(verdict)
    return result


def _too_deep_line(path: Path) -> str | None:
    """Where an exchange file of the cassette nests JSON past the judge's bound, before any of it
    is parsed (the bodies inside are strings, judged as bodies later)."""
    try:
        files = cassette_files(path) if path.is_dir() else [path]
    except (CassetteError, OSError):
        return None  # read_cassette says why
    for file in files:
        if file.suffix != ".jsonl":
            continue
        try:
            with file.open("rb") as handle:
                for number, line in enumerate(handle, 1):
                    if json_too_deep(line):
                        return (
                            f"{file.name}:{number}: JSON nested too deeply: more than "
                            f"{MAX_JSON_DEPTH} levels (the judge's limit)"
                        )
        except OSError:
            return None
    return None


def _skip_reason(exchange: Exchange) -> str:
    if not _SURFACE.match(exchange.path):
        return "outside the Responses surface (no check applies)"
    if exchange.outcome == "truncated":
        return "truncated by the recorder (over its size cap): no verdict on part of a body"
    if exchange.websocket:
        return "" if any(f.sender == "server" for f in exchange.frames) else "no server frames"
    if exchange.status is None:
        return "no response was recorded"
    if not exchange.body.strip():
        return f"HTTP {exchange.status} with an empty body"
    return ""


def _resume_after(exchange: Exchange) -> int | None:
    params = dict(exchange.query_params)
    value = params.get("starting_after")
    if exchange.method == "GET" and params.get("stream") == "true" and value is not None:
        return int(value) if value.isdigit() else None
    return None


def _judge(exchange: Exchange, name: str, profiles: tuple[str, ...]) -> FileVerdict:
    if exchange.websocket:
        frames: list[tuple[str, object]] = []
        for frame in exchange.frames:
            if frame.opcode == "close":
                continue
            data: object = frame.data
            if frame.opcode == "text":
                text = frame.data.decode("utf-8", "replace")
                try:
                    data = parse_json(text)
                except ValueError:
                    data = text
            frames.append((frame.sender, data))
        session, violations = judge_session(frames, profiles=profiles)
        return FileVerdict(name, "session", session.events, violations)
    body = exchange.body
    if exchange.method == "DELETE" and _RESPONSE.match(exchange.path):
        return _judge_delete(exchange, name, body)
    return check_bytes(
        body,
        name=name,
        resume_after=_resume_after(exchange),
        profiles=profiles,
        request=_create_request(exchange),
    )


def _create_request(exchange: Exchange) -> Any:
    """The JSON body of a create request (``POST /v1/responses``), which its answer is judged
    against where a rule needs both (a custom tool's grammar); None for any other exchange."""
    if exchange.method != "POST" or not _CREATE.match(exchange.path):
        return None
    return _json(exchange.request_body)


def _judge_delete(exchange: Exchange, name: str, body: bytes) -> FileVerdict:
    if exchange.status is not None and exchange.status >= 400:
        return check_bytes(body, name=name)
    match = _RESPONSE.match(exchange.path)
    assert match is not None
    try:
        value = parse_json(body)
    except ValueError as error:
        raise UnreadableFile(f"the body is not JSON: {error}") from None
    want = {"id": match.group(1), "object": "response", "deleted": True}
    got = {k: value.get(k) for k in want} if isinstance(value, dict) else value
    violations = []
    if got != want:
        violations.append(L.DELETE.violation(expected=want, actual=got))
    return FileVerdict(name, "response", 0, violations)


def _json(body: bytes) -> Any:
    try:
        return parse_json(body)
    except ValueError:
        return None


def _terminal_of_stream(body: bytes) -> dict[str, Any] | None:
    final = None
    for line in body.splitlines():
        if not line.startswith(b"data:"):
            continue
        event = _json(line[5:].strip())
        if isinstance(event, dict) and isinstance(event.get("response"), dict):
            response = event["response"]
            if response.get("status") in _TERMINAL:
                final = response
    return final


def _retrieve_context(exchange: Exchange, produced: dict[str, dict[str, Any]]) -> list[Violation]:
    """Remember the terminal Responses the cassette's creates and streams produced; judge a
    retrieve of one against it."""
    if exchange.websocket or exchange.status != 200:
        return []
    if exchange.is_sse:
        terminal = _terminal_of_stream(exchange.body)
        if terminal is not None and isinstance(terminal.get("id"), str):
            produced.setdefault(terminal["id"], terminal)
        return []
    value = _json(exchange.body)
    if not isinstance(value, dict) or value.get("object") != "response":
        return []
    match = _RESPONSE.match(exchange.path)
    if exchange.method == "POST" and not match:
        if isinstance(value.get("id"), str) and value.get("status") in _TERMINAL:
            produced.setdefault(value["id"], value)
        return []
    if exchange.method != "GET" or not match or value.get("status") not in _TERMINAL:
        return []
    original = produced.get(match.group(1))
    if original is None:
        if isinstance(value.get("id"), str):
            produced[value["id"]] = value  # a background response first seen by its poll
        return []
    violations = []
    # Every field the stream's (or create's) Response had, with its value; a field only the
    # retrieve carries is not a difference: OpenAI's retrieve adds `billing`, which its streamed
    # Response never has (tests/data/cassettes/pydantic-ai/
    # test_background_mode_streaming_continuation_vcr.yaml; docs/cassettes.md).
    differing = sorted(
        k for k in original if k not in value or not deep_equal_except_opaque(original[k], value[k])
    )
    if differing:
        violations.append(
            L.RETRIEVE_EQUALS.violation(
                expected="the Response its create or stream ended with",
                actual=f"fields that differ: {differing}",
                message=f"retrieved by {exchange.label}",
            )
        )
    if "usage" in original and original.get("usage") != value.get("usage"):
        violations.append(
            L.USAGE_RETRIEVE_EQUALS_STREAM.violation(
                expected=original.get("usage"), actual=value.get("usage")
            )
        )
    return violations
