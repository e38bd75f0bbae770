from __future__ import annotations

from collections.abc import Iterator

import pytest

from mock_server.app import MockSettings
from mock_server.testing import LoopbackMock


@pytest.fixture
def mock() -> Iterator[LoopbackMock]:
    with LoopbackMock(MockSettings(frozen_time=1_700_000_000)) as server:
        yield server
