import { describe, expect, it } from "vitest";
import type { ModelRecord } from "../src/protocol/requests";
import { badges, defaultModel, describeModel, matches } from "../src/ui/settings/model-picker";

const model = (id: string, extra: Partial<ModelRecord> = {}): ModelRecord => ({
  id,
  name: id,
  context_length: null,
  prompt_price: null,
  completion_price: null,
  tools: null,
  reasoning: null,
  vision: null,
  ...extra,
});

const free = model("meta-llama/llama-3.2-3b-instruct:free", { tools: false, prompt_price: 0, completion_price: 0 });
const mini = model("openai/gpt-4o-mini", {
  name: "OpenAI: GPT-4o-mini",
  tools: true,
  vision: true,
  context_length: 128000,
});
const gemini = model("google/gemini-3-pro-preview", {
  tools: true,
  reasoning: true,
  vision: true,
  context_length: 1048576,
});

describe("the model picker", () => {
  it("defaults to the first model that can call tools", () => {
    expect(defaultModel([free, mini, gemini])).toBe("openai/gpt-4o-mini");
    expect(defaultModel([free])).toBe(free.id); // none can: the first
    expect(defaultModel([])).toBeNull();
  });

  it.each([
    ["gpt", [mini.id]],
    ["GEMINI pro", [gemini.id]],
    ["reasoning", [gemini.id]],
    ["vision tools", [mini.id, gemini.id]],
    ["", [free.id, mini.id, gemini.id]],
    ["nothing-like-this", []],
  ])("filter %j keeps %j", (filter, ids) => {
    expect([free, mini, gemini].filter((m) => matches(m, filter)).map((m) => m.id)).toEqual(ids);
  });

  it("shows context, price and what the model can do", () => {
    expect(badges(gemini)).toEqual(["tools", "reasoning", "vision"]);
    expect(describeModel(mini)).toBe("OpenAI: GPT-4o-mini (openai/gpt-4o-mini) · 128k ctx · tools · vision");
    expect(describeModel(free)).toBe("meta-llama/llama-3.2-3b-instruct:free · free");
    expect(describeModel(gemini)).toContain("1M ctx");
  });
});
