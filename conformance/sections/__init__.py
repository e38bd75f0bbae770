"""One spec section, one module: each check's ID, level, clause and requirement, the rule that
evaluates it, and its two examples, together (as h2spec keeps a requirement and its test in one
case).

A section module holds, for the checks of one section of docs/spec.md:

- the checks, declared with :func:`conformance.catalog.registry.register` (the catalogue module of
  their concern re-exports them from here);
- the rule that evaluates them, a function over the stream validator's state that marks the
  checks it evaluated as applied (``coverage.applied``) where it evaluates them: what a live run
  reports as exercised, or "not exercised", comes from that mark, not from a second table; for
  a ``live.*`` check, the suite's case that evaluates it, declared with :func:`.cases.case`
  (the suite runs every case of every section module);
- ``declare_examples()``, the failing example and the passing near miss of each check
  (:mod:`conformance.examples` calls it where the section's examples belong).

Adding a check to a section touches its module, and docs/spec.md if the clause is new.

- :mod:`.s1_stream_events` — §1 stream events (``event.type.present``: every event an object
  with a string ``type``);
- :mod:`.s1_1_framing` — §1.1 framing (``sse.event_name.*``, ``sse.id.absent``,
  ``sse.data.json``, ``sse.done.*``: the SSE framing layer's rules, marked applied once per
  stream where they evaluate);
- :mod:`.s1_1_json_numbers` — §1.1 framing (``sse.data.json_number``: no ``NaN`` or
  ``Infinity`` where RFC 8259 §6 has none; the rule is the judge's JSON parser's strict fallback);
- :mod:`.s1_2_error_event` — §1.2 the error event (``stream.error.followed_by_failed``: the
  next event after an ``error`` is ``response.failed``);
- :mod:`.s1_3_unknown_types` — §1.3 unknown event types (``event.type.known``,
  ``nonstandard``, ``openresponses``: a type outside the documented union, a name known to be
  wrong, a type Open Responses does not define);
- :mod:`.s1_5_annotations` — §1.5 annotations (``stream.annotation.offsets``: a finished
  ``output_text`` part's citations against its text, handed over by the per-tool rules);
- :mod:`.s1_7_custom_input` — §1.7 custom tools (``response.custom_tool_call.grammar``: a
  call's input against the grammar its request declared; ``live.custom_tools.*``, whose rules
  are the module's cases);
- :mod:`.s1_7_hosted_cases` — §1.7 hosted tools, live (``live.hosted.*``, one profile per
  hosted tool: the tool forced, streamed, or a client-run tool's round trip; the rules are the
  module's cases);
- :mod:`.s1_7_hosted_tools` — §1.7 hosted tool calls (``stream.hosted.*``,
  ``stream.image.partial_image_index``): the stream validator's per-tool rules;
- :mod:`.s1a_schemas` — §1a schemas (``event.schema.*``: an event of a documented type held to
  OpenAI's schema for it; the rule is the judge's schema validator);
- :mod:`.s2_1_sequence` — §2.1 sequence numbers (``stream.sequence.*``);
- :mod:`.s2_2_lifecycle` — §2.2 lifecycle (``stream.lifecycle.*``,
  ``stream.response.terminal_status``: the rules judge each lifecycle and terminal event's place,
  and the stream's end);
- :mod:`.s2_3_one_response` — §2.3 one response (``stream.response.id_stable``,
  ``created_at_stable``, ``interim_state``);
- :mod:`.s2_4_items_opened` — §2.4 items are opened first (``stream.item.added_before_use``,
  ``added_once``, ``done_once``: an event's item looked up by its ``output_index``, an item
  added or closed a second time);
- :mod:`.s2_5_output_index` — §2.5 output index (``stream.output_index.contiguous``,
  ``stream.item.no_interleave``: an added item's index, and events of an item added before
  the newest);
- :mod:`.s2_6_inside_item_parts` — §2.6 inside an item: its opening and its parts
  (``stream.item.added_state``, ``stream.part.added_before_use``, ``content_index``, ``order``,
  ``closed``, ``kind_matches``, ``stream.summary.*``: an added item's state, a content part's
  and a summary part's events, the kind of part a text event writes to);
- :mod:`.s2_6_inside_item_order` — §2.6 inside an item: the order of a part's events, one
  requirement per ID (the refinements of ``stream.part.order`` and ``stream.summary.order``:
  a part opens empty, its ``.done`` once and before the part's close, nothing after it);
- :mod:`.s2_6_inside_item_values` — §2.6 inside an item: its values and the items events name
  (``stream.arguments.order``, ``added_first``, ``stream.delta.type_fits_item``: a value's
  ``.added``, deltas and ``.done``, an event's family against its item's type);
- :mod:`.s2_7_identity` — §2.7 identity (``stream.item.item_id_matches``,
  ``done_matches_added``, ``id_unique``, ``call_identity_stable``: an inner event's ``item_id``,
  an item's done event against its added one, an added item's id against the ids before it, a
  call's ``call_id`` and ``name`` from its added event to its done one);
- :mod:`.s2_8_values_agree` — §2.8 values agree (``stream.text.deltas_equal_done``,
  ``done_equals_part``, ``annotations_match``, ``stream.item.content_matches``,
  ``stream.logprobs.deltas_equal_done``: a value's deltas against its ``.done``, the ``.done``
  against the closed part, streamed annotations against the part's and the item's, the finished
  item against what was streamed, a text's logprobs against its deltas');
- :mod:`.s2_9_opaque` — §2.9 the output's opaque fields (``stream.output.opaque_consistent``:
  non-empty in an item's ``output_item.done`` and in the terminal output alike);
- :mod:`.s2_9_output_items` — §2.9 the output is the items
  (``stream.item.closed_before_terminal``, ``stream.output.equals_items``: on a ``completed`` or
  ``incomplete`` terminal every added item is done, and the terminal output is the finished
  items, in order, opaque fields aside);
- :mod:`.s2_10_incomplete_last` — §2.10 incomplete items (``stream.item.incomplete_last``: an
  item added after one done ``incomplete``, and an ``incomplete`` item of a Response seen whole,
  a streamed terminal or a body);
- :mod:`.s2_11_part_fits` — §2.11 parts fit their item (``stream.part.type_fits_item``: the
  part a ``content_part.added`` opens, and each part of a Response seen whole);
- :mod:`.s2_14_id_prefix` — §2.14 levels not stated above (``stream.item.id_prefix``: the id of
  each item an ``output_item.added`` opens, against OpenAI's prefix for its type);
- :mod:`.s3_1_response` — §3.1 fields and statuses (``response.schema.*``,
  ``response.incomplete_details``, ``response.failed.error``: a body's schema, a Response's
  status companions);
- :mod:`.s3_2_usage` — §3.2 usage accounting (``usage.*``: the rule judges one Response's
  ``usage``, streamed terminal, non-stream body or compaction result);
- :mod:`.s3_3_request` — §3.3 the request (``live.http.status_ok``, ``live.stream.content_type``,
  ``live.create.*``, ``live.response.echo``, ``live.stream.equals_nonstream``,
  ``live.usage.stream_equals_nonstream``, ``live.max_output_tokens.incomplete``,
  ``live.structured.json_schema``: the rules are the suite's cases, areas ``core`` and
  ``structured``, the core case that asks for logprobs among them; the probe and the proxy judge
  the first two on every exchange);
- :mod:`.s3_3_tool_choice` — §3.3 the request: ``tool_choice`` and function tools
  (``live.tools.*``: the rules are the suite's cases, area ``tools``);
- :mod:`.s3_4_openresponses` — §3.4 Open Responses (``response.openresponses.required_fields``:
  every Response object under the profile, lifecycle events' included;
  ``live.openresponses.image_input``, whose rule is the suite's case there);
- :mod:`.s4_1_endpoints` — §4.1 endpoints (``live.store.*``, ``live.input_items.*``,
  ``live.usage.retrieve_equals_stream``: the rules are the suite's cases, the examples
  misbehaving servers);
- :mod:`.s4_2_background` — §4.2 background responses (``live.background.*``: the rules are
  the suite's cases, the examples misbehaving servers);
- :mod:`.s4_3_previous_response` — §4.3 ``previous_response_id`` (``live.previous_response.*``,
  and §4.1's ``live.input_tokens.*``, which the same case evaluates: the rules are the suite's
  cases, the examples misbehaving servers);
- :mod:`.s4_4_errors` — §4.4 errors (``error.shape``, ``error.code.type``: the rule judges one
  error body; ``live.errors.*``, whose rules are the suite's cases there);
- :mod:`.s4_5_conversations` — §4.5 conversations (``conversation.*``, ``item_list.*``: the
  rules judge one conversation, deleted conversation or item list);
- :mod:`.s4_5_conversation_endpoints` — §4.5 conversations across requests
  (``live.conversation.*``: the rules are the suite's cases, the examples misbehaving servers);
- :mod:`.s4_6_compaction` — §4.6 compaction (``compaction.*``: the rule judges one compaction
  result, its schema, its ``compaction`` item and its usage; ``live.compaction.*``, whose rules
  are the suite's cases there);
- :mod:`.s4_7_include` — §4.7 include (``response.reasoning.encrypted_content_included``: the
  blob a request's ``include`` asked for, on every finished reasoning item; ``live.stateless.*``
  and ``live.include.unknown``, whose rules are the suite's cases there);
- :mod:`.s4_8_http_framing` — §4.8 HTTP/1.1 framing (``http.head.syntax``,
  ``http.body.length``, ``http.body.chunked``: the rule is the proxy's llhttp parser; the
  suite's case ``core/http11_framing`` has it read one create's answer);
- :mod:`.s5_limits` — §5 the judge's own limits (``sse.limit.event_size``, ``event_count``,
  ``depth``: the SSE decoder's bounds, the depth bound on every JSON the judge reads);
- :mod:`.s6_live_suite` — §6 the live suite (``live.transport.deadline``,
  ``live.case.completed``: the run itself; the rules are the suite's HTTP client and probe, and
  its pytest plugin; ``live.reasoning.items``, ``live.usage.reasoning_tokens_hardcoded``: the
  rule is the suite's case, area ``reasoning``);
- :mod:`.s7_7_item_status` — §7.7 item statuses in a completed response
  (``response.item.status_completed``: one output item of a Response seen whole);
- :mod:`.s7_8_logprobs` — §7.8 logprobs (``response.logprobs.delivered``: the log
  probabilities a request's ``include`` asked for, on its text deltas, done events and parts;
  ``response.logprobs.nonpositive``, ``response.logprobs.top_count``: the rule judges one
  ``logprobs`` list, a body's part or a stream's non-empty delta or ``.done`` list);
- :mod:`.s8_1_frames` — §8.1 WebSocket frames (``ws.frame.text``, ``ws.frame.json``: each server
  frame the session validator judges in full is one JSON object in a text frame;
  ``live.ws.upgrade``, whose rule is the upgrade of every WebSocket case, by the suite's client);
- :mod:`.s8_2_lanes` — §8.2 lanes (``ws.event.routed``, ``ws.stream_id.echoed``,
  ``ws.lane.*``, ``ws.request.answered``: the session validator calls them where its routing of
  events by lane and response decides; ``live.ws.responses``, ``live.ws.previous_across_lanes``,
  whose rules are the suite's cases);
- :mod:`.s8_3_refusals` — §8.3 client events and refusals (``ws.request.rejected``: a client
  event WebSocket mode does not accept is refused, by an ``error`` event;
  ``live.ws.background_rejected``, ``live.ws.after_error``, whose rules are the suite's cases);
- :mod:`.s8_4_ws_errors` — §8.4 WebSocket errors (``ws.error.shape``, ``ws.error.status``,
  ``ws.error.code``), judged by the session validator;
- :mod:`.s8_5_steering` — §8.5 steering (``ws.steer.*``: the session validator's steering
  rules, :class:`~.s8_5_steering.Steering`, judge each answer against the steers sent;
  ``live.ws.steering``, whose rule is the suite's cases);
- :mod:`.s8_6_two_transports` — §8.6 one response, two transports (``live.ws.same_as_sse``: the
  rule is the suite's case, the example a misbehaving server);
- :mod:`.s8_7_connection_state` — §8.7 WebSocket connection state (``live.ws.*``: the rules are
  the suite's cases, the examples misbehaving servers);
- :mod:`.s9_clients` — §9 client profiles (``live.client.<client>.*``): the case that replays
  each flow of the clients' catalogue under its client's profile, and the rule that locates a
  refusal and counts Codex's compaction items; the checks' failing examples are gateways in
  front of the mock (tests/suite/broken_client_servers.py). A client's own rule has a module of
  its own (``s9_<client>.py``): :mod:`.s9_vercel_ai`, its provider's zod schemas
  (``live.client.vercel_ai.response_parses``, ``stream_parses``); a client's stream accumulator
  (:mod:`.s9_openai_node`, the events openai-node's ``responses.stream`` throws on,
  ``live.client.openai_node.stream_accumulates``) registers its check and rule with
  :func:`.accumulators.stream_accumulator`: the replay judges that client's streams by it.

A module named ``s<section>_<name>.py`` (``s1a_schemas``: §1a) is found here by its name
(:data:`SECTIONS`); a new one needs no line in this package.

:mod:`.against_request` runs the rules that judge an answer against its request (§1.7, §4.7, §7.8)
for every judge that has the request. :mod:`.cases` declares the suite's cases (no pytest import:
the judge imports every section module); :mod:`.case_support` holds what the cases share,
:mod:`.ws_case_support` what the WebSocket cases of §8 share.

Public outputs list checks sorted by ID, so a section's checks may be declared before the rest of
their catalogue module (``REGISTRY``'s order is not shown anywhere).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType

__all__ = ["SECTIONS", "declare_examples"]


def _order(name: str) -> list[int | str]:
    """A section module's place: by the section's numbers (``s2_10`` after ``s2_9``)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


# Every section module (``s<section>_<name>.py``) of this package, in section order: a module
# added here is discovered, its checks registered and its examples declared, with no list to
# keep (issue #31: a new check touches its section module, and docs/spec.md if its clause is
# new). The names are computed, so tests/test_layout.py's static reading does not see these
# edges; it sees every import of the modules themselves.
SECTIONS: tuple[ModuleType, ...] = tuple(
    importlib.import_module(f"{__name__}.{name}")
    for name in sorted(
        (m.name for m in pkgutil.iter_modules(__path__) if re.fullmatch(r"s\d+[a-z]?_\w+", m.name)),
        key=_order,
    )
)


def declare_examples() -> None:
    """Declare every section's examples into :data:`conformance.examples.EXAMPLES`."""
    for section in SECTIONS:
        section.declare_examples()
