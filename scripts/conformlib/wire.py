"""Wire-level checks: HTTP straight to a real llama-server (no browser), its raw bytes recorded as fixtures.

Each case sends one request, judges what came back (the shapes the runtime must cope with), and, when
recording, writes the raw body: streams as `.sse` files, the model list, `/props` and the error bodies in
one JSON (`llamacpp_server.json`) with the request that produced each. The model is a base model: what
it says is not meaningful, only the wire is; the tool-call prompts make it copy a `<tool_call>` block,
which llama.cpp's own parser turns into streamed `delta.tool_calls`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .llama import ALIAS, LlamaServer, Reply, request
from .report import Check

REPOSITORY = Path(__file__).resolve().parents[2]
FIXTURES = REPOSITORY / "tests" / "fixtures" / "streams"
WRITE_FILE = {
    "type": "function",
    "function": {
        "name": "write_file",
        "description": "Write a text file in the workspace.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
}
CALL_TEXT = '<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hello"}}\n</tool_call>'
LONG_CALL_TEXT = (
    '<tool_call>\n{"name": "write_file", "arguments": {"path": "notes/tides.txt", "content": '
    '"High tide at six, low tide at noon, high tide again at six in the evening."}}\n</tool_call>'
)
CUT_ARGUMENTS = '{"path'  # what a reply cut off at the length limit left of a call's arguments


def _copy_prompt(text: str) -> list[dict[str, Any]]:
    """A conversation that shows the model the call twice, so even a base model copies it."""
    ask = "Save a note. Answer with the tool call only."
    return [
        {"role": "system", "content": f"When asked to save a note, answer exactly:\n{text}"},
        {"role": "user", "content": ask},
        {"role": "assistant", "content": text},
        {"role": "user", "content": ask},
    ]


def chat_body(messages: list[dict[str, Any]], max_tokens: int, tools: bool = False, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": ALIAS, "messages": messages, "stream": True, "max_tokens": max_tokens,
                            "stream_options": {"include_usage": True}}
    if tools:
        body["tools"] = [WRITE_FILE]
    return {**body, **extra}


PLAIN = chat_body([{"role": "user", "content": "Say hello in one short line."}], 24, stop=["\n"])
PLAIN_OTHERS = (chat_body([{"role": "user", "content": "Hello! How are you?"}], 24, stop=["\n\n"]),
                chat_body([{"role": "user", "content": "Say hello."}], 16))
TOOL_CALL = chat_body(_copy_prompt(CALL_TEXT), 64, tools=True)
# If the base model does not copy the call, `tool_choice: "required"` makes llama.cpp constrain it to one.
TOOL_CALL_OTHERS = (chat_body(_copy_prompt(CALL_TEXT), 64, tools=True, tool_choice="required"),)
# Where the output limit falls inside the arguments depends on the tokenizer: the first limit that cuts there wins.
CUT_LIMITS = (18, 16, 20, 22, 14, 25, 28, 32, 12)
CUT_CALL, *CUT_OTHERS = (chat_body(_copy_prompt(LONG_CALL_TEXT), n, tools=True) for n in CUT_LIMITS)
INVALID_HISTORY = chat_body(
    [
        {"role": "user", "content": "Save a note."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_cut", "type": "function", "function": {"name": "write_file", "arguments": CUT_ARGUMENTS}}]},
        {"role": "tool", "tool_call_id": "call_cut", "content": "error: the arguments were cut off"},
        {"role": "user", "content": "Try again."},
    ],
    16,
    tools=True,
)
OVERFLOW = chat_body([{"role": "user", "content": "tide " * 6000}], 16)


def sse_payloads(body: bytes) -> list[Any]:
    """The JSON `data:` payloads of a recorded stream (`[DONE]` as the string)."""
    out: list[Any] = []
    for block in body.decode().split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data: "):
                data = line[len("data: "):]
                out.append(data if data == "[DONE]" else json.loads(data))
    return out


@dataclass
class Summary:
    """What a chat stream adds up to, read naively (independently of the runtime's own parser)."""

    text: str
    calls: dict[int, dict[str, str]]
    finish: str | None
    usage: dict[str, Any] | None
    done: bool


def summarise(body: bytes) -> Summary:
    s = Summary("", {}, None, None, False)
    for p in sse_payloads(body):
        if p == "[DONE]":
            s.done = True
            continue
        s.usage = p.get("usage") or s.usage
        for choice in p.get("choices") or []:
            delta = choice.get("delta") or {}
            s.text += delta.get("content") or ""
            for frag in delta.get("tool_calls") or []:
                call = s.calls.setdefault(frag["index"], {"name": "", "arguments": ""})
                call["name"] += (frag.get("function") or {}).get("name") or ""
                call["arguments"] += (frag.get("function") or {}).get("arguments") or ""
            s.finish = choice.get("finish_reason") or s.finish
    return s


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def judge_plain(r: Reply) -> tuple[bool, str]:
    s = summarise(r.body)
    return (r.status == 200 and bool(s.text) and s.done and s.usage is not None,
            f"HTTP {r.status}, text {s.text[:60]!r}, finish {s.finish}, usage {bool(s.usage)}, [DONE] {s.done}")


def judge_tool_call(r: Reply) -> tuple[bool, str]:
    s = summarise(r.body)
    calls = [f"{c['name']}({c['arguments']})" for c in s.calls.values()]
    # The first call assembled from its fragments must parse; a base model may ramble on into another call
    # that the output limit cuts (finish "length"), which is real too and stays in the recording.
    first = next(iter(s.calls.values()), None)
    ok = r.status == 200 and first is not None and _parses(first["arguments"])
    return ok, f"HTTP {r.status}, calls {calls}, finish {s.finish}, text {s.text[:40]!r}"


def judge_cut_call(r: Reply) -> tuple[bool, str]:
    s = summarise(r.body)
    args = [c["arguments"] for c in s.calls.values()]
    ok = r.status == 200 and s.finish == "length" and bool(args) and not _parses(args[-1])
    return ok, f"HTTP {r.status}, finish {s.finish}, last call's arguments {args[-1:]!r} (not JSON: {ok})"


def _error(r: Reply) -> dict[str, Any]:
    try:
        value = r.json()
    except ValueError:
        return {}
    return value.get("error") or {} if isinstance(value, dict) else {}


def judge_invalid_history(r: Reply) -> tuple[bool, str]:
    message = str(_error(r).get("message", r.body[:200]))
    return r.status == 500 and "Failed to parse tool call arguments" in message, f"HTTP {r.status}: {message[:160]}"


def judge_overflow(r: Reply) -> tuple[bool, str]:
    err = _error(r)
    ok = r.status == 400 and err.get("type") == "exceed_context_size_error" and isinstance(err.get("n_ctx"), int)
    return ok, f"HTTP {r.status}: type {err.get('type')}, n_prompt_tokens {err.get('n_prompt_tokens')}, " \
               f"n_ctx {err.get('n_ctx')}: {str(err.get('message'))[:120]}"


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    body: dict[str, Any] | None
    judge: Callable[[Reply], tuple[bool, str]]
    fixture: str  # "<file>.sse", or "json:<key>" for an entry of llamacpp_server.json
    others: tuple[dict[str, Any], ...] = ()  # bodies tried in turn when `body`'s reply does not pass


def judge_models(ctx: int) -> Callable[[Reply], tuple[bool, str]]:
    def judge(r: Reply) -> tuple[bool, str]:
        data = r.json().get("data") or [{}]
        meta = data[0].get("meta") or {}
        seen = f"HTTP {r.status}, id {data[0].get('id')!r}, meta.n_ctx {meta.get('n_ctx')}, " \
               f"n_ctx_train {meta.get('n_ctx_train')}"
        return meta.get("n_ctx") == ctx, seen
    return judge


def judge_props(ctx: int) -> Callable[[Reply], tuple[bool, str]]:
    def judge(r: Reply) -> tuple[bool, str]:
        settings = r.json().get("default_generation_settings") or {}
        predict = (settings.get("params") or {}).get("n_predict")
        return settings.get("n_ctx") == ctx, f"HTTP {r.status}, default_generation_settings.n_ctx " \
                                             f"{settings.get('n_ctx')}, params.n_predict {predict}"
    return judge


def cases(ctx: int) -> list[Case]:
    return [
        Case("model list carries the window (`meta.n_ctx`)", "GET", "/v1/models", None, judge_models(ctx),
             "json:models"),
        Case("`/props` carries the window", "GET", "/props", None, judge_props(ctx), "json:props"),
        Case("streamed plain reply", "POST", "/v1/chat/completions", PLAIN, judge_plain, "llamacpp_text.sse",
             PLAIN_OTHERS),
        Case("streamed tool call", "POST", "/v1/chat/completions", TOOL_CALL, judge_tool_call,
             "llamacpp_tool_call.sse", TOOL_CALL_OTHERS),
        Case("reply cut off at `length` inside a call's arguments", "POST", "/v1/chat/completions", CUT_CALL,
             judge_cut_call, "llamacpp_length_in_tool_arguments.sse", tuple(CUT_OTHERS)),
        Case("history with invalid call arguments is refused (500)", "POST", "/v1/chat/completions",
             INVALID_HISTORY, judge_invalid_history, "json:invalid_tool_arguments"),
        Case("prompt over the window is refused (400)", "POST", "/v1/chat/completions", OVERFLOW, judge_overflow,
             "json:context_exceeded"),
    ]


def _scrub(value: Any, secrets: list[str]) -> Any:
    """The recorded JSON without this machine's paths: the repository's own files relative to it (the chat
    template), others (the model path in `/props`) as `<cache>`."""
    text = json.dumps(value, ensure_ascii=False).replace(json.dumps(f"{REPOSITORY}/")[1:-1], "")
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(json.dumps(secret)[1:-1], "<cache>")
    return json.loads(text)


def _entry(body: dict[str, Any] | None, reply: Reply) -> dict[str, Any]:
    entry: dict[str, Any] = {"status": reply.status, "content_type": reply.headers.get("content-type")}
    if body is OVERFLOW:
        entry["request"] = {**body, "messages": "<OVERFLOW in scripts/conformlib/wire.py: 'tide ' * 6000>"}
    elif body is not None:
        entry["request"] = body
    return {**entry, "body": reply.json()}


@dataclass
class Outcome:
    ok: bool
    seen: str
    reply: Reply | None = None
    body: dict[str, Any] | None = None


def attempt(server: LlamaServer, case: Case) -> Outcome:
    """The case's request, then its others in turn until one passes; the last outcome if none does."""
    outcome = Outcome(False, "not run")
    for body in (case.body, *case.others):
        try:
            reply = request(server.port, case.method, case.path, body)
            ok, seen = case.judge(reply)
        except (OSError, ValueError, KeyError, AttributeError, TypeError) as exc:
            outcome = Outcome(False, f"{type(exc).__name__}: {exc}", None, body)
            continue
        outcome = Outcome(ok, seen, reply, body)
        if ok:
            break
    return outcome


def run_wire(server: LlamaServer, record: bool, into: Path = FIXTURES) -> list[Check]:
    """Every wire case; with `record`, each case that passed is written to `into` (a fixture shows the shape it
    is named for: one that did not pass is left as it was, and said so)."""
    checks: list[Check] = []
    recorded: dict[str, Any] = {"recorded_with": f"llama-server from llama-cpp-python {_version()} (vendored "
                                f"llama.cpp), Gemma 3 270M Q4_K_M, {' '.join(server.argv()[4:])}"}
    for case in cases(server.ctx):
        got = attempt(server, case)
        if case.fixture.endswith("tool_arguments.sse") and got.ok and got.body is not None:
            server.cut_predict = int(got.body["max_tokens"])  # the app's cut-off check starts from it
        seen = got.seen + (f" (not recorded: {case.fixture} left as it was)" if record and not got.ok else "")
        checks.append(Check.of("wire", case.name, got.ok, seen))
        if not (record and got.ok) or got.reply is None:
            continue
        if case.fixture.startswith("json:"):
            recorded[case.fixture[5:]] = _entry(got.body, got.reply)
        else:
            (into / case.fixture).write_bytes(got.reply.body)
            recorded.setdefault("stream_requests", {})[case.fixture] = got.body
    if record:
        _merge_json(into / "llamacpp_server.json", recorded, [str(server.model.parent), str(server.binary.parent),
                                                              str(Path.home())])
    return checks


def _merge_json(path: Path, recorded: dict[str, Any], secrets: list[str]) -> None:
    """Write the recorded entries over those already in `path` (entries not recorded this time are kept)."""
    old = json.loads(path.read_text()) if path.exists() else {}
    merged = {**old, **recorded, "stream_requests": {**old.get("stream_requests", {}),
                                                    **recorded.get("stream_requests", {})}}
    path.write_text(json.dumps(_scrub(merged, secrets), indent=1, ensure_ascii=False) + "\n")


def _version() -> str:
    from .install import LLAMA_CPP_PYTHON

    return LLAMA_CPP_PYTHON
