/**
 * A skill's checked files as a tar archive (POSIX ustar), so that a skill from a tool server reaches the
 * runtime's skill importer by the road an uploaded archive takes (its validation, naming, collisions
 * and report). Regular files only; the importer checks every path again.
 */

export interface ArchiveFile {
  /** The path inside the archive, `/`-separated (`greeting/SKILL.md`). */
  path: string;
  data: Uint8Array;
}

const BLOCK = 512;

/** The files as one ustar archive. Throws when a path does not fit a ustar header (255 bytes). */
export function tarArchive(files: ArchiveFile[]): Uint8Array {
  const size = files.reduce((sum, f) => sum + BLOCK + padded(f.data.byteLength), 2 * BLOCK);
  const out = new Uint8Array(size);
  let offset = 0;
  for (const file of files) {
    out.set(header(file.path, file.data.byteLength), offset);
    out.set(file.data, offset + BLOCK);
    offset += BLOCK + padded(file.data.byteLength);
  }
  return out; // ends with two zero blocks
}

function padded(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}

function header(path: string, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const [prefix, name] = splitPath(new TextEncoder().encode(path), path);
  block.set(name, 0);
  field(block, 100, 8, octal(0o644, 7)); // mode
  field(block, 108, 8, octal(0, 7)); // uid
  field(block, 116, 8, octal(0, 7)); // gid
  field(block, 124, 12, octal(size, 11));
  field(block, 136, 12, octal(0, 11)); // mtime
  block.fill(0x20, 148, 156); // the checksum counts as spaces while it is summed
  block[156] = 0x30; // '0': a regular file
  field(block, 257, 6, "ustar\0");
  field(block, 263, 2, "00");
  block.set(prefix, 345);
  const sum = block.reduce((total, byte) => total + byte, 0);
  field(block, 148, 8, `${octal(sum, 6)}\0 `);
  return block;
}

/** ustar keeps up to 100 bytes of name and 155 of prefix, split at a `/`. */
function splitPath(bytes: Uint8Array, path: string): [Uint8Array, Uint8Array] {
  if (bytes.byteLength <= 100) return [new Uint8Array(0), bytes];
  for (let i = bytes.byteLength - 1; i > 0; i--) {
    if (bytes[i] !== 0x2f) continue;
    if (i <= 155 && bytes.byteLength - i - 1 <= 100) return [bytes.subarray(0, i), bytes.subarray(i + 1)];
  }
  throw new Error(`the path ${path.slice(0, 80)} is too long for an archive`);
}

function octal(value: number, digits: number): string {
  return value.toString(8).padStart(digits, "0");
}

function field(block: Uint8Array, at: number, length: number, text: string): void {
  block.set(new TextEncoder().encode(text).subarray(0, length), at);
}
