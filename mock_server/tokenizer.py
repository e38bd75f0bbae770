"""The mock's tokenizer: one documented rule for counting and for chunking, so ``usage`` is exact.

**Rule.** A text is cut, left to right, into the longest matches of the first alternative that fits:

1. optional whitespace, then a run of word characters (Unicode ``\\w``: letters, digits, ``_``);
2. optional whitespace, then one character that is neither a word character nor whitespace;
3. a run of whitespace (only left at the end of a text, or before nothing else matching).

As a regular expression: ``\\s*\\w+|\\s*[^\\w\\s]|\\s+``. Every character belongs to exactly one
token, so tokens joined give the text back. ``"Hello, world."`` is ``["Hello", ",", " world",
"."]`` (4 tokens); ``'{"a":1}'`` is ``['{', '"', 'a', '"', ':', '1', '}']`` (7 tokens).

**Input tokens** of a request (``count_request_tokens``), mirroring how chat templates frame turns:

``input_tokens = 3 + Σ_messages (3 + n(content) + n(reasoning) + 85·images
+ Σ_tool_calls (n(name) + n(arguments))) + Σ_tools n(canonical JSON of the tool)``

where ``n`` counts tokens by the rule above, 3 per message is the turn framing, the leading 3 primes
the reply, 85 is a flat cost per image, and a tool's canonical JSON is
``{"name","description","parameters"}`` with sorted keys and no spaces. Instructions reach the
engine as a system/developer message, so they are counted as one.

**Output tokens** are the tokens of everything the engine streams (reasoning, text, refusal,
function-call arguments) plus the query of a hosted tool call; ``reasoning_tokens`` are the tokens
of reasoning text. The engine chunks output at token boundaries, so a cut-off after N tokens
reports exactly N.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import orjson

from reference_impl.engine import FunctionTool, GenerationRequest, Message

__all__ = [
    "IMAGE_TOKENS",
    "MESSAGE_OVERHEAD",
    "REPLY_PRIMING",
    "count_message_tokens",
    "count_request_tokens",
    "count_tokens",
    "tokenize",
    "tool_text",
]

_TOKEN = re.compile(r"\s*\w+|\s*[^\w\s]|\s+")

MESSAGE_OVERHEAD = 3
REPLY_PRIMING = 3
IMAGE_TOKENS = 85


# A token never spans a point where a whitespace run starts after a non-space character (word and
# punctuation tokens stop before whitespace, and every token is matched looking forward only), so
# a text cut at such points tokenizes piece by piece to the same tokens. Long texts are cut after
# each ". " and the pieces' tokens kept: the mock's prose repeats its sentences, and tokenizing a
# long answer was a fifth of a stream's fixed cost (benchmarks/perf/mock_streaming_throughput.py).
# From a few sentences on: the default answer (40-80 tokens, ~300 characters) costs ~110k
# instructions as one findall and ~20k piece by piece.
_PIECES: dict[str, tuple[str, ...]] = {}
_PIECES_MAX = 1 << 15
_PIECE_LEN_MAX = 200
_LONG_TEXT = 128


def tokenize(text: str) -> list[str]:
    """Split ``text`` into tokens; ``"".join(tokenize(t)) == t`` always."""
    if len(text) < _LONG_TEXT:
        return _TOKEN.findall(text)
    tokens: list[str] = []
    parts = text.split(". ")
    last = len(parts) - 1
    for i, part in enumerate(parts):
        piece = (" " + part if i else part) + ("." if i < last else "")
        cached = _PIECES.get(piece)
        if cached is None:
            cached = tuple(_TOKEN.findall(piece))
            if len(piece) <= _PIECE_LEN_MAX and len(_PIECES) < _PIECES_MAX:
                _PIECES[piece] = cached
        tokens.extend(cached)
    return tokens


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def tool_text(tool: FunctionTool) -> str:
    """The canonical text a tool declaration is counted as."""
    doc = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS).decode()


def count_message_tokens(message: Message) -> int:
    total = MESSAGE_OVERHEAD + count_tokens(message.content) + IMAGE_TOKENS * len(message.images)
    if message.reasoning:
        total += count_tokens(message.reasoning)
    for call in message.tool_calls:
        total += count_tokens(call.get("name", "")) + count_tokens(call.get("arguments", ""))
    return total


def count_request_tokens(request: GenerationRequest) -> int:
    # A custom tool counts as a function tool without parameters (its name and description).
    custom = (FunctionTool(t.name, None, t.description) for t in request.custom_tools)
    return _count(request.messages, (*request.tools, *custom))


def _count(messages: Iterable[Message], tools: Iterable[FunctionTool]) -> int:
    total = REPLY_PRIMING + sum(count_message_tokens(m) for m in messages)
    return total + sum(count_tokens(tool_text(t)) for t in tools)
