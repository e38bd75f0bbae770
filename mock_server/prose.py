"""Deterministic pseudo-prose: the words the mock "says", drawn from a seeded RNG.

The text echoes the last user message and the turn count, so multi-turn tests can see that history
reached the engine, and fills the rest with sentences from a fixed vocabulary until it reaches a
target length in tokens (counted by :mod:`mock_server.tokenizer`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mock_server import instructions
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


# The sentences drawn so far, with their token counts, by the indices of their four words: at most
# 8 x 8 x 10 x 7 = 4,480 of them; counting was most of the cost of a long answer
# (benchmarks/perf/mock_streaming_throughput.py).
_SENTENCES: dict[tuple[int, int, int, int], tuple[str, int]] = {}
# rng.choice(words) is words[r] with r from getrandbits(k), k = len(words).bit_length(), drawn again
# while r >= len(words) (CPython's Random._randbelow_with_getrandbits); sentences() makes exactly
# these draws itself, in order, so the text is the same at a third of the cost.
_DRAWS = tuple(
    (len(words), len(words).bit_length()) for words in (_SUBJECTS, _VERBS, _OBJECTS, _TAILS)
)


def sentences(rng: random.Random, min_tokens: int) -> str:
    """Sentences until at least ``min_tokens`` tokens."""
    out: list[str] = []
    total = 0
    getrandbits = rng.getrandbits
    (n1, k1), (n2, k2), (n3, k3), (n4, k4) = _DRAWS
    while total < min_tokens:
        a = getrandbits(k1)
        while a >= n1:
            a = getrandbits(k1)
        b = getrandbits(k2)
        while b >= n2:
            b = getrandbits(k2)
        c = getrandbits(k3)
        while c >= n3:
            c = getrandbits(k3)
        d = getrandbits(k4)
        while d >= n4:
            d = getrandbits(k4)
        key = (a, b, c, d)
        known = _SENTENCES.get(key)
        if known is None:
            text = f"{_SUBJECTS[a]} {_VERBS[b]} {_OBJECTS[c]}{_TAILS[d]}."
            # Counted with the space that joins it to the sentence before: the same count.
            known = _SENTENCES[key] = (text, count_tokens(" " + text))
        out.append(known[0])
        total += known[1]
    return " ".join(out)


def quote(messages: Sequence[Message], max_words: int = 8) -> str:
    """The start of the user's own words in the last user turn (not the context a client injects:
    :func:`mock_server.instructions.own_words`), on one line."""
    text = instructions.last_user_words(messages)
    if text is None:
        return "nothing in particular"
    words = text.split()
    return " ".join(words[:max_words]) + (" …" if len(words) > max_words else "")


def _turn(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if m.role == "user" and instructions.own_words(m.content))


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
