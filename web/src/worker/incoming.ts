/**
 * Large data between the adapter and the runtime goes through Pyodide's file system, not in a frame.
 * Uploads: the adapter writes the bytes under INCOMING_DIR, the request's params carry only the path
 * (and the size), and the file is removed once the runtime has answered. Results too large for a frame:
 * the runtime writes them under OUTGOING_DIR and names the file (`result_file`); `take` reads and removes it.
 */

import { INCOMING_DIR } from "../protocol/constants.gen";
import type { Attachment } from "../protocol/main-worker-messages";

/** The parts of Pyodide's FS used here. */
export interface IncomingFS {
  mkdirTree(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
  unlink(path: string): void;
  readFile(path: string): Uint8Array;
}

export class Incoming {
  constructor(
    private readonly fs: IncomingFS,
    private readonly dir = INCOMING_DIR,
  ) {}

  /** Store `file` for request `id`; returns its path in the runtime's file system. */
  store(id: string, file: Attachment): string {
    const path = `${this.dir}/${safeId(id)}${extension(file.name)}`;
    this.fs.mkdirTree(this.dir);
    this.fs.writeFile(path, file.data);
    return path;
  }

  /** The bytes of a file the runtime stored for us; the file is removed. */
  take(path: string): Uint8Array {
    const data = this.fs.readFile(path);
    this.remove(path);
    return data;
  }

  /** Remove a stored file (gone already is fine). */
  remove(path: string): void {
    try {
      this.fs.unlink(path);
    } catch {
      // already removed
    }
  }
}

/** The file name's ending as the runtime may need it (`.tar.gz`, `.zip`, …), or "". */
export function extension(name: string): string {
  const match = /(\.tar\.gz|\.[A-Za-z0-9]{1,10})$/.exec(name.toLowerCase());
  return match?.[1] ?? "";
}

function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "_");
}
