"""Custom-tool grammars as OpenAI reads them: LLGuidance's Lark and regex dialects.

A ``custom`` tool's ``format: {type: "grammar", syntax: "lark" | "regex", definition}`` ([OAPI]
``CustomGrammarFormatParam``) is enforced by OpenAI with LLGuidance (OpenAI's function-calling
guide, "Context-free grammars"; docs/custom-tools.md). So this module reads grammars with
LLGuidance itself (PyPI ``llguidance``), not with Python's ``lark`` / ``re``, whose dialects differ
both ways (LLGuidance's Lark has ``{M,N}`` repetition and inline ``%json`` but no lookarounds or
priorities; its regexes are Rust ``regex`` syntax: ``\\p{L}`` yes, lookarounds and back-references
no). What LLGuidance cannot compile is refused with its own reason; everything it compiles is
accepted.

A compiled grammar is an :class:`llguidance.LLMatcher` over LLGuidance's byte-level tokenizer
(one token per byte, plus EOS): :meth:`Grammar.problem` checks a text byte by byte, and the mock
walks the same matcher's token mask to write input (:mod:`mock_server.grammar_gen`). Compiled
grammars are cached by their text (:func:`compile_grammar`), so a request's validation and its
generation compile a grammar once between them, and a repeated grammar not at all.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

import llguidance

__all__ = [
    "BYTE_TOKENIZER",
    "CACHE_SIZE",
    "Grammar",
    "GrammarError",
    "Syntax",
    "compile_grammar",
]

Syntax = Literal["lark", "regex"]
# Compiled grammars (and refusals) kept, least recently used dropped first.
CACHE_SIZE = 256
# LLGuidance's byte tokenizer: tokens 0-255 are the bytes, then specials; EOS ends the input.
BYTE_TOKENIZER = llguidance.LLTokenizer("byte")
# The source echo ("   1 | start: /x/") and caret lines LLGuidance appends to a reason.
_ECHO = re.compile(r"^\s*(?:\d+ \|.*|\^+)\s*$")
_REASON_CHARS = 600
_SNIPPET = 40


class GrammarError(ValueError):
    """LLGuidance cannot compile the grammar; the message is its reason, on one line."""


@dataclass(frozen=True, slots=True, eq=False)
class Grammar:
    """A grammar LLGuidance compiled. ``matcher()`` gives a fresh matcher at the start of the
    text (a copy of the compiled one: nothing is compiled again)."""

    syntax: Syntax
    definition: str
    _compiled: llguidance.LLMatcher

    def matcher(self) -> llguidance.LLMatcher:
        return self._compiled.deep_copy()

    def problem(self, text: str) -> str:
        """Why ``text`` is not in the grammar's language ("" when it is): the byte where
        LLGuidance stops it, or that it ends too early."""
        data = text.encode()
        matcher = self.matcher()
        taken = matcher.try_consume_tokens(list(data))
        if taken < len(data):
            before = data[max(0, taken - _SNIPPET) : taken].decode(errors="replace")
            after = data[taken : taken + _SNIPPET].decode(errors="replace")
            return (
                f"the {self.syntax} grammar refuses it at byte {taken} "
                f"(after {before!r}, at {after!r})"
            )
        if not matcher.is_accepting():
            tail = data[-_SNIPPET:].decode(errors="replace")
            return f"the {self.syntax} grammar needs more after its end (…{tail!r})"
        return ""

    def accepts(self, text: str) -> bool:
        return not self.problem(text)


_cache: OrderedDict[tuple[str, str], Grammar | str] = OrderedDict()
_lock = threading.Lock()


def compile_grammar(syntax: str, definition: str) -> Grammar:
    """``definition`` compiled as LLGuidance reads ``syntax`` (``"lark"`` or ``"regex"``);
    :class:`GrammarError` with LLGuidance's reason when it cannot be. Cached by text."""
    key = (syntax, definition)
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
    if found is None:
        found = _compile(syntax, definition)
        with _lock:
            _cache[key] = found
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    if isinstance(found, str):
        raise GrammarError(found)
    return found


def _compile(syntax: str, definition: str) -> Grammar | str:
    kind: Syntax
    if syntax == "lark":
        kind, spec = "lark", llguidance.LLMatcher.grammar_from_lark(definition)
    elif syntax == "regex":
        kind, spec = "regex", llguidance.LLMatcher.grammar_from_regex(definition)
    else:
        return f"unknown grammar syntax {syntax!r}"
    matcher = llguidance.LLMatcher(BYTE_TOKENIZER, spec, log_level=0)
    if matcher.is_error():
        return _one_line(matcher.get_error())
    return Grammar(kind, definition, matcher)


def _one_line(reason: str) -> str:
    """LLGuidance's multi-line reason without its source echo, on one line."""
    lines = [line.strip() for line in reason.splitlines() if line.strip()]
    text = " ".join(line for line in lines if not _ECHO.match(line)) or reason.strip()
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"
