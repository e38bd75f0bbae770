"""The run: install, start, judge, stop — one backend at a time — then merge and summarize.

Targets are grouped by backend: the mock alone, then per scripted model one SGLang server that
SGLang-native is judged on directly and every bridge is put in front of (its
``/v1/chat/completions``). One SGLang server at a time: the machine has two cores. The suite runs
as a subprocess of the project's interpreter (``python -m conformance.cli run``), one target at a
time, each into ``<out>/targets/<name>/``; ``responses-conformance report`` merges the indexes
into ``<out>/merged/`` (``index.json``, ``report.html``), and :mod:`.summary` writes
``<out>/SUMMARY.md``. ``<out>/run.json`` keeps what was run: versions, commands, wall times.
"""

from __future__ import annotations

import datetime as dt
import json
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from conformance.clients.captured_flows import CLIENT_PROFILES as _CLIENT_PROFILES

from . import capabilities, venvs
from .catalog import SGLANG_MODELS, VENDORS, TargetSpec
from .services import Service, ServiceError
from .stack import (
    KEY_ENV,
    Launched,
    bridge_service,
    build_models,
    clean_env,
    mock_service,
    reference_service,
    sglang_service,
    vllm_service,
)

__all__ = ["RunOptions", "add_capabilities", "judge_command", "run"]

Log = Callable[[str], None]
PROBE_TIMEOUT_S = 30.0  # one probe request at most (a target's own timeout when shorter)


@dataclass(slots=True)
class RunOptions:
    out: Path
    repo: Path
    venv_root: Path
    sglang_python: Path | None = None
    suite_args: list[str] = field(default_factory=list)  # e.g. ["-k", "case"] for a reproduction
    slice_name: str = "full"
    probe: bool = True  # probe each target's capabilities after its suite (.capabilities)
    # judge each target on the client profiles too, in a run of its own (asked, not claimed:
    # its matrix verdict stays that of its claims; docs/vendors/matrix-notes.md, "Clients")
    clients: bool = False
    # run the real clients too (responses-conformance clients): "works with Codex / the Agents
    # SDK / the Vercel AI SDK / the openai SDKs", evidence beside the verdict, never in it
    harness: bool = False
    harness_clients: tuple[str, ...] = ()  # the harness's clients to run (empty: all)


def judge_command() -> list[str]:
    return [sys.executable, "-m", "conformance.cli"]


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    return done.stdout.strip()


def suite_base_url(spec: TargetSpec, launched: Launched) -> str:
    """The base URL to give the suite for a launched target: a server at the root is named by its
    endpoint, since an origin alone means ``/v1`` (docs/cli.md)."""
    return launched.base_url if spec.path else launched.base_url + "/responses"


def targets_toml(spec: TargetSpec, launched: Launched) -> str:
    """The suite's targets file for one target (``responses-conformance run --targets``): the
    flags' equivalent, plus the expected failures — defects a bridge inherits from its backend,
    each with the reason (``TargetSpec.inherited``), shown as XFAIL instead of blamed on it."""
    q = json.dumps  # a JSON string is a TOML basic string
    lines = [
        f"[targets.{q(spec.name)}]",
        f"base_url = {q(suite_base_url(spec, launched))}",
        f"model = {q(launched.model)}",
        f"profiles = [{', '.join(q(p) for p in spec.profiles)}]",
        f"timeout = {spec.timeout:g}",
        f"follows_instructions = {str(spec.follows_instructions).lower()}",
    ]
    if launched.api_key:
        lines.append(f"api_key_env = {q(KEY_ENV)}")
    if spec.inherited:
        lines.append(f"[targets.{q(spec.name)}.expected_failures]")
        lines += [f"{q(check)} = {q(why)}" for check, why in spec.inherited]
    return "\n".join(lines) + "\n"


