import { describe, expect, it } from "vitest";
import { importSource, SNAPSHOT_IMPORTS, snapshotKey } from "../src/worker/snapshot";

const A = "a".repeat(64);
const B = "b".repeat(64);

describe("snapshotKey", () => {
  it.each([
    { id: "another pyodide version", other: ["0.29.0", [A, B]] as const },
    { id: "another wheel hash", other: ["314.0.7", [A, A]] as const },
    { id: "wheels in another order", other: ["314.0.7", [B, A]] as const },
    { id: "a wheel fewer", other: ["314.0.7", [A]] as const },
  ])("changes with $id", async ({ other }) => {
    const base = await snapshotKey("314.0.7", [A, B]);
    expect(await snapshotKey(other[0], [...other[1]])).not.toBe(base);
  });

  it("is stable, ignores hex case and names the version", async () => {
    const key = await snapshotKey("314.0.7", [A, B]);
    expect(await snapshotKey("314.0.7", [A.toUpperCase(), B])).toBe(key);
    expect(key).toMatch(/^\/__tidepool\/snapshot\/314\.0\.7\/[0-9a-f]{64}$/);
  });
});

describe("importSource", () => {
  it("imports each module on its own line", () => {
    expect(importSource(["runtime.boot", "a_b.c1"])).toBe("import runtime.boot\nimport a_b.c1");
    expect(importSource(SNAPSHOT_IMPORTS).split("\n")).toHaveLength(SNAPSHOT_IMPORTS.length);
  });

  it.each([
    { id: "code injection", name: "os; os.remove('x')" },
    { id: "leading dot", name: ".runtime" },
    { id: "empty", name: "" },
    { id: "digit first", name: "1abc" },
  ])("refuses $id", ({ name }) => {
    expect(() => importSource([name])).toThrow(/not a module name/);
  });
});
