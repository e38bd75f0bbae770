"""How each target is started: the command line, environment and readiness URL of every server.

Every server binds 127.0.0.1 on a free port. Environment variables that look like credentials
(``*_API_KEY``, ``*TOKEN*``, ``*SECRET*``, ``OPENAI_*``…) are removed from what the vendors
inherit: a bridge that falls back to a real provider must find nothing to send there.

SGLang runs on CPU as docs/sglang.md (On a CPU-only machine) and scripts/install_sglang.py set it
up: the ``sgl_kernel``
stand-in of ``tests/sglang/cpu_stubs`` on ``PYTHONPATH``, ``SGLANG_USE_CPU_ENGINE=1``,
``--attention-backend torch_native --sampling-backend pytorch``, a small KV cache, and
``--enable-response-store``. The scripted models are built by ``tests/sglang/scripted_models.py``
with SGLang's interpreter, once per version of the builder.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .catalog import SGLANG_MODELS, TargetSpec
from .services import LOOPBACK, Service, free_port

__all__ = [
    "KEY_ENV",
    "Launched",
    "bridge_service",
    "build_models",
    "clean_env",
    "mock_service",
    "reference_service",
    "sglang_service",
    "vllm_service",
]

KEY_ENV = "VENDOR_MATRIX_API_KEY"  # the variable the suite reads a target's key from
_SECRET = re.compile(
    r"(^OPENAI_|^ANTHROPIC_|^AZURE_|^AWS_|^LITELLM_|^HF_TOKEN|KEY|TOKEN|SECRET|PASSWORD)", re.I
)


# How long a server may take to answer its readiness probe, a ceiling (a quick start costs
# nothing): the machine is shared and the matrix runs under `nice`, so others' work can slow an
# import-heavy start (LiteLLM's proxy) tenfold — a full run on 2026-11-30 lost LiteLLM
# and open-responses-server to ceilings of 180 s and 60 s at a load average of 20 on 2 cores.
STARTUP_S = 200.0


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not _SECRET.search(k)}
    env.update(extra or {})
    return env


@dataclass(slots=True)
class Launched:
    """A started target: its base URL (what the suite is given), the key (if any), its services."""

    base_url: str
    model: str
    api_key: str = ""
    services: list[Service] = field(default_factory=list)

    def stop(self) -> None:
        for service in reversed(self.services):
            service.stop()


# --- scripted models ---------------------------------------------------------------------------


# The files the scripted models are made from (scripted_models.py imports nothing else of
# tests/sglang but harmony_model.py): only they decide the weights, so an edit to the SGLang
# tests' other helpers (their profiles, say) does not rebuild every model.
BUILDER_FILES = ("scripted_models.py", "harmony_model.py")


def _builder_stamp(repo: Path) -> str:
    digest = hashlib.sha256()
    for name in BUILDER_FILES:
        path = repo / "tests" / "sglang" / name
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def build_models(
    sglang_python: Path, repo: Path, root: Path, kinds: list[str], log_path: Path
) -> Path:
    """Build the scripted models not built yet by this version of the builder; their folder."""
    out = root / "models" / _builder_stamp(repo)
    missing = [k for k in kinds if not (out / k / "config.json").is_file()]
    if missing:
        out.mkdir(parents=True, exist_ok=True)
        cmd = [
            str(sglang_python),
            str(repo / "tests" / "sglang" / "scripted_models.py"),
            "--out",
            str(out),
            "--cache",
            str(root / "models" / "cache"),
            *missing,
        ]
        with log_path.open("ab") as log:
            log.write(f"$ {' '.join(cmd)}\n".encode())
            log.flush()
            done = subprocess.run(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=clean_env({"HF_HUB_OFFLINE": "1"}),
                check=False,
            )
        if done.returncode != 0:
            raise RuntimeError(f"building the scripted models {missing} failed; see {log_path}")
    return out


def _harmony_env(sglang_python: Path, repo: Path, root: Path) -> dict[str, str]:
    """The variables that let openai_harmony and tiktoken find o200k offline (tests/sglang/harmony_model.py)."""
    code = (
        "import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
        "from harmony_model import harmony_env; print(json.dumps(harmony_env(Path(sys.argv[2]))))"
    )
    out = subprocess.run(
        [
            str(sglang_python),
            "-c",
            code,
            str(repo / "tests" / "sglang"),
            str(root / "models" / "cache"),
        ],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    ).stdout
    return {str(k): str(v) for k, v in json.loads(out.strip().splitlines()[-1]).items()}


# --- the servers -------------------------------------------------------------------------------


def sglang_service(
    sglang_python: Path, repo: Path, root: Path, models: Path, kind: str, logs: Path
) -> tuple[Service, str]:
    """SGLang's own server on a scripted model; returns it and its root URL (no ``/v1``)."""
    model = SGLANG_MODELS[kind]
    port = free_port()
    env = clean_env(
        {
            "SGLANG_USE_CPU_ENGINE": "1",
            "HF_HUB_OFFLINE": "1",
            "PYTHONPATH": str(repo / "tests" / "sglang" / "cpu_stubs"),
        }
    )
    if kind == "gpt_oss":
        env.update(_harmony_env(sglang_python, repo, root))
    cmd = [
        str(sglang_python),
        "-m",
        "sglang.launch_server",
        "--model-path",
        str(models / kind),
        "--served-model-name",
        model.served_name,
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--device",
        "cpu",
        "--attention-backend",
        "torch_native",
        "--sampling-backend",
        "pytorch",
        "--dtype",
        "float32",
        "--max-total-tokens",
        "8192",
        "--sleep-on-idle",
        "--enable-response-store",
        *model.parser_args,
    ]
    root_url = f"http://{LOOPBACK}:{port}"
    service = Service(
        f"sglang-{kind}",
        cmd,
        ready_url=f"{root_url}/health",
        log_path=logs / f"sglang-{kind}.log",
        env=env,
        startup_timeout=STARTUP_S * 5,
    )
    return service, root_url


