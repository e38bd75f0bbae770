"""The ``run`` and ``report`` sub-commands of ``responses-conformance`` (wired in
:mod:`conformance.cli`). Heavy imports (pytest, the HTTP client) happen only when they run."""

from __future__ import annotations

import argparse
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
from ..exit_codes import EXIT_BROKEN, EXIT_OK, EXIT_VIOLATIONS

__all__ = ["add_subcommands", "cmd_report", "cmd_run"]


_RUN_DESCRIPTION = """\
Run the live conformance suite against one or more Responses API servers and judge every stream
and object they send, check by check (docs/spec.md). With no --base-url and no --targets it starts the
embedded mock server (all profiles) and runs against it.

The base URL is never taken from OPENAI_BASE_URL: give it with --base-url or in a --targets file,
with or without /v1 (http://127.0.0.1:8000 is run as http://127.0.0.1:8000/v1; each target's line
says the URL used).
"""

_RUN_EPILOG = """\
profiles: core (every server), stateful (store, retrieve, delete, input_items, background, cancel,
resume, previous_response_id), tools, reasoning, structured, openresponses, conversations
(/conversations CRUD, `conversation` on create: history, items appended, paging, delete, errors),
compaction (/responses/compact, then continue from the compacted window), stateless-reasoning
(store: false with encrypted reasoning asked, sent back, tampered; every item type as history;
unknown include values), custom-tools, hosted:web_search, hosted:file_search,
hosted:code_interpreter, hosted:image_generation, hosted:mcp, hosted:tool_search, hosted:shell, hosted:apply_patch,
hosted:computer_use_preview; the client profiles client:codex, client:agents-sdk, client:vercel-ai,
client:openai-python, client:openai-node, client:langchain (the requests that client really sends,
captured from it and replayed: each refusal under the client's check). --profile repeats or takes
a comma list; core is always included.

targets file (TOML), several targets in one run:
  [defaults]                       # optional: any target key but base_url
  timeout = 60
  [targets.local-vllm]
  base_url = "http://127.0.0.1:8000/v1"
  model = "Qwen/Qwen3-8B"
  api_key_env = "VLLM_API_KEY"     # default OPENAI_API_KEY; unset → no Authorization header
  profiles = ["core", "tools"]
  expected_failures = ["live.background.cancel_idempotent"]   # or a table: "ID" = "why"
  [targets.mock]
  embedded = true                  # the embedded mock server

reports (--report-dir DIR): index.json (target → check → outcome, with evidence), junit.xml,
report.html (a matrix of checks × targets). `responses-conformance report` merges several index.json.
--format json prints that index on stdout (the progress lines go to stderr).

exit codes: 0 every target conformant; 1 a check failed (MUST; SHOULD too with --strict) or an
expected failure passed; 2 the run broke (bad arguments, target unreachable, mock did not start)
or could not judge: the first request's answer was no verdict — authentication refused
(401/403), not a Responses server (an HTML page, 404/405/501 on POST /responses, a body that is
not JSON), a model the server does not serve (model_not_found and the vendors' phrasings) — one
line says which, and no case runs; a case that meets a 401/403 or an HTML page later is not
judged either (the report says which, and why).

retries: a case a real model may miss by chance runs up to 3 attempts; only the model's content
is retried: a protocol violation or a server error (5xx) in any attempt fails the case. The
reports show every attempt (attempt_log) and which one passed (passed_attempt).

examples:
  responses-conformance run --report-dir reports
  OPENAI_API_KEY=sk-... responses-conformance run --base-url https://api.openai.com/v1 \\
      --model gpt-4.1-mini --profile core,stateful,tools,structured --report-dir reports
  responses-conformance run --targets targets.toml --target local-vllm --strict
"""


_REPORT_EPILOG = """\
exit codes: 0 every merged target conformant; 1 a target is not: it failed a check, an expected
failure passed, or its run broke (its own exit code was not 0: its status says which); 2 the
report could not be made (an index cannot be read, or is not well-formed: one line names the
field), and then nothing is written.

--format json prints the merged index (the index.json written) on stdout, the paths on stderr.
"""


