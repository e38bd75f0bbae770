"""Stored responses expire: ``--store-ttl`` on ``responses-mock`` and
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
from reference_impl.sglang.cli import DEFAULT_STORE_TTL, make_store
from reference_impl.sglang.cli import build_parser as reference_parser


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


@pytest.mark.parametrize("spec", ["memory", "sqlite"])
def test_an_evicted_response_is_openais_404(spec: str, tmp_path: Path) -> None:
    from reference_impl.stores.base import StoreLimits

    store = "memory" if spec == "memory" else f"sqlite:{tmp_path / 'r.db'}"
    mock = InProcessMock(MockSettings(store=store, store_limits=StoreLimits(max_responses=2)))
    client = mock.client(max_retries=0)
    first, *rest = [client.responses.create(model="mock", input=f"q{n}") for n in range(3)]
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.retrieve(first.id)
    assert caught.value.status_code == 404 and first.id in str(caught.value.body)
    assert [client.responses.retrieve(r.id).id for r in rest] == [r.id for r in rest]
    mock.close()


def test_retention_options_on_both_servers() -> None:
    from reference_impl.stores.options import limits_from

    argv = ["--store-max-responses", "7", "--store-max-conversations", "3",
            "--store-max-bytes", "1Mi", "--conversation-ttl", "60"]  # fmt: skip
    for parser in (build_parser(), reference_parser()):
        limits = limits_from(parser.parse_args(argv))
        assert (limits.max_responses, limits.max_conversations) == (7, 3)
        assert (limits.max_bytes, limits.conversation_ttl_seconds) == (2**20, 60)
        defaults = limits_from(parser.parse_args([]))
        assert (defaults.max_responses, defaults.max_bytes) == (10_000, 256 * 2**20)
        assert defaults.conversation_ttl_seconds is None  # as at OpenAI: conversations stay
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--store-max-bytes", "lots"])


def test_a_restarted_mock_on_one_sqlite_file_never_reuses_an_id(tmp_path: Path) -> None:
    store = f"sqlite:{tmp_path / 'shared.db'}"
    plain = InProcessMock(MockSettings(seed=3))
    first = InProcessMock(MockSettings(seed=3, store=store))
    again = InProcessMock(MockSettings(seed=3, store=store))  # a restart, or a second process
    ids = [
        m.client().responses.create(model="mock", input="same").id for m in (plain, first, again)
    ]
    assert ids[0] == ids[1]  # the first process on a fresh file: a single mock's ids
    assert ids[2] != ids[1]  # the store numbered the second one
    assert again.client().responses.retrieve(ids[1]).id == ids[1]  # nothing overwritten
    for mock in (plain, first, again):
        mock.close()
