"""One record of a workload file → one :class:`Entry` (a session), or what is wrong with it.

Every format comes down to records: a JSON object (a JSONL line, an element of a JSON array) or a
table row (CSV, Parquet). Fields the bench reads, and checks before any request is sent:

**JSON records** are ``CreateResponse`` body fragments (any field is sent as is; ``prompt`` is
shorthand for ``input``), except for these bench fields, which are never sent:

- ``followups``: later turns (text or fragments), sent with ``previous_response_id``;
- ``conversations`` (ShareGPT: ``[{"from": "human"|"gpt"|"system", "value": …}]``) or ``messages``
  (``[{"role", "content"}]``): the human turns are the session's inputs (the first ``--turns`` of
  them), a ``system`` message its ``instructions``, and each assistant reply's length (characters
  / 4, at least 16) the ``max_output_tokens`` of the turn before it, as vLLM's ShareGPT dataset
  does. Other fields of such a record (``id``…) are ignored; a conversation with no human turn is
  skipped and counted;
- ``output_tokens`` / ``output_length``: the answer's length → ``max_output_tokens`` (at least 16,
  the API's minimum) unless the record sets ``max_output_tokens`` itself;
- ``timestamp``: when the request arrives, in **milliseconds** (mooncake / AIPerf traces), for
  ``--shape trace``;
- ``input_length`` and ``hash_ids`` (mooncake traces): a record without text gets a synthetic
  prompt of ``input_length`` tokens made of one block of ``--trace-block-tokens`` per hash id —
  the same id, the same tokens — so the trace's prefix sharing reaches the server.

**Table rows** (CSV header / Parquet columns): the prompt from ``prompt``, ``input`` or ``text``
(the first present); ``instructions`` or ``system``; ``model``; ``max_output_tokens``,
``output_tokens`` or ``output_length``; ``timestamp``; ``input_length``; ``hash_ids`` (a list, or
in CSV a JSON list). Other columns are ignored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from .problems import kind

__all__ = ["TEXT_COLUMNS", "Entry", "from_json", "from_row"]

RESERVED = frozenset(
    {
        "followups",
        "conversations",
        "messages",
        "timestamp",
        "output_tokens",
        "output_length",
        "input_length",
        "hash_ids",
    }
)
TEXT_COLUMNS = ("prompt", "input", "text")
_INT_COLUMNS = ("max_output_tokens", "output_tokens", "output_length", "input_length")
_HUMAN = frozenset({"human", "user"})
_ASSISTANT = frozenset({"gpt", "assistant", "chatgpt", "bard", "bing", "model"})
MIN_OUTPUT = 16  # SPEC §3: the smallest max_output_tokens a server must take


@dataclass(frozen=True, slots=True)
class Entry:
    """A session: its turns (body fragments), and for traces its arrival time and synthetic input."""

    turns: tuple[dict[str, Any], ...]
    timestamp: float | None = None  # seconds (the file's milliseconds / 1000)
    input_length: int | None = None  # the first turn's input is synthetic, this many tokens
    hash_ids: tuple[int, ...] = ()


def from_json(obj: Any, *, max_turns: int = 1) -> Entry | str | None:
    """The record's entry; a string says what is wrong; ``None``: nothing to send (skipped)."""
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {kind(obj)}"
    timestamp = obj.get("timestamp")
    if timestamp is not None and (
        isinstance(timestamp, bool)
        or not isinstance(timestamp, int | float)
        or not math.isfinite(timestamp)
        or timestamp < 0
    ):
        return "`timestamp` must be a number of milliseconds >= 0"
    seconds = None if timestamp is None else float(timestamp) / 1000
    if "conversations" in obj or "messages" in obj:
        return _conversation(obj, seconds, max_turns)
    body = {k: v for k, v in obj.items() if k not in RESERVED}
    output = _output_tokens(obj)
    if isinstance(output, str):
        return output
    if output is not None:
        body.setdefault("max_output_tokens", output)
    synth = _synthetic(obj)
    if isinstance(synth, str):
        return synth
    if "input" in body or "prompt" in body:
        synth = None
    elif synth is None:
        return "needs `input` or `prompt`"
    problem = _fragment_problem(body, needs_input=synth is None)
    if problem is not None:
        return problem
    followups = obj.get("followups", [])
    if not isinstance(followups, list):
        return f"`followups` must be a list, got {kind(followups)}"
    turns = [body]
    for index, followup in enumerate(followups):
        if isinstance(followup, str):
            turns.append({"input": followup})
            continue
        if not isinstance(followup, dict):
            return f"followups[{index}] must be a string or an object, got {kind(followup)}"
        problem = _fragment_problem(followup)
        if problem is not None:
            return f"followups[{index}]: {problem}"
        turns.append(dict(followup))
    length, hashes = synth if synth is not None else (None, ())
    return Entry(tuple(turns), seconds, length, hashes)


