/**
 * The one way the page hands a file to the person: a download whose blob is `application/octet-stream`,
 * whatever the file holds (a session export, a recording, the workspace zip). A blob URL belongs to the
 * app's origin; typed `text/html` or `image/svg+xml`, a browser that opens it from its download bar or a
 * tab would run its scripts with the app's storage. As octet-stream it is only ever saved. Its object
 * URL is revoked once the download has started.
 */

import { el } from "./dom";

/** The type every download carries: never rendered, only saved. */
export const DOWNLOAD_TYPE = "application/octet-stream";
/** How long an object URL lives after its click (the browser has taken the bytes long before). */
export const REVOKE_AFTER_MS = 1_000;

export function downloadBlob(content: string | Uint8Array | Blob): Blob {
  return new Blob([content as BlobPart], { type: DOWNLOAD_TYPE });
}

/** Save `content` (text is saved as UTF-8; a Blob, e.g. an OPFS file, is not read here) under `filename` through the browser's download. */
export function saveFile(filename: string, content: string | Uint8Array | Blob): void {
  const url = URL.createObjectURL(downloadBlob(content));
  const link = el("a", { href: url, download: filename, rel: "noopener", hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
