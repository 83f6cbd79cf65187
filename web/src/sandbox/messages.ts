/**
 * Values of the sandbox: the `exec_request` / `exec_result` payloads (mirroring `ExecRequest` and
 * `ExecResult` in runtime/tools/python.py) and the postMessage contract with sandbox-worker.js (through
 * bootstrap.js, which relays both ways). Everything the sandbox posts is untrusted (user code can call
 * `postMessage` itself), so it is checked here before anyone reads it.
 */

export type ExecErrorKind = "timeout" | "exception" | "sandbox" | "install";
const EXEC_ERROR_KINDS: readonly string[] = ["timeout", "exception", "sandbox", "install"];

export interface ExecError {
  kind: ExecErrorKind;
  message: string;
}

/** The host's `exec_result` frame, exactly as runtime/tools/python.py reads it. */
export interface ExecResult {
  type: "exec_result";
  id: string;
  ok: boolean;
  stdout: string;
  stderr: string;
  /** Created or changed files: workspace-relative path → base64 content. */
  files: Record<string, string>;
  /** Files handed in that the code deleted (workspace-relative). */
  deleted: string[];
  error: ExecError | null;
}

export interface ExecRequest {
  /** The `exec_request` frame's id (the result names it); one is made up when left out. */
  id?: string;
  code: string;
  /** Files handed in: workspace-relative path → base64 content. */
  files: Record<string, string>;
  /** Seconds before the run is stopped; null or left out → DEFAULT_TIMEOUT_S. */
  timeout_s?: number | null;
  /** Packages micropip installs before the code runs (the install counts toward the timeout). */
  packages?: string[];
  /** Package indexes for micropip (`{package_name}` placeholders allowed); null or left out → PyPI. */
  index_urls?: string[] | null;
  /** Approved to reach the web (through the app's /api/proxy only); false or left out → no network at all. */
  network?: boolean;
}

export const DEFAULT_TIMEOUT_S = 30;
export const MAX_TIMEOUT_S = 300;

/** Runner → bootstrap (`start`) and → sandbox worker (the rest, relayed by the bootstrap). */
export type ToSandbox =
  | { type: "start"; workerUrl: string }
  | { type: "init"; origin: string; driver: string; network: boolean }
  | {
      type: "run";
      id: string;
      code: string;
      files: Record<string, string>;
      packages: string[];
      indexUrls: string[] | null;
    }
  | { type: "fetched"; seq: number; ok: true; status: number; contentType: string; body: ArrayBuffer }
  | { type: "fetched"; seq: number; ok: false; message: string };

/** Sandbox worker (or the bootstrap: `crashed`) → runner, after `parseFromSandbox`. */
export type FromSandbox =
  | { type: "ready" }
  | { type: "boot_failed"; message: string }
  | { type: "crashed"; message: string }
  /** micropip asks the host for an index page or a wheel (honoured only while the run installs packages). */
  | { type: "fetch"; id: string; seq: number; url: string; accept: string | null }
  /** The run's packages are installed: from here on its own code runs, and no `fetch` is honoured. */
  | { type: "installed"; id: string }
  | { type: "output"; id: string; stream: "stdout" | "stderr"; text: string }
  | {
      type: "result";
      id: string;
      ok: boolean;
      stdout: string;
      stderr: string;
      files: Record<string, string>;
      deleted: string[];
      error: ExecError | null;
    };

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";

export function isStringRecord(v: unknown): v is Record<string, string> {
  return isRecord(v) && Object.values(v).every(isString);
}

function isExecError(v: unknown): v is ExecError {
  return isRecord(v) && isString(v.kind) && EXEC_ERROR_KINDS.includes(v.kind) && isString(v.message);
}

/** A message from the sandbox worker, or null when it is not one of ours. */
export function parseFromSandbox(data: unknown): FromSandbox | null {
  if (!isRecord(data)) return null;
  switch (data.type) {
    case "ready":
      return { type: "ready" };
    case "boot_failed":
    case "crashed":
      return isString(data.message) ? { type: data.type, message: data.message } : null;
    case "fetch":
      if (!isString(data.id) || !Number.isSafeInteger(data.seq) || !isString(data.url)) return null;
      if (!(data.accept === null || isString(data.accept))) return null;
      return { type: "fetch", id: data.id, seq: Number(data.seq), url: data.url, accept: data.accept };
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

/** The fields of an `exec_request` frame as an ExecRequest, or a sentence saying what is wrong. */
export function parseExecRequest(fields: {
  id: unknown;
  code: unknown;
  files: unknown;
  timeout_s?: unknown;
  packages?: unknown;
  index_urls?: unknown;
  network?: unknown;
}): ExecRequest | string {
  if (!isString(fields.id)) return "exec_request has no string id";
  if (!isString(fields.code)) return "exec_request has no code";
  if (!isStringRecord(fields.files)) return "exec_request files are not an object of base64 strings";
  const t = fields.timeout_s;
  if (t !== undefined && t !== null && (typeof t !== "number" || !Number.isFinite(t))) {
    return "exec_request timeout_s is not a number";
  }
  const { packages, index_urls: indexUrls } = fields;
  if (packages !== undefined && packages !== null && !isStringList(packages)) {
    return "exec_request packages are not a list of strings";
  }
  if (indexUrls !== undefined && indexUrls !== null && !isStringList(indexUrls)) {
    return "exec_request index_urls are not a list of strings";
  }
  const network = fields.network ?? false;
  if (typeof network !== "boolean") return "exec_request network is not true or false";
  return {
    id: fields.id,
    code: fields.code,
    files: fields.files,
    timeout_s: t ?? null,
    packages: packages ?? [],
    index_urls: indexUrls ?? null,
    network,
  };
}

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/** A failed result (no output, no files). */
export function failure(id: string, kind: ExecErrorKind, message: string, stdout = "", stderr = ""): ExecResult {
  return { type: "exec_result", id, ok: false, stdout, stderr, files: {}, deleted: [], error: { kind, message } };
}

/** The timeout to apply, in seconds: the request's, clamped to 1..MAX_TIMEOUT_S. */
export function timeoutSeconds(requested: number | null | undefined): number {
  if (requested === null || requested === undefined || !Number.isFinite(requested)) return DEFAULT_TIMEOUT_S;
  return Math.min(MAX_TIMEOUT_S, Math.max(1, requested));
}
