/**
 * One sandbox: a sandbox-worker.js module worker started from a `data:` URL (so its origin is opaque) by
 * the app's /sandbox/bootstrap.js, whose strict CSP it inherits (no network but /pyodide/ and
 * /wheels/sandbox/, plus /api/proxy when the sandbox was made for `network: true` runs). It boots its own
 * Pyodide from the app's /pyodide/ and runs one request at a time; a run past its time, a crash, or
 * `terminate()` ends the worker for good (the runner then starts a fresh one).
 *
 * Packages a run lists are fetched by the host, not the sandbox: while the run installs them (until the
 * sandbox says `installed`, before the run's own code starts) its micropip's `fetch` requests are handed
 * to `fetchForInstall`; at any other time they are refused.
 */

import { revokeGrant } from "./grants";
import type { SandboxSnapshot } from "./snapshot";
import { MAX_OWN_FETCHES, fetchOwnFile } from "./own-files";
import {
  failure,
  parseFromSandbox,
  type ExecResult,
  type FromSandbox,
  type RunInput,
  type SandboxBoot,
  type ToSandbox,
} from "../protocol/sandbox-messages";

/** What the host answers to an install-time fetch: the response, or it throws with a message. */
export interface FetchedBytes {
  status: number;
  contentType: string;
  body: ArrayBuffer;
}

export type InstallFetch = (url: string, accept: string | null) => Promise<FetchedBytes>;

export interface SandboxOptions {
  /** The bootstrap's policy lets the code reach the app's /api/proxy. */
  network: boolean;
  /** This sandbox's own proxy grant (network sandboxes only), revoked when it ends (see grants.ts). */
  grant?: string | null;
  /** How package index pages and wheels are fetched for a run's install. */
  fetchForInstall: InstallFetch;
  /** A fresh Pyodide's heap to restore instead of starting Python (snapshot.ts); moved into the sandbox. */
  snapshot?: SandboxSnapshot | null;
  /** The sandbox could not restore `snapshot` (made by Pyodide `version`) and booted plainly. */
  onSnapshotFailed?: (version: string) => void;
}

/** What a sandbox is made of, fetched once from the app (`/sandbox/`). */
export interface SandboxSources {
  /** sandbox-worker.js as a `data:text/javascript;base64,…` URL. */
  workerUrl: string;
  /** tidepool_sandbox.py, handed to the worker in `init`. */
  driver: string;
}

export type SandboxState = "booting" | "ready" | "running" | "dead";

/** Output of the running code as it comes. */
export type OutputListener = (stream: "stdout" | "stderr", text: string) => void;

interface PendingRun {
  id: string;
  stdout: string;
  stderr: string;
  onOutput?: OutputListener | undefined;
  timer: ReturnType<typeof setTimeout>;
  resolve: (result: ExecResult) => void;
}

const PARTIAL_OUTPUT_CHARS = 1024 * 1024;
const BOOTSTRAP_PATH = "/sandbox/bootstrap.js";
const MAX_INSTALL_FETCHES = 200;
/** Where PyPI's index pages and files live (the default index). */
const PYPI_HOSTS = ["pypi.org", "files.pythonhosted.org"];

