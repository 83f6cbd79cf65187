/**
 * The two MCP revisions against the real Python server on the official SDK (scripts/mcp/python_server.py):
 * the worker's MCP host negotiates 2026-07-28 when the server offers it and the 2025 handshake when it
 * refuses it (`--legacy-only`), says which in the status, and follows a tool list that changes while
 * connected (the server's `grow` tool adds one): on the listen stream in 2026-07-28, on the call's
 * answer stream in 2025. The doctor says the revision, and names a 2026 header the server's CORS refuses.
 */

import { afterAll, describe, expect, it, vi } from "vitest";
import { browserFetch } from "./support/browser-fetch";
import { startPythonServer, type PythonServer } from "./support/python-server";
import { checkServer } from "../src/mcp/doctor";
import { McpHost } from "../src/mcp/host";
import type { ToolServerStatus } from "../src/protocol/tool-servers";

const PAGE = "http://127.0.0.1:8000";
const CALLBACK = "http://127.0.0.1:9/"; // no server here signs in
const started: PythonServer[] = [];

afterAll(() => {
  for (const server of started) server.stop();
});

async function python(...args: string[]): Promise<string> {
  const server = await startPythonServer(["--cors-origin", PAGE, ...args]);
  started.push(server);
  return server.url;
}

/** The worker's MCP host with a runtime that takes every tool, and what it told the page. */
function host(): { host: McpHost; statuses: ToolServerStatus[] } {
  const statuses: ToolServerStatus[] = [];
  const mcp: McpHost = new McpHost({
    appOrigin: PAGE,
    status: (s) => statuses.push({ ...s }),
    send: (message) => {
      if (message.type === "mcp_tools") {
        const accepted = message.tools.map((t) => `${message.server}__${t.name}`);
        queueMicrotask(() =>
          mcp.onReply({ type: "reply", id: message.id, ok: true, result: { accepted, refused: [] } }),
        );
      }
      return null;
    },
  });
  mcp.runtimeReady();
  return { host: mcp, statuses };
}

async function until(statuses: ToolServerStatus[], ok: (s: ToolServerStatus) => boolean): Promise<ToolServerStatus> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const last = statuses.at(-1);
    if (last && ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const doctor = async (url: string) =>
  new Map(
    (await checkServer({ name: "py", url, pageOrigin: PAGE, fetch: browserFetch(PAGE) })).map((r) => [r.check, r]),
  );

async function grows(url: string, revision: RegExp): Promise<void> {
  const { host: mcp, statuses } = host();
  mcp.setServers([{ name: "py", url }], CALLBACK);
  const connected = await until(statuses, (s) => s.state === "connected" && s.tools.length > 0);
  expect(connected.protocol).toMatch(revision);
  expect(connected.tools).toHaveLength(4);
  expect(connected.tools).not.toContain("py__grown_1");
  await mcp.call({ type: "mcp_call", id: "c1", server: "py", tool: "grow", arguments: {}, timeout_s: 30 });
  const grown = await until(statuses, (s) => s.tools.includes("py__grown_1"));
  expect(grown.state).toBe("connected");
  expect(grown.tools).toHaveLength(5);
  mcp.setServers([], CALLBACK);
}

describe("the 2026-07-28 revision and the 2025 one", () => {
  it("speaks 2026-07-28 to a server that offers it, and follows its listen stream", async () => {
    const url = await python();
    const checks = await doctor(url);
    expect([...checks.values()].map((c) => c.state)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(checks.get("mcp-protocol")?.text).toMatch(/revision 2026-07-28, stateless/);
    expect(checks.get("mcp-tools")?.text).toMatch(/: 4 tools\.$/);
    await grows(url, /^2026-07-28$/);
  }, 60_000);

  it("falls back to the 2025 handshake when the server refuses 2026-07-28, and follows list_changed", async () => {
    const url = await python("--legacy-only");
    const checks = await doctor(url);
    expect([...checks.values()].map((c) => c.state)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(checks.get("mcp-protocol")?.text).toMatch(/revision 2025-\d\d-\d\d, stateless/);
    await grows(url, /^2025-\d\d-\d\d$/);
  }, 60_000);

  it("names the 2026 request header a server's CORS refuses", async () => {
    const url = await python("--cors-allow-headers", "Content-Type,Authorization,Mcp-Session-Id,mcp-protocol-version");
    const checks = await doctor(url);
    const cors = checks.get("mcp-cors");
    expect(cors?.state).toBe("warn");
    expect(cors?.text).toMatch(/request header Mcp-Method is not allowed/);
    expect(cors?.text).toContain("add Mcp-Method and Mcp-Name to Access-Control-Allow-Headers");
    expect(cors?.text).toContain(`for the origin ${PAGE}`);
    expect(checks.get("mcp-protocol")?.text).toMatch(/revision 2025-/); // what the browser lets the app speak
    expect(checks.get("mcp-tools")?.state).toBe("ok");
    // The worker's client under the same CORS rules: the probe is refused, the 2025 handshake connects.
    vi.stubGlobal("fetch", browserFetch(PAGE, globalThis.fetch));
    try {
      const { host: mcp, statuses } = host();
      mcp.setServers([{ name: "py", url }], CALLBACK);
      const connected = await until(statuses, (s) => s.state !== "connecting");
      expect(connected.state).toBe("connected");
      expect(connected.protocol).toMatch(/^2025-/);
      mcp.setServers([], CALLBACK);
    } finally {
      vi.unstubAllGlobals();
    }
  }, 60_000);
});
