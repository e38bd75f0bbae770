"""A judged stream is freed when its validator is dropped, by reference counting alone.

A validator in a reference cycle keeps everything it holds (each stream's parsed items and
responses) until the cyclic garbage collector finds it: memory that grows between collections
under load, and collections that cost the judge a sixth of its time offline (each one walks
the validators waiting to be freed). The recordings of both corpora, judged as SSE bytes and as
event objects, in every profile, must leave no cyclic garbage behind."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from conformance import SSEStreamValidator
from conformance.validator.core import PROFILES

DATA = Path(__file__).parents[2] / "data"
JSONL = sorted((DATA / "openai-recorded" / "streams").glob("*.jsonl"))
SSE = sorted((DATA / "openai-recorded-2" / "streams").glob("*.sse"))


def _sse(path: Path) -> bytes:
    """A recording as the SSE bytes a server sent (JSON Lines framed as a server frames them)."""
    if path.suffix == ".sse":
        return path.read_bytes()
    out = []
    for ln in path.read_bytes().splitlines():
        if ln.strip():
            name = str(orjson.loads(ln)["type"]).encode()
            out.append(b"event: " + name + b"\ndata: " + ln + b"\n\n")
    return b"".join(out)


def _garbage(run: Callable[[], None]) -> Counter[str]:
    """The types of the objects only the cyclic collector would free after ``run()``, run once
    before to warm up (compiling schemas and typed decoders the first time makes garbage of its
    own, in msgspec)."""
    run()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        found = Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    return found


@pytest.fixture(scope="module")
def bodies() -> list[bytes]:
    assert (len(JSONL), len(SSE)) == (48, 390)  # both corpora's streams
    return [_sse(p) for p in JSONL + SSE]


@pytest.mark.parametrize(
    ("chunking", "fast"),
    [("64k", True), ("per event", True), ("64k", False)],
    ids=["typed hot loop", "one-event lane", "reference path with coverage"],
)
def test_validators_leave_no_cycles(bodies: list[bytes], chunking: str, fast: bool) -> None:
    def run() -> None:
        for body in bodies:
            sse = SSEStreamValidator(profiles=PROFILES, coverage=not fast, fast=fast)
            if chunking == "64k":
                chunks = [body[i : i + 65536] for i in range(0, len(body), 65536)]
            else:
                chunks = [block + b"\n\n" for block in body.split(b"\n\n")]
            for chunk in chunks:
                sse.feed(chunk)
            sse.close()
            assert sse.violations is not None
            if not fast:
                assert sse.exercised

    assert _garbage(run) == Counter()
