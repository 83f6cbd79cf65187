/**
 * The files panel's view of the workspace, inside the agent worker. The truth is Pyodide's in-memory
 * `/workspace` (the runtime's tools read and write it), filled from OPFS on demand (workspace-lazy.ts):
 * each operation first has the folders it touches listed. This module lists it, reads a file, writes
 * uploads, deletes, and packs it as a zip. Changes made here are saved to OPFS through the same
 * `Persistence.flush` the runtime's `flush_request`s use (when this tab holds the workspace).
 */

import type { Zippable } from "fflate";
import { nameProblem, shown } from "../protocol/names";
import type { FileView, WorkspaceEntry, WorkspaceRequest, WorkspaceResult } from "../protocol/workspace";
import { safeParts, WORKSPACE_DIR, type FlushOutcome, type PyFS } from "./persistence";

/** The full FS surface this module needs (Pyodide's `FS` has all of it). */
export interface WorkspacePyFS extends PyFS {
  unlink(path: string): void;
  rmdir(path: string): void;
}

export type SaveWorkspace = (paths: string[]) => Promise<FlushOutcome>;

/** Brings folders of the workspace into memory before they are used (workspace-lazy.ts). */
export interface OnDemand {
  path(rel: string): Promise<void>;
  tree(rel?: string): Promise<void>;
}

/** Everything is in memory already (no OPFS, or tests on a real folder). */
const ALL_THERE: OnDemand = { path: () => Promise.resolve(), tree: () => Promise.resolve() };

export const MAX_VIEW_BYTES = 512 * 1024;
export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;
/** Folders the runtime keeps for itself (spilled tool results); not listed in the panel. */
export const INTERNAL_DIRS: readonly string[] = [".agent"];

export class WorkspaceError extends Error {
  constructor(
    readonly code: "not_found" | "invalid" | "too_large" | "not_ready",
    message: string,
  ) {
    super(message);
  }
}

export class WorkspaceFiles {
  /** `save`: null when nothing is saved in this tab (no OPFS, or another tab holds the workspace). */
  constructor(
    private readonly fs: WorkspacePyFS,
    private readonly save: SaveWorkspace | null,
    private readonly onDemand: OnDemand = ALL_THERE,
    private readonly root = WORKSPACE_DIR,
  ) {}

  /** Whether changes made here are saved to OPFS. */
  get saves(): boolean {
    return this.save !== null;
  }

  /** Every file and folder under the root, folders before files, sorted by path; internal folders left out. */
  async list(): Promise<WorkspaceEntry[]> {
    await this.onDemand.tree("");
    const out: WorkspaceEntry[] = [];
    if (!this.fs.analyzePath(this.root).exists) return out;
    this.walk("", (rel, isDir, size) => {
      out.push({ path: rel, kind: isDir ? "dir" : "file", size });
      return !(isDir && INTERNAL_DIRS.includes(rel));
    });
    return out.filter((e) => !INTERNAL_DIRS.some((d) => e.path === d || e.path.startsWith(`${d}/`)));
  }

  async read(path: string): Promise<FileView> {
    await this.onDemand.path(this.rel(path));
    const full = this.existing(path);
    if (this.isDir(full)) throw new WorkspaceError("invalid", `${path} is a folder`);
    const data = this.fs.readFile(full);
    const truncated = data.length > MAX_VIEW_BYTES;
    const head = truncated ? data.subarray(0, MAX_VIEW_BYTES) : data;
    const text = decodeText(head, truncated);
    return { path: this.rel(path), size: data.length, text: text ?? "", binary: text === null, truncated };
  }

  /** Write each file at the workspace root (a name with a folder in it keeps only its last part). */
  async upload(files: { name: string; data: Uint8Array }[]): Promise<string[]> {
    const names: string[] = [];
    await this.onDemand.path("");
    for (const file of files) {
      const name = baseName(file.name);
      if (file.data.length > MAX_UPLOAD_BYTES) {
        throw new WorkspaceError("too_large", `${name} is over ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB`);
      }
      const full = `${this.root}/${name}`;
      if (this.fs.analyzePath(full).exists && this.isDir(full)) {
        throw new WorkspaceError("invalid", `a folder named ${name} is already there`);
      }
      names.push(name);
    }
    this.fs.mkdirTree(this.root);
    files.forEach((file, i) => this.fs.writeFile(`${this.root}/${names[i] as string}`, file.data));
    await this.persist(names);
    return names;
  }

  /** Delete a file, or a folder with everything in it. */
  async remove(path: string): Promise<string[]> {
    await this.onDemand.path(this.rel(path));
    const full = this.existing(path);
    const rel = this.rel(path);
    if (rel === "") throw new WorkspaceError("invalid", "the workspace itself cannot be deleted");
    this.removeTree(full);
    await this.persist([rel]);
    return [rel];
  }

