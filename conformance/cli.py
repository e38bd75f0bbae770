"""``responses-conformance``: judge Responses API traffic.

Exit codes (every sub-command): 0 conformant / passed, 1 violations found, 2 the run itself broke
(bad arguments, a file that cannot be read or decoded, an unreachable target).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from . import catalog  # noqa: F401  (declare every check)
from .catalog import live  # noqa: F401  (declare every live check)
from .catalog.registry import REGISTRY
from .catalog.render import printable
from .cli_options import add_format, event_number
from .clients import cli as clients_cli
from .exit_codes import EXIT_BROKEN, EXIT_OK, EXIT_VIOLATIONS
from .offline.cassette_check import check_cassette, is_cassette_path
from .offline.explain import explain, explain_dict
from .offline.recorded import FileVerdict, UnreadableFile, check_bytes, check_file, read_limited
from .proxy import cli as proxy_cli
from .suite import cli as suite_cli
from .validator import PROFILES

_DESCRIPTION = """\
Judge OpenAI Responses API traffic against the wire protocol (docs/spec.md), check by check.

  check PATH...   validate recorded streams (raw SSE or JSON Lines) and bodies offline
  list            print every check: ID, level, clause (docs/spec.md), requirement
  explain ID      one check in full: requirement, level, clause, a failing and a passing example
  run             run the live suite against a server (default: the embedded mock)
  report          merge the JSON indexes of several runs into one set of reports
  proxy           a validating reverse proxy: judge a real client's traffic live
  clients         run the real clients (Codex, Agents SDK, Vercel AI SDK, openai SDKs)

Exit codes: 0 conformant, 1 violations found, 2 the run itself broke.
"""

_CHECK_EPILOG = """\
Formats are detected from content: raw SSE as captured (`event:`/`data:` lines), JSON Lines (one
event object per line), a non-stream Response body (`"object": "response"`), an error body
(`{"error": {...}}`), a state body: a compaction result (`"object": "response.compaction"`, from
POST /v1/responses/compact), a conversation (`"conversation"`), a deleted conversation
(`"conversation.deleted"`) or an item list (`"list"`: input_items, conversation items), or a
recorded WebSocket session (JSON Lines of `{"dir": "client"|"server", "data": <frame text or
object>}`, one frame per line; docs/websocket.md).

