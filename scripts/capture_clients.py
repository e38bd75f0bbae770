"""Re-capture the catalogue of what real clients send (conformance/clients/captured, docs/client-catalogue.md).

Each flow runs one real client against a fresh ``responses-mock --record DIR --frozen-time``;
the cassette the mock wrote becomes the flow's fixture (tests/support/client_catalogue.py:
normalised ids, blobs, paths and dates; credentials were redacted by the cassette writer).

    python scripts/capture_clients.py            # re-capture every flow, rewrite the fixtures
    python scripts/capture_clients.py --check    # capture afresh, diff against the fixtures
    python scripts/capture_clients.py --only codex --only agents-sdk/streamed

Clients: the Python ones (openai, openai-agents, langchain-openai) from the running interpreter;
the Node ones (@openai/codex, ai + @ai-sdk/openai, openai) from scripts/client_capture, installed
with ``npm ci`` there (node_modules is git-ignored). Exit codes: 0 captured (or no drift),
1 drift (``--check``) or a flow that failed, 2 the run itself broke (no node, no mock).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "scripts" / "client_capture"
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]

from client_catalogue import FIXTURES, catalogue_entry, diff, dump, fixture_path, leaks  # noqa: E402

from cassettes import read_cassette  # noqa: E402

API_KEY = "sk-Qz7vK2mW9pX4rT8n"  # the mock requires it; the cassette writer redacts it
FROZEN = "1700000000"

# Agent scripts (mock_server/agent_script.py) that make the mock drive each tool loop.
CODEX_SCRIPT = {
    "rules": [
        {
            "when": "CONTEXT CHECKPOINT COMPACTION",
            "steps": [{"say": "Summary: the user gave a code word."}],
        },
        {
            "when": "Run the check",
            "steps": [
                {"call": ["exec_command", "shell"], "arguments": {"cmd": "echo codex-ran-this"}},
                {"say": "The command printed codex-ran-this."},
            ],
        },
        {
            "when": "long answer",
            "steps": [{"say": " ".join(["The code word is kept safe here."] * 200)}],
        },
        # Scripted, as the next request replays it: the mock's own reply would depend on Codex's
        # random ids in the request, and the capture would differ on every run.
        {"when": "Remember this code word", "steps": [{"say": "Noted: PLUM."}]},
        {"steps": []},
    ]
}


@dataclass(frozen=True)
class Flow:
    client: str
    flow: str
    package: str
    description: str
    run: Callable[[str, Path], list[list[str]]]  # (base_url, root) -> commands, run in order
    env: dict[str, str] = field(default_factory=dict)


def _node_version(package: str) -> str:
    meta = HERE / "node_modules" / package / "package.json"
    return str(json.loads(meta.read_text())["version"]) if meta.exists() else "not installed"


def version(package: str) -> str:
    if package.startswith("@") or package in {"ai", "openai-node"}:
        name = "openai" if package == "openai-node" else package
        return _node_version(name)
    return importlib.metadata.version(package)


# --- Codex CLI -----------------------------------------------------------------------------------


def _codex_home(root: Path, base_url: str, *, name: str = "mock", websockets: bool = False) -> None:
    home = root / "home"
    home.mkdir(exist_ok=True)
    (root / "work").mkdir(exist_ok=True)
    lines = [
        'model = "mock"',
        'model_provider = "mock"',
        "[model_providers.mock]",
        f"name = {json.dumps(name)}",
        f"base_url = {json.dumps(base_url)}",
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        f'http_headers = {{ "x-mock-script" = {json.dumps(json.dumps(CODEX_SCRIPT))} }}',
    ]
    if websockets:
        lines.append("supports_websockets = true")
    (home / "config.toml").write_text("\n".join(lines) + "\n")


def _codex(root: Path, *args: str) -> list[str]:
    launcher = HERE / "node_modules" / "@openai" / "codex" / "bin" / "codex.js"
    return [
        shutil.which("node") or "node",
        str(launcher),
        "exec",
        "--skip-git-repo-check",
        "--sandbox",
        "danger-full-access",
        "-C",
        str(root / "work"),
        *args,
    ]


def codex_flow(*prompts: tuple[str, ...], name: str = "mock", websockets: bool = False) -> Callable:
    def run(base_url: str, root: Path) -> list[list[str]]:
        _codex_home(root, base_url, name=name, websockets=websockets)
        return [_codex(root, *p) for p in prompts]

    return run


LIMIT = ("-c", "model_auto_compact_token_limit=7000")
REMEMBER = (*LIMIT, "Remember this code word: PLUM. Then give a long answer.")
RECALL = (*LIMIT, "resume", "--last", "What was the code word I asked you to remember?")


def script_flow(kind: str, client: str, flow: str) -> Callable:
    def run(base_url: str, root: Path) -> list[list[str]]:
        if kind == "python":
            return [[sys.executable, str(HERE / "python_flows.py"), client, flow]]
        return [[shutil.which("node") or "node", str(HERE / "node_flows.mjs"), client, flow]]

    return run


def _flows() -> list[Flow]:
    codex = "@openai/codex"
    flows = [
        Flow("codex", "exec", codex, "codex exec, one answer", codex_flow(("Say hello",))),
        Flow(
            "codex",
            "tool-loop",
            codex,
            "exec_command call, its output, the answer",
            codex_flow(("Run the check",)),
        ),
        Flow(
            "codex",
            "exec-resume",
            codex,
            "codex exec, then exec resume --last (store: false)",
            codex_flow(
                ("Remember this code word: PLUM.",),
                ("resume", "--last", "What was the code word I asked you to remember?"),
            ),
        ),
        Flow(
            "codex",
            "compaction-summary",
            codex,
            "auto-compaction by a summarizing turn (a custom provider)",
            codex_flow(REMEMBER, RECALL),
        ),
        Flow(
            "codex",
            "compaction-remote-v2",
            codex,
            "remote compaction v2: a compaction_trigger item (a provider named OpenAI)",
            codex_flow(REMEMBER, RECALL, name="OpenAI"),
        ),
        Flow(
            "codex",
            "websocket",
            codex,
            "the Responses WebSocket transport (supports_websockets = true), a tool loop",
            codex_flow(("Run the check",), ("resume", "--last", "Say hello"), websockets=True),
        ),
    ]
    python = {
        "openai-python": (
            "openai",
            [
                "stream",
                "parse",
                "background",
                "connect",
                "compact",
                "conversations",
                "function-tools",
            ],
        ),
        "agents-sdk": (
            "openai-agents",
            ["runner-tools", "streamed", "conversations-session", "model-settings"],
        ),
        "langchain": ("langchain-openai", ["invoke-tools", "stream-reasoning"]),
    }
    for client, (package, names) in python.items():
        for name in names:
            flows.append(
                Flow(
                    client,
                    name,
                    package,
                    f"{client} {name} (python_flows.py)",
                    script_flow("python", client, name),
                )
            )
    node = {
        "vercel-ai": (
            "@ai-sdk/openai",
            ["generate-tools", "stream-tools", "reasoning", "images-files", "item-references"],
        ),
        "openai-node": (
            "openai-node",
            ["stream", "parse", "background", "websocket", "function-tools"],
        ),
    }
    for client, (package, names) in node.items():
        for name in names:
            flows.append(
                Flow(
                    client,
                    name,
                    package,
                    f"{client} {name} (node_flows.mjs)",
                    script_flow("node", client, name),
                )
            )
    return flows


# --- the mock, recording -------------------------------------------------------------------------


class RecordingMock:
    def __init__(self, record: Path) -> None:
        command = [
            sys.executable,
            "-m",
            "mock_server.cli",
            "--port",
            "0",
            "--frozen-time",
            FROZEN,
            "--api-key-env",
            "CAPTURE_MOCK_KEY",
            "--record",
            str(record),
        ]
        env = {**os.environ, "CAPTURE_MOCK_KEY": API_KEY, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.proc.kill()
            raise SystemExit(f"capture_clients: the mock did not start: {line.strip()}")
        self.url = line.split("listening on", 1)[1].strip()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def capture(flow: Flow, scratch: Path) -> tuple[dict, list[str]]:
    """Run one flow against a recording mock; its catalogue entry and the clients' failures."""
    root = Path(tempfile.mkdtemp(prefix=f"{flow.client}-{flow.flow}-", dir=scratch))
    record = root / "cassette"
    mock = RecordingMock(record)
    failures: list[str] = []
    try:
        base = mock.url + "/v1"
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(root / "home"),
            "CODEX_HOME": str(root / "home"),
            "OPENAI_API_KEY": API_KEY,
            "OPENAI_BASE_URL": base,
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
            "NO_COLOR": "1",
            "TZ": "UTC",
            "PYTHONPATH": str(ROOT),
            **flow.env,
        }
        (root / "home").mkdir(exist_ok=True)
        for command in flow.run(base, root):
            done = subprocess.run(
                command,
                env=env,
                cwd=root,
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            if done.returncode != 0:
                failures.append(
                    f"{flow.client}/{flow.flow}: exit {done.returncode}: "
                    f"{(done.stderr or done.stdout).strip()[-600:]}"
                )
    finally:
        mock.close()
    exchanges = read_cassette(record) if record.exists() else []
    entry = catalogue_entry(
        exchanges,
        client=flow.client,
        package=flow.package.replace("openai-node", "openai (npm)"),
        version=version(flow.package),
        flow=flow.flow,
        description=flow.description,
        paths={
            str(root / "home"): "<HOME>",
            str(root): "<ROOT>",
            str(ROOT): "<REPO>",
            sys.executable: "<PYTHON>",
        },
    )
    found = leaks(dump(entry), [API_KEY])
    if found:
        failures.append(f"{flow.client}/{flow.flow}: the capture leaks {sorted(set(found))}")
    return entry, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="capture afresh and diff against the fixtures; write nothing",
    )
    parser.add_argument("--only", action="append", default=[], metavar="CLIENT[/FLOW]")
    parser.add_argument("--fixtures", type=Path, default=FIXTURES)
    args = parser.parse_args(argv)
    if shutil.which("node") is None:
        print("capture_clients: node is not on PATH", file=sys.stderr)
        return 2
    if not (HERE / "node_modules").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    flows = [
        f
        for f in _flows()
        if not args.only or f.client in args.only or f"{f.client}/{f.flow}" in args.only
    ]
    status = 0
    with tempfile.TemporaryDirectory(prefix="cc-") as scratch:
        for flow in flows:
            entry, failures = capture(flow, Path(scratch))
            for failure in failures:
                print(failure, file=sys.stderr)
                status = 1
            path = fixture_path(flow.client, flow.flow, args.fixtures)
            name = f"{flow.client}/{flow.flow}"
            if args.check:
                old = json.loads(path.read_text()) if path.exists() else {}
                changed = diff(old, entry, name)
                print(
                    f"{name}: {'DRIFT' if changed else 'same'}"
                    f" ({len(entry['exchanges'])} exchanges)"
                )
                if changed:
                    sys.stdout.write(changed)
                    status = 1
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(dump(entry))
                print(f"{name}: {len(entry['exchanges'])} exchanges -> {path.relative_to(ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
