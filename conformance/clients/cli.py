"""The ``clients`` sub-command of ``responses-conformance`` (wired in :mod:`conformance.cli`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from ..cli_options import (
    TIMEOUT_HELP,
    BaseURLError,
    add_format,
    add_report_dir,
    add_target,
    base_url,
    comma_list,
    seconds,
)
from ..exit_codes import EXIT_BROKEN
from ..suite.targets import Target
from .catalog import CLIENTS, DEFAULT_DEADLINE

__all__ = ["add_subcommand", "cmd_clients"]

_DESCRIPTION = """\
Run the real client programs against a Responses API server and report, per client and flow,
whether the client works: Codex CLI (codex exec --json in a throwaway workdir), the OpenAI Agents
SDK, the Vercel AI SDK, openai (Python) and openai (Node). With no --base-url it starts the
embedded mock server, as `run` does.

Each client runs in its own process, against a loopback relay in front of the target that counts
its requests (a flow over its request budget is a client that loops: a failure, with the count)
and judges what it forwards (the relay's verdicts are kept beside the client's, never in it).
Clients are installed on first use into a cache, pinned (--latest: the newest releases).
"""


def _epilog() -> str:
    lines = ["clients and flows (request budget):"]
    for spec in CLIENTS.values():
        flows = ", ".join(f"{f.name} ({f.budget})" for f in spec.flows)
        lines.append(f"  {spec.name:<14} {flows}")
    lines += [
        "",
        "reports (--report-dir DIR): index.json (target -> client -> flow -> outcome, with the",
        "client's own error, exit code, last events and last requests as evidence), junit.xml,",
        "report.html. --format json prints the index on stdout.",
        "",
        "exit codes: 0 every flow passed; 1 a flow failed (the client's error is the evidence);",
        "2 the run could not judge: bad arguments, the target unreachable or no answer to judge",
        "(authentication refused, not a Responses server, a model it does not serve), or a",
        "client could not be installed or started (no node/npm, no registry) - that is no",
        "verdict on the server.",
        "",
        "examples:",
        "  responses-conformance clients                       # every client against the mock",
        "  responses-conformance clients --base-url http://127.0.0.1:8000 --model Qwen/Qwen3-8B \\",
        "      --client codex,openai-python --report-dir reports/clients",
        "  responses-conformance clients --client openai-python --with-profiles",
        "      # and the client:openai-python profile beside it: the agreement table",
    ]
    return "\n".join(lines)


def add_subcommand(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "clients", help="run the real clients (Codex, Agents SDK, Vercel AI SDK, openai SDKs)",
        description=_DESCRIPTION, epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    add_target(p)
    p.add_argument(
        "--client", action="append", metavar="C[,C...]", default=None,
        help=f"clients to run (repeatable, or a comma list; default all): {', '.join(CLIENTS)}",
    )  # fmt: skip
    p.add_argument(
        "--flow", action="append", metavar="F[,F...]", default=None,
        help="only these flows (a name, or CLIENT/FLOW)",
    )  # fmt: skip
    p.add_argument(
        "--timeout", type=seconds, metavar="SECONDS", default=None,
        help=f"{TIMEOUT_HELP}; here the whole flow, every request in it, must end within it "
        f"(default {DEFAULT_DEADLINE:g})",
    )  # fmt: skip
    p.add_argument(
        "--latest", action="store_true",
        help="install and run the newest release of each client instead of the pinned one",
    )  # fmt: skip
    p.add_argument(
        "--offline", action="store_true",
        help="install nothing: a client not in the cache is unavailable (exit 2)",
    )  # fmt: skip
    p.add_argument(
        "--cache-dir", metavar="DIR", default=None,
        help="where clients are installed (default $RESPONSES_CLIENTS_CACHE, else "
        "~/.cache/responses-conformance/clients)",
    )  # fmt: skip
    p.add_argument(
        "--python", metavar="PATH", default=None,
        help="run the Python clients with this interpreter and the openai / openai-agents it "
        "has (default: the pinned versions, from this Python when it has them, else the cache)",
    )  # fmt: skip
    p.add_argument(
        "--with-profiles", action="store_true",
        help="also run each client's client:X profile (run --profile client:X -k clients) on the "
        "same server, and print and report the agreement table: profile verdict x harness "
        "verdict per client (a disagreement is a missing or wrong check of the profile)",
    )  # fmt: skip
    add_report_dir(p)
    add_format(p)


@contextmanager
def resolved_target(target: Target) -> Iterator[Target]:
    """The target with its base URL: the embedded mock started once, so that the harness and
    the profiles (--with-profiles) judge the same server."""
    from ..suite.embedded import served

    with served(target) as resolved:
        yield replace(resolved, embedded=False)


def cmd_clients(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cassettes.redaction import Redactor

    from ..suite.embedded import EmbeddedMockError
    from ..suite.reporting import report_dir_problem
    from ..suite.targets import TargetError, flag_target
    from .agreement import fill, profile_verdicts, table_lines
    from .install import Installer, default_cache
    from .report import build_index, write_reports
    from .results import FlowResult
    from .runner import run_clients

    name = "responses-conformance clients"
    chosen = comma_list(args.client) or list(CLIENTS)
    unknown = [c for c in chosen if c not in CLIENTS]
    if unknown:
        err.write(f"{name}: unknown client(s) {', '.join(unknown)}; known: {', '.join(CLIENTS)}\n")
        return EXIT_BROKEN
    flows = comma_list(args.flow)
    known = {f.name for c in chosen for f in CLIENTS[c].flows}
    known |= {f"{c}/{f.name}" for c in chosen for f in CLIENTS[c].flows}
    if [f for f in flows if f not in known]:
        bad = ", ".join(f for f in flows if f not in known)
        err.write(f"{name}: unknown flow(s) {bad} for {', '.join(chosen)}\n")
        return EXIT_BROKEN
    try:
        if args.base_url:
            try:
                _, note = base_url(args.base_url)
            except BaseURLError as exc:
                raise TargetError(str(exc)) from None
            if note:
                err.write(f"{name}: {note}\n")
        target = flag_target(
            base_url=args.base_url, model=args.model, name=args.name,
            api_key_env=args.api_key_env, timeout=args.timeout,
        )  # fmt: skip
    except TargetError as exc:
        err.write(f"{name}: {exc}\n")
        return EXIT_BROKEN
    problem = report_dir_problem(args.report_dir) if args.report_dir else None
    if problem is not None:
        err.write(f"{name}: {problem}\n")
        return EXIT_BROKEN
    json_out = args.format == "json"
    console = err if json_out else out
    redactor = Redactor(target.secrets())
    cache = Path(args.cache_dir) if args.cache_dir else default_cache()
    installer = Installer(cache, latest=args.latest, offline=args.offline, python=args.python)
    deadline = args.timeout if args.timeout is not None else DEFAULT_DEADLINE

    def said(flow: FlowResult) -> None:
        label = "PASS" if flow.outcome == "pass" else "FAIL"
        line = (f"{label}  {flow.client}/{flow.flow}  {flow.requests} request(s), "
                f"{flow.duration:.1f} s")  # fmt: skip
        if flow.reason:
            line += f"  {flow.reason}"
        console.write(redactor.text(line) + "\n")
        console.flush()

    console.write(f"clients: {', '.join(chosen)} -> {target.shown_url()}\n")
    try:
        with resolved_target(target) as resolved:
            result = run_clients(
                resolved, chosen, installer=installer, deadline=deadline, redactor=redactor,
                flows=flows, on_flow=said,
            )  # fmt: skip
            result.target = target if target.embedded else result.target
            profiles = None
            if args.with_profiles and result.status == "ran":
                console.write("profiles: " + ", ".join(f"client:{c}" for c in chosen) + "\n")
                console.flush()
                profiles = profile_verdicts(resolved, chosen)
    except EmbeddedMockError as exc:
        err.write(f"{name}: {exc}\n")
        return EXIT_BROKEN
    if result.status != "ran":
        err.write(redactor.text(f"{name}: {result.target.name}: {result.reason}\n"))
    for client in result.clients:
        if client.status != "ran":
            err.write(redactor.text(f"{name}: {client.name} unavailable: {client.reason}\n"))
    counts = result.counts()
    console.write(
        f"\n{counts['passed']} passed, {counts['failed']} failed"
        + (f", {counts['unavailable']} client(s) unavailable" if counts["unavailable"] else "")
        + f" ({counts['flows']} flows of {counts['clients']} clients, {result.duration:.1f} s)\n"
    )
    index = build_index([result])
    if profiles is not None:
        fill(index, result.target.name, profiles)
        if profiles.status != "ran":
            err.write(redactor.text(f"{name}: profiles: {profiles.status}: {profiles.reason}\n"))
        console.write("\n" + redactor.text("\n".join(table_lines(index))) + "\n")
    if args.report_dir or json_out:
        if args.report_dir:
            try:
                paths = write_reports(index, args.report_dir, redactor)
            except OSError as exc:
                err.write(f"{name}: cannot write {args.report_dir}: {exc.strerror or exc}\n")
                return EXIT_BROKEN
            console.write("reports: " + ", ".join(str(p) for p in paths) + "\n")
        if json_out:
            out.write(json.dumps(redactor.value(index), indent=2, ensure_ascii=False) + "\n")
    return result.exit_code()
