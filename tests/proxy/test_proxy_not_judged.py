"""The proxy's verdicts come from answers, never from refusals: an upstream that refuses the key,
or a model it does not serve, is said once and the proxy exits 2 — no outcome derived."""

from __future__ import annotations

from pathlib import Path

import httpx2
from proxy_support import proxy
from refusing_servers import refusing_model, wrong_key_everywhere
from suite_support import serve

from mock_server.app import MockSettings
from mock_server.testing import LoopbackMock

BODY = {"model": "mock", "input": "Say hi."}


def _no_outcome(run: object) -> None:
    outcomes = set(run.outcomes().values())  # type: ignore[attr-defined]
    assert outcomes <= {"skip", "not_exercised"}, outcomes


def test_upstream_refusing_the_key(tmp_path: Path) -> None:
    with (
        serve(wrong_key_everywhere()) as url,
        proxy(url, report_dir=tmp_path) as run,
        httpx2.Client(timeout=30) as http,
    ):
        assert http.post(run.base_url + "/responses", json=BODY).status_code == 401
        assert http.get(run.base_url + "/responses/resp_1").status_code == 401
        http.post(run.base_url + "/responses", json={**BODY, "stream": True})
    assert run.code == 2, run.stdout + run.stderr
    assert "-- could not judge 3 of 3 exchange(s): authentication refused: HTTP 401" in run.stdout
    _no_outcome(run)
    assert run.index["proxy"]["not_judged_exchanges"] == 3
    assert all(r["not_judged"] for r in run.index["proxy"]["recent"])


def test_upstream_not_serving_the_model(tmp_path: Path) -> None:
    with (
        serve(refusing_model("vllm")) as url,
        proxy(url, report_dir=tmp_path) as run,
        httpx2.Client(timeout=30) as http,
    ):
        answer = http.post(run.base_url + "/responses", json={**BODY, "model": "nope"})
        assert answer.status_code == 404
    assert run.code == 2, run.stdout + run.stderr
    assert "the upstream does not serve the model" in run.stdout
    _no_outcome(run)


def test_a_404_in_openai_shape_stays_a_verdict(tmp_path: Path) -> None:
    """Near miss: an unknown response id's 404 is an answer, judged (and conformant: exit 0)."""
    with (
        LoopbackMock(MockSettings()) as mock,
        proxy(mock.base_url, report_dir=tmp_path) as run,
        httpx2.Client(timeout=30) as http,
    ):
        assert http.get(run.base_url + "/responses/resp_unknown").status_code == 404
    assert run.code == 0, run.stdout + run.stderr
    assert run.outcomes()["error.shape"] == "pass"
