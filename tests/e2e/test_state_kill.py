"""A worker killed in the middle of writing the state database: reopening it gives the last committed state.

The state directory is mounted on OPFS sync access handles by the same code the agent worker uses
(`web/src/worker/state-save.ts`), in a module worker bundled from `web/tests/harness/state-kill.worker.ts`
and served from the built app's origin. The worker commits 500 rows, then rewrites them in one transaction
that never ends (with a tiny page cache, so changed pages reach the database file, not only the journal);
once that is under way the page terminates the worker, as closing or reloading a tab does. A new worker
mounts the same files and opens the database: SQLite rolls the journal back.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from scripts.app_build import ROOT
from scripts.fakes.processes import serve_process
from tests.e2e.conftest import running_app

HARNESS = ROOT / "web" / "tests" / "harness" / "state-kill.worker.ts"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
WORKER_PATH = "/__state_kill_worker.js"
LIMIT_MS = 180_000

KILL_MID_WRITE = """async ([path, limit]) => {
  const start = (op) => {
    const worker = new Worker(path, { type: "module" });
    const notes = [];
    const done = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${op} took over ${limit} ms`)), limit);
      worker.onmessage = ({ data }) => {
        if (data.error) { clearTimeout(timer); reject(new Error(data.error)); }
        else if (data.result) { clearTimeout(timer); resolve(data.result); }
        else { notes.push(data.note); if (data.note === "writing") { clearTimeout(timer); resolve(null); } }
      };
      worker.onerror = (e) => { clearTimeout(timer); reject(new Error(`worker error: ${e.message}`)); };
    });
    worker.postMessage({ op });
    return { worker, done, notes };
  };
  const journalSize = async () => {
    let dir = await navigator.storage.getDirectory();
    dir = await dir.getDirectoryHandle("state-kill-test");
    return (await (await dir.getFileHandle("current.sqlite-journal")).getFile()).size;
  };
  const writer = start("write");
  await writer.done;
  const journalAtKill = await journalSize();
  writer.worker.terminate();
  const checker = start("check");
  const result = await checker.done;
  checker.worker.terminate();
  return { notes: writer.notes, journalAtKill, journalAfter: await journalSize(), result };
}"""


@pytest.fixture(scope="module")
def harness_server(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """serve.py on a copy of the built app plus the harness worker (same origin, the same headers)."""
    cmd = [str(ESBUILD), str(HARNESS), "--bundle", "--format=esm", "--target=es2022"]
    bundle = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True).stdout
    copy = tmp_path_factory.mktemp("state-kill") / "dist"
    shutil.copytree(dist, copy)
    (copy / WORKER_PATH.lstrip("/")).write_text(bundle)
    with serve_process(copy) as url:
        yield url


def test_a_worker_killed_mid_write_reopens_the_last_committed_state(browser: Browser, harness_server: str) -> None:
    with running_app(browser, harness_server + "/favicon.svg") as app:
        outcome: dict[str, Any] = app.page.evaluate(KILL_MID_WRITE, [WORKER_PATH, LIMIT_MS])
    assert outcome["notes"] == ["committed", "writing"]
    assert outcome["journalAtKill"] > 0, "the kill came while the transaction had written its journal"
    assert outcome["result"] == {"integrity": "ok", "values": ["A"], "rows": 500}
    assert outcome["journalAfter"] == 0, "opening the database rolled the journal back"
