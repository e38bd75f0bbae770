"""The proxy's body decoder makes at most 64 MiB of a compressed upstream body: one chunk of
deflate can hold ~1000 times its size, so the bound is kept as the output is made."""

from __future__ import annotations

import gzip
import zlib

import pytest

import conformance.proxy.app
from conformance.proxy.app import stream_decoder


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_a_gzip_bomb_stops_at_64_mib() -> None:
    limit = 64 * 1024 * 1024
    bomb = gzip.compress(b"\0" * (limit + 1), 9)
    decode = stream_decoder("gzip")
    made = 0
    with pytest.raises(zlib.error, match="more than 67108864 bytes"):
        for chunk in _chunks(bomb, 64 * 1024):
            made += len(decode(chunk))
    assert made <= limit
    assert limit == conformance.proxy.app.MAX_DECODED_BYTES


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate"])
def test_one_chunk_past_the_bound_is_refused(monkeypatch: pytest.MonkeyPatch, coding: str) -> None:
    monkeypatch.setattr(conformance.proxy.app, "MAX_DECODED_BYTES", 1000, raising=False)
    data = b"y" * 1001
    packed = zlib.compress(data) if coding == "deflate" else gzip.compress(data)
    with pytest.raises(zlib.error, match="more than 1000 bytes"):
        stream_decoder(coding)(packed)


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_exactly_the_bound_decodes_in_any_chunking(
    monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(conformance.proxy.app, "MAX_DECODED_BYTES", 1000, raising=False)
    data = bytes(range(250)) * 4
    decode = stream_decoder("gzip")
    assert b"".join(decode(c) for c in _chunks(gzip.compress(data), size)) == data


def test_identity_is_not_decoded() -> None:
    assert stream_decoder("identity")(b"abc") == b"abc"
