"""Run the cases against each target: start the embedded mock when asked, check the target is
reachable, run pytest over the cases of the section modules (:mod:`conformance.sections.cases`)
with :class:`SuitePlugin`, collect.

pytest runs hermetically: a generated ini file (so the user's own pytest configuration, found from
the working directory, does not apply), plugin auto-loading off (so no installed plugin — the
mock's own among them — loads into the judge's process), no cache directory.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from ..sections import SECTIONS
from ..sections.cases import cases_of
from .console import Console
from .embedded import EmbeddedMockError, served
from .http import TargetClient, TargetHung, is_loopback
from .judgeable import unjudgeable_create
from .plugin import SuitePlugin
from .results import NOT_JUDGED, TargetResult
from .targets import Target

__all__ = ["case_files", "run_target"]

_INI = "[pytest]\npython_files = test_*.py\npython_functions = test_*\nxfail_strict = true\n"


def run_target(
    target: Target,
    *,
    strict: bool,
    console: Console,
    keyword: str | None = None,
    repeat: int = 1,
) -> TargetResult:
    """Every case against ``target``; a target that cannot be reached gives status
    ``unreachable``, one whose first real request shows it cannot be judged (authentication
    refused, not a Responses server, a model it does not serve: :mod:`.judgeable`)
    ``not_judged``, a run that breaks (the mock does not start, the cases do not load)
    ``broken``. ``repeat``: how often the stateful chain cases run (``--repeat``)."""
    started = time.monotonic()
    result = TargetResult(target, strict)
    try:
        with served(target) as resolved:
            result.target = resolved
            console.target_start(resolved)
            reason = preflight(resolved)
            if reason is not None:
                result.status, result.reason = "unreachable", reason
                return result
            client = _client(resolved)
            try:
                reason = first_request(resolved, client)
                if reason is not None:
                    # No case runs: every outcome would come from the refusal (docs/cli.md).
                    result.status, result.reason = NOT_JUDGED, reason
                    return result
                _run_cases(result, console, keyword, client, repeat=repeat)
            finally:
                client.close()
    except EmbeddedMockError as exc:
        result.status, result.reason = "broken", str(exc)
    finally:
        result.duration = time.monotonic() - started
    return result


def preflight(target: Target) -> str | None:
    """``None`` when the target answers HTTP at all (any status); else why it is unreachable.
    A target that accepts the connection but does not answer is *not* unreachable: its cases will
    fail on their timeouts."""
    assert target.base_url is not None
    timeout = min(target.timeout, 10.0)
    try:
        # The status is all it needs: the body is never read (a target is a peer, and its
        # /models may be anything, of any size).
        url = target.base_url.rstrip("/") + "/models"
        trust_env = not is_loopback(target.base_url)
        with (
            httpx2.Client(timeout=timeout, trust_env=trust_env) as client,
            client.stream("GET", url),
        ):
            pass
    except (httpx2.ConnectError, httpx2.ConnectTimeout) as exc:
        return f"cannot connect to {target.shown_url()}: {_reason(exc)}"
    except httpx2.TimeoutException:
        return None
    except httpx2.HTTPError as exc:
        if isinstance(exc, httpx2.UnsupportedProtocol | httpx2.ProxyError):
            return f"cannot reach {target.shown_url()}: {_reason(exc)}"
        return None
    return None


def first_request(target: Target, client: TargetClient) -> str | None:
    """Send one plain create request, as every case would; ``None`` when its answer is one to
    judge (any verdict, a 5xx included), else the one-line reason the target cannot be judged."""
    body = {"model": target.model, "input": "Reply with the word OK.", "max_output_tokens": 16}
    try:
        ex = client.call("POST", "/responses", json_body=body)
    except TargetHung:
        return None  # its cases will fail on their deadline, as before
    if ex.status is None:
        return None  # a transport failure: the cases judge it (live.http.status_ok)
    return unjudgeable_create(
        ex.status, ex.content_type, ex.body, ex.text, model=target.model,
        what="POST /responses", is_json=ex.is_json,
    )  # fmt: skip


def _client(target: Target) -> TargetClient:
    assert target.base_url is not None
    return TargetClient(
        target.base_url,
        api_key=target.api_key(),
        timeout=target.timeout,
        max_events=target.max_events,
        max_body_bytes=target.max_body_bytes,
    )


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]


def _run_cases(
    result: TargetResult, console: Console, keyword: str | None, client: TargetClient,
    *, repeat: int,
) -> None:  # fmt: skip
    target = result.target
    plugin = SuitePlugin(
        target, client, strict=result.strict, console=console, repeat=repeat, keyword=keyword
    )
    with tempfile.TemporaryDirectory(prefix="responses-conformance-") as tmp:
        ini = Path(tmp) / "pytest.ini"
        ini.write_text(_INI, encoding="utf-8")
        args = _pytest_args(ini)
        with _no_plugin_autoload():
            code = pytest.main(args, plugins=[plugin])
    result.cases = plugin.results
    broken = (
        pytest.ExitCode.INTERNAL_ERROR,
        pytest.ExitCode.USAGE_ERROR,
        pytest.ExitCode.INTERRUPTED,
    )
    if plugin.collect_errors or code in broken:
        detail = (
            plugin.collect_errors[0].splitlines()[-1]
            if plugin.collect_errors
            else pytest.ExitCode(code).name.lower().replace("_", " ")  # "interrupted", not a repr
        )
        result.status = "broken"
        result.reason = f"the suite's cases could not run: {detail}"
    elif not plugin.results:
        result.status = "broken"
        result.reason = f"no case selected (-k {keyword!r})" if keyword else "no case collected"


def case_files() -> list[str]:
    """The files pytest collects: every section module that declares a case, in section order."""
    return [str(module.__file__) for module in SECTIONS if cases_of(module)]


def _pytest_args(ini: Path) -> list[str]:
    args = [
        *case_files(),
        "-c", str(ini),
        "--rootdir", str(Path(__file__).parent.parent),
        "-p", "no:cacheprovider",
        "-p", "no:terminal",
        "-p", "no:warnings",
    ]  # fmt: skip
    return args  # -k: the plugin selects (by a case's area, not its module's name)


@contextmanager
def _no_plugin_autoload() -> Iterator[None]:
    key = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
    previous = os.environ.get(key)
    os.environ[key] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = previous
