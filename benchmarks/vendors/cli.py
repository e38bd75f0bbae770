"""``python -m benchmarks.vendors``: run the vendor matrix, reproduce one failure, serve a target.

    python -m benchmarks.vendors run                      # the full matrix → reports/vendors/
    python -m benchmarks.vendors run --slice ci --baseline docs/vendors/matrix/index.json
    python -m benchmarks.vendors run --target litellm-plain --publish docs/vendors
    python -m benchmarks.vendors repro litellm-plain -k 'create_stream and string'
    python -m benchmarks.vendors serve sglang-plain       # start it, print its base URL, wait
    python -m benchmarks.vendors summary reports/vendors  # re-render SUMMARY.md from a run

Exit codes: 0 done (``run``: and, with ``--baseline``, every verdict as in the baseline);
1 a verdict differs from the baseline (``run``) or the case failed (``repro``); 2 the run broke
(a target could not be installed or started, bad arguments). With ``--skip-missing``, a slice
whose SGLang pieces are not in the tree yet is skipped with exit 0 (and says so).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cassettes.reader import TooLarge, read_at_most
from conformance.suite.reporting import NotAnIndex, load_index

from .catalog import SLICES, TARGETS, targets_for
from .compare import compare
from .run import RunOptions, run
from .summary import render_summary

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "reports" / "vendors"
DEFAULT_VENVS = REPO / ".venv-vendors"
_RECORD_OBJECTS = ("targets", "machine", "repo", "backends", "vendors")  # objects in run.json
_MAX_JSON_BYTES = 64 * 1024 * 1024  # a run.json or a stamp: a few KiB; larger is not ours


def _log(message: str) -> None:
    print(f"[vendors {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _default_sglang_python() -> Path | None:
    """``$VENDORS_SGLANG_PYTHON`` when it names an interpreter that exists (tox points it at the
    ``sglang`` env, when there is one, so CI installs SGLang once)."""
    value = os.environ.get("VENDORS_SGLANG_PYTHON", "")
    return Path(value) if value and Path(value).is_file() else None


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--venv-root",
        type=Path,
        default=DEFAULT_VENVS,
        help="where the vendors' venvs and the scripted models live (default %(default)s)",
    )
    p.add_argument(
        "--sglang-python",
        type=Path,
        default=_default_sglang_python(),
        help="an interpreter with SGLang 0.5.23 installed for CPU (default: install one "
        "into VENV_ROOT/sglang with scripts/install_sglang.py)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.vendors",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="install, start and judge targets; write the matrix")
    r.add_argument("--slice", choices=sorted(SLICES), default="full")
    r.add_argument("--target", action="append", metavar="NAME", help=f"one of {', '.join(TARGETS)}")
    r.add_argument(
        "--report-dir", dest="out", type=Path, default=DEFAULT_OUT, metavar="DIR",
        help="where the run's reports go (default reports/vendors)",
    )  # fmt: skip
    r.add_argument("--baseline", type=Path, help="a merged index.json to compare verdicts with")
    r.add_argument(
        "--publish", type=Path, help="copy the summary, index and HTML here (docs/vendors)"
    )
    r.add_argument("--png", action="store_true", help="render the HTML matrix to PNG (Chromium)")
    r.add_argument(
        "--no-probe",
        action="store_true",
        help="do not probe the targets' capabilities (conversations, compaction, stateless "
        "reasoning, WebSocket, custom and hosted tools) after their suites",
    )
    r.add_argument(
        "--clients",
        action="store_true",
        help="also judge every target on the client profiles (client:codex, client:agents-sdk, "
        "...: the requests those clients really send), in a run of their own: asked, not "
        "claimed, so the matrix verdict stays that of the claims; SUMMARY.md gets a Clients "
        "table",
    )
    r.add_argument(
        "--skip-missing",
        action="store_true",
        help="exit 0 with a note when SGLang's CPU set-up is not in the tree",
    )
    _common(r)
    rp = sub.add_parser("repro", help="start one target and run only the matching cases")
    rp.add_argument("target", choices=sorted(TARGETS))
    rp.add_argument("-k", dest="expr", required=True, help="pytest -k expression (the case)")
    rp.add_argument(
        "--report-dir", dest="out", type=Path, metavar="DIR",
        help="where the reports go (default reports/vendors-repro-TARGET)",
    )  # fmt: skip
    _common(rp)
    s = sub.add_parser("serve", help="start one target, print its base URL and wait for Ctrl-C")
    s.add_argument("target", choices=sorted(TARGETS))
    _common(s)
    sm = sub.add_parser("summary", help="re-render SUMMARY.md of a run directory")
    sm.add_argument("run_dir", type=Path)
    return parser


def _sglang_missing() -> str:
    needed = [
        REPO / "scripts" / "install_sglang.py",
        REPO / "tests" / "sglang" / "scripted_models.py",
        REPO / "tests" / "sglang" / "cpu_stubs" / "sgl_kernel" / "__init__.py",
    ]
    absent = [str(p.relative_to(REPO)) for p in needed if not p.is_file()]
    return ", ".join(absent)


def write_summary(out: Path, record: dict[str, Any]) -> Path | None:
    merged = out / "merged" / "index.json"
    if not merged.is_file():
        return None
    index = _read_index(merged, "summary: the merged index")
    path = out / "SUMMARY.md"
    path.write_text(render_summary(index, record))
    return path


def _grid_html(out: Path) -> Path | None:
    """The suite's HTML report with the findings list and the per-target details left out: the
    summary table and the check × target matrix, for one picture."""
    html = out / "merged" / "report.html"
    if not html.is_file():
        return None
    text = html.read_text(encoding="utf-8")
    start, grid, details = (text.find(f"<h2>{h}</h2>") for h in ("Findings", "Matrix", "Details"))
    if min(start, grid, details) < 0:
        return html
    grid_html = out / "merged" / "matrix-grid.html"
    grid_html.write_text(text[:start] + text[grid:details] + "</body></html>\n", encoding="utf-8")
    return grid_html


def _png(out: Path) -> Path | None:
    html = _grid_html(out)
    png = out / "matrix.png"
    script = REPO / "scripts" / "render_report_png.py"
    if html is None or not script.is_file():
        return None
    import subprocess

    rows = len(json.loads((out / "merged" / "index.json").read_text()).get("checks", {}))
    height = 800 + 30 * (rows + 50)  # the summary, one row per check and per group heading
    done = subprocess.run(
        [sys.executable, str(script), str(html), str(png), "--window-size", f"1700,{height}"],
        capture_output=True,
        text=True,
        check=False,
    )
    _log(f"PNG: {png if done.returncode == 0 else 'failed: ' + done.stderr.strip()[:200]}")
    return png if done.returncode == 0 else None


def _publish(out: Path, dest: Path, png: Path | None) -> None:
    (dest / "matrix").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(out / "SUMMARY.md", dest / "matrix.md")
    shutil.copyfile(out / "merged" / "index.json", dest / "matrix" / "index.json")
    shutil.copyfile(out / "merged" / "report.html", dest / "matrix" / "report.html")
    shutil.copyfile(out / "run.json", dest / "matrix" / "run.json")
    if png is not None and png.is_file():
        shutil.copyfile(png, dest / "matrix.png")
    _log(f"published to {dest}")


def cmd_run(args: argparse.Namespace) -> int:
    if args.baseline is not None:
        _read_index(args.baseline, "--baseline")  # before the run, not after it
    if args.skip_missing and _sglang_missing():
        print(
            f"vendor matrix skipped: SGLang's CPU set-up is not in the tree yet ({_sglang_missing()})"
        )
        return 0
    try:
        targets = targets_for(args.target, args.slice)
    except KeyError as exc:
        print(f"vendors: {exc.args[0]}", file=sys.stderr)
        return 2
    # absolute: a bridge starts in a work folder of its own and is given paths under --out
    # (a relative --out left LiteLLM without its config: "Config file not found")
    args.out = args.out.resolve()
    opts = RunOptions(
        out=args.out,
        repo=REPO,
        venv_root=args.venv_root.resolve(),
        sglang_python=args.sglang_python,
        slice_name=args.slice,
        probe=not args.no_probe,
        clients=args.clients,
    )
    record = run(targets, opts, _log)
    summary = write_summary(args.out, record)
    png = _png(args.out) if args.png else None
    if args.publish and summary is not None:
        _publish(args.out, args.publish, png)
    broken = [n for n, t in record["targets"].items() if t.get("exit_code") == 2]
    print(
        f"vendor matrix: {len(record['targets'])} target(s) in {record['wall_s']:.0f} s; "
        f"summary {summary}; broken: {', '.join(broken) or 'none'}"
    )
    code = 2 if broken else 0
    if args.baseline is not None and summary is not None:
        current = _read_index(args.out / "merged" / "index.json", "the merged index")
        baseline = _read_index(args.baseline, "--baseline")
        differences = compare(baseline, current)
        for line in differences:
            print("  " + line)
        changed = {line.split(":", 1)[0] for line in differences}
        same = [name for name in current.get("targets", {}) if name not in changed]
        print(f"verdicts vs {args.baseline}: {len(differences)} difference(s)")
        if differences:
            print(
                "  a suite change that moves a vendor's verdict must be right by SPEC.md and the "
                "recordings; if it is, re-publish the matrix: python -m benchmarks.vendors run "
                "--png --publish docs/vendors"
            )
        # one line per target, then the plain closing line CI reads
        print(f"vendors: {len(same)} passed, {len(changed)} failed")
        code = max(code, 1 if differences else 0)
    return code


def cmd_repro(args: argparse.Namespace) -> int:
    out = (args.out or DEFAULT_OUT.parent / f"vendors-repro-{args.target}").resolve()
    opts = RunOptions(
        out=out,
        repo=REPO,
        venv_root=args.venv_root,
        sglang_python=args.sglang_python,
        suite_args=["-k", args.expr, "-v"],
        slice_name="repro",
        probe=False,
    )
    record = run([TARGETS[args.target]], opts, _log)
    result = record["targets"][args.target]
    log = out / "targets" / args.target / "suite.log"
    if log.is_file():
        print(log.read_text())
    else:
        print(result.get("error", "not run"))
    return int(result.get("exit_code", 2))


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve

    return serve(TARGETS[args.target], REPO, args.venv_root, args.sglang_python, _log)


def _read_json(path: Path, what: str) -> Any:
    """A JSON file the command needs; one line and exit 2 (:class:`SystemExit`) when it cannot
    be read, never a traceback."""
    try:
        return json.loads(read_at_most(path, _MAX_JSON_BYTES).decode("utf-8"))
    except TooLarge as exc:
        print(f"vendors: {what} {path}: {exc} for a JSON file", file=sys.stderr)
        raise SystemExit(2) from None
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        print(f"vendors: {what} {path}: {why}", file=sys.stderr)
        raise SystemExit(2) from None


def _read_index(path: Path, what: str) -> dict[str, Any]:
    """A JSON index (``responses-conformance run`` / ``report``), through the suite's own loader:
    its size limit, its format and shape checks. One line and exit 2 (:class:`SystemExit`) when
    it is not one, never a traceback or a comparison with something else."""
    try:
        return load_index(path)
    except NotAnIndex as exc:
        print(f"vendors: {what}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def cmd_summary(args: argparse.Namespace) -> int:
    where = args.run_dir / "run.json"
    record = _read_json(where, "summary: no run record")
    if not isinstance(record, dict) or not all(
        isinstance(record.get(key, {}), dict) for key in _RECORD_OBJECTS
    ):
        print(
            f"vendors: summary: {where} is not a run record (from `vendors run`)", file=sys.stderr
        )
        return 2
    try:
        path = write_summary(args.run_dir, record)
    except (AttributeError, TypeError, KeyError, ValueError) as exc:
        # Deeper in, a value of a shape no run writes (a hand edit, another tool's file): the
        # record is input, so one line, not a traceback.
        print(
            f"vendors: summary: {where} is not a run record this version renders "
            f"({type(exc).__name__}: {exc})",
            file=sys.stderr,
        )
        return 2
    print(path or "no merged index in this run")
    return 0 if path else 2


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {"run": cmd_run, "repro": cmd_repro, "serve": cmd_serve, "summary": cmd_summary}
    return handlers[args.command](args)
