"""Which declared tools the user's words ask for, and the arguments a model would write (sans-I/O).

The ``auto`` scenario (:func:`mock_server.scenarios.auto`) calls a tool on its own — with
``tool_choice`` ``auto`` — only when the user's own words in the last user turn
(:func:`mock_server.instructions.last_user_words`: never the instructions, developer or system
messages, nor the environment or ``AGENTS.md`` context a client injects) ask for something the
tool does. **The rule** (:func:`wanted`), with the content words of a text being its words that
are not stop words (:data:`mock_server.instructions.STOP_WORDS`: "the", "get", "use", "tool",
"current" …), compared after a light stemming ("runs" is "run", "cities" is "city"):

- each content word of the tool's name the user uses scores 2 (``weather`` of ``get_weather``),
  and the whole name written out scores 4 — but an action verb (:data:`ACTION_VERBS`:
  ``create``, ``write``, ``send``, ``wait`` …) of the name scores 1, and what a name with such a
  verb acts on scores 2 only when the user uses one of its verbs too, else 1: "Create a
  greeting" does not ask for ``create_goal``, nor "Write a poem" for ``write_stdin``, "Send me a
  hello" for ``send_input`` or "Say hi to the agent team" for ``close_agent``; "Create a goal"
  and "Spawn an agent" do;
- each other content word of the first sentence of its description scores 1 ("Runs a command in
  a PTY …": ``run``, ``pty``, ``output`` …);
- each required parameter that asks for something the user must say (a place, a path, a
  command, a URL: :func:`kind_of`) and finds it in the user's words scores 1;
- a tool scoring 2 or more is asked for — unless such a parameter finds nothing (a model would
  ask which city first). The best score is called first; declared order breaks ties; of tools
  whose names act on the same thing only the first is called ("Create a goal": ``create_goal``,
  not ``get_goal`` too);
- what the user calls the assistant's ("What's your goal today?") names no tool's object;
- a how-to question ("How do I run a Python script?", "What's the best way to run tests?") gives
  no command, nor does "run" followed by "a", "my", "this" … (what to run, not a command);
- a follow-up turn ("And in Rome?", "What about Oslo?": opening with and / what about / how
  about / same for / now) that asks for nothing itself asks for what the user turn before it
  asked for, with the new turn's values.

So "What's the weather in Paris?" calls ``get_weather``; "Run `ls -la`" calls ``exec_command``
(``run`` + a command); "Say hello", "Write a haiku" or "What is my name?" call nothing. Hosted
tools are weighed the same way, their type and what it is for (:data:`HOSTED_PURPOSE`) being
their name (``web_search``: "search the web", "look up the Paris museums"; ``image_generation``:
"draw a lighthouse"; an ``mcp`` tool: its ``server_label``, "look up …"); the weaker words of
:data:`HOSTED_HINTS` ("find", "latest") ask for a search only about a capitalised name ("Find
Paris museums.", not "Can you find a good name for my cat?").

**Arguments** (:func:`arguments`): what a careful model writes — the required properties only
(an optional one only when the user's words give its value), each of the type the client parses:
integers for numbers (``yield_time_ms``, ``max_output_tokens``: a client may parse them as
``usize``), an enum member the user names (else one drawn), booleans; strings taken from the
user's words where the parameter asks for them — a place (the capitalised names after "in",
"for", "at" …: "São Paulo", "New York"; the i-th one for the i-th parallel call), a path, a
command (a `backticked` span, else what follows "run" / "execute"; an array of strings gets
``["bash", "-lc", command]``), a URL, a query, message, objective, title or other free text (a
quoted span, else the user's words); the rest drawn as :mod:`mock_server.jsonschema_gen` draws
them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from mock_server import instructions
from mock_server.jsonschema_check import conforms
from mock_server.jsonschema_gen import NOT_GIVEN, generate
from reference_impl.engine import CustomTool, FunctionTool, Message

__all__ = ["Kind", "arguments", "kind_of", "wanted", "wanted_hosted"]

Tool = FunctionTool | CustomTool
Kind = Literal["place", "path", "command", "url", "text"]

THRESHOLD = 2
HOSTED_PURPOSE: Mapping[str, str] = {
    "web_search": "lookitup browse online internet google",
    "file_search": "file document notes lookitup",
    "code_interpreter": "python calculate compute sum plot chart math",
    "image_generation": "draw picture paint illustration sketch logo photo",
    "computer_use": "screenshot click browser screen",
    "computer": "screenshot click browser screen",
    "shell": "command terminal",
    "local_shell": "command terminal",
    "apply_patch": "edit modify file",
    "mcp": "server lookitup search query",
}
"""What each hosted tool type is for, beyond the words of its type: its words count as the words
of its name (a model knows what its built-in tools do)."""
HOSTED_HINTS: Mapping[str, str] = {
    "web_search": "find latest news",
    "file_search": "find",
    "mcp": "find",
}
"""Words that ask for a search only about a named thing: one of them scores 1, and 2 with a
capitalised name in the user's words ("Find Paris museums." searches; "Can you find a good name
for my cat?" does not)."""
ACTION_VERBS = frozenset(
    {
        "add", "apply", "change", "check", "close", "create", "delete", "edit", "exec", "execute",
        "fetch", "find", "list", "load", "modify", "open", "post", "put", "read", "remove", "run",
        "save", "search", "send", "start", "stop", "update", "view", "write", "wait", "spawn",
        "resume", "pause", "cancel", "kill", "interrupt", "poll", "ask", "set", "show",
    }
)  # fmt: skip
"""Verbs that open function names (``create_goal``, ``write_stdin``, ``view_image``): alone, they
say what a tool does, not which tool — the rest of its name does."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_FIRST_SENTENCE = re.compile(r"(?<=[.!?])\s|\n")
_KINDS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    ("url", re.compile(r"url|uri|link|href|website")),
    ("path", re.compile(r"path|file|dir|folder")),
    ("command", re.compile(r"^cmd$|command|script")),
    ("place", re.compile(r"city|location|place|town|country|region|destination|address")),
    (
        "text",
        re.compile(
            r"^q$|query|question|search|prompt|text|message|topic|keyword|term|objective|goal"
            r"|task|summary|title|subject|content|body|note"
        ),
    ),
)
_BACKTICKS = re.compile(r"`([^`\n]+)`")
_QUOTED = re.compile(r"[\"“]([^\"”\n]{1,200})[\"”]")
_RUN = re.compile(
    r"\b(?:run|execute|exec)\s+(?:the\s+)?(?:shell\s+)?(?:command\s+)?(?P<cmd>[a-z0-9./_-][^\n.?!]*)",
    re.IGNORECASE,
)
# Words after a command that are about it, not part of it: "run ls -la in the workdir please".
_COMMAND_TAIL = re.compile(
    r"\s+(?:(?:in|inside|within|from|on|for) (?:the|this|my|our)\b|please\b|for me\b|now\b"
    r"|and (?:then )?(?:tell|show|report|let|print|give)\b)",
    re.IGNORECASE,
)
# "search" as a request: opening a sentence or a request, or searching for / online.
_SEARCH_FOR = re.compile(
    r"(?i)(?:^|[.!?:]\s+|\b(?:please|can you|could you|would you|you|and|then)\s+)search\b"
    r"|\bsearch(?:ing)?\s+(?:for|online|the\s+(?:web|internet))\b"
)
# What the user says is the assistant's ("your goal", "your name") names no tool's object.
_YOURS = re.compile(r"(?i)\byour\s+[\w'’-]+")
# What an apostrophe leaves of a word: "what's", "agent's", "don't", "you'll", "we're".
_CLITICS = frozenset({"s", "t", "d", "m", "ll", "re", "ve"})
_LOOK_UP = re.compile(r"\blook(?:ing|s|ed)?\s*up\b", re.IGNORECASE)
# A question about how to do something asks for an explanation, not for the thing done: no
# command is taken from it ("How do I run a Python script?", "What's the best way to run tests?").
_HOW_TO = re.compile(
    r"^\s*(?:how\s+(?:do|does|can|could|should|would|might|to)\b|how's\s+one\b"
    r"|what(?:'s|\s+is)\s+the\s+(?:best|right|correct|proper|easiest|simplest|usual)\s+way\b"
    r"|is\s+there\s+a\s+way\b|(?:can|could)\s+you\s+(?:explain|tell\s+me)\s+how\b"
    r"|explain\s+how\b)",
    re.IGNORECASE,
)
# What follows "run" that is no command but what to run: "run a Python script", "run my tests".
_NOT_A_COMMAND = re.compile(
    r"^(?:a|an|some|my|our|your|this|that|these|those|it|them|all|any|every)\b", re.IGNORECASE
)
_FOLLOW_UP = re.compile(r"\s*(?:and|what about|how about|same for|now)\b", re.IGNORECASE)
_URL = re.compile(r"https?://[^\s)>\]\"'`]+")
_PATH = re.compile(r"(?<![\w/.])(?:~|\.{1,2})?/?(?:[\w.-]+/)*[\w-]+\.[A-Za-z0-9]{1,8}(?![\w/])"
                   r"|(?<![\w])(?:~|\.{1,2})?/(?:[\w.-]+/?)+|\b[\w.-]+/(?:[\w.-]+/?)*")  # fmt: skip
_NUMBER_BEFORE = re.compile(r"\b(\d+)\s+([^\W\d_]+)")


def _stem(word: str) -> str:
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
        return w[:-1] if len(w) > 3 and w[-1] == w[-2] else w
    if len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
        return w[:-1] if len(w) > 3 and w[-1] == w[-2] else w
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def _same(a: str, b: str) -> bool:
    """Two stems are one word: equal, or one a prefix of the other by at most two letters and
    both four letters or more ("updat" / "update", "patche" / "patch")."""
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 2


def _stems(text: str) -> set[str]:
    text = _LOOK_UP.sub(" lookitup ", _CAMEL.sub(" ", text).replace("_", " "))
    return {_stem(w) for w in instructions.content_words(text) if w not in _CLITICS}


def _matches(words: set[str], of: set[str]) -> set[str]:
    return {w for w in of if any(_same(w, u) for u in words)}


def _score(user: str, words: set[str], name: str, description: str, *, verbs: bool = False) -> int:
    """``verbs``: a name's action verbs score 1, and what it acts on 2 only when the user uses
    one of its verbs too (module docstring)."""
    named = _stems(name)
    score = 4 if len(name) > 3 and name.lower() in user.lower() else 0
    used = _matches(words, named)
    acts = {w for w in named if w in ACTION_VERBS} if verbs else set()
    if acts:
        noun = 2 if used & acts else 1
        score += len(used & acts) + noun * len(used - acts)
    else:
        score += 2 * len(used)
    first = _FIRST_SENTENCE.split(description.strip(), maxsplit=1)[0] if description else ""
    score += len(_matches(words, _stems(first) - named))
    return score


def kind_of(name: str, schema: Mapping[str, Any]) -> Kind | None:
    """What a parameter asks the user for, by its name: a place, a path, a command, a URL, or
    text; ``None``: nothing the user must say. A ``format`` ``uri`` is a URL whatever its name."""
    if schema.get("format") in ("uri", "url"):
        return "url"
    lowered = name.lower()
    for kind, pattern in _KINDS:
        if pattern.search(lowered):
            return kind
    return None


def _required(tool: FunctionTool) -> list[tuple[str, Mapping[str, Any]]]:
    params = tool.parameters or {}
    props = params.get("properties") or {}
    return [
        (key, props[key])
        for key in params.get("required") or ()
        if isinstance(key, str) and isinstance(props.get(key), Mapping)
    ]


def wanted(messages: Sequence[Message], tools: Sequence[Tool]) -> list[Tool]:
    """The tools the last user turn asks for (the rule in the module docstring), best first; a
    follow-up ("And in Rome?") asks for what the user turn before it asked for."""
    turns = instructions.user_turns(messages)
    if not turns:
        return []
    found = _wanted(turns[-1], turns[-1], tools)
    if not found and len(turns) > 1 and _FOLLOW_UP.match(turns[-1]):
        found = _wanted(turns[-2], f"{turns[-1]}\n{turns[-2]}", tools)
    return found


def _wanted(asking: str, user: str, tools: Sequence[Tool]) -> list[Tool]:
    """The tools ``asking`` asks for, their parameters found in ``user``."""
    words = _stems(_YOURS.sub(" ", asking))  # "What's your goal?" asks the assistant, no tool
    scored: list[tuple[int, int, Tool]] = []
    for order, tool in enumerate(tools):
        score = _score(asking, words, tool.name, tool.description or "", verbs=True)
        if isinstance(tool, FunctionTool):
            missing = False
            for key, schema in _required(tool):
                kind = kind_of(key, schema)
                if kind is None or kind == "text":
                    continue
                if _found(kind, user):
                    score += 1
                else:
                    missing = True
            if missing:
                continue
        if score >= THRESHOLD:
            scored.append((-score, order, tool))
    found: list[Tool] = []
    taken: set[str] = set()  # the things the tools kept act on
    for _, _, tool in sorted(scored, key=lambda s: (s[0], s[1])):
        acts_on = _stems(tool.name) - ACTION_VERBS
        if acts_on & taken:
            continue  # a better tool for the same thing is called (create_goal, not get_goal)
        taken |= acts_on
        found.append(tool)
    return found


def wanted_hosted(
    messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The hosted tools the last user turn asks for: the same rule, a tool's type (less
    ``_preview`` and a date) as its name, an ``mcp`` tool's ``server_label`` and
    ``server_description`` as its name and description."""
    user = instructions.last_user_words(messages)
    if user is None:
        return []
    words = _stems(user)
    scored = []
    for order, tool in enumerate(tools):
        kind = re.sub(r"_preview$|_\d{4}.*$", "", str(tool.get("type", "")))
        name, description = kind, str(tool.get("description") or "")
        if kind == "mcp":
            name = f"{tool.get('server_label') or ''} mcp"
            description = str(tool.get("server_description") or "")
        # the type's own words by the verb rule ("binary search" is no request to search the
        # web; "search the web", "search for …" are), what it is for as words of its name
        score = _score(user, words, name, description, verbs=kind != "mcp")
        score += 2 * len(_matches(words, _stems(HOSTED_PURPOSE.get(kind, "")) - _stems(name)))
        if _SEARCH_FOR.search(user) and "search" in _stems(name):
            score += 1
        if _matches(words, _stems(HOSTED_HINTS.get(kind, ""))):
            score += 2 if _names_something(user) else 1  # "Find Paris museums."
        if score >= THRESHOLD:
            scored.append((-score, order, tool))
    return [tool for _, _, tool in sorted(scored, key=lambda s: (s[0], s[1]))]


