/**
 * Writes the whole profile as one backup file (docs/storage.md, "Backup"), streaming: fflate's `Zip`
 * emits the file in chunks as entries are pushed, and each chunk goes to the sink (an OPFS file, written
 * with createWritable) before the next file is read. Workspace files are stored (not deflated: most
 * large files are packed already, and storing keeps the backup near copy speed); the JSON parts are
 * deflated. One workspace file is in memory at a time (its sha256 needs all of it: WebCrypto has no
 * streaming digest); the workspace as a whole never is.
 */

import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import {
  entryKind,
  manifestBytes,
  RECORDINGS_PREFIX,
  MANIFEST,
  SETTINGS_ENTRY,
  sha256Hex,
  STATE_ENTRY,
  WORKSPACE_PREFIX,
  type ManifestEntry,
} from "./backup-format";
import { walkFiles, type OpfsFile } from "./opfs";

export interface ByteSink {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

export interface ExportSources {
  /** The runtime's part (request `backup_state`). */
  state(): Promise<{ app_version: string; dump: unknown }>;
  /** Settings and tool-server definitions, without any key or token. */
  settings(): Promise<unknown>;
  /** The OPFS workspace folder, or null when there is none. */
  workspace(): Promise<FileSystemDirectoryHandle | null>;
  /** The OPFS recordings folder, or null when there is none (read only when asked for). */
  recordings?(): Promise<FileSystemDirectoryHandle | null>;
}

export interface ExportOptions {
  /** Put the recordings (model traffic) in too; off by default. */
  recordings?: boolean;
}

export interface ExportSummary {
  entries: number;
  files: number;
  recordings: number;
  bytes: number;
}

const CHUNK = 1024 * 1024;

/** Push entries into one zip, each chunk written to the sink in order. */
class ZipStream {
  private readonly zip: Zip;
  private writes: Promise<void> = Promise.resolve();
  private error: Error | null = null;
  readonly entries: ManifestEntry[] = [];
  written = 0;

  constructor(sink: ByteSink) {
    this.zip = new Zip((err, chunk) => {
      if (err) this.error = err;
      else {
        this.written += chunk.length;
        this.writes = this.writes.then(() => sink.write(chunk));
      }
    });
  }

  async add(path: string, data: Uint8Array, deflate: boolean, listed = true): Promise<void> {
    if (listed) this.entries.push({ path, size: data.length, sha256: await sha256Hex(data) });
    const entry = deflate ? new ZipDeflate(path, { level: 6 }) : new ZipPassThrough(path);
    this.zip.add(entry);
    if (data.length === 0) entry.push(new Uint8Array(0), true);
    for (let at = 0; at < data.length; at += CHUNK) {
      entry.push(data.subarray(at, at + CHUNK), at + CHUNK >= data.length);
      await this.flushed(); // backpressure: the sink has taken this chunk before the next is made
    }
    await this.flushed();
  }

  async end(): Promise<void> {
    this.zip.end();
    await this.flushed();
  }

  private async flushed(): Promise<void> {
    await this.writes;
    if (this.error) throw this.error;
  }
}

export async function writeBackup(
  sources: ExportSources,
  sink: ByteSink,
  progress: (done: number, total: number) => void = () => undefined,
  options: ExportOptions = {},
): Promise<ExportSummary> {
  const encoder = new TextEncoder();
  const state = await sources.state();
  const stateBytes = encoder.encode(JSON.stringify(state.dump));
  const settingsBytes = encoder.encode(JSON.stringify(await sources.settings()));
  const dir = await sources.workspace();
  const workspace: OpfsFile[] = dir ? await walkFiles(dir) : [];
  const recordings = options.recordings ? await recordingFiles(sources) : [];
  const files = [
    ...workspace.map((f) => ({ ...f, entry: WORKSPACE_PREFIX + f.path })),
    ...recordings.map((f) => ({ ...f, entry: RECORDINGS_PREFIX + f.path })),
  ];
  const sizes = await Promise.all(files.map(async (f) => (await f.handle.getFile()).size));
  const total = stateBytes.length + settingsBytes.length + sizes.reduce((a, b) => a + b, 0);
  const zip = new ZipStream(sink);
  let done = 0;
  const step = (bytes: number): void => progress((done += bytes), total);
  await zip.add(STATE_ENTRY, stateBytes, true);
  step(stateBytes.length);
  await zip.add(SETTINGS_ENTRY, settingsBytes, true);
  step(settingsBytes.length);
  for (const file of files) {
    const data = new Uint8Array(await (await file.handle.getFile()).arrayBuffer());
    await zip.add(file.entry, data, false);
    step(data.length);
  }
  await zip.add(MANIFEST, manifestBytes(state.app_version, zip.entries), true, false);
  await zip.end();
  await sink.close();
  return {
    entries: zip.entries.length + 1,
    files: workspace.length,
    recordings: recordings.length,
    bytes: zip.written,
  };
}

/** The recordings' files (flat: a file of another shape is not one of the recording store's, and left out). */
async function recordingFiles(sources: ExportSources): Promise<OpfsFile[]> {
  const dir = sources.recordings ? await sources.recordings() : null;
  return (dir ? await walkFiles(dir) : []).filter((f) => entryKind(RECORDINGS_PREFIX + f.path) === "recording");
}

/** A sink that writes an OPFS file (atomically: the file is replaced at `close`). */
export async function opfsSink(file: FileSystemFileHandle): Promise<ByteSink> {
  const writable = await file.createWritable();
  return {
    write: (chunk) => writable.write(chunk as BufferSource),
    close: () => writable.close(),
  };
}

/** A sink that keeps the chunks (where there is no OPFS: the file is held once, as the download). */
export function memorySink(): ByteSink & { blob(): Blob } {
  const parts: Uint8Array[] = [];
  return {
    write: (chunk) => {
      parts.push(chunk);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
    blob: () => new Blob(parts as BlobPart[]),
  };
}