def add_subcommands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser(
        "run", help="run the live suite against a server (default: the embedded mock)",
        description=_RUN_DESCRIPTION, epilog=_RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    where = run.add_argument_group("target (flags; or --targets FILE)")
    add_target(where)
    where.add_argument(
        "--profile", action="append", metavar="P[,P...]", default=None,
        help="profiles the target declares (default: core; all for the embedded mock)",
    )  # fmt: skip
    where.add_argument(
        "--expect-fail", action="append", metavar="CHECK_ID", default=[],
        help="a check the target is expected to fail (repeatable); reported XPASS if it passes",
    )  # fmt: skip
    where.add_argument(
        "--no-instructions", action="store_true",
        help="the model does not follow natural-language instructions: skip the cases that need it",
    )  # fmt: skip
    where.add_argument(
        "--targets", metavar="FILE", help="a TOML file of targets (see below); - reads stdin"
    )
    where.add_argument(
        "--target", action="append", metavar="NAME", default=[],
        help="with --targets: run only this target (repeatable)",
    )  # fmt: skip
    how = run.add_argument_group("run")
    how.add_argument("--strict", action="store_true", help="SHOULD violations fail too")
    how.add_argument(
        "--timeout", type=seconds, metavar="SECONDS", default=None,
        help=f"{TIMEOUT_HELP} (default 60; 10 for the embedded mock)",
    )  # fmt: skip
    how.add_argument(
        "--max-events", type=int, metavar="N", default=None,
        help="events read from one stream before it is abandoned (default 20000)",
    )  # fmt: skip
    how.add_argument(
        "--max-body-bytes", type=int, metavar="N", default=None,
        help="bytes read of one non-stream body, errors included, before the exchange fails "
        "(default 16 MiB)",
    )  # fmt: skip
    how.add_argument(
        "--repeat", type=_positive, metavar="N", default=1,
        help="run the stateful chain cases (previous_response_id, after a streamed parent "
        "too) N times, to surface a server that loses a chain now and then (default 1)",
    )  # fmt: skip
    how.add_argument(
        "-k", dest="keyword", metavar="EXPR", help="run only cases matching (pytest -k)"
    )
    add_report_dir(how)
    how.add_argument("-v", "--verbose", action="store_true", help="list skipped checks too")
    add_format(how)

    report = sub.add_parser(
        "report", help="merge JSON indexes of several runs into one set of reports",
        description="Merge index.json files of several runs (e.g. one per vendor) into one "
        "index.json, junit.xml and report.html with a matrix across all their targets.",
        epilog=_REPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    report.add_argument(
        "indexes", nargs="+", metavar="INDEX", help="index.json files; - reads one from stdin"
    )
    report.add_argument("--report-dir", metavar="DIR", required=True, help="where to write")
    add_format(report)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 100, got {text!r}")
    return value


def _profiles(values: list[str] | None) -> list[str] | None:
    return comma_list(values) if values else None


def cmd_run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cassettes.redaction import Redactor

    from .console import Console
    from .reporting import build_index, report_dir_problem, write_reports
    from .runner import run_target
    from .targets import Target, TargetError, flag_target, load_targets

    json_out = args.format == "json"
    try:
        targets: list[Target]
        if args.base_url:
            try:
                _, note = base_url(args.base_url)
            except BaseURLError as exc:
                raise TargetError(str(exc)) from None
            if note:
                err.write(f"responses-conformance run: {note}\n")
        if args.targets:
            if args.base_url or args.model:
                raise TargetError("give targets either with --targets or with --base-url/--model")
            targets = load_targets(args.targets, select=args.target)
        elif args.target:
            raise TargetError("--target selects from a --targets file")
        else:
            targets = [
                flag_target(
                    base_url=args.base_url, model=args.model, name=args.name,
                    api_key_env=args.api_key_env, profiles=_profiles(args.profile),
                    expected_failures=args.expect_fail, timeout=args.timeout,
                    max_events=args.max_events, max_body_bytes=args.max_body_bytes,
                    follows_instructions=False if args.no_instructions else None,
                )
            ]  # fmt: skip
    except TargetError as exc:
        err.write(f"responses-conformance run: {exc}\n")
        return EXIT_BROKEN
    problem = report_dir_problem(args.report_dir) if args.report_dir else None
    if problem is not None:
        err.write(f"responses-conformance run: {problem}\n")
        return EXIT_BROKEN
    redactor = Redactor(secret for t in targets for secret in t.secrets())
    console = Console(err if json_out else out, redactor, verbose=args.verbose)
    results = []
    for target in targets:
        result = run_target(
            target, strict=args.strict, console=console, keyword=args.keyword,
            repeat=args.repeat,
        )  # fmt: skip
        results.append(result)
        if result.status == "ran":
            console.summary(result, result.outcomes())
        else:
            err.write(redactor.text(f"responses-conformance: {target.name}: {result.reason}\n"))
    if args.report_dir or json_out:
        index = build_index(results, strict=args.strict)
        if args.report_dir:
            try:
                paths = write_reports(index, args.report_dir, redactor)
            except OSError as exc:  # the folder was fine before the run, and is not now
                err.write(
                    f"responses-conformance run: cannot write {args.report_dir}: "
                    f"{exc.strerror or exc}\n"
                )
                if json_out:
                    _dump(redactor.value(index), out)  # the verdicts are not lost
                return EXIT_BROKEN
            console.line("reports: " + ", ".join(str(p) for p in paths))
        if json_out:
            _dump(redactor.value(index), out)
    return max(r.exit_code() for r in results)


def _dump(doc: object, out: TextIO) -> None:
    """The index on standard output. A lone surrogate (``"\\ud800"`` in a merged index) goes
    out as its escape: written raw, UTF-8 could not encode it (a UnicodeEncodeError traceback)."""
    import json

    from ..catalog.render import printable

    out.write(printable(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")


def cmd_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cassettes.redaction import Redactor

    from .reporting import load_index, merge_indexes, report_dir_problem, write_reports
    from .reporting.index import NotAnIndex

    try:
        if args.indexes.count("-") > 1:
            raise NotAnIndex("- (standard input) can be given once")
        docs = [load_index(path) for path in args.indexes]
    except NotAnIndex as exc:
        err.write(f"responses-conformance report: {exc}\n")
        return EXIT_BROKEN
    problem = report_dir_problem(args.report_dir)
    if problem is not None:
        err.write(f"responses-conformance report: {problem}\n")
        return EXIT_BROKEN
    merged = merge_indexes(docs)
    redactor = Redactor()
    try:
        paths = write_reports(merged, args.report_dir, redactor)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        # A last resort: load_index refuses every shape the renderers cannot take
        # (reporting/shape.py), so this is a renderer's bug; still one line, and nothing written.
        why = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        err.write(f"responses-conformance report: the reports could not be rendered ({why})\n")
        return EXIT_BROKEN
    except OSError as exc:
        err.write(
            f"responses-conformance report: cannot write {args.report_dir}: {exc.strerror or exc}\n"
        )
        return EXIT_BROKEN
    (err if args.format == "json" else out).write(
        "reports: " + ", ".join(str(p) for p in paths) + "\n"
    )
    if args.format == "json":
        _dump(redactor.value(merged), out)
    # A merged matrix with a FAILED (or broken) target exits 1 (docs/cli.md#exit-codes); 2 stays
    # for a report that could not be made, so a script can tell "no report" from "not conformant".
    codes = [int(t.get("exit_code", 2)) for t in merged["targets"].values()]
    return EXIT_VIOLATIONS if any(codes) else EXIT_OK
