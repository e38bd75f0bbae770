"""§9.3 openai-python's stream accumulator (docs/spec.md#s9-3):
``live.client.openai_python.stream_accumulates``.

openai-python's ``responses.stream`` helper feeds every event it reads to one
``ResponseStreamState`` (openai 3.63 ``src/openai/lib/streaming/responses/_responses.py``:
``handle_event``, then ``accumulate_event``), which raises on an event it cannot apply to its
snapshot: the iteration stops there and the caller gets the exception (a text delta without
``content_index``: ``TypeError: list indices must be integers or slices, not NoneType``).
:func:`openai_python_stream_problem` is that state machine as a rule over the events of one
streamed response: the first event it raises on, with the exception as Python prints it, or
None. The client reads each event into its models by lax validation, and where that fails builds
them unchecked (``construct_type``): a field the event lacks reads as None, a value keeps its JSON
type, so indexing, hashing and ``+=`` behave here as they do there (Python's own operations
raise the same errors); an index that another JSON type carries as an integer (``0.0``,
``"0"``) is read as that integer, as lax validation reads it. What it enforces,
with the code that does:

- ``_create_initial_response`` — the first event is ``response.created`` ("Expected to have
  received `response.created` before `…`"), carrying a ``response``; its ``output`` (when
  present) seeds the items, by position;
- ``accumulate_event`` on a lifecycle event — the ``response.id`` does not change ("Lifecycle
  response identity changed."); on ``created`` / ``queued`` / ``in_progress``, no two output
  items share an identity (type, ``id`` but for the routed call types, ``call_id``) and a
  finished one keeps its ``id`` ("Response snapshot has conflicting output identities.");
- ``response.output_item.added`` — an ``output_index`` not added before ("Duplicate response
  output index N."; an added event without ``item`` is skipped); the item is appended;
- ``_get_output_item`` — ``content_part.added``, a text delta or done, a function-call
  arguments delta address an ``output_index`` added before ("Received a content event for
  output index N before receiving its output item");
- ``content_part.added`` on a message — its ``content`` list takes the part (``.append``, then
  ``part.to_dict()``: an AttributeError on a missing one);
- ``response.output_text.delta`` / ``.done`` — the item is a ``message`` (an ``assert``), its
  ``content[content_index]`` exists (a TypeError on a missing index, an IndexError past the
  end) and is an ``output_text`` part (an ``assert``), whose ``text`` takes the delta (``+=``:
  both strings); ``function_call_arguments.delta`` — the item is a ``function_call`` (an
  ``assert``), its ``arguments`` take the delta;
- ``response.output_item.done`` — the item keeps the added one's identity and ``id`` ("Completed
  output item identity changed."; but see :func:`_reminted`), at one index ("… conflicting
  output identities.");
- ``response.completed`` — a finished item keeps its ``id`` in the final output ("Completed
  response output identity changed."), and every added item is finished or in the final output
  ("Cannot complete response with unfinished output items."); ``response.failed`` /
  ``.incomplete`` without ``output`` get the items accumulated.

Not mirrored: an index such as ``"0"`` in an event that fails the client's validation (there it
stays a string, and indexing with it raises; here it is 0); events that are not JSON objects, or
whose ``type`` is not a string (§1's; the client's model construction, not its accumulator); an
``error`` event, and data whose ``error`` field is set (``Stream`` raises the server's error as
an ``APIError``: §1.2 and the flow's checks judge it); events after the terminal one (§2);
``starting_after``; what the caller's own arguments add — ``text_format`` (parsing a final
answer's text) and strict ``tools`` (parsing a call's arguments as JSON:
``live.tools.arguments_valid``); a client ``tool_search_call`` whose ``call_id`` changes at
done, as OpenAI's own do (:func:`_reminted`); and the message of a bare ``assert``, which
Python leaves empty (the finding names the assertion).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog.registry import Level, register
from .accumulators import LIFECYCLE_EVENTS, TERMINAL_EVENTS, stream_accumulator

__all__ = ["OPENAI_PYTHON_STREAM_ACCUMULATES", "declare_examples", "openai_python_stream_problem"]

_SOURCE = "openai-python 3.63 src/openai/lib/streaming/responses/_responses.py"
OPENAI_PYTHON_STREAM_ACCUMULATES = register(
    "live.client.openai_python.stream_accumulates",
    Level.MUST,
    f"§9.3 [CLIENT] {_SOURCE} (ResponseStreamState.handle_event, accumulate_event)",
    "every event of a response openai-python's `responses.stream` reads is one its "
    "`ResponseStreamState` can apply: after `response.created`, an `output_index` added once, "
    "before the events that address it; a text delta's `content_index` naming an `output_text` "
    "part of a `message`; a done item, and the final output, keeping the added item's identity "
    "(else it raises: `TypeError: list indices must be integers or slices, not NoneType` on a "
    "text delta without `content_index`)",
    profile="client:openai-python",
)

_LIFECYCLE = LIFECYCLE_EVENTS
_INTERIM = frozenset({"response.created", "response.queued", "response.in_progress"})
_TERMINAL = TERMINAL_EVENTS
_ROUTED = ("function_call", "custom_tool_call", "shell_call", "shell_call_output")
_CONFLICT = "Response snapshot has conflicting output identities."
_INDEXES = frozenset({"output_index", "content_index"})


def _lax_int(value: Any) -> Any:
    """An index as pydantic's lax mode reads it into an ``int`` field (``0.0``, ``"0"``: 0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    return value


