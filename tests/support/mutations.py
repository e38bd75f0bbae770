"""A mutation engine over the real OpenAI recordings: the judge's own self-test.

Every operator here breaks a recorded stream the way a server could — drop, duplicate or reorder an
event, renumber it, or edit an id, an index, a text, a status or a usage count — and
:func:`generate` applies every operator to every recording at a bounded, seeded sample of sites.
A mutant is *caught* when :func:`judge` reports at least one MUST or SHOULD violation on it.

Two choices make the mutants sharp rather than trivially caught:

- the structural operators (drop, duplicate, swap, move) renumber ``sequence_number`` afterwards,
  so that a mutant breaks the structure alone and is not caught by the counter (SPEC §2.1) for free;
  the renumber operators test the counter on its own;
- sites are sampled per *stratum* (usually the event type of the site) round-robin, so a stream of
  1,300 deltas still gets its lifecycle, part and item events mutated.

The engine only builds mutants; which of them are equivalent (change no protocol meaning) is decided
by the rules in ``test_mutations.py``, next to the kill-rate assertion.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from conformance.catalog.registry import Level, Violation
from conformance.validator import StreamValidator

__all__ = [
    "CORPUS",
    "OPERATORS",
    "SEED",
    "Event",
    "Mutant",
    "Operator",
    "Recording",
    "Site",
    "caught",
    "generate",
    "judge",
    "load_recordings",
    "renumbered",
]

Event = dict[str, Any]
Path_ = tuple[str | int, ...]  # a JSON path inside one event

CORPUS = Path(__file__).resolve().parents[1] / "data" / "openai-recorded" / "streams"
SEED = 20260821
# Sites sampled per (recording, operator): bounds the run to a few thousand mutants.
BUDGET = 6

LIFECYCLE = ("response.created", "response.queued", "response.in_progress")
TERMINAL = ("response.completed", "response.incomplete", "response.failed")
# Keys whose string values are streamed or generated text (SPEC §2.8): the `edit text` targets.
TEXT_KEYS = frozenset(
    {"text", "refusal", "arguments", "input", "code", "diff", "command", "commands", "output"}
)
# The `.done` event of each streamed value and the field that carries it (SPEC §1 table).
DONE_VALUE_FIELD = {
    "response.output_text.done": "text",
    "response.refusal.done": "refusal",
    "response.reasoning_text.done": "text",
    "response.reasoning_summary_text.done": "text",
    "response.function_call_arguments.done": "arguments",
    "response.custom_tool_call_input.done": "input",
    "response.mcp_call_arguments.done": "arguments",
    "response.code_interpreter_call_code.done": "code",
    "response.apply_patch_call_operation_diff.done": "diff",
    "response.shell_call_command.done": "command",
}
USAGE_COUNTS: tuple[Path_, ...] = (
    ("input_tokens",),
    ("output_tokens",),
    ("total_tokens",),
    ("input_tokens_details", "cached_tokens"),
    ("output_tokens_details", "reasoning_tokens"),
)


@dataclass(frozen=True, slots=True)
class Recording:
    name: str
    events: tuple[Event, ...]


def load_recordings(directory: Path = CORPUS) -> list[Recording]:
    """Every ``*.jsonl`` recording, one event object per line, sorted by name."""
    out = []
    for path in sorted(directory.glob("*.jsonl")):
        lines = path.read_bytes().splitlines()
        out.append(Recording(path.stem, tuple(orjson.loads(line) for line in lines if line)))
    return out


@dataclass(frozen=True, slots=True)
class Site:
    """One place an operator can strike. ``stratum`` groups sites for sampling."""

    stratum: str
    args: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Operator:
    name: str
    family: str
    sites: Callable[[Sequence[Event]], list[Site]]
    # -> (a description of what was done, the mutated events)
    apply: Callable[[Sequence[Event], Site], tuple[str, list[Event]]]


@dataclass(frozen=True, slots=True)
class Mutant:
    recording: str
    operator: str
    family: str
    description: str
    events: list[Event] = field(repr=False)

    @property
    def name(self) -> str:
        return f"{self.recording} / {self.operator} / {self.description}"


# ---------------------------------------------------------------------------- JSON helpers


def _clone(event: Event) -> Event:
    return orjson.loads(orjson.dumps(event))  # type: ignore[no-any-return]


def _get(obj: Any, path: Path_) -> Any:
    for key in path:
        obj = obj[key]
    return obj


def _set(obj: Any, path: Path_, value: Any) -> None:
    _get(obj, path[:-1])[path[-1]] = value


def _has(obj: Any, path: Path_) -> bool:
    for key in path:
        in_dict = isinstance(obj, dict) and isinstance(key, str) and key in obj
        in_list = isinstance(obj, list) and isinstance(key, int) and 0 <= key < len(obj)
        if not (in_dict or in_list):
            return False
        obj = obj[key]
    return True


def _edited(events: Sequence[Event], index: int, path: Path_, value: Any) -> list[Event]:
    """A copy of ``events`` whose event ``index`` has ``value`` at ``path``."""
    out = list(events)
    event = _clone(events[index])
    _set(event, path, value)
    out[index] = event
    return out


def _deleted(events: Sequence[Event], index: int, path: Path_) -> list[Event]:
    out = list(events)
    event = _clone(events[index])
    del _get(event, path[:-1])[path[-1]]
    out[index] = event
    return out


def renumbered(events: Sequence[Event]) -> list[Event]:
    """Give the events 0, 1, 2, … (from the first event's number) so only the structure is wrong."""
    start = events[0].get("sequence_number", 0) if events else 0
    start = start if type(start) is int else 0
    out = []
    for offset, event in enumerate(events):
        if type(event.get("sequence_number")) is int and event["sequence_number"] != start + offset:
            event = {**event, "sequence_number": start + offset}
        out.append(event)
    return out


def _text_leaves(obj: Any, path: Path_ = (), under_text: bool = False) -> Iterator[Path_]:
    """Paths of the string leaves of ``obj`` that hold streamed or generated text (TEXT_KEYS)."""
    if isinstance(obj, str):
        if under_text:
            yield path
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from _text_leaves(value, (*path, key), key in TEXT_KEYS)
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _text_leaves(value, (*path, i), under_text)


def _other_text(text: str, how: str) -> str:
    """Edits that real defects make: a character appended, the last one lost, one replaced."""
    if how == "append":
        return text + "x"
    if how == "chop":
        return text[:-1]
    if not text:
        return "x"
    return text[:-1] + ("y" if text[-1] == "x" else "x")


def _other_id(value: Any) -> Any:
    if isinstance(value, str) and value:
        return value[:-1] + ("1" if value[-1] != "1" else "2")
    return "id_mutated"


def _shape(path: Path_) -> str:
    """A path without its list indices: sites at ``content[0].text`` and ``content[1].text``
    share a stratum."""
    return ".".join(str(key) for key in path if isinstance(key, str))


def _etype(event: Event) -> str:
    etype = event.get("type")
    return etype if isinstance(etype, str) else "?"


# ---------------------------------------------------------------------------- structural operators


def _every_event(events: Sequence[Event]) -> list[Site]:
    return [Site(_etype(e), (i,)) for i, e in enumerate(events)]


def _drop(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    (i,) = site.args
    return f"drop #{i} {_etype(events[i])}", renumbered([*events[:i], *events[i + 1 :]])


def _duplicate(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    (i,) = site.args
    out = [*events[: i + 1], events[i], *events[i + 1 :]]
    return f"duplicate #{i} {_etype(events[i])}", renumbered(out)


def _swap_sites(events: Sequence[Event]) -> list[Site]:
    return [
        Site(f"{_etype(events[i])} <> {_etype(events[i + 1])}", (i,))
        for i in range(len(events) - 1)
    ]


def _swap(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    (i,) = site.args
    out = list(events)
    out[i], out[i + 1] = out[i + 1], out[i]
    return f"swap #{i} {_etype(events[i])} <> #{i + 1} {_etype(events[i + 1])}", renumbered(out)


def _move_sites(events: Sequence[Event]) -> list[Site]:
    n = len(events)
    sites = []
    for i, event in enumerate(events):
        # A move by one place is a swap; these targets reach the ends, the middle and nearby.
        for j in sorted({0, 1, i - 3, i + 3, n // 2, n - 1}):
            if 0 <= j < n and abs(j - i) >= 2:
                sites.append(Site(_etype(event), (i, j)))
    return sites


def _move(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    i, j = site.args
    out = list(events)
    out.insert(j, out.pop(i))
    return f"move #{i} {_etype(events[i])} to #{j}", renumbered(out)


def _truncate_sites(events: Sequence[Event]) -> list[Site]:
    return [Site(_etype(e), (i,)) for i, e in enumerate(events)]


def _truncate(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    (i,) = site.args
    return f"keep the first {i} events (cut at {_etype(events[i])})", list(events[:i])


# ---------------------------------------------------------------------------- sequence numbers


def _seq_sites(events: Sequence[Event]) -> list[Site]:
    return [Site(_etype(e), (i,)) for i, e in enumerate(events) if "sequence_number" in e]


def _seq_shift(step: int) -> Callable[[Sequence[Event], Site], tuple[str, list[Event]]]:
    def apply(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
        (i,) = site.args
        seq = events[i]["sequence_number"]
        new = seq + step if type(seq) is int else step
        return f"#{i} sequence_number {seq} -> {new}", _edited(events, i, ("sequence_number",), new)

    return apply


def _seq_repeat(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    (i,) = site.args
    prev = events[i - 1].get("sequence_number") if i else events[1].get("sequence_number")
    return (
        f"#{i} sequence_number repeats {prev}",
        _edited(events, i, ("sequence_number",), prev),
    )


def _seq_remove(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    (i,) = site.args
    return f"#{i} without sequence_number", _deleted(events, i, ("sequence_number",))


# ---------------------------------------------------------------------------- field edits


def _field_sites(
    predicate: Callable[[Event], Iterator[tuple[Path_, str]]],
) -> Callable[[Sequence[Event]], list[Site]]:
    """Sites from ``predicate(event)``, which yields (path, variant) pairs of one event."""

    def sites(events: Sequence[Event]) -> list[Site]:
        return [
            Site(f"{_etype(e)} {_shape(path)}", (i, path, variant))
            for i, e in enumerate(events)
            for path, variant in predicate(e)
        ]

    return sites


def _edit_with(
    change: Callable[[Any, str], Any],
) -> Callable[[Sequence[Event], Site], tuple[str, list[Event]]]:
    def apply(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
        i, path, variant = site.args
        old = _get(events[i], path)
        new = change(old, variant)
        where = ".".join(map(str, path))
        return f"#{i} {_etype(events[i])} {where}: {variant}", _edited(events, i, path, new)

    return apply


def _response_id_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event) in LIFECYCLE + TERMINAL and _has(event, ("response", "id")):
        yield ("response", "id"), "other id"


def _created_at_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event) in LIFECYCLE + TERMINAL and _has(event, ("response", "created_at")):
        yield ("response", "created_at"), "+1"
        yield ("response", "created_at"), "-1"


def _item_id_paths(event_type: str) -> Callable[[Event], Iterator[tuple[Path_, str]]]:
    def paths(event: Event) -> Iterator[tuple[Path_, str]]:
        if _etype(event) == event_type and _has(event, ("item", "id")):
            yield ("item", "id"), "other id"

    return paths


def _inner_item_id_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if "item_id" in event and not _etype(event).startswith("response.output_item."):
        yield ("item_id",), "other id"


def _index_paths(key: str) -> Callable[[Event], Iterator[tuple[Path_, str]]]:
    def paths(event: Event) -> Iterator[tuple[Path_, str]]:
        if type(event.get(key)) is int:
            yield (key,), "+1"
            yield (key,), "-1"

    return paths


def _shift(value: Any, variant: str) -> Any:
    return value + int(variant)


def _delta_text_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event).endswith(".delta") and isinstance(event.get("delta"), str):
        for how in ("append", "chop", "replace"):
            yield ("delta",), how


def _done_text_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    key = DONE_VALUE_FIELD.get(_etype(event))
    if key is not None and isinstance(event.get(key), str):
        for how in ("append", "chop", "replace"):
            yield (key,), how


def _part_done_text_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event) in ("response.content_part.done", "response.reasoning_summary_part.done"):
        for path in _text_leaves(event.get("part"), ("part",)):
            for how in ("append", "chop", "replace"):
                yield path, how


def _item_done_text_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event) == "response.output_item.done":
        for path in _text_leaves(event.get("item"), ("item",)):
            for how in ("append", "chop", "replace"):
                yield path, how


def _terminal_output_text_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event) in TERMINAL and _has(event, ("response", "output")):
        for path in _text_leaves(event["response"]["output"], ("response", "output")):
            for how in ("append", "chop", "replace"):
                yield path, how


def _edit_text(value: Any, how: str) -> Any:
    return _other_text(value, how)


# Where a finished item holds a value its events streamed (SPEC §1 table, §2.8): content and
# summary texts, arguments, tool input, code, a patch's diff, a shell call's commands.
_STREAMED_SHAPES = frozenset(
    {"content.text", "content.refusal", "summary.text", "arguments", "input", "code",
     "operation.diff", "action.commands"}
)  # fmt: skip


def _consistent_text_sites(events: Sequence[Event]) -> list[Site]:
    """A streamed value of a finished item, edited alike in `output_item.done` and in the terminal
    output: a server that assembles the item wrong but reports it the same way twice (SPEC §2.8).
    Fields no event streams (a search's results, a local shell call's argv) have nothing to be
    compared with, so editing them alike gives another valid response, not a defect."""
    terminal = next((i for i, e in enumerate(events) if _etype(e) in TERMINAL), None)
    if terminal is None or not _has(events[terminal], ("response", "output")):
        return []
    output = events[terminal]["response"]["output"]
    # Items with inner events streamed values; the others (a `program`'s code, an MCP approval
    # request's arguments) arrive whole in `output_item.done`.
    streamed = {
        e.get("output_index") for e in events if not _etype(e).startswith("response.output_item.")
    }
    sites = []
    for i, event in enumerate(events):
        oi = event.get("output_index")
        if _etype(event) != "response.output_item.done" or type(oi) is not int:
            continue
        if oi not in streamed:
            continue
        if not (isinstance(output, list) and oi < len(output)):
            continue
        for path in _text_leaves(event.get("item"), ()):
            if _shape(path) in _STREAMED_SHAPES and _has(output[oi], path):
                for how in ("append", "chop", "replace"):
                    sites.append(
                        Site(f"{_etype(event)} {_shape(path)}", (i, terminal, oi, path, how))
                    )
    return sites


def _consistent_text(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    i, terminal, oi, path, how = site.args
    new = _other_text(_get(events[i]["item"], path), how)
    out = _edited(events, i, ("item", *path), new)
    out = _edited(out, terminal, ("response", "output", oi, *path), new)
    where = ".".join(map(str, path))
    return f"#{i} item {oi} {where}: {how}, in output_item.done and the terminal output", out


# ---------------------------------------------------------------------------- statuses

RESPONSE_STATUSES = ("completed", "incomplete", "failed", "in_progress", "queued", "cancelled")
ITEM_STATUSES = ("completed", "incomplete", "in_progress")


def _terminal_status_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event) in TERMINAL and _has(event, ("response", "status")):
        for status in RESPONSE_STATUSES:
            if status != event["response"]["status"]:
                yield ("response", "status"), status


def _item_status_in(
    where: Callable[[Event], Iterator[tuple[Path_, Any]]],
) -> Callable[[Event], Iterator[tuple[Path_, str]]]:
    def paths(event: Event) -> Iterator[tuple[Path_, str]]:
        for path, item in where(event):
            if isinstance(item, dict) and "status" in item:
                for status in ITEM_STATUSES:
                    if status != item["status"]:
                        yield (*path, "status"), status

    return paths


def _terminal_output_items(event: Event) -> Iterator[tuple[Path_, Any]]:
    if _etype(event) in TERMINAL and _has(event, ("response", "output")):
        output = event["response"]["output"]
        if isinstance(output, list):
            for k, item in enumerate(output):
                yield ("response", "output", k), item


def _done_item(event: Event) -> Iterator[tuple[Path_, Any]]:
    if _etype(event) == "response.output_item.done":
        yield ("item",), event.get("item")


ITEM_TYPES = ("message", "reasoning", "function_call", "web_search_call")


def _item_type_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event) in ("response.output_item.added", "response.output_item.done"):
        for item_type in ITEM_TYPES:
            if _has(event, ("item", "type")) and event["item"]["type"] != item_type:
                yield ("item", "type"), item_type


def _replace(_value: Any, variant: str) -> Any:
    return variant


def _terminal_type_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    etype = _etype(event)
    if etype in ("response.completed", "response.incomplete"):
        other = "response.incomplete" if etype == "response.completed" else "response.completed"
        yield ("type",), other
        yield ("type",), "response.failed"


# ---------------------------------------------------------------------------- usage


def _usage_count_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    if _etype(event) in TERMINAL and _has(event, ("response", "usage", "input_tokens")):
        for count in USAGE_COUNTS:
            if _has(event, ("response", "usage", *count)):
                yield ("response", "usage", *count), "+1"
                yield ("response", "usage", *count), "-1"


def _usage_sites(variants: tuple[str, ...]) -> Callable[[Sequence[Event]], list[Site]]:
    def sites(events: Sequence[Event]) -> list[Site]:
        return [
            Site(variant, (i, variant))
            for i, e in enumerate(events)
            if _etype(e) in TERMINAL and isinstance(e.get("response", {}).get("usage"), dict)
            for variant in variants
        ]

    return sites


def _usage_zero(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    i, _variant = site.args
    event = _clone(events[i])
    usage = event["response"]["usage"]
    for count in USAGE_COUNTS:
        if _has(usage, count):
            _set(usage, count, 0)
    out = list(events)
    out[i] = event
    return f"#{i} usage all zero", out


def _usage_drop_details(events: Sequence[Event], site: Site) -> tuple[str, list[Event]]:
    i, variant = site.args
    event = _clone(events[i])
    usage = event["response"]["usage"]
    for key in variant.split("+"):
        usage.pop(key, None)
    out = list(events)
    out[i] = event
    return f"#{i} usage without {variant}", out


# ---------------------------------------------------------------------------- opaque fields


def _opaque_paths(event: Event) -> Iterator[tuple[Path_, str]]:
    """`obfuscation` (SPEC §1) and the fields SPEC §2.9 calls opaque, wherever they occur."""

    def walk(obj: Any, path: Path_) -> Iterator[Path_]:
        if isinstance(obj, dict):
            for key, value in obj.items():
                if key in ("obfuscation", "encrypted_content", "fingerprint") and isinstance(
                    value, str
                ):
                    yield (*path, key)
                else:
                    yield from walk(value, (*path, key))
        elif isinstance(obj, list):
            for i, value in enumerate(obj):
                yield from walk(value, (*path, i))

    for path in walk(event, ()):
        yield path, "replace"


# ---------------------------------------------------------------------------- the operators

OPERATORS: tuple[Operator, ...] = (
    Operator("drop_event", "structure", _every_event, _drop),
    Operator("duplicate_event", "structure", _every_event, _duplicate),
    Operator("swap_adjacent", "structure", _swap_sites, _swap),
    Operator("move_event", "structure", _move_sites, _move),
    Operator("truncate", "structure", _truncate_sites, _truncate),
    Operator("seq_plus_one", "sequence", _seq_sites, _seq_shift(+1)),
    Operator("seq_minus_one", "sequence", _seq_sites, _seq_shift(-1)),
    Operator("seq_repeat", "sequence", _seq_sites, _seq_repeat),
    Operator("seq_remove", "sequence", _seq_sites, _seq_remove),
    Operator("response_id", "ids", _field_sites(_response_id_paths), _edit_with(
        lambda v, _: _other_id(v))),
    Operator("item_id_added", "ids", _field_sites(_item_id_paths("response.output_item.added")),
             _edit_with(lambda v, _: _other_id(v))),
    Operator("item_id_done", "ids", _field_sites(_item_id_paths("response.output_item.done")),
             _edit_with(lambda v, _: _other_id(v))),
    Operator("inner_item_id", "ids", _field_sites(_inner_item_id_paths),
             _edit_with(lambda v, _: _other_id(v))),
    Operator("output_index", "indices", _field_sites(_index_paths("output_index")),
             _edit_with(_shift)),
    Operator("content_index", "indices", _field_sites(_index_paths("content_index")),
             _edit_with(_shift)),
    Operator("summary_index", "indices", _field_sites(_index_paths("summary_index")),
             _edit_with(_shift)),
    Operator("delta_text", "text", _field_sites(_delta_text_paths), _edit_with(_edit_text)),
    Operator("done_text", "text", _field_sites(_done_text_paths), _edit_with(_edit_text)),
    Operator("part_done_text", "text", _field_sites(_part_done_text_paths),
             _edit_with(_edit_text)),
    Operator("item_done_text", "text", _field_sites(_item_done_text_paths),
             _edit_with(_edit_text)),
    Operator("terminal_output_text", "text", _field_sites(_terminal_output_text_paths),
             _edit_with(_edit_text)),
    Operator("item_text_consistent", "text", _consistent_text_sites, _consistent_text),
    Operator("terminal_status", "status", _field_sites(_terminal_status_paths),
             _edit_with(_replace)),
    Operator("terminal_item_status", "status",
             _field_sites(_item_status_in(_terminal_output_items)), _edit_with(_replace)),
    Operator("done_item_status", "status", _field_sites(_item_status_in(_done_item)),
             _edit_with(_replace)),
    Operator("item_type", "ids", _field_sites(_item_type_paths), _edit_with(_replace)),
    Operator("terminal_event_type", "status", _field_sites(_terminal_type_paths),
             _edit_with(_replace)),
    Operator("usage_count", "usage", _field_sites(_usage_count_paths), _edit_with(_shift)),
    Operator("usage_zero", "usage", _usage_sites(("all",)), _usage_zero),
    Operator("usage_drop_details", "usage",
             _usage_sites(("input_tokens_details", "output_tokens_details",
                           "input_tokens_details+output_tokens_details")),
             _usage_drop_details),
    Operator("created_at", "usage", _field_sites(_created_at_paths),
             _edit_with(_shift)),
    Operator("opaque_field", "opaque", _field_sites(_opaque_paths),
             _edit_with(lambda v, _: _other_text(v, "replace"))),
)  # fmt: skip


# ---------------------------------------------------------------------------- generation, judging


def _sample(sites: list[Site], rng: random.Random, budget: int) -> list[Site]:
    """Up to ``budget`` sites, round-robin over strata (each shuffled), so rare events get hit."""
    strata: dict[str, list[Site]] = {}
    for site in sites:
        strata.setdefault(site.stratum, []).append(site)
    groups = list(strata.values())
    for group in groups:
        rng.shuffle(group)
    rng.shuffle(groups)
    picked: list[Site] = []
    depth = 0
    while len(picked) < budget and any(depth < len(g) for g in groups):
        for group in groups:
            if depth < len(group) and len(picked) < budget:
                picked.append(group[depth])
        depth += 1
    return picked


def generate(
    recordings: Sequence[Recording],
    operators: Sequence[Operator] = OPERATORS,
    *,
    seed: int = SEED,
    budget: int = BUDGET,
) -> Iterator[Mutant]:
    """Every operator on every recording, at most ``budget`` sites each, deterministically.

    A mutant whose event list equals the recording's is dropped: it does not change the stream.
    """
    for recording in recordings:
        original = list(recording.events)
        for op in operators:
            rng = random.Random(f"{seed}:{recording.name}:{op.name}")
            for site in _sample(op.sites(original), rng, budget):
                description, events = op.apply(original, site)
                if events == original:
                    continue
                yield Mutant(recording.name, op.name, op.family, description, events)


def judge(events: Sequence[Event]) -> list[Violation]:
    """Run the judge over a whole stream: feed every event, then close."""
    validator = StreamValidator()
    for event in events:
        validator.feed(event)
    validator.close()
    return list(validator.violations)


def caught(violations: Sequence[Violation]) -> bool:
    """A mutant is caught by at least one MUST or SHOULD violation; INFO does not count."""
    return any(v.level in (Level.MUST, Level.SHOULD) for v in violations)
