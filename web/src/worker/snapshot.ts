/**
 * Pyodide memory snapshots for a fast second boot: the wasm heap of a fresh Pyodide after the
 * runtime's wheels are installed and its start-up modules imported (made by the snapshot worker
 * after `ready`, when the page is idle), kept in Cache Storage under a key naming the Pyodide
 * version and the wheel manifest's hashes (a new build or new wheels never reuse an old heap), with
 * the snapshot's sha256 beside it. Only one snapshot is kept. Every failure here is reported to the
 * caller, which falls back to a normal boot; a snapshot that failed to load is dropped.
 *
 * The sha256 is checked after `ready`, not before the restore: hashing 31 MB cost the boot's one thread
 * ~40 ms (and a second core as much), a tenth of a warm boot. A damaged heap is still caught before it
 * is trusted by what the boot checks anyway (the header and size here, Pyodide's restore, the runtime's
 * modules present), the browser's cache checks its own checksum when it reads the entry, and a mismatch
 * found after `ready` drops the snapshot (the next visit boots plainly and makes a new one).
 */

const CACHE_NAME = "tidepool-snapshot-v1";
const KEY_PREFIX = "/__tidepool/snapshot/";
const REFUSED_SUFFIX = ".refused";
const DIGEST_HEADER = "x-tidepool-sha256";

/**
 * The largest heap a snapshot may carry. Pyodide restores a snapshot by copying its heap into the
 * heap of a new module without growing it first (pyodide issue 6254), and that heap starts at the
 * minimum in pyodide.asm.wasm's memory section: 480 pages of 64 KiB in Pyodide 314 (a test reads it
 * from the shipped wasm). Measured: a heap of exactly this size restores; one that grew past it (to
 * 48.8 MiB) fails with "RangeError: offset is out of bounds". Heaps grow in whole pages, so the limit
 * is exact: no margin is needed.
 */
export const RESTORABLE_HEAP_BYTES = 480 * 65536;
/** Pyodide's snapshot header: magic "\0snp" (little-endian u32), then the heap's offset (u32). */
const SNAPSHOT_MAGIC = 0x706e7300;

export type SnapshotCheck = { ok: true; heapBytes: number } | { ok: false; reason: string };

/** Whether Pyodide can restore this snapshot: a snapshot header, and a heap that fits (see above). */
export function checkSnapshot(bytes: Uint8Array, limit = RESTORABLE_HEAP_BYTES): SnapshotCheck {
  if (bytes.byteLength < 16) return { ok: false, reason: `a snapshot of ${bytes.byteLength} bytes has no header` };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== SNAPSHOT_MAGIC)
    return { ok: false, reason: "not a Pyodide snapshot (bad magic number)" };
  const offset = view.getUint32(4, true);
  if (offset < 16 || offset > bytes.byteLength)
    return { ok: false, reason: `the snapshot's heap offset ${offset} is out of range` };
  const heapBytes = bytes.byteLength - offset;
  if (heapBytes > limit) {
    const mib = (n: number): string => (n / 1048576).toFixed(1);
    return { ok: false, reason: `its heap is ${mib(heapBytes)} MiB, over the ${mib(limit)} MiB Pyodide can restore` };
  }
  return { ok: true, heapBytes };
}

/** What the store holds for a key: a snapshot, a record that one was refused (too big), or nothing. */
export type SnapshotState = "stored" | "refused" | "absent";

/** A snapshot found in the store, not read yet. */
export interface StoredSnapshot {
  /** Its bytes as stored (their sha256 is checked by `verify`, off the boot's path). */
  read(): Promise<Uint8Array>;
  /** Whether `bytes` (those `read` gave) match the sha256 stored beside them. */
  verify(bytes: Uint8Array): Promise<boolean>;
}

export const DAMAGED = "the stored snapshot is damaged (sha256 mismatch)";

export interface SnapshotStore {
  /** The snapshot for `key`, or null: found without reading it, so a boot can start Pyodide meanwhile. */
  find(key: string): Promise<StoredSnapshot | null>;
  state(key: string): Promise<SnapshotState>;
  save(key: string, bytes: Uint8Array): Promise<void>;
  /** Remember that no snapshot can be made for `key` (so later visits do not try again). */
  refuse(key: string, reason: string): Promise<void>;
  drop(key: string): Promise<void>;
}

/** The key of a snapshot: the Pyodide version and a digest of the wheels' sha256s, in manifest order. */
export async function snapshotKey(pyodideVersion: string, wheelHashes: readonly string[]): Promise<string> {
  const text = [pyodideVersion, ...wheelHashes.map((h) => h.toLowerCase())].join("\n");
  return `${KEY_PREFIX}${encodeURIComponent(pyodideVersion)}/${await sha256Hex(new TextEncoder().encode(text))}`;
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Snapshots in Cache Storage (`cacheName`: one snapshot kept in each), or null where this context has none. */
export function cacheSnapshotStore(origin: string, cacheName = CACHE_NAME): SnapshotStore | null {
  if (typeof caches === "undefined") return null;
  const url = (key: string): string => new URL(key, origin).href;
  return {
    async find(key) {
      const cache = await caches.open(cacheName);
      const response = await cache.match(url(key));
      if (!response) return null;
      return {
        async read() {
          return new Uint8Array(await response.arrayBuffer());
        },
        async verify(bytes) {
          return (await sha256Hex(bytes)) === response.headers.get(DIGEST_HEADER);
        },
      };
    },
    async state(key) {
      const cache = await caches.open(cacheName);
      if (await cache.match(url(key))) return "stored";
      return (await cache.match(url(key + REFUSED_SUFFIX))) ? "refused" : "absent";
    },
    async save(key, bytes) {
      const cache = await caches.open(cacheName);
      for (const old of await cache.keys()) await cache.delete(old);
      const body = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/octet-stream" });
      const headers = { "Content-Type": "application/octet-stream", [DIGEST_HEADER]: await sha256Hex(bytes) };
      await cache.put(url(key), new Response(body, { headers }));
    },
    async refuse(key, reason) {
      const cache = await caches.open(cacheName);
      for (const old of await cache.keys()) await cache.delete(old);
      await cache.put(url(key + REFUSED_SUFFIX), new Response(reason, { headers: { "Content-Type": "text/plain" } }));
    },
    async drop(key) {
      const cache = await caches.open(cacheName);
      await cache.delete(url(key));
    },
  };
}
