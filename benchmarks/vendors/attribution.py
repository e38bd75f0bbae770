"""Why a failure is the server's and not the suite's: the rule, its source, and what shows it.

Written per check ID after reading the evidence of every failure in the matrix; where a failure
turned out to be the suite's, the suite was fixed instead (see the summary's last section). A rule
that a real OpenAI recording (``tests/data/openai-recorded``) breaks is not a rule: the corpus is
the arbiter (SPEC.md §1a). Per-target notes (``BY_TARGET``, keyed by a target-name prefix) come
first; a failure with no note here is printed without one, for a reader to judge.
"""

from __future__ import annotations

__all__ = ["BY_CHECK", "BY_TARGET", "why_theirs"]

_SCHEMA = (
    "SPEC §1a: bodies and events are validated against OpenAI's OpenAPI schemas with only the "
    "relaxations the 48 real OpenAI streams and 44 bodies of tests/data/openai-recorded force; "
    "none of them has the value shown (the judge's corpus test runs every recording through "
    "the same schema)"
)

BY_CHECK: dict[str, str] = {
    "error.code.type": (
        "SPEC §4: `code` is a string or null ([OAPI] ErrorResponse; every error in "
        "tests/data/openai-recorded/errors); the body carries the HTTP status number (KB21)"
    ),
    "error.shape": (
        'SPEC §4: an error is `{"error": {message, type, param, code}}` ([OAPI] ErrorResponse, '
        'what the openai SDK parses); the body is a web framework\'s default (`{"detail": …}`), '
        "i.e. the route or the failure was not handled by the server's Responses layer"
    ),
    "event.schema.required": _SCHEMA,
    "event.schema.type": _SCHEMA,
    "event.schema.value": _SCHEMA,
    "response.schema.required": _SCHEMA,
    "response.schema.type": _SCHEMA,
    "response.schema.value": _SCHEMA,
    "live.background.resume": (
        "SPEC §2.12 and §4 [BG]: `GET /v1/responses/{id}?stream=true&starting_after=N` replays "
        "the events after N as SSE; the answer carries none of them"
    ),
    "live.background.cancel": (
        "SPEC §4 [BG]: `POST /v1/responses/{id}/cancel` on a response created with "
        "`background: true` returns the Response (cancelled, or final if it had already "
        "finished); here a 400 'Cannot cancel a synchronous response' for a background response"
    ),
    "live.background.cancel_idempotent": (
        "SPEC §4 [BG]: cancelling a background response that already finished, or cancelling "
        "twice, returns the final object (idempotent); here a 400 (KB20, vllm#57999)"
    ),
    "stream.response.terminal_status": (
        "SPEC §2.2 and §4: the terminal event's type matches the status — an `incomplete` "
        "Response ends the stream with `response.incomplete`, not `response.completed` (the "
        "openai SDK dispatches on the event type)"
    ),
    "live.background.cancel_foreground_4xx": (
        "SPEC §4 quoting [BG]: 'only responses created with `background:true` can be "
        "cancelled'; a foreground response was cancelled with 200"
    ),
    "live.errors.bad_input_4xx": (
        "SPEC §4 / issue 4: malformed JSON, wrong types and out-of-range values ([OAPI]: "
        "`temperature` ≤ 2, `input` a string or an array) are the client's error: a 4xx, never "
        "a 200 or a 5xx"
    ),
    "live.errors.not_found_404": (
        "SPEC §4: an unknown response id is a 404 on retrieve, delete, cancel and input_items"
    ),
    "live.errors.param_named": "SPEC §4: a real 400 names the offending field in `param`",
    "live.input_items.list": "SPEC §4 lists `GET /v1/responses/{id}/input_items`; no such route",
    "live.store.delete": (
        "SPEC §4: `DELETE /v1/responses/{id}` → `{id, object, deleted: true}`; no such route"
    ),
    "live.store.retrieve_equals": "SPEC §4: `GET /v1/responses/{id}` returns the stored response",
    "live.create.input_forms": (
        "SPEC §4: `POST /v1/responses` without `stream` answers 200 with a Response object"
    ),
    "live.http.status_ok": "SPEC §4: the request is valid and must be answered with a Response",
    "live.max_output_tokens.incomplete": (
        "SPEC §4: reaching `max_output_tokens` gives `status: incomplete` with "
        "`incomplete_details.reason: max_output_tokens`, and a stream ends with "
        "`response.incomplete` (KB10)"
    ),
    "live.previous_response.unknown": (
        "SPEC §4: an unknown `previous_response_id` is a 404 (or a 400 "
        "`previous_response_not_found`); the id was silently ignored"
    ),
    "live.response.echo": (
        "SPEC §3 [OAPI]: the Response echoes the request's `instructions`, `metadata` and "
        "`max_output_tokens` (every OpenAI recording that sets them echoes them)"
    ),
    "live.stream.equals_nonstream": (
        "SPEC §3 / issue 4: the streamed terminal Response has the shape of the non-streamed "
        "one; the streamed one lacks fields [OAPI] requires of every Response"
    ),
    "live.tools.parallel": (
        "[OAPI] CreateResponse `parallel_tool_calls`: false allows at most one call; the "
        "request said false (and the Response echoes false) yet two calls came back. The "
        "scripted model always emits two: the server must enforce the flag (SGLang has "
        "constrained decoding for exactly this), and does not"
    ),
    "live.tools.named": (
        "SPEC §3 `tool_choice: {type: function, name}` forces that function; the same backend "
        "honours it through other fronts (litellm-tools passes), so the front drops it"
    ),
    "live.tools.none": (
        "`tool_choice: none` forbids calls; the same backend honours it through other fronts "
        "(litellm-tools passes), so the front drops it"
    ),
    "stream.item.added_before_use": (
        "SPEC §2.4: `response.output_item.added` comes before any event naming the item; the "
        "openai SDK's accumulator raises on it (openai-python#2852) (KB14)"
    ),
    "stream.item.incomplete_last": (
        "SPEC §2.10 [OR]: an item that ends `incomplete` is the last one; here a finished "
        "reasoning item is marked incomplete although a message follows it"
    ),
    "stream.item.no_interleave": (
        "SPEC §2.5 (SHOULD): items do not interleave — every [REC] stream finishes an item "
        "before the next is added; here the second call's argument deltas come before the "
        "first call's `.done`"
    ),
    "stream.lifecycle.unique": (
        "SPEC §2.2: one `response.created`, one `response.in_progress`, then items; a second "
        "`response.in_progress` arrives mid-stream"
    ),
    "stream.output.equals_items": (
        "SPEC §2.9: the terminal Response's `output` equals the `output_item.done` items (only "
        "`encrypted_content`/`fingerprint` may differ, as in [REC]) (KB08)"
    ),
    "stream.part.type_fits_item": (
        "SPEC §2.11: reasoning content is a `reasoning_text` part, never `output_text` (KB04)"
    ),
    "stream.response.interim_state": (
        "SPEC §2.3: before the terminal event a lifecycle Response has `output: []` and "
        "`usage: null` (every [REC] stream)"
    ),
    "stream.sequence.contiguous": "SPEC §2.1 [REC]: `sequence_number` is 0, 1, 2, … (KB13)",
    "stream.sequence.present": "SPEC §2.1 [REC]: every event carries `sequence_number` (KB17)",
    "stream.sequence.start": "SPEC §2.1 [REC]: the first event is numbered 0",
    "stream.summary.part_added": (
        "SPEC §2.6: `reasoning_summary_part.added` opens a summary part before its text "
        "events (KB23)"
    ),
    "usage.cached_le_input": (
        "SPEC §3 usage (MUST): `cached_tokens ≤ input_tokens`; here input_tokens is 0 while "
        "cached_tokens counts the prompt"
    ),
    "usage.output_nonzero": (
        "SPEC §3 usage (MUST): `output_tokens ≥ 1` when the model produced a message, reasoning "
        "or a call — the output shown has text, and usage says 0 (KB11)"
    ),
    "live.usage.reasoning_tokens_hardcoded": (
        "SPEC §3 (SHOULD, KB25): reasoning items with text on every response and "
        "`reasoning_tokens` 0 on all of them (one such response alone is allowed: [REC] has two)"
    ),
    "stream.part.added_before_use": (
        "SPEC §2.6: `content_part.added` opens a part before its deltas; the reasoning part's "
        "deltas arrive unopened (KB05's family)"
    ),
    "live.previous_response.history": (
        "SPEC §3 usage across requests (MUST) and §4 ([OR]: the prior input, then its output, "
        "then the new input): the chained turn counts no more input tokens than the same "
        "history sent explicitly WITHOUT the part named, while that part does count when sent "
        "explicitly — it is missing from the replayed history (KB19)"
    ),
    "usage.details_present": (
        "SPEC §3 usage (MUST): both `input_tokens_details` and `output_tokens_details` are "
        "objects with their counts (KB12)"
    ),
    "usage.present": "SPEC §3 usage (MUST): a `completed` Response carries `usage`",
}

