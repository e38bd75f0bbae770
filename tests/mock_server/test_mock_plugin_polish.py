"""The pytest plugin's rough edges: the openai extra, a marker the session
fixture would ignore, the fixture objects in the README, ``drop=N`` on non-streamed answers."""

from __future__ import annotations

import sys
import tomllib
from dataclasses import fields
from pathlib import Path

import httpx2
import pytest

from mock_server.middleware import RecordedRequest
from mock_server.testing import InProcessMock, LoopbackMock

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


def test_an_extra_brings_openai_for_the_fixtures() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert any(dep.startswith("openai") for dep in extras["pytest"])


def test_client_without_openai_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # `import openai` now fails
    mock = InProcessMock()
    try:
        for make in (mock.client, mock.async_client):
            with pytest.raises(ModuleNotFoundError, match=r"responses-conformance\[pytest\]"):
                make()
        # what needs no SDK still works
        with httpx2.Client(transport=mock.transport, base_url=mock.base_url) as http:
            assert http.post("/responses", json={"model": "m", "input": "hi"}).status_code == 200
    finally:
        mock.close()


SESSION_TESTS = """
import pytest


@pytest.mark.responses_mock(seed=9, frozen_time=True)
def test_marker_on_the_session_fixture(responses_mock_session):
    pass


@pytest.mark.responses_mock(frozen_time=True)
def test_marker_with_both(responses_mock, responses_mock_session):
    with responses_mock.client() as client:
        assert client.responses.create(model="m", input="x").created_at == 1_700_000_000


def test_no_marker(responses_mock_session):
    pass
"""


def test_a_marker_on_the_session_fixture_fails_with_a_clear_message(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_user=SESSION_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*configures responses_mock and responses_mock_inprocess, not*"])
    assert "Traceback" not in result.stdout.str()


def test_the_session_mock_is_configured_by_a_conftest_fixture(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
import pytest

@pytest.fixture(scope="session")
def responses_mock_session_options():
    return {"frozen_time": True, "scenario": "refusal"}
"""
    )
    pytester.makepyfile(
        test_user="""
def test_session(responses_mock_session):
    with responses_mock_session.client() as client:
        response = client.responses.create(model="m", input="x")
    assert response.created_at == 1_700_000_000
    assert response.output[0].content[0].type == "refusal"
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def test_the_readme_documents_every_fixture_attribute() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### The pytest fixtures' objects") :]
    section = section[: section.index("\n## ")]
    handle = _public(InProcessMock) | _public(LoopbackMock)
    handle -= {"start", "stop", "close"}  # the fixtures start, stop and close them
    recorded = {f.name for f in fields(RecordedRequest)} | {"json", "truncated"}
    missing = sorted(n for n in handle | recorded if f"`.{n}" not in section)
    assert not missing, f"README does not document: {missing}"
    for keyword in ("seed", "scenario", "faults", "frozen_time", "chunk", "api_key", "store"):
        assert f"`{keyword}" in section, keyword
    assert "responses_mock_session_options" in section


def test_drop_cuts_streams_only_as_its_help_says() -> None:
    mock = InProcessMock()
    try:
        with httpx2.Client(transport=mock.transport, base_url=mock.base_url) as client:
            # 9f25f79: a non-streamed answer was cut in half (RemoteProtocolError).
            response = client.post(
                "/responses",
                json={"model": "mock", "input": "x"},
                headers={"x-mock-fault": "drop=2"},
            )
            assert response.status_code == 200
            assert response.json()["status"] == "completed"
            with (
                pytest.raises(httpx2.RemoteProtocolError),
                client.stream(
                    "POST",
                    "/responses",
                    json={"model": "mock", "input": "x", "stream": True},
                    headers={"x-mock-fault": "drop=2"},
                ) as stream,
            ):
                for _ in stream.iter_raw():
                    pass
    finally:
        mock.close()
