"""§3.3 The request (docs/spec.md#s3-3): ``live.http.status_ok``, ``live.stream.content_type``,
``live.create.*``, ``live.response.echo``, ``live.stream.equals_nonstream``,
``live.usage.stream_equals_nonstream``, ``live.max_output_tokens.incomplete``,
``live.structured.json_schema``.

A well-formed create is answered 200 (a stream as ``text/event-stream``) in every input form
(string input, message lists with the ``user``, ``system`` and ``developer`` roles, ``input_text``
parts, ``instructions``), completes with an assistant message holding ``output_text``, and its
Response echoes the request's ``instructions``, ``metadata`` and ``max_output_tokens``; the same
request streamed and not gives Responses of one shape and the same ``input_tokens`` (§6.3, §3.2);
a response cut by ``max_output_tokens`` ends ``incomplete`` with that reason (KB10). Each check's
rule is the case below that evaluates it (:mod:`.cases`, area ``core``); its failing example is
a misbehaving server (tests/suite/broken_servers.py), its near miss the embedded mock.

One more core case asks for logprobs (``include``, ``top_logprobs``): the judge applies §7.8's
rules (:mod:`.s7_8_logprobs`) and §2.8's to what comes back, and the answer is held to
``live.create.answer``. It is here, not in §7.8's module, because the judge's body rules import
that module, and a case needs :mod:`.case_support`, which imports them.

Under the ``structured`` profile, ``text.format: json_schema`` (strict) gets output text that is
JSON valid for the schema, streamed and not (area ``structured``). ``tool_choice`` and the tools'
checks are :mod:`.s3_3_tool_choice`'s.

``live.http.status_ok`` and ``live.stream.content_type`` are judged on every exchange as well:
the suite's :class:`~conformance.suite.probe.Probe` (each create, each transport failure) and the
proxy's judge (:mod:`conformance.proxy.judge`) take them from :mod:`conformance.catalog.live`,
which re-exports them from here.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, register
from ..suite import answers as A
from .case_support import LONG_PROMPT, SHORT_PROMPT, schema_errors
from .cases import STREAMS, case, params
from .s2_8_values_agree import LOGPROBS_DELTAS_EQUAL_DONE
from .s2_10_incomplete_last import ITEM_INCOMPLETE_LAST
from .s3_1_response import RESPONSE_INCOMPLETE_DETAILS
from .s3_2_usage import USAGE_MAX_OUTPUT
from .s7_8_logprobs import LOGPROBS_NONPOSITIVE, LOGPROBS_TOP_COUNT

if TYPE_CHECKING:
    from ..suite.http import HttpExchange
    from ..suite.probe import Probe

__all__ = [
    "CREATE_ANSWER",
    "HTTP_OK",
    "INPUT_FORMS",
    "MAX_OUTPUT_INCOMPLETE",
    "RESPONSE_ECHO",
    "STREAM_CONTENT_TYPE",
    "STREAM_EQUALS_NONSTREAM",
    "STRUCTURED_JSON_SCHEMA",
    "USAGE_STREAM_EQUALS_NONSTREAM",
    "check_answer",
    "declare_examples",
]

HTTP_OK = register(
    "live.http.status_ok",
    Level.MUST,
    "§4.4 [OAPI]",
    "a well-formed request is answered 200 with a JSON body (an SSE body when `stream: true`)",
)
STREAM_CONTENT_TYPE = register(
    "live.stream.content_type",
    Level.MUST,
    "§1.1",
    "a streamed response is sent as `Content-Type: text/event-stream`",
)
INPUT_FORMS = register(
    "live.create.input_forms",
    Level.MUST,
    "§3.3 [OAPI] CreateResponse",
    "string input, message lists (user, system and developer roles; `input_text` parts) and "
    "`instructions` are all accepted",
)
CREATE_ANSWER = register(
    "live.create.answer",
    Level.MUST,
    "§6.3",
    "a plain request without limits completes (`status: completed`) with an assistant message "
    "holding `output_text`",
)
RESPONSE_ECHO = register(
    "live.response.echo",
    Level.MUST,
    "§3.3 [OAPI] Response",
    "the Response echoes the request's `instructions`, `metadata` and `max_output_tokens`",
)
STREAM_EQUALS_NONSTREAM = register(
    "live.stream.equals_nonstream",
    Level.MUST,
    "§6.3",
    "the same request streamed and not gives Responses of one shape: same fields, status and "
    "output item types",
)
USAGE_STREAM_EQUALS_NONSTREAM = register(
    "live.usage.stream_equals_nonstream",
    Level.MUST,
    "§3.2 (across requests)",
    "the same request has the same `input_tokens` streamed or not",
)
MAX_OUTPUT_INCOMPLETE = register(
    "live.max_output_tokens.incomplete",
    Level.MUST,
    "§4.4; KB10",
    "a response cut by `max_output_tokens` ends `status: incomplete` with "
    "`incomplete_details.reason: max_output_tokens` (a stream with `response.incomplete`)",
)

STRUCTURED_JSON_SCHEMA = register(
    "live.structured.json_schema",
    Level.MUST,
    "§3.3 (text.format)",
    "`text.format: json_schema` (strict) gets output text that is JSON valid for the schema",
    profile="structured",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        MAX_OUTPUT_INCOMPLETE.id,
        "kb10_completed_after_cutoff",
        "a server that reports `status: completed` after a `max_output_tokens` cut-off (KB10)",
    )
    live(
        RESPONSE_ECHO.id,
        "echo_drops_metadata",
        "a server whose Responses echo `metadata: {}` whatever the request set",
    )
    live(
        USAGE_STREAM_EQUALS_NONSTREAM.id,
        "usage_differs_when_streamed",
        "a server that counts one input token more when the request is streamed",
    )
    live(
        STREAM_EQUALS_NONSTREAM.id,
        "nonstream_has_more_fields",
        "a server whose non-stream Responses carry a field the streamed ones lack",
    )
    live(
        STREAM_CONTENT_TYPE.id,
        "sse_as_text_plain",
        "a server that sends its streams as `Content-Type: text/plain`",
    )
    live(
        INPUT_FORMS.id,
        "developer_role_refused",
        "a server that refuses (400) a message with the `developer` role",
    )
    live(HTTP_OK.id, "create_answers_201", "a server that answers create requests 201")
    live(
        CREATE_ANSWER.id,
        "answer_is_a_refusal",
        "a server that answers a plain request with a refusal, no `output_text`",
    )
    live(
        STRUCTURED_JSON_SCHEMA.id,
        "structured_not_json",
        "a server that answers `text.format: json_schema` with text that is not JSON",
    )


FORMS: dict[str, dict[str, Any]] = {
    "string": {"input": SHORT_PROMPT},
    "message_list": {"input": [{"role": "user", "content": SHORT_PROMPT}]},
    "input_text_parts": {
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": SHORT_PROMPT}],
            }
        ]
    },
    "system_developer_roles": {
        "input": [
            {"role": "system", "content": "You are a terse assistant."},
            {"role": "developer", "content": "Answer in one short sentence."},
            {"role": "user", "content": SHORT_PROMPT},
        ]
    },
    "instructions": {
        "instructions": "You are a terse assistant. Answer in one short sentence.",
        "input": SHORT_PROMPT,
        "metadata": {"suite": "responses-conformance", "case": "instructions"},
    },
}


def check_answer(probe: Probe, response: dict[str, Any]) -> None:
    """``live.create.answer`` on one Response of a plain request."""
    text = A.output_text(response)
    probe.check(
        CREATE_ANSWER, response.get("status") == "completed" and bool(text.strip()),
        expected="status completed, an assistant message with output_text",
        actual=f"status {response.get('status')!r}, output {A.output_types(response)}, "
        f"{len(text)} characters of text",
    )  # fmt: skip


def _echo(probe: Probe, request: dict[str, Any], response: dict[str, Any]) -> None:
    for key in ("instructions", "metadata", "max_output_tokens"):
        if key in request:
            probe.check(
                RESPONSE_ECHO, response.get(key) == request[key],
                expected=f"{key} = {request[key]!r}", actual=f"{key} = {response.get(key)!r}",
            )  # fmt: skip


@case("core", INPUT_FORMS, CREATE_ANSWER, RESPONSE_ECHO, HTTP_OK)
@params("form", list(FORMS))
def test_create(probe: Probe, form: str) -> None:
    body = probe.body(**FORMS[form])
    response = probe.create(body, check=INPUT_FORMS)
    check_answer(probe, response)
    _echo(probe, body, response)


@case("core", INPUT_FORMS, CREATE_ANSWER, RESPONSE_ECHO, STREAM_CONTENT_TYPE)
@params("form", list(FORMS))
def test_create_stream(probe: Probe, form: str) -> None:
    body = probe.body(**FORMS[form])
    terminal, _ = probe.create_stream(body, check=INPUT_FORMS)
    check_answer(probe, terminal)
    _echo(probe, body, terminal)


@case("core", STREAM_EQUALS_NONSTREAM, USAGE_STREAM_EQUALS_NONSTREAM, attempts=3)
def test_stream_equals_nonstream(probe: Probe) -> None:
    body = probe.body(input=SHORT_PROMPT)
    plain = probe.create(body)
    streamed, ex = probe.create_stream(body)
    keys_plain, keys_streamed = sorted(plain), sorted(streamed)
    probe.check(
        STREAM_EQUALS_NONSTREAM, keys_plain == keys_streamed, ex,
        expected=f"the non-stream body's fields {keys_plain}",
        actual=f"missing {sorted(set(keys_plain) - set(keys_streamed))}, "
        f"extra {sorted(set(keys_streamed) - set(keys_plain))}",
    )  # fmt: skip
    probe.check(
        STREAM_EQUALS_NONSTREAM, plain.get("status") == streamed.get("status"), ex,
        expected=f"status {plain.get('status')!r}", actual=f"status {streamed.get('status')!r}",
    )  # fmt: skip
    types_plain, types_streamed = A.output_types(plain), A.output_types(streamed)
    probe.nondeterministic(
        types_plain == types_streamed, "the model answered with different output items",
        check=STREAM_EQUALS_NONSTREAM, exchange=ex,
        expected=f"output item types {types_plain}", actual=f"{types_streamed}",
    )  # fmt: skip
    tokens_plain, tokens_streamed = A.input_tokens(plain), A.input_tokens(streamed)
    probe.check(
        USAGE_STREAM_EQUALS_NONSTREAM,
        tokens_plain is not None and tokens_plain == tokens_streamed, ex,
        expected=f"input_tokens {tokens_plain} (non-stream)", actual=f"{tokens_streamed} (stream)",
    )  # fmt: skip


@case(
    "core", MAX_OUTPUT_INCOMPLETE, RESPONSE_ECHO, USAGE_MAX_OUTPUT, RESPONSE_INCOMPLETE_DETAILS,
    ITEM_INCOMPLETE_LAST, attempts=3,
)  # fmt: skip
@params("stream", STREAMS)
def test_max_output_tokens(probe: Probe, stream: bool) -> None:
    limit = 16  # the smallest value CreateResponse allows (SPEC §3)
    body = probe.body(input=LONG_PROMPT, max_output_tokens=limit)
    ex: HttpExchange | None
    if stream:
        response, ex = probe.create_stream(body)
        event = ex.validator.validator.terminal_type if ex.validator else None
    else:
        response, ex, event = probe.create(body), probe.last, None
    _echo(probe, body, response)
    out = A.usage_count(response, "output_tokens")
    finished_early = response.get("status") == "completed" and out is not None and out < limit
    probe.nondeterministic(
        not finished_early, f"the model finished within {limit} tokens", exhausted="skip"
    )
    details = response.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    ok = response.get("status") == "incomplete" and reason == "max_output_tokens"
    if stream:
        ok = ok and event == "response.incomplete"
    probe.check(
        MAX_OUTPUT_INCOMPLETE, ok, ex,
        expected="status incomplete, incomplete_details.reason max_output_tokens"
        + (", ended by response.incomplete" if stream else ""),
        actual=f"status {response.get('status')!r}, incomplete_details {details!r}"
        + (f", ended by {event}" if stream else "") + f", output_tokens {out}",
    )  # fmt: skip


@case("core", CREATE_ANSWER, LOGPROBS_NONPOSITIVE, LOGPROBS_TOP_COUNT, LOGPROBS_DELTAS_EQUAL_DONE)
def test_logprobs_when_asked(probe: Probe) -> None:
    """Logprobs asked for ([OAPI] ``include: ["message.output_text.logprobs"]``,
    ``top_logprobs``), streamed: the judge checks what comes back (each ≤ 0, at most
    ``top_logprobs`` alternatives, delta = done). Logprobs are optional: a target that sends none,
    or refuses them with a 400 in OpenAI's error shape (SGLang 0.5.23: "logprobs are not supported
    in streaming mode"), leaves those checks not exercised rather than failing."""
    body = probe.body(
        input=SHORT_PROMPT, include=["message.output_text.logprobs"], top_logprobs=2, stream=True
    )
    ex = probe.stream("POST", "/responses", json_body=body)
    if ex.error is None and ex.status == 400 and isinstance(ex.json.get("error"), dict):
        return  # refused, as a server that does not offer them may (docs/spec.md §7.8)
    probe.require_ok(ex)
    if ex.terminal is None:
        return  # the judge has reported it (stream.lifecycle.terminal_present)
    check_answer(probe, ex.terminal)


CITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "country": {"type": "string"},
        "population_millions": {"type": "number"},
        "landmarks": {"type": "array", "items": {"type": "string"}},
        "continent": {
            "type": "string",
            "enum": ["Africa", "Antarctica", "Asia", "Europe", "North America", "Oceania",
                     "South America"],
        },
    },
    "required": ["city", "country", "population_millions", "landmarks", "continent"],
    "additionalProperties": False,
}  # fmt: skip


@case("structured", STRUCTURED_JSON_SCHEMA, profiles=("structured",))
@params("stream", STREAMS)
def test_json_schema(probe: Probe, stream: bool) -> None:
    fmt = {"type": "json_schema", "name": "city_facts", "schema": CITY_SCHEMA, "strict": True}
    body = probe.body(input="Give facts about Paris.", text={"format": fmt})
    response = probe.create_stream(body)[0] if stream else probe.create(body)
    text = A.output_text(response)
    try:
        value: Any = json.loads(text)
        errors = schema_errors(value, CITY_SCHEMA)
    except ValueError as exc:
        errors = [f"not JSON: {exc}"]
    probe.check(
        STRUCTURED_JSON_SCHEMA, response.get("status") == "completed" and not errors,
        probe.last, expected="status completed; output text valid for the city_facts schema",
        actual=f"status {response.get('status')!r}; {'; '.join(errors) or 'valid'}: {text[:200]!r}",
    )  # fmt: skip
