/**
 * Makes the Python memory snapshot for the next visit after this one is ready, when the page is
 * idle and no turn runs: a short-lived snapshot worker (worker/snapshot.worker.ts) boots a fresh
 * Pyodide, stores the snapshot and exits. Boot itself never pays for it. What happened is kept in
 * `data-snapshot` on the runtime-status element (tests and the benchmarks wait on it):
 * `loaded` (this boot came from a snapshot), `wanted`, `making`, `stored`, `present`, `refused`
 * (too big to restore), `failed`, or `none` (no snapshot storage here). The same worker makes the
 * sandboxes' snapshot (sandbox/snapshot.ts); a boot from the snapshot that finds only that one missing
 * has it made and keeps saying `loaded`.
 */

import type { SnapshotOutcome } from "./protocol/snapshot-messages";

/** A maker that has not answered after this long is stopped (a loaded machine boots slowly). */
const MAKER_TIMEOUT_MS = 300_000;
/** The longest wait for an idle moment before making the snapshot anyway (when no turn runs). */
const IDLE_TIMEOUT_MS = 10_000;
/** Right after `ready` the code sandbox warms up (another Pyodide): leave it the machine first. */
const AFTER_READY_MS = 2_000;

export type SnapshotMark = "loaded" | "wanted" | "making" | SnapshotOutcome["state"] | "none";

export interface SnapshotHost {
  mark(state: SnapshotMark): void;
  /** A turn is running: wait for the next idle moment. */
  busy(): boolean;
  log(message: string): void;
}

export class SnapshotScheduler {
  private wanted = false;
  private worker: Worker | null = null;
  private pending = false;
  private loaded = false; // this boot came from the snapshot: its mark stays `loaded`

  constructor(private readonly host: SnapshotHost) {}

  /** The agent worker loaded Python (see `python_boot`). */
  onBoot(fromSnapshot: boolean, snapshotWanted: boolean): void {
    this.wanted = snapshotWanted;
    this.loaded = fromSnapshot;
    if (!this.worker) this.host.mark(fromSnapshot ? "loaded" : snapshotWanted ? "wanted" : "none");
  }

  /** The runtime is ready: make the snapshot at the next idle moment if one is wanted. */
  onReady(): void {
    if (!this.wanted || this.worker || this.pending) return;
    this.pending = true;
    setTimeout(() => this.whenIdle(), AFTER_READY_MS);
  }

  private whenIdle(): void {
    this.pending = true;
    const run = (): void => {
      this.pending = false;
      if (!this.wanted || this.worker) return;
      if (this.host.busy()) return this.whenIdle();
      this.start();
    };
    if (typeof requestIdleCallback === "function") requestIdleCallback(run, { timeout: IDLE_TIMEOUT_MS });
    else setTimeout(run, 1_000);
  }

  private start(): void {
    this.wanted = false;
    if (!this.loaded) this.host.mark("making");
    const worker = new Worker(new URL("./worker/snapshot.worker.ts", import.meta.url), {
      type: "module",
      name: "tidepool-snapshot",
    });
    this.worker = worker;
    const timer = setTimeout(
      () => finish({ state: "failed", reason: `no answer in ${MAKER_TIMEOUT_MS / 1000} s` }),
      MAKER_TIMEOUT_MS,
    );
    const finish = (outcome: SnapshotOutcome): void => {
      clearTimeout(timer);
      worker.terminate();
      if (this.worker === worker) this.worker = null;
      if (!this.loaded) this.host.mark(outcome.state);
      this.host.log(describe(outcome));
    };
    worker.addEventListener("message", (event: MessageEvent<SnapshotOutcome>) => finish(event.data));
    worker.addEventListener("error", (event: ErrorEvent) => {
      event.preventDefault();
      finish({ state: "failed", reason: event.message || "the snapshot worker crashed" });
    });
  }
}

function describe(outcome: SnapshotOutcome): string {
  const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;
  switch (outcome.state) {
    case "stored":
      return `stored a Python snapshot (${mib(outcome.bytes)}, made in ${outcome.ms} ms) for the next visit`;
    case "present":
      return "a Python snapshot for this build is already stored (or was refused)";
    case "refused":
      return `no Python snapshot stored: ${outcome.reason}`;
    case "failed":
      return `no Python snapshot was made: ${outcome.reason}`;
  }
}
