"""A typed decoder gives an object exactly when the event's schema predicate passes.

`SchemaValidator.event_decoder` builds, from the same lowered OpenAPI schema as the generated
predicates, a decoder from JSON bytes to a typed object (SPEC §1a; see "Typed decoding" in
conformance/schema/). The judge trusts a decoded delta without testing it again, so the two must
agree on every value: here on every delta of the corpus, with fields dropped, added, wrongly typed
at any depth, and with rich logprobs, for every delta type the decoder covers.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from mutations import load_recordings
from wrong_types import confuse

from conformance.schema import SCHEMAS

_MISSING = object()
_ALSO = ("sequence_number", "output_index", "item_id", "delta", "content_index", "command_index")
_DELTA_TYPES = sorted(t for t in SCHEMAS.event_types() if t.endswith(".delta"))
_LOGPROBS = [
    {"token": "a", "logprob": -0.5, "top_logprobs": [{"token": "a", "logprob": -0.5}]},
    {"token": "b", "logprob": 0, "bytes": [98], "top_logprobs": []},
]


def _agree(etype: str, event: Any) -> None:
    decode = SCHEMAS.event_decoder(etype, also=_ALSO, missing=_MISSING)
    predicate = SCHEMAS.event_predicate(etype)
    assert decode is not None and predicate is not None
    data = json.dumps(event).encode()  # orjson refuses integers beyond 64 bits
    try:
        decoded = decode(data)
    except ValueError:
        decoded = None
    assert bool(decoded) == predicate(event), (etype, event)
    if etype == "response.output_text.delta":
        # The fast path's decoder also refuses logprobs, for the full path (docs/spec.md §7.8).
        refusing = SCHEMAS.event_decoder(etype, also=_ALSO, missing=_MISSING, empty=["logprobs"])
        assert refusing is not None
        try:
            typed = refusing(data)
        except ValueError:
            typed = None
        wanted = predicate(event) and not event.get("logprobs")
        assert bool(typed) == wanted, (etype, event)
    # Closed (the fast path's): also refuses any key outside the schema, `_ALSO` and `obfuscation`
    # (read as a string), so that what it gives nests only as deep as the schema's types.
    # With `logprobs` refused unless empty, as the fast path has it: nested keys are refused too
    # (test_closed_decoders_refuse_unknown_keys_at_every_level).
    known = _properties(etype) | set(_ALSO)
    empty = ["logprobs"] if "logprobs" in known else []
    closed = SCHEMAS.event_decoder(etype, also=_ALSO, missing=_MISSING, empty=empty, **_CLOSED)
    assert closed is not None
    try:
        typed = closed(data)
    except ValueError:
        typed = None
    tolerated = "obfuscation" in known or type(event.get("obfuscation", "")) is str
    wanted = (
        predicate(event)
        and not (empty and event.get("logprobs"))
        and event.keys() <= known | {"obfuscation"}
        and tolerated
    )
    assert bool(typed) == wanted, (etype, event)
    if decoded:
        for key in _ALSO:
            assert getattr(decoded, key) == event.get(key, _MISSING), key
            assert type(getattr(decoded, key)) is type(event.get(key, _MISSING)), key


_CLOSED: dict[str, Any] = {"closed": True, "tolerate": ["obfuscation"]}


def _properties(etype: str) -> set[str]:
    compiled = SCHEMAS._compile()
    (node,) = compiled.events[etype]
    while node.is_bare_ref() and node.ref is not None:
        node = compiled.lowerer.node(node.ref)
    return set(node.props)


def _samples() -> dict[str, list[dict[str, Any]]]:
    by_type: dict[str, list[dict[str, Any]]] = {t: [] for t in _DELTA_TYPES}
    for recording in load_recordings():
        for event in recording.events:
            if event["type"] in by_type and len(by_type[event["type"]]) < 40:
                by_type[event["type"]].append(event)
    return by_type


def test_empty_refuses_only_arrays_it_checks() -> None:
    # `delta` is a string and `item_id` is read as parsed (`also`): neither can be refused.
    for key in ("delta", "item_id", "no_such_property"):
        assert (
            SCHEMAS.event_decoder(
                "response.output_text.delta", also=_ALSO, missing=_MISSING, empty=[key]
            )
            is None
        ), key


def test_every_delta_type_has_a_typed_decoder() -> None:
    # Guard: were the decoder to give up on a shape, the judge would silently lose its speed.
    for etype in _DELTA_TYPES:
        assert SCHEMAS.event_decoder(etype, also=_ALSO, missing=_MISSING) is not None, etype
        assert SCHEMAS.event_decoder(etype, also=_ALSO, missing=_MISSING, **_CLOSED), etype


def test_closed_decoders_refuse_unknown_keys_at_every_level() -> None:
    etype = "response.output_text.delta"
    event = {
        "type": etype, "sequence_number": 3, "output_index": 0, "item_id": "msg_1",
        "content_index": 0, "delta": "hi", "logprobs": [],
    }  # fmt: skip
    closed = SCHEMAS.event_decoder(etype, also=_ALSO, missing=_MISSING, **_CLOSED)
    opened = SCHEMAS.event_decoder(etype, also=_ALSO, missing=_MISSING)
    assert closed is not None and opened is not None
    assert closed(json.dumps({**event, "obfuscation": "xyz"}).encode())
    unknown = {**event, "x": [[[1]]]}
    assert opened(json.dumps(unknown).encode())  # the open decoder skips what it does not know
    with pytest.raises(ValueError):
        closed(json.dumps(unknown).encode())
    with pytest.raises(ValueError):
        closed(json.dumps({**event, "obfuscation": ["x"]}).encode())
    # Nested objects too: a logprob with a key its schema lacks.
    rich = {**event, "logprobs": [{**_LOGPROBS[1], "x": [[1]]}]}
    assert opened(json.dumps(rich).encode())
    with pytest.raises(ValueError):
        closed(json.dumps(rich).encode())


@pytest.mark.parametrize("etype", _DELTA_TYPES)
def test_decoder_agrees_with_the_predicate(etype: str) -> None:
    samples = _samples()[etype]
    if not samples:  # a type the corpus lacks: a minimal valid one from its schema's own fields
        samples = [{"type": etype, "sequence_number": 0}]
    rng = random.Random(f"typed:{etype}")
    checked = 0
    for event in samples:
        variants: list[Any] = [event, {k: v for k, v in event.items() if k != "obfuscation"}]
        for key in list(event):
            variants.append({k: v for k, v in event.items() if k != key})  # each field dropped
        variants.append({**event, "extra": {"any": [1, "thing"]}})
        if "logprobs" in event:
            variants.append({**event, "logprobs": _LOGPROBS})
            variants += [{**event, "logprobs": confuse(_LOGPROBS, rng, 1)} for _ in range(20)]
        variants += [confuse(event, rng, rng.randint(1, 3)) for _ in range(40)]
        for variant in variants:
            if isinstance(variant, dict):
                _agree(etype, variant)
                checked += 1
    assert checked >= 40
