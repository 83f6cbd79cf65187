/**
 * The skills panel's data, without the DOM: the runtime's replies (`skill_import`, `skills_list`,
 * `skill_show`, see docs/protocol.md) checked into typed values, archive names, and the words the
 * panel shows for an import outcome and a skill's browser compatibility.
 */

import { SKILL_ARCHIVE_MAX_BYTES } from "../../protocol/messages";

export type ImportState = "ok" | "partial" | "rejected";
export type OutcomeStatus = "installed" | "replaced" | "exists" | "skipped";
export type Verdict = "runnable" | "instructions-only" | "needs";

export interface ScanFinding {
  path: string;
  kind: string;
  detail: string;
}

export interface SkillScan {
  verdict: Verdict;
  needs: string[];
  findings: ScanFinding[];
  scripts: string[];
}

export interface SkillOutcome {
  folder: string;
  name: string;
  status: OutcomeStatus;
  reason: string;
  message: string;
  warnings: SpecWarning[];
  scan: SkillScan | null;
  location: string;
}

export interface ImportReport {
  state: ImportState;
  reason: string;
  message: string;
  needsConfirmation: boolean;
  skills: SkillOutcome[];
}

export interface SpecWarning {
  code: string;
  message: string;
}

export interface SkillSummary {
  name: string;
  description: string;
  location: string;
  enabled: boolean;
  /** Its frontmatter's `allowed-tools`, as written (other agents' names too, e.g. `Bash(git:*)`). */
  allowedTools: string[];
  /** Those of `allowedTools` that are not tools of this runtime's catalog. */
  unknownTools: string[];
  /** What does not follow the Agent Skills spec (the skill is installed and works). */
  warnings: SpecWarning[];
}

export interface SkillDetail extends SkillSummary {
  body: string;
  license: string;
  compatibility: string;
  files: { path: string; size: number }[];
}

/** File name endings of skill archives (a `.skill` file is a zip); the runtime reads the type from the bytes. */
export const ARCHIVE_SUFFIXES = [".tar.gz", ".tgz", ".zip", ".tar", ".skill"] as const;
export const ACCEPT = ".zip,.tar,.tar.gz,.tgz,.skill";

/**
 * The largest archive the panel sends: the importer's limit (runtime/host/constants.py). The archive
 * reaches the runtime as a file in its file system (the worker stores it); the frame carries its path.
 */
export const MAX_IMPORT_BYTES = SKILL_ARCHIVE_MAX_BYTES;

