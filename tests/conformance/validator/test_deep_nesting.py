"""Deep JSON never crashes the judge, and past its nesting bound it is a verdict.

The judge reads no JSON nested more than ``MAX_JSON_DEPTH`` (64) levels, the servers' bound too
(docs/limits.md): such an event, body or frame is reported under ``sse.limit.depth`` before it is
parsed, in any place and on the typed path and the dict path alike; 64 levels is judged as usual.
A value built deeper in Python (not parsed) that outruns the interpreter's stack in a comparison
or a rendering is judged as far as the judge can follow it and reported the same way. Either way:
a verdict, never a traceback.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mutations import load_recordings

from conformance import SSEStreamValidator
from conformance.bodies.objects import validate_error_body, validate_response_body
from conformance.sse.framing import MAX_JSON_DEPTH, JSONDepthError, json_too_deep, parse_json

# Just past the bound (the event 65 levels deep), about as deep as parsers go, and beyond them.
DEPTHS = (MAX_JSON_DEPTH, 990, 3000)
NEAR_MISS = 60  # 64 levels in the deepest place (a terminal output item's field): within the bound


def _nested(depth: int) -> list[Any]:
    top: list[Any] = []
    inner = top
    for _ in range(depth - 1):
        inner.append([])
        inner = inner[0]
    return top


def _sse(events: list[dict[str, Any]]) -> bytes:
    # json.dumps recurses once per level; orjson writes 255 levels at most.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        return b"".join(
            b"event: " + e["type"].encode() + b"\ndata: " + json.dumps(e).encode() + b"\n\n"
            for e in events
        )
    finally:
        sys.setrecursionlimit(limit)


def _set(etype: str, put: Callable[[dict[str, Any], Any], None]) -> Any:
    def mutate(events: list[dict[str, Any]], deep: Any) -> None:
        for event in events:
            if event["type"] == etype:
                put(event, deep)

    return mutate


def _same_in_item_and_output(events: list[dict[str, Any]], deep: Any) -> None:
    # Equal deep values on both sides of the terminal output comparison (`==` recurses).
    for event in events:
        if event["type"] == "response.output_item.done":
            event["item"]["x"] = deep
        if event["type"] == "response.completed":
            for item in event["response"]["output"]:
                item["x"] = deep


PLACES = {
    "lifecycle-metadata": _set(
        "response.created", lambda e, d: e["response"].__setitem__("metadata", {"k": d})
    ),
    "terminal-output-extra": _set(
        "response.completed", lambda e, d: e["response"]["output"][0].__setitem__("x", d)
    ),
    "item-and-output-equal": _same_in_item_and_output,
    "delta-logprobs": _set("response.output_text.delta", lambda e, d: e.__setitem__("logprobs", d)),
    "delta-unknown-field": _set("response.output_text.delta", lambda e, d: e.__setitem__("x", d)),
    # The one property outside the schema the typed decoder reads (as a string), and one it reads
    # as parsed where the schema has none (the route compares it).
    "delta-obfuscation": _set(
        "response.output_text.delta", lambda e, d: e.__setitem__("obfuscation", d)
    ),
    "delta-command-index": _set(
        "response.output_text.delta", lambda e, d: e.__setitem__("command_index", d)
    ),
    "usage": _set("response.completed", lambda e, d: e["response"].__setitem__("usage", d)),
}


# Places outside any schema: within the bound, not a defect.
UNKNOWN_FIELDS = {
    "delta-unknown-field", "delta-obfuscation", "delta-command-index", "item-and-output-equal"
}  # fmt: skip


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("place", sorted(PLACES))
def test_deep_values_in_a_stream_get_a_verdict(place: str, depth: int) -> None:
    recording = next(r for r in load_recordings() if r.name == "azure-text.1")
    events = copy.deepcopy(list(recording.events))
    PLACES[place](events, _nested(depth))
    body = _sse(events)
    verdicts = []
    for keep in (False, True):  # the typed path for deltas, and the dict path
        judge = SSEStreamValidator(keep_events=keep)
        judge.feed(body)
        judge.close()
        verdicts.append([(v.check_id, v.event_index) for v in judge.violations])
    assert verdicts[0] == verdicts[1]
    found = {check for check, _ in verdicts[0]}
    assert "sse.limit.depth" in found  # past the judge's bound: said so, before parsing


@pytest.mark.parametrize("place", sorted(PLACES))
def test_values_at_the_bound_are_judged(place: str) -> None:
    recording = next(r for r in load_recordings() if r.name == "azure-text.1")
    events = copy.deepcopy(list(recording.events))
    PLACES[place](events, _nested(NEAR_MISS))
    body = _sse(events)
    verdicts = []
    for keep in (False, True):
        judge = SSEStreamValidator(keep_events=keep)
        judge.feed(body)
        judge.close()
        verdicts.append([(v.check_id, v.event_index) for v in judge.violations])
    assert verdicts[0] == verdicts[1]
    found = {check for check, _ in verdicts[0]}
    assert "sse.limit.depth" not in found
    if place in UNKNOWN_FIELDS:
        assert not found  # an unknown field, the same on both sides, within the bound: no defect
    else:
        assert found  # a defect the judge follows (a wrong type, an extra field)


def test_depth_is_lexical() -> None:
    """Brackets inside strings do not count; 64 levels is within, 65 past, either bracket."""
    assert json_too_deep(b"[" * 65 + b"]" * 65) and not json_too_deep(b"[" * 64 + b"]" * 64)
    assert json_too_deep('{"a":' * 65 + "1" + "}" * 65)
    assert not json_too_deep('{"a":' * 64 + "1" + "}" * 64)
    assert not json_too_deep(json.dumps({"s": "[" * 500 + '\\"{' * 100}))
    assert not json_too_deep(b"[" + b"[1]," * 1000 + b"1]")  # wide, 2 deep
    with pytest.raises(JSONDepthError, match="64"):
        parse_json(b"[" * 65 + b"]" * 65)
    assert parse_json(b"[" * 64 + b"]" * 64)


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_bodies_get_a_verdict(depth: int) -> None:
    value = _nested(depth)  # built, not parsed: the checks follow it as far as they can
    response = {"object": "response", "id": "resp_1", "metadata": {"k": value}}
    assert validate_response_body(response)
    assert validate_error_body({"error": {"message": value, "type": "x", "code": None}})


@pytest.mark.parametrize("suffix", [".jsonl", ".sse"])
def test_cli_reports_json_too_deep_to_parse(tmp_path: Path, suffix: str) -> None:
    payload = b'{"type": "response.created", "response": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    path = tmp_path / f"deep{suffix}"
    path.write_bytes(payload + b"\n" if suffix == ".jsonl" else b"data: " + payload + b"\n\n")
    exe = shutil.which("responses-conformance", path=str(Path(sys.executable).parent))
    assert exe is not None
    run = subprocess.run(
        [exe, "check", "--format", "json", str(path)], capture_output=True, text=True, check=False
    )
    assert "Traceback" not in run.stderr
    if suffix == ".jsonl":  # a JSON Lines file whose line cannot be parsed: unreadable
        assert run.returncode == 2, run.stdout + run.stderr
        assert "nested too deeply" in run.stdout + run.stderr
    else:  # an SSE capture: the event is judged, and found too deep to parse
        assert run.returncode == 1, run.stdout + run.stderr
        assert "sse.limit.depth" in run.stdout