def mock_service(ours_python: Path, logs: Path) -> tuple[Service, str]:
    port = free_port()
    cmd = [
        str(ours_python.parent / "responses-mock"),
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--seed",
        "0",
        "--inter-token",
        "0.001",
    ]
    root_url = f"http://{LOOPBACK}:{port}"
    return Service(
        "mock",
        cmd,
        ready_url=f"{root_url}/v1/models",
        log_path=logs / "mock.log",
        env=clean_env(),
        startup_timeout=STARTUP_S,
    ), root_url


def _litellm(python: Path, spec: TargetSpec, chat_base: str, work: Path, logs: Path) -> Launched:
    model = SGLANG_MODELS[spec.model].served_name
    port = free_port()
    key = "sk-" + secrets.token_hex(24)  # the proxy refuses to start without a master key
    work.mkdir(parents=True, exist_ok=True)
    config = work / "litellm-config.yaml"
    # JSON is YAML: no YAML writer needed.
    config.write_text(
        json.dumps(
            {
                "model_list": [
                    {
                        "model_name": model,
                        # custom_openai/: an OpenAI-compatible provider with no Responses API of its own, so
                        # /v1/responses goes through LiteLLM's chat-completions bridge (its documented default)
                        "litellm_params": {
                            "model": f"custom_openai/{model}",
                            "api_base": chat_base,
                            "api_key": "unused",
                            # SGLang's chat endpoint takes reasoning_effort; without this,
                            # LiteLLM answers `reasoning.effort` with a 400 for custom_openai/
                            # models (UnsupportedParamsError): configuration, not protocol.
                            "allowed_openai_params": ["reasoning_effort"],
                        },
                    }
                ],
                "litellm_settings": {"telemetry": False},
            },
            indent=1,
        )
    )
    env = clean_env(
        {
            "LITELLM_MASTER_KEY": key,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no fetch of the cost map at start
            "LITELLM_TELEMETRY": "False",
        }
    )
    cmd = [
        str(python.parent / "litellm"),
        "--config",
        str(config),
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--num_workers",
        "1",
    ]
    root_url = f"http://{LOOPBACK}:{port}"
    service = Service(
        spec.name,
        cmd,
        ready_url=f"{root_url}/health/liveliness",
        log_path=logs / f"{spec.name}.log",
        env=env,
        cwd=work,
        startup_timeout=STARTUP_S * 3,
    )
    return Launched(f"{root_url}{spec.path}", model, key, [service])


