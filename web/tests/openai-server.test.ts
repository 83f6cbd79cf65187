import { describe, expect, it } from "vitest";
import { PROVIDER_KINDS } from "../src/protocol/messages";
import type { ModelRecord } from "../src/protocol/requests";
import { runChecks, summary, type DoctorInput } from "../src/settings/doctor";
import { PROVIDERS, parseMaxOutput, providerName, sanitizeSettings } from "../src/settings/model";
import { CONTINUE_ROOM, continueFits } from "../src/ui/chat/endings";

const BASE = "http://127.0.0.1:8081/v1";
const gguf: ModelRecord = {
  id: "qwen2.5-0.5b-instruct-q4_k_m.gguf",
  name: "qwen2.5-0.5b-instruct-q4_k_m.gguf",
  context_length: 4096,
  prompt_price: null,
  completion_price: null,
  tools: null,
  reasoning: null,
  vision: null,
};

/** llama-server: answers every path, allows any origin, has no /key. */
const llamaServer =
  (up = true): typeof fetch =>
  async (url) => {
    if (!up) throw new TypeError("Failed to fetch");
    const isKey = (url instanceof Request ? url.url : url.toString()).endsWith("/key");
    return new Response(isKey ? "Not Found" : "{}", { status: isKey ? 404 : 200 });
  };

const input = (over: Partial<DoctorInput>): DoctorInput => ({
  provider: "openai-compatible",
  baseUrl: BASE,
  pageOrigin: "http://127.0.0.1:8000",
  key: null,
  model: gguf.id,
  models: [gguf],
  fetch: llamaServer(),
  ...over,
});

describe("the OpenAI-compatible server provider", () => {
  it("is offered by provider-select and named after its host", () => {
    expect(PROVIDERS.map((p) => p.kind)).toEqual([...PROVIDER_KINDS]); // provider-select's options (settings/options.ts)
    expect(PROVIDERS.find((p) => p.kind === "openai-compatible")?.keyRequired).toBe(false);
    expect(providerName("openai-compatible", BASE)).toBe("127.0.0.1:8081");
    expect(providerName("openrouter", "https://openrouter.ai/api/v1")).toBe("OpenRouter");
  });

  it("passes the doctor with no key, never asks /key, and names the host", async () => {
    const asked: string[] = [];
    const fetchSpy: typeof fetch = async (url, init) => {
      asked.push(url instanceof Request ? url.url : url.toString());
      return llamaServer()(url, init);
    };
    const results = await runChecks(input({ fetch: fetchSpy }));
    expect(results.map((r) => `${r.check}:${r.state}`)).toEqual([
      "mixed-content:ok",
      "reachable:ok",
      "origin:ok",
      "key:ok",
      "model:ok",
      "context:ok",
    ]);
    expect(results.find((r) => r.check === "key")?.text).toBe("No key: 127.0.0.1:8081 is used without one.");
    expect(asked.some((u) => u.endsWith("/key"))).toBe(false);
    expect(summary(results).text).not.toMatch(/openrouter|No API key/i);
  });

  it("says how to start a server that is not running and how to raise a small window", async () => {
    const down = await runChecks(input({ fetch: llamaServer(false) }));
    expect(summary(down).text).toContain("llama-server -m model.gguf --jinja -c 8192 --port 8081");
    const small = await runChecks(input({ models: [{ ...gguf, context_length: 2048 }] }));
    const context = small.find((r) => r.check === "context");
    expect(context?.state).toBe("warn");
    expect(context?.text).toContain("llama-server -c 8192 (llama-cpp-python: --n_ctx 8192)");
  });

  it("keeps a valid max-output setting and drops a bad one", () => {
    expect(parseMaxOutput("1024")).toBe(1024);
    expect([parseMaxOutput(""), parseMaxOutput("3.5"), parseMaxOutput(-1), parseMaxOutput("8")]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(sanitizeSettings({ provider: "openai-compatible", maxOutput: 512 })).toMatchObject({
      provider: "openai-compatible",
      maxOutput: 512,
    });
    expect(sanitizeSettings({ maxOutput: "lots" }).maxOutput).toBeNull();
  });

  it("withholds Continue when the window cannot fit more", () => {
    expect(continueFits(1000, 4096)).toBe(true);
    expect(continueFits(4096 - CONTINUE_ROOM, 4096)).toBe(true);
    expect(continueFits(4096 - CONTINUE_ROOM + 1, 4096)).toBe(false);
    expect(continueFits(5000, 4096)).toBe(false);
  });
});
