/**
 * The agent worker (a module worker): boots Pyodide and the runtime as a list of named steps,
 * reporting progress to the main thread, then hands every byte to and from the runtime to the
 * adapter. Python's own stdout/stderr (stray prints) are logged, never parsed as frames.
 */

import type { PyodideAPI } from "pyodide";
import { Adapter } from "./adapter";
import { Incoming, type IncomingFS } from "./incoming";
import { OpfsRecordingStore } from "./recording-store";
import {
  BOOT_STEPS,
  TAKE_OVER_NAME,
  type BootStep,
  type MainToWorker,
  type WorkerToMain,
} from "../protocol/main-worker-messages";
import { Persistence, type WorkspaceFolders } from "./persistence";
import { acquireWorkspaceLock, type LockState } from "./workspace-lock";
import { ReadAhead } from "./workspace-ahead";
import { SandboxRunner } from "../sandbox/runner";
import { sandboxSnapshotStore } from "../sandbox/snapshot";
import { sandboxHooks } from "./sandbox-exec";
import { handleWorkspaceRequest, WorkspaceFiles, type WorkspacePyFS } from "./workspace-fs";
import { pyodideEntry, type Feed } from "./python-entry";
import { cacheSnapshotStore } from "./snapshot";
import { loadPython, type LoadedPython } from "./load-python";
import { fetchManifest, fetchWheels, placeWheels } from "./wheels";

interface WorkerScope {
  postMessage(message: WorkerToMain): void;
  addEventListener(type: "message", listener: (event: MessageEvent<MainToWorker>) => void): void;
  addEventListener(type: "unhandledrejection", listener: (event: PromiseRejectionEvent) => void): void;
  location: { origin: string };
  name: string;
}

const scope = self as unknown as WorkerScope;
// Absolute, so the Vite dev server does not treat it as a module of the app (it lives in public/).
const PYODIDE_URL = new URL("/pyodide/pyodide.mjs", scope.location.origin).href;
const HANDSHAKE_TIMEOUT_MS = 60_000;
/** A snapshot's sha256 is checked this long after `ready`, once the opening's work (the stored
 * conversation shown) is done: hashing it is ~40 ms of a core (snapshot.ts). */
const VERIFY_AFTER_READY_MS = 1_000;
const post = (message: WorkerToMain): void => scope.postMessage(message);

const snapshots = cacheSnapshotStore(scope.location.origin);
const sandbox = new SandboxRunner(scope.location.origin);
/** The parts of Pyodide's `FS` (typed `any` by pyodide) used in this worker. */
type PythonFS = WorkspacePyFS & IncomingFS;
const fsOf = (pyodide: PyodideAPI): PythonFS => pyodide.FS as PythonFS;
/** Python's file system once Pyodide is loaded (requests with files only come after `ready`). */
let pythonFS: PythonFS | null = null;
function pyFS(): PythonFS {
  if (!pythonFS) throw new Error("Python is not loaded yet");
  return pythonFS;
}
const adapter = new Adapter({
  toRuntime: (bytes) => feedRuntime(bytes),
  toMain: post,
  appOrigin: scope.location.origin,
  ...sandboxHooks(sandbox),
  incoming: new Incoming({
    mkdirTree: (path) => pyFS().mkdirTree(path),
    writeFile: (path, data) => pyFS().writeFile(path, data),
    unlink: (path) => pyFS().unlink(path),
    readFile: (path) => pyFS().readFile(path),
  }),
});
/** The files panel's access to /workspace (set once storage is restored). */
let workspaceFiles: WorkspaceFiles | null = null;

let feed: Feed | null = null;
const pendingToRuntime: Uint8Array[] = [];

function feedRuntime(bytes: Uint8Array): void {
  if (feed) feed(bytes);
  else pendingToRuntime.push(bytes);
}

const stepStarts: string[] = [];
/** A point inside a step, for the boot's log line (worker clock, ms). */
function mark(name: string): void {
  stepStarts.push(`${name}@${Math.round(performance.now())}`);
}
/** A step begins: the status bar shows its label and how many steps are done. */
function progress(step: BootStep): void {
  mark(step);
  const index = BOOT_STEPS.findIndex((s) => s.step === step);
  const label = BOOT_STEPS[index]?.label ?? step;
  post({ type: "boot_progress", step, index, total: BOOT_STEPS.length, label });
}

