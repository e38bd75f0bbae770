"""A run that could not judge says so: a wrong key, a static file server, a model the server does
not serve — exit 2, one line, no outcome derived from them; and retries that hide nothing — a
server losing one chain in three is caught with ``--repeat``, every attempt in the reports."""

from __future__ import annotations

import html
import http.server
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from asgi_body import drain, json_answer
from refusing_servers import UNKNOWN_MODEL, refusing_model, wrong_key_everywhere
from suite_support import Receive, Scope, Send, mock_app, run_suite, serve
from threaded_http import serving

from conformance.suite.judgeable import model_unknown, refusal, unjudgeable_create
from mock_server.middleware import replayed


@contextmanager
def static_file_server(root: Path) -> Iterator[str]:
    """Python's own static file server on loopback (501 with an HTML page to a POST)."""
    (root / "index.html").write_text("<!doctype html><title>files</title><p>hello</p>")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serving(Quiet) as url:
        yield url + "/v1"


def _assert_not_judged(run: Any, words: str) -> None:
    assert run.code == 2, run.stdout[-2000:] + run.stderr[-2000:]
    lines = [line for line in run.stderr.splitlines() if words in line]
    assert len(lines) == 1, run.stderr
    entry = next(iter(run.index["targets"].values()))
    assert entry["status"] == "not_judged" and words in entry["reason"]
    assert entry["exit_code"] == 2 and entry["cases"] == []
    # no outcome derived from the refusals: every check skipped, none passed or failed
    assert set(run.outcomes().values()) == {"skip"}
    assert entry["summary"]["exercised"] == 0
    junit = (run.report_dir / "junit.xml").read_text()
    assert 'type="not_judged"' in junit and words in junit
    assert words in html.unescape((run.report_dir / "report.html").read_text())


_ARGS = ("--profile", "core,stateful", "--timeout", "10")


def test_wrong_key_is_not_judged(tmp_path: Path) -> None:
    with serve(wrong_key_everywhere()) as url:
        run = run_suite("--base-url", url, "--model", "mock", *_ARGS, report_dir=tmp_path)
    _assert_not_judged(run, "authentication refused: HTTP 401")
    assert "FAILED" not in run.stdout


def test_static_file_server_is_not_judged(tmp_path: Path) -> None:
    www = tmp_path / "www"
    www.mkdir()
    with static_file_server(www) as url:
        run = run_suite("--base-url", url, "--model", "mock", *_ARGS, report_dir=tmp_path / "r")
    _assert_not_judged(run, "not a Responses server")


@pytest.mark.parametrize("vendor", ["openai", "vllm", "litellm"])
def test_unknown_model_is_not_judged(vendor: str, tmp_path: Path) -> None:
    with serve(refusing_model(vendor)) as url:
        run = run_suite("--base-url", url, "--model", "nope", *_ARGS, report_dir=tmp_path)
    _assert_not_judged(run, "does not serve the model 'nope'")


@pytest.mark.parametrize("vendor", sorted(UNKNOWN_MODEL))
def test_unknown_model_shapes(vendor: str) -> None:
    status, body = UNKNOWN_MODEL[vendor]
    assert model_unknown(status, body)
    assert unjudgeable_create(status, "application/json", body, "", model="nope", what="POST")


