"""What the mock understands of a user's words (sans-I/O): a few simple, deterministic requests.

The mock is no language model, but a few things about a request have one right reading, and the
``auto`` scenario (:func:`mock_server.scenarios.auto`) acts on them, read from the user's **own
words** in the **last user turn**.

**Own words** (:func:`own_words`): a user-role message minus the context a client injects into
user-role messages — Codex puts its environment and the project's ``AGENTS.md`` there, each as a
fragment it marks with a start and an end marker (codex-rs ``core/src/context`` /
``fragment.rs``: ``is_contextual_user_fragment``). Removed: a block ``# AGENTS.md instructions
for …`` up to ``</INSTRUCTIONS>``, and any block that opens a line with a lower-case tag and
closes it at the end of a line (``<environment_context>…</environment_context>``,
``<user_instructions>``, ``<skill>``, ``<user_shell_command>``, ``<turn_aborted>``,
``<plugins>``, …). A user message that is nothing else is not a user turn. The instructions,
system and developer messages are never the user's words.

``reply(messages)`` — the whole answer to a simple request, or ``None`` when the turn makes none
of these (the live suite asks them: ``conformance/suite/cases/test_chain.py``):

- **recall**: a question (a ``?``, or a turn opening with what / which / who / where / when /
  tell me / remind me / do you remember …) about a fact an earlier user turn stated answers with
  it. A fact is ``my|our|the|this|that|your <key> is|was|are|:|=|'s <value>`` ("My name is Ada.",
  "The password is swordfish.", "Remember this code word: PELICAN-123.", "my favourite colour is
  dark blue"), or ``I'm|I am|call me <Name>``, which is the user's name. The value is a quoted
  text, else up to four words (not past ``and`` / ``but`` / …, nor past punctuation). The fact
  answered is the one whose key shares the most content words with the question (the latest on a
  tie): "what's my name?" → "Your name is Ada."; "What was the code word I asked you to
  remember?" → "The code word was PELICAN-123." (the question's tense); just the value when the
  question says "only" or "just".
- **a literal reply**: a sentence "Reply only with OK.", "Respond with the word yes.", "Repeat
  the word TANGERINE.", "Say exactly: hello." → that one word.

``asks(messages)`` — how many independent things the last user turn asks for, which is how many
function calls a parallel-calling model issues at once: the names in its longest list of
capitalised names joined by ``and`` (and commas; a name may follow one lowercase word) — "the
weather in Paris and in Tokyo" → 2, "Oslo, Rome and Lima" → 3 — else 1; at most
:data:`MAX_ASKS`. Lowercase word lists ("this and that") are not counted: they are too common in
ordinary prose (and in the benchmarks' synthetic prompts) to mean "do it for each".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reference_impl.engine import Message

__all__ = [
    "MAX_ASKS",
    "STOP_WORDS",
    "asks",
    "content_words",
    "last_user_words",
    "own_words",
    "places",
    "reply",
    "user_turns",
]  # fmt: skip

MAX_ASKS = 4

# Words that say nothing about what is asked: function words, and the verbs and nouns every
# request or tool description uses ("get", "use", "tool", "current").
_STOP_WORDS = """a about above after again all also am an and any are as ask asked at be been before being
    below between both but by can could did do does doing done don down during each either else
    every few for from further had has have having he her here hers him his how i if in into is
    it its itself just let me more most much must my myself no nor not now of off on once one only
    or other our ours out over own please same say said she should so some such than that the
    their theirs them then there these they this those through to too two under until up us very
    was we were what when where which while who whom why will with would you your yours yourself
    get gets got set use uses used using call calls called tool tools function functions make
    makes want wants need needs needed give given tell show let lets help thing things way like
    current currently given specified optional default value values result results return
    returns returned returning provide provides provided request requested user input id ids
    info information data item items type kind new existing available etc thanks thank hi hey
    ok okay yes sure right now today know remember think"""
STOP_WORDS = frozenset(_STOP_WORDS.split())

_LINE_TAGGED = re.compile(r"(?ms)^[ \t]*<(?P<tag>[a-z][a-z0-9_ -]{0,40})>.*?</(?P=tag)>[ \t]*$")
_AGENTS_MD = re.compile(r"(?is)#\s*AGENTS\.md instructions for\b.*?(?:</INSTRUCTIONS>|\Z)")
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_VALUE = r"[\"'“‘]?(?P<value>\w(?:[\w.-]*\w)?)[\"'”’]?"
_LITERAL = re.compile(
    r"(?:please\s+)?(?:(?:reply|respond|answer)\s+(?:only\s+)?with\s+(?:only\s+)?"
    r"|(?:repeat|say)\s+(?:only\s+)?(?:after me:?\s+|exactly:?\s+)?)"
    rf"(?:the\s+word\s+)?{_VALUE}(?:\s+only)?\s*[.!]?",
    re.IGNORECASE,
)
# A fact: "<det> <key> <verb> <value>". Case matters only in the value (a name is capitalised).
_TOKEN = r"[\w$€£@#+/:-]*\w(?:[.'’-]\w+)*"
_STOPPER = r"(?i:and|but|or|so|then|because|which|who|that|if|when|while)\b"
_FACT = re.compile(
    r"(?i:\b(?P<det>my|our|the|this|that|your)\s+)"
    r"(?P<key>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3}?)"
    r"(?:\s*[:=]|\s+(?i:is|was|are|were)\b|['’]s\b)\s*"
    rf"(?:[\"“‘'](?P<quoted>[^\"”’']{{1,80}})[\"”’']|(?P<value>{_TOKEN}(?:[ \t]+(?!{_STOPPER}){_TOKEN}){{0,3}}))"
)
_NAME_FACT = re.compile(
    r"(?:\b(?i:call me|i am|i['’]m|my name['’]s)\s+)(?P<value>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)"
)
_QUESTION_START = re.compile(
    r"^\s*(?:what|what's|whats|which|who|whose|where|when|how|tell me|remind me|recall|do you|"
    r"did i|can you tell|could you tell)\b",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:was|were|did|had)\b", re.IGNORECASE)
_ONLY = re.compile(r"\b(?:only|just)\b", re.IGNORECASE)
# A capitalised name, of several words with a connector or two: "Paris", "São Paulo", "New York".
# A capitalised word, or one after an abbreviation that opens place names ("St. Petersburg",
# "Mt. Vernon"); words in a name may be joined by the lower-case particles of place names
# ("Rio de Janeiro", "Dar es Salaam", "Frankfurt am Main").
_NAME_WORD = r"(?:(?:St|Ste|Mt|Ft|Pt)\.\s+)?[^\W\d_a-z][\w'’-]*"
_PARTICLE = r"de|da|do|del|di|la|le|los|las|of|upon|am|es|el|al|du|des|der|den|van|von|sur"
_NAME = rf"(?<![\w'’-]){_NAME_WORD}(?:(?:\s+(?:{_PARTICLE})){{0,2}}\s+{_NAME_WORD})*"
_NAMES = re.compile(_NAME)
_SEPARATOR = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
_SEPARATORS = re.compile(_SEPARATOR)
_NAME_LIST = re.compile(rf"{_NAME}(?:{_SEPARATOR}(?:[a-z]+\s+)?{_NAME})+")
_AND = re.compile(r"\band\b")
_PREPOSITION = re.compile(r"\b(?:in|at|for|from|to|near|around|of|about|and)\s+$", re.IGNORECASE)
_DETERMINER = {"my": "Your", "your": "My", "our": "Your"}
_DETERMINER_WORDS = frozenset({"my", "our", "the", "this", "that", "your"})  # _FACT's det


def own_words(text: str) -> str:
    """``text`` without the context blocks a client injects (module docstring), stripped."""
    if "<" not in text and "AGENTS" not in text.upper():
        return text.strip()
    return _LINE_TAGGED.sub("", _AGENTS_MD.sub("", text)).strip()


def user_turns(messages: Sequence[Message]) -> list[str]:
    """The user's own words, one entry per user turn that has any, in order."""
    turns = []
    for message in messages:
        if message.role == "user":
            words = own_words(message.content)
            if words:
                turns.append(words)
    return turns


