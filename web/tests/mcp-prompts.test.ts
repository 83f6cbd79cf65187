/**
 * A tool server's prompts: the composer menu's filtering and keys (pure), a `prompts/get` answer as one
 * user turn (text in order, assistant-role labelled, resources inlined or named, images attached, bad
 * answers refused), and the worker's host against the real server-everything: prompts listed with their
 * arguments, got with arguments, refused before the server when a required one is missing.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GetPromptResult } from "@modelcontextprotocol/client";
import { McpHost } from "../src/mcp/host";
import { promptInfos, promptTurn, MAX_PROMPTS } from "../src/mcp/prompts";
import type { SlashCommand } from "../src/mcp/prompt-list";
import { matchCommands, moveIndex } from "../src/ui/chat/slash-menu";
import type { McpPromptInfo, McpPromptTurn, ToolServerStatus } from "../src/protocol/tool-servers";
import { startEverything, type EverythingServer } from "./support/everything-server";

const info = (name: string, title = ""): McpPromptInfo => ({ name, title, description: "", arguments: [] });
const commands: SlashCommand[] = [
  { command: "/everything:simple-prompt", server: "everything", prompt: info("simple-prompt", "Simple Prompt") },
  { command: "/everything:args-prompt", server: "everything", prompt: info("args-prompt", "Arguments Prompt") },
  { command: "/docs:review", server: "docs", prompt: info("review", "Review a diff") },
];
const names = (typed: string): string[] | null => matchCommands(commands, typed)?.map((c) => c.command) ?? null;

describe("the / menu", () => {
  it("opens only for a / at the start, before any space", () => {
    expect(names("hello /x")).toBeNull();
    expect(names("/everything:args-prompt city")).toBeNull();
    expect(names("/")).toHaveLength(3);
  });

  it("filters as the person types: by server, by prompt name, by title", () => {
    // a match at the start first, then one inside (r-ev-iew)
    expect(names("/ev")).toEqual(["/everything:args-prompt", "/everything:simple-prompt", "/docs:review"]);
    expect(names("/every")).toEqual(["/everything:args-prompt", "/everything:simple-prompt"]);
    expect(names("/rev")).toEqual(["/docs:review"]); // the prompt's own name, without its server
    expect(names("/simple")).toEqual(["/everything:simple-prompt"]);
    expect(names("/diff")).toEqual(["/docs:review"]); // its title
    expect(names("/nothing")).toEqual([]);
  });

  it("moves with the arrow keys, wrapping around; other keys are not its", () => {
    expect(moveIndex(0, 3, "ArrowDown")).toBe(1);
    expect(moveIndex(2, 3, "ArrowDown")).toBe(0);
    expect(moveIndex(0, 3, "ArrowUp")).toBe(2);
    expect(moveIndex(0, 3, "a")).toBeNull();
    expect(moveIndex(0, 0, "ArrowDown")).toBeNull();
  });
});

describe("a prompt's answer as the person's turn", () => {
  it("keeps the messages in order, labels an assistant-role one, inlines text resources, attaches images", () => {
    const result: GetPromptResult = {
      messages: [
        { role: "user", content: { type: "text", text: "Review this." } },
        { role: "assistant", content: { type: "text", text: "Send the diff." } },
        { role: "user", content: { type: "resource", resource: { uri: "file:///a.diff", text: "+x" } } },
        { role: "user", content: { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA" } } },
        { role: "user", content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" } },
        { role: "user", content: { type: "image", data: "AAAA", mimeType: "image/svg+xml" } },
      ],
    };
    const turn = promptTurn(result, "review");
    expect(turn.text.split("\n\n")).toEqual([
      "Review this.",
      "(The prompt gives this as the assistant's answer:)\nSend the diff.",
      "[resource file:///a.diff]\n+x",
      "[resource file:///b.bin (binary), not inlined]",
      "[image: prompt-image-1.png, attached]",
      "[an image of type image/svg+xml left out]",
    ]);
    expect(turn.images).toEqual([{ media_type: "image/png", name: "prompt-image-1.png", data: "iVBORw0KGgo=" }]);
  });

  it("refuses an answer without messages", () => {
    expect(() => promptTurn({ messages: [] }, "empty")).toThrow(/without messages/);
  });

  it("bounds what a listing may give", () => {
    const many = Array.from({ length: MAX_PROMPTS + 1 }, (_, i) => ({ name: `p${i}` }));
    expect(() => promptInfos(many)).toThrow(/over the 500/);
    const [long] = promptInfos([{ name: "x".repeat(5000), description: "d".repeat(5000) }]);
    expect(long?.name).toHaveLength(200);
    expect(long?.description).toHaveLength(2000);
  });
});

describe("the worker's host against server-everything", () => {
  let server: EverythingServer;
  let host: McpHost;
  const statuses: ToolServerStatus[] = [];

  beforeAll(async () => {
    server = await startEverything();
    host = new McpHost({ send: () => null, status: (s) => statuses.push(s), appOrigin: "http://127.0.0.1" });
    host.setServers([{ name: "everything", url: server.url }], "http://127.0.0.1/");
    const deadline = Date.now() + 20_000;
    while (!statuses.some((s) => s.prompts?.length) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
  }, 40_000);

  afterAll(() => {
    host?.setServers([], "");
    server?.stop();
  });

  it("lists the prompts with their arguments and required flags", () => {
    const prompts = statuses.findLast((s) => s.prompts?.length)?.prompts ?? [];
    const args = prompts.find((p) => p.name === "args-prompt");
    expect(prompts.map((p) => p.name)).toContain("simple-prompt");
    expect(args?.title).toBe("Arguments Prompt");
    expect(args?.arguments).toEqual([
      { name: "city", description: "Name of the city", required: true },
      { name: "state", description: "", required: false }, // the server loses an optional one's description
    ]);
  });

  it("gets a prompt with its arguments as the user's turn", async () => {
    const result = await host.prompt("everything", "args-prompt", { city: "Lisbon", state: "Estremadura" });
    expect(result.ok).toBe(true);
    expect((result as { value: McpPromptTurn }).value.text).toBe("What's weather in Lisbon, Estremadura?");
  });

  it("inlines the resource of a resource prompt", async () => {
    const result = await host.prompt("everything", "resource-prompt", { resourceType: "Text", resourceId: "1" });
    const text = result.ok ? (result.value as McpPromptTurn).text : result.message;
    expect(text).toMatch(/^This prompt includes the Text resource with id: 1/);
    expect(text).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/1\]/);
  });

  it("refuses a missing required argument, a prompt that is gone, a server that is not there, and says the server's error", async () => {
    expect(await host.prompt("everything", "args-prompt", { state: "x" })).toMatchObject({
      ok: false,
      code: "bad_arguments",
      message: "give 'city' first",
    });
    expect(await host.prompt("everything", "no-such-prompt", {})).toMatchObject({ ok: false, code: "prompt_gone" });
    expect(await host.prompt("elsewhere", "simple-prompt", {})).toMatchObject({ ok: false, code: "not_connected" });
    const bad = await host.prompt("everything", "resource-prompt", { resourceType: "Nope", resourceId: "1" });
    expect(bad).toMatchObject({ ok: false, code: "prompt_failed" });
    expect(bad.ok ? "" : bad.message).toMatch(/Invalid resourceType/);
  });
});
