/**
 * The workspace on demand (docs/storage.md): boot copies nothing from OPFS into Pyodide's `/workspace`.
 * A folder's entries appear there when it is *listed* (`list`, asked for by the runtime's
 * `workspace_fetch` and by the files panel): sub-folders as folders, files as stubs that report their
 * real size and hold the OPFS `File` (a snapshot, not its bytes). The first read of a stub, or any change
 * to it, loads its bytes synchronously with `FileReaderSync` (workers have it) and turns it into a plain
 * in-memory file; from then on it is like any other. Each folder is listed once; a listing only adds
 * entries that are not in memory yet, so what the runtime wrote or deleted since wins. Writes reach OPFS
 * at the flush, as before (persistence.ts asks `pristine` and `isListed` so it neither rewrites an
 * untouched stub nor deletes what was never listed).
 *
 * A listing costs one round trip per level, not per folder: the folders of a level are listed together,
 * each from the handle its parent's listing gave. Files whose names the ask `load`s (the skills' SKILL.md,
 * which the catalog reads at once) have their bytes read with the listing, all together; they stay stubs
 * until used, so a catalog of 200 skills is not 200 synchronous reads. A folder read ahead at boot
 * (workspace-ahead.ts) is taken from there the first time it is listed.
 */

import { type FolderRead, type ReadAhead, readFolder } from "./workspace-ahead";

/** The parts of Emscripten's FS used here (Pyodide's `FS` has them). */
export interface LazyFS {
  lookupPath(path: string): { node: LazyNode };
  analyzePath(path: string): { exists: boolean };
  mkdirTree(path: string): void;
  mkdir(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
  readdir(path: string): string[];
  stat(path: string): { mode: number };
  isDir(mode: number): boolean;
  ErrnoError: new (errno: number) => Error;
}

const EIO = 29;

interface Attr {
  size: number;
  blocks: number;
  [key: string]: unknown;
}

interface NodeOps {
  getattr(node: LazyNode): Attr;
  setattr(node: LazyNode, attr: { size?: number; [key: string]: unknown }): void;
  [key: string]: unknown;
}

interface StreamOps {
  read(stream: { node: LazyNode }, ...rest: unknown[]): number;
  write(stream: { node: LazyNode }, ...rest: unknown[]): number;
  llseek(stream: { node: LazyNode }, ...rest: unknown[]): number;
  mmap?(stream: { node: LazyNode }, ...rest: unknown[]): unknown;
  [key: string]: unknown;
}

export interface LazyNode {
  contents: unknown;
  usedBytes: number;
  node_ops: NodeOps;
  stream_ops: StreamOps;
  /** Set while the node is a stub: where its bytes are (read ahead when the listing `load`s it), and the
   * workspace path it was listed at. */
  lazy?: { file: Blob; source: string; bytes?: Uint8Array };
}

/** Reads a Blob's bytes synchronously (FileReaderSync in a worker). */
export type ReadSync = (blob: Blob) => Uint8Array;

export const WORKSPACE_DIR = "/workspace";

/** What answers a runtime `workspace_fetch` (a LazyWorkspace). */
export interface WorkspaceLister {
  list(dirs: string[], depth: number | null, load?: readonly string[]): Promise<void>;
}

type Reply = { type: "reply"; id: string; ok: boolean; result?: object; error?: { code: string; message: string } };

/** The `reply` to `workspace_fetch` (dirs, depth): ok once listed; a failed listing is an error reply. */
export async function answerFetch(
  lister: WorkspaceLister | null,
  request: { id: string; dirs: string[]; depth: number | null; load?: string[] },
): Promise<Reply> {
  try {
    await lister?.list(request.dirs, request.depth, request.load ?? []);
    return { type: "reply", id: request.id, ok: true, result: {} };
  } catch (err) {
    const message = `listing the workspace failed: ${err instanceof Error ? err.message : String(err)}`;
    return { type: "reply", id: request.id, ok: false, error: { code: "storage_failed", message } };
  }
}

export class LazyWorkspace {
  private readonly listed = new Set<string>();
  private readonly listing = new Map<string, Promise<string[]>>();
  /** OPFS folders met while listing their parents (so a folder is not looked up from the root again). */
  private readonly handles = new Map<string, FileSystemDirectoryHandle>();
  private ahead: ReadAhead | null = null;
  private memNode: NodeOps | null = null;
  private memStream: StreamOps | null = null;
  /** Files whose bytes were fetched (counts, for the log and the tests). */
  loads = 0;

