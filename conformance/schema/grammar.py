"""The judge's reader of custom-tool grammars: LLGuidance's Lark and regex dialects.

OpenAI enforces a ``custom`` tool's ``format: {type: "grammar", syntax: "lark" | "regex",
definition}`` ([OAPI] ``CustomGrammarFormatParam``) with LLGuidance (its function-calling guide,
"Context-free grammars"; docs/custom-tools.md), so the language a grammar defines is the one
LLGuidance reads, not Python's ``lark`` / ``re``: LLGuidance's Lark has ``{M,N}`` repetition,
inline ``%json`` and a greedy lexer, and no lookarounds or priorities; its regexes are Rust
``regex`` syntax (``\\p{L}`` yes, lookarounds and back-references no).

The judge reads grammars with the library PyPI ``llguidance`` itself — the library, not the
judged side's module over it (DESIGN.md: the judge shares no code with what it judges). A text is
in a grammar's language when LLGuidance's byte-level matcher takes every byte of its UTF-8
encoding and then accepts the end:

- :func:`read_grammar` compiles a grammar (cached by its text) or says why LLGuidance cannot;
- :meth:`JudgeGrammar.outside` says why a text is outside the language ("" when it is inside),
  or raises :class:`NotJudged` when the judge cannot say: a text over :data:`MAX_INPUT_BYTES`,
  or LLGuidance stopping on one of its own limits rather than on the grammar.

Bounded: a text of n bytes costs one pass of the matcher over it (about 1 µs a byte on the
recorded ``apply_patch`` grammar), and LLGuidance's parser limits bound each byte's work.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import llguidance

__all__ = ["MAX_INPUT_BYTES", "JudgeGrammar", "NotJudged", "read_grammar"]

# Input longer than this is not judged against its grammar (what a pass over it would cost).
MAX_INPUT_BYTES = 1 << 20
_CACHED = 128
_SHOWN = 32  # bytes shown either side of the place a grammar stops a text
# LLGuidance's byte tokenizer: token b is byte b (0-255), then special tokens (EOS among them).
_BYTES = llguidance.LLTokenizer("byte")
# How LLGuidance says a byte is outside the grammar (any other stop is one of its limits).
_REFUSED = "doesn't satisfy the grammar"


class NotJudged(Exception):
    """The judge cannot tell whether the text is in the language (the reason is the message)."""


@dataclass(frozen=True, slots=True, eq=False)
class JudgeGrammar:
    """A grammar LLGuidance compiled, as the judge reads it."""

    syntax: str
    definition: str
    _start: llguidance.LLMatcher  # the matcher before any byte; copied for each text

    def outside(self, text: str) -> str:
        """Why ``text`` is not in the grammar's language; "" when it is."""
        data = list(text.encode("utf-8", "surrogatepass"))
        if len(data) > MAX_INPUT_BYTES:
            raise NotJudged(f"input of {len(data)} bytes, over the {MAX_INPUT_BYTES} judged")
        matcher = self._start.deep_copy()
        taken = matcher.validate_tokens(data)
        if taken < len(data):
            matcher.consume_tokens(data[:taken])
            if matcher.is_stopped():  # the language's text ended there; more follows
                return (
                    f"the {self.syntax} grammar ends after byte {taken} "
                    f"(after {_shown(data[max(0, taken - _SHOWN) : taken])}, "
                    f"{len(data) - taken} more)"
                )
            matcher.consume_token(data[taken])
            reason = matcher.get_error()
            if _REFUSED not in reason:
                raise NotJudged(f"LLGuidance stopped at byte {taken}: {_first_line(reason)}")
            return (
                f"the {self.syntax} grammar refuses byte {taken} "
                f"(after {_shown(data[max(0, taken - _SHOWN) : taken])}, "
                f"at {_shown(data[taken : taken + _SHOWN])})"
            )
        matcher.consume_tokens(data)
        if matcher.is_error():
            raise NotJudged(f"LLGuidance stopped: {_first_line(matcher.get_error())}")
        if not matcher.is_accepting():
            return (
                f"the {self.syntax} grammar wants more after its last byte "
                f"(it ends {_shown(data[-_SHOWN:])})"
            )
        return ""


_cache: OrderedDict[tuple[str, str], JudgeGrammar | str] = OrderedDict()
_lock = threading.Lock()


def read_grammar(syntax: str, definition: str) -> JudgeGrammar | str:
    """``definition`` compiled as LLGuidance reads ``syntax`` (``lark`` or ``regex``), or the
    reason it cannot be (LLGuidance's first line of it)."""
    key = (syntax, definition)
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    found = _compile(syntax, definition)
    with _lock:
        _cache[key] = found
        if len(_cache) > _CACHED:
            _cache.popitem(last=False)
    return found


def _compile(syntax: str, definition: str) -> JudgeGrammar | str:
    if syntax not in ("lark", "regex"):
        return f"no grammar syntax {syntax!r} (lark or regex)"
    grammar = llguidance.grammar_from(syntax, definition)  # type: ignore[arg-type]
    matcher = llguidance.LLMatcher(_BYTES, grammar, log_level=0)
    if matcher.is_error():
        return _reason(matcher.get_error())
    return JudgeGrammar(syntax, definition, matcher)


def _reason(error: str) -> str:
    """LLGuidance's reason on one line: its lines up to the echo of the grammar's source."""
    kept = []
    for line in error.splitlines():
        if line.lstrip()[:1].isdigit() and " | " in line:
            break  # "   1 | start: /(?=a)a+/": the source echo and its caret follow
        if line.strip():
            kept.append(line.strip())
    text = " ".join(kept) or error.strip()
    return text[:400]


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]


def _shown(data: list[int]) -> str:
    return repr(bytes(data).decode("utf-8", "replace"))
