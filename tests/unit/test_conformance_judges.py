"""The conformance run's own judgement (scripts/conformlib): how it reads a stream, what it calls a pass, what
it writes when recording. The run itself needs a real llama-server and is opt-in (docs/conformance.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripts.conformlib.llama import Reply
from scripts.conformlib.report import Check, table
from scripts.conformlib.wire import _merge_json as merge_json
from scripts.conformlib.wire import (
    judge_cut_call,
    judge_invalid_history,
    judge_overflow,
    judge_plain,
    judge_tool_call,
    summarise,
)


def sse(*chunks: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


def delta(finish: str | None = None, **d: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": d, "finish_reason": finish}]}


def call(args: str, name: str | None = None) -> dict[str, Any]:
    function = {"arguments": args, **({"name": name} if name else {})}
    return {"index": 0, "function": function, **({"id": "c1", "type": "function"} if name else {})}


CUT = sse(delta(role="assistant"), delta(tool_calls=[call("", "write_file")]), delta(tool_calls=[call('{"pa')]),
          delta(tool_calls=[call('th": "no')]), delta("length"), {"choices": [], "usage": {"prompt_tokens": 9}})


def test_fragments_are_assembled_and_the_usage_and_end_read() -> None:
    s = summarise(CUT)
    assert s.calls == {0: {"name": "write_file", "arguments": '{"path": "no'}}
    assert (s.finish, s.usage, s.done, s.text) == ("length", {"prompt_tokens": 9}, True, "")


def test_a_cut_off_call_passes_only_when_its_arguments_do_not_parse() -> None:
    assert judge_cut_call(Reply(200, {}, CUT))[0]
    whole = CUT.replace(b'th\\": \\"no', b'th\\": \\"notes.txt\\"}')
    assert summarise(whole).calls[0]["arguments"] == '{"path": "notes.txt"}'
    assert not judge_cut_call(Reply(200, {}, whole))[0]
    assert judge_tool_call(Reply(200, {}, whole))[0] and not judge_tool_call(Reply(200, {}, CUT))[0]


def test_a_plain_reply_needs_text_usage_and_done() -> None:
    body = sse(delta(content="Hel"), delta(content="lo"), delta("stop"), {"choices": [], "usage": {"total": 3}})
    assert judge_plain(Reply(200, {}, body)) == (True, "HTTP 200, text 'Hello', finish stop, usage True, [DONE] True")
    assert not judge_plain(Reply(200, {}, body.replace(b"data: [DONE]\n\n", b"")))[0]
    assert not judge_plain(Reply(200, {}, sse(delta(content="Hi"), delta("stop"))))[0]  # no usage


def test_the_error_bodies_are_told_by_status_and_type() -> None:
    overflow = {"error": {"code": 400, "type": "exceed_context_size_error", "message": "request (5000 tokens) "
                          "exceeds the available context size (4096 tokens)", "n_prompt_tokens": 5000, "n_ctx": 4096}}
    assert judge_overflow(Reply(400, {}, json.dumps(overflow).encode()))[0]
    assert not judge_overflow(Reply(500, {}, json.dumps(overflow).encode()))[0]
    invalid = {"error": {"code": 500, "type": "server_error", "message": "Failed to parse tool call arguments as JSON"}}
    assert judge_invalid_history(Reply(500, {}, json.dumps(invalid).encode()))[0]
    assert not judge_invalid_history(Reply(200, {}, CUT))[0]  # a server that took the history


def test_the_table_keeps_one_row_per_check() -> None:
    out = table([Check("wire", "a | b", "pass", "line one\nline two"), Check.of("app", "c", False, "x" * 400)])
    rows = out.splitlines()
    assert rows[2] == "| wire | a \\| b | pass | line one line two |"
    assert rows[3].startswith("| app | c | fail | x") and rows[3].endswith("… |") and len(rows[3]) < 330


def test_recording_merges_and_leaves_no_machine_path(tmp_path: Path) -> None:
    path = tmp_path / "llamacpp_server.json"
    path.write_text(json.dumps({"models": {"status": 200}, "stream_requests": {"a.sse": {"n": 1}}}))
    cache = tmp_path / "cache"
    merge_json(path, {"props": {"body": {"model_path": f"{cache}/gemma.gguf"}},
                      "stream_requests": {"b.sse": {"n": 2}}}, [str(cache)])
    merged = json.loads(path.read_text())
    assert merged["models"] == {"status": 200}  # not recorded this time: kept
    assert merged["props"]["body"]["model_path"] == "<cache>/gemma.gguf"
    assert merged["stream_requests"] == {"a.sse": {"n": 1}, "b.sse": {"n": 2}}
    assert str(tmp_path) not in path.read_text()