def from_row(row: Mapping[str, Any], *, max_turns: int = 1) -> Entry | str | None:
    """A CSV / Parquet row (CSV values are strings; an empty cell is a missing one)."""
    obj: dict[str, Any] = {}
    for column in TEXT_COLUMNS:
        value = _cell(row.get(column))
        if value is not None:
            if not isinstance(value, str):
                return f"column `{column}` must be text, got {kind(value)}"
            obj["input"] = value
            break
    for column, field in (("instructions", "instructions"), ("system", "instructions")):
        value = _cell(row.get(column))
        if value is not None and field not in obj:
            obj[field] = value if isinstance(value, str) else str(value)
    model = _cell(row.get("model"))
    if model is not None:
        obj["model"] = str(model)
    for column in _INT_COLUMNS:
        value = _cell(row.get(column))
        if value is None:
            continue
        number = _integer(value)
        if number is None:
            return f"column `{column}` must be an integer, got {value!r}"
        obj[column] = number
    timestamp = _cell(row.get("timestamp"))
    if timestamp is not None:
        try:
            obj["timestamp"] = float(timestamp)
        except (TypeError, ValueError):
            return f"column `timestamp` must be a number of milliseconds, got {timestamp!r}"
    hashes = _cell(row.get("hash_ids"))
    if hashes is not None:
        if isinstance(hashes, str):
            try:
                hashes = orjson.loads(hashes)
            except orjson.JSONDecodeError:
                return f"column `hash_ids` must be a JSON list of integers, got {hashes!r}"
        obj["hash_ids"] = list(hashes) if isinstance(hashes, list | tuple) else hashes
    if "input" not in obj and "input_length" not in obj and "hash_ids" not in obj:
        return "no text in the `prompt`, `input` or `text` column (nor an `input_length`)"
    return from_json(obj, max_turns=max_turns)


def _cell(value: Any) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None  # pandas writes a missing integer as NaN
    return value


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _output_tokens(obj: Mapping[str, Any]) -> int | str | None:
    for key in ("output_tokens", "output_length"):
        value = obj.get(key)
        if value is None:
            continue
        if type(value) is not int or value < 1:
            return f"`{key}` must be an integer >= 1"
        return max(MIN_OUTPUT, value)
    return None


def _synthetic(obj: Mapping[str, Any]) -> tuple[int, tuple[int, ...]] | str | None:
    """A trace record's ``(input_length, hash_ids)``; the length is 0 when only hash ids say it."""
    length = obj.get("input_length")
    hashes = obj.get("hash_ids")
    if length is None and hashes is None:
        return None
    if length is not None and (type(length) is not int or length < 1):
        return "`input_length` must be an integer >= 1"
    if hashes is None:
        hashes = []
    if not isinstance(hashes, list) or any(type(h) is not int or h < 0 for h in hashes):
        return "`hash_ids` must be a list of integers >= 0"
    if length is None and not hashes:
        return "`hash_ids` is empty and there is no `input_length`"
    return (length or 0), tuple(hashes)


def _conversation(
    obj: Mapping[str, Any], seconds: float | None, max_turns: int
) -> Entry | str | None:
    key = "conversations" if "conversations" in obj else "messages"
    who, what = ("from", "value") if key == "conversations" else ("role", "content")
    messages = obj[key]
    if not isinstance(messages, list):
        return f"`{key}` must be a list of {{{who}, {what}}} objects, got {kind(messages)}"
    turns: list[dict[str, Any]] = []
    instructions: str | None = None
    for index, message in enumerate(messages):
        if not (
            isinstance(message, dict)
            and isinstance(message.get(who), str)
            and isinstance(message.get(what), str)
        ):
            return f"{key}[{index}] must be an object with string `{who}` and `{what}`"
        role, text = message[who].lower(), message[what]
        if role in _HUMAN:
            if len(turns) == max_turns:
                break
            turns.append({"input": text})
        elif role in _ASSISTANT:
            if turns and "max_output_tokens" not in turns[-1]:
                turns[-1]["max_output_tokens"] = max(MIN_OUTPUT, round(len(text) / 4))
        elif role == "system":
            if not turns:
                instructions = text
        else:
            return f"{key}[{index}].{who} {message[who]!r}: expected human, gpt or system"
    if not turns or not turns[0]["input"].strip():
        return None  # nothing a user asked: skipped (and counted), as vLLM filters them
    if instructions:
        turns[0]["instructions"] = instructions
    return Entry(tuple(turns), seconds)


def _fragment_problem(obj: Mapping[str, Any], *, needs_input: bool = True) -> str | None:
    """Fields the bench itself reads must have the type the request needs."""
    if needs_input and "input" not in obj and "prompt" not in obj:
        return "needs `input` or `prompt`"
    for key in ("input", "prompt"):
        if key in obj and not isinstance(obj[key], str | list):
            return f"`{key}` must be a string or a list of input items, got {kind(obj[key])}"
    if "model" in obj and not isinstance(obj["model"], str):
        return f"`model` must be a string, got {kind(obj['model'])}"
    if "stream" in obj and not isinstance(obj["stream"], bool):
        return f"`stream` must be true or false, got {kind(obj['stream'])}"
    limit = obj.get("max_output_tokens")
    if limit is not None and (type(limit) is not int or limit < MIN_OUTPUT):
        return "`max_output_tokens` must be an integer >= 16 (SPEC §3) or null"
    return None
