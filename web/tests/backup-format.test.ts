/**
 * The backup file's format (web/src/profile/): what the writer makes verifies and previews, and every
 * kind of bad file is refused whole with its reason (not a zip, truncated, foreign, too new, path
 * traversal, a zip bomb, a lying size, a sha256 that does not match, an entry the manifest does not list).
 */

import { strToU8, zipSync, type Zippable } from "fflate";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32 } from "../src/profile/crc32";
import { BackupRefused, BACKUP_FORMAT, sha256Hex } from "../src/profile/backup-format";
import { memorySink, writeBackup } from "../src/profile/backup-export";
import { verifyBackup } from "../src/profile/backup-verify";
import { ZipReader } from "../src/profile/zip-read";
import { formatBytes, statusText, storageFacts, askPersistence } from "../src/profile/storage-status";

const STATE = {
  format: "tidepool.state",
  version: 1,
  schema: 7,
  sessions: [{ id: "s-1", title: "Hi", updated: "2026" }],
  memories: [{ id: 1 }],
};

/** A flat folder as OPFS hands it out (only what walkFiles uses: entries() and getFile()). */
function folder(files: Record<string, string | Uint8Array>): FileSystemDirectoryHandle {
  const handles = Object.entries(files).map(
    ([name, data]) => [name, { kind: "file", getFile: () => Promise.resolve(new Blob([data as BlobPart])) }] as const,
  );
  return {
    entries: async function* () {
      await Promise.resolve();
      yield* handles;
    },
  } as unknown as FileSystemDirectoryHandle;
}

const RECORDINGS = { "s-1.jsonl": '{"request":1}\n', "model-lists.json": "{}", "notes.txt": "not a recording" };

async function goodBackup(
  recordings?: boolean,
  workspace: FileSystemDirectoryHandle | null = null,
): Promise<Uint8Array> {
  const sink = memorySink();
  await writeBackup(
    {
      state: () => Promise.resolve({ app_version: "0.1.0", dump: STATE }),
      settings: () =>
        Promise.resolve({ settings: { provider: "ollama" }, tool_servers: [{ name: "a", url: "http://x/" }] }),
      workspace: () => Promise.resolve(workspace),
      recordings: () => Promise.resolve(folder(RECORDINGS)),
    },
    sink,
    undefined,
    { recordings },
  );
  return new Uint8Array(await sink.blob().arrayBuffer());
}

/** A zip with a manifest that lists `files` truthfully (unless `lie` changes it). */
async function craft(
  files: Record<string, Uint8Array>,
  lie: (m: Record<string, unknown>) => void = () => undefined,
): Promise<Uint8Array> {
  const entries = await Promise.all(
    Object.entries(files).map(async ([path, data]) => ({ path, size: data.length, sha256: await sha256Hex(data) })),
  );
  const manifest: Record<string, unknown> = {
    format: BACKUP_FORMAT,
    format_version: 1,
    app_version: "0.1.0",
    created: "",
    entries,
  };
  lie(manifest);
  const tree: Zippable = { ...files, "manifest.json": strToU8(JSON.stringify(manifest)) };
  return zipSync(tree, { level: 0 });
}

async function refusal(bytes: Uint8Array): Promise<BackupRefused> {
  try {
    await verifyBackup(new Blob([bytes as BlobPart]));
  } catch (err) {
    if (err instanceof BackupRefused) return err;
    throw err;
  }
  throw new Error("the file was accepted");
}

const state = strToU8(JSON.stringify(STATE));

