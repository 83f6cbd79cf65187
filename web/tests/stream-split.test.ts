import { describe, expect, it } from "vitest";
import { blockPieces, piecesDiffer, stableCut } from "../src/ui/chat/stream-split";

describe("stableCut: where a streaming message can be split for rendering", () => {
  it.each([
    ["no blank line yet", "Hello **wor", 0, 0],
    ["after the last complete blank line", "# Title\n\nFirst para.\n\nSecond is stre", 0, 22],
    ["an unfinished last line is never a cut", "One.\n\n", 0, 6],
    ["not inside an open code fence", "Text.\n\n```python\nx = 1\n\ny = 2", 0, 7],
    ["after the fence closes", "```\na\n\nb\n```\n\nafter", 0, 14],
    ["tilde fences too", "~~~\n\n~~~\n\nz", 0, 10],
    ["starts from the previous cut", "a\n\nb\n\nc", 3, 6],
    ["a blank line right at `from` is not a new cut", "a\n\nb", 3, 3],
  ])("%s", (_name, text, from, cut) => {
    expect(stableCut(text, from)).toBe(cut);
  });

  it("rendering the pieces covers the whole text, in order", () => {
    const text = "# A\n\nsome *text*\n\n```js\nlet x;\n\nlet y;\n```\n\n- one\n- two\n\nend";
    let stable = 0;
    const pieces: string[] = [];
    for (let n = 1; n <= text.length; n++) {
      const cut = stableCut(text.slice(0, n), stable);
      if (cut > stable) pieces.push(text.slice(stable, cut));
      stable = cut;
    }
    expect(pieces.join("") + text.slice(stable)).toBe(text);
    expect(pieces.some((p) => p.includes("```js") && !p.includes("```\n\n- one"))).toBe(true);
  });
});

describe("stableCut on one long paragraph", () => {
  it("cuts at a line end once the tail is long, never inside a fence", () => {
    const para = "word ".repeat(10) + "\n";
    expect(stableCut(para.repeat(3), 0, 1000)).toBe(0); // short: wait for a blank line
    expect(stableCut(para.repeat(3) + "unfinished", 0, 100)).toBe(para.length * 3);
    const fenced = "```\n" + para.repeat(3) + "still in the fence";
    expect(stableCut(fenced, 0, 100)).toBe(0);
  });
});

describe("blockPieces: a finished piece as blocks of a few KB", () => {
  it("cuts at blank lines, each block at most `max`, joined back to the piece", () => {
    const para = "Some words here. ".repeat(5) + "\n\n"; // 87 characters
    const piece = para.repeat(40);
    const blocks = blockPieces(piece, 400);
    expect(blocks.join("")).toBe(piece);
    expect(blocks.length).toBeGreaterThan(8);
    for (const block of blocks) {
      expect(block.length).toBeLessThanOrEqual(400);
      expect(block.endsWith("\n\n")).toBe(true); // whole paragraphs
    }
  });

  it("one endless paragraph is cut at line ends; a short piece is one block", () => {
    const line = "lorem ipsum dolor sit amet\n";
    const blocks = blockPieces(line.repeat(100), 300);
    expect(blocks.join("")).toBe(line.repeat(100));
    expect(blocks.every((b) => b.length <= 300 && b.endsWith("\n"))).toBe(true);
    expect(blockPieces("Short.\n\n", 300)).toEqual(["Short.\n\n"]);
  });

  it("never cuts inside fenced code: a fence longer than a block stays whole", () => {
    const code = "```python\n" + "x = 1\n\n".repeat(100) + "```\n\n";
    const piece = "Before.\n\n" + code + "After.\n\n";
    const blocks = blockPieces(piece, 200);
    expect(blocks.join("")).toBe(piece);
    expect(blocks.some((b) => b.startsWith("```python") && b.includes("```\n\n"))).toBe(true);
    const fenceOpen = blocks.filter((b) => b.includes("```")).map((b) => (b.match(/```/g) ?? []).length % 2);
    expect(fenceOpen.every((odd) => odd === 0)).toBe(true); // every block opens and closes its fences
  });

  it("goes on cutting after a block longer than `max` (a stored reply's whole text is one piece)", () => {
    const code = "```text\n" + "a line of code\n".repeat(60) + "```\n\n"; // ~900 characters
    const paras = "A paragraph of some words.\n\n".repeat(60);
    const text = paras + code + paras + "The last words, no blank line after";
    const blocks = blockPieces(text, 200);
    expect(blocks.join("")).toBe(text);
    const fence = blocks.findIndex((b) => b.startsWith("```text"));
    expect(blocks[fence]).toBe(code); // the fence whole, cut where it ends
    expect(blocks.length - fence).toBeGreaterThan(5); // what follows it is cut again
    expect(blocks.filter((b) => b !== code).every((b) => b.length <= 200)).toBe(true);
    expect(blocks.at(-1)).toContain("The last words");
  });
});

describe("piecesDiffer: when a reply rendered in pieces must be rendered once more as a whole", () => {
  it.each([
    ["plain paragraphs and headings", "# A\n\nsome *text*\n\n## B\n\nmore", false],
    ["a tight list, then a paragraph", "- one\n- two\n\nAfter the list.", false],
    ["a list after a paragraph", "Intro.\n\n- one\n- two", false],
    ["a blank line inside a fence", "- one\n\n```\n- two\n\n- three\n```", false],
    ["a reference definition", "See [the docs][d].\n\n[d]: https://example.org", true],
    ["a loose list", "- one\n\n- two", true],
    ["a loose ordered list", "1. one\n\n2. two", true],
    ["a list item's next paragraph", "- one\n\n  more about one\n\nend", true],
    ["a list, a paragraph, then a new list", "- one\n\nText.\n\n- two", false],
  ])("%s", (_name, text, differ) => {
    expect(piecesDiffer(text)).toBe(differ);
  });
});
