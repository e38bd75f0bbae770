#!/usr/bin/env python3
"""Write the SGLang vendor report from the reports of ``tox -e sglang``.

    python scripts/sglang_vendor_report.py --reports reports/sglang --out docs/vendors

Reads ``REPORTS/<target>/index.json`` for the targets the SGLang CPU run judged (``mock``,
``reference-<model>``, ``sglang-native-<model>``) and writes into ``OUT``:

* ``sglang-<version>.md`` — the report: SGLang version, how it was launched, the profiles each
  model declares, a summary per target, and every check SGLang's own server fails, with evidence
  (case, request, expected, actual) and the reference's outcome on the same model;
* ``sglang-<version>/index.json`` — the merged JSON index of all the targets (target → check →
  outcome with evidence), ``report.html`` — the matrix mock / reference / SGLang native, and
  ``matrix.png`` when Chromium is there (``scripts/render_report_png.py``).

Exit codes: 0 written, 2 reports missing or the merge failed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KINDS = ("plain", "tools", "gpt_oss")
MODELS = {
    "plain": "ChatML, thinks Qwen3-style (`<think>…</think>`), `--reasoning-parser qwen3`",
    "tools": "ChatML with tools, calls them Qwen2.5-style, `--tool-call-parser qwen25`",
    "gpt_oss": "`model_type: gpt_oss` (SGLang's harmony path), o200k_harmony tokenizer, "
    "`--reasoning-parser gpt-oss --tool-call-parser gpt-oss`",
}
LAUNCH = (
    "python -m sglang.launch_server --model-path MODEL --device cpu --attention-backend "
    "torch_native --sampling-backend pytorch --max-total-tokens 8192 --sleep-on-idle --dtype "
    "float32 --enable-response-store PARSER_FLAGS"
)


def _load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def _target(index: dict[str, Any]) -> dict[str, Any]:
    targets = index.get("targets") or {}
    return dict(next(iter(targets.values())))


def _short(text: Any, limit: int = 400) -> str:
    value = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    value = value.replace("\n", "\\n")
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _evidence(entry: dict[str, Any], limit: int) -> list[str]:
    lines: list[str] = []
    for ev in (entry.get("evidence") or [])[:limit]:
        request = ev.get("request") or {}
        response = ev.get("response") or {}
        lines.append(
            f"  - case `{ev.get('case')}`: `{request.get('method')} {request.get('path')}`"
        )
        if request.get("body"):
            lines.append(f"    - request body: `{_short(request['body'], 240)}`")
        lines.append(f"    - expected: {_short(ev.get('expected'))}")
        lines.append(f"    - actual: {_short(ev.get('actual'))}")
        if ev.get("path"):
            where = f" (event #{ev['event_index']})" if ev.get("event_index") is not None else ""
            lines.append(f"    - at: `{ev['path']}`{where}")
        if response.get("status") is not None:
            body = response.get("body")
            shown = f", body `{_short(body, 240)}`" if body else ""
            lines.append(f"    - response: HTTP {response['status']}{shown}")
    return lines


def _shrink(png: Path) -> None:
    """A palette PNG of the whole page is a tenth of the screenshot's size (where Pillow is)."""
    try:
        from PIL import Image
    except ImportError:
        return
    if png.exists():
        with Image.open(png) as image:
            image.convert("RGB").quantize(colors=32).save(png, optimize=True)


