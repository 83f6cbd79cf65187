/**
 * Reads a zip from a Blob (a chosen File: never loaded whole) through its central directory, refusing
 * what a backup may not be: no end record (not a zip, or truncated), ZIP64, encryption, methods other
 * than store and deflate, entries outside the file or overlapping the directory, too many entries,
 * declared sizes past the limits, ratios of a zip bomb. `read` unpacks one entry and stops as soon as
 * it unpacks to more than it declared (a lying header cannot make it allocate more).
 */

import { Inflate } from "fflate";
import { BackupRefused, LIMITS } from "./backup-format";

export interface ZipEntry {
  name: string;
  method: number;
  packed: number;
  size: number;
  offset: number;
  dir: boolean;
}

const EOCD_SIG = 0x06054b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;

async function bytesAt(blob: Blob, start: number, end: number): Promise<Uint8Array> {
  return new Uint8Array(await blob.slice(start, end).arrayBuffer());
}

export class ZipReader {
  private constructor(
    private readonly blob: Blob,
    readonly entries: ZipEntry[],
    private readonly directoryStart: number,
  ) {}

  static async open(blob: Blob): Promise<ZipReader> {
    const tailStart = Math.max(0, blob.size - EOCD_MIN - MAX_COMMENT);
    const tail = await bytesAt(blob, tailStart, blob.size);
    const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
    let at = -1;
    for (let i = tail.length - EOCD_MIN; i >= 0; i--) {
      if (view.getUint32(i, true) === EOCD_SIG && i + EOCD_MIN + view.getUint16(i + 20, true) === tail.length) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new BackupRefused("not_zip", "it is not a zip file, or it was cut short (no end record)");
    const count = view.getUint16(at + 10, true);
    const dirSize = view.getUint32(at + 12, true);
    const dirStart = view.getUint32(at + 16, true);
    if (count === 0xffff || dirSize === 0xffffffff || dirStart === 0xffffffff)
      throw new BackupRefused("too_large", "it is a ZIP64 file, which this version does not read");
    if (count > LIMITS.entries) throw new BackupRefused("too_large", `it holds over ${LIMITS.entries} entries`);
    if (dirStart + dirSize > tailStart + at)
      throw new BackupRefused("damaged", "its directory lies outside the file (truncated?)");
    const dir = await bytesAt(blob, dirStart, dirStart + dirSize);
    return new ZipReader(blob, parseDirectory(dir, count, dirStart), dirStart);
  }

  /** The entry's bytes, unpacked; refuses a lying size, an entry outside the file, an unknown method. */
  async read(entry: ZipEntry): Promise<Uint8Array> {
    const head = await bytesAt(this.blob, entry.offset, entry.offset + 30);
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    if (head.length < 30 || view.getUint32(0, true) !== LOCAL_SIG)
      throw new BackupRefused("damaged", `${entry.name} has no local header where the directory says`);
    const start = entry.offset + 30 + view.getUint16(26, true) + view.getUint16(28, true);
    if (start + entry.packed > this.directoryStart)
      throw new BackupRefused("damaged", `${entry.name} runs past the end of the data (truncated?)`);
    const packed = await bytesAt(this.blob, start, start + entry.packed);
    if (entry.method === 0) {
      if (packed.length !== entry.size) throw new BackupRefused("damaged", `${entry.name} is not the size it declares`);
      return packed;
    }
    return inflateBounded(packed, entry);
  }
}

function parseDirectory(dir: Uint8Array, count: number, dirStart: number): ZipEntry[] {
  const view = new DataView(dir.buffer, dir.byteOffset, dir.byteLength);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const entries: ZipEntry[] = [];
  let total = 0;
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > dir.length || view.getUint32(at, true) !== CENTRAL_SIG)
      throw new BackupRefused("damaged", "its directory is damaged");
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const packed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLen = view.getUint16(at + 28, true);
    const skip = nameLen + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const offset = view.getUint32(at + 42, true);
    let name: string;
    try {
      name = decoder.decode(dir.subarray(at + 46, at + 46 + nameLen));
    } catch {
      throw new BackupRefused("unsafe", "an entry's name is not UTF-8");
    }
    at += 46 + skip;
    if (flags & 1) throw new BackupRefused("unsafe", `${name} is encrypted`);
    if (method !== 0 && method !== 8)
      throw new BackupRefused("damaged", `${name} uses a compression this app does not read`);
    if (packed === 0xffffffff || size === 0xffffffff || offset === 0xffffffff)
      throw new BackupRefused("too_large", "it is a ZIP64 file, which this version does not read");
    if (offset >= dirStart) throw new BackupRefused("damaged", `${name} lies outside the data`);
    if (size >= LIMITS.ratioFrom && size > packed * LIMITS.ratio)
      throw new BackupRefused("too_large", `${name} would unpack to ${size} bytes from ${packed} (a zip bomb?)`);
    total += size;
    if (total > LIMITS.totalBytes)
      throw new BackupRefused("too_large", `it would unpack to over ${LIMITS.totalBytes} bytes`);
    entries.push({ name, method, packed, size, offset, dir: name.endsWith("/") });
  }
  return entries;
}

function inflateBounded(packed: Uint8Array, entry: ZipEntry): Uint8Array {
  const out = new Uint8Array(entry.size);
  let filled = 0;
  let over = false;
  const inflate = new Inflate((chunk) => {
    if (filled + chunk.length > out.length) {
      over = true;
      return;
    }
    out.set(chunk, filled);
    filled += chunk.length;
  });
  const STEP = 64 * 1024; // small steps: a bomb is stopped soon after it passes its declared size
  try {
    for (let i = 0; i < packed.length && !over; i += STEP) {
      inflate.push(packed.subarray(i, i + STEP), i + STEP >= packed.length);
    }
  } catch {
    throw new BackupRefused("damaged", `${entry.name} is damaged (it does not unpack)`);
  }
  if (over) throw new BackupRefused("too_large", `${entry.name} unpacks to more than it declares (a zip bomb?)`);
  if (filled !== entry.size)
    throw new BackupRefused("damaged", `${entry.name} is not the size it declares (truncated?)`);
  return out;
}
