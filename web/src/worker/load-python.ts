/**
 * The agent worker's Python: Pyodide loaded from the stored memory snapshot when one checks out, or
 * plainly (snapshot.ts keeps the snapshots; the snapshot worker makes them after `ready`).
 */

import type { PyodideAPI } from "pyodide";
import type { BootStep, WorkerToMain } from "../protocol/main-worker-messages";
import { pyodideEntry } from "./python-entry";
import { checkSnapshot, DAMAGED, snapshotKey, type SnapshotStore } from "./snapshot";
import type { Manifest } from "./wheels";
import { sandboxSnapshotKey } from "../sandbox/snapshot";

/** What loading Python needs from the worker: where Pyodide is, the snapshots, and how to report. */
export interface PythonBoot {
  pyodideUrl: string;
  snapshots: SnapshotStore | null;
  /** The sandbox's snapshot store (sandbox/snapshot.ts): whether it lacks one for this Pyodide is asked. */
  sandboxSnapshots: SnapshotStore | null;
  /** A point inside a step, for the boot's log line. */
  mark: (name: string) => void;
  progress: (step: BootStep) => void;
  log: (level: "info" | "warning", message: string) => void;
  post: (message: WorkerToMain) => void;
}

type PyodideModule = typeof import("pyodide");

/** How this boot got its Python: from the stored snapshot, or plainly. */
type BootMode = "from-snapshot" | "plain";

export interface LoadedPython {
  pyodide: PyodideAPI;
  mode: BootMode;
  key: string | null;
  /** Whether the sandboxes' snapshot for this Pyodide is missing (the snapshot worker makes it too). */
  sandboxSnapshotMissing: Promise<boolean>;
  /** From a snapshot: check its sha256 (after `ready`), dropping it when it does not match. */
  verify?: () => Promise<void>;
}

/**
 * Load Pyodide: from the stored memory snapshot for this manifest when there is one that checks out
 * (a heap Pyodide can restore, the runtime's modules present; its sha256 after `ready`, see
 * snapshot.ts), otherwise plainly; a snapshot that fails any of these is dropped. The page makes a new
 * one after `ready` (snapshot worker). The manifest is fetched alongside. Pyodide waits for the checked
 * bytes to restore them, and a check that fails fails the load (then the boot goes on plainly).
 */
export async function loadPython(manifest: Promise<Manifest>, boot: PythonBoot): Promise<LoadedPython> {
  const { snapshots, mark, log } = boot;
  boot.progress("load-pyodide");
  const mod = (await import(/* @vite-ignore */ boot.pyodideUrl)) as PyodideModule;
  mark("pyodide-imported");
  // Asked beside the load (a Cache Storage lookup), read once Python is up.
  const sandboxSnapshotMissing = boot.sandboxSnapshots
    ? boot.sandboxSnapshots.state(sandboxSnapshotKey(mod.version)).then(
        (s) => s === "absent",
        () => false,
      )
    : Promise.resolve(false);
  const key = await manifest
    .then((m) =>
      snapshotKey(
        mod.version,
        m.wheels.map((w) => w.sha256),
      ),
    )
    .catch(() => null);
  const stored = key && snapshots ? await snapshots.find(key).catch(dropped) : null;
  if (key && stored) {
    const read = stored.read();
    try {
      const checked = read.then((bytes) => {
        mark("snapshot-read");
        const check = checkSnapshot(bytes);
        if (!check.ok) throw new Error(check.reason);
        return bytes;
      });
      checked.catch(() => undefined); // awaited by loadPyodide, unless it failed before it got there
      const pyodide = await mod.loadPyodide({ indexURL: "/pyodide/", _loadSnapshot: checked });
      forgetSnapshot(pyodide);
      mark("snapshot-restored");
      // A heap that loads but lacks the runtime's modules is no use: the entry checks before it is trusted.
      pyodideEntry(pyodide).check_snapshot();
      mark("snapshot-checked");
      const verify = async (): Promise<void> => {
        if (!(await stored.verify(await read))) await dropped(new Error(`${DAMAGED}; dropped after ready`));
      };
      return { pyodide: withStdio(pyodide, boot.post), mode: "from-snapshot", key, sandboxSnapshotMissing, verify };
    } catch (err) {
      // Damaged bytes are the likelier cause of a failed restore: say so when they are.
      const damaged = await read.then(async (bytes) => !(await stored.verify(bytes))).catch(() => false);
      await dropped(damaged ? new Error(DAMAGED) : err);
    }
  }
  const pyodide = await mod.loadPyodide({ indexURL: "/pyodide/" });
  return { pyodide: withStdio(pyodide, boot.post), mode: "plain", key, sandboxSnapshotMissing };

  async function dropped(err: unknown): Promise<null> {
    log(
      "warning",
      `the stored Python snapshot was not used, booting without it: ${err instanceof Error ? err.message : String(err)}`,
    );
    if (key) await snapshots?.drop(key).catch(() => undefined);
    return null;
  }
}

/**
 * Pyodide keeps the options it was loaded with (its `API.config`) for the instance's life, the snapshot's
 * 31 MB among them, though nothing reads them after the restore: let them go. (Pyodide under Node: array
 * buffers 53 → 23 MB after a GC.) Where a Pyodide keeps its options elsewhere this does nothing.
 */
export function forgetSnapshot(pyodide: PyodideAPI): void {
  const config = (pyodide as unknown as { _api?: { config?: { _loadSnapshot?: unknown } } })._api?.config;
  if (config) delete config._loadSnapshot;
}

/** Python's own stdout/stderr (stray prints) are logged, never parsed as frames. */
function withStdio(pyodide: PyodideAPI, post: (message: WorkerToMain) => void): PyodideAPI {
  pyodide.setStdout({
    batched: (line: string) => post({ type: "log", source: "stdout", level: "info", message: line }),
  });
  pyodide.setStderr({
    batched: (line: string) => post({ type: "log", source: "stderr", level: "warning", message: line }),
  });
  return pyodide;
}
