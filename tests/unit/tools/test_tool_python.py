"""run_python: the exec_request it sends, and what it does with the host's exec_result."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from runtime.errors import HostRequestError
from runtime.tools import python
from runtime.tools.base import ToolError, ToolOutput
from runtime.tools.untrusted import NOTES
from tests.unit.tools.support import FakeContext, call


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def reply(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"type": "exec_result", "id": "r1", "ok": True, "stdout": "", "stderr": "", "files": {}}
    return base | fields


async def test_request_carries_code_timeout_and_workspace_files(ctx: FakeContext, workspace: Path) -> None:
    (workspace / ".agent").mkdir()
    (workspace / ".agent" / "state.txt").write_text("internal")
    ctx.replies.append(reply(stdout="hi\n"))
    await call(python.run_python, ctx, code="print('hi')", timeout_s=12)
    [(kind, payload, timeout_s)] = ctx.requested
    assert kind == "exec_request"
    assert timeout_s == 12 + python.HOST_GRACE_S
    assert payload["code"] == "print('hi')" and payload["timeout_s"] == 12
    assert sorted(payload["files"]) == ["hello.py", "image.png", "notes/a.md", "notes/b.txt"]
    assert base64.b64decode(payload["files"]["notes/a.md"]) == b"# A\nalpha line\nbeta line\n"


@pytest.mark.parametrize(
    ("packages", "sent_packages"),
    [
        pytest.param(None, [], id="no-packages"),
        pytest.param(["tabulate", " requests>=2 "], ["tabulate", "requests>=2"], id="pypi"),
        pytest.param(["a[x]==1.0", "b >= 1, < 2"], ["a[x]==1.0", "b >= 1, < 2"], id="extras-and-specifiers"),
    ],
)  # fmt: skip
async def test_request_carries_packages_and_no_index(
    workspace: Path, packages: list[str] | None, sent_packages: list[str]
) -> None:
    """The package indexes are the host's (its sandbox has them): the request names none."""
    ctx = FakeContext(workspace)
    ctx.replies.append(reply(stdout="ok\n"))
    await call(python.run_python, ctx, code="print('ok')", packages=packages)
    [(_, payload, _)] = ctx.requested
    assert payload["packages"] == sent_packages
    assert "index_urls" not in payload


def test_packages_are_in_the_schema_the_model_sees() -> None:
    schema = python.run_python.parameters["properties"]["packages"]
    assert schema["type"] == "array" and schema["items"] == {"type": "string"}
    assert "packages" not in python.run_python.parameters.get("required", [])
    assert "micropip" in schema["description"] and "approves" in schema["description"]


async def test_changed_and_deleted_files_come_back(ctx: FakeContext, workspace: Path) -> None:
    ctx.replies.append(
        reply(
            stdout="done\n", files={"out/r.csv": b64(b"a,b\n"), "hello.py": b64(b"print(2)\n")}, deleted=["notes/b.txt"]
        )
    )
    result = await call(python.run_python, ctx, code="...")
    assert isinstance(result, ToolOutput) and result.ok
    assert result.changed_paths == ("hello.py", "out/r.csv", "notes/b.txt")
    assert (workspace / "out" / "r.csv").read_bytes() == b"a,b\n"
    assert (workspace / "hello.py").read_text() == "print(2)\n"
    assert not (workspace / "notes" / "b.txt").exists()
    assert result.text == "[ok]\n" + printed("stdout:\ndone") + "\nfiles changed: hello.py, out/r.csv, notes/b.txt"


def printed(text: str) -> str:
    """What the code printed, as the model gets it: wrapped as untrusted output."""
    return f'<untrusted_content source="run_python" kind="output">\n{text}\n</untrusted_content>\n{NOTES["output"]}'


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        pytest.param(
            {"ok": False, "stderr": "Traceback...\nZeroDivisionError: division by zero\n",
             "error": {"kind": "exception", "message": "ZeroDivisionError: division by zero"}},
            "[failed: exception] ZeroDivisionError: division by zero\n"
            + printed("stderr:\nTraceback...\nZeroDivisionError: division by zero"),
            id="exception",
        ),
        pytest.param(
            {"ok": False, "error": {"kind": "timeout", "message": "stopped after 30 s"}},
            "[failed: timeout] stopped after 30 s\n(no output)",
            id="timeout",
        ),
        pytest.param(
            {"ok": False, "error": {"kind": "install", "message": "could not install nope: ValueError: no wheel"}},
            "[failed: install] could not install nope: ValueError: no wheel\n(no output)",
            id="install",
        ),
        pytest.param({"ok": False, "error": "worker crashed"}, "[failed: sandbox] worker crashed\n(no output)",
                     id="str"),
        pytest.param({"ok": False}, "[failed: sandbox] the run failed\n(no output)", id="no-error"),
        pytest.param({"ok": True}, "[ok]\n(no output)", id="silent"),
    ],
)  # fmt: skip
async def test_outcomes(ctx: FakeContext, fields: dict[str, Any], text: str) -> None:
    ctx.replies.append(reply(**fields))
    result = await call(python.run_python, ctx, code="x")
    assert result.text == text
    assert result.ok is fields["ok"]


