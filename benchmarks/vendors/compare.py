"""Verdicts of a run against a baseline (the committed matrix): what the CI slice gates on.

Every target of the current run must be in the baseline, ran, and give every check the same
outcome (pass / fail / warn / info / skip …). The vendors are pinned and the scripted models are
deterministic, so a difference means the suite's verdict changed — or a pin did — and either way
someone must look (and re-publish the matrix if the change is right). A check the baseline did
not know that the run skips (its profile unclaimed: a check ID added since, such as the client
profiles' `live.client.*`), or one the baseline skipped that the run no longer has, is no verdict
of the target's and no difference. The capability probes' verdicts are compared the same way,
where the baseline has them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compare"]


def compare(baseline: dict[str, Any], current: dict[str, Any]) -> list[str]:
    differences: list[str] = []
    known = baseline.get("targets", {})
    for name, target in current.get("targets", {}).items():
        if name not in known:
            differences.append(f"{name}: not in the baseline")
            continue
        before = known[name]
        if target.get("status") != before.get("status"):
            differences.append(
                f"{name}: status {before.get('status')} → {target.get('status')} "
                f"({target.get('reason', '')})"
            )
            continue
        old, new = before.get("checks", {}), target.get("checks", {})
        for cid in sorted(set(old) | set(new)):
            was = old.get(cid, {}).get("outcome", "absent")
            now = new.get(cid, {}).get("outcome", "absent")
            if was != now and {was, now} != {"absent", "skip"}:
                differences.append(f"{name}: {cid} {was} → {now}")
        differences += _capabilities(name, before, target)
    return differences


def _capabilities(name: str, before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Probe verdicts (``targets.<name>.capabilities.<capability>.verdict``), compared only where
    both sides probed: a baseline published before the probes existed, or a run with
    ``--no-probe``, has none, and that is no difference. The evidence itself (ids, timestamps) is
    not compared."""
    old, new = before.get("capabilities"), now.get("capabilities")
    if not isinstance(old, dict) or not isinstance(new, dict):
        return []
    out = []
    for cap in sorted(set(old) | set(new)):
        was = (old.get(cap) or {}).get("verdict", "absent")
        got = (new.get(cap) or {}).get("verdict", "absent")
        if was != got:
            out.append(f"{name}: capability {cap} {was} → {got}")
    return out
