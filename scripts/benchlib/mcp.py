"""Issue 21: one MCP tool call through the agent against the same call made directly from the page with the
SDK, and the main thread while a server with 500 tools connects.

Both calls go to the same Python tool server (`scripts/mcp/python_server.py`, its `add` tool). The agent's
call is timed at the fake model, as the `tools` rows are: from the end of the reply that calls
`bench__add` to the arrival of the request that carries its result (the runtime, the frames, the worker's
SDK client, the server, and back; no model time). The baseline is the SDK's client
(`scripts/benchlib/mcp_direct.mjs`, bundled with esbuild) evaluated in the booted app's page, calling
the same tool on the same server. The 500-tool row adds a server listing 500 tools in the Tool servers
panel with a `longtask` PerformanceObserver on the page from the click to the entry showing 500 tools.
"""

from __future__ import annotations

import subprocess
from typing import Any

from playwright.sync_api import Page

from scripts.mcp.launch import python_server
from scripts.mcp.python_server import base_tool_count

from .common import READY_WATCH, ROOT, Contexts, Row, Samples, boot_ready_ms, configure, percentile, seed_opfs
from .tools import TimedFakeLLM, tool_round_ms

DIRECT = ROOT / "scripts" / "benchlib" / "mcp_direct.mjs"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
CONNECT_TIMEOUT_MS = 60_000
MANY_TOOLS = 500
ADD_ARGS = {"a": 2, "b": 3}

# zod's schemas read its config as the SDK is loaded: jitless first (see mcp_direct.mjs), as in the app.
PRELUDE = "globalThis.__zod_globalConfig = { jitless: true };\n"
INSTALL = "\nglobalThis.TidepoolMcpBench = TidepoolMcpBench; 0;"

DIRECT_CALLS = """
async ([url, args, count]) => {
  await TidepoolMcpBench.connect(url);
  await TidepoolMcpBench.timeCalls("add", args, 3);  // warm-up, not counted
  return await TidepoolMcpBench.timeCalls("add", args, count);
}
"""

# Watch the page's main thread from now on; __longest() reports the longest task seen since.
WATCH_LONG_TASKS = """
() => {
  globalThis.__tasks = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) globalThis.__tasks.push(entry.duration);
  });
  observer.observe({ type: "longtask" });
  globalThis.__longest = () => { observer.disconnect(); return Math.max(0, ...globalThis.__tasks); };
}
"""


def bundle() -> str:
    cmd = [str(ESBUILD), str(DIRECT), "--bundle", "--format=iife", "--global-name=TidepoolMcpBench",
           "--target=es2022"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True).stdout


def open_app(contexts: Contexts, base: str, fake_base: str) -> tuple[Any, Page]:
    ctx = contexts()
    ctx.add_init_script(READY_WATCH)
    page = ctx.new_page()
    seed_opfs(page, base, {"files": {"files/notes.txt": "aGVsbG8gYmVuY2htYXJrCg=="}})
    boot_ready_ms(page, base)
    configure(page, fake_base)
    page.get_by_test_id("permission-mode").select_option("full-auto")
    return ctx, page


def add_server(page: Page, name: str, url: str, tools: int) -> None:
    """Add `name` in the Tool servers panel and wait until its entry is connected with `tools` tools."""
    if not page.get_by_test_id("tool-server-add").is_visible():
        page.get_by_test_id("tool-servers-open").click()
    page.get_by_test_id("tool-server-name").fill(name)
    page.get_by_test_id("tool-server-url").fill(url)
    page.get_by_test_id("tool-server-add").click()
    page.wait_for_selector(f'[data-testid="tool-server-entry"][data-name="{name}"][data-state="connected"]'
                           f'[data-tools="{tools}"]', state="attached", timeout=CONNECT_TIMEOUT_MS)


def remove_server(page: Page, name: str) -> None:
    entry = page.locator(f'[data-testid="tool-server-entry"][data-name="{name}"]')
    entry.get_by_test_id("tool-server-remove").click()
    entry.wait_for(state="detached", timeout=CONNECT_TIMEOUT_MS)


def agent_and_direct(page: Page, fake: TimedFakeLLM, url: str, calls: int) -> tuple[list[float], ...]:
    """The agent's rounds calling the server's tool, the same page's direct SDK calls, and built-in rounds."""
    add_server(page, "bench", url, base_tool_count())
    page.keyboard.press("Escape")
    tool_round_ms(page, fake, "bench__add", ADD_ARGS)  # warm-up, not counted
    agent, builtin = [], []
    for _ in range(calls):  # interleaved, so that the machine's load falls on both alike
        agent.append(tool_round_ms(page, fake, "bench__add", ADD_ARGS))
        builtin.append(tool_round_ms(page, fake, "read_file", {"path": "notes.txt"}))
    page.evaluate(PRELUDE + bundle() + INSTALL)
    direct = [float(ms) for ms in page.evaluate(DIRECT_CALLS, [url, ADD_ARGS, calls * 3])]
    return agent, direct, builtin


def longest_task_connecting(page: Page, url: str, runs: int) -> list[float]:
    longest = []
    for _ in range(runs):
        page.evaluate(WATCH_LONG_TASKS)
        add_server(page, "many", url, MANY_TOOLS)
        page.wait_for_timeout(300)  # the registry's answer and the panel's last render land in the window
        longest.append(float(page.evaluate("() => globalThis.__longest()")))
        remove_server(page, "many")
    return longest


def measure_mcp(contexts: Contexts, base: str, fake: TimedFakeLLM, fake_base: str, runs: int) -> list[Row]:
    calls = max(5, runs * 5)
    with python_server([base]) as small, python_server([base], extra_tools=MANY_TOOLS - base_tool_count()) as many:
        ctx, page = open_app(contexts, base, fake_base)
        try:
            agent, direct, builtin = agent_and_direct(page, fake, small, calls)
            longest = longest_task_connecting(page, many, runs)
        finally:
            ctx.close()
    base_samples, agent_samples = Samples(direct), Samples(agent)
    p95 = f"p95 {percentile(agent, 0.95):.0f} ms vs {percentile(direct, 0.95):.1f} ms direct"
    over = [v for v in longest if v > 0]  # a longtask entry is a task of 50 ms or more
    tasks = ", ".join(f"{v:.0f} ms" for v in over) if over else "none"
    return [Row("one MCP tool call through the agent (`add`, Python server), excluding model time",
                "the same call from the page with the SDK", base_samples, agent_samples, "median", "≤ 1.2 ×",
                note=f"end of reply 1 → request 2, at the fake; {p95}; a built-in `read_file` round in the same "
                f"page: {Samples(builtin).stat('median'):.0f} ms median"),
            Row(f"UI while a server with {MANY_TOOLS} tools connects", "—", None, Samples(longest), "median",
                "no task over 50 ms",
                note=f"{runs} connects (add → `connected`, 500 tools); tasks over 50 ms: {tasks}")]
