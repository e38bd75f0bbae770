"""Helpers of the SGLang CPU tests: the flags and environment SGLang needs on CPU, server
processes that are polled until ready, and conformance-suite runs.

The flags are those ../shared/notes/sglang-on-cpu.md measured: ``--device cpu --attention-backend
torch_native --sampling-backend pytorch`` (the only path on which the ``sgl_kernel`` stand-in is never
called), ``--max-total-tokens 8192`` (else the KV cache takes 15 GB), ``--sleep-on-idle`` (else
the idle scheduler spins a core) and float32 (the scripted models' weights).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.perf.localhost import free_port as free_port
from benchmarks.perf.servers import wait_http

HERE = Path(__file__).resolve().parent
STUBS = HERE / "cpu_stubs"
BIN = Path(sys.executable).parent

CPU_FLAGS = (
    "--device", "cpu", "--attention-backend", "torch_native", "--sampling-backend", "pytorch",
    "--max-total-tokens", "8192", "--sleep-on-idle", "--dtype", "float32",
)  # fmt: skip
# Per scripted model: SGLang's parsers for it, and the suite profiles it declares.
PARSERS: dict[str, tuple[str, ...]] = {
    "plain": ("--reasoning-parser", "qwen3"),
    "tools": ("--tool-call-parser", "qwen25"),
    "gpt_oss": ("--reasoning-parser", "gpt-oss", "--tool-call-parser", "gpt-oss"),
}
# What SGLang's own /v1/responses is judged on: the profiles SGLang claims (serving_responses.py,
# responses_adapters.py; benchmarks/vendors/catalog.py quotes each).
NATIVE_PROFILES: dict[str, tuple[str, ...]] = {
    "plain": ("core", "stateful", "reasoning", "stateless-reasoning"),
    "tools": ("core", "stateful", "tools", "custom-tools"),
    "gpt_oss": ("core", "stateful", "reasoning", "stateless-reasoning"),
}
_BASE = {"plain": ("core", "stateful", "reasoning"), "tools": ("core", "stateful", "tools")}
# What the reference declares on each model: core, stateful, and tools or
# reasoning, plus the state agents keep, which the protocol layer serves whatever the model — conversations, compaction (the
# history is sealed, no summary is sampled: reference_impl/service/compaction.py), websocket — and
# stateless-reasoning where the model reasons (a reasoning item carries the sealed blob). The
# vendor matrix's reference-* targets declare the same (a test in tests/vendors holds them equal).
_STATE = ("conversations", "compaction", "websocket")
PROFILES: dict[str, tuple[str, ...]] = {
    "plain": (*_BASE["plain"], *_STATE, "stateless-reasoning"),
    "tools": (*_BASE["tools"], *_STATE),
    "gpt_oss": (*_BASE["plain"], *_STATE, "stateless-reasoning"),
}
START_TIMEOUT = 300.0  # SGLang imports in three processes: 25-70 s here, more on a loaded machine


def cpu_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment SGLang needs on CPU; child processes inherit it (the stand-in reaches
    SGLang's scheduler and detokenizer through PYTHONPATH)."""
    env = dict(os.environ)
    env["SGLANG_USE_CPU_ENGINE"] = "1"  # without it: "No module named 'vllm'" from rotary embedding
    env["HF_HUB_OFFLINE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(STUBS), env.get("PYTHONPATH", "")) if p)
    env.update(extra or {})
    return env


class PortTaken(RuntimeError):
    """A server could not bind the port it was given (see `Process.port_taken`)."""


@dataclass
class Process:
    """A server subprocess in its own process group, with its output in a log file."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    base_url: str

    def wait_ready(self, path: str, deadline: float) -> None:
        if wait_http(self.base_url + path, deadline, process=self.popen, give_up=self.port_taken):
            return
        if self.popen.poll() is not None:
            raise RuntimeError(f"{self.name} exited ({self.popen.returncode}):\n{self.tail()}")
        if self.port_taken():
            raise PortTaken(f"{self.name}: its port was taken:\n{self.tail()}")
        raise RuntimeError(f"{self.name} not ready in time:\n{self.tail()}")

    def port_taken(self) -> bool:
        """Whether the server failed to bind its port. A port is chosen free (`free_port`) but
        bound only when SGLang has imported, a minute later, and in between another server's
        own ports (SGLang allocates several) may land on it; SGLang then hangs, not exits."""
        try:
            with self.log.open("rb") as handle:
                handle.seek(max(0, self.log.stat().st_size - 65536))
                return b"address already in use" in handle.read()
        except OSError:
            return False

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(10)


def spawn(
    name: str, argv: Sequence[str], log: Path, base_url: str, env: Mapping[str, str]
) -> Process:
    log.parent.mkdir(parents=True, exist_ok=True)
    handle = log.open("wb")
    popen = subprocess.Popen(
        list(argv), stdout=handle, stderr=subprocess.STDOUT, env=dict(env), start_new_session=True
    )
    handle.close()
    return Process(name, popen, log, base_url)


def start_native(kind: str, model: Path, log: Path, env: Mapping[str, str]) -> Process:
    """``python -m sglang.launch_server`` on a scripted model (not yet ready: see wait_ready)."""
    port = free_port()
    argv = [
        sys.executable, "-m", "sglang.launch_server", "--model-path", str(model),
        "--host", "127.0.0.1", "--port", str(port), *CPU_FLAGS, *PARSERS[kind],
        "--enable-response-store",
    ]  # fmt: skip
    return spawn(f"sglang-{kind}", argv, log, f"http://127.0.0.1:{port}", env)


def start_reference_remote(
    kind: str, sglang_url: str, log: Path, env: Mapping[str, str]
) -> Process:
    """``responses-reference --sglang-url`` in front of a native server's ``/generate``."""
    port = free_port()
    argv = [str(BIN / "responses-reference"), "--sglang-url", sglang_url, "--port", str(port)]
    return spawn(f"reference-{kind}", argv, log, f"http://127.0.0.1:{port}", env)


@dataclass(frozen=True)
class SuiteRun:
    exit_code: int
    index: dict[str, Any]
    output: str
    report_dir: Path

    def outcomes(self) -> dict[str, str]:
        """check id → outcome (pass / fail / warn / skip / …) of the run's only target."""
        targets = self.index.get("targets") or {}
        target = next(iter(targets.values())) if isinstance(targets, dict) and targets else {}
        checks = target.get("checks") if isinstance(target, dict) else None
        out: dict[str, str] = {}
        for check_id, entry in (checks or {}).items():
            out[check_id] = entry.get("outcome") if isinstance(entry, dict) else str(entry)
        return out


def suite_argv(
    base_url: str | None,
    model: str | None,
    name: str,
    profiles: Sequence[str],
    report_dir: Path,
    *,
    extra: Sequence[str] = (),
) -> list[str]:
    """``responses-conformance run`` as a user runs it (a separate process, over loopback);
    ``base_url`` None runs it against its embedded mock."""
    argv = [str(BIN / "responses-conformance"), "run", "--report-dir", str(report_dir)]
    if base_url is not None:
        argv += ["--base-url", f"{base_url}/v1", "--model", str(model), "--name", name,
                 "--profile", ",".join(profiles), "--no-instructions", "--timeout", "120"]  # fmt: skip
    return argv + list(extra)


def run_suites(
    runs: Mapping[str, list[str]], report_root: Path, timeout: float = 900
) -> dict[str, SuiteRun]:
    """Run several suites at once (each waits on its server most of the time, so two cores serve
    them better together than one after the other); name → result."""
    procs = {}
    for name, argv in runs.items():
        log = report_root / f"{name}.out"
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as handle:
            procs[name] = (subprocess.Popen(argv, stdout=handle, stderr=subprocess.STDOUT), log)
    deadline = time.monotonic() + timeout
    results = {}
    for name, (proc, log) in procs.items():
        try:
            code = proc.wait(max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        report_dir = Path(runs[name][runs[name].index("--report-dir") + 1])
        index_path = report_dir / "index.json"
        index = json.loads(index_path.read_text()) if index_path.exists() else {}
        results[name] = SuiteRun(code, index, log.read_text(errors="replace"), report_dir)
    return results


@dataclass
class Stack:
    """What the session runs: models, native servers, references, and where reports go."""

    models: dict[str, Path]
    env: dict[str, str]
    logs: Path
    reports: Path
    native: dict[str, Process] = field(default_factory=dict)
    remote_reference: dict[str, Process] = field(default_factory=dict)
    inprocess: Any = None  # InProcessStack
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class InProcessStack:
    backend: Any  # SpyBackend around InProcessBackend
    engine: Any
    server: Any  # ServerThread
    base_url: str


class SpyBackend:
    """Records what the engine asks of the backend (stream and abort rids), delegating all."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.started: list[str] = []
        self.aborted: list[str] = []

    def stream(self, input_ids: Any, sampling_params: Any, rid: str, **kw: Any) -> Any:
        self.started.append(rid)
        return self.inner.stream(input_ids, sampling_params, rid, **kw)

    async def abort(self, rid: str) -> None:
        self.aborted.append(rid)
        await self.inner.abort(rid)

    async def close(self) -> None:
        await self.inner.close()
