// The workspace on demand (workspace-lazy.ts) in real Pyodide under Node, over an in-memory stand-in for
// OPFS: nothing is read until a folder is listed, a listed file shows its size before its bytes are read,
// the first read fetches them once, what memory holds wins over a later listing, and a flush (persistence.ts)
// writes only what changed and deletes only in folders it knows whole.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Persistence } from "../src/worker/persistence";
import { ReadAhead } from "../src/worker/workspace-ahead";
import { LazyWorkspace, type LazyFS } from "../src/worker/workspace-lazy";
import { bytesOf, MemoryDir, MemoryFile } from "./support/opfs-memory";

interface Python {
  FS: unknown;
  runPython(code: string): unknown;
}

const ROOT = path.resolve(__dirname, "../..");
const PYODIDE = path.join(ROOT, "web/public/pyodide");
let py: Python;
let opfs: MemoryDir;

/** Python's answer (a str) to `code`'s last expression. */
function python(code: string): string {
  return String(py.runPython(code));
}

beforeAll(async () => {
  const mod = (await import(pathToFileURL(path.join(PYODIDE, "pyodide.mjs")).href)) as {
    loadPyodide(options: { indexURL: string }): Promise<Python>;
  };
  py = await mod.loadPyodide({ indexURL: PYODIDE + path.sep });
  // What a worker has: FileReaderSync (over the stand-in's snapshots) and navigator.storage.
  class FileReaderSync {
    readAsArrayBuffer(blob: Blob): ArrayBuffer {
      const bytes = bytesOf(blob);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    }
  }
  Object.assign(globalThis, { FileReaderSync });
  const storage = { getDirectory: () => Promise.resolve(opfs) };
  if (typeof globalThis.navigator === "undefined")
    Object.defineProperty(globalThis, "navigator", { value: {}, configurable: true });
  Object.defineProperty(globalThis.navigator, "storage", { value: storage, configurable: true });
}, 180_000);

beforeEach(() => {
  py.runPython("import shutil, os; shutil.rmtree('/workspace', ignore_errors=True); os.mkdir('/workspace')");
  opfs = new MemoryDir();
  MemoryFile.snapshots = 0;
  MemoryFile.reads = 0;
});

function seeded(): MemoryDir {
  const files = new MemoryDir("files");
  files.put("notes.txt", "hello notes\n").put("src/app/main.py", "print('main')\n").put("src/app/util.py", "X = 1\n");
  files.put("docs/guide.md", "# Guide\n");
  return files;
}

function lazy(files: MemoryDir): LazyWorkspace {
  return new LazyWorkspace(py.FS as LazyFS, files as unknown as FileSystemDirectoryHandle, bytesOf);
}

