/** The UI's tool knowledge comes from the catalog in `ready`, so a tool added in Python needs no UI edit. */

import { describe, expect, it } from "vitest";
import type { ToolInfo } from "../src/protocol/messages";
import { toolsWithEffect } from "../src/ui/panels/tool-catalog";

const tool = (name: string, effect: ToolInfo["effect"]): ToolInfo => ({
  name,
  description: "",
  effect,
  parameters: {},
});

describe("toolsWithEffect", () => {
  const catalog = [tool("read_file", "read"), tool("memory_save", "memory"), tool("memory_forget_all", "memory")];

  it("names every tool of the catalog with the effect, including ones the UI never heard of", () => {
    expect([...toolsWithEffect(catalog, "memory")].sort()).toEqual(["memory_forget_all", "memory_save"]);
  });

  it("names none when the catalog has none", () => {
    expect(toolsWithEffect(catalog, "execute").size).toBe(0);
    expect(toolsWithEffect([], "memory").size).toBe(0);
  });
});
