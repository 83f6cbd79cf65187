/**
 * Writes the whole profile as one backup file (docs/storage.md, "Backup"), streaming: fflate's `Zip`
 * emits the file in chunks as entries are pushed, gathered into writes of a few MB to the sink (an OPFS
 * file, written with createWritable); the next file is read while one is hashed and written. Workspace
 * files are stored (not deflated: most large files are packed already, and storing keeps the backup
 * near copy speed), with their CRC-32 from crc32.ts; the JSON parts are deflated. At most two workspace
 * files are in memory at a time (a sha256 needs all of a file: WebCrypto has no streaming digest); the
 * workspace as a whole never is. */

import { Zip, ZipDeflate, type AsyncFlateStreamHandler, type ZipInputFile } from "fflate";
import { crc32 } from "./crc32";
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
import { IN_FLIGHT, readAhead } from "./pipeline";

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

/** The sink gets writes of about this size: each write is a round trip to the browser's storage. */
const WRITE_BYTES = 8 * 1024 * 1024;
/** A stored entry is pushed in pieces of this size (the CRC and the sink keep pace with each). */
const PIECE = 8 * 1024 * 1024;

/**
 * A stored (not deflated) entry for fflate's `Zip`, with its CRC-32 computed here (crc32.ts): fflate's
 * `ZipInputFile` lets the entry bring its own, and fflate's byte-a-step CRC was the backup's largest cost.
 */
class StoredEntry implements ZipInputFile {
  readonly compression = 0;
  size = 0;
  crc = 0;
  private running = 0;
  ondata?: AsyncFlateStreamHandler;

  constructor(readonly filename: string) {}

  push(chunk: Uint8Array, final: boolean): void {
    this.running = crc32(chunk, this.running);
    this.size += chunk.length;
    if (final) this.crc = this.running;
    this.ondata?.(null, chunk, final);
  }
}

/**
 * Push entries into one zip; its chunks (a header, the data, a descriptor per entry) are gathered into
 * writes of about WRITE_BYTES, each written to the sink in order while the next one fills: at most one
 * write in flight and one filling, so the backup's memory stays bounded.
 */
class ZipStream {
  private readonly zip: Zip;
  private writing: Promise<void> = Promise.resolve();
  private gathered: Uint8Array[] = [];
  private gatheredBytes = 0;
  private error: Error | null = null;
  readonly entries: ManifestEntry[] = [];
  written = 0;

  constructor(private readonly sink: ByteSink) {
    this.zip = new Zip((err, chunk) => {
      if (err) this.error = err;
      else {
        this.written += chunk.length;
        this.gathered.push(chunk);
        this.gatheredBytes += chunk.length;
      }
    });
  }

  /** A JSON part: deflated, in memory already. */
  async addDeflated(path: string, data: Uint8Array, listed = true): Promise<void> {
    if (listed) this.entries.push({ path, size: data.length, sha256: await sha256Hex(data) });
    const entry = new ZipDeflate(path, { level: 6 });
    this.zip.add(entry);
    entry.push(data, true);
    await this.drain(false);
  }

  /** A file's bytes (and their sha256, taken as it was read), stored. */
  async addStored(path: string, data: Uint8Array, sha256: string): Promise<void> {
    const entry = new StoredEntry(path);
    this.zip.add(entry);
    if (data.length === 0) entry.push(data, true);
    for (let at = 0; at < data.length; at += PIECE) {
      entry.push(data.subarray(at, at + PIECE), at + PIECE >= data.length);
      await this.drain(false);
    }
    this.entries.push({ path, size: data.length, sha256 });
  }

  async end(): Promise<void> {
    this.zip.end();
    await this.drain(true);
    await this.writing;
    if (this.error) throw this.error;
  }

  /** Hand what was gathered to the sink once there is a write's worth (or all of it, at the end). */
  private async drain(all: boolean): Promise<void> {
    if (this.error) throw this.error;
    if (this.gatheredBytes === 0 || (!all && this.gatheredBytes < WRITE_BYTES)) return;
    const parts = this.gathered;
    const chunk = parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts, this.gatheredBytes);
    this.gathered = [];
    this.gatheredBytes = 0;
    await this.writing; // backpressure: the sink has taken the last write before this one is handed over
    this.writing = this.sink.write(chunk);
  }
}

/** A file's bytes and their sha256 (WebCrypto: off this thread, so the next files hash while one is zipped). */
async function readHashed(file: FileSystemFileHandle): Promise<{ data: Uint8Array; sha256: string }> {
  const data = new Uint8Array(await (await file.getFile()).arrayBuffer());
  return { data, sha256: await sha256Hex(data) };
}

function concat(parts: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
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
  await zip.addDeflated(STATE_ENTRY, stateBytes);
  step(stateBytes.length);
  await zip.addDeflated(SETTINGS_ENTRY, settingsBytes);
  step(settingsBytes.length);
  // The next files are read and hashed while one is zipped and written (IN_FLIGHT bounds the bytes held).
  const sized = files.map((f, i) => ({ ...f, size: sizes[i] ?? 0 }));
  for await (const [file, { data, sha256 }] of readAhead(
    sized,
    (f) => f.size,
    (f) => readHashed(f.handle),
    IN_FLIGHT,
  )) {
    await zip.addStored(file.entry, data, sha256);
    step(data.length);
  }
  await zip.addDeflated(MANIFEST, manifestBytes(state.app_version, zip.entries), false);
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