function log(level: "info" | "warning", message: string): void {
  post({ type: "log", source: "adapter", level, message });
}

/** Each stored session's model traffic survives reloads (recording-export). */
async function keepRecordings(): Promise<void> {
  const log = (message: string): void => post({ type: "log", source: "adapter", level: "warning", message });
  try {
    adapter.keepRecordings(await OpfsRecordingStore.open("default", log));
  } catch (err) {
    log(`recordings are kept for this page only: ${String(err)}`);
  }
}

/**
 * What a boot opens while Python loads (none of it needs Python): the workspace's OPFS folders, its lock,
 * and, once the lock is settled, the folders the first turn lists (workspace-ahead.ts).
 */
interface EarlyStorage {
  folders: Promise<WorkspaceFolders | null>;
  lock: Promise<LockState>;
  ahead: ReadAhead;
  /** `handler` runs when another tab takes the workspace over (at once if one already has). */
  onLost(handler: () => void): void;
}

function openStorage(): EarlyStorage {
  let lost = false;
  let handler: (() => void) | null = null;
  const lock = acquireWorkspaceLock("default", scope.name === TAKE_OVER_NAME, () => {
    lost = true;
    handler?.();
  });
  const onLost = (then: () => void): void => {
    handler = then;
    if (lost) then();
  };
  const folders = Persistence.folders();
  // Only the tab that holds the lock reads ahead: in another, the writing tab may change what it read.
  const held = Promise.all([folders, lock]).then(([found, state]) =>
    state === "held" ? (found?.files ?? null) : null,
  );
  const ahead = new ReadAhead(held);
  return { folders, lock, ahead, onLost };
}

/**
 * Open the saved state on OPFS and the workspace on demand (nothing of it is read here). Only the
 * tab holding the workspace's lock saves; without OPFS nothing is saved.
 */
async function restoreStorage(pyodide: PyodideAPI, storage: EarlyStorage): Promise<void> {
  progress("restore-storage");
  const fs = fsOf(pyodide);
  const persistence = await Persistence.open(fs, storage.folders);
  if (!persistence) {
    fs.mkdirTree("/workspace");
    workspaceFiles = new WorkspaceFiles(fs, null);
    post({ type: "log", source: "adapter", level: "warning", message: "no OPFS here: nothing will be saved" });
    return;
  }
  let saving = true;
  const lock = await storage.lock;
  mark("storage-opened");
  post({ type: "workspace_lock", state: lock });
  storage.onLost(() => {
    saving = false;
    persistence.release(); // the tab taking over opens the state's files
    post({ type: "workspace_lock", state: "lost" });
  });
  persistence.workspace.useReadAhead(storage.ahead);
  const restored = await persistence.restore(lock === "held");
  adapter.enableWorkspaceFetch(persistence.workspace);
  const saveWorkspace = (paths: string[]) =>
    saving
      ? persistence.flush({ what: "workspace", paths })
      : Promise.resolve({
          ok: false,
          code: "storage_failed",
          message: "another tab took this workspace over",
        } as const);
  workspaceFiles = new WorkspaceFiles(fs, lock === "held" ? saveWorkspace : null, persistence.workspace);
  if (lock === "held") {
    void keepRecordings();
    adapter.enableFlush((request) =>
      saving
        ? persistence.flush(request)
        : Promise.resolve({ ok: false, code: "storage_failed", message: "another tab took this workspace over" }),
    );
  }
  const message = `restored ${restored.stateFiles} state file(s); workspace files are read from OPFS as they are used`;
  post({ type: "log", source: "adapter", level: "info", message });
}

function startRuntime(pyodide: PyodideAPI): void {
  progress("start-runtime");
  feed = pyodideEntry(pyodide).start((data: unknown) => adapter.onRuntimeBytes(toBytes(data)));
  for (const bytes of pendingToRuntime.splice(0)) feed(bytes);
}

