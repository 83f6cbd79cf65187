"""The run_python sandbox: web/src/sandbox/runner.ts driving web/public/sandbox/ in Chromium, under the app's CSP.

The runner is bundled from its TypeScript source with esbuild (Vite's bundler) into one script and
evaluated in the built app's page, so the served CSP applies to everything it starts: the `data:` sandbox
worker, its `import()` of /pyodide/ (cross-origin from the opaque origin) and the nested-worker case. The
first tests run tidepool_sandbox.py (the sandbox's Python side) under CPython, without a browser.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from scripts.app_build import ROOT
from scripts.fakes.processes import serve_process
from tests.e2e.conftest import App, running_app
from tests.e2e.ui import wait_ready

DRIVER = ROOT / "web" / "public" / "sandbox" / "tidepool_sandbox.py"
RUNNER = ROOT / "web" / "src" / "sandbox" / "runner.ts"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
RUN_LIMIT_MS = 120_000  # every page-side wait is bounded by this


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode("ascii")


def unb64(data: str) -> str:
    return base64.b64decode(data).decode()


# --- the sandbox's Python side under CPython ------------------------------------------------------------


@pytest.fixture
def driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    spec = importlib.util.spec_from_file_location("tidepool_sandbox_under_test", DRIVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drive(driver: ModuleType, root: Path, code: str, files: dict[str, str]) -> dict[str, Any]:
    encoded = {path: b64(text) for path, text in files.items()}
    outcome: dict[str, Any] = json.loads(asyncio.run(driver.run(code, json.dumps(encoded), str(root))))
    return outcome


@pytest.mark.parametrize(
    ("code", "files", "changed", "deleted"),
    [
        pytest.param("open('new.txt', 'w').write('n')", {"a.txt": "a"}, {"new.txt": "n"}, [], id="created"),
        pytest.param("open('a.txt', 'a').write('!')", {"a.txt": "a"}, {"a.txt": "a!"}, [], id="changed"),
        pytest.param("open('a.txt', 'w').write('a')", {"a.txt": "a"}, {}, [], id="rewritten-same"),
        pytest.param("import os; os.remove('d/a.txt')", {"d/a.txt": "a"}, {}, ["d/a.txt"], id="deleted"),
        pytest.param("import os; print(os.listdir('.'))", {"../out.txt": "x", "/abs": "y"}, {}, [], id="unsafe-paths"),
    ],
)
def test_driver_reports_changed_and_deleted_files(
    driver: ModuleType, tmp_path: Path, code: str, files: dict[str, str], changed: dict[str, str], deleted: list[str]
) -> None:
    outcome = drive(driver, tmp_path / "ws", code, files)
    assert outcome["error"] is None
    assert {path: unb64(data) for path, data in outcome["files"].items()} == changed
    assert outcome["deleted"] == deleted
    assert not (tmp_path / "out.txt").exists()


def test_driver_puts_the_workspace_last_on_sys_path(driver: ModuleType, tmp_path: Path) -> None:
    code = "import colorsys, mymod\nprint(colorsys.__file__, mymod.VALUE)"
    outcome = drive(driver, tmp_path / "ws", code, {"colorsys.py": SHADOW, "mymod.py": "VALUE = 1\n"})
    assert outcome["error"] is None and outcome["files"] == {}
    assert not (tmp_path / "ws" / "colorsys.py.ran").exists()
    assert sys.path[-1] == str(tmp_path / "ws") and "" not in sys.path


def test_driver_traceback_starts_at_the_users_code(driver: ModuleType, tmp_path: Path) -> None:
    outcome = drive(driver, tmp_path / "ws", "def f():\n    return 1 / 0\n\nf()\n", {})
    message = outcome["error"]["message"]
    assert outcome["error"]["kind"] == "exception"
    assert message.startswith("Traceback (most recent call last):")
    assert 'File "<run_python>", line 2, in f' in message
    assert "return 1 / 0" in message
    assert "tidepool_sandbox" not in message
    assert message.endswith("ZeroDivisionError: division by zero")


# --- the runner in Chromium ------------------------------------------------------------------------------

INSTALL = """
globalThis.__bounded = (promise, ms, what) => Promise.race([
  promise,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
]);
globalThis.__runners = {
  fresh: new TidepoolSandbox.SandboxRunner(location.origin),
  reused: new TidepoolSandbox.SandboxRunner(location.origin, { recycle: "on-failure" }),
};
0;
"""

AGENT_LIKE_PATH = "/__sandbox_test_agent_worker.js"
AGENT_LIKE_HARNESS = """
const runner = new TidepoolSandbox.SandboxRunner(self.location.origin);
self.onmessage = async (event) => self.postMessage(await runner.run(event.data));
"""

RUN = """async ([which, request, limit]) =>
  await __bounded(__runners[which].run(request), limit, `the ${which} run`)"""


@pytest.fixture(scope="module")
def runner_bundle() -> str:
    """runner.ts and its imports as one classic script defining the global `TidepoolSandbox`."""
    cmd = [str(ESBUILD), str(RUNNER), "--bundle", "--format=iife", "--global-name=TidepoolSandbox", "--target=es2022"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def sandbox_server(dist: Path, runner_bundle: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """serve.py on a copy of the built app plus one file: a same-origin module worker that runs the runner.

    That worker stands in for the agent worker (a real file, served with the headers every script gets;
    Playwright's `route.fulfill` for a worker script breaks the nested worker's cross-origin imports).
    """
    copy = tmp_path_factory.mktemp("sandbox") / "dist"
    shutil.copytree(dist, copy)
    (copy / AGENT_LIKE_PATH.lstrip("/")).write_text(runner_bundle + AGENT_LIKE_HARNESS)
    with serve_process(copy) as url:
        yield url


@pytest.fixture(scope="module")
def sandbox_app(browser: Browser, sandbox_server: str, runner_bundle: str) -> Iterator[App]:
    """The built app, booted (so its own Pyodide is idle), with two runners installed in the page."""
    with running_app(browser, sandbox_server + "/") as app:
        wait_ready(app.page)
        app.page.evaluate(runner_bundle + INSTALL)
        app.page.evaluate("async (limit) => await __bounded(__runners.reused.warmUp(), limit, 'warm-up')", RUN_LIMIT_MS)
        yield app
        assert app.traffic.csp_violations == [], "unexpected CSP violations"


def run(page: Page, code: str, files: dict[str, str] | None = None, timeout_s: int = 30,
        which: str = "reused") -> dict[str, Any]:
    request = {"code": code, "files": files or {}, "timeout_s": timeout_s}
    result: dict[str, Any] = page.evaluate(RUN, [which, request, RUN_LIMIT_MS])
    return result


TRACEBACK_CODE = "def f():\n    return 1 / 0\n\nf()\n"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        pytest.param("print('hello from the sandbox')", {"ok": True, "stdout": "hello from the sandbox\n"}, id="print"),
        pytest.param("import sys; print('careful', file=sys.stderr)", {"ok": True, "stderr": "careful\n"}, id="stderr"),
        pytest.param("print('no newline', end='')", {"ok": True, "stdout": "no newline"}, id="partial-line"),
        pytest.param("import js; print(js.self.origin)", {"ok": True, "stdout": "null\n"}, id="opaque-origin"),
        pytest.param("import asyncio\nawait asyncio.sleep(0.01)\nprint('awaited')", {"ok": True, "stdout": "awaited\n"},
                     id="top-level-await"),
        pytest.param("import sys; sys.exit(0)", {"ok": True}, id="exit-0"),
        pytest.param("import sys; sys.exit(3)", {"ok": False, "kind": "exception", "message": "SystemExit: 3"},
                     id="exit-3"),
        pytest.param("def (:", {"ok": False, "kind": "exception", "has": ["SyntaxError"]}, id="syntax-error"),
        pytest.param(TRACEBACK_CODE, {"ok": False, "kind": "exception",
                                      "has": ['File "<run_python>", line 2, in f', "return 1 / 0",
                                              "ZeroDivisionError: division by zero"]}, id="exception"),
        pytest.param("print('x' * 3_000_000)", {"ok": True, "stdout_has": "characters left out"}, id="bounded-output"),
    ],
)
def test_run_results(sandbox_app: App, code: str, expected: dict[str, Any]) -> None:
    result = run(sandbox_app.page, code)
    assert result["type"] == "exec_result"
    assert result["ok"] is expected["ok"], json.dumps(result)[:2000]
    for stream in ("stdout", "stderr"):
        if stream in expected:
            assert result[stream] == expected[stream]
    if "stdout_has" in expected:
        assert expected["stdout_has"] in result["stdout"]
        assert len(result["stdout"]) < 1_100_000
    error = result["error"]
    if expected["ok"]:
        assert error is None
        return
    assert error["kind"] == expected["kind"]
    if "message" in expected:
        assert error["message"] == expected["message"]
    for part in expected.get("has", []):
        assert part in error["message"]
    assert "_pyodide" not in error["message"] and "tidepool_sandbox" not in error["message"]


STORAGE_PROBE = """
import asyncio
import js
from pyodide.ffi import create_proxy

