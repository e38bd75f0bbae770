"""Real clients against the mock. Tests marked ``on_demand`` (Node libraries: docs/agents.md)
skip, saying how to run them, unless ``RESPONSES_CLIENTS=all`` (what ``tox -e clients`` sets)."""

from __future__ import annotations

import os

import pytest

ON_DEMAND = pytest.mark.skip(
    reason="on demand (Node clients): tox -e clients, or RESPONSES_CLIENTS=all pytest tests/clients"
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("RESPONSES_CLIENTS") == "all":
        return
    for item in items:
        if item.get_closest_marker("on_demand") is not None:
            item.add_marker(ON_DEMAND)
