/**
 * The sandbox worker's self-check (web/public/sandbox/sandbox-worker.js): it runs nothing unless its origin
 * is opaque and the app's storage does not open in it. The worker's own source is evaluated in a fresh
 * context standing in for a worker global, once per browser behaviour, and sent `init`; what it posts back
 * is checked. The real browser path (opaque and closed, so it boots) is tests/e2e/test_sandbox.py.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { parseFromSandbox } from "../src/protocol/sandbox-messages";

const SOURCE = readFileSync(fileURLToPath(new URL("../public/sandbox/sandbox-worker.js", import.meta.url)), "utf8");

type Posted = { type: string; message?: string };
const denied = () => {
  throw new DOMException("access denied", "SecurityError");
};

/** An IndexedDB whose `open` succeeds (what a page of the app's own origin gets). */
function openingIndexedDB(): unknown {
  return {
    open() {
      const request: Record<string, unknown> = { result: { close() {} }, error: null };
      setTimeout(() => (request.onsuccess as () => void)(), 0);
      return request;
    },
    deleteDatabase() {},
  };
}

const CLOSED = {
  origin: "null",
  indexedDB: { open: denied, deleteDatabase: denied },
  navigator: { storage: { getDirectory: () => Promise.reject(new DOMException("no", "SecurityError")) } },
  caches: { keys: () => Promise.reject(new DOMException("no", "SecurityError")) },
};

/** Run the worker's source in a context with `globals`, send `init`, and collect what it posts for a while. */
async function initIn(globals: Record<string, unknown>): Promise<Posted[]> {
  const posted: Posted[] = [];
  const listeners: ((event: { data: unknown }) => void)[] = [];
  const self: Record<string, unknown> = {
    ...globals,
    postMessage: (message: Posted) => posted.push(message),
    addEventListener: (type: string, listener: (event: { data: unknown }) => void) => {
      if (type === "message") listeners.push(listener);
    },
  };
  const context = vm.createContext({ self, setTimeout, clearTimeout, Promise, JSON, TextDecoder, DOMException });
  vm.runInContext(SOURCE, context);
  for (const listener of listeners)
    listener({ data: { type: "init", origin: "http://127.0.0.1:8000", driver: "", network: false, grant: null } });
  for (let i = 0; i < 50 && posted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return posted;
}

describe("the sandbox's self-check at start", () => {
  it.each([
    { name: "its origin is the app's", globals: { ...CLOSED, origin: "http://127.0.0.1:8000" }, says: "not opaque" },
    { name: "its origin is missing", globals: { ...CLOSED, origin: undefined }, says: "not opaque" },
    { name: "IndexedDB opens", globals: { ...CLOSED, indexedDB: openingIndexedDB() }, says: "indexedDB.open opened" },
    {
      name: "OPFS opens",
      globals: { ...CLOSED, navigator: { storage: { getDirectory: () => Promise.resolve({}) } } },
      says: "navigator.storage.getDirectory opened",
    },
    {
      name: "Cache Storage opens",
      globals: { ...CLOSED, caches: { keys: () => Promise.resolve([]) } },
      says: "caches.keys opened",
    },
  ])("refuses to start when $name", async ({ globals, says }) => {
    const posted = await initIn(globals);
    expect(posted).toHaveLength(1);
    const [message] = posted;
    expect(message?.type).toBe("refused");
    expect(message?.message).toContain(says);
    expect(message?.message).toContain("does not isolate the sandbox from the app's storage");
    expect(parseFromSandbox(message)).toEqual(message); // the runner reads it (and shows it in the run's result)
  });

  it("goes on to boot Python when it is opaque and storage throws, is absent or rejects", async () => {
    for (const globals of [CLOSED, { origin: "null", navigator: {} }]) {
      const posted = await initIn(globals);
      // No Pyodide here, so the boot itself fails, after the check passed.
      expect(posted.map((m) => m.type)).toEqual(["boot_failed"]);
    }
  });
});

describe("the sandbox's boot messages", () => {
  it("say how Pyodide started, and that a snapshot did not restore", () => {
    expect(parseFromSandbox({ type: "ready", boot: "snapshot" })).toEqual({ type: "ready", boot: "snapshot" });
    expect(parseFromSandbox({ type: "ready" })).toEqual({ type: "ready", boot: "plain" });
    expect(parseFromSandbox({ type: "ready", boot: "anything" })).toEqual({ type: "ready", boot: "plain" });
    const failed = { type: "snapshot_failed", message: "RangeError: offset is out of bounds" };
    expect(parseFromSandbox(failed)).toEqual(failed);
    expect(parseFromSandbox({ type: "snapshot_failed" })).toBeNull();
  });
});
