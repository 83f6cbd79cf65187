"""Issue 2: an 8 MiB model reply through the runtime and its frames vs a direct `fetch` of the same stream.

There is no hook to read an arbitrary 8 MiB body through the runtime without a tool's limits
(`web_fetch` goes through /api/proxy, refuses loopback and caps at 2 MB), so the 8 MiB travel as one
streamed assistant reply from the fake provider (SSE events of 64 KiB of text; the fake pauses 2 ms
inside each event). Through frames: from pressing Send to the whole text in the page — which includes
the chat's markdown rendering (at most once per animation frame) on the main thread,
so it is an upper bound on the frames' own cost.
Direct: the page fetches the same stream and parses every SSE event, as the runtime does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from playwright.sync_api import Page

from scripts.fakes.processes import serve_process
from scripts.fakes.replies import Reply

from .boot import FIRST_TOKEN_FETCH
from .common import (
    READY_WATCH,
    Contexts,
    Row,
    Samples,
    at_a_persons_pace,
    boot_ready_ms,
    configure,
    new_chat,
    snapshot_stored,
    wait_idle,
)
from .tools import TimedFakeLLM, same_request

MIB = 1 << 20
MARKER = "END-OF-BENCH"
LIMIT_MS = 180_000

FETCH_ALL = """
async ([url, model]) => {
  const t0 = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": "Bearer sk-bench" },
    body: JSON.stringify({ model, stream: true, messages: [{ role: "user", content: "big" }] }),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "", chars = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split("\\n");
    buffer = lines.pop();
    for (const line of lines) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      chars += (JSON.parse(line.slice(6)).choices?.[0]?.delta?.content || "").length;
    }
  }
  return [performance.now() - t0, chars];
}
"""

# Whether the text in `root` ends with `marker` (as `root.textContent.trimEnd().endsWith(marker)`), read from its
# last text nodes only: reading the whole 8 MiB reply on every DOM change cost the page as much as its rendering.
ENDS_WITH = """
const endsWith = (root, marker) => {
  let node = root;
  while (node.lastChild) node = node.lastChild;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  walker.currentNode = node;
  let tail = node.nodeType === Node.TEXT_NODE ? node.data : "";
  while (tail.trimEnd().length < marker.length && walker.previousNode()) tail = walker.currentNode.data + tail;
  return tail.trimEnd().endsWith(marker);
};
"""

THROUGH_UI = """
async ([text, marker, limit]) => {
""" + ENDS_WITH + """
  const input = document.querySelector('[data-testid="chat-input"]');
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  const t0 = performance.now();
  document.querySelector('[data-testid="chat-send"]').click();
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no full reply after ${limit} ms`)), limit);
    const check = () => {
      const all = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
      const last = all[all.length - 1];
      if (last && endsWith(last, marker)) {
        clearTimeout(timer); observer.disconnect(); resolve(performance.now() - t0);
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
"""


# With the server's `streamProbe` test configuration (web/src/ui/chat/stream-probe.ts) the page counts reply
# text as it arrives (`tidepool:text` events) instead of rendering it.
THROUGH_PROBE = """
async ([text, chars, limit]) => {
  const input = document.querySelector('[data-testid="chat-input"]');
  const send = document.querySelector('[data-testid="chat-send"]');
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  for (let waited = 0; send.disabled && waited < limit; waited += 20) await new Promise((r) => setTimeout(r, 20));
  const t0 = performance.now();
  let first = null;
  const result = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${seen} of ${chars} characters after ${limit} ms`)), limit);
    let seen = 0;
    const on = (e) => {
      seen = e.detail.total;
      if (first === null) first = e.detail.at - t0;
      if (seen >= chars) {
        clearTimeout(timer);
        document.removeEventListener("tidepool:text", on);
        resolve([first, e.detail.at - t0]);
      }
    };
    document.addEventListener("tidepool:text", on);
  });
  send.click();
  return await result;
}
"""

PROBE_CONFIG = json.dumps({"streamProbe": True})


def big_text(size: int) -> str:
    line = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n"
    return (line * (size // len(line) + 1))[: size - len(MARKER) - 1] + "\n" + MARKER


def measure_throughput(contexts: Contexts, base: str, fake: TimedFakeLLM, fake_base: str, runs: int,
                       size: int = 8 * MIB) -> list[Row]:
    reply = Reply.text(big_text(size), chunk_chars=65536)
    ctx = contexts()
    ctx.add_init_script(READY_WATCH)
    page = ctx.new_page()
    boot_ready_ms(page, base)
    snapshot_stored(page)
    model = configure(page, fake_base)
    url = fake_base + "/api/v1/chat/completions"
    direct: list[float] = []
    frames: list[float] = []
    try:
        for i in range(runs):
            fake.script([reply])
            ms, chars = page.evaluate(FETCH_ALL, [url, model])
            if chars < size * 0.99:
                raise RuntimeError(f"the direct fetch read {chars} characters, not {size}")
            direct.append(float(ms))
            new_chat(page)  # each run on its own: the next message after 8 MiB would be over the window
            fake.script([reply])
            frames.append(float(page.evaluate(THROUGH_UI, [f"big {i}", MARKER, LIMIT_MS])))
            wait_idle(page, LIMIT_MS)
    finally:
        ctx.close()
    d, f = Samples(direct), Samples(frames)
    return [Row("8 MiB reply through frames (Send → all text shown)", "direct `fetch` + SSE parse, same stream",
                d, f, "median", "≥ 0.5 × throughput",
                ratio_text=f"{d.stat('median') / f.stat('median'):.2f} × throughput",
                note=f"{mib_s(size, d.stat('median')):.1f} vs {mib_s(size, f.stat('median')):.1f} MiB/s; "
                     "includes rendering")]


def _probe_runs(page: Page, fake: TimedFakeLLM, url: str, model: str, reply: Reply, chars: int,
                runs: int) -> tuple[list[float], list[float]]:
    direct: list[float] = []
    frames: list[float] = []
    for i in range(runs):
        fake.script([reply])
        ms, got = page.evaluate(FETCH_ALL, [url, model])
        if got < chars:
            raise RuntimeError(f"the direct fetch read {got} characters, not {chars}")
        direct.append(float(ms))
        new_chat(page)  # each run on its own: the next message after 8 MiB would be over the window
        fake.script([reply])
        frames.append(float(page.evaluate(THROUGH_PROBE, [f"probe {i}", chars, LIMIT_MS])[1]))
        wait_idle(page, LIMIT_MS)
    return direct, frames


def measure_unrendered(contexts: Contexts, dist: Path, fake: TimedFakeLLM, fake_base: str, runs: int,
                       size: int = 8 * MIB) -> list[Row]:
    """The 8 MiB reply and the first token, counted as text reaches the page (no rendering; `streamProbe`)."""
    text = big_text(size)
    big = Reply.text(text, chunk_chars=65536)
    small = Reply.text("Hello from the benchmark. " * 4)
    with serve_process(dist, "--test-config", PROBE_CONFIG) as base:
        ctx = contexts()
        ctx.add_init_script(READY_WATCH)
        page = ctx.new_page()
        try:
            boot_ready_ms(page, base)
            if page.evaluate("() => document.documentElement.dataset.streamProbe") != "on":
                print("[bench] this build has no streamProbe hook: no unrendered rows", file=sys.stderr)
                return []
            snapshot_stored(page)
            model = configure(page, fake_base)
            url = fake_base + "/api/v1/chat/completions"
            d_big, f_big = _probe_runs(page, fake, url, model, big, len(text), runs)
            new_chat(page)
            d_first: list[float] = []
            f_first: list[float] = []
            for i in range(runs * 5):
                at_a_persons_pace(page)
                fake.script([small])
                body = same_request(fake, "hi")  # the app's own request (its first: the 8 MiB runs')
                d_first.append(float(page.evaluate(FIRST_TOKEN_FETCH, [url, model, False, body])))
                fake.script([small])
                f_first.append(float(page.evaluate(THROUGH_PROBE, [f"first {i}", 1, LIMIT_MS])[0]))
                wait_idle(page, LIMIT_MS)
        finally:
            ctx.close()
    d, f = Samples(d_big), Samples(f_big)
    fd, ff = Samples(d_first), Samples(f_first)
    extra = ff.stat("median") - fd.stat("median")
    return [Row("8 MiB reply through frames, not rendered (Send → all text at the page)",
                "direct `fetch` + SSE parse, same stream", d, f, "median", "≥ 0.5 × throughput",
                ratio_text=f"{d.stat('median') / f.stat('median'):.2f} × throughput",
                note=f"{mib_s(size, d.stat('median')):.1f} vs {mib_s(size, f.stat('median')):.1f} MiB/s; "
                     "counted by the streamProbe hook"),
            Row("time to first token, not rendered (Send → first text at the page)",
                "direct `fetch` of the same request and stream", fd, ff, "median", "≤ +5 ms",
                ratio_text=f"+{extra:.1f} ms ({ff.stat('median') / fd.stat('median'):.2f} ×)")]


def mib_s(size: int, ms: float) -> float:
    return size / MIB / (ms / 1000)


LONGTASKS_UI = """
async ([text, marker, limit]) => {
  const tasks = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(e.duration); });
  observer.observe({ type: "longtask" });
  const input = document.querySelector('[data-testid="chat-input"]');
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  document.querySelector('[data-testid="chat-send"]').click();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no full reply after ${limit} ms`)), limit);
    const poll = () => {
      const all = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
      const last = all[all.length - 1];
      if (last && last.textContent.trimEnd().endsWith(marker)) { clearTimeout(timer); resolve(); }
      else setTimeout(poll, 50);
    };
    poll();
  });
  await new Promise((r) => setTimeout(r, 300));  // let the last frame's work be reported
  observer.disconnect();
  return tasks;
}
"""


def markdown_tokens(tokens: int) -> str:
    """About `tokens` tokens (≈ 4 characters each) of varied markdown: headings, lists, bold, code."""
    block = ("## Step {n}\n\nSome **bold** text, some `code`, and a [link](https://example.org) here.\n\n"
             "- first point of step {n}\n- second point\n\n```python\nprint({n})\n```\n\n")
    out, n = "", 0
    while len(out) < tokens * 4:
        n += 1
        out += block.format(n=n)
    return out + MARKER


def measure_longtasks(contexts: Contexts, base: str, fake: TimedFakeLLM, fake_base: str, runs: int) -> list[Row]:
    """UI while streaming 2,000 tokens: the main thread's long tasks (PerformanceObserver `longtask`)."""
    reply = Reply.text(markdown_tokens(2000), chunk_chars=4, delay_s=0.002)  # ~1 token a delta
    ctx = contexts()
    ctx.add_init_script(READY_WATCH)
    page = ctx.new_page()
    boot_ready_ms(page, base)
    snapshot_stored(page)
    configure(page, fake_base)
    longest: list[float] = []
    over = 0
    try:
        for i in range(runs):
            fake.script([reply])
            tasks = [float(t) for t in page.evaluate(LONGTASKS_UI, [f"stream {i}", MARKER, LIMIT_MS])]
            longest.append(max(tasks, default=0.0))
            over += sum(1 for t in tasks if t > 50)
            wait_idle(page, LIMIT_MS)
    finally:
        ctx.close()
    return [Row("UI while streaming 2,000 tokens: longest main-thread task (all streams)", "—", None,
                Samples.single(max(longest)), "median", "no task over 50 ms",
                note=f"{over} task(s) over 50 ms in {runs} streams; longest per stream "
                     f"{[round(x) for x in longest]} ms")]
