"""Deterministic pseudo-prose: the words the mock "says", drawn from a seeded RNG.

The text echoes the last user message and the turn count, so multi-turn tests can see that history
reached the engine, and fills the rest with sentences from a fixed vocabulary until it reaches a
target length in tokens (counted by :mod:`mock_server.tokenizer`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mock_server.tokenizer import count_tokens
from reference_impl.engine import Message

__all__ = ["answer", "quote", "reasoning_summary", "refusal", "sentences", "tool_result_answer"]

_SUBJECTS = (
    "The mock server", "This answer", "A deterministic model", "The request", "Every token",
    "The stream", "Your question", "The seed",
)  # fmt: skip
_VERBS = (
    "describes", "considers", "follows", "repeats", "explains", "measures", "reflects", "keeps",
)  # fmt: skip
_OBJECTS = (
    "a quiet harbor", "the amber signal", "each careful step", "the maple grove", "an orbit of ideas",
    "the river at dawn", "a cobalt sky", "the willow's shade", "every falcon's path", "the velvet night",
)  # fmt: skip
_TAILS = (
    "", " with care", " in order", " once more", " without surprise", " as promised", " plainly",
)  # fmt: skip


# Token counts of the sentences drawn so far: at most 8 x 8 x 10 x 7 = 4,480 of them, and counting
# was most of the cost of a long answer (benchmarks/mock_streaming_throughput.py).
_SENTENCE_TOKENS: dict[str, int] = {}
_PARTS = (_SUBJECTS, _VERBS, _OBJECTS, _TAILS)


def sentences(rng: random.Random, min_tokens: int) -> str:
    """Sentences until at least ``min_tokens`` tokens."""
    out: list[str] = []
    total = 0
    getrandbits = rng.getrandbits
    while total < min_tokens:
        # rng.choice(words) four times, inlined (half the cost of a long answer): the draws of
        # CPython's Random.choice -> _randbelow_with_getrandbits, so the text is unchanged.
        picked = []
        for words in _PARTS:
            n = len(words)
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            picked.append(words[r])
        subject, verb, obj, tail = picked
        s = f"{subject} {verb} {obj}{tail}."
        s = s if not out else " " + s
        count = _SENTENCE_TOKENS.get(s)
        if count is None:
            count = _SENTENCE_TOKENS[s] = count_tokens(s)
        out.append(s)
        total += count
    return "".join(out)


def quote(messages: Sequence[Message], max_words: int = 8) -> str:
    """The start of the last user message, on one line."""
    for message in reversed(messages):
        if message.role == "user" and message.content.strip():
            words = message.content.split()
            return " ".join(words[:max_words]) + (" …" if len(words) > max_words else "")
    return "nothing in particular"


def _turn(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if m.role == "user")


def answer(rng: random.Random, messages: Sequence[Message], min_tokens: int) -> str:
    head = f'You said: "{quote(messages)}" (turn {_turn(messages)}).'
    return head + " " + sentences(rng, max(1, min_tokens - count_tokens(head)))


def tool_result_answer(rng: random.Random, messages: Sequence[Message], min_tokens: int) -> str:
    result = next((m for m in reversed(messages) if m.role == "tool"), None)
    snippet = " ".join(result.content.split()[:12]) if result else ""
    head = f'The tool returned: "{snippet}".'
    return head + " " + sentences(rng, max(1, min_tokens - count_tokens(head)))


def reasoning_summary(rng: random.Random, messages: Sequence[Message], part: int) -> str:
    # OpenAI's summaries open with a bold title line (tests/data/openai-recorded).
    title = ("**Considering the request**", "**Planning the answer**", "**Checking details**")[
        part % 3
    ]
    body = f'The user wrote "{quote(messages, 6)}". ' + sentences(rng, 14)
    return f"{title}\n\n{body}"


def refusal(rng: random.Random) -> str:
    return rng.choice(
        (
            "I'm sorry, but I can't help with that.",
            "I'm sorry, but I can't assist with that request.",
            "Sorry, I can't help with that.",
        )
    )
