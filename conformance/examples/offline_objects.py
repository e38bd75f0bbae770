"""Examples of the Response body checks not yet in a section module (conformance.sections:
§3.1's and §3.4's ``response.*``, §3.2's ``usage.*``, §4.4's ``error.*`` and §7.7's
``response.item.status_completed`` are there)."""

from __future__ import annotations

from collections.abc import Callable

from .body_samples import B, done
from .build import Event
from .registry import example

# response.schema.*, response.incomplete_details, response.failed.error (docs/spec.md §3.1) and
# response.openresponses.required_fields (§3.4): their section modules (conformance.sections).

# usage.* (docs/spec.md §3.2): conformance/sections/s3_2_usage.py, beside their rule.

# error.* (docs/spec.md §4.4): conformance/sections/s4_4_errors.py.


# --- judge-truth: rules clients enforce (docs/spec.md §7.8) ---------------------------------------


def _logprobs(logprob: float, alternatives: int, top: int) -> Callable[[], Event]:
    def build() -> Event:
        body = done(top_logprobs=top)
        alts = [{"token": "Hi", "logprob": -1.0, "bytes": [72, 105]}] * alternatives
        entry = {"token": "Hello", "logprob": logprob, "bytes": [72], "top_logprobs": alts}
        body["output"][0]["content"][0]["logprobs"] = [entry]
        return body

    return build


# response.item.status_completed (docs/spec.md §7.7): conformance/sections/s7_7_item_status.py.
example(
    "response.logprobs.nonpositive",
    B(_logprobs(0.5, 0, 0), "a token with `logprob: 0.5`"),
    B(_logprobs(0.0, 0, 0), "`logprob: 0.0` (OpenAI sends it)"),
)
example(
    "response.logprobs.top_count",
    B(_logprobs(-0.1, 3, 2), "three alternatives, `top_logprobs: 2`"),
    B(_logprobs(-0.1, 2, 2)),
)