async def indexeddb():
    request = js.indexedDB.open("tidepool")
    done = asyncio.get_running_loop().create_future()
    request.onsuccess = create_proxy(lambda e: done.set_result("opened"))
    request.onerror = create_proxy(lambda e: done.set_result(f"error {request.error}"))
    return await asyncio.wait_for(done, 5)

async def opfs():
    await js.navigator.storage.getDirectory()
    return "opened"

async def cache_storage():
    await js.caches.open("tidepool")
    return "opened"

for name, probe in [("indexeddb", indexeddb), ("opfs", opfs), ("caches", cache_storage)]:
    try:
        print(name, await probe())
    except Exception as e:
        print(name, "refused:", e)
"""


def test_app_storage_is_out_of_reach(sandbox_app: App) -> None:
    result = run(sandbox_app.page, STORAGE_PROBE)
    lines = dict(line.split(" ", 1) for line in result["stdout"].splitlines())
    assert result["ok"], result
    assert set(lines) == {"indexeddb", "opfs", "caches"}
    assert "SecurityError" in lines["indexeddb"]
    assert "SecurityError" in lines["opfs"]
    assert "opened" not in lines["caches"]


SHADOW = "open(__file__ + '.ran', 'w').close()\nraise SystemExit('a workspace module shadowed ' + __name__)\n"
SHADOW_CODE = """
import sys, colorsys, pygal, micropip, mymod
print(pygal.__file__.startswith("/workspace"), micropip.__file__.startswith("/workspace"), mymod.VALUE)
print(sys.path[-1], "" in sys.path)
"""


def test_workspace_modules_never_shadow_the_sandboxs_own(sandbox_app: App) -> None:
    files = {f"{name}.py": b64(SHADOW) for name in ("pygal", "micropip", "colorsys", "json")}
    result = run(sandbox_app.page, SHADOW_CODE, {**files, "mymod.py": b64("VALUE = 'mine'\n")})
    assert result["ok"], result
    assert result["stdout"] == "False False mine\n/workspace False\n"
    assert result["files"] == {}, "a planted module ran"


FILES_CODE = """
text = open("data/in.txt").read()
with open("result.txt", "w") as f:
    f.write(text.upper())
