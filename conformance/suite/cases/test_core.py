"""Core: a create's HTTP/1.1 framing read by the judge's own parser. The other core cases are
declared with their checks in conformance/sections/s3_3_request.py."""

from __future__ import annotations

import pytest

from ...catalog.registry import REGISTRY
from ..probe import Probe
from ..raw_http import raw_exchange
from .support import SHORT_PROMPT

FRAMING = ("http.head.syntax", "http.body.length", "http.body.chunked")  # §4.8


@pytest.mark.checks(*FRAMING)
@pytest.mark.parametrize("stream", [False, True], ids=["nonstream", "stream"])
def test_http11_framing(probe: Probe, stream: bool) -> None:
    """§4.8: a create's answer read over a plain HTTP/1.1 connection by the judge's own parser
    (the proxy's), byte for byte as the target framed it."""
    body = probe.body(input=SHORT_PROMPT, stream=stream, max_output_tokens=16)
    answer = raw_exchange(probe.client.base_url, "/responses", body,
                          api_key=probe.target.api_key(), timeout=probe.client.timeout)  # fmt: skip
    if answer.error is not None and not answer.applied:
        probe.skip(f"the answer could not be read over a plain connection: {answer.error}")
    violated = {v.check_id: v for v in answer.violations}
    for check_id in FRAMING:
        if check_id in answer.applied:
            found = violated.get(check_id)
            probe.check(
                REGISTRY[check_id], found is None,
                expected=REGISTRY[check_id].requirement, actual=found.actual if found else "",
            )  # fmt: skip
