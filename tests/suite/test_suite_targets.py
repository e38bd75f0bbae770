"""Targets from flags and TOML; expected failures (xfail, and xpass that fails the run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from broken_servers import kb26_store_false_retrievable
from suite_support import run_suite, serve

from conformance.suite.targets import (
    EMBEDDED_PROFILES,
    TargetError,
    flag_target,
    load_targets,
)


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "targets.toml"
    path.write_text(text)
    return path


def test_toml_with_several_targets(tmp_path: Path) -> None:
    path = _toml(tmp_path, """
[defaults]
timeout = 30

[targets.vendor-a]
base_url = "https://user:secret@api.example.test/v1"
model = "model-a"
api_key_env = "VENDOR_A_KEY"
profiles = ["tools", "stateful"]
expected_failures = ["live.background.cancel_idempotent"]

[targets.vendor-b]
base_url = "http://127.0.0.1:8000/v1"
model = "model-b"
timeout = 5
[targets.vendor-b.expected_failures]
"stream.output_index.contiguous" = "sglang#12644, fixed in the next release"

[targets.mock]
embedded = true
""")  # fmt: skip
    a, b, mock = load_targets(path)
    assert (a.name, a.model, a.api_key_env, a.timeout) == (
        "vendor-a",
        "model-a",
        "VENDOR_A_KEY",
        30,
    )
    assert a.profiles == ("core", "tools", "stateful")
    assert a.expected_failures == {"live.background.cancel_idempotent": ""}
    assert a.shown_url() == "https://api.example.test/v1"  # no credentials in reports
    assert a.secrets({"VENDOR_A_KEY": "sk-a"}) == ["sk-a", "secret"]
    assert b.timeout == 5 and b.profiles == ("core",)
    assert b.expected_failures["stream.output_index.contiguous"].startswith("sglang")
    assert mock.embedded and mock.base_url is None and mock.profiles == EMBEDDED_PROFILES
    assert [t.name for t in load_targets(path, select=["vendor-b"])] == ["vendor-b"]


@pytest.mark.parametrize(
    "text,message",
    [
        ('[targets.x]\nmodel = "m"\n', "base_url is required"),
        ('[targets.x]\nbase_url = "http://h/v1"\n', "model is required"),
        ('[targets.x]\nbase_url = "http://h/v1"\nmodel = "m"\ncolour = 1\n', "unknown key"),
        ('[targets.x]\nbase_url = "ftp://h/v1"\nmodel = "m"\n', "not an http(s) URL"),
        ('[targets.x]\nbase_url = "http://h/v1"\nmodel = "m"\nprofiles = ["gpu"]\n', "unknown profile"),
        ('[targets.x]\nbase_url = "http://h/v1"\nmodel = "m"\nexpected_failures = ["x.y"]\n', "name no check"),
        ("[defaults]\nbase_url = 'http://h/v1'\n[targets.x]\nmodel = 'm'\n", "cannot set base_url"),
        ("this is = = not toml", "not valid TOML"),
    ],
)  # fmt: skip
def test_toml_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(TargetError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_targets(_toml(tmp_path, text))


def test_base_url_never_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    target = flag_target(base_url=None, model=None)
    assert target.embedded and target.base_url is None


def test_embedded_mock_follows_instructions_unless_told_not_to() -> None:
    # The mock answers the cases' simple instructions (mock_server/instructions.py).
    assert flag_target(base_url=None, model=None).follows_instructions is True
    assert (
        flag_target(base_url=None, model=None, follows_instructions=False).follows_instructions
        is False
    )


def test_expected_failures_xfail_and_xpass(tmp_path: Path) -> None:
    with serve(kb26_store_false_retrievable()) as url:
        path = _toml(tmp_path, f"""
[targets.mock]
embedded = true
expected_failures = ["live.store.false_not_retrievable"]

[targets.kb26]
base_url = "{url}"
model = "mock"
profiles = ["stateful"]
follows_instructions = false
expected_failures = {{ "live.store.false_not_retrievable" = "KB26, known" }}
""")  # fmt: skip
        run = run_suite("--targets", str(path), "-k", "store_false", report_dir=tmp_path / "r")
    # The broken server's failure is expected; the mock's listed "failure" passes: XPASS → 1.
    assert run.outcomes("kb26")["live.store.false_not_retrievable"] == "xfail"
    assert run.outcomes("mock")["live.store.false_not_retrievable"] == "xpass"
    assert run.index["targets"]["kb26"]["exit_code"] == 0
    assert run.code == 1
    assert "remove it from the list" in run.stdout