/** Why an archive of `size` bytes is not sent, or null when it may be. */
export function sizeProblem(size: number): string | null {
  if (size === 0) return "The file is empty.";
  if (size <= MAX_IMPORT_BYTES) return null;
  return `The archive is ${formatSize(size)}; archives up to ${formatSize(MAX_IMPORT_BYTES)} can be imported here.`;
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function strings(value: unknown): string[] {
  return list(value).filter((s): s is string => typeof s === "string");
}

function parseWarnings(value: unknown): SpecWarning[] {
  return list(value)
    .filter(isObj)
    .map((w) => ({ code: str(w.code), message: str(w.message) }));
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  return typeof value === "string" && (allowed as readonly string[]).includes(value) ? (value as T) : null;
}

function parseScan(value: unknown): SkillScan | null {
  if (!isObj(value)) return null;
  const verdict = oneOf(value.verdict, ["runnable", "instructions-only", "needs"] as const);
  if (!verdict) return null;
  return {
    verdict,
    needs: list(value.needs).filter((n): n is string => typeof n === "string"),
    findings: list(value.findings)
      .filter(isObj)
      .map((f) => ({ path: str(f.path), kind: str(f.kind), detail: str(f.detail) })),
    scripts: list(value.scripts).filter((s): s is string => typeof s === "string"),
  };
}

function parseOutcome(value: unknown): SkillOutcome | null {
  if (!isObj(value)) return null;
  const status = oneOf(value.status, ["installed", "replaced", "exists", "skipped"] as const);
  if (!status) return null;
  return {
    folder: str(value.folder),
    name: str(value.name),
    status,
    reason: str(value.reason),
    message: str(value.message),
    warnings: parseWarnings(value.warnings),
    scan: parseScan(value.scan),
    location: str(value.location),
  };
}

/** The `skill_import` reply as a report, or null when it is not one. */
export function parseImportReport(value: unknown): ImportReport | null {
  if (!isObj(value)) return null;
  const state = oneOf(value.state, ["ok", "partial", "rejected"] as const);
  if (!state) return null;
  const skills = list(value.skills).map(parseOutcome);
  if (skills.some((s) => s === null)) return null;
  return {
    state,
    reason: str(value.reason),
    message: str(value.message),
    needsConfirmation: value.needs_confirmation === true,
    skills: skills as SkillOutcome[],
  };
}

function parseSummary(value: unknown): SkillSummary | null {
  if (!isObj(value) || typeof value.name !== "string" || !value.name) return null;
  return {
    name: value.name,
    description: str(value.description),
    location: str(value.location),
    enabled: value.enabled !== false,
    allowedTools: strings(value.allowed_tools),
    unknownTools: strings(value.unknown_tools),
    warnings: parseWarnings(value.warnings),
  };
}

/** The `skills_list` (or `skill_set_enabled`) reply, or null when it is not one. */
export function parseSkillList(value: unknown): SkillSummary[] | null {
  if (!isObj(value) || !Array.isArray(value.skills)) return null;
  const skills = value.skills.map(parseSummary);
  return skills.some((s) => s === null) ? null : (skills as SkillSummary[]);
}

/** A folder under `.agents/skills/` that is not a skill (its SKILL.md is missing or invalid), and why. */
export interface SkippedFolder {
  folder: string;
  message: string;
}

/** The `skipped` folders of a `skills_list` reply (none when it has no such list). */
export function parseSkippedList(value: unknown): SkippedFolder[] {
  if (!isObj(value)) return [];
  return list(value.skipped)
    .filter(isObj)
    .map((s) => ({ folder: str(s.folder), message: str(s.message) }))
    .filter((s) => s.folder !== "");
}

/** The `skill_show` reply, or null when it is not one. */
export function parseSkillDetail(value: unknown): SkillDetail | null {
  const summary = parseSummary(value);
  if (!summary || !isObj(value)) return null;
  return {
    ...summary,
    body: str(value.body),
    license: str(value.license),
    compatibility: str(value.compatibility),
    files: list(value.files)
      .filter(isObj)
      .map((f) => ({ path: str(f.path), size: typeof f.size === "number" ? f.size : 0 })),
  };
}

export function hasArchiveSuffix(name: string): boolean {
  const lower = name.toLowerCase();
  return ARCHIVE_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}

/** The archive type from its first bytes: zip, gzip (taken as .tar.gz) or tar; null when none. */
export function sniffSuffix(bytes: Uint8Array): ".zip" | ".tar.gz" | ".tar" | null {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return ".zip";
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return ".tar.gz";
  const magic = String.fromCharCode(...bytes.subarray(257, 262));
  return magic === "ustar" ? ".tar" : null;
}

/**
 * A file name for an archive fetched from `url`: the URL's last path segment when it names an
 * archive, otherwise that segment (or "skill") with the suffix its bytes show. Null when neither
 * the name nor the bytes say what the archive is.
 */
export function archiveNameFromUrl(url: string, bytes: Uint8Array): string | null {
  let segment: string;
  try {
    const parts = new URL(url).pathname.split("/").filter(Boolean);
    segment = decodeURIComponent(parts[parts.length - 1] ?? "");
  } catch {
    segment = "";
  }
  segment = segment.replace(/[^A-Za-z0-9._-]/g, "_");
  if (hasArchiveSuffix(segment)) return segment;
  const suffix = sniffSuffix(bytes);
  if (!suffix) return null;
  return (segment || "skill") + suffix;
}

/** Whether this skill's scripts can run here, as one short line. */
export function describeCompatibility(scan: SkillScan | null): string {
  if (!scan) return "Not checked.";
  if (scan.verdict === "runnable") {
    return `Its scripts can run in the browser (${scan.scripts.join(", ")}).`;
  }
  if (scan.verdict === "needs") {
    return `Its scripts can run in the browser if these Python packages install there: ${scan.needs.join(", ")}.`;
  }
  if (scan.scripts.length === 0) return "Instructions only: it has no scripts to run.";
  const blocked = scan.findings.map((f) => `${f.path}: ${f.detail}`);
  return `Instructions only: its scripts cannot run in the browser (${blocked.join("; ")}).`;
}

const STATUS_TEXT: Record<OutcomeStatus, string> = {
  installed: "installed",
  replaced: "replaced",
  exists: "already installed (not replaced)",
  skipped: "skipped",
};

export function describeStatus(status: OutcomeStatus): string {
  return STATUS_TEXT[status];
}

/** The report's headline, e.g. "Installed 4 skills." or "Rejected: …". */
export function reportHeadline(report: ImportReport): string {
  const done = report.skills.filter((s) => s.status === "installed" || s.status === "replaced");
  const names = done.map((s) => s.name).join(", ");
  const count = `${done.length} skill${done.length === 1 ? "" : "s"}`;
  if (report.state === "rejected") {
    const why = report.message || report.skills.find((s) => s.message)?.message || "no skill could be installed";
    return `Rejected: ${why}${report.reason ? ` (${report.reason})` : ""}`;
  }
  if (report.state === "partial") {
    const rest = report.skills.length - done.length;
    return `Installed ${count} (${names}); ${rest} not installed.`;
  }
  return `Installed ${count}: ${names}.`;
}

/** A size as "512 B", "3.4 KB", "1.2 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
