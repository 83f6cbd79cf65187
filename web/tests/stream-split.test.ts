import { describe, expect, it } from "vitest";
import { piecesDiffer, stableCut } from "../src/ui/chat/stream-split";

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
