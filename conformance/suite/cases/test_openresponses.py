"""Open Responses: the stream ends with `[DONE]`, every event has an `event:` name, no `id:`, and
Responses carry every `ResponseResource` field (SPEC §1 Framing, §3 [OR]). The judge applies these
checks to every answer of a target that declares the profile; this case makes sure one of each
kind is seen."""

from __future__ import annotations

import pytest

from ... import catalog as C
from ..probe import Probe
from .support import SHORT_PROMPT

pytestmark = pytest.mark.profiles("openresponses")


@pytest.mark.checks(
    C.SSE_DONE_REQUIRED.id, C.SSE_EVENT_NAME_REQUIRED.id, C.SSE_ID_ABSENT.id,
    C.RESPONSE_OPENRESPONSES_FIELDS.id,
)  # fmt: skip
def test_openresponses_stream_and_body(probe: Probe) -> None:
    probe.create_stream(probe.body(input=SHORT_PROMPT))
    probe.create(probe.body(input=SHORT_PROMPT))