class _Raised(Exception):
    """What openai-python raises: its exception, as Python prints it (a bare ``assert`` with
    the assertion it failed)."""

    def __init__(self, error: BaseException, assertion: str = "") -> None:
        text = str(error)
        name = type(error).__name__
        super().__init__(f"{name}: {text}" if text else f"{name} (at `assert {assertion}`)")


def _attr(obj: Any, name: str) -> Any:
    """``obj.name`` of a model the client built without validation: a missing field is None;
    a value that was no JSON object has no fields."""
    if isinstance(obj, dict):
        return obj.get(name)
    raise _Raised(AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'"))


def _get(obj: Any, name: str) -> Any:
    """``getattr(obj, name, None)``."""
    return obj.get(name) if isinstance(obj, dict) else None


def _require(condition: bool, assertion: str) -> None:
    if not condition:
        raise _Raised(AssertionError(), assertion)


def _python(operation: Any, *args: Any) -> Any:
    """``operation(*args)`` (an index, a hash, a ``+=``, an iteration) as Python runs it there."""
    try:
        return operation(*args)
    except (TypeError, IndexError, KeyError) as exc:
        raise _Raised(exc) from None


def _add(left: Any, right: Any) -> Any:
    left += right
    return left


def _index(collection: Any, index: Any) -> Any:
    return collection[index]


def _append(collection: Any, value: Any) -> None:
    """``collection.append``: only a list has it."""
    if not isinstance(collection, list):
        raise _Raised(
            AttributeError(f"'{type(collection).__name__}' object has no attribute 'append'")
        )
    collection.append(value)


def _to_dict(value: Any) -> dict[str, Any]:
    """``value.to_dict()``: only a model (a JSON object) has it."""
    if not isinstance(value, dict):
        _attr(value, "to_dict")
    return copy.deepcopy(value)


def _identity(item: Any) -> tuple[Any, Any, Any]:
    """``_output_identity``."""
    kind = _attr(item, "type")
    if kind in _ROUTED:
        return kind, None, _get(item, "call_id")
    return kind, _get(item, "id"), _get(item, "call_id")


def _compatible(previous: Any, replacement: Any) -> bool:
    """``_compatible_output_id``."""
    before = _get(previous, "id")
    return before == _get(replacement, "id") or (
        before is None and _attr(previous, "type") in ("function_call", "custom_tool_call")
    )


def _reminted(added: Any, done: Any) -> bool:
    """A client ``tool_search_call`` whose ``call_id`` is minted anew at done, its ``id`` kept:
    OpenAI's own streams do it (tests/data/openai-recorded: openai-client-tool-search.1,
    azure-client-tool-search.1.part1), and 3.63 raises on it — a limit of the client, not of
    the server, left out."""
    return (
        isinstance(added, dict)
        and isinstance(done, dict)
        and added.get("type") == done.get("type") == "tool_search_call"
        and added.get("id") is not None
        and added.get("id") == done.get("id")
    )


class _State:
    """One ``ResponseStreamState``: the snapshot's output, the items by wire index, the
    finished ones and where each identity finished."""

    def __init__(self) -> None:
        self.started = False
        self.response_id: Any = None
        self.output: Any = []
        self.items: dict[Any, Any] = {}  # _output_items
        self.completed: dict[Any, Any] = {}  # _completed_output
        self.positions: dict[Any, Any] = {}  # _completed_positions

    def handle(self, event: Mapping[str, Any]) -> None:
        """``handle_event``: the event accumulated, then what the helper reads to emit it."""
        kind = event["type"]
        event = {k: _lax_int(v) if k in _INDEXES else v for k, v in event.items()}
        self.accumulate(kind, event)
        if kind in ("response.output_text.delta", "response.output_text.done"):
            output = self.item(event.get("output_index"))
            _require(_attr(output, "type") == "message", 'output.type == "message"')
            content = _python(_index, _attr(output, "content"), event.get("content_index"))
            _require(_attr(content, "type") == "output_text", 'content.type == "output_text"')
        elif kind == "response.function_call_arguments.delta":
            output = self.item(event.get("output_index"))
            _require(_attr(output, "type") == "function_call", 'output.type == "function_call"')
        elif kind in ("response.failed", "response.incomplete") and (
            _get(event.get("response"), "output") is None
        ):  # the items accumulated, copied into the event
            for index in _python(sorted, self.items.keys() | self.completed.keys()):
                item = self.completed[index] if index in self.completed else self.items[index]
                if not isinstance(item, dict):
                    _attr(item, "model_copy")

    def item(self, index: Any) -> Any:
        """``_get_output_item``."""
        if _python(self.items.__contains__, index):
            return self.items[index]
        raise _Raised(
            RuntimeError(
                f"Received a content event for output index {index} before receiving its output "
                "item"
            )
        )

    def accumulate(self, kind: str, event: Mapping[str, Any]) -> None:
        """``accumulate_event``."""
        if not self.started:
            self.initial(kind, event)
            return
        response = event.get("response")
        if kind in _LIFECYCLE and _get(response, "id") != self.response_id:
            raise _Raised(RuntimeError("Lifecycle response identity changed."))
        if kind in _INTERIM:
            self.replace(_get(response, "output"))
        elif kind == "response.output_item.added":
            self.added(event)
        elif kind == "response.content_part.added":
            output = self.item(event.get("output_index"))
            if _attr(output, "type") == "message":
                content = _attr(output, "content")
                if not isinstance(content, list):
                    _append(content, None)  # raises, before the part is read (as there)
                content.append(_to_dict(event.get("part")))
        elif kind == "response.output_text.delta":
            output = self.item(event.get("output_index"))
            if _attr(output, "type") == "message":
                content = _python(_index, _attr(output, "content"), event.get("content_index"))
                _require(_attr(content, "type") == "output_text", 'content.type == "output_text"')
                content["text"] = _python(_add, content.get("text"), event.get("delta"))
        elif kind == "response.function_call_arguments.delta":
            output = self.item(event.get("output_index"))
            if _attr(output, "type") == "function_call":
                output["arguments"] = _python(_add, output.get("arguments"), event.get("delta"))
        elif kind == "response.output_item.done":
            self.done(event)
        elif kind == "response.completed":
            self.complete(response)

    def initial(self, kind: str, event: Mapping[str, Any]) -> None:
        """``_create_initial_response``."""
        if kind != "response.created":
            raise _Raised(
                RuntimeError(f"Expected to have received `response.created` before `{kind}`")
            )
        response = _to_dict(event.get("response"))
        output = response.get("output")
        self.output = [] if output is None else output
        self.items = _python(lambda: dict(enumerate(self.output)))
        self.response_id = response.get("id")
        self.started = True

    def replace(self, output: Any) -> None:
        """A lifecycle event's output replaces the finished items of the same identity."""
        replacements: dict[Any, Any] = {}
        for item in _python(list, output or []):
            identity = _identity(item)
            if _python(replacements.__contains__, identity):
                raise _Raised(RuntimeError(_CONFLICT))
            replacements[identity] = item
        for identity, replacement in replacements.items():
            index = self.positions.get(identity)
            if index is not None:
                if not _compatible(self.completed[index], replacement):
                    raise _Raised(RuntimeError(_CONFLICT))
                self.completed[index] = replacement

    def added(self, event: Mapping[str, Any]) -> None:
        item = event.get("item")
        if item is None:
            return  # an added event without an item is skipped
        index = event.get("output_index")
        if _python(self.items.__contains__, index):
            raise _Raised(RuntimeError(f"Duplicate response output index {index}."))
        kind = _attr(item, "type")
        _append(self.output, _to_dict(item) if kind in ("function_call", "message") else item)
        self.items[index] = self.output[-1]

    def done(self, event: Mapping[str, Any]) -> None:
        index, item = event.get("output_index"), event.get("item")
        added = _python(self.items.get, index)
        if added is not None and (
            (_identity(added) != _identity(item) and not _reminted(added, item))
            or not _compatible(added, item)
        ):
            raise _Raised(RuntimeError("Completed output item identity changed."))
        identity = _identity(item)
        position = _python(self.positions.get, identity)
        if position is not None and position != index:
            raise _Raised(RuntimeError(_CONFLICT))
        previous = self.completed.get(index)
        if previous is not None:
            _python(self.positions.pop, _identity(previous))
        self.completed[index] = item
        self.positions[identity] = index

    def complete(self, response: Any) -> None:
        final_output = _get(response, "output")
        final: dict[Any, Any] = {}
        for item in _python(list, final_output or []):
            identity = _identity(item)
            _python(hash, identity)
            final[identity] = item
        for item in self.completed.values():
            last = final.get(_identity(item))
            if last is not None and not _compatible(item, last):
                raise _Raised(RuntimeError("Completed response output identity changed."))
        for index, item in self.items.items():
            last = _python(final.get, _identity(item))
            if index not in self.completed and (last is None or not _compatible(item, last)):
                raise _Raised(
                    RuntimeError("Cannot complete response with unfinished output items.")
                )
        if final_output is None:  # the finished items, in index order, on a copy of the response
            if not isinstance(response, dict):
                _attr(response, "model_copy")
            final_output = [self.completed[i] for i in _python(sorted, self.completed)]
        _parse_response(final_output)


def _parse_response(output: Any) -> None:
    """What ``parse_response`` reads of the final output (with no ``text_format`` or tools):
    each item's type, a message's parts' types."""
    for item in _python(list, output or []):
        if _attr(item, "type") == "message":
            for part in _python(list, _attr(item, "content") or []):
                _attr(part, "type")


def openai_python_stream_problem(events: Iterable[Any]) -> tuple[int, str] | None:
    """The first of ``events`` (one streamed response, in order) openai-python's
    ``ResponseStreamState`` raises on, as (its index, the exception as Python prints it); None
    when it applies them all (up to an ``error`` event or the terminal one)."""
    state = _State()
    for n, event in enumerate(events):
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            continue  # not an event the client's models carry: judged by §1
        if event["type"] == "error" or event.get("error"):
            return None  # the server's error, raised by Stream as an APIError (§1.2)
        try:
            state.handle(event)
        except _Raised as exc:
            return n, str(exc)
        if event["type"] in _TERMINAL:
            return None
    return None


stream_accumulator(
    "openai-python", OPENAI_PYTHON_STREAM_ACCUMULATES, openai_python_stream_problem,
    "every event applied by openai-python's ResponseStreamState (`responses.stream`)",
)  # fmt: skip


def declare_examples() -> None:
    """The failing example is the gateway that drops ``content_index`` from the text deltas
    (tests/suite/broken_client_servers.py; openai-node's check names it too), the near miss the
    mock itself."""
    from ..examples.live import live

    live(
        OPENAI_PYTHON_STREAM_ACCUMULATES.id,
        "text_delta_without_content_index",
        "a server whose streamed `response.output_text.delta` events carry no `content_index` "
        "(openai-python: `TypeError: list indices must be integers or slices, not NoneType`)",
    )