describe("backup format", () => {
  it("verifies what the writer made and says what it holds", async () => {
    const contents = await verifyBackup(new Blob([(await goodBackup()) as BlobPart]));
    expect(contents.manifest.app_version).toBe("0.1.0");
    expect(contents.manifest.entries.map((e) => e.path)).toEqual(["state.json", "settings.json"]);
    expect(contents.sessions).toEqual([{ id: "s-1", title: "Hi", updated: "2026" }]);
    expect(contents.memories).toBe(1);
    expect(contents.toolServers).toBe(1);
    expect(contents.recordings).toEqual([]); // not asked for: not in it
  });

  it("counts a delegated task's child session with its chat, not as a chat of its own", async () => {
    const dump = {
      ...STATE,
      version: 2,
      sessions: [
        { id: "s-1", title: "Hi", updated: "2026", agent: "researcher", agent_tasks: [{ child_session: "s-2" }] },
        { id: "s-2", title: "explore: tides", updated: "2026", agent_tasks: [] },
      ],
    };
    const contents = await verifyBackup(
      new Blob([(await craft({ "state.json": strToU8(JSON.stringify(dump)) })) as BlobPart]),
    );
    expect(contents.sessions.map((s) => s.id)).toEqual(["s-1"]);
  });

  it("holds the recordings when asked to, listed in the manifest, and only files shaped like them", async () => {
    const contents = await verifyBackup(new Blob([(await goodBackup(true)) as BlobPart]));
    const paths = contents.manifest.entries.map((e) => e.path);
    expect(paths).toEqual(["state.json", "settings.json", "recordings/model-lists.json", "recordings/s-1.jsonl"]);
    expect(contents.recordings).toEqual(["model-lists.json", "s-1.jsonl"]);
    const entry = contents.entries.get("recordings/s-1.jsonl");
    expect(new TextDecoder().decode(await contents.reader.read(entry!))).toBe('{"request":1}\n');
    const odd = await craft({ "state.json": strToU8(JSON.stringify(STATE)), "recordings/../x.jsonl": strToU8("") });
    expect((await refusal(odd)).code).toBe("unsafe");
  });

  it("stores the workspace files with the zip format's CRC-32, and stages each entry as it passes", async () => {
    const big = Uint8Array.from({ length: 9 * 1024 * 1024 + 5 }, (_, i) => (i * 7919) % 251); // over a piece
    const files = { "big.bin": big, "empty.txt": "", "a.txt": "one" };
    const zip = await goodBackup(false, folder(files));
    const crcs = centralCrcs(zip);
    expect(crcs.get("workspace/big.bin")).toBe(zlib.crc32(big));
    expect(crcs.get("workspace/empty.txt")).toBe(0);
    expect(crcs.get("workspace/a.txt")).toBe(zlib.crc32("one"));
    const staged = new Map<string, Uint8Array>();
    const contents = await verifyBackup(new Blob([zip as BlobPart]), undefined, (path, data) => {
      staged.set(path, data);
      return Promise.resolve();
    });
    expect(contents.files).toEqual(["a.txt", "big.bin", "empty.txt"]);
    expect([...staged.keys()]).toEqual(contents.manifest.entries.map((e) => e.path));
    expect(Buffer.from(staged.get("workspace/big.bin") ?? []).equals(big)).toBe(true); // (toEqual: slow on 9 MB)
    expect(staged.get("workspace/empty.txt")?.length).toBe(0);
  });

  it("computes CRC-32 as zlib does, whole or continued chunk by chunk", () => {
    const data = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 31 + (i >> 8)) & 255);
    for (const n of [0, 1, 15, 16, 17, 33, 100_003])
      expect(crc32(data.subarray(0, n))).toBe(zlib.crc32(data.subarray(0, n)));
    let running = 0;
    for (let at = 0; at < data.length; at += 4099) running = crc32(data.subarray(at, at + 4099), running);
    expect(running).toBe(zlib.crc32(data));
  });

  it("refuses a file that is not a zip, and one cut short", async () => {
    expect((await refusal(strToU8("hello"))).code).toBe("not_zip");
    const good = await goodBackup();
    expect(["not_zip", "damaged"]).toContain((await refusal(good.subarray(0, good.length - 10))).code);
    expect(["not_zip", "damaged", "mismatch"]).toContain((await refusal(good.subarray(0, good.length >> 1))).code);
  });

  it("refuses a foreign zip and one from a newer Tidepool", async () => {
    expect((await refusal(zipSync({ "a.txt": strToU8("x") }))).code).toBe("foreign");
    expect((await refusal(await craft({ "state.json": state }, (m) => (m.format = "other")))).code).toBe("foreign");
    const newer = await refusal(await craft({ "state.json": state }, (m) => (m.format_version = 99)));
    expect(newer.code).toBe("too_new");
    expect(newer.reason).toContain("newer Tidepool");
  });

  it.each(["workspace/../../evil.txt", "../evil.txt", "/etc/passwd", "workspace/a\\..\\b", "other/x"])(
    "refuses the path %s",
    async (path) => {
      const bad = await refusal(await craft({ "state.json": state, [path]: strToU8("x") }));
      expect(bad.code).toBe("unsafe");
    },
  );

  it("refuses an entry whose sha256 does not match, and one the manifest does not list", async () => {
    const altered = await craft({ "state.json": state, "workspace/a.txt": strToU8("one") }, (m) => {
      const entries = m.entries as { path: string; sha256: string }[];
      (entries[1] as { sha256: string }).sha256 = "0".repeat(64);
    });
    expect((await refusal(altered)).code).toBe("mismatch");
    const extra = await craft({ "state.json": state }, (m) => (m.entries = []));
    expect((await refusal(extra)).reason).toContain("does not list");
  });

  it("refuses a zip bomb by its declared ratio, and one whose header lies about its size", async () => {
    const zeros = new Uint8Array(32 * 1024 * 1024);
    const bomb = zipSync({ "state.json": state, "workspace/zeros.bin": [zeros, { level: 9 }] });
    const declared = await refusal(bomb);
    expect(declared.code).toBe("too_large");
    expect(declared.reason).toContain("zip bomb");
    // The same deflated bytes declaring 10 bytes unpacked (central directory's size field rewritten).
    const small = zipSync({ "workspace/zeros.bin": [new Uint8Array(200_000), { level: 9 }] });
    const dir = findCentral(small);
    new DataView(small.buffer, small.byteOffset).setUint32(dir + 24, 10, true);
    const reader = await ZipReader.open(new Blob([small as BlobPart]));
    const entry = reader.entries[0];
    if (!entry) throw new Error("no entry");
    await expect(reader.read(entry)).rejects.toThrow("unpacks to more than it declares");
  });

  it("says what to do when the data is not kept, and measures", async () => {
    const text = statusText({ persisted: false, usage: 2048, quota: 1024 ** 3, supported: true });
    expect(text).toContain("install the app");
    expect(text).toContain("back up");
    expect(formatBytes(2048)).toBe("2.0 KiB");
    const facts = await storageFacts({
      persisted: () => Promise.resolve(true),
      estimate: () => Promise.resolve({ usage: 10, quota: 20 }),
    });
    expect(facts).toEqual({ persisted: true, usage: 10, quota: 20, supported: true });
    let asked = 0;
    const granted = await askPersistence({
      persisted: () => Promise.resolve(false),
      persist: () => Promise.resolve(++asked > 0),
    });
    expect([granted, asked]).toEqual([true, 1]);
    expect((await storageFacts({})).supported).toBe(false);
  });
});

/** Each entry's CRC-32 as the zip's central directory gives it. */
function centralCrcs(zip: Uint8Array): Map<string, number> {
  const view = new DataView(zip.buffer, zip.byteOffset);
  const out = new Map<string, number>();
  for (let at = findCentral(zip); view.getUint32(at, true) === 0x02014b50;) {
    const nameLen = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLen));
    out.set(name, view.getUint32(at + 16, true));
    at += 46 + nameLen + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return out;
}

function findCentral(zip: Uint8Array): number {
  const view = new DataView(zip.buffer, zip.byteOffset);
  for (let i = 0; i < zip.length - 4; i++) if (view.getUint32(i, true) === 0x02014b50) return i;
  throw new Error("no central directory");
}
