/**
 * Everything a backup must pass before anything is written (docs/storage.md, "Restore"): the zip's
 * directory (zip-read.ts), every entry's name, the manifest, and every entry's size and sha256 against
 * it; no entry the manifest does not list, none it lists missing. What comes out is what the preview
 * shows. Each entry is read once here, the next one while one is hashed (the file is never loaded whole).
 */

import {
  BackupRefused,
  entryKind,
  entryPathProblem,
  LIMITS,
  MANIFEST,
  RECORDINGS_PREFIX,
  parseManifest,
  SETTINGS_ENTRY,
  sha256Hex,
  STATE_ENTRY,
  WORKSPACE_PREFIX,
  type Manifest,
} from "./backup-format";
import { IN_FLIGHT, readAhead, Window } from "./pipeline";
import { ZipReader, type ZipEntry } from "./zip-read";

export interface BackupContents {
  manifest: Manifest;
  reader: ZipReader;
  /** Workspace-relative paths of the files it holds. */
  files: string[];
  /** The recordings' file names (a backup holds them only when asked to at export). */
  recordings: string[];
  sessions: { id: string; title: string; updated: string }[];
  memories: number;
  settings: boolean;
  toolServers: number;
  /** The zip entry of each manifest path. */
  entries: Map<string, ZipEntry>;
}

/**
 * Verify `blob` whole; `stage` gets each entry's bytes once they passed their sha256 (the restore's
 * staging area, backup-staging.ts), so what is restored is what was checked, read once.
 */
export async function verifyBackup(
  blob: Blob,
  progress: (done: number, total: number) => void = () => undefined,
  stage?: (path: string, data: Uint8Array) => Promise<void>,
): Promise<BackupContents> {
  const reader = await ZipReader.open(blob);
  if (!reader.entries.some((e) => e.name === MANIFEST))
    throw new BackupRefused("foreign", "it is not a Tidepool backup (no manifest.json)");
  // The manifest first (its name is fixed): a foreign or too-new file is named so before its entries are judged.
  const manifestEntry = reader.entries.find((e) => e.name === MANIFEST) as ZipEntry;
  if (manifestEntry.size > LIMITS.manifestBytes) throw new BackupRefused("too_large", "its manifest is too large");
  const manifest = parseManifest(await reader.read(manifestEntry));
  const byName = new Map<string, ZipEntry>();
  for (const entry of reader.entries) {
    if (entry.dir) continue;
    const problem = entryPathProblem(entry.name);
    if (problem) throw new BackupRefused("unsafe", `it holds ${JSON.stringify(entry.name)}: ${problem}`);
    if (byName.has(entry.name)) throw new BackupRefused("unsafe", `it holds ${entry.name} twice`);
    byName.set(entry.name, entry);
  }
  const listed = new Set(manifest.entries.map((e) => e.path));
  for (const name of byName.keys())
    if (name !== MANIFEST && !listed.has(name))
      throw new BackupRefused("mismatch", `it holds ${name}, which its manifest does not list`);
  const contents: BackupContents = {
    manifest,
    reader,
    files: [],
    recordings: [],
    sessions: [],
    memories: 0,
    settings: false,
    toolServers: 0,
    entries: new Map(),
  };
  const items = manifest.entries.map((item) => {
    const entry = byName.get(item.path);
    if (!entry) throw new BackupRefused("mismatch", `${item.path} is listed in its manifest but missing (truncated?)`);
    if (entry.size !== item.size)
      throw new BackupRefused("mismatch", `${item.path} is ${entry.size} bytes, its manifest says ${item.size}`);
    return { item, entry };
  });
  const total = manifest.entries.reduce((sum, e) => sum + e.size, 0);
  let done = 0;
  // Pipelined: the next entries are read and hashed while one is checked, and the checked ones staged
  // meanwhile (IN_FLIGHT bounds the bytes held by each).
  const staging = new Window(IN_FLIGHT);
  try {
    const readHashed = async (entry: ZipEntry): Promise<{ data: Uint8Array; sha256: string }> => {
      const data = await reader.read(entry);
      return { data, sha256: await sha256Hex(data) };
    };
    for await (const [{ item, entry }, { data, sha256 }] of readAhead(
      items,
      (i) => i.entry.packed,
      (i) => readHashed(i.entry),
      IN_FLIGHT,
    )) {
      if (sha256 !== item.sha256)
        throw new BackupRefused(
          "mismatch",
          `${item.path} does not match its sha256 in the manifest (damaged or altered)`,
        );
      describe(contents, item.path, data);
      contents.entries.set(item.path, entry);
      if (stage) await staging.add(data.length, () => stage(item.path, data));
      done += item.size;
      progress(done, total);
    }
  } catch (err) {
    await staging.settle(); // no staged write lands after the caller removed staging
    throw err;
  }
  await staging.drain();
  if (!contents.entries.has(STATE_ENTRY)) throw new BackupRefused("damaged", "it holds no state.json");
  return contents;
}

function describe(contents: BackupContents, path: string, data: Uint8Array): void {
  const kind = entryKind(path);
  if (kind === "workspace") contents.files.push(path.slice(WORKSPACE_PREFIX.length));
  else if (kind === "recording") contents.recordings.push(path.slice(RECORDINGS_PREFIX.length));
  else if (kind === "state") readState(contents, data);
  else if (kind === "settings" && path === SETTINGS_ENTRY) readSettings(contents, data);
}

function json(data: Uint8Array, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // below
  }
  throw new BackupRefused("damaged", `its ${what} is not a JSON object`);
}

function readState(contents: BackupContents, data: Uint8Array): void {
  const state = json(data, "state");
  const sessions = Array.isArray(state.sessions) ? (state.sessions as unknown[]) : null;
  const memories = Array.isArray(state.memories) ? (state.memories as unknown[]) : null;
  if (state.format !== "tidepool.state" || !sessions || !memories)
    throw new BackupRefused("damaged", "its state.json is not a Tidepool state dump");
  contents.memories = memories.length;
  const rows = sessions.map((raw) => (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>);
  const children = new Set(rows.flatMap(childSessions)); // a delegated task's session comes with its chat
  for (const s of rows) {
    if (typeof s.id === "string" && children.has(s.id)) continue;
    contents.sessions.push({
      id: typeof s.id === "string" ? s.id : "",
      title: typeof s.title === "string" ? s.title : "",
      updated: typeof s.updated === "string" ? s.updated : "",
    });
  }
}

/** The child sessions of the tasks a session delegated (state format 2: its `agent_tasks`). */
function childSessions(session: Record<string, unknown>): string[] {
  const tasks = Array.isArray(session.agent_tasks) ? (session.agent_tasks as unknown[]) : [];
  return tasks.flatMap((t) =>
    typeof t === "object" && t !== null && typeof (t as Record<string, unknown>).child_session === "string"
      ? [(t as Record<string, unknown>).child_session as string]
      : [],
  );
}

function readSettings(contents: BackupContents, data: Uint8Array): void {
  const value = json(data, "settings");
  contents.settings = typeof value.settings === "object" && value.settings !== null;
  contents.toolServers = Array.isArray(value.tool_servers) ? value.tool_servers.length : 0;
}
