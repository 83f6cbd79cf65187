/**
 * Small pure helpers around the runtime's sessions and memories (docs/protocol.md, Requests): labels,
 * relative times, tags, and the export download. The values are the generated request types
 * (protocol/requests.gen.ts); the reply's shape is checked once, by the client.
 */

import type { SessionExport, SessionHitRow, SessionRow } from "../../protocol/requests";

/** A session as the sidebar lists it: `sessions_list`'s row, or `sessions_search`'s with its excerpt and its message. */
export type SessionEntry = SessionRow & Partial<Pick<SessionHitRow, "excerpt" | "seq">>;

/** A session export as the page saves it: its name ends in the format's extension, its type is the format's. */
export interface ExportFile {
  filename: string;
  mime: "application/json" | "text/markdown";
  text: string;
}

/** The file to save for `session_export`'s result. Name and type follow the format, not what the runtime
 * says (a name or type of its choosing, `x.html` or `text/html`, is not kept). */
export function exportFile(value: SessionExport): ExportFile {
  const json = value.format === "json";
  const ext = json ? ".json" : ".md";
  const name = safeFilename(value.filename) || "session";
  return {
    filename: name.toLowerCase().endsWith(ext) ? name : `${name}${ext}`,
    mime: json ? "application/json" : "text/markdown",
    text: value.text,
  };
}

/** A download name without folders or characters file systems refuse. */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  return (
    base
      // eslint-disable-next-line no-control-regex -- control characters are exactly what a file name may not hold
      .replace(/[\u0000-\u001f<>:"|?*]/g, "_")
      .replace(/^\.+/, "")
      .slice(0, 120)
  );
}

export function sessionLabel(session: Pick<SessionRow, "title">): string {
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
