"""Why a failure is the server's and not the suite's: the rule, its source, and what shows it.

Written per check ID after reading the evidence of every failure in the matrix (and, where a
failure turned out to be the suite's, the suite was fixed instead of being listed here). A rule
that a real OpenAI recording (``tests/data/openai-recorded``) breaks is not a rule: the corpus is
the arbiter (SPEC.md §1a). Per-target notes override the per-check ones.
"""

from __future__ import annotations

__all__ = ["BY_CHECK", "BY_TARGET", "why_theirs"]

BY_CHECK: dict[str, str] = {}

BY_TARGET: dict[tuple[str, str], str] = {}


def why_theirs(target: str, check_id: str) -> str:
    for (prefix, cid), text in BY_TARGET.items():
        if cid == check_id and target.startswith(prefix):
            return text
    return BY_CHECK.get(check_id, "")
