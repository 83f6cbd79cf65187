/**
 * Skills published by a tool server (the MCP skills extension, SEP-2640): list them when the server
 * declares `io.modelcontextprotocol/skills`, and fetch one for import. Fetching reads every file of the
 * held entry's manifest with `resources/read` (the server's egress: its origin only, 8 MB an answer,
 * a deadline per read and per skill), checks each size and sha256 against the manifest, and packs the
 * files as a tar archive under the skill's name for the runtime's importer. Any problem refuses the
 * whole skill with the reason; nothing is handed on. A skill's content is untrusted: it is imported
 * as an archive is (checked, scanned, shown) and keeps its origin (server name and URI).
 */

import type { Client } from "@modelcontextprotocol/client";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { fileProblem, readListing, SKILLS_EXTENSION, type SkillEntry } from "./skill-manifest";
import { tarArchive, type ArchiveFile } from "./skill-archive";
import { describe } from "./faults";

const LIST_TIMEOUT_MS = 15_000;
const READ_TIMEOUT_MS = 15_000;
const SKILL_DEADLINE_MS = 90_000;
const MAX_PAGES = 10;

/** A skill fetched and checked, ready for the importer; or why it was refused. */
export type FetchedSkill =
  | { ok: true; filename: string; bytes: Uint8Array; origin: { server: string; uri: string } }
  | { ok: false; message: string };

/** A result passed through unchanged (its shape is checked by skill-manifest.ts, which keeps bad entries with their problem). */
const ANY_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  "~standard": {
    version: 1,
    vendor: "tidepool",
    validate: (value) =>
      typeof value === "object" && value !== null
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: "the answer is not an object" }] },
  },
};

/** True when the server declared the skills extension in its capabilities. */
export function declaresSkills(client: Client): boolean {
  return client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION] !== undefined;
}

/** The server's skills (every page of `skills/list`, bounded); [] when it does not declare the extension. */
export async function listSkills(client: Client): Promise<SkillEntry[]> {
  if (!declaresSkills(client)) return [];
  const entries: SkillEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = cursor ? { cursor } : {};
    const result = await client.request({ method: "skills/list", params }, ANY_RESULT, { timeout: LIST_TIMEOUT_MS });
    entries.push(...readListing(result));
    cursor = typeof result.nextCursor === "string" && result.nextCursor ? result.nextCursor : undefined;
    if (!cursor) break;
  }
  return entries;
}

/** Read and check every file of `entry` (the one the person saw), and pack them for the importer. */
export async function fetchSkill(client: Client, server: string, entry: SkillEntry): Promise<FetchedSkill> {
  if (entry.problem) return refused(entry, entry.problem);
  const deadline = Date.now() + SKILL_DEADLINE_MS;
  const files: ArchiveFile[] = [];
  for (const file of entry.files) {
    const left = deadline - Date.now();
    if (left <= 0) return refused(entry, `reading its files took over ${SKILL_DEADLINE_MS / 1000} s`);
    let bytes: Uint8Array;
    try {
      bytes = await readBytes(client, file.uri, Math.min(READ_TIMEOUT_MS, left));
    } catch (error) {
      return refused(entry, `${file.path} could not be read: ${describe(error)}`);
    }
    const problem = await fileProblem(file, bytes);
    if (problem) return refused(entry, problem);
    files.push({ path: `${entry.name}/${file.path}`, data: bytes });
  }
  return {
    ok: true,
    filename: `${entry.name}.tar`,
    bytes: tarArchive(files),
    origin: { server, uri: entry.uri },
  };
}

/** The raw bytes of one resource: its text as UTF-8, or its base64 blob decoded. */
async function readBytes(client: Client, uri: string, timeout: number): Promise<Uint8Array> {
  const result = await client.readResource({ uri }, { timeout });
  const content =
    result.contents.find((c) => c.uri === uri) ?? (result.contents.length === 1 ? result.contents[0] : undefined);
  if (!content) throw new Error("the server returned no content for it");
  if ("text" in content && typeof content.text === "string") return new TextEncoder().encode(content.text);
  if ("blob" in content && typeof content.blob === "string") return fromBase64(content.blob);
  throw new Error("its content is neither text nor a blob");
}

function fromBase64(blob: string): Uint8Array {
  try {
    return Uint8Array.from(atob(blob), (c) => c.charCodeAt(0));
  } catch {
    throw new Error("its blob is not base64");
  }
}

function refused(entry: SkillEntry, why: string): FetchedSkill {
  return { ok: false, message: `The skill ${entry.name} was refused: ${why}. Nothing of it was imported.` };
}
