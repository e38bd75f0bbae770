"""SGLang's own ``/v1/responses`` and the reference server, side by side on the same model.

Starts SGLang's native server (``python -m sglang.launch_server --enable-response-store``) and the
reference server (``responses-reference``) on one model, runs the conformance suite against both
and a short load test (``responses-bench``, every stream judged) at 1, 8 and 64 concurrent
streams, and prints a comparison: conformance per profile, and requests/s, TTFT and inter-token
latency as ratios reference / native. The protocol-layer overhead line is the median over
alternating runs (native, reference, native, …) at 8 concurrent streams.

Reference modes: ``inprocess`` (default on GPUs: its own ``sglang.Engine`` in the reference
process — the deployment it is built for; both servers hold the model, so they take turns on the
device only by being idle, see ``--sleep-on-idle``) or ``remote`` (the reference in front of the
native server's ``/generate``: one SGLang serves both, so the ratio is exactly the cost of the
protocol layer plus one loopback hop; the default with ``--cpu``, where a second engine would
double the start-up time).

On a GPU machine (see docs/sglang-side-by-side.md)::

    python benchmarks/perf/sglang_side_by_side.py --sglang-python /opt/sglang/bin/python \\
        --model-path Qwen/Qwen3-8B --sglang-args "--reasoning-parser qwen3 --tool-call-parser qwen25" \\
        --profiles core,stateful,tools,reasoning

On CPU with the scripted model (what CI runs; needs `tox -e sglang`'s environment)::

    python benchmarks/perf/sglang_side_by_side.py --cpu --sglang-python .tox/sglang/bin/python

Exit codes: 0 compared (and, with ``--min-ratio``, the overhead ratio met it), 1 the ratio was
below ``--min-ratio``, 2 a server did not start or a tool broke.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.perf.cli_args import positive_float, positive_int, positive_ints
from benchmarks.perf.localhost import free_port
from benchmarks.perf.servers import wait_http

ROOT = Path(__file__).resolve().parents[2]
CPU_FLAGS = (
    "--device cpu --attention-backend torch_native --sampling-backend pytorch "
    "--max-total-tokens 8192 --sleep-on-idle --dtype float32"
)
CPU_STUBS = ROOT / "tests" / "sglang" / "cpu_stubs"
SCRIPTED = ROOT / "tests" / "sglang" / "scripted_models.py"

__all__ = ["main"]


@dataclass
class Server:
    name: str
    popen: subprocess.Popen[bytes]
    base_url: str
    log: Path

    def wait(self, path: str, timeout: float) -> None:
        if wait_http(self.base_url + path, time.monotonic() + timeout, process=self.popen):
            return
        tail = self.log.read_text(errors="replace").splitlines()[-30:]
        raise RuntimeError(f"{self.name} did not start:\n" + "\n".join(tail))

    def stop(self) -> None:
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(10)


def _port() -> int:
    return free_port()


def _spawn(name: str, argv: list[str], env: dict[str, str], logs: Path, port: int) -> Server:
    log = logs / f"{name}.log"
    with log.open("wb") as handle:
        popen = subprocess.Popen(
            argv, stdout=handle, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    return Server(name, popen, f"http://127.0.0.1:{port}", log)


def _bin(python: str, tool: str) -> str:
    return str(Path(python).parent / tool)


def _suite(
    base_url: str, model: str, name: str, profiles: str, out: Path, cpu: bool
) -> dict[str, Any]:
    argv = [
        _bin(sys.executable, "responses-conformance"), "run", "--base-url", f"{base_url}/v1",
        "--model", model, "--name", name, "--profile", profiles, "--report-dir", str(out),
    ]  # fmt: skip
    if cpu:
        argv.append("--no-instructions")  # a scripted model follows no instructions
    subprocess.run(argv, capture_output=True, text=True, check=False)
    index = json.loads((out / "index.json").read_text())
    target = next(iter(index["targets"].values()))
    per_profile: dict[str, list[int]] = {}
    for check_id, entry in target["checks"].items():
        profile = index["checks"].get(check_id, {}).get("profile", "core")
        counts = per_profile.setdefault(profile, [0, 0])
        if entry["outcome"] == "pass":
            counts[0] += 1
        elif entry["outcome"] == "fail":
            counts[1] += 1
    return {"status": target["status"], "profiles": per_profile, "summary": target["summary"]}


def _cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU seconds of these processes and all their descendants so far."""
    import psutil  # locust brings psutil

    from benchmarks.perf.process_cpu import tree_cpu

    total = 0.0
    for pid in pids:
        try:
            total += tree_cpu(pid)
        except psutil.Error:
            continue
    return total


