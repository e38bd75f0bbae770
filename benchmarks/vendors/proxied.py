"""The suite through the validating proxy in front of a vendor of the matrix (docs/proxy.md, In front of a
vendor): does the
proxy, judging only the traffic, find that vendor's known failures?

    python -m benchmarks.vendors serve litellm-plain          # in one shell: prints BASE_URL
    python -m benchmarks.vendors.proxied litellm-plain --base-url $BASE_URL [--report-dir DIR]

It starts ``responses-conformance proxy --upstream BASE_URL`` with the target's profiles, runs the
matrix's suite command (``targets_toml``: the same model, profiles, expected failures, key) with
the proxy as the base URL, stops the proxy (SIGINT: it writes its reports), then compares three
sets of failing check IDs (``fail`` or ``xpass``):

- the matrix's, for this target (``docs/vendors/matrix/index.json``);
- the suite's, run through the proxy (the client unaffected: the same as the matrix's, but for
  the vendor's own variance);
- the proxy's, from its report. The proxy judges answers, never intent, so the matrix's ``live.*``
  failures (a 500 for a bad request, a stream unlike its non-stream twin) are the suite's alone;
  every other failing ID — a schema, stream, usage or ``ws.*`` check — should be the proxy's too.

Exit 0 when the proxy names every such ID, 1 when it misses one, 2 when the run broke. The key
(``VENDOR_MATRIX_API_KEY``, as ``serve`` prints it) passes through the proxy like any client's.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..perf.errors import RunError
from ..perf.servers import PROXY_READY, start_server
from .catalog import TARGETS
from .run import judge_command, targets_toml
from .stack import KEY_ENV, Launched, clean_env

REPO = Path(__file__).resolve().parents[2]
_PUBLISHED = Path("docs") / "vendors" / "matrix" / "index.json"
# Beside the package in a checkout; under the working directory (the checkout) when the package is
# installed, as under tox, where nothing of docs/ is beside site-packages/benchmarks.
MATRIX = REPO / _PUBLISHED if (REPO / _PUBLISHED).is_file() else Path.cwd() / _PUBLISHED
FAILING = ("fail", "xpass")


def failing(index: dict[str, Any], name: str | None = None) -> set[str]:
    targets = index["targets"]
    entry = targets[name] if name is not None else next(iter(targets.values()))
    return {cid for cid, c in entry["checks"].items() if c["outcome"] in FAILING}


def _start_proxy(upstream: str, profiles: tuple[str, ...], reports: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:  # fmt: skip
    """The proxy, once it says it listens (within 60 s), and its base URL; its stderr in ``log``."""
    command = [*judge_command(), "proxy", "--upstream", upstream, "--port", "0", "--quiet",
               "--profile", ",".join(profiles), "--report-dir", str(reports)]  # fmt: skip
    try:
        proxy = start_server("the proxy", command, None, timeout=60, env=clean_env(), cwd=REPO,
                             log=log, ready=PROXY_READY)  # fmt: skip
    except RunError as exc:
        raise RuntimeError(f"{exc} (its stderr: {log})") from None
    return proxy.process, f"{proxy.origin}/v1"


def run(name: str, base_url: str, out: Path, key: str) -> int:
    spec = TARGETS[name]
    out.mkdir(parents=True, exist_ok=True)
    proxy_reports, suite_reports = out / "proxy", out / "suite"
    proxy_log = out / "proxy.log"
    proxy, proxy_url = _start_proxy(base_url.rstrip("/"), spec.profiles, proxy_reports, proxy_log)
    started = time.monotonic()
    try:
        model = _model(name)
        toml = out / "target.toml"
        toml.write_text(targets_toml(spec, Launched(proxy_url, model, api_key=key)))
        with (out / "suite.log").open("w") as console:
            suite = subprocess.run(
                [*judge_command(), "run", "--targets", str(toml), "--report-dir",
                 str(suite_reports)],
                stdout=console, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=clean_env({KEY_ENV: key} if key else None), cwd=REPO, check=False,
            )  # fmt: skip
    finally:
        proxy.send_signal(signal.SIGINT)
        try:
            proxy_out, _ = proxy.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proxy.kill()
            proxy_out, _ = proxy.communicate()
    wall = time.monotonic() - started
    with proxy_log.open("ab") as log:  # its stderr is there already; then what it printed
        log.write(proxy_out)
    matrix = failing(json.loads(MATRIX.read_text()), name)
    through = failing(json.loads((suite_reports / "index.json").read_text()))
    index = json.loads((proxy_reports / "index.json").read_text())
    found = failing(index)
    answers = {c for c in matrix if not c.startswith("live.")}
    missed = sorted(answers - found)
    print(f"{name}: the suite through the proxy at {proxy_url} -> {base_url} ({wall:.0f} s; "
          f"suite exit {suite.returncode}, proxy exit {proxy.returncode}; "
          f"{index['proxy']['exchanges']} exchanges, {index['proxy']['failed_exchanges']} failed)")  # fmt: skip
    print(f"  matrix fails {len(matrix)}: {', '.join(sorted(matrix))}")
    print(f"  suite through the proxy fails {len(through)}; differs from the matrix by: "
          f"{', '.join(sorted(through ^ matrix)) or 'nothing'}")  # fmt: skip
    print(f"  the proxy's report fails {len(found)}: {', '.join(sorted(found))}")
    print(f"  the matrix's answer-level failures (not live.*): {len(answers)}; the proxy names "
          f"{len(answers) - len(missed)} of them; missed: {', '.join(missed) or 'none'}")  # fmt: skip
    print(f"  the proxy's, not in the matrix: {', '.join(sorted(found - matrix)) or 'none'}")
    print(f"  live.* (the suite's alone): {', '.join(sorted(matrix - answers)) or 'none'}")
    summary = {"target": name, "matrix": sorted(matrix), "suite_through_proxy": sorted(through),
               "proxy": sorted(found), "missed": missed, "wall_s": round(wall, 1),
               "suite_exit": suite.returncode, "proxy_exit": proxy.returncode,
               "exchanges": index["proxy"]["exchanges"]}  # fmt: skip
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if missed else 0


def _model(name: str) -> str:
    """The model the matrix ran the target with (index.json's target entry)."""
    entry = json.loads(MATRIX.read_text())["targets"][name]
    model = entry.get("model") or entry.get("target", {}).get("model")
    if not isinstance(model, str):
        raise RuntimeError(f"{MATRIX} names no model for {name}")
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.vendors.proxied", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("target", choices=sorted(TARGETS))
    parser.add_argument("--base-url", required=True, help="the running target's (from `serve`)")
    parser.add_argument(
        "--report-dir",
        dest="out",
        type=Path,
        metavar="DIR",
        help="reports here (default: a temporary folder)",
    )
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix=f"proxied-{args.target}-"))
    try:
        return run(args.target, args.base_url, out, os.environ.get(KEY_ENV, ""))
    except (OSError, RuntimeError, KeyError, ValueError) as exc:
        print(f"proxied: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
