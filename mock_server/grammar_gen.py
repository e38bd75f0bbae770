"""Text in the language of a custom tool's grammar ([OAPI] ``CustomGrammarFormatParam``), written
the way a grammar-constrained model writes it.

A ``custom`` tool may constrain its input with a grammar, ``syntax`` ``"regex"`` or ``"lark"``,
which OpenAI enforces with LLGuidance; the protocol layer compiles it with LLGuidance too
(:mod:`reference_impl.request.grammar`). The mock then samples as a constrained model does: byte by
byte over LLGuidance's byte tokenizer, each byte drawn from the token mask the grammar allows at
that point — so whatever grammar LLGuidance compiles, the text is in its language (LLGuidance
decides what may come; nothing here parses the grammar). The draw (:func:`generate`):

- bytes the grammar forces are taken as they come;
- otherwise printable ASCII is preferred (lower-case letters most, then spaces, digits and
  capitals, punctuation; after a word of 3 to 9 letters a space), other bytes only where the
  grammar allows nothing printable; a line break may come once a line has 16 bytes and comes
  where it may once a line is long (:data:`LINE`);
- the walk stops at the first point the grammar accepts once a length drawn per call (between
  :data:`MIN_TARGET` and :data:`MAX_TARGET` bytes) is reached, or where the grammar allows no
  more. Past that length and not yet accepted, a best-first search finds a short way to an
  accepting point: its steps are a byte per class of bytes and next mask, and the literal runs
  the grammar's text spells out (``*** End Patch``: a hint, tried against the mask like any
  byte); a step costs the bits of choice it leaves (forced bytes are free), so closing brackets
  and ending lines come before opening new ones. Where no way is found near, the walk goes
  straight on along the bytes the grammar names (a count the mask does not show: ``(.*a){30}``);
  where that fails too (a dead end the mask cannot see: LLGuidance lexes greedily, so
  ``/[0-9]+/ /[0-9]+/`` never ends), it takes back some of what it wrote, more each time, and
  searches again.

Bounds: at most :data:`MAX_BYTES` bytes, :data:`MAX_EXPANSIONS` search states per call, and
:data:`DEADLINE_S` seconds (a guard on a slow machine; the state count binds first); past them,
:class:`GrammarError` (e.g. a grammar with no finite text: ``start: a`` / ``a: "x" a``).
Deterministic: the same grammar and RNG state give the same text.
"""

from __future__ import annotations

import heapq
import math
import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import llguidance

from reference_impl.request.grammar import GrammarError, compile_grammar

__all__ = [
    "DEADLINE_S",
    "LINE",
    "MAX_BYTES",
    "MAX_EXPANSIONS",
    "MAX_TARGET",
    "MIN_TARGET",
    "GrammarError",
    "accepts",
    "generate",
    "problem",
]

MIN_TARGET = 12
MAX_TARGET = 72
MAX_BYTES = 4096
MAX_EXPANSIONS = 2000
DEADLINE_S = 2.0
LINE = 64
_SHORT_LINE = 16  # a line break may come from here on (as likely as one punctuation mark)
# Search states looked at before one closing search gives up (then the walk dives, then takes
# bytes back), and steps of one dive.
_SEARCH_STATES = 160
_DIVE_STEPS = 256
_NEWLINE = 0x0A
_EOS_BYTES = 256  # tokens from here on are LLGuidance's specials (EOS among them)
_ALLOWED = 200  # compute_logit_bias(): 200 for an allowed token, 0 otherwise


def _weight(byte: int) -> int:
    """How much a constrained "model" likes ``byte`` (printable ASCII first)."""
    char = chr(byte)
    if "a" <= char <= "z":
        return 10
    if char == " ":
        return 4
    if char.isdigit() or "A" <= char <= "Z":
        return 2
    if 0x21 <= byte <= 0x7E:
        return 1
    return 0


_WEIGHTS = tuple(_weight(b) for b in range(256))


