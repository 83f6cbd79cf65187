/**
 * Pyodide memory snapshots for a fast second boot: the wasm heap after the runtime's wheels are
 * installed and its modules imported, kept in Cache Storage under a key naming the Pyodide
 * version and the wheel manifest's hashes (a new build or new wheels never reuse an old heap).
 * Only one snapshot is kept. Every failure here is reported to the caller, which falls back to a
 * normal boot; a snapshot that failed to load is dropped.
 */

const CACHE_NAME = "tidepool-snapshot-v1";
const KEY_PREFIX = "/__tidepool/snapshot/";

/** The Python modules imported before a snapshot is taken: what the runtime needs at start. */
export const SNAPSHOT_IMPORTS: readonly string[] = ["runtime.boot", "runtime.host.transport", "runtime.pyodide_entry"];

/** Python run right after loading a snapshot: raises unless the snapshot's modules are there. */
export const SNAPSHOT_CHECK = [
  "import sys",
  `_missing = [m for m in ${JSON.stringify(SNAPSHOT_IMPORTS)} if m not in sys.modules]`,
  "if _missing: raise ImportError(f'the snapshot lacks {_missing}')",
  "del _missing",
].join("\n");

export interface SnapshotStore {
  load(key: string): Promise<Uint8Array | null>;
  save(key: string, bytes: Uint8Array): Promise<void>;
  drop(key: string): Promise<void>;
}

/** The key of a snapshot: the Pyodide version and a digest of the wheels' sha256s, in manifest order. */
export async function snapshotKey(pyodideVersion: string, wheelHashes: readonly string[]): Promise<string> {
  const text = [pyodideVersion, ...wheelHashes.map((h) => h.toLowerCase())].join("\n");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${KEY_PREFIX}${encodeURIComponent(pyodideVersion)}/${hex}`;
}

/** The Python source that imports the snapshot's modules (names are checked: dotted identifiers only). */
export function importSource(modules: readonly string[]): string {
  for (const name of modules) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(name)) throw new Error(`not a module name: ${name}`);
  }
  return modules.map((name) => `import ${name}`).join("\n");
}

/** Snapshots in Cache Storage, or null where this context has none. */
export function cacheSnapshotStore(origin: string): SnapshotStore | null {
  if (typeof caches === "undefined") return null;
  const url = (key: string): string => new URL(key, origin).href;
  return {
    async load(key) {
      const cache = await caches.open(CACHE_NAME);
      const response = await cache.match(url(key));
      if (!response) return null;
      return new Uint8Array(await response.arrayBuffer());
    },
    async save(key, bytes) {
      const cache = await caches.open(CACHE_NAME);
      for (const old of await cache.keys()) await cache.delete(old);
      const body = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/octet-stream" });
      await cache.put(url(key), new Response(body));
    },
    async drop(key) {
      const cache = await caches.open(CACHE_NAME);
      await cache.delete(url(key));
    },
  };
}