def _names_something(text: str) -> bool:
    """A capitalised word that does not open a sentence ("Paris", "Python"; not "I")."""
    words = text.split()
    return any(
        w[:1].isupper() and not w.startswith(("I'", "I’")) and w != "I"
        and words[i - 1][-1:] not in ".!?:"
        for i, w in enumerate(words) if i
    )  # fmt: skip


def _command(text: str) -> str | None:
    if _HOW_TO.match(text):
        return None
    ticked: list[str] = _BACKTICKS.findall(text)
    if ticked:
        return max(ticked, key=len)
    run = _RUN.search(text)
    if run is not None:
        cmd = run["cmd"].strip().rstrip(",;")
        cmd = _COMMAND_TAIL.split(cmd)[0]
        if _NOT_A_COMMAND.match(cmd):
            return None
        return cmd or None
    return None


def _path(text: str) -> str | None:
    ticked: list[str] = [t for t in _BACKTICKS.findall(text) if "/" in t or "." in t]
    if ticked:
        return ticked[0]
    stripped = _URL.sub(" ", text)
    for m in _PATH.finditer(stripped):
        candidate = m[0].rstrip(".")
        if candidate and not candidate.replace(".", "").isdigit():
            return candidate
    return None


def _found(kind: Kind, text: str, index: int = 0) -> str | None:
    if kind == "place":
        found = instructions.places(text)
        return found[index % len(found)] if found else None
    if kind == "path":
        return _path(text)
    if kind == "command":
        return _command(text)
    if kind == "url":
        url = _URL.search(text)
        return url[0].rstrip(".,;") if url else None
    quoted = _QUOTED.search(text)
    return quoted[1] if quoted else " ".join(text.split())[:200]


