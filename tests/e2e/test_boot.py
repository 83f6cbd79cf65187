"""The built app boots to `ready` under the server's CSP without any request leaving 127.0.0.1."""

from __future__ import annotations

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.conftest import App
from tests.e2e.ui import wait_ready


def test_boot_reaches_ready(app: App) -> None:
    wait_ready(app.page)
    assert app.traffic.csp_violations == []
    pyodide = [r for r in app.traffic.requests if "/pyodide/pyodide.asm.wasm" in r]
    wheels = [r for r in app.traffic.requests if "/wheels/" in r and r.endswith(".whl")]
    assert pyodide, "Pyodide's wasm was not loaded from the app's own server"
    assert wheels, "no runtime wheel was loaded from the app's own server"


def test_served_headers_reach_the_browser(app: App) -> None:
    response = app.page.request.get(app.url)
    csp = response.headers["content-security-policy"]
    assert "script-src 'self' 'wasm-unsafe-eval'" in csp
    assert response.headers["cross-origin-opener-policy"] == "same-origin"


# The sandbox design (DESIGN §1 rule 4): the sandbox is a data: worker (opaque origin) started by the
# bootstrap worker, whose own strict CSP it inherits. The app's page must not be able to start such a
# worker itself: it would inherit the page's broad connect-src. (The sandbox itself is probed through the
# bootstrap in test_tools.py and test_sandbox_containment.py.)
SANDBOX_PROBE_JS = """
async (origin) => {
  const code = `
    let opfs = "allowed";
    try { await navigator.storage.getDirectory(); } catch (e) { opfs = e.name; }
    const { loadPyodide } = await import(${JSON.stringify(origin + "/pyodide/pyodide.mjs")});
    const py = await loadPyodide({ indexURL: ${JSON.stringify(origin + "/pyodide/")} });
    self.postMessage({ origin: self.origin, opfs, result: py.runPython("6 * 7") });
  `;
  const worker = new Worker("data:text/javascript," + encodeURIComponent(code), { type: "module" });
  try {
    return await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => reject(new Error("sandbox worker failed: " + (e.message || "error")));
      setTimeout(() => reject(new Error("sandbox worker timed out")), 120000);
    });
  } finally {
    worker.terminate();
  }
}
"""


def test_the_page_cannot_start_an_opaque_worker_under_its_own_policy(app: App) -> None:
    wait_ready(app.page)
    with pytest.raises(PlaywrightError, match="sandbox worker failed"):
        app.page.evaluate(SANDBOX_PROBE_JS, app.url)
    assert any("worker-src" in v for v in app.traffic.csp_violations), app.traffic.csp_violations
    app.traffic.csp_violations.clear()
