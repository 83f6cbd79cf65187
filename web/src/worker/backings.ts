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

/** What one read of a handle takes when reads go on from where the last one ended (`accessHandleBacking`). */
export const READ_AHEAD = 64 * 1024;

/**
 * A backing on an OPFS sync access handle. The handle is this worker's alone (sync access handles
 * are exclusive), so its size is known after the first `getSize` and kept here: SQLite asks for it
 * before most reads and writes, and each call on a handle can cost a round trip (about 1 ms in an
 * incognito profile, where OPFS lives in the browser process).
 *
 * For the same reason a read that starts where the last one ended (SQLite following a long message's
 * overflow pages, or a table's leaves, which lie one after another) reads READ_AHEAD bytes at once, and
 * the reads after it are served from them: in a private window a 4 KiB read took 0.74 ms and a 64 KiB
 * one 1.23 ms. A read elsewhere reads what it asks for; any write or truncation forgets what was read ahead.
 */
export function accessHandleBacking(handle: SyncAccessHandle): Backing {
  let size: number | null = null;
  const ahead = new Uint8Array(READ_AHEAD);
  let aheadAt = 0;
  let aheadLength = 0; // 0: nothing read ahead
  let lastEnd = -1;
  const read = (into: Uint8Array, at: number): number => {
    const end = at + into.length;
    if (aheadLength > 0 && at >= aheadAt && end <= aheadAt + aheadLength) {
      into.set(ahead.subarray(at - aheadAt, end - aheadAt));
      lastEnd = end;
      return into.length;
    }
    const onward = at === lastEnd && into.length < READ_AHEAD;
    lastEnd = end;
    if (!onward) return handle.read(into, { at });
    aheadLength = 0;
    const n = handle.read(ahead, { at });
    aheadAt = at;
    aheadLength = n;
    const served = Math.min(n, into.length);
    into.set(ahead.subarray(0, served));
    return served;
  };
  return {
    read,
    write: (from, at) => {
      aheadLength = 0;
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
      aheadLength = 0;
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
