"""The reference's parser of SGLang's text deltas finds every tool call however the text is cut.

SGLang's detokenizer merges tokens into one delta when its reader falls behind (on a loaded
machine), so a whole `<tool_call>…</tool_call>` can arrive at once. SGLang's streaming detectors
take one step per call — the name first, the arguments at the next call — so the reference once
lost the arguments of a call that came whole (`arguments: ""`; CI saw it on the `tools` model with a
named `tool_choice`). Here the scripted models' own tool-call text is fed cut every way, and the calls
must come out the same each time: the same names, and the arguments in full.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("sglang", reason="SGLang is not installed (tox -e sglang installs it)")

from scripted_models import TIME_CALL, WEATHER_CALLS

from reference_impl.engine import ToolCallDelta
from reference_impl.sglang.output import OutputParser


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": sorted(properties)}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


TOOLS = [
    _tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}}),
    _tool("get_time", {"timezone": {"type": "string"}}),
]
WEATHER = [("get_weather", {"city": "Paris", "unit": "celsius"}),
           ("get_weather", {"city": "Tokyo", "unit": "celsius"})]  # fmt: skip
TIME = [("get_time", {"timezone": "Europe/Paris"})]


def _calls(chunks: list[str]) -> list[tuple[str, Any]]:
    parser = OutputParser(None, "qwen25", TOOLS)
    out = []
    for chunk in chunks:
        out += parser.feed(chunk)
    out += parser.finish()
    names: dict[int, str] = {}
    arguments: dict[int, str] = {}
    for delta in out:
        assert isinstance(delta, ToolCallDelta), delta  # no tool-call text leaks out as text
        if delta.name is not None:
            names[delta.index] = delta.name
        arguments[delta.index] = arguments.get(delta.index, "") + delta.arguments
    return [(names[i], json.loads(arguments[i])) for i in sorted(names)]


@pytest.mark.parametrize(("pieces", "expected"), [(TIME_CALL, TIME), (WEATHER_CALLS, WEATHER)])
def test_every_cut_gives_the_same_calls(pieces: tuple[str, ...], expected: list[Any]) -> None:
    text = "".join(pieces)
    assert _calls(list(pieces)) == expected  # token by token, as SGLang streams them
    assert _calls([text]) == expected  # all at once: the case that lost the arguments
    assert _calls(list(text)) == expected  # character by character
    for cut in range(1, len(text)):
        assert _calls([text[:cut], text[cut:]]) == expected, cut
