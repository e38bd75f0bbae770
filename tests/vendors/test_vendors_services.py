"""Services start on loopback, are waited for over HTTP, and are stopped with their children."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from benchmarks.vendors.services import Service, ServiceError, free_port
from benchmarks.vendors.stack import clean_env

# A server that forks a child (like SGLang's scheduler) and answers /health.
SERVER = r"""
import http.server, os, sys, time
child = os.fork()
if child == 0:
    time.sleep(3600)
    os._exit(0)
open(sys.argv[2], "w").write(str(child))
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404); self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_service_is_ready_over_http_and_stopped_with_its_children(tmp_path: Path) -> None:
    port = free_port()
    child_file = tmp_path / "child"
    cmd = [sys.executable, "-c", SERVER, str(port), str(child_file)]
    service = Service("fake", cmd, ready_url=f"http://127.0.0.1:{port}/health",
                      log_path=tmp_path / "fake.log", startup_timeout=30)  # fmt: skip
    with service:
        assert service.proc is not None and service.proc.poll() is None
        child = int(child_file.read_text())
        assert _alive(child)
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child)


def test_a_service_that_dies_says_why(tmp_path: Path) -> None:
    cmd = [sys.executable, "-c", "import sys; print('no model here'); sys.exit(3)"]
    service = Service("dies", cmd, ready_url=f"http://127.0.0.1:{free_port()}/health",
                      log_path=tmp_path / "dies.log", startup_timeout=30)  # fmt: skip
    with pytest.raises(ServiceError, match=r"(?s)exited with 3.*no model here"):
        service.start()


def test_vendors_inherit_no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GH_TOKEN", "MY_SECRET"):
        monkeypatch.setenv(name, "x")
    monkeypatch.setenv("PATH_EXTRA_OK", "kept")
    env = clean_env({"OPENAI_API_KEY": "unused"})
    assert env["OPENAI_API_KEY"] == "unused" and env["PATH_EXTRA_OK"] == "kept"
    assert not {"OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GH_TOKEN", "MY_SECRET"} & set(env)


def test_the_model_stamp_follows_the_builder_files_only(tmp_path: Path) -> None:
    """An edit to tests/sglang's other helpers (the profiles in sglang_support.py) must not
    rebuild every scripted model; an edit to the builder must."""
    from benchmarks.vendors.stack import BUILDER_FILES, _builder_stamp

    folder = tmp_path / "tests" / "sglang"
    folder.mkdir(parents=True)
    for name in BUILDER_FILES:
        (folder / name).write_text(f"# {name}\n")
    (folder / "sglang_support.py").write_text("PROFILES = {}\n")
    before = _builder_stamp(tmp_path)
    (folder / "sglang_support.py").write_text("PROFILES = {'plain': ('core',)}\n")
    assert _builder_stamp(tmp_path) == before
    (folder / "scripted_models.py").write_text("# another script\n")
    assert _builder_stamp(tmp_path) != before
