/**
 * Makes the runtime's files durable in OPFS (docs/storage.md). The state database lives on OPFS
 * itself, page by page (`state-save.ts`); a state `flush_request` makes its last commit durable.
 * Workspace files are not copied at boot: `workspace-lazy.ts` lists folders from OPFS into Pyodide's
 * in-memory FS as they are used. On each workspace `flush_request` the named files are written back with
 * `createWritable()`, which writes to a swap file and replaces the target only on `close()`, so a save
 * is atomic. Writes go before deletions (a moved file's bytes may still come from its old place); an
 * untouched stub is not rewritten, and nothing is deleted from a folder that was never listed.
 *
 * OPFS layout: tidepool/workspaces/<name>/state/{current.sqlite,current.sqlite-journal,previous.sqlite}
 * and …/<name>/files/….
 */

import { StateSave, writeWhole } from "./state-save";
import type { EmscriptenFS } from "./state-fs";
import { LazyWorkspace, type LazyFS } from "./workspace-lazy";

export interface PyFS {
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array): void;
  mkdirTree(path: string): void;
  analyzePath(path: string): { exists: boolean };
  stat(path: string): { mode: number };
  isDir(mode: number): boolean;
  readdir(path: string): string[];
}

/** Where a workspace lives on OPFS: its saved state and its files. */
export interface WorkspaceFolders {
  state: FileSystemDirectoryHandle;
  files: FileSystemDirectoryHandle;
}

export type FlushOutcome = { ok: true } | { ok: false; code: string; message: string };

export interface FlushRequest {
  what: "workspace" | "state";
  paths: unknown;
  rotate?: unknown;
}

export const STATE_DIR = "/state";
export const WORKSPACE_DIR = "/workspace";

export class Persistence {
  private state: StateSave | null = null;
  private released = false;
  /** The workspace on demand (listed from OPFS as it is used). */
  readonly workspace: LazyWorkspace;

  private constructor(
    private readonly fs: PyFS,
    private readonly stateDir: FileSystemDirectoryHandle,
    private readonly filesDir: FileSystemDirectoryHandle,
  ) {
    this.workspace = new LazyWorkspace(fs as unknown as LazyFS, filesDir);
  }

  /**
   * The workspace's folders on OPFS (made when missing), or null when this browser gives us no OPFS.
   * Python is not needed for this: a boot opens them while Python loads.
   */
  static async folders(workspace = "default"): Promise<WorkspaceFolders | null> {
    try {
      const root = await navigator.storage.getDirectory();
      const app = await root.getDirectoryHandle("tidepool", { create: true });
      const all = await app.getDirectoryHandle("workspaces", { create: true });
      const ws = await all.getDirectoryHandle(workspace, { create: true });
      const state = await ws.getDirectoryHandle("state", { create: true });
      const files = await ws.getDirectoryHandle("files", { create: true });
      return { state, files };
    } catch {
      return null;
    }
  }

  /** Null when this browser gives us no OPFS (then nothing is saved, and the runtime is told so). */
  static async open(fs: PyFS, folders = Persistence.folders()): Promise<Persistence | null> {
    const found = await folders;
    return found ? new Persistence(fs, found.state, found.files) : null;
  }

  /**
   * Mount /state on OPFS (on handles when this tab `holds` the workspace, else on copies). The
   * workspace is not read: its folders are listed when first used.
   */
  async restore(holds: boolean): Promise<{ stateFiles: number }> {
    const fs = this.fs as unknown as EmscriptenFS;
    const { save, restored } = await StateSave.open(fs, this.stateDir, holds && !this.released);
    this.state = save;
    if (restored.files > 0) {
      this.fs.writeFile(`${STATE_DIR}/saved_at.json`, new TextEncoder().encode(JSON.stringify(restored.savedAt)));
    }
    return { stateFiles: restored.files };
  }

  /** Another tab took the workspace over: stop saving and let go of the state's handles. */
  release(): void {
    this.released = true;
    this.state?.release();
  }

