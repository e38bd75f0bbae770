"""What each flow runs (the commands, in order) and how its outcome is read from what the client
left: its exit code, its output (Codex's ``exec --json`` events), the files in its workdir.

Sans I/O but for the paths: :func:`commands` builds the command lines, :func:`judge` reads the
finished steps. The prompts are plain requests any model follows (``Run `echo …```, "What is my
name?"); the mock server answers them as a model would, so no flow needs a scripted server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .catalog import ClientSpec, FlowSpec
from .install import Installed

__all__ = ["Step", "StepResult", "codex_config", "commands", "judge", "last_events"]

CODEX_LAUNCHER = "node_modules/@openai/codex/bin/codex.js"
# The first turn's input is Codex's base prompt (~9k tokens against the mock: instructions,
# tools, environment); a limit below what the first turn used makes Codex compact (a summarizing
# turn of its own) before the resumed one: turn, compaction, turn.
COMPACT_LIMIT = 8000
_EVENTS_KEPT = 5


@dataclass(frozen=True, slots=True)
class Step:
    argv: list[str]
    cwd: Path


@dataclass(slots=True)
class StepResult:
    returncode: int | None  # None: killed (deadline or budget)
    stdout: str
    stderr: str
    events: list[dict[str, Any]] = field(default_factory=list)  # Codex's --json lines


# A provider named "OpenAI" is OpenAI's own to Codex: it compacts remotely (remote compaction
# v2: a `compaction_trigger` item, `x-codex-beta-features: remote_compaction_v2`) where a custom
# provider has a summarizing turn of its own (the captured compaction-remote-v2 flow).
_PROVIDER_NAMES = {"compaction-remote": "OpenAI"}


def codex_config(home: Path, base_url: str, model: str, flow: str = "") -> None:
    """A throwaway ``CODEX_HOME`` whose provider is the relay (Responses wire API, no retries:
    a failure is the server's answer, not hidden behind a retry)."""
    home.mkdir(parents=True, exist_ok=True)
    lines = [
        f"model = {json.dumps(model)}",
        'model_provider = "target"',
        "[model_providers.target]",
        f"name = {json.dumps(_PROVIDER_NAMES.get(flow, 'target'))}",
        f"base_url = {json.dumps(base_url)}",
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
    ]
    (home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _codex(installed: Installed, work: Path, *args: str) -> Step:
    argv = [
        installed.program, str(installed.home / CODEX_LAUNCHER), "exec", "--json",
        "--skip-git-repo-check", "--sandbox", "danger-full-access", "-C", str(work), *args,
    ]  # fmt: skip
    return Step(argv, work)


def commands(spec: ClientSpec, flow: FlowSpec, installed: Installed, root: Path) -> list[Step]:
    """The flow's command lines, run in order in ``root`` (a throwaway folder)."""
    if spec.kind == "python":
        script = installed.home / "python_flows.py"
        return [Step([installed.program, str(script), spec.name, flow.name], root)]
    if spec.kind == "node":
        script = installed.home / "flows.mjs"
        return [Step([installed.program, str(script), spec.name, flow.name], root)]
    work = root / "work"
    work.mkdir(exist_ok=True)
    limit = ("-c", f"model_auto_compact_token_limit={COMPACT_LIMIT}")
    prompts: dict[str, list[tuple[str, ...]]] = {
        "greeting": [("Say hello in one line.",)],
        "tool-loop": [("Run `echo harness-ran` and tell me what it printed.",)],
        "file-edit": [("Run `echo harness-edit > harness-note` please.",)],
        "exec-resume": [("My name is Ada.",), ("resume", "--last", "What is my name?")],
        "compaction": [
            (*limit, "Remember this code word: PLUM."),
            (*limit, "resume", "--last", "What was the code word I asked you to remember?"),
        ],
    }
    prompts["compaction-remote"] = prompts["compaction"]
    return [_codex(installed, work, *p) for p in prompts[flow.name]]


def parse_events(stdout: str) -> list[dict[str, Any]]:
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                events.append(value)
    return events


def last_events(events: list[dict[str, Any]]) -> list[str]:
    """The last events, shortened, as evidence."""
    shown = []
    for event in events[-_EVENTS_KEPT:]:
        text = json.dumps(event, ensure_ascii=False)
        shown.append(text if len(text) <= 400 else text[:399] + "…")
    return shown


def _items(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        e["item"]
        for e in events
        if e.get("type") == "item.completed"
        and isinstance(e.get("item"), dict)
        and e["item"].get("type") == kind
    ]


def _codex_failure(step: StepResult) -> str | None:
    """Codex's own words when a turn failed (``turn.failed``, an ``error`` event)."""
    for event in reversed(step.events):
        if event.get("type") == "turn.failed":
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            return f"turn.failed: {message}"
        if event.get("type") == "error":
            return f"error: {event.get('message')}"
    return None


def judge(
    spec: ClientSpec, flow: FlowSpec, steps: list[StepResult], root: Path, requests: int
) -> str | None:
    """``None`` when the flow worked, else why not (one line; the evidence is kept apart).
    ``requests``: how many the relay saw (a compaction is a request of its own)."""
    for n, step in enumerate(steps, start=1):
        where = f"step {n} of {len(steps)}: " if len(steps) > 1 else ""
        if step.returncode != 0:
            said = _codex_failure(step) if spec.kind == "codex" else None
            if step.returncode == 3 and spec.kind != "codex":
                said = _last_line(step.stderr, "flow failed:")
            if said is None and spec.kind == "node":  # its error's first line, then the stack
                said = _first_line(step.stderr)
            tail = said or _last_line(step.stderr) or _last_line(step.stdout)
            return f"{where}exit {step.returncode}" + (f": {tail}" if tail else "")
    if spec.kind != "codex":
        return None
    last = steps[-1]
    failure = _codex_failure(last)
    if failure is not None:
        return failure
    answers = [str(i.get("text", "")) for i in _items(last.events, "agent_message")]
    if not any(a.strip() for a in answers):
        return "Codex ended without an answer (no agent_message)"
    if flow.name == "tool-loop":
        runs = _items(last.events, "command_execution")
        if not any("harness-ran" in str(r.get("aggregated_output", "")) for r in runs):
            return f"no command printed harness-ran ({len(runs)} command(s) run)"
    elif flow.name == "file-edit":
        note = root / "work" / "harness-note"
        if not note.exists() or "harness-edit" not in note.read_text(errors="replace"):
            return "harness-note was not written with harness-edit"
    elif flow.name == "exec-resume":
        if not any("ada" in a.lower() for a in answers):
            return f"the resumed turn lost the first: {answers[-1][:200]!r}"
    elif flow.name in ("compaction", "compaction-remote"):
        if requests < 3:
            return f"no compaction: {requests} request(s) for two turns (a compaction is a third)"
        if not any("plum" in a.lower() for a in answers):
            return f"after compaction the code word was lost: {answers[-1][:200]!r}"
    return None


def _last_line(text: str, prefix: str = "") -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if prefix:
        lines = [line for line in lines if line.startswith(prefix)]
    if not lines:
        return ""
    line = lines[-1]
    return line if len(line) <= 400 else line[:399] + "…"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= 400 else line[:399] + "…"
    return ""
