"""``responses-conformance clients``: the CI slice (openai-python and the Agents SDK, from this
Python: nothing is installed), the exit codes, the budget, and how outcomes are read. The Node
clients and Codex against the mock and a gateway: tests/clients/test_clients_harness_all.py
(on demand)."""

from __future__ import annotations

import http.server
import json
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from threaded_http import serving

from conformance.cli import main
from conformance.clients.catalog import CLIENTS
from conformance.clients.flows import StepResult, judge
from mock_server.agent_script import parse as parse_script
from mock_server.app import MockSettings
from mock_server.testing import LoopbackMock


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = main(["clients", "--format", "json", *args])
    captured = capsys.readouterr()
    doc = json.loads(captured.out) if captured.out.strip() else {}
    return code, doc, captured.err


def _flows(doc: dict[str, Any], client: str) -> dict[str, Any]:
    (target,) = doc["targets"].values()
    flows: dict[str, Any] = target["clients"][client]["flows"]
    return flows


def test_openai_python_flows_pass_against_the_embedded_mock(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, doc, err = _run(
        capsys, "--client", "openai-python", "--python", sys.executable,
        "--report-dir", str(tmp_path),
    )  # fmt: skip
    flows = _flows(doc, "openai-python")
    assert code == 0, err
    assert {name: f["outcome"] for name, f in flows.items()} == {
        "stream": "pass", "tools": "pass", "parse": "pass", "connect": "pass",
    }  # fmt: skip
    assert flows["tools"]["requests"] == 2  # the call, then the answer to its output
    assert all(f["protocol"]["failing"] == 0 for f in flows.values())
    client = next(iter(doc["targets"].values()))["clients"]["openai-python"]
    assert client["harness"] == "pass" and client["profile"] is None
    junit = (tmp_path / "junit.xml").read_text()
    assert junit.count("<testcase") == 4 and "<failure" not in junit
    assert "openai-python" in (tmp_path / "report.html").read_text()


# An agent that never ends: the server calls the tool on every turn (30 scripted calls), and the
# Agents SDK runs it again and again (up to its max_turns of 10).
ENDLESS = {"steps": [{"call": "get_weather", "arguments": {"city": "Paris"}}] * 30}


def test_a_client_that_loops_fails_with_the_count_as_evidence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = MockSettings(script=parse_script(json.dumps(ENDLESS)))
    with LoopbackMock(settings) as mock:
        code, doc, err = _run(
            capsys, "--base-url", mock.base_url, "--model", "gpt-5.4", "--client", "agents-sdk",
            "--flow", "runner-tools", "--python", sys.executable,
        )  # fmt: skip
    flow = _flows(doc, "agents-sdk")["runner-tools"]
    budget = CLIENTS["agents-sdk"].flows[0].budget
    assert code == 1, err
    assert flow["outcome"] == "fail"
    assert flow["reason"].startswith(f"made more than {budget} requests")
    assert flow["requests"] > budget
    assert flow["evidence"]["last_requests"][-1]["status"] == 200


def test_the_near_miss_an_agent_that_ends_passes(capsys: pytest.CaptureFixture[str]) -> None:
    few = {"steps": [{"call": "get_weather", "arguments": {"city": "Paris"}}] * 3}
    with LoopbackMock(MockSettings(script=parse_script(json.dumps(few)))) as mock:
        code, doc, err = _run(
            capsys, "--base-url", mock.base_url, "--model", "gpt-5.4", "--client", "agents-sdk",
            "--flow", "runner-tools", "--python", sys.executable,
        )  # fmt: skip
    assert code == 0, err
    assert _flows(doc, "agents-sdk")["runner-tools"]["requests"] == 4


class _Refusing(http.server.BaseHTTPRequestHandler):
    def _refuse(self) -> None:
        body = (
            b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}'
        )
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _refuse

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def refusing() -> Iterator[str]:
    with serving(_Refusing) as url:
        yield url


def test_a_target_that_refuses_the_key_is_not_judged(
    capsys: pytest.CaptureFixture[str], refusing: str
) -> None:
    code, doc, err = _run(capsys, "--base-url", refusing, "--model", "m")
    assert code == 2
    (target,) = doc["targets"].values()
    assert target["status"] == "not_judged" and target["clients"] == {}
    assert "authentication refused: HTTP 401" in err


