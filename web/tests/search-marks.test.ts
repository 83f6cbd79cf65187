import { describe, expect, it } from "vitest";

import { markedPieces } from "../src/ui/panels/search-marks";

const shown = (text: string, query: string): string =>
  markedPieces(text, query)
    .map((p) => (p.hit ? `[${p.text}]` : p.text))
    .join("");

describe("the search's words marked in an excerpt", () => {
  it("marks every occurrence of every word, whatever its case", () => {
    expect(shown("High water at Brest is at 06:12 today.", "brest 06:12")).toBe(
      "High water at [Brest] is at [06:12] today.",
    );
    expect(shown("Heron, heron, HERON", "heron")).toBe("[Heron], [heron], [HERON]");
  });

  it("takes a word's characters as they are, not as a pattern", () => {
    expect(shown("costs $5 (or more) a.b", "$5 (or a.b")).toBe("costs [$5] [(or] more) [a.b]");
    expect(shown("a+b and [x]", "a+b [x]")).toBe("[a+b] and [[x]]");
  });

  it("prefers the longer of two words that start at the same place, and keeps the text whole", () => {
    expect(shown("the tides table", "tide tides")).toBe("the [tides] table");
    expect(shown("東京タワーへ", "東京")).toBe("[東京]タワーへ");
    expect(markedPieces("nothing here", "zebra")).toEqual([{ text: "nothing here", hit: false }]);
    expect(markedPieces("", "zebra")).toEqual([]);
    expect(markedPieces("plain", "   ")).toEqual([{ text: "plain", hit: false }]);
  });
});
