"""The streams the per-tool rules' examples are built from (conformance.sections: §1.5
annotations, §1.7 hosted tools): minimal hosted-tool calls shaped like the recordings
(``openai-web-search-tool.1``, ``openai-image-generation-tool.1``, ``openai-mcp-tool.1``) with the
ids shortened.
"""

from __future__ import annotations

from collections.abc import Sequence

from .build import Event, _text_events, _wrap

_URL = "https://example.com/a"
CITE = {"type": "url_citation", "start_index": 0, "end_index": 5, "title": "A", "url": _URL}


def _hosted(kind: str, item_id: str, stages: Sequence[str], done: Event) -> list[Event]:
    added: Event = {"id": item_id, "type": kind, "status": "in_progress"}
    if kind == "mcp_call":
        added.update(arguments="", name="lookup", server_label="idx", approval_request_id=None,
                     error=None, output=None)  # fmt: skip
    body: list[Event] = [{"type": "response.output_item.added", "output_index": 0, "item": added}]
    for stage in stages:
        extra: Event = {}
        if stage.startswith("partial_image"):
            stage, index = stage.split(":")
            extra = {"partial_image_index": int(index), "partial_image_b64": "iVBORw0KGgo=",
                     "size": "1024x1024", "quality": "low", "background": "opaque",
                     "output_format": "png"}  # fmt: skip
        body.append({"type": f"response.{kind}.{stage}", "output_index": 0, "item_id": item_id,
                     **extra})  # fmt: skip
    body.append({"type": "response.output_item.done", "output_index": 0, "item": done})
    return body


def web_search_stream(stages: Sequence[str] = ("in_progress", "searching", "completed"),
                      annotation: Event | None = None) -> list[Event]:  # fmt: skip
    """A web search call, then an answer citing its source."""
    done = {"id": "ws_example", "type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "news"}}  # fmt: skip
    text = _text_events(("Hello", " world."), output_index=1,
                        annotations=[annotation or dict(CITE)])  # fmt: skip
    events = _wrap([], _hosted("web_search_call", "ws_example", stages, done) + text)
    events[-1]["response"]["output"] = [done, text[-1]["item"]]
    return events


def image_stream(indices: Sequence[int] = (0, 1)) -> list[Event]:
    stages = ["in_progress", "generating", *(f"partial_image:{i}" for i in indices), "completed"]
    done = {"id": "ig_example", "type": "image_generation_call", "status": "completed",
            "result": "iVBORw0KGgo=", "background": "opaque", "output_format": "png",
            "quality": "low", "size": "1024x1024", "revised_prompt": "A lighthouse."}  # fmt: skip
    events = _wrap([done], _hosted("image_generation_call", "ig_example", stages, done))
    return events


def mcp_stream(end: str = "completed", status: str = "completed") -> list[Event]:
    done: Event = {"id": "mcp_example", "type": "mcp_call", "status": status,
                   "approval_request_id": None, "arguments": "{}", "name": "lookup",
                   "server_label": "idx", "output": "ok" if status == "completed" else None,
                   "error": None}  # fmt: skip
    if status == "failed":
        done["error"] = {"type": "mcp_tool_execution_error",
                         "content": [{"type": "text", "text": "boom"}]}  # fmt: skip
    body = _hosted("mcp_call", "mcp_example", ["in_progress"], done)
    body[-1:-1] = [
        {"type": "response.mcp_call_arguments.delta", "output_index": 0, "item_id": "mcp_example",
         "delta": "{}"},
        {"type": "response.mcp_call_arguments.done", "output_index": 0, "item_id": "mcp_example",
         "arguments": "{}"},
        {"type": f"response.mcp_call.{end}", "output_index": 0, "item_id": "mcp_example"},
    ]  # fmt: skip
    return _wrap([done], body)
