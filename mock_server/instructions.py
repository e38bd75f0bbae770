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
of these (the live suite asks them: ``conformance/sections/s4_3_previous_response.py``):

- **recall**: a question (a ``?``, or a turn opening with what / which / who / where / when /
  tell me / remind me / do you remember …) about a fact an earlier user turn stated answers with
  it. A fact is ``my|our|the|this|that|your <key> is|was|are|:|=|'s <value>`` ("My name is Ada.",
  "The password is swordfish.", "Remember this code word: PELICAN-123.", "my favourite colour is
  dark blue"), or ``I'm|I am|call me <Name>``, which is the user's name. The value is a quoted
  text, else up to four words (not past ``and`` / ``but`` / …, nor past punctuation). The fact
  answered is the one whose key shares the most content words with the question (the latest on a
  tie): "what's my name?" → "Your name is Ada."; "What was the code word I asked you to
  remember?" → "The code word was PELICAN-123." (the question's tense); just the value when the
  question says "only" or "just". Also a fact: ``a|my|the … <key> called|named <Value>`` ("I'm
  working on a project called Nebula." → "Your project is called Nebula."); "who am I" asks for
  the name; every determiner may open a fact ("Store this for later: the token is abc123."). A
  turn that opens with repeat / say / tell me / give me … asks too, after a literal reply
  ("Repeat the codeword."). No fact answering, the earlier sentence sharing the most (stemmed)
  content words with the question is told back, without "Remember (that)" / "Note:" … and with
  the persons turned ("I live in Lisbon." → "Where do I live?" → "You live in Lisbon.").
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
_RECALL_IMPERATIVE = re.compile(
    r"^\s*(?:please\s+)?(?:repeat|say|state|give me|tell me|remind me|recall|name|spell)\b",
    re.IGNORECASE,
)
_WHO_AM_I = re.compile(r"(?i)\bwho\s+(?:am\s+i|i\s+am|we\s+are|are\s+we)\b")
_DETERMINER_AT = re.compile(r"(?i)\b(?:my|our|the|this|that|your)\s")
# "a project called Nebula", "my dog named Rex", "the code name Orion" is not one (no verb).
_CALLED_FACT = re.compile(
    r"\b(?P<det>(?i:a|an|my|our|the|this|that))\s+"
    r"(?P<key>(?!(?i:is|was|are|were)\b)[^\W\d_][\w'’-]*"
    r"(?:\s+(?!(?i:is|was|are|were)\b)[^\W\d_][\w'’-]*){0,2}?)\s+"
    r"(?P<verb>(?i:called|named|titled|nicknamed))\s+"
    r"[\"'“‘]?(?P<value>[\w][\w.'’-]*(?:\s+[A-Z0-9][\w.'’-]*){0,3})[\"'”’]?"
)
_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i’m|we|we're|we’re|my|our)\b")
# What asks the listener to keep a sentence, not part of it: "Remember that …", "Note: …".
_REMEMBER = re.compile(
    r"^\s*(?:(?:please|also|and|ok|okay|so)[,\s]+)*(?:(?:remember|note|keep in mind|memori[sz]e"
    r"|for the record|fyi|store this(?: for later)?|just so you know)\b(?:\s+(?:that|this))?"
    r"\s*[:,-]?\s*)?",
    re.IGNORECASE,
)
_PERSONS = {
    "i am": "you are", "i'm": "you're", "i was": "you were", "i've": "you've", "i'll": "you'll",
    "i'd": "you'd", "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
    "we are": "you are", "we're": "you're", "we were": "you were", "we've": "you've",
    "we'll": "you'll", "we": "you", "us": "you", "our": "your", "ours": "yours",
    "let's": "let's",
}  # fmt: skip
_PERSON = re.compile(
    r"(?i)(?<![\w'’])(?:i\s+am|i\s+was|we\s+are|we\s+were|i['’](?:m|ve|ll|d)|we['’](?:re|ve|ll)"
    r"|let['’]s|i|me|my|mine|myself|we|us|our|ours)(?![\w'’])"
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
    return _recall(text, turns[:-1], imperative=True)  # "Repeat the codeword."


def _facts(text: str) -> list[tuple[str, str, str]]:
    """``(determiner, key, value)`` of each fact ``text`` states, in order."""
    found: list[tuple[int, tuple[str, str, str]]] = []
    # every determiner may open a fact: "Store this for later: the token is abc123."
    starts = (_FACT.match(text, d.start()) for d in _DETERMINER_AT.finditer(text))
    for m in (m for m in starts if m is not None):
        value = (m["quoted"] or m["value"] or "").strip()
        det, key = m["det"].lower(), m["key"].strip()
        # "Remember that my dog is called Rex": "that" opened the clause; "my" is the determiner
        while (head := key.split(None, 1))[0].lower() in _DETERMINER_WORDS and len(head) > 1:
            det, key = head[0].lower(), head[1]
        if value:
            found.append((m.start(), (det, key, value)))
    for m in _NAME_FACT.finditer(text):
        found.append((m.start(), ("my", "name", m["value"])))
    for m in _CALLED_FACT.finditer(text):
        det = m["det"].lower()
        det = "my" if det in ("a", "an") and _FIRST_PERSON.search(text[: m.start()]) else det
        # the verb goes with the key: "Your project is called Nebula."
        key = f"{m['key'].strip()}\x00{m['verb'].lower()}"
        found.append((m.start(), (det, key, m["value"].rstrip(".'’"))))
    return [fact for _, fact in sorted(found, key=lambda f: f[0])]


def _recall(question: str, earlier: Sequence[str], *, imperative: bool = False) -> str | None:
    """``imperative``: a turn that opens with "repeat" / "say" / "give me" … asks too."""
    opener = _RECALL_IMPERATIVE if imperative else _QUESTION_START
    if ("?" not in question or imperative) and opener.search(question) is None:
        return None
    asked = set(content_words(question))
    if _WHO_AM_I.search(question):
        asked.add("name")  # "Who am I?", "Do you remember who I am?": the user's name
    best: tuple[int, tuple[str, str, str]] | None = None
    for turn in earlier:
        for fact in _facts(turn):
            shared = len(asked & set(content_words(fact[1].replace("\x00", " "))))
            if shared and (best is None or shared >= best[0]):
                best = (shared, fact)
    if best is None:
        return _recall_statement(asked, earlier)
    det, key, value = best[1]
    if _ONLY.search(question):
        return value
    verb = "was" if _PAST.search(question) else "is"
    key, _, how = key.partition("\x00")
    verb = f"{verb} {how}" if how else verb
    if not key[1:2].isupper():  # "API port" stays
        key = key[:1].lower() + key[1:]
    return f"{_DETERMINER.get(det, 'The')} {key} {verb} {value}."


def _recall_statement(asked: set[str], earlier: Sequence[str]) -> str | None:
    """The earlier sentence a question is about when no fact answers it ("I live in Lisbon." for
    "Where do I live?"), told back to the user: the one sharing the most content words with the
    question (stemmed; the latest on a tie), without what asked to remember it, the persons
    turned ("I am" → "you are", "my" → "your")."""
    stems = {_stem(w) for w in asked}
    best: tuple[int, str] | None = None
    for turn in earlier:
        for sentence in _SENTENCE_END.split(turn):
            said = {_stem(w) for w in content_words(sentence)}
            shared = len(stems & said)
            if shared and (best is None or shared >= best[0]):
                best = (shared, sentence.strip())
    if best is None:
        return None
    told = _REMEMBER.sub("", best[1]).strip()
    told = _PERSON.sub(lambda m: _turned(m[0]), told).rstrip(" ,;:")
    if not told:
        return None
    told = told[:1].upper() + told[1:]
    return told if told[-1] in ".!?" else told + "."


def _turned(word: str) -> str:
    lowered = " ".join(word.lower().replace("’", "'").split())
    out = _PERSONS[lowered]
    return out[:1].upper() + out[1:] if word[:1].isupper() and lowered != "i" else out


def _stem(word: str) -> str:
    """A light stemming, enough to meet "live" in "lives", "prefer" in "preferred"."""
    w = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            return w[: -len(suffix)].rstrip("e")
    return w.rstrip("e") if len(w) > 3 else w


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
