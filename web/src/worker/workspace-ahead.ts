/**
 * Folders read from OPFS ahead of the runtime's first ask (docs/storage.md, "The workspace on demand").
 *
 * The worker's thread answers OPFS only when Python is not running, and after `ready` Python is busy
 * (opening the store, the first session, the prompt's template): a listing asked for then waits for all
 * of it. While Pyodide loads, the thread mostly waits for the network and the compiler. So the boot reads
 * the folders every first turn and the skills panel list at once (the skills' tree, the agent profiles)
 * then, and `LazyWorkspace` takes each folder's read from here the first time it lists it.
 *
 * A read ahead is what a listing at that moment would have found: it is taken once, and what memory holds
 * wins over it as over any listing. Only this tab writes the workspace's files once it holds the lock,
 * and nothing is read before it does. A folder not read here (past the limit, or failed) is listed as before.
 */

/** A listed entry: a file's snapshot (and its bytes when its name is loaded); null for a folder. */
export type EntryRead = { file: File; bytes?: Uint8Array } | null;

/** One folder as a listing reads it: its entries and what each one is. */
export interface FolderRead {
  entries: [string, FileSystemHandle][];
  files: EntryRead[];
}

/** A tree to read ahead: the folder, and the names of the files whose bytes come with it. */
export interface AheadTree {
  rel: string;
  load: readonly string[];
}

/**
 * What the boot reads ahead. The names loaded are a hint (the runtime's `workspace_fetch` says what it
 * wants; a file whose bytes were not read here is read when used): the skills catalog's files.
 */
export const BOOT_TREES: readonly AheadTree[] = [
  { rel: ".agents/skills", load: ["SKILL.md", "state.json", "origins.json"] },
  { rel: ".agents/agents", load: [] },
];

/** At most this many entries are read ahead in all; deeper folders are listed when asked for. */
export const AHEAD_LIMIT = 4000;

export async function readEntry(name: string, handle: FileSystemHandle, load: ReadonlySet<string>): Promise<EntryRead> {
  if (handle.kind !== "file") return null;
  const file = await (handle as FileSystemFileHandle).getFile();
  return load.has(name) ? { file, bytes: new Uint8Array(await file.arrayBuffer()) } : { file };
}

/** A folder's entries and what each is, with the bytes of the files named in `load`. */
export async function readFolder(dir: FileSystemDirectoryHandle, load: ReadonlySet<string>): Promise<FolderRead> {
  const entries: [string, FileSystemHandle][] = [];
  for await (const entry of dir.entries()) entries.push(entry);
  const files = await Promise.all(entries.map(([name, h]) => readEntry(name, h, load)));
  return { entries, files };
}

export class ReadAhead {
  private readonly folders = new Map<string, FolderRead>();
  private readonly done: Promise<void>;

  /** Start reading `trees` under `root` (the workspace's `files` folder) once `root` is known. */
  constructor(
    root: Promise<FileSystemDirectoryHandle | null>,
    private readonly trees: readonly AheadTree[] = BOOT_TREES,
    limit = AHEAD_LIMIT,
  ) {
    this.done = root.then((dir) => (dir ? this.readAll(dir, limit) : undefined)).catch(() => undefined);
  }

  /** Whether `rel` is at or under one of the trees read ahead. */
  covers(rel: string): boolean {
    return this.trees.some((t) => rel === t.rel || rel.startsWith(`${t.rel}/`));
  }

  /** The folder's read, once (undefined when it was not read ahead, or was taken already). */
  async take(rel: string): Promise<FolderRead | undefined> {
    await this.done;
    const read = this.folders.get(rel);
    this.folders.delete(rel);
    return read;
  }

  private async readAll(root: FileSystemDirectoryHandle, limit: number): Promise<void> {
    let left = limit;
    for (const tree of this.trees) {
      const top = await lookUp(root, tree.rel);
      if (!top) continue;
      const load = new Set(tree.load);
      let level: [string, FileSystemDirectoryHandle][] = [[tree.rel, top]];
      while (level.length > 0 && left > 0) {
        level = level.slice(0, left); // a folder left out is listed when asked for
        const reads = await Promise.all(level.map(([, dir]) => readFolder(dir, load).catch(() => null)));
        const next: [string, FileSystemDirectoryHandle][] = [];
        reads.forEach((read, i) => {
          if (!read) return;
          const rel = (level[i] as [string, FileSystemDirectoryHandle])[0];
          this.folders.set(rel, read);
          left -= read.entries.length;
          for (const [name, h] of read.entries)
            if (h.kind === "directory") next.push([`${rel}/${name}`, h as FileSystemDirectoryHandle]);
        });
        level = next;
      }
    }
  }
}

/** The OPFS folder at `rel` under `root`, or null when there is none. */
async function lookUp(root: FileSystemDirectoryHandle, rel: string): Promise<FileSystemDirectoryHandle | null> {
  let dir: FileSystemDirectoryHandle | null = root;
  for (const part of rel.split("/").filter(Boolean)) {
    if (!dir) return null;
    dir = await dir.getDirectoryHandle(part).catch(() => null);
  }
  return dir;
}
