/**
 * The sandbox's Pyodide snapshot: the heap of a Pyodide just loaded, before any code of ours or of a run
 * touched it, so a new sandbox restores it (~0.2 s) instead of starting Python (~1.5 s here). It is made
 * by the app's snapshot worker (worker/snapshot.worker.ts) from its own fresh Pyodide, never by a
 * sandbox, and kept in the app's Cache Storage (which no sandbox can open: its origin is opaque), one at
 * a time, named by the Pyodide version that made it. The host reads it and checks its sha256 before each
 * sandbox it starts and hands it over in `init`; the sandbox restores it only under that same version,
 * and boots plainly (saying `snapshot_failed`, upon which the host drops it) when the restore fails.
 * The sandbox then installs its wheels and driver as it always does: nothing of them is in the heap.
 */

import { cacheSnapshotStore, checkSnapshot, type SnapshotStore } from "../worker/snapshot";

export const SANDBOX_SNAPSHOT_CACHE = "tidepool-sandbox-snapshot-v1";
const KEY_PREFIX = "/__tidepool/sandbox-snapshot/";

export interface SandboxSnapshot {
  version: string;
  bytes: ArrayBuffer;
}

export function sandboxSnapshotStore(origin: string): SnapshotStore | null {
  return cacheSnapshotStore(origin, SANDBOX_SNAPSHOT_CACHE);
}

/** The store's key for a snapshot made by Pyodide `version`. */
export function sandboxSnapshotKey(version: string): string {
  return KEY_PREFIX + encodeURIComponent(version);
}

/**
 * The stored snapshot with its version, its sha256 checked; null when there is none, the context has no
 * Cache Storage, or it is damaged (then it is dropped, and the next snapshot worker makes another).
 */
export async function readSandboxSnapshot(origin: string): Promise<SandboxSnapshot | null> {
  const store = sandboxSnapshotStore(origin);
  if (!store) return null;
  const keys = await (await caches.open(SANDBOX_SNAPSHOT_CACHE)).keys();
  const path = keys.map((request) => new URL(request.url).pathname).find((p) => p.startsWith(KEY_PREFIX));
  if (path === undefined) return null;
  const found = await store.find(path);
  if (!found) return null;
  const bytes = await found.read();
  if (!checkSnapshot(bytes).ok || !(await found.verify(bytes))) {
    await store.drop(path);
    return null;
  }
  const version = decodeURIComponent(path.slice(KEY_PREFIX.length));
  return { version, bytes: bytes.buffer as ArrayBuffer };
}

/** Drop the stored snapshot (a sandbox could not restore it). */
export async function dropSandboxSnapshot(origin: string, version: string): Promise<void> {
  await sandboxSnapshotStore(origin)?.drop(sandboxSnapshotKey(version));
}
