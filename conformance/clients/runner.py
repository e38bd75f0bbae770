"""Run the chosen clients' flows against a target: the embedded mock when no base URL is given,
a judgeability preflight (the suite's: :mod:`conformance.suite.judgeable`), then each flow in a
throwaway folder, its client a subprocess talking to a fresh loopback :class:`~.relay.Relay`,
under a deadline and a request budget."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path

from cassettes.redaction import Redactor

from ..suite.embedded import EmbeddedMockError, served
from ..suite.runner import _client, first_request, preflight
from ..suite.targets import Target
from .catalog import CLIENTS, ClientSpec, FlowSpec
from .flows import Step, StepResult, codex_config, commands, judge, last_events, parse_events
from .install import ClientUnavailable, Installed, Installer
from .relay import Relay, RelayError
from .results import ClientResult, FlowResult, HarnessResult

__all__ = ["run_clients"]

_NO_KEY = "sk-noKey-7Qp2xZ9wVb"  # the SDKs want a key; a server that needs none ignores it
_TAIL = 1500


def run_clients(
    target: Target,
    clients: Sequence[str],
    *,
    installer: Installer,
    deadline: float,
    redactor: Redactor,
    flows: Sequence[str] = (),
    on_flow: Callable[[FlowResult], None] | None = None,
) -> HarnessResult:
    started = time.monotonic()
    result = HarnessResult(target)
    try:
        with served(target) as resolved:
            result.target = resolved
            reason = preflight(resolved)
            if reason is None:
                client = _client(resolved)
                try:
                    reason = first_request(resolved, client)
                finally:
                    client.close()
            if reason is not None:
                result.status, result.reason = "not_judged", reason
                return result
            for name in clients:
                spec = CLIENTS[name]
                chosen = [f for f in spec.flows if not flows or f.name in flows or
                          f"{name}/{f.name}" in flows]  # fmt: skip
                if not chosen:
                    continue
                result.clients.append(
                    _run_client(resolved, spec, chosen, installer, deadline, redactor, on_flow)
                )
    except EmbeddedMockError as exc:
        result.status, result.reason = "broken", str(exc)
    except RelayError as exc:
        result.status, result.reason = "broken", str(exc)
    finally:
        result.duration = time.monotonic() - started
    return result


def _run_client(
    target: Target,
    spec: ClientSpec,
    flows: list[FlowSpec],
    installer: Installer,
    deadline: float,
    redactor: Redactor,
    on_flow: Callable[[FlowResult], None] | None,
) -> ClientResult:
    client = ClientResult(spec.name, spec.title)
    try:
        installed = installer.get(spec)
    except ClientUnavailable as exc:
        client.status, client.reason = "unavailable", str(exc)
        return client
    client.version, client.source = installed.version, installed.source
    for flow in flows:
        outcome = _run_flow(target, spec, flow, installed, deadline, redactor)
        client.flows.append(outcome)
        if on_flow is not None:
            on_flow(outcome)
    return client


def _run_flow(
    target: Target,
    spec: ClientSpec,
    flow: FlowSpec,
    installed: Installed,
    deadline: float,
    redactor: Redactor,
) -> FlowResult:
    assert target.base_url is not None
    outcome = FlowResult(spec.name, flow.name, flow.description, flow.budget, deadline)
    started = time.monotonic()
    if spec.kind == "node":  # the flows script runs beside the installed node_modules
        script = Path(__file__).parent / "node" / "js" / "flows.mjs"
        (installed.home / "flows.mjs").write_bytes(script.read_bytes())
    with (
        tempfile.TemporaryDirectory(prefix=f"clients-{spec.name}-{flow.name}-") as tmp,
        Relay(target.base_url, target, redactor) as relay,
    ):
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        if spec.kind == "codex":
            codex_config(home, relay.base_url, target.model, flow.name)
        env = _env(target, relay.base_url, home)
        steps: list[StepResult] = []
        stop_why: str | None = None
        for step in commands(spec, flow, installed, root):
            left = deadline - (time.monotonic() - started)
            done, stop_why = _run_step(step, env, left, relay, flow.budget)
            if spec.kind == "codex":
                done.events = parse_events(done.stdout)
            steps.append(done)
            if stop_why is not None or done.returncode != 0:
                break
        relay.wait_idle()
        outcome.requests = relay.requests
        if stop_why is None and relay.requests > flow.budget:
            stop_why = (
                f"made more than {flow.budget} requests ({relay.requests}): over the flow's "
                "budget, the client loops"
            )
        outcome.reason = stop_why or judge(spec, flow, steps, root, relay.requests)
        outcome.outcome = "fail" if outcome.reason else "pass"
        outcome.duration = time.monotonic() - started
        outcome.protocol = relay.protocol()
        if outcome.reason:
            last = steps[-1] if steps else None
            outcome.evidence = {
                "exit_code": last.returncode if last else None,
                "stderr_tail": _tail(last.stderr) if last else "",
                "stdout_tail": _tail(last.stdout) if last and not last.events else "",
                "last_events": last_events(last.events) if last else [],
                "last_requests": relay.last(),
                "steps_run": len(steps),
            }
    return outcome


def _env(target: Target, base_url: str, home: Path) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR", "SSL_CERT_FILE", "SSL_CERT_DIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(
        {
            "HOME": str(home),
            "CODEX_HOME": str(home),
            "OPENAI_BASE_URL": base_url,
            "OPENAI_API_KEY": target.api_key() or _NO_KEY,
            "RESPONSES_CLIENTS_MODEL": target.model,
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
            "NO_COLOR": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def _run_step(
    step: Step, env: dict[str, str], left: float, relay: Relay, budget: int
) -> tuple[StepResult, str | None]:
    """One command under the flow's deadline and budget; the second value says why it was
    stopped (``None``: it ended by itself)."""
    out = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
    err = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
    why: str | None = None
    try:
        try:
            proc = subprocess.Popen(
                step.argv, cwd=step.cwd, env=env, stdout=out, stderr=err,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            return StepResult(127, "", f"could not start {step.argv[0]}: {exc}"), None
        end = time.monotonic() + max(left, 0.0)
        while proc.poll() is None:
            if relay.requests > budget:
                why = (
                    f"made more than {budget} requests ({relay.requests} so far): "
                    "the client loops; stopped"
                )
                break
            if time.monotonic() >= end:
                why = f"did not finish within the flow's deadline ({left:.0f} s left); stopped"
                break
            time.sleep(0.1)
        code = proc.poll()
        if code is None:
            _kill(proc)
        out.seek(0)
        err.seek(0)
        return StepResult(code if why is None else None, out.read(), err.read()), why
    finally:
        out.close()
        err.close()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """End the client and what it started (its own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(5)
    except (ProcessLookupError, PermissionError):
        pass
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _TAIL else "…" + text[-_TAIL:]
