"""Every check proven on its own: per check ID, a minimal input that fires it and a near miss.

The format (one :class:`Example` per registered ID):

- ``failing`` — a :class:`Sample` the judge must report under the ID; it may fire other MUST or
  SHOULD checks only when they are listed in ``also`` (a cause rarely breaks one rule alone, but
  every extra ID is named, so an example cannot hide behind a neighbour);
- ``passing`` — the nearest input that obeys the rule: the judge reports no MUST or SHOULD
  violation on it at all;
- a :class:`Sample` is what the judge is given: ``kind`` ``stream`` (event objects, as JSON Lines),
  ``sse`` (raw bytes), ``response`` (a non-stream body), ``error`` (an error body), ``state`` (a
  compaction result, conversation, deleted conversation or item list), ``http`` (an answer's
  raw HTTP/1.1 bytes, as the proxy reads them), or ``live``
  (a misbehaving server, described in ``note``: the live suite is run against it by the tests,
  ``tests/suite/broken_servers.py`` names each server after the check it breaks), with the
  options the judge is run with (profiles, ``resume_after``, ``max_output_tokens``).

The offline examples are judged here (:func:`judge`), so ``responses-conformance explain ID``
prints the inputs and the tests prove them; ``tests/conformance/catalog/test_examples.py`` walks the whole
registry and fails for an ID without both samples.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from typing import Any

from ..catalog.registry import Level, Violation
from .registry import EXAMPLES, Example, Sample, example

# isort: split
# Importing it declares the examples it lists into EXAMPLES.
from . import live  # noqa: F401  (declare the examples)

# isort: split
# The section modules (conformance.sections) hold their checks' examples beside the rules.
from ..sections import declare_examples as _declare_section_examples

_declare_section_examples()

__all__ = ["EXAMPLES", "Example", "Sample", "example", "judge", "render"]


def judge(sample: Sample) -> list[Violation]:
    """Every violation the offline judge reports on ``sample`` (not for ``live`` samples)."""
    data = sample.build()
    if sample.request is not None:
        return _judge(sample, data) + _against_request(sample, data)
    return _judge(sample, data)


def _against_request(sample: Sample, data: Any) -> list[Violation]:
    """The rules that judge an answer against the request it was given to."""
    from ..sections.against_request import (
        judge_body_against_request,
        judge_stream_against_request,
    )

    if sample.kind == "stream":
        return judge_stream_against_request(sample.request, data)[0]
    if sample.kind == "response":
        return judge_body_against_request(sample.request, data)[0]
    raise ValueError(f"a {sample.kind} sample is judged without its request")


def _judge(sample: Sample, data: Any) -> list[Violation]:
    from ..bodies.kinds import judge_body
    from ..sse.framing import SSEStreamValidator
    from ..validator import StreamValidator

    opts: dict[str, Any] = {
        "profiles": sample.profiles,
        "max_output_tokens": sample.max_output_tokens,
    }
    if sample.kind == "stream":
        validator = StreamValidator(resume_after=sample.resume_after, **opts)
        for event in data:
            validator.feed(event)
        validator.close()
        return list(validator.violations)
    if sample.kind == "sse":
        limits: dict[str, Any] = {
            k: v
            for k, v in (
                ("max_event_bytes", sample.max_event_bytes),
                ("max_events", sample.max_events),
            )
            if v is not None
        }
        sse = SSEStreamValidator(resume_after=sample.resume_after, **opts, **limits)
        sse.feed(data)
        sse.close()
        return list(sse.violations)
    if sample.kind == "session":  # a recorded WebSocket session (conformance.websocket)
        from ..websocket import judge_session

        return judge_session(data, profiles=sample.profiles)[1]
    if sample.kind in ("response", "error", "state"):
        return judge_body(data, sample.kind, **opts)
    if sample.kind == "http":  # an answer's raw HTTP/1.1 bytes, as the proxy reads them
        from ..sections.s4_8_http_framing import judge_answer

        return judge_answer(data)[0]
    raise ValueError(f"a {sample.kind} sample is judged by the live suite, not here")


def failing_ids(violations: Iterable[Violation]) -> set[str]:
    """The IDs of the MUST and SHOULD violations (what an example may not fire unlisted)."""
    return {v.check_id for v in violations if v.level is not Level.INFO}


def render(sample: Sample, limit: int = 12000) -> str:
    """The sample as a reader sees it: JSON Lines, the SSE text, a JSON body, or the note."""
    if sample.kind == "live":
        return sample.note
    data = sample.build()
    if sample.kind == "sse":
        text = bytes(data).decode("utf-8", "replace")
    elif sample.kind == "stream":
        text = "\n".join(json.dumps(e, ensure_ascii=False) for e in data)
    elif sample.kind == "http":  # one line per line, control bytes escaped
        text = "\n".join(ascii(line + b"\n")[2:-1] for line in bytes(data).split(b"\n") if line)
    elif sample.kind == "session":
        text = "\n".join(
            json.dumps(
                {"dir": d, "binary": base64.b64encode(f).decode()}
                if isinstance(f, bytes)
                else {"dir": d, "data": f},
                ensure_ascii=False,
            )
            for d, f in data
        )
    else:
        text = json.dumps(data, ensure_ascii=False, indent=1)
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit} more characters)"
    opts = []
    if sample.profiles != ("core",):
        opts.append(f"--profile {','.join(sample.profiles)}")
    if sample.resume_after is not None:
        opts.append(f"--resume-after {sample.resume_after}")
    if sample.max_output_tokens is not None:
        opts.append(f"max_output_tokens={sample.max_output_tokens}")
    head = f"({sample.kind}{'; ' + ' '.join(opts) if opts else ''})"
    note = f"  # {sample.note}" if sample.note else ""
    if sample.request is not None:
        asked = json.dumps(sample.request, ensure_ascii=False, indent=1)
        return f"(request)\n{asked}\n{head}{note}\n{text}"
    return f"{head}{note}\n{text}"
