"""The sandbox's Python side: one ``run_python`` call inside the sandbox's own Pyodide.

``sandbox-worker.js`` writes this file to ``/sandbox/`` in the sandbox's MEMFS, imports it and calls
``run(code, files_json)`` once per run. Values cross as JSON strings, never pasted into source. A run:

1. resets ``/workspace`` and writes the files handed in (``{path: base64}``), then makes it the cwd and
   the last entry of ``sys.path`` (what the sandbox ships comes first: see ``workspace_last``);
2. executes the code as ``__main__`` (top-level ``await`` allowed) with a fresh namespace;
3. answers ``{"error": null | {"kind": "exception", "message": traceback}, "files": {path: base64},
   "deleted": [path]}`` as JSON: files created or changed, and files handed in that are gone.

Before that, when the run lists packages, the worker calls ``install(packages_json, index_urls_json,
host_fetch)``, which installs them with micropip and answers ``{"error": null | {"kind": "install",
"message": ...}}``; micropip's downloads go to ``host_fetch`` (the host fetches them through the app's
proxy; the sandbox's own policy lets it reach no index). ``setup(proxy)`` runs once when the sandbox
starts: pyodide-http patches ``urllib`` when code first imports ``urllib.request`` (and ``requests``
once installed). micropip is imported by the first install (or the code's own ``import micropip``): the
two imports were the largest part of a sandbox's start after Pyodide itself, and most runs need neither.
Their requests go to the app's proxy (``proxy``: its URL, for a sandbox approved for the network) or
fail at once with a clear message (``proxy`` empty: the run has no network).

``imports(code)`` names the top-level modules the code imports (as Pyodide's ``find_imports`` does,
by reading it, not running it): the worker installs the bundled wheels of any it has (pygal) first.

Output goes to ``sys.stdout``/``sys.stderr``, which the worker captures. Tracebacks start at the user's
code (``<run_python>``): this module's frames and Pyodide's are left out. It runs under CPython too.
"""

from __future__ import annotations

import ast
import base64
import binascii
import builtins
import contextlib
import hashlib
import importlib.util
import inspect
import json
import linecache
import os
import shutil
import sys
import traceback
import unicodedata
import urllib.error
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypedDict

WORKSPACE = "/workspace"
CODE_FILENAME = "<run_python>"
MAX_RETURN_BYTES = 8 * 1024 * 1024  # all returned files together; base64 of it fits one 16 MiB frame
SKIPPED_DIRS = frozenset({"__pycache__"})
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})  # what no name may hold (runtime/names.py)
JOINERS = frozenset("\u200c\u200d")  # but these two format characters, which scripts and emoji need
# PyPI's simple API, named so micropip searches it before Pyodide's lock file: the sandbox does not
# serve the lock file's packages, and PyPI has the pure-Python wheels of most of them.
PYPI_INDEX_URLS = ["https://pypi.org/simple/{package_name}/"]
NO_NETWORK = "this run has no network: run_python reaches the web only when approved with network=true"
# Request headers a page may send cross-origin without a preflight (the proxy forwards only these anyway).
SIMPLE_HEADERS = frozenset({"accept", "accept-language", "content-language", "content-type"})
_proxy_url = ""  # the app's /api/proxy for a sandbox approved for the network; "" = no network


class RunError(TypedDict):
    kind: Literal["exception", "install"]
    message: str


class InstallOutcome(TypedDict):
    error: RunError | None


class RunOutcome(TypedDict):
    error: RunError | None
    files: dict[str, str]
    deleted: list[str]


def safe_relative(path: str) -> bool:
    """A workspace-relative path with no way out of the workspace and no name the file tools refuse.

    The characters are the runtime's rule (``runtime/names.py``: categories Cc, Cf but the joiners, Cs, Zl, Zp), which
    this file cannot import; both are checked against ``tests/vectors/names.json``.
    """
    parts = path.split("/")
    return (
        bool(path)
        and not path.startswith("/")
        and "\\" not in path
        and not any(unicodedata.category(c) in UNSAFE_CATEGORIES and c not in JOINERS for c in path)
        and all(part not in ("", ".", "..") for part in parts)
    )


def empty(root: str) -> None:
    """Make ``root`` an empty folder (emptied in place: it may be the cwd, which cannot be removed)."""
    os.makedirs(root, exist_ok=True)
    for entry in os.scandir(root):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)