def generate(
    syntax: str, definition: str, rng: random.Random, *, length: tuple[int, int] | None = None
) -> str:
    """A text ``definition`` (a grammar in ``syntax``, LLGuidance's dialect) accepts, drawn with
    ``rng``; :class:`GrammarError` when LLGuidance cannot compile it or no text is found within
    the bounds (module docstring). ``length``: the range the walk's target length is drawn
    from, in bytes, instead of :data:`MIN_TARGET` to :data:`MAX_TARGET` (a JSON Schema string's
    ``minLength`` / ``maxLength``; the walk still stops only where the grammar accepts)."""
    grammar = compile_grammar(syntax, definition)
    walk = _Walk(grammar.matcher(), rng, _hints(syntax, definition), length)
    data = walk.run()
    try:
        return data.decode()
    except UnicodeDecodeError as error:  # a grammar over raw bytes: not a tool's text input
        raise GrammarError(f"the grammar's text is not UTF-8: {error}") from None


def problem(syntax: str, definition: str, text: str) -> str:
    """Why ``text`` is not in the grammar's language ("" when it is)."""
    return compile_grammar(syntax, definition).problem(text)


def accepts(syntax: str, definition: str, text: str) -> bool:
    """Whether ``text`` is in the language of the grammar."""
    return not problem(syntax, definition, text)