Examples:
  responses-conformance check capture.sse
  responses-conformance check --strict recordings/*.jsonl
  responses-conformance check --resume-after 41 resumed.sse
  responses-conformance check --format json body.json > verdict.json
  curl -sN ... | responses-conformance check -     # - reads one stream or body from stdin
  responses-conformance check session.ws.jsonl
  responses-conformance check recorded/          # a cassette folder (docs/cassettes.md)
  responses-conformance check tests/data/cassettes/pydantic-ai/test_x.yaml   # a vcrpy cassette
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="responses-conformance",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="validate recorded streams and bodies offline",
        description="Validate recorded Responses streams and bodies against docs/spec.md.",
        epilog=_CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="files to validate, or cassettes (a folder, an exchange file, a vcrpy YAML: every "
        "exchange judged; docs/cassettes.md); - reads one stream or body from standard input",
    )
    check.add_argument(
        "--resume-after",
        type=event_number,
        metavar="N",
        default=None,
        help="the stream is a resumed one (GET …?stream=true&starting_after=N): "
        "its first event is numbered N+1 and it has no response.created (docs/spec.md §2.12)",
    )
    check.add_argument(
        "--strict", action="store_true", help="SHOULD violations fail too (not only MUST)"
    )
    check.add_argument(
        "--profile",
        action="append",
        metavar="P[,P...]",
        default=None,
        help="add a profile's checks (repeatable, or a comma list as in `run`); `openresponses` "
        "adds the Open Responses requirements ([DONE], event names, required Response fields). "
        f"Default: core. Known: {', '.join(sorted(PROFILES))}",
    )
    add_format(check)
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="text format: also print non-failing (SHOULD without --strict, INFO) violations",
    )

    lst = sub.add_parser("list", help="print every check", description="Print every check.")
    add_format(lst)

    exp = sub.add_parser(
        "explain",
        help="print one check in full, with its examples",
        description="Print one check: requirement, level, clause, and the failing example that "
        "fires it and the passing near miss.",
    )
    exp.add_argument("check_id", metavar="ID", help="a check ID (`list` prints them all)")
    add_format(exp)

    suite_cli.add_subcommands(sub)
    proxy_cli.add_subcommand(sub)
    clients_cli.add_subcommand(sub)
    return parser


def _cmd_list(fmt: str, out: TextIO) -> int:
    checks = sorted(REGISTRY.values(), key=lambda c: c.id)
    if fmt == "json":
        json.dump([c.as_dict() for c in checks], out, indent=2, ensure_ascii=False)
        out.write("\n")
        return EXIT_OK
    width = max(len(c.id) for c in checks)
    for c in checks:
        profile = "" if c.profile == "core" else f" [{c.profile}]"
        out.write(f"{c.id:<{width}}  {c.level.value:<6}  {c.clause}{profile}  {c.anchor}\n")
        out.write(f"{'':<{width}}          {c.requirement}\n")
    out.write(f"\n{len(checks)} checks\n")
    return EXIT_OK


def _text_report(verdict: FileVerdict, *, strict: bool, verbose: bool, out: TextIO) -> None:
    bad = verdict.failing(strict=strict)
    what = f"{verdict.kind}, {verdict.events} events" if verdict.events else verdict.kind
    out.write(printable(f"{'FAIL' if bad else 'PASS'}  {verdict.path}  ({what})\n"))
    shown = verdict.violations if verbose else bad
    for v in shown:  # a lone surrogate of a JSON string (actual "\\ud800") as its escape
        out.write(printable("  " + v.format().replace("\n", "\n  ") + "\n"))
    # By identity: `v not in shown` compared each violation with the list (quadratic: 20k tiny
    # events took 148 s, tests/conformance/validator/test_linear_work.py); `shown` holds the very objects of `verdict.violations`.
    listed = {id(v) for v in shown}
    rest = Counter(v.level.value for v in verdict.violations if id(v) not in listed)
    if rest:
        summary = ", ".join(f"{n} {lvl}" for lvl, n in sorted(rest.items()))
        out.write(f"  (not failing: {summary}; -v shows them)\n")


def _cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    names = (p.strip() for v in args.profile or ("core",) for p in v.split(","))
    profiles = tuple(dict.fromkeys(p for p in names if p))
    unknown = [p for p in profiles if p not in PROFILES]
    if unknown:
        err.write(
            f"responses-conformance check: unknown profile(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(PROFILES))}\n"
        )
        return EXIT_BROKEN
    verdicts: list[FileVerdict] = []
    broken: list[dict[str, str]] = []
    skipped: list[dict[str, str]] = []
    if args.paths.count("-") > 1:
        err.write("responses-conformance check: - (standard input) can be given once\n")
        return EXIT_BROKEN
    for path in args.paths:
        if path == "-":
            try:
                verdicts.append(_check_stdin(resume_after=args.resume_after, profiles=profiles))
            except UnreadableFile as exc:
                broken.append({"path": path, "error": str(exc)})
                if args.format == "text":
                    err.write(f"ERROR {path}: cannot validate: {exc}\n")
            continue
        if is_cassette_path(path):  # a cassette (docs/cassettes.md): every exchange judged
            judged = check_cassette(path, profiles=profiles)
            verdicts += judged.verdicts
            skipped += judged.skipped
            broken += judged.unreadable
            if args.format == "text":
                for entry in judged.unreadable:
                    err.write(f"ERROR {entry['path']}: cannot validate: {entry['error']}\n")
            continue
        try:
            verdicts.append(check_file(path, resume_after=args.resume_after, profiles=profiles))
        except UnreadableFile as exc:
            broken.append({"path": path, "error": str(exc)})
            if args.format == "text":
                err.write(f"ERROR {path}: cannot validate: {exc}\n")
    failed = [v for v in verdicts if v.failing(strict=args.strict)]
    if args.format == "json":
        doc = {
            "strict": args.strict,
            "profiles": list(profiles),
            "files": [v.as_dict(strict=args.strict) for v in verdicts],
            "unreadable": broken,
        }
        if skipped:
            doc["skipped"] = skipped
        out.write(printable(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
    else:
        for verdict in verdicts:
            _text_report(verdict, strict=args.strict, verbose=args.verbose, out=out)
        for entry in skipped:
            line = f"SKIP  {entry['path']}  ({entry['exchange']}: {entry['reason']})\n"
            out.write(printable(line))
        out.write(
            f"\n{len(verdicts) - len(failed)} passed, {len(failed)} failed"
            + (f", {len(skipped)} skipped" if skipped else "")
            + (f", {len(broken)} unreadable" if broken else "")
            + f" ({'MUST+SHOULD' if args.strict else 'MUST'} violations fail)\n"
        )
    if broken:
        return EXIT_BROKEN
    return EXIT_VIOLATIONS if failed else EXIT_OK


def _check_stdin(*, resume_after: int | None, profiles: tuple[str, ...]) -> FileVerdict:
    """``check -``: what standard input holds, under the same size limit as a file."""
    data = read_limited("-")
    if b'"format":"responses-cassette/' in data[:4096].split(b"\n", 1)[0].replace(b" ", b""):
        raise UnreadableFile("a cassette exchange file: give its path (docs/cassettes.md)")
    return check_bytes(data, name="-", resume_after=resume_after, profiles=profiles)


def _cmd_explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.format == "json":
        doc = explain_dict(args.check_id)
        if doc is not None:
            json.dump(doc, out, indent=2, ensure_ascii=False)
            out.write("\n")
            return EXIT_OK
    elif explain(args.check_id, out):
        return EXIT_OK
    err.write(f"unknown check ID {args.check_id!r} (`responses-conformance list` prints them)\n")
    return EXIT_BROKEN


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage, 0 on --help
        return int(exc.code or 0)
    out, err = sys.stdout, sys.stderr
    try:
        if args.command == "check":
            return _cmd_check(args, out, err)
        if args.command == "list":
            return _cmd_list(args.format, out)
        if args.command == "explain":
            return _cmd_explain(args, out, err)
        if args.command == "run":
            return suite_cli.cmd_run(args, out, err)
        if args.command == "report":
            return suite_cli.cmd_report(args, out, err)
        if args.command == "proxy":
            return proxy_cli.cmd_proxy(args, out, err)
        if args.command == "clients":
            return clients_cli.cmd_clients(args, out, err)
        parser.print_help(err)
        return EXIT_BROKEN
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return EXIT_BROKEN


if __name__ == "__main__":
    sys.exit(main())
