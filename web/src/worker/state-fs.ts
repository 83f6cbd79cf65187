/**
 * The state directory (`/state`) in Pyodide's file system, with the live database's files kept in
 * OPFS page by page (docs/storage.md). `/state` is an ordinary in-memory folder, except for the
 * files named in `LIVE_FILES` (the database and SQLite's rollback journal): while this tab holds
 * the workspace, each of them is backed by a `Backing` (in the browser a `FileSystemSyncAccessHandle`
 * opened before the runtime starts), so every read and write SQLite makes goes to OPFS at once,
 * synchronously, and a commit writes only the pages it changed. SQLite's own journal (on the same
 * backings) makes a write cut off by a killed tab roll back when the database is next opened.
 *
 * A live file "exists" while it has a node in the folder: a backing that is empty when mounted
 * gets none; deleting the file (SQLite deletes its journal to commit) empties the backing.
 *
 * When a backing fails (the disk is full) or the workspace is lost to another tab, every live file
 * moves into memory (`toMemory`) and the handles are closed; the database goes on in memory, and
 * the caller saves it whole and hands new backings to `resume`.
 */

/** One file's bytes on the disk, read and written in place. */
export interface Backing {
  read(into: Uint8Array, at: number): number;
  write(from: Uint8Array, at: number): number;
  size(): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}

/** The live database and its rollback journal (SQLite's default journal mode). */
export const LIVE_FILES: readonly string[] = ["current.sqlite", "current.sqlite-journal"];

/** The parts of Emscripten's FS used here (Pyodide's `FS` has them). */
export interface EmscriptenFS {
  lookupPath(path: string): { node: EmNode };
  mkdirTree(path: string): void;
  mknod(path: string, mode: number, dev: number): EmNode;
  unlink(path: string): void;
  isFile(mode: number): boolean;
  ErrnoError: new (errno: number) => Error;
}

interface Attr {
  size: number;
  blocks: number;
  [key: string]: unknown;
}

interface NodeOps {
  getattr(node: EmNode): Attr;
  setattr(node: EmNode, attr: { size?: number; [key: string]: unknown }): void;
  mknod(parent: EmNode, name: string, mode: number, dev: number): EmNode;
  unlink(parent: EmNode, name: string): void;
  rename(node: EmNode, newDir: EmNode, newName: string): void;
}

interface StreamOps {
  read(stream: EmStream, buffer: Uint8Array, offset: number, length: number, position: number): number;
  write(
    stream: EmStream,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
    canOwn?: boolean,
  ): number;
  llseek(stream: EmStream, offset: number, whence: number): number;
  fsync?(stream: EmStream): number;
  mmap?(...args: unknown[]): unknown;
}

export interface EmNode {
  name: string;
  mode: number;
  parent: EmNode;
  contents: unknown;
  usedBytes: number;
  node_ops: NodeOps;
  stream_ops: StreamOps;
  backing?: Backing | null;
}

interface EmStream {
  node: EmNode;
  position: number;
}

const ENODEV = 43;
const FILE_MODE = 0o100666;

export class StateDir {
  private readonly dir: EmNode;
  private readonly memNode: NodeOps;
  private readonly memStream: StreamOps;
  private readonly backings = new Map<string, Backing>();
  private failure: unknown = null;
  /** Counts writes and truncations of live files (to tell whether memory changed during a save). */
  changes = 0;

  constructor(
    private readonly fs: EmscriptenFS,
    readonly path = "/state",
  ) {
    fs.mkdirTree(path);
    this.dir = fs.lookupPath(path).node;
    const probe = fs.mknod(`${path}/.probe`, FILE_MODE, 0); // the plain in-memory file operations
    this.memNode = probe.node_ops;
    this.memStream = probe.stream_ops;
    fs.unlink(`${path}/.probe`);
    this.dir.node_ops = this.dirOps({ ...this.dir.node_ops });
  }

  /** Whether the live files are on their backings (page by page) rather than in memory. */
  get paged(): boolean {
    return this.backings.size > 0;
  }

  /** Why the live files moved to memory (a failed write), or null. */
  get failed(): unknown {
    return this.failure;
  }

  /**
   * Put the live files on these backings (one per name in LIVE_FILES). `from: "disk"` (at start):
   * a backing with bytes shows as a file, an empty one as no file. `from: "memory"` (after
   * `toMemory`): memory is the truth, written through; `"saved"`: the same, when the backings
   * already hold what memory holds (a whole save just wrote it). Either way a file that does not
   * exist empties its backing (a journal left by the write that failed must not be replayed).
   */
  attach(backings: ReadonlyMap<string, Backing>, from: "disk" | "memory" | "saved" = "disk"): void {
    for (const name of LIVE_FILES) {
      const backing = backings.get(name);
      if (!backing) throw new Error(`no backing for ${name}`);
      const node = this.child(name);
      if (node) {
        if (from !== "saved") {
          const bytes = this.memBytes(node);
          backing.truncate(0);
          if (bytes.length) backing.write(bytes, 0);
          backing.flush();
        }
        this.onBacking(node, backing);
      } else if (from !== "disk") {
        backing.truncate(0);
        backing.flush();
      } else if (backing.size() > 0) {
        this.onBacking(this.fs.mknod(`${this.path}/${name}`, FILE_MODE, 0), backing);
      }
      this.backings.set(name, backing); // after the mknod above, which would empty it
    }
    this.failure = null;
  }

  /** Make what was written durable (`flush` on each backing). */
  flush(): void {
    for (const backing of this.backings.values()) backing.flush();
  }

