from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mock_server.tokenizer import (
    _LONG_TEXT,
    _TOKEN,
    count_request_tokens,
    count_tokens,
    tokenize,
    tool_text,
)
from reference_impl.engine import FunctionTool, GenerationRequest, Message


def test_documented_examples() -> None:
    assert tokenize("Hello, world.") == ["Hello", ",", " world", "."]
    assert tokenize('{"a":1}') == ["{", '"', "a", '"', ":", "1", "}"]
    assert tokenize("  trailing  ") == ["  trailing", "  "]
    assert tokenize("") == []


@given(st.text())
def test_tokens_join_back_to_the_text(text: str) -> None:
    tokens = tokenize(text)
    assert "".join(tokens) == text
    assert count_tokens(text) == len(tokens)
    assert all(tokens)


# Long texts are tokenized piece by piece, cut after ". " (with a cache): the same tokens as the
# rule applied to the whole text, whatever the text.
_SENTENCY = st.text(
    alphabet=st.sampled_from(list("ab9_ .,\n\t\x1c\u00a0é'\"{}:")), min_size=_LONG_TEXT
)


@given(st.one_of(_SENTENCY, st.text(min_size=_LONG_TEXT)))
def test_long_texts_tokenize_as_a_whole(text: str) -> None:
    assert tokenize(text) == _TOKEN.findall(text)
    assert tokenize(text) == _TOKEN.findall(text)  # again, from the cache


def test_request_formula() -> None:
    tool = FunctionTool("f", {"type": "object"}, "Do f.")
    request = GenerationRequest(
        model="m",
        messages=[
            Message("system", "Be brief."),  # 3 + 3
            Message("user", "Hi there", images=("https://x/y.png",)),  # 3 + 2 + 85
            Message(
                "assistant", "", tool_calls=({"call_id": "c", "name": "f", "arguments": "{}"},)
            ),
            Message("tool", "ok", tool_call_id="c"),  # 3 + 1
        ],
        tools=[tool],
    )
    assert tool_text(tool) == '{"description":"Do f.","name":"f","parameters":{"type":"object"}}'
    tool_tokens = count_tokens(tool_text(tool))
    # priming 3; messages (3+3) + (3+2+85) + (3+1+2) + (3+1); tools
    assert count_request_tokens(request) == 3 + 6 + 90 + 6 + 4 + tool_tokens
