"""The reference's SGLang engine constrains output as OpenAI does (reference_impl/sglang/engine.py):
a forced custom tool's grammar goes to SGLang's llguidance backend (a regex as ``regex``, a Lark
grammar as ``ebnf`` prefixed ``%llguidance {}``) and the whole answer is the tool's input; a
grammar on another backend is refused. Without SGLang: a stand-in tokenizer and backend (the real
backend: tests/sglang/test_sglang_grammar.py, under ``tox -e sglang``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from conformance.schema.grammar import JudgeGrammar, read_grammar
from conformance.suite.grammars import MATH_EXP
from reference_impl.engine import (
    CustomTool,
    EngineError,
    GenerationRequest,
    Message,
    ToolCallDelta,
)
from reference_impl.service.app import create_app
from reference_impl.sglang.engine import PromptBuilder, SGLangConfig, SGLangEngine
from reference_impl.sglang.output import OutputParser

pytestmark = pytest.mark.anyio


class _Tokenizer:
    """Enough of a Hugging Face tokenizer: the template lists the tools it was given."""

    def apply_chat_template(self, messages: Any, tools: Any = None, **_: Any) -> str:
        names = [t["function"]["name"] for t in tools or ()]
        return f"tools={names} " + " ".join(str(m["content"]) for m in messages)

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [ord(c) % 256 for c in text]


def _builder(backend: str | None = "llguidance") -> PromptBuilder:
    config = SGLangConfig(model_path="m", context_length=4096, grammar_backend=backend)
    return PromptBuilder(config, tokenizer=_Tokenizer())


def _request(tool: CustomTool, **fields: Any) -> GenerationRequest:
    return GenerationRequest(
        model="m",
        messages=[Message("user", "Add four and four.")],
        custom_tools=[tool, CustomTool("other")],
        tool_choice={"type": "custom", "name": tool.name},
        **fields,
    )


MATH = CustomTool("math_exp", "Creates valid mathematical expressions", "lark", MATH_EXP)
LETTERS = CustomTool("spell", None, "regex", r"\p{L}+")


def test_a_forced_lark_grammar_goes_to_llguidance_as_ebnf() -> None:
    prompt = _builder().build(_request(MATH))
    assert prompt.sampling_params["ebnf"] == "%llguidance {}\n" + MATH_EXP
    assert "regex" not in prompt.sampling_params and "json_schema" not in prompt.sampling_params
    assert prompt.custom == MATH and prompt.tools == []  # no tool-call parsing: text is input
    assert bytes(prompt.input_ids).decode().startswith("tools=['math_exp'] ")


def test_a_forced_regex_goes_as_regex_and_free_text_unconstrained() -> None:
    assert _builder().build(_request(LETTERS)).sampling_params["regex"] == r"\p{L}+"
    free = _builder().build(_request(CustomTool("note"))).sampling_params
    assert not {"regex", "ebnf", "json_schema", "structural_tag"} & set(free)


@pytest.mark.parametrize("backend", ["xgrammar", None])
def test_a_grammar_on_another_backend_is_refused(backend: str | None) -> None:
    with pytest.raises(EngineError, match="--grammar-backend llguidance") as caught:
        _builder(backend).build(_request(MATH))
    assert caught.value.code == "invalid_request"
    _builder(backend).build(_request(CustomTool("note")))  # free text needs no grammar


def test_json_schema_and_unforced_custom_tools_as_before() -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    request = GenerationRequest(
        model="m",
        messages=[Message("user", "hi")],
        custom_tools=[MATH],
        text_format={"type": "json_schema", "name": "x", "schema": schema, "strict": True},
    )
    prompt = _builder().build(request)
    assert prompt.custom is None and prompt.sampling_params["json_schema"] == '{"type": "object", "properties": {}, "additionalProperties": false}'  # fmt: skip


def test_the_answer_is_the_custom_tools_input() -> None:
    parser = OutputParser(None, None, [], custom=MATH)
    chunks = parser.feed("4 +") + parser.feed(" 4") + parser.finish()
    assert all(isinstance(c, ToolCallDelta) and c.kind == "custom" for c in chunks)
    first = chunks[0]
    assert isinstance(first, ToolCallDelta) and first.name == "math_exp" and first.call_id
    assert "".join(c.arguments for c in chunks if isinstance(c, ToolCallDelta)) == "4 + 4"
    assert parser.calls == {0: {"name": "math_exp", "arguments": "4 + 4"}}


class _Backend:
    """SGLang's /generate as the engine reads it: text pieces, then a finish reason."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces
        self.params: dict[str, Any] = {}

    async def stream(
        self, input_ids: list[int], sampling_params: dict[str, Any], rid: str,
        require_reasoning: bool = False,
    ) -> AsyncIterator[dict[str, Any]]:  # fmt: skip
        self.params = sampling_params
        for i, piece in enumerate(self.pieces):
            done = i == len(self.pieces) - 1
            meta = {"prompt_tokens": 9, "completion_tokens": i + 1}
            if done:
                meta["finish_reason"] = {"type": "stop"}
            yield {"text": piece, "meta_info": meta}

    async def abort(self, rid: str) -> None:
        pass

    async def close(self) -> None:
        pass


@pytest.mark.parametrize("stream", [False, True])
async def test_the_reference_answers_a_custom_call_in_the_grammar(stream: bool) -> None:
    backend = _Backend(["4", " +", " 4"])
    config = SGLangConfig(model_path="m", context_length=4096, grammar_backend="llguidance")
    engine = SGLangEngine(backend, config, tokenizer=_Tokenizer())
    tool = {"type": "custom", "name": "math_exp",
            "format": {"type": "grammar", "syntax": "lark", "definition": MATH_EXP}}  # fmt: skip
    body = {"model": "m", "input": "Add four and four.", "tools": [tool],
            "tool_choice": {"type": "custom", "name": "math_exp"}, "stream": stream}  # fmt: skip
    transport = httpx2.ASGITransport(create_app(engine))
    async with httpx2.AsyncClient(transport=transport, base_url="http://test") as client:
        answer = await client.post("/v1/responses", json=body)
    assert answer.status_code == 200, answer.text
    assert backend.params["ebnf"].startswith("%llguidance {}\nstart: expr")
    if stream:
        assert "response.custom_tool_call_input.delta" in answer.text
        final = [ln for ln in answer.text.splitlines() if '"response.completed"' in ln][-1]
        response = json.loads(final.removeprefix("data: "))["response"]
    else:
        response = answer.json()
    (call,) = response["output"]
    assert call["type"] == "custom_tool_call" and call["name"] == "math_exp"
    grammar = read_grammar("lark", MATH_EXP)
    assert isinstance(grammar, JudgeGrammar) and grammar.outside(call["input"]) == ""
