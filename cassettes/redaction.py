"""Secrets never reach anything the toolkit writes: the reusable redactor (docs/cassettes.md, Secrets).

The suite, the load tool and any future proxy hand every text and JSON value they write through a
:class:`Redactor` built from the run's secrets (API keys, passwords in URLs, credential headers). A
secret is found in each form a careless or hostile server may echo it in:

- as it is, and JSON-escaped (``\\u0073\\u006b…``, either case);
- URL-encoded (``quote``, ``quote_plus``, hex digits in either case);
- base64, standard and URL-safe alphabets, at each of the three byte alignments it can have inside
  a longer encoded text (``base64("Bearer " + key)``, ``base64("user:" + key)``): the characters
  that depend on the secret's bytes alone are matched;
- in pieces: any run of 8 characters of a secret, wherever it stands;
- split across strings: :meth:`Redactor.value` also looks for every form in the concatenation of
  the strings that share a JSON path once list indices are elided — the ``delta`` of consecutive
  events, say (``"Bearer sk-c"`` + ``"anary-123456"``) — and redacts the piece each string
  carries; a string that holds a JSON object (an event kept as text) is searched as that object.

Matching is linear in the text per form; over-redaction (an ordinary string that happens to contain
a form) is preferred to a leak.
"""

from __future__ import annotations

import base64
import bisect
import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

__all__ = ["REDACTED", "Redactor", "secret_forms"]

REDACTED = "[REDACTED]"
_MIN_SECRET = 4  # shorter values would redact ordinary text; such keys are not real keys
_MIN_ENCODED = 8  # an encoded core shorter than this would match ordinary text
_FRAGMENT = 8  # any run of this many characters of a secret is redacted where it stands alone
_INDEX = re.compile(r"\[\d+\]")


def _base64_cores(secret: bytes) -> set[str]:
    """The base64 characters that encode ``secret``'s bits alone, at each byte alignment."""
    cores: set[str] = set()
    for offset in range(3):
        padded = b"\0" * offset + secret + b"\0\0\0"
        first = -(-8 * offset // 6)  # ceil: the first character made only of secret bits
        last = 8 * (offset + len(secret)) // 6  # floor: one past the last such character
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            core = encode(padded).decode("ascii")[first:last]
            if len(core) >= _MIN_ENCODED:
                cores.add(core)
    return cores


def secret_forms(secret: str) -> list[str]:
    """Every form of ``secret`` the redactor replaces, longest first."""
    forms = {secret}
    raw = secret.encode("utf-8")
    for encoded in (quote(secret, safe=""), quote_plus(secret, safe="")):
        forms.add(encoded)
        forms.add(re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), encoded))
    escaped = "".join(f"\\u{ord(c):04x}" for c in secret)
    forms.update({escaped, escaped.upper().replace("\\U", "\\u")})
    # JSON's own escaping of a secret with quotes, backslashes or control characters.
    forms.add(secret.replace("\\", "\\\\").replace('"', '\\"'))
    forms.update(_base64_cores(raw))
    return sorted((f for f in forms if len(f) >= _MIN_SECRET), key=len, reverse=True)


