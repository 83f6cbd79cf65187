/**
 * SandboxRunner: runs `exec_request`s for run_python in an opaque-origin sandbox worker (sandbox.ts),
 * never in the runtime's interpreter. It fetches /sandbox/sandbox-worker.js and tidepool_sandbox.py
 * once, keeps one sandbox warm, runs one request at a time, and replaces a sandbox that timed out,
 * crashed or (by default) has served a run, so every run starts from a fresh interpreter.
 *
 * The warm sandbox has no network. A run approved with `network: true` gets a sandbox of its own whose
 * policy also allows the app's /api/proxy (booted for it, so it starts cold), which ends with the run,
 * and a proxy grant of its own that is revoked when it ends (grants.ts).
 * Packages are fetched by the runner (through /api/proxy, see install-fetch.ts) and handed in, from the
 * package indexes it was given (`useIndexes`: the worker hands it a test server's, straight from the page).
 *
 * Works from the page and from a module worker (the sandbox is then a nested dedicated worker): it
 * needs only `fetch`, `Worker` and the app's origin. Where the app stored its sandbox snapshot
 * (snapshot.ts), each new sandbox restores Pyodide from it instead of starting Python afresh.
 */

import { mintGrant } from "./grants";
import { fetchThroughProxy } from "./install-fetch";
import {
  failure,
  runInput,
  timeoutSeconds,
  type ExecRequest,
  type ExecResult,
  type SandboxBoot,
} from "../protocol/sandbox-messages";
import { Sandbox, type InstallFetch, type OutputListener, type SandboxSources } from "./sandbox";
import { dropSandboxSnapshot, readSandboxSnapshot, type SandboxSnapshot } from "./snapshot";

export interface RunnerOptions {
  /** How long a sandbox may take to boot Pyodide (ms). */
  bootTimeoutMs?: number;
  /**
   * `every-run` (default): a sandbox serves one run, then a fresh one boots in the background.
   * `on-failure`: a sandbox is reused (fresh globals and /workspace each run) until a run times out
   * or the sandbox crashes.
   */
  recycle?: "every-run" | "on-failure";
  /** How a run's packages are fetched (default: through the app's /api/proxy). */
  fetchForInstall?: InstallFetch;
  /** Whether new sandboxes restore the app's sandbox snapshot when there is one (default: true). */
  snapshots?: boolean;
}

const WORKER_PATH = "/sandbox/sandbox-worker.js";
const DRIVER_PATH = "/sandbox/tidepool_sandbox.py";
const DEFAULT_BOOT_TIMEOUT_MS = 90_000;

export class SandboxRunner {
  private readonly origin: string;
  private readonly bootTimeoutMs: number;
  private readonly recycle: "every-run" | "on-failure";
  private readonly fetchForInstall: InstallFetch;
  private sources: Promise<SandboxSources> | null = null;
  private warm: Sandbox | null = null;
  private active: Sandbox | null = null;
  private activeId: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private disposed = false;
  private indexUrls: string[] | null = null;
  private readonly snapshots: boolean;
  /** How the last sandbox that became ready booted (benchmarks, tests), null before any. */
  lastBoot: SandboxBoot | null = null;

  /** `origin`: the app's origin (`location.origin` in the page or in the agent worker). Starts nothing. */
  constructor(origin: string, options: RunnerOptions = {}) {
    this.origin = origin.replace(/\/+$/, "");
    this.bootTimeoutMs = options.bootTimeoutMs ?? DEFAULT_BOOT_TIMEOUT_MS;
    this.recycle = options.recycle ?? "every-run";
    this.fetchForInstall = options.fetchForInstall ?? ((url, accept) => fetchThroughProxy(this.origin, url, accept));
    this.snapshots = options.snapshots ?? true;
  }

  /** Boot a sandbox now so the next run does not wait; resolves when it is ready. */
  async warmUp(): Promise<void> {
    const sandbox = await this.warmSandbox();
    await sandbox.whenReady(this.bootTimeoutMs);
  }

  /** The package indexes micropip installs from; null or empty: PyPI. */
  useIndexes(urls: readonly string[] | null): void {
    this.indexUrls = urls && urls.length > 0 ? [...urls] : null;
  }

  /** Run one request; never rejects: every failure is an `ExecResult` with `ok: false`. */
  run(request: ExecRequest, onOutput?: OutputListener): Promise<ExecResult> {
    const id = request.id ?? `sandbox-run-${this.nextId++}`;
    const job = this.queue.then(() => this.runNow(id, request, onOutput));
    this.queue = job.catch(() => undefined);
    return job;
  }