def last_user_words(messages: Sequence[Message]) -> str | None:
    """The user's own words in the last user turn (``None`` when there is none)."""
    for message in reversed(messages):
        if message.role == "user":
            words = own_words(message.content)
            if words:
                return words
    return None


def content_words(text: str) -> list[str]:
    """The lower-cased words of ``text`` that are not :data:`STOP_WORDS`, in order."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def reply(messages: Sequence[Message]) -> str | None:
    """The exact answer to a simple request in the last user turn (see the module docstring)."""
    turns = user_turns(messages)
    if not turns:
        return None
    text = turns[-1]
    recalled = _recall(text, turns[:-1])
    if recalled is not None:
        return recalled
    for sentence in _SENTENCE_END.split(text):
        literal = _LITERAL.fullmatch(sentence.strip())
        if literal is not None:
            return literal["value"]
    return None


def _facts(text: str) -> list[tuple[str, str, str]]:
    """``(determiner, key, value)`` of each fact ``text`` states, in order."""
    found: list[tuple[int, tuple[str, str, str]]] = []
    for m in _FACT.finditer(text):
        value = (m["quoted"] or m["value"] or "").strip()
        det, key = m["det"].lower(), m["key"].strip()
        # "Remember that my dog is called Rex": "that" opened the clause; "my" is the determiner
        while (head := key.split(None, 1))[0].lower() in _DETERMINER_WORDS and len(head) > 1:
            det, key = head[0].lower(), head[1]
        if value:
            found.append((m.start(), (det, key, value)))
    for m in _NAME_FACT.finditer(text):
        found.append((m.start(), ("my", "name", m["value"])))
    return [fact for _, fact in sorted(found, key=lambda f: f[0])]


def _recall(question: str, earlier: Sequence[str]) -> str | None:
    if "?" not in question and _QUESTION_START.search(question) is None:
        return None
    asked = set(content_words(question))
    best: tuple[int, tuple[str, str, str]] | None = None
    for turn in earlier:
        for fact in _facts(turn):
            shared = len(asked & set(content_words(fact[1])))
            if shared and (best is None or shared >= best[0]):
                best = (shared, fact)
    if best is None:
        return None
    det, key, value = best[1]
    if _ONLY.search(question):
        return value
    verb = "was" if _PAST.search(question) else "is"
    return f"{_DETERMINER.get(det, 'The')} {key[:1].lower() + key[1:]} {verb} {value}."


def asks(messages: Sequence[Message]) -> int:
    """How many independent requests the last user turn makes (1 to :data:`MAX_ASKS`)."""
    text = last_user_words(messages)
    if text is None:
        return 1
    lists = [m[0] for m in _NAME_LIST.finditer(text) if _AND.search(m[0])]
    return min(MAX_ASKS, max((len(_SEPARATORS.findall(names)) + 1 for names in lists), default=1))


def places(text: str) -> list[str]:
    """Place names in ``text``: capitalised names after a preposition or in a list joined by
    "and" ("in São Paulo", "for New York", "Oslo, Rome and Lima"), else any capitalised name that does not open a sentence, in
    order; a name of stop words only ("What", "I") is none."""
    lists = [m.span() for m in _NAME_LIST.finditer(text) if _AND.search(m[0])]
    after: list[str] = []
    inside: list[str] = []
    for m in _NAMES.finditer(text):
        name = m[0]
        if STOP_WORDS.issuperset(w.lower() for w in name.split()):
            continue
        before = text[: m.start()]
        if _PREPOSITION.search(before) or any(lo <= m.start() < hi for lo, hi in lists):
            after.append(name)
        elif before.strip() and before.rstrip()[-1] not in ".!?:\n":
            inside.append(name)
    return after or inside