def arguments(
    tool: FunctionTool, messages: Sequence[Message], index: int, rng: random.Random
) -> Any:
    """Arguments for the ``index``-th call to ``tool`` (module docstring), valid for its
    schema."""
    schema = tool.parameters or {"type": "object", "properties": {}}
    user = instructions.last_user_words(messages) or ""
    mentioned = {_stem(w) for w in re.findall(r"[^\W_]+", user.lower())}
    # A tool that takes a command gets the command's own words as its command only: a file the
    # command names ("`echo x > note.txt`") is not also its workdir or path.
    props = schema.get("properties")
    takes_command = isinstance(props, Mapping) and any(
        isinstance(sub, Mapping) and kind_of(name, sub) == "command" for name, sub in props.items()
    )
    cmd = _command(user) if takes_command else None
    rest = user.replace(f"`{cmd}`", " ").replace(cmd, " ") if cmd else user

    def given(name: str, sub: Mapping[str, Any]) -> Any:
        kind = kind_of(name, sub)
        value = _given(name, sub, user if kind == "command" else rest, mentioned, index)
        if value is NOT_GIVEN or not conforms(value, sub, schema):
            return NOT_GIVEN
        return value

    return generate(schema, rng, given=given, required_only=True, whole_numbers=True)


def _given(name: str, sub: Mapping[str, Any], user: str, mentioned: set[str], index: int) -> Any:
    enum = sub.get("enum")
    if isinstance(enum, list):
        named = [v for v in enum if isinstance(v, str) and _stem(v) in mentioned]
        return named[0] if named else NOT_GIVEN
    kind_type = sub.get("type")
    if kind_type in ("integer", "number"):
        for number, unit in _NUMBER_BEFORE.findall(user):
            if _same(_stem(unit), _stem(name.split("_")[-1])):
                return int(number)
        return NOT_GIVEN
    kind = kind_of(name, sub)
    if kind is None:
        return NOT_GIVEN
    value = _found(kind, user, index)
    if value is None:
        return NOT_GIVEN
    if kind_type == "array":
        items = sub.get("items")
        if isinstance(items, Mapping) and items.get("type") == "string" and kind == "command":
            return ["bash", "-lc", value]
        return [value]
    return value