def prepare(files: dict[str, str], root: str) -> dict[str, str]:
    """Empty ``root``, write ``files`` into it, make it the cwd; returns path → sha256 of what was written."""
    empty(root)
    digests: dict[str, str] = {}
    for path, encoded in sorted(files.items()):
        if not safe_relative(path):
            print(f"[sandbox] not written (unsafe path): {path!r}", file=sys.stderr)
            continue
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            print(f"[sandbox] not written (not base64): {path!r}", file=sys.stderr)
            continue
        target = os.path.join(root, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        digests[path] = hashlib.sha256(data).hexdigest()
    os.chdir(root)
    workspace_last(root)
    return digests


def workspace_last(root: str) -> None:
    """Put ``root`` last on ``sys.path``, and drop the working directory (``""``, ``.``, the cwd) from it.

    The stdlib and the packages the sandbox ships or installs come first: a workspace ``pygal.py``,
    ``micropip.py`` or ``json.py`` never shadows them, and the user's own modules still import.
    """
    here = {"", ".", root, os.getcwd()}
    sys.path[:] = [entry for entry in sys.path if entry not in here]
    sys.path.append(root)


def clean_traceback(error: BaseException) -> str:
    """The traceback from the user's first frame on (this module's frames are dropped)."""
    if isinstance(error, SyntaxError) and error.filename == CODE_FILENAME:
        return "".join(traceback.format_exception_only(type(error), error)).rstrip()
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != CODE_FILENAME:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(error), error, tb)).rstrip()


async def execute(code: str) -> RunError | None:
    """Run ``code`` as ``__main__``; None when it finished (or called ``sys.exit(0)``)."""
    linecache.cache[CODE_FILENAME] = (len(code), None, code.splitlines(keepends=True), CODE_FILENAME)
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins, "__file__": CODE_FILENAME}
    try:
        compiled = compile(code, CODE_FILENAME, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        result = eval(compiled, namespace)
        if inspect.iscoroutine(result):
            await result
    except SystemExit as e:
        if e.code is None or e.code == 0:
            return None
        return {"kind": "exception", "message": f"SystemExit: {e.code}"}
    except BaseException as e:  # the user's code may raise anything; it is reported, not re-raised
        return {"kind": "exception", "message": clean_traceback(e)}
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    return None


def walk_files(root: str) -> list[str]:
    """Regular files under ``root`` (no symlinks, no ``__pycache__``), workspace-relative, sorted."""
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not os.path.islink(os.path.join(folder, d)))
        for name in names:
            full = os.path.join(folder, name)
            if os.path.isfile(full) and not os.path.islink(full):
                found.append(os.path.relpath(full, root).replace(os.sep, "/"))
    return sorted(found)


