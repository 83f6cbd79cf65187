import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(__dirname, "../src");
const ENTRY = path.join("worker", "python-entry.ts");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.(ts|js|mjs)$/.test(name) ? [full] : [];
  });
}

describe("the worker's calls into Python", () => {
  it("go through python-entry.ts alone: no Python is run or imported from anywhere else in web/src", () => {
    const files = sources(SRC);
    expect(files).toContain(path.join(SRC, ENTRY));
    const callers = files.filter((file) => /\b(runPython|runPythonAsync|pyimport)\b/.test(readFileSync(file, "utf8")));
    expect(callers.map((file) => path.relative(SRC, file))).toEqual([ENTRY]);
  });

  it("name only functions runtime/pyodide_entry.py defines", () => {
    const entry = readFileSync(path.join(SRC, ENTRY), "utf8");
    const interfaceBody = /export interface PyodideEntry \{([\s\S]*?)\n\}/.exec(entry)?.[1] ?? "";
    const called = [...interfaceBody.matchAll(/^\s+(\w+)\(/gm)].map((m) => m[1]);
    expect(called.length).toBeGreaterThan(0);
    const python = readFileSync(path.resolve(SRC, "../../runtime/pyodide_entry.py"), "utf8");
    const defined = [...python.matchAll(/^def (\w+)\(/gm)].map((m) => m[1]);
    expect(defined).toEqual(expect.arrayContaining(called));
  });
});
