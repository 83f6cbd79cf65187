/**
 * The restore's staging area, OPFS tidepool/restore/ (docs/storage.md, "Restore"): `data/<entry path>`
 * holds each entry of a backup, written as verification passes it (backup-verify.ts: the bytes staged
 * are the bytes whose sha256 was checked, read once), then `staged.json` once all passed; `plan.json`
 * is written last, at the commit point (backup-restore.ts). Nothing here is the profile: staging without a plan is removed and changes nothing.
 */

import { appDir } from "./opfs";

const STAGING = "restore";
export const PLAN = "plan.json";
export const DATA = "data";
const SEAL = "staged.json";

export async function stagingDir(create: boolean): Promise<FileSystemDirectoryHandle | null> {
  try {
    return await (await appDir()).getDirectoryHandle(STAGING, { create });
  } catch {
    return null;
  }
}

export async function removeStaging(): Promise<void> {
  await (await appDir()).removeEntry(STAGING, { recursive: true }).catch(() => undefined);
}

/** Folders under `root` by their path, each looked up (or made) once: every lookup is a round trip. */
export class FolderCache {
  private readonly folders = new Map<string, Promise<FileSystemDirectoryHandle>>();

  constructor(private readonly root: FileSystemDirectoryHandle) {}

  /** The folder that holds `path` (a file's path, `/`-separated), made when missing. */
  parentOf(path: string): Promise<FileSystemDirectoryHandle> {
    return this.folder(path.split("/").slice(0, -1));
  }

  private folder(parts: string[]): Promise<FileSystemDirectoryHandle> {
    if (parts.length === 0) return Promise.resolve(this.root);
    const key = parts.join("/");
    let found = this.folders.get(key);
    if (!found) {
      const name = parts[parts.length - 1] as string;
      found = this.folder(parts.slice(0, -1)).then((parent) => parent.getDirectoryHandle(name, { create: true }));
      this.folders.set(key, found);
    }
    return found;
  }
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** A fresh staging area (any earlier one removed) to write a backup's entries into; null without OPFS. */
export async function openStaging(): Promise<StagedWriter | null> {
  await removeStaging();
  const staging = await stagingDir(true);
  return staging ? new StagedWriter(staging, await staging.getDirectoryHandle(DATA, { create: true })) : null;
}

export class StagedWriter {
  /** Names this staging area: `sealed` says whether it is still the one there, whole. */
  readonly id = crypto.randomUUID();
  private readonly folders: FolderCache;

  constructor(
    private readonly staging: FileSystemDirectoryHandle,
    data: FileSystemDirectoryHandle,
  ) {
    this.folders = new FolderCache(data);
  }

  /** One entry's bytes, in one write (`createWritable`: the file appears whole at `close`). */
  async put(path: string, bytes: Uint8Array): Promise<void> {
    const file = await (await this.folders.parentOf(path)).getFileHandle(baseName(path), { create: true });
    const writable = await file.createWritable();
    await writable.write(bytes as BufferSource);
    await writable.close();
  }

  /** Every entry is staged (verification passed): say so, under this area's id. */
  async seal(): Promise<void> {
    const writable = await (await this.staging.getFileHandle(SEAL, { create: true })).createWritable();
    await writable.write(JSON.stringify({ id: this.id }));
    await writable.close();
  }
}

/**
 * Whether the staging area is still the one sealed as `id`, whole: another tab's start removes a
 * staging area without a plan, and another verification replaces it (removed whole either way).
 */
export async function sealed(id: string): Promise<boolean> {
  try {
    const seal = await (await stagingDir(false))?.getFileHandle(SEAL);
    const value = JSON.parse(seal ? await (await seal.getFile()).text() : "{}") as { id?: unknown };
    return value.id === id;
  } catch {
    return false;
  }
}
