import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { checkSnapshot, RESTORABLE_HEAP_BYTES, snapshotKey } from "../src/worker/snapshot";

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

/** A snapshot as Pyodide lays it out: a 16-byte header (magic, heap offset, …), config, then the heap. */
function fakeSnapshot(heapBytes: number, offset = 144, magic = 0x706e7300): Uint8Array {
  const bytes = new Uint8Array(offset + heapBytes);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, magic, true);
  view.setUint32(4, offset, true);
  return bytes;
}

describe("checkSnapshot", () => {
  it("accepts a heap of exactly the size Pyodide starts with", () => {
    expect(checkSnapshot(fakeSnapshot(RESTORABLE_HEAP_BYTES))).toEqual({ ok: true, heapBytes: RESTORABLE_HEAP_BYTES });
  });

  it("refuses a heap one page over, saying by how much", () => {
    const check = checkSnapshot(fakeSnapshot(RESTORABLE_HEAP_BYTES + 65536));
    expect(check).toEqual({ ok: false, reason: "its heap is 30.1 MiB, over the 30.0 MiB Pyodide can restore" });
  });

  it.each([
    { id: "too short for a header", bytes: new Uint8Array(8), reason: /no header/ },
    { id: "another file", bytes: fakeSnapshot(1024, 144, 0x12345678), reason: /bad magic/ },
    {
      id: "a heap offset past the end",
      bytes: fakeSnapshot(0, 144).subarray(0, 100),
      reason: /offset 144 is out of range/,
    },
  ])("refuses $id", ({ bytes, reason }) => {
    const check = checkSnapshot(bytes);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });

  it("takes the limit from the shipped pyodide.asm.wasm (its memory's minimum pages)", () => {
    const wasm = readFileSync(path.resolve(__dirname, "../../node_modules/pyodide/pyodide.asm.wasm"));
    expect(wasmInitialMemoryBytes(wasm)).toBe(RESTORABLE_HEAP_BYTES);
  });
});

/** The minimum size of the memory a wasm module defines (its memory section), in bytes. */
function wasmInitialMemoryBytes(wasm: Uint8Array): number {
  let at = 8; // magic + version
  const leb = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = wasm[at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  };
  while (at < wasm.length) {
    const id = wasm[at++];
    const size = leb();
    const end = at + size;
    if (id === 5) {
      leb(); // count
      at++; // flags
      return leb() * 65536;
    }
    at = end;
  }
  throw new Error("the module defines no memory (it imports it)");
}
