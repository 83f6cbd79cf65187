/**
 * The profile's OPFS folders as the page reaches them (the layout is persistence.ts's:
 * tidepool/workspaces/<name>/files/… and …/recordings/), and the backup's own: tidepool/backup/ (the last backup file
 * written, streamed there before it is downloaded) and tidepool/restore/ (a restore's staging area).
 */

export const WORKSPACE_NAME = "default";

export async function appDir(): Promise<FileSystemDirectoryHandle> {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle("tidepool", { create: true });
}

async function workspaceDir(): Promise<FileSystemDirectoryHandle> {
  const all = await (await appDir()).getDirectoryHandle("workspaces", { create: true });
  return all.getDirectoryHandle(WORKSPACE_NAME, { create: true });
}

export async function workspaceFilesDir(): Promise<FileSystemDirectoryHandle> {
  return (await workspaceDir()).getDirectoryHandle("files", { create: true });
}

/** The recordings (worker/recording-store.ts): one file per session, and the model lists. */
export async function recordingsDir(): Promise<FileSystemDirectoryHandle> {
  return (await workspaceDir()).getDirectoryHandle("recordings", { create: true });
}

export interface OpfsFile {
  /** Relative to the folder walked, with `/`. */
  path: string;
  handle: FileSystemFileHandle;
}

/** Every file under `dir`, depth first, sorted by name. */
export async function walkFiles(dir: FileSystemDirectoryHandle, prefix = ""): Promise<OpfsFile[]> {
  const children: [string, FileSystemHandle][] = [];
  for await (const [name, handle] of dir.entries()) children.push([name, handle]);
  children.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: OpfsFile[] = [];
  for (const [name, handle] of children) {
    const path = prefix ? `${prefix}/${name}` : name;
    if (handle.kind === "directory") out.push(...(await walkFiles(handle as FileSystemDirectoryHandle, path)));
    else out.push({ path, handle: handle as FileSystemFileHandle });
  }
  return out;
}

export async function fileAt(
  root: FileSystemDirectoryHandle,
  path: string,
  create: boolean,
): Promise<FileSystemFileHandle> {
  const parts = path.split("/");
  const name = parts.pop() as string;
  let dir = root;
  for (const part of parts) dir = await dir.getDirectoryHandle(part, { create });
  return dir.getFileHandle(name, { create });
}

/** Remove every entry of `dir` (the folder itself stays). */
export async function emptyDir(dir: FileSystemDirectoryHandle): Promise<void> {
  const names: string[] = [];
  for await (const name of dir.keys()) names.push(name);
  for (const name of names) await dir.removeEntry(name, { recursive: true });
}