  async flush(request: FlushRequest): Promise<FlushOutcome> {
    const paths = Array.isArray(request.paths) ? request.paths.filter((p): p is string => typeof p === "string") : [];
    try {
      if (request.what === "state") {
        for (const name of paths) await this.saveState(name, request.rotate === true);
      } else {
        // Writes first: a moved file not read yet is still read from where it was.
        const gone = paths.filter((p) => !this.fs.analyzePath(sourceOf(p)).exists);
        for (const path of paths.filter((p) => !gone.includes(p))) await this.saveWorkspacePath(path);
        for (const path of gone) await this.saveWorkspacePath(path);
      }
      return { ok: true };
    } catch (err) {
      return failure(err);
    }
  }

  private async saveState(name: string, rotate: boolean): Promise<void> {
    if (name !== "current.sqlite") throw new PathError(`unexpected state file ${name}`);
    if (!this.state) throw new Error("the state is not open");
    await this.state.flush(rotate);
  }

  /** One workspace path: a file is written, a folder mirrored, a missing path deleted. */
  private async saveWorkspacePath(path: string): Promise<void> {
    const parts = safeParts(path);
    const source = sourceOf(path);
    const rel = parts.join("/");
    if (parts.length === 0) {
      await this.mirror(source, this.filesDir, rel);
      return;
    }
    const parent = await dirAt(this.filesDir, parts.slice(0, -1), true);
    const name = parts[parts.length - 1] as string;
    if (!this.fs.analyzePath(source).exists) {
      await parent.removeEntry(name, { recursive: true }).catch(() => undefined);
      return;
    }
    if (this.fs.isDir(this.fs.stat(source).mode)) {
      await this.mirror(source, await parent.getDirectoryHandle(name, { create: true }), rel);
    } else if (!this.workspace.pristine(source, rel)) {
      await writeWhole(parent, name, this.fs.readFile(source));
    }
  }

  /**
   * Make an OPFS folder hold what the in-memory folder holds: every file written (but untouched stubs),
   * then, when the folder was listed (so memory knows all of it), what memory no longer has deleted.
   */
  private async mirror(source: string, target: FileSystemDirectoryHandle, rel: string): Promise<void> {
    const names = this.fs.readdir(source).filter((n) => n !== "." && n !== "..");
    for (const name of names) {
      const path = `${source}/${name}`;
      const childRel = rel ? `${rel}/${name}` : name;
      if (this.fs.isDir(this.fs.stat(path).mode)) {
        await target.removeEntry(name).catch(() => undefined); // a file that became a folder
        await this.mirror(path, await target.getDirectoryHandle(name, { create: true }), childRel);
      } else if (!this.workspace.pristine(path, childRel)) {
        await target.removeEntry(name, { recursive: true }).catch(() => undefined); // a folder that became a file
        await writeWhole(target, name, this.fs.readFile(path));
      }
    }
    if (!this.workspace.isListed(rel)) return;
    for await (const existing of target.keys()) {
      if (!names.includes(existing)) await target.removeEntry(existing, { recursive: true });
    }
  }
}

function sourceOf(path: string): string {
  const parts = safeParts(path);
  return parts.length ? `${WORKSPACE_DIR}/${parts.join("/")}` : WORKSPACE_DIR;
}

class PathError extends Error {}

/** A workspace-relative path as safe segments; throws on anything that could leave the workspace. */
export function safeParts(path: string): string[] {
  if (path.includes("\\") || path.includes("\0") || path.startsWith("/") || /^[A-Za-z]:/.test(path)) {
    throw new PathError(`unsafe workspace path ${JSON.stringify(path)}`);
  }
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === "..")) throw new PathError(`unsafe workspace path ${JSON.stringify(path)}`);
  return parts;
}

async function dirAt(
  root: FileSystemDirectoryHandle,
  parts: string[],
  create: boolean,
): Promise<FileSystemDirectoryHandle> {
  let dir = root;
  for (const part of parts) dir = await dir.getDirectoryHandle(part, { create });
  return dir;
}

function failure(err: unknown): FlushOutcome {
  const name = err instanceof DOMException ? err.name : "";
  const message = err instanceof Error ? err.message : String(err);
  if (name === "QuotaExceededError") {
    return { ok: false, code: "quota_exceeded", message: `the browser's storage is full: ${message}` };
  }
  if (err instanceof PathError) return { ok: false, code: "invalid", message };
  return { ok: false, code: "storage_failed", message: `saving to the browser's storage failed: ${message}` };
}
