/**
 * The connection doctor's MCP checks against the real hostile server (scripts/mcp/hostile_server.py)
 * on 127.0.0.1. Node's fetch applies no CORS, so a stand-in (support/browser-fetch.ts) does what a
 * browser does with a cross-origin request. The e2e test covers the rest in Chromium.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserFetch } from "./support/browser-fetch";
import { startHostileServer, type HostileServer } from "./support/hostile-server";
import { checkServer } from "../src/mcp/doctor";

const PAGE = "http://127.0.0.1:8000";
let server: HostileServer;
let base = "";

beforeAll(async () => {
  server = await startHostileServer();
  base = server.base;
}, 30_000);

afterAll(() => {
  server.stop();
});

const pageFetch = browserFetch(PAGE);

const doctor = (path: string) =>
  checkServer({ name: path, url: `${base}/${path}/mcp`, pageOrigin: PAGE, fetch: pageFetch });
const byCheck = (results: Awaited<ReturnType<typeof checkServer>>) => new Map(results.map((r) => [r.check, r]));

describe("the doctor's MCP checks", () => {
  it("pass a well-behaved server and say its revision and tool count", async () => {
    const checks = byCheck(await doctor("ok"));
    expect([...checks.values()].map((c) => c.state)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(checks.get("mcp-protocol")?.text).toMatch(/revision 2025-06-18, sessionful/);
    expect(checks.get("mcp-tools")?.text).toMatch(/: 1 tool\.$/);
    expect(checks.get("mcp-tools")?.server).toBe("ok");
  });

  it("name the request header the preflight does not allow", async () => {
    const cors = byCheck(await doctor("no-version")).get("mcp-cors");
    expect(cors?.state).toBe("fail");
    expect(cors?.text).toMatch(/mcp-protocol-version is not allowed \(Access-Control-Allow-Headers\)/);
    expect(cors?.text).toContain(`for the origin ${PAGE}`);
  });

  it("say that OPTIONS must be answered without sign-in", async () => {
    const cors = byCheck(await doctor("options-401")).get("mcp-cors");
    expect(cors?.state).toBe("fail");
    expect(cors?.text).toMatch(/preflight \(OPTIONS\) was refused.*401/);
  });

  it("catch a hidden Mcp-Session-Id", async () => {
    const checks = byCheck(await doctor("no-expose"));
    expect(checks.get("mcp-cors")?.state).toBe("ok");
    expect(checks.get("mcp-tools")?.state).toBe("fail");
    expect(checks.get("mcp-tools")?.text).toMatch(/add Mcp-Session-Id to Access-Control-Expose-Headers/);
  });

  it("say when nothing answers, within the deadline", async () => {
    const results = await checkServer({
      name: "gone",
      url: "http://127.0.0.1:1/mcp",
      pageOrigin: PAGE,
      fetch: pageFetch,
    });
    expect(results.map((r) => [r.check, r.state])).toEqual([["mcp-reachable", "fail"]]);
  });
});
