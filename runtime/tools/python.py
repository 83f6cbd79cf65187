"""run_python: code runs in the host's sandbox (a separate Pyodide), never in the runtime's interpreter.

The runtime sends ``exec_request`` with the code, the timeout and the workspace's files (base64), and the
host answers ``exec_result``. Files the code created or changed come back and are written into the
workspace by ``writeback.py`` (only what a file tool could change; never AGENTS.md or ``.agents/``, and
deletions only of files handed in); the paths are reported as changed.

The frames (``ExecRequest``, ``ExecResult`` in runtime/host/messages.py)::

    {"type": "exec_request", "id": "r7", "code": "...", "timeout_s": 30,
     "files": {"data/in.csv": "<base64>", ...}, "packages": ["tabulate"],
     "network": false}
    {"type": "exec_result", "id": "r7", "ok": true, "stdout": "...", "stderr": "...",
     "files": {"out.png": "<base64>"}, "deleted": ["old.txt"], "error": null}

``packages`` are installed with micropip before the code runs, from the indexes the host gave its
sandbox (PyPI unless a test server configured others; they never pass through the runtime). ``error``
is null when ``ok``, else ``{"kind": "timeout"|"exception"|"sandbox"|"install", "message": "..."}`` (a plain
string is accepted as ``sandbox``). ``deleted`` is optional. ``network`` (approved with the call) lets the
code reach the web through the app's ``/api/proxy``; false: the sandbox has no network at all.
"""

from __future__ import annotations

import base64
import logging
import os
import re
from pathlib import Path
from typing import Annotated, Any, get_args

from runtime.errors import HostRequestError
from runtime.host.constants import EXEC_DEFAULT_TIMEOUT_S, EXEC_MAX_TIMEOUT_S, ExecErrorKind
from runtime.host.messages import ExecError, ExecRequestBody, ExecResult
from runtime.names import name_problem
from runtime.tools.base import ToolContext, ToolDefinition, ToolError, ToolOutput, tool
from runtime.tools.paths import relative
from runtime.tools.traits import Walk
from runtime.tools.untrusted import defuse, wrap_untrusted
from runtime.tools.writeback import apply_run_changes

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = EXEC_DEFAULT_TIMEOUT_S
MAX_TIMEOUT_S = EXEC_MAX_TIMEOUT_S
HOST_GRACE_S = 15.0
MAX_CODE_CHARS = 200_000
MAX_FILE_SEND_BYTES = 2 * 1024 * 1024
MAX_TOTAL_SEND_BYTES = 8 * 1024 * 1024  # keeps exec requests small; base64 of this is far under the frame limit
OUTPUT_HEAD_CHARS = 12_000
OUTPUT_TAIL_CHARS = 4_000
NOT_SENT_DIRS = frozenset({".agent", ".git"})
MAX_PACKAGES = 20
# A requirement as micropip takes it: a name, optional extras and version specifiers (no URLs, no options).
REQUIREMENT = re.compile(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*\s*(\[[A-Za-z0-9._, -]+\])?\s*([<>=!~]=?=?\s*[A-Za-z0-9.*+!_-]+\s*,?\s*)*$"
)
ERROR_KINDS: tuple[ExecErrorKind, ...] = get_args(ExecErrorKind)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")  # shown in the card (plots)


