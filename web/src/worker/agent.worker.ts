/**
 * The agent worker (a module worker): boots Pyodide and the runtime as a list of named steps,
 * reporting progress to the main thread, then hands every byte to and from the runtime to the
 * adapter. Python's own stdout/stderr (stray prints) are logged, never parsed as frames.
 */

import type { PyodideAPI } from "pyodide";
import { Adapter } from "./adapter";
import { BOOT_STEPS, TAKE_OVER_NAME, type BootStep, type MainToWorker, type WorkerToMain } from "./bridge";
import { Persistence } from "./persistence";
import { acquireWorkspaceLock } from "./workspace-lock";
import { SandboxRunner } from "../sandbox/runner";
import { sandboxHooks } from "./sandbox-exec";
import { handleWorkspaceRequest, WorkspaceFiles, type WorkspacePyFS } from "./workspace-fs";

interface WorkerScope {
  postMessage(message: WorkerToMain): void;
  addEventListener(type: "message", listener: (event: MessageEvent<MainToWorker>) => void): void;
  addEventListener(type: "unhandledrejection", listener: (event: PromiseRejectionEvent) => void): void;
  location: { origin: string };
  name: string;
}

interface Manifest {
  wheels: { file: string; sha256: string }[];
}

type Feed = (bytes: Uint8Array) => void;

const scope = self as unknown as WorkerScope;
// Absolute, so the Vite dev server does not treat it as a module of the app (it lives in public/).
const PYODIDE_URL = new URL("/pyodide/pyodide.mjs", scope.location.origin).href;
const HANDSHAKE_TIMEOUT_MS = 60_000;
const post = (message: WorkerToMain): void => scope.postMessage(message);

const sandbox = new SandboxRunner(scope.location.origin);
const adapter = new Adapter({
  toRuntime: (bytes) => feedRuntime(bytes),
  toMain: post,
  appOrigin: scope.location.origin,
  ...sandboxHooks(sandbox),
});
/** The files panel's access to /workspace (set once storage is restored). */
let workspaceFiles: WorkspaceFiles | null = null;

let feed: Feed | null = null;
const pendingToRuntime: Uint8Array[] = [];

function feedRuntime(bytes: Uint8Array): void {
  if (feed) feed(bytes);
  else pendingToRuntime.push(bytes);
}

function progress(step: BootStep, fraction = 0): void {
  const index = BOOT_STEPS.findIndex((s) => s.step === step);
  const label = BOOT_STEPS[index]?.label ?? step;
  post({ type: "boot_progress", step, index, total: BOOT_STEPS.length, label, fraction });
}

async function loadPython(): Promise<PyodideAPI> {
  progress("load-pyodide");
  const mod = (await import(/* @vite-ignore */ PYODIDE_URL)) as typeof import("pyodide");
  const pyodide = await mod.loadPyodide({ indexURL: "/pyodide/" });
  pyodide.setStdout({ batched: (line: string) => post({ type: "log", source: "stdout", level: "info", message: line }) });
  pyodide.setStderr({ batched: (line: string) => post({ type: "log", source: "stderr", level: "warning", message: line }) });
  return pyodide;
}

async function fetchManifest(): Promise<Manifest> {
  progress("fetch-manifest");
  const response = await fetch("/wheels/manifest.json", { cache: "no-cache" });
  if (!response.ok) throw new Error(`/wheels/manifest.json answered ${response.status}`);
  const manifest = (await response.json()) as Manifest;
  if (!Array.isArray(manifest.wheels) || manifest.wheels.length === 0) throw new Error("the wheel manifest is empty");
  return manifest;
}

async function installWheels(pyodide: PyodideAPI, manifest: Manifest): Promise<void> {
  const total = manifest.wheels.length;
  const buffers = manifest.wheels.map(async (wheel) => {
    const response = await fetch(`/wheels/${encodeURIComponent(wheel.file)}`);
    if (!response.ok) throw new Error(`/wheels/${wheel.file} answered ${response.status}`);
    const buf = await response.arrayBuffer();
    await checkDigest(wheel.file, buf, wheel.sha256);
    return buf;
  });
  // Into site-packages explicitly: unpackArchive's default is the current directory.
  const extractDir = String(pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')"));
  for (const [i, wheel] of manifest.wheels.entries()) {
    progress("install-wheels", i / total);
    const buf = await buffers[i];
    if (!buf) throw new Error(`missing ${wheel.file}`);
    pyodide.unpackArchive(new Uint8Array(buf), "wheel", { extractDir });
  }
  progress("install-wheels", 1);
}

async function checkDigest(file: string, buf: ArrayBuffer, expected: string): Promise<void> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== expected.toLowerCase()) throw new Error(`${file} does not match its sha256 in the manifest`);
}

/**
 * Copy saved state and workspace files from OPFS into Pyodide's FS. Only the tab holding the
 * workspace's lock saves; without OPFS nothing is saved.
 */
async function restoreStorage(pyodide: PyodideAPI): Promise<void> {
  progress("restore-storage");
  const persistence = await Persistence.open(pyodide.FS);
  if (!persistence) {
    pyodide.FS.mkdirTree("/workspace");
    workspaceFiles = new WorkspaceFiles(pyodide.FS as unknown as WorkspacePyFS, null);
    post({ type: "log", source: "adapter", level: "warning", message: "no OPFS here: nothing will be saved" });
    return;
  }
  let saving = true;
  const lock = await acquireWorkspaceLock("default", scope.name === TAKE_OVER_NAME, () => {
    saving = false;
    post({ type: "workspace_lock", state: "lost" });
  });
  post({ type: "workspace_lock", state: lock });
  const restored = await persistence.restore();
  const saveWorkspace = (paths: string[]) =>
    saving
      ? persistence.flush({ what: "workspace", paths })
      : Promise.resolve({ ok: false, code: "storage_failed", message: "another tab took this workspace over" } as const);
  workspaceFiles = new WorkspaceFiles(pyodide.FS as unknown as WorkspacePyFS, lock === "held" ? saveWorkspace : null);
  if (lock === "held") {
    adapter.enableFlush((request) =>
      saving
        ? persistence.flush(request)
        : Promise.resolve({ ok: false, code: "storage_failed", message: "another tab took this workspace over" }),
    );
  }
  const message = `restored ${restored.stateFiles} state file(s) and ${restored.workspaceFiles} workspace file(s)`;
  post({ type: "log", source: "adapter", level: "info", message });
}

function startRuntime(pyodide: PyodideAPI): void {
  progress("start-runtime");
  const binding = pyodide.pyimport("runtime.host.pyodide_binding") as unknown as {
    start(onBytes: (data: unknown) => void): Feed;
  };
  feed = binding.start((data: unknown) => adapter.onRuntimeBytes(toBytes(data)));
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
  try {
    const pyodide = await loadPython();
    step = "fetch-manifest";
    const manifest = await fetchManifest();
    step = "install-wheels";
    await installWheels(pyodide, manifest);
    step = "restore-storage";
    await restoreStorage(pyodide);
    step = "start-runtime";
    adapter.start();
    startRuntime(pyodide);
    step = "handshake";
    progress("handshake");
    await adapter.whenReady(HANDSHAKE_TIMEOUT_MS);
    sandbox.warmUp().catch((err: unknown) => {
      post({ type: "log", source: "adapter", level: "warning", message: `the code sandbox did not start: ${String(err)}` });
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
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
  if (message.type !== "workspace") return adapter.onMain(message);
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