  /** `root`: the workspace's `files` folder in OPFS; null when there is none (nothing to list). */
  constructor(
    private readonly fs: LazyFS,
    private readonly root: FileSystemDirectoryHandle | null,
    private readonly readSync: ReadSync = defaultReadSync,
    readonly mount = WORKSPACE_DIR,
  ) {
    fs.mkdirTree(mount);
  }

  /** Take the folders `ahead` reads from there the first time each is listed. */
  useReadAhead(ahead: ReadAhead): void {
    this.ahead = ahead;
  }

  /** Whether the folder `rel` ("" the workspace) shows all its OPFS entries. */
  isListed(rel: string): boolean {
    return this.root === null || this.listed.has(rel);
  }

  /** Whether the file at `full` is an untouched stub listed at `rel` (so OPFS already holds its bytes). */
  pristine(full: string, rel: string): boolean {
    const node = this.node(full);
    return node?.lazy !== undefined && node.lazy.source === rel;
  }

  /** Every folder on the way to `rel`, and `rel` itself when it is one, is listed. */
  async path(rel: string, load: ReadonlySet<string> = NONE): Promise<void> {
    const parts = splitRel(rel);
    for (let i = 0; i <= parts.length; i++) await this.listOne(parts.slice(0, i).join("/"), load);
  }

  /**
   * List `dirs` and `depth` levels below each (null: everything), breadth first, a level's folders
   * together. Files named in `load` come with their bytes.
   */
  async list(dirs: string[], depth: number | null = 0, load: readonly string[] = []): Promise<void> {
    const names = load.length > 0 ? new Set(load) : NONE;
    let level = dirs.map((d) => splitRel(d).join("/"));
    // The folders on the way come first (once for siblings), then each level's folders at once.
    for (const parent of new Set(level.map((rel) => splitRel(rel).slice(0, -1).join("/")))) await this.path(parent);
    for (let d = 0; level.length > 0; d++) {
      const listed = await Promise.all(level.map((dir) => this.listOne(dir, names)));
      if (depth !== null && d >= depth) return;
      level = listed
        .flat()
        .filter((c) => c.dir)
        .map((c) => c.rel);
    }
  }

  /** `rel` and everything below it. */
  async tree(rel = ""): Promise<void> {
    await this.path(rel);
    await this.list([rel], null);
  }

  /** The folder's entries (listing it from OPFS the first time): workspace paths, and which are folders. */
  private async listOne(rel: string, load: ReadonlySet<string>): Promise<{ rel: string; dir: boolean }[]> {
    if (!this.isListed(rel)) {
      let pending = this.listing.get(rel);
      if (!pending) {
        pending = this.fetchListing(rel, load).finally(() => this.listing.delete(rel));
        this.listing.set(rel, pending);
      }
      await pending;
    }
    const full = this.full(rel);
    if (!this.fs.analyzePath(full).exists || !this.fs.isDir(this.fs.stat(full).mode)) return [];
    return this.fs
      .readdir(full)
      .filter((n) => n !== "." && n !== "..")
      .map((n) => ({ rel: rel ? `${rel}/${n}` : n, dir: this.fs.isDir(this.fs.stat(`${full}/${n}`).mode) }));
  }

  private async fetchListing(rel: string, load: ReadonlySet<string>): Promise<string[]> {
    const full = this.full(rel);
    const added: string[] = [];
    // Not a folder in memory (yet): nothing to list into; it is listed when it appears.
    if (!this.fs.analyzePath(full).exists || !this.fs.isDir(this.fs.stat(full).mode)) return added;
    const ahead = this.ahead?.covers(rel) ? await this.ahead.take(rel) : undefined;
    const read = ahead ?? (await this.opfsRead(rel, load));
    if (read) {
      const { entries, files } = read;
      if (!this.fs.analyzePath(full).exists) return added; // deleted while we listed
      entries.forEach(([name, h], i) => {
        const path = `${full}/${name}`;
        const childRel = rel ? `${rel}/${name}` : name;
        if (h.kind === "directory") this.handles.set(childRel, h as FileSystemDirectoryHandle);
        if (this.fs.analyzePath(path).exists) return; // what memory holds wins (written or made since)
        const file = files[i];
        if (file) this.stub(path, file.file, childRel, file.bytes);
        else this.fs.mkdir(path);
        added.push(name);
      });
    }
    this.listed.add(rel);
    return added;
  }