  /** A live file's bytes as the file system holds them, or null when it does not exist. */
  bytes(name: string): Uint8Array | null {
    const node = this.child(name);
    if (!node) return null;
    const backing = node.backing;
    if (!backing) return this.memBytes(node).slice();
    const out = new Uint8Array(backing.size());
    backing.read(out, 0);
    return out;
  }

  /** Move every live file into memory and close the backings (their files stay as they are on disk). */
  toMemory(reason: unknown = null): void {
    for (const name of LIVE_FILES) {
      const node = this.child(name);
      if (node?.backing) {
        const bytes = new Uint8Array(node.backing.size());
        node.backing.read(bytes, 0);
        node.backing = null;
        node.contents = bytes;
        node.usedBytes = bytes.length;
      }
    }
    for (const backing of this.backings.values()) {
      try {
        backing.close();
      } catch {
        // already closed
      }
    }
    this.backings.clear();
    if (reason !== null) this.failure = reason;
  }

  private child(name: string): EmNode | null {
    const contents = this.dir.contents as Record<string, EmNode> | null;
    return contents?.[name] ?? null;
  }

  private memBytes(node: EmNode): Uint8Array {
    const contents = node.contents as Uint8Array | null;
    return contents ? contents.subarray(0, node.usedBytes) : new Uint8Array(0);
  }

  private onBacking(node: EmNode, backing: Backing): void {
    node.backing = backing;
    node.contents = null;
    node.usedBytes = 0;
    node.node_ops = this.fileOps();
    node.stream_ops = this.streamOps();
  }

  /** Run a backing operation, or the in-memory one; a failing backing moves every live file to memory first. */
  private guarded<T>(node: EmNode, op: (backing: Backing) => T, inMemory: () => T): T {
    const backing = node.backing;
    this.changes++;
    if (!backing) return inMemory();
    try {
      return op(backing);
    } catch (err) {
      this.toMemory(err);
      return inMemory();
    }
  }

  private dirOps(base: NodeOps): NodeOps {
    return {
      ...base,
      mknod: (parent, name, mode, dev) => {
        const node = base.mknod(parent, name, mode, dev);
        const backing = this.backings.get(name);
        if (backing && this.fs.isFile(mode)) {
          try {
            backing.truncate(0);
            this.onBacking(node, backing);
          } catch (err) {
            this.toMemory(err);
          }
        }
        return node;
      },
      unlink: (parent, name) => {
        const node = this.child(name);
        if (node?.backing)
          this.guarded(
            node,
            (b) => b.truncate(0),
            () => undefined,
          );
        if (node) node.backing = null;
        base.unlink(parent, name);
      },
      rename: (node, newDir, newName) => {
        if (node.backing) {
          // A live file moved aside (a damaged database): it leaves its backing empty.
          const bytes = this.bytes(node.name) ?? new Uint8Array(0);
          this.guarded(
            node,
            (b) => b.truncate(0),
            () => undefined,
          );
          node.backing = null;
          node.contents = bytes;
          node.usedBytes = bytes.length;
          node.node_ops = this.memNode;
          node.stream_ops = this.memStream;
        }
        const backing = newDir === this.dir ? this.backings.get(newName) : undefined;
        if (backing) {
          // A file moved over a live one (a restored generation): its bytes go onto the backing.
          const target = this.child(newName);
          try {
            backing.truncate(0);
            backing.write(this.memBytes(node), 0);
            backing.flush();
            if (target) target.backing = null;
            this.onBacking(node, backing);
          } catch (err) {
            this.toMemory(err);
          }
        }
        base.rename(node, newDir, newName);
      },
    };
  }

  private fileOps(): NodeOps {
    const mem = this.memNode;
    return {
      ...mem,
      getattr: (node) => {
        const attr = mem.getattr(node);
        if (node.backing) {
          attr.size = node.backing.size();
          attr.blocks = Math.ceil(attr.size / 4096);
        }
        return attr;
      },
      setattr: (node, attr) => {
        const { size, ...rest } = attr;
        mem.setattr(node, rest);
        if (size === undefined) return;
        this.guarded(
          node,
          (b) => b.truncate(size),
          () => mem.setattr(node, { size }),
        );
      },
    };
  }

  private streamOps(): StreamOps {
    const mem = this.memStream;
    const ErrnoError = this.fs.ErrnoError;
    return {
      ...mem,
      read: (stream, buffer, offset, length, position) => {
        const backing = stream.node.backing;
        if (!backing) return mem.read(stream, buffer, offset, length, position);
        const size = backing.size();
        if (position >= size) return 0;
        const n = Math.min(length, size - position);
        return backing.read(buffer.subarray(offset, offset + n), position);
      },
      write: (stream, buffer, offset, length, position, canOwn) =>
        this.guarded(
          stream.node,
          (b) => b.write(buffer.subarray(offset, offset + length), position),
          () => mem.write(stream, buffer, offset, length, position, canOwn),
        ),
      llseek: (stream, offset, whence) => {
        const backing = stream.node.backing;
        if (!backing) return mem.llseek(stream, offset, whence);
        const position = whence === 1 ? stream.position + offset : whence === 2 ? backing.size() + offset : offset;
        if (position < 0) throw new ErrnoError(28);
        return position;
      },
      // SQLite's fsyncs only order its writes against a power cut; a killed tab loses no write that
      // reached the handle. The handles are flushed once per step instead (`StateDir.flush`).
      fsync: () => 0,
      mmap: (...args: unknown[]) => {
        const stream = args[0] as EmStream;
        if (stream.node.backing || !mem.mmap) throw new ErrnoError(ENODEV);
        return mem.mmap(...args);
      },
    };
  }
}
