/**
 * The files panel's requests on the workspace and their answers (`{type: "workspace", requestId, request}`
 * from the page, answered by the agent worker's workspace-fs.ts with a `reply`).
 */

/** What the panel asks the worker. */
export type WorkspaceRequest =
  | { op: "list" }
  | { op: "read"; path: string }
  | { op: "upload"; files: { name: string; data: Uint8Array }[] }
  | { op: "delete"; path: string }
  | { op: "export" };

export interface WorkspaceEntry {
  path: string;
  kind: "file" | "dir";
  size: number;
}

export interface FileView {
  path: string;
  size: number;
  text: string;
  /** True when the file is not UTF-8 text (then `text` is empty). */
  binary: boolean;
  /** True when only the first MAX_VIEW_BYTES (workspace-fs.ts) are in `text`. */
  truncated: boolean;
}

/** What an upload or a delete changed; `saved` is false when this tab saves nothing (no OPFS, or another tab holds the workspace). */
export interface Changed {
  changed: string[];
  saved: boolean;
}

export type WorkspaceResult =
  | { ok: true; value: WorkspaceEntry[] | FileView | Changed | { zip: Uint8Array; files: number } }
  | { ok: false; code: string; message: string };
