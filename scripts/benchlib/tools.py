"""Issue 3: the overhead of one tool round, and the workspace flush cost against the workspace's size.

The fake model stamps when each chat request arrives and when each streamed reply has been fully
written. One tool round's overhead is the gap between the end of the model's first reply (the tool call)
and the arrival of its second request (with the tool's result): parsing, the ledger and state flushes,
running the tool, the workspace flush and building the next request — no model time. The workspace
rows run `write_file` (auto-edit mode, no approval) in workspaces seeded in OPFS with 10, 1,000 and
10,000 files; the one changed file is all that should be flushed, so the gap should not grow.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from playwright.sync_api import Browser, Page

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import ChunkMaker, Reply

from .common import READY_WATCH, Row, Samples, boot_ready_ms, configure, seed_opfs, send, snapshot_stored, wait_idle

ROUND_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class Streamed:
    start: float  # time.monotonic() when the reply began (the request fully read)
    end: float  # when its last byte was written
    kind: str  # the scripted reply's kind ("text", "tool_call", …)
    wall: float = 0.0  # time.time() at start: set against the page's clock (performance.timeOrigin + now())
    last: str = ""  # the request's last message's text (which Send or fetch it answers)


class TimedFakeLLM(FakeLLM):
    """The fake provider, also stamping when each streamed reply starts and ends."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.streams: list[Streamed] = []

    async def _stream(self, request: web.Request, reply: Reply, maker: ChunkMaker,
                      usage: dict[str, Any] | None) -> web.StreamResponse:
        start, wall = time.monotonic(), time.time()
        response = await super()._stream(request, reply, maker, usage)
        self.streams.append(Streamed(start, time.monotonic(), reply.kind, wall, await _last_text(request)))
        return response


def same_request(fake: FakeLLM, text: str) -> str:
    """The app's latest chat request body, its last message's text replaced with ``text``: the direct
    fetch sends what the app sends (system prompt, tools, history), so the fake's own work on the body
    falls on both sides alike."""
    chats = reversed(fake.requests_to("/api/v1/chat/completions", "POST"))
    body = next(b for b in (r.json() for r in chats) if b.get("stream"))
    body["messages"][-1]["content"] = text
    return json.dumps(body)


async def _last_text(request: web.Request) -> str:
    try:
        messages = (await request.json()).get("messages") or [{}]  # the body was read already: kept
        content = messages[-1].get("content")
    except (ValueError, AttributeError):
        return ""
    if isinstance(content, list):  # content parts: the text ones
        content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def _gap_after_tool_call(streams: list[Streamed]) -> float | None:
    """Seconds from the end of the tool-call reply to the start of the next reply, once both exist."""
    for i, tool in enumerate(streams):
        if tool.kind in ("tool_call", "tool_calls"):
            later = [s.start for s in streams[i + 1:] if s.start >= tool.end]
            return min(later) - tool.end if later else None
    return None


def tool_round_ms(page: Page, fake: TimedFakeLLM, tool: str, args: dict[str, Any]) -> float:
    """Script one tool call then a text reply; the gap between the first reply's end and the 2nd request."""
    mark = len(fake.streams)
    fake.reset()  # nothing left over from earlier groups in the reply queue
    fake.script([Reply.tool_call(tool, args), Reply.text("done.")])
    send(page, f"please run {tool}")
    deadline = time.monotonic() + ROUND_TIMEOUT_MS / 1000
    gap = None
    while gap is None and time.monotonic() < deadline:
        page.wait_for_timeout(20)
        gap = _gap_after_tool_call(fake.streams[mark:])
    if gap is None:
        kinds = [s.kind for s in fake.streams[mark:]]
        raise TimeoutError(f"{tool}: no request after the tool call (replies streamed since: {kinds})")
    wait_idle(page, ROUND_TIMEOUT_MS)
    return gap * 1000


def _workspace(browser: Browser, base: str, fake_base: str, count: int) -> tuple[Any, Page, float]:
    ctx = browser.new_context()
    ctx.add_init_script(READY_WATCH)
    page = ctx.new_page()
    seed_opfs(page, base, {"prefix": "seed", "count": count, "perDir": 100, "bytes": 64,
                           "files": {"files/notes.txt": "aGVsbG8gYmVuY2htYXJrCg=="}})
    boot_ms = boot_ready_ms(page, base)
    snapshot_stored(page)
    configure(page, fake_base)
    page.get_by_test_id("permission-mode").select_option("auto-edit")
    return ctx, page, boot_ms


def measure_tools(browser: Browser, base: str, fake: TimedFakeLLM, fake_base: str, runs: int,
                  sizes: tuple[int, ...] = (10, 1_000, 10_000)) -> list[Row]:
    """Every size's workspace booted first, then their rounds taking turns (each size first in turn), so a
    load that moves during the group falls on all sizes alike."""
    rows: list[Row] = []
    samples: dict[int, list[float]] = {count: [] for count in sizes}
    boots: dict[int, float] = {}
    pages: dict[int, Page] = {}
    contexts = []
    try:
        for count in sizes:
            ctx, pages[count], boots[count] = _workspace(browser, base, fake_base, count)
            contexts.append(ctx)
            warm_up = {"path": "out/warm-up.txt", "content": "w\n"}
            tool_round_ms(pages[count], fake, "write_file", warm_up)  # not counted
        reads = [tool_round_ms(pages[sizes[0]], fake, "read_file", {"path": "notes.txt"}) for _ in range(runs)]
        rows.append(Row("one tool round (`read_file`), excluding model time", "—", None,
                        Samples(reads), "median", "—", note="end of reply 1 → request 2, at the fake"))
        for i in range(runs):
            turn = sizes[i % len(sizes):] + sizes[:i % len(sizes)]
            for count in turn:
                args = {"path": f"out/new-{i}.txt", "content": f"x{i}\n"}
                samples[count].append(tool_round_ms(pages[count], fake, "write_file", args))
    finally:
        for ctx in contexts:
            ctx.close()
    writes = {count: Samples(values) for count, values in samples.items()}
    small = writes[sizes[0]]
    for count in sizes:
        rows.append(Row(f"`write_file` round + flush, {count:,}-file workspace", f"same, {sizes[0]}-file workspace",
                        small, writes[count], "median", "flat (≈ 1 ×)",
                        note=f"boot to ready {boots[count]:.0f} ms"))
    return rows
