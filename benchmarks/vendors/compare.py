"""Verdicts of a run against a baseline (the committed matrix): what the CI slice gates on.

Every target of the current run must be in the baseline, ran, and give every check the same
outcome (pass / fail / warn / info / skip …). The vendors are pinned and the scripted models are
deterministic, so a difference means the suite's verdict changed — or a pin did — and either way
someone must look (and re-publish the matrix if the change is right).
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
            if was != now:
                differences.append(f"{name}: {cid} {was} → {now}")
    return differences
