"""Which tools Codex CLI declares, by model name (docs/agents.md, "Which model names get Codex's
full tool set"): Codex takes them from the catalogue compiled into it, or from the one
``model_catalog_json`` names (docs/codex-model-catalog.json for the name ``mock``), never from the
provider. Needs node/npm and the registry once (``tests/clients/codex_support.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codex_support import Codex, RecordingMock, codex_launcher

from mock_server.app import MockSettings

CATALOGUE = Path(__file__).resolve().parents[2] / "docs" / "codex-model-catalog.json"


@pytest.fixture(scope="module")
def launcher(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return codex_launcher(request.config, tmp_path_factory)


def _declared(launcher: Path, tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    """The first request's tools by name (``type``, and the custom tool's format type) and
    Codex's stderr, for ``codex exec ARGS "Say hello."``."""
    with RecordingMock(MockSettings(frozen_time=1_700_000_000)) as mock:
        run = Codex(launcher, mock.base_url, tmp_path).exec(*args, "Say hello.")
        assert run.returncode == 0, run.stderr[-2000:]
        assert {(e.method, e.path) for e in mock.exchanges} == {("POST", "/v1/responses")}
        body = mock.responses()[0].json()
    tools = {
        t.get("name") or t["type"]: (t["type"], (t.get("format") or {}).get("syntax"))
        for t in body.get("tools", [])
    }
    return tools, run.stderr


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("-m", "gpt-5.5"), id="bundled-gpt-5.5"),
        pytest.param(
            ("-c", f"model_catalog_json={json.dumps(str(CATALOGUE))}"), id="mock-with-catalogue"
        ),
    ],
)
def test_the_full_tool_set_by_model_name(launcher: Path, tmp_path: Path, args: Any) -> None:
    tools, stderr = _declared(launcher, tmp_path, *args)
    assert tools["apply_patch"] == ("custom", "lark")  # Codex's freeform patch tool
    assert tools["exec_command"][0] == tools["write_stdin"][0] == "function"
    assert "fallback metadata" not in stderr


def test_an_unknown_name_falls_back_without_apply_patch(launcher: Path, tmp_path: Path) -> None:
    # The near miss of the above: `mock` with no catalogue has no metadata, so no patch tool.
    tools, stderr = _declared(launcher, tmp_path)
    assert "apply_patch" not in tools and tools["exec_command"][0] == "function"
    assert "Model metadata for `mock` not found" in stderr


def test_a_catalogue_replaces_the_bundled_one(launcher: Path, tmp_path: Path) -> None:
    # model_catalog_json is authoritative: gpt-5.5, not listed in it, falls back too.
    catalogue = f"model_catalog_json={json.dumps(str(CATALOGUE))}"
    tools, stderr = _declared(launcher, tmp_path, "-c", catalogue, "-m", "gpt-5.5")
    assert "apply_patch" not in tools
    assert "Model metadata for `gpt-5.5` not found" in stderr


def test_code_mode_models_declare_no_tools(launcher: Path, tmp_path: Path) -> None:
    tools, _ = _declared(launcher, tmp_path, "-m", "gpt-6.2-sol")
    assert tools == {}
