"""Values of the wrong JSON type at random places: the robustness tests' one mutation.

The judge and the servers must answer such input with a verdict or an OpenAI-shaped 4xx, never a
traceback (tests/conformance/validator/test_type_confusion.py, tests/mock_server/test_mock_request_fuzz.py).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

# One of each JSON type, nested ones, empty ones, and an integer beyond 64 bits.
WRONG: tuple[Any, ...] = ({}, [], None, True, 1.5, "x", -1, 10**30, {"a": [1]}, [{}], "", 0)


def paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key or index path inside a JSON value, parents before children."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*path, key)
            yield from paths(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield (*path, i)
            yield from paths(child, (*path, i))


def confuse(value: Any, rng: random.Random, edits: int) -> Any:
    """A copy of ``value`` with ``edits`` places replaced by a value from :data:`WRONG`."""
    value = copy.deepcopy(value)
    for _ in range(edits):
        where = list(paths(value))
        if not where:
            break
        path = rng.choice(where)
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = copy.deepcopy(rng.choice(WRONG))
    return value