def _suite(spec: TargetSpec, launched: Launched, opts: RunOptions, log: Log) -> dict[str, Any]:
    report = opts.out / "targets" / spec.name
    report.mkdir(parents=True, exist_ok=True)
    toml = report / "target.toml"
    toml.write_text(targets_toml(spec, launched))
    args = ["run", "--targets", str(toml), "--report-dir", str(report), *opts.suite_args]
    env = clean_env({KEY_ENV: launched.api_key} if launched.api_key else None)
    log(f"judging {spec.name} at {launched.base_url} ({', '.join(spec.profiles)})")
    started = time.monotonic()
    with (report / "suite.log").open("w") as console:
        done = subprocess.run(
            [*judge_command(), *args],
            stdout=console,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=opts.repo,
            check=False,
        )
    wall = time.monotonic() - started
    log(f"  {spec.name}: exit {done.returncode} in {wall:.1f} s")
    flags = [f"--base-url $BASE_URL --model {launched.model} --profile {','.join(spec.profiles)}"]
    if not spec.follows_instructions:
        flags.append("--no-instructions")
    flags += [f"--expect-fail {check}" for check, _ in spec.inherited]
    result: dict[str, Any] = {
        "exit_code": done.returncode,
        "suite_s": round(wall, 1),
        "command": "responses-conformance run " + " ".join(flags),
        "index": str(report / "index.json"),
    }
    if opts.clients:
        result["clients"] = _clients(spec, launched, opts, log)
    if opts.harness:
        result["harness"] = _harness(spec, launched, opts, log)
    if opts.probe:
        result.update(_probe(spec, launched, log))
    return result


def harness_clients(index: Path) -> dict[str, Any]:
    """Per client of a harness report (``clients --report-dir``'s index.json): its verdict, and
    per failed flow the client's own error and what the judge made of the flow's exchanges
    (``wire``: how many there were and how many broke a rule). A failure over exchanges that broke
    no rule is the answer's content (a scripted model's limits), not the server's protocol."""
    clients: dict[str, Any] = {}
    for target in json.loads(index.read_text()).get("targets", {}).values():
        for name, client in target.get("clients", {}).items():
            failed = {
                flow: entry
                for flow, entry in client.get("flows", {}).items()
                if entry.get("outcome") != "pass"
            }
            clients[name] = {
                "verdict": client.get("harness", ""),
                "reason": client.get("reason"),
                "failures": {flow: entry.get("reason", "") for flow, entry in failed.items()},
                "wire": {
                    flow: entry["protocol"]
                    for flow, entry in failed.items()
                    if isinstance(entry.get("protocol"), dict)
                },
            }
    return clients


def _harness(spec: TargetSpec, launched: Launched, opts: RunOptions, log: Log) -> dict[str, Any]:
    """The real clients (``responses-conformance clients``) against the target, into
    ``targets/<name>/harness/``: per client whether it works, and each failed flow with the
    client's own error."""
    report = opts.out / "targets" / spec.name / "harness"
    report.mkdir(parents=True, exist_ok=True)
    flags = ["--base-url", suite_base_url(spec, launched), "--model", launched.model]
    if launched.api_key:
        flags += ["--api-key-env", KEY_ENV]
    if opts.harness_clients:
        flags += ["--client", ",".join(opts.harness_clients)]
    args = ["clients", *flags, "--name", spec.name, "--report-dir", str(report)]
    env = clean_env({KEY_ENV: launched.api_key} if launched.api_key else None)
    log(f"running the real clients against {spec.name}")
    started = time.monotonic()
    with (report / "harness.log").open("w") as console:
        done = subprocess.run(
            [*judge_command(), *args], stdout=console, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, env=env, cwd=opts.repo, check=False,
        )  # fmt: skip
    index = report / "index.json"
    clients = harness_clients(index) if index.is_file() else {}
    shown = " ".join(flags).replace(suite_base_url(spec, launched), "$BASE_URL")
    return {
        "exit_code": done.returncode,
        "harness_s": round(time.monotonic() - started, 1),
        "command": f"responses-conformance clients {shown}",
        "index": str(index),
        "clients": clients,
    }


CLIENT_PROFILES = tuple(_CLIENT_PROFILES)


