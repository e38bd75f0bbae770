"""``clients --with-profiles``: the ``client:X`` profile's verdict beside the real client's.

The profile (docs/spec.md §9) replays what client X sends and judges the answers; the harness runs
X itself. Run on the same server, the two must agree: a profile that passes where the client
fails misses a check (or replays less than the client does), one that fails where the client
works has a wrong check (or the harness's flow tests too little). :func:`profile_verdicts` runs
the profiles' cases (``run --profile client:X -k clients``) and reads one verdict per client;
:func:`fill` sets them in the harness's index (:func:`.report.set_profile_verdict`) and adds the
table; :func:`table_lines` prints it.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cassettes.redaction import Redactor

from ..sections.s9_clients import CLIENT_CHECKS
from ..suite.console import Console
from ..suite.results import TargetResult
from ..suite.runner import run_target
from ..suite.targets import Target
from .captured_flows import CLIENT_PROFILES, client_profile
from .report import set_profile_verdict

__all__ = ["ProfileVerdicts", "fill", "profile_verdicts", "table_lines"]

# The harness runs WebSocket flows (openai-python's connect, openai-node's ResponsesWS): the
# profiles judge their captured WebSocket flows too.
_WITH = ("core", "websocket")


@dataclass(slots=True)
class ProfileVerdicts:
    status: str  # the suite's target status: ran | unreachable | not_judged | broken
    reason: str = ""
    verdicts: dict[str, str] = field(default_factory=dict)  # client -> pass | fail
    evidence: dict[str, list[str]] = field(default_factory=dict)  # client -> failing check IDs
    duration: float = 0.0


def profile_verdicts(target: Target, clients: Sequence[str]) -> ProfileVerdicts:
    """The ``client:X`` profile of each of ``clients`` run against ``target`` (a resolved base
    URL): ``fail`` when a check of X's profile (``live.client.X.*``) fails or a case replaying a
    flow of X breaks, with the failing check IDs as evidence."""
    profiled = [c for c in clients if c in CLIENT_PROFILES.values()]
    declared = (*_WITH, *(client_profile(c) for c in profiled))
    suite_target = replace(target, profiles=declared, expected_failures={})
    console = Console(io.StringIO(), Redactor(target.secrets()))
    result = run_target(suite_target, strict=False, console=console, keyword="clients")
    found = ProfileVerdicts(result.status, result.reason, duration=result.duration)
    if result.status != "ran":
        return found
    outcomes = result.outcomes()
    for client in profiled:
        failing = _failing(result, client, outcomes)
        found.verdicts[client] = "fail" if failing else "pass"
        found.evidence[client] = failing
    return found


def _failing(result: TargetResult, client: str, outcomes: dict[str, Any]) -> list[str]:
    """The profile's own checks that failed, and the cases of X that broke without a finding.
    A core check failing in a replay (``stream.output.equals_items``) is the core profile's
    verdict, not X's: the client may not read what it breaks."""
    own = {c.id for c in CLIENT_CHECKS[client]}
    failing = {cid for cid in own if outcomes[cid].outcome in ("fail", "xfail")}
    for case in result.cases:
        broke = case.outcome == "failed" and not case.findings
        if broke and client_profile(client) in case.profiles:
            failing.add(f"case {case.id}: {case.error or 'failed'}")
    return sorted(failing)


def fill(index: dict[str, Any], target: str, found: ProfileVerdicts) -> None:
    """Set each client's profile verdict in the harness's ``index`` and add the target's
    ``agreement``: the counts, and per client the two verdicts (with the profile's failing
    checks). A client the harness could not run, or a profile run that could not judge, is no
    agreement either way (counted apart)."""
    entry = index["targets"][target]
    rows: dict[str, Any] = {}
    for client, doc in entry["clients"].items():
        verdict = found.verdicts.get(client)
        if verdict is not None:
            set_profile_verdict(index, target, client, verdict)
        rows[client] = {
            "harness": doc["harness"],
            "profile": verdict if verdict is not None else found.status,
            "agrees": doc.get("agrees"),
            "profile_failing": found.evidence.get(client, []),
        }
    entry["agreement"] = {
        "profile_status": found.status,
        "profile_reason": found.reason or None,
        "profile_duration_s": round(found.duration, 3),
        "agree": sum(r["agrees"] is True for r in rows.values()),
        "disagree": sum(r["agrees"] is False for r in rows.values()),
        "undecided": sum(r["agrees"] is None for r in rows.values()),
        "clients": rows,
    }


def table_lines(index: dict[str, Any]) -> list[str]:
    """The agreement table of every target with one: client × (profile, harness, agrees)."""
    lines: list[str] = []
    for tname, entry in index["targets"].items():
        table = entry.get("agreement")
        if table is None:
            continue
        lines.append(
            f"agreement on {tname}: {table['agree']} agree, {table['disagree']} disagree"
            + (f", {table['undecided']} undecided" if table["undecided"] else "")
        )
        lines.append(f"  {'client':<14} {'profile':<8} {'harness':<12} agrees")
        for client, row in table["clients"].items():
            said = {True: "yes", False: "NO", None: "-"}[row["agrees"]]
            line = f"  {client:<14} {row['profile']:<8} {row['harness']:<12} {said}"
            if row["profile_failing"]:
                line += "  (" + ", ".join(row["profile_failing"][:4]) + ")"
            lines.append(line)
    return lines