class SandboxReplyError(ToolError):
    """The host's reply was not an ``exec_result`` of the documented shape."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the sandbox answered with a malformed result: {detail}")
        self.detail = detail


@tool("execute", walks=Walk())  # its sandbox gets a copy of the whole workspace
async def run_python(
    ctx: ToolContext,
    code: Annotated[str, "Python source to run; print what you want to see"],
    timeout_s: Annotated[int | None, "Seconds before the run is stopped (1-300)"] = DEFAULT_TIMEOUT_S,
    packages: Annotated[
        list[str] | None,
        "Pure-Python packages micropip installs from PyPI before the code runs, e.g. ['tabulate', 'requests>=2'];"
        " the user approves them with the code",
    ] = None,
    network: Annotated[
        bool,
        "True only when the code itself must fetch from the web (requests/urllib, through the app's proxy);"
        " the user approves this with the code. Default false: the run has no network at all",
    ] = False,
) -> ToolOutput:
    """Run Python code in an isolated sandbox that sees a copy of the workspace's files.

    Files the code writes under the current folder are copied back into the workspace; image files it
    writes (SVG, PNG, JPEG) are shown to the user in the call's card. For plots, `import pygal` (bundled,
    writes SVG: chart.render_to_file('plot.svg')); numpy and matplotlib are not available. `packages` are
    installed from PyPI with micropip before the code runs (pure-Python wheels only; the install counts
    toward the timeout); they are part of what the user approves. The run has no network unless
    `network` is true (then `requests` and `urllib` fetch public URLs through the app's proxy).
    Changes to AGENTS.md and .agents/ are never copied back.
    """
    if timeout_s is None:
        timeout_s = DEFAULT_TIMEOUT_S
    if not 1 <= timeout_s <= MAX_TIMEOUT_S:
        raise ToolError(f"timeout_s must be between 1 and {MAX_TIMEOUT_S}")
    if not code.strip():
        raise ToolError("code is empty")
    if len(code) > MAX_CODE_CHARS:
        raise ToolError(f"code is {len(code):,} characters, over the {MAX_CODE_CHARS:,} limit; write it to a file")
    wanted = check_packages(packages)
    files, not_sent = collect_files(ctx.workspace)
    request: ExecRequestBody = {
        "code": code,
        "timeout_s": timeout_s,
        "files": files,
        "packages": wanted,
        "network": network is True,
    }
    try:
        reply = await ctx.host_request("exec_request", dict(request), timeout_s=timeout_s + HOST_GRACE_S)
    except HostRequestError as e:
        raise ToolError(f"the sandbox did not run the code ({e.code}): {e.message}") from None
    result = parse_result(reply)
    await ctx.keep_before([*result["files"], *result.get("deleted", [])])  # the turn's checkpoint
    changed, notes = apply_run_changes(ctx.workspace, result["files"], result.get("deleted", []), files.keys())
    if not_sent:
        shown = ", ".join(not_sent[:10]) + (" ..." if len(not_sent) > 10 else "")
        notes.append(f"not handed to the sandbox (too large): {shown}")
    images = tuple(p for p in changed if p.lower().endswith(IMAGE_SUFFIXES) and (ctx.workspace / p).is_file())
    return ToolOutput(render(result, changed, notes), changed_paths=changed, ok=result["ok"], images=images)


def check_packages(packages: list[str] | None) -> list[str]:
    """The requirements to install, stripped; a ToolError for anything that is not a plain requirement."""
    wanted = [p.strip() for p in packages or [] if p.strip()]
    if len(wanted) > MAX_PACKAGES:
        raise ToolError(f"at most {MAX_PACKAGES} packages per run")
    bad = [p for p in wanted if not REQUIREMENT.match(p)]
    if bad:
        raise ToolError(f"not a package requirement (a name with optional version, e.g. 'tabulate>=0.9'): {bad[0]!r}")
    return wanted


def collect_files(workspace: Path) -> tuple[dict[str, str], list[str]]:
    """The workspace's files as base64 (``.agent/`` and ``.git/`` left out), and those left out for size."""
    root = workspace.resolve()
    files: dict[str, str] = {}
    not_sent: list[str] = []
    total = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in NOT_SENT_DIRS and not (Path(folder) / d).is_symlink())
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_symlink():
                continue
            rel = relative(root, path)
            if name_problem(rel) is not None:
                continue  # a name no tool may use (made before the rule, or by another route): not handed in
            size = path.stat().st_size
            if size > MAX_FILE_SEND_BYTES or total + size > MAX_TOTAL_SEND_BYTES:
                not_sent.append(rel)
                continue
            files[rel] = base64.b64encode(path.read_bytes()).decode("ascii")
            total += size
    return files, not_sent


def parse_result(reply: dict[str, Any]) -> ExecResult:
    """Check the host's reply against the documented shape."""
    if reply.get("type") not in (None, "exec_result"):
        raise SandboxReplyError(f"type {reply.get('type')!r}")
    ok = reply.get("ok")
    if not isinstance(ok, bool):
        raise SandboxReplyError("'ok' is not a boolean")
    stdout, stderr = reply.get("stdout") or "", reply.get("stderr") or ""
    files = reply.get("files") or {}
    deleted = reply.get("deleted") or []
    if not isinstance(stdout, str) or not isinstance(stderr, str):
        raise SandboxReplyError("'stdout'/'stderr' are not strings")
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise SandboxReplyError("'files' is not an object of base64 strings")
    if not isinstance(deleted, list) or not all(isinstance(p, str) for p in deleted):
        raise SandboxReplyError("'deleted' is not a list of paths")
    result: ExecResult = {
        "type": "exec_result",
        "id": str(reply.get("id", "")),
        "ok": ok,
        "stdout": stdout,
        "stderr": stderr,
        "files": files,
        "deleted": deleted,
        "error": None if ok else _parse_error(reply.get("error")),
    }
    return result


def _parse_error(raw: Any) -> ExecError:
    if isinstance(raw, dict) and raw.get("kind") in ERROR_KINDS:
        return {"kind": raw["kind"], "message": str(raw.get("message", ""))}
    return {"kind": "sandbox", "message": str(raw) if raw else "the run failed"}


def bounded(text: str) -> str:
    """Output cut to its head and tail, with a note of what was left out."""
    if len(text) <= OUTPUT_HEAD_CHARS + OUTPUT_TAIL_CHARS:
        return text
    left_out = len(text) - OUTPUT_HEAD_CHARS - OUTPUT_TAIL_CHARS
    head, tail = text[:OUTPUT_HEAD_CHARS], text[-OUTPUT_TAIL_CHARS:]
    return f"{head}\n[... {left_out:,} characters left out ...]\n{tail}"


def render(result: ExecResult, changed: tuple[str, ...], notes: list[str]) -> str:
    error = result["error"]
    parts = ["[ok]" if error is None else f"[failed: {error['kind']}] {defuse(error['message'])}".rstrip()]
    output = []
    if result["stdout"]:
        output.append("stdout:\n" + bounded(result["stdout"]).rstrip("\n"))
    if result["stderr"]:
        output.append("stderr:\n" + bounded(result["stderr"]).rstrip("\n"))
    parts.append(wrap_untrusted("\n".join(output), "run_python", "output") if output else "(no output)")
    if changed:
        parts.append("files changed: " + ", ".join(changed))
    parts.extend(notes)
    return "\n".join(parts)


TOOLS: tuple[ToolDefinition, ...] = (run_python,)
