"""run_python's `packages` through the app: micropip in the sandbox installs a pure wheel from a local index.

The fake model calls run_python with `packages=["tidepool-demo"]`; the call is approved; the sandbox's
micropip (installed offline from /wheels/sandbox/ when it starts) resolves the wheel from a PEP 691
(`application/vnd.pypi.simple.v1+json`) index on 127.0.0.1, which the test server hands the page
(`serve.py --test-config`; the agent worker hands it to its sandbox runner, not to the runtime). The sandbox
reaches no index itself: the host fetches the index page and the wheel through the app's /api/proxy (the
server allows 127.0.0.1 as a private host in tests) and hands them in. Also: `import micropip` works in a
plain run, a package the index lacks is an `install` failure, and pyodide-http lets `urllib` fetch through
the proxy in a run approved with `network: true`, and only then.
First, without a browser: the sandbox driver's `install` answers an `install` error where micropip is
missing (CPython) rather than raising.

Run with `TIDEPOOL_DIST=/tmp/dist-micropip` to build into a folder of its own.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib.util
import io
import json
import zipfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import pytest
from aiohttp import web
from playwright.sync_api import Browser, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.processes import serve_process
from tests.e2e.conftest import KEY, MODEL, App, running_app
from tests.e2e.test_sandbox import DRIVER
from tests.e2e.test_tools import call, result_text, tool_message
from tests.e2e.ui import connect_openrouter, wait_ready
from tests.support.serve import serve_in_thread

DEMO = "tidepool-demo"
DEMO_WHEEL = "tidepool_demo-1.0-py3-none-any.whl"
DEMO_TEXT = "hello from tidepool-demo 1.0"
HELLO_TEXT = "fetched through pyodide-http"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
CORS = {"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "*"}
URLLIB_CODE = "import urllib.request\nprint(urllib.request.urlopen('{index}/hello.txt').read().decode())"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


# --- the driver's install under CPython (first: the browser's event loop is not running yet) --------------


@pytest.fixture
def driver() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tidepool_sandbox_install_test", DRIVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("index_urls", "packages"),
    [
        pytest.param("null", [DEMO], id="pypi"),
        pytest.param(json.dumps(["http://127.0.0.1:9/simple"]), [DEMO, "tabulate"], id="configured-index"),
    ],
)
def test_driver_install_failure_is_an_outcome(driver: ModuleType, index_urls: str, packages: list[str]) -> None:
    """Under CPython micropip is missing: ``install`` answers an ``install`` error instead of raising."""
    outcome = json.loads(asyncio.run(driver.install(json.dumps(packages), index_urls)))
    assert outcome["error"]["kind"] == "install"
    assert outcome["error"]["message"].startswith(f"could not install {', '.join(packages)}: ModuleNotFoundError")


# --- through the app ---------------------------------------------------------------------------------------


def demo_wheel() -> bytes:
    """A minimal pure wheel: one module and its dist-info (METADATA, WHEEL, RECORD)."""
    files = {
        "tidepool_demo/__init__.py": f"X = {DEMO_TEXT!r}\n",
        "tidepool_demo-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tidepool-demo\nVersion: 1.0\n",
        "tidepool_demo-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                             "Tag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append("tidepool_demo-1.0.dist-info/RECORD,,")
    files["tidepool_demo-1.0.dist-info/RECORD"] = "\n".join(record) + "\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    return buffer.getvalue()


@dataclass
class PackageIndex:
    url: str
    requests: list[str] = field(default_factory=list)


def index_app(index: PackageIndex, wheel: bytes) -> web.Application:
    """The index: `/simple/<name>/` (PEP 691 JSON), the wheel under `/files/`, and a text file."""

    @web.middleware
    async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
        index.requests.append(f"{request.method} {request.path}")
        if request.method == "OPTIONS":
            return web.Response(status=204, headers=CORS)
        try:
            response = await handler(request)
        except web.HTTPException as e:
            response = web.Response(status=e.status, text=e.reason)
        response.headers.update(CORS)
        return response

    async def project(request: web.Request) -> web.Response:
        if request.match_info["name"] != DEMO:
            raise web.HTTPNotFound()
        files = [{"filename": DEMO_WHEEL, "url": f"{index.url}/files/{DEMO_WHEEL}",
                  "hashes": {"sha256": hashlib.sha256(wheel).hexdigest()}}]
        body = {"meta": {"api-version": "1.0"}, "name": DEMO, "versions": ["1.0"], "files": files}
        return web.json_response(body, content_type=SIMPLE_JSON)

    async def wheel_file(_: web.Request) -> web.Response:
        return web.Response(body=wheel, content_type="application/octet-stream")

    async def hello(_: web.Request) -> web.Response:
        return web.Response(text=HELLO_TEXT)

    app = web.Application(middlewares=[cors])
    app.router.add_get("/simple/{name}/", project)
    app.router.add_get(f"/files/{DEMO_WHEEL}", wheel_file)
    app.router.add_get("/hello.txt", hello)
    return app


@pytest.fixture(scope="module")
def package_index() -> Iterator[PackageIndex]:
    """The index on 127.0.0.1, in its own thread and event loop."""
    index = PackageIndex(url="")
    with serve_in_thread(index_app(index, demo_wheel()), "package-index") as url:
        index.url = url
        yield index


@pytest.fixture(scope="module")
def index_server(dist: Path, package_index: PackageIndex) -> Iterator[str]:
    """The app served with the local index as its package index (a test-only server option)."""
    config = json.dumps({"packageIndexUrls": [package_index.url + "/simple"]})
    with serve_process(dist, "--allow-private-host", "127.0.0.1", "--test-config", config) as url:
        yield url


@pytest.fixture(scope="module")
def index_app_page(browser: Browser, index_server: str, fake: FakeLLM, package_index: PackageIndex) -> Iterator[App]:
    """The app served with the local index as its package index, connected to the fake model."""
    fake.reset(api_key=KEY)
    with running_app(browser, index_server + "/") as app:
        wait_ready(app.page)
        connect_openrouter(app.page, f"{fake.base_url}/api/v1", KEY, MODEL)
        yield app


@pytest.fixture
def tools(index_app_page: App, fake: FakeLLM) -> App:
    fake.reset(api_key=KEY)
    wait_ready(index_app_page.page)
    index_app_page.page.get_by_test_id("permission-mode").select_option("ask")
    return index_app_page


def test_a_package_from_the_index_is_installed_before_the_code_runs(
    tools: App, fake: FakeLLM, package_index: PackageIndex
) -> None:
    args = {"code": "import tidepool_demo; print(tidepool_demo.X)", "packages": [DEMO]}
    card = call(tools.page, fake, "run_python", args, "It printed the demo text.")
    expect(card).to_have_attribute("data-status", "ok")
    assert DEMO in card.inner_text(), "the approval card did not show the packages"
    assert DEMO_TEXT in result_text(card)
    assert DEMO_TEXT in tool_message(fake)
    assert f"GET /simple/{DEMO}/" in package_index.requests
    assert f"GET /files/{DEMO_WHEEL}" in package_index.requests


@pytest.mark.parametrize(
    ("args", "status", "expected"),
    [
        pytest.param({"code": "import micropip, pyodide_http\nprint('micropip', micropip.__version__)"}, "ok",
                     "micropip 0.11.1", id="micropip-importable"),
        pytest.param({"code": URLLIB_CODE, "network": True}, "ok", HELLO_TEXT, id="urllib-through-the-proxy"),
        pytest.param({"code": URLLIB_CODE}, "error", "this run has no network", id="urllib-without-network"),
        pytest.param({"code": "print('not reached')", "packages": ["no-such-package"]}, "error",
                     "[failed: install]", id="unknown-package"),
    ],
)  # fmt: skip
def test_sandbox_packages_and_http(
    tools: App, fake: FakeLLM, package_index: PackageIndex, args: dict[str, object], status: str, expected: str
) -> None:
    args = {**args, "code": str(args["code"]).replace("{index}", package_index.url)}
    card = call(tools.page, fake, "run_python", args, "Done.")
    expect(card).to_have_attribute("data-status", status)
    text = result_text(card)
    assert expected in text, text
    assert "not reached" not in text