def test_verdicts_stay_verdicts() -> None:
    """Near misses: a 404 in OpenAI's shape for an unknown previous response or response id, a
    400 for bad input, a 500 — answers to judge, never "could not judge"."""
    lost = {"error": {"message": "Previous response with id 'resp_1' not found.",
                      "type": "invalid_request_error", "param": "previous_response_id",
                      "code": "previous_response_not_found"}}  # fmt: skip
    unknown = {
        "error": {
            "message": "No response found with id 'resp_1'.",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    bad = {"error": {"message": "Invalid type for 'input'.", "type": "invalid_request_error",
                     "param": "input", "code": "invalid_type"}}  # fmt: skip
    for status, body in ((400, lost), (404, lost), (404, unknown), (400, bad), (500, bad)):
        assert refusal(status, "application/json", body, "") is None
        assert model_unknown(status, body) is None
    assert unjudgeable_create(400, "application/json", lost, "", model="m", what="POST") is None
    assert unjudgeable_create(500, "application/json", bad, "", model="m", what="POST") is None
    assert unjudgeable_create(200, "application/json", {"object": "response"}, "", model="m",
                              what="POST") is None  # fmt: skip
    assert refusal(403, "text/plain", None, "Forbidden")
    assert refusal(200, "text/html", None, "<!doctype html><title>Sign in</title>")
    # a gateway's 502 page in front of a server that crashed is a server error: judged
    assert refusal(502, "text/html", None, "<html><body>Bad Gateway</body></html>") is None


def test_mid_run_refusal_is_not_judged(tmp_path: Path) -> None:
    """A key good for create but refused on retrieve (a gateway's per-route permission): the
    cases that met the 403 are not judged — not passed on the 4xx — and the run exits 2."""
    inner = mock_app()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and "/responses/" in scope["path"]:
            await drain(receive)
            await json_answer(send, 403, {"error": {"message": "route not allowed for this key",
                                              "type": "permission_error", "param": None,
                                              "code": None}})  # fmt: skip
            return
        await inner(scope, receive, send)

    with serve(app) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile", "stateful",
                        "-k", "unknown_response_id", "--timeout", "10",
                        report_dir=tmp_path)  # fmt: skip
    assert run.code == 2, run.stdout[-3000:]
    entry = next(iter(run.index["targets"].values()))
    cases = {c["id"]: c for c in entry["cases"]}
    for case_id in (
        "errors/unknown_response_id[retrieve]",
        "errors/unknown_response_id[input_items]",
    ):
        assert cases[case_id]["not_judged"].startswith("authentication refused: HTTP 403")
        assert cases[case_id]["outcome"] == "skipped"
    # retrieve's 403 was not counted as live.errors.not_found_404 (DELETE and cancel were judged)
    assert (
        "errors/unknown_response_id[retrieve]"
        not in entry["checks"]["live.errors.not_found_404"]["cases"]
    )
    assert "COULD NOT JUDGE 2 case(s)" in run.stdout


class _ChainLoser:
    """The mock behind a gateway that loses every third chained request, as a server whose
    store lags its streams would: `previous_response_not_found` in OpenAI's shape."""

    def __init__(self) -> None:
        self.inner = mock_app()
        self.chained = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.inner(scope, receive, send)
            return
        body = await drain(receive)
        try:
            previous = json.loads(body).get("previous_response_id")
        except (ValueError, AttributeError):
            previous = None
        if isinstance(previous, str) and not previous.endswith("unknown"):
            self.chained += 1
            if self.chained % 3 == 0:
                await json_answer(send, 404, {"error": {
                    "message": f"Previous response with id '{previous}' not found.",
                    "type": "invalid_request_error", "param": "previous_response_id",
                    "code": "previous_response_not_found"}})  # fmt: skip
                return
        await self.inner(scope, replayed(body, receive), send)


def test_repeat_catches_a_chain_lost_one_time_in_three(tmp_path: Path) -> None:
    args = ("--model", "mock", "--profile", "stateful", "-k", "chain_after_stream",
            "--timeout", "10")  # fmt: skip
    with serve(_ChainLoser()) as url:
        once = run_suite("--base-url", url, *args, report_dir=tmp_path / "once")
    # one run makes two chained requests: the third, lost, is never sent — it passes
    assert once.code == 0, once.stdout[-3000:]
    with serve(_ChainLoser()) as url:
        run = run_suite("--base-url", url, *args, "--repeat", "3", report_dir=tmp_path / "rep")
    assert run.code == 1, run.stdout[-3000:]
    assert "live.http.status_ok" in run.failing()
    entry = next(iter(run.index["targets"].values()))
    case = next(c for c in entry["cases"] if c["id"] == "chain/chain_after_stream")
    assert case["runs"] == 3 and case["outcome"] == "failed"
    results = [(a["run"], a["result"]) for a in case["attempt_log"]]
    assert results == [(1, "passed"), (2, "aborted"), (3, "passed")], results
    assert case["passed_attempt"] == 1
    assert "3 runs, 1 failed" in run.stdout
    junit = (run.report_dir / "junit.xml").read_text() if run.report_dir else ""
    assert "run 2, attempt 1: aborted" in junit
    page = html.unescape((tmp_path / "rep" / "report.html").read_text())
    assert "run 2, attempt 1: aborted" in page


def test_a_server_error_in_a_retried_case_fails(tmp_path: Path) -> None:
    """A case that may retry (the tool round trip: 3 attempts) meets a 500 on a side request —
    the explicit-history count it uses to judge the chain's usage: a server error, never the
    model's doing, fails live.http.status_ok however the attempts end (it was silent before)."""
    inner = mock_app()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await inner(scope, receive, send)
            return
        body = await drain(receive)
        parsed = json.loads(body) if body else {}
        explicit = isinstance(parsed.get("input"), list) and "previous_response_id" not in parsed
        if explicit and scope["path"].endswith("/responses"):
            await json_answer(send, 500, {"error": {"message": "upstream overloaded",
                                                    "type": "server_error", "param": None,
                                                    "code": None}})  # fmt: skip
            return
        await inner(scope, replayed(body, receive), send)

    with serve(app) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile", "stateful,tools",
                        "-k", "chain_tool_round_trip", "--timeout", "10",
                        report_dir=tmp_path)  # fmt: skip
    assert run.code == 1, run.stdout[-3000:]
    assert run.failing() == {"live.http.status_ok"}, run.failing()
    entry = next(iter(run.index["targets"].values()))
    case = entry["cases"][0]
    assert case["attempt_log"][0]["violations"] == ["live.http.status_ok"]


def test_a_json_null_answer_is_judged_not_taken_for_another_server() -> None:
    # open-responses-server answers a non-streamed create with 200 and the JSON value null: a
    # wrong answer to judge (its cases fail), not "not a Responses server" (vendor matrix, ors-*).
    assert unjudgeable_create(200, "application/json", None, "", model="m", what="POST",
                              is_json=True) is None  # fmt: skip
    # near miss: a 2xx body that did not parse is still no Responses server
    assert unjudgeable_create(200, "text/plain", None, "hello", model="m", what="POST") is not None
