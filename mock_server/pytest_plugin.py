"""pytest plugin (entry point ``pytest11``): fixtures that run the deterministic Responses mock.

Fixtures:

- ``responses_mock`` — a fresh mock on a free 127.0.0.1 port for one test;
- ``responses_mock_session`` — one mock for the whole session (scripts and request logs shared);
- ``responses_mock_inprocess`` — a fresh socket-free mock: ``.transport`` for ``httpx2.Client``,
  ``.client()`` an ``openai.OpenAI`` already wired to it.

Each gives ``.base_url`` (ending in ``/v1``), ``.client()``, ``.queue(...)`` (scenario names or
chunk lists for the next requests), ``.requests`` (HTTP requests seen) and ``.generations``.
Configure a test's mock with the marker::

    @pytest.mark.responses_mock(seed=3, scenario="reasoning", faults="429@1", frozen_time=True)

(``frozen_time=True`` freezes at ``mock_server.app.FROZEN_TIME``; ``faults`` is the ``--fault``
syntax.) Cassettes (docs/cassettes.md) with the same marker::

    @pytest.mark.responses_mock(replay="tests/cassettes/session", replay_mode="strict")
    @pytest.mark.responses_mock(record=tmp_folder)

``replay`` serves a cassette (folder, exchange file or vcrpy YAML) like ``--replay``;
``replay_mode`` ``strict`` (default) or ``fallback``, ``replay_timing`` ``"zero"`` (the default
here: tests need no pauses), ``"recorded"`` or a factor, ``replay_match`` / ``replay_ignore`` as
the CLI's. ``record`` writes the test's traffic into a folder.

The marker configures ``responses_mock`` and ``responses_mock_inprocess``; the session's mock is
shared, so a test that uses only ``responses_mock_session`` and carries the marker fails with a
message saying so — configure the session's mock by overriding the session-scoped fixture
``responses_mock_session_options`` (a dict of the marker's keywords) in a ``conftest.py``.
``.client()`` needs ``openai``: ``pip install 'responses-conformance[pytest]'``. Heavy imports
happen inside the fixtures so merely installing the plugin costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mock_server.app import MockSettings
    from mock_server.testing import InProcessMock, LoopbackMock

MARKER = "responses_mock"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(seed=0, scenario='auto', faults=None, frozen_time=None, chunk=None, "
        "api_key=None, store='memory', replay=None, replay_mode='strict', replay_timing='zero', "
        "record=None): configure the responses_mock fixtures' server",
    )


def _settings(options: dict[str, Any]) -> MockSettings:
    from mock_server.app import FROZEN_TIME, MockSettings
    from mock_server.engine import Chunking
    from mock_server.faults import FaultPlan

    options = dict(options)
    faults = options.pop("faults", None)
    if faults is not None:
        texts = [faults] if isinstance(faults, str) else list(faults)
        options["faults"] = FaultPlan.combine(texts)
    if options.get("frozen_time") is True:
        options["frozen_time"] = FROZEN_TIME
    chunk = options.pop("chunk", None)
    if chunk is not None:
        options["chunking"] = Chunking.parse(str(chunk))
    _cassette_settings(options)
    return MockSettings(**options)


def _cassette_settings(options: dict[str, Any]) -> None:
    """The marker's ``replay*`` / ``record`` options as MockSettings fields (in place)."""
    keys = ("replay_mode", "replay_timing", "replay_match", "replay_ignore")
    extra = {k: options.pop(k) for k in keys if k in options}
    if "record" in options and options["record"] is not None:
        options["record"] = str(options["record"])
    replay = options.pop("replay", None)
    if replay is None:
        if extra:
            raise pytest.UsageError(f"{MARKER}: {', '.join(extra)} without replay=")
        return
    from cassettes import CassetteError
    from mock_server.replay import ReplaySettings, parse_timing, replay_exchanges
    from mock_server.replay_match import DEFAULT_IGNORE, KEY_PARTS

    timing = extra.get("replay_timing", "zero")
    settings = ReplaySettings(
        str(replay),
        mode=extra.get("replay_mode", "strict"),
        timing=parse_timing(timing) if isinstance(timing, str) else float(timing),
        match=tuple(extra.get("replay_match", KEY_PARTS)),
        ignore=tuple(extra.get("replay_ignore", DEFAULT_IGNORE)),
    )
    try:  # as --replay does: an empty cassette in strict mode replays nothing
        replay_exchanges(settings)
    except CassetteError as error:
        raise pytest.UsageError(f"{MARKER}: replay={str(replay)!r}: {error}") from None
    options["replay"] = settings


def _marker_options(request: pytest.FixtureRequest) -> dict[str, Any]:
    marker = request.node.get_closest_marker(MARKER)
    return dict(marker.kwargs) if marker is not None else {}


@pytest.fixture
def responses_mock(request: pytest.FixtureRequest) -> Iterator[LoopbackMock]:
    """A mock Responses server on a free loopback port, fresh for this test."""
    from mock_server.testing import LoopbackMock

    with LoopbackMock(_settings(_marker_options(request))) as mock:
        yield mock


_SESSION_ONLY = (
    "@pytest.mark.responses_mock configures responses_mock and responses_mock_inprocess, not "
    "responses_mock_session (one server shared by the whole session, started before this test): "
    "use responses_mock for per-test settings, or override the session-scoped fixture "
    "responses_mock_session_options (return the marker's keywords as a dict) in conftest.py"
)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A marker that only the session's mock could see would be silently ignored: fail instead."""
    names = set(getattr(item, "fixturenames", ()))
    if "responses_mock_session" not in names:
        return
    if names & {"responses_mock", "responses_mock_inprocess"}:
        return  # the marker configures those
    if item.get_closest_marker(MARKER) is not None:
        pytest.fail(_SESSION_ONLY, pytrace=False)


@pytest.fixture(scope="session")
def responses_mock_session_options() -> dict[str, Any]:
    """The session mock's settings, as the marker's keywords; override it in conftest.py."""
    return {}


@pytest.fixture(scope="session")
def responses_mock_session(
    responses_mock_session_options: dict[str, Any],
) -> Iterator[LoopbackMock]:
    """One mock Responses server for the whole test session (``responses_mock_session_options``)."""
    from mock_server.testing import LoopbackMock

    with LoopbackMock(_settings(responses_mock_session_options)) as mock:
        yield mock


@pytest.fixture
def responses_mock_inprocess(request: pytest.FixtureRequest) -> Iterator[InProcessMock]:
    """A socket-free mock: pass ``.transport`` to ``httpx2.Client`` or use ``.client()``."""
    from mock_server.testing import InProcessMock

    mock = InProcessMock(_settings(_marker_options(request)))
    try:
        yield mock
    finally:
        mock.close()