/** Whatever Python handed us (a Uint8Array, or a PyProxy of bytes) as a Uint8Array we own. */
function toBytes(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data.slice();
  if (data instanceof ArrayBuffer) return new Uint8Array(data.slice(0));
  if (typeof data === "string") return new TextEncoder().encode(data);
  if (typeof data === "object" && data !== null && "toJs" in data) {
    const proxy = data as { toJs(): unknown; destroy?: () => void };
    const value = proxy.toJs();
    proxy.destroy?.();
    if (value instanceof Uint8Array) return value;
  }
  throw new TypeError("the runtime wrote something that is not bytes");
}

async function boot(): Promise<void> {
  let step: BootStep = "load-pyodide";
  let loaded: LoadedPython | null = null;
  try {
    const storage = openStorage();
    const manifestPromise = fetchManifest();
    // The wheels download while Python loads.
    const wheelsPromise = manifestPromise.then(fetchWheels);
    wheelsPromise.catch(() => undefined); // a manifest failure is reported at fetch-manifest
    loaded = await loadPython(manifestPromise, {
      pyodideUrl: PYODIDE_URL,
      snapshots,
      sandboxSnapshots: sandboxSnapshotStore(scope.location.origin),
      mark,
      progress,
      log,
      post,
    });
    const { pyodide, mode, key } = loaded;
    pythonFS = fsOf(pyodide);
    step = "fetch-manifest";
    progress("fetch-manifest");
    const manifest = await manifestPromise;
    step = "install-wheels";
    progress("install-wheels");
    await placeWheels(pyodide, manifest, await wheelsPromise);
    if (mode === "from-snapshot") log("info", "booted Python from the stored snapshot");
    post({
      type: "python_boot",
      fromSnapshot: mode === "from-snapshot",
      snapshotWanted: (mode === "plain" && key !== null && snapshots !== null) || (await loaded.sandboxSnapshotMissing),
    });
    step = "restore-storage";
    await restoreStorage(pyodide, storage);
    step = "start-runtime";
    adapter.start();
    startRuntime(pyodide);
    step = "handshake";
    progress("handshake");
    await adapter.whenReady(HANDSHAKE_TIMEOUT_MS);
    const line = `boot (${mode}): ${stepStarts.join(" ")} ready@${Math.round(performance.now())}`;
    log("info", `${line} ms`);
    const verify = loaded.verify;
    if (verify) setTimeout(() => void verify(), VERIFY_AFTER_READY_MS);
    sandbox.warmUp().catch((err: unknown) => {
      post({
        type: "log",
        source: "adapter",
        level: "warning",
        message: `the code sandbox did not start: ${String(err)}`,
      });
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // A boot that failed after loading from a snapshot must not fail the same way next visit.
    if (loaded?.mode === "from-snapshot" && loaded.key) await snapshots?.drop(loaded.key).catch(() => undefined);
    post({ type: "boot_failed", step, message: cleanTraceback(message) });
  }
}

/** Keep a Python traceback readable: drop Pyodide's internal frames. */
function cleanTraceback(message: string): string {
  return message
    .split("\n")
    .filter((line) => !line.includes("/lib/python3") || !line.includes("_pyodide"))
    .join("\n")
    .trim();
}

scope.addEventListener("message", (event) => {
  const message = event.data;
  // The sandbox is in this worker: its package indexes go to it directly, not through Python.
  if (message.type === "configure") sandbox.useIndexes(message.packageIndexUrls ?? null);
  if (message.type !== "workspace") return adapter.onMain(message);
  if (message.request.op === "upload" || message.request.op === "delete") adapter.presend.drop();
  void handleWorkspaceRequest(workspaceFiles, message.request).then((result) => {
    post({ type: "reply", requestId: message.requestId, result });
    if (result.ok && "changed" in result.value) post({ type: "workspace_changed", paths: result.value.changed });
  });
});
scope.addEventListener("unhandledrejection", (event) => {
  const reason: unknown = event.reason;
  post({ type: "log", source: "adapter", level: "error", message: `unhandled: ${String(reason)}` });
});
void boot();