  /** The OPFS folder for `rel` as a listing reads it, or null when OPFS has none there. */
  private async opfsRead(rel: string, load: ReadonlySet<string>): Promise<FolderRead | null> {
    const known = this.handles.get(rel);
    this.handles.delete(rel);
    for (const handle of known ? [known, null] : [null]) {
      const dir = handle ?? (await this.opfsDir(rel));
      if (!dir) return null;
      try {
        return await readFolder(dir, load);
      } catch (err) {
        if (!handle) throw err; // the handle from the parent's listing went stale: look the folder up again
      }
    }
    return null;
  }

  /** The OPFS folder for `rel`, or null when OPFS has none there. */
  private async opfsDir(rel: string): Promise<FileSystemDirectoryHandle | null> {
    let dir = this.root;
    for (const part of splitRel(rel)) {
      if (!dir) return null;
      dir = await dir.getDirectoryHandle(part).catch(() => null);
    }
    return dir;
  }

  private stub(path: string, file: Blob, source: string, bytes?: Uint8Array): void {
    this.fs.writeFile(path, new Uint8Array(0));
    const node = this.fs.lookupPath(path).node;
    this.memNode ??= node.node_ops;
    this.memStream ??= node.stream_ops;
    node.lazy = bytes ? { file, source, bytes } : { file, source };
    node.node_ops = this.stubNodeOps();
    node.stream_ops = this.stubStreamOps();
  }

  /** A stub's bytes, fetched now; it becomes a plain in-memory file. */
  private load(node: LazyNode, keep = true): void {
    const lazy = node.lazy;
    if (!lazy) return;
    let bytes: Uint8Array = new Uint8Array(0);
    try {
      if (keep) bytes = lazy.bytes ?? this.readSync(lazy.file);
    } catch (err) {
      // The OPFS file changed under us (another tab took the workspace over): an I/O error, not a crash.
      console.warn(`reading workspace file ${lazy.source} failed: ${String(err)}`);
      throw new this.fs.ErrnoError(EIO);
    }
    if (keep) this.loads++;
    node.contents = bytes;
    node.usedBytes = bytes.length;
    delete node.lazy;
    node.node_ops = this.memNode as NodeOps;
    node.stream_ops = this.memStream as StreamOps;
  }

  private stubNodeOps(): NodeOps {
    const mem = this.memNode as NodeOps;
    return {
      ...mem,
      getattr: (node) => {
        const attr = mem.getattr(node);
        if (node.lazy) {
          attr.size = node.lazy.file.size;
          attr.blocks = Math.ceil(attr.size / 4096);
        }
        return attr;
      },
      setattr: (node, attr) => {
        // Truncating to nothing needs no bytes; any other size change works on the real ones.
        if (attr.size !== undefined) this.load(node, attr.size !== 0);
        mem.setattr(node, attr);
      },
    };
  }

  private stubStreamOps(): StreamOps {
    const mem = this.memStream as StreamOps;
    const loaded =
      <K extends "read" | "write" | "llseek" | "mmap">(key: K) =>
      (stream: { node: LazyNode }, ...rest: unknown[]): unknown => {
        this.load(stream.node);
        const op = mem[key] as (stream: { node: LazyNode }, ...rest: unknown[]) => unknown;
        return op(stream, ...rest);
      };
    return {
      ...mem,
      read: loaded("read") as StreamOps["read"],
      write: loaded("write") as StreamOps["write"],
      llseek: loaded("llseek") as StreamOps["llseek"],
      ...(mem.mmap ? { mmap: loaded("mmap") } : {}),
    };
  }

  private node(full: string): LazyNode | null {
    try {
      return this.fs.lookupPath(full).node;
    } catch {
      return null;
    }
  }

  private full(rel: string): string {
    return rel ? `${this.mount}/${rel}` : this.mount;
  }
}

const NONE: ReadonlySet<string> = new Set();

function splitRel(rel: string): string[] {
  return rel.split("/").filter((p) => p !== "" && p !== "." && p !== "..");
}

function defaultReadSync(blob: Blob): Uint8Array {
  const Reader = (globalThis as { FileReaderSync?: new () => { readAsArrayBuffer(blob: Blob): ArrayBuffer } })
    .FileReaderSync;
  if (!Reader) throw new Error("FileReaderSync is not available here");
  return new Uint8Array(new Reader().readAsArrayBuffer(blob));
}