@pytest.fixture
def silent() -> Iterator[str]:
    """A server that accepts every connection and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    done.set()
    listener.close()
    for conn in held:
        conn.close()


def test_a_flow_past_its_deadline_is_stopped_and_fails(
    capsys: pytest.CaptureFixture[str], silent: str
) -> None:
    code, doc, err = _run(
        capsys, "--base-url", silent, "--model", "m", "--client", "openai-python",
        "--flow", "stream", "--timeout", "2", "--python", sys.executable,
    )  # fmt: skip
    flow = _flows(doc, "openai-python")["stream"]
    assert code == 1, err
    assert flow["reason"].startswith("did not finish within the flow's deadline")
    assert flow["evidence"]["exit_code"] is None  # stopped, not ended
    assert flow["duration_s"] < 10


def test_a_client_that_cannot_be_installed_is_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, doc, err = _run(
        capsys, "--client", "vercel-ai", "--offline", "--cache-dir", str(tmp_path / "empty")
    )
    assert code == 2
    client = next(iter(doc["targets"].values()))["clients"]["vercel-ai"]
    assert client["status"] == "unavailable" and client["flows"] == {}
    assert "vercel-ai unavailable" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--client", "lynx"], "unknown client(s) lynx"),
        (["--client", "codex", "--flow", "parse"], "unknown flow(s) parse"),
        (["--base-url", "http://127.0.0.1:9/v1"], "--model is required"),
        (["--base-url", "ftp://x", "--model", "m"], "is not an http(s) URL"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(["clients", *args]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


# -- reading a flow's outcome (sans I/O) ----------------------------------------------------------

CODEX = CLIENTS["codex"]


def _codex(flow: str, *events: dict[str, Any], code: int = 0) -> StepResult:
    return StepResult(code, "", "", list(events))


def _flow(name: str) -> Any:
    return next(f for f in CODEX.flows if f.name == name)


ANSWER = {"type": "item.completed", "item": {"type": "agent_message", "text": "Your name is Ada."}}
DONE = {"type": "turn.completed", "usage": {}}


def test_codex_failure_is_its_own_words(tmp_path: Path) -> None:
    failed = {"type": "turn.failed", "error": {"message": "unexpected status 400: no"}}
    why = judge(CODEX, _flow("greeting"), [_codex("greeting", failed, code=1)], tmp_path, 1)
    assert why == "exit 1: turn.failed: unexpected status 400: no"
    assert judge(CODEX, _flow("greeting"), [_codex("greeting", ANSWER, DONE)], tmp_path, 1) is None


def test_codex_resume_must_recall_and_compaction_must_compact(tmp_path: Path) -> None:
    steps = [_codex("x", ANSWER, DONE), _codex("x", ANSWER, DONE)]
    assert judge(CODEX, _flow("exec-resume"), steps, tmp_path, 2) is None
    forgot = {"type": "item.completed", "item": {"type": "agent_message", "text": "I don't know."}}
    why = judge(CODEX, _flow("exec-resume"), [steps[0], _codex("x", forgot, DONE)], tmp_path, 2)
    assert why is not None and why.startswith("the resumed turn lost the first")
    plum = {"type": "item.completed", "item": {"type": "agent_message", "text": "PLUM."}}
    both = [_codex("x", plum, DONE), _codex("x", plum, DONE)]
    assert judge(CODEX, _flow("compaction"), both, tmp_path, 3) is None
    why = judge(CODEX, _flow("compaction"), both, tmp_path, 2)
    assert why is not None and why.startswith("no compaction")


def test_an_sdk_flow_that_ends_wrong_says_why(tmp_path: Path) -> None:
    spec = CLIENTS["openai-python"]
    flow = spec.flows[0]
    ended = StepResult(3, "", "flow failed: responses.stream: no text in the answer\n")
    assert judge(spec, flow, [ended], tmp_path, 1) == (
        "exit 3: flow failed: responses.stream: no text in the answer"
    )
    crashed = StepResult(1, "", "Traceback ...\nopenai.BadRequestError: Error code: 400\n")
    assert (
        judge(spec, flow, [crashed], tmp_path, 1)
        == "exit 1: openai.BadRequestError: Error code: 400"
    )


def test_a_profile_verdict_is_set_beside_the_harness_verdict() -> None:
    from conformance.clients.report import build_index, set_profile_verdict
    from conformance.clients.results import ClientResult, FlowResult, HarnessResult
    from conformance.suite.targets import flag_target

    result = HarnessResult(flag_target(base_url="http://h/v1", model="m", name="h"))
    client = ClientResult("codex", "Codex CLI")
    client.flows.append(FlowResult("codex", "greeting", "", 4, 10.0, outcome="fail", reason="x"))
    result.clients.append(client)
    index = build_index([result])
    assert index["targets"]["h"]["clients"]["codex"]["profile"] is None
    set_profile_verdict(index, "h", "codex", "pass")
    entry = index["targets"]["h"]["clients"]["codex"]
    assert (entry["harness"], entry["profile"], entry["agrees"]) == ("fail", "pass", False)
    set_profile_verdict(index, "h", "codex", "fail")
    assert index["targets"]["h"]["clients"]["codex"]["agrees"] is True
    with pytest.raises(ValueError):
        set_profile_verdict(index, "h", "codex", "maybe")
