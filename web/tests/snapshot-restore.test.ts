// The snapshot size guard against real Pyodide (under Node): a heap of the size Pyodide starts with
// restores, a heap that grew past it cannot be restored (pyodide issue 6254), and checkSnapshot tells
// the two apart before anything is stored or loaded.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { checkSnapshot, RESTORABLE_HEAP_BYTES } from "../src/worker/snapshot";

interface Python {
  runPython(code: string): unknown;
  makeMemorySnapshot(): Uint8Array;
}
interface PyodideModule {
  loadPyodide(options: { indexURL: string; _makeSnapshot?: boolean; _loadSnapshot?: Uint8Array }): Promise<Python>;
}

const PYODIDE = path.join(path.resolve(__dirname, "../.."), "web/public/pyodide");
let mod: PyodideModule;
let fits: Uint8Array;
let grown: Uint8Array;

beforeAll(async () => {
  mod = (await import(pathToFileURL(path.join(PYODIDE, "pyodide.mjs")).href)) as PyodideModule;
  const py = await mod.loadPyodide({ indexURL: PYODIDE + path.sep, _makeSnapshot: true });
  py.runPython("import json\nmarker = json.dumps({'restored': True})");
  fits = py.makeMemorySnapshot();
  py.runPython("padding = bytearray(24 * 1024 * 1024)"); // the heap must grow to hold it
  grown = py.makeMemorySnapshot();
}, 180_000);

describe("a snapshot against Pyodide's restore limit", () => {
  it("restores when its heap is the size Pyodide starts with, and the guard accepts it", async () => {
    expect(checkSnapshot(fits)).toEqual({ ok: true, heapBytes: RESTORABLE_HEAP_BYTES });
    const py = await mod.loadPyodide({ indexURL: PYODIDE + path.sep, _loadSnapshot: fits });
    expect(py.runPython("marker")).toBe('{"restored": true}');
  }, 180_000);

  it("fails to restore once its heap grew, and the guard refuses it first", async () => {
    const check = checkSnapshot(grown);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(/over the 30\.0 MiB Pyodide can restore/);
    await expect(mod.loadPyodide({ indexURL: PYODIDE + path.sep, _loadSnapshot: grown })).rejects.toThrow(
      /out of bounds/,
    );
  }, 180_000);
});
