"""Python's memory snapshot: made after `ready` when the page is idle, used by the next visit, and a
damaged, oversized or unloadable snapshot falls back to a normal boot in the same visit.

`data-snapshot` on `runtime-status` says what happened (web/src/snapshot-scheduler.ts)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from scripts.benchlib.targets import tab_targets
from tests.e2e.conftest import running_app
from tests.e2e.ui import wait_ready

SNAPSHOT_MS = 240_000  # a second Pyodide boots in the background on a loaded machine
BLANK = "/pyodide/pyodide-lock.json"  # same origin, does not start the app
MIB = 1 << 20

# Store a snapshot entry for this build's key, the way web/src/worker/snapshot.ts keys and stores one.
PLANT_JS = """
async (kind) => {
  const { version } = await import("/pyodide/pyodide.mjs");
  const manifest = await (await fetch("/wheels/manifest.json")).json();
  const hex = async (bytes) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const text = [version, ...manifest.wheels.map((w) => w.sha256.toLowerCase())].join("\\n");
  const key = `/__tidepool/snapshot/${encodeURIComponent(version)}/${await hex(new TextEncoder().encode(text))}`;
  const limit = 480 * 65536;
  const bytes = new Uint8Array(144 + (kind === "oversized" ? limit + 65536 : limit));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, kind === "not a snapshot" ? 0x12345678 : 0x706e7300, true);  // magic "\\0snp"
  view.setUint32(4, 144, true);  // where the heap starts; the config before it is empty (unloadable)
  const digest = kind === "damaged" ? "0".repeat(64) : await hex(bytes);
  const cache = await caches.open("tidepool-snapshot-v1");
  await cache.put(new URL(key, location.origin).href,
                  new Response(bytes, { headers: { "x-tidepool-sha256": digest } }));
  return (await cache.keys()).length;
}
"""


def snapshot_state(page: Page) -> str | None:
    return page.get_by_test_id("runtime-status").get_attribute("data-snapshot")


def test_a_second_visit_boots_from_the_snapshot_made_after_ready(browser: Browser, server: str) -> None:
    with running_app(browser, server + "/") as app:
        status = app.page.get_by_test_id("runtime-status")
        wait_ready(app.page)
        # The first visit reached `ready` without a snapshot; one is made afterwards, in the background.
        assert snapshot_state(app.page) in ("wanted", "making", "stored")
        expect(status).to_have_attribute("data-snapshot", "stored", timeout=SNAPSHOT_MS)
        app.page.reload()
        wait_ready(app.page)
        expect(status).to_have_attribute("data-snapshot", "loaded")
        # Pyodide keeps the options it was loaded with: the snapshot's 30 MiB must not stay in the agent
        # worker, nor in the sandbox that restored the sandboxes' snapshot (read after a GC, every worker).
        held: list[str] = []
        for _ in range(30):
            held = [f"{t.url} {t.backing / MIB:.1f} MiB" for t in tab_targets(browser, app.page)
                    if t.kind == "worker" and t.backing > 16 * MIB]
            if not held:
                break
            app.page.wait_for_timeout(1000)
        assert held == []


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        pytest.param("damaged", "damaged (sha256 mismatch)", id="damaged"),
        pytest.param("oversized", "its heap is 30.1 MiB, over the 30.0 MiB Pyodide can restore", id="oversized"),
        pytest.param("not a snapshot", "bad magic number", id="not-a-snapshot"),
        pytest.param("unloadable", "", id="unloadable-heap"),
    ],
)
def test_a_bad_snapshot_falls_back_to_a_normal_boot(browser: Browser, server: str, kind: str, reason: str) -> None:
    with running_app(browser, server + BLANK) as app:
        warnings: list[str] = []

        def keep(message: ConsoleMessage) -> None:
            if "snapshot was not used" in message.text:
                warnings.append(message.text)

        app.page.on("console", keep)
        assert app.page.evaluate(PLANT_JS, kind) == 1
        app.page.goto(server + "/")
        wait_ready(app.page)
        assert snapshot_state(app.page) != "loaded"
        assert len(warnings) == 1, warnings
        assert reason in warnings[0]
        # It was dropped, and the page makes a good one for the next visit.
        expect(app.page.get_by_test_id("runtime-status")).to_have_attribute("data-snapshot", "stored",
                                                                           timeout=SNAPSHOT_MS)


# The stored snapshot's bytes kept, the sha256 beside them changed: bytes that restore but do not match.
MISMATCH_JS = """
async () => {
  const cache = await caches.open("tidepool-snapshot-v1");
  const [request] = await cache.keys();
  const response = await cache.match(request);
  const headers = new Headers(response.headers);
  headers.set("x-tidepool-sha256", "0".repeat(64));
  await cache.put(request, new Response(await response.arrayBuffer(), { headers }));
  return (await cache.keys()).length;
}
"""


def test_a_snapshot_that_restores_but_fails_its_sha256_is_dropped_after_ready(browser: Browser, server: str) -> None:
    with running_app(browser, server + "/") as app:
        status = app.page.get_by_test_id("runtime-status")
        wait_ready(app.page)
        expect(status).to_have_attribute("data-snapshot", "stored", timeout=SNAPSHOT_MS)
        assert app.page.evaluate(MISMATCH_JS) == 1
        warnings: list[str] = []
        app.page.on("console", lambda m: warnings.append(m.text) if "snapshot was not used" in m.text else None)
        app.page.reload()
        wait_ready(app.page)
        # restored (the sha256 is not on the boot's path), then found damaged and dropped
        expect(status).to_have_attribute("data-snapshot", "loaded")
        kept = "async () => (await (await caches.open('tidepool-snapshot-v1')).keys()).length"
        waited = 0
        while (not warnings or app.page.evaluate(kept)) and waited < 60_000:
            app.page.wait_for_timeout(100)
            waited += 100
        assert len(warnings) == 1 and "damaged (sha256 mismatch); dropped after ready" in warnings[0], warnings
        assert app.page.evaluate(kept) == 0
        # the next visit boots plainly and makes a good one
        app.page.reload()
        wait_ready(app.page)
        assert snapshot_state(app.page) != "loaded"
        expect(status).to_have_attribute("data-snapshot", "stored", timeout=SNAPSHOT_MS)
