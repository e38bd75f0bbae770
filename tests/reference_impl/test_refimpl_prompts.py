"""Prompt templates: `--prompts FILE` registers them, `prompt: {id, version, variables}` renders
one; an unknown id is a 404."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from openai.types.responses import Response

from mock_server.app import MockSettings
from mock_server.cli import main as mock_main
from mock_server.testing import IN_PROCESS_URL, InProcessMock
from reference_impl.sglang.cli import main as reference_main

TEMPLATES = {
    "pmpt_greeter": {
        "1": {"instructions": "Greet {{name}}."},
        "2": {
            "instructions": "Greet {{ name }} in {{language}}.",
            "input": [
                {"role": "user", "content": "I am {{name}}."},
                {"role": "user", "content": [{"type": "input_text", "text": "{{photo}}"}]},
            ],
        },
    }
}
IMAGE = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}


@pytest.fixture
def prompts_file(tmp_path: Path) -> Path:
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps(TEMPLATES))
    return path


@pytest.fixture
def mock(prompts_file: Path) -> Iterator[tuple[httpx2.Client, InProcessMock]]:
    handle = InProcessMock(MockSettings(frozen_time=1_700_000_000, prompts=str(prompts_file)))
    with httpx2.Client(transport=handle.transport, base_url=IN_PROCESS_URL) as http:
        yield http, handle
    handle.close()


def post(http: httpx2.Client, body: dict[str, Any]) -> httpx2.Response:
    return http.post("/v1/responses", json={"model": "mock-text", **body})


def test_the_latest_version_renders_with_its_variables(
    mock: tuple[httpx2.Client, InProcessMock],
) -> None:
    http, handle = mock
    variables = {"name": "Ada", "language": "French", "photo": IMAGE}
    response = post(http, {"prompt": {"id": "pmpt_greeter", "variables": variables}, "input": "Hi"})
    assert response.status_code == 200, response.text
    body = response.json()
    Response.model_validate(body)
    echoed = {**variables, "photo": {**IMAGE, "detail": "auto"}}
    assert body["prompt"] == {"id": "pmpt_greeter", "version": "2", "variables": echoed}
    assert body["instructions"] == "Greet Ada in French."
    turns = handle.generations[-1].messages
    assert [(m.role, m.content) for m in turns] == [
        ("system", "Greet Ada in French."),
        ("user", "I am Ada."),
        ("user", ""),
        ("user", "Hi"),
    ]
    assert turns[2].images == (IMAGE["image_url"],)


def test_a_named_version_and_the_requests_own_instructions(
    mock: tuple[httpx2.Client, InProcessMock],
) -> None:
    http, handle = mock
    response = post(
        http,
        {
            "prompt": {"id": "pmpt_greeter", "version": "1", "variables": {"name": {"type": "input_text", "text": "Bo"}}},
            "instructions": "Be brief.",
            "input": "Hi",
        },
    )  # fmt: skip
    assert response.status_code == 200, response.text
    assert response.json()["instructions"] == "Greet Bo.\n\nBe brief."
    assert handle.generations[-1].messages[0].content == "Greet Bo.\n\nBe brief."


@pytest.mark.parametrize(
    ("prompt", "status", "param", "code"),
    [
        ({"id": "pmpt_nowhere"}, 404, "prompt", None),
        ({"id": "pmpt_greeter", "version": "9"}, 404, "prompt", None),
        ({"id": "pmpt_greeter", "version": "1"}, 400, "prompt.variables.name", "missing_required_parameter"),
        ({"version": "1"}, 400, "prompt.id", "missing_required_parameter"),
        ("pmpt_greeter", 400, "prompt", "invalid_type"),
        ({"id": "pmpt_greeter", "variables": {"name": 3}}, 400, "prompt.variables.name", "invalid_type"),
    ],
)  # fmt: skip
def test_bad_prompts(
    mock: tuple[httpx2.Client, InProcessMock], prompt: Any, status: int, param: str, code: Any
) -> None:
    http, _ = mock
    response = post(http, {"prompt": prompt, "input": "Hi"})
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert (error["param"], error["code"]) == (param, code)
    if status == 404:
        assert error["message"] == f"Prompt with id '{prompt['id']}' not found."


def test_without_a_prompts_file_every_prompt_is_unknown() -> None:
    handle = InProcessMock(MockSettings())
    try:
        with httpx2.Client(transport=handle.transport, base_url=IN_PROCESS_URL) as http:
            assert post(http, {"prompt": {"id": "pmpt_x"}, "input": "Hi"}).status_code == 404
            assert post(http, {"prompt": None, "input": "Hi"}).status_code == 200
    finally:
        handle.close()


@pytest.mark.parametrize("main", [mock_main, reference_main])
@pytest.mark.parametrize(
    ("content", "says"),
    [(None, "cannot read"), ("{", "is not JSON"), ("[]", "expected an object"), ('{"p": {"1": {"x": 1}}}', "expected {instructions?, input?}")],
)  # fmt: skip
def test_a_bad_prompts_file_is_a_one_line_exit_2(
    main: Any, content: str | None, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "prompts.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as info:
        main(["--port", "0", "--prompts", str(path)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("items", "says"),
    [
        ([5], "Invalid type for 'input[0]': expected an object"),
        ([{"role": 5, "content": "x"}], "input[0].role: Invalid value: '5'"),
        ([{"role": "user", "content": 5}], "Invalid type for 'input[0].content'"),
        ([{"role": "user", "content": [{"type": "input_text"}]}], "input[0].content[0].text"),
        ([{"type": "function_call_output"}], "input[0]"),
        ([{"content": "no role"}], "input[0].type"),
    ],
)
def test_template_input_items_are_checked_when_the_file_is_read(
    items: Any, says: str, tmp_path: Path
) -> None:
    """Before: the file was taken (both servers started), and every request naming the template
    got a 400 on input[0]. (--prompts turns PromptFileError into exit 2 with its line: above.)"""
    from reference_impl.request.prompts import PromptFileError, PromptRegistry

    path = tmp_path / "prompts.json"
    path.write_text(json.dumps({"p": {"1": {"input": items}}}))
    with pytest.raises(PromptFileError) as error:
        PromptRegistry.from_file(path)
    message = str(error.value)
    assert message.startswith(f"{path}: prompt 'p' version '1': ") and says in message
    assert "\n" not in message


def test_template_input_near_misses_still_load(tmp_path: Path) -> None:
    """Variables stand anywhere text does; any item a request may send is taken."""
    from reference_impl.request.prompts import PromptRegistry

    items = [
        {"role": "developer", "content": "Be {{tone}}."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "{{x}}"}]},
        {"type": "function_call_output", "call_id": "call_1", "output": "{{result}}"},
    ]
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps({"p": {"1": {"input": items}, "2": {"input": "{{q}}"}}}))
    assert set(PromptRegistry.from_file(path).templates["p"]) == {"1", "2"}
