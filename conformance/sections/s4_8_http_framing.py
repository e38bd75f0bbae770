"""§4.8 HTTP/1.1 framing (docs/spec.md#s4-8): ``http.head.syntax``, ``http.body.length``,
``http.body.chunked`` — an answer's head and body framing as RFC 9112 defines them.

The rule is the proxy's parser (:mod:`conformance.proxy.http1`, llhttp through ``httptools``):
what it refuses, the proxy neither relays as if fine nor judges as a body — the exchange fails
with the check's violation, and a request with such bytes is refused with a 400. The suite talks
through an HTTP client, which refuses such bytes itself, so its case ``core/http11_framing``
(below, :mod:`.cases`) sends one create over a plain connection
(:func:`conformance.suite.raw_http.raw_exchange`) and has the same parser read the answer, byte
for byte as the target framed it; :func:`judge_answer` applies the rule to one recorded answer as
the proxy does, for the examples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..catalog.registry import REGISTRY, Level, Violation, register
from .case_support import SHORT_PROMPT
from .cases import STREAMS, case, params

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = ["BODY_CHUNKED", "BODY_LENGTH", "HEAD_SYNTAX", "declare_examples", "judge_answer"]

HEAD_SYNTAX = register(
    "http.head.syntax",
    Level.MUST,
    "§4.8; RFC 9112 sec. 2.2, 3, 4, 5",
    "an HTTP/1.1 message head is the grammar's: a start line, header fields whose names are "
    "tokens (no NUL, `(`, TAB or space), CRLF line ends, no obsolete line folding",
)
BODY_LENGTH = register(
    "http.body.length",
    Level.MUST,
    "§4.8; RFC 9112 sec. 6.1, 6.3",
    "a message's body length is determined one way: one `Content-Length` of digits that fits, "
    "never beside `Transfer-Encoding`, and `chunked` applied at most once",
)
BODY_CHUNKED = register(
    "http.body.chunked",
    Level.MUST,
    "§4.8; RFC 9112 sec. 7.1",
    "a chunked body is the grammar's: each chunk-size is hex digits only (no `0x`, sign, "
    "underscore or leading space), each line ends in CRLF, the body ends with the last chunk",
)


def judge_answer(data: bytes, *, method: str = "POST") -> tuple[list[Violation], set[str]]:
    """The rule on one whole answer (head and body, as the upstream sent it to ``method``): the
    violations and the checks it applied, as the proxy reports them."""
    from ..proxy.http1 import BodyReader, FramingError, body_framing, parse_response_head

    applied: set[str] = set()
    try:
        found = parse_response_head(data)
        if found is None:
            raise FramingError("the head does not end", HEAD_SYNTAX.id)
        head, length = found
        kind, size = body_framing(head.headers, request=False, status=head.status,
                                  head=method == "HEAD")  # fmt: skip
        applied |= {HEAD_SYNTAX.id, BODY_LENGTH.id}
        reader = BodyReader(kind, size)
        reader.feed(data[length:])
        reader.eof()
        if kind == "chunked":
            applied.add(BODY_CHUNKED.id)
    except FramingError as exc:
        if exc.check is None:
            return [], applied
        check = REGISTRY[exc.check]
        applied.add(check.id)
        return [check.violation(expected=check.requirement, actual=str(exc))], applied
    return [], applied


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples)."""
    from ..examples.registry import Sample, example

    def answer(head: bytes, body: bytes) -> bytes:
        return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" + head + b"\r\n" + body

    ok = b"content-length: 2\r\n"
    example(
        HEAD_SYNTAX.id,
        Sample("http", lambda: answer(b"x\x00y: 1\r\n" + ok, b"{}"),
               note="a header name with a NUL"),
        Sample("http", lambda: answer(b"x-y: \x80 1\r\n" + ok, b"{}"),
               note="a token name; the value's obs-text byte is allowed"),
    )  # fmt: skip
    example(
        BODY_LENGTH.id,
        Sample("http", lambda: answer(ok + b"content-length: 3\r\n", b"{}"),
               note="two Content-Length fields that disagree"),
        Sample("http", lambda: answer(b"content-length: 02\r\n", b"{}"),
               note="one Content-Length, a leading zero"),
    )  # fmt: skip
    chunked = b"transfer-encoding: chunked\r\n"
    example(
        BODY_CHUNKED.id,
        Sample("http", lambda: answer(chunked, b"0x2\r\n{}\r\n0\r\n\r\n"),
               note="a chunk-size `0x2`"),
        Sample("http", lambda: answer(chunked, b"02;x=y\r\n{}\r\n0\r\n\r\n"),
               note="a chunk-size `02`, with a chunk extension"),
    )  # fmt: skip


FRAMING = (HEAD_SYNTAX, BODY_LENGTH, BODY_CHUNKED)


@case("core", *FRAMING)
@params("stream", STREAMS)
def test_http11_framing(probe: Probe, stream: bool) -> None:
    """§4.8: a create's answer read over a plain HTTP/1.1 connection by the judge's own parser
    (the proxy's), byte for byte as the target framed it."""
    # at run time only: conformance.proxy, whose parser it uses, imports its judge and the catalog
    from ..suite.raw_http import raw_exchange

    body = probe.body(input=SHORT_PROMPT, stream=stream, max_output_tokens=16)
    answer = raw_exchange(probe.client.base_url, "/responses", body,
                          api_key=probe.target.api_key(), timeout=probe.client.timeout)  # fmt: skip
    if answer.error is not None and not answer.applied:
        probe.skip(f"the answer could not be read over a plain connection: {answer.error}")
    violated = {v.check_id: v for v in answer.violations}
    for check in FRAMING:
        if check.id in answer.applied:
            found = violated.get(check.id)
            probe.check(
                check, found is None,
                expected=check.requirement, actual=found.actual if found else "",
            )  # fmt: skip