BY_TARGET: dict[tuple[str, str], str] = {
    ("sglang", "response.schema.type"): (
        "SPEC §1a: [OAPI] `Response.text` is an object (`ResponseTextParam`), not nullable, and "
        "all 144 lifecycle Responses and 44 bodies recorded from OpenAI carry an object; SGLang "
        "sends `text: null` when the request has no `text`"
    ),
    ("sglang", "event.schema.type"): (
        "the same `text: null` inside the lifecycle events' `response` (SPEC §1a; [OAPI] "
        "ResponseTextParam is not nullable; every recorded OpenAI event has an object)"
    ),
    ("sglang", "response.schema.value"): (
        "the echo of the out-of-range `temperature: 7` it accepted ([OAPI] maximum 2): the "
        "same defect as live.errors.bad_input_4xx, seen in the body"
    ),
    ("sglang", "error.shape"): (
        "SPEC §4 [OAPI] ErrorResponse; SGLang has no `DELETE /v1/responses/{id}` nor "
        '`…/input_items` route (both in SPEC §4), and FastAPI answers `{"detail": …}` — the '
        "same missing routes as live.store.delete and live.input_items.list (the optional "
        "input_tokens endpoint's 405 is not judged)"
    ),
    ("vllm", "error.shape"): (
        "SPEC §4 [OAPI] ErrorResponse; vLLM has no `DELETE /v1/responses/{id}` nor "
        '`…/input_items` route (both in SPEC §4), and FastAPI answers `{"detail": …}` — the '
        "same missing routes as live.store.delete and live.input_items.list (the optional "
        "input_tokens endpoint's 405 is not judged)"
    ),
    ("ors", "error.shape"): (
        "SPEC §4 [OAPI] ErrorResponse; the bridge's own `POST /responses` answers malformed "
        'JSON and `input: 42` with 500 `{"detail": "Error processing request: …"}` (its '
        'api_controller.py); the `{"detail": …}` 404/405 of `…/input_items` and DELETE are '
        "SGLang's, relayed by its catch-all proxy"
    ),
    ("ors", "live.tools.named"): (
        "SPEC §3: `tool_choice` names get_time and both calls are get_weather; "
        "open-responses-server 0.4.1 deletes `tool_choice` from every request before it reaches "
        'the backend (api_controller.py: `chat_request.pop("tool_choice", None)`, \'Remove '
        "unsupported tool_choice parameter'); litellm-tools passes on the same backend"
    ),
    ("ors", "live.tools.none"): (
        "SPEC §3: `tool_choice: none` and the answer has two calls; the bridge deletes "
        "`tool_choice` before it reaches the backend (api_controller.py), litellm-tools passes "
        "on the same backend"
    ),
    ("ors", "live.max_output_tokens.incomplete"): (
        "SPEC §4 (KB10): the bridge passes `max_output_tokens` on as `max_tokens` "
        "(responses_service.py), so the backend cuts the answer at the limit; the bridge handles "
        "the finish reasons `stop`, `tool_calls` and `function_call` only, and at the backend's "
        "`[DONE]` marks any other stream `completed`, ending it `response.completed`"
    ),
    ("ors", "usage.present"): (
        "SPEC §3 usage: a `completed` Response carries `usage`; the bridge's stream translation "
        "never sets it (`usage: null` on every completed Response)"
    ),
    ("ors", "live.previous_response.unknown"): (
        "SPEC §4: an unknown `previous_response_id` is answered 200 — the bridge loads history "
        "only `if previous_response_id in conversation_history` and otherwise ignores the id "
        "(responses_service.py)"
    ),
    ("ors", "live.background.resume"): (
        "SPEC §2.12, §4: a background stream is resumed by `sequence_number`; the bridge's "
        "events carry none (stream.sequence.present), so no `starting_after` can name a point "
        "in it — and `GET /responses/{id}` is not the bridge's route (it forwards it to SGLang)"
    ),
    ("ors", "live.store.retrieve_equals"): (
        "the bridge forwards `GET /responses/{id}` to SGLang, which never saw the bridge's "
        "response id: stored state is claimed by its README but not served (SPEC §4)"
    ),
    ("ors", "live.create.input_forms"): (
        "SPEC §4: a non-streamed `POST /responses` is answered `200` with the body `null` — the "
        "bridge's handler only logs 'Non-streaming response unsupported' and returns nothing "
        "(api_controller.py)"
    ),
    ("ors", "live.http.status_ok"): (
        "SPEC §4: non-streamed requests (background ones included) are answered `200 null`: "
        "the bridge does not implement `stream: false` (api_controller.py: 'Non-streaming "
        "response unsupported')"
    ),
    ("litellm", "live.errors.bad_input_4xx"): (
        "SPEC §4: `input: 42` comes back as a 500 (`APIConnectionError … 'int' object is not "
        "iterable`), and an invalid `tool_choice` and one naming an undeclared function as "
        "200 — SGLang answers both of those 400 when asked directly (sglang-* pass them), so "
        "the bridge drops them. (`temperature: 7` → 200 is SGLang's leniency passed through: "
        "sglang-* fail that case too)"
    ),
    ("ors", "live.errors.bad_input_4xx"): (
        'SPEC §4: malformed JSON and `input: 42` are 500s (`{"detail": "Error processing '
        'request: …"}`), the other bad inputs 200s; SGLang answers 400 to most of them '
        "directly (sglang-* pass those cases)"
    ),
}


def why_theirs(target: str, check_id: str) -> str:
    for (prefix, cid), text in BY_TARGET.items():
        if cid == check_id and target.startswith(prefix):
            return text
    return BY_CHECK.get(check_id, "")