class Redactor:
    """Replaces every form of every secret with :data:`REDACTED` (see the module docstring)."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self.secrets: list[str] = []
        self._whole: set[str] = set()  # secrets whose pieces are not hunted (add(pieces=False))
        self._forms: list[str] = []
        self._fragments: list[str] = []
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None, *, pieces: bool = True) -> None:
        """Redact ``secret`` from now on; ``pieces=False``: its forms only, not every run of 8 of
        its characters (a cookie value whose digit runs would match ordinary timestamps)."""
        if not secret or len(secret) < _MIN_SECRET:
            return
        if secret in self.secrets:
            if pieces and secret in self._whole:
                self._whole.discard(secret)
                self._refresh()
            return
        if not pieces:
            self._whole.add(secret)
        # Longest first, so that a secret containing another is replaced whole.
        self.secrets = sorted([*self.secrets, secret], key=len, reverse=True)
        self._refresh()

    def _refresh(self) -> None:
        forms = {f for s in self.secrets for f in secret_forms(s)}
        self._forms = sorted(forms, key=len, reverse=True)
        self._fragments = sorted(
            {
                s[i : i + _FRAGMENT]
                for s in self.secrets
                if s not in self._whole
                for i in range(len(s) - _FRAGMENT + 1)
            }
            - set(forms)
        )

    def text(self, text: str) -> str:
        spans = self._spans(text)
        return _cut(text, spans) if spans else text

    @property
    def active(self) -> bool:
        """Whether any secret is known (else every method returns its input)."""
        return bool(self._forms)

    @property
    def longest(self) -> int:
        """The length of the longest text this redactor replaces whole (0 with no secret): a
        stream redacted piece by piece keeps at least this much text on each side of a cut."""
        return len(self._forms[0]) if self._forms else 0

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where :meth:`text` would redact ``text``: sorted, merged ``(begin, end)`` spans."""
        return self._spans(text) if self._forms else []

    def spans_across(self, texts: list[str]) -> list[list[tuple[int, int]]]:
        """Each string's share of every form found in ``texts`` joined in order (a secret split
        across consecutive pieces)."""
        return self._across(texts) if self._forms else [[] for _ in texts]

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` holds a form of a secret, or a piece of one (every run of _FRAGMENT of
        its characters: its other piece is elsewhere, in the next event or cut off), merged."""
        spans = []
        for needle in (*self._forms, *self._fragments):
            start = text.find(needle)
            while start >= 0:
                spans.append((start, start + len(needle)))
                start = text.find(needle, start + 1)
        return _merged(spans)

    def value(self, value: Any) -> Any:
        """A JSON value with every string redacted (keys included), also where a secret is split
        across the strings of one path (list indices elided)."""
        if not self._forms:
            return value
        leaves: dict[str, list[list[Any]]] = {}
        boxed = self._walk(value, "", leaves)
        for group in leaves.values():
            texts = [box[0] for box in group]
            shares = self._across(texts) if len(group) > 1 else [[] for _ in texts]
            for box, text, share in zip(group, texts, shares, strict=True):
                spans = _merged(self._spans(text) + share)
                if spans:
                    box[0] = _cut(text, spans)
        return _rebuild(boxed)

    def _walk(self, value: Any, path: str, leaves: dict[str, list[list[Any]]]) -> Any:
        """``value`` with each string boxed (``[text]``), the boxes grouped by elided path, so
        that they can be redacted together and in place."""
        if isinstance(value, str):
            if value[:1] == "{" and value[-1:] == "}":
                # A JSON object kept as text (the suite's trimmed events): its strings join the
                # others of their path, and it is written back as json.dumps wrote it.
                try:
                    parsed = json.loads(value)
                except ValueError:
                    parsed = None
                if isinstance(parsed, dict):
                    return _Json(self._walk(parsed, path + "{}", leaves))
            box = [value]
            leaves.setdefault(path, []).append(box)
            return _Box(box)
        if isinstance(value, dict):
            return {
                self.text(str(k)): self._walk(v, f"{path}.{_INDEX.sub('', str(k))}", leaves)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self._walk(v, path + "[]", leaves) for v in value]
        return value

    def _across(self, texts: list[str]) -> list[list[tuple[int, int]]]:
        """Each string's share of every form found in ``texts`` joined in order."""
        joined = "".join(texts)
        cuts: list[list[tuple[int, int]]] = [[] for _ in texts]
        spans = []
        for form in self._forms:
            start = joined.find(form)
            while start >= 0:
                spans.append((start, start + len(form)))
                start = joined.find(form, start + 1)
        if not spans:
            return cuts
        bounds = []
        offset = 0
        for text in texts:
            bounds.append(offset)
            offset += len(text)
        for lo, hi in spans:
            i = bisect.bisect_right(bounds, lo) - 1
            while i < len(texts) and bounds[i] < hi:
                begin = max(lo, bounds[i]) - bounds[i]
                end = min(hi, bounds[i] + len(texts[i])) - bounds[i]
                if end > begin:
                    cuts[i].append((begin, end))
                i += 1
        return cuts


class _Box:
    __slots__ = ("box",)

    def __init__(self, box: list[Any]) -> None:
        self.box = box


class _Json:
    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner


def _rebuild(value: Any) -> Any:
    if isinstance(value, _Box):
        return value.box[0]
    if isinstance(value, _Json):
        return json.dumps(_rebuild(value.inner), ensure_ascii=False)
    if isinstance(value, dict):
        return {k: _rebuild(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuild(v) for v in value]
    return value


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans as one."""
    out: list[tuple[int, int]] = []
    for begin, end in sorted(spans):
        if out and begin <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((begin, end))
    return out


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the (possibly overlapping) ``spans`` replaced by one :data:`REDACTED` each
    run."""
    out = []
    pos = 0
    for begin, end in sorted(spans):
        if end <= pos:
            continue
        begin = max(begin, pos)
        out.append(text[pos:begin])
        out.append(REDACTED)
        pos = end
    out.append(text[pos:])
    return "".join(out)
