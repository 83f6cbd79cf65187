/** The one message the snapshot worker (worker/snapshot.worker.ts) posts to the page before it is done. */

export type SnapshotOutcome =
  | { state: "stored"; bytes: number; ms: number }
  | { state: "present" }
  | { state: "refused"; bytes: number; reason: string }
  | { state: "failed"; reason: string };
