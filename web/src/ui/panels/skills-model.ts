/**
 * The skills panel's data, without the DOM: the runtime's replies (`skill_import`, `skills_list`,
 * `skill_show`, see docs/protocol.md) as their generated types (protocol/requests.gen.ts; the client
 * checks a reply's shape), archive names, and the words the panel shows for an import outcome and a
 * skill's browser compatibility.
 */

import { SKILL_ARCHIVE_MAX_BYTES } from "../../protocol/messages";
import type { SkillImportReport, SkillOutcome, SkillScan } from "../../protocol/requests";

export type {
  ListedSkill,
  SkillDetail,
  SkillImportReport,
  SkillOutcome,
  SkillScan,
  SkillWarning,
  SkippedSkill,
} from "../../protocol/requests";
export type ImportState = SkillImportReport["state"];
export type OutcomeStatus = SkillOutcome["status"];

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
export function reportHeadline(report: SkillImportReport): string {
  const done = report.skills.filter((s) => s.status === "installed" || s.status === "replaced");
  const agents = report.agents.filter((a) => a.status === "installed" || a.status === "replaced");
  const names = done.map((s) => s.name).join(", ");
  const count = `${done.length} skill${done.length === 1 ? "" : "s"}`;
  const profiles =
    agents.length > 0
      ? ` and ${agents.length} agent profile${agents.length === 1 ? "" : "s"} (${agents.map((a) => a.name).join(", ")})`
      : "";
  if (report.state === "rejected") {
    const why = report.message || report.skills.find((s) => s.message)?.message || "no skill could be installed";
    return `Rejected: ${why}${report.reason ? ` (${report.reason})` : ""}`;
  }
  if (report.state === "partial") {
    const rest = report.skills.length + report.agents.length - done.length - agents.length;
    return `Installed ${count} (${names})${profiles}; ${rest} not installed.`;
  }
  if (done.length === 0 && agents.length > 0) return `Installed${profiles.replace(" and", "")}.`;
  return `Installed ${count}: ${names}${profiles}.`;
}

/** A size as "512 B", "3.4 KB", "1.2 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