  /** The whole workspace (internal folders too: it is a backup) as zip bytes. */
  async exportZip(): Promise<{ zip: Uint8Array; files: number }> {
    await this.onDemand.tree("");
    const tree: Zippable = {};
    let files = 0;
    if (this.fs.analyzePath(this.root).exists) {
      this.walk("", (rel, isDir) => {
        if (isDir) tree[`${rel}/`] = {};
        else {
          tree[rel] = this.fs.readFile(`${this.root}/${rel}`);
          files++;
        }
        return true;
      });
    }
    const { zipSync } = await import("fflate"); // loaded at the first export, not with the worker
    return { zip: zipSync(tree, { level: 6 }), files };
  }

  private async persist(paths: string[]): Promise<void> {
    if (!this.save) return;
    const outcome = await this.save(paths);
    if (!outcome.ok) throw new WorkspaceError("invalid", `changed here, but not saved: ${outcome.message}`);
  }

  /** Depth-first over the tree; `visit` returns false to skip a folder's contents. */
  private walk(rel: string, visit: (rel: string, isDir: boolean, size: number) => boolean): void {
    const dir = rel ? `${this.root}/${rel}` : this.root;
    const names = this.fs
      .readdir(dir)
      .filter((n) => n !== "." && n !== "..")
      .sort();
    const kinds = names.map((n) => ({ name: n, dir: this.isDir(`${dir}/${n}`) }));
    for (const { name, dir: isDir } of [...kinds.filter((k) => k.dir), ...kinds.filter((k) => !k.dir)]) {
      const child = rel ? `${rel}/${name}` : name;
      const size = isDir ? 0 : this.size(`${dir}/${name}`);
      if (visit(child, isDir, size) && isDir) this.walk(child, visit);
    }
  }

  private removeTree(full: string): void {
    if (!this.isDir(full)) {
      this.fs.unlink(full);
      return;
    }
    for (const name of this.fs.readdir(full)) {
      if (name !== "." && name !== "..") this.removeTree(`${full}/${name}`);
    }
    this.fs.rmdir(full);
  }

  private existing(path: string): string {
    const full = this.full(path);
    if (!this.fs.analyzePath(full).exists) throw new WorkspaceError("not_found", `${path} is not in the workspace`);
    return full;
  }

  private full(path: string): string {
    const rel = this.rel(path);
    return rel ? `${this.root}/${rel}` : this.root;
  }

  private rel(path: string): string {
    try {
      return safeParts(path).join("/");
    } catch (err) {
      throw new WorkspaceError("invalid", err instanceof Error ? err.message : String(err));
    }
  }

  private isDir(full: string): boolean {
    return this.fs.isDir(this.fs.stat(full).mode);
  }

  private size(full: string): number {
    const stat = this.fs.stat(full) as { mode: number; size?: number };
    return typeof stat.size === "number" ? stat.size : this.fs.readFile(full).length;
  }
}

/** A file name without any folder part; refuses names that are empty, only dots, or that the name rule refuses. */
export function baseName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? "";
  if (last === "" || last === "." || last === "..") {
    throw new WorkspaceError("invalid", `not a usable file name: ${JSON.stringify(shown(name))}`);
  }
  const problem = nameProblem(last);
  if (problem)
    throw new WorkspaceError(
      "invalid",
      `"${shown(last)}" was not uploaded: ${problem}. Rename it and upload it again.`,
    );
  return last;
}

/** UTF-8 text, or null for binary data (a NUL byte, or bytes that are not UTF-8). */
export function decodeText(data: Uint8Array, cut: boolean): string | null {
  if (data.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(data, { stream: cut });
  } catch {
    return null;
  }
}

/** Run one request; never throws. */
export async function handleWorkspaceRequest(
  files: WorkspaceFiles | null,
  request: WorkspaceRequest,
): Promise<WorkspaceResult> {
  if (!files) return { ok: false, code: "not_ready", message: "the workspace is not open yet" };
  try {
    switch (request.op) {
      case "list":
        return { ok: true, value: await files.list() };
      case "read":
        return { ok: true, value: await files.read(request.path) };
      case "upload":
        return { ok: true, value: { changed: await files.upload(request.files), saved: files.saves } };
      case "delete":
        return { ok: true, value: { changed: await files.remove(request.path), saved: files.saves } };
      case "export":
        return { ok: true, value: await files.exportZip() };
    }
  } catch (err) {
    if (err instanceof WorkspaceError) return { ok: false, code: err.code, message: err.message };
    return { ok: false, code: "internal", message: err instanceof Error ? err.message : String(err) };
  }
}