def client_spec(spec: TargetSpec) -> TargetSpec:
    """The target as the client profiles judge it: every client's profile asked, its WebSocket
    flows included whether or not the target claims WebSocket mode — the clients use it
    (openai-python's ``connect``, openai-node's ``ResponsesWS``, Codex), the harness runs those
    flows against every target, and ``clients --with-profiles`` judges both with ``websocket``
    (conformance/clients/agreement.py): asked only where claimed, the profile accepted what the
    real client failed on (7 of the 19 disagreements of the 2026-12-06 matrix)."""
    return replace(spec, profiles=("core", "websocket", *CLIENT_PROFILES))


def _clients(spec: TargetSpec, launched: Launched, opts: RunOptions, log: Log) -> dict[str, Any]:
    """The client profiles' cases (``-k clients``) against the target, into
    ``targets/<name>/clients/``: per check its outcome, and the command that reproduces it."""
    asked = client_spec(spec)
    report = opts.out / "targets" / spec.name / "clients"
    report.mkdir(parents=True, exist_ok=True)
    toml = report / "target.toml"
    toml.write_text(targets_toml(asked, launched))
    args = ["run", "--targets", str(toml), "--report-dir", str(report), "-k", "clients"]
    env = clean_env({KEY_ENV: launched.api_key} if launched.api_key else None)
    log(f"judging {spec.name} on the client profiles")
    started = time.monotonic()
    with (report / "suite.log").open("w") as console:
        done = subprocess.run(
            [*judge_command(), *args], stdout=console, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, env=env, cwd=opts.repo, check=False,
        )  # fmt: skip
    flags = f"--base-url $BASE_URL --model {launched.model} --profile {','.join(asked.profiles)}"
    outcomes: dict[str, str] = {}
    index = report / "index.json"
    if index.is_file():
        doc = json.loads(index.read_text())
        for target in doc.get("targets", {}).values():
            outcomes |= {
                cid: c.get("outcome", "")
                for cid, c in target.get("checks", {}).items()
                if cid.startswith("live.client.")
            }
    return {
        "exit_code": done.returncode,
        "suite_s": round(time.monotonic() - started, 1),
        "command": f"responses-conformance run {flags} -k clients",
        "index": str(index),
        "outcomes": outcomes,
    }


def _probe(spec: TargetSpec, launched: Launched, log: Log) -> dict[str, Any]:
    """The capability probes (:mod:`.capabilities`), after the suite so they cannot move its
    verdicts; evidence, never a failure of the target."""
    started = time.monotonic()
    found = capabilities.probe_all(
        launched.base_url, launched.model, api_key=launched.api_key or None,
        timeout=min(spec.timeout, PROBE_TIMEOUT_S),
    )  # fmt: skip
    wall = time.monotonic() - started
    verdicts = capabilities.summarize(found)
    shown = ", ".join(f"{k}={v}" for k, v in verdicts.items() if v != "not_implemented")
    log(f"  {spec.name}: probed in {wall:.1f} s: {shown or 'nothing beyond the basics'}")
    return {"capabilities": found, "probe_s": round(wall, 1)}


def _broken(spec: TargetSpec, why: str, log: Log) -> dict[str, Any]:
    log(f"  {spec.name}: NOT RUN — {why.splitlines()[0]}")
    return {"exit_code": 2, "suite_s": 0.0, "error": why, "index": ""}


