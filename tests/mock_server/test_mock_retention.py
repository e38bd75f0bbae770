"""Stored responses expire (issue #14): ``--store-ttl`` on ``responses-mock`` and
``responses-reference``, 30 days by default as OpenAI documents for ``store: true``; an expired id
is OpenAI's 404, as an unknown one. Time is moved by the store's clock, never slept."""

from __future__ import annotations

import time
from pathlib import Path

import openai
import pytest

from mock_server.app import MockSettings, check_store_spec
from mock_server.cli import build_parser
from mock_server.testing import InProcessMock
from reference_impl.cli import DEFAULT_STORE_TTL, make_store
from reference_impl.cli import build_parser as reference_parser


@pytest.mark.parametrize("spec", ["memory", "sqlite"])
def test_an_expired_response_is_openais_404(spec: str, tmp_path: Path) -> None:
    store = "memory" if spec == "memory" else f"sqlite:{tmp_path / 'r.db'}"
    mock = InProcessMock(MockSettings(store=store, store_ttl=60))
    client = mock.client(max_retries=0)
    created = client.responses.create(model="mock", input="remember me")
    assert client.responses.retrieve(created.id).id == created.id
    later = time.monotonic() + 61 if spec == "memory" else time.time() + 61
    mock.server.store._clock = lambda: later  # type: ignore[attr-defined]
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.retrieve(created.id)
    error = caught.value.body
    assert isinstance(error, dict) and error.get("type") == "invalid_request_error"
    assert created.id in error.get("message", "")
    mock.close()


def test_the_default_is_thirty_days_on_both_servers() -> None:
    assert DEFAULT_STORE_TTL == 30 * 24 * 3600
    assert build_parser().parse_args([]).store_ttl == DEFAULT_STORE_TTL
    assert reference_parser().parse_args([]).store_ttl == DEFAULT_STORE_TTL
    assert build_parser().parse_args(["--store-ttl", "0"]).store_ttl is None
    assert MockSettings().store_ttl == DEFAULT_STORE_TTL
    assert make_store("memory", 5.0).ttl_seconds == 5.0
    assert make_store("memory:3", None).ttl_seconds is None


def test_the_mock_takes_a_redis_store() -> None:
    pytest.importorskip("redis")
    assert check_store_spec("redis://127.0.0.1:6379/0") == ("redis", "redis://127.0.0.1:6379/0")
    store = make_store("redis://127.0.0.1:6379/0", 90.4)
    assert store.ttl_seconds == 90


def test_a_bad_ttl_is_a_usage_error() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--store-ttl", "-1"])