def _load(
    base_url: str, model: str, users: int, seconds: float, out: Path, servers: Sequence[int]
) -> dict[str, float]:
    argv = [
        _bin(sys.executable, "responses-bench"), "--base-url", f"{base_url}/v1", "--model", model,
        "-u", str(users), "-t", f"{seconds:g}s", "--prompt-tokens", "32", "--max-output-tokens",
        "0", "--report-dir", str(out),
        # The suite judged both servers already; here every request must count with its
        # latencies (a judged SGLang-native stream fails event.schema.type, and a failed request
        # has no TTFT), and the judge's cost would be the same on both sides anyway.
        "--no-validate",
    ]  # fmt: skip
    # Server CPU per request does not depend on what else the machine runs (a shared 2-core CI
    # box swings wall-clock throughput several-fold); it is measured over every server process.
    cpu_before = _cpu_seconds(servers)
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    cpu = _cpu_seconds(servers) - cpu_before
    path = out / "summary.json"
    if not path.exists():
        raise RuntimeError(
            f"responses-bench wrote no summary:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    summary = json.loads(path.read_text())
    latency = summary.get("latency_ms") or {}

    def pct(metric: str, p: str) -> float:
        block = latency.get(metric) or {}
        value = block.get(p) if isinstance(block, dict) else None
        return float(value) if isinstance(value, int | float) else float("nan")

    requests = float(summary["requests"]["total"])
    return {
        "requests_per_s": float(summary["throughput"]["requests_per_s"]),
        "requests_per_cpu_s": requests / cpu if cpu > 0 else float("nan"),
        "ttft_p50_ms": pct("ttft", "p50"),
        "itl_p50_ms": pct("itl", "p50"),
        "failures": float(summary.get("requests", {}).get("failed", 0) or 0),
    }


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )  # fmt: skip
    parser.add_argument("--sglang-python", required=True, help="python of the SGLang install")
    parser.add_argument("--model-path", help="model path or HF id (--cpu: the scripted model)")
    parser.add_argument("--sglang-args", default="", help="extra SGLang server options, quoted")
    parser.add_argument(
        "--profiles", help="suite profiles (default core,stateful; --cpu adds reasoning)"
    )
    parser.add_argument("--reference-mode", choices=["inprocess", "remote"])
    parser.add_argument("--cpu", action="store_true", help="CPU-only: scripted model, CPU flags")
    parser.add_argument(
        "--concurrency", type=positive_ints, default="1,8,64", help="streams, comma-separated"
    )
    parser.add_argument(
        "--seconds", type=positive_float, default=10.0, help="length of each load run"
    )
    parser.add_argument(
        "--repeats", type=positive_int, default=5, help="alternating runs at 8 streams"
    )
    parser.add_argument(
        "--min-ratio", type=positive_float, help="exit 1 if the 8-stream ratio is below"
    )
    parser.add_argument(
        "--report-dir", dest="out", type=Path, default=Path("reports/side-by-side"),
        metavar="DIR", help="where the reports go (default reports/side-by-side)",
    )  # fmt: skip
    parser.add_argument("--start-timeout", type=positive_float, default=900.0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.min_ratio is not None and 8 not in args.concurrency:
        parser.error("--min-ratio reads the 8-stream ratio: --concurrency must include 8")
    if args.model_path is None and not args.cpu:  # before anything is cleared or started
        parser.error("--model-path is required (or --cpu for the scripted model)")
    mode = args.reference_mode or ("remote" if args.cpu else "inprocess")
    profiles = args.profiles or ("core,stateful,reasoning" if args.cpu else "core,stateful")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("load-*"), *out.glob("suite-*")]:  # this script's own earlier runs
        shutil.rmtree(stale, ignore_errors=True)
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    env = dict(os.environ, HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "0"))
    sglang_args = shlex.split(args.sglang_args)
    model = args.model_path
    if args.cpu:
        env.update(SGLANG_USE_CPU_ENGINE="1", HF_HUB_OFFLINE="1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(CPU_STUBS), env.get("PYTHONPATH")) if p)
        sglang_args = [*shlex.split(CPU_FLAGS), "--reasoning-parser", "qwen3", *sglang_args]
        if model is None:
            models = Path(tempfile.mkdtemp(prefix="scripted-"))
            subprocess.run(
                [args.sglang_python, str(SCRIPTED), "--out", str(models), "plain"],
                check=True,
                env=env,
            )
            model = str(models / "plain")
    assert model is not None  # given, or the scripted model under --cpu

    servers: list[Server] = []
    ratios: dict[str, dict[str, float]] = {}
    try:
        port = _port()
        native = _spawn(
            "sglang-native",
            [args.sglang_python, "-m", "sglang.launch_server", "--model-path", model, "--host",
             "127.0.0.1", "--port", str(port), "--enable-response-store", *sglang_args],
            env, logs, port,
        )  # fmt: skip
        servers.append(native)
        native.wait("/health", args.start_timeout)
        port = _port()
        if mode == "remote":
            ref_argv = ["--sglang-url", native.base_url]
        else:
            ref_argv = ["--model-path", model, *sglang_args]
        reference = _spawn(
            "reference", [_bin(args.sglang_python, "responses-reference"), "--port", str(port), *ref_argv],
            env, logs, port,
        )  # fmt: skip
        servers.append(reference)
        reference.wait("/v1/models", args.start_timeout)
        targets = {"native": native.base_url, "reference": reference.base_url}

        result: dict[str, Any] = {"model": model, "mode": mode, "cpu": args.cpu}
        result["conformance"] = {
            name: _suite(url, model, name, profiles, out / f"suite-{name}", args.cpu)
            for name, url in targets.items()
        }
        levels: list[int] = args.concurrency
        load: dict[str, dict[str, list[dict[str, float]]]] = {"native": {}, "reference": {}}
        for users in levels:
            repeats = args.repeats if users == 8 else 1
            for i in range(repeats):  # alternate, so drift on the machine hits both alike
                for name in ("native", "reference") if i % 2 == 0 else ("reference", "native"):
                    pids = [server.popen.pid for server in servers]
                    run_dir = out / f"load-{name}-{users}-{i}"
                    run = _load(targets[name], model, users, args.seconds, run_dir, pids)
                    load[name].setdefault(str(users), []).append(run)
        result["load"] = load
        for users in levels:
            key = str(users)
            med = {
                name: {
                    m: statistics.median(r[m] for r in load[name][key]) for m in load[name][key][0]
                }
                for name in ("native", "reference")
            }
            # Runs alternate, so each reference run has a native neighbour under the same
            # machine conditions; the median of those paired ratios resists drift best.
            paired = [
                _ratio(r["requests_per_s"], n["requests_per_s"])
                for r, n in zip(load["reference"][key], load["native"][key], strict=True)
            ]
            per_cpu = [
                _ratio(r["requests_per_cpu_s"], n["requests_per_cpu_s"])
                for r, n in zip(load["reference"][key], load["native"][key], strict=True)
            ]
            ratios[key] = {
                "requests_per_cpu_s": statistics.median(per_cpu),
                "requests_per_s_paired": statistics.median(paired),
                "requests_per_s": _ratio(
                    med["reference"]["requests_per_s"], med["native"]["requests_per_s"]
                ),
                "ttft_p50": _ratio(med["reference"]["ttft_p50_ms"], med["native"]["ttft_p50_ms"]),
                "itl_p50": _ratio(med["reference"]["itl_p50_ms"], med["native"]["itl_p50_ms"]),
                "native_rps": med["native"]["requests_per_s"],
                "reference_rps": med["reference"]["requests_per_s"],
            }
        result["ratios"] = ratios
        (out / "side-by-side.json").write_text(json.dumps(result, indent=2))
        _print(result)
    except (RuntimeError, subprocess.CalledProcessError) as error:
        print(f"sglang_side_by_side: {error}", file=sys.stderr)
        return 2
    finally:
        for server in reversed(servers):
            server.stop()
    if args.min_ratio is not None and ratios["8"]["requests_per_s"] < args.min_ratio:
        return 1
    return 0


def _print(result: dict[str, Any]) -> None:
    print(f"model {result['model']} (reference mode: {result['mode']})")
    print("conformance (pass/fail per profile):")
    for name, conf in result["conformance"].items():
        shown = ", ".join(f"{p} {c[0]}/{c[1]}" for p, c in sorted(conf["profiles"].items()))
        print(f"  {name:10} {conf['status']:8} {shown}")
    print("load (ratio reference / native; requests/s: higher is better, latencies: lower):")
    print("  medians of the runs; 'paired' is the median of the ratios of neighbouring runs;")
    print("  'per CPU-s' compares requests per server CPU-second (robust to a busy machine)")
    print("  streams   req/s native  req/s ref  ratio  paired  per CPU-s  TTFT p50  ITL p50")
    for users, r in result["ratios"].items():
        print(
            f"  {users:>7}   {r['native_rps']:12.2f}  {r['reference_rps']:9.2f}  "
            f"{r['requests_per_s']:5.3f}  {r['requests_per_s_paired']:6.3f}  "
            f"{r['requests_per_cpu_s']:9.3f}  {r['ttft_p50']:8.3f}  {r['itl_p50']:7.3f}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
