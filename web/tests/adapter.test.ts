/**
 * The adapter against a real HTTP server on 127.0.0.1: handshake, config, HTTP through the egress
 * rule (the key only where it belongs), streaming, cancel, timeout, model list, and the key never
 * appearing in a frame or a message to the main thread.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { WireMessage } from "../src/protocol/codec";
import { AdapterHarness } from "./support/adapter-harness";

const KEY = "sk-or-v1-very-secret-key";
const seen: { url: string; auth: string | undefined }[] = [];
let server: Server;
let base = "";

function handle(req: IncomingMessage, res: ServerResponse): void {
  seen.push({ url: req.url ?? "", auth: req.headers.authorization });
  if (req.url === "/api/v1/models") {
    res.writeHead(200, { "Content-Type": "application/json", "X-Extra": "1" });
    res.end(JSON.stringify({ data: [] }));
  } else if (req.url === "/api/v1/stream") {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    let n = 0;
    const timer = setInterval(() => {
      res.write(`data: ${n}\n\n`);
      if (++n === 3) {
        clearInterval(timer);
        res.end();
      }
    }, 20);
  } else if (req.url === "/api/v1/hang" || req.url === "/api/v1/trickle") {
    res.writeHead(200, { "Content-Type": "text/plain" });
    if (req.url === "/api/v1/trickle") res.write("first");
    req.on("close", () => res.end());
  } else {
    res.writeHead(404);
    res.end("no");
  }
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

class Harness extends AdapterHarness {
  handshake(): void {
    this.adapter.start();
    this.adapter.onMain({
      type: "configure",
      settings: { provider: { kind: "openrouter", base_url: `${base}/api/v1` }, model: "m", permission_mode: "ask" },
      key: KEY,
    });
    this.fromRuntime({ type: "hello", protocol: 1, capabilities: [], agent: "test" });
    this.fromRuntime({ type: "event", event: { kind: "ready", models_known: false, tools: [] } });
  }

  request(id: string, path: string, extra: Partial<WireMessage> = {}): void {
    this.fromRuntime({
      type: "http_request",
      id,
      method: "GET",
      url: path.startsWith("http") ? path : `${base}${path}`,
      headers: {},
      body: null,
      stream: true,
      auth: "provider",
      timeout_s: 5,
      ...extra,
    });
  }

  body(id: string): string {
    return this.sent("http_chunk", id)
      .map((m) => Buffer.from(String(m.data), "base64").toString())
      .join("");
  }
}

let h: Harness;
beforeEach(() => {
  seen.length = 0;
  h = new Harness();
  h.handshake();
});

describe("handshake and config", () => {
  it("sends hello first, then config with has_key and without the key", () => {
    expect(h.toRuntime[0]).toMatchObject({ type: "hello", protocol: 1 });
    const config = h.sent("config");
    expect(config).toHaveLength(1);
    expect(config[0]).toMatchObject({
      provider: { kind: "openrouter", base_url: `${base}/api/v1`, has_key: true },
      model: "m",
      permission_mode: "ask",
      page_origin: "http://127.0.0.1:1",
    });
    // `ready` reaches the page once: as the runtime's event, not also as a frame of the worker's own.
    expect(h.toMain.filter((m) => m.type === "event" && m.event.kind === "ready")).toHaveLength(1);
    expect(h.toMain.filter((m) => JSON.stringify(m).includes('"ready"'))).toHaveLength(1);
  });

  it("answers a protocol mismatch with an error and fails the handshake", async () => {
    const other = new Harness();
    other.adapter.start();
    const ready = other.adapter.whenReady(2000);
    other.fromRuntime({ type: "hello", protocol: 2, capabilities: [] });
    await expect(ready).rejects.toThrow(/protocol 2/);
    expect(other.sent("error")[0]).toMatchObject({ code: "protocol_mismatch" });
  });

  it("skips unknown types and reports strays as logs", () => {
    h.adapter.onRuntimeBytes(new TextEncoder().encode("a stray print\n"));
    h.fromRuntime({ type: "from_the_future", x: 1 });
    const logs = h.toMain.filter((m) => m.type === "log");
    expect(logs.some((m) => m.type === "log" && m.source === "stdout" && m.message.includes("a stray print"))).toBe(
      true,
    );
    expect(logs.some((m) => m.type === "log" && m.message.includes("from_the_future"))).toBe(true);
  });
});

describe("http", () => {
  it("adds the key for the provider and streams head, chunks, end", async () => {
    h.request("r1", "/api/v1/stream");
    await h.until(() => h.sent("http_end", "r1").length === 1);
    expect(h.sent("http_head", "r1")[0]).toMatchObject({ status: 200 });
    expect(h.body("r1")).toBe("data: 0\n\ndata: 1\n\ndata: 2\n\n");
    expect(seen).toEqual([{ url: "/api/v1/stream", auth: `Bearer ${KEY}` }]);
  });

  it("does not add the key when the runtime did not ask for it", async () => {
    h.request("r1", "/api/v1/models", { auth: "none", headers: { Authorization: "Bearer forged" } });
    await h.until(() => h.sent("http_end", "r1").length === 1);
    expect(seen).toEqual([{ url: "/api/v1/models", auth: undefined }]);
    expect(h.sent("http_head", "r1")[0]).toMatchObject({ headers: { "content-type": "application/json" } });
  });

  it.each([
    ["outside the base path", "/other"],
    ["another host", "http://example.invalid/api/v1/models"],
    ["a lookalike prefix", "http://127.0.0.1.evil.invalid/api/v1/models"],
  ])("refuses %s without sending anything", async (_name, url) => {
    h.request("r1", url);
    await h.until(() => h.sent("http_error", "r1").length === 1);
    expect(h.sent("http_error", "r1")[0]).toMatchObject({ kind: "refused" });
    expect(seen).toEqual([]);
  });

  it("cancels on request", async () => {
    h.request("r1", "/api/v1/trickle");
    await h.until(() => h.sent("http_chunk", "r1").length === 1);
    h.fromRuntime({ type: "cancel", id: "r1" });
    await h.until(() => h.sent("http_error", "r1").length === 1);
    expect(h.sent("http_error", "r1")[0]).toMatchObject({ kind: "aborted" });
  });

  it("times out when the server goes quiet", async () => {
    h.request("r1", "/api/v1/hang", { timeout_s: 0.2 });
    await h.until(() => h.sent("http_error", "r1").length === 1);
    expect(h.sent("http_error", "r1")[0]).toMatchObject({ kind: "timeout" });
    expect(h.toMain.some((m) => m.type === "http_failure" && m.kind === "timeout")).toBe(true);
  });

  it("reports a provider where nothing listens as unreachable (the no-cors probe fails too), not as CORS", async () => {
    const dead = new Harness();
    dead.adapter.start();
    dead.adapter.onMain({
      type: "configure",
      settings: { provider: { kind: "ollama", base_url: "http://127.0.0.1:9" }, model: null, permission_mode: "ask" },
      key: null,
    });
    dead.fromRuntime({ type: "hello", protocol: 1 });
    dead.request("r1", "http://127.0.0.1:9/api/tags");
    await dead.until(() => dead.sent("http_error", "r1").length === 1);
    const failure = dead.sent("http_error", "r1")[0];
    expect(failure).toMatchObject({ kind: "unreachable" });
    expect(String(failure?.message)).toContain("nothing answers at http://127.0.0.1:9");
    expect(String(failure?.message)).not.toContain("CORS");
    expect(dead.sent("config")[0]).toMatchObject({ provider: { has_key: false } });
  });
});

describe("requests from the UI", () => {
  it("turns a UI request into a request frame and its reply back", () => {
    h.adapter.onMain({ type: "request", requestId: "q1", method: "list_models", params: {} });
    const [request] = h.sent("request");
    expect(request).toMatchObject({ method: "list_models", params: {} });
    const result = { models: [{ id: "a/b", name: "A B", context_length: 1000, tools: true }] };
    h.fromRuntime({ type: "reply", id: String(request?.id), ok: true, result });
    expect(h.toMain.find((m) => m.type === "reply")).toEqual({
      type: "reply",
      requestId: "q1",
      result: { ok: true, value: result },
    });
  });

  it("passes the runtime's error code and text through", () => {
    h.adapter.onMain({ type: "request", requestId: "q2", method: "list_models", params: {} });
    const [request] = h.sent("request");
    h.fromRuntime({ type: "reply", id: String(request?.id), ok: false, error: { code: "auth", message: "bad key" } });
    expect(h.toMain.find((m) => m.type === "reply")).toMatchObject({
      result: { ok: false, code: "auth", message: "bad key" },
    });
  });

  it("forwards UI events and approvals", () => {
    const event = {
      kind: "approval_needed",
      turn_id: "t1",
      call_id: "c1",
      name: "write_file",
      arguments: { path: "a" },
      effect: "write",
    };
    h.fromRuntime({ type: "event", event });
    expect(h.toMain).toContainEqual({ type: "event", event });
    h.adapter.onMain({ type: "approval", callId: "c1", decision: "allow_session" });
    expect(h.sent("approval")).toEqual([{ type: "approval", call_id: "c1", decision: "allow_session" }]);
  });
});

describe("code execution", () => {
  it("answers exec_request with a clear failure when no sandbox is wired", async () => {
    h.fromRuntime({ type: "exec_request", id: "r9", code: "print(1)", timeout_s: 5, files: {} });
    await h.until(() => h.sent("exec_result", "r9").length === 1);
    expect(h.sent("exec_result", "r9")[0]).toMatchObject({
      ok: false,
      error: { kind: "sandbox", message: expect.stringMatching(/not available/) },
    });
  });

  it("hands exec_request to the sandbox and frames its result", async () => {
    const codes: string[] = [];
    const withSandbox = new Harness({
      exec: async (req) => {
        codes.push(req.code);
        return { ok: true, stdout: "1\n", stderr: "", files: {}, error: null };
      },
    });
    withSandbox.adapter.start();
    withSandbox.fromRuntime({ type: "hello", protocol: 1 });
    withSandbox.fromRuntime({ type: "exec_request", id: "r1", code: "print(1)", timeout_s: 5, files: {} });
    await withSandbox.until(() => withSandbox.sent("exec_result", "r1").length === 1);
    expect(codes).toEqual(["print(1)"]);
    expect(withSandbox.sent("exec_result", "r1")[0]).toEqual({
      type: "exec_result",
      id: "r1",
      ok: true,
      stdout: "1\n",
      stderr: "",
      files: {},
      error: null,
    });
  });
});

describe("flushes", () => {
  it("declares flush only with storage, and answers each flush_request", async () => {
    const saved: string[] = [];
    const withStorage = new Harness();
    withStorage.adapter.enableFlush(async (req) => {
      saved.push(`${req.what}:${String(req.paths)}`);
      return req.what === "state" ? { ok: true } : { ok: false, code: "quota_exceeded", message: "full" };
    });
    withStorage.adapter.start();
    expect(withStorage.toRuntime[0]).toMatchObject({ type: "hello", capabilities: expect.arrayContaining(["flush"]) });
    expect(h.toRuntime[0]).toMatchObject({ capabilities: expect.not.arrayContaining(["flush"]) });
    withStorage.fromRuntime({ type: "hello", protocol: 1 });
    withStorage.fromRuntime({
      type: "flush_request",
      id: "r1",
      what: "state",
      paths: ["current.sqlite"],
      rotate: true,
    });
    withStorage.fromRuntime({ type: "flush_request", id: "r2", what: "workspace", paths: ["a.md"] });
    await withStorage.until(() => withStorage.sent("reply").length === 2);
    expect(saved).toEqual(["state:current.sqlite", "workspace:a.md"]);
    expect(withStorage.sent("reply", "r1")).toEqual([{ type: "reply", id: "r1", ok: true, result: {} }]);
    expect(withStorage.sent("reply", "r2")[0]).toMatchObject({ ok: false, error: { code: "quota_exceeded" } });
  });

  it("does not answer flushes without storage (the runtime does not wait)", async () => {
    h.fromRuntime({ type: "flush_request", id: "r1", what: "state", paths: ["current.sqlite"] });
    // A later request the adapter refuses at once: when its answer is out, the flush has been handled.
    h.request("r2", "http://example.invalid/x");
    await h.until(() => h.toRuntime.some((m) => m.id === "r2"));
    expect(h.sent("reply")).toEqual([]);
  });
});

describe("the key", () => {
  it("never appears in a frame or a message to the main thread", async () => {
    h.request("r1", "/api/v1/stream");
    h.request("r2", "http://example.invalid/x");
    await h.until(() => h.sent("http_end", "r1").length === 1 && h.sent("http_error", "r2").length === 1);
    const frames = Buffer.concat(h.rawBytes.map((b) => Buffer.from(b))).toString("latin1");
    expect(frames).not.toContain(KEY);
    expect(JSON.stringify(h.toMain)).not.toContain(KEY);
  });
});
