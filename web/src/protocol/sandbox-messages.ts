/**
 * Values of the sandbox: what a run takes and gives (the `exec_request` / `exec_result` frames, defined
 * once in runtime/host/messages.py and generated into messages.gen.ts) and the postMessage contract with
 * web/public/sandbox/sandbox-worker.js (through bootstrap.js, which relays both ways). The `run` message
 * and the `result` message are those frames' fields, not copies of them. Everything the sandbox posts is
 * untrusted (user code can call `postMessage` itself), so it is checked here before anyone reads it.
 */

import { EXEC_DEFAULT_TIMEOUT_S, EXEC_ERROR_KINDS, EXEC_MAX_TIMEOUT_S, type ExecErrorKind } from "./constants.gen";
import type { ExecError, ExecRequest as ExecRequestFrame, ExecResult } from "./messages.gen";

export type { ExecError, ExecErrorKind, ExecRequestFrame, ExecResult };

/** A run: an `exec_request` frame's fields; the id is made up and the timeout defaulted when left out. */
export type ExecRequest = Omit<ExecRequestFrame, "type" | "id" | "timeout_s"> & {
  id?: string;
  /** Seconds before the run is stopped; null or left out → DEFAULT_TIMEOUT_S. */
  timeout_s?: number | null;
};

/** What the sandbox is handed for one run: the frame's code and files, and the packages to install first. */
export type RunInput = Pick<ExecRequestFrame, "code" | "files"> & {
  packages: string[];
  /** The package indexes for micropip; null: PyPI. */
  index_urls: string[] | null;
};

/** A run's result as the adapter hands it back in an `exec_result` frame (the frame less its type and id). */
export type ExecOutcome = Omit<ExecResult, "type" | "id">;

export const DEFAULT_TIMEOUT_S = EXEC_DEFAULT_TIMEOUT_S;
export const MAX_TIMEOUT_S = EXEC_MAX_TIMEOUT_S;

/** Runner → bootstrap (`start`) and → sandbox worker (the rest, relayed by the bootstrap). */
export type ToSandbox =
  | { type: "start"; workerUrl: string }
  /**
   * `grant`: the proxy's token for this one network sandbox (grants.ts), null for an offline one.
   * `snapshot`: a fresh Pyodide's heap (sandbox/snapshot.ts) for the Pyodide `version` it was made by.
   */
  | {
      type: "init";
      origin: string;
      driver: string;
      network: boolean;
      grant: string | null;
      snapshot: { version: string; bytes: ArrayBuffer } | null;
    }
  | ({ type: "run"; id: string } & RunInput)
  | { type: "fetched"; seq: number; ok: true; status: number; contentType: string; body: ArrayBuffer }
  | { type: "fetched"; seq: number; ok: false; message: string };

/** Sandbox worker (or the bootstrap: `crashed`) → runner, after `parseFromSandbox`. */
export type FromSandbox =
  /** `boot`: whether Pyodide was restored from the snapshot handed in `init`, or started plainly. */
  | { type: "ready"; boot: SandboxBoot }
  /** The snapshot handed in `init` did not restore (it then boots plainly): the host drops it. */
  | { type: "snapshot_failed"; message: string }
  | { type: "boot_failed"; message: string }
  /** The worker's self-check found it is not isolated (origin not opaque, or storage opens): nothing runs. */
  | { type: "refused"; message: string }
  | { type: "crashed"; message: string }
  /** micropip asks the host for an index page or a wheel (honoured only while the run installs packages). */
  | { type: "fetch"; id: string; seq: number; url: string; accept: string | null }
  /** The sandbox could not fetch one of the app's own files itself (the app runs offline): the host does. */
  | { type: "fetch_own"; seq: number; path: string }
  /** The run's packages are installed: from here on its own code runs, and no `fetch` is honoured. */
  | { type: "installed"; id: string }
  | { type: "output"; id: string; stream: "stdout" | "stderr"; text: string }
  | ({ type: "result"; id: string } & Required<ExecOutcome>);

export type SandboxBoot = "snapshot" | "plain";

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";

export function isStringRecord(v: unknown): v is Record<string, string> {
  return isRecord(v) && Object.values(v).every(isString);
}

function isExecError(v: unknown): v is ExecError {
  return isRecord(v) && EXEC_ERROR_KINDS.some((kind) => kind === v.kind) && isString(v.message);
}

/** A message from the sandbox worker, or null when it is not one of ours. */
export function parseFromSandbox(data: unknown): FromSandbox | null {
  if (!isRecord(data)) return null;
  switch (data.type) {
    case "ready":
      return { type: "ready", boot: data.boot === "snapshot" ? "snapshot" : "plain" };
    case "snapshot_failed":
    case "boot_failed":
    case "refused":
    case "crashed":
      return isString(data.message) ? { type: data.type, message: data.message } : null;
    case "fetch":
      if (!isString(data.id) || !Number.isSafeInteger(data.seq) || !isString(data.url)) return null;
      if (!(data.accept === null || isString(data.accept))) return null;
      return { type: "fetch", id: data.id, seq: Number(data.seq), url: data.url, accept: data.accept };
    case "fetch_own":
      if (!Number.isSafeInteger(data.seq) || !isString(data.path)) return null;
      return { type: "fetch_own", seq: Number(data.seq), path: data.path };
    case "installed":
      return isString(data.id) ? { type: "installed", id: data.id } : null;
    case "output":
      if (!isString(data.id) || !isString(data.text)) return null;
      if (data.stream !== "stdout" && data.stream !== "stderr") return null;
      return { type: "output", id: data.id, stream: data.stream, text: data.text };
    case "result":
      return parseResult(data);
    default:
      return null;
  }
}

function parseResult(data: Json): FromSandbox | null {
  const { id, ok, stdout, stderr, files, deleted, error } = data;
  if (!isString(id) || typeof ok !== "boolean" || !isString(stdout) || !isString(stderr)) return null;
  if (!isStringRecord(files) || !Array.isArray(deleted) || !deleted.every(isString)) return null;
  if (!(error === null || isExecError(error)) || ok !== (error === null)) return null;
  return { type: "result", id, ok, stdout, stderr, files, deleted, error };
}

/** The run an `exec_request` frame asks for (the adapter checked the frame against its definition). */
export function runOf(frame: ExecRequestFrame): ExecRequest {
  return {
    id: frame.id,
    code: frame.code,
    files: frame.files,
    timeout_s: frame.timeout_s,
    packages: frame.packages ?? [],
    network: frame.network === true,
  };
}

/** What the sandbox is handed for `request`; `indexUrls`: the page's package indexes (null: PyPI). */
export function runInput(request: ExecRequest, indexUrls: string[] | null): RunInput {
  return { code: request.code, files: request.files, packages: request.packages ?? [], index_urls: indexUrls };
}

/** A failed result (no output, no files). */
export function failure(id: string, kind: ExecErrorKind, message: string, stdout = "", stderr = ""): ExecResult {
  return { type: "exec_result", id, ok: false, stdout, stderr, files: {}, deleted: [], error: { kind, message } };
}

/** The timeout to apply, in seconds: the request's, clamped to 1..MAX_TIMEOUT_S. */
export function timeoutSeconds(requested: number | null | undefined): number {
  if (requested === null || requested === undefined || !Number.isFinite(requested)) return DEFAULT_TIMEOUT_S;
  return Math.min(MAX_TIMEOUT_S, Math.max(1, requested));
}