def collect(root: str, before: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Files created or changed since ``before`` (base64), and the paths of files handed in that are gone."""
    now = walk_files(root)
    changed: dict[str, str] = {}
    total = 0
    for path in now:
        with open(os.path.join(root, path), "rb") as f:
            data = f.read()
        if before.get(path) == hashlib.sha256(data).hexdigest():
            continue
        if total + len(data) > MAX_RETURN_BYTES:
            print(f"[sandbox] not returned (over the {MAX_RETURN_BYTES >> 20} MiB limit): {path}", file=sys.stderr)
            continue
        changed[path] = base64.b64encode(data).decode("ascii")
        total += len(data)
    present = set(now)
    deleted = sorted(path for path in before if path not in present)
    return changed, deleted


def proxied(send: Callable[..., Any]) -> Callable[..., Any]:
    """pyodide-http's ``send``, routed through the app's proxy, or refused when the run has no network."""

    def send_through_proxy(request: Any, stream: bool = False) -> Any:
        if not _proxy_url:
            raise urllib.error.URLError(NO_NETWORK)
        url = request.url
        if request.params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(request.params)
            request.params = None
        joiner = "&" if "?" in _proxy_url else "?"
        request.url = f"{_proxy_url}{joiner}url={urllib.parse.quote(url, safe='')}"
        request.headers = {k: v for k, v in request.headers.items() if k.lower() in SIMPLE_HEADERS}
        return send(request, False)  # streaming needs a helper worker and cross-origin isolation: never here

    return send_through_proxy


def patch_http(requests_only: bool = False) -> None:
    """Let pyodide-http route ``requests`` (when installed) and ``urllib`` through the proxy (see ``proxied``)."""
    try:
        import pyodide_http  # type: ignore[import-not-found]  # only in the sandbox
        from pyodide_http import _core  # type: ignore[import-not-found]
    except ImportError:
        return
    pyodide_http.patch_requests(continue_on_import_error=True)
    if not requests_only:
        pyodide_http.patch_urllib(continue_on_import_error=True)
    for name in ("pyodide_http._urllib", "pyodide_http._requests"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "send", None) is _core.send:
            module.send = proxied(_core.send)


class _PatchedLoader:
    """Loads ``urllib.request`` with its own loader, then patches HTTP (``patch_http``); the rest is theirs."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:  # get_source, is_package, …: the real loader's
        return getattr(self._loader, name)

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        # The import system binds ``urllib.request`` on its package only after this returns; the patch
        # reaches the module through it.
        urllib.request = module  # type: ignore[attr-defined]  # what the import system does next anyway
        patch_http()


class _PatchOnImport:
    """First on ``sys.meta_path`` until code imports ``urllib.request``: that import is patched as it loads,
    so a sandbox whose code never uses urllib does not import pyodide-http (and urllib, http.client and
    email with it) on its way to ``ready``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "urllib.request":
            return None
        sys.meta_path[:] = [finder for finder in sys.meta_path if finder is not self]
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchedLoader(spec.loader)
        return spec


def setup(proxy: str = "") -> None:
    """Once per sandbox, before it is ready: HTTP is patched when code first imports ``urllib.request``
    (micropip is imported when a run installs).

    ``proxy``: the URL of the app's /api/proxy (with its ``grant``) when this sandbox is for runs approved
    for the network.
    """
    global _proxy_url
    _proxy_url = str(proxy or "")
    if "urllib.request" in sys.modules:
        patch_http()
    else:
        sys.meta_path.insert(0, _PatchOnImport())


def string_list(text: str) -> list[str] | None:
    value = json.loads(text)
    if not isinstance(value, list):
        return None
    return [str(item) for item in value]


async def install(packages_json: str, index_urls_json: str = "null", host_fetch: Any = None) -> str:
    """Install the packages with micropip (index: ``index_urls`` or PyPI); answers an ``InstallOutcome``.

    ``host_fetch(url, accept)`` (JavaScript, from the worker) fetches what micropip downloads.
    """
    packages = string_list(packages_json) or []
    index_urls = string_list(index_urls_json) or PYPI_INDEX_URLS
    outcome: InstallOutcome = {"error": None}
    try:
        import micropip

        with downloads_through(host_fetch):
            await micropip.install(packages, index_urls=index_urls)
    except Exception as e:  # a failed install is reported, never raised into the worker
        message = f"{type(e).__name__}: {e}".strip()
        outcome["error"] = {"kind": "install", "message": f"could not install {', '.join(packages)}: {message}"}
    else:
        patch_http(requests_only=True)
    return json.dumps(outcome)


@contextlib.contextmanager
def downloads_through(host_fetch: Any) -> Iterator[None]:
    """While installing: micropip's downloads of http(s) URLs go to ``host_fetch`` (nothing to do if None)."""
    if host_fetch is None:
        yield
        return
    from micropip._compat import compatibility_layer as layer  # type: ignore[import-not-found]

    saved_bytes, saved_string = layer.fetch_bytes, layer.fetch_string_and_headers

    async def fetch_bytes(url: str, kwargs: dict[str, Any]) -> bytes:
        if urllib.parse.urlparse(url).scheme not in ("http", "https"):
            return bytes(await saved_bytes(url, kwargs))
        body, _ = await fetch_from_host(host_fetch, url, kwargs)
        return body

    async def fetch_string_and_headers(url: str, kwargs: dict[str, Any]) -> tuple[str, dict[str, str]]:
        body, headers = await fetch_from_host(host_fetch, url, kwargs)
        return body.decode("utf-8", errors="replace"), headers

    layer.fetch_bytes = staticmethod(fetch_bytes)
    layer.fetch_string_and_headers = staticmethod(fetch_string_and_headers)
    try:
        yield
    finally:
        layer.fetch_bytes = staticmethod(saved_bytes)
        layer.fetch_string_and_headers = staticmethod(saved_string)


async def fetch_from_host(host_fetch: Any, url: str, kwargs: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """The body and headers of ``url`` as the host fetched it; OSError for a status other than 2xx."""
    headers = {str(k).lower(): str(v) for k, v in (kwargs.get("headers") or {}).items()}
    got = await host_fetch(url, headers.get("accept"))
    status = int(got.status)
    if not 200 <= status < 300:
        raise OSError(f"{url} answered HTTP {status}")
    return bytes(got.body.to_bytes()), {"content-type": str(got.contentType)}


def imports(code: str) -> str:
    """The top-level modules ``code`` imports anywhere (absolute imports), as a JSON list; [] if it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return "[]"
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return json.dumps(sorted(names))


async def run(code: str, files_json: str, root: str = WORKSPACE) -> str:
    """One run: prepare ``root`` from ``files_json``, execute ``code``, answer a ``RunOutcome`` as JSON."""
    files = json.loads(files_json)
    if not isinstance(files, dict):
        files = {}
    before = prepare({str(k): str(v) for k, v in files.items()}, root)
    error = await execute(code)
    changed, deleted = collect(root, before) if os.path.isdir(root) else ({}, sorted(before))
    sys.stderr.flush()
    outcome: RunOutcome = {"error": error, "files": changed, "deleted": deleted}
    return json.dumps(outcome)
