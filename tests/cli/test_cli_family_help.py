"""Every CLI of the family reads its --help (subcommands too), and a shared flag is spelled and
described the same everywhere (docs/cli.md): the table below is the family."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.responses_bench.cli import build_parser as bench_parser
from benchmarks.vendors.cli import _parser as vendors_parser
from conformance.cli import _parser as conformance_parser
from mock_server.cli import build_parser as mock_parser
from reference_impl.sglang.cli import build_parser as reference_parser

ROOT = Path(__file__).resolve().parents[2]

# flag -> (what its help must say, its metavar or None); one meaning per flag name.
SHARED: dict[str, tuple[str, str | None]] = {
    "--base-url": (r"base URL, as the OpenAI SDK's base_url, with or without /v1", "URL"),
    "--upstream": (r"base URL, as the OpenAI SDK's base_url, with or without /v1", "URL"),
    "--api-key-env": (r"^the environment variable holding the (API )?key", "VAR"),
    "--api-key": (r"^require 'Authorization: Bearer KEY' from clients", "KEY"),
    "--host": (r"^address to bind \(default: 127\.0\.0\.1\)$", None),
    "--port": (r"^port to bind; 0 picks a free one \(default: \d+\)$", None),
    "--timeout": (r"^deadline of each whole request, stream included", "SECONDS"),
    "--read-timeout": (r"^the longest silence: the wait to connect, or for the next bytes", None),
    "--format": (r"^text for people, json for programs \(default: text\)$", None),
    "--strict": (r"SHOULD violations fail", None),
    "--report-dir": (r".", "DIR"),
    "--profile": (r"profile", "P[,P...]"),  # repeatable or a comma list, in check, run, proxy
}
SERVERS = {"responses-mock", "responses-reference", "responses-conformance proxy"}
# Only a server takes a key literally (its own key, a test fixture): a client reads it from $VAR.
SERVER_ONLY = {"--api-key", "--host", "--port"}


def _walk(name: str, parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(name, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                found += _walk(f"{name} {sub}", child)
    return found


PARSERS = [
    *_walk("responses-conformance", conformance_parser()),
    *_walk("responses-mock", mock_parser()),
    *_walk("responses-reference", reference_parser()),
    *_walk("responses-bench", bench_parser()),
    *_walk("python -m benchmarks.vendors", vendors_parser()),
]
NAMES = [name for name, _ in PARSERS]


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {
        s: action
        for action in parser._actions
        if action.help is not argparse.SUPPRESS
        for s in action.option_strings
    }


def test_every_cli_and_subcommand_is_there() -> None:
    assert {
        "responses-conformance check", "responses-conformance list", "responses-conformance explain",
        "responses-conformance run", "responses-conformance report", "responses-conformance proxy",
        "responses-mock", "responses-reference", "responses-bench",
        "python -m benchmarks.vendors run", "python -m benchmarks.vendors summary",
    } <= set(NAMES)  # fmt: skip


@pytest.mark.parametrize(("name", "parser"), PARSERS, ids=NAMES)
def test_shared_flags_mean_the_same(name: str, parser: argparse.ArgumentParser) -> None:
    flags = _flags(parser)
    for flag, (meaning, metavar) in SHARED.items():
        action = flags.get(flag)
        if action is None:
            continue
        text = " ".join(str(action.help or "").split())
        assert re.search(meaning, text), f"{name} {flag}: {text!r} does not say {meaning!r}"
        if metavar is not None:
            assert action.metavar == metavar, f"{name} {flag}: metavar {action.metavar!r}"
        if flag in SERVER_ONLY:
            assert name in SERVERS, f"{name} is a client: {flag} is a server's (bind, own key)"
        if flag == "--format":
            assert tuple(action.choices or ()) == ("text", "json")


def test_clients_name_their_target_with_base_url() -> None:
    clients = {"responses-conformance run", "responses-bench", "responses-conformance proxy"}
    for name, parser in PARSERS:
        if name in clients:
            assert "--base-url" in _flags(parser), name


@pytest.mark.parametrize(("name", "parser"), PARSERS, ids=NAMES)
def test_help_formats_and_names_exit_codes(name: str, parser: argparse.ArgumentParser) -> None:
    text = parser.format_help()
    assert text.startswith("usage:")
    top = len(name.split()) == (3 if name.startswith("python") else 1)
    suite = name in ("responses-conformance run", "responses-conformance report")
    if top or suite or name == "responses-conformance proxy":
        assert re.search(r"exit codes", text, re.IGNORECASE), f"{name}: exit codes undocumented"


@pytest.mark.parametrize(
    "command",
    [
        ["responses-conformance"], ["responses-mock"], ["responses-reference"],
        ["responses-bench"], [sys.executable, "-m", "benchmarks.vendors"],
    ],
    ids=lambda c: c[-1],
)  # fmt: skip
def test_installed_command_prints_help(command: list[str]) -> None:
    exe = command[0]
    if not exe.startswith("/"):
        exe = str(Path(sys.executable).parent / exe)
    done = subprocess.run(
        [exe, *command[1:], "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:") and done.stderr == ""


@pytest.mark.parametrize("sub", ["check", "list", "explain", "run", "report", "proxy"])
def test_conformance_subcommand_help_exits_0(sub: str, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    assert main([sub, "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: responses-conformance " + sub)


def test_docs_have_a_section_per_cli_and_the_readme_links_them() -> None:
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    headings = [line for line in doc.splitlines() if line.startswith("## `")]
    for name in NAMES:
        if name.startswith("python -m benchmarks.vendors "):
            continue  # the harness has one section for its subcommands
        prog, _, sub = name.partition(" ")
        if prog == "responses-conformance" and not sub:
            continue  # each subcommand has its own
        assert any(prog in h and sub in h for h in headings), f"docs/cli.md: no section for {name}"
    for flag in SHARED:
        assert f"`{flag}" in doc, f"docs/cli.md does not describe {flag}"
    assert "(docs/cli.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
