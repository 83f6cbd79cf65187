/**
 * The state database's generations in OPFS (docs/storage.md): `current.sqlite` with SQLite's
 * rollback journal `current.sqlite-journal`, written page by page through `StateDir`, and
 * `previous.sqlite`, the fallback generation.
 *
 * While this tab holds the workspace, the live files are open as sync access handles for the
 * worker's life, so a step's commit has already reached OPFS when the runtime asks for a save: the
 * save only flushes the handles. `previous.sqlite` is refreshed with a whole copy of the database
 * once saves have been quiet for `PREVIOUS_QUIET_MS` (and only when the runtime says `rotate`, i.e.
 * not right after a fallback), off the steps' path. A tab that does not hold the workspace reads
 * copies into memory.
 *
 * When a write fails (the disk is full) the database goes on in memory; each save then writes it
 * whole (`createWritable`, atomic) and, when that works, goes back to the handles.
 */

import { accessHandleBacking, type SyncAccessHandle } from "./backings";
import { LIVE_FILES, StateDir, type Backing, type EmscriptenFS } from "./state-fs";

export const CURRENT = "current.sqlite";
export const PREVIOUS = "previous.sqlite";
const JOURNAL = "current.sqlite-journal";
/** How long to wait for handles another worker of this origin still holds (a restart, a take-over). */
const HANDLE_WAIT_MS = 15_000;
/** How long saves must be quiet before `previous.sqlite` is refreshed. */
export const PREVIOUS_QUIET_MS = 2_000;

interface SyncHandleFile {
  createSyncAccessHandle(): Promise<SyncAccessHandle>;
}

export interface Restored {
  files: number;
  /** ISO times of the generations found, for `saved_at.json`. */
  savedAt: Record<string, string>;
}

export class StateSave {
  private previousTimer: ReturnType<typeof setTimeout> | null = null;

  private constructor(
    readonly dir: StateDir,
    private readonly opfs: FileSystemDirectoryHandle,
    private saving: boolean,
  ) {}

  /** Mount /state (`path`): on handles when `holds` (and the handles can be had), otherwise on copies in memory. */
  static async open(
    fs: EmscriptenFS,
    opfs: FileSystemDirectoryHandle,
    holds: boolean,
    path?: string,
  ): Promise<{ save: StateSave; restored: Restored }> {
    const dir = new StateDir(fs, path);
    const savedAt: Record<string, string> = {};
    let files = 0;
    for (const name of [CURRENT, PREVIOUS]) {
      const file = await fileIn(opfs, name);
      if (file && file.size > 0) {
        savedAt[name.replace(".sqlite", "")] = new Date(file.lastModified).toISOString();
        files++;
      }
    }
    const previous = await fileIn(opfs, PREVIOUS);
    if (previous) writeMem(fs, `${dir.path}/${PREVIOUS}`, new Uint8Array(await previous.arrayBuffer()));
    const backings = holds ? await openBackings(opfs).catch(() => null) : null;
    if (backings) dir.attach(backings);
    else {
      for (const name of LIVE_FILES) {
        const file = await fileIn(opfs, name);
        if (file && file.size > 0) writeMem(fs, `${dir.path}/${name}`, new Uint8Array(await file.arrayBuffer()));
      }
    }
    return { save: new StateSave(dir, opfs, holds), restored: { files, savedAt } };
  }

  /** Make the committed steps durable; throws (a DOMException for a full disk) when they are not. */
  async flush(rotate: boolean): Promise<void> {
    if (!this.saving) throw new Error("another tab took this workspace over");
    if (this.dir.paged) {
      this.dir.flush();
      if (rotate) this.refreshPreviousWhenQuiet();
      return;
    }
    await this.saveWhole(rotate);
  }

  /** After PREVIOUS_QUIET_MS without a save, copy the database (between writes) to previous.sqlite. */
  private refreshPreviousWhenQuiet(): void {
    if (this.previousTimer !== null) clearTimeout(this.previousTimer);
    this.previousTimer = setTimeout(() => {
      this.previousTimer = null;
      const journal = this.dir.bytes(JOURNAL);
      if (journal && journal.length > 0) return this.refreshPreviousWhenQuiet(); // a write is under way
      const bytes = this.saving && this.dir.paged ? this.dir.bytes(CURRENT) : null;
      if (!bytes) return;
      writeWhole(this.opfs, PREVIOUS, bytes).catch(() => undefined); // the next quiet period tries again
    }, PREVIOUS_QUIET_MS);
  }

  /** Another tab took the workspace: go on in memory and let go of the handles. */
  release(): void {
    this.saving = false;
    this.dir.toMemory();
  }

  /** The database in memory (a write failed): write it whole, then go back to the handles. */
  private async saveWhole(rotate: boolean): Promise<void> {
    const journal = this.dir.bytes(JOURNAL);
    if (journal && journal.length > 0) throw new Error("the database is in the middle of a write");
    const bytes = this.dir.bytes(CURRENT);
    if (!bytes) return;
    const before = this.dir.changes;
    if (rotate) {
      const current = await fileIn(this.opfs, CURRENT);
      if (current) await writeWhole(this.opfs, PREVIOUS, new Uint8Array(await current.arrayBuffer()));
    }
    await writeWhole(this.opfs, CURRENT, bytes);
    const backings = await openBackings(this.opfs, 0).catch(() => null);
    if (!backings || !this.saving) {
      for (const backing of backings?.values() ?? []) backing.close();
      return;
    }
    this.dir.attach(backings, this.dir.changes === before ? "saved" : "memory");
  }
}

/** Open a sync access handle on each live file, waiting while another worker still holds one. */
async function openBackings(opfs: FileSystemDirectoryHandle, waitMs = HANDLE_WAIT_MS): Promise<Map<string, Backing>> {
  const deadline = performance.now() + waitMs;
  const backings = new Map<string, Backing>();
  try {
    for (const name of LIVE_FILES) {
      const file = (await opfs.getFileHandle(name, { create: true })) as unknown as SyncHandleFile;
      for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
        try {
          backings.set(name, accessHandleBacking(await file.createSyncAccessHandle()));
          break;
        } catch (err) {
          if (performance.now() > deadline) throw err;
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    }
    return backings;
  } catch (err) {
    for (const backing of backings.values()) backing.close();
    throw err;
  }
}

function writeMem(fs: EmscriptenFS, path: string, bytes: Uint8Array): void {
  (fs as unknown as { writeFile(path: string, data: Uint8Array): void }).writeFile(path, bytes);
}

async function fileIn(dir: FileSystemDirectoryHandle, name: string): Promise<File | null> {
  try {
    return await (await dir.getFileHandle(name)).getFile();
  } catch {
    return null;
  }
}

/** Replace a file whole and atomically (`createWritable` writes a swap file, moved in on close). */
export async function writeWhole(dir: FileSystemDirectoryHandle, name: string, data: Uint8Array): Promise<void> {
  const handle = await dir.getFileHandle(name, { create: true });
  const writable = await handle.createWritable();
  try {
    await writable.write(data as Uint8Array<ArrayBuffer>);
    await writable.close();
  } catch (err) {
    await writable.abort().catch(() => undefined);
    throw err;
  }
}
