/**
 * The connection doctor's MCP checks against the real hostile server (scripts/mcp/hostile_server.py)
 * on 127.0.0.1. Node's fetch applies no CORS, so the stand-in below does what a browser does with a
 * cross-origin request: the real preflight (OPTIONS) first where one is due, then the real request,
 * refused when the server's CORS headers do not allow it. The e2e test covers the rest in Chromium.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileServer, type HostileServer } from "./support/hostile-server";
import { checkServer } from "../src/mcp/doctor";

const PAGE = "http://127.0.0.1:8000";
const SAFE = new Set(["accept", "accept-language", "content-language"]);
let server: HostileServer;
let base = "";

beforeAll(async () => {
  server = await startHostileServer();
  base = server.base;
}, 30_000);

afterAll(() => {
  server.stop();
});

/** A browser's CORS rules over the real network (enough of them for the doctor's requests). */
const browserFetch: typeof fetch = async (input, init = {}) => {
  const url = String(input instanceof Request ? input.url : input);
  if (init.mode === "no-cors") return await fetch(url, { method: "GET", signal: init.signal });
  const headers = new Headers(init.headers);
  const method = init.method ?? "GET";
  const custom = [...headers.keys()].filter(
    (h) => !SAFE.has(h) && !(h === "content-type" && headers.get(h) === "text/plain"),
  );
  if (custom.length || !["GET", "HEAD", "POST"].includes(method)) {
    const preflight = await fetch(url, {
      method: "OPTIONS",
      headers: {
        Origin: PAGE,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": custom.join(","),
      },
    });
    const allowed = (preflight.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase().split(/\s*,\s*/);
    if (
      !preflight.ok ||
      !preflight.headers.get("Access-Control-Allow-Origin") ||
      custom.some((h) => !allowed.includes(h) && !allowed.includes("*"))
    ) {
      throw new TypeError("Failed to fetch");
    }
  }
  headers.set("Origin", PAGE);
  const response = await fetch(url, { ...init, headers, mode: undefined, redirect: "manual" });
  if (!response.headers.get("Access-Control-Allow-Origin")) throw new TypeError("Failed to fetch");
  const exposed = (response.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase().split(/\s*,\s*/);
  const visible = new Headers([...response.headers].filter(([h]) => h === "content-type" || exposed.includes(h)));
  return new Response(response.body, { status: response.status, headers: visible });
};

const doctor = (path: string) =>
  checkServer({ name: path, url: `${base}/${path}/mcp`, pageOrigin: PAGE, fetch: browserFetch });
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
      fetch: browserFetch,
    });
    expect(results.map((r) => [r.check, r.state])).toEqual([["mcp-reachable", "fail"]]);
  });
});
