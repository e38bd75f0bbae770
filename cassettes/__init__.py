"""Cassettes: recorded HTTP / SSE / WebSocket exchanges, as bytes, headers and timings.

A neutral package: the judge (``conformance``) and the judged (``mock_server``) may both
import it, and it imports neither; it knows no protocol (nothing of Responses), only requests,
responses, chunks of bytes with their arrival times, WebSocket frames, and secrets. The on-disk
format is documented in docs/cassettes.md: a cassette is a folder, one JSON Lines file per
exchange (``000001-POST-responses.jsonl``).

Writing, as the traffic happens (a proxy, ``responses-mock --record``)::

    from cassettes import CassetteWriter

    writer = CassetteWriter(directory, secrets=[api_key])   # credential headers are always redacted
    writer.add_secret(another)  # hunted in everything written from now on
    rec = writer.begin(method, target, request_headers, request_body)   # target: path + query
    rec.response(status, response_headers)
    rec.chunk(data)             # each body chunk as it arrives (time taken now)
    rec.frame(text, "server")   # WebSocket: each message, "client" or "server"
    rec.finish()                # or finish("disconnected") / finish("error: ..."); writes the file

The file is written as the exchange passes, aside (hidden) until ``finish`` links it into place,
so a recorder's memory does not grow with the body: every secret is redacted before its bytes are
written, in a bounded window that still finds one split across chunks or SSE deltas
(:mod:`cassettes.streaming`, :mod:`cassettes.secrets`), never over another exchange's file (several
writers, even processes, may share a folder). ``response`` only keeps the head; ``chunk`` and
``frame`` write (buffered, blocking file I/O, a small piece at a time); ``finish`` writes the end
and links the file (from async code, ``await anyio.to_thread.run_sync(rec.finish)``, as
``mock_server/record.py`` does). One writer is safe to share between threads.

Reading: ``read_cassette(path)`` -> ``list[Exchange]`` in recorded order, from a folder of exchange
files, one exchange file or a vcrpy cassette (YAML / JSON: :mod:`cassettes.vcr`);
:class:`CassetteError` (one-line message) when it cannot. Every exception the package raises on
purpose derives from :class:`CassettesError` (the tree: :mod:`cassettes.errors`). :class:`Exchange` has ``method``,
``target`` (``.path``, ``.query``), ``request_headers``, ``request_body``, ``status``,
``response_headers``, ``chunks`` (:class:`Chunk` ``t``, ``data``; ``.body`` joins them),
``frames`` (:class:`Frame`), ``outcome``.

Redaction alone: :class:`Redactor`.
"""

from __future__ import annotations

from cassettes.codec import decode_exchange, encode_exchange
from cassettes.errors import CassetteError, CassettesError, TooLarge
from cassettes.model import FORMAT, Chunk, Exchange, Frame, Headers
from cassettes.reader import cassette_files, is_cassette_dir, read_cassette, read_exchange
from cassettes.redaction import REDACTED, Redactor, secret_forms
from cassettes.secrets import SECRET_HEADERS, redact_exchange, redact_headers
from cassettes.writer import CassetteWriter, ExchangeRecorder

__all__ = [
    "FORMAT",
    "REDACTED",
    "SECRET_HEADERS",
    "CassetteError",
    "CassetteWriter",
    "CassettesError",
    "Chunk",
    "Exchange",
    "ExchangeRecorder",
    "Frame",
    "Headers",
    "Redactor",
    "TooLarge",
    "cassette_files",
    "decode_exchange",
    "encode_exchange",
    "is_cassette_dir",
    "read_cassette",
    "read_exchange",
    "redact_exchange",
    "redact_headers",
    "secret_forms",
]
