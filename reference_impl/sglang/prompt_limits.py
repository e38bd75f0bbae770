"""What a prompt must be before SGLang sees it, answered with OpenAI's 400s instead of SGLang's own
text in a 500: an input at all, a chat template that renders it, and a length SGLang will take.

SGLang's limits on one request (sglang/srt/managers/scheduler.py, tokenizer_manager.py): the
scheduler aborts an input of ``max_req_input_len`` tokens or more, where ``max_req_input_len =
min(context_len - 1, token pool size - 1) - 5``; the tokenizer manager refuses
``input + max_new_tokens >= context_len``. So an input may have at most ``context_len - 7`` tokens
(:data:`INPUT_RESERVE`), and the output at most ``context_len - 1 - input``. A token pool smaller
than the context is only known to SGLang: its refusal is recognised by its words
(:func:`classified`) and answered the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..engine import EngineError, Message

__all__ = [
    "CONTEXT_MESSAGE",
    "INPUT_RESERVE",
    "check_has_input",
    "classified",
    "output_room",
    "template_error",
]

INPUT_RESERVE = 7
"""Tokens of the context an input may not use: SGLang's ``- 1`` and ``- 5``, and one to spare for
``>=`` (module docstring)."""

# OpenAI's message for this code (provisional: our corpus has no recording of it).
CONTEXT_MESSAGE = (
    "Your input exceeds the context window of this model. Please adjust your input and try again."
)

# SGLang's refusals of a too-long request, across versions (the texts of the module docstring's
# sources): "The input (N tokens) is longer than the model's context length (M tokens).",
# "Requested token count exceeds the model's maximum context length of M tokens. …",
# "Input length (N tokens) exceeds the maximum allowed length (M tokens). …".
_SGLANG_TOO_LONG = re.compile(
    r"longer than the model's context length|exceeds the model's maximum context length|"
    r"exceeds the maximum allowed length",
    re.IGNORECASE,
)


def output_room(context_length: int, input_tokens: int) -> int:
    """The most output tokens SGLang allows after ``input_tokens``; :class:`EngineError`
    ``context_length_exceeded`` (a 400) when SGLang would refuse the input itself."""
    if input_tokens > context_length - INPUT_RESERVE:
        raise EngineError(CONTEXT_MESSAGE, code="context_length_exceeded")
    return context_length - 1 - input_tokens


def check_has_input(messages: Sequence[Message]) -> None:
    """A prompt of only instructions (``input`` missing, ``null`` or ``[]``, with no conversation
    or previous response) gives the model nothing to answer: a 400, not a chat template's
    failure in a 500."""
    if not any(m.role not in ("system", "developer") for m in messages):
        raise EngineError(
            "Missing required parameter: 'input' (it is missing, null or empty, and no "
            "conversation or previous response supplies any).",
            code="invalid_prompt",
        )


def template_error(error: Exception) -> EngineError:
    """A chat template that refuses the request's turns (a Jinja ``raise_exception``: roles out
    of order, a tool turn without its call) refuses the request: a 400 with its first line."""
    text = (str(error) or type(error).__name__).splitlines()[0][:300]
    return EngineError(
        f"The model's chat template cannot render this input: {text}", code="invalid_prompt"
    )


def classified(error: EngineError) -> EngineError:
    """``error`` as OpenAI's ``context_length_exceeded`` when it is SGLang refusing a too-long
    request, else unchanged."""
    if error.code != "context_length_exceeded" and _SGLANG_TOO_LONG.search(error.message):
        return EngineError(CONTEXT_MESSAGE, code="context_length_exceeded")
    return error
