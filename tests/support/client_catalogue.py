"""The catalogue of what real clients send (conformance/clients/captured, docs/client-catalogue.md).

A *capture* is a cassette the mock recorded (``responses-mock --record``, docs/cassettes.md)
while one client ran one flow. :func:`catalogue_entry` turns it into the fixture kept in the repo:
per exchange the request line, the headers that describe the client (transport noise and the
machine's own values dropped), the body parsed as JSON, the status the mock answered, the ids the
response carried and, for a WebSocket, the client's frames. Everything that changes from one run
to the next is normalised so that two captures of the same client version compare equal:

- ids the server or the client minted (``resp_…``, ``msg_…``, ``call_…``, UUIDs) become
  ``<resp_1>``, ``<msg_2>``, … numbered by first appearance in the flow, so a later request that
  threads an earlier id still shows which one;
- ``encrypted_content`` blobs become ``<encrypted_1>``, … the same way;
- the machine's paths (the run's temporary root, the home folder) become ``<ROOT>`` / ``<HOME>``;
  dates and times become ``<date>`` / ``<time>``.

Credentials never reach the capture: the cassette writer redacts them (cassettes.secrets), and
:func:`leaks` re-checks a fixture for secrets and machine paths. Used by
scripts/capture_clients.py (writes and re-captures) and tests/clients/test_client_catalogue.py.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from cassettes import Exchange, Redactor

FIXTURES = Path(__file__).resolve().parents[2] / "conformance" / "clients" / "captured"
FORMAT = "client-catalogue/1"

# Headers that describe the transport or the machine, not what the client asks of the server.
DROPPED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "accept-encoding",
        "upgrade",
        "sec-websocket-key",
        "sec-websocket-version",
        "sec-websocket-extensions",
        "x-stainless-os",
        "x-stainless-arch",
        "x-stainless-runtime",
        "x-stainless-runtime-version",
        "x-stainless-timeout",
        "x-stainless-read-timeout",
        "traceparent",
        "tracestate",
    }
)
# The capture's own steering of the mock (agent scripts), not the client's.
DRIVER_HEADER_PREFIX = "x-mock-"

_ID = re.compile(
    r"\b(resp|msg|fc|fco|rs|call|conv|cmp|cmpt|ws|ctc|ci|fs|item|rsp|req|sess|ig|tsc|tso|cu)"
    r"_(?:(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{8,}|[A-Za-z]{16,})\b"
)
_UUID = re.compile(
    r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
# Unix times of 2023-2033 in seconds or milliseconds (Codex's turn_started_at_unix_ms).
_UNIX_TIME = re.compile(r"\b1[78]\d{8}(?:\d{3})?(?:\.\d+)?\b")
# Codex's exec_command output header (codex-rs unified exec): a random chunk id, a measured time.
_EXEC_NOISE = (
    (re.compile(r"Chunk ID: \w+"), "Chunk ID: <chunk>"),
    (re.compile(r"Wall time: [\d.]+ seconds"), "Wall time: <seconds> seconds"),
)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_TIME = re.compile(r"\b\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b")
# "codex_exec/0.171.0 (Ubuntu 22.4.0; x86_64) xterm" -> the product tokens, no platform.
_PLATFORM = re.compile(r"\s*\([^)]*\)")
_NODE_VERSION = re.compile(r"\bnode/v?\d+[.\d]*|\bruntime/node\.js/v?\d+[.\d]*|Python/\d+[.\d]*")


class Normaliser:
    """One flow's renaming of ids, blobs and paths (shared by all its exchanges)."""

    def __init__(self, paths: Mapping[str, str]) -> None:
        # Longest first, so /tmp/x/home is <HOME> before /tmp/x is <ROOT>.
        self.paths = sorted(paths.items(), key=lambda kv: -len(kv[0]))
        self.names: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def _name(self, kind: str, value: str) -> str:
        if value not in self.names:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.names[value] = f"<{kind}_{self.counts[kind]}>"
        return self.names[value]

    def text(self, value: str) -> str:
        for path, name in self.paths:
            value = value.replace(path, name)
        value = _UUID.sub(lambda m: self._name("uuid", m.group(0).lower()), value)
        value = _ID.sub(lambda m: self._name(m.group(1), m.group(0)), value)
        for pattern, name in _EXEC_NOISE:
            value = pattern.sub(name, value)
        value = _UNIX_TIME.sub("<timestamp>", value)
        value = _DATE.sub("<date>", value)
        return _TIME.sub("<time>", value)

    def value(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            if value.get("type") == "reasoning":  # the server's own words, replayed
                value = {
                    **value,
                    **{
                        k: _server_text(value[k])
                        for k in ("summary", "content")
                        if isinstance(value.get(k), list)
                    },
                }
            # Keys sorted: some clients build objects from hash maps (Codex's client_metadata).
            return {k: self.value(value[k], k) for k in sorted(value)}
        if isinstance(value, list):
            if key == "include" and all(isinstance(v, str) for v in value):
                value = sorted(value)  # a set: the Agents SDK builds it from one (random order)
            return [self.value(v, key) for v in value]
        if isinstance(value, str):
            if key == "encrypted_content" and value:
                return self._name("encrypted", value)
            return self.text(value)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and _UNIX_TIME.fullmatch(str(int(value))):
            return "<timestamp>"
        return value

    def ids_in(self, text: str) -> list[str]:
        """The ids and encrypted blobs a response carried, in order of first appearance, as
        their names (a replay binds each name to what its own server returned there)."""
        seen: list[str] = []
        for kind, value in returned_values(text):
            name = self._name(kind, value)
            if name not in seen:
                seen.append(name)
        return seen


def _server_text(parts: list[Any]) -> list[Any]:
    """Reasoning text the mock wrote replayed: it depends on the whole request (random client
    ids included), so it is not the client's; its shape is kept."""
    return [
        {**p, "text": "<server text>"} if isinstance(p, dict) and "text" in p else p for p in parts
    ]


_BLOB = re.compile(r'"encrypted_content"\s*:\s*"([^"]+)"')


def returned_values(text: str) -> list[tuple[str, str]]:
    """(kind, value) of each id and encrypted blob in a response's text, in order."""
    found = [(m.start(), m.group(1), m.group(0)) for m in _ID.finditer(text)]
    found += [(m.start(1), "encrypted", m.group(1)) for m in _BLOB.finditer(text)]
    return [(kind, value) for _, kind, value in sorted(found)]


def _body(raw: bytes, norm: Normaliser) -> Any:
    if not raw:
        return None
    text = raw.decode("utf-8", "replace")
    try:
        return norm.value(json.loads(text))
    except ValueError:
        return norm.text(text)


def _headers(headers: Iterable[tuple[str, str]], norm: Normaliser) -> dict[str, str]:
    kept: dict[str, str] = {}
    for name, value in headers:
        name = name.lower()
        if name in DROPPED_HEADERS or name.startswith(DRIVER_HEADER_PREFIX):
            continue
        if name == "user-agent":
            value = _NODE_VERSION.sub("<runtime>", _PLATFORM.sub("", value))
        kept[name] = norm.text(value)
    return dict(sorted(kept.items()))


def entry_exchange(exchange: Exchange, norm: Normaliser) -> dict[str, Any]:
    """One exchange of a capture as the catalogue keeps it."""
    record: dict[str, Any] = {
        "method": exchange.method,
        "target": norm.text(exchange.target),
        "headers": _headers(exchange.request_headers, norm),
    }
    driver = {
        k: v for k, v in exchange.request_headers if k.lower().startswith(DRIVER_HEADER_PREFIX)
    }
    if driver:  # what steered the mock (an agent script): a replay sends it again
        record["mock_headers"] = driver
    if exchange.websocket:
        frames = []
        for frame in exchange.frames:
            if frame.sender != "client" or frame.opcode != "text":
                continue
            frames.append(_body(frame.data, norm))
        record["websocket"] = True
        record["client_frames"] = frames
        server = b"\n".join(f.data for f in exchange.frames if f.sender == "server")
        record["returned_ids"] = norm.ids_in(server.decode("utf-8", "replace"))
        record["server_event_types"] = _event_types(exchange)
    else:
        record["body"] = _body(exchange.request_body, norm)
        record["status"] = exchange.status
        record["returned_ids"] = norm.ids_in(exchange.body.decode("utf-8", "replace"))
    return record


def _event_types(exchange: Exchange) -> list[str]:
    types: list[str] = []
    for frame in exchange.frames:
        if frame.sender != "server" or frame.opcode != "text":
            continue
        try:
            kind = json.loads(frame.data).get("type")
        except (ValueError, AttributeError):
            continue
        if isinstance(kind, str) and (not types or types[-1] != kind):
            types.append(kind)
    return types


def catalogue_entry(
    exchanges: list[Exchange],
    *,
    client: str,
    package: str,
    version: str,
    flow: str,
    description: str,
    paths: Mapping[str, str],
) -> dict[str, Any]:
    """The fixture for one client's flow, from the exchanges the mock recorded."""
    norm = Normaliser(paths)
    return {
        "format": FORMAT,
        "client": client,
        "package": package,
        "version": version,
        "flow": flow,
        "description": description,
        "exchanges": [entry_exchange(e, norm) for e in exchanges],
    }


def fixture_path(client: str, flow: str, root: Path = FIXTURES) -> Path:
    return root / client / f"{flow}.json"


def dump(entry: Mapping[str, Any]) -> str:
    return json.dumps(entry, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def load_all(root: Path = FIXTURES) -> list[tuple[Path, dict[str, Any]]]:
    return [(p, json.loads(p.read_text())) for p in sorted(root.glob("*/*.json"))]


def diff(old: Mapping[str, Any], new: Mapping[str, Any], name: str) -> str:
    """A unified diff of two entries ("" when equal)."""
    return "".join(
        difflib.unified_diff(
            dump(old).splitlines(keepends=True),
            dump(new).splitlines(keepends=True),
            f"{name} (fixture)",
            f"{name} (fresh capture)",
        )
    )


_MACHINE_PATHS = re.compile(r"(/tmp/|/root/|/work/|/Users/|/private/var/)")
_SECRETS = re.compile(r"\bsk-[A-Za-z0-9_-]{6,}|Bearer (?!\[REDACTED\])\S+")


def leaks(text: str, secrets: Iterable[str] = ()) -> list[str]:
    """What a fixture's text must not hold: machine paths, API keys, unredacted credentials."""
    found = [m.group(0) for m in _MACHINE_PATHS.finditer(text)]
    found += [m.group(0) for m in _SECRETS.finditer(text)]
    redactor = Redactor([s for s in secrets if s])
    if redactor.active and redactor.text(text) != text:
        found.append("a secret given to the redactor")
    return found
