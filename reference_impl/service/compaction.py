"""Compaction: ``POST /v1/responses/compact`` and ``context_management`` on create.

A compaction item's ``encrypted_content`` seals (reference_impl/sealing.py, kind ``compaction``)
the history it stands for, as the engine saw it; sent back as input, the item is replaced by that
history, and every item before it is dropped (it is part of the sealed history): see
:func:`reference_impl.request.inputs.unseal_items`.

* ``POST /v1/responses/compact`` (the SDK's ``responses.compact``; ``CompactedResponse``):
  ``{object: "response.compaction", id, created_at, output, usage}``; ``output`` is "a list of all
  user messages, followed by a single compaction item" (the SDK's docs), the compaction sealing
  the whole history (the input, after ``previous_response_id``'s). ``usage``: the history's
  ``input_tokens``; ``output_tokens`` 0, as no summary is sampled.
* ``context_management: [{type: "compaction", compact_threshold: N}]`` on create: when the turn's
  input is at least ``N`` tokens (the engine's count), the response's output ends with a
  compaction item (after the answer, as in [REC] streams/openai-compaction.1.jsonl) that seals the
  history and the answer. A ``compaction_trigger`` input item compacts the turn whatever its size,
  and adds the SDK's ``response.compaction.compacting`` event between the item's ``added`` and
  ``done``. Usage is the turn's, unchanged (no tokens are sampled for the compaction).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..assembler.response_object import usage_object
from ..assembler.stream import Compaction
from ..engine import Engine, GenerationRequest
from ..sealing import Sealer

__all__ = ["COMPACT_ECHOES", "COMPACT_PARAMS", "compacted_response", "plan_compaction"]

# The SDK's ResponseCompactParams (3.x; openai 3.63 added `safety_identifier`), and
# `client_metadata` (Codex CLI sends it on every request, as on create).
COMPACT_PARAMS = frozenset(
    {
        "client_metadata",
        "image",
        "input",
        "instructions",
        "model",
        "previous_response_id",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "safety_identifier",
        "service_tier",
    }
)
# What the SDK's CompactedResponse echoes of the request (both optional there): given back when
# the request sent them, as create's Response does (response_object.response_skeleton).
COMPACT_ECHOES = ("safety_identifier", "service_tier")


def _triggered(body: Mapping[str, Any]) -> bool:
    value = body.get("input")
    return isinstance(value, list) and any(
        isinstance(i, dict) and i.get("type") == "compaction_trigger" for i in value
    )


def _threshold(body: Mapping[str, Any]) -> int | None:
    for entry in body.get("context_management") or ():
        if entry.get("type") == "compaction" and entry.get("compact_threshold") is not None:
            return int(entry["compact_threshold"])
    return None


def _sealer_for(sealer: Sealer) -> Any:
    def seal(items: list[Mapping[str, Any]]) -> str:
        return sealer.seal("compaction", {"items": list(items)})

    return seal


async def plan_compaction(
    body: Mapping[str, Any],
    engine: Engine,
    gen: GenerationRequest,
    history: Sequence[Mapping[str, Any]],
    sealer: Sealer,
) -> Compaction | None:
    """The compaction this create ends with, if any (see the module docstring)."""
    trigger = _triggered(body)
    threshold = _threshold(body)
    if not trigger and threshold is None:
        return None
    if not trigger and await engine.count_input_tokens(gen) < (threshold or 0):
        return None
    return Compaction(history=list(history), seal=_sealer_for(sealer), compacting=trigger)


def compacted_response(
    *,
    response_id: str,
    item_id: str,
    created_at: int,
    history: Sequence[Mapping[str, Any]],
    user_messages: Sequence[Mapping[str, Any]],
    input_tokens: int,
    sealer: Sealer,
    echoes: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``response.compaction`` object for ``history``; ``echoes``: the request's fields of
    :data:`COMPACT_ECHOES` it sent (not null), given back as the SDK's type has them."""
    compaction = {
        "id": item_id,
        "type": "compaction",
        "encrypted_content": sealer.seal("compaction", {"items": list(history)}),
    }
    return {
        "id": response_id,
        "object": "response.compaction",
        "created_at": created_at,
        "output": [*(dict(m) for m in user_messages), compaction],
        "usage": usage_object(
            input_tokens=input_tokens, output_tokens=0, cached_tokens=0, reasoning_tokens=0
        ),
        **{k: v for k, v in (echoes or {}).items() if k in COMPACT_ECHOES and v is not None},
    }