def run(targets: list[TargetSpec], opts: RunOptions, log: Log) -> dict[str, Any]:
    started = time.monotonic()
    opts.out.mkdir(parents=True, exist_ok=True)
    logs = opts.out / "logs"
    logs.mkdir(exist_ok=True)
    record: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "slice": opts.slice_name,
        "machine": {
            "cpus": _cpus(),
            "python": platform.python_version(),
            "gpu": "none",
            "platform": platform.platform(),
        },
        "repo": {
            "commit": _git(opts.repo, "rev-parse", "HEAD"),
            "dirty": bool(_git(opts.repo, "status", "--porcelain", "--untracked-files=no")),
        },
        "vendors": {},
        "targets": {},
        "backends": {},
    }
    pythons: dict[str, Path] = {}
    install_errors: dict[str, str] = {}
    # what each target runs on: a reference server runs from SGLang's env (with this project)
    needed = [
        k
        for t in targets
        for k in (["sglang"] if t.model else []) + ([] if t.kind == "reference" else [t.vendor])
    ]
    for k in dict.fromkeys(needed):
        t0 = time.monotonic()
        try:
            python, versions = venvs.ensure_vendor(
                k, opts.venv_root, opts.repo, log, sglang_python=opts.sglang_python
            )
        except (venvs.InstallError, subprocess.CalledProcessError, OSError) as exc:
            install_errors[k] = str(exc)
            log(f"{k}: install failed: {exc}")
            continue
        pythons[k] = python
        vendor = VENDORS[k]
        installed = versions.get(vendor.distribution, "")
        if k == "ours":
            installed = f"{vendor.version}+g{record['repo']['commit'][:10]}"
        record["vendors"][k] = {
            "codebase": vendor.codebase,
            "version": vendor.version,
            "installed": installed,
            "requirement": vendor.requirement,
            "source": vendor.source,
            "wheel_sha256": vendor.wheel_sha256,
            "venv": str(python.parent.parent),
            "install_s": round(time.monotonic() - t0, 1),
            "homepage": vendor.homepage,
        }

    if any(t.kind == "reference" for t in targets) and "ours" not in record["vendors"]:
        ours = VENDORS["ours"]
        record["vendors"]["ours"] = {
            "codebase": ours.codebase, "version": ours.version,
            "installed": f"{ours.version}+g{record['repo']['commit'][:10]}",
            "requirement": "this repository (editable, in SGLang's env)", "source": ours.source,
            "wheel_sha256": "", "venv": str(pythons.get("sglang", "")), "install_s": 0,
            "homepage": "",
        }  # fmt: skip

    def missing(spec: TargetSpec) -> str:
        need = ([] if spec.kind == "reference" else [spec.vendor]) + (
            ["sglang"] if spec.model else []
        )
        return "; ".join(f"{k}: {install_errors[k]}" for k in need if k in install_errors)

    results: dict[str, dict[str, Any]] = {}
    for spec in [t for t in targets if t.kind == "mock"]:
        results[spec.name] = _run_mock(spec, pythons, missing(spec), opts, logs, log)

    by_model: dict[str, list[TargetSpec]] = {}
    for spec in targets:
        if spec.model and spec.kind != "vllm":
            by_model.setdefault(spec.model, []).append(spec)
    for kind, group in by_model.items():
        results.update(_run_model(kind, group, pythons, missing, opts, logs, record, log))
    # vLLM brings its own engine: one at a time, after SGLang has stopped (two cores).
    for spec in [t for t in targets if t.kind == "vllm"]:
        results[spec.name] = _run_vllm(spec, pythons, missing(spec), opts, logs, log)

    for spec in targets:
        results[spec.name].update(
            {
                "vendor": spec.vendor,
                "kind": spec.kind,
                "model": spec.model,
                "profiles": list(spec.profiles),
                "claim": spec.claim,
                "backend": spec.backend,
            }
        )
    record["targets"] = results
    merged = _merge(opts, [r["index"] for r in results.values() if r.get("index")], log)
    record["merged"] = merged
    if merged:
        add_capabilities(Path(merged["index"]), results)
    record["wall_s"] = round(time.monotonic() - started, 1)
    (opts.out / "run.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


def _cpus() -> int:
    import os

    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 0)
    )


def _run_mock(
    spec: TargetSpec, pythons: dict[str, Path], why: str, opts: RunOptions, logs: Path, log: Log
) -> dict[str, Any]:
    if why:
        return _broken(spec, why, log)
    service, root = mock_service(pythons["ours"], logs)
    try:
        service.start()
    except ServiceError as exc:
        return _broken(spec, str(exc), log)
    try:
        result = _suite(spec, Launched(f"{root}{spec.path}", "mock", "", [service]), opts, log)
        result["startup_s"] = round(service.startup_s, 1)
        return result
    finally:
        service.stop()


