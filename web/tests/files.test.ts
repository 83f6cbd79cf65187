/**
 * The files panel's worker side (workspace-fs.ts) on a real folder (node:fs standing in for
 * Pyodide's FS, same calls), the zip export read back with fflate, and the approval diff's line kinds.
 */

import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  mkdirSync,
  existsSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeArgument, diffLineKind, looksLikeDiff } from "../src/ui/chat/diff-view";
import type { FlushOutcome } from "../src/worker/persistence";
import {
  baseName,
  decodeText,
  handleWorkspaceRequest,
  MAX_VIEW_BYTES,
  WorkspaceFiles,
  type WorkspacePyFS,
} from "../src/worker/workspace-fs";

const DIR_MODE = 0o040000;

/** Pyodide's FS calls on a real folder: `/workspace/...` maps to `<tmp>/workspace/...`. */
function diskFS(base: string): WorkspacePyFS {
  const at = (p: string): string => join(base, p);
  return {
    readFile: (p) => new Uint8Array(readFileSync(at(p))),
    writeFile: (p, data) => writeFileSync(at(p), data),
    mkdirTree: (p) => void mkdirSync(at(p), { recursive: true }),
    analyzePath: (p) => ({ exists: existsSync(at(p)) }),
    stat: (p) => {
      const s = statSync(at(p));
      return { mode: s.isDirectory() ? DIR_MODE : 0o100644, size: s.size } as { mode: number };
    },
    isDir: (mode) => (mode & 0o170000) === DIR_MODE,
    readdir: (p) => [".", "..", ...readdirSync(at(p))],
    unlink: (p) => unlinkSync(at(p)),
    rmdir: (p) => rmdirSync(at(p)),
  };
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
let base = "";
let saved: string[][] = [];
let files: WorkspaceFiles;
const save = (paths: string[]): Promise<FlushOutcome> => {
  saved.push(paths);
  return Promise.resolve({ ok: true });
};

function put(rel: string, content: string): void {
  const full = join(base, "workspace", rel);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, content);
}

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "tidepool-files-"));
  mkdirSync(join(base, "workspace"));
  saved = [];
  files = new WorkspaceFiles(diskFS(base), save);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("listing", () => {
  it("lists folders before files, sorted, with sizes, and leaves .agent out", async () => {
    put("b.txt", "bb");
    put("a.txt", "a");
    put("notes/x.md", "xyz");
    put(".agent/results/c1.txt", "spilled");
    expect(await files.list()).toEqual([
      { path: "notes", kind: "dir", size: 0 },
      { path: "notes/x.md", kind: "file", size: 3 },
      { path: "a.txt", kind: "file", size: 1 },
      { path: "b.txt", kind: "file", size: 2 },
    ]);
  });
});

describe("reading", () => {
  it.each([
    { id: "text", content: "héllo\n", want: { text: "héllo\n", binary: false, truncated: false } },
    { id: "binary", content: "a\0b", want: { text: "", binary: true, truncated: false } },
  ])("reads $id files", async ({ content, want }) => {
    put("f", content);
    expect(await files.read("f")).toMatchObject({ path: "f", ...want });
  });

  it("cuts a big file to its head", async () => {
    put("big.txt", "x".repeat(MAX_VIEW_BYTES + 10));
    const view = await files.read("big.txt");
    expect(view.truncated).toBe(true);
    expect(view.text.length).toBe(MAX_VIEW_BYTES);
  });

  it.each([
    { id: "escape", path: "../secret", code: "invalid" },
    { id: "absolute", path: "/etc/passwd", code: "invalid" },
    { id: "missing", path: "nope.txt", code: "not_found" },
  ])("refuses $id paths", async ({ path, code }) => {
    const result = await handleWorkspaceRequest(files, { op: "read", path });
    expect(result).toMatchObject({ ok: false, code });
  });
});

