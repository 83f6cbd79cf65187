/**
 * Restoring a verified backup (backup-verify.ts), stage then swap (docs/storage.md, "Restore"):
 *
 * 1. the runtime checks the state in a transaction it rolls back (`backup_restore` with `dry_run`);
 * 2. every entry is copied into OPFS tidepool/restore/ (the staging area, not the profile);
 * 3. `plan.json` is written there last: the commit point;
 * 4. the plan is applied: the state (one SQLite transaction in the runtime), the settings and tool
 *    servers (IndexedDB), the workspace files and the recordings if it holds them (copied from staging,
 *    after emptying the workspace and the recordings for a replace); then the staging area is removed and the page reloads to read everything again.
 *
 * Interrupted before 3 (a reload, a closed tab), the next start finds staging without a plan and
 * removes it: the profile is as before. Interrupted after 3, the next start applies the plan again from
 * the start; each step is idempotent (a replace gives the same result twice, a merge's "newer wins" too).
 */

import { RECORDINGS_PREFIX, SETTINGS_ENTRY, STATE_ENTRY, WORKSPACE_PREFIX } from "./backup-format";
import type { BackupContents } from "./backup-verify";
import { appDir, emptyDir, fileAt, recordingsDir, walkFiles, workspaceFilesDir } from "./opfs";

export type RestoreMode = "merge" | "replace";

export interface RestoreDeps {
  /** The runtime's `backup_restore` (the dump reaches it as a file); a message when it refused. */
  restoreState(
    dump: Uint8Array,
    mode: RestoreMode,
    dryRun: boolean,
  ): Promise<{ ok: true; sessions: number; memories: number } | { ok: false; message: string }>;
  /** Settings and tool servers from the backup's settings.json (null: none in it). */
  restoreSettings(settings: unknown, mode: RestoreMode): Promise<void>;
}

export interface RestoreOutcome {
  sessions: number;
  memories: number;
  files: number;
  recordings: number;
}

/**
 * A restore that failed after its commit point: the profile is part old, part restored. `applied` names
 * what landed; the staged copy is kept, and the next start (or a reload) applies all of it again.
 */
export class RestoreIncomplete extends Error {
  constructor(
    readonly applied: readonly string[],
    readonly reason: string,
  ) {
    super(
      `The restore stopped partway (${reason}). ` +
        (applied.length ? `Already restored: ${applied.join(", ")}; ` : "Nothing of it landed yet; ") +
        "the rest of this profile is as it was. The backup is kept in this browser and is applied again, " +
        "completely, when the page reloads.",
    );
  }
}

const STAGING = "restore";
const PLAN = "plan.json";

async function stagingDir(create: boolean): Promise<FileSystemDirectoryHandle | null> {
  try {
    return await (await appDir()).getDirectoryHandle(STAGING, { create });
  } catch {
    return null;
  }
}

export async function removeStaging(): Promise<void> {
  await (await appDir()).removeEntry(STAGING, { recursive: true }).catch(() => undefined);
}

/** Files here that a restore of `contents` would overwrite (merge) or remove (replace). */
export async function affectedFiles(contents: BackupContents, mode: RestoreMode): Promise<string[]> {
  const here = (await walkFiles(await workspaceFilesDir())).map((f) => f.path);
  if (mode === "replace") return here.filter((p) => !contents.files.includes(p));
  return here.filter((p) => contents.files.includes(p));
}

