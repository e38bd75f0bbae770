"""A plain Locust user, as one writes it from Locust's docs: ``HttpUser`` + ``requests`` streaming,
TTFT and every inter-token gap fired as their own request entries, percentiles from Locust's CSV.

    locust -f benchmarks/perf/peers/plain_locustfile.py --headless --host http://127.0.0.1:8000 \
        -u 16 -r 16 -t 8s --csv out/plain --only-summary

Environment: PEERS_PROMPTS (a JSONL file of {"prompt": ...}), PEERS_MODEL, PEERS_MAX_OUTPUT_TOKENS
(default 0: no max_output_tokens, like every other tool in the table).
"""

from __future__ import annotations

import itertools
import json
import os
import time

from locust import HttpUser, task

with open(os.environ.get("PEERS_PROMPTS", "/dev/null"), encoding="utf-8") as _fh:
    _PROMPTS = [json.loads(line)["prompt"] for line in _fh if line.strip()] or ["Say hello."]
_NEXT = itertools.cycle(_PROMPTS)
_MAX = int(os.environ.get("PEERS_MAX_OUTPUT_TOKENS", "0"))  # 0: none sent, as the other tools
_MODEL = os.environ.get("PEERS_MODEL", "mock")


class PlainResponsesUser(HttpUser):
    @task
    def stream(self) -> None:
        body: dict[str, object] = {"model": _MODEL, "input": next(_NEXT), "stream": True}
        if _MAX:
            body["max_output_tokens"] = _MAX
        fire = self.environment.events.request.fire
        start = time.perf_counter()
        last = None
        with self.client.post("/v1/responses", json=body, stream=True, catch_response=True) as r:
            for line in r.iter_lines():
                if not line.startswith(b"data:"):
                    continue
                event = json.loads(line[5:])
                if event.get("type") != "response.output_text.delta":
                    continue
                now = time.perf_counter()
                if last is None:
                    fire(
                        request_type="SSE",
                        name="TTFT",
                        response_time=(now - start) * 1000,
                        response_length=0,
                        exception=None,
                        context={},
                    )
                else:
                    fire(
                        request_type="SSE",
                        name="ITL",
                        response_time=(now - last) * 1000,
                        response_length=0,
                        exception=None,
                        context={},
                    )
                last = now
            r.success()