describe("the workspace on demand", () => {
  it("shows nothing and reads nothing until a folder is listed", () => {
    lazy(seeded());
    expect(python("str(os.listdir('/workspace'))")).toBe("[]");
    expect(MemoryFile.snapshots + MemoryFile.reads).toBe(0);
  });

  it("lists the folders on the way to a path: files with their size, bytes only when read", async () => {
    const ws = lazy(seeded());
    await ws.path("src/app/main.py");
    expect(python("str(sorted(os.listdir('/workspace')))")).toBe("['docs', 'notes.txt', 'src']");
    expect(python("str(os.path.getsize('/workspace/src/app/main.py'))")).toBe("14");
    expect(python("str(os.listdir('/workspace/docs'))")).toBe("[]"); // not listed yet
    expect(MemoryFile.reads).toBe(0);
    expect(python("open('/workspace/src/app/main.py').read()")).toBe("print('main')\n");
    expect(python("open('/workspace/src/app/main.py').read()")).toBe("print('main')\n");
    expect([MemoryFile.reads, ws.loads]).toEqual([1, 1]);
  });

  it("lists a whole tree, and a listing with a depth stops there", async () => {
    const ws = lazy(seeded());
    await ws.list([""], 1); // the root, then src and docs: no deeper
    expect(python("str(sorted(os.listdir('/workspace/src')))")).toBe("['app']");
    expect(python("str(os.listdir('/workspace/src/app'))")).toBe("[]");
    await ws.tree("src");
    expect(python("str(sorted(os.listdir('/workspace/src/app')))")).toBe("['main.py', 'util.py']");
  });

  it("reads the bytes of the files a listing loads together with it, not one synchronous read each", async () => {
    const files = new MemoryDir("files");
    for (let i = 0; i < 20; i++) files.put(`.agents/skills/s${i}/SKILL.md`, `---\nname: s${i}\n---\n`);
    files.put(".agents/skills/s0/run.py", "print(0)\n");
    const ws = lazy(files);
    await ws.list([".agents/skills"], null, ["SKILL.md"]);
    expect(python("str(len(os.listdir('/workspace/.agents/skills')))")).toBe("20");
    expect(python("open('/workspace/.agents/skills/s7/SKILL.md').read()")).toBe("---\nname: s7\n---\n");
    expect(python("str(os.path.getsize('/workspace/.agents/skills/s3/SKILL.md'))")).toBe("17");
    expect([MemoryFile.reads, ws.loads]).toEqual([0, 1]); // the bytes came with the listing
    expect(python("open('/workspace/.agents/skills/s0/run.py').read()")).toBe("print(0)\n");
    expect(MemoryFile.reads).toBe(1); // a file the listing did not load is read when used
  });

  it("keeps what memory holds over what a later listing finds", async () => {
    const ws = lazy(seeded());
    python("open('/workspace/notes.txt', 'w').write('mine')");
    await ws.path("");
    expect(python("open('/workspace/notes.txt').read()")).toBe("mine");
    await ws.path("docs");
    python("os.remove('/workspace/docs/guide.md')");
    await ws.tree("docs");
    expect(python("str(os.listdir('/workspace/docs'))")).toBe("[]");
  });

  it("overwrites a file without reading it, and appends to its real bytes", async () => {
    const ws = lazy(seeded());
    await ws.path("src/app");
    python("open('/workspace/src/app/main.py', 'w').write('new')");
    expect(MemoryFile.reads).toBe(0);
    python("open('/workspace/src/app/util.py', 'a').write('Y = 2\\n')");
    expect(python("open('/workspace/src/app/util.py').read()")).toBe("X = 1\nY = 2\n");
    expect(python("open('/workspace/src/app/main.py').read()")).toBe("new");
  });

  it("turns a file that changed under it into an I/O error for Python, not a crash", async () => {
    const files = seeded();
    const ws = lazy(files);
    await ws.path("");
    const writable = await (await files.getFileHandle("notes.txt")).createWritable();
    await writable.write(new TextEncoder().encode("rewritten by another tab"));
    await writable.close();
    expect(
      python(
        "exec(\"try:\\n open('/workspace/notes.txt').read(); r = 'read'\\nexcept OSError as e: r = f'OSError {e.errno}'\"); r",
      ),
    ).toBe("OSError 29");
  });
});

