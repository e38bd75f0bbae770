"""Fixtures of the SGLang CPU tests (tox -e sglang): scripted models, SGLang's native servers, the
reference server in-process and in front of a native server's /generate.

Everything here needs real SGLang; in an environment without it every test module skips itself
(``pytest.importorskip``), so the main tox env stays SGLang-free. Start-up is the expensive part
(SGLang imports in three processes per engine), so the session starts the three native servers at
once and the in-process engine while they load.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sglang_support import (
    PARSERS,
    START_TIMEOUT,
    STUBS,
    InProcessStack,
    PortTaken,
    SpyBackend,
    Stack,
    cpu_env,
    start_native,
    start_reference_remote,
)

HERE = Path(__file__).resolve().parent
KINDS = ("plain", "tools", "gpt_oss")


def _cache_root(factory: pytest.TempPathFactory) -> Path:
    # SGLANG_TEST_CACHE (tox sets it inside the env folder) keeps models across runs; a change to
    # the builders changes the folder name, so a stale model is never reused.
    digest = hashlib.sha256(
        b"".join((HERE / f).read_bytes() for f in ("scripted_models.py", "harmony_model.py"))
    ).hexdigest()[:12]
    base = os.environ.get("SGLANG_TEST_CACHE")
    root = Path(base) if base else factory.getbasetemp() / "sglang-cache"
    return root / f"models-{digest}"


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    pytest.importorskip("sglang", reason="SGLang is not installed (tox -e sglang installs it)")
    from harmony_model import harmony_env
    from scripted_models import build

    t0 = time.monotonic()
    root = _cache_root(tmp_path_factory)
    cache = root.parent / "harmony"
    env = cpu_env(harmony_env(cache))
    reports = Path(os.environ.get("SGLANG_REPORT_DIR") or tmp_path_factory.mktemp("reports"))
    logs = tmp_path_factory.mktemp("sglang-logs")
    st = Stack(models={}, env=env, logs=logs, reports=reports)
    # SGLang in this process (the in-process engine) and in its children needs the same settings.
    os.environ.update(
        {k: env[k] for k in ("SGLANG_USE_CPU_ENGINE", "HF_HUB_OFFLINE", "PYTHONPATH")}
    )
    os.environ.update(harmony_env(cache))
    if str(STUBS) not in sys.path:
        sys.path.insert(0, str(STUBS))
    try:
        for kind in KINDS:  # each native server starts loading as soon as its model exists
            st.models[kind] = build(kind, root / kind, cache=cache)
            st.native[kind] = start_native(kind, st.models[kind], logs / f"native-{kind}.log", env)
        st.timings["models"] = time.monotonic() - t0
        st.inprocess = _start_inprocess(st.models["plain"])
        st.timings["inprocess_engine"] = time.monotonic() - t0
        deadline = time.monotonic() + START_TIMEOUT
        for kind in KINDS:
            for attempt in range(3):
                try:
                    st.native[kind].wait_ready("/health", deadline)
                    break
                except PortTaken:
                    if attempt == 2:
                        raise
                    # Start it again on another port (the log of the failed start is kept).
                    st.native[kind].stop()
                    log = logs / f"native-{kind}.retry{attempt + 1}.log"
                    st.native[kind] = start_native(kind, st.models[kind], log, env)
                    deadline = max(deadline, time.monotonic() + START_TIMEOUT)
        st.timings["native_servers"] = time.monotonic() - t0
        for kind in ("tools", "gpt_oss"):
            process = start_reference_remote(
                kind, st.native[kind].base_url, logs / f"reference-{kind}.log", env
            )
            st.remote_reference[kind] = process
        for process in st.remote_reference.values():
            process.wait_ready("/v1/models", time.monotonic() + 60)
        st.timings["ready"] = time.monotonic() - t0
        yield st
    finally:
        st.reports.mkdir(parents=True, exist_ok=True)
        (st.reports / "startup-timings.json").write_text(json.dumps(st.timings, indent=2))
        for process in [*st.remote_reference.values(), *st.native.values()]:
            process.stop()
        if st.inprocess is not None:
            st.inprocess.server.stop()
            st.inprocess.backend.inner.engine.shutdown()


def _start_inprocess(model: Path) -> InProcessStack:
    from reference_impl import ServerThread, create_app
    from reference_impl.sglang.backends import InProcessBackend
    from reference_impl.sglang.engine import SGLangConfig, SGLangEngine

    # The settings of sglang_support.CPU_FLAGS, as sglang.Engine arguments.
    backend = SpyBackend(
        InProcessBackend.launch(
            model_path=str(model),
            device="cpu",
            attention_backend="torch_native",
            sampling_backend="pytorch",
            max_total_tokens=8192,
            sleep_on_idle=True,
            dtype="float32",
            reasoning_parser=PARSERS["plain"][1],
        )
    )
    config = SGLangConfig(model_path=str(model), reasoning_parser=PARSERS["plain"][1])
    engine = SGLangEngine(backend, config)
    server = ServerThread(create_app(engine)).start()
    return InProcessStack(backend, engine, server, server.base_url)
