"""Text in the language of a custom tool's grammar ([OAPI] ``CustomGrammarFormatParam``).

A ``custom`` tool may constrain its input with a grammar, ``syntax`` ``"regex"`` or ``"lark"``;
the mock's call to it must carry input the grammar accepts. Both syntaxes are parsed by maintained
libraries, not by this module: a regex by Python's ``re`` (the check) and ``rstr`` (the random
walk over its parse tree), a Lark grammar by ``lark`` itself (its compiled rules and terminals are
walked; each terminal's regex goes through ``rstr``). Every generated text is checked against the
grammar before it is returned (``re.fullmatch`` / ``Lark.parse``); a draw that fails the check
(``rstr`` ignores lookarounds, adjacent Lark tokens can lex differently) is drawn again, up to
:data:`ATTEMPTS` times, then :class:`GrammarError`.

Deterministic: the same grammar and RNG state give the same text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

import rstr
from lark import Lark
from lark.exceptions import LarkError
from lark.grammar import NonTerminal, Terminal

__all__ = ["ATTEMPTS", "GrammarError", "accepts", "generate"]

ATTEMPTS = 64
# Rule expansions deeper than this take the way out of the recursion that is shortest.
_DEPTH = 12
_MAX_LEN = 4096
# An unbounded repeat (`*`, `+`, `{n,}`) draws at most this many more than its minimum.
_REPEAT_EXTRA = 8


class _Xeger(rstr.Rstr):
    """rstr's generator with short repeats (rstr draws up to 100 for `*` and `+`) and plain
    spaces for `\\s` (rstr's whitespace alphabet includes form feeds and vertical tabs)."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng, whitespace=" ")

    def _handle_repeat(self, start_range: int, end_range: int, value: Any) -> str:
        return str(
            super()._handle_repeat(start_range, min(end_range, start_range + _REPEAT_EXTRA), value)
        )


class GrammarError(ValueError):
    """The grammar could not be parsed, or no text it accepts was found."""


def generate(syntax: str, definition: str, rng: random.Random) -> str:
    """A text ``definition`` (a grammar in ``syntax``) accepts, drawn with ``rng``."""
    if syntax == "regex":
        return _regex_text(definition, rng)
    if syntax == "lark":
        return _LarkWalker.of(definition).text(rng)
    raise GrammarError(f"unknown grammar syntax {syntax!r}")


def accepts(syntax: str, definition: str, text: str) -> bool:
    """Whether ``text`` is in the language of the grammar."""
    if syntax == "regex":
        return _compiled(definition).fullmatch(text) is not None
    return _LarkWalker.of(definition).accepts(text)


@lru_cache(maxsize=128)
def _compiled(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as error:
        raise GrammarError(f"invalid regex: {error}") from error


def _regex_text(pattern: str, rng: random.Random) -> str:
    compiled = _compiled(pattern)
    gen = _Xeger(rng)
    for _ in range(ATTEMPTS):
        try:
            text = str(gen.xeger(pattern))
        except (ValueError, KeyError, IndexError, TypeError, re.error) as error:
            raise GrammarError(f"cannot generate text for the regex: {error}") from error
        if len(text) <= _MAX_LEN and compiled.fullmatch(text) is not None:
            return text
    raise GrammarError(f"no text matching the regex found in {ATTEMPTS} draws")


class _LarkWalker:
    """A random walk over a Lark grammar's compiled rules (EBNF already expanded by Lark)."""

    _cache: ClassVar[dict[str, _LarkWalker]] = {}

    def __init__(self, definition: str) -> None:
        try:
            self.parser = Lark(definition, start="start", parser="earley")
        except (LarkError, re.error, RecursionError) as error:
            raise GrammarError(f"invalid lark grammar: {error}") from error
        self.rules: dict[str, list[Sequence[Any]]] = {}
        for rule in self.parser.rules:
            self.rules.setdefault(rule.origin.name, []).append(rule.expansion)
        self.terminals = {t.name: t.pattern for t in self.parser.terminals}
        self.height = self._heights()
        if "start" not in self.height:
            raise GrammarError("the lark grammar's start rule derives no finite text")

    @classmethod
    def of(cls, definition: str) -> _LarkWalker:
        walker = cls._cache.get(definition)
        if walker is None:
            walker = cls(definition)
            if len(cls._cache) >= 64:
                cls._cache.clear()
            cls._cache[definition] = walker
        return walker

    def _heights(self) -> dict[str, int]:
        """The least derivation depth of each rule that derives a finite text."""
        height: dict[str, int] = {}
        changed = True
        while changed:
            changed = False
            for name, expansions in self.rules.items():
                for expansion in expansions:
                    depth = 0
                    for sym in expansion:
                        if isinstance(sym, NonTerminal):
                            if sym.name not in height:
                                break
                            depth = max(depth, height[sym.name])
                    else:
                        if height.get(name, depth + 2) > depth + 1:
                            height[name] = depth + 1
                            changed = True
        return height

    def _expansion_height(self, expansion: Sequence[Any]) -> int:
        return max(
            (self.height.get(s.name, 1 << 30) for s in expansion if isinstance(s, NonTerminal)),
            default=0,
        )

    def accepts(self, text: str) -> bool:
        try:
            self.parser.parse(text)
        except (LarkError, RecursionError):
            return False
        return True

    def text(self, rng: random.Random) -> str:
        gen = _Xeger(rng)
        for _ in range(ATTEMPTS):
            out: list[str] = []
            self._walk("start", rng, gen, out, 0)
            text = "".join(out)
            if len(text) <= _MAX_LEN and self.accepts(text):
                return text
        raise GrammarError(f"no text the lark grammar accepts found in {ATTEMPTS} draws")

    def _walk(self, name: str, rng: random.Random, gen: _Xeger, out: list[str], depth: int) -> None:
        expansions = [e for e in self.rules[name] if self._expansion_height(e) < 1 << 30]
        if depth >= _DEPTH:
            least = min(self._expansion_height(e) for e in expansions)
            expansions = [e for e in expansions if self._expansion_height(e) == least]
        expansion = expansions[rng.randrange(len(expansions))]
        for sym in expansion:
            if isinstance(sym, NonTerminal):
                self._walk(sym.name, rng, gen, out, depth + 1)
            elif isinstance(sym, Terminal):
                out.append(self._terminal(sym.name, gen))

    def _terminal(self, name: str, gen: _Xeger) -> str:
        pattern = self.terminals[name]
        if pattern.type == "str":
            return str(pattern.value)
        regex = pattern.to_regexp()
        try:
            return str(gen.xeger(regex))
        except (ValueError, KeyError, IndexError, TypeError, re.error) as error:
            raise GrammarError(f"cannot generate text for terminal {name}: {error}") from error