def write(reports: Path, out: Path, version: str) -> Path:
    indexes = {p.parent.name: _load(p) for p in sorted(reports.glob("*/index.json"))}
    natives = {k: indexes.get(f"sglang-native-{k}") for k in KINDS}
    if not all(natives.values()):
        raise FileNotFoundError(f"{reports}: no sglang-native-* index.json for every model")
    catalog = next(iter(indexes.values())).get("checks") or {}
    folder = out / f"sglang-{version}"
    folder.mkdir(parents=True, exist_ok=True)
    order = ["mock", *(f"{t}-{k}" for k in KINDS for t in ("reference", "sglang-native"))]
    paths = [str(reports / name / "index.json") for name in order if name in indexes]
    merged = subprocess.run(
        [str(Path(sys.executable).parent / "responses-conformance"), "report",
         "--report-dir", str(folder), *paths],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if merged.returncode not in (0, 1):  # 1: some target fails, which is the point
        raise RuntimeError(f"merge failed: {merged.stdout}{merged.stderr}")
    (folder / "junit.xml").unlink(missing_ok=True)  # the index and the matrix are what we keep
    png = folder / "matrix.png"
    if shutil.which("chromium"):
        subprocess.run(
            [sys.executable, str(HERE / "render_report_png.py"), str(folder / "report.html"),
             str(png), "--window-size", "1400,7000"],
            check=False,
        )  # fmt: skip
        _shrink(png)

    lines = [
        f"# SGLang {version}: its own `/v1/responses`, judged",
        "",
        "Produced by `tox -e sglang` (tests/sglang) and `scripts/sglang_vendor_report.py`: real "
        f"SGLang {version} on a CPU-only machine (../shared/notes/sglang-on-cpu.md), serving three "
        "tiny *scripted* models built at test time (tests/sglang/scripted_models.py) whose output "
        "is exact, so every failure below is the server's, not the model's. The same models are "
        "served by this project's reference server (`responses-reference`), judged by the same "
        "suite: where SGLang fails, the reference's outcome on the same model is given.",
        "",
        f"Launch: `{LAUNCH}`",
        "",
        "| model | what it is | profiles declared |",
        "|---|---|---|",
    ]
    for kind in KINDS:
        target = _target(natives[kind] or {})
        profiles = ", ".join(target.get("target", {}).get("profiles", []))
        lines.append(f"| `{kind}` | {MODELS[kind]} | {profiles} |")
    lines += ["", "Files: [index.json](sglang-" + version + "/index.json) (all targets, with "
              "evidence), [report.html](sglang-" + version + "/report.html) (the matrix)"
              + (", [matrix.png](sglang-" + version + "/matrix.png)" if png.exists() else "")
              + ".", "", "## Summary", "", "| target | verdict | pass | fail | warn | skip |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for name in order:
        if name not in indexes:
            continue
        target = _target(indexes[name])
        s = target.get("summary", {})
        lines.append(
            f"| {name} | {target.get('status')} | {s.get('pass', 0)} | {s.get('fail', 0)} | "
            f"{s.get('warn', 0)} | {s.get('skip', 0)} |"
        )
    failing: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        for check_id, entry in _target(natives[kind] or {}).get("checks", {}).items():
            if entry.get("outcome") in ("fail", "warn"):
                failing.setdefault(check_id, {})[kind] = entry
    lines += ["", "## What SGLang's own server fails", ""]
    lines.append(f"{len(failing)} checks fail (MUST) or warn (SHOULD) on at least one model.")
    for check_id in sorted(failing, key=lambda c: (catalog.get(c, {}).get("level") != "MUST", c)):
        meta = catalog.get(check_id, {})
        per_model = failing[check_id]
        lines += ["", f"### `{check_id}` — {meta.get('level', '?')}, {meta.get('clause', '')}", ""]
        lines.append(f"Requirement: {meta.get('requirement', '')}")
        lines.append("")
        for n, (kind, entry) in enumerate(per_model.items()):
            ref = _target(indexes.get(f"reference-{kind}") or {"targets": {"x": {}}})
            ref_outcome = (ref.get("checks", {}).get(check_id) or {}).get("outcome", "not run")
            lines.append(
                f"- **{kind}**: {entry.get('outcome')} ({entry.get('violations', 0)} violation(s)); "
                f"reference on the same model: {ref_outcome}"
            )
            lines += _evidence(entry, 2 if n == 0 else 1)
    report = out / f"sglang-{version}.md"
    report.write_text("\n".join(lines) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reports", type=Path, default=Path("reports/sglang"))
    parser.add_argument("--out", type=Path, default=Path("docs/vendors"))
    parser.add_argument("--version", default="0.5.23")
    args = parser.parse_args(argv)
    try:
        path = write(args.reports, args.out, args.version)
    except (OSError, RuntimeError) as error:
        print(f"sglang_vendor_report: {error}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
