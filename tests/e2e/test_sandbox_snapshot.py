"""The sandboxes' Pyodide snapshot (web/src/sandbox/snapshot.ts): the app's snapshot worker stores a fresh
Pyodide's heap after `ready`; a new sandbox restores it instead of starting Python, and runs code as one that
started plainly does. A damaged snapshot (sha256) or one that does not restore is dropped, and the sandbox
boots plainly.

The runner is bundled from its source and evaluated in the built app's page, as in test_sandbox.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import App, running_app
from tests.e2e.test_sandbox import b64, runner_bundle, unb64
from tests.e2e.ui import wait_ready

__all__ = ["runner_bundle"]  # a fixture of test_sandbox.py, used here too

SNAPSHOT_MS = 240_000  # the snapshot worker boots a Pyodide of its own, on a loaded machine slowly
RUN_LIMIT_MS = 120_000
CACHE = "tidepool-sandbox-snapshot-v1"

INSTALL = """
globalThis.TidepoolSandbox = TidepoolSandbox;
globalThis.__bounded = (promise, ms, what) => Promise.race([
  promise,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
]);
0;
"""

ENTRIES = f"async () => (await (await caches.open('{CACHE}')).keys()).map((r) => new URL(r.url).pathname)"

# Keep the stored snapshot (in the page), and put it back: each test starts from the real one.
KEEP = f"""async () => {{
  const cache = await caches.open('{CACHE}');
  const [request] = await cache.keys();
  const response = await cache.match(request);
  globalThis.__kept = {{ url: request.url, headers: [...response.headers], body: await response.arrayBuffer() }};
  return response.headers.get('x-tidepool-sha256');
}}"""
PUT_BACK = f"""async () => {{
  const cache = await caches.open('{CACHE}');
  for (const old of await cache.keys()) await cache.delete(old);
  const kept = globalThis.__kept;
  await cache.put(kept.url, new Response(kept.body.slice(0), {{ headers: kept.headers }}));
}}"""
# The kept snapshot with one byte of its heap changed, its sha256 left as it was.
DAMAGE = f"""async () => {{
  const kept = globalThis.__kept;
  const bytes = new Uint8Array(kept.body.slice(0));
  bytes[bytes.length - 4096] ^= 0xff;
  await (await caches.open('{CACHE}')).put(kept.url, new Response(bytes, {{ headers: kept.headers }}));
}}"""
# A header Pyodide reads and a heap of zeros with no configuration: it passes the checks, not the restore.
UNLOADABLE = f"""async () => {{
  const kept = globalThis.__kept;
  const bytes = new Uint8Array(144 + 480 * 65536);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x706e7300, true);
  view.setUint32(4, 144, true);
  const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const headers = {{ "Content-Type": "application/octet-stream", "x-tidepool-sha256": digest }};
  await (await caches.open('{CACHE}')).put(kept.url, new Response(bytes, {{ headers }}));
}}"""

RUN_FRESH = """async ([options, request, limit]) => {
  const runner = new TidepoolSandbox.SandboxRunner(location.origin, options);
  try {
    const result = await __bounded(runner.run(request), limit, "the run");
    return [runner.lastBoot, result];
  } finally {
    runner.dispose();
  }
}"""

CODE = """
import json, sys
import micropip, pyodide_http
print(json.dumps(sys.version_info[:2] >= (3, 12)), open('in.txt').read(), micropip.__name__, pyodide_http.__name__)
open('out.txt', 'w').write('back')
"""


@pytest.fixture(scope="module")
def snapshot_app(browser: Browser, server: str, runner_bundle: str) -> Iterator[App]:
    """The app, booted, once its snapshot worker stored the sandboxes' snapshot, with the runner in the page."""
    with running_app(browser, server + "/") as app:
        wait_ready(app.page)
        status = app.page.get_by_test_id("runtime-status")
        expect(status).to_have_attribute("data-snapshot", "stored", timeout=SNAPSHOT_MS)
        app.page.evaluate(runner_bundle + INSTALL)
        assert len(app.page.evaluate(KEEP)) == 64
        yield app


def run_fresh(page: Page, snapshots: bool = True) -> tuple[str, dict[str, Any]]:
    request = {"code": CODE, "files": {"in.txt": b64("handed in")}, "timeout_s": 60}
    boot, result = page.evaluate(RUN_FRESH, [{"snapshots": snapshots}, request, RUN_LIMIT_MS])
    assert result["ok"] is True, json.dumps(result)[:2000]
    assert result["stdout"] == "true handed in micropip pyodide_http\n"
    assert {path: unb64(data) for path, data in result["files"].items()} == {"out.txt": "back"}
    return str(boot), result


def entries(page: Page) -> list[str]:
    return list(page.evaluate(ENTRIES))


def test_a_new_sandbox_restores_the_snapshot_and_runs_as_a_plain_one(snapshot_app: App) -> None:
    page = snapshot_app.page
    page.evaluate(PUT_BACK)
    [entry] = entries(page)
    assert entry.startswith("/__tidepool/sandbox-snapshot/")
    assert run_fresh(page)[0] == "snapshot"
    assert run_fresh(page, snapshots=False)[0] == "plain"
    assert entries(page) == [entry]


@pytest.mark.parametrize("spoil", [DAMAGE, UNLOADABLE], ids=["sha256-mismatch", "does-not-restore"])
def test_a_bad_snapshot_is_dropped_and_the_sandbox_boots_plainly(snapshot_app: App, spoil: str) -> None:
    page = snapshot_app.page
    page.evaluate(PUT_BACK)
    page.evaluate(spoil)
    assert len(entries(page)) == 1
    assert run_fresh(page)[0] == "plain"
    for _ in range(50):  # a failed restore is reported while the sandbox boots; the drop follows
        if not entries(page):
            break
        page.wait_for_timeout(100)
    assert entries(page) == []
