/**
 * How skill archives reach the skills panel besides its file input: dropped onto the panel, or
 * downloaded from a URL through the app's /api/proxy.
 */

import { offlineReason } from "../../protocol/offline";
import { PROXY_PATH } from "../../protocol/routes";
import type { SkillOrigin } from "../../protocol/requests";
import { archiveNameFromUrl } from "./skills-model";

export interface Archive {
  filename: string;
  bytes: Uint8Array;
  /** A skill from a tool server: where it came from (the importer records it). */
  origin?: SkillOrigin;
}

export /** Drag and drop anywhere on the panel (`target`) imports the dropped archives; `highlight` shows where. */
function watchDrops(target: HTMLElement, highlight: HTMLElement, dropped: (files: File[]) => void): void {
  const hasFiles = (event: DragEvent): boolean => [...(event.dataTransfer?.types ?? [])].includes("Files");
  target.addEventListener("dragover", (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    highlight.classList.add("skill-drop-active");
  });
  target.addEventListener("dragleave", (event) => {
    if (!target.contains(event.relatedTarget as Node | null)) highlight.classList.remove("skill-drop-active");
  });
  target.addEventListener("drop", (event) => {
    highlight.classList.remove("skill-drop-active");
    if (!hasFiles(event)) return;
    event.preventDefault();
    dropped([...(event.dataTransfer?.files ?? [])]);
  });
}

/** Fetch an archive through the app's proxy (which refuses private addresses unless allowed). */
export async function download(url: string): Promise<Archive> {
  let response: Response;
  try {
    response = await fetch(`${PROXY_PATH}?url=${encodeURIComponent(url)}`, { credentials: "omit" });
  } catch (err) {
    const offline = offlineReason(PROXY_PATH, location.origin, navigator.onLine);
    const why = offline ?? (err instanceof Error ? err.message : String(err));
    throw new Error(`Could not download it: ${why}`, { cause: err });
  }
  if (!response.ok) throw new Error(await downloadFailure(response));
  const bytes = new Uint8Array(await response.arrayBuffer());
  const finalUrl = response.headers.get("X-Proxy-Final-Url") || url;
  const filename = archiveNameFromUrl(finalUrl, bytes) ?? archiveNameFromUrl(url, bytes);
  if (!filename) throw new Error("The download is not a .zip, .tar or .tar.gz archive.");
  return { filename, bytes };
}

async function downloadFailure(response: Response): Promise<string> {
  if (response.headers.get("X-Proxy-Error")) {
    try {
      const body = (await response.json()) as { message?: unknown };
      if (typeof body.message === "string") return `Could not download it: ${body.message}`;
    } catch {
      // fall through to the status line
    }
  }
  return `Could not download it: the server answered ${response.status} ${response.statusText}`.trim();
}
