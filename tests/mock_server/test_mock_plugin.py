"""The pytest plugin from a fresh test file, as a user would write one (pytester)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

USER_TESTS = """
import httpx2
import openai
import pytest
from reference_impl.engine import TextDelta, ToolCallDelta


def test_loopback(responses_mock):
    assert responses_mock.base_url.startswith("http://127.0.0.1:")
    assert responses_mock.base_url.endswith("/v1")
    client = openai.OpenAI(base_url=responses_mock.base_url, api_key="unused")
    responses_mock.queue([TextDelta("Scripted "), TextDelta("answer.")])
    assert client.responses.create(model="anything", input="hi").output_text == "Scripted answer."
    responses_mock.queue("function-call")
    call = client.responses.create(model="anything", input="weather?").output[0]
    assert call.type == "function_call"
    assert [r.json()["input"] for r in responses_mock.requests] == ["hi", "weather?"]
    client.close()


@pytest.mark.responses_mock(seed=9, scenario="refusal", frozen_time=True, faults="429@1")
def test_marker_configures_the_server(responses_mock):
    with responses_mock.client() as client:  # default retries absorb the 429
        response = client.responses.create(model="mock", input="hi")
    assert response.created_at == 1_700_000_000
    assert response.output[0].content[0].type == "refusal"
    assert [r.attempt for r in responses_mock.requests] == [1, 2]


def test_in_process_transport(responses_mock_inprocess):
    http = httpx2.Client(transport=responses_mock_inprocess.transport)
    client = openai.OpenAI(base_url=responses_mock_inprocess.base_url, api_key="x", http_client=http)
    with client.responses.stream(model="mock-reasoning", input="no sockets") as stream:
        final = stream.get_final_response()
    assert [item.type for item in final.output] == ["reasoning", "message"]
    client.close()


async def _async_roundtrip(mock):
    async with mock.async_client() as client:
        return (await client.responses.create(model="mock-text", input="async")).output_text


def test_in_process_async(responses_mock_inprocess):
    import asyncio

    assert asyncio.run(_async_roundtrip(responses_mock_inprocess)).startswith('You said: "async"')


def test_session_mock_is_shared(responses_mock_session):
    with responses_mock_session.client() as client:
        client.responses.create(model="mock", input="one")
    assert len(responses_mock_session.requests) >= 1
"""


def test_plugin_from_a_fresh_test_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)


def test_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["*responses_mock(seed=0*"])
