/**
 * Bad input from tool servers, against a real hostile server (scripts/mcp/hostile_server.py, spoken by
 * hand on 127.0.0.1) and the worker's own MCP host: each case ends in a clear message within bounded
 * time, and a well-behaved server beside it keeps working.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileServer, type HostileServer } from "./support/hostile-server";
import { McpHost } from "../src/mcp/host";
import type { HostMessage } from "../src/protocol/messages";
import type { ToolServerStatus } from "../src/protocol/tool-servers";

type McpResult = Extract<HostMessage, { type: "mcp_result" }>;

let server: HostileServer;
let base = "";

beforeAll(async () => {
  server = await startHostileServer();
  base = server.base;
}, 30_000);

afterAll(() => {
  server.stop();
});

/** The worker's MCP host with a runtime that takes every tool, and what it told the page. */
function host(): { host: McpHost; statuses: ToolServerStatus[]; results: McpResult[] } {
  const statuses: ToolServerStatus[] = [];
  const results: McpResult[] = [];
  const mcp: McpHost = new McpHost({
    appOrigin: "http://127.0.0.1:8000",
    status: (s) => statuses.push({ ...s }),
    send: (message) => {
      if (message.type === "mcp_tools") {
        const accepted = message.tools.map((t) => `${message.server}__${t.name}`);
        queueMicrotask(() =>
          mcp.onReply({ type: "reply", id: message.id, ok: true, result: { accepted, refused: [] } }),
        );
      }
      if (message.type === "mcp_result") results.push(message);
      return null;
    },
  });
  mcp.runtimeReady();
  return { host: mcp, statuses, results };
}

async function settled(statuses: ToolServerStatus[], name: string, timeoutMs = 40_000): Promise<ToolServerStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = statuses.filter((s) => s.name === name).at(-1);
    if (last && last.state !== "connecting" && (last.state !== "connected" || last.tools.length > 0)) return last;
    if (Date.now() > deadline) throw new Error(`${name} did not settle: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const CALLBACK = "http://127.0.0.1:9/"; // no server here signs in

describe("a hostile tool server", () => {
  it("gets a clear message for each kind of bad answer, and the good server beside it works", async () => {
    const { host: mcp, statuses } = host();
    const cases = ["ok", "malformed", "huge-list", "redirect", "endless-sse"];
    const started = Date.now();
    mcp.setServers(
      cases.map((c) => ({ name: c, url: `${base}/${c}/mcp` })),
      CALLBACK,
    );
    const [ok, malformed, huge, redirect, endless] = await Promise.all(cases.map((c) => settled(statuses, c)));
    expect(ok?.state).toBe("connected");
    expect(ok?.tools).toEqual(["ok__echo"]);
    expect(malformed?.state).toBe("error");
    expect(malformed?.message).toMatch(/malformed JSON-RPC/);
    expect(huge?.state).toBe("error");
    expect(huge?.message).toMatch(/more than 8 MB in one answer/);
    expect(redirect?.state).toBe("error");
    expect(redirect?.message).toMatch(/redirect; redirects are not followed/);
    expect(endless?.state).toBe("error");
    expect(endless?.message).toMatch(/did not answer within 15 s/);
    expect(Date.now() - started).toBeLessThan(25_000); // bounded by the connect deadline, not the stream
    mcp.setServers([], CALLBACK);
  }, 60_000);

  it("cuts a 50 MB result with a message, and the server stays connected", async () => {
    const { host: mcp, statuses, results } = host();
    mcp.setServers([{ name: "big", url: `${base}/big-result/mcp` }], CALLBACK);
    expect((await settled(statuses, "big")).state).toBe("connected");
    const started = Date.now();
    await mcp.call({ type: "mcp_call", id: "c1", server: "big", tool: "echo", arguments: {}, timeout_s: 30 });
    expect(results[0]?.ok).toBe(false);
    expect(results[0]?.error).toMatch(/more than 8 MB in one answer/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(statuses.at(-1)?.state).toBe("connected");
    await mcp.call({ type: "mcp_call", id: "c2", server: "big", tool: "echo", arguments: {}, timeout_s: 30 });
    expect(results[1]?.error).toMatch(/more than 8 MB/); // the same clear message again: the session still works
    mcp.setServers([], CALLBACK);
  }, 60_000);
});
