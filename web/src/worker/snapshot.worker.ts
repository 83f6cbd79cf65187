/**
 * The snapshot worker (a short-lived module worker started by the page after `ready`, when it is
 * idle): makes the memory snapshot the next visit boots from. A snapshot must come from a Pyodide
 * that imported the runtime's start-up modules but never started it, so this worker loads a fresh
 * Pyodide, places the same wheels, runs the entry's warm-up (runtime/pyodide_entry.py), checks the heap fits what Pyodide
 * can restore (too big: the refusal is recorded instead), stores it, posts one outcome and is done.
 * First, right after the load and before anything runs in it, the same Pyodide gives the sandbox's
 * snapshot (sandbox/snapshot.ts): a fresh interpreter's heap that run_python's sandboxes restore.
 */

import type { PyodideAPI } from "pyodide";
import type { SnapshotOutcome } from "../protocol/snapshot-messages";
import { pyodideEntry } from "./python-entry";
import { cacheSnapshotStore, checkSnapshot, snapshotKey, type SnapshotStore } from "./snapshot";
import { fetchManifest, fetchWheels, placeWheels } from "./wheels";
import { sandboxSnapshotKey, sandboxSnapshotStore } from "../sandbox/snapshot";

interface SnapshotScope {
  postMessage(message: SnapshotOutcome): void;
  location: { origin: string };
}

type PyodideModule = typeof import("pyodide");

const scope = self as unknown as SnapshotScope;
const PYODIDE_URL = new URL("/pyodide/pyodide.mjs", scope.location.origin).href;

async function make(): Promise<SnapshotOutcome> {
  const store = cacheSnapshotStore(scope.location.origin);
  if (!store) return { state: "failed", reason: "no Cache Storage in this context" };
  const t0 = performance.now();
  const manifest = await fetchManifest();
  const wheels = fetchWheels(manifest);
  const mod = (await import(/* @vite-ignore */ PYODIDE_URL)) as PyodideModule;
  const key = await snapshotKey(
    mod.version,
    manifest.wheels.map((w) => w.sha256),
  );
  const sandboxes = sandboxSnapshotStore(scope.location.origin);
  const sandboxKey = sandboxSnapshotKey(mod.version);
  const sandboxAbsent = (await sandboxes?.state(sandboxKey)) === "absent";
  const present = (await store.state(key)) !== "absent";
  if (present && !sandboxAbsent) return { state: "present" };
  const pyodide: PyodideAPI = await mod.loadPyodide({ indexURL: "/pyodide/", _makeSnapshot: true });
  if (sandboxes && sandboxAbsent) await saveSandboxSnapshot(sandboxes, sandboxKey, pyodide.makeMemorySnapshot());
  if (present) return { state: "present" };
  await placeWheels(pyodide, manifest, wheels);
  pyodideEntry(pyodide).warm_up();
  const bytes = pyodide.makeMemorySnapshot();
  const check = checkSnapshot(bytes);
  if (!check.ok) {
    await store.refuse(key, check.reason);
    return { state: "refused", bytes: bytes.byteLength, reason: check.reason };
  }
  await store.save(key, bytes);
  return { state: "stored", bytes: bytes.byteLength, ms: Math.round(performance.now() - t0) };
}

/**
 * Keep a fresh Pyodide's heap for the sandboxes. One too big to restore, or one the store would not take
 * (a full quota), is recorded as refused, so later visits do not load a Pyodide to try again; either way
 * the runtime's own snapshot is made after it. Without it the sandboxes boot plainly.
 */
async function saveSandboxSnapshot(store: SnapshotStore, key: string, bytes: Uint8Array): Promise<void> {
  const check = checkSnapshot(bytes);
  try {
    await (check.ok ? store.save(key, bytes) : store.refuse(key, check.reason));
  } catch (err) {
    await store.refuse(key, err instanceof Error ? err.message : String(err)).catch(() => undefined);
  }
}

make().then(
  (outcome) => scope.postMessage(outcome),
  (err: unknown) => scope.postMessage({ state: "failed", reason: err instanceof Error ? err.message : String(err) }),
);
