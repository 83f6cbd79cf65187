/**
 * The runtime's sessions and memories (docs/protocol.md, Requests) as plain values the panels show,
 * and the small pure helpers around them (labels, relative times, export downloads).
 */

import { isJsonObject, type JsonObject } from "../../protocol/codec";
import type { RequestResult } from "../../protocol/main-worker-messages";

/** A runtime `request` as the panels see it (RuntimeClient.request). */
export type Requester = (method: string, params?: JsonObject) => Promise<RequestResult>;

export interface SessionInfo {
  id: string;
  title: string;
  created: string;
  updated: string;
  current: boolean;
  /** `sessions_search`: a little text around the first hit (empty when the title matched). */
  excerpt: string;
}

export interface MemoryInfo {
  id: string;
  text: string;
  tags: string[];
  pinned: boolean;
  updated: string;
}

/** A session export as the page saves it: its name ends in the format's extension, its type is the format's. */
export interface ExportFile {
  filename: string;
  mime: "application/json" | "text/markdown";
  text: string;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

/** `sessions_list`'s result; an unreadable one is an empty list. */
export function parseSessions(value: unknown): SessionInfo[] {
  if (!isJsonObject(value)) return [];
  const current = str(value.current);
  return objects(value.sessions)
    .filter((s) => typeof s.id === "string" && s.id !== "")
    .map((s) => ({
      id: String(s.id),
      title: str(s.title),
      created: str(s.created),
      updated: str(s.updated),
      current: s.current === true || s.id === current,
      excerpt: str(s.excerpt),
    }));
}

function parseMemory(m: JsonObject): MemoryInfo | null {
  if (typeof m.id !== "string" && typeof m.id !== "number") return null;
  const tags = Array.isArray(m.tags) ? m.tags.filter((t): t is string => typeof t === "string") : [];
  return { id: String(m.id), text: str(m.text), tags, pinned: m.pinned === true, updated: str(m.updated) };
}

/** `memory_list` / `memory_search` results. */
export function parseMemories(value: unknown): MemoryInfo[] {
  if (!isJsonObject(value)) return [];
  return objects(value.memories)
    .map(parseMemory)
    .filter((m): m is MemoryInfo => m !== null);
}

/** `session_export`'s result, or null when it is not one. Name and type follow the format, not what the
 * runtime says (a name or type of its choosing, `x.html` or `text/html`, is not kept). */
export function parseExport(value: unknown): ExportFile | null {
  if (!isJsonObject(value) || typeof value.text !== "string") return null;
  const json = value.format === "json";
  const ext = json ? ".json" : ".md";
  const name = safeFilename(str(value.filename)) || "session";
  return { filename: name.toLowerCase().endsWith(ext) ? name : `${name}${ext}`, mime: json ? "application/json" : "text/markdown", text: value.text };
}

/** A download name without folders or characters file systems refuse. */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a file name may not hold
  return base.replace(/[\u0000-\u001f<>:"|?*]/g, "_").replace(/^\.+/, "").slice(0, 120);
}

export function sessionLabel(session: Pick<SessionInfo, "title">): string {
  return session.title.trim() || "New conversation";
}

/** "just now", "5 min ago", "3 h ago", "yesterday", or the date. */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.max(0, (now.getTime() - then) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  if (seconds < 2 * 86_400) return "yesterday";
  return new Date(then).toISOString().slice(0, 10);
}

/** Comma- or space-separated tags as a clean list (no empties, no duplicates). */
export function parseTags(text: string): string[] {
  const out: string[] = [];
  for (const tag of text.split(/[,\s]+/)) {
    const t = tag.trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}
