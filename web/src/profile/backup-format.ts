/**
 * The backup file's format (docs/storage.md, "Backup"): a zip whose `manifest.json` names every other
 * entry with its size and sha256, and the rules a file must pass before anything is restored from it.
 * Pure: no storage, no DOM.
 */

import { nameProblem } from "../protocol/names";

export const BACKUP_FORMAT = "tidepool.backup";
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST = "manifest.json";
export const STATE_ENTRY = "state.json";
export const SETTINGS_ENTRY = "settings.json";
export const WORKSPACE_PREFIX = "workspace/";
/** Optional (a choice at export): the recordings, each file of OPFS recordings/ under its own name. */
export const RECORDINGS_PREFIX = "recordings/";
const RECORDING_NAME = /^[A-Za-z0-9_-]{1,64}\.jsonl?$/;
export const BACKUP_FILENAME = "tidepool-backup.zip";

/** The most a backup may unpack to, entries it may hold, and the largest ratio of a big entry (zip bombs). */
export const LIMITS = {
  totalBytes: 8 * 1024 ** 3,
  entryBytes: 4 * 1024 ** 3 - 1,
  entries: 200_000,
  manifestBytes: 64 * 1024 ** 2,
  /** Past `ratioFrom` bytes unpacked, an entry may not unpack to more than `ratio` × its packed size. */
  ratio: 100,
  ratioFrom: 1024 ** 2,
} as const;

export type EntryKind = "state" | "settings" | "workspace" | "recording";

export interface ManifestEntry {
  path: string;
  size: number;
  sha256: string;
}

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  app_version: string;
  created: string;
  entries: ManifestEntry[];
}

/** Why a backup is refused; `reason` is the end of "Nothing was restored: …". */
export class BackupRefused extends Error {
  constructor(
    readonly code: "not_zip" | "foreign" | "too_new" | "damaged" | "unsafe" | "too_large" | "mismatch",
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function entryKind(path: string): EntryKind | null {
  if (path === STATE_ENTRY) return "state";
  if (path === SETTINGS_ENTRY) return "settings";
  if (path.startsWith(WORKSPACE_PREFIX) && path.length > WORKSPACE_PREFIX.length) return "workspace";
  if (path.startsWith(RECORDINGS_PREFIX) && RECORDING_NAME.test(path.slice(RECORDINGS_PREFIX.length)))
    return "recording";
  return null;
}

/** Why `path` may not be an entry of a backup (path traversal, odd names), or null. */
export function entryPathProblem(path: string): string | null {
  if (path === "" || path.includes("\\") || path.includes("\0") || path.startsWith("/") || /^[A-Za-z]:/.test(path))
    return "an absolute or malformed path";
  const parts = path.split("/");
  if (parts.some((p) => p === ".." || p === "." || p === ""))
    return "a path that leaves its folder (.. or an empty part)";
  const problem = nameProblem(path);
  if (problem) return problem;
  if (path !== MANIFEST && entryKind(path) === null) return "an entry this format does not have";
  return null;
}

/** The manifest as read from `manifest.json`, checked; throws BackupRefused. */
export function parseManifest(bytes: Uint8Array): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new BackupRefused("damaged", "its manifest is not readable JSON");
  }
  if (!isObject(value) || value.format !== BACKUP_FORMAT)
    throw new BackupRefused("foreign", "it is not a Tidepool backup (its manifest names another format)");
  const version = value.format_version;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1)
    throw new BackupRefused("damaged", "its manifest has no format version");
  if (version > BACKUP_FORMAT_VERSION)
    throw new BackupRefused(
      "too_new",
      `it was made by a newer Tidepool (backup format ${version}; this one reads up to ${BACKUP_FORMAT_VERSION}): update the app first`,
    );
  if (!Array.isArray(value.entries)) throw new BackupRefused("damaged", "its manifest lists no entries");
  const entries = value.entries.map(checkEntry);
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.path)) throw new BackupRefused("unsafe", `its manifest lists ${e.path} twice`);
    seen.add(e.path);
  }
  return {
    format: BACKUP_FORMAT,
    format_version: version,
    app_version: typeof value.app_version === "string" ? value.app_version : "unknown",
    created: typeof value.created === "string" ? value.created : "",
    entries,
  };
}

function checkEntry(raw: unknown): ManifestEntry {
  if (!isObject(raw) || typeof raw.path !== "string" || typeof raw.size !== "number" || typeof raw.sha256 !== "string")
    throw new BackupRefused("damaged", "its manifest has an entry without a path, size and sha256");
  const problem = entryPathProblem(raw.path);
  if (problem || raw.path === MANIFEST)
    throw new BackupRefused(
      "unsafe",
      `its manifest names ${JSON.stringify(raw.path)}: ${problem ?? "the manifest itself"}`,
    );
  if (!Number.isSafeInteger(raw.size) || raw.size < 0 || !/^[0-9a-f]{64}$/.test(raw.sha256))
    throw new BackupRefused("damaged", `its manifest's size or sha256 of ${raw.path} is malformed`);
  return { path: raw.path, size: raw.size, sha256: raw.sha256 };
}

export function manifestBytes(appVersion: string, entries: ManifestEntry[], created = new Date()): Uint8Array {
  const manifest: Manifest = {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    app_version: appVersion,
    created: created.toISOString(),
    entries,
  };
  return new TextEncoder().encode(JSON.stringify(manifest, null, 1));
}

export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data as BufferSource);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
