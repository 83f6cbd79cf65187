import { describe, expect, it } from "vitest";
import { accessHandleBacking, BackingFailed, READ_AHEAD, type SyncAccessHandle } from "../src/worker/backings";

/**
 * An OPFS sync access handle over bytes in memory, counting `getSize` calls; `room`: a disk that
 * fills; `full`: what `write` returns once it is full (Chromium 156 returns an error code as a count).
 */
function memoryHandle(room = Infinity, full?: number): SyncAccessHandle & { sizeCalls: number; reads: number } {
  let data = new Uint8Array(0);
  return {
    sizeCalls: 0,
    reads: 0,
    read(into, { at }) {
      this.reads++;
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

describe("reading a sync access handle ahead", () => {
  const PAGE = 4096;
  /** A backing on a file of `pages` pages, each filled with its number (mod 251), and its handle. */
  function filled(pages: number) {
    const handle = memoryHandle();
    const bytes = new Uint8Array(pages * PAGE);
    for (let p = 0; p < pages; p++) bytes.fill(p % 251, p * PAGE, (p + 1) * PAGE);
    handle.write(bytes, { at: 0 });
    return { handle, backing: accessHandleBacking(handle) };
  }
  const page = (backing: ReturnType<typeof accessHandleBacking>, p: number): Uint8Array => {
    const into = new Uint8Array(PAGE);
    expect(backing.read(into, p * PAGE)).toBe(PAGE);
    return into;
  };

  it("serves pages read one after another from one read of the handle", () => {
    const { handle, backing } = filled(40);
    const perBlock = READ_AHEAD / PAGE;
    for (let p = 0; p < 1 + perBlock; p++) expect(page(backing, p).every((b) => b === p)).toBe(true);
    expect(handle.reads).toBe(2); // the first page, then the next READ_AHEAD bytes
    page(backing, 1 + perBlock);
    expect(handle.reads).toBe(3);
  });

  it("reads what is asked for elsewhere, and forgets what it read ahead on a write or a truncation", () => {
    const { handle, backing } = filled(40);
    page(backing, 30);
    page(backing, 5);
    page(backing, 20);
    expect(handle.reads).toBe(3); // none follows the last: no read ahead
    page(backing, 21); // reads ahead from page 21
    backing.write(new Uint8Array(PAGE).fill(99), 22 * PAGE);
    expect(page(backing, 22).every((b) => b === 99)).toBe(true); // not the bytes read before the write
    backing.truncate(23 * PAGE + 100);
    const tail = new Uint8Array(PAGE);
    expect(backing.read(tail, 23 * PAGE)).toBe(100); // the file ends there, whatever was read ahead
  });

  it("stops at the end of the file", () => {
    const { backing } = filled(3);
    page(backing, 0);
    page(backing, 1); // reads ahead: only two pages are left
    expect(page(backing, 2).every((b) => b === 2)).toBe(true);
    expect(backing.read(new Uint8Array(PAGE), 3 * PAGE)).toBe(0);
  });
});
