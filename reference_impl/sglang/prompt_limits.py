"""What a prompt must be before SGLang sees it, answered with OpenAI's 400s instead of SGLang's own
text in a 500: an input at all, a chat template that renders it, and a length SGLang will take.

SGLang's limits on one request (sglang/srt/managers/scheduler.py, tokenizer_manager.py): the
scheduler aborts an input of ``max_req_input_len`` tokens or more, where ``max_req_input_len =
min(context_len - 1, token pool size - 1) - 5``; the tokenizer manager refuses
``input + max_new_tokens >= context_len``. So an input may have at most ``context_len - 7`` tokens
(:data:`INPUT_RESERVE`), and the output at most ``context_len - 1 - input``. A token pool smaller
than the context is only known to SGLang: its refusal is recognised by its words
(:func:`classified`) and answered the same way.

Tokenizing is the costly part of a prompt: a 4 MiB input took a scripted model's fast tokenizer
4.1 s and 900 MiB (the chat template 15 ms), only for the input to be refused as too long, and the
memory was not given back (issue #39). :func:`refuse_before_tokenizing` refuses what is certainly
too long from the rendered text alone: by its length over the tokenizer's longest token, then by
tokenizing a prefix of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..engine import EngineError, Message

__all__ = [
    "CONTEXT_MESSAGE",
    "INPUT_RESERVE",
    "check_has_input",
    "classified",
    "longest_token",
    "output_room",
    "refuse_before_tokenizing",
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


LENGTH_SLACK = 4
"""How much a tokenizer's normalizer may shorten a text before it is split (Unicode composition
joins at most three code points into one; NFC and NFKC do no more), with room to spare."""

PROBE_CHARS_PER_TOKEN = 6
"""The prefix tokenized to find a text too long: this many characters per token the context
holds. Prose and code take 3-5 characters a token in the large vocabularies; a prefix that long
already has more tokens than the context for almost any text that has, and costs a fraction of the
whole when the text is long."""

PROBE_MARGIN = 64
"""Tokens a prefix must exceed the limit by before the whole is refused on its count: the tokens
of the prefix and of the whole differ only around the cut (made before a whitespace, where
pre-tokenizers split), and by far less than this."""

_PROBE_SPACE = 1024  # characters searched back from the probe's end for a whitespace to cut before


def longest_token(tokenizer: object) -> int | None:
    """The most characters one token of ``tokenizer`` covers: its longest vocabulary entry
    (byte-level BPE spells each byte as one character, SentencePiece a space as one ``▁``, so an
    entry is never shorter than the text it stands for); ``None`` when it has no vocabulary to
    read."""
    get_vocab = getattr(tokenizer, "get_vocab", None)
    if get_vocab is None:
        return None
    try:
        vocab = get_vocab()
        return max((len(token) for token in vocab), default=0) or None
    except Exception:
        return None


def refuse_before_tokenizing(
    text: str, limit: int, longest: int | None, encode: Callable[[str], Sequence[int]]
) -> None:
    """:class:`EngineError` ``context_length_exceeded`` when ``text`` certainly has more than
    ``limit`` tokens, found without tokenizing it whole (module docstring): it is longer than
    ``limit`` of the longest tokens, ``LENGTH_SLACK`` times over; or a prefix of
    ``PROBE_CHARS_PER_TOKEN`` characters a token, cut before a whitespace, already has more than
    ``limit + PROBE_MARGIN``. Anything else is left to the full count."""
    if longest is not None and len(text) > limit * longest * LENGTH_SLACK:
        raise EngineError(CONTEXT_MESSAGE, code="context_length_exceeded")
    probe = PROBE_CHARS_PER_TOKEN * (limit + PROBE_MARGIN)
    if len(text) <= 2 * probe:  # the probe would cost most of what it saves
        return
    cut = _space_before(text, probe)
    if cut is not None and len(encode(text[:cut])) > limit + PROBE_MARGIN:
        raise EngineError(CONTEXT_MESSAGE, code="context_length_exceeded")


def _space_before(text: str, end: int) -> int | None:
    for i in range(end, max(end - _PROBE_SPACE, 0), -1):
        if text[i].isspace() and not text[i - 1].isspace():
            return i
    return None


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