@pytest.mark.parametrize(
    ("path", "note"),
    [
        pytest.param("../evil.txt", "not written back: '../evil.txt'", id="parent"),
        pytest.param("/etc/evil", "not written back: '/etc/evil'", id="absolute"),
        pytest.param("dir_out/evil.txt", "not written back: 'dir_out/evil.txt'", id="through-link-out"),
        pytest.param("notes", "not written back: 'notes' (too large, or a folder)", id="folder"),
    ],
)
async def test_returned_files_outside_the_workspace_are_refused(
    ctx: FakeContext, workspace: Path, path: str, note: str
) -> None:
    ctx.replies.append(reply(files={path: b64(b"pwned")}))
    result = await call(python.run_python, ctx, code="x")
    assert note in result.text
    assert result.changed_paths == ()
    assert not (workspace.parent / "evil.txt").exists()
    assert not (workspace.parent / "outside" / "evil.txt").exists()


async def test_bad_base64_and_deletes_outside_are_notes(ctx: FakeContext, workspace: Path) -> None:
    ctx.replies.append(reply(files={"x.txt": "!!not base64!!"}, deleted=["link_out", "../outside/secret.txt"]))
    result = await call(python.run_python, ctx, code="x")
    assert "not written back: 'x.txt'" in result.text
    assert "not deleted: 'link_out'" in result.text and "not deleted: '../outside/secret.txt'" in result.text
    assert (workspace.parent / "outside" / "secret.txt").exists()


async def test_output_is_bounded(ctx: FakeContext) -> None:
    out = "".join(f"{i:08}\n" for i in range(10_000))
    ctx.replies.append(reply(stdout=out))
    result = await call(python.run_python, ctx, code="x")
    left_out = len(out) - python.OUTPUT_HEAD_CHARS - python.OUTPUT_TAIL_CHARS
    assert f"[... {left_out:,} characters left out ...]" in result.text
    assert result.text.split("</untrusted_content>")[0].rstrip().endswith("00009999")
    assert len(result.text) < python.OUTPUT_HEAD_CHARS + python.OUTPUT_TAIL_CHARS + 400  # the wrapper and its note


async def test_large_files_are_not_sent(ctx: FakeContext, workspace: Path) -> None:
    (workspace / "big.bin").write_bytes(b"\0" * (python.MAX_FILE_SEND_BYTES + 1))
    ctx.replies.append(reply())
    result = await call(python.run_python, ctx, code="x")
    assert "big.bin" not in ctx.requested[0][1]["files"]
    assert "not handed to the sandbox (too large): big.bin" in result.text


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param({"code": "x", "timeout_s": 0}, "between 1 and 300", id="timeout-zero"),
        pytest.param({"code": "x", "timeout_s": 301}, "between 1 and 300", id="timeout-big"),
        pytest.param({"code": "  \n"}, "code is empty", id="empty"),
        pytest.param(
            {"code": "x", "packages": ["https://evil.test/x.whl"]}, "not a package requirement", id="package-url"
        ),
        pytest.param(
            {"code": "x", "packages": ["x; python_version<'3'"]}, "not a package requirement", id="package-marker"
        ),
        pytest.param(
            {"code": "x", "packages": ["--index-url=http://x"]}, "not a package requirement", id="package-option"
        ),
        pytest.param(
            {"code": "x", "packages": [f"p{i}" for i in range(21)]}, "at most 20 packages", id="too-many-packages"
        ),
    ],
)
async def test_bad_arguments_send_nothing(ctx: FakeContext, arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await call(python.run_python, ctx, **arguments)
    assert ctx.requested == []


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        pytest.param({"type": "exec_result", "stdout": ""}, "'ok' is not a boolean", id="no-ok"),
        pytest.param(reply(files=["a"]), "'files' is not an object", id="files-list"),
        pytest.param(reply(stdout=3), "'stdout'/'stderr' are not strings", id="stdout-int"),
        pytest.param(reply(deleted="a"), "'deleted' is not a list", id="deleted-str"),
        pytest.param(reply(type="reply"), "type 'reply'", id="wrong-type"),
    ],
)
async def test_malformed_replies(ctx: FakeContext, answer: dict[str, Any], message: str) -> None:
    ctx.replies.append(answer)
    with pytest.raises(python.SandboxReplyError, match=message):
        await call(python.run_python, ctx, code="x")


async def test_host_failure_becomes_a_tool_error(ctx: FakeContext) -> None:
    def fail(payload: dict[str, Any]) -> dict[str, Any]:
        raise HostRequestError("timeout", "no reply in 45 s", "r1")

    ctx.replies.append(fail)
    with pytest.raises(ToolError, match=r"did not run the code \(timeout\): no reply in 45 s"):
        await call(python.run_python, ctx, code="x")