def _run_vllm(
    spec: TargetSpec,
    pythons: dict[str, Path],
    why: str,
    opts: RunOptions,
    logs: Path,
    log: Log,
) -> dict[str, Any]:
    if why:
        return _broken(spec, why, log)
    try:  # the scripted models are built with SGLang's interpreter (it has transformers)
        models = build_models(
            pythons["sglang"], opts.repo, opts.venv_root, [spec.model], logs / "models.log"
        )
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        return _broken(spec, str(exc), log)
    launched = vllm_service(pythons["vllm"], spec, models, logs)
    service = launched.services[0]
    log(f"starting vLLM on the scripted `{spec.model}` model")
    try:
        service.start()
    except ServiceError as exc:
        return _broken(spec, str(exc), log)
    try:
        result = _suite(spec, launched, opts, log)
        result["startup_s"] = round(service.startup_s, 1)
        return result
    finally:
        launched.stop()


def _run_model(
    kind: str,
    group: list[TargetSpec],
    pythons: dict[str, Path],
    missing: Callable[[TargetSpec], str],
    opts: RunOptions,
    logs: Path,
    record: dict[str, Any],
    log: Log,
) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    if "sglang" not in pythons:
        for spec in group:
            results[spec.name] = _broken(spec, missing(spec) or "SGLang is not installed", log)
        return results
    sglang_python = pythons["sglang"]
    t0 = time.monotonic()
    try:
        models = build_models(sglang_python, opts.repo, opts.venv_root, [kind], logs / "models.log")
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        for spec in group:
            results[spec.name] = _broken(spec, str(exc), log)
        return results
    build_s = time.monotonic() - t0
    service, root = sglang_service(sglang_python, opts.repo, opts.venv_root, models, kind, logs)
    log(f"starting SGLang on the scripted `{kind}` model")
    try:
        service.start()
    except (ServiceError, subprocess.CalledProcessError) as exc:
        for spec in group:
            results[spec.name] = _broken(spec, f"SGLang did not start: {exc}", log)
        return results
    record["backends"][kind] = {
        "model_build_s": round(build_s, 1),
        "startup_s": round(service.startup_s, 1),
        "served_model": SGLANG_MODELS[kind].served_name,
        "command": " ".join(service.command),
    }
    log(f"SGLang `{kind}` ready in {service.startup_s:.0f} s at {root}")
    try:
        for spec in group:
            why = missing(spec)
            if why:
                results[spec.name] = _broken(spec, why, log)
                continue
            if spec.kind == "sglang":
                launched = Launched(f"{root}{spec.path}", SGLANG_MODELS[kind].served_name)
                results[spec.name] = _suite(spec, launched, opts, log)
                continue
            try:
                if spec.kind == "reference":
                    launched = reference_service(sglang_python, spec, root, logs)
                else:
                    launched = bridge_service(
                        pythons[spec.vendor], spec, root, opts.out / "work" / spec.name, logs
                    )
            except OSError as exc:
                results[spec.name] = _broken(spec, str(exc), log)
                continue
            bridge: Service = launched.services[0]
            try:
                bridge.start()
            except ServiceError as exc:
                results[spec.name] = _broken(spec, str(exc), log)
                continue
            try:
                results[spec.name] = _suite(spec, launched, opts, log)
                results[spec.name]["startup_s"] = round(bridge.startup_s, 1)
            finally:
                launched.stop()
    finally:
        service.stop()
    return results


def add_capabilities(index_path: Path, results: dict[str, dict[str, Any]]) -> None:
    """``targets.<name>.capabilities`` in the merged index: the probes' verdicts and evidence, a
    field added beside the suite's (nothing the suite wrote changes)."""
    if not index_path.is_file():
        return
    index = json.loads(index_path.read_text())
    targets = index.get("targets", {})
    for name, result in results.items():
        if name in targets and "capabilities" in result:
            targets[name]["capabilities"] = result["capabilities"]
    index_path.write_text(json.dumps(index, indent=2) + "\n")


def _merge(opts: RunOptions, indexes: list[str], log: Log) -> dict[str, Any]:
    present = [i for i in indexes if Path(i).is_file()]
    merged = opts.out / "merged"
    if not present:
        return {}
    cmd = [*judge_command(), "report", "--report-dir", str(merged), *present]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=opts.repo, check=False)
    log(f"merged {len(present)} index(es) into {merged} (exit {done.returncode})")
    return {"index": str(merged / "index.json"), "html": str(merged / "report.html")}
