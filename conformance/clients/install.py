"""Each client program installed on first use into a cache, pinned; ``--latest`` tries the newest.

- **Node clients** (Codex CLI, the Vercel AI SDK, openai-node): the pinned ``package.json`` and
  ``package-lock.json`` of :data:`NODE_DIR` (``codex/``, ``js/``) installed with ``npm ci`` into
  ``CACHE/node/<folder>-<hash of the lockfile>``, once (a second run installs nothing); with
  ``latest``, ``npm install PKG@latest …`` into ``CACHE/node/<folder>-latest``, every run.
- **Python clients** (openai-python, the Agents SDK): the running interpreter when it already has
  the pinned versions, else a virtual environment ``CACHE/python/<hash of the pins>`` made with
  ``pip install PINS``; with ``latest``, ``CACHE/python/latest`` upgraded every run; with
  ``--python PATH``, that interpreter as it is (its own versions are reported).

``CACHE`` is ``--cache-dir``, else ``$RESPONSES_CLIENTS_CACHE``, else
``$XDG_CACHE_HOME/responses-conformance/clients`` (``~/.cache/…``). A client that cannot be had
(no ``node``/``npm``, a registry that does not answer, ``--offline`` and nothing cached) raises
:class:`ClientUnavailable`: that is no verdict on the server (exit 2).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .catalog import ClientSpec

__all__ = ["NODE_DIR", "ClientUnavailable", "Installed", "Installer", "default_cache"]

NODE_DIR = Path(__file__).resolve().parent / "node"
SCRIPTS_DIR = Path(__file__).resolve().parent / "scripts"
_NPM_TIMEOUT = 600.0
_PIP_TIMEOUT = 600.0


class ClientUnavailable(RuntimeError):
    """The client program could not be installed or started: one line why."""


@dataclass(frozen=True, slots=True)
class Installed:
    """Where a client runs from: ``program`` (node or python) and the folder its flows run in."""

    client: str
    program: str
    home: Path  # node: the folder with node_modules; python: the scripts folder
    version: str  # "openai 3.63.0", "@openai/codex 0.171.0"
    source: str  # "pinned", "pinned (this Python)", "latest"


def default_cache() -> Path:
    given = os.environ.get("RESPONSES_CLIENTS_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "responses-conformance" / "clients"


def _short(text: str, limit: int = 400) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else "…" + flat[-limit:]


class Installer:
    def __init__(
        self, cache: Path, *, latest: bool = False, offline: bool = False,
        python: str | None = None,
    ) -> None:  # fmt: skip
        """``python``: run the Python clients with this interpreter, as it is (``--python``)."""
        self.cache = cache
        self.latest = latest
        self.offline = offline
        self.python = python
        self._done: dict[str, Installed] = {}

    def get(self, spec: ClientSpec) -> Installed:
        key = spec.node_dir or "python:" + spec.name
        if key not in self._done or spec.kind == "python":
            self._done[key] = (
                self._node(spec) if spec.kind in ("node", "codex") else self._python(spec)
            )
        found = self._done[key]
        if spec.kind != "python":
            found = Installed(
                spec.name, found.program, found.home,
                _node_versions(found.home, spec.packages), found.source,
            )  # fmt: skip
        return found

    # ------------------------------------------------------------------ node

    def _node(self, spec: ClientSpec) -> Installed:
        node, npm = shutil.which("node"), shutil.which("npm")
        if node is None or npm is None:
            raise ClientUnavailable(f"{spec.name} needs node and npm on PATH")
        major = _node_major(node)
        if major is None or major < spec.min_node:
            raise ClientUnavailable(f"{spec.name} needs Node >= {spec.min_node} (found {major})")
        assert spec.node_dir is not None
        pinned = NODE_DIR / spec.node_dir
        marker = spec.marker
        if self.latest:
            where = self.cache / "node" / f"{spec.node_dir}-latest"
            if self.offline:
                if not (where / marker).exists():
                    raise ClientUnavailable(f"{spec.name}: --offline, and no newest install cached")
                return Installed(spec.name, node, where, "", "latest")
            where.mkdir(parents=True, exist_ok=True)
            if not (where / "package.json").exists():
                meta = json.loads((pinned / "package.json").read_text(encoding="utf-8"))
                meta.pop("dependencies", None)
                (where / "package.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
            wanted = json.loads((pinned / "package.json").read_text(encoding="utf-8"))
            packages = [f"{name}@latest" for name in wanted.get("dependencies", {})]
            self._npm(npm, where, ["install", "--no-save", *packages], spec.name)
            if not (where / marker).exists():
                raise ClientUnavailable(f"{spec.name}: npm install left no {marker}")
            return Installed(spec.name, node, where, "", "latest")
        lock = (pinned / "package-lock.json").read_bytes()
        where = self.cache / "node" / f"{spec.node_dir}-{hashlib.sha256(lock).hexdigest()[:12]}"
        if (where / marker).exists():
            return Installed(spec.name, node, where, "", "pinned")
        if self.offline:
            raise ClientUnavailable(f"{spec.name}: --offline, and it is not in the cache ({where})")
        where.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f"{where.name}.", dir=where.parent))
        try:
            for name in ("package.json", "package-lock.json"):
                shutil.copyfile(pinned / name, partial / name)
            self._npm(npm, partial, ["ci"], spec.name)
            if not (partial / marker).exists():
                raise ClientUnavailable(f"{spec.name}: npm ci left no {marker}")
            try:
                partial.rename(where)
            except OSError:  # another run installed it first
                if not (where / marker).exists():
                    raise
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        return Installed(spec.name, node, where, "", "pinned")

    def _npm(self, npm: str, cwd: Path, args: list[str], name: str) -> None:
        command = [npm, *args, "--no-audit", "--no-fund", "--fetch-timeout=60000"]
        try:
            done = subprocess.run(
                command, cwd=cwd, capture_output=True, text=True, check=False,
                timeout=_NPM_TIMEOUT, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise ClientUnavailable(
                f"{name}: npm {args[0]} took more than {_NPM_TIMEOUT:g} s"
            ) from None
        except OSError as exc:
            raise ClientUnavailable(f"{name}: npm could not start: {exc}") from None
        if done.returncode != 0:
            raise ClientUnavailable(
                f"{name}: npm {args[0]} failed: {_short(done.stderr or done.stdout)}"
            )

    # ------------------------------------------------------------------ python

    def _python(self, spec: ClientSpec) -> Installed:
        pins = spec.packages
        names = [_name(pin) for pin in pins]
        if self.python is not None:
            version = self._python_versions(Path(self.python), names)
            return Installed(spec.name, self.python, SCRIPTS_DIR, version, "given (--python)")
        if not self.latest and all(_have(pin) for pin in pins):
            return Installed(
                spec.name, sys.executable, SCRIPTS_DIR, _pins_shown(pins), "pinned (this Python)"
            )
        tag = "latest" if self.latest else hashlib.sha256("\n".join(pins).encode()).hexdigest()[:12]
        where = self.cache / "python" / tag
        python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        ready = where / "installed.json"
        fresh = ready.exists() and json.loads(ready.read_text(encoding="utf-8")) == pins
        if self.offline:
            if not python.exists() or not (fresh or self.latest):
                raise ClientUnavailable(f"{spec.name}: --offline, and it is not in the cache")
        elif self.latest or not fresh:
            if not python.exists():
                self._run([sys.executable, "-m", "venv", str(where)], spec.name, "venv")
            wanted = [pin.split("==", 1)[0] for pin in pins] if self.latest else [*pins]
            upgrade = ["--upgrade"] if self.latest else []
            self._run(
                [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 *upgrade, *wanted],
                spec.name, "pip install",
            )  # fmt: skip
            if not self.latest:
                ready.write_text(json.dumps(pins), encoding="utf-8")
        version = self._python_versions(python, names)
        return Installed(
            spec.name, str(python), SCRIPTS_DIR, version, "latest" if self.latest else "pinned"
        )

    def _run(self, command: list[str], name: str, what: str) -> None:
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, check=False, timeout=_PIP_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise ClientUnavailable(f"{name}: {what} took more than {_PIP_TIMEOUT:g} s") from None
        except OSError as exc:
            raise ClientUnavailable(f"{name}: {what} could not start: {exc}") from None
        if done.returncode != 0:
            raise ClientUnavailable(f"{name}: {what} failed: {_short(done.stderr or done.stdout)}")

    def _python_versions(self, python: Path, names: list[str]) -> str:
        code = (
            "import importlib.metadata as m, sys\n"
            "print(', '.join(f'{n} {m.version(n)}' for n in sys.argv[1:]))"
        )
        try:
            done = subprocess.run(
                [str(python), "-c", code, *names], capture_output=True, text=True, check=False,
                timeout=60,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ClientUnavailable(f"{python} could not run: {exc}") from None
        if done.returncode != 0:
            raise ClientUnavailable(f"{names[0]} is not importable: {_short(done.stderr)}")
        return done.stdout.strip()


def _name(pin: str) -> str:
    """The distribution of a pin: ``openai[realtime]==3.63.0`` → ``openai``."""
    return pin.split("==", 1)[0].split("[", 1)[0]


def _have(pin: str) -> bool:
    name, version = _name(pin), pin.partition("==")[2]
    try:
        return importlib.metadata.version(name) == version
    except importlib.metadata.PackageNotFoundError:
        return False


def _pins_shown(pins: tuple[str, ...]) -> str:
    return ", ".join(f"{_name(pin)} {pin.partition('==')[2]}" for pin in pins)


def _node_major(node: str) -> int | None:
    try:
        done = subprocess.run(
            [node, "--version"], capture_output=True, text=True, check=False, timeout=30
        )
        return int(done.stdout.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def _node_versions(home: Path, packages: tuple[str, ...]) -> str:
    shown = []
    for package in packages:
        meta = home / "node_modules" / package / "package.json"
        try:
            version = json.loads(meta.read_text(encoding="utf-8"))["version"]
        except (OSError, ValueError, KeyError):
            version = "?"
        shown.append(f"{package} {version}")
    return ", ".join(shown)
