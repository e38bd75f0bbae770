"""``serve TARGET``: start one target as the matrix does and keep it up, to reproduce by hand.

It prints the base URL (and, for LiteLLM, the variable holding the proxy's key) so that the
``curl`` lines of the summary can be pasted: ``export BASE_URL=…`` first. Ctrl-C stops it all.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from . import venvs
from .catalog import SGLANG_MODELS, TargetSpec
from .run import suite_base_url
from .services import Service
from .stack import (
    KEY_ENV,
    Launched,
    bridge_service,
    build_models,
    mock_service,
    reference_service,
    sglang_service,
    vllm_service,
)

__all__ = ["serve"]


def serve(
    spec: TargetSpec,
    repo: Path,
    venv_root: Path,
    sglang_python: Path | None,
    log: Callable[[str], None],
) -> int:
    work = Path(tempfile.mkdtemp(prefix=f"vendors-serve-{spec.name}-"))
    logs = work / "logs"
    logs.mkdir()
    started: list[Service] = []
    try:
        key = "sglang" if spec.kind == "reference" else spec.vendor
        python, _ = venvs.ensure_vendor(key, venv_root, repo, log, sglang_python=sglang_python)
        if spec.kind == "mock":
            service, root = mock_service(python, logs)
            started.append(service.start())
            launched = Launched(f"{root}{spec.path}", "mock")
        else:
            sg_python, _ = venvs.ensure_vendor(
                "sglang", venv_root, repo, log, sglang_python=sglang_python
            )
            models = build_models(sg_python, repo, venv_root, [spec.model], logs / "models.log")
            if spec.kind == "vllm":
                launched = vllm_service(python, spec, models, logs)
                started.append(launched.services[0].start())
                return _wait(spec, launched, started, logs, log)
            service, root = sglang_service(sg_python, repo, venv_root, models, spec.model, logs)
            started.append(service.start())
            if spec.kind == "sglang":
                launched = Launched(f"{root}{spec.path}", SGLANG_MODELS[spec.model].served_name)
            elif spec.kind == "reference":
                launched = reference_service(sg_python, spec, root, logs)
                started.append(launched.services[0].start())
            else:
                launched = bridge_service(python, spec, root, work / "work", logs)
                started.append(launched.services[0].start())
        return _wait(spec, launched, started, logs, log)
    except KeyboardInterrupt:
        return 0
    finally:
        for service in reversed(started):
            service.stop()


def _wait(
    spec: TargetSpec,
    launched: Launched,
    started: list[Service],
    logs: Path,
    log: Callable[[str], None],
) -> int:
    base_url = suite_base_url(spec, launched)  # what `responses-conformance run` takes as is
    print(f"export BASE_URL={base_url}   # model {launched.model}; logs in {logs}")
    if launched.api_key:
        print(f'export {KEY_ENV}={launched.api_key}   # add -H "authorization: Bearer ${KEY_ENV}"')
    print("Ctrl-C stops it.", flush=True)
    while all(s.proc is not None and s.proc.poll() is None for s in started):
        time.sleep(1)
    log("a server exited; see " + os.fspath(logs))
    return 1