/** The hosts a run's install may fetch from: its index URLs' hosts, or PyPI's. */
export function installHosts(indexUrls: string[] | null): Set<string> {
  if (indexUrls === null || indexUrls.length === 0) return new Set(PYPI_HOSTS);
  const hosts = new Set<string>();
  for (const url of indexUrls) {
    try {
      hosts.add(new URL(url.replaceAll("{package_name}", "x")).host);
    } catch {
      // not a URL: nothing from it is fetched
    }
  }
  return hosts;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

export class Sandbox {
  private readonly worker: Worker;
  private state: SandboxState = "booting";
  private booted: SandboxBoot | null = null;
  private deathReason = "";
  private pending: PendingRun | null = null;
  private bootWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  /** The id of the run whose packages are being installed (its fetches are served), else null. */
  private installing: string | null = null;
  private installFetches = 0;
  private installAllowed = new Set<string>();
  private ownFetches = 0;

  /** Starts the bootstrap worker and, through it, the sandbox; `new Worker` may throw. */
  constructor(
    sources: SandboxSources,
    private readonly origin: string,
    private readonly options: SandboxOptions,
  ) {
    const url = `${origin}${BOOTSTRAP_PATH}${options.network ? "?network=1" : ""}`;
    this.worker = new Worker(url, { type: "module", name: "tidepool-sandbox-bootstrap" });
    this.worker.addEventListener("message", (event: MessageEvent<unknown>) => this.onMessage(event.data));
    this.worker.addEventListener("error", (event: ErrorEvent) => {
      event.preventDefault();
      this.die(`the sandbox crashed: ${event.message || "the worker failed to start or threw"}`);
    });
    this.worker.addEventListener("messageerror", () => this.die("the sandbox sent a message that could not be read"));
    this.post({ type: "start", workerUrl: sources.workerUrl });
    const grant = options.network ? (options.grant ?? null) : null;
    const snapshot = options.snapshot ?? null;
    this.post({ type: "init", origin, driver: sources.driver, network: options.network, grant, snapshot }, [
      ...(snapshot ? [snapshot.bytes] : []),
    ]);
  }

  /** How Pyodide started once the sandbox is ready (restored from the snapshot, or plainly); null before. */
  get boot(): SandboxBoot | null {
    return this.booted;
  }

  /** Whether this sandbox's policy lets code reach /api/proxy. */
  get network(): boolean {
    return this.options.network;
  }

  get current(): SandboxState {
    return this.state;
  }

  /** Resolves once Pyodide has booted; rejects when it fails or does not boot within `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<void> {
    if (this.state === "ready" || this.state === "running") return Promise.resolve();
    if (this.state === "dead") return Promise.reject(new Error(this.deathReason));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.die(`the sandbox did not start within ${timeoutMs / 1000} s`), timeoutMs);
      this.bootWaiters.push({
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
    });
  }

  /** Run `input` (packages installed first); past `timeoutS` seconds the worker is terminated (a `timeout` result). */
  run(id: string, input: RunInput, timeoutS: number, onOutput?: OutputListener): Promise<ExecResult> {
    if (this.state !== "ready") {
      const why = this.state === "dead" ? this.deathReason : `the sandbox is ${this.state}`;
      return Promise.resolve(failure(id, "sandbox", why));
    }
    this.state = "running";
    this.installing = input.packages.length > 0 ? id : null;
    this.installFetches = 0;
    this.installAllowed = installHosts(input.index_urls);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.onTimeout(timeoutS), timeoutS * 1000);
      this.pending = { id, stdout: "", stderr: "", onOutput, timer, resolve };
      this.post({ type: "run", id, ...input });
    });
  }

  /** End the worker; a run in flight resolves with a `sandbox` error saying `reason`. */
  terminate(reason = "the sandbox was stopped"): void {
    this.die(reason);
  }

  private onTimeout(timeoutS: number): void {
    const run = this.pending;
    if (!run) return;
    this.pending = null;
    const message = `the code did not finish in time and was stopped after ${timeoutS} s`;
    run.resolve(failure(run.id, "timeout", message, run.stdout, run.stderr));
    this.die(message);
  }

  private onMessage(data: unknown): void {
    const message = parseFromSandbox(data);
    if (message === null) return;
    this.handle(message);
  }

  private handle(message: FromSandbox): void {
    switch (message.type) {
      case "ready":
        if (this.state !== "booting") return;
        this.state = "ready";
        this.booted = message.boot;
        for (const waiter of this.bootWaiters.splice(0)) waiter.resolve();
        return;
      case "snapshot_failed":
        // Only while booting: code that ran in this sandbox later cannot make the host drop the snapshot.
        if (this.state === "booting" && this.options.snapshot)
          this.options.onSnapshotFailed?.(this.options.snapshot.version);
        return;
      case "boot_failed":
        if (this.state === "booting") this.die(`the sandbox could not start Python: ${message.message}`);
        return;
      case "refused":
        if (this.state === "booting") this.die(`the sandbox refused to start: ${message.message}`);
        return;
      case "crashed":
        this.die(`the sandbox crashed: ${message.message}`);
        return;
      case "installed":
        if (this.installing === message.id) this.installing = null;
        return;
      case "fetch":
        void this.serveFetch(message.id, message.seq, message.url, message.accept);
        return;
      case "fetch_own":
        void this.serveOwnFile(message.seq, message.path);
        return;
      case "output": {
        const run = this.pending;
        if (!run || run.id !== message.id) return;
        const room = PARTIAL_OUTPUT_CHARS - run[message.stream].length;
        if (room > 0) run[message.stream] += message.text.slice(0, room);
        run.onOutput?.(message.stream, message.text);
        return;
      }
      case "result": {
        const run = this.pending;
        if (!run || run.id !== message.id) return;
        clearTimeout(run.timer);
        this.pending = null;
        this.installing = null;
        this.state = "ready";
        const { type: _type, ...fields } = message;
        run.resolve({ type: "exec_result", ...fields });
        return;
      }
    }
  }

  /** Answer an install-time fetch through `fetchForInstall`, or refuse it outside a run's install. */
  private async serveFetch(id: string, seq: number, url: string, accept: string | null): Promise<void> {
    if (this.installing === null || this.installing !== id || ++this.installFetches > MAX_INSTALL_FETCHES) {
      this.post({ type: "fetched", seq, ok: false, message: "the sandbox fetches nothing outside a package install" });
      return;
    }
    const host = hostOf(url);
    if (host === null || !this.installAllowed.has(host)) {
      const allowed = [...this.installAllowed].join(", ");
      this.post({ type: "fetched", seq, ok: false, message: `packages come only from ${allowed}, not ${host ?? url}` });
      return;
    }
    try {
      const got = await this.options.fetchForInstall(url, accept);
      if (this.state === "dead") return;
      this.post({ type: "fetched", seq, ok: true, status: got.status, contentType: got.contentType, body: got.body }, [
        got.body,
      ]);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (this.state !== "dead") this.post({ type: "fetched", seq, ok: false, message });
    }
  }

  /** Hand over one of the app's own files (see own-files.ts), at most MAX_OWN_FETCHES per sandbox. */
  private async serveOwnFile(seq: number, path: string): Promise<void> {
    try {
      if (++this.ownFetches > MAX_OWN_FETCHES) throw new Error("the sandbox asked for too many of the app's files");
      const got = await fetchOwnFile(this.origin, path);
      if (this.state === "dead") return;
      const answer = { type: "fetched", seq, ok: true, status: got.status, contentType: got.contentType } as const;
      this.post({ ...answer, body: got.body }, [got.body]);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (this.state !== "dead") this.post({ type: "fetched", seq, ok: false, message });
    }
  }

  private die(reason: string): void {
    if (this.state === "dead") return;
    this.state = "dead";
    this.installing = null;
    this.deathReason = reason;
    this.worker.terminate();
    if (this.options.grant) revokeGrant(this.origin, this.options.grant); // its code may have read it
    for (const waiter of this.bootWaiters.splice(0)) waiter.reject(new Error(reason));
    const run = this.pending;
    this.pending = null;
    if (run) {
      clearTimeout(run.timer);
      run.resolve(failure(run.id, "sandbox", reason, run.stdout, run.stderr));
    }
  }

  private post(message: ToSandbox, transfer: Transferable[] = []): void {
    this.worker.postMessage(message, transfer);
  }
}
