import { describe, expect, it } from "vitest";
import { safeParts } from "../src/worker/persistence";

describe("workspace paths from flush_request", () => {
  it.each([
    ["notes/a.md", ["notes", "a.md"]],
    ["./notes//a.md", ["notes", "a.md"]],
    [".", []],
    ["", []],
    [".agents/skills/x/SKILL.md", [".agents", "skills", "x", "SKILL.md"]],
  ])("%j is kept as %j", (path, parts) => {
    expect(safeParts(path)).toEqual(parts);
  });

  it.each(["../x", "a/../../x", "/etc/passwd", "C:/x", "a\\b", "a\0b"])("%j is refused", (path) => {
    expect(() => safeParts(path)).toThrow(/unsafe workspace path/);
  });
});
