"""What the mock understands of a user's words (sans-I/O): a few simple, deterministic requests.

The mock is no language model, but a few things about a request have one right reading, and the
``auto`` scenario (:func:`mock_server.scenarios.auto`) acts on them, read from the **last user
turn**:

``asks(messages)`` — how many independent things the last user turn asks for, which is how many
function calls a parallel-calling model issues at once: the names in its longest list of
capitalised names joined by ``and`` (and commas; a name may follow one lowercase word) — "the
weather in Paris and in Tokyo" → 2, "Oslo, Rome and Lima" → 3 — else 1; at most
:data:`MAX_ASKS`. Lowercase word lists ("this and that") are not counted: they are too common in
ordinary prose (and in the benchmarks' synthetic prompts) to mean "do it for each".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reference_impl.engine import Message

__all__ = ["MAX_ASKS", "asks"]

MAX_ASKS = 4

_NAME = r"\b[A-Z][\w-]*"
_NAMES = re.compile(_NAME)
_NAME_LIST = re.compile(rf"{_NAME}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?:[a-z]+\s+)?{_NAME})+")
_AND = re.compile(r"\band\b")


def _last_user(messages: Sequence[Message]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user" and messages[i].content.strip():
            return i
    return None


def asks(messages: Sequence[Message]) -> int:
    """How many independent requests the last user turn makes (1 to :data:`MAX_ASKS`)."""
    last = _last_user(messages)
    if last is None:
        return 1
    lists = [m[0] for m in _NAME_LIST.finditer(messages[last].content) if _AND.search(m[0])]
    return min(MAX_ASKS, max((len(_NAMES.findall(names)) for names in lists), default=1))