class _Walk:
    """One draw: a matcher moved byte by byte, with what it wrote."""

    def __init__(
        self,
        matcher: llguidance.LLMatcher,
        rng: random.Random,
        hints: _Hints,
        length: tuple[int, int] | None = None,
    ) -> None:
        self.matcher = matcher
        self.hints = hints
        self.rng = rng
        self.out = bytearray()
        self.target = rng.randint(*(length or (MIN_TARGET, MAX_TARGET)))
        self.expansions = 0
        self.word = rng.randint(3, 9)  # letters and digits in a row before other bytes gain
        self.deadline = time.monotonic() + DEADLINE_S

    def run(self) -> bytes:
        m = self.matcher
        while True:
            self._take(m.compute_ff_bytes())
            allowed = _allowed(m)
            accepting = m.is_accepting()
            if accepting and (not allowed or len(self.out) >= self.target):
                return bytes(self.out)
            if not allowed:
                reason = m.get_error() or "the grammar allows no byte here"
                raise GrammarError(f"the walk stopped after {len(self.out)} bytes: {reason}")
            if len(self.out) >= self.target:
                self._take(self._closing() or self._dive() or self._backtrack())
                return bytes(self.out)
            self._take(bytes((self._choose(allowed),)))

    def _take(self, data: bytes) -> None:
        if not data:
            return
        if len(self.out) + len(data) > MAX_BYTES:
            raise GrammarError(f"no text the grammar accepts within {MAX_BYTES} bytes")
        if time.monotonic() > self.deadline:
            raise GrammarError(f"no text the grammar accepts found in {DEADLINE_S:g} s")
        if not self.matcher.consume_tokens(list(data)):
            raise GrammarError(f"LLGuidance refused its own mask: {self.matcher.get_error()}")
        self.out += data

    def _word(self) -> int:
        """The length of the run of letters and digits the text ends with."""
        run = 0
        for byte in reversed(self.out):
            if not (byte < 0x80 and chr(byte).isalnum()):
                break
            run += 1
        return run

    def _line(self) -> int:
        return len(self.out) - (self.out.rfind(b"\n") + 1)

    def _choose(self, allowed: Sequence[int]) -> int:
        line = self._line()
        if _NEWLINE in allowed and line >= LINE:
            return _NEWLINE
        weights = [_WEIGHTS[b] for b in allowed]
        if self._word() >= self.word:
            # A long enough word: a space now, where one may come; letters and digits no more
            # likely than other printable bytes.
            weights = [
                40 if b == 0x20 else min(w, 1) for b, w in zip(allowed, weights, strict=True)
            ]
        if _NEWLINE in allowed:
            weights[allowed.index(_NEWLINE)] = 1 if line >= _SHORT_LINE else 0
        if not any(weights):
            # Nothing printable (a script outside ASCII, a UTF-8 sequence's continuation).
            return allowed[self.rng.randrange(len(allowed))]
        pick: int = self.rng.choices(allowed, weights)[0]
        if pick == 0x20 or not chr(pick).isalnum():
            self.word = self.rng.randint(3, 9)
        return pick

    def _dive(self) -> bytes | None:
        """The search found nothing near (a count the mask does not show, as in ``(.*a){30}``):
        go straight on, each step the way the grammar's text names (the longest, else the
        narrowest), up to
        :data:`_DIVE_STEPS` steps; None when that reaches no accepting point."""
        node = self.matcher.deep_copy()
        path = b""
        for _ in range(_DIVE_STEPS):
            if self.expansions >= MAX_EXPANSIONS or len(self.out) + len(path) > MAX_BYTES:
                return None
            self.expansions += 1
            ways = _children(node, self.hints, apart=True)
            if not ways:
                return None
            # Accepting first, then what the grammar names, the longest (a literal, forced
            # bytes: progress, where a single byte may go round a loop), the narrowest.
            way, _, accepting, _ = min(ways, key=lambda w: (not w[2], not w[3], -len(w[0]), w[1]))
            node.consume_tokens(list(way))
            path += way
            if accepting:
                return path
        return None

    def _backtrack(self) -> bytes:
        """No way to an accepting point from here (a dead end LLGuidance's mask cannot see,
        such as ``/[0-9]+/ /[0-9]+/`` with no separator): take back some of what was written,
        more each time, and search from there."""
        written = len(self.out)
        for keep in sorted(
            {max(0, written - 8), max(0, written - 32), written // 2, 0}, reverse=True
        ):
            if keep < len(self.out):
                self.matcher.rollback(len(self.out) - keep)
                del self.out[keep:]
            path = self._closing() or self._dive()
            if path is not None:
                return path
        raise GrammarError(
            f"no text the grammar accepts found within {MAX_EXPANSIONS} search states"
        )

    def _closing(self) -> bytes | None:
        """A short way from here to a point the grammar accepts: best-first over the ways on
        (:func:`_children`), the cost of a way the bits of choice it takes (a forced byte is
        free, a byte into a state with few choices cheap), within :data:`_SEARCH_STATES` states;
        None when not found."""
        base = self.matcher
        heap: list[tuple[float, int, bytes]] = [(0.0, 0, b"")]
        order = 0
        for _ in range(_SEARCH_STATES):
            if not heap or self.expansions >= MAX_EXPANSIONS:
                return None
            if time.monotonic() > self.deadline:
                raise GrammarError(f"no text the grammar accepts found in {DEADLINE_S:g} s")
            cost, _, path = heapq.heappop(heap)
            self.expansions += 1
            node = base.deep_copy()
            node.consume_tokens(list(path))
            for way, choices, accepting, _ in _children(node, self.hints):
                if accepting:
                    return path + way
                order += 1
                # One choice made, into a state with `choices` bytes to choose from: narrow
                # states (a closing bracket, a line's end) first, forced bytes free.
                heapq.heappush(heap, (cost + 1 + math.log2(choices + 1), order, path + way))
        return None


def _allowed(matcher: llguidance.LLMatcher) -> list[int]:
    bias = matcher.compute_logit_bias()
    return [b for b in range(_EOS_BYTES) if bias[b] == _ALLOWED]


Way = tuple[bytes, int, bool, bool]  # its bytes, the choices after them, accepts there, hinted


def _children(node: llguidance.LLMatcher, hints: _Hints, *, apart: bool = False) -> list[Way]:
    """The ways on from ``node``, each as (its bytes, how many bytes the grammar allows after
    them, whether it accepts there, whether the grammar's text names it): one per byte class
    (:func:`_byte_class`), bytes then forced and next state (the next mask and whether it
    accepts; reached by the most printable byte of the class leading there), and one per literal
    of the grammar that can come here (:func:`_hints`: a state the mask does not tell apart, such
    as the ``xy`` that ends ``/[a-z]+xy/``). ``apart``: each byte the grammar names is a way of
    its own. Accepting ways first."""
    seen: dict[tuple[int, bytes, bytes, bool], Way] = {}
    first: set[int] = set()
    for byte in sorted(_allowed(node), key=lambda b: (-_WEIGHTS[b], b)):
        kind = _CLASSES[byte]
        named = byte in hints.named
        # Of a class, the most printable byte and those the grammar's text names: a byte it
        # does not name leads where the first one does, for all a grammar can tell them apart.
        if kind not in first or named:
            first.add(kind)
            _probe(node, bytes((byte,)), -2 - byte if apart and named else kind, named, seen)
    for literal in hints.literals:
        _probe(node, literal, -1, True, seen)
    return sorted(seen.values(), key=lambda w: (not w[2], len(w[0]), w[1]))


def _probe(
    node: llguidance.LLMatcher,
    data: bytes,
    kind: int,
    hinted: bool,
    seen: dict[tuple[int, bytes, bytes, bool], Way],
) -> None:
    """Record in ``seen`` where ``data`` (then the bytes forced) leads from ``node``, which is
    left as it was; one way per kind (a byte class, a literal), bytes forced after it and next
    state."""
    taken = node.try_consume_tokens(list(data))
    if taken < len(data):
        node.rollback(taken)
        return
    forced = node.compute_ff_bytes()
    if forced:
        node.consume_tokens(list(forced))
    bias = node.compute_logit_bias()
    key = (kind, forced, bias, node.is_accepting())
    if key not in seen:
        choices = sum(1 for b in bias[:_EOS_BYTES] if b == _ALLOWED)
        seen[key] = (data + forced, choices, key[3], hinted)
    node.rollback(len(data) + len(forced))


def _byte_class(byte: int) -> int:
    """Bytes of one class that lead to the same next mask are one way in the closing search:
    lower-case letters, capitals, digits, printable punctuation and the space, bytes past ASCII,
    the other control bytes; the line break is a class of its own."""
    char = chr(byte)
    if "a" <= char <= "z":
        return 256
    if "A" <= char <= "Z":
        return 257
    if "0" <= char <= "9":
        return 258
    if 0x20 <= byte <= 0x7E:
        return 259
    if byte >= 0x80:
        return 260
    return byte if byte == _NEWLINE else 261


_CLASSES = tuple(_byte_class(b) for b in range(256))


# A regex's metacharacters and character classes, and a Lark grammar's quoted strings and
# regexes: what is left between them are the literal runs a grammar's text spells out.
_CLASS = re.compile(
    r"\\[pPdDwWsS](?:\{[^}]*\})?|\\.|\[(?:\\.|[^\]])*\]|\{\d+(?:,\d*)?\}|\(\?(?:[a-zA-Z-]*:|[a-zA-Z-]+\)|<?[!=]|P?<\w+>)"
)
_META = re.compile(r"[()|?*+.^$\n]")
_LARK_PART = re.compile(r'"((?:\\.|[^"\\\n])*)"i?|/((?:\\.|[^/\\\n])+)/[imsux]*')
_MAX_LITERALS = 48


@dataclass(frozen=True, slots=True)
class _Hints:
    """What the closing search reads from a grammar's text (never its meaning: LLGuidance's
    mask decides what may come): the bytes it names and the literal runs it spells out."""

    named: frozenset[int]
    literals: tuple[bytes, ...]


@lru_cache(maxsize=256)
def _hints(syntax: str, definition: str) -> _Hints:
    return _Hints(frozenset(definition.encode()), _literals(syntax, definition))


def _literals(syntax: str, definition: str) -> tuple[bytes, ...]:
    """The literal runs of at least two bytes a grammar's text spells out (``End Patch``,
    ``xy`` in ``/[a-z]+xy/``), for the closing search to try as one step."""
    regexes = [definition] if syntax == "regex" else []
    runs: dict[bytes, None] = {}
    if syntax == "lark":
        for quoted, regex in _LARK_PART.findall(definition):
            if quoted:
                runs[_unquote(quoted).encode()] = None
            else:
                regexes.append(regex)
    for regex in regexes:
        for run in _META.split(_CLASS.sub("\n", regex)):
            runs[run.encode()] = None
    return tuple(r for r in runs if 2 <= len(r) <= 64)[:_MAX_LITERALS]


def _unquote(text: str) -> str:
    """A Lark string literal's text (its escapes read as Python's, close enough for a hint)."""
    try:
        return str(text.encode("latin-1", "backslashreplace").decode("unicode_escape"))
    except UnicodeDecodeError:
        return text
