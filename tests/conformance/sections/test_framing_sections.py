"""The SSE framing layer's checks in their section modules (§1.1 framing, §5 the judge's own
limits): each rule marks its check applied where it evaluates it, once per stream, and on real
streams that is where the layer's table (``SSEStreamValidator.exercised`` before) said so — on
every recording, whole and cut, in one chunk and one chunk per event, with and without the
``openresponses`` profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.sse.framing import SSEStreamValidator

_STREAMS = Path(__file__).resolve().parents[2] / "data" / "openai-recorded-2" / "streams"
_OR = ("core", "openresponses")

# every event judged: its payload parsed (JSON, its numbers, its depth), its record within the
# decoder's bounds, its `event:` line looked for
_EVENT = {
    "sse.data.json",
    "sse.data.json_number",
    "sse.event_name.present",
    "sse.limit.event_size",
    "sse.limit.event_count",
    "sse.limit.depth",
}
_EVENT_OPENRESPONSES = {"sse.event_name.required", "sse.id.absent"}
_FRAMING = (
    _EVENT
    | _EVENT_OPENRESPONSES
    | {"sse.event_name.matches_type", "sse.done.required", "sse.done.last"}
)


def _table(sse: SSEStreamValidator) -> set[str]:
    """What the table said of the framing checks of a closed stream (the reports' aside)."""
    out: set[str] = set()
    events = sse.validator.events
    openresponses = "openresponses" in sse.profiles
    if events:
        out |= _EVENT
        if events > sse._missing_name:
            out.add("sse.event_name.matches_type")
        if openresponses:
            out |= _EVENT_OPENRESPONSES
    if openresponses:
        out.add("sse.done.required")
    if sse.done_seen:
        out.add("sse.done.last")
    return out


def _judged(chunks: list[bytes], profiles: tuple[str, ...]) -> SSEStreamValidator:
    """The layer, fed ``chunks`` and closed, with coverage."""
    sse = SSEStreamValidator(coverage=True, profiles=profiles)
    for chunk in chunks:
        sse.feed(chunk)
    sse.close()
    return sse


def _cuts(data: bytes) -> list[int]:
    """After the first three events, in the middle of the first two, and the whole."""
    ends: list[int] = []
    at = 0
    while len(ends) < 3 and (i := data.find(b"\n\n", at)) >= 0:
        ends.append(at := i + 2)
    middles = [(a + b) // 2 for a, b in zip([0, *ends], ends[:2], strict=False)]
    return sorted({*ends, *middles, len(data)})


def _per_event(data: bytes) -> list[bytes]:
    """The bytes in one chunk per event, as a server flushes them (the layer's lane)."""
    blocks = data.split(b"\n\n")
    return [block + b"\n\n" for block in blocks[:-1]] + ([blocks[-1]] if blocks[-1] else [])


@pytest.mark.parametrize("profiles", [("core",), _OR], ids=["core", "openresponses"])
def test_real_streams_exercise_the_framing_checks_as_before(profiles: tuple[str, ...]) -> None:
    paths = sorted(_STREAMS.glob("*.sse"))
    assert len(paths) > 300
    for path in paths:
        data = path.read_bytes()
        for cut in _cuts(data):
            for chunks in ([data[:cut]], _per_event(data[:cut])):
                sse = _judged(chunks, profiles)
                reported = {v.check_id for v in sse.violations}
                expected = (_table(sse) | reported) & _FRAMING
                assert sse.exercised & _FRAMING == expected, (path.name, cut)


def test_the_framing_marks_sit_where_the_rules_evaluate() -> None:
    event = b'event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\n'
    nameless = b'data: {"type":"response.created","sequence_number":0}\n\n'
    # nothing judged: no event, no mark; under the profile the end was held to [DONE]
    assert _judged([], ("core",)).exercised & _FRAMING == set()
    assert _judged([], _OR).exercised & _FRAMING == {"sse.done.required"}
    # an event without an `event:` line: its payload judged, its name not compared
    got = _judged([nameless], ("core",)).exercised & _FRAMING
    assert got == _EVENT
    # a payload that is not JSON counts as named, as the table said (it counted no name missing)
    got = _judged([b"event: response.created\ndata: {not json\n\n"], ("core",)).exercised
    assert got & _FRAMING == _EVENT | {"sse.event_name.matches_type"}
    # under the profile: the `id:` looked for, the end held to [DONE], [DONE] itself followed
    got = _judged([event, b"data: [DONE]\n\n"], _OR).exercised & _FRAMING
    assert got == _FRAMING
    # [DONE] alone: nothing follows it yet, but the rule was set to see
    assert _judged([b"data: [DONE]\n\n"], ("core",)).exercised & _FRAMING == {"sse.done.last"}


def test_without_coverage_the_layer_keeps_no_marks() -> None:
    sse = SSEStreamValidator()
    sse.feed(b'event: response.created\ndata: {"type":"response.created"}\n\ndata: [DONE]\n\n')
    sse.close()
    assert sse.applied is None
