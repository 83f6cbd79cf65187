#!/usr/bin/env python3
"""Tidepool benchmarks (DESIGN §9): ratios against baselines measured in the same run; a Markdown table.

    bash scripts/bench                          # everything (~10 min on 2 cores)
    bash scripts/bench --only boot,ttft         # some groups
    bash scripts/bench --runs 5                 # more repetitions

Groups: boot, ttft, bigreply, longtasks (issue 2); tools, sandbox (issue 3); search, persist, bigboot (issue 4);
archive, catalog (issue 5); statestep, bootfiles, history (issue 12); mcp (issue 21); checkpoints, backup
(issue 22); offline (issue 23); delegate (issue 24); longsession, chatsearch, memory (issue 25).
What each row measures: docs/benchmarks.md. Only 127.0.0.1 is used: the app comes from scripts/serve.py (built
into $TIDEPOOL_DIST, default dist/), the model from the fake provider; `search` and `archive` run in Pyodide under
Node, `delegate` in CPython.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# scripts/ goes after site-packages (Python puts this script's folder first): scripts/mcp is not the MCP SDK
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "scripts"]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "scripts"))

from app_build import ensure_built  # noqa: E402
from benchlib import (  # noqa: E402
    backup,
    boot,
    checkpoints,
    delegation,
    growth,
    long_session,
    mcp,
    offline,
    pyodide_node,
    sandbox,
    skills_ui,
    state_step,
    storage,
    tab_memory,
    throughput,
    tools,
)
from benchlib.common import OnDiskProfiles, Row, launch, raw, table  # noqa: E402
from playwright.sync_api import Browser, sync_playwright  # noqa: E402

from scripts.fakes.processes import serve_process  # noqa: E402
from scripts.fakes.replies import Reply  # noqa: E402

GROUPS = ("boot", "ttft", "bigreply", "longtasks", "tools", "sandbox", "search", "persist", "bigboot", "archive",
          "catalog", "statestep", "bootfiles", "history", "frontmatter", "mcp", "checkpoints", "backup", "offline",
          "delegate", "longsession", "chatsearch", "memory")
NODE_ONLY = {"search", "archive", "frontmatter", "delegate"}  # no browser
NODE_GROUPS: dict[str, Callable[[], list[Row]]] = {
    "delegate": delegation.measure_delegation,
    "search": pyodide_node.measure_search,
    "archive": pyodide_node.measure_archive,
    "frontmatter": pyodide_node.measure_frontmatter,
}


def browser_groups(browser: Browser, on_disk: OnDiskProfiles, base: str, fake: tools.TimedFakeLLM, fake_base: str,
                   runs: int, dist: Path) -> dict[str, Callable[[], list[Row]]]:
    # The streaming rows use profiles on disk, as people do; the others fresh incognito contexts.
    return {
        "boot": lambda: boot.measure_boot(browser, base, runs),
        "ttft": lambda: boot.measure_first_token(on_disk, base, fake, fake_base, runs * 5),
        "bigreply": lambda: [*throughput.measure_unrendered(on_disk, dist, fake, fake_base, runs),
                             *throughput.measure_throughput(on_disk, base, fake, fake_base, runs)],
        "longtasks": lambda: throughput.measure_longtasks(on_disk, base, fake, fake_base, runs),
        "tools": lambda: tools.measure_tools(browser, base, fake, fake_base, runs),
        "sandbox": lambda: sandbox.measure_sandbox(browser, base, runs),
        "persist": lambda: storage.measure_persist(browser, base, runs * 3),
        "bigboot": lambda: storage.measure_big_boot(browser, base, runs),
        "catalog": lambda: skills_ui.measure_catalog(browser, base, runs),
        "statestep": lambda: state_step.measure_state_step(browser, dist),
        "bootfiles": lambda: growth.measure_boot_files(browser, base, runs),
        "history": lambda: growth.measure_history_step(on_disk, base, fake, fake_base, runs),
        "mcp": lambda: mcp.measure_mcp(on_disk, base, fake, fake_base, runs),
        "offline": lambda: offline.measure_offline(browser, dist, runs),
        "checkpoints": lambda: checkpoints.measure_checkpoints(browser, base, fake, fake_base, runs),
        "backup": lambda: backup.measure_backup(browser, base, runs, Path(tempfile.mkdtemp(prefix="tidepool-bench-"))),
        "longsession": lambda: long_session.measure_open(browser, base, runs),
        "chatsearch": lambda: long_session.measure_search(browser, base, runs),
        "memory": lambda: tab_memory.measure_memory(browser, base, fake, fake_base, runs),
    }


def run_group(name: str, fn: Callable[[], list[Row]], rows: list[Row], failures: list[str]) -> None:
    started = time.monotonic()
    try:
        rows.extend(fn())
    except Exception as exc:  # one group failing must not lose the others' numbers
        failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:300]}")
    print(f"[bench] {name}: {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="repetitions (first-token and warm runs are 5×)")
    parser.add_argument("--only", default=",".join(GROUPS), help=f"comma-separated groups from {','.join(GROUPS)}")
    parser.add_argument("--raw", type=Path, help="also write every sample (ms) as JSON here")
    args = parser.parse_args()
    chosen = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = sorted(set(chosen) - set(GROUPS))
    if unknown:
        parser.error(f"unknown group(s) {unknown}; choose from {GROUPS}")
    rows: list[Row] = []
    failures: list[str] = []
    for name in [g for g in chosen if g in NODE_ONLY]:
        run_group(name, NODE_GROUPS[name], rows, failures)
    in_browser = [g for g in chosen if g not in NODE_ONLY]
    if in_browser:
        dist = ensure_built()
        fake = tools.TimedFakeLLM(default_reply=Reply.text("Hello from the benchmark. " * 4))
        with fake.running_in_thread() as fake_base, serve_process(dist) as base, sync_playwright() as p:
            on_disk = OnDiskProfiles(p)
            for name in in_browser:
                # A browser of its own for each group, as when run alone: what one group leaves in the browser
                # (incognito storage, a page being torn down) must not slow the next (the 50,000-file seeding
                # took over 600 s after the groups before it, 60 s alone).
                browser = launch(p)
                groups = browser_groups(browser, on_disk, base, fake, fake_base, args.runs, dist)
                run_group(name, groups[name], rows, failures)
                browser.close()
            on_disk.remove()
    print(table(rows))
    for failure in failures:
        print(f"\nFAILED {failure}")
    if args.raw:
        args.raw.write_text(json.dumps(raw(rows), indent=1))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
