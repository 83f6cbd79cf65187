import { describe, expect, it } from "vitest";
import { lineBlocks, linesOf } from "../src/ui/chat/long-text";

describe("lineBlocks: a long text cut where a line ends", () => {
  const line = "a pasted line of about forty characters\n";

  it("joined, the blocks are the text, each cut after a line end once it holds 4 KB", () => {
    const text = line.repeat(1000) + "no line end at the very end";
    const blocks = lineBlocks(text);
    expect(blocks.join("")).toBe(text);
    expect(blocks.length).toBeGreaterThan(5);
    for (const block of blocks.slice(0, -1)) {
      expect(block.endsWith("\n")).toBe(true);
      expect(block.length).toBeGreaterThanOrEqual(4096);
      expect(block.length).toBeLessThan(4096 + line.length);
    }
  });

  it("never cuts inside a line: a line longer than a block stays whole", () => {
    const long = "x".repeat(20_000);
    const text = `${line}${long}\n${line}`;
    const blocks = lineBlocks(text);
    expect(blocks.join("")).toBe(text);
    expect(blocks.some((block) => block.includes(long))).toBe(true);
  });

  it("a text shorter than a block is one block; an empty one none", () => {
    expect(lineBlocks("short\ntext")).toEqual(["short\ntext"]);
    expect(lineBlocks("")).toEqual([]);
  });
});

describe("linesOf: the lines a text takes wrapped", () => {
  it.each([
    ["one short line", "hello", 80, 1],
    ["an empty line counts", "a\n\nb", 80, 3],
    ["a long line wraps", "x".repeat(200), 80, 3],
    ["a trailing line end starts a line", "a\n", 80, 2],
  ])("%s", (_name, text, perLine, lines) => {
    expect(linesOf(text, perLine)).toBe(lines);
  });
});
