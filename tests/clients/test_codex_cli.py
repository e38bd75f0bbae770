"""Codex CLI end to end against the mock: ``codex exec`` with a custom provider
(``wire_api = "responses"``), driven by an agent script in the provider's ``http_headers``.
Every stream Codex received is judged (``--strict``): all must pass.

Needs node/npm and the npm registry once (see ``tests/clients/codex_support.py``); skips
without them. About 5-10 s per ``codex exec`` on a 2-core machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codex_support import Codex, CodexRun, RecordingMock, codex_launcher

from conformance.offline.recorded import check_bytes
from mock_server.app import MockSettings

COMPACTION_PROMPT = (
    "CONTEXT CHECKPOINT COMPACTION"  # Codex's summarization prompt, local compaction
)
SCRIPT: dict[str, Any] = {
    "rules": [
        {"when": COMPACTION_PROMPT, "steps": [{"say": "Summary: the user gave a code word."}]},
        {
            "when": "Run the check",
            "steps": [
                {"call": ["exec_command", "shell"], "arguments": {"cmd": "echo codex-ran-this"}},
                {"say": "The command printed codex-ran-this."},
            ],
        },
        {"when": "Say hello", "steps": [{"say": "Hello from the mock."}]},
        {
            "when": "long answer",
            "steps": [{"say": " ".join(["The code word is kept safe here."] * 200)}],
        },
        {"steps": []},  # anything else: the mock's reply (recall of a code word, ...)
    ]
}


@pytest.fixture(scope="module")
def launcher(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return codex_launcher(request.config, tmp_path_factory)


@pytest.fixture
def mock() -> Any:
    with RecordingMock(MockSettings(frozen_time=1_700_000_000)) as server:
        yield server


@pytest.fixture
def codex(launcher: Path, mock: RecordingMock, tmp_path: Path) -> Codex:
    return Codex(
        launcher, mock.base_url, tmp_path, http_headers={"x-mock-script": json.dumps(SCRIPT)}
    )


@pytest.fixture
def codex_as_openai(launcher: Path, mock: RecordingMock, tmp_path: Path) -> Codex:
    headers = {"x-mock-script": json.dumps(SCRIPT)}
    return Codex(launcher, mock.base_url, tmp_path, name="OpenAI", http_headers=headers)


def _ok(run: CodexRun) -> str:
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def _judge_all(mock: RecordingMock) -> int:
    """Every exchange succeeded and every stream passes the judge strictly; the stream count."""
    streams = 0
    for exchange in mock.exchanges:
        assert exchange.status == 200, (exchange.path, bytes(exchange.response_body[:500]))
        if exchange.streamed:
            verdict = check_bytes(bytes(exchange.response_body), name=exchange.path)
            failing = [(v.check.id, v.path, v.actual) for v in verdict.failing(strict=True)]
            assert failing == [], failing
            streams += 1
    return streams


def _requests(mock: RecordingMock) -> list[dict[str, Any]]:
    return [e.json() for e in mock.responses()]


def _turn_kind(exchange: Any) -> str | None:
    meta = json.loads(exchange.request_headers.get("x-codex-turn-metadata") or "{}")
    kind = meta.get("request_kind")
    return kind if isinstance(kind, str) else None


def test_plain_answer(codex: Codex, mock: RecordingMock) -> None:
    assert "Hello from the mock." in _ok(codex.exec("Say hello."))
    (body,) = _requests(mock)
    # what Codex sends: stateless reasoning, a prompt cache key, client metadata
    assert body["store"] is False
    assert "reasoning.encrypted_content" in body["include"]
    assert {"client_metadata", "prompt_cache_key", "tools"} <= body.keys()
    assert _judge_all(mock) == 1


def test_exec_command_round_trip(codex: Codex, mock: RecordingMock) -> None:
    out = _ok(codex.exec("Run the check please."))
    assert "The command printed codex-ran-this." in out
    _first, second = _requests(mock)
    call = next(i for i in reversed(second["input"]) if i.get("type") == "function_call")
    assert call["name"] == "exec_command"
    assert json.loads(call["arguments"]) == {"cmd": "echo codex-ran-this"}
    output = next(i for i in second["input"] if i.get("type") == "function_call_output")
    assert output["call_id"] == call["call_id"]
    assert "codex-ran-this" in json.dumps(output["output"])  # Codex ran it and sent the output
    assert _judge_all(mock) == 2


def test_auto_compaction_then_the_continuation_sees_the_history(
    codex: Codex, mock: RecordingMock
) -> None:
    # The first turn (instructions, tools, a long answer) reports about 8k tokens of usage; a
    # limit of 7,000 makes Codex compact before the next turn. A custom provider compacts
    # locally: a turn with Codex's summarization prompt, whose answer becomes the summary.
    limit = ("-c", "model_auto_compact_token_limit=7000")
    _ok(codex.exec(*limit, "Remember this code word: PLUM. Then give a long answer."))
    run = codex.exec(*limit, "resume", "--last", "What was the code word I asked you to remember?")
    assert "The code word was PLUM." in _ok(run)
    kinds = [_turn_kind(e) for e in mock.responses()]
    assert kinds == ["turn", "compaction", "turn"], kinds
    compaction, after = _requests(mock)[1:]
    assert COMPACTION_PROMPT in json.dumps(compaction["input"][-1])
    texts = json.dumps(after["input"])
    assert "Summary: the user gave a code word." in texts  # the compacted history went on
    assert _judge_all(mock) == 3


def _reasoning_blobs_given(mock: RecordingMock) -> set[str]:
    """Every `encrypted_content` the mock sent in a reasoning item (streamed `output_item.done`)."""
    blobs: set[str] = set()
    for exchange in mock.responses():
        for line in bytes(exchange.response_body).splitlines():
            if not line.startswith(b"data: {"):
                continue
            event = json.loads(line[6:])
            item = event.get("item")
            done = event.get("type") == "response.output_item.done"
            if done and item.get("type") == "reasoning" and item.get("encrypted_content"):
                blobs.add(item["encrypted_content"])
    return blobs


def test_resume_with_store_false_sends_the_encrypted_reasoning_back(
    codex: Codex, mock: RecordingMock
) -> None:
    _ok(codex.exec("Remember this code word: PLUM."))
    given = _reasoning_blobs_given(mock)
    assert given, "the mock gave Codex encrypted reasoning (it asked for it)"
    run = codex.exec("resume", "--last", "What was the code word I asked you to remember?")
    assert "The code word was PLUM." in _ok(run)
    run = codex.exec("resume", "--last", "Reply only with OK.")
    assert "OK" in _ok(run)
    given = _reasoning_blobs_given(mock)
    requests = _requests(mock)
    assert len(requests) == 3 and all(body["store"] is False for body in requests)
    for n, body in enumerate(requests[1:], start=1):
        sent = [i for i in body["input"] if i.get("type") == "reasoning"]
        assert len(sent) == n, "every earlier turn's reasoning item comes back"
        for item in sent:
            assert item["encrypted_content"] in given  # exactly the blob the mock gave
    assert _judge_all(mock) == 3


def test_remote_compaction_with_a_compaction_trigger(
    codex_as_openai: Codex, mock: RecordingMock
) -> None:
    # A provider named "OpenAI" gets Codex's remote compaction (x-codex-beta-features:
    # remote_compaction_v2): a /responses turn whose input ends with a `compaction_trigger`
    # item; the compaction item answered goes back as input, and the history with it.
    limit = ("-c", "model_auto_compact_token_limit=7000")
    _ok(codex_as_openai.exec(*limit, "Remember this code word: PLUM. Then give a long answer."))
    run = codex_as_openai.exec(
        *limit, "resume", "--last", "What was the code word I asked you to remember?"
    )
    assert "The code word was PLUM." in _ok(run)
    assert [_turn_kind(e) for e in mock.responses()] == ["turn", "compaction", "turn"]
    compaction, after = _requests(mock)[1:]
    assert compaction["input"][-1]["type"] == "compaction_trigger"
    given = [
        json.loads(line[6:])["item"]
        for line in bytes(mock.responses()[1].response_body).splitlines()
        if line.startswith(b"data: {") and b'"compaction"' in line and b"output_item.done" in line
    ]
    assert given and given[0]["type"] == "compaction"
    sent = [i for i in after["input"] if i.get("type") == "compaction"]
    assert [i["encrypted_content"] for i in sent] == [given[0]["encrypted_content"]]
    assert _judge_all(mock) == 3


# -- unscripted: the mock as a model; scripted checks that cannot pass on a failure ---------------


@pytest.fixture
def unscripted(launcher: Path, mock: RecordingMock, tmp_path: Path) -> Codex:
    return Codex(launcher, mock.base_url, tmp_path)


def _tool_calls(mock: RecordingMock) -> list[str]:
    """The names of the calls the mock sent Codex (streamed output items)."""
    names = []
    for exchange in mock.responses():
        for line in bytes(exchange.response_body).splitlines():
            if line.startswith(b"data: {") and b"response.output_item.done" in line:
                item = json.loads(line[6:])["item"]
                if item.get("type") in ("function_call", "custom_tool_call", "web_search_call"):
                    names.append(item.get("name") or item["type"])
    return names


@pytest.mark.parametrize(
    "prompt",
    [
        "Say hello in one line.",
        "Hi! Who are you?",
        # "create" / "write" open Codex's create_goal / write_stdin: not asked for by a verb alone
        "Create a one-line greeting.",
        "Write a short greeting for my team.",
        # wordings tried against 0.171's tool set: a verb of send_input / wait_agent, a how-to
        "Please send me a friendly hello.",
        "Good morning! Could you wait a moment and then greet me?",
        "How do I run a Python script from the terminal?",
        "What can you help me with today?",
    ],
)
def test_unscripted_greeting_runs_no_tool(
    unscripted: Codex, mock: RecordingMock, prompt: str
) -> None:
    out = _ok(unscripted.exec(prompt))
    assert _tool_calls(mock) == [] and len(mock.responses()) == 1
    assert f'You said: "{prompt[:20]}' in out  # the user's words, not Codex's environment context
    assert _judge_all(mock) == 1


@pytest.mark.parametrize(
    ("fact", "question", "answer"),
    [
        ("My name is Ada.", "What is my name?", "Your name is Ada."),
        ("The password is swordfish.", "What's the password?", "The password is swordfish."),
        ("I'm working on a project called Nebula.", "What's the name of my project?",
         "Your project is called Nebula."),
        ("Please remember: the staging port is 8443.", "Which port is staging on?",
         "The staging port is 8443."),
        ("I live in Lisbon.", "Where do I live?", "You live in Lisbon."),
        ("Hi, I'm Grace.", "Do you remember who I am?", "Your name is Grace."),
        ("The secret word is marmalade.", "Tell me the secret word.",
         "The secret word is marmalade."),
    ],
)  # fmt: skip
def test_unscripted_two_turn_resume_recalls_the_fact(
    unscripted: Codex, mock: RecordingMock, fact: str, question: str, answer: str
) -> None:
    _ok(unscripted.exec(fact))
    assert answer in _ok(unscripted.exec("resume", "--last", question))
    assert _tool_calls(mock) == [] and len(mock.responses()) == 2
    assert _judge_all(mock) == 2


def test_unscripted_run_request_runs_that_command(unscripted: Codex, mock: RecordingMock) -> None:
    _ok(unscripted.exec("Run `echo unscripted-ran` please."))
    _first, second = _requests(mock)
    output = next(i for i in second["input"] if i.get("type") == "function_call_output")
    assert "unscripted-ran" in json.dumps(output["output"])  # Codex parsed and ran the call


FAILING_WRITE: dict[str, Any] = {
    "steps": [
        {"call": ["exec_command", "shell"], "arguments": {"cmd": "echo hi > out.txt"}},
        {"say": "Wrote out.txt.", "ok": True},
    ]
}


def test_a_scripted_step_whose_command_fails_ends_in_the_scripted_failure(
    launcher: Path, mock: RecordingMock, tmp_path: Path
) -> None:
    # Codex's default sandbox is read-only: the write fails, and the step after it says so.
    codex = Codex(launcher, mock.base_url, tmp_path,
                  http_headers={"x-mock-script": json.dumps(FAILING_WRITE)})  # fmt: skip
    run = codex.exec("Write hi to out.txt.", sandbox="read-only")
    assert run.returncode != 0, run.stdout[-1000:]
    assert "Wrote out.txt." not in run.stdout
    assert "Mock script check failed at script.steps[1]" in run.stdout + run.stderr
    assert not (codex.workdir / "out.txt").exists()
    # The near miss: a sandbox that lets it write passes the check.
    mock.exchanges.clear()
    (tmp_path / "good").mkdir()
    good = Codex(launcher, mock.base_url, tmp_path / "good",
                 http_headers={"x-mock-script": json.dumps(FAILING_WRITE)})  # fmt: skip
    assert "Wrote out.txt." in _ok(good.exec("Write hi to out.txt."))
    assert (good.workdir / "out.txt").read_text() == "hi\n"


# -- Codex's own patch tool: `apply_patch`, a custom (freeform) tool for a catalogue model ---------

PATCH = (
    "*** Begin Patch\n"
    "*** Add File: notes.txt\n"
    "+first line\n"
    "+second line\n"
    "*** Update File: app.py\n"
    "@@\n"
    "-print('old')\n"
    "+print('new')\n"
    "*** End Patch\n"
)
SHELL_THEN_PATCH: dict[str, Any] = {
    "steps": [
        {"call": ["exec_command", "shell"], "arguments": {"cmd": "printf \"print('old')\\n\" > app.py"}},
        {"call": "apply_patch", "arguments": PATCH, "expect": "Process exited with code 0"},
        {"say": "Patched app.py and added notes.txt.", "expect": "Success. Updated the following files"},
    ]
}  # fmt: skip


def _patching(launcher: Path, mock: RecordingMock, root: Path, script: dict[str, Any]) -> Codex:
    root.mkdir(exist_ok=True)
    return Codex(launcher, mock.base_url, root,
                 http_headers={"x-mock-script": json.dumps(script)})  # fmt: skip


def test_a_scripted_shell_step_then_apply_patch_change_the_workdir(
    launcher: Path, mock: RecordingMock, tmp_path: Path
) -> None:
    # `-m gpt-5.5`: a bundled catalogue model, so Codex declares apply_patch (tests/clients/
    # test_codex_models.py); the script's patch goes out as the custom_tool_call Codex expects.
    codex = _patching(launcher, mock, tmp_path, SHELL_THEN_PATCH)
    out = _ok(codex.exec("-m", "gpt-5.5", "Create app.py, then patch it."))
    assert "Patched app.py and added notes.txt." in out
    assert (codex.workdir / "app.py").read_text() == "print('new')\n"
    assert (codex.workdir / "notes.txt").read_text() == "first line\nsecond line\n"
    last = _requests(mock)[-1]["input"]
    call = next(i for i in last if i.get("type") == "custom_tool_call")
    assert (call["name"], call["input"]) == ("apply_patch", PATCH)
    output = next(i for i in last if i.get("type") == "custom_tool_call_output")
    assert output["call_id"] == call["call_id"] and "A notes.txt" in output["output"]
    assert _judge_all(mock) == 3


def test_a_patch_that_does_not_apply_ends_in_the_scripted_failure(
    launcher: Path, mock: RecordingMock, tmp_path: Path
) -> None:
    # The near miss: no shell step, so app.py does not exist and the patch's update fails.
    script = {"steps": SHELL_THEN_PATCH["steps"][1:]}
    script["steps"][0] = {"call": "apply_patch", "arguments": PATCH}
    codex = _patching(launcher, mock, tmp_path, script)
    run = codex.exec("-m", "gpt-5.5", "Patch app.py.")
    assert run.returncode != 0, run.stdout[-1000:]
    assert "Patched app.py" not in run.stdout
    assert "Mock script check failed at script.steps[1]" in run.stdout + run.stderr
    assert not (codex.workdir / "app.py").exists()


def test_a_scripted_create_goal_completes(
    launcher: Path, mock: RecordingMock, tmp_path: Path
) -> None:
    # After create_goal Codex 0.171 sends, besides the call's output, a function_call_output with
    # no call_id ("name": "goal_objective", "namespace": "agent"): accepted, not a 400.
    script = {"steps": [{"call": "create_goal", "arguments": {"objective": "ship the release"}},
                        {"say": "Goal set.", "ok": True}]}  # fmt: skip
    codex = _patching(launcher, mock, tmp_path, script)
    assert "Goal set." in _ok(codex.exec("Create a goal: ship the release."))
    last = _requests(mock)[-1]["input"]
    context = [i for i in last if i.get("type") == "function_call_output" and "call_id" not in i]
    assert [(i["name"], i["output"]) for i in context] == [("goal_objective", "ship the release")]
    assert _judge_all(mock) == 2