with open("notes.txt", "a") as f:
    f.write(" and more")
import os
os.remove("old.txt")
print(sorted(os.listdir(".")))
"""


def test_files_go_in_and_come_back(sandbox_app: App) -> None:
    files = {"data/in.txt": b64("hello\n"), "notes.txt": b64("notes"), "old.txt": b64("old")}
    result = run(sandbox_app.page, FILES_CODE, files)
    assert result["ok"], result
    assert result["stdout"] == "['data', 'notes.txt', 'result.txt']\n"
    assert {path: unb64(data) for path, data in result["files"].items()} == {
        "result.txt": "HELLO\n",
        "notes.txt": "notes and more",
    }
    assert result["deleted"] == ["old.txt"]
    again = run(sandbox_app.page, "import os; print(os.getcwd(), os.listdir('.'), 'text' in globals())")
    assert again["stdout"] == "/workspace [] False\n", "the next run did not start afresh"


ENDLESS = """async ([limit]) => {
  const runner = __runners.fresh;
  await __bounded(runner.warmUp(), limit, "warm-up");
  const lateness = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    lateness.push(now - last - 100);
    last = now;
  }, 100);
  const started = performance.now();
  const request = { code: "print('started', flush=True)\\nwhile True: pass", files: {}, timeout_s: 3 };
  const stopped = await __bounded(runner.run(request), limit, "the endless run");
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(ticker);
  const next = await __bounded(runner.run({ code: "print('next')", files: {}, timeout_s: 30 }), limit, "next run");
  return { stopped, elapsed, next, ticks: lateness.length, maxLateMs: Math.max(...lateness) };
}"""


def test_endless_loop_is_stopped_and_the_page_stays_responsive(sandbox_app: App) -> None:
    outcome = sandbox_app.page.evaluate(ENDLESS, [RUN_LIMIT_MS])
    stopped = outcome["stopped"]
    assert stopped["ok"] is False
    assert stopped["error"]["kind"] == "timeout"
    assert "stopped after 3 s" in stopped["error"]["message"]
    assert stopped["stdout"] == "started\n", "output written before the stop was lost"
    assert 3.0 <= outcome["elapsed"] <= 6.0
    assert outcome["ticks"] >= 25, "the page's timers did not run during the loop"
    assert outcome["maxLateMs"] < 500
    assert outcome["next"]["ok"] is True
    assert outcome["next"]["stdout"] == "next\n"


CANCEL = """async ([limit]) => {
  const runner = __runners.fresh;
  await __bounded(runner.warmUp(), limit, "warm-up");
  const started = performance.now();
  const pending = runner.run({ id: "c1", code: "while True: pass", files: {}, timeout_s: 60 });
  // Cancel once the code is running (the sandbox says so), not after a guessed delay.
  await __bounded((async () => {
    while (runner.active?.current !== "running") await new Promise((resolve) => setTimeout(resolve, 10));
  })(), limit, "the run to start");
  const unknown = runner.cancel("not-running");
  const cancelled = runner.cancel("c1");
  const result = await __bounded(pending, limit, "the cancelled run");
  return { unknown, cancelled, result, elapsed: (performance.now() - started) / 1000 };
}"""


def test_a_run_can_be_cancelled(sandbox_app: App) -> None:
    outcome = sandbox_app.page.evaluate(CANCEL, [RUN_LIMIT_MS])
    assert outcome["unknown"] is False
    assert outcome["cancelled"] is True
    assert outcome["elapsed"] < 5
    assert outcome["result"]["id"] == "c1"
    assert outcome["result"]["error"] == {"kind": "sandbox", "message": "the run was cancelled"}


CRASH_CODE = """
import asyncio
import js
from pyodide.ffi import create_proxy