/** Check, stage, commit, apply (above). Throws with the reason when the runtime refuses the state. */
export async function restoreBackup(
  contents: BackupContents,
  mode: RestoreMode,
  deps: RestoreDeps,
): Promise<RestoreOutcome> {
  const stateEntry = contents.entries.get(STATE_ENTRY);
  if (!stateEntry) throw new Error("the backup holds no state");
  const check = await deps.restoreState(await contents.reader.read(stateEntry), mode, true);
  if (!check.ok) throw new Error(check.message);
  await removeStaging();
  const staging = await stagingDir(true);
  if (!staging) throw new Error("this browser has no private file storage (OPFS) to restore into");
  for (const [path, entry] of contents.entries) {
    const writable = await (await fileAt(staging, `data/${path}`, true)).createWritable();
    await writable.write((await contents.reader.read(entry)) as BufferSource);
    await writable.close();
  }
  const plan = await (await staging.getFileHandle(PLAN, { create: true })).createWritable();
  await plan.write(JSON.stringify({ mode, files: contents.files.length }));
  await plan.close(); // the commit point
  const outcome = await applyStaged(deps);
  if (!outcome) throw new RestoreIncomplete([], "the staged copy disappeared");
  return outcome;
}

/** Apply a committed plan (or remove staging left without one); null when there was nothing to apply. */
export async function applyStaged(deps: RestoreDeps): Promise<RestoreOutcome | null> {
  const staging = await stagingDir(false);
  if (!staging) return null;
  const planFile = await staging.getFileHandle(PLAN).catch(() => null);
  if (!planFile) {
    await removeStaging(); // interrupted before the commit point: the profile never changed
    return null;
  }
  const applied: string[] = [];
  try {
    const plan = JSON.parse(await (await planFile.getFile()).text()) as { mode: RestoreMode };
    const data = await staging.getDirectoryHandle("data");
    const state = new Uint8Array(await (await (await fileAt(data, STATE_ENTRY, false)).getFile()).arrayBuffer());
    const restored = await deps.restoreState(state, plan.mode, false);
    if (!restored.ok) throw new Error(restored.message);
    applied.push("the chats and memories");
    const settings = await fileAt(data, SETTINGS_ENTRY, false).catch(() => null);
    if (settings) {
      await deps.restoreSettings(JSON.parse(await (await settings.getFile()).text()) as unknown, plan.mode);
      applied.push("the settings and tool servers");
    }
    const files = await applyFiles(data, plan.mode, applied);
    const recordings = await applyRecordings(data, plan.mode);
    if (recordings) applied.push(`${recordings} recordings`);
    await removeStaging();
    return { sessions: restored.sessions, memories: restored.memories, files, recordings };
  } catch (err) {
    throw err instanceof RestoreIncomplete ? err : new RestoreIncomplete(applied, errorText(err));
  }
}

async function applyFiles(data: FileSystemDirectoryHandle, mode: RestoreMode, applied: string[]): Promise<number> {
  const workspace = await workspaceFilesDir();
  if (mode === "replace") await emptyDir(workspace);
  const staged = await data.getDirectoryHandle(WORKSPACE_PREFIX.slice(0, -1)).catch(() => null);
  const files = staged ? await walkFiles(staged) : [];
  let copied = 0;
  try {
    for (const file of files) {
      const writable = await (await fileAt(workspace, file.path, true)).createWritable();
      await writable.write(await file.handle.getFile()); // streamed from the staged file
      await writable.close();
      copied++;
    }
  } catch (err) {
    const done = mode === "replace" ? "the workspace was emptied and " : "";
    applied.push(`${done}${copied} of ${files.length} workspace files`);
    throw new RestoreIncomplete(applied, errorText(err));
  }
  applied.push(`${files.length} workspace files`);
  return files.length;
}

/** The backup's recordings into OPFS recordings/ (a replace removes the ones here first, as it does the rest). */
async function applyRecordings(data: FileSystemDirectoryHandle, mode: RestoreMode): Promise<number> {
  const staged = await data.getDirectoryHandle(RECORDINGS_PREFIX.slice(0, -1)).catch(() => null);
  const dir = await recordingsDir();
  if (mode === "replace") await emptyDir(dir);
  const files = staged ? await walkFiles(staged) : [];
  for (const file of files) {
    const writable = await (await fileAt(dir, file.path, true)).createWritable();
    await writable.write(await file.handle.getFile());
    await writable.close();
  }
  return files.length;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