describe("folders read ahead at boot (workspace-ahead.ts)", () => {
  const SKILLS = [{ rel: ".agents/skills", load: ["SKILL.md"] }];

  function skills(): MemoryDir {
    const files = new MemoryDir("files");
    for (let i = 0; i < 20; i++) files.put(`.agents/skills/s${i}/SKILL.md`, `---\nname: s${i}\n---\n`);
    return files.put(".agents/skills/s0/scripts/run.py", "print(0)\n").put("notes.txt", "hello\n");
  }

  /** A read ahead of `files`, finished (taking a folder it never read waits for the whole read). */
  async function readAhead(files: MemoryDir | null, limit?: number): Promise<ReadAhead> {
    const ahead = new ReadAhead(Promise.resolve(files as unknown as FileSystemDirectoryHandle | null), SKILLS, limit);
    await ahead.take("not read");
    return ahead;
  }

  it("lists a folder from what was read ahead, without reading it from OPFS again", async () => {
    const files = skills();
    const ahead = await readAhead(files);
    expect(MemoryFile.snapshots).toBe(21); // every file of the skills' tree, before anything asked
    const ws = lazy(files);
    ws.useReadAhead(ahead);
    await ws.list([".agents/skills"], null, ["SKILL.md"]);
    expect(MemoryFile.snapshots).toBe(21 + 1); // notes.txt: the root is not read ahead, it is on the way
    expect(python("str(len(os.listdir('/workspace/.agents/skills')))")).toBe("20");
    expect(python("open('/workspace/.agents/skills/s7/SKILL.md').read()")).toBe("---\nname: s7\n---\n");
    expect(python("open('/workspace/.agents/skills/s0/scripts/run.py').read()")).toBe("print(0)\n");
    expect(MemoryFile.reads).toBe(1); // run.py was not loaded ahead; SKILL.md was
    expect(await ahead.take(".agents/skills/s7")).toBeUndefined(); // taken once
  });

  it("keeps what memory holds over what was read ahead", async () => {
    const files = skills();
    const ahead = await readAhead(files);
    const ws = lazy(files);
    ws.useReadAhead(ahead);
    await ws.path(".agents/skills");
    python("os.makedirs('/workspace/.agents/skills/s3', exist_ok=True)");
    python("open('/workspace/.agents/skills/s3/SKILL.md', 'w').write('mine')");
    python("os.makedirs('/workspace/.agents/skills/new')");
    await ws.tree(".agents/skills");
    expect(python("open('/workspace/.agents/skills/s3/SKILL.md').read()")).toBe("mine");
    expect(python("open('/workspace/.agents/skills/s4/SKILL.md').read()")).toBe("---\nname: s4\n---\n");
    expect(python("str(os.listdir('/workspace/.agents/skills/new'))")).toBe("[]");
  });

  it("lists from OPFS what the limit left out, and everything when nothing was read ahead", async () => {
    const files = skills();
    const ahead = await readAhead(files, 5); // the skills folder's 20 entries use it up: no folder below
    expect(MemoryFile.snapshots).toBe(0);
    const ws = lazy(files);
    ws.useReadAhead(ahead);
    await ws.tree(".agents/skills");
    expect(python("open('/workspace/.agents/skills/s19/SKILL.md').read()")).toBe("---\nname: s19\n---\n");
    expect(python("open('/workspace/.agents/skills/s0/scripts/run.py').read()")).toBe("print(0)\n");

    py.runPython("import shutil; shutil.rmtree('/workspace'); os.mkdir('/workspace')");
    const none = lazy(files);
    none.useReadAhead(await readAhead(null)); // another tab holds the workspace: nothing read ahead
    await none.tree(".agents/skills");
    expect(python("str(len(os.listdir('/workspace/.agents/skills')))")).toBe("20");
  });
});

describe("a flush of the workspace on demand", () => {
  async function opened(): Promise<{ p: Persistence; files: MemoryDir }> {
    const files = seeded();
    const ws = await (
      await opfs.getDirectoryHandle("tidepool", { create: true })
    ).getDirectoryHandle("workspaces", { create: true });
    (await ws.getDirectoryHandle("default", { create: true })).children.set("files", files);
    const p = await Persistence.open(py.FS as never);
    if (!p) throw new Error("no persistence");
    return { p, files };
  }

  it("writes what changed, and never deletes in a folder that was not listed", async () => {
    const { p, files } = await opened();
    await p.workspace.path("src");
    python("os.makedirs('/workspace/src/app', exist_ok=True); open('/workspace/src/app/new.py', 'w').write('n')");
    expect(await p.flush({ what: "workspace", paths: ["src"] })).toEqual({ ok: true });
    expect(files.text("src/app/new.py")).toBe("n");
    expect(files.text("src/app/main.py")).toBe("print('main')\n"); // src/app was never listed: kept
    expect(MemoryFile.reads).toBe(0); // nothing untouched was read back to be written
  });

  it("moves a file it never read: the new place gets the bytes, then the old one goes", async () => {
    const { p, files } = await opened();
    await p.workspace.path("docs/guide.md");
    python("os.rename('/workspace/docs/guide.md', '/workspace/guide.md')");
    expect(await p.flush({ what: "workspace", paths: ["docs/guide.md", "guide.md"] })).toEqual({ ok: true });
    expect([files.text("guide.md"), files.text("docs/guide.md")]).toEqual(["# Guide\n", null]);
  });

  it("mirrors a listed folder whole, deletions included", async () => {
    const { p, files } = await opened();
    await p.workspace.tree("src");
    python("os.remove('/workspace/src/app/util.py')");
    expect(await p.flush({ what: "workspace", paths: ["src"] })).toEqual({ ok: true });
    expect([files.text("src/app/util.py"), files.text("src/app/main.py")]).toEqual([null, "print('main')\n"]);
  });
});