def boom():
    raise RuntimeError("boom from a callback")

js.setTimeout(create_proxy(boom), 0)
await asyncio.sleep(5)
print("not reached")
"""


def test_an_uncaught_error_in_the_sandbox_is_a_sandbox_failure(sandbox_app: App) -> None:
    result = run(sandbox_app.page, CRASH_CODE, which="fresh")
    assert result["ok"] is False
    assert result["error"]["kind"] == "sandbox"
    assert "the sandbox crashed" in result["error"]["message"]
    assert "boom from a callback" in result["error"]["message"]
    assert run(sandbox_app.page, "print('after the crash')", which="fresh")["stdout"] == "after the crash\n"


IN_WORKER = """async ([path, request, limit]) => {
  const worker = new Worker(path, { type: "module", name: "agent-like" });
  try {
    const answer = new Promise((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => reject(new Error(`the agent-like worker failed: ${event.message}`));
    });
    worker.postMessage(request);
    return await __bounded(answer, limit, "the run in a worker");
  } finally {
    worker.terminate();
  }
}"""


def test_runner_works_inside_a_module_worker(sandbox_app: App) -> None:
    code = "import js\nprint(js.self.origin, open('in.txt').read())\nopen('out.txt', 'w').write('nested')"
    request = {"id": "r9", "code": code, "files": {"in.txt": b64("from the agent")}, "timeout_s": 60}
    result = sandbox_app.page.evaluate(IN_WORKER, [AGENT_LIKE_PATH, request, RUN_LIMIT_MS])
    assert result["id"] == "r9"
    assert result["ok"] is True, json.dumps(result)[:2000]
    assert result["stdout"] == "null from the agent\n"
    assert {p: unb64(d) for p, d in result["files"].items()} == {"out.txt": "nested"}


CSP_PROBE_URL = "http://192.0.2.1/csp-probe"  # TEST-NET-1: outside connect-src; the context guard aborts it anyway
CSP_PROBE = f"""
import js
try:
    await js.fetch("{CSP_PROBE_URL}")
    print("fetched")
except Exception as e:
    print("refused:", e)
"""


@pytest.mark.parametrize(
    "where",
    [
        pytest.param("page", id="started-from-the-page"),
        # A data: worker inherits its creator's CSP; scripts/server/static.py serves worker scripts with it.
        pytest.param("worker", id="started-from-the-agent-worker"),
    ],
)
def test_sandbox_network_is_bounded_by_the_csp(sandbox_app: App, where: str) -> None:
    request = {"code": CSP_PROBE, "files": {}, "timeout_s": 30}
    if where == "page":
        result = run(sandbox_app.page, CSP_PROBE)
    else:
        result = sandbox_app.page.evaluate(IN_WORKER, [AGENT_LIKE_PATH, request, RUN_LIMIT_MS])
    attempted = [u for u in sandbox_app.traffic.external if u.startswith(CSP_PROBE_URL)]
    sandbox_app.traffic.external[:] = [u for u in sandbox_app.traffic.external if u not in attempted]
    violations = sandbox_app.traffic.csp_violations
    violations[:] = [v for v in violations if "192.0.2.1" not in v]  # the one this probe is meant to cause
    assert result["stdout"].startswith("refused:"), result
    assert attempted == [], "the request left the sandbox: the CSP did not stop it"