describe("changing", () => {
  it("uploads to the root (folder parts dropped) and saves those paths", async () => {
    const result = await handleWorkspaceRequest(files, {
      op: "upload",
      files: [{ name: "dir/up.txt", data: text("up") }],
    });
    expect(result).toEqual({ ok: true, value: { changed: ["up.txt"], saved: true } });
    expect(readFileSync(join(base, "workspace", "up.txt"), "utf8")).toBe("up");
    expect(saved).toEqual([["up.txt"]]);
  });

  it("deletes a folder with its contents and saves the path", async () => {
    put("d/e/f.txt", "f");
    put("keep.txt", "k");
    expect(await handleWorkspaceRequest(files, { op: "delete", path: "d" })).toEqual({
      ok: true,
      value: { changed: ["d"], saved: true },
    });
    expect((await files.list()).map((e) => e.path)).toEqual(["keep.txt"]);
    expect(saved).toEqual([["d"]]);
  });

  it("says when this tab saves nothing", async () => {
    const unsaved = new WorkspaceFiles(diskFS(base), null);
    const result = await handleWorkspaceRequest(unsaved, { op: "upload", files: [{ name: "a", data: text("a") }] });
    expect(result).toEqual({ ok: true, value: { changed: ["a"], saved: false } });
  });

  it("reports a failed save", async () => {
    const failing = new WorkspaceFiles(diskFS(base), () =>
      Promise.resolve({ ok: false, code: "quota_exceeded", message: "full" }),
    );
    const result = await handleWorkspaceRequest(failing, { op: "upload", files: [{ name: "a", data: text("a") }] });
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/not saved: full/) });
  });

  it("answers not_ready before the workspace is open", async () => {
    expect(await handleWorkspaceRequest(null, { op: "list" })).toMatchObject({ ok: false, code: "not_ready" });
  });
});

describe("export", () => {
  it("packs every file (internal ones too) into a zip that unpacks to the same bytes", async () => {
    put("a.txt", "alpha");
    put("sub/b.bin", "\u0000\u0001");
    put(".agent/results/r.txt", "r");
    const { zip, files: count } = await files.exportZip();
    const back = unzipSync(zip);
    const decoded = Object.fromEntries(
      Object.entries(back)
        .filter(([p]) => !p.endsWith("/"))
        .map(([p, d]) => [p, new TextDecoder().decode(d)]),
    );
    expect(decoded).toEqual({ "a.txt": "alpha", "sub/b.bin": "\u0000\u0001", ".agent/results/r.txt": "r" });
    expect(count).toBe(3);
  });
});

describe("helpers", () => {
  it.each([
    { name: "a.txt", want: "a.txt" },
    { name: "C:\\x\\y.txt", want: "y.txt" },
    { name: "..", want: null },
    { name: "dir/", want: null },
  ])("baseName($name)", ({ name, want }) => {
    if (want === null) expect(() => baseName(name)).toThrow(/usable/);
    else expect(baseName(name)).toBe(want);
  });

  it("decodes text unless it is binary", () => {
    expect(decodeText(text("ok"), false)).toBe("ok");
    expect(decodeText(new Uint8Array([0xff, 0xfe]), false)).toBeNull();
  });

  it.each([
    { line: "+++ b/a.txt", kind: "file" },
    { line: "--- a/a.txt", kind: "file" },
    { line: "@@ -1 +1 @@", kind: "hunk" },
    { line: "+new", kind: "add" },
    { line: "-old", kind: "del" },
    { line: " same", kind: "context" },
  ])("diff line $line is $kind", ({ line, kind }) => {
    expect(diffLineKind(line)).toBe(kind);
  });

  it("tells a diff from plain preview text", () => {
    expect(looksLikeDiff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")).toBe(true);
    expect(looksLikeDiff("delete notes.txt (12 bytes)")).toBe(false);
  });

  it.each([
    { id: "object", args: { code: "print(1)\nprint(2)", timeout_s: 3 }, want: "print(1)\nprint(2)" },
    { id: "json-text", args: '{"code": "x = 1"}', want: "x = 1" },
    { id: "no-code", args: { path: "a" }, want: null },
    { id: "not-json", args: "print(", want: null },
  ])("codeArgument ($id)", ({ args, want }) => {
    expect(codeArgument(args)).toBe(want);
  });
});
