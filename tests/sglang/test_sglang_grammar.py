"""The reference constrains a custom tool's input as OpenAI does, on real CPU SGLang: SGLang
started with ``--grammar-backend llguidance`` (OpenAI's grammar engine), the reference in front
of its ``/generate`` (docs/custom-tools.md, "The reference with SGLang").

A server of its own (the session's native servers run SGLang's default backend, as the vendor
matrix judges them), on the scripted tool-calling model. Every answer is checked with the judge's
own grammar reader (conformance/schema/grammar.py). A scripted model loops inside an open-ended grammar
(Codex's ``apply_patch``) until the token cap cuts it: the input is then a prefix of the
language and the response ``incomplete`` — why the reference does not claim ``custom-tools`` on
these models.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("sglang", reason="SGLang is not installed (tox -e sglang installs it)")

import httpx2
from sglang_support import (
    BIN,
    CPU_FLAGS,
    PARSERS,
    START_TIMEOUT,
    Process,
    cpu_env,
    free_port,
    spawn,
)

from conformance.schema.grammar import JudgeGrammar, read_grammar
from conformance.suite.grammars import APPLY_PATCH, MATH_EXP


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    from scripted_models import build

    root = tmp_path_factory.mktemp("llguidance")
    model = build("tools", root / "model")
    env = cpu_env()
    port = free_port()
    argv = [
        sys.executable, "-m", "sglang.launch_server", "--model-path", str(model),
        "--host", "127.0.0.1", "--port", str(port), *CPU_FLAGS, *PARSERS["tools"],
        "--grammar-backend", "llguidance",
    ]  # fmt: skip
    processes: list[Process] = []
    try:
        native = spawn(
            "sglang-llguidance", argv, root / "native.log", f"http://127.0.0.1:{port}", env
        )
        processes.append(native)
        native.wait_ready("/health", time.monotonic() + START_TIMEOUT)
        ref_port = free_port()
        ref = spawn(
            "reference-llguidance",
            [str(BIN / "responses-reference"), "--sglang-url", native.base_url,
             "--port", str(ref_port)],
            root / "reference.log", f"http://127.0.0.1:{ref_port}", env,
        )  # fmt: skip
        processes.append(ref)
        ref.wait_ready("/v1/models", time.monotonic() + 120)
        yield f"{ref.base_url}/v1", str(model)
    finally:
        for process in reversed(processes):
            process.stop()


def _forced(
    reference: tuple[str, str], name: str, syntax: str, definition: str, **fields: Any
) -> httpx2.Response:
    base, model = reference
    tool = {"type": "custom", "name": name,
            "format": {"type": "grammar", "syntax": syntax, "definition": definition}}  # fmt: skip
    body = {"model": model, "input": "Call the tool.", "tools": [tool],
            "tool_choice": {"type": "custom", "name": name}, **fields}  # fmt: skip
    return httpx2.post(f"{base}/responses", json=body, timeout=300)


@pytest.mark.parametrize(
    ("syntax", "definition"),
    [("lark", MATH_EXP), ("lark", 'start: "ab"{2,3}'), ("regex", r"\p{L}+"),
     ("regex", r"[A-Z][a-z]{1,19}, [1-7] days"),
     ("lark", 'start: CITY ", " DAYS " days"\nCITY: /[A-Z][a-z]{1,19}/\nDAYS: /[1-7]/')],
    ids=["math_exp", "repetition", "letters", "forecast-regex", "forecast-lark"],
)  # fmt: skip
def test_the_input_is_in_the_grammar(
    reference: tuple[str, str], syntax: str, definition: str
) -> None:
    answer = _forced(reference, "tool", syntax, definition, max_output_tokens=200)
    assert answer.status_code == 200, answer.text
    response = answer.json()
    assert response["status"] == "completed", response
    (call,) = response["output"]
    assert call["type"] == "custom_tool_call" and call["name"] == "tool"
    grammar = read_grammar(syntax, definition)
    assert isinstance(grammar, JudgeGrammar)
    assert grammar.outside(call["input"]) == "", call["input"]


def test_a_lookahead_is_refused(reference: tuple[str, str]) -> None:
    answer = _forced(reference, "runner", "regex", "(?=a)a+")
    assert answer.status_code == 400, answer.text
    assert "look-around" in answer.json()["error"]["message"]


def test_apply_patch_is_a_prefix_of_its_language_when_cut(reference: tuple[str, str]) -> None:
    answer = _forced(reference, "apply_patch", "lark", APPLY_PATCH, max_output_tokens=64)
    assert answer.status_code == 200, answer.text
    response = answer.json()
    assert response["status"] == "incomplete"
    (call,) = response["output"]
    assert call["input"].startswith("*** Begin Patch\n")
    grammar = read_grammar("lark", APPLY_PATCH)
    assert isinstance(grammar, JudgeGrammar)
    assert "wants more" in grammar.outside(call["input"])  # a prefix, not a refusal
