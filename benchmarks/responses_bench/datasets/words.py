"""Synthetic text (sans-I/O): prompts of an exact token length, trace blocks, shared prefixes.

Every word is a single token in the usual BPE vocabularies (cl100k/o200k, with its leading space)
and exactly one in the mock's tokenizer, so ``N`` words are ``N`` prompt tokens. Words are drawn at
random, so no two prompts share a prefix a server could cache — unless the workload asks for one:

- a **trace block** (mooncake-style ``hash_ids``): the words of block ``h`` are a pure function of
  ``(seed, h)``, so two trace lines naming the same hash ids start with the same tokens;
- a **prefix pool** (``--prefix-count N --prefix-tokens T``): ``N`` fixed prefixes of ``T`` tokens,
  one of them put before each session's first prompt.
"""

from __future__ import annotations

import random

__all__ = ["WORDS", "block", "prefix_pool", "words"]

# Words that are one token each in cl100k/o200k (with their leading space) and in the mock.
# fmt: off
WORDS = (
    "the", "of", "and", "to", "in", "is", "was", "for", "on", "are", "as", "with", "his", "they",
    "at", "be", "this", "from", "have", "or", "by", "one", "had", "not", "but", "what", "all",
    "were", "when", "we", "there", "can", "an", "your", "which", "their", "said", "if", "do",
    "will", "each", "about", "how", "up", "out", "them", "then", "she", "many", "some", "so",
    "these", "would", "other", "into", "has", "more", "her", "two", "like", "him", "see", "time",
    "could", "no", "make", "than", "first", "been", "its", "who", "now", "people", "my", "made",
    "over", "did", "down", "only", "way", "find", "use", "may", "water", "long", "little", "very",
    "after", "words", "called", "just", "where", "most", "know", "get", "through", "back", "much",
    "before", "go", "good", "new", "write", "our", "used", "me", "man", "too", "any", "day",
    "same", "right", "look", "think", "also", "around", "another", "came", "come", "work", "three",
    "word", "must", "because", "does", "part", "even", "place", "well", "such", "here", "take",
    "why", "things", "help", "put", "years", "different", "away", "again", "off", "went", "old",
    "number", "great", "tell", "men", "say", "small",
)
# fmt: on


def words(rng: random.Random, count: int) -> str:
    """``count`` random words (``count`` tokens), space-separated."""
    return " ".join(rng.choices(WORDS, k=count))


def block(seed: int, hash_id: int, tokens: int) -> str:
    """The text of trace block ``hash_id``: the same words for the same ``(seed, hash_id)``."""
    return words(random.Random(f"{seed}/block/{hash_id}"), tokens)


def prefix_pool(seed: int, count: int, tokens: int) -> tuple[str, ...]:
    """``count`` distinct shared prefixes of ``tokens`` tokens each (none when ``count`` is 0)."""
    return tuple(words(random.Random(f"{seed}/prefix/{i}"), tokens) for i in range(count))