  /** Stop the run with this id if it is the one in flight (its result: a `sandbox` error). */
  cancel(id: string): boolean {
    const sandbox = this.active;
    if (!sandbox || this.activeId !== id) return false;
    sandbox.terminate("the run was cancelled");
    return true;
  }

  /** Stop every sandbox; later runs answer a `sandbox` error. */
  dispose(): void {
    this.disposed = true;
    this.warm?.terminate("the sandbox was shut down");
    this.active?.terminate("the sandbox was shut down");
    this.warm = null;
    this.active = null;
  }

  private async runNow(id: string, request: ExecRequest, onOutput?: OutputListener): Promise<ExecResult> {
    if (this.disposed) return failure(id, "sandbox", "the sandbox was shut down");
    const network = request.network === true;
    let sandbox: Sandbox;
    try {
      sandbox = network ? await this.networkSandbox() : await this.warmSandbox();
      if (!network) this.warm = null;
      this.active = sandbox;
      this.activeId = id;
      await sandbox.whenReady(this.bootTimeoutMs);
    } catch (err) {
      this.active = null;
      this.activeId = null;
      return failure(id, "sandbox", describe(err));
    }
    const result = await sandbox.run(
      id,
      runInput(request, this.indexUrls),
      timeoutSeconds(request.timeout_s),
      onOutput,
    );
    this.active = null;
    this.activeId = null;
    const broken = sandbox.current !== "ready";
    if (broken || network || this.recycle === "every-run" || this.disposed) {
      sandbox.terminate();
      this.startInBackground();
    } else {
      this.warm = sandbox;
    }
    return result;
  }

  /** The warm sandbox, or a new one; throws when the sources cannot be fetched or the worker not made. */
  private async warmSandbox(): Promise<Sandbox> {
    if (this.warm && this.warm.current !== "dead") return this.warm;
    const [sources, snapshot] = await Promise.all([this.fetchSources(), this.snapshot()]);
    if (this.warm && this.warm.current !== "dead") return this.warm;
    if (this.disposed) throw new Error("the sandbox was shut down");
    const sandbox = this.newSandbox(sources, false, null, snapshot);
    this.warm = sandbox;
    // A sandbox that fails to boot is dropped, so the next run starts another (no restart loop).
    sandbox.whenReady(this.bootTimeoutMs).catch(() => {
      if (this.warm === sandbox) this.warm = null;
    });
    return sandbox;
  }

  /** A cold sandbox for one network run, with a proxy grant of its own (revoked when it ends). */
  private async networkSandbox(): Promise<Sandbox> {
    const [sources, snapshot] = await Promise.all([this.fetchSources(), this.snapshot()]);
    const grant = await mintGrant(this.origin);
    return this.newSandbox(sources, true, grant, snapshot);
  }

  private newSandbox(
    sources: SandboxSources,
    network: boolean,
    grant: string | null,
    snapshot: SandboxSnapshot | null,
  ): Sandbox {
    if (this.disposed) throw new Error("the sandbox was shut down");
    const onSnapshotFailed = (version: string): void => void dropSandboxSnapshot(this.origin, version).catch(() => {});
    const sandbox = new Sandbox(sources, this.origin, {
      network,
      grant,
      fetchForInstall: this.fetchForInstall,
      snapshot,
      onSnapshotFailed,
    });
    sandbox
      .whenReady(this.bootTimeoutMs)
      .then(() => (this.lastBoot = sandbox.boot))
      .catch(() => undefined);
    return sandbox;
  }

  /** The stored sandbox snapshot, read afresh for each sandbox (its bytes move into it); null without one. */
  private snapshot(): Promise<SandboxSnapshot | null> {
    return this.snapshots ? readSandboxSnapshot(this.origin).catch(() => null) : Promise.resolve(null);
  }

  private startInBackground(): void {
    if (this.disposed) return;
    this.warmSandbox().catch(() => undefined);
  }

  private fetchSources(): Promise<SandboxSources> {
    if (!this.sources) {
      this.sources = loadSources(this.origin);
      this.sources.catch(() => {
        this.sources = null; // try again on the next run
      });
    }
    return this.sources;
  }
}

async function loadSources(origin: string): Promise<SandboxSources> {
  const [worker, driver] = await Promise.all([fetchText(origin + WORKER_PATH), fetchText(origin + DRIVER_PATH)]);
  return { workerUrl: `data:text/javascript;base64,${base64Utf8(worker)}`, driver };
}

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
  if (!response.ok) throw new Error(`the sandbox could not be loaded: ${url} answered ${response.status}`);
  return response.text();
}

function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
