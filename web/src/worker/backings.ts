/**
 * Backings for the state directory's live files (`state-fs.ts`): on an OPFS sync access handle (the
 * agent worker), or on bytes in memory (tests).
 */

import type { Backing } from "./state-fs";

/** Thrown when a handle wrote less than it was given. */
export class BackingFailed extends Error {}

/** Chromium's `base::File::FILE_ERROR_NO_SPACE`, which some versions return from `write` (as an unsigned count) instead of throwing. */
const NO_SPACE = 2 ** 32 - 8;

/** An OPFS `FileSystemSyncAccessHandle` (dedicated workers only; not in TypeScript's DOM library). */
export interface SyncAccessHandle {
  read(into: Uint8Array, options: { at: number }): number;
  write(from: Uint8Array, options: { at: number }): number;
  getSize(): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}

/**
 * A backing on an OPFS sync access handle. The handle is this worker's alone (sync access handles
 * are exclusive), so its size is known after the first `getSize` and kept here: SQLite asks for it
 * before most reads and writes, and each call on a handle can cost a round trip (about 1 ms in an
 * incognito profile, where OPFS lives in the browser process).
 */
export function accessHandleBacking(handle: SyncAccessHandle): Backing {
  let size: number | null = null;
  return {
    read: (into, at) => handle.read(into, { at }),
    write: (from, at) => {
      try {
        writeAll(handle, from, at);
      } catch (err) {
        size = null;
        throw err;
      }
      if (size !== null) size = Math.max(size, at + from.length);
      return from.length;
    },
    size: () => (size ??= handle.getSize()),
    truncate: (to) => {
      size = null;
      handle.truncate(to);
      size = to;
    },
    flush: () => handle.flush(),
    close: () => handle.close(),
  };
}

/**
 * Write all of `from` at `at`, or throw: a `QuotaExceededError` for a full disk whether the handle
 * throws it or returns Chromium's error code as a count (Chromium 156 in a private profile does).
 */
export function writeAll(handle: SyncAccessHandle, from: Uint8Array, at: number): void {
  const n = handle.write(from, { at });
  if (n === from.length) return;
  if (n === NO_SPACE) throw new DOMException("there is no room left to write to", "QuotaExceededError");
  if (n > from.length) throw new BackingFailed(`the write failed (error ${n - 2 ** 32})`);
  throw new BackingFailed(`wrote ${n} of ${from.length} bytes`);
}

/** A backing on bytes in memory (tests, and a disk image in the benchmarks). */
export class MemoryBacking implements Backing {
  data: Uint8Array;
  length: number;
  writes = 0;
  written = 0;

  constructor(initial: Uint8Array = new Uint8Array(0)) {
    this.data = initial.slice();
    this.length = initial.length;
  }

  read(into: Uint8Array, at: number): number {
    const n = Math.max(0, Math.min(into.length, this.length - at));
    into.set(this.data.subarray(at, at + n));
    return n;
  }

  write(from: Uint8Array, at: number): number {
    this.grow(at + from.length);
    this.data.set(from, at);
    this.length = Math.max(this.length, at + from.length);
    this.writes++;
    this.written += from.length;
    return from.length;
  }

  size(): number {
    return this.length;
  }

  truncate(size: number): void {
    this.grow(size);
    if (size > this.length) this.data.fill(0, this.length, size);
    this.length = size;
  }

  flush(): void {}

  close(): void {}

  bytes(): Uint8Array {
    return this.data.slice(0, this.length);
  }

  private grow(size: number): void {
    if (size <= this.data.length) return;
    const next = new Uint8Array(Math.max(size, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}
