/**
 * Restoring a verified backup (backup-verify.ts), stage then swap (docs/storage.md, "Restore"):
 *
 * 1. the runtime checks the state in a transaction it rolls back (`backup_restore` with `dry_run`);
 * 2. every entry is in OPFS tidepool/restore/data/ (the staging area, not the profile: verification
 *    wrote each there as it passed, backup-staging.ts), and the area is still the one it sealed;
 * 3. `plan.json` is written there last: the commit point;
 * 4. the plan is applied: the state (one SQLite transaction in the runtime), the settings and tool
 *    servers (IndexedDB), the workspace files and the recordings if it holds them (moved out of staging,
 *    after emptying the workspace and the recordings for a replace); then the staging area is removed
 *    and the page reloads to read everything again.
 *
 * Interrupted before 3 (a reload, a closed tab), the next start finds staging without a plan and
 * removes it: the profile is as before. Interrupted after 3, the next start applies the plan again from
 * the start; each step is idempotent (a replace gives the same result twice, a merge's "newer wins"
 * too): a file already moved is no longer in staging and stays where it went, and a replace empties a
 * folder only once (a marker in staging says it was emptied, before the first file is moved into it).
 */

import { RECORDINGS_PREFIX, SETTINGS_ENTRY, STATE_ENTRY, WORKSPACE_PREFIX } from "./backup-format";
import { baseName, DATA, FolderCache, PLAN, removeStaging, sealed, stagingDir } from "./backup-staging";
import type { BackupContents } from "./backup-verify";
import { Window, type Bound } from "./pipeline";
import { emptyDir, fileAt, recordingsDir, walkFiles, workspaceFilesDir, type OpfsFile } from "./opfs";

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

/** Files here that a restore of `contents` would overwrite (merge) or remove (replace). */
export async function affectedFiles(contents: BackupContents, mode: RestoreMode): Promise<string[]> {
  const here = (await walkFiles(await workspaceFilesDir())).map((f) => f.path);
  if (mode === "replace") return here.filter((p) => !contents.files.includes(p));
  return here.filter((p) => contents.files.includes(p));
}

/**
 * Check, commit, apply (above), from the staging area sealed as `staged` (StagedWriter.id) when
 * `contents` was verified. Throws with the reason when the runtime refuses the state.
 */
export async function restoreBackup(
  contents: BackupContents,
  staged: string | null,
  mode: RestoreMode,
  deps: RestoreDeps,
): Promise<RestoreOutcome> {
  const stateEntry = contents.entries.get(STATE_ENTRY);
  if (!stateEntry) throw new Error("the backup holds no state");
  const check = await deps.restoreState(await contents.reader.read(stateEntry), mode, true);
  if (!check.ok) throw new Error(check.message);
  const staging = await stagingDir(false);
  if (!staging) throw new Error("this browser has no private file storage (OPFS) to restore into");
  if (!staged || !(await sealed(staged)))
    throw new Error("the checked copy of the backup is no longer in this browser's storage: choose the file again");
  const plan = await (await staging.getFileHandle(PLAN, { create: true })).createWritable();
  await plan.write(JSON.stringify({ mode, files: contents.files.length, recordings: contents.recordings.length }));
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
    const plan = JSON.parse(await (await planFile.getFile()).text()) as Plan;
    const data = await staging.getDirectoryHandle(DATA);
    const state = new Uint8Array(await (await (await fileAt(data, STATE_ENTRY, false)).getFile()).arrayBuffer());
    const restored = await deps.restoreState(state, plan.mode, false);
    if (!restored.ok) throw new Error(restored.message);
    applied.push("the chats and memories");
    const settings = await fileAt(data, SETTINGS_ENTRY, false).catch(() => null);
    if (settings) {
      await deps.restoreSettings(JSON.parse(await (await settings.getFile()).text()) as unknown, plan.mode);
      applied.push("the settings and tool servers");
    }
    const files = await applyFiles(staging, plan, applied);
    const recordings = await applyRecordings(staging, plan);
    if (recordings) applied.push(`${recordings} recordings`);
    await removeStaging();
    return { sessions: restored.sessions, memories: restored.memories, files, recordings };
  } catch (err) {
    throw err instanceof RestoreIncomplete ? err : new RestoreIncomplete(applied, errorText(err));
  }
}

interface Plan {
  mode: RestoreMode;
  files: number;
  /** Absent in a plan written before it was counted there. */
  recordings?: number;
}

async function applyFiles(staging: FileSystemDirectoryHandle, plan: Plan, applied: string[]): Promise<number> {
  let moved = 0;
  let total = 0;
  try {
    await moveStaged(staging, WORKSPACE_PREFIX, await workspaceFilesDir(), plan.mode, (done, all) => {
      moved = done;
      total = all;
    });
  } catch (err) {
    const done = plan.mode === "replace" ? "the workspace was emptied and " : "";
    applied.push(`${done}${moved} of ${total} workspace files`);
    throw new RestoreIncomplete(applied, errorText(err));
  }
  applied.push(`${plan.files} workspace files`);
  return plan.files;
}

/** The backup's recordings into OPFS recordings/ (a replace removes the ones here first, as it does the rest). */
async function applyRecordings(staging: FileSystemDirectoryHandle, plan: Plan): Promise<number> {
  const moved = await moveStaged(staging, RECORDINGS_PREFIX, await recordingsDir(), plan.mode);
  return plan.recordings ?? moved;
}

/**
 * Move what staging holds under `prefix` into `target` (emptied first for a replace, once: the marker
 * `emptied-<prefix>` says so to a second pass); returns how many files this pass moved.
 */
async function moveStaged(
  staging: FileSystemDirectoryHandle,
  prefix: string,
  target: FileSystemDirectoryHandle,
  mode: RestoreMode,
  progress: (done: number, total: number) => void = () => undefined,
): Promise<number> {
  const name = prefix.slice(0, -1);
  const marker = `emptied-${name}`;
  if (mode === "replace" && !(await staging.getFileHandle(marker).catch(() => null))) {
    await emptyDir(target);
    await staging.getFileHandle(marker, { create: true });
  }
  const data = await staging.getDirectoryHandle(DATA);
  const staged = await data.getDirectoryHandle(name).catch(() => null);
  const files = staged ? await walkFiles(staged) : [];
  const folders = new FolderCache(target);
  const moves = new Window(MOVES); // each a round trip: several in flight
  let moved = 0;
  progress(0, files.length);
  for (const file of files)
    await moves.add(0, async () => {
      await moveFile(file, await folders.parentOf(file.path), baseName(file.path));
      progress(++moved, files.length);
    });
  await moves.drain();
  return files.length;
}

const MOVES: Bound = { bytes: Number.POSITIVE_INFINITY, count: 16 };

interface MovableHandle {
  move?(parent: FileSystemDirectoryHandle, name: string): Promise<void>;
}

/** A rename within OPFS (it replaces a file there); copied where the browser has no `move`. */
async function moveFile(file: OpfsFile, parent: FileSystemDirectoryHandle, name: string): Promise<void> {
  const movable = file.handle as FileSystemFileHandle & MovableHandle;
  if (typeof movable.move === "function") {
    await movable.move(parent, name);
    return;
  }
  const writable = await (await parent.getFileHandle(name, { create: true })).createWritable();
  await writable.write(await file.handle.getFile()); // streamed from the staged file
  await writable.close();
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
