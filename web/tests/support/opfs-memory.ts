/**
 * The part of the OPFS API the workspace code uses (directory and file handles, `getFile`,
 * `createWritable`, `removeEntry`), in memory, for tests under Node where there is no OPFS. A file's
 * `getFile()` is a snapshot, as in the browser: `bytesOf` reads it synchronously (FileReaderSync's
 * part), and fails once the file was written or removed since, as reading a stale OPFS File does.
 */

type Entry = MemoryDir | MemoryFile;

const snapshots = new WeakMap<Blob, { file: MemoryFile; version: number; bytes: Uint8Array }>();

export class MemoryFile {
  readonly kind = "file";
  bytes = new Uint8Array(0);
  version = 0;
  /** getFile() calls (a listing makes one per file; reading the bytes is `reads`). */
  static snapshots = 0;
  static reads = 0;

  constructor(readonly name: string) {}

  getFile(): Promise<Blob> {
    MemoryFile.snapshots++;
    const blob = new Blob([this.bytes.slice()]);
    snapshots.set(blob, { file: this, version: this.version, bytes: this.bytes.slice() });
    return Promise.resolve(blob);
  }

  createWritable(): Promise<{
    write(data: Uint8Array): Promise<void>;
    close(): Promise<void>;
    abort(): Promise<void>;
  }> {
    let pending = new Uint8Array(0);
    return Promise.resolve({
      write: (data: Uint8Array) => {
        pending = data.slice();
        return Promise.resolve();
      },
      close: () => {
        this.bytes = pending;
        this.version++;
        return Promise.resolve();
      },
      abort: () => Promise.resolve(),
    });
  }
}

export class MemoryDir {
  readonly kind = "directory";
  readonly children = new Map<string, Entry>();

  constructor(readonly name = "") {}

  async *entries(): AsyncIterableIterator<[string, Entry]> {
    for (const entry of [...this.children.entries()]) yield await Promise.resolve(entry);
  }

  async *keys(): AsyncIterableIterator<string> {
    for (const name of [...this.children.keys()]) yield await Promise.resolve(name);
  }

  getDirectoryHandle(name: string, options: { create?: boolean } = {}): Promise<MemoryDir> {
    const found = this.children.get(name);
    if (found instanceof MemoryDir) return Promise.resolve(found);
    if (found || !options.create)
      return Promise.reject(
        new DOMException(`${name} is not a folder here`, found ? "TypeMismatchError" : "NotFoundError"),
      );
    const dir = new MemoryDir(name);
    this.children.set(name, dir);
    return Promise.resolve(dir);
  }

  getFileHandle(name: string, options: { create?: boolean } = {}): Promise<MemoryFile> {
    const found = this.children.get(name);
    if (found instanceof MemoryFile) return Promise.resolve(found);
    if (found || !options.create)
      return Promise.reject(
        new DOMException(`${name} is not a file here`, found ? "TypeMismatchError" : "NotFoundError"),
      );
    const file = new MemoryFile(name);
    this.children.set(name, file);
    return Promise.resolve(file);
  }

  removeEntry(name: string, options: { recursive?: boolean } = {}): Promise<void> {
    const found = this.children.get(name);
    if (!found) return Promise.reject(new DOMException(`${name} is not here`, "NotFoundError"));
    if (found instanceof MemoryDir && found.children.size > 0 && !options.recursive) {
      return Promise.reject(new DOMException(`${name} is not empty`, "InvalidModificationError"));
    }
    if (found instanceof MemoryFile) found.version++; // an open snapshot of it goes stale
    this.children.delete(name);
    return Promise.resolve();
  }

  /** Write `text` at the slash-separated `path`, making folders on the way. */
  put(path: string, text: string): this {
    const parts = path.split("/");
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- a walk down the tree that starts here
    let dir: MemoryDir = this;
    for (const part of parts.slice(0, -1)) {
      let next = dir.children.get(part);
      if (!(next instanceof MemoryDir)) {
        next = new MemoryDir(part);
        dir.children.set(part, next);
      }
      dir = next;
    }
    const name = parts[parts.length - 1] as string;
    const file = new MemoryFile(name);
    file.bytes = new TextEncoder().encode(text);
    dir.children.set(name, file);
    return this;
  }

  /** The text at `path`, or null when there is no file there. */
  text(path: string): string | null {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- a walk down the tree that starts here
    let entry: Entry | undefined = this;
    for (const part of path.split("/")) entry = entry instanceof MemoryDir ? entry.children.get(part) : undefined;
    return entry instanceof MemoryFile ? new TextDecoder().decode(entry.bytes) : null;
  }
}

/** A `getFile()` snapshot's bytes, synchronously; throws when the file changed since (a stale OPFS File). */
export function bytesOf(blob: Blob): Uint8Array {
  const snap = snapshots.get(blob);
  if (!snap) throw new Error("not a snapshot of a MemoryFile");
  if (snap.file.version !== snap.version)
    throw new DOMException("the file changed since it was listed", "NotReadableError");
  MemoryFile.reads++;
  return snap.bytes;
}
