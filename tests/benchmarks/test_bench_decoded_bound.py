"""responses-bench decodes a compressed body a bounded piece at a time (the suite's decoder,
conformance.suite.coding): a gzip bomb never expands in one go, and the caps downstream (the body
limit, the SSE decoder's bound on one event) hold on what it decodes to. A body that does not
decode is ``bench.transport.undecodable``, not a truncated one."""

from __future__ import annotations

import gzip
import zlib

import pytest

import benchmarks.responses_bench.exchange as exchange
from benchmarks.responses_bench.meter import UNDECODABLE
from conformance.suite.coding import DEFAULT_PIECE_BYTES, UndecodableBody

MiB = 1024 * 1024


def test_a_gzip_bomb_comes_in_bounded_pieces() -> None:
    bomb = gzip.compress(b"\0" * (64 * MiB), 9)
    decoder = exchange._decoder("gzip")
    assert decoder is not None
    pieces = [
        len(p)
        for i in range(0, len(bomb), 64 * 1024)
        for p in decoder.feed(bomb[i : i + 64 * 1024])
    ]
    pieces += [len(p) for p in decoder.flush()]
    # Before the bound, one 64 KiB read of this was 64 MiB at once.
    assert max(pieces) == DEFAULT_PIECE_BYTES == MiB and sum(pieces) == 64 * MiB


@pytest.mark.parametrize("coding", ["gzip", "GZIP", "x-gzip", "deflate"])
def test_a_coded_body_decodes_whole(coding: str) -> None:
    """The near miss: a body cut into 3-byte reads comes out as it went in."""
    data = bytes(range(250)) * 2
    packed = zlib.compress(data) if coding == "deflate" else gzip.compress(data)
    decoder = exchange._decoder(coding)
    assert decoder is not None
    out = b"".join(p for i in range(0, len(packed), 3) for p in decoder.feed(packed[i : i + 3]))
    assert out + b"".join(decoder.flush()) == data


def test_a_corrupt_or_cut_body_is_undecodable() -> None:
    decoder = exchange._decoder("gzip")
    assert decoder is not None
    with pytest.raises(UndecodableBody):
        list(decoder.feed(b"this is not gzip"))
    cut = exchange._decoder("gzip")
    assert cut is not None
    list(cut.feed(gzip.compress(b"x" * 1000)[:20]))
    with pytest.raises(UndecodableBody, match="ends before"):
        list(cut.flush())
    assert UNDECODABLE == "bench.transport.undecodable"


@pytest.mark.parametrize("coding", [None, "", "identity", "br", "zstd", "gzip, br"])
def test_identity_or_a_coding_not_asked_for_is_passed_as_it_is(coding: str | None) -> None:
    """The bench asks for identity; a body in a coding it cannot decode goes to the judge as its
    bytes (which the judge then fails), never through a decoder that expands it whole."""
    assert exchange._decoder(coding) is None
