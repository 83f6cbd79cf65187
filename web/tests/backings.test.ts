import { describe, expect, it } from "vitest";
import { accessHandleBacking, BackingFailed, type SyncAccessHandle } from "../src/worker/backings";

/**
 * An OPFS sync access handle over bytes in memory, counting `getSize` calls; `room`: a disk that
 * fills; `full`: what `write` returns once it is full (Chromium 156 returns an error code as a count).
 */
function memoryHandle(room = Infinity, full?: number): SyncAccessHandle & { sizeCalls: number } {
  let data = new Uint8Array(0);
  return {
    sizeCalls: 0,
    read(into, { at }) {
      const part = data.subarray(at, at + into.length);
      into.set(part);
      return part.length;
    },
    write(from, { at }) {
      if (full !== undefined && at + from.length > room) return full;
      const n = Math.max(0, Math.min(from.length, room - at));
      if (at + n > data.length) {
        const grown = new Uint8Array(at + n);
        grown.set(data);
        data = grown;
      }
      data.set(from.subarray(0, n), at);
      return n;
    },
    getSize() {
      this.sizeCalls++;
      return data.length;
    },
    truncate(size) {
      const next = new Uint8Array(size);
      next.set(data.subarray(0, size));
      data = next;
    },
    flush() {},
    close() {},
  };
}

describe("a backing on a sync access handle", () => {
  it("asks the handle for its size once and keeps it through writes and truncation", () => {
    const handle = memoryHandle();
    const backing = accessHandleBacking(handle);
    expect(backing.size()).toBe(0);
    backing.write(new Uint8Array(4096), 0);
    backing.write(new Uint8Array(100), 8192);
    expect(backing.size()).toBe(8292);
    backing.write(new Uint8Array(10), 0);
    expect(backing.size()).toBe(8292);
    backing.truncate(512);
    expect(backing.size()).toBe(512);
    expect(handle.sizeCalls).toBe(1);
  });

  it("reads the size again after a short write (a full disk)", () => {
    const handle = memoryHandle(1000);
    const backing = accessHandleBacking(handle);
    expect(backing.size()).toBe(0);
    expect(() => backing.write(new Uint8Array(4096), 0)).toThrow(BackingFailed);
    expect(backing.size()).toBe(1000);
    expect(handle.sizeCalls).toBe(2);
  });

  it("reports Chromium's no-space code returned as a count as a full disk", () => {
    const backing = accessHandleBacking(memoryHandle(1000, 2 ** 32 - 8));
    backing.write(new Uint8Array(500), 0);
    let thrown: unknown = null;
    try {
      backing.write(new Uint8Array(4096), 500);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DOMException);
    expect((thrown as DOMException).name).toBe("QuotaExceededError");
    expect(backing.size()).toBe(500);
  });

  it("reports another error code returned as a count as a failed write", () => {
    const backing = accessHandleBacking(memoryHandle(0, 2 ** 32 - 2));
    expect(() => backing.write(new Uint8Array(10), 0)).toThrow(/error -2/);
  });
});
