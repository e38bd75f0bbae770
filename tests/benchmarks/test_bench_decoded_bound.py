"""responses-bench decodes at most 64 MiB of a compressed body: past it the body counts as
truncated (zlib.error), not decompressed into memory."""

from __future__ import annotations

import gzip
import zlib

import pytest

import benchmarks.responses_bench.exchange as exchange


def test_a_gzip_bomb_stops_at_64_mib() -> None:
    limit = 64 * 1024 * 1024
    bomb = gzip.compress(b"\0" * (limit + 1), 9)
    decoder = exchange._decoder("gzip")
    assert decoder is not None
    made = 0
    with pytest.raises(zlib.error, match="more than 67108864 bytes"):
        for start in range(0, len(bomb), 64 * 1024):
            made += len(decoder.decompress(bomb[start : start + 64 * 1024]))
    assert made <= limit
    assert limit == exchange.MAX_DECODED_BYTES


@pytest.mark.parametrize("coding", ["gzip", "GZIP", "deflate"])
def test_past_the_bound_is_refused(monkeypatch: pytest.MonkeyPatch, coding: str) -> None:
    monkeypatch.setattr(exchange, "MAX_DECODED_BYTES", 500, raising=False)
    data = b"z" * 501
    packed = zlib.compress(data) if coding == "deflate" else gzip.compress(data)
    decoder = exchange._decoder(coding)
    assert decoder is not None
    with pytest.raises(zlib.error):
        decoder.decompress(packed)


def test_exactly_the_bound_decodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exchange, "MAX_DECODED_BYTES", 500, raising=False)
    data = bytes(range(250)) * 2  # 500 bytes
    packed = gzip.compress(data)
    decoder = exchange._decoder("gzip")
    assert decoder is not None
    assert b"".join(decoder.decompress(packed[i : i + 3]) for i in range(0, len(packed), 3)) == data


def test_no_coding_no_decoder() -> None:
    assert exchange._decoder(None) is None and exchange._decoder("identity") is None
