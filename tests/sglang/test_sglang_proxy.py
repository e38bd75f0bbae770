"""The validating proxy in front of the reference server on SGLang (docs/proxy.md): a client's
session through ``responses-conformance proxy`` — create, stream, retrieve, input_items, a
``previous_response_id`` chain, delete, an unknown id — reaches the reference unchanged, every
exchange is judged and passes, and the reports are written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("sglang", reason="SGLang is not installed (tox -e sglang installs it)")

import httpx2
from sglang_support import Stack

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "proxy"))
from proxy_support import proxy


def _events(sse: bytes) -> list[dict[str, object]]:
    out = []
    for block in sse.decode().split("\n\n"):
        data = "\n".join(ln[5:].strip() for ln in block.splitlines() if ln.startswith("data:"))
        if data and data != "[DONE]":
            out.append(json.loads(data))
    return out


def test_proxy_in_front_of_the_reference_on_sglang(stack: Stack, tmp_path: Path) -> None:
    model = str(stack.models["plain"])
    upstream = f"{stack.inprocess.base_url}/v1"  # Stack URLs are roots; the proxy takes a base URL
    with (
        proxy(upstream, "--profile", "core,stateful", report_dir=tmp_path) as run,
        httpx2.Client(base_url=run.base_url, timeout=300) as http,
    ):
        first = http.post("/responses", json={"model": model, "input": "Say hi."})
        assert first.status_code == 200, first.text
        rid = first.json()["id"]
        streamed = http.post(
            "/responses",
            json={"model": model, "input": "Tell me a story.", "stream": True,
                  "max_output_tokens": 24},
        )  # fmt: skip
        assert streamed.headers["content-type"].startswith("text/event-stream")
        events = _events(streamed.content)
        assert events[-1]["type"] in ("response.completed", "response.incomplete")
        sid = events[0]["response"]["id"]  # type: ignore[index]
        assert http.get(f"/responses/{sid}").json()["id"] == sid
        assert http.get(f"/responses/{sid}/input_items").json()["object"] == "list"
        chained = http.post(
            "/responses", json={"model": model, "input": "Again.", "previous_response_id": rid}
        )
        assert chained.status_code == 200, chained.text
        assert http.delete(f"/responses/{rid}").status_code == 200
        assert http.get("/responses/resp_does_not_exist").status_code == 404
    assert run.code == 0, run.stdout[-4000:] + run.stderr
    lines = run.exchange_lines()
    assert len(lines) == run.index["proxy"]["exchanges"] == 7
    assert all(ln.startswith("PASS ") for ln in lines), lines
    outcomes = run.outcomes()
    assert outcomes["stream.sequence.contiguous"] == "pass"
    assert outcomes["error.shape"] == "pass"
    for name in ("index.json", "junit.xml", "report.html"):
        assert (tmp_path / name).is_file()
