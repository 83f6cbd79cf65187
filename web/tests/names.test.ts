/** The page's name rule agrees with the runtime's on every shared vector (tests/vectors/names.json). */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { firstUnsafe, nameProblem, shown } from "../src/protocol/names";
import { baseName } from "../src/worker/workspace-fs";

interface Vectors {
  allowed: { id: string; name: string }[];
  refused: { id: string; name: string; code: string; kind: string }[];
  shown: { id: string; name: string; shown: string }[];
}

const path = fileURLToPath(new URL("../../tests/vectors/names.json", import.meta.url));
const vectors = JSON.parse(readFileSync(path, "utf8")) as Vectors;

describe("names", () => {
  it.each(vectors.allowed)("allows $id", ({ name }) => {
    expect(firstUnsafe(name)).toBeNull();
    expect(nameProblem(name)).toBeNull();
    expect(shown(name)).toBe(name);
  });

  it.each(vectors.refused)("refuses $id, naming the character", ({ name, code, kind }) => {
    expect(firstUnsafe(name)).toEqual({ code, kind });
    expect(nameProblem(name)).toContain(code);
    expect(firstUnsafe(shown(name))).toBeNull();
    const last = name.split("/").pop() ?? "";
    if (firstUnsafe(last)) expect(() => baseName(last)).toThrow(code);
  });

  it.each(vectors.shown)("shows $id", ({ name, shown: want }) => {
    expect(shown(name)).toBe(want);
  });

  it.each([
    { name: "a".repeat(255), refused: false },
    { name: "a".repeat(256), refused: true },
    { name: "é".repeat(128), refused: true },
  ])("a part over 255 bytes is refused ($name.length chars)", ({ name, refused }) => {
    expect(nameProblem(name) !== null).toBe(refused);
  });
});
