import { describe, expect, it } from "vitest";
import {
  COMPLETE_KEY,
  MANIFEST_PATH,
  buildOfPage,
  cacheName,
  cachedBytes,
  completeCache,
  dropOtherBuilds,
  fillCache,
  parseManifest,
  routeOf,
  sha256Hex,
  type CacheLike,
  type CacheStore,
  type OfflineManifest,
} from "../src/offline/cache";

/** Cache Storage in memory: named caches of responses by key (all the offline cache uses of it). */
class MemoryStore implements CacheStore {
  readonly caches = new Map<string, Map<string, Response>>();
  open(name: string): Promise<CacheLike> {
    const entries = this.caches.get(name) ?? new Map<string, Response>();
    this.caches.set(name, entries);
    return Promise.resolve({
      match: (key: string) => Promise.resolve(entries.get(key)?.clone()),
      put: (key: string, response: Response) => Promise.resolve(void entries.set(key, response)),
    });
  }
  has(name: string): Promise<boolean> {
    return Promise.resolve(this.caches.has(name));
  }
  keys(): Promise<string[]> {
    return Promise.resolve([...this.caches.keys()]);
  }
  delete(name: string): Promise<boolean> {
    return Promise.resolve(this.caches.delete(name));
  }
}

const FILES: Record<string, string> = {
  "/index.html": '<head><meta name="tidepool-build" content="b2">',
  "/sandbox/bootstrap.js": "self.onmessage = () => {};",
  "/wheels/a-1.0-py3-none-any.whl": "wheel bytes",
};
const POLICY = "default-src 'none'; script-src http://127.0.0.1:8000/pyodide/";

async function manifestOf(build: string, files = FILES): Promise<OfflineManifest> {
  const entries = Object.entries(files).map(async ([path, text]) => ({
    path,
    size: text.length,
    sha256: await sha256Hex(new TextEncoder().encode(text).buffer),
  }));
  return { build, files: await Promise.all(entries) };
}

function server(files = FILES): (path: string) => Promise<Response> {
  return (path) => {
    const text = files[path];
    if (text === undefined) return Promise.resolve(new Response("missing", { status: 404 }));
    const headers = path === "/sandbox/bootstrap.js" ? { "Content-Security-Policy": POLICY } : undefined;
    return Promise.resolve(new Response(text, { headers }));
  };
}

describe("the offline cache", () => {
  it("caches every file with its headers, then marks the cache complete", async () => {
    const store = new MemoryStore();
    const manifest = await manifestOf("b2");
    await fillCache(store, manifest, server());
    const cache = await completeCache(store, "b2");
    expect(cache).not.toBeNull();
    const bootstrap = await cache?.match("/sandbox/bootstrap.js");
    expect(bootstrap?.headers.get("Content-Security-Policy")).toBe(POLICY);
    expect(await (await cache?.match(MANIFEST_PATH))?.json()).toEqual(manifest);
    expect(await cachedBytes(store, "b2")).toBe(Object.values(FILES).join("").length);
  });

  it("refuses a file whose bytes do not match its sha256, and leaves no partial cache", async () => {
    const store = new MemoryStore();
    const manifest = await manifestOf("b2");
    const tampered = { ...FILES, "/wheels/a-1.0-py3-none-any.whl": "other bytes" };
    await expect(fillCache(store, manifest, server(tampered))).rejects.toThrow(/a-1.0-py3-none-any.whl.*sha256/);
    expect(await store.keys()).toEqual([]);
    expect(await cachedBytes(store, "b2")).toBe(0);
  });

  it("refuses a file the server does not have", async () => {
    const store = new MemoryStore();
    const manifest = await manifestOf("b2", { ...FILES, "/assets/gone.js": "x" });
    await expect(fillCache(store, manifest, server())).rejects.toThrow("/assets/gone.js answered 404");
    expect(await store.has(cacheName("b2"))).toBe(false);
  });

  it("serves nothing from a cache without its completion mark", async () => {
    const store = new MemoryStore();
    const cache = await store.open(cacheName("b2"));
    await cache.put("/index.html", new Response("half a build"));
    expect(await completeCache(store, "b2")).toBeNull();
    await cache.put(COMPLETE_KEY, new Response("another build"));
    expect(await completeCache(store, "b2")).toBeNull();
  });

  it("deletes older builds only once the new one is complete, and never the app's other caches", async () => {
    const store = new MemoryStore();
    await fillCache(store, await manifestOf("b1"), server());
    await store.open("tidepool-snapshot-v1");
    await store.open(cacheName("b2")); // being filled
    expect(await dropOtherBuilds(store, "b2")).toEqual([]);
    expect(await store.has(cacheName("b1"))).toBe(true);
    await fillCache(store, await manifestOf("b2"), server());
    expect(await dropOtherBuilds(store, "b2")).toEqual([cacheName("b1")]);
    expect((await store.keys()).sort()).toEqual([cacheName("b2"), "tidepool-snapshot-v1"]);
  });
});

describe("what the service worker answers and how", () => {
  const origin = "http://127.0.0.1:8000";
  const route = (path: string, mode = "cors", method = "GET", where = origin): string =>
    routeOf(new URL(path, where), origin, method, mode);

  it("never touches /api/, other origins or anything but GET", () => {
    expect(route("/api/proxy?url=https://example.com/")).toBe("pass");
    expect(route("/api")).toBe("pass");
    expect(route("/index.html", "cors", "POST")).toBe("pass");
    expect(route("/v1/models", "cors", "GET", "http://127.0.0.1:11434")).toBe("pass");
  });

  it("sends navigations network first, the manifest as the probe, and files to the cache", () => {
    expect(route("/", "navigate")).toBe("page");
    expect(route("/sessions/x", "navigate")).toBe("page");
    expect(route(MANIFEST_PATH)).toBe("probe");
    expect(route("/pyodide/pyodide.asm.wasm")).toBe("file");
    expect(route("/apiary.js")).toBe("file");
  });

  it("reads a page's build and a manifest, refusing a malformed one", async () => {
    expect(buildOfPage('<head><meta name="tidepool-build" content="1aba78e5f93b122e"><title>')).toBe(
      "1aba78e5f93b122e",
    );
    expect(buildOfPage("<head><title>")).toBeNull();
    const manifest = await manifestOf("b2");
    expect(parseManifest(manifest)).toEqual(manifest);
    expect(parseManifest({ build: "b2", files: [] })).toBeNull();
    expect(parseManifest({ build: "b 2", files: manifest.files })).toBeNull();
    expect(parseManifest({ build: "b2", files: [...manifest.files, { path: "x", size: 1, sha256: "00" }] })).toBeNull();
  });
});
