"""What the mock understands of a user's words (sans-I/O): a few simple, deterministic requests.

The mock is no language model, but a few things about a request have one right reading, and the
``auto`` scenario (:func:`mock_server.scenarios.auto`) acts on them, read from the **last user
turn**:

``reply(messages)`` — the whole answer to a simple request, or ``None`` when the turn makes none
of these (the live suite asks them: ``conformance/suite/cases/test_chain.py``):

- recall: "What was the code word I asked you to remember?" answers with the value an earlier user
  turn gave — "Remember this code word: PELICAN-123." (``remember`` / ``memorize`` / ``note`` /
  ``keep in mind`` … ``the|this|my <name>`` then ``:`` or ``is``, then ``<value>``): just the value
  when the asking turn says "only", else "The code word was PELICAN-123.";
- a literal reply: a sentence "Reply only with OK.", "Respond with the word yes.", "Repeat the
  word TANGERINE.", "Say exactly: hello." → that one word.

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

__all__ = ["MAX_ASKS", "asks", "reply"]

MAX_ASKS = 4

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_VALUE = r"[\"'“‘]?(?P<value>\w(?:[\w.-]*\w)?)[\"'”’]?"
_KEY = r"(?P<key>[a-z][a-z ]{0,30}?)"
_MEMO = re.compile(
    rf"\b(?:remember|memori[sz]e|note|keep in mind)\b[^.:?!]*?\b(?:the|this|my)\s+{_KEY}"
    rf"\s*(?::|\bis\b)\s*{_VALUE}",
    re.IGNORECASE,
)
_RECALL = re.compile(
    rf"\bwhat\s+(?:was|is)\s+(?:the|my|that)\s+{_KEY}\s+(?:that\s+)?(?:I|you)\b", re.IGNORECASE
)
_ONLY = re.compile(r"\bonly\b", re.IGNORECASE)
_LITERAL = re.compile(
    r"(?:please\s+)?(?:(?:reply|respond|answer)\s+(?:only\s+)?with\s+(?:only\s+)?"
    r"|(?:repeat|say)\s+(?:only\s+)?(?:after me:?\s+|exactly:?\s+)?)"
    rf"(?:the\s+word\s+)?{_VALUE}(?:\s+only)?\s*[.!]?",
    re.IGNORECASE,
)
_NAME = r"\b[A-Z][\w-]*"
_NAMES = re.compile(_NAME)
_NAME_LIST = re.compile(rf"{_NAME}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?:[a-z]+\s+)?{_NAME})+")
_AND = re.compile(r"\band\b")


def _last_user(messages: Sequence[Message]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user" and messages[i].content.strip():
            return i
    return None


def reply(messages: Sequence[Message]) -> str | None:
    """The exact answer to a simple request in the last user turn (see the module docstring)."""
    last = _last_user(messages)
    if last is None:
        return None
    text = messages[last].content
    asked = _RECALL.search(text)
    if asked is not None:
        key = asked["key"].strip().lower()
        for message in reversed(messages[:last]):
            if message.role != "user":
                continue
            memos = [m for m in _MEMO.finditer(message.content) if m["key"].lower() == key]
            if memos:
                value = memos[-1]["value"]
                return value if _ONLY.search(text) else f"The {key} was {value}."
    for sentence in _SENTENCE_END.split(text.strip()):
        literal = _LITERAL.fullmatch(sentence.strip())
        if literal is not None:
            return literal["value"]
    return None


def asks(messages: Sequence[Message]) -> int:
    """How many independent requests the last user turn makes (1 to :data:`MAX_ASKS`)."""
    last = _last_user(messages)
    if last is None:
        return 1
    lists = [m[0] for m in _NAME_LIST.finditer(messages[last].content) if _AND.search(m[0])]
    return min(MAX_ASKS, max((len(_NAMES.findall(names)) for names in lists), default=1))
