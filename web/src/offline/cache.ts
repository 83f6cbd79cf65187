/**
 * The offline cache's rules, shared by the service worker (sw.ts) and the page (page.ts); see
 * docs/offline.md. One cache per build (`tidepool-build-<build>`; the app's other caches, such as the
 * runtime's snapshot, are never touched), filled from the build's offline-manifest.json
 * (scripts/offline_stamp.py), every file checked against its sha256, and marked complete only when
 * every file is in: an incomplete cache is never served from, and an older build's
 * cache is deleted only once the newer one is complete.
 *
 * Written against the small part of Cache Storage it uses (`CacheStore`), so the unit tests can run it
 * in Node with an in-memory store.
 */

export const CACHE_PREFIX = "tidepool-build-";
export const MANIFEST_PATH = "/offline-manifest.json";
/** Put last: the cache holds every file of its build. */
export const COMPLETE_KEY = "/offline-complete";
/** Set on the manifest the service worker answers from its cache because the server did not answer. */
export const FROM_CACHE_HEADER = "X-Tidepool-From-Cache";
const PARALLEL_FETCHES = 4;

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface OfflineManifest {
  build: string;
  files: ManifestFile[];
}

export interface CacheLike {
  match(key: string): Promise<Response | undefined>;
  put(key: string, response: Response): Promise<void>;
}

export interface CacheStore {
  open(name: string): Promise<CacheLike>;
  has(name: string): Promise<boolean>;
  keys(): Promise<string[]>;
  delete(name: string): Promise<boolean>;
}

export type Route = "pass" | "page" | "probe" | "file";

export function cacheName(build: string): string {
  return CACHE_PREFIX + build;
}

/** The manifest in `data`, or null when it is not one (a file without a path, size or digest). */
export function parseManifest(data: unknown): OfflineManifest | null {
  if (typeof data !== "object" || data === null) return null;
  const { build, files } = data as { build?: unknown; files?: unknown };
  if (typeof build !== "string" || !/^[0-9A-Za-z_-]+$/.test(build) || !Array.isArray(files)) return null;
  const good = files.filter(
    (f: Partial<ManifestFile> | null): f is ManifestFile =>
      typeof f?.path === "string" &&
      f.path.startsWith("/") &&
      typeof f.size === "number" &&
      typeof f.sha256 === "string" &&
      /^[0-9a-f]{64}$/.test(f.sha256),
  );
  return good.length === files.length && good.length > 0 ? { build, files: good } : null;
}

/**
 * How the service worker answers a request: `pass` (not ours to touch: another origin, anything but GET,
 * and `/api/`, which is never cached), `page` (a navigation: network first, the cached page when the
 * server does not answer), `probe` (the manifest: network first, marked when it comes from the cache),
 * `file` (the build's cache first, the network when it is not there).
 */
export function routeOf(url: URL, origin: string, method: string, mode: string): Route {
  if (url.origin !== origin || method !== "GET") return "pass";
  if (url.pathname === "/api" || url.pathname.startsWith("/api/")) return "pass";
  if (mode === "navigate") return "page";
  if (url.pathname === MANIFEST_PATH) return "probe";
  return "file";
}

/** The build a page says it is (its `tidepool-build` meta), or null. */
export function buildOfPage(html: string): string | null {
  return /<meta name="tidepool-build" content="([0-9A-Za-z_-]+)">/.exec(html)?.[1] ?? null;
}

export async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Fill the cache of `manifest`'s build with every file `fetchFile` gets, each checked against its
 * digest, then mark it complete. Any failure deletes the partial cache and throws (with the file's path).
 */
export async function fillCache(
  store: CacheStore,
  manifest: OfflineManifest,
  fetchFile: (path: string) => Promise<Response>,
): Promise<void> {
  const name = cacheName(manifest.build);
  try {
    const cache = await store.open(name);
    const queue = [...manifest.files];
    const worker = async (): Promise<void> => {
      for (let file = queue.shift(); file; file = queue.shift()) await cacheFile(cache, file, fetchFile);
    };
    await Promise.all(Array.from({ length: PARALLEL_FETCHES }, worker));
    await cache.put(MANIFEST_PATH, jsonResponse(manifest));
    await cache.put(COMPLETE_KEY, new Response(manifest.build));
  } catch (err) {
    await store.delete(name);
    throw err;
  }
}

async function cacheFile(
  cache: CacheLike,
  file: ManifestFile,
  fetchFile: (path: string) => Promise<Response>,
): Promise<void> {
  const response = await fetchFile(file.path);
  if (!response.ok) throw new Error(`${file.path} answered ${response.status}`);
  const bytes = await response.arrayBuffer();
  if ((await sha256Hex(bytes)) !== file.sha256) throw new Error(`${file.path} does not match its sha256`);
  // The response's own headers are kept: the sandbox's bootstrap runs under the CSP it was served with.
  const headers = new Headers(response.headers);
  await cache.put(file.path, new Response(bytes, { status: response.status, headers }));
}

function jsonResponse(value: unknown): Response {
  return new Response(JSON.stringify(value), { headers: { "Content-Type": "application/json" } });
}

/** The cache of `build` when it is complete, else null (nothing is ever served from a partial one). */
export async function completeCache(store: CacheStore, build: string): Promise<CacheLike | null> {
  const name = cacheName(build);
  if (!(await store.has(name))) return null;
  const cache = await store.open(name);
  const marker = await cache.match(COMPLETE_KEY);
  return marker && (await marker.text()) === build ? cache : null;
}

/** Delete every other build's cache, once `build`'s is complete; returns the names deleted. */
export async function dropOtherBuilds(store: CacheStore, build: string): Promise<string[]> {
  if ((await completeCache(store, build)) === null) return [];
  const old = (await store.keys()).filter((name) => name.startsWith(CACHE_PREFIX) && name !== cacheName(build));
  for (const name of old) await store.delete(name);
  return old;
}

/** The bytes held by `build`'s complete cache (its manifest's sizes), or 0. */
export async function cachedBytes(store: CacheStore, build: string): Promise<number> {
  const cache = await completeCache(store, build);
  const stored = await cache?.match(MANIFEST_PATH);
  const manifest = stored ? parseManifest(await stored.json()) : null;
  return manifest ? manifest.files.reduce((sum, f) => sum + f.size, 0) : 0;
}
