"""The assembler's items and parts: their state while open, the JSON they close into, the
events that open and close them, and the ``obfuscation`` padding of delta events.

:class:`ItemEvents` is the base of :class:`reference_impl.assembler.stream.ResponseAssembler`: it owns
the sequence numbers (SPEC §2.1) and the output items, each opened with ``output_item.added``
and closed with ``output_item.done`` (§2.4–§2.6), their content / summary parts in between.
Function and custom tool calls share one shape (:data:`CALL_KINDS`, :func:`call_item`).
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..engine import EngineError, LogProb
from ..ids import IdSource

if TYPE_CHECKING:
    from ..sealing import Sealer

__all__ = [
    "CALL_KINDS",
    "LOGPROBS_INCLUDE",
    "Compaction",
    "EngineProtocolError",
    "Event",
    "ItemEvents",
    "ItemKind",
    "OpenItem",
    "OpenPart",
    "PartKind",
    "call_item",
    "delta_logprob",
    "logprob_object",
    "obfuscation",
    "obfuscator",
    "part_object",
    "run_obfuscator",
]

Event = dict[str, Any]

_ALNUM = string.ascii_letters + string.digits
_ALNUM_TABLE = bytes(ord(_ALNUM[b % 62]) for b in range(256))  # byte -> [A-Za-z0-9]
_OBFUSCATION_WIDTH = 16


class EngineProtocolError(EngineError):
    """The engine broke the chunk contract of ``reference_impl.engine`` (the response fails)."""


def obfuscation(response_id: str, sequence_number: int, delta: str) -> str:
    """The ``obfuscation`` padding of a delta event (SPEC §1 "obfuscation").

    In the recordings ``len(delta) + len(obfuscation) == 16`` for every delta shorter than 16
    characters (5,436 of 5,436) and longer deltas carry 0–15 characters; this reproduces that shape
    deterministically from a hash, so identical requests give identical bytes.
    """
    return obfuscator(response_id)(sequence_number, delta)


def obfuscator(response_id: str) -> Callable[[int, str], str]:
    """:func:`obfuscation` for one response: the hash of the response id is computed once and
    copied per delta (the text-delta hot path; same digests as hashing the whole input). A
    closure, not an object with ``__call__``: calling it is cheaper."""
    copy = hashlib.blake2b(f"{response_id}\x00".encode(), digest_size=17).copy
    table = _ALNUM_TABLE

    def obfuscate(sequence_number: int, delta: str) -> str:
        h = copy()
        h.update(f"{sequence_number}\x00{delta}".encode())
        digest = h.digest()
        n = len(delta)
        end = _OBFUSCATION_WIDTH + 1 - n if n < _OBFUSCATION_WIDTH else 1 + digest[0] % 16
        return digest[1:end].translate(table).decode("ascii")

    return obfuscate


def run_obfuscator(response_id: str) -> Callable[[int, Sequence[str]], list[str]]:
    """:func:`obfuscator` for a run of deltas numbered from ``first``: the same strings, the loop
    inlined (one call per run of a text stream, not one per delta)."""
    copy = hashlib.blake2b(f"{response_id}\x00".encode(), digest_size=17).copy
    table = _ALNUM_TABLE
    width, short = _OBFUSCATION_WIDTH, _OBFUSCATION_WIDTH + 1

    def obfuscate_run(first: int, deltas: Sequence[str]) -> list[str]:
        out: list[str] = []
        append = out.append
        for n, delta in enumerate(deltas, first):
            h = copy()
            h.update(b"%d\x00%s" % (n, delta.encode()))  # == f"{n}\x00{delta}".encode()
            digest = h.digest()
            size = len(delta)
            end = short - size if size < width else 1 + digest[0] % 16
            append(digest[1:end].translate(table).decode("ascii"))
        return out

    return obfuscate_run


PartKind = Literal["output_text", "refusal", "reasoning_text", "summary_text"]
ItemKind = Literal["message", "reasoning", "function_call", "custom_tool_call"]

LOGPROBS_INCLUDE = "message.output_text.logprobs"


@dataclass(slots=True)
class OpenPart:
    kind: PartKind
    index: int  # content_index, or summary_index for summary parts
    pieces: list[str] = field(default_factory=list)
    logprobs: list[dict[str, Any]] | None = None  # output_text with logprobs asked for
    annotations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass(slots=True)
class OpenItem:
    kind: ItemKind
    id: str
    output_index: int
    part: OpenPart | None = None
    content: list[dict[str, Any]] = field(default_factory=list)  # closed content parts
    summary: list[dict[str, Any]] = field(default_factory=list)  # closed summary parts
    # function_call / custom_tool_call only
    tool_index: int = -1
    call_id: str = ""
    name: str = ""
    namespace: str | None = None  # the namespace tool the called tool belongs to
    arguments: list[str] = field(default_factory=list)
    # reasoning only: what the model reasoned unseen (engine.ReasoningItem.text)
    hidden: str = ""


@dataclass(frozen=True, slots=True)
class Compaction:
    """A compaction the response ends with: ``seal(items)`` gives the opaque blob for the items
    it replaces (``history`` + the turn's output); ``compacting`` emits the SDK's
    ``response.compaction.compacting`` event (a compaction_trigger asked for it)."""

    history: Sequence[Mapping[str, Any]]
    seal: Callable[[list[Mapping[str, Any]]], str]
    compacting: bool = False


# Function and custom tool call items: the field the call streams, the family of its delta /
# done events, and the item's fields after id / type / status, in [REC]'s order (which differs).
CALL_KINDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "function_call": (
        "arguments", "response.function_call_arguments", ("arguments", "call_id", "name"),
    ),
    "custom_tool_call": ("input", "response.custom_tool_call_input", ("call_id", "input", "name")),
}  # fmt: skip


def call_item(
    kind: str,
    item_id: str,
    status: str,
    *,
    call_id: str,
    name: str,
    value: str,
    namespace: str | None = None,
) -> dict[str, Any]:
    """A function / custom tool call item as ``output_item.added`` (``value`` empty) and
    ``output_item.done`` show it; ``namespace`` when the tool belongs to one ([REC]
    openai-tool-search.1)."""
    streamed, _, order = CALL_KINDS[kind]
    values = {streamed: value, "call_id": call_id, "name": name}
    item: dict[str, Any] = {"id": item_id, "type": kind, "status": status}
    for key in order:
        item[key] = values[key]
    if namespace is not None:
        item["namespace"] = namespace
    return item


class ItemEvents:
    """Sequence numbers, output items and their parts (see the module docstring)."""

    def __init__(
        self,
        *,
        new_id: IdSource,
        obfuscate: Callable[[int, str], str] | None,
        sealer: Sealer | None,
    ) -> None:
        self._new_id = new_id
        self._obfuscation = obfuscate
        self._sealer = sealer  # reasoning items carry a sealed copy of themselves (sealing.py)
        self._seq = 0
        self._done_items: list[dict[str, Any]] = []
        self._open: OpenItem | None = None

    @property
    def next_sequence_number(self) -> int:
        return self._seq

    # --- events -----------------------------------------------------------------------------
    def _event(self, type_: str, **fields: Any) -> Event:
        event: Event = {"type": type_, "sequence_number": self._seq}
        event.update(fields)
        self._seq += 1
        return event

    def _obfuscated(self, event: Event, delta: str) -> Event:
        if self._obfuscation is not None:
            event["obfuscation"] = self._obfuscation(event["sequence_number"], delta)
        return event

    # --- items ------------------------------------------------------------------------------
    def _open_item(
        self, events: list[Event], kind: ItemKind, prefix: str, **extra: Any
    ) -> OpenItem:
        self._close_open(events, "completed")
        item = OpenItem(kind=kind, id=self._new_id(prefix), output_index=len(self._done_items))
        self._open = item
        if kind == "message":
            added: dict[str, Any] = {
                "id": item.id,
                "type": "message",
                "status": "in_progress",
                "content": [],
                "role": "assistant",
            }
        elif kind == "reasoning":
            added = {"id": item.id, "type": "reasoning", "summary": []}
            if extra.get("raw"):
                added["content"] = []
        else:
            added = call_item(
                kind,
                item.id,
                "in_progress",
                call_id=extra["call_id"],
                name=extra["name"],
                value="",
                namespace=extra.get("namespace"),
            )
        events.append(
            self._event("response.output_item.added", output_index=item.output_index, item=added)
        )
        return item

    def _close_open(self, events: list[Event], status: str) -> None:
        item = self._open
        if item is None:
            return
        self._close_part(events, item)
        if item.kind == "message":
            done: dict[str, Any] = {
                "id": item.id,
                "type": "message",
                "status": status,
                "content": item.content,
                "role": "assistant",
            }
        elif item.kind == "reasoning":
            done = {"id": item.id, "type": "reasoning", "summary": item.summary}
            if item.content:
                done["content"] = item.content
            if self._sealer is not None:
                done["encrypted_content"] = self._sealer.seal(
                    "reasoning",
                    {
                        "summary": [p["text"] for p in item.summary],
                        "content": [p["text"] for p in item.content],
                        "hidden": item.hidden,
                    },
                )
            if status != "completed":
                done["status"] = status
        else:
            streamed, family, _ = CALL_KINDS[item.kind]
            value = "".join(item.arguments)
            events.append(
                self._event(
                    f"{family}.done",
                    item_id=item.id,
                    output_index=item.output_index,
                    **{streamed: value},
                )
            )
            done = call_item(
                item.kind,
                item.id,
                status,
                call_id=item.call_id,
                name=item.name,
                value=value,
                namespace=item.namespace,
            )
        events.append(
            self._event("response.output_item.done", output_index=item.output_index, item=done)
        )
        self._done_items.append(done)
        self._open = None

    # --- parts ------------------------------------------------------------------------------
    def _open_part(self, events: list[Event], item: OpenItem, kind: PartKind) -> OpenPart:
        self._close_part(events, item)
        if kind == "summary_text":
            part = OpenPart(kind, len(item.summary))
            events.append(
                self._event(
                    "response.reasoning_summary_part.added",
                    item_id=item.id,
                    output_index=item.output_index,
                    summary_index=part.index,
                    part={"type": "summary_text", "text": ""},
                )
            )
        else:
            part = OpenPart(kind, len(item.content))
            events.append(
                self._event(
                    "response.content_part.added",
                    item_id=item.id,
                    output_index=item.output_index,
                    content_index=part.index,
                    part=part_object(kind, ""),
                )
            )
        item.part = part
        return part

    def _close_part(self, events: list[Event], item: OpenItem) -> None:
        part = item.part
        if part is None:
            return
        text = part.text
        where = {"item_id": item.id, "output_index": item.output_index}
        if part.kind == "summary_text":
            where["summary_index"] = part.index
            events.append(self._event("response.reasoning_summary_text.done", **where, text=text))
            done_part = {"type": "summary_text", "text": text}
            events.append(
                self._event("response.reasoning_summary_part.done", **where, part=done_part)
            )
            item.summary.append({"type": "summary_text", "text": text})
        else:
            where["content_index"] = part.index
            if part.kind == "output_text":
                events.append(
                    self._event(
                        "response.output_text.done",
                        **where,
                        text=text,
                        logprobs=[delta_logprob(lp) for lp in part.logprobs or ()],
                    )
                )
            elif part.kind == "refusal":
                events.append(self._event("response.refusal.done", **where, refusal=text))
            else:
                events.append(self._event("response.reasoning_text.done", **where, text=text))
            events.append(
                self._event(
                    "response.content_part.done",
                    **where,
                    part=part_object(part.kind, text, part.logprobs, part.annotations),
                )
            )
            item.content.append(part_object(part.kind, text, part.logprobs, part.annotations))
        item.part = None


def logprob_object(lp: LogProb) -> dict[str, Any]:
    """[OAPI] ``LogProb``: what an output_text part holds per token (UTF-8 ``bytes`` included)."""
    return {
        "token": lp.token,
        "logprob": lp.logprob,
        "bytes": list(lp.token.encode()),
        "top_logprobs": [{"token": t, "logprob": v, "bytes": list(t.encode())} for t, v in lp.top],
    }


def delta_logprob(lp: dict[str, Any]) -> dict[str, Any]:
    """[OAPI] ``ResponseLogProb``: the same token as delta and text-done events carry it."""
    return {
        "token": lp["token"],
        "logprob": lp["logprob"],
        "top_logprobs": [
            {"token": t["token"], "logprob": t["logprob"]} for t in lp["top_logprobs"]
        ],
    }


def part_object(
    kind: PartKind,
    text: str,
    logprobs: list[dict[str, Any]] | None = None,
    annotations: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    if kind == "output_text":
        # KB28: output_text parts always carry annotations (and logprobs, as in [REC]).
        return {
            "type": "output_text",
            "annotations": list(annotations or ()),
            "logprobs": list(logprobs or ()),
            "text": text,
        }
    if kind == "refusal":
        return {"type": "refusal", "refusal": text}
    return {"type": kind, "text": text}
