"""The recipes of docs/agents.md, run as written against the mock: the Python ones are an app's
own test files, run with pytest in a fresh folder with the pytest plugin (``responses_mock``), as
the app's team would; the Node ones are scripts run against a ``responses-mock`` process.

The Agents SDK and openai (Python) recipes are in the default run; the Node ones (Vercel AI SDK,
openai-node) are ``on_demand`` (``tox -e clients``) and need node/npm (``npm_support``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from npm_support import ROOT, MockProcess, installed, recipe

RECIPE_INI = "[pytest]\n"  # the app's own pytest configuration: none


def _pytest_recipe(name: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run the recipe ``name`` (a test file) with pytest in ``tmp_path``, the plugin loaded from
    its entry point as in an app that installed the package."""
    (tmp_path / "pytest.ini").write_text(RECIPE_INI)
    (tmp_path / name).write_text(recipe(name), encoding="utf-8")
    path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "PYTHONIOENCODING": "utf-8"}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", name],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _passed(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return [
        line.split(" ", 1)[1] for line in done.stdout.splitlines() if line.startswith("PASSED ")
    ]


def test_agents_sdk_recipe(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    passed = _passed(_pytest_recipe("test_weather_agent.py", tmp_path))
    cities = [p for p in passed if "test_the_agent_calls_its_weather_tool_with_the_city[" in p]
    assert len(cities) == 8, passed
    assert len(passed) == 10, passed  # the cities, the conversation, the scripted loop


def test_openai_python_recipe(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    assert len(_passed(_pytest_recipe("test_openai_sdk.py", tmp_path))) == 2


# -- Node: on demand ------------------------------------------------------------------------------

CLIENTS = Path(__file__).resolve().parent
CITIES = [
    ("What's the weather in Paris?", "Paris"),
    ("How is the weather in São Paulo today?", "São Paulo"),
    ("How's the weather in New York right now?", "New York"),
    ("Weather for Ho Chi Minh City, please.", "Ho Chi Minh City"),
    ("What's the weather like in Zürich?", "Zürich"),
    ("Tell me the weather in Reykjavík.", "Reykjavík"),
    ("What will the weather be in St. Petersburg tomorrow?", "St. Petersburg"),
    ("What is the weather in Dar es Salaam?", "Dar es Salaam"),
]


@pytest.fixture(scope="module")
def mock_process() -> Any:
    with MockProcess("--frozen-time") as mock:
        yield mock


def _node_recipe(where: Path, name: str, mock: MockProcess, *args: str) -> dict[str, Any]:
    (where / name).write_text(recipe(name), encoding="utf-8")
    env = {**os.environ, "OPENAI_BASE_URL": mock.base_url, "OPENAI_API_KEY": "unused"}
    done = subprocess.run(
        ["node", name, *args],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip(), done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def vercel(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(
        CLIENTS / "vercel", "node_modules/ai/package.json", request.config, tmp_path_factory
    )


@pytest.mark.on_demand
@pytest.mark.parametrize(("question", "city"), CITIES)
def test_vercel_ai_sdk_recipe_calls_the_tool_with_the_city(
    vercel: Path, mock_process: MockProcess, question: str, city: str
) -> None:
    out = _node_recipe(vercel, "weather.mjs", mock_process, question)
    assert out["asked"] == [city, city]  # generateText, then streamText
    assert f"Sunny in {city}, 21C" in out["generated"]
    assert f"Sunny in {city}, 21C" in out["streamed"]


@pytest.mark.on_demand
@pytest.mark.parametrize("question", ["Hello! Who are you?", "Tell me about Paris."])
def test_vercel_ai_sdk_recipe_conversation_gets_text(
    vercel: Path, mock_process: MockProcess, question: str
) -> None:
    out = _node_recipe(vercel, "weather.mjs", mock_process, question)
    assert out["asked"] == []
    assert out["generated"].startswith(f'You said: "{question}"')
    assert out["streamed"] == out["generated"]


@pytest.mark.on_demand
def test_openai_node_recipe(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    mock_process: MockProcess,
) -> None:
    where = installed(
        CLIENTS / "openai_node", "node_modules/openai/package.json", request.config,
        tmp_path_factory,
    )  # fmt: skip
    out = _node_recipe(where, "responses.mjs", mock_process, "What's the weather in Kraków?")
    assert out["call"] == {"city": "Kraków"}
    assert "Sunny in Kraków, 21C" in out["answer"]
    chat = _node_recipe(where, "responses.mjs", mock_process, "Describe a lighthouse.")
    assert chat["call"] is None
    said = 'You said: "Describe a lighthouse."'
    assert chat["answer"].startswith(said) and chat["streamed"].startswith(said)
