"""The proxy decodes its judge's copy of a compressed upstream body a bounded piece at a time
(conformance.suite.coding): one chunk of deflate can hold ~1000 times its size, and before, one
64 KiB chunk became up to 64 MiB at once, and a gzip stream was cut as broken once it had decoded
to 64 MiB in all, however well-formed. Now no piece is over 1 MiB and there is no total: the
judge's caps (a non-stream body's --max-body-bytes, a stream's event bounds) decide."""

from __future__ import annotations

import gzip
import zlib

import pytest

from conformance.proxy.app import stream_decoder
from conformance.suite.coding import DEFAULT_PIECE_BYTES, UndecodableBody

MiB = 1024 * 1024


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_a_gzip_bomb_comes_out_in_bounded_pieces() -> None:
    bomb = gzip.compress(b"\0" * (64 * MiB + 1), 9)
    decoder = stream_decoder("gzip")
    sizes = [len(p) for chunk in _chunks(bomb, 64 * 1024) for p in decoder.feed(chunk)]
    assert max(sizes) == DEFAULT_PIECE_BYTES == MiB
    assert sum(sizes) == 64 * MiB + 1  # and not cut at 64 MiB: no total bound here


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate", "GZIP"])
@pytest.mark.parametrize("size", [1, 7, 4096])
def test_a_coded_body_decodes_in_any_chunking(coding: str, size: int) -> None:
    data = bytes(range(250)) * 4
    packed = zlib.compress(data) if coding == "deflate" else gzip.compress(data)
    decoder = stream_decoder(coding)
    assert b"".join(p for c in _chunks(packed, size) for p in decoder.feed(c)) == data


def test_bytes_that_do_not_decode_are_refused() -> None:
    with pytest.raises(UndecodableBody, match="does not decode"):
        list(stream_decoder("gzip").feed(b"not gzip"))


@pytest.mark.parametrize("coding", ["identity", "", "br", "zstd"])
def test_identity_or_a_coding_not_asked_for_is_judged_as_its_bytes(coding: str) -> None:
    assert b"".join(stream_decoder(coding).feed(b"abc")) == b"abc"
