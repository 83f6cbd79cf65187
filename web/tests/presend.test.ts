/**
 * The request that leaves at Send (web/src/worker/presend.ts), through the adapter against a real HTTP
 * server on 127.0.0.1: an offered request goes out at Send with the text escaped as Python escapes it and
 * the key added, before the message reaches the runtime, which learns of it in `presend`; a message that
 * is not plain, an offer out of date or already used, sends nothing early.
 */

import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { WireMessage } from "../src/protocol/codec";
import { escapeJsonText } from "../src/worker/presend";
import { AdapterHarness } from "./support/adapter-harness";

const KEY = "sk-or-v1-presend-key";
const received: { body: string; auth: string | undefined }[] = [];
let server: Server;
let base = "";

function handle(req: IncomingMessage, res: ServerResponse): void {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    received.push({ body, auth: req.headers.authorization });
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.end('data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n');
  });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const BEFORE = '{"model": "m", "messages": [{"role": "user", "content": "';
const AFTER = '"}], "stream": true}';

class Harness extends AdapterHarness {
  handshake(): void {
    this.adapter.start();
    this.adapter.onMain({
      type: "configure",
      settings: { provider: { kind: "openrouter", base_url: base }, model: "m", permission_mode: "ask" },
      key: KEY,
    });
    this.fromRuntime({ type: "hello", protocol: 1, capabilities: [], agent: "test" });
    this.fromRuntime({ type: "event", event: { kind: "ready", models_known: false, tools: [] } });
  }

  /** The runtime offers a request, having read `heard` of the frames sent to it (by default all of them). */
  offer(id = "r7", room = 100, heard = this.toRuntime.length): void {
    this.fromRuntime({
      type: "http_offer",
      offer: {
        id,
        method: "POST",
        url: `${base}/chat/completions`,
        headers: { "Content-Type": "application/json" },
        auth: "provider",
        timeout_s: 5,
        before: BEFORE,
        after: AFTER,
        room,
        heard,
      },
    });
  }

  send(text: string, extra: Record<string, unknown> = {}): WireMessage {
    this.adapter.onMain({ type: "user_message", text, turnId: `t${this.toRuntime.length}`, ...extra });
    return this.sent("user_message").at(-1) as WireMessage;
  }
}

let h: Harness;
beforeEach(() => {
  received.length = 0;
  h = new Harness();
  h.handshake();
});

/** Long enough for a request started at Send to reach the server. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 100));

describe("the offered request at Send", () => {
  it("leaves with the text put in and the key added, and the message names it", async () => {
    expect(h.sent("hello")[0]?.capabilities).toContain("presend");
    h.offer();
    const text = 'Ünïcödé "q" \\ 😀\n';
    const message = h.send(text);
    expect(message.presend).toEqual({ id: "r7", text: escapeJsonText(text) });
    await h.until(() => h.sent("http_end", "r7").length === 1);
    expect(received).toEqual([{ body: BEFORE + escapeJsonText(text) + AFTER, auth: `Bearer ${KEY}` }]);
    const sent = JSON.parse(received[0]!.body) as { messages: { content: string }[] };
    expect(sent.messages[0]?.content).toBe(text); // still the person's text
    expect(h.sent("http_head", "r7")[0]).toMatchObject({ status: 200 });
    // Used once: the next message goes without it.
    expect(h.send("again").presend).toBeUndefined();
  });

  it.each([
    ["an edit", "Hello", { replacesTurn: "t1" }],
    ["a message with a tool server's prompt", "Hello", { prompt: { server: "s", name: "p" } }],
    ["a /skill turn", "/pdf read it", {}],
    ["a text longer than the room", "x".repeat(101), {}],
    ["a text whose escaped form is longer than the room", "é".repeat(30), {}],
  ])("does not leave for %s", async (_name, text, extra) => {
    h.offer();
    expect(h.send(text, extra).presend).toBeUndefined();
    await settle();
    expect(received).toEqual([]);
  });

  it.each([
    [
      "an event from the runtime",
      (x: Harness) => x.fromRuntime({ type: "event", event: { kind: "notice", code: "c", text: "t" } }),
    ],
    [
      "a save the runtime asks for",
      (x: Harness) => x.fromRuntime({ type: "flush_request", id: "r9", what: "state", paths: [] }),
    ],
    ["any other message from the page", (x: Harness) => x.adapter.onMain({ type: "abort_turn" })],
    ["a write from the files panel", (x: Harness) => x.adapter.presend.drop()],
    ["the runtime withdrawing it", (x: Harness) => x.fromRuntime({ type: "http_offer", offer: null })],
  ])("is dropped after %s", async (_name, happen) => {
    h.offer();
    happen(h);
    expect(h.send("Hello").presend).toBeUndefined();
    await settle();
    expect(received).toEqual([]);
  });

  it("is not used when it crossed a message on its way (the runtime had not read all that was sent)", async () => {
    const sentBefore = h.toRuntime.length;
    h.adapter.onMain({ type: "abort_turn" }); // a message the runtime had not read when it offered
    h.offer("r7", 100, sentBefore);
    expect(h.send("Hello").presend).toBeUndefined();
    h.offer("r8"); // offered again once it read it
    expect(h.send("Hello").presend).toEqual({ id: "r8", text: "Hello" });
    await h.until(() => h.sent("http_end", "r8").length === 1);
    expect(received).toHaveLength(1);
  });

  it("stays through the runtime's log lines and answers", () => {
    h.offer();
    h.fromRuntime({ type: "log", level: "info", logger: "x", message: "hi" });
    expect(h.send("Hello").presend).toEqual({ id: "r7", text: "Hello" });
  });
});

describe("escapeJsonText", () => {
  it("writes what Python's json.dumps writes (the cases the runtime's tests check against json.dumps)", () => {
    const url = new URL("../../tests/fixtures/json-escape.json", import.meta.url);
    const cases = JSON.parse(readFileSync(url, "utf8")) as { text: string; escaped: string }[];
    expect(cases.length).toBeGreaterThanOrEqual(10);
    for (const c of cases) expect(escapeJsonText(c.text), JSON.stringify(c.text)).toBe(c.escaped);
  });
});