def _ors(python: Path, spec: TargetSpec, sglang_root: str, work: Path, logs: Path) -> Launched:
    model = SGLANG_MODELS[spec.model].served_name
    port = free_port()
    work.mkdir(parents=True, exist_ok=True)
    servers = work / "servers_config.json"
    servers.write_text('{"mcpServers": {}}\n')
    root_url = f"http://{LOOPBACK}:{port}"
    env = clean_env(
        {
            "OPENAI_BASE_URL_INTERNAL": sglang_root,  # it appends /v1/chat/completions itself
            "OPENAI_BASE_URL": root_url,
            "OPENAI_API_KEY": "unused",
            "API_ADAPTER_HOST": LOOPBACK,
            "API_ADAPTER_PORT": str(port),
            "MCP_SERVERS_CONFIG_PATH": str(servers),
        }
    )
    cmd = [
        str(python.parent / "uvicorn"),
        "open_responses_server.server_entrypoint:app",
        "--host",
        LOOPBACK,
        "--port",
        str(port),
    ]
    service = Service(
        spec.name,
        cmd,
        ready_url=f"{root_url}/health",
        log_path=logs / f"{spec.name}.log",
        env=env,
        cwd=work,
        startup_timeout=STARTUP_S,
    )
    # Its Responses route is POST /responses at the root; every other path (/v1/responses
    # included) is forwarded to the backend — so the base URL must be the root, or the suite
    # would be judging SGLang through a proxy.
    return Launched(f"{root_url}{spec.path}", model, "", [service])


VLLM_PARSERS: dict[str, tuple[str, ...]] = {
    "plain": ("--reasoning-parser", "qwen3"),
    # vLLM's parser for Qwen2.5's `<tool_call>{…}</tool_call>` is called hermes
    "tools": ("--enable-auto-tool-choice", "--tool-call-parser", "hermes"),
}


def vllm_service(python: Path, spec: TargetSpec, models: Path, logs: Path) -> Launched:
    """vLLM's OpenAI server (the CPU build) on the same scripted model, with its response store."""
    model = SGLANG_MODELS[spec.model]
    port = free_port()
    root_url = f"http://{LOOPBACK}:{port}"
    env = clean_env(
        {
            "VLLM_ENABLE_RESPONSES_API_STORE": "1",  # store, retrieve, background, chains
            "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB; the default takes a large part of the RAM
            "VLLM_HOST_IP": LOOPBACK,  # its engine's own sockets stay on loopback too
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            "HF_HUB_OFFLINE": "1",
        }
    )
    # `python -m`, not the `vllm` script: the CLI looks up the "vllm" distribution's version,
    # and this one is called vllm-cpu.
    cmd = [
        str(python), "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(models / spec.model), "--served-model-name", model.served_name,
        "--host", LOOPBACK, "--port", str(port), "--dtype", "float32",
        "--max-model-len", "4096", *VLLM_PARSERS[spec.model],
    ]  # fmt: skip
    service = Service(
        spec.name,
        cmd,
        ready_url=f"{root_url}/health",
        log_path=logs / f"{spec.name}.log",
        env=env,
        startup_timeout=STARTUP_S * 6,
    )
    return Launched(f"{root_url}{spec.path}", model.served_name, "", [service])


def reference_service(
    sglang_python: Path, spec: TargetSpec, sglang_root: str, logs: Path
) -> Launched:
    """Our reference server in front of the same SGLang server (its native ``/generate``): the
    protocol layer of ``reference_impl`` judged on the very backend SGLang-native is judged on.
    It needs this project installed in SGLang's environment (``install_sglang.py --project``)."""
    binary = sglang_python.parent / "responses-reference"
    if not binary.is_file():
        raise FileNotFoundError(
            f"{binary} is missing: install this project into the SGLang env "
            "(scripts/install_sglang.py --project .)"
        )
    port = free_port()
    root_url = f"http://{LOOPBACK}:{port}"
    cmd = [str(binary), "--sglang-url", sglang_root, "--host", LOOPBACK, "--port", str(port)]
    service = Service(
        spec.name,
        cmd,
        ready_url=f"{root_url}/v1/models",
        log_path=logs / f"{spec.name}.log",
        env=clean_env({"HF_HUB_OFFLINE": "1"}),
        startup_timeout=STARTUP_S * 3,
    )
    return Launched(f"{root_url}{spec.path}", SGLANG_MODELS[spec.model].served_name, "", [service])


def bridge_service(
    python: Path, spec: TargetSpec, sglang_root: str, work: Path, logs: Path
) -> Launched:
    if spec.kind == "litellm":
        return _litellm(python, spec, f"{sglang_root}/v1", work, logs)
    if spec.kind == "open-responses-server":
        return _ors(python, spec, sglang_root, work, logs)
    raise ValueError(f"{spec.name}: not a bridge ({spec.kind})")
