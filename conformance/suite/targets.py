"""Targets: which servers a run judges, from command-line flags or a TOML file.

A target is a base URL (as the OpenAI SDK's ``base_url``; one with no path gets ``/v1``), a model, the name of
the environment variable holding its API key, the profiles it declares, and the check IDs it is
expected to fail. The base URL is only ever taken from a flag or the file: never from
``OPENAI_BASE_URL``, so that a user who has it set does not send the suite to a paid API by
accident. A target with ``embedded = true`` (and the default run, with no URL at
all) is the embedded mock server, started as a separate process.

The TOML file::

    [defaults]                        # optional; every key of a target but name and base_url
    timeout = 60

    [targets.local-vllm]
    base_url = "http://127.0.0.1:8000/v1"
    model = "Qwen/Qwen3-8B"
    api_key_env = "VLLM_API_KEY"      # default OPENAI_API_KEY; unset variable → no key sent
    profiles = ["core", "tools", "reasoning"]
    expected_failures = ["live.background.cancel_idempotent"]   # or a table: ID = "why"

    [targets.mock]
    embedded = true                   # the embedded mock; profiles default to all
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from cassettes.reader import TooLarge, read_at_most

from ..catalog import live as catalog_live  # noqa: F401  (every check ID, for expected_failures)
from ..catalog.registry import REGISTRY
from ..catalog.render import truncate
from ..cli_options import BaseURLError, base_url
from ..errors import ConformanceError
from .http import DEFAULT_MAX_BODY_BYTES

__all__ = [
    "ALL_PROFILES",
    "DEFAULT_API_KEY_ENV",
    "EMBEDDED_MODEL",
    "Target",
    "TargetError",
    "load_targets",
]

ALL_PROFILES = (
    "core",
    "stateful",
    "tools",
    "reasoning",
    "structured",
    "openresponses",
    # the state agents keep
    "conversations",
    "compaction",
    "stateless-reasoning",
    "websocket",
    "websocket:steering",
    # tools beyond function calls: custom tools, one profile per hosted tool
    "custom-tools",
    "hosted:web_search",
    "hosted:file_search",
    "hosted:code_interpreter",
    "hosted:image_generation",
    "hosted:mcp",
    "hosted:tool_search",
    "hosted:shell",
    "hosted:apply_patch",
    "hosted:computer_use_preview",
    # the requests real clients send, replayed (docs/client-catalogue.md)
    "client:codex",
    "client:agents-sdk",
    "client:vercel-ai",
    "client:openai-python",
    "client:openai-node",
    "client:langchain",
)
# The embedded mock serves every profile, WebSocket mode and its steering included
# (docs/websocket.md).
EMBEDDED_PROFILES = ALL_PROFILES
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
EMBEDDED_MODEL = "mock"
DEFAULT_TIMEOUT = 60.0
EMBEDDED_TIMEOUT = 10.0
DEFAULT_MAX_EVENTS = 20_000
MAX_TARGETS_FILE_BYTES = 16 * 1024 * 1024  # a targets file is a page of TOML: larger is a mistake

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_KEYS = frozenset(
    {
        "base_url", "model", "api_key_env", "profiles", "expected_failures", "timeout",
        "max_events", "embedded", "follows_instructions", "max_body_bytes",
    }
)  # fmt: skip


class TargetError(ConformanceError, ValueError):
    """A target is misconfigured (exit 2)."""


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    base_url: str | None  # None: the embedded mock, filled in once it listens
    model: str
    api_key_env: str = DEFAULT_API_KEY_ENV
    profiles: tuple[str, ...] = ("core",)
    expected_failures: Mapping[str, str] = field(default_factory=dict)  # check ID → why
    timeout: float = DEFAULT_TIMEOUT
    max_events: int = DEFAULT_MAX_EVENTS
    embedded: bool = False
    # Whether the model follows natural-language instructions ("repeat the code word"); the cases
    # that need it are skipped on a target that does not (--no-instructions). The embedded mock
    # follows the few simple ones the cases make (mock_server/instructions.py).
    follows_instructions: bool = True
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    """The most of one non-stream body (an error's, a 429's too) read; a larger one fails the
    exchange ("body larger than N bytes") unread past N."""

    def api_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        env = os.environ if environ is None else environ
        return env.get(self.api_key_env) or None

    def secrets(self, environ: Mapping[str, str] | None = None) -> list[str]:
        """What no report may show: the API key, and a password in the base URL."""
        found = [self.api_key(environ)]
        if self.base_url is not None:
            found.append(urlsplit(self.base_url).password)
        return [s for s in found if s]

    def with_base_url(self, base_url: str) -> Target:
        return replace(self, base_url=base_url)

    def shown_url(self) -> str:
        """The base URL without any user:password part, for reports."""
        if self.base_url is None:
            return "(embedded mock)"
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "base_url": self.shown_url(),
            "model": self.model,
            "api_key_env": self.api_key_env,
            "profiles": list(self.profiles),
            "expected_failures": dict(self.expected_failures),
            "timeout": self.timeout,
            "max_events": self.max_events,
            "embedded": self.embedded,
            "follows_instructions": self.follows_instructions,
        }


def embedded_target(*, where: str | None = None, **overrides: Any) -> Target:
    """The embedded mock: every profile, a short timeout; it follows the cases' simple
    instructions ("reply with the code word only"), deterministically. ``where`` names the
    target in errors (default: its name)."""
    options: dict[str, Any] = {
        "name": "mock",
        "base_url": None,
        "model": EMBEDDED_MODEL,
        "profiles": EMBEDDED_PROFILES,
        "timeout": EMBEDDED_TIMEOUT,
        "embedded": True,
        "follows_instructions": True,
    }
    options.update({k: v for k, v in overrides.items() if v is not None})
    return _checked(Target(**options), where)


def flag_target(
    *,
    base_url: str | None,
    model: str | None,
    name: str | None = None,
    api_key_env: str | None = None,
    profiles: Iterable[str] | None = None,
    expected_failures: Iterable[str] = (),
    timeout: float | None = None,
    max_events: int | None = None,
    follows_instructions: bool | None = None,
    max_body_bytes: int | None = None,
) -> Target:
    """The one target the flags describe; no ``base_url`` means the embedded mock."""
    expected = {check: "" for check in expected_failures}
    if base_url is None:
        return embedded_target(
            name=name, model=model, api_key_env=api_key_env,
            profiles=tuple(profiles) if profiles else None, expected_failures=expected,
            timeout=timeout, max_events=max_events, follows_instructions=follows_instructions,
            max_body_bytes=max_body_bytes,
        )  # fmt: skip
    if not model:
        raise TargetError("--model is required with --base-url (the model to ask)")
    target = Target(
        name=name or _name_from_url(base_url),
        base_url=base_url,
        model=model,
        api_key_env=api_key_env or DEFAULT_API_KEY_ENV,
        profiles=tuple(profiles) if profiles else ("core",),
        expected_failures=expected,
        timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
        max_events=max_events if max_events is not None else DEFAULT_MAX_EVENTS,
        follows_instructions=True if follows_instructions is None else follows_instructions,
        max_body_bytes=max_body_bytes if max_body_bytes is not None else DEFAULT_MAX_BODY_BYTES,
    )
    return _checked(target)


def load_targets(path: str | Path, *, select: Iterable[str] = ()) -> list[Target]:
    """Targets from a TOML file (format in the module docstring), in file order; ``-`` reads
    standard input."""
    limit = MAX_TARGETS_FILE_BYTES
    from ..sse.framing import MAX_JSON_DEPTH, json_too_deep

    try:
        text = read_at_most(path, limit).decode("utf-8")
        if json_too_deep(text):  # tomllib recurses per level: a traceback near 1,000
            raise TargetError(
                f"{path}: arrays or inline tables nested more than {MAX_JSON_DEPTH} levels deep "
                "(the judge's limit)"
            )
        doc = tomllib.loads(text)
    except TooLarge as exc:
        raise TargetError(f"{path}: {exc} for a targets file") from None
    except OSError as exc:
        raise TargetError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TargetError(f"{path} is not valid TOML: {exc}") from None
    unknown = set(doc) - {"defaults", "targets"}
    if unknown:
        raise TargetError(f"{path}: unknown top-level key(s): {', '.join(sorted(unknown))}")
    defaults = doc.get("defaults", {})
    tables = doc.get("targets", {})
    if not isinstance(defaults, dict) or not isinstance(tables, dict) or not tables:
        raise TargetError(f"{path}: expected [targets.NAME] tables (and optionally [defaults])")
    for key in ("base_url", "name"):
        if key in defaults:
            raise TargetError(f"{path}: [defaults] cannot set {key}")
    targets = [_from_table(name, {**defaults, **table}, path) for name, table in tables.items()]
    wanted = list(select)
    if wanted:
        names = {t.name for t in targets}
        missing = [n for n in wanted if n not in names]
        if missing:
            raise TargetError(f"{path}: no target named {', '.join(missing)}")
        targets = [t for t in targets if t.name in wanted]
    return targets


def _from_table(name: str, table: Any, path: str | Path) -> Target:
    where = f"{path}: [targets.{name}]"
    if not isinstance(table, dict):
        raise TargetError(f"{where} must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        raise TargetError(f"{where}: unknown key(s): {', '.join(sorted(unknown))}")
    expected = table.get("expected_failures", {})
    if isinstance(expected, list) and all(isinstance(c, str) for c in expected):
        expected = {check: "" for check in expected}
    elif not isinstance(expected, dict) or not all(isinstance(w, str) for w in expected.values()):
        raise TargetError(
            f'{where}: expected_failures is a list of check IDs or a table ID = "why"'
        )
    for key in ("embedded", "follows_instructions"):
        if key in table and not isinstance(table[key], bool):
            raise TargetError(f"{where}: {key} must be true or false, got {_shown(table[key])}")
    options: dict[str, Any] = {"name": name, "expected_failures": expected}
    keys = (
        "model",
        "api_key_env",
        "timeout",
        "max_events",
        "follows_instructions",
        "max_body_bytes",
    )
    for key in keys:
        if key in table:
            options[key] = table[key]
    if "profiles" in table:
        profiles = table["profiles"]
        if not isinstance(profiles, list) or not all(isinstance(p, str) for p in profiles):
            raise TargetError(f"{where}: profiles is a list of names")
        options["profiles"] = tuple(profiles)
    if table.get("embedded", False):
        if "base_url" in table:
            raise TargetError(f"{where}: an embedded target has no base_url")
        return embedded_target(where=where, **options)
    if "base_url" not in table:
        raise TargetError(f"{where}: base_url is required (or embedded = true)")
    if not isinstance(table["base_url"], str):
        shown = type(table["base_url"]).__name__
        raise TargetError(f"{where}: base_url must be a string (a URL), not {shown}")
    if not isinstance(options.get("model"), str):
        raise TargetError(f"{where}: model is required")
    return _checked(Target(base_url=table["base_url"], **options), where)


def _shown(value: Any) -> str:
    """A wrong value in an error: short, on one line."""
    return truncate(" ".join(repr(value).split()), 40)


def _checked(target: Target, where: str | None = None) -> Target:
    """``target`` validated (every field of the type it needs); errors start with ``where``
    (a --targets file's ``FILE: [targets.NAME]``), else the target's name."""
    at = where or target.name
    if not isinstance(target.name, str) or not _NAME.match(target.name):
        named = f"{where}: the name" if where else f"target name {target.name!r}"
        raise TargetError(f"{named}: use letters, digits, '.', '_' or '-'")
    if target.base_url is not None:
        # with or without /v1, as every CLI of the family takes it (docs/cli.md)
        try:
            used, _ = base_url(target.base_url, flag="base URL")
        except BaseURLError as exc:
            raise TargetError(f"{at}: {exc}") from None
        target = replace(target, base_url=used)
    bad = [p for p in target.profiles if p not in ALL_PROFILES]
    if bad:
        raise TargetError(
            f"{at}: unknown profile(s) {', '.join(bad)}; known: {', '.join(ALL_PROFILES)}"
        )
    if "core" not in target.profiles:
        target = replace(target, profiles=("core", *target.profiles))
    unknown = [c for c in target.expected_failures if c not in REGISTRY]
    if unknown:
        raise TargetError(f"{at}: expected failure(s) name no check: {', '.join(unknown)}")
    timeout = target.timeout
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise TargetError(
            f"{at}: timeout must be a positive number of seconds, got {_shown(timeout)}"
        )
    if not (math.isfinite(timeout) and timeout > 0):
        raise TargetError(
            f"{at}: timeout must be a positive number of seconds, got {_shown(timeout)}"
        )
    for key in ("max_events", "max_body_bytes"):
        value = getattr(target, key)
        if not (type(value) is int and value > 0):
            raise TargetError(f"{at}: {key} must be a positive integer, got {_shown(value)}")
    if not isinstance(target.model, str) or not target.model:
        raise TargetError(f"{at}: model must be a non-empty string, got {_shown(target.model)}")
    if not isinstance(target.api_key_env, str):
        raise TargetError(
            f"{at}: api_key_env must be the name of an environment variable, got "
            f"{_shown(target.api_key_env)}"
        )
    for key in ("embedded", "follows_instructions"):
        if not isinstance(getattr(target, key), bool):
            raise TargetError(
                f"{at}: {key} must be true or false, got {_shown(getattr(target, key))}"
            )
    return replace(target, timeout=float(timeout))


def _name_from_url(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "target").replace(":", "-")
    name = f"{host}-{parts.port}" if parts.port else host
    return re.sub(r"[^A-Za-z0-9._-]", "-", name)[:64]
