import { describe, expect, it } from "vitest";
import type { ModelRecord } from "../src/protocol/requests";
import { mixedContent, runChecks, summary, type DoctorInput } from "../src/settings/doctor";

const ORIGIN = "http://127.0.0.1:8000";
const llama: ModelRecord = {
  id: "llama3.2:3b",
  name: "llama3.2:3b",
  context_length: 8192,
  prompt_price: 0,
  completion_price: 0,
  tools: true,
  reasoning: false,
  vision: false,
};

/** A fetch that answers like a server which refuses CORS for this page (Ollama without OLLAMA_ORIGINS). */
function server(options: { up?: boolean; cors?: boolean; key?: Response } = {}): typeof fetch {
  const { up = true, cors = true } = options;
  return async (input, init) => {
    if (!up) throw new TypeError("Failed to fetch");
    if (init?.mode === "cors" && !cors) throw new TypeError("Failed to fetch");
    if ((input instanceof Request ? input.url : input.toString()).endsWith("/key"))
      return options.key ?? new Response(JSON.stringify({ data: { limit_remaining: null } }));
    return new Response("{}", { status: 200 });
  };
}

const input = (over: Partial<DoctorInput>): DoctorInput => ({
  provider: "ollama",
  baseUrl: "http://localhost:11434",
  pageOrigin: ORIGIN,
  key: null,
  model: "llama3.2:3b",
  models: [llama],
  fetch: server(),
  ...over,
});

const states = (results: { check: string; state: string }[]): string[] => results.map((r) => `${r.check}:${r.state}`);

describe("the connection doctor", () => {
  it("passes a healthy Ollama", async () => {
    const results = await runChecks(input({}));
    expect(states(results)).toEqual([
      "mixed-content:ok",
      "reachable:ok",
      "origin:ok",
      "key:ok",
      "model:ok",
      "context:ok",
    ]);
    expect(summary(results)).toEqual({ state: "ok", text: "Connected: every check passed." });
  });

  it("tells a refused origin apart from a server that is down, with the exact origin to allow", async () => {
    const refused = await runChecks(input({ fetch: server({ cors: false }) }));
    expect(states(refused)).toEqual(["mixed-content:ok", "reachable:ok", "origin:fail"]);
    const said = summary(refused);
    expect(said.state).toBe("error");
    for (const part of [
      `OLLAMA_ORIGINS=${ORIGIN}`,
      "systemctl edit ollama",
      "launchctl setenv",
      "setx OLLAMA_ORIGINS",
    ]) {
      expect(said.text).toContain(part);
    }
    const down = await runChecks(input({ fetch: server({ up: false }) }));
    expect(states(down)).toEqual(["mixed-content:ok", "reachable:fail"]);
    expect(summary(down).text).toContain("Is Ollama running");
  });

  it("says an https page cannot call plain http on another machine", () => {
    expect(mixedContent("http://192.168.1.20:11434", "https://tide.example").state).toBe("fail");
    expect(mixedContent("http://localhost:11434", "https://tide.example").state).toBe("ok");
    expect(mixedContent("http://192.168.1.20:11434", "http://127.0.0.1:8000").state).toBe("warn");
  });

  it("checks an OpenRouter key and its credits", async () => {
    const base = {
      provider: "openrouter" as const,
      baseUrl: "https://openrouter.ai/api/v1",
      models: [{ ...llama, id: "m" }],
      model: "m",
    };
    const noKey = await runChecks(input({ ...base }));
    expect(noKey.find((r) => r.check === "key")?.state).toBe("fail");
    const spent = new Response(JSON.stringify({ data: { limit: 5, limit_remaining: 0 } }));
    const broke = await runChecks(input({ ...base, key: "k", fetch: server({ key: spent }) }));
    expect(summary(broke).text).toContain("no credits left");
    const rejected = await runChecks(
      input({ ...base, key: "k", fetch: server({ key: new Response("{}", { status: 401 }) }) }),
    );
    expect(summary(rejected).text).toContain("rejected the key");
    const fine = await runChecks(input({ ...base, key: "k" }));
    expect(summary(fine).state).toBe("ok");
  });

  it("warns about a model without tools or with a small window, and fails a missing one", async () => {
    const small = await runChecks(input({ models: [{ ...llama, tools: false, context_length: 2048 }] }));
    expect(states(small).slice(-2)).toEqual(["model:warn", "context:warn"]);
    expect(summary(small).text).toContain("cannot call tools");
    const missing = await runChecks(input({ model: "gone:1b" }));
    expect(summary(missing).text).toContain("gone:1b is not offered");
  });
});
