"""Suite fixes found by the vendor matrix: a verdict that blamed a server for what a
real OpenAI response does too. Each test shows the server is no longer blamed, and that the
defect the check is for is still caught."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from suite_support import Rewriter, mock_app, run_suite, serve


def _background_echo(value: Any) -> Rewriter:
    """The mock, with `background` removed from (``...``) or set in every JSON Response."""

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and body.get("object") == "response" and "background" in body:
            if value is ...:
                del body["background"]
            else:
                body["background"] = value
        return status, body

    return Rewriter(mock_app(), on_json=on_json)


@pytest.mark.parametrize(("echo", "outcome"), [(..., "pass"), (False, "fail")])
def test_background_need_not_be_echoed(echo: Any, outcome: str, tmp_path: Path) -> None:
    # SGLang 0.5.23 omits `background`, as OpenAI does in openai-web-search-tool.1.json; a
    # server that echoes it false for a background request is still wrong.
    with serve(_background_echo(echo)) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile", "core,stateful",
                        "-k", "background_poll", "--no-instructions", "--timeout", "10",
                        report_dir=tmp_path)  # fmt: skip
    assert run.outcomes()["live.background.lifecycle"] == outcome, run.stdout[-3000:]


def _cut_calls(status: str) -> Rewriter:
    """The mock, with every function call's arguments cut in half, the Response `status`."""

    def on_json(method: str, path: str, code: int, body: Any) -> tuple[int, Any]:
        calls = [
            item for item in (body.get("output") or []) if item.get("type") == "function_call"
        ] if isinstance(body, dict) and body.get("object") == "response" else []  # fmt: skip
        for item in calls:
            item["arguments"] = item["arguments"][: len(item["arguments"]) // 2]
        if calls and status == "incomplete":
            body["status"] = "incomplete"
            body["incomplete_details"] = {"reason": "max_output_tokens"}
            calls[-1]["status"] = "incomplete"
        return code, body

    return Rewriter(mock_app(), on_json=on_json)


@pytest.mark.parametrize(
    ("status", "outcome"), [("incomplete", "not_exercised"), ("completed", "fail")]
)
def test_a_call_cut_off_by_a_token_limit_is_not_judged(
    status: str, outcome: str, tmp_path: Path
) -> None:
    # vLLM 0.32's constrained decoding ran the scripted model to its length limit inside a JSON
    # string: the call was cut, the response `incomplete`. Cut arguments on a `completed`
    # response are still a failure.
    with serve(_cut_calls(status)) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile", "core,tools",
                        "-k", "tool_choice_required and nonstream", "--no-instructions",
                        "--timeout", "10", report_dir=tmp_path)  # fmt: skip
    assert run.outcomes()["live.tools.arguments_valid"] == outcome, run.stdout[-3000:]
    if status == "incomplete":
        cases = next(iter(run.index["targets"].values()))["cases"]
        assert all("incomplete" in c["skip_reason"] for c in cases), cases


def test_a_round_trip_whose_call_was_cut_off_is_not_judged(tmp_path: Path) -> None:
    # The same cut-off in the chain's tool round trip: no call to answer, nothing to judge.
    with serve(_cut_calls("incomplete")) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile", "core,stateful,tools",
                        "-k", "chain_tool_round_trip", "--no-instructions", "--timeout", "10",
                        report_dir=tmp_path)  # fmt: skip
    assert run.outcomes()["live.previous_response.tool_round_trip"] == "not_exercised", run.stdout[
        -3000:
    ]
    cases = next(iter(run.index["targets"].values()))["cases"]
    (case,) = [c for c in cases if c["id"] == "chain/chain_tool_round_trip"]
    assert "first turn is incomplete" in case["skip_reason"]


def _no_input_tokens_route() -> Rewriter:
    """The mock without `POST /v1/responses/input_tokens`: FastAPI's default 405 there."""

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if method == "POST" and path.endswith("/responses/input_tokens"):
            return 405, {"detail": "Method Not Allowed"}
        return status, body

    return Rewriter(mock_app(), on_json=on_json)


def test_an_optional_endpoint_not_offered_is_not_judged(tmp_path: Path) -> None:
    # SGLang 0.5.23 and vLLM 0.32 have no input_tokens route; their framework's 405 body was
    # counted as an `error.shape` violation although the endpoint is optional (SPEC §4 lists it,
    # the case says "where offered").
    with serve(_no_input_tokens_route()) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile", "core,stateful",
                        "-k", "chain_history_by_usage", "--no-instructions", "--timeout", "10",
                        report_dir=tmp_path)  # fmt: skip
    outcomes = run.outcomes()
    # no error body was judged: declared (core, stateful) but not exercised
    assert outcomes["error.shape"] == "not_exercised", run.stdout[-3000:]
    assert outcomes["error.code.type"] == "not_exercised"
    assert outcomes["live.input_tokens.count"] == "not_exercised"
    assert outcomes["live.previous_response.history"] == "pass"


def _usage(edit: Any) -> Rewriter:
    """The mock, with ``edit(usage)`` applied to the usage of every Response it sends."""

    def fix(response: Any) -> None:
        if isinstance(response, dict) and isinstance(response.get("usage"), dict):
            edit(response["usage"])

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and body.get("object") == "response":
            fix(body)
        return status, body

    def on_sse(method: str, path: str, events: list[Any]) -> list[Any]:
        for event in events:
            if isinstance(event, dict):
                fix(event.get("response"))
        return events

    return Rewriter(mock_app(), on_json=on_json, on_sse=on_sse)


def _generated_long(usage: dict[str, Any]) -> None:
    # Output generated in far more tokens than its text costs re-encoded (a non-canonical
    # tokenization, as vLLM's constrained decoding produced: 55 generated, 43 re-encoded).
    usage["output_tokens"] += 200
    usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]


def _input_not_counted(usage: dict[str, Any]) -> None:
    # SGLang 0.5.23's harmony path: `input_tokens` 0 on every response, chained or not.
    usage["input_tokens"] = 0
    usage["input_tokens_details"]["cached_tokens"] = 0
    usage["total_tokens"] = usage["output_tokens"]


@pytest.mark.parametrize("edit", [_generated_long, _input_not_counted])
def test_history_is_not_judged_by_a_token_floor(edit: Any, tmp_path: Path) -> None:
    # The history check compared a chained turn's input_tokens with the prior turn's
    # input + output_tokens: output that re-encodes shorter than it was generated, or an
    # input_tokens that is never counted (the usage checks' finding), failed it although the
    # history was whole. Now the yardstick is the same history sent explicitly (KB19 is still
    # caught: tests/suite/test_suite_broken.py).
    with serve(_usage(edit)) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile", "core,stateful,tools",
                        "-k", "chain_history_by_usage or chain_tool_round_trip",
                        "--no-instructions", "--timeout", "10", report_dir=tmp_path)  # fmt: skip
    history = run.outcomes()["live.previous_response.history"]
    assert history == ("pass" if edit is _generated_long else "not_exercised"), run.stdout[-3000:]
